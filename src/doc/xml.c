/* xml.c — an XML part into a tree with its source byte ranges (xml.h), by expat with namespace
 * processing: a start tag's and an end tag's bytes are expat's current event (its byte index
 * and count), a text's bytes the run of character-data events it is made of. */
#include "doc/xml.h"
#include "base/util.h"
#include <expat.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NS_SEP '\x01' /* between a namespace URI and the local name in expat's names */

/* Interned names: an open-addressing table of strings, each allocated once. */
typedef struct xml_pool {
    char **slot; /* [cap] */
    size_t cap, n;
} xml_pool;

static uint64_t hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static const char *intern(xml_pool *p, const char *s, size_t n)
{
    if (p->n * 2 >= p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 256;
        char **slot = calloc(cap, sizeof *slot);
        if (!slot)
            return NULL;
        for (size_t i = 0; i < p->cap; i++)
            if (p->slot[i]) {
                size_t k = hash(p->slot[i], strlen(p->slot[i])) & (cap - 1);
                while (slot[k])
                    k = (k + 1) & (cap - 1);
                slot[k] = p->slot[i];
            }
        free(p->slot);
        p->slot = slot;
        p->cap = cap;
    }
    size_t k = hash(s, n) & (p->cap - 1);
    while (p->slot[k]) {
        if (!strncmp(p->slot[k], s, n) && p->slot[k][n] == '\0')
            return p->slot[k];
        k = (k + 1) & (p->cap - 1);
    }
    if (!(p->slot[k] = malloc(n + 1)))
        return NULL;
    memcpy(p->slot[k], s, n);
    p->slot[k][n] = '\0';
    p->n++;
    return p->slot[k];
}

static void pool_free(xml_pool *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->cap; i++)
        free(p->slot[i]);
    free(p->slot);
    free(p);
}

typedef struct {
    xml_tree *t;
    XML_Parser x;
    int cur;       /* the open element, -1 before the root */
    int depth;
    int failed;    /* 1: out of memory; 2: a refused construct (msg) */
    char msg[200];
} builder;

static int grow(void *p, int *cap, int n, size_t sz)
{
    void **pp = p;
    if (n <= *cap)
        return 0;
    int c = *cap ? *cap * 2 : 64;
    while (c < n)
        c *= 2;
    void *q = realloc(*pp, (size_t)c * sz);
    if (!q)
        return -1;
    *pp = q;
    *cap = c;
    return 0;
}

/* Appends s[0..n) and a NUL to the tree's text; its offset in *at. */
static int put_text(xml_tree *t, const char *s, size_t n, size_t *at)
{
    if (t->n_text + n + 1 > t->cap_text) {
        size_t cap = t->cap_text ? t->cap_text : 4096;
        while (cap < t->n_text + n + 1)
            cap *= 2;
        char *q = realloc(t->text, cap);
        if (!q)
            return -1;
        t->text = q;
        t->cap_text = cap;
    }
    memcpy(t->text + t->n_text, s, n);
    *at = t->n_text;
    t->n_text += n;
    t->text[t->n_text++] = '\0';
    return 0;
}

static void stop(builder *b, int why, const char *msg)
{
    if (!b->failed) {
        b->failed = why;
        if (msg)
            snprintf(b->msg, sizeof b->msg, "%s", msg);
    }
    XML_StopParser(b->x, XML_FALSE);
}

/* A name from expat ("uri\1local" or "local") as interned ns and local name. */
static int split_name(builder *b, const char *qn, const char **ns, const char **name)
{
    const char *sep = strchr(qn, NS_SEP);
    *ns = sep ? intern(b->t->pool, qn, (size_t)(sep - qn)) : intern(b->t->pool, "", 0);
    *name = sep ? intern(b->t->pool, sep + 1, strlen(sep + 1)) : intern(b->t->pool, qn, strlen(qn));
    return *ns && *name ? 0 : -1;
}

/* A new node as the last child of the open element. */
static int add_node(builder *b, int kind)
{
    xml_tree *t = b->t;
    if (grow(&t->nodes, &t->cap_nodes, t->n_nodes + 1, sizeof *t->nodes))
        return -1;
    int i = t->n_nodes++;
    xml_node *n = &t->nodes[i];
    memset(n, 0, sizeof *n);
    n->kind = kind;
    n->parent = b->cur;
    n->first = n->last = n->next = -1;
    n->line = (long)XML_GetCurrentLineNumber(b->x);
    if (b->cur >= 0) {
        xml_node *p = &t->nodes[b->cur];
        if (p->last >= 0)
            t->nodes[p->last].next = i;
        else
            p->first = i;
        p->last = i;
    }
    return i;
}

static void XMLCALL on_start(void *user, const XML_Char *qn, const XML_Char **atts)
{
    builder *b = user;
    xml_tree *t = b->t;
    long at = XML_GetCurrentByteIndex(b->x);
    int count = XML_GetCurrentByteCount(b->x), i, na = 0;
    if (b->failed)
        return;
    if (++b->depth > XML_MAX_DEPTH)
        return stop(b, 2, "elements nested deeper than " "4096");
    if (b->cur < 0 && t->root >= 0)
        return stop(b, 2, "a second root element");
    if ((i = add_node(b, XML_ELEM)) < 0)
        return stop(b, 1, NULL);
    xml_node *n = &t->nodes[i];
    if (split_name(b, qn, &n->ns, &n->name))
        return stop(b, 1, NULL);
    n->s0 = (size_t)at;
    n->s1 = (size_t)at + (size_t)(count > 0 ? count : 0);
    while (atts[2 * na])
        na++;
    if (grow(&t->attrs, &t->cap_attrs, t->n_attrs + na, sizeof *t->attrs))
        return stop(b, 1, NULL);
    n = &t->nodes[i];
    n->attr = t->n_attrs;
    n->n_attr = na;
    for (int k = 0; k < na; k++) {
        xml_attr *a = &t->attrs[t->n_attrs++];
        size_t v;
        if (split_name(b, atts[2 * k], &a->ns, &a->name) ||
            put_text(t, atts[2 * k + 1], strlen(atts[2 * k + 1]), &v))
            return stop(b, 1, NULL);
        a->value = (const char *)(uintptr_t)v; /* an offset until the end (text may move) */
    }
    if (b->cur < 0)
        t->root = i;
    b->cur = i;
}

static void XMLCALL on_end(void *user, const XML_Char *qn)
{
    builder *b = user;
    long at = XML_GetCurrentByteIndex(b->x);
    int count = XML_GetCurrentByteCount(b->x);
    (void)qn;
    if (b->failed || b->cur < 0)
        return;
    xml_node *n = &b->t->nodes[b->cur];
    if (count <= 0) { /* <a/>: the start tag was all of it */
        n->e0 = n->e1 = n->s1;
    } else {
        n->e0 = (size_t)at;
        n->e1 = (size_t)at + (size_t)count;
    }
    b->depth--;
    b->cur = n->parent;
}

static int in_cdata(const builder *b);

static void XMLCALL on_chars(void *user, const XML_Char *s, int len)
{
    builder *b = user;
    xml_tree *t = b->t;
    long at = XML_GetCurrentByteIndex(b->x);
    int count = XML_GetCurrentByteCount(b->x), i;
    size_t off;
    if (b->failed || b->cur < 0)
        return;
    xml_node *p = &t->nodes[b->cur];
    /* a run of events is one text: expat cuts character data at references and line ends */
    if (p->last >= 0 && t->nodes[p->last].kind == XML_TEXT &&
        t->nodes[p->last].s1 == (size_t)at && t->nodes[p->last].cdata == in_cdata(b) &&
        t->nodes[p->last].text + t->nodes[p->last].n_text + 1 == t->n_text) {
        xml_node *n = &t->nodes[p->last];
        t->n_text--; /* over the NUL */
        if (put_text(t, s, (size_t)len, &off))
            return stop(b, 1, NULL);
        n->n_text += (size_t)len;
        n->s1 = (size_t)at + (size_t)(count > 0 ? count : 0);
        return;
    }
    if ((i = add_node(b, XML_TEXT)) < 0 || put_text(t, s, (size_t)len, &off))
        return stop(b, 1, NULL);
    xml_node *n = &t->nodes[i];
    n->s0 = (size_t)at;
    n->s1 = (size_t)at + (size_t)(count > 0 ? count : 0);
    n->e0 = n->e1 = n->s1;
    n->text = off;
    n->n_text = (size_t)len;
    n->cdata = in_cdata(b);
}

/* CDATA sections: their texts are marked (a builder keeps them as they are) */
typedef struct {
    builder b;
    int cdata;
} builder_cd;

static int in_cdata(const builder *b) { return ((const builder_cd *)b)->cdata; }

static void XMLCALL on_cdata_start(void *user) { ((builder_cd *)user)->cdata = 1; }
static void XMLCALL on_cdata_end(void *user) { ((builder_cd *)user)->cdata = 0; }

static void XMLCALL on_entity_decl(void *user, const XML_Char *name, int is_param,
                                   const XML_Char *value, int value_len, const XML_Char *base,
                                   const XML_Char *system_id, const XML_Char *public_id,
                                   const XML_Char *notation)
{
    (void)name, (void)is_param, (void)value, (void)value_len, (void)base, (void)system_id;
    (void)public_id, (void)notation;
    stop(user, 2, "an entity declaration in the DOCTYPE (refused: no entity is expanded)");
}

static void XMLCALL on_xml_decl(void *user, const XML_Char *version, const XML_Char *encoding,
                                int standalone)
{
    (void)version, (void)standalone;
    if (encoding && strcasecmp(encoding, "UTF-8") && strcasecmp(encoding, "UTF8"))
        stop(user, 2, "an encoding other than UTF-8 (only UTF-8 parts are read)");
}

int xml_parse(xml_tree *t, const char *src, size_t len, char *err, size_t errlen)
{
    builder_cd bc;
    builder *b = &bc.b;
    int rc = -1;
    memset(t, 0, sizeof *t);
    t->src = src;
    t->len = len;
    t->root = -1;
    memset(&bc, 0, sizeof bc);
    b->t = t;
    b->cur = -1;
    if (len >= 2 && (((unsigned char)src[0] == 0xFF && (unsigned char)src[1] == 0xFE) ||
                     ((unsigned char)src[0] == 0xFE && (unsigned char)src[1] == 0xFF)))
        return xerr(err, errlen, "line 1: UTF-16 (only UTF-8 parts are read)");
    if (len > (size_t)INT32_MAX)
        return xerr(err, errlen, "a part over 2 GiB");
    if (!(t->pool = calloc(1, sizeof *t->pool)) ||
        !(b->x = XML_ParserCreateNS(NULL, NS_SEP))) {
        xerr(err, errlen, "out of memory");
        goto done;
    }
    XML_SetUserData(b->x, &bc);
    XML_SetElementHandler(b->x, on_start, on_end);
    XML_SetCharacterDataHandler(b->x, on_chars);
    XML_SetCdataSectionHandler(b->x, on_cdata_start, on_cdata_end);
    XML_SetEntityDeclHandler(b->x, on_entity_decl);
    XML_SetXmlDeclHandler(b->x, on_xml_decl);
    XML_SetParamEntityParsing(b->x, XML_PARAM_ENTITY_PARSING_NEVER);
    if (XML_Parse(b->x, src, (int)len, 1) != XML_STATUS_OK || b->failed) {
        long line = (long)XML_GetCurrentLineNumber(b->x);
        long col = (long)XML_GetCurrentColumnNumber(b->x) + 1;
        if (b->failed == 1)
            xerr(err, errlen, "out of memory");
        else
            xerr(err, errlen, "line %ld, column %ld: %s", line, col,
                 b->failed ? b->msg : XML_ErrorString(XML_GetErrorCode(b->x)));
        goto done;
    }
    if (t->root < 0) {
        xerr(err, errlen, "no root element");
        goto done;
    }
    for (int i = 0; i < t->n_attrs; i++) /* the values' offsets as pointers, text final now */
        t->attrs[i].value = t->text + (uintptr_t)t->attrs[i].value;
    rc = 0;
done:
    if (b->x)
        XML_ParserFree(b->x);
    if (rc)
        xml_free(t);
    return rc;
}

void xml_free(xml_tree *t)
{
    free(t->nodes);
    free(t->attrs);
    free(t->text);
    pool_free(t->pool);
    memset(t, 0, sizeof *t);
    t->root = -1;
}

int xml_is(const xml_tree *t, int i, const char *ns, const char *name)
{
    const xml_node *n;
    if (i < 0)
        return 0;
    n = &t->nodes[i];
    return n->kind == XML_ELEM && !strcmp(n->name, name) && !strcmp(n->ns, ns);
}

const char *xml_attr_get(const xml_tree *t, int i, const char *ns, const char *name)
{
    const xml_node *n = &t->nodes[i];
    for (int k = 0; n->kind == XML_ELEM && k < n->n_attr; k++) {
        const xml_attr *a = &t->attrs[n->attr + k];
        if (!strcmp(a->name, name) && !strcmp(a->ns, ns))
            return a->value;
    }
    return NULL;
}

static int name_char(char c)
{
    return !(c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '=' || c == '/' ||
             c == '>' || c == '"' || c == '\'');
}

int xml_attr_span(const xml_tree *t, int i, const char *qname, size_t *v0, size_t *v1)
{
    const xml_node *n = &t->nodes[i];
    const char *s = t->src;
    size_t k = n->s0 + 1, end = n->s1, ql = strlen(qname);
    if (n->kind != XML_ELEM)
        return -1;
    while (k < end && name_char(s[k])) /* the element's name */
        k++;
    for (;;) { /* (the tag is well-formed: expat read it) */
        size_t a0, a1;
        char q;
        while (k < end && !name_char(s[k]) && s[k] != '"' && s[k] != '\'')
            k++;
        if (k >= end || s[k] == '>' )
            return -1;
        a0 = k;
        while (k < end && name_char(s[k]))
            k++;
        a1 = k;
        while (k < end && s[k] != '"' && s[k] != '\'')
            k++;
        if (k >= end)
            return -1;
        q = s[k++];
        size_t b0 = k;
        while (k < end && s[k] != q)
            k++;
        if (k >= end)
            return -1;
        if (a1 - a0 == ql && !memcmp(s + a0, qname, ql)) {
            *v0 = b0;
            *v1 = k;
            return 0;
        }
        k++;
    }
}

int xml_child(const xml_tree *t, int i, const char *ns, const char *name)
{
    for (int c = i >= 0 ? t->nodes[i].first : -1; c >= 0; c = t->nodes[c].next)
        if (xml_is(t, c, ns, name))
            return c;
    return -1;
}

int xml_next(const xml_tree *t, int i, int top, int skip)
{
    if (!skip && t->nodes[i].first >= 0)
        return t->nodes[i].first;
    while (i >= 0 && i != top) {
        if (t->nodes[i].next >= 0)
            return t->nodes[i].next;
        i = t->nodes[i].parent;
    }
    return -1;
}

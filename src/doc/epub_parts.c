/* epub_parts.c — the builders of an EPUB's members (epub_internal.h; docs/DOCUMENTS.md "EPUB"):
 *  - an XHTML content document (the navigation document too): read by expat first, to see the
 *    XML tree an EPUB reader sees, then through the HTML path (html_parse) with XML's escapes
 *    (XHTML defines no &nbsp;: a U+00A0 is written as the character). Where the HTML parser
 *    would read the bytes as another tree than XML's, the source is rewritten into the same
 *    XML that it does read the same: an empty element written <x/> that HTML does not know as
 *    void (HTML ignores the "/": <a id="n"/> would open an a around all that follows, <title/>
 *    would swallow the document) becomes <x></x>; a CDATA section outside script and style
 *    (HTML reads "<![CDATA[" as a comment up to the first ">") becomes its text, escaped. The
 *    html element's lang and xml:lang become the target language;
 *  - an NCX: the texts of docTitle, navLabel and navInfo, each a unit (XML's escapes), the
 *    ncx element's xml:lang the target;
 *  - the package document: each dc:title and each dc:description that holds no markup
 *    (one with escaped HTML in it, as some tools write, is kept), the guide's reference titles,
 *    the first dc:language set to the target, the package's and the translated elements'
 *    xml:lang too.
 * The NCX and the package document are doc parts over the source: everything that is not a
 * translated text or a language is kept byte for byte. */
#include "doc/epub_internal.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "doc/html.h"
#include "doc/xml.h"
#include <stdlib.h>
#include <string.h>

#define NS_SVG "http://www.w3.org/2000/svg"
#define NS_MATHML "http://www.w3.org/1998/Math/MathML"

/* The target language as an xml:lang / lang value (BCP 47: "pt_BR" written "pt-BR"), into
 * out[16]; 0 when there is none or it is no plain code (then languages are left alone). */
static int target_code(const doc_opts *o, char out[16])
{
    const char *t = o ? o->target_lang : NULL;
    size_t n = t ? strlen(t) : 0;
    if (n == 0 || n >= 16)
        return 0;
    for (size_t k = 0; k < n; k++) {
        char c = t[k] == '_' ? '-' : t[k];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-'))
            return 0;
        out[k] = c;
    }
    out[n] = '\0';
    return 1;
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* ---- the NCX and the package document: edits over the source ---- */

enum { ED_TEXT, ED_ATTR, ED_LANG };

/* One change to the source: src[a, b) written as a unit of node's decoded text (ED_TEXT:
 * character data; ED_ATTR: an attribute value, its quotes included in [a, b), written between
 * double quotes) or as the target language (ED_LANG). In source order, never overlapping. */
typedef struct {
    size_t a, b;
    int kind;
    const char *text; /* ED_TEXT, ED_ATTR: the decoded text (in the tree) */
    size_t len;
    long line;
} edit;

typedef struct {
    edit *e;
    int n, cap;
} edits;

static int add_edit(edits *es, edit e)
{
    if (es->n > 0 && e.a < es->e[es->n - 1].b)
        return 0; /* (overlaps the one before: not possible in a well-formed tree; skipped) */
    if (doc_grow(&es->e, &es->cap, es->n + 1, sizeof *es->e))
        return -1;
    es->e[es->n++] = e;
    return 0;
}

/* The element i's text as an ED_TEXT edit, when it holds one text and nothing else (not a
 * CDATA section: its bytes are not escaped text); 0 and nothing added otherwise. */
static int text_edit(edits *es, const xml_tree *t, int i, int kind)
{
    const xml_node *n = &t->nodes[i];
    int c = n->first;
    if (c < 0 || t->nodes[c].next >= 0 || t->nodes[c].kind != XML_TEXT || t->nodes[c].cdata)
        return 0;
    const xml_node *x = &t->nodes[c];
    return add_edit(es, (edit){x->s0, x->s1, kind, t->text + x->text, x->n_text, x->line});
}

/* The value of i's attribute written qname as an edit of kind (quotes included for ED_ATTR). */
static int attr_edit(edits *es, const xml_tree *t, int i, const char *qname, const char *ns,
                     const char *name, int kind)
{
    size_t v0, v1;
    const char *v = xml_attr_get(t, i, ns, name);
    if (!v || xml_attr_span(t, i, qname, &v0, &v1))
        return 0;
    if (kind == ED_ATTR)
        return add_edit(es, (edit){v0 - 1, v1 + 1, kind, v, strlen(v), t->nodes[i].line});
    return v1 > v0 ? add_edit(es, (edit){v0, v1, kind, NULL, 0, t->nodes[i].line}) : 0;
}

/* Appends s[0..n), whitespace runs as single spaces and trimmed, to a new unit written in
 * place (escape esc); nothing when no text is left (then the bytes are kept by the caller). */
static int put_text_unit(doc *d, const char *s, size_t n, doc_escape esc, long line, int *made,
                         char *err, size_t errlen)
{
    char *buf = malloc(n + 1);
    size_t k = 0;
    int u, rc = -1;
    *made = 0;
    if (!buf)
        return xerr(err, errlen, "out of memory");
    for (size_t i = 0; i < n; i++) {
        if (is_space(s[i])) {
            if (k > 0 && buf[k - 1] != ' ')
                buf[k++] = ' ';
        } else {
            buf[k++] = s[i];
        }
    }
    while (k > 0 && buf[k - 1] == ' ')
        k--;
    if (k == 0) {
        rc = 0;
        goto done;
    }
    if (doc_new_unit(d, esc, line, &u, err, errlen) ||
        doc_unit_text(d, u, buf, k, err, errlen) || doc_put_unit(d, u, err, errlen))
        goto done;
    *made = 1;
    rc = 0;
done:
    free(buf);
    return rc;
}

/* The doc of t's source with the edits made. */
static int build_edits(doc *d, const xml_tree *t, const edits *es, const char *lang, char *err,
                       size_t errlen)
{
    const char *s = t->src;
    size_t at = 0;
    for (int i = 0; i < es->n; i++) {
        const edit *e = &es->e[i];
        size_t a = e->a, b = e->b;
        int made;
        if (e->kind == ED_TEXT) { /* the text's own leading and trailing blanks are kept */
            while (a < b && is_space(s[a]))
                a++;
            while (b > a && is_space(s[b - 1]))
                b--;
        }
        if (doc_keep(d, s + at, a - at, err, errlen))
            return -1;
        if (e->kind == ED_LANG) {
            if (!lang) {
                if (doc_keep(d, s + a, b - a, err, errlen))
                    return -1;
            } else {
                char *c = doc_copy(d, lang, strlen(lang));
                if (!c || doc_keep(d, c, strlen(lang), err, errlen))
                    return c ? -1 : xerr(err, errlen, "out of memory");
            }
        } else if (e->kind == ED_ATTR) {
            if (doc_keep(d, "\"", 1, err, errlen) ||
                put_text_unit(d, e->text, e->len, DOC_ESC_XML_ATTR, e->line, &made, err,
                              errlen) ||
                (!made && doc_keep(d, s + a + 1, b - a - 2, err, errlen)) ||
                doc_keep(d, "\"", 1, err, errlen))
                return -1;
        } else {
            if (put_text_unit(d, e->text, e->len, DOC_ESC_XML, e->line, &made, err, errlen) ||
                (!made && doc_keep(d, s + a, b - a, err, errlen)))
                return -1;
        }
        at = b;
    }
    return doc_keep(d, s + at, t->len - at, err, errlen);
}

/* Parses d->src as XML into t; the message says it is no well-formed XML. */
static int parse_part(doc *d, xml_tree *t, char *err, size_t errlen)
{
    char e[XLATE_ERRLEN];
    if (xml_parse(t, d->src, d->src_len, e, sizeof e))
        return xerr(err, errlen, "%s", e);
    return 0;
}

int epub_build_ncx(doc *d, const doc_opts *o, const char *member, char *err, size_t errlen)
{
    xml_tree t;
    edits es = {NULL, 0, 0};
    char lang[16];
    int rc = -1, has_lang = target_code(o, lang);
    (void)member;
    if (parse_part(d, &t, err, errlen))
        return -1;
    if (!xml_is(&t, t.root, EPUB_NS_NCX, "ncx")) {
        xerr(err, errlen, "line %ld: the root element is not an NCX's ncx",
             t.nodes[t.root].line);
        goto done;
    }
    if (attr_edit(&es, &t, t.root, "xml:lang", EPUB_NS_XML, "lang", ED_LANG))
        goto oom;
    for (int i = t.root; i >= 0; i = xml_next(&t, i, t.root, 0)) {
        int p = t.nodes[i].parent;
        if (xml_is(&t, i, EPUB_NS_NCX, "text") &&
            (xml_is(&t, p, EPUB_NS_NCX, "docTitle") || xml_is(&t, p, EPUB_NS_NCX, "navLabel") ||
             xml_is(&t, p, EPUB_NS_NCX, "navInfo")) &&
            text_edit(&es, &t, i, ED_TEXT))
            goto oom;
    }
    rc = build_edits(d, &t, &es, has_lang ? lang : NULL, err, errlen);
    goto done;
oom:
    xerr(err, errlen, "out of memory");
done:
    free(es.e);
    xml_free(&t);
    return rc;
}

/* 1 when the text of element i holds markup (a '<': escaped HTML in a description). */
static int holds_markup(const xml_tree *t, int i)
{
    int c = t->nodes[i].first;
    return c >= 0 && t->nodes[c].kind == XML_TEXT &&
           memchr(t->text + t->nodes[c].text, '<', t->nodes[c].n_text) != NULL;
}

int epub_build_opf(doc *d, const doc_opts *o, const char *member, char *err, size_t errlen)
{
    xml_tree t;
    edits es = {NULL, 0, 0};
    char lang[16];
    int rc = -1, has_lang = target_code(o, lang), langs = 0;
    (void)member;
    if (parse_part(d, &t, err, errlen))
        return -1;
    if (!xml_is(&t, t.root, EPUB_NS_OPF, "package")) {
        xerr(err, errlen, "line %ld: the root element is not an OPF package",
             t.nodes[t.root].line);
        goto done;
    }
    if (attr_edit(&es, &t, t.root, "xml:lang", EPUB_NS_XML, "lang", ED_LANG))
        goto oom;
    for (int i = t.root; i >= 0; i = xml_next(&t, i, t.root, 0)) {
        int p = t.nodes[i].parent;
        if (t.nodes[i].kind != XML_ELEM)
            continue;
        if (xml_is(&t, p, EPUB_NS_OPF, "metadata") &&
            (xml_is(&t, i, EPUB_NS_DC, "title") ||
             (xml_is(&t, i, EPUB_NS_DC, "description") && !holds_markup(&t, i)))) {
            if (attr_edit(&es, &t, i, "xml:lang", EPUB_NS_XML, "lang", ED_LANG) ||
                text_edit(&es, &t, i, ED_TEXT))
                goto oom;
        } else if (xml_is(&t, p, EPUB_NS_OPF, "metadata") &&
                   xml_is(&t, i, EPUB_NS_DC, "language") && langs++ == 0) {
            if (text_edit(&es, &t, i, ED_LANG))
                goto oom;
        } else if (xml_is(&t, p, EPUB_NS_OPF, "guide") &&
                   xml_is(&t, i, EPUB_NS_OPF, "reference")) {
            if (attr_edit(&es, &t, i, "title", "", "title", ED_ATTR))
                goto oom;
        }
    }
    rc = build_edits(d, &t, &es, has_lang ? lang : NULL, err, errlen);
    goto done;
oom:
    xerr(err, errlen, "out of memory");
done:
    free(es.e);
    xml_free(&t);
    return rc;
}

/* ---- XHTML ---- */

/* 1 when the HTML parser knows name as a void element (its "/>" then means what XML means). */
static int html_void(const char *name)
{
    static const char *const v[] = {"area", "base", "br", "col", "embed", "hr", "img", "input",
                                    "link", "meta", "param", "source", "track", "wbr",
                                    "basefont", "bgsound", "frame", "keygen", NULL};
    for (int k = 0; v[k]; k++)
        if (!strcmp(name, v[k]))
            return 1;
    return 0;
}

/* The source rewritten where HTML would read another tree than XML (the file's comment), into
 * *out (a strbuf; left empty when nothing needs rewriting). */
static int rewrite_xhtml(const xml_tree *t, strbuf *out)
{
    const char *s = t->src;
    size_t at = 0;
    for (int i = t->root; i >= 0; i = xml_next(t, i, t->root, 0)) {
        const xml_node *n = &t->nodes[i];
        if (n->kind == XML_ELEM && n->e0 == n->s1 && n->e1 == n->s1 && n->s1 - n->s0 >= 3 &&
            s[n->s1 - 2] == '/' && s[n->s1 - 1] == '>') {
            size_t q = n->s0 + 1;
            int prefixed = 0;
            while (q < n->s1 && !is_space(s[q]) && s[q] != '/' && s[q] != '>')
                prefixed |= s[q++] == ':';
            /* HTML's own voids, and svg or math elements HTML reads as foreign content (there
             * "/>" closes), are left as written */
            if ((!strcmp(n->ns, EPUB_NS_XHTML) && html_void(n->name)) ||
                (!prefixed && (!strcmp(n->ns, NS_SVG) || !strcmp(n->ns, NS_MATHML))))
                continue;
            if (strbuf_put(out, s + at, n->s1 - 2 - at) || strbuf_put(out, "></", 3) ||
                strbuf_put(out, s + n->s0 + 1, q - n->s0 - 1) || strbuf_put(out, ">", 1))
                return -1;
            at = n->s1;
        } else if (n->kind == XML_TEXT && n->cdata && n->s0 >= 9 && n->s1 + 3 <= t->len &&
                   !memcmp(s + n->s0 - 9, "<![CDATA[", 9) && !memcmp(s + n->s1, "]]>", 3) &&
                   !xml_is(t, n->parent, EPUB_NS_XHTML, "script") &&
                   !xml_is(t, n->parent, EPUB_NS_XHTML, "style")) {
            if (strbuf_put(out, s + at, n->s0 - 9 - at) ||
                doc_escape_write(DOC_ESC_XML, s + n->s0, n->s1 - n->s0, strbuf_put, out))
                return -1;
            at = n->s1 + 3;
        }
    }
    if (at > 0 && strbuf_put(out, s + at, t->len - at))
        return -1;
    return 0;
}

/* Splits the kept part holding src[v0, v1) so that those bytes are a part of their own, made
 * the copy of value; nothing when no kept part holds them whole. */
static int set_kept_bytes(doc *d, size_t v0, size_t v1, const char *value, char *err,
                          size_t errlen)
{
    const char *a = d->src + v0, *b = d->src + v1;
    char *c;
    for (int i = 0; i < d->n_parts; i++) {
        doc_part p = d->parts[i];
        if (p.unit >= 0 || p.s < d->src || p.s > a || p.s + p.len < b)
            continue;
        if (!(c = doc_copy(d, value, strlen(value))) ||
            doc_grow(&d->parts, &d->cap_parts, d->n_parts + 2, sizeof *d->parts))
            return xerr(err, errlen, "out of memory");
        memmove(d->parts + i + 3, d->parts + i + 1,
                sizeof *d->parts * (size_t)(d->n_parts - i - 1));
        d->n_parts += 2;
        d->parts[i] = (doc_part){-1, p.s, (size_t)(a - p.s)};
        d->parts[i + 1] = (doc_part){-1, c, strlen(value)};
        d->parts[i + 2] = (doc_part){-1, b, (size_t)(p.s + p.len - b)};
        if (d->lang_part > i)
            d->lang_part += 2;
        return 0;
    }
    return 0;
}

int epub_build_xhtml(doc *d, const doc_opts *o, const char *member, char *err, size_t errlen)
{
    xml_tree t;
    strbuf rw = {0};
    char lang[16], e[XLATE_ERRLEN];
    int rc = -1, has_lang = target_code(o, lang), parsed;
    size_t v0 = 0, v1 = 0;
    (void)member;
    parsed = xml_parse(&t, d->src, d->src_len, e, sizeof e) == 0;
    if (!parsed) {
        /* read as HTML all the same (an EPUB checker says what is wrong with it) */
        long line = 1;
        if (strncmp(e, "line ", 5) == 0)
            line = strtol(e + 5, NULL, 10);
        doc_warn(d, line, "not well-formed XML (%s): read as HTML", e);
    } else {
        if (!xml_is(&t, t.root, EPUB_NS_XHTML, "html"))
            doc_warn(d, t.nodes[t.root].line, "the root element is not XHTML's html");
        else if (xml_attr_get(&t, t.root, EPUB_NS_XML, "lang"))
            xml_attr_span(&t, t.root, "xml:lang", &v0, &v1);
        if (rewrite_xhtml(&t, &rw)) {
            xerr(err, errlen, "out of memory");
            goto done;
        }
        if (rw.len > 0) { /* (the root's start tag comes before every rewrite: v0, v1 hold) */
            char *c = doc_copy(d, rw.s, rw.len);
            if (!c) {
                xerr(err, errlen, "out of memory");
                goto done;
            }
            d->src = c;
            d->src_len = rw.len;
        }
    }
    if (html_parse(d, err, errlen))
        goto done;
    for (int u = 0; u < d->n_units; u++) /* XML's escapes: no &nbsp; in XHTML */
        d->units[u].escape = d->units[u].escape == DOC_ESC_HTML_ATTR ? DOC_ESC_XML_ATTR
                             : d->units[u].escape == DOC_ESC_HTML    ? DOC_ESC_XML
                                                                     : d->units[u].escape;
    if (has_lang) {
        char *c;
        if (d->lang_part >= 0) {
            if (!(c = doc_copy(d, lang, strlen(lang)))) {
                xerr(err, errlen, "out of memory");
                goto done;
            }
            d->parts[d->lang_part].s = c;
            d->parts[d->lang_part].len = strlen(lang);
        }
        if (v1 > v0 && set_kept_bytes(d, v0, v1, lang, err, errlen))
            goto done;
    }
    rc = 0;
done:
    if (parsed)
        xml_free(&t);
    free(rw.s);
    return rc;
}

/* odf_para.c — one OpenDocument paragraph (text:p, text:h, svg:title ...) into one unit
 * (odf_internal.h; the rules in docs/DOCUMENTS.md "OpenDocument"): its text with whitespace
 * collapsed as ODF reads it; spans and links elements that follow their words; spaces, tabs,
 * line breaks, bookmarks and reference marks void elements; fields and text whose style says
 * zxx (no language) keep elements; a note, a comment or a frame inside the paragraph a void
 * element whose markup is the whole of it, with each of its texts a unit of its own (a unit
 * inside markup has no elements: doc.h). Walks are iterative (odf_walk): no recursion on the
 * document's depth. */
#include "doc/html_tok.h"
#include "doc/odf_internal.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>

enum {
    K_INLINE,    /* text:span, text:a, text:meta: an element around its words */
    K_SPACE,     /* text:s, text:tab, text:line-break: a void element that separates words */
    K_VOID,      /* a void element (a point between words): bookmarks, marks, page breaks */
    K_CONTAINER, /* a note, a comment, a frame or shape: paragraphs of its own inside */
    K_KEEP       /* fields and everything else: written as it is where its words go */
};

static int classify(const xml_tree *t, int x)
{
    static const char *const voids[] = {
        "soft-page-break", "bookmark", "bookmark-start", "bookmark-end", "reference-mark",
        "reference-mark-start", "reference-mark-end", "toc-mark", "toc-mark-start",
        "toc-mark-end", "alphabetical-index-mark", "alphabetical-index-mark-start",
        "alphabetical-index-mark-end", "user-index-mark", "user-index-mark-start",
        "user-index-mark-end", "change", "change-start", "change-end"};
    const xml_node *n = &t->nodes[x];
    if (!strcmp(n->ns, ODF_TEXT)) {
        if (!strcmp(n->name, "span") || !strcmp(n->name, "a") || !strcmp(n->name, "meta"))
            return K_INLINE;
        if (!strcmp(n->name, "s") || !strcmp(n->name, "tab") || !strcmp(n->name, "line-break"))
            return K_SPACE;
        if (!strcmp(n->name, "note"))
            return K_CONTAINER;
        for (size_t k = 0; k < sizeof voids / sizeof voids[0]; k++)
            if (!strcmp(n->name, voids[k]))
                return K_VOID;
        return K_KEEP; /* the fields (ODF 1.3 part 3, 7: page-number, date, sequence ...) */
    }
    if (!strcmp(n->ns, ODF_OFFICE))
        return !strcmp(n->name, "annotation")       ? K_CONTAINER
               : !strcmp(n->name, "annotation-end") ? K_VOID
                                                    : K_KEEP;
    if (!strcmp(n->ns, ODF_DRAW) || !strcmp(n->ns, ODF_DR3D))
        return K_CONTAINER;
    return K_KEEP;
}

/* The zxx of a paragraph (its paragraph style) or of a span or link (its text style): 1, 0,
 * or -1 when its style says nothing. */
static int zxx_of(const odf_part *o, int x)
{
    const xml_tree *t = &o->t;
    const char *name = xml_attr_get(t, x, ODF_TEXT, "style-name");
    if (!name)
        return -1;
    return odf_zxx(o, xml_is(t, x, ODF_TEXT, "p") || xml_is(t, x, ODF_TEXT, "h") ? "paragraph"
                                                                                 : "text",
                   name);
}

static int ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* s[0..n) (decoded) with its whitespace collapsed (ODF 1.3 part 3, 6.1.2: space, tab, CR and
 * LF runs are one space) into o->buf, *len bytes. *space: the text before ends with a space or
 * there is none (a leading space is dropped); updated. */
static int collapse(odf_part *o, const char *s, size_t n, int *space, size_t *len)
{
    size_t k = 0;
    if (n + 1 > o->cap_buf) {
        char *b = realloc(o->buf, n + 1);
        if (!b)
            return xerr(o->err, o->errlen, "out of memory");
        o->buf = b;
        o->cap_buf = n + 1;
    }
    for (size_t i = 0; i < n; i++) {
        if (ws(s[i])) {
            if (!*space)
                o->buf[k++] = ' ';
            *space = 1;
        } else {
            o->buf[k++] = s[i];
            *space = 0;
        }
    }
    *len = k;
    return 0;
}

static const char *text_of(const xml_tree *t, int i) { return t->text + t->nodes[i].text; }

/* Appends text node i to unit u, collapsed with what the unit holds. */
static int unit_add(odf_part *o, int u, int i)
{
    const doc_unit *du = &o->d->units[u];
    int space = du->len == 0 || du->text[du->len - 1] == ' ';
    size_t len;
    if (collapse(o, text_of(&o->t, i), o->t.nodes[i].n_text, &space, &len))
        return -1;
    return doc_unit_text(o->d, u, o->buf, len, o->err, o->errlen);
}

static int push(odf_part *o, int top, odf_open e)
{
    if (doc_grow(&o->stack, &o->cap_stack, top + 1, sizeof *o->stack))
        return xerr(o->err, o->errlen, "out of memory");
    o->stack[top] = e;
    return 0;
}

/* 1 in *words when paragraph b has a letter in its own text: outside its fields, zxx spans,
 * notes, comments and frames (the text its unit would translate). */
static int own_words(odf_part *o, int b, int *words)
{
    const xml_tree *t = &o->t;
    int i = b, out = 0, skip = 0, top = 0;
    *words = 0;
    while (!*words && odf_walk(t, b, &i, &out, skip)) {
        skip = 0;
        if (out) {
            top -= i != b && top > 0;
            continue;
        }
        const xml_node *n = &t->nodes[i];
        if (n->kind == XML_TEXT) {
            *words = ht_has_letter(text_of(t, i), n->n_text);
        } else if (classify(t, i) != K_INLINE || zxx_of(o, i) == 1) {
            skip = 1;
        } else if (push(o, top++, (odf_open){i, -1, 0})) {
            return -1;
        }
    }
    return 0;
}

/* 1 when text node i is paragraph text (not a note's citation, a field's, a comment's author). */
static int para_text(const xml_tree *t, int i)
{
    int p = t->nodes[i].parent;
    return p >= 0 && (xml_is(t, p, ODF_TEXT, "p") || xml_is(t, p, ODF_TEXT, "h") ||
                      xml_is(t, p, ODF_TEXT, "span") || xml_is(t, p, ODF_TEXT, "a") ||
                      xml_is(t, p, ODF_TEXT, "meta") || xml_is(t, p, ODF_SVG, "title") ||
                      xml_is(t, p, ODF_SVG, "desc"));
}

/* Container c (a note, a comment, a frame) as the open markup of void element e of unit u:
 * its bytes, each of its paragraph texts with a letter (a text node: between two tags) a unit
 * of its own with no elements, its leading and trailing whitespace kept outside the unit. Its
 * zxx paragraphs and spans are kept. */
static int container(odf_part *o, int u, int e, int c)
{
    const xml_tree *t = &o->t;
    const char *s = o->d->src;
    size_t pos = t->nodes[c].s0;
    int i = c, out = 0, skip = 0;
    while (odf_walk(t, c, &i, &out, skip)) {
        const xml_node *n = &t->nodes[i];
        skip = 0;
        if (out)
            continue;
        if (n->kind == XML_ELEM) {
            skip = (xml_is(t, i, ODF_TEXT, "span") || xml_is(t, i, ODF_TEXT, "a") ||
                    xml_is(t, i, ODF_TEXT, "p") || xml_is(t, i, ODF_TEXT, "h")) &&
                   zxx_of(o, i) == 1;
            continue;
        }
        if (!para_text(t, i) || !ht_has_letter(text_of(t, i), n->n_text))
            continue;
        size_t lead = 0, trail = 0, len;
        int v, space = 1;
        while (n->s0 + lead < n->s1 && ws(s[n->s0 + lead]))
            lead++;
        while (n->s1 - trail > n->s0 + lead && ws(s[n->s1 - trail - 1]))
            trail++;
        if (doc_mark_part(o->d, u, e, DOC_OPEN, -1, s + pos, n->s0 + lead - pos, o->err,
                          o->errlen) ||
            doc_new_unit(o->d, DOC_ESC_XML, n->line, &v, o->err, o->errlen) ||
            collapse(o, text_of(t, i), n->n_text, &space, &len))
            return -1;
        while (len > 0 && o->buf[len - 1] == ' ')
            len--;
        if (doc_unit_text(o->d, v, o->buf, len, o->err, o->errlen) ||
            doc_mark_part(o->d, u, e, DOC_OPEN, v, NULL, 0, o->err, o->errlen))
            return -1;
        pos = n->s1 - trail;
    }
    return doc_mark_part(o->d, u, e, DOC_OPEN, -1, s + pos, t->nodes[c].e1 - pos, o->err,
                         o->errlen);
}

/* A keep element's words (all the text below it) into unit u. */
static int keep_words(odf_part *o, int u, int x)
{
    const xml_tree *t = &o->t;
    for (int j = xml_next(t, x, x, 0); j >= 0; j = xml_next(t, j, x, 0))
        if (t->nodes[j].kind == XML_TEXT && unit_add(o, u, j))
            return -1;
    return 0;
}

int odf_paragraph(odf_part *o, int b)
{
    const xml_tree *t = &o->t;
    const char *s = o->d->src;
    const xml_node *B = &t->nodes[b];
    int words, u, i = b, out = 0, skip = 0, top = 0, e;
    if (zxx_of(o, b) == 1 || own_words(o, b, &words))
        return zxx_of(o, b) == 1 ? 0 : -1;
    if (!words)
        return 0;
    if (doc_keep(o->d, s + o->at, B->s1 - o->at, o->err, o->errlen) ||
        doc_new_unit(o->d, DOC_ESC_XML, B->line, &u, o->err, o->errlen) ||
        doc_put_unit(o->d, u, o->err, o->errlen))
        return -1;
    while (odf_walk(t, b, &i, &out, skip)) {
        const xml_node *n = &t->nodes[i];
        int parent = top > 0 ? o->stack[top - 1].elem : -1, k;
        skip = 0;
        if (out) {
            if (i == b)
                break;
            e = o->stack[--top].elem; /* an inline element's end */
            if (doc_mark_part(o->d, u, e, DOC_CLOSE, -1, s + n->e0, n->e1 - n->e0, o->err,
                              o->errlen))
                return -1;
            doc_end_elem(o->d, u, e);
            continue;
        }
        if (n->kind == XML_TEXT) {
            if (unit_add(o, u, i))
                return -1;
            continue;
        }
        k = classify(t, i);
        if (k == K_INLINE && zxx_of(o, i) == 1)
            k = K_KEEP; /* no language: its words kept byte for byte */
        if (k == K_SPACE) { /* a space between the words, as the reader sees it */
            const doc_unit *du = &o->d->units[u];
            if (du->len > 0 && du->text[du->len - 1] != ' ' &&
                doc_unit_text(o->d, u, " ", 1, o->err, o->errlen))
                return -1;
        }
        if (doc_begin_elem(o->d, u, parent, &e, o->err, o->errlen))
            return -1;
        switch (k) {
        case K_INLINE:
            if (doc_mark_part(o->d, u, e, DOC_OPEN, -1, s + n->s0, n->s1 - n->s0, o->err,
                              o->errlen) ||
                push(o, top++, (odf_open){i, e, 0}))
                return -1;
            continue;
        case K_SPACE:
        case K_VOID:
            if (doc_mark_part(o->d, u, e, DOC_OPEN, -1, s + n->s0, n->e1 - n->s0, o->err,
                              o->errlen))
                return -1;
            break;
        case K_CONTAINER:
            if (container(o, u, e, i))
                return -1;
            break;
        default:
            if (doc_mark_part(o->d, u, e, DOC_KEEP, -1, s + n->s0, n->e1 - n->s0, o->err,
                              o->errlen) ||
                keep_words(o, u, i))
                return -1;
            break;
        }
        doc_end_elem(o->d, u, e);
        skip = 1;
    }
    /* the unit ends without a trailing space (ODF ignores it at a paragraph's end) */
    doc_unit *du = &o->d->units[u];
    if (du->len > 0 && du->text[du->len - 1] == ' ') {
        du->text[--du->len] = '\0';
        for (int r = 0; r < du->n_ranges; r++) {
            if (du->ranges[r].start > du->len)
                du->ranges[r].start = du->len;
            if (du->ranges[r].end > du->len)
                du->ranges[r].end = du->len;
        }
    }
    o->at = B->e0;
    return 1;
}

/* html.c — an HTML document or fragment as text units (html.h, docs/DOCUMENTS.md "HTML").
 *
 * Every byte of the source is written back as it was, except the text of units and the values
 * of the translated attributes (alt, title, placeholder, aria-label). Tags are never rewritten
 * and never reordered against the blocks around them; so the tree a browser builds from the
 * output is the tree it builds from the input, except where inline elements move with their
 * words inside one unit, which is allowed only where that cannot change the tree.
 *
 * Two levels:
 *  - the walk: tokens (html_tok.c) through a stack of open elements kept as a browser keeps it
 *    where that decides what is translated (implied ends of p, li, dd, dt, td, th, tr, option,
 *    h1-h6; end tags popping to their element; svg/math as foreign content, with the HTML
 *    inside its integration points: foreignObject, desc, title, annotation-xml of an HTML
 *    encoding, read and translated as HTML; the text of mi, mo, mn, ms, mtext kept). The stack says
 *    whether text is kept (script, style, pre, code, textarea, translate="no", class
 *    notranslate ... and what is inside them) and which content model the tokenizer reads next.
 *    Every lookup is O(1) (each entry links to the previous open element of its name), so
 *    100,000 nested tags cost linear time and no recursion.
 *  - the run: what lies between two block boundaries (a tag that is not one of the inline
 *    elements) is buffered as items (text, inline start and end tags, void elements, comments,
 *    groups: an inline code / kbd / translate="no" element with its whole content). At the
 *    boundary the inline tags are paired like a stack; a tag that pairs with nothing (a stray
 *    end tag, an element left open, misnesting like <b><i>x</b></i>) is fixed: it stays where
 *    it is, and so does every element around it. The run is cut at fixed items into segments,
 *    each a unit whose well-nested elements move with their words (doc_transfer). */
#include "doc/html.h"
#include "doc/html_tags.h"
#include "doc/html_tok.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>

/* ---- state ---- */

typedef struct {
    int id;
    size_t name, name_len; /* the start tag's name in the source (unknown names match by it) */
    int prev;              /* the stack index of the previous open element with this id, -1 */
    int barrier;           /* the index of the nearest scope boundary at or below, -1 */
    int keep;
    int foreign;           /* its namespace: 0 HTML, NS_SVG, NS_MATH */
    int point;             /* foreign: PT_HTML, PT_TEXT, PT_ANNOT (integration_point), or 0 */
    int fkeep;             /* foreign: the keep of HTML inside it, at an HTML integration point
                              (the keep outside the svg or math, or its translate="no") */
} open_el;

enum { NS_SVG = 1, NS_MATH = 2 };
/* The HTML standard's integration points (13.2.6.5, "tree construction dispatcher"): an HTML
 * one (SVG foreignObject, desc, title; MathML annotation-xml with encoding text/html or
 * application/xhtml+xml) holds HTML; a MathML text one (mi, mo, mn, ms, mtext) reads its text
 * and start tags but mglyph and malignmark as HTML; another annotation-xml reads an svg start
 * tag so. */
enum { PT_HTML = 1, PT_TEXT = 2, PT_ANNOT = 3 };

enum { IT_TEXT, IT_OPEN, IT_CLOSE, IT_VOID, IT_GROUP, IT_INNER, IT_INNER_TEXT };
enum { G_DONE = 1, G_BAD = 2, G_OPAQUE = 4 };

typedef struct {
    int kind;
    size_t start, end;   /* bytes */
    size_t name, name_len; /* IT_OPEN, IT_CLOSE: the tag name as written */
    int ta, n_ta;        /* the translated attributes: ta[ta .. ta + n_ta) */
    int flags;           /* IT_GROUP: G_*; IT_VOID: 1 for br (a space in the model's text) */
    int last;            /* IT_GROUP: the index of its last inner item */
    int fixed, pair;
} item;

typedef struct {
    size_t val, len; /* the value's bytes */
    int quote;       /* '"', '\'', 0: unquoted */
} tattr;

typedef struct {
    doc *d;
    char *err;
    size_t errlen;
    ht_tok tok;
    open_el *st;       /* [cap_st] the stack of open elements */
    int n_st, cap_st;
    int *last;         /* [HTML_N_TAGS + HTML_N_BUCKETS] the topmost open element of each id, -1 */
    item *it;          /* [cap_it] the run */
    int n_it, cap_it;
    tattr *ta;         /* [cap_ta] the run's translated attributes */
    int n_ta, cap_ta;
    int *scratch;      /* [cap_scratch] pairing stack, element stack, fixed prefix counts */
    int cap_scratch;
    char *buf;         /* decoded text */
    size_t cap_buf;
    int group, group_depth; /* the open group's item and its element's stack index, or -1 */
    open_el pend[16];  /* kept formatting elements (code, <b translate=no>) closed by another
                          element's tag: a browser keeps them in its list of active formatting
                          elements and opens them again before the next text */
    int n_pend;
    int fmt_open[16];  /* per formatting element (html_tag_formatting): start tags less end
                          tags, outside foreign content. A browser keeps these in its list of
                          active formatting elements (an upper bound: markers are not
                          modelled) and opens them again at a block's first text or tag */
    long active;       /* their sum */
    long run_active;   /* `active` when the run began: > 0, what goes first in a segment can
                          decide where a browser opens them again */
    int fostered;      /* a formatting element was met directly in a table (not in a cell):
                          a browser moves it before the table, and its list of active
                          elements is no longer followed here: from then on every a start
                          tag, comment and script in a sentence stays where it is */
    const char *quote; /* '"' owned by the doc: quotes around a translated unquoted value */
    size_t line_pos;   /* line_of's cursor */
    long line_no;
} parser;

static int oom(parser *p)
{
    return xerr(p->err, p->errlen, "out of memory");
}

/* The source line of byte pos, from 1 (calls come in document order: counted once). */
static long line_of(parser *p, size_t pos)
{
    const char *s = p->d->src;
    if (pos < p->line_pos) {
        p->line_pos = 0;
        p->line_no = 1;
    }
    while (p->line_pos < pos) {
        const char *nl = memchr(s + p->line_pos, '\n', pos - p->line_pos);
        if (!nl) {
            p->line_pos = pos;
            break;
        }
        p->line_no++;
        p->line_pos = (size_t)(nl - s) + 1;
    }
    return p->line_no;
}

static unsigned char lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

static int is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

/* 1 when the source bytes s[a..a+al) and s[b..b+bl) are the same name in any case. */
static int same_name(const char *s, size_t a, size_t al, size_t b, size_t bl)
{
    if (al != bl)
        return 0;
    for (size_t k = 0; k < al; k++)
        if (lower((unsigned char)s[a + k]) != lower((unsigned char)s[b + k]))
            return 0;
    return 1;
}

/* 1 when s[0..n) is lowercase ASCII word w[0..n) in any case. */
static int lower_eq(const char *s, const char *w, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (lower((unsigned char)s[k]) != (unsigned char)w[k])
            return 0;
    return 1;
}

static int attr_named(const char *s, const ht_attr *a, const char *name)
{
    size_t l = strlen(name);
    if (a->name_len != l)
        return 0;
    for (size_t k = 0; k < l; k++)
        if (lower((unsigned char)s[a->name + k]) != (unsigned char)name[k])
            return 0;
    return 1;
}

/* The tag's own say on translation: 1 translate="no" or class notranslate, -1 translate="yes"
 * (or ""), 0 none. */
static int translate_attr(const char *s, const ht_token *k)
{
    int r = 0, seen_translate = 0, seen_class = 0; /* (a browser keeps the first of a name) */
    for (int i = 0; i < k->n_attrs; i++) {
        const ht_attr *a = &k->attrs[i];
        if (!seen_translate && attr_named(s, a, "translate")) {
            size_t l = a->quote < 0 ? 0 : a->val_len;
            const char *v = s + a->val;
            seen_translate = 1;
            if (l == 2 && lower((unsigned char)v[0]) == 'n' && lower((unsigned char)v[1]) == 'o')
                return 1;
            if (l == 0 || (l == 3 && lower((unsigned char)v[0]) == 'y' &&
                           lower((unsigned char)v[1]) == 'e' && lower((unsigned char)v[2]) == 's'))
                r = -1;
        } else if (!seen_class && attr_named(s, a, "class")) {
            const char *v = s + a->val;
            seen_class = 1;
            for (size_t j = 0; a->quote >= 0 && j + 11 <= a->val_len; j++)
                if (memcmp(v + j, "notranslate", 11) == 0 &&
                    (j == 0 || is_ws((unsigned char)v[j - 1])) &&
                    (j + 11 == a->val_len || is_ws((unsigned char)v[j + 11])))
                    return 1;
        }
    }
    return r;
}

/* ---- text ---- */

/* Decodes s[0..n) into p->buf (ht_decode); its length in *len. */
static int decode(parser *p, const char *s, size_t n, int attr, int *space, size_t *len)
{
    size_t need = 3 * n + 16;
    if (need > p->cap_buf) {
        char *b = realloc(p->buf, need);
        if (!b)
            return oom(p);
        p->buf = b;
        p->cap_buf = need;
    }
    *len = ht_decode(s, n, attr, space, p->buf);
    return 0;
}

/* *words: 1 when s (decoded) holds a letter. A text without one (numbers, punctuation,
 * symbols: "[", "|", "1979", "»") is not given to the model, which would make words up for
 * it: it is written back as it is. */
static int has_words(parser *p, const char *s, size_t n, int attr, int *words)
{
    int space = 1;
    size_t len;
    if (decode(p, s, n, attr, &space, &len))
        return -1;
    *words = ht_has_letter(p->buf, len);
    return 0;
}

/* Appends s[0..n) decoded to unit u (whitespace collapsed with what the unit holds). */
static int unit_add(parser *p, int u, const char *s, size_t n)
{
    const doc_unit *du = &p->d->units[u];
    int space = du->len == 0 || du->text[du->len - 1] == ' ';
    size_t len;
    if (decode(p, s, n, 0, &space, &len))
        return -1;
    return doc_unit_text(p->d, u, p->buf, len, p->err, p->errlen);
}

/* ---- output of tags ---- */

/* Where markup goes: the document (unit < 0) or element elem's open parts of unit. */
typedef struct {
    int unit, elem, which; /* which: DOC_OPEN, or DOC_KEEP for a keep element's markup */
} sink;

static int emit(parser *p, sink w, int part_unit, const char *s, size_t len)
{
    if (w.unit < 0)
        return part_unit < 0 ? doc_keep(p->d, s, len, p->err, p->errlen)
                             : doc_put_unit(p->d, part_unit, p->err, p->errlen);
    return doc_mark_part(p->d, w.unit, w.elem, w.which, part_unit, s, len, p->err, p->errlen);
}

/* A tag's bytes [start, end) to w, each translated attribute value (ta[first .. first + n))
 * replaced by a unit between double quotes. A value with no words is written as it is. */
static int emit_tag(parser *p, sink w, size_t start, size_t end, int first, int n)
{
    const char *s = p->d->src;
    size_t at = start;
    for (int i = first; i < first + n; i++) {
        const tattr *a = &p->ta[i];
        int words, u, space = 1;
        size_t len;
        if (has_words(p, s + a->val, a->len, 1, &words))
            return -1;
        if (!words)
            continue;
        size_t q0 = a->val - (a->quote ? 1 : 0), q1 = a->val + a->len + (a->quote ? 1 : 0);
        if (emit(p, w, -1, s + at, q0 - at) || emit(p, w, -1, p->quote, 1) ||
            doc_new_unit(p->d, DOC_ESC_HTML_ATTR, line_of(p, a->val), &u, p->err, p->errlen) ||
            decode(p, s + a->val, a->len, 1, &space, &len))
            return -1;
        while (len > 0 && p->buf[len - 1] == ' ')
            len--;
        if (doc_unit_text(p->d, u, p->buf, len, p->err, p->errlen) || emit(p, w, u, NULL, 0) ||
            emit(p, w, -1, p->quote, 1))
            return -1;
        at = q1;
    }
    return emit(p, w, -1, s + at, end - at);
}

/* The html start tag k: its lang value a part of its own (d->lang_part), for the caller to
 * set to the target language (a translated page is in that language); the rest as emit_tag
 * writes it. The first lang counts, as a browser keeps the first attribute of a name. */
static int emit_html_tag(parser *p, sink w, const ht_token *k, int first, int n)
{
    const ht_attr *lang = NULL;
    int before = 0;
    char *c;
    for (int i = 0; i < k->n_attrs && !lang; i++)
        if (attr_named(p->d->src, &k->attrs[i], "lang"))
            lang = &k->attrs[i];
    if (!lang || lang->quote < 0 || lang->val_len == 0)
        return emit_tag(p, w, k->start, k->end, first, n);
    while (before < n && p->ta[first + before].val < lang->val)
        before++;
    if (emit_tag(p, w, k->start, lang->val, first, before))
        return -1;
    if (!(c = doc_copy(p->d, p->d->src + lang->val, lang->val_len)))
        return oom(p);
    if (emit(p, w, -1, c, lang->val_len))
        return -1;
    p->d->lang_part = p->d->n_parts - 1;
    return emit_tag(p, w, lang->val + lang->val_len, k->end, first + before, n - before);
}

/* The translated attributes of tag k into p->ta: the first of each name among alt, title,
 * placeholder, aria-label, with a value. *first, *n: where they are. */
static int collect_attrs(parser *p, const ht_token *k, int *first, int *n)
{
    static const char *const names[] = {"alt", "title", "placeholder", "aria-label"};
    int seen = 0; /* the names met: a browser keeps the first attribute of a name */
    *first = p->n_ta;
    *n = 0;
    for (int i = 0; i < k->n_attrs; i++) {
        const ht_attr *a = &k->attrs[i];
        int hit = -1;
        for (int j = 0; j < (int)(sizeof names / sizeof names[0]) && hit < 0; j++)
            if (attr_named(p->d->src, a, names[j]))
                hit = j;
        if (hit < 0 || (seen & (1 << hit)))
            continue;
        seen |= 1 << hit;
        if (a->quote < 0 || a->val_len == 0)
            continue;
        if (doc_grow(&p->ta, &p->cap_ta, p->n_ta + 1, sizeof *p->ta))
            return oom(p);
        p->ta[p->n_ta++] = (tattr){a->val, a->val_len, a->quote};
        (*n)++;
    }
    return 0;
}

/* ---- the run ---- */

static int add_item(parser *p, item x)
{
    if (doc_grow(&p->it, &p->cap_it, p->n_it + 1, sizeof *p->it))
        return oom(p);
    if (p->n_it == 0)
        p->run_active = p->active + p->fostered;
    x.pair = -1;
    p->it[p->n_it++] = x;
    return 0;
}

static int scratch(parser *p, int n)
{
    return doc_grow(&p->scratch, &p->cap_scratch, n, sizeof(int)) ? oom(p) : 0;
}

/* An item written as it is (a fixed one, or one of a segment without words), its alt, title
 * ... translated. */
static int emit_item(parser *p, const item *x)
{
    sink doc_sink = {-1, -1, DOC_OPEN};
    if (x->kind == IT_TEXT || x->kind == IT_CLOSE)
        return doc_keep(p->d, p->d->src + x->start, x->end - x->start, p->err, p->errlen);
    if (emit_tag(p, doc_sink, x->start, x->end, x->ta, x->n_ta))
        return -1;
    /* a group: the rest of its markup and content */
    return x->kind == IT_GROUP ? doc_keep(p->d, p->d->src + x->end, p->it[x->last].end - x->end,
                                          p->err, p->errlen)
                               : 0;
}

/* Items [a, b) of the run (top level: a group's inner items are skipped through `last`). */
static int emit_segment(parser *p, int a, int b)
{
    const char *s = p->d->src;
    int words = 0, u, top = 0;
    /* words outside kept elements make a unit (a segment of code alone is kept) */
    for (int i = a; i < b && !words; i++) {
        const item *x = &p->it[i];
        if (x->kind == IT_TEXT && has_words(p, s + x->start, x->end - x->start, 0, &words))
            return -1;
        if (x->kind == IT_GROUP)
            i = x->last;
    }
    if (!words) {
        for (int i = a; i < b; i++) {
            if (emit_item(p, &p->it[i]))
                return -1;
            if (p->it[i].kind == IT_GROUP)
                i = p->it[i].last;
        }
        return 0;
    }
    /* leading and trailing whitespace stay outside the unit, as they were */
    size_t lead = 0, trail = 0;
    const item *first = &p->it[a], *end = &p->it[b - 1];
    if (first->kind == IT_TEXT)
        while (first->start + lead < first->end && is_ws((unsigned char)s[first->start + lead]))
            lead++;
    if (end->kind == IT_TEXT)
        while (end->end - trail > end->start + (end == first ? lead : 0) &&
               is_ws((unsigned char)s[end->end - 1 - trail]))
            trail++;
    if (doc_keep(p->d, s + first->start, lead, p->err, p->errlen) ||
        doc_new_unit(p->d, DOC_ESC_HTML, line_of(p, first->start + lead), &u, p->err, p->errlen) ||
        doc_put_unit(p->d, u, p->err, p->errlen) || scratch(p, b - a + 1))
        return -1;
    int *stack = p->scratch; /* the open elements */
    for (int i = a; i < b; i++) {
        const item *x = &p->it[i];
        size_t xs = x->start + (i == a ? lead : 0), xe = x->end - (i == b - 1 ? trail : 0);
        int e;
        sink w;
        switch (x->kind) {
        case IT_TEXT:
            if (unit_add(p, u, s + xs, xe - xs))
                return -1;
            break;
        case IT_OPEN:
        case IT_VOID:
            if (x->kind == IT_VOID && x->flags) { /* br: a space between the words */
                const doc_unit *du = &p->d->units[u];
                if (du->len > 0 && du->text[du->len - 1] != ' ' &&
                    doc_unit_text(p->d, u, " ", 1, p->err, p->errlen))
                    return -1;
            }
            if (doc_begin_elem(p->d, u, top ? stack[top - 1] : -1, &e, p->err, p->errlen))
                return -1;
            w = (sink){u, e, DOC_OPEN};
            if (emit_tag(p, w, x->start, x->end, x->ta, x->n_ta))
                return -1;
            if (x->kind == IT_OPEN)
                stack[top++] = e;
            else
                doc_end_elem(p->d, u, e);
            break;
        case IT_CLOSE:
            e = stack[--top];
            if (doc_mark_part(p->d, u, e, DOC_CLOSE, -1, s + x->start, x->end - x->start,
                              p->err, p->errlen))
                return -1;
            doc_end_elem(p->d, u, e);
            break;
        case IT_GROUP:
            /* its whole markup and content as keep parts, its start tag's alt, title ...
             * translated */
            if (doc_begin_elem(p->d, u, top ? stack[top - 1] : -1, &e, p->err, p->errlen))
                return -1;
            w = (sink){u, e, DOC_KEEP};
            if (emit_tag(p, w, x->start, x->end, x->ta, x->n_ta) ||
                doc_mark_part(p->d, u, e, DOC_KEEP, -1, s + x->end, p->it[x->last].end - x->end,
                              p->err, p->errlen))
                return -1;
            for (int j = i + 1; j <= x->last && !(x->flags & G_OPAQUE); j++)
                if (p->it[j].kind == IT_INNER_TEXT &&
                    unit_add(p, u, s + p->it[j].start, p->it[j].end - p->it[j].start))
                    return -1;
            doc_end_elem(p->d, u, e);
            i = x->last;
            break;
        }
    }
    /* the unit ends without its trailing space (the source's whitespace is kept after it) */
    doc_unit *du = &p->d->units[u];
    if (du->len > 0 && du->text[du->len - 1] == ' ') {
        du->text[--du->len] = '\0';
        for (int k = 0; k < du->n_ranges; k++) {
            if (du->ranges[k].start > du->len)
                du->ranges[k].start = du->len;
            if (du->ranges[k].end > du->len)
                du->ranges[k].end = du->len;
        }
    }
    return doc_keep(p->d, s + end->end - trail, trail, p->err, p->errlen);
}

/* A navigation line (issue 36: texinfo's "Next: <a>..</a>, Previous: <a>..</a>, Up: <a>..</a>
 * &nbsp; [<a>Contents</a>]"): two links or more at the top of the run, and outside them only
 * labels ending in ':' and text without a letter. Read as one sentence the model drops its
 * short labels and reorders its links; so each link is fixed and every piece is translated
 * alone (the text without a letter, "&nbsp; [", is kept as it is). 1 when the run is one. */
static int nav_line(parser *p)
{
    const char *s = p->d->src;
    int depth = 0, links = 0;
    for (int i = 0; i < p->n_it; i++) {
        const item *x = &p->it[i];
        if (x->fixed || x->kind == IT_GROUP)
            return 0;
        if (x->kind == IT_OPEN) {
            if (depth == 0 && !(x->name_len == 1 && lower((unsigned char)s[x->name]) == 'a'))
                return 0;
            links += depth == 0;
            depth++;
        } else if (x->kind == IT_CLOSE) {
            depth--;
        } else if (x->kind == IT_TEXT && depth == 0) {
            int words;
            size_t e = x->end;
            if (has_words(p, s + x->start, x->end - x->start, 0, &words))
                return 0;
            while (e > x->start && (s[e - 1] == ' ' || s[e - 1] == '\n' || s[e - 1] == '\t'))
                e--;
            if (words && (e == x->start || s[e - 1] != ':'))
                return 0;
        }
    }
    return links >= 2;
}

/* The run is over (a block boundary or the end): pair its inline tags, fix what does not
 * pair or nest, write its segments. */
static int flush(parser *p)
{
    int n = p->n_it, top = 0, nfixed = 0, open_a = 0;
    const char *s = p->d->src;
    if (n == 0)
        return 0;
    if (scratch(p, n + 1))
        return -1;
    int *stack = p->scratch;
    for (int i = 0; i < n; i++) {
        item *x = &p->it[i];
        int is_a = (x->kind == IT_OPEN || x->kind == IT_CLOSE) && x->name_len == 1 &&
                   lower((unsigned char)s[x->name]) == 'a';
        if (x->fixed) { /* fixed when added (the walk's reasons) */
            if (x->kind == IT_GROUP)
                i = x->last;
        } else if (x->kind == IT_OPEN && is_a && open_a > 0) {
            x->fixed = 1; /* an a inside an a: a browser ends the first (adoption agency) */
        } else if (x->kind == IT_OPEN) {
            stack[top++] = i;
            open_a += is_a;
        } else if (x->kind == IT_CLOSE) {
            if (top > 0 && same_name(s, p->it[stack[top - 1]].name, p->it[stack[top - 1]].name_len,
                                     x->name, x->name_len)) {
                x->pair = stack[--top];
                p->it[x->pair].pair = i;
                open_a -= is_a;
            } else {
                x->fixed = 1;
            }
        } else if (x->kind == IT_GROUP) {
            x->fixed = (x->flags & G_BAD) || !(x->flags & G_DONE);
            i = x->last;
        }
    }
    while (top > 0)
        p->it[stack[--top]].fixed = 1;
    /* a pair around a fixed item is fixed (pairs nest, so one pass finds them all): prefix
     * counts of fixed items in stack[] (reused) */
    for (int i = 0; i < n; i++) {
        stack[i] = nfixed;
        nfixed += p->it[i].fixed;
    }
    stack[n] = nfixed;
    if (nfixed > 0) {
        for (int i = 0; i < n; i++) {
            item *x = &p->it[i];
            if (x->kind == IT_CLOSE && x->pair >= 0 && stack[i] - stack[x->pair + 1] > 0)
                x->fixed = p->it[x->pair].fixed = 1;
        }
        doc_warn(p->d, line_of(p, p->it[0].start),
                 "inline markup that does not pair or nest: its text translated in pieces");
    } else if (nav_line(p)) {
        for (int i = 0, depth = 0; i < n; i++) {
            item *x = &p->it[i];
            if (x->kind == IT_OPEN && depth++ == 0)
                x->fixed = p->it[x->pair].fixed = 1;
            else if (x->kind == IT_CLOSE)
                depth--;
        }
    }
    int seg = 0;
    for (int i = 0; i < n; i++) {
        item *x = &p->it[i];
        if (x->fixed) {
            if ((seg < i && emit_segment(p, seg, i)) || emit_item(p, x))
                return -1;
            if (x->kind == IT_GROUP)
                i = x->last;
            seg = i + 1;
        } else if (x->kind == IT_GROUP) {
            i = x->last;
        }
    }
    if (seg < n && emit_segment(p, seg, n))
        return -1;
    p->n_it = 0;
    p->n_ta = 0;
    return 0;
}

/* ---- the stack of open elements ---- */

static int top_keep(const parser *p)
{
    return p->n_st > 0 && p->st[p->n_st - 1].keep;
}

static int top_foreign(const parser *p)
{
    return p->n_st > 0 && p->st[p->n_st - 1].foreign;
}

static int top_id(const parser *p)
{
    return p->n_st > 0 ? p->st[p->n_st - 1].id : -1;
}

static int top_point(const parser *p)
{
    return p->n_st > 0 ? p->st[p->n_st - 1].point : 0;
}

/* The integration point (PT_*) that start tag k makes in namespace ns, or 0. */
static int integration_point(const parser *p, const ht_token *k, int ns)
{
    const char *n = k->name;
    if (ns == NS_SVG)
        return strcmp(n, "foreignobject") == 0 || strcmp(n, "desc") == 0 ||
                       strcmp(n, "title") == 0
                   ? PT_HTML
                   : 0;
    if (ns != NS_MATH)
        return 0;
    if (strcmp(n, "mi") == 0 || strcmp(n, "mo") == 0 || strcmp(n, "mn") == 0 ||
        strcmp(n, "ms") == 0 || strcmp(n, "mtext") == 0)
        return PT_TEXT;
    if (strcmp(n, "annotation-xml") != 0)
        return 0;
    for (int i = 0; i < k->n_attrs; i++) {
        const ht_attr *a = &k->attrs[i];
        if (!attr_named(p->d->src, a, "encoding"))
            continue;
        static const char *const html[] = {"text/html", "application/xhtml+xml"};
        for (int j = 0; j < 2; j++) {
            size_t l = strlen(html[j]);
            if (a->quote >= 0 && a->val_len == l && lower_eq(p->d->src + a->val, html[j], l))
                return PT_HTML;
        }
        break; /* (the first encoding counts) */
    }
    return PT_ANNOT;
}

/* 1 when start tag k, with foreign content open, is read as HTML (the dispatcher's rules). */
static int read_as_html(const parser *p, const ht_token *k)
{
    int pt = top_point(p);
    return pt == PT_HTML ||
           (pt == PT_TEXT && strcmp(k->name, "mglyph") != 0 && strcmp(k->name, "malignmark") != 0) ||
           (pt == PT_ANNOT && strcmp(k->name, "svg") == 0);
}

static int push_el(parser *p, int id, size_t name, size_t name_len, int keep, int foreign)
{
    if (doc_grow(&p->st, &p->cap_st, p->n_st + 1, sizeof *p->st))
        return oom(p);
    int i = p->n_st++, below = i > 0 ? p->st[i - 1].barrier : -1;
    p->st[i] = (open_el){id, name, name_len, p->last[id],
                         (html_tag_flags(id) & F_BARRIER) || foreign ? i : below, keep, foreign,
                         0, 0};
    p->last[id] = i;
    p->tok.cdata_ok = foreign;
    return 0;
}

static int push(parser *p, int id, const ht_token *k, int keep, int foreign)
{
    return push_el(p, id, k->start + 1, strlen(k->name), keep, foreign);
}

/* Opens the pending kept formatting elements again (a browser's "reconstruct the active
 * formatting elements"), so what follows is kept as a browser puts it inside them. */
static int reconstruct(parser *p)
{
    for (int k = 0; k < p->n_pend; k++)
        if (push_el(p, p->pend[k].id, p->pend[k].name, p->pend[k].name_len, 1, 0))
            return -1;
    p->n_pend = 0;
    return 0;
}

/* Pops the elements above stack index i (i itself stays); own: the index of an element closed
 * by its own end tag (-1: none). A group open among them ends. */
static void pop_above(parser *p, int i, int own)
{
    while (p->n_st > i + 1) {
        open_el *e = &p->st[--p->n_st];
        p->last[e->id] = e->prev;
        if (p->n_st != own && e->keep && (p->n_st == 0 || !p->st[p->n_st - 1].keep) &&
            html_tag_formatting(e->id) && p->n_pend < (int)(sizeof p->pend / sizeof p->pend[0]))
            p->pend[p->n_pend++] = *e;
        if (p->group >= 0 && p->n_st <= p->group_depth) {
            p->it[p->group].last = p->n_it - 1;
            p->group = -1; /* ended by another element's tag: G_DONE not set, the group is fixed */
        }
    }
    p->tok.cdata_ok = top_foreign(p);
}

/* The stack index of the topmost open element named as tag k (id), -1 when none. */
static int find_open(const parser *p, int id, const ht_token *k)
{
    int i = p->last[id];
    if (id < HTML_N_TAGS)
        return i;
    for (int steps = 0; i >= 0 && steps < 64; steps++, i = p->st[i].prev)
        if (p->st[i].name_len == strlen(k->name) &&
            same_name(p->d->src, p->st[i].name, p->st[i].name_len, k->start + 2, strlen(k->name)))
            return i;
    return -1;
}

/* 1 when the element of id is open above the nearest scope boundary. */
static int in_scope(const parser *p, int id)
{
    int i = p->last[id];
    return i >= 0 && i >= p->st[p->n_st - 1].barrier; /* (i >= 0: the stack is not empty) */
}

/* Bytes kept at the document level: the run before them is flushed first. */
static int keep_bytes(parser *p, const ht_token *k)
{
    return flush(p) || doc_keep(p->d, p->d->src + k->start, k->end - k->start, p->err, p->errlen);
}

static int named(const char *name)
{
    return html_tag_id(name, 0);
}

/* The ends a start tag implies (the "in body" insertion mode's rules, simplified). */
static void implied_ends(parser *p, int id)
{
    int f = html_tag_flags(id), t;
    const char *name = id < HTML_N_TAGS ? html_tag_name(id) : "";
    if ((f & F_CLOSEP) && in_scope(p, named("p")))
        pop_above(p, p->last[named("p")] - 1, -1);
    if (strcmp(name, "li") == 0 && in_scope(p, id))
        pop_above(p, p->last[id] - 1, -1);
    if (strcmp(name, "dd") == 0 || strcmp(name, "dt") == 0) {
        int a = p->last[named("dd")], b = p->last[named("dt")], m = a > b ? a : b;
        if (m >= 0 && m >= p->st[p->n_st - 1].barrier) /* (m >= 0: not empty) */
            pop_above(p, m - 1, -1);
    }
    if (strcmp(name, "td") == 0 || strcmp(name, "th") == 0 || strcmp(name, "tr") == 0 ||
        strcmp(name, "tbody") == 0 || strcmp(name, "thead") == 0 || strcmp(name, "tfoot") == 0) {
        static const char *const cells[] = {"td", "th", "tr", "tbody", "thead", "tfoot"};
        int upto = name[0] == 't' && (name[1] == 'd' || name[1] == 'h') && name[2] == '\0' ? 2
                   : strcmp(name, "tr") == 0                                              ? 3
                                                                                           : 6;
        int tbl = p->last[named("table")], m = -1;
        for (int k = 0; k < upto; k++)
            if (p->last[named(cells[k])] > m)
                m = p->last[named(cells[k])];
        if (m >= 0 && m > tbl)
            pop_above(p, m - 1, -1);
    }
    if ((strcmp(name, "option") == 0 || strcmp(name, "optgroup") == 0) &&
        (t = top_id(p)) >= 0 && t == named("option"))
        pop_above(p, p->n_st - 2, -1);
    if (strcmp(name, "optgroup") == 0 && top_id(p) == named("optgroup"))
        pop_above(p, p->n_st - 2, -1);
    if ((f & F_HEADING) && (t = top_id(p)) >= 0 && (html_tag_flags(t) & F_HEADING))
        pop_above(p, p->n_st - 2, -1);
    if ((strcmp(name, "a") == 0 || strcmp(name, "button") == 0) && in_scope(p, id))
        pop_above(p, p->last[id] - 1, -1);
}

/* ---- the walk ---- */

/* A start tag. */
static int start_tag(parser *p, const ht_token *k)
{
    int id = html_tag_id(k->name, k->long_name), f = html_tag_flags(id);
    const char *name = k->name;
    if (top_foreign(p) && !read_as_html(p, k)) {
        if (f & F_BREAKOUT) { /* popped down to HTML, or to an integration point */
            while (top_foreign(p) && top_point(p) != PT_HTML && top_point(p) != PT_TEXT)
                pop_above(p, p->n_st - 2, -1);
        } else {
            const open_el *up = &p->st[p->n_st - 1];
            int ns = up->foreign, pt = integration_point(p, k, ns);
            int fkeep = up->fkeep || translate_attr(p->d->src, k) > 0;
            /* an HTML integration point's content is HTML: kept as the svg or math is only
             * where the HTML around it is kept, or translate="no" says so */
            int keep = pt == PT_HTML ? fkeep : top_keep(p);
            if (p->group >= 0) {
                if (add_item(p, (item){IT_INNER, k->start, k->end, 0, 0, 0, 0, 0, 0, 0, 0}))
                    return -1;
                if (!keep && !k->self_closing) {
                    /* an svg or math moving with a sentence ends at it, fixed where it is:
                     * the HTML inside is translated in units of its own */
                    p->it[p->group].last = p->n_it - 1;
                    p->group = -1;
                }
            } else if (keep_bytes(p, k)) {
                return -1;
            }
            if (k->self_closing)
                return 0;
            if (push(p, id, k, keep, ns))
                return -1;
            p->st[p->n_st - 1].point = pt;
            p->st[p->n_st - 1].fkeep = fkeep;
            return 0;
        }
    }
    if ((strcmp(name, "html") == 0 || strcmp(name, "body") == 0 || strcmp(name, "head") == 0) &&
        p->last[id] >= 0)
        f |= F_VOID; /* a second one: its attributes go to the first, nothing opens */
    implied_ends(p, id);
    if ((f & F_INLINE) && p->n_pend > 0 && p->group < 0 && !top_keep(p) && reconstruct(p))
        return -1;
    int fi = html_tag_formatting(id), stale_a = 0;
    if (fi && p->n_st > 0 && p->st[p->n_st - 1].barrier >= 0 &&
        p->st[p->st[p->n_st - 1].barrier].id == named("table"))
        p->fostered = 1;
    if (fi) {
        /* an a start tag while an a is active: a browser ends that one first (the adoption
         * agency), so this tag must stay where it is */
        if (strcmp(name, "a") == 0 && (p->fmt_open[fi] > 0 || p->fostered)) {
            stale_a = 1;
            if (p->fmt_open[fi] > 0) {
                p->fmt_open[fi]--;
                p->active--;
            }
        }
        p->fmt_open[fi]++;
        p->active++;
    }
    int tr = translate_attr(p->d->src, k);
    int parent_keep = top_keep(p);
    int keep = parent_keep || (f & F_KEEP) || tr > 0;
    if (tr < 0 && !(f & F_KEEP))
        keep = 0;
    int foreign = strcmp(name, "svg") == 0 ? NS_SVG : strcmp(name, "math") == 0 ? NS_MATH : 0;
    /* the keep of HTML at its integration points: the HTML's around it, or (inside a MathML
     * token element, an annotation-xml) the foreign content's */
    int fkeep = (top_foreign(p) ? p->st[p->n_st - 1].fkeep : parent_keep) || tr > 0;
    if (p->group >= 0) {
        /* inside a kept inline element: any tag but an inline one (or anything inside an
         * opaque one) means it cannot move as a whole */
        if (!(f & F_INLINE) && !(p->it[p->group].flags & G_OPAQUE))
            p->it[p->group].flags |= G_BAD;
        if (add_item(p, (item){IT_INNER, k->start, k->end, 0, 0, 0, 0, 0, 0, 0, 0}))
            return -1;
    } else if (parent_keep) {
        if (keep_bytes(p, k))
            return -1;
    } else if ((f & F_INLINE) || ((f & F_OPAQUE) && p->n_it > 0)) {
        int first = p->n_ta, n = 0;
        /* the element's own alt, title ... are translated unless it says translate="no"
         * (a code or textarea keeps its content, not its title or placeholder) */
        if (tr <= 0 && collect_attrs(p, k, &first, &n))
            return -1;
        if (keep) { /* code, kbd, translate="no" in a sentence, or a script in one */
            /* script, style, textarea, noscript: a browser inserts them without opening the
             * active formatting elements again, so, as comments, they cannot move first */
            int still = (f & F_OPAQUE) && !foreign &&
                        (p->n_it ? p->run_active : p->active + p->fostered) > 0;
            if (add_item(p, (item){IT_GROUP, k->start, k->end, 0, 0, first, n,
                                   (f & F_OPAQUE) ? G_OPAQUE : 0, p->n_it, still, 0}))
                return -1;
            if (f & F_VOID) /* <img translate=no>: a group of one */
                p->it[p->n_it - 1].flags |= G_DONE;
            else
                p->group = p->n_it - 1, p->group_depth = p->n_st;
        } else if (add_item(p, (item){(f & F_VOID) ? IT_VOID : IT_OPEN, k->start, k->end,
                                      k->start + 1, strlen(name), first, n,
                                      strcmp(name, "br") == 0, 0, stale_a, 0})) {
            return -1;
        }
    } else {
        sink ds = {-1, -1, DOC_OPEN};
        int first = 0, n = 0;
        if (flush(p) || (tr <= 0 && collect_attrs(p, k, &first, &n)) ||
            (strcmp(name, "html") == 0 && !(f & F_VOID) && p->d->lang_part < 0
                 ? emit_html_tag(p, ds, k, first, n)
                 : emit_tag(p, ds, k->start, k->end, first, n)))
            return -1;
        p->n_ta = 0;
    }
    if (!(f & F_VOID) && push(p, id, k, keep, foreign))
        return -1;
    if (!(f & F_VOID))
        p->st[p->n_st - 1].fkeep = fkeep;
    if (!foreign) {
        if (f & F_RCDATA)
            ht_set_mode(&p->tok, HT_RCDATA, name);
        else if (f & F_RAW)
            ht_set_mode(&p->tok, HT_RAWTEXT, name);
        else if (strcmp(name, "script") == 0)
            ht_set_mode(&p->tok, HT_SCRIPT, name);
        else if (strcmp(name, "plaintext") == 0)
            ht_set_mode(&p->tok, HT_PLAINTEXT, name);
    }
    return 0;
}

/* An end tag. */
static int end_tag(parser *p, const ht_token *k)
{
    int id = html_tag_id(k->name, k->long_name), f = html_tag_flags(id);
    const char *name = k->name;
    int target = -1, fi = html_tag_formatting(id);
    if (fi && p->fmt_open[fi] > 0) {
        /* the adoption agency takes it off the list, unless it is open but out of scope
         * (inside a table cell, say): then the end tag is ignored */
        int t = find_open(p, id, k);
        if (t < 0 || t >= p->st[p->n_st - 1].barrier) {
            p->fmt_open[fi]--;
            p->active--;
        }
    }
    if (strcmp(name, "br") == 0 && !top_keep(p) && p->group < 0) {
        /* "</br>" is a <br> to a browser */
        return add_item(p, (item){IT_VOID, k->start, k->end, 0, 0, 0, 0, 1, 0, 0, 0});
    }
    for (int j = p->n_pend - 1; j >= 0; j--)
        if (same_name(p->d->src, p->pend[j].name, p->pend[j].name_len, k->start + 2,
                      strlen(name))) { /* its end tag: no longer opened again */
            memmove(p->pend + j, p->pend + j + 1, sizeof *p->pend * (size_t)(p->n_pend - j - 1));
            p->n_pend--;
            break;
        }
    if (strcmp(name, "body") != 0 && strcmp(name, "html") != 0) {
        target = find_open(p, id, k);
        if (strcmp(name, "p") == 0 && target >= 0 && !in_scope(p, id))
            target = -1;
    }
    if (p->group >= 0 && target >= 0 && target <= p->group_depth) {
        int own = target == p->group_depth;
        if (own) { /* the group's own end tag ends it */
            if (add_item(p, (item){IT_INNER, k->start, k->end, 0, 0, 0, 0, 0, 0, 0, 0}))
                return -1;
            p->it[p->group].flags |= G_DONE;
        }
        pop_above(p, target - 1, target); /* (the group ends here, G_DONE or not) */
        if (own)
            return 0;
    } else if (p->group >= 0) {
        if (!(f & F_INLINE) && !(p->it[p->group].flags & G_OPAQUE))
            p->it[p->group].flags |= G_BAD;
        if (add_item(p, (item){IT_INNER, k->start, k->end, 0, 0, 0, 0, 0, 0, 0, 0}))
            return -1;
        if (target >= 0)
            pop_above(p, target - 1, target);
        return 0;
    } else if (target >= 0) {
        pop_above(p, target - 1, target);
    }
    /* the token itself, in the context after the pops */
    if (top_keep(p))
        return keep_bytes(p, k);
    if (f & F_INLINE)
        return add_item(p, (item){IT_CLOSE, k->start, k->end, k->start + 2, strlen(name), 0, 0,
                                  0, 0, 0, 0});
    return keep_bytes(p, k);
}

/* Text, comments, doctypes, CDATA, ignored bytes. */
static int other(parser *p, const ht_token *k)
{
    if (k->kind == HT_TEXT) {
        if (p->group >= 0)
            return add_item(p, (item){IT_INNER_TEXT, k->start, k->end, 0, 0, 0, 0, 0, 0, 0, 0});
        if (p->n_pend > 0 && !top_keep(p) && reconstruct(p))
            return -1;
        if (top_keep(p) || k->unclosed) /* (unclosed: a title that never ends is kept) */
            return keep_bytes(p, k);
        return add_item(p, (item){IT_TEXT, k->start, k->end, 0, 0, 0, 0, 0, 0, 0, 0});
    }
    if (p->group >= 0)
        return add_item(p, (item){IT_INNER, k->start, k->end, 0, 0, 0, 0, 0, 0, 0, 0});
    if (p->n_it > 0) /* inside a sentence: moves with it, as a void element, unless a browser
                        may open formatting elements again around it (a comment does not
                        make it do so: moved first, it would land outside them) */
        return add_item(p, (item){IT_VOID, k->start, k->end, 0, 0, 0, 0, 0, 0,
                                  (p->n_it ? p->run_active : p->active + p->fostered) > 0, 0});
    return keep_bytes(p, k);
}

int html_parse(doc *d, char *err, size_t errlen)
{
    parser p;
    ht_token k;
    int rc = -1, r;
    memset(&p, 0, sizeof p);
    p.d = d;
    p.err = err;
    p.errlen = errlen;
    p.group = -1;
    p.line_no = 1;
    if (doc_utf16_src(d, err, errlen)) /* a UTF-16 document: decoded by its BOM */
        goto done;
    ht_init(&p.tok, d->src, d->src_len);
    if (d->src_len >= 3 && memcmp(d->src, "\xEF\xBB\xBF", 3) == 0) {
        /* a byte order mark: kept, not text (a browser drops it before parsing) */
        if (doc_keep(d, d->src, 3, err, errlen))
            goto done;
        p.tok.pos = 3;
    }
    if (!(p.last = malloc(sizeof(int) * (HTML_N_TAGS + HTML_N_BUCKETS))) || !(p.quote = doc_copy(d, "\"", 1))) {
        oom(&p);
        goto done;
    }
    for (int i = 0; i < HTML_N_TAGS + HTML_N_BUCKETS; i++)
        p.last[i] = -1;
    while ((r = ht_next(&p.tok, &k)) > 0) {
        int bad = k.unclosed;
        switch (k.kind) {
        case HT_START:
            r = start_tag(&p, &k);
            break;
        case HT_END:
            r = end_tag(&p, &k);
            break;
        default:
            r = other(&p, &k);
            break;
        }
        if (r)
            goto done;
        if (bad)
            doc_warn(d, line_of(&p, k.start), "%s runs to the end of the document: kept as it is",
                     k.kind == HT_COMMENT ? "a comment"
                     : k.kind == HT_TEXT  ? "raw text (script, style, textarea, title ...)"
                                          : "markup");
    }
    if (r < 0) {
        oom(&p);
        goto done;
    }
    if (p.group >= 0) { /* a kept inline element open at the end: written as it is */
        p.it[p.group].last = p.n_it - 1;
        p.group = -1;
    }
    rc = flush(&p);
done:
    ht_free(&p.tok);
    free(p.st);
    free(p.last);
    free(p.it);
    free(p.ta);
    free(p.scratch);
    free(p.buf);
    return rc;
}

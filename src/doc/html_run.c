/* html_run.c — the run (html_internal.h): what lies between two block boundaries (a tag that
 * is not one of the inline elements), buffered by the walk (html.c) as items: text, inline
 * start and end tags, void elements, comments, groups (an inline code / kbd / translate="no"
 * element with its whole content). At the boundary (html_flush) the inline tags are paired
 * like a stack; a tag that pairs with nothing (a stray end tag, an element left open,
 * misnesting like <b><i>x</b></i>) is fixed: it stays where it is, and so does every element
 * around it. The run is cut at fixed items into segments, each a unit whose well-nested
 * elements move with their words (doc_transfer). Also the tags' bytes written with their
 * translated attribute values (alt, title, placeholder, aria-label) as units. */
#include "doc/html_internal.h"
#include <stdlib.h>
#include <string.h>

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

static int emit(parser *p, sink w, int part_unit, const char *s, size_t len)
{
    if (w.unit < 0)
        return part_unit < 0 ? doc_keep(p->d, s, len, p->err, p->errlen)
                             : doc_put_unit(p->d, part_unit, p->err, p->errlen);
    return doc_mark_part(p->d, w.unit, w.elem, w.which, part_unit, s, len, p->err, p->errlen);
}

/* A tag's bytes [start, end) to w, each translated attribute value (ta[first .. first + n))
 * replaced by a unit between double quotes. A value with no words is written as it is. */
int html_emit_tag(parser *p, sink w, size_t start, size_t end, int first, int n)
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
            doc_new_unit(p->d, DOC_ESC_HTML_ATTR, html_line_of(p, a->val), &u, p->err, p->errlen) ||
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
int html_emit_html_tag(parser *p, sink w, const ht_token *k, int first, int n)
{
    const ht_attr *lang = NULL;
    int before = 0;
    char *c;
    for (int i = 0; i < k->n_attrs && !lang; i++)
        if (attr_named(p->d->src, &k->attrs[i], "lang"))
            lang = &k->attrs[i];
    if (!lang || lang->quote < 0 || lang->val_len == 0)
        return html_emit_tag(p, w, k->start, k->end, first, n);
    while (before < n && p->ta[first + before].val < lang->val)
        before++;
    if (html_emit_tag(p, w, k->start, lang->val, first, before))
        return -1;
    if (!(c = doc_copy(p->d, p->d->src + lang->val, lang->val_len)))
        return oom(p);
    if (emit(p, w, -1, c, lang->val_len))
        return -1;
    p->d->lang_part = p->d->n_parts - 1;
    return html_emit_tag(p, w, lang->val + lang->val_len, k->end, first + before, n - before);
}

/* The translated attributes of tag k into p->ta: the first of each name among alt, title,
 * placeholder, aria-label, with a value. *first, *n: where they are. */
int html_collect_attrs(parser *p, const ht_token *k, int *first, int *n)
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

int html_add_item(parser *p, item x)
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
    if (html_emit_tag(p, doc_sink, x->start, x->end, x->ta, x->n_ta))
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
        doc_new_unit(p->d, DOC_ESC_HTML, html_line_of(p, first->start + lead), &u, p->err,
                     p->errlen) ||
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
            if (html_emit_tag(p, w, x->start, x->end, x->ta, x->n_ta))
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
            if (html_emit_tag(p, w, x->start, x->end, x->ta, x->n_ta) ||
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
int html_flush(parser *p)
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
        doc_warn(p->d, html_line_of(p, p->it[0].start),
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

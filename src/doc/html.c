/* html.c — an HTML document or fragment as text units (html.h, docs/DOCUMENTS.md "HTML"): the
 * walk; the run in html_run.c, the state both read in html_internal.h.
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
 *  - the run (html_run.c): what lies between two block boundaries (a tag that is not one of
 *    the inline elements), buffered as items by the walk here, paired and cut into units at
 *    the boundary (html_flush). */
#include "doc/html.h"
#include "doc/html_internal.h"
#include "doc/html_tags.h"
#include <stdlib.h>
#include <string.h>

/* The source line of byte pos, from 1 (calls come in document order: counted once). */
long html_line_of(parser *p, size_t pos)
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

/* 1 when s[0..n) is lowercase ASCII word w[0..n) in any case. */
static int lower_eq(const char *s, const char *w, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (lower((unsigned char)s[k]) != (unsigned char)w[k])
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
           (pt == PT_TEXT && strcmp(k->name, "mglyph") != 0 &&
            strcmp(k->name, "malignmark") != 0) ||
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
    return html_flush(p) ||
           doc_keep(p->d, p->d->src + k->start, k->end - k->start, p->err, p->errlen);
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
                if (html_add_item(p, (item){IT_INNER, k->start, k->end, 0, 0, 0, 0, 0, 0, 0, 0}))
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
        if (html_add_item(p, (item){IT_INNER, k->start, k->end, 0, 0, 0, 0, 0, 0, 0, 0}))
            return -1;
    } else if (parent_keep) {
        if (keep_bytes(p, k))
            return -1;
    } else if ((f & F_INLINE) || ((f & F_OPAQUE) && p->n_it > 0)) {
        int first = p->n_ta, n = 0;
        /* the element's own alt, title ... are translated unless it says translate="no"
         * (a code or textarea keeps its content, not its title or placeholder) */
        if (tr <= 0 && html_collect_attrs(p, k, &first, &n))
            return -1;
        if (keep) { /* code, kbd, translate="no" in a sentence, or a script in one */
            /* script, style, textarea, noscript: a browser inserts them without opening the
             * active formatting elements again, so, as comments, they cannot move first */
            int still = (f & F_OPAQUE) && !foreign &&
                        (p->n_it ? p->run_active : p->active + p->fostered) > 0;
            if (html_add_item(p, (item){IT_GROUP, k->start, k->end, 0, 0, first, n,
                                   (f & F_OPAQUE) ? G_OPAQUE : 0, p->n_it, still, 0}))
                return -1;
            if (f & F_VOID) /* <img translate=no>: a group of one */
                p->it[p->n_it - 1].flags |= G_DONE;
            else
                p->group = p->n_it - 1, p->group_depth = p->n_st;
        } else if (html_add_item(p, (item){(f & F_VOID) ? IT_VOID : IT_OPEN, k->start, k->end,
                                      k->start + 1, strlen(name), first, n,
                                      strcmp(name, "br") == 0, 0, stale_a, 0})) {
            return -1;
        }
    } else {
        sink ds = {-1, -1, DOC_OPEN};
        int first = 0, n = 0;
        if (html_flush(p) || (tr <= 0 && html_collect_attrs(p, k, &first, &n)) ||
            (strcmp(name, "html") == 0 && !(f & F_VOID) && p->d->lang_part < 0
                 ? html_emit_html_tag(p, ds, k, first, n)
                 : html_emit_tag(p, ds, k->start, k->end, first, n)))
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
        return html_add_item(p, (item){IT_VOID, k->start, k->end, 0, 0, 0, 0, 1, 0, 0, 0});
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
            if (html_add_item(p, (item){IT_INNER, k->start, k->end, 0, 0, 0, 0, 0, 0, 0, 0}))
                return -1;
            p->it[p->group].flags |= G_DONE;
        }
        pop_above(p, target - 1, target); /* (the group ends here, G_DONE or not) */
        if (own)
            return 0;
    } else if (p->group >= 0) {
        if (!(f & F_INLINE) && !(p->it[p->group].flags & G_OPAQUE))
            p->it[p->group].flags |= G_BAD;
        if (html_add_item(p, (item){IT_INNER, k->start, k->end, 0, 0, 0, 0, 0, 0, 0, 0}))
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
        return html_add_item(p, (item){IT_CLOSE, k->start, k->end, k->start + 2, strlen(name), 0, 0,
                                  0, 0, 0, 0});
    return keep_bytes(p, k);
}

/* Text, comments, doctypes, CDATA, ignored bytes. */
static int other(parser *p, const ht_token *k)
{
    if (k->kind == HT_TEXT) {
        if (p->group >= 0)
            return html_add_item(p, (item){IT_INNER_TEXT, k->start, k->end, 0, 0, 0, 0, 0, 0,
                                           0, 0});
        if (p->n_pend > 0 && !top_keep(p) && reconstruct(p))
            return -1;
        if (top_keep(p) || k->unclosed) /* (unclosed: a title that never ends is kept) */
            return keep_bytes(p, k);
        return html_add_item(p, (item){IT_TEXT, k->start, k->end, 0, 0, 0, 0, 0, 0, 0, 0});
    }
    if (p->group >= 0)
        return html_add_item(p, (item){IT_INNER, k->start, k->end, 0, 0, 0, 0, 0, 0, 0, 0});
    if (p->n_it > 0) /* inside a sentence: moves with it, as a void element, unless a browser
                        may open formatting elements again around it (a comment does not
                        make it do so: moved first, it would land outside them) */
        return html_add_item(p, (item){IT_VOID, k->start, k->end, 0, 0, 0, 0, 0, 0,
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
            doc_warn(d, html_line_of(&p, k.start),
                     "%s runs to the end of the document: kept as it is",
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
    rc = html_flush(&p);
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

/* md_inline.c — one Markdown leaf (a paragraph, a heading's text, a table cell) into a unit:
 * its text for the model and its inline elements (doc.h), following CommonMark's inline
 * rules (spec 0.30, "Inlines" and appendix "Processing emphasis") with GitHub's ~~ and ~.
 *
 * Two passes over the leaf's lines joined by '\n' (buf, with each line's place in the source
 * in line_src / line_off, so that markup written back is the source's own bytes, the line
 * endings and container markers between lines included):
 *  1. tokens left to right: text, escapes and entities, code spans, autolinks, inline HTML,
 *     breaks, delimiter runs (* _ ~) and brackets; a "]" forms a link (inline or by a defined
 *     reference) at once and runs the emphasis rules inside it; the emphasis rules run on what
 *     is left at the end. Matched delimiter characters and brackets become elements.
 *  2. the tokens in order into the unit: text appended, elements begun and ended on a stack.
 * Nothing recurses; every scan that could run to the end of the leaf remembers where it failed,
 * so a leaf costs time linear in its length (code spans: a table of the last run of each
 * backtick count; brackets: the opener watermark instead of deactivating each one). */
#include "doc/md_inline.h"
#include "base/util.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


md_inline_buf *md_inline_new(void)
{
    return calloc(1, sizeof(md_inline_buf));
}

void md_inline_free(md_inline_buf *b)
{
    if (!b)
        return;
    free(b->buf);
    free(b->line_off);
    free(b->toks);
    free(b->elems);
    free(b->delims);
    free(b->brackets);
    free(b->tick_last);
    free(b->stack);
    free(b);
}

/* ---- character classes ---- */


/* The code point at s[i] (UTF-8; an invalid byte reads as itself) and, in *len, its bytes. */
static uint32_t cp_at(const char *s, size_t n, size_t i, size_t *len)
{
    const unsigned char *u = (const unsigned char *)s;
    uint32_t c = u[i];
    size_t k = c >= 0xF8 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (k == 1 || i + k > n) { /* an invalid byte reads as the U+FFFD it becomes */
        *len = 1;
        return c < 0x80 ? c : 0xFFFD;
    }
    uint32_t v = c & (0x3F >> (k - 1));
    for (size_t j = 1; j < k; j++) {
        if ((u[i + j] & 0xC0) != 0x80) {
            *len = 1;
            return 0xFFFD;
        }
        v = (v << 6) | (u[i + j] & 0x3F);
    }
    *len = k;
    /* an overlong form, a surrogate or a value past U+10FFFF is invalid too: text() writes
     * U+FFFD for it, and the flanking rules must read what is written ("\xC0\xAD" is no "-") */
    if ((k == 2 && v < 0x80) || (k == 3 && (v < 0x800 || (v >= 0xD800 && v <= 0xDFFF))) ||
        (k == 4 && (v < 0x10000 || v > 0x10FFFF))) {
        *len = 1;
        return 0xFFFD;
    }
    return v;
}

/* The code point that ends before s[i] (' ' at the start: the leaf's edge counts as space). */
static uint32_t cp_before(const char *s, size_t i)
{
    if (i == 0)
        return ' ';
    size_t j = i - 1, len;
    while (j > 0 && i - j < 4 && ((unsigned char)s[j] & 0xC0) == 0x80)
        j--;
    uint32_t c = cp_at(s, i, j, &len);
    return j + len == i ? c : (unsigned char)s[i - 1] < 0x80 ? (unsigned char)s[i - 1] : 0xFFFD;
}

/* Unicode whitespace (Zs, tab, line endings, form feed). */
static int u_space(uint32_t c)
{
    return c < 0x80 ? md_is_ws((unsigned char)c)
                    : c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
                          c == 0x202F || c == 0x205F || c == 0x3000;
}

/* Punctuation: ASCII's, and the common Unicode ones (Latin-1's, General Punctuation, CJK
 * symbols and fullwidth forms); other Unicode punctuation counts as a letter here. */
static int u_punct(uint32_t c)
{
    if (c < 0x80)
        return md_punct((unsigned char)c);
    return c == 0xA1 || c == 0xA7 || c == 0xAB || c == 0xB6 || c == 0xB7 || c == 0xBB ||
           c == 0xBF || (c >= 0x2010 && c <= 0x2027) || (c >= 0x2030 && c <= 0x205E) ||
           (c >= 0x3001 && c <= 0x3003) || (c >= 0x3008 && c <= 0x3011) ||
           (c >= 0xFF01 && c <= 0xFF0F);
}

/* ---- tokens ---- */

static int add_tok(md_inline_buf *b, int kind, size_t a, size_t e)
{
    if (doc_grow(&b->toks, &b->cap_toks, b->n_toks + 1, sizeof *b->toks))
        return -1;
    md_tok *t = &b->toks[b->n_toks++];
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->a = a;
    t->b = e;
    t->elem = t->first_close = t->last_close = t->first_open = -1;
    return 0;
}

/* Text buf[from, to) as a T_TEXT token (nothing when empty). */
static int flush(md_inline_buf *b, size_t from, size_t to)
{
    return to > from ? add_tok(b, T_TEXT, from, to) : 0;
}

static int add_lit(md_inline_buf *b, size_t a, size_t e, const char *s, size_t len)
{
    if (add_tok(b, T_LIT, a, e))
        return -1;
    md_tok *t = &b->toks[b->n_toks - 1];
    if (len > sizeof t->lit)
        len = sizeof t->lit;
    memcpy(t->lit, s, len);
    t->lit_len = (int)len;
    return 0;
}

static int new_elem(md_inline_buf *b, size_t oa, size_t ob, size_t ca, size_t cb)
{
    if (doc_grow(&b->elems, &b->cap_elems, b->n_elems + 1, sizeof *b->elems))
        return -1;
    b->elems[b->n_elems] = (md_elem){oa, ob, ca, cb, -1, -1, -1, 0, 0, 0};
    return b->n_elems++;
}


/* ---- emphasis (spec appendix A, "process emphasis") ---- */

static void delim_remove(md_inline_buf *b, int k)
{
    md_delim *d = &b->delims[k];
    if (d->prev >= 0)
        b->delims[d->prev].next = d->next;
    if (d->next >= 0)
        b->delims[d->next].prev = d->prev;
    else
        b->delim_last = d->prev;
}

/* Matches the live delimiters after bottom (a delimiter index, -1: all) and removes them. */
static int process_emphasis(md_inline_buf *b, int bottom)
{
    /* openers_bottom[char][closer's length % 3][closer can open]: a token index at or below
     * which no opener is looked for again */
    int ob[3][3][2];
    int bottom_tok = bottom >= 0 ? b->delims[bottom].tok : -1;
    for (int x = 0; x < 3; x++)
        for (int y = 0; y < 3; y++)
            ob[x][y][0] = ob[x][y][1] = bottom_tok;
    int cur = bottom >= 0 ? b->delims[bottom].next : -1;
    if (bottom < 0) { /* the first live one */
        cur = b->delim_last;
        while (cur >= 0 && b->delims[cur].prev >= 0)
            cur = b->delims[cur].prev;
    }
    while (cur >= 0) {
        md_delim *c = &b->delims[cur];
        if (!c->can_close) {
            cur = c->next;
            continue;
        }
        int ci = c->c == '*' ? 0 : c->c == '_' ? 1 : 2;
        int *lim = &ob[ci][c->orig % 3][c->can_open];
        int o = c->prev, found = -1;
        while (o >= 0 && b->delims[o].tok > *lim) {
            md_delim *p = &b->delims[o];
            if (p->c == c->c && p->can_open) {
                if (c->c == '~') {
                    if (p->count == c->count) {
                        found = o;
                        break;
                    }
                } else if (!((p->can_close || c->can_open) && (p->orig + c->orig) % 3 == 0 &&
                             !(p->orig % 3 == 0 && c->orig % 3 == 0))) {
                    found = o;
                    break;
                }
            }
            o = p->prev;
        }
        if (found < 0) {
            *lim = c->prev >= 0 ? b->delims[c->prev].tok : bottom_tok;
            int next = c->next;
            if (!c->can_open)
                delim_remove(b, cur);
            cur = next;
            continue;
        }
        md_delim *p = &b->delims[found];
        int k = c->c == '~' ? c->count : p->count >= 2 && c->count >= 2 ? 2 : 1;
        md_tok *ot = &b->toks[p->tok], *ct = &b->toks[c->tok];
        size_t oe = ot->b - (size_t)ot->used_open, cs = ct->a + (size_t)ct->used_close;
        int e = new_elem(b, oe - (size_t)k, oe, cs, cs + (size_t)k);
        if (e < 0)
            return -1;
        ot = &b->toks[p->tok]; /* (elems grew, toks did not: still valid) */
        ot->used_open += k;
        ct->used_close += k;
        b->elems[e].next_open = ot->first_open; /* later matches are outer: prepend */
        ot->first_open = e;
        if (ct->last_close >= 0)
            b->elems[ct->last_close].next_close = e;
        else
            ct->first_close = e;
        ct->last_close = e;
        p->count -= k;
        c->count -= k;
        for (int x = p->next; x >= 0 && x != cur; x = b->delims[x].next)
            delim_remove(b, x);
        if (p->count == 0)
            delim_remove(b, found);
        if (c->count == 0) {
            int next = c->next;
            delim_remove(b, cur);
            cur = next;
        }
    }
    /* everything above bottom goes */
    if (bottom >= 0) {
        b->delims[bottom].next = -1;
        b->delim_last = bottom;
    } else {
        b->delim_last = -1;
    }
    return 0;
}

/* ---- pass 1: tokens ---- */

/* The end of the code span opened by the k backticks at buf[i]: the start of its closing run,
 * SIZE_MAX when there is none (the run is then literal). */
static size_t code_close(md_inline_buf *b, size_t i, size_t k)
{
    const char *s = b->buf;
    size_t n = b->len;
    if (!b->ticks_scanned) { /* once a leaf: the last run of each count */
        size_t need = 1;
        for (size_t j = 0; j < n;) {
            size_t e = j;
            while (e < n && s[e] == '`')
                e++;
            need = e - j + 1 > need ? e - j + 1 : need;
            j = e > j ? e : j + 1;
        }
        if (need > b->cap_ticks) {
            size_t *q = realloc(b->tick_last, need * sizeof *q);
            if (!q)
                return SIZE_MAX; /* (out of memory: the run reads as text) */
            b->tick_last = q;
            b->cap_ticks = need;
        }
        for (size_t j = 0; j < need; j++)
            b->tick_last[j] = SIZE_MAX;
        for (size_t j = 0; j < n;) {
            size_t e = j;
            while (e < n && s[e] == '`')
                e++;
            if (e > j)
                b->tick_last[e - j] = j;
            j = e > j ? e : j + 1;
        }
        b->ticks_scanned = 1;
    }
    if (k >= b->cap_ticks || b->tick_last[k] == SIZE_MAX || b->tick_last[k] <= i)
        return SIZE_MAX;
    for (size_t j = i + k; j < n;) {
        size_t e = j;
        while (e < n && s[e] == '`')
            e++;
        if (e - j == k)
            return j;
        j = e > j ? e : j + 1;
    }
    return SIZE_MAX;
}

static int push_delim(md_inline_buf *b, size_t i, size_t k)
{
    const char *s = b->buf;
    size_t len;
    uint32_t before = cp_before(s, i), after = i + k < b->len ? cp_at(s, b->len, i + k, &len) : ' ';
    int lf = !u_space(after) && (!u_punct(after) || u_space(before) || u_punct(before));
    int rf = !u_space(before) && (!u_punct(before) || u_space(after) || u_punct(after));
    char c = s[i];
    if (add_tok(b, T_DELIM, i, i + k) ||
        doc_grow(&b->delims, &b->cap_delims, b->n_delims + 1, sizeof *b->delims))
        return -1;
    md_delim *d = &b->delims[b->n_delims];
    d->tok = b->n_toks - 1;
    d->c = c;
    d->count = d->orig = (int)k;
    d->can_open = c == '_' ? lf && (!rf || u_punct(before)) : lf;
    d->can_close = c == '_' ? rf && (!lf || u_punct(after)) : rf;
    d->prev = b->delim_last;
    d->next = -1;
    if (b->delim_last >= 0)
        b->delims[b->delim_last].next = b->n_delims;
    b->delim_last = b->n_delims++;
    return 0;
}

static int push_bracket(md_inline_buf *b, size_t i, int image)
{
    if (add_tok(b, T_OPEN, i, i + 1 + (size_t)image) ||
        doc_grow(&b->brackets, &b->cap_brackets, b->n_brackets + 1, sizeof *b->brackets))
        return -1;
    b->brackets[b->n_brackets++] = (md_bracket){b->n_toks - 1, image, b->delim_last};
    return 0;
}

/* A "]" at buf[i] (text before it flushed): a link or image when the innermost bracket opens
 * one. Returns the index to go on from (i + 1 when it is text), SIZE_MAX when out of memory. */
static size_t close_bracket(md_inline_buf *b, size_t i, const md_refs *refs)
{
    const char *s = b->buf;
    size_t n = b->len, j = i + 1, end = 0;
    if (b->n_brackets == 0)
        return i + 1;
    md_bracket br = b->brackets[b->n_brackets - 1];
    if (!br.image && br.tok < b->watermark) { /* inside a link: "[" is text */
        b->n_brackets--;
        return i + 1;
    }
    if (j < n && s[j] == '(')
        end = md_link_tail(b, j);
    size_t ta = b->toks[br.tok].b;
    int ref = 0;
    if (!end) {
        size_t l = j + 1 < n && s[j] == '[' && s[j + 1] == ']' ? 2
                   : j < n && s[j] == '['                     ? md_label(s + j, n - j)
                                                              : 0;
        if (l > 2) {
            if (md_refs_has(refs, s + j + 1, l - 2))
                end = j + l;
        } else if (md_label_ok(s + ta, i - ta) && md_refs_has(refs, s + ta, i - ta)) {
            end = l == 2 ? j + 2 : i + 1; /* collapsed [text][], or shortcut [text] */
            ref = l == 2 ? 2 : 1;
        }
    }
    b->n_brackets--;
    if (!end)
        return i + 1;
    if (add_tok(b, T_CLOSE, i, end))
        return SIZE_MAX;
    int e = new_elem(b, b->toks[br.tok].a, b->toks[br.tok].b, i, end);
    if (e < 0)
        return SIZE_MAX;
    b->toks[br.tok].elem = e;
    b->toks[b->n_toks - 1].elem = e;
    b->elems[e].ref = ref;
    b->elems[e].la = ta;
    b->elems[e].lb = i;
    if (process_emphasis(b, br.delim_top))
        return SIZE_MAX;
    if (!br.image)
        b->watermark = br.tok; /* links hold no links: earlier "[" are text now */
    return end;
}

static int scan(md_inline_buf *b, const md_refs *refs)
{
    const char *s = b->buf;
    size_t n = b->len, i = 0, text = 0, l;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        size_t start = i;
        int rc = 0;
        switch (c) {
        case '\n': {
            size_t sp = i;
            while (sp > text && (s[sp - 1] == ' ' || s[sp - 1] == '\t'))
                sp--;
            size_t spaces = 0;
            while (spaces < i - sp && s[i - 1 - spaces] == ' ')
                spaces++;
            rc = flush(b, text, sp) || add_tok(b, spaces >= 2 ? T_HARD : T_SOFT, sp, i + 1);
            i++;
            break;
        }
        case '\\':
            if (i + 1 < n && s[i + 1] == '\n') { /* blanks before it are the break's */
                size_t sp = i;
                while (sp > text && (s[sp - 1] == ' ' || s[sp - 1] == '\t'))
                    sp--;
                rc = flush(b, text, sp) || add_tok(b, T_HARD, sp, i + 2);
                i += 2;
            } else if (i + 1 < n && md_punct((unsigned char)s[i + 1])) {
                rc = flush(b, text, i) || add_lit(b, i, i + 2, s + i + 1, 1);
                i += 2;
            } else {
                i++;
                continue;
            }
            break;
        case '&': {
            char out[8];
            int ol;
            if (!(l = md_char_ref(s + i, n - i, out, &ol))) {
                i++;
                continue;
            }
            rc = flush(b, text, i) ||
                 (ol ? add_lit(b, i, i + l, out, (size_t)ol) : add_tok(b, T_HTML, i, i + l));
            i += l;
            break;
        }
        case '`': {
            size_t k = 0, e;
            while (i + k < n && s[i + k] == '`')
                k++;
            if ((e = code_close(b, i, k)) == SIZE_MAX) {
                i += k;
                continue;
            }
            rc = flush(b, text, i) || add_tok(b, T_CODE, i, e + k);
            if (!rc)
                b->toks[b->n_toks - 1].code_k = (int)k;
            i = e + k;
            break;
        }
        case '*':
        case '_':
        case '~': {
            size_t k = 0;
            while (i + k < n && s[i + k] == (char)c)
                k++;
            if (c == '~' && k > 2) {
                i += k;
                continue;
            }
            rc = flush(b, text, i) || push_delim(b, i, k);
            i += k;
            break;
        }
        case '!':
            if (i + 1 >= n || s[i + 1] != '[') {
                i++;
                continue;
            }
            rc = flush(b, text, i) || push_bracket(b, i, 1);
            i += 2;
            break;
        case '[':
            rc = flush(b, text, i) || push_bracket(b, i, 0);
            i++;
            break;
        case ']': {
            if (flush(b, text, i))
                return -1;
            text = i;
            size_t next = close_bracket(b, i, refs);
            if (next == SIZE_MAX)
                return -1;
            i = next;
            if (b->n_toks > 0 && b->toks[b->n_toks - 1].kind == T_CLOSE &&
                b->toks[b->n_toks - 1].a == start)
                text = i; /* a link's tail is markup; else "]" stays text */
            continue;
        }
        case '<':
            if ((l = md_autolink(s + i, n - i)) != 0)
                rc = flush(b, text, i) || add_tok(b, T_AUTO, i, i + l);
            else if ((l = md_inline_html(b, i)) != 0)
                rc = flush(b, text, i) || add_tok(b, T_HTML, i, i + l);
            else {
                i++;
                continue;
            }
            i += l;
            break;
        default:
            i++;
            continue;
        }
        if (rc)
            return -1;
        text = i;
    }
    if (flush(b, text, n))
        return -1;
    return process_emphasis(b, -1);
}

/* ---- pass 2: the unit ---- */

/* Where buf[p] is in the source (p at a line's end: the line ending's place). */
static size_t srcpos(const md_inline_buf *b, size_t p)
{
    int lo = 0, hi = b->n_lines - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (b->line_off[mid] <= p)
            lo = mid;
        else
            hi = mid - 1;
    }
    const md_line *l = &b->lines[lo];
    size_t off = p - b->line_off[lo];
    return off <= l->ce - l->cs ? l->cs + off : l->ce;
}

/* Appends s[0..len) to the unit's text, invalid UTF-8 and NUL as U+FFFD. */
static int text(doc *d, int unit, const char *s, size_t len, char *err, size_t errlen)
{
    size_t from = 0, i = 0;
    while (i < len) {
        size_t k;
        uint32_t c = cp_at(s, len, i, &k);
        int bad = c == 0 || (k == 1 && c >= 0x80) || (k == 2 && c < 0x80) ||
                  (k == 3 && (c < 0x800 || (c >= 0xD800 && c <= 0xDFFF))) ||
                  (k == 4 && (c < 0x10000 || c > 0x10FFFF));
        if (!bad) {
            i += k;
            continue;
        }
        if (doc_unit_text(d, unit, s + from, i - from, err, errlen) ||
            doc_unit_text(d, unit, "\xEF\xBF\xBD", 3, err, errlen))
            return -1;
        i += k;
        from = i;
    }
    return doc_unit_text(d, unit, s + from, len - from, err, errlen);
}

static int mark(doc *d, int unit, md_inline_buf *b, int de, int which, size_t a, size_t e,
                char *err, size_t errlen)
{
    size_t sa = srcpos(b, a), se = srcpos(b, e);
    return doc_mark_part(d, unit, de, which, -1, d->src + sa, se - sa, err, errlen);
}

typedef struct {
    doc *d;
    int unit;
    md_inline_buf *b;
    int top;
    int after_mark; /* what the last token wrote: 0 text (or nothing), 1 closing markup (a break
                       after it is a space), 2 an opener (a break after it is none) */
    char *err;
    size_t errlen;
} md_emit;

/* Begins an element inside the innermost open one, with its open markup buf[a, e). */
static int begin(md_emit *m, size_t a, size_t e, int *de)
{
    int parent = m->top > 0 ? m->b->elems[m->b->stack[m->top - 1]].doc_elem : -1;
    return doc_begin_elem(m->d, m->unit, parent, de, m->err, m->errlen) ||
           mark(m->d, m->unit, m->b, *de, DOC_OPEN, a, e, m->err, m->errlen);
}

static int open_elem(md_emit *m, int e)
{
    md_elem *x = &m->b->elems[e];
    if (begin(m, x->oa, x->ob, &x->doc_elem))
        return -1;
    m->b->stack[m->top++] = e;
    return 0;
}

/* Ends element e (and, were any left open inside it, those first). */
static int close_elem(md_emit *m, int e)
{
    int found = 0; /* (it is the innermost open one but for broken input: looked for from the
                      top, so a nesting 100,000 deep costs no more per element) */
    for (int k = m->top - 1; k >= 0 && !found; k--)
        found = m->b->stack[k] == e;
    while (found && m->top > 0) {
        int x = m->b->stack[--m->top];
        md_elem *el = &m->b->elems[x];
        doc_end_elem(m->d, m->unit, el->doc_elem);
        int de = el->doc_elem, rc;
        if (el->ref == 1) /* "]" + "[label]" */
            rc = mark(m->d, m->unit, m->b, de, DOC_CLOSE, el->ca, el->cb, m->err, m->errlen) ||
                 doc_mark_part(m->d, m->unit, de, DOC_CLOSE, -1, "[", 1, m->err, m->errlen) ||
                 mark(m->d, m->unit, m->b, de, DOC_CLOSE, el->la, el->lb, m->err, m->errlen) ||
                 doc_mark_part(m->d, m->unit, de, DOC_CLOSE, -1, "]", 1, m->err, m->errlen);
        else if (el->ref == 2) /* "][" + "label" + "]" */
            rc = mark(m->d, m->unit, m->b, de, DOC_CLOSE, el->ca, el->cb - 1, m->err,
                      m->errlen) ||
                 mark(m->d, m->unit, m->b, de, DOC_CLOSE, el->la, el->lb, m->err, m->errlen) ||
                 mark(m->d, m->unit, m->b, de, DOC_CLOSE, el->cb - 1, el->cb, m->err, m->errlen);
        else
            rc = mark(m->d, m->unit, m->b, de, DOC_CLOSE, el->ca, el->cb, m->err, m->errlen);
        if (rc)
            return -1;
        if (x == e)
            break;
    }
    return 0;
}

/* 1 when buf[a, b) is the tag <code>, <kbd>, <samp> or <var> (close: </...>), any case,
 * attributes allowed on a start tag. */
static int keep_tag(const char *s, size_t a, size_t b, int close)
{
    static const char *const names[] = {"code", "kbd", "samp", "var"};
    size_t i = a + 1 + (size_t)close;
    if (b - a < 3 || s[a] != '<' || (close && s[a + 1] != '/'))
        return 0;
    for (int k = 0; k < 4; k++) {
        size_t n = strlen(names[k]), j = 0;
        while (j < n && i + j < b && (s[i + j] | 0x20) == names[k][j])
            j++;
        if (j == n && i + n < b &&
            (s[i + n] == '>' || (strchr(" \t\n", s[i + n]) && (!close || s[b - 1] == '>'))))
            return 1;
    }
    return 0;
}

/* Inline HTML <code>..</code> (kbd, samp, var) around text alone on one line, from token i:
 * the index of its end tag, or -1. It is a kept span like a code span (issue 36). */
static int html_keep_end(const md_inline_buf *b, int i)
{
    const md_tok *t = &b->toks[i];
    if (!keep_tag(b->buf, t->a, t->b, 0))
        return -1;
    for (int k = i + 1; k < b->n_toks && k <= i + 64; k++) {
        const md_tok *x = &b->toks[k];
        if (x->kind == T_HTML)
            return k > i + 1 && keep_tag(b->buf, x->a, x->b, 1) ? k : -1;
        if (x->kind != T_TEXT && x->kind != T_LIT)
            return -1;
    }
    return -1;
}

/* The kept span of tokens i..j (html_keep_end): its source bytes kept, its text the model's. */
static int html_keep(md_emit *m, int i, int j, char *err, size_t errlen)
{
    md_inline_buf *b = m->b;
    int de;
    if (begin(m, b->toks[i].a, b->toks[i].a, &de) ||
        mark(m->d, m->unit, b, de, DOC_KEEP, b->toks[i].a, b->toks[j].b, err, errlen))
        return -1;
    for (int k = i + 1; k < j; k++) {
        const md_tok *x = &b->toks[k];
        if (x->kind == T_TEXT ? text(m->d, m->unit, b->buf + x->a, x->b - x->a, err, errlen)
                              : text(m->d, m->unit, x->lit, (size_t)x->lit_len, err, errlen))
            return -1;
    }
    doc_end_elem(m->d, m->unit, de);
    return 0;
}

/* A code span or autolink: open markup, the content kept as written, the model's text. */
static int verbatim(md_emit *m, const md_tok *t, size_t k, char *err, size_t errlen)
{
    md_inline_buf *b = m->b;
    size_t ca = t->a + k, ce = t->b - k;
    int de;
    if (begin(m, t->a, ca, &de))
        return -1;
    const char *nl = t->kind == T_CODE ? memchr(b->buf + ca, '\n', ce - ca) : NULL;
    if (!nl) {
        if (mark(m->d, m->unit, b, de, DOC_KEEP, ca, ce, err, errlen))
            return -1;
    } else {
        /* a code span over lines is kept on one line, each line ending (with the next line's
         * container markers and indentation, which buf leaves out) as the space it renders as
         * (spec 6.1), as the paragraph is written on one line: a line of the span left after
         * the joined first line could read otherwise (under it, a delimiter row's cells are
         * counted against that whole line) */
        char *c = doc_copy(m->d, b->buf + ca, ce - ca);
        if (!c)
            return xerr(err, errlen, "out of memory");
        for (size_t j = 0; j < ce - ca; j++)
            c[j] = c[j] == '\n' ? ' ' : c[j];
        if (doc_mark_part(m->d, m->unit, de, DOC_KEEP, -1, c, ce - ca, err, errlen))
            return -1;
    }
    if (t->kind == T_CODE) { /* line endings as spaces; one space stripped from both ends */
        int all_space = 1;
        for (size_t j = ca; j < ce; j++)
            all_space &= b->buf[j] == ' ' || b->buf[j] == '\n';
        if (!all_space && ce - ca >= 2 && (b->buf[ca] == ' ' || b->buf[ca] == '\n') &&
            (b->buf[ce - 1] == ' ' || b->buf[ce - 1] == '\n')) {
            ca++;
            ce--;
        }
        for (size_t j = ca; j < ce;) {
            size_t e = j;
            while (e < ce && b->buf[e] != '\n')
                e++;
            if (text(m->d, m->unit, b->buf + j, e - j, err, errlen) ||
                (e < ce && doc_unit_text(m->d, m->unit, " ", 1, err, errlen)))
                return -1;
            j = e + 1;
        }
    } else if (text(m->d, m->unit, b->buf + ca, ce - ca, err, errlen)) {
        return -1;
    }
    doc_end_elem(m->d, m->unit, de);
    return mark(m->d, m->unit, b, de, DOC_CLOSE, t->b - k, t->b, err, errlen);
}

/* 1 when token i touches a delimiter run on its side dir (-1 before, 1 after). */
static int beside_delim(const md_inline_buf *b, int i, int dir)
{
    int j = i + dir;
    if (j < 0 || j >= b->n_toks || b->toks[j].kind != T_DELIM)
        return 0;
    return dir < 0 ? b->toks[j].b == b->toks[i].a : b->toks[j].a == b->toks[i].b;
}

/* Text token i, just appended to the unit from text offset at: a raw U+00A0 at an end that
 * touches a delimiter run is written raw again (a blank to the flanking rules; the escaping's
 * &nbsp; would be punctuation). */
static int raw_nbsp(md_emit *m, int i, size_t at)
{
    const md_tok *t = &m->b->toks[i];
    const char *s = m->b->buf;
    const doc_unit *u = &m->d->units[m->unit];
    int head = t->b - t->a >= 2 && (unsigned char)s[t->a] == 0xC2 &&
               (unsigned char)s[t->a + 1] == 0xA0 && beside_delim(m->b, i, -1);
    int tail = t->b - t->a >= 2 && (unsigned char)s[t->b - 2] == 0xC2 &&
               (unsigned char)s[t->b - 1] == 0xA0 && beside_delim(m->b, i, 1);
    if (head && doc_unit_spell(m->d, m->unit, at, at + 2, 0, m->err, m->errlen))
        return -1;
    if (tail && (!head || t->b - t->a >= 4) &&
        doc_unit_spell(m->d, m->unit, u->len - 2, u->len, 0, m->err, m->errlen))
        return -1;
    return 0;
}

static int emit(md_emit *m)
{
    md_inline_buf *b = m->b;
    doc *d = m->d;
    char *err = m->err;
    size_t errlen = m->errlen;
    if (doc_grow(&b->stack, &b->cap_stack, b->n_elems + 1, sizeof *b->stack))
        return xerr(err, errlen, "out of memory");
    for (int i = 0; i < b->n_toks; i++) {
        const md_tok *t = &b->toks[i];
        const doc_unit *u = &d->units[m->unit];
        int rc = 0, de, j;
        /* a break's space: after a word, or after markup that closed something (a void
         * element, a code span, an emphasis's or link's close: "*[]()*" + break + "a" must
         * not be written "*[]()*a", where the "*" closes nothing; "` `" + break + "`a`" is
         * written with a space, "` ` `a`"). None at the start, none doubled, none right
         * after an opener, a word before it or not ("*" + break + "x*" written "* \\" would
         * be a list item, "`*" + break + "a*" written "`* \\" no emphasis). */
        int sep = m->after_mark == 1 ||
                  (m->after_mark == 0 && u->len > 0 && u->text[u->len - 1] != ' ');
        int after = 0; /* what this token writes last (after_mark) */
        switch (t->kind) {
        case T_TEXT: {
            size_t at = u->len;
            rc = text(d, m->unit, b->buf + t->a, t->b - t->a, err, errlen) || raw_nbsp(m, i, at);
            break;
        }
        case T_LIT: {
            size_t at = u->len;
            rc = text(d, m->unit, t->lit, (size_t)t->lit_len, err, errlen);
            if (!rc && b->buf[t->a] == '&' && (beside_delim(b, i, -1) || beside_delim(b, i, 1)))
                rc = doc_unit_spell(d, m->unit, at, d->units[m->unit].len, 1, err, errlen);
            break;
        }
        case T_SOFT: /* a break is a space between words: none at the start, none doubled */
            if (sep)
                rc = doc_unit_text(d, m->unit, " ", 1, err, errlen);
            break;
        case T_HARD:
        case T_HTML:
            if (t->kind == T_HTML && (j = html_keep_end(b, i)) > i) {
                rc = html_keep(m, i, j, err, errlen);
                i = j;
                after = 1;
                break;
            }
            if (t->kind == T_HARD && sep && doc_unit_text(d, m->unit, " ", 1, err, errlen))
                return -1;
            rc = begin(m, t->a, t->b, &de);
            if (!rc)
                doc_end_elem(d, m->unit, de);
            after = 1;
            break;
        case T_DELIM: {
            /* characters of a run left over by its elements are their markup, not text: the
             * run is written whole, so its length (the rule of 3) and its neighbours stay */
            size_t la = t->a + (size_t)t->used_close, lb = t->b - (size_t)t->used_open;
            if (lb > la && t->first_open >= 0) {
                b->elems[t->first_open].oa = la;
                la = lb;
            } else if (lb > la && t->last_close >= 0) {
                b->elems[t->last_close].cb = lb;
                la = lb;
            }
            for (int e = t->first_close; e >= 0 && !rc; e = b->elems[e].next_close)
                rc = close_elem(m, e);
            after = t->first_open >= 0 ? 2 : t->first_close >= 0 && lb <= la;
            if (!rc && lb > la)
                rc = text(d, m->unit, b->buf + la, lb - la, err, errlen);
            for (int e = t->first_open; e >= 0 && !rc; e = b->elems[e].next_open)
                rc = open_elem(m, e);
            break;
        }
        case T_OPEN:
            rc = t->elem >= 0 ? open_elem(m, t->elem)
                              : text(d, m->unit, b->buf + t->a, t->b - t->a, err, errlen);
            after = t->elem >= 0 ? 2 : 0;
            break;
        case T_CLOSE:
            rc = close_elem(m, t->elem);
            after = 1;
            break;
        case T_CODE:
        case T_AUTO:
            rc = verbatim(m, t, t->kind == T_CODE ? (size_t)t->code_k : 1, err, errlen);
            after = 1;
            break;
        }
        if (rc)
            return -1;
        m->after_mark = t->kind == T_SOFT && !sep ? m->after_mark : after;
    }
    return 0;
}

int md_inline(doc *d, int unit, const md_line *lines, int n, const md_refs *refs,
              md_inline_buf *b, char *err, size_t errlen)
{
    size_t total = 0;
    for (int k = 0; k < n; k++)
        total += lines[k].ce - lines[k].cs + 1;
    if (total + 1 > b->cap) {
        char *q = realloc(b->buf, total + 1);
        if (!q)
            return xerr(err, errlen, "out of memory");
        b->buf = q;
        b->cap = total + 1;
    }
    if (doc_grow(&b->line_off, &b->cap_lines, n + 1, sizeof *b->line_off))
        return xerr(err, errlen, "out of memory");
    b->len = 0;
    for (int k = 0; k < n; k++) {
        if (k > 0)
            b->buf[b->len++] = '\n';
        b->line_off[k] = b->len;
        memcpy(b->buf + b->len, d->src + lines[k].cs, lines[k].ce - lines[k].cs);
        b->len += lines[k].ce - lines[k].cs;
    }
    b->buf[b->len] = '\0';
    b->lines = lines;
    b->n_lines = n;
    b->n_toks = b->n_elems = b->n_delims = b->n_brackets = 0;
    b->delim_last = -1;
    b->watermark = 0;
    b->ticks_scanned = 0;
    for (size_t k = 0; k < sizeof b->absent / sizeof b->absent[0]; k++)
        b->absent[k] = SIZE_MAX;
    if (scan(b, refs))
        return xerr(err, errlen, "out of memory");
    md_emit m = {d, unit, b, 0, 0, err, errlen};
    return emit(&m);
}

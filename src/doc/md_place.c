/* md_place.c — Markdown markup placed on a translation so that a CommonMark reader reads it
 * as it read the source (doc.h's md_place). The alignment puts an element's range on the
 * target words; this moves the edges of emphasis (and strong, strikethrough) and hard breaks
 * where the spec's rules make them what they were:
 * - an opening run must be left-flanking and a closing one right-flanking (spec 6.2): not a
 *   delimiter before a blank, not a "_" inside a word, not "*" between a letter and
 *   punctuation on the wrong side ("Ho_-Musive)_"). A wrong edge is moved out to the word's
 *   edge ("_Ho-Musive)_"), or, where that would run into a sibling or out of the parent, in to
 *   the next word's.
 * - a nested emphasis with its parent's two ends and the same character ("__x__" from
 *   "_ _x_ _") would be read as one strong: it gives up its last (or first) word.
 * - a hard break needs text on both sides inside its parent (at a paragraph's end it is no
 *   break; "*  \nx*" opens nothing): one at an edge goes to the nearest word gap inside.
 * Works on the target ranges in place (after doc_transfer and md_fill_empty), each element in
 * O(its siblings within 64): linear. */
#include "doc/doc.h"
#include <string.h>

static int blank(const char *s, size_t len, size_t i)
{
    return i >= len || s[i] == ' ' || s[i] == '\t' || s[i] == '\n';
}

/* Punctuation as CommonMark 0.30 reads it: ASCII punctuation, and the common Unicode
 * punctuation a translation writes (U+00A1-U+00BF's marks, U+2010-U+2027, U+2030-U+205E,
 * U+3000-U+303F). i: the first byte of a character. */
static int punct_at(const char *s, size_t len, size_t i)
{
    const unsigned char *b = (const unsigned char *)s;
    if (i >= len)
        return 0;
    if (b[i] < 0x80)
        return strchr("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", b[i]) != NULL && b[i] != 0;
    if (b[i] == 0xC2 && i + 1 < len)
        return strchr("\xA1\xA7\xAB\xB6\xB7\xBB\xBF", b[i + 1]) != NULL && b[i + 1] != 0;
    if (b[i] == 0xE2 && i + 2 < len && b[i + 1] == 0x80)
        return b[i + 2] >= 0x90 && b[i + 2] <= 0xA7 ? 1 : b[i + 2] >= 0xB0;
    if (b[i] == 0xE2 && i + 2 < len && b[i + 1] == 0x81)
        return b[i + 2] <= 0x9E;
    if (b[i] == 0xE3 && i + 2 < len && b[i + 1] == 0x80)
        return 1;
    return 0;
}

/* The start of the character that ends before i (UTF-8). */
static size_t prev_char(const char *s, size_t i)
{
    do
        i--;
    while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80);
    return i;
}

/* A byte of a word: not blank, not punctuation (s[i] starts a character or continues one). */
static int word_at(const char *s, size_t len, size_t i)
{
    if (blank(s, len, i))
        return 0;
    size_t k = i;
    while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
        k--;
    return !punct_at(s, len, k);
}

/* Element i's delimiter character ('*', '_', '~'), or 0 when it is not emphasis-like. */
static char delim_of(const doc *d, const doc_unit *u, int i)
{
    const doc_mark *m = &u->marks[i];
    if (m->n_keep > 0 || m->n_open == 0 || m->n_close == 0)
        return 0;
    for (int k = 0; k < m->n_open; k++) {
        const doc_part *p = &d->mark_parts[m->open + k];
        if (p->unit >= 0 || p->len == 0)
            return 0;
        for (size_t j = 0; j < p->len; j++)
            if (!strchr("*_~", p->s[j]) || p->s[j] != d->mark_parts[m->open].s[0])
                return 0;
    }
    return d->mark_parts[m->open].s[0];
}

/* 1 when a hard break (a void element whose markup ends a line). */
static int is_break(const doc *d, const doc_unit *u, int i)
{
    const doc_mark *m = &u->marks[i];
    if (m->n_keep > 0 || m->n_close > 0 || u->ranges[i].start != u->ranges[i].end)
        return 0;
    for (int k = 0; k < m->n_open; k++) {
        const doc_part *p = &d->mark_parts[m->open + k];
        if (p->unit < 0 && memchr(p->s, '\n', p->len))
            return 1;
    }
    return 0;
}

/* 1 when [s, e) overlaps no sibling of i (parent p) other than those it holds... none may
 * cross it; a void sibling strictly inside is allowed (it moves with the words). */
static int clear(const doc_unit *u, int i, int p, size_t s, size_t e)
{
    for (int j = i - 64 > p + 1 ? i - 64 : p + 1; j < u->n_ranges && j <= i + 64; j++) {
        const doc_range *q = &u->ranges[j];
        if (j == i || q->parent != p || q->start == q->end)
            continue;
        if (q->start < e && q->end > s)
            return 0;
    }
    return 1;
}

/* Opening and closing runs of character c at s and e read as such (spec 6.2). */
static int opens(const char *t, size_t len, size_t s, char c)
{
    if (s < len && ((unsigned char)t[s] & 0xC0) == 0x80)
        return 0; /* (inside a character) */
    size_t pv = s > 0 ? prev_char(t, s) : len;
    int pb = s == 0 || blank(t, len, pv), pp = s > 0 && punct_at(t, len, pv);
    int nb = blank(t, len, s), np = punct_at(t, len, s);
    int left = !nb && (!np || pb || pp);
    return c == '_' ? left && (pb || pp) : left;
}

static int closes(const char *t, size_t len, size_t e, char c)
{
    if (e < len && ((unsigned char)t[e] & 0xC0) == 0x80)
        return 0;
    size_t pv = e > 0 ? prev_char(t, e) : len;
    int pb = e == 0 || blank(t, len, pv), pp = e > 0 && punct_at(t, len, pv);
    int nb = blank(t, len, e), np = punct_at(t, len, e);
    int right = !pb && (!pp || nb || np);
    return c == '_' ? right && (nb || np) : right;
}

void md_place(const doc *d, doc_unit *u)
{
    const char *t = u->out;
    size_t len = u->out_len;
    if (!t)
        return;
    for (int i = 0; i < u->n_ranges; i++) {
        doc_range *r = &u->ranges[i];
        int p = r->parent;
        size_t lo = p >= 0 ? u->ranges[p].start : 0, hi = p >= 0 ? u->ranges[p].end : len;
        if (is_break(d, u, i)) {
            /* text on both sides inside the parent: else the nearest gap between two words */
            size_t a = r->start, k;
            int before = 0, after = 0;
            for (k = lo; k < a && !before; k++)
                before = !blank(t, len, k);
            for (k = a; k < hi && !after; k++)
                after = !blank(t, len, k);
            if (before && after)
                continue;
            size_t best = a, best_d = (size_t)-1;
            size_t k0 = a > lo + 4096 ? a - 4096 : lo + 1, k1 = a + 4096 < hi ? a + 4096 : hi;
            for (k = k0 > lo ? k0 : lo + 1; k < k1; k++) /* a gap: a blank after a non-blank */
                if (blank(t, len, k) && !blank(t, len, k - 1)) {
                    size_t g = k;
                    while (g < hi && blank(t, len, g))
                        g++;
                    if (g >= hi)
                        break;
                    size_t dd = g > a ? g - a : a - g;
                    if (dd < best_d && clear(u, i, p, g, g + 1) &&
                        (g == 0 || clear(u, i, p, g - 1, g))) {
                        best = g;
                        best_d = dd;
                    }
                }
            r->start = r->end = best;
            continue;
        }
        char c = delim_of(d, u, i);
        if (!c || r->start >= r->end)
            continue;
        size_t s = r->start, e = r->end;
        if (!opens(t, len, s, c)) { /* out to the word's start, else in to the next word */
            size_t s2 = s;
            while (s2 > lo && word_at(t, len, s2 - 1))
                s2--;
            if (opens(t, len, s2, c) && clear(u, i, p, s2, e)) {
                s = s2;
            } else {
                s2 = s;
                while (s2 < e && !(opens(t, len, s2, c) && (s2 == 0 || !word_at(t, len, s2 - 1))))
                    s2++;
                s = s2;
            }
        }
        if (s < e && !closes(t, len, e, c)) {
            size_t e2 = e;
            while (e2 < hi && word_at(t, len, e2))
                e2++;
            if (closes(t, len, e2, c) && clear(u, i, p, s, e2)) {
                e = e2;
            } else {
                e2 = e;
                while (e2 > s && !(closes(t, len, e2, c) && !word_at(t, len, e2)))
                    e2--;
                e = e2;
            }
        }
        /* both ends with a parent of the same character: one strong to a reader; one end,
         * between two punctuation characters: the merged run both opens and closes, and the
         * rule of 3 may refuse it ('„Land“****)') */
        int same = s < e && p >= 0 && delim_of(d, u, p) == c;
        int risky_e = same && e == hi && e > 0 && e < len &&
                      punct_at(t, len, prev_char(t, e)) && punct_at(t, len, e);
        int risky_s = same && s == lo && s > 0 && punct_at(t, len, prev_char(t, s)) &&
                      punct_at(t, len, s);
        if (same && ((s == lo && e == hi) || risky_e || risky_s)) {
            size_t k = e;
            while (k > s && !blank(t, len, k - 1))
                k--;
            while (k > s && blank(t, len, k - 1))
                k--;
            if (risky_s && !risky_e && !(s == lo && e == hi))
                k = s; /* (the start is what merges: moved first) */
            if (k > s && closes(t, len, k, c)) {
                e = k;
            } else {
                k = s;
                while (k < e && !blank(t, len, k))
                    k++;
                while (k < e && blank(t, len, k))
                    k++;
                if (k < e && opens(t, len, k, c)) {
                    s = k;
                } else { /* one word: the parent takes the next (or the last) word too */
                    doc_range *q = &u->ranges[p];
                    int pp = q->parent;
                    size_t plo = pp >= 0 ? u->ranges[pp].start : 0;
                    size_t phi = pp >= 0 ? u->ranges[pp].end : len, n1 = hi, n0 = lo;
                    while (n1 < phi && blank(t, len, n1))
                        n1++;
                    while (n1 < phi && !blank(t, len, n1))
                        n1++;
                    while (n0 > plo && blank(t, len, n0 - 1))
                        n0--;
                    while (n0 > plo && !blank(t, len, n0 - 1))
                        n0--;
                    if (n1 > hi && closes(t, len, n1, c) && clear(u, p, pp, lo, n1))
                        q->end = n1;
                    else if (n0 < lo && opens(t, len, n0, c) && clear(u, p, pp, n0, hi))
                        q->start = n0;
                }
            }
        }
        if (s >= e)
            s = e = r->start; /* (nothing fits: written without its markup) */
        r->start = s;
        r->end = e;
        /* its children stay inside it */
        for (int j = i + 1; j < u->n_ranges && j <= i + 64; j++)
            if (u->ranges[j].parent == i) {
                doc_range *q = &u->ranges[j];
                q->start = q->start < s ? s : q->start > e ? e : q->start;
                q->end = q->end < q->start ? q->start : q->end > e ? e : q->end;
            }
    }
}

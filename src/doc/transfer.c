/* transfer.c — element ranges from a source text to its translation by the alignment
 * (transfer.h). Two passes: each element's own target range from the target tokens aligned to
 * its source tokens, then, parents before children, each range clipped into its parent and past
 * the siblings already placed, so that the ranges nest. */
#include "doc/transfer.h"
#include "base/util.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* A byte that belongs to a word: not whitespace, not ASCII punctuation (UTF-8 continuation
 * and lead bytes count as word bytes, so a word of any script is widened whole). */
static int is_word(unsigned char c)
{
    if (c >= 0x80)
        return 1;
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* Token i's bytes [*s, *e) in text, trimmed of whitespace; 0 when nothing is left. */
static int core(const int *spans, int i, const char *text, size_t len, size_t *s, size_t *e)
{
    long a = spans[2 * i], b = spans[2 * i + 1];
    if (a < 0 || b < a || (size_t)b > len)
        return 0;
    while (a < b && is_space((unsigned char)text[a]))
        a++;
    while (b > a && is_space((unsigned char)text[b - 1]))
        b--;
    *s = (size_t)a;
    *e = (size_t)b;
    return b > a;
}

/* Where a point at source byte p goes: the start of the first target token aligned to the
 * first source token at or after p that has one; tgt_len when none. */
static size_t place_point(const doc_alignment *a, size_t p, const char *src, size_t src_len,
                          const char *tgt, size_t tgt_len)
{
    size_t best_src = SIZE_MAX, best = tgt_len;
    for (int j = 0; j < a->n_tgt; j++) {
        size_t ss, se, ts, te;
        int k = a->align[j];
        if (k < 0 || k >= a->n_src || !core(a->src_spans, k, src, src_len, &ss, &se) ||
            !core(a->tgt_spans, j, tgt, tgt_len, &ts, &te) || ss < p)
            continue;
        if (ss < best_src || (ss == best_src && ts < best)) {
            best_src = ss;
            best = ts;
        }
    }
    return best;
}

/* Moves r[i] clear of the siblings placed before it: past one it starts inside, before one
 * that starts inside it; a point inside a sibling goes to its end. Returns 1 if it moved. */
static int clear_siblings(doc_range *r, int i)
{
    int p = r[i].parent, moved = 0;
    for (int k = p + 1; k < i; k++) {
        size_t s0 = r[i].start, e0 = r[i].end;
        if (r[k].parent != p)
            continue;
        if (r[i].start < r[k].end && r[k].start < r[i].end) {
            if (r[i].start >= r[k].start) {
                r[i].start = r[k].end;
                if (r[i].end < r[i].start)
                    r[i].end = r[i].start;
            } else {
                r[i].end = r[k].start;
            }
        } else if (r[i].start == r[i].end && r[k].start < r[i].start &&
                   r[i].start < r[k].end) {
            r[i].start = r[i].end = r[k].end;
        }
        moved |= r[i].start != s0 || r[i].end != e0;
    }
    return moved;
}

int doc_transfer(doc_range *r, int n, const doc_alignment *a, const char *src, size_t src_len,
                 const char *tgt, size_t tgt_len, char *err, size_t errlen)
{
    for (int i = 0; i < n; i++)
        if (r[i].parent < -1 || r[i].parent >= i || r[i].start > r[i].end ||
            r[i].end > src_len)
            return xerr(err, errlen, "element %d: range [%zu, %zu) or parent %d out of order "
                        "(text of %zu bytes)", i, r[i].start, r[i].end, r[i].parent, src_len);
    /* Each element's own range, from the source ranges (r is rewritten in place: an element's
     * source range is read before it is overwritten, and nothing reads it after). */
    for (int i = 0; i < n; i++) {
        size_t a0 = r[i].start, a1 = r[i].end, lo = SIZE_MAX, hi = 0;
        for (int j = 0; a1 > a0 && j < a->n_tgt; j++) {
            size_t ss, se, ts, te;
            int k = a->align[j];
            if (k < 0 || k >= a->n_src || !core(a->src_spans, k, src, src_len, &ss, &se) ||
                ss >= a1 || se <= a0 || !core(a->tgt_spans, j, tgt, tgt_len, &ts, &te))
                continue;
            lo = ts < lo ? ts : lo;
            hi = te > hi ? te : hi;
        }
        if (lo == SIZE_MAX) { /* void, empty, or aligned to nothing: a point */
            lo = hi = place_point(a, a0, src, src_len, tgt, tgt_len);
        } else {
            /* whole words in the source: whole words in the target */
            if ((a0 == 0 || !is_word((unsigned char)src[a0 - 1])) &&
                is_word((unsigned char)src[a0]))
                while (lo > 0 && is_word((unsigned char)tgt[lo - 1]))
                    lo--;
            if ((a1 == src_len || !is_word((unsigned char)src[a1])) &&
                is_word((unsigned char)src[a1 - 1]))
                while (hi < tgt_len && is_word((unsigned char)tgt[hi]))
                    hi++;
        }
        r[i].start = lo;
        r[i].end = hi;
    }
    /* Nest them again: into the parent, then clear of the siblings already placed. */
    for (int i = 0; i < n; i++) {
        int p = r[i].parent;
        size_t b0 = p < 0 ? 0 : r[p].start, b1 = p < 0 ? tgt_len : r[p].end;
        if (r[i].start < b0)
            r[i].start = b0;
        if (r[i].end > b1)
            r[i].end = b1;
        if (r[i].start > b1)
            r[i].start = b1;
        if (r[i].end < r[i].start)
            r[i].end = r[i].start;
        /* until no sibling overlaps it (each pass moves it right or shortens it) */
        for (int pass = 0; pass <= i && clear_siblings(r, i); pass++)
            ;
        /* a clipped range may now start or end on the space between two words */
        while (r[i].end > r[i].start && is_space((unsigned char)tgt[r[i].start]))
            r[i].start++;
        while (r[i].end > r[i].start && is_space((unsigned char)tgt[r[i].end - 1]))
            r[i].end--;
    }
    return 0;
}

/* transfer.c — element ranges from a source text to its translation by the alignment
 * (transfer.h). Two passes: each element's own target range from the target tokens aligned to
 * its source tokens, then, parents before children, each range clipped into its parent and past
 * the siblings already placed, so that the ranges nest. O(n log n) in elements and tokens: a
 * paragraph of thousands of links is not quadratic. */
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

/* Per source token, what its aligned target tokens cover; the source tokens with a core
 * sorted by it, and a segment tree over them for a range's min and max: each element's range
 * in O(log n), where a scan of the target tokens for each element made a paragraph of many
 * links quadratic. Only when the cores do not overlap (every tokenizer's spans): otherwise the
 * plain scan (own_range_scan) stands. */
typedef struct {
    int m;           /* source tokens with a non-empty core, in core order */
    size_t *ss, *se; /* [m] their cores */
    size_t *lo, *hi; /* [m] min start and max end of their aligned target cores (lo SIZE_MAX,
                        hi 0: none) */
    size_t *tlo, *thi; /* [2 * size] the segment tree over lo and hi (leaves at size + k) */
    int size;
    int *next;       /* [m + 1] the first token at or after k with aligned targets (m: none) */
} src_index;

static void index_free(src_index *x)
{
    free(x->ss);
    free(x->se);
    free(x->lo);
    free(x->hi);
    free(x->tlo);
    free(x->thi);
    free(x->next);
}

typedef struct {
    size_t ss;
    int k;
} core_key;

static int by_core(const void *a, const void *b)
{
    const core_key *x = a, *y = b;
    return x->ss < y->ss ? -1 : x->ss > y->ss ? 1 : x->k - y->k;
}

/* Builds the index; 1 when built, 0 when the cores overlap (use the scan), -1 out of memory. */
static int index_build(src_index *x, const doc_alignment *a, const char *src, size_t src_len,
                       const char *tgt, size_t tgt_len)
{
    int n = a->n_src, m = 0, rc = -1;
    core_key *key = malloc(sizeof *key * ((size_t)n + 1));
    int *slot = malloc(sizeof(int) * ((size_t)n + 1)); /* source token -> its place, or -1 */
    memset(x, 0, sizeof *x);
    if (!key || !slot)
        goto done;
    for (int k = 0; k < n; k++) {
        size_t s0, e0;
        if (core(a->src_spans, k, src, src_len, &s0, &e0))
            key[m++] = (core_key){s0, k};
    }
    qsort(key, (size_t)m, sizeof *key, by_core);
    x->m = m;
    for (x->size = 1; x->size < m; x->size *= 2)
        ;
    x->ss = malloc(sizeof(size_t) * ((size_t)m + 1));
    x->se = malloc(sizeof(size_t) * ((size_t)m + 1));
    x->lo = malloc(sizeof(size_t) * ((size_t)m + 1));
    x->hi = malloc(sizeof(size_t) * ((size_t)m + 1));
    x->tlo = malloc(sizeof(size_t) * 2 * (size_t)x->size);
    x->thi = malloc(sizeof(size_t) * 2 * (size_t)x->size);
    x->next = malloc(sizeof(int) * ((size_t)m + 1));
    if (!x->ss || !x->se || !x->lo || !x->hi || !x->tlo || !x->thi || !x->next)
        goto done;
    for (int k = 0; k < n; k++)
        slot[k] = -1;
    for (int i = 0; i < m; i++) {
        size_t s0, e0;
        core(a->src_spans, key[i].k, src, src_len, &s0, &e0);
        x->ss[i] = s0;
        x->se[i] = e0;
        x->lo[i] = SIZE_MAX;
        x->hi[i] = 0;
        slot[key[i].k] = i;
        if (i > 0 && s0 < x->se[i - 1]) { /* overlapping cores */
            rc = 0;
            goto done;
        }
    }
    for (int j = 0; j < a->n_tgt; j++) {
        size_t ts, te;
        int k = a->align[j];
        if (k < 0 || k >= n || slot[k] < 0 || !core(a->tgt_spans, j, tgt, tgt_len, &ts, &te))
            continue;
        int i = slot[k];
        x->lo[i] = ts < x->lo[i] ? ts : x->lo[i];
        x->hi[i] = te > x->hi[i] ? te : x->hi[i];
    }
    for (int i = 0; i < x->size; i++) {
        x->tlo[x->size + i] = i < m ? x->lo[i] : SIZE_MAX;
        x->thi[x->size + i] = i < m ? x->hi[i] : 0;
    }
    for (int i = x->size - 1; i >= 1; i--) {
        size_t l0 = x->tlo[2 * i], l1 = x->tlo[2 * i + 1];
        size_t h0 = x->thi[2 * i], h1 = x->thi[2 * i + 1];
        x->tlo[i] = l0 < l1 ? l0 : l1;
        x->thi[i] = h0 > h1 ? h0 : h1;
    }
    x->next[m] = m;
    for (int i = m - 1; i >= 0; i--)
        x->next[i] = x->lo[i] != SIZE_MAX ? i : x->next[i + 1];
    rc = 1;
done:
    free(key);
    free(slot);
    return rc;
}

/* The first place with ss >= p (sorted), or with se > p. */
static int first_ss_at(const src_index *x, size_t p)
{
    int a = 0, b = x->m;
    while (a < b) {
        int c = a + (b - a) / 2;
        if (x->ss[c] < p)
            a = c + 1;
        else
            b = c;
    }
    return a;
}

static int first_se_after(const src_index *x, size_t p)
{
    int a = 0, b = x->m;
    while (a < b) {
        int c = a + (b - a) / 2;
        if (x->se[c] <= p)
            a = c + 1;
        else
            b = c;
    }
    return a;
}

/* min lo and max hi over places [a, b) */
static void tree_query(const src_index *x, int a, int b, size_t *lo, size_t *hi)
{
    *lo = SIZE_MAX;
    *hi = 0;
    for (a += x->size, b += x->size; a < b; a /= 2, b /= 2) {
        if (a & 1) {
            *lo = x->tlo[a] < *lo ? x->tlo[a] : *lo;
            *hi = x->thi[a] > *hi ? x->thi[a] : *hi;
            a++;
        }
        if (b & 1) {
            b--;
            *lo = x->tlo[b] < *lo ? x->tlo[b] : *lo;
            *hi = x->thi[b] > *hi ? x->thi[b] : *hi;
        }
    }
}

/* The target bytes aligned to the source tokens overlapping [a0, a1), by the scan. */
static void own_range_scan(const doc_alignment *a, size_t a0, size_t a1, const char *src,
                           size_t src_len, const char *tgt, size_t tgt_len, size_t *lo,
                           size_t *hi)
{
    *lo = SIZE_MAX;
    *hi = 0;
    for (int j = 0; a1 > a0 && j < a->n_tgt; j++) {
        size_t ss, se, ts, te;
        int k = a->align[j];
        if (k < 0 || k >= a->n_src || !core(a->src_spans, k, src, src_len, &ss, &se) ||
            ss >= a1 || se <= a0 || !core(a->tgt_spans, j, tgt, tgt_len, &ts, &te))
            continue;
        *lo = ts < *lo ? ts : *lo;
        *hi = te > *hi ? te : *hi;
    }
}

/* The placed siblings of each parent, sorted by (start, end), in one pool: parent p's at
 * pool[first[p + 1] ..], n_placed[p + 1] of them. Disjoint (each was cleared of those before
 * it), so the one that can hold a point is the last to start at or before it. */
typedef struct {
    size_t *s, *e; /* [n] */
    int *first;    /* [n + 1] */
    int *count;    /* [n + 1] */
} sibling_sets;

/* Moves [*s, *e) clear of the placed siblings in set (base, cnt): a range that starts inside
 * one starts at its end; one that holds another's start (or a void sibling's point) ends
 * there; a point inside one goes to its end. */
static void clear_of(const sibling_sets *z, int base, int cnt, size_t *s, size_t *e)
{
    for (;;) { /* the sibling holding *s, if any: the last to start at or before it */
        int a = 0, b = cnt;
        while (a < b) {
            int c = a + (b - a) / 2;
            if (z->s[base + c] <= *s)
                a = c + 1;
            else
                b = c;
        }
        int k = a - 1;
        /* of those starting at *s exactly, a non-empty one sorts last */
        if (k >= 0 && z->e[base + k] > *s && (z->s[base + k] < *s || *e > *s)) {
            *s = z->e[base + k];
            if (*e < *s)
                *e = *s;
            continue;
        }
        if (*e > *s && a < cnt && z->s[base + a] < *e) /* a sibling starts inside */
            *e = z->s[base + a];
        return;
    }
}

static void place_sibling(sibling_sets *z, int base, int *cnt, size_t s, size_t e)
{
    int a = 0, b = *cnt;
    while (a < b) {
        int c = a + (b - a) / 2;
        if (z->s[base + c] < s || (z->s[base + c] == s && z->e[base + c] <= e))
            a = c + 1;
        else
            b = c;
    }
    memmove(z->s + base + a + 1, z->s + base + a, sizeof(size_t) * (size_t)(*cnt - a));
    memmove(z->e + base + a + 1, z->e + base + a, sizeof(size_t) * (size_t)(*cnt - a));
    z->s[base + a] = s;
    z->e[base + a] = e;
    (*cnt)++;
}

/* ---- kept elements: found by their text ---- */

/* 1 when tgt[p, p + len) equals t[0, len) as whole words: a word byte at either end of t is
 * not continued by one in tgt ("a" is not found in "Mann"). */
static int copy_at(const char *tgt, size_t tgt_len, size_t p, const char *t, size_t len)
{
    if (p + len > tgt_len || memcmp(tgt + p, t, len) != 0)
        return 0;
    if (is_word((unsigned char)t[0]) && p > 0 && is_word((unsigned char)tgt[p - 1]))
        return 0;
    if (is_word((unsigned char)t[len - 1]) && p + len < tgt_len &&
        is_word((unsigned char)tgt[p + len]))
        return 0;
    return 1;
}

/* The copy of t[0, len) in tgt nearest ref (within KEPT_WINDOW bytes either side) whose bytes
 * no other kept element took (taken: [tgt_len] bytes); SIZE_MAX when none. */
#define KEPT_WINDOW 4096
static size_t find_copy(const char *tgt, size_t tgt_len, const unsigned char *taken,
                        size_t ref, const char *t, size_t len)
{
    size_t from = ref > KEPT_WINDOW ? ref - KEPT_WINDOW : 0, best = SIZE_MAX, best_d = SIZE_MAX;
    size_t to = ref + KEPT_WINDOW + len < tgt_len ? ref + KEPT_WINDOW + len : tgt_len;
    while (from + len <= to) {
        const char *hit = memmem(tgt + from, to - from, t, len);
        if (!hit)
            break;
        size_t p = (size_t)(hit - tgt), d = p > ref ? p - ref : ref - p, k = 0;
        if (copy_at(tgt, tgt_len, p, t, len)) {
            while (k < len && !taken[p + k])
                k++;
            if (k == len && d < best_d) {
                best = p;
                best_d = d;
            }
        }
        from = p + 1;
    }
    return best;
}

int doc_transfer(doc_range *r, int n, const doc_alignment *a, const char *src, size_t src_len,
                 const char *tgt, size_t tgt_len, char *err, size_t errlen)
{
    return doc_transfer_kept(r, n, NULL, a, src, src_len, tgt, tgt_len, err, errlen);
}

int doc_transfer_kept(doc_range *r, int n, const unsigned char *kept, const doc_alignment *a,
                      const char *src, size_t src_len, const char *tgt, size_t tgt_len,
                      char *err, size_t errlen)
{
    src_index x = {0};
    sibling_sets z = {0};
    int rc = -1, built;
    unsigned char *matched = NULL, *taken = NULL; /* [n] copy found; [tgt_len] bytes taken */
    size_t *src0 = NULL;                          /* [2n] kept elements' trimmed source text */
    int *kids = NULL, *ord = NULL, *cur = NULL;   /* children by parent; the placing order */
    for (int i = 0; i < n; i++)
        if (r[i].parent < -1 || r[i].parent >= i || r[i].start > r[i].end ||
            r[i].end > src_len)
            return xerr(err, errlen, "element %d: range [%zu, %zu) or parent %d out of order "
                        "(text of %zu bytes)", i, r[i].start, r[i].end, r[i].parent, src_len);
    if ((built = index_build(&x, a, src, src_len, tgt, tgt_len)) < 0)
        goto done;
    if (kept && (!(matched = calloc((size_t)n + 1, 1)) || !(taken = calloc(tgt_len + 1, 1)) ||
                 !(src0 = malloc(sizeof(size_t) * (2 * (size_t)n + 1)))))
        goto done;
    /* Each element's own range, from the source ranges (r is rewritten in place: an element's
     * source range is read before it is overwritten, and nothing reads it after). */
    for (int i = 0; i < n; i++) {
        size_t a0 = r[i].start, a1 = r[i].end, lo = SIZE_MAX, hi = 0;
        if (kept) {
            src0[2 * i] = a0;
            src0[2 * i + 1] = a1;
        }
        if (built && a1 > a0)
            tree_query(&x, first_se_after(&x, a0), first_ss_at(&x, a1), &lo, &hi);
        else if (a1 > a0)
            own_range_scan(a, a0, a1, src, src_len, tgt, tgt_len, &lo, &hi);
        if (lo == SIZE_MAX) { /* void, empty, or aligned to nothing: a point */
            if (built) {
                int k = x.next[first_ss_at(&x, a0)];
                lo = hi = k < x.m ? x.lo[k] : tgt_len;
            } else {
                lo = hi = place_point(a, a0, src, src_len, tgt, tgt_len);
            }
            /* a point between two word pieces ("ren|nt"): before the word, as it stood before
             * a word in the source (a br or img never splits a word it did not split) */
            if (a0 == 0 || !is_word((unsigned char)src[a0 - 1]) || a0 >= src_len ||
                !is_word((unsigned char)src[a0]))
                while (lo > 0 && lo < tgt_len && is_word((unsigned char)tgt[lo - 1]) &&
                       is_word((unsigned char)tgt[lo]))
                    hi = --lo;
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
        if (kept && kept[i]) {
            /* its copy in the translation, else a point after the words it was aligned to */
            size_t t0 = a0, t1 = a1, p = SIZE_MAX;
            while (t0 < t1 && is_space((unsigned char)src[t0]))
                t0++;
            while (t1 > t0 && is_space((unsigned char)src[t1 - 1]))
                t1--;
            src0[2 * i] = t0;
            src0[2 * i + 1] = t1;
            if (t1 > t0)
                p = find_copy(tgt, tgt_len, taken, lo, src + t0, t1 - t0);
            if (p != SIZE_MAX) {
                memset(taken + p, 1, t1 - t0);
                lo = p;
                hi = p + (t1 - t0);
                matched[i] = 1;
            } else {
                /* (before the punctuation that ends the aligned words: "word `x`.", not
                 * "word.`x`") */
                while (hi > lo && strchr(".!?,;:", tgt[hi - 1]))
                    hi--;
                /* and never inside a target word ("Tal|ent"): after it */
                while (hi > 0 && hi < tgt_len && is_word((unsigned char)tgt[hi - 1]) &&
                       is_word((unsigned char)tgt[hi]))
                    hi++;
                lo = hi;
            }
        }
        r[i].start = lo;
        r[i].end = hi;
    }
    /* A found copy is inside its ancestors: each is widened to hold it (an ancestor that
     * holds nothing but it, a link around a code span, becomes exactly it). Stops at one that
     * holds it already, so a deep nest costs its depth once. */
    for (int i = 0; kept && i < n; i++) {
        if (!matched[i])
            continue;
        for (int p = r[i].parent; p >= 0; p = r[p].parent) {
            size_t s0 = src0[2 * p], s1 = src0[2 * p + 1];
            while (s0 < s1 && is_space((unsigned char)src[s0]))
                s0++;
            while (s1 > s0 && is_space((unsigned char)src[s1 - 1]))
                s1--;
            if (s0 == src0[2 * i] && s1 == src0[2 * i + 1]) {
                r[p].start = r[i].start;
                r[p].end = r[i].end;
                continue;
            }
            if (r[p].start <= r[i].start && r[p].end >= r[i].end)
                break;
            r[p].start = r[p].start < r[i].start ? r[p].start : r[i].start;
            r[p].end = r[p].end > r[i].end ? r[p].end : r[i].end;
        }
    }
    /* Nest them again: into the parent, then clear of the siblings already placed. Parents
     * before children (by levels), and of each parent's children the found kept copies
     * first: they are fixed by their text, the others move around them. */
    z.s = malloc(sizeof(size_t) * ((size_t)n + 1));
    z.e = malloc(sizeof(size_t) * ((size_t)n + 1));
    z.first = calloc((size_t)n + 2, sizeof(int));
    z.count = calloc((size_t)n + 2, sizeof(int));
    kids = malloc(sizeof(int) * ((size_t)n + 1));
    ord = malloc(sizeof(int) * ((size_t)n + 1));
    cur = calloc((size_t)n + 2, sizeof(int));
    if (!z.s || !z.e || !z.first || !z.count || !kids || !ord || !cur)
        goto done;
    for (int i = 0; i < n; i++)
        z.first[r[i].parent + 2]++;
    for (int p = 1; p < n + 2; p++)
        z.first[p] += z.first[p - 1];
    for (int i = 0; i < n; i++) {
        int p = r[i].parent;
        kids[z.first[p + 1] + cur[p + 1]++] = i;
    }
    int n_ord = 0;
    for (int q = -1; q < n_ord; q++) {
        int p = q < 0 ? -1 : ord[q];
        for (int pass = 0; pass < 2; pass++)
            for (int k = z.first[p + 1]; k < z.first[p + 2]; k++) {
                int c = kids[k];
                if ((matched && matched[c]) == (pass == 0))
                    ord[n_ord++] = c;
            }
    }
    for (int q = 0; q < n_ord; q++) {
        int i = ord[q], p = r[i].parent;
        size_t b0 = p < 0 ? 0 : r[p].start, b1 = p < 0 ? tgt_len : r[p].end;
        size_t m0 = r[i].start, m1 = r[i].end;
        if (r[i].start < b0)
            r[i].start = b0;
        if (r[i].end > b1)
            r[i].end = b1;
        if (r[i].start > b1)
            r[i].start = b1;
        if (r[i].end < r[i].start)
            r[i].end = r[i].start;
        clear_of(&z, z.first[p + 1], z.count[p + 1], &r[i].start, &r[i].end);
        if (matched && matched[i] && (r[i].start != m0 || r[i].end != m1)) {
            /* its copy is not inside its parent: a point after it, the copy left as words */
            size_t pt = m1 < b0 ? b0 : m1 > b1 ? b1 : m1;
            r[i].start = r[i].end = pt;
            clear_of(&z, z.first[p + 1], z.count[p + 1], &r[i].start, &r[i].end);
            matched[i] = 0;
        }
        /* a clipped range may now start or end on the space between two words */
        while (r[i].end > r[i].start && is_space((unsigned char)tgt[r[i].start]))
            r[i].start++;
        while (r[i].end > r[i].start && is_space((unsigned char)tgt[r[i].end - 1]))
            r[i].end--;
        place_sibling(&z, z.first[p + 1], &z.count[p + 1], r[i].start, r[i].end);
    }
    rc = 0;
done:
    index_free(&x);
    free(z.s);
    free(z.e);
    free(z.first);
    free(z.count);
    free(matched);
    free(taken);
    free(src0);
    free(kids);
    free(ord);
    free(cur);
    return rc ? xerr(err, errlen, "out of memory") : 0;
}

/* search_step.c — the step every strategy shares (search_step.h). */
#include "decode/search_step.h"
#include "kernels/simd.h"
#include "kernels/ops.h"
#include "kernels/screen.h"
#include "base/util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

int search_step_row(const search_model *m, const logits_chain *chain, const logits_rules *rules,
                    const step_rows *rows, const int *max_len, int pos, int r, float *row,
                    float *mx)
{
    int V = m->vocab, at;
    float M;
    /* Logits that are not finite (weights so large that the activations overflow, or NaN in a
     * changed weights file) make any choice garbage. The same pass finds the largest, M =
     * row[at] (simd_max's bits: a nonzero largest value is one value, whatever the order). */
    if (!simd_max_finite(row, V, &M, &at))
        return 1;
    if (rows->log_softmax) {
        float lse = M + logf(simd_exp_sum(NULL, row, V, M)); /* logsumexp(row, V) */
        for (int v = 0; v < V; v++)
            row[v] -= lse;
        M = row[at]; /* x - lse rounds monotonically: still the largest */
    }
    if (chain->n) {
        logits_row lr = {rules, V, pos, max_len[rows->sentence[r]], rows->history[r],
                          rows->sentence[r], rows->work, rows->iwork};
        logits_apply(chain, &lr, row);
        /* A chain that is not `exact` only bans (-inf) or forces one token (every other -inf,
         * the forced one 0): when row[at] still holds M, nothing was forced and M is still the
         * largest. Else, and for a zero M (whose sign simd_max takes from the lane order),
         * a pass finds it. */
        if (mx && (chain->exact || M == 0 || memcmp(&row[at], &M, sizeof M)))
            M = simd_max(row, V);
    }
    if (mx)
        *mx = M;
    return 0;
}

int search_step_fail(const step_rows *rows, int r, int pos, char *err, size_t errlen)
{
    return xerr(err, errlen, "the model computed non-finite logits (inf or NaN) for sentence %d "
                "of the batch at step %d: its weights overflow or are corrupt",
                rows->sentence[r] + 1, pos + 1);
}

int search_step(const search_model *m, const logits_chain *chain, const logits_rules *rules,
                const step_rows *rows, const int *max_len, int pos, float *logits, char *err,
                size_t errlen)
{
    m->step(m->user, rows->n, rows->tokens, rows->slots, rows->srcs, pos, logits);
    for (int r = 0; r < rows->n; r++)
        if (search_step_row(m, chain, rules, rows, max_len, pos, r,
                            logits + (size_t)r * m->vocab, NULL))
            return search_step_fail(rows, r, pos, err, errlen);
    return 0;
}

/* Row r's argmax from its estimates, or -1 when they are not all finite. The chain is not
 * `exact` (the caller's rule): its processors only ban tokens or force one (logits.c: whatever
 * the values), so applied to the estimates they ban the same tokens. Then with T the best lower bound est - rad over the tokens left, the
 * winner of the exact logits (value m, lowest id on ties) has est + rad >= m >= its lower
 * bound... >= T: every token that could win is a candidate, and the exact logits of the
 * candidates decide, ties to the lower id as argmax. A forced eos is the only token left. */
static int row_argmax(const search_model *m, const logits_chain *chain, const logits_row *lr,
                      int r, float *est, const float *rad, int *cand)
{
    int V = m->vocab, best = -1, nc;
    float T, bv = -INFINITY;
    if (chain->n)
        logits_apply(chain, lr, est);
    if (!screen_floor(est, rad, V, &T))
        return -1;
    if (T == -INFINITY) /* every token banned: argmax of all -inf is the first */
        return 0;
    nc = screen_candidates(est, rad, V, T, cand);
    for (int c = 0; c < nc; c++) {
        float e = m->exact(m->user, r, cand[c]);
        if (best < 0 || e > bv) {
            best = cand[c];
            bv = e;
        }
    }
    return best;
}

int search_step_argmax(const search_model *m, const logits_chain *chain,
                       const logits_rules *rules, const step_rows *rows, const int *max_len,
                       int pos, float *est, float *rad, int *cand, int *tok)
{
    int V = m->vocab;
    m->estimate(m->user, rows->n, rows->tokens, rows->slots, rows->srcs, pos, est, rad);
    for (int r = 0; r < rows->n; r++) {
        logits_row lr = {rules, V, pos, max_len[rows->sentence[r]], rows->history[r],
                         rows->sentence[r], rows->work, rows->iwork};
        if ((tok[r] = row_argmax(m, chain, &lr, r, est + (size_t)r * V, rad + (size_t)r * V,
                                 cand)) < 0)
            return 1;
    }
    return 0;
}

int search_reserve(search_scratch *s, size_t bytes, char *err, size_t errlen)
{
    if (bytes <= s->cap)
        return 0;
    free(s->mem); /* nothing to keep: a fresh block, not a realloc's copy */
    s->cap = 0;
    if (!(s->mem = malloc(bytes)))
        return xerr(err, errlen, "out of memory (%zu MB of search buffers)", bytes >> 20);
    s->cap = bytes;
    return 0;
}

int search_best_tokens(const float *row, int V, int A, int eos, int *top)
{
    int k = 0;
    for (int v = 0; v < V; v++) {
        int j;
        if (v == eos || row[v] == -INFINITY || (k == A && row[v] <= row[top[A - 1]]))
            continue;
        j = k < A ? k++ : A - 1;
        while (j > 0 && row[v] > row[top[j - 1]]) {
            top[j] = top[j - 1];
            j--;
        }
        top[j] = v;
    }
    return k;
}

/* search_step.c — the step every strategy shares (search_step.h). */
#include "decode/search_step.h"
#include "kernels/simd.h"
#include "kernels/ops.h"
#include "base/util.h"
#include <stdlib.h>

int search_step(const search_model *m, const logits_chain *chain, const logits_rules *rules,
                const step_rows *rows, const int *max_len, int pos, float *logits, char *err,
                size_t errlen)
{
    int V = m->vocab;
    m->step(m->user, rows->n, rows->tokens, rows->slots, rows->srcs, pos, logits);
    for (int r = 0; r < rows->n; r++) {
        float *row = logits + (size_t)r * V;
        /* Logits that are not finite (weights so large that the activations overflow, or NaN
         * in a changed weights file) make any choice garbage. */
        if (!simd_all_finite(row, V))
            return xerr(err, errlen, "the model computed non-finite logits (inf or NaN) for "
                        "sentence %d of the batch at step %d: its weights overflow or are "
                        "corrupt", rows->sentence[r] + 1, pos + 1);
        if (rows->log_softmax) {
            float lse = logsumexp(row, V);
            for (int v = 0; v < V; v++)
                row[v] -= lse;
        }
        if (chain->n) {
            logits_row lr = {rules, V, pos, max_len[rows->sentence[r]], rows->history[r]};
            logits_apply(chain, &lr, row);
        }
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

/* search.c — greedy decoding (and beam search, search_beam.c) over decoder steps.
 *
 * Greedy: every sentence starts from bos; at each step each unfinished sentence takes the
 * argmax token (eos's logit -inf before min_length tokens); a sentence leaves the batch at eos or
 * at its max_len, so it stops costing compute. */
#include "decode/search.h"
#include "kernels/ops.h"
#include "kernels/simd.h"
#include "base/util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void search_needs(const xlate_decode_params *p, int n, const int *max_len, int *n_slots,
                  int *max_rows, int *cap)
{
    int k = p->beam_size > 1 ? p->beam_size : 1, mx = 1;
    for (int i = 0; i < n; i++)
        if (max_len[i] > mx)
            mx = max_len[i];
    /* beam search: a slot per live hypothesis; they are handed on, copied only on branching */
    *n_slots = n * k;
    *max_rows = n * k;
    *cap = mx;
}

int search_grow(search_scratch *s, size_t logits, size_t ints, size_t floats, char *err,
                size_t errlen)
{
    if (logits > s->cap_logits) {
        float *q = realloc(s->logits, logits * sizeof *q);
        if (!q)
            return xerr(err, errlen, "out of memory (%zu MB of logits)", logits * 4 >> 20);
        s->logits = q;
        s->cap_logits = logits;
    }
    if (ints > s->cap_ints) {
        int *q = realloc(s->ints, ints * sizeof *q);
        if (!q)
            return xerr(err, errlen, "out of memory");
        s->ints = q;
        s->cap_ints = ints;
    }
    if (floats > s->cap_floats) {
        float *q = realloc(s->floats, floats * sizeof *q);
        if (!q)
            return xerr(err, errlen, "out of memory");
        s->floats = q;
        s->cap_floats = floats;
    }
    return 0;
}

/* One hypothesis with room for max_len tokens. */
int hyp_alloc(xlate_hypothesis *h, int max_len, int token_scores)
{
    memset(h, 0, sizeof *h);
    h->ids = malloc((max_len > 0 ? max_len : 1) * sizeof *h->ids);
    if (token_scores)
        h->token_logprobs = malloc((max_len > 0 ? max_len : 1) * sizeof *h->token_logprobs);
    return !h->ids || (token_scores && !h->token_logprobs) ? -1 : 0;
}

int search_step(const model_weights *m, pool *pl, decoder_state *st,
                const xlate_decode_params *p, int rows, const int *tokens, const int *slots,
                const int *srcs, const int *sentence, int pos, float *logits, char *err,
                size_t errlen)
{
    int V = m->cfg.tgt_vocab;
    decoder_step(m, pl, st, rows, tokens, slots, srcs, pos, logits);
    for (int r = 0; r < rows; r++) {
        float *row = logits + (size_t)r * V;
        /* Logits that are not finite (weights so large that the activations overflow, or NaN
         * in a changed weights file) make any choice garbage. */
        if (!simd_all_finite(row, V))
            return xerr(err, errlen, "the model computed non-finite logits (inf or NaN) for "
                        "sentence %d of the batch at step %d: its weights overflow or are "
                        "corrupt", sentence[r] + 1, pos + 1);
        if (pos < p->min_length)
            row[m->cfg.eos_id] = -INFINITY;
    }
    return 0;
}

static int greedy(const model_weights *m, pool *pl, decoder_state *st, search_scratch *s, int n,
                  const int *max_len, const xlate_decode_params *p, xlate_result *out, char *err,
                  size_t errlen)
{
    const model_config *c = &m->cfg;
    int V = c->tgt_vocab, rows = n, *tokens, *slots, *act;

    if (search_grow(s, (size_t)n * V, (size_t)3 * n, 0, err, errlen))
        return -1;
    tokens = s->ints;
    slots = tokens + n;
    act = slots + n;
    for (int i = 0; i < n; i++) {
        out[i].n_hyps = 1;
        out[i].hyps = calloc(1, sizeof *out[i].hyps);
        if (!out[i].hyps || hyp_alloc(out[i].hyps, max_len[i], p->token_scores))
            return xerr(err, errlen, "out of memory");
        tokens[i] = c->bos_id;
        slots[i] = act[i] = i;
    }
    for (int pos = 0; rows > 0; pos++) {
        int w = 0;
        /* rows are their own sources: slot i decodes source i */
        if (search_step(m, pl, st, p, rows, tokens, slots, slots, act, pos, s->logits, err,
                        errlen))
            return -1;
        for (int r = 0; r < rows; r++) {
            int i = act[r];
            const float *row = s->logits + (size_t)r * V;
            int tok = argmax(row, V), done;
            xlate_hypothesis *h = out[i].hyps;
            if (p->scores || p->token_scores) {
                float lp = row[tok] - logsumexp(row, V);
                h->logprob += lp;
                if (h->token_logprobs)
                    h->token_logprobs[pos] = lp;
            }
            if (tok == c->eos_id) {
                h->finished = 1;
                done = 1;
            } else {
                h->ids[h->n++] = tok;
                done = h->n >= max_len[i];
            }
            if (!done) {
                act[w] = i;
                tokens[w] = tok;
                slots[w] = i;
                w++;
            }
        }
        rows = w;
    }
    for (int i = 0; i < n; i++)
        out[i].hyps->score = out[i].hyps->logprob;
    return 0;
}

int search_run(const model_weights *m, pool *pl, decoder_state *st, search_scratch *s, int n,
               const int *max_len, const xlate_decode_params *p, xlate_result *out, char *err,
               size_t errlen)
{
    if (p->beam_size > 1)
        return search_beam(m, pl, st, s, n, max_len, p, out, err, errlen);
    return greedy(m, pl, st, s, n, max_len, p, out, err, errlen);
}

void search_scratch_free(search_scratch *s)
{
    if (!s)
        return;
    free(s->logits);
    free(s->ints);
    free(s->floats);
    memset(s, 0, sizeof *s);
}

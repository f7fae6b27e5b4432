/* search.h — decoding strategies over decoder steps: greedy and beam search. They ask the
 * decoder for logits and choose; they know nothing of the tensors' layout. */
#ifndef XLATE_SEARCH_H
#define XLATE_SEARCH_H
#include "model/model.h"
#include "kernels/pool.h"
#include "decode/transformer.h"
#include "xlate.h"

/* Scratch that lives across batches. */
typedef struct {
    float *logits;   /* [rows, Vt] */
    size_t cap_logits;
    int *ints;       /* per-row bookkeeping */
    size_t cap_ints;
    float *floats;
    size_t cap_floats;
} search_scratch;

/* Decodes the n sources already set in st by decoder_begin (greedy when p->beam_size == 1,
 * else beam search). max_len[i]: the bound for sentence i. Fills out[0..n). */
int search_run(const model_weights *m, pool *pl, decoder_state *st, search_scratch *s, int n,
               const int *max_len, const xlate_decode_params *p, xlate_result *out, char *err,
               size_t errlen);

/* The slots, rows and positions a search needs for n sentences with bounds max_len, so the
 * caller can size the decoder state. */
void search_needs(const xlate_decode_params *p, int n, const int *max_len, int *n_slots,
                  int *max_rows, int *cap);

void search_scratch_free(search_scratch *s);

/* Shared by the strategies (search.c, search_beam.c). */
int search_beam(const model_weights *m, pool *pl, decoder_state *st, search_scratch *s, int n,
                const int *max_len, const xlate_decode_params *p, xlate_result *out, char *err,
                size_t errlen);
/* Grows the scratch to hold these many logits, ints and floats. */
int search_grow(search_scratch *s, size_t logits, size_t ints, size_t floats, char *err,
                size_t errlen);
/* A hypothesis with room for max_len tokens (and their log-probs when token_scores). */
int hyp_alloc(xlate_hypothesis *h, int max_len, int token_scores);
/* One decoder step (decoder_step's arguments) and what every strategy does to its logits
 * [rows, Vt] before choosing: an error naming sentence[r] and the step when a row is not finite;
 * eos's logit set to -inf before p->min_length tokens. */
int search_step(const model_weights *m, pool *pl, decoder_state *st,
                const xlate_decode_params *p, int rows, const int *tokens, const int *slots,
                const int *srcs, const int *sentence, int pos, float *logits, char *err,
                size_t errlen);

#endif

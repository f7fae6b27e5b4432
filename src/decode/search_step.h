/* search_step.h — what the strategies share (search_step.c): the step and the scratch carving.
 * Included by search_greedy.c and search_beam.c only. */
#ifndef XLATE_SEARCH_STEP_H
#define XLATE_SEARCH_STEP_H
#include "decode/search.h"

/* The rows of one step. */
typedef struct {
    int n;               /* rows */
    int *tokens;         /* [n] the token row r feeds */
    int *slots;          /* [n] its cache slot */
    int *srcs;           /* [n] the source it attends to */
    int *sentence;       /* [n] the sentence of the batch it belongs to */
    const int **history; /* [n] its generated tokens so far (pos of them) */
    int log_softmax;     /* 1: the rows become log-probabilities before the processors see them
                            (Hugging Face's beam search: no renormalization after a ban) */
    float *work;         /* [vocab] the warpers' scratch (logits_row.work); NULL without them */
    int *iwork;          /* [vocab] */
} step_rows;

/* One step and what every strategy does to its logits [rows, vocab] before choosing: an error
 * naming the sentence and the step when a row is not finite; then the chain's processors
 * (max_len[sentence[r]]: row r's bound). */
int search_step(const search_model *m, const logits_chain *chain, const logits_rules *rules,
                const step_rows *rows, const int *max_len, int pos, float *logits, char *err,
                size_t errlen);

/* search_step's work on row r (row: its logits) after the model's step: the finite check, then
 * the log-softmax (rows->log_softmax) and the processors. Returns 0, or 1 when the row is not
 * finite (then search_step_fail says so). It touches row r alone (and rows->work when the chain
 * needs it), so rows may run on different threads. mx (NULL: not wanted): the row's largest
 * value as it leaves, simd_max(row, V)'s bits, mostly without a pass of its own. */
int search_step_row(const search_model *m, const logits_chain *chain, const logits_rules *rules,
                    const step_rows *rows, const int *max_len, int pos, int r, float *row,
                    float *mx);
/* search_step's error for a row that is not finite: fills err, returns -1. */
int search_step_fail(const step_rows *rows, int r, int pos, char *err, size_t errlen);

/* The same step for a search that takes each row's argmax: tok[r] is the token argmax would
 * pick from search_step's logits, found from the model's estimates (m->estimate, m->exact)
 * without computing every logit: only the tokens whose bound reaches the best lower bound are
 * computed exactly. est and rad: [rows, vocab] scratch; cand: [vocab]. Returns 0, or 1 when some row's
 * estimates are not finite: then the caller runs search_step for the same position (which
 * recomputes the step: the cache writes are the same) and reports it. */
int search_step_argmax(const search_model *m, const logits_chain *chain,
                       const logits_rules *rules, const step_rows *rows, const int *max_len,
                       int pos, float *est, float *rad, int *cand, int *tok);

/* Carving buffers out of the scratch: a first pass with base NULL measures (used), a second
 * cuts the same buffers out of the grown block. Each buffer starts on a 64-byte boundary. */
typedef struct {
    char *base;
    size_t used;
} scratch_cut;

static inline void *cut(scratch_cut *c, size_t count, size_t size)
{
    void *p = c->base ? c->base + c->used : NULL;
    c->used += (count * size + 63) & ~(size_t)63;
    return p;
}

/* The up to A best tokens of row[V] but eos (finite ones; by value, ties to the lower id) into
 * top, best first; returns how many. The alternatives' expansion (greedy and beam):
 * CTranslate2's decode_alternatives expands them with a BeamSearch of min_length 1
 * (src/decoding.cc 1187-1195), which bans the end token at that step (apply_min_length, 404). */
int search_best_tokens(const float *row, int V, int A, int eos, int *top);

/* Makes the scratch at least `bytes` long (its contents are not kept). */
int search_reserve(search_scratch *s, size_t bytes, char *err, size_t errlen);

#endif

/* search.h — decoding strategies over decoder steps: greedy (search_greedy.c) and beam search
 * (search_beam.c), both over one shared step (search_step.c: the model's step, the finite check,
 * the logits processors of logits.h). They ask a search_model for logits and choose; they know
 * nothing of the tensors, the decoder or the public API.
 *
 * Files call one way: search.c (the dispatch) -> search_greedy.c, search_beam.c ->
 * search_step.c -> logits.c. */
#ifndef XLATE_SEARCH_H
#define XLATE_SEARCH_H
#include "decode/logits.h"
#include <stddef.h>
#include <stdint.h>

/* How to search (the public xlate_decode_params, less what the caller resolves itself). */
typedef struct {
    int beam_size;        /* 1: greedy */
    int n_best;           /* hypotheses returned per sentence, <= beam_size */
    float length_penalty; /* beam: rank by logprob / length^penalty */
    int scores;           /* 1: compute logprob and score (greedy skips the softmax otherwise) */
    int token_scores;     /* 1: also fill token_logprobs */
    logits_rules rules;   /* the logits processors (eos_id, pad_id: the model's) */
    int hf_beam;          /* 1: beam search as Hugging Face's generate() (search_beam.c) */
    int early_stopping;   /* hf_beam: SEARCH_EARLY_TRUE, _FALSE or _NEVER */
    int alignments;       /* 1: fill search_hyp.attention (the model has attention) */
    int renormalize;      /* hf_beam: log-softmax again after the processors */
    /* rules.sampling (greedy only): each token is drawn from the processed distribution, from
       sentence i's own random stream, logits_rng_seed(seed, streams[i]) (NULL: stream i), so
       a sentence's draws depend on neither its batch nor the threads */
    uint64_t seed;
    const uint64_t *streams;
    int alternatives;     /* > 1 branches into this many hypotheses at the first position
                             after the prefix, each continued greedily (search_greedy.c) or
                             with a beam of its own (search_beam.c); n_best is then 1 per
                             alternative; 0 or 1: off */
} search_params;

enum { SEARCH_EARLY_TRUE, SEARCH_EARLY_FALSE, SEARCH_EARLY_NEVER };

/* What a search asks of a model. Rows are hypotheses; each keeps its cache in a slot. */
typedef struct {
    int vocab, bos_id, eos_id;
    void *user;
    /* One step at decoder position pos: row r feeds tokens[r], keeps its cache in slots[r] and
     * attends to source srcs[r]; writes logits[rows, vocab]. */
    void (*step)(void *user, int rows, const int *tokens, const int *slots, const int *srcs,
                 int pos, float *logits);
    /* Slot dst takes cached positions [from, npos) of slot src (beam branching; dst holds
     * the positions before `from` already, as src does). The decoder copies only where they
     * lie (decoder.c's kv_rows), so the search's "from" saves ints, not keys and values. */
    void (*copy_slot)(void *user, int dst, int src, int from, int npos);
    /* Optional (NULL: the model has none), for a search that needs only each row's argmax
     * (greedy without scores): the step as above, but writing est[rows, vocab] and
     * rad[rows, vocab], the logit step would write being within rad of est (kernels/screen.h);
     * then exact(user, r, v) is row r's logit v exactly as step writes it. */
    void (*estimate)(void *user, int rows, const int *tokens, const int *slots,
                     const int *srcs, int pos, float *est, float *rad);
    float (*exact)(void *user, int row, int token);
    /* Optional (alignments): after a step (or estimate), row r's attention over its source
     * is attention(user)[r * attn_stride + t], t < that source's length (the rest of the
     * row is not defined). */
    const float *(*attention)(void *user);
    int attn_stride;
    /* Optional (NULL: a plain loop): runs task(arg, t, thread) for t in [0, n) on the model's
     * threads and returns when all are done (the tasks must not depend on their order or
     * thread: beam search hands it rows whose results are each a function of the row alone). */
    void (*parallel)(void *user, int n, void (*task)(void *arg, int t, int thread), void *arg);
} search_model;

/* A finished hypothesis (the fields of xlate_hypothesis). */
typedef struct {
    int *ids;              /* [n] without bos and eos */
    int n;
    int finished;          /* 1: ended with eos; 0: stopped at max_len */
    float logprob;
    float score;
    float *token_logprobs; /* [n + finished] when token_scores; else NULL */
    float *attention;      /* [n + finished][attn_stride]: row t, the model's attention at the
                              step that chose token t, when alignments; else NULL */
    int *att_rows;         /* beam search's own (alignments): [n + finished] the step row that
                              chose token t, into its log of the steps' attention */
} search_hyp;

/* Receives sentence i's hypotheses, best first, once the search is done (i in order). They
 * point into the scratch: copy what is kept. Returns 0, or non-zero with err filled. */
typedef int (*search_emit)(void *user, int i, const search_hyp *hyps, int n_hyps, char *err,
                           size_t errlen);

/* One block of memory for a search's buffers, grown to the largest batch shape seen and kept
 * across runs (as the decoder state's buffers are): no allocation inside the step loop. */
typedef struct {
    void *mem;
    size_t cap;
} search_scratch;

/* Decodes n sentences (greedy when p->beam_size == 1, else beam search). max_len[i]: the
 * tokens sentence i may generate, eos counted (>= 1). Slot i*K+j (K = beam size, 1 for
 * greedy) belongs to sentence i; row r's source is its sentence. emit gets each sentence's
 * hypotheses. */
int search_run(const search_model *m, search_scratch *s, int n, const int *max_len,
               const search_params *p, search_emit emit, void *emit_user, char *err,
               size_t errlen);
int search_greedy(const search_model *m, search_scratch *s, int n, const int *max_len,
                  const search_params *p, search_emit emit, void *emit_user, char *err,
                  size_t errlen);
int search_beam(const search_model *m, search_scratch *s, int n, const int *max_len,
                const search_params *p, search_emit emit, void *emit_user, char *err,
                size_t errlen);

/* The bytes of the scratch a search of n sentences with bounds max_len holds (the rows'
 * logits over the vocabulary, the hypotheses' tokens, the finished ones, attention rows of
 * attn_stride when alignments; screened: greedy through the model's estimates, which adds a
 * row of bounds per hypothesis); with held, the larger of that and the block held already. */
size_t search_plan_bytes(const search_params *p, const search_scratch *held, int n,
                         const int *max_len, int vocab, int attn_stride, int screened);
size_t search_greedy_bytes(const search_params *p, int n, const int *max_len, int vocab,
                           int attn_stride, int screened);
size_t search_beam_bytes(const search_params *p, int n, const int *max_len, int vocab,
                         int attn_stride);

/* The slots, rows and positions a search needs for n sentences with bounds max_len, so the
 * caller can size the decoder state. */
void search_needs(const search_params *p, int n, const int *max_len, int *n_slots,
                  int *max_rows, int *cap);

/* 1 when greedy search with params p takes each step's argmax through a model's estimates
 * (search_model.estimate, the int8 screen) where it has them: greedy, no scores, no
 * alternatives, and no processor that changes values (logits_chain.exact: the repetition
 * penalty, sampling). Else *why (when why is not NULL) says what needs every logit. */
int search_screened(const search_params *p, const char **why);

void search_scratch_free(search_scratch *s);

#endif

/* logits.h — logits processors: the rules that change a step's logits before a search strategy
 * chooses from them (a banned token's logit becomes -inf, so it is never chosen and the other
 * tokens' log-probabilities are renormalized). Each rule is one small function and one entry in
 * the table of logits.c; a search keeps, once per run, the entries its rules switch on and
 * applies them to every row of every step, in table order, after the finite check
 * (search_step.c). They know nothing of the model or of the strategy.
 *
 * The table's order is transformers' (v4.40 generation/utils.py _get_logits_processor, then
 * _get_logits_warper for sampling): repetition penalty, no-repeat n-gram, bad words (with
 * xlate's --suppress sequences and --disable-unk beside them), min length, pad, forced bos,
 * forced eos, suppress tokens, suppress at begin, a target prefix (CTranslate2's target_prefix,
 * last so that it wins); then the sampling warpers temperature, top-k, top-p. A processor that needs the row's earlier tokens reads logits_row.history; those that
 * follow transformers' input_ids (repetition penalty, no-repeat n-gram) see the decoder's start
 * token in front of it, as input_ids has it.
 *
 * Most processors only ban tokens (-inf) or force one (every other -inf): applied to the int8
 * screen's estimates they ban the same tokens and leave its bounds valid (search_step.c). Those
 * that change values (the repetition penalty, the warpers) mark the chain `exact`: the search
 * then computes every logit. */
#ifndef XLATE_LOGITS_H
#define XLATE_LOGITS_H
#include <stdint.h>

/* Token sequences: sequence k is ids[off[k] .. off[k+1]). */
typedef struct {
    int n;
    const int *off; /* [n + 1] */
    const int *ids;
} logits_seqs;

/* What the processors are asked to do; 0 switches a rule off. */
typedef struct {
    int eos_id, pad_id;
    int min_length; /* eos is banned before this many generated tokens */
    int ban_pad;    /* 1: pad is never generated (Marian) */
    int force_eos;  /* 1: at the last token a row may generate (its max_len-th), only eos can
                       be chosen, with log-probability 0; this wins over min_length */
    logits_seqs bad; /* bad_words_ids (Hugging Face): the last token of a sequence is banned
                        where the row's tokens end with the rest of it (a one-token sequence:
                        always); a sequence [eos] is ignored */
    logits_seqs suppress; /* xlate's --suppress (CTranslate2's suppress_sequences): as bad */
    int start_id;   /* the decoder's start token, first of transformers' input_ids */
    float repetition_penalty; /* 0 or 1: off; else a logit of a token in [start] + history is
                                 divided by it when positive, multiplied when not */
    int no_repeat_ngram; /* 0: off; else no n-gram of this size occurs twice in
                            [start] + history + the token chosen */
    int ban_unk, unk_id; /* ban_unk: unk_id is never generated (--disable-unk) */
    int forced_bos, forced_bos_id; /* forced_bos: the first token is forced_bos_id (log-prob 0) */
    int n_suppress_tokens;         /* suppress_tokens: never generated */
    const int *suppress_tokens;    /* [n_suppress_tokens] */
    int n_begin_suppress;          /* begin_suppress_tokens: not generated at step begin_pos */
    const int *begin_suppress;     /* [n_begin_suppress] */
    int begin_pos;
    /* a target prefix forced per sentence: sentence s's first prefix_len[s] tokens are
       prefix[s] (each log-probability 0, as a forced token's); NULL: none */
    const int *const *prefix;
    const int *prefix_len;
    /* sampling's warpers (only when the search samples) */
    int sampling;       /* 1: the strategy draws; the warpers below are switched on */
    float temperature;  /* 0 or 1: off; else the logits are divided by it */
    int top_k;          /* 0: off; else only tokens >= the top_k-th largest logit are kept */
    float top_p;        /* 0 or >= 1: off; else the least probable tokens whose probabilities
                           add up to at most 1 - top_p are dropped (at least one kept) */
} logits_rules;

/* One row of one step, as a processor sees it. */
typedef struct {
    const logits_rules *rules;
    int vocab;
    int pos;            /* tokens the row has generated so far (= the step) */
    int max_len;        /* the row's bound: tokens it may generate, eos counted */
    const int *history; /* [pos] the row's generated tokens */
    int sentence;       /* the sentence of the batch the row belongs to */
    float *work;        /* [vocab] scratch for the warpers (top-k, top-p); NULL without them */
    int *iwork;         /* [vocab] */
} logits_row;

/* Changes logits[vocab] of one row in place. */
typedef void (*logits_fn)(const logits_row *r, float *logits);

#define LOGITS_MAX 16 /* processors one run can keep; >= the table's entries */

typedef struct {
    int n;
    int exact;     /* 1: some processor changes values: the int8 screen cannot stand in */
    int work;      /* 1: some processor needs logits_row.work and iwork */
    logits_fn fn[LOGITS_MAX];
} logits_chain;

/* Keeps the processors that rules switch on, in table order. */
void logits_chain_init(logits_chain *c, const logits_rules *rules);

/* Applies the chain to one row. */
static inline void logits_apply(const logits_chain *c, const logits_row *r, float *logits)
{
    for (int k = 0; k < c->n; k++)
        c->fn[k](r, logits);
}

/* Sampling's random streams (splitmix64: a 64-bit counter through a bijective mix). The state
 * of stream `stream` under `seed`; each draw advances it. */
uint64_t logits_rng_seed(uint64_t seed, uint64_t stream);
/* A uniform double in [0, 1) (53 bits). */
double logits_rng_uniform(uint64_t *state);
/* Draws a token from softmax(logits[vocab]) with one uniform: the first token whose cumulative
 * probability (in id order, in double) exceeds it; -inf logits are never drawn. */
int logits_sample(const float *logits, int vocab, uint64_t *state);

#endif

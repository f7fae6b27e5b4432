/* logits.h — logits processors: the rules that change a step's logits before a search strategy
 * chooses from them (a banned token's logit becomes -inf, so it is never chosen and the other
 * tokens' log-probabilities are renormalized). Each rule is one small function and one entry in
 * the table of logits.c; a search keeps, once per run, the entries its rules switch on and
 * applies them to every row of every step, in table order, after the finite check
 * (search_step.c). They know nothing of the model or of the strategy.
 *
 * Adding a rule (repetition penalty, no-repeat n-gram, bad-words ids): a field in logits_rules,
 * a function, a table entry; a processor that needs the row's earlier tokens reads
 * logits_row.history. */
#ifndef XLATE_LOGITS_H
#define XLATE_LOGITS_H

/* What the processors are asked to do; 0 switches a rule off. */
typedef struct {
    int eos_id, pad_id;
    int min_length; /* eos is banned before this many generated tokens */
    int ban_pad;    /* 1: pad is never generated (Marian) */
    int force_eos;  /* 1: at the last token a row may generate (its max_len-th), only eos can
                       be chosen, with log-probability 0; this wins over min_length */
    int n_bad;      /* bad_words_ids (Hugging Face): n_bad banned sequences; the last token of
                       one is banned where the row's tokens end with the rest of it (a
                       one-token sequence: always); a sequence [eos] is ignored */
    const int *bad_off; /* [n_bad + 1] offsets into bad_ids */
    const int *bad_ids;
    int force_bos;  /* 1: the first generated token is bos_forced, with log-probability 0
                       (transformers' ForcedBOSTokenLogitsProcessor: M2M100's target
                       language) */
    int bos_forced;
} logits_rules;

/* One row of one step, as a processor sees it. */
typedef struct {
    const logits_rules *rules;
    int vocab;
    int pos;            /* tokens the row has generated so far (= the step) */
    int max_len;        /* the row's bound: tokens it may generate, eos counted */
    const int *history; /* [pos] the row's generated tokens */
} logits_row;

/* Changes logits[vocab] of one row in place. */
typedef void (*logits_fn)(const logits_row *r, float *logits);

#define LOGITS_MAX 8 /* processors one run can keep; >= the table's entries */

typedef struct {
    int n;
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

#endif

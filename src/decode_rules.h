/* decode_rules.h — between the public decode params (xlate.h) and the search's logits
 * processors (decode/logits.h): the params' checks, the rules a model's generation config and
 * the params make, the batch's target prefixes (decode_rules.c). Used by xlate.c only, and
 * DECODE_REPETITION_MIN by the options that set it (cli_decode_opts.c, serve_main.c). */
#ifndef XLATE_DECODE_RULES_H
#define XLATE_DECODE_RULES_H
#include "xlate.h"
#include "decode/logits.h"
#include "model/config.h"
#include <stddef.h>

/* xlate_decode_default_params() with a model's generation settings g (Hugging Face's
 * num_beams, length_penalty, repetition_penalty, no_repeat_ngram_size, sampling) over it:
 * xlate_model_decode_defaults. */
xlate_decode_params decode_rules_defaults(const gen_config *g);
/* The smallest repetition_penalty taken (issue 51). Below 1 the penalty rewards every token
 * already in the sequence, the decoder's start token included (transformers' rule), and the
 * reward grows as it shrinks: at 1e-30 greedy repeats the start token to max_length (an empty,
 * unfinished translation, exit 0), at 1e-45 the beam's log-prob is -3.4e38. Measured on
 * Multi30k's val.en (1,014 lines), models/en-de and en-de-docs, greedy and beam 4: 0.7 left no
 * line empty (4,056 runs; 37 / 25 and 68 / 30 lines run to max_length in loops); 0.6 left 2
 * empty, 0.5 2 of 200, 0.3 7, 0.2 128. */
#define DECODE_REPETITION_MIN 0.7

/* The processors', sampling's and alternatives' params of p (V: the target vocabulary): 0, or
 * -1 with err naming the field (xlate_decode_params_check). */
int decode_rules_check(int V, const xlate_decode_params *p, char *err, size_t errlen);
/* The rules of params p for model config c: the params' processors, and a Hugging Face model's
 * own (bad_words_ids, suppress_tokens, begin_suppress_tokens, forced bos and eos, no pad). */
void decode_rules_set(logits_rules *r, const model_config *c, const xlate_decode_params *p);
/* The target prefixes of opts[n] (NULL: none) as the rules take them: *pre [n] (pointing into
 * opts' arrays) and *pre_len [n], malloc'd; both NULL when no sentence has one. 0, or -1 with
 * err (a prefix too long for max_length, an id outside the vocabulary); the caller frees them
 * either way. */
int decode_rules_prefixes(const model_config *c, const xlate_decode_params *p, int n,
                          const xlate_sentence_opts *opts, const int ***pre, int **pre_len,
                          char *err, size_t errlen);

#endif

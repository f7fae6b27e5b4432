/* cli_decode_opts.h — the decoding controls of the command line (cli_decode_opts.c):
 * --repetition-penalty, --no-repeat-ngram-size, --disable-unk, --suppress, the sampling options
 * and --seed; what each sets in xlate_decode_params, and how they meet the model's own
 * generation settings. cli_translate.c puts DECODE_LONGOPTS in its getopt table and hands every
 * option from DOPT_FIRST on to decode_opt. */
#ifndef XLATE_CLI_DECODE_OPTS_H
#define XLATE_CLI_DECODE_OPTS_H
#include "xlate.h"
#include <stdio.h>

enum {
    DOPT_FIRST = 512,
    DOPT_REP = DOPT_FIRST, DOPT_NGRAM, DOPT_UNK, DOPT_SUPPRESS, DOPT_TOPK, DOPT_TOPP, DOPT_TEMP,
    DOPT_SEED
};

#define DECODE_LONGOPTS                                                                       \
    {"repetition-penalty", required_argument, 0, DOPT_REP},                                   \
    {"no-repeat-ngram-size", required_argument, 0, DOPT_NGRAM},                               \
    {"disable-unk", no_argument, 0, DOPT_UNK},                                                \
    {"suppress", required_argument, 0, DOPT_SUPPRESS},                                        \
    {"sampling-topk", required_argument, 0, DOPT_TOPK},                                       \
    {"sampling-topp", required_argument, 0, DOPT_TOPP},                                       \
    {"sampling-temperature", required_argument, 0, DOPT_TEMP},                                \
    {"seed", required_argument, 0, DOPT_SEED}

enum { DECODE_MAX_SUPPRESS = 1024 };

/* What the options said (a *_set flag: given, so it wins over the model's value). */
typedef struct {
    int rep_set, ngram_set, topk_set, topp_set, temp_set, seed_set;
    float rep, topp, temp;
    int ngram, topk, disable_unk;
    unsigned long long seed;
    const char *suppress[DECODE_MAX_SUPPRESS]; /* --suppress texts (argv's) */
    int n_suppress;
    int *sup_off, *sup_ids; /* owned: their target ids, once the model is loaded */
} decode_opts;

/* Option c (from DOPT_FIRST) with its argument. 0, or -1 with err naming the option. */
int decode_opt(decode_opts *d, int c, const char *arg, char *err, size_t errlen);

/* Once the model is loaded: the model's defaults md where no option says, the options'
 * values, --suppress tokenized with the model's target tokenizer, a random seed when sampling
 * without --seed. beam_set: --beam-size was given. 0, or -1 with err naming the option. */
int decode_opts_apply(decode_opts *d, const xlate_model *m, const xlate_decode_params *md,
                      int beam_set, xlate_decode_params *dp, char *err, size_t errlen);
void decode_opts_free(decode_opts *d);

/* The help lines of these options (under "Decoding:"). */
void decode_usage(FILE *f);

/* Library messages name the parameter (beam_size); the command line names the option
 * (--beam-size). Rewrites the words of params in msg in place. */
void cli_option_words(char *msg, size_t size);

#endif

/* cli_decode_opts.h — the decoding controls of the command line (cli_decode_opts.c):
 * --repetition-penalty, --no-repeat-ngram-size, --disable-unk, --suppress, the sampling options
 * and --seed; what each sets in xlate_decode_params, and how they meet the model's own
 * generation settings. cli_translate.c puts DECODE_LONGOPTS in its getopt table and hands every
 * option from DOPT_FIRST on to decode_opt. */
#ifndef XLATE_CLI_DECODE_OPTS_H
#define XLATE_CLI_DECODE_OPTS_H
#include "xlate.h"
#include "cli/cli_common.h"
#include <stdio.h>

enum {
    DOPT_FIRST = 512,
    DOPT_REP = DOPT_FIRST, DOPT_NGRAM, DOPT_UNK, DOPT_SUPPRESS, DOPT_TOPK, DOPT_TOPP, DOPT_TEMP,
    DOPT_SEED, DOPT_PREFIX, DOPT_PREFIX_COL, DOPT_ALT
};

#define DECODE_LONGOPTS                                                                       \
    {"repetition-penalty", required_argument, 0, DOPT_REP},                                   \
    {"no-repeat-ngram-size", required_argument, 0, DOPT_NGRAM},                               \
    {"disable-unk", no_argument, 0, DOPT_UNK},                                                \
    {"suppress", required_argument, 0, DOPT_SUPPRESS},                                        \
    {"sampling-topk", required_argument, 0, DOPT_TOPK},                                       \
    {"sampling-topp", required_argument, 0, DOPT_TOPP},                                       \
    {"sampling-temperature", required_argument, 0, DOPT_TEMP},                                \
    {"seed", required_argument, 0, DOPT_SEED},                                                \
    {"target-prefix", required_argument, 0, DOPT_PREFIX},                                     \
    {"target-prefix-column", no_argument, 0, DOPT_PREFIX_COL},                                \
    {"return-alternatives", required_argument, 0, DOPT_ALT}

enum { DECODE_MAX_SUPPRESS = 1024 };

/* What the options said (a *_set flag: given, so it wins over the model's value). */
typedef struct {
    int rep_set, ngram_set, topk_set, topp_set, temp_set, seed_set;
    float rep, topp, temp;
    int ngram, topk, disable_unk, alternatives;
    unsigned long long seed;
    const char *suppress[DECODE_MAX_SUPPRESS]; /* --suppress texts (argv's) */
    int n_suppress;
    int *sup_off, *sup_ids; /* owned: their target ids, once the model is loaded */
    /* target prefixes: line i of prefix_file, or what follows a line's first tab */
    const char *prefix_file;
    int prefix_column;
    line_reader pre;        /* reads prefix_file (fd -1: closed) */
    int *pre_ids;           /* owned: the last prefix's ids */
} decode_opts;

/* Option c (from DOPT_FIRST) with its argument. 0, or -1 with err naming the option. */
int decode_opt(decode_opts *d, int c, const char *arg, char *err, size_t errlen);

/* Once the model is loaded: the model's defaults md where no option says, the options'
 * values, --suppress tokenized with the model's target tokenizer, a random seed when sampling
 * without --seed. beam_set: --beam-size was given. 0, or -1 with err naming the option. */
int decode_opts_apply(decode_opts *d, const xlate_model *m, const xlate_decode_params *md,
                      int beam_set, xlate_decode_params *dp, char *err, size_t errlen);
void decode_opts_free(decode_opts *d);
/* After decode_opts_apply: where dp->beam_size came from, for messages (--beam-size, sampling,
 * the model's num_beams or do_sample, the default), with the value; written into buf. */
const char *decode_beam_source(const decode_opts *d, const xlate_decode_params *md,
                               int beam_set, const xlate_decode_params *dp, char *buf,
                               size_t size);

/* 1 when lines get target prefixes. */
static inline int decode_has_prefix(const decode_opts *d)
{
    return d->prefix_file || d->prefix_column;
}
/* Opens --target-prefix FILE (in_stdin: the input is stdin). 0, or -1 with err. */
int decode_prefix_open(decode_opts *d, int in_stdin, char *err, size_t errlen);
/* The target prefix of the input line just read (*s, *len; where: "FILE: line N"): with
 * --target-prefix-column the line is cut at its first tab (*len shortened) and the rest is the
 * prefix; else the next line of the prefix file. Text is tokenized by the model's target
 * tokenizer, ids (ids: --input-format ids) parsed; line gets the ids. An empty prefix: none.
 * 0, or -1 with err (a usage error: the file ended, an id out of range, more tokens than
 * max_length, or max_positions, allows). */
int decode_prefix(decode_opts *d, const xlate_model *m, int ids, int max_length, char **s,
                  size_t *len, const char *where, xlate_line *line, char *err, size_t errlen);

/* The help lines of these options (under "Decoding:"). */
void decode_usage(FILE *f);

/* Library messages name the parameter (beam_size); the command line names the option
 * (--beam-size). Rewrites the words of params in msg in place. */
void cli_option_words(char *msg, size_t size);

#endif

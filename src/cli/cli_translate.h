/* cli_translate.h — the translate command's options (cli_translate_opts.c parses them,
 * cli_translate.c runs them). Private to those two files. */
#ifndef XLATE_CLI_TRANSLATE_H
#define XLATE_CLI_TRANSLATE_H
#include "cli/cli_decode_opts.h"
#include "doc/formats.h"
#include "xlate.h"

enum { MAX_BATCH = 4096, MAX_WINDOW = 100000 };

typedef struct {
    const char *model, *input, *output;
    int in_fmt, out_fmt;
    long batch_size, batch_tokens, threads, max_input_length, window;
    int fast;          /* --fast: whole-batch products, not batch-invariant */
    int quiet, verbose, scores;
    int compute_type;    /* xlate_compute_type */
    int beam_set, lp_set;   /* given on the command line (else the model's defaults) */
    const char *target_lang; /* --target-lang (--to): >>xx<< goes in front of every source */
    const char *source_lang; /* --source-lang (--from): the sentence splitter's rules */
    char pair_src[32], pair_tgt[32]; /* the codes of the model a language pair picked from the
                                        hub cache (cli_translate.c pair_model) */
    /* a pair no cached model serves, through a pivot language two do (issue 48, pair_model):
     * the pivot ("" for a direct pair), the second model's snapshot and the codes it takes */
    char pivot[32], pivot_dir[4096], pivot_src[32], pivot_tgt[32];
    int auto_src;        /* --from auto (issue 48): source_lang from the first line's language */
    char auto_lang[8];   /* what it found ("" when it could not tell) */
    int split;           /* XLATE_SPLIT_SENTENCES or XLATE_SPLIT_NONE (--split) */
    int paragraphs;      /* --paragraphs: lines up to a blank line are one paragraph */
    int doc_fmt;         /* --format (or -i FILE's extension): XLATE_FORMAT_* (cli_doc.c), a
                            whole document; 0: lines */
    int doc_fmt_given;   /* --format was given (not detected) */
    doc_opts doc;        /* --retranslate, --no-fuzzy */
    xlate_decode_params dp;
    decode_opts dopts;   /* --repetition-penalty, sampling... (cli_decode_opts.c) */
    char *const *texts;
    int n_texts;
} options;

/* Parses argv into o (o's defaults first). Returns 0, -1 after a usage message on stderr, or
 * -2 when --help or --version has been answered on stdout. */
int translate_options(options *o, int argc, char **argv);
#endif

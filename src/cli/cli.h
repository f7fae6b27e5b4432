/* cli.h — the subcommands main() dispatches to. Each returns the process exit status
 * (see EXIT STATUS in README.md); none calls exit(). */
#ifndef XLATE_CLI_H
#define XLATE_CLI_H
#include <stddef.h>

enum {
    XLATE_EXIT_OK = 0,
    XLATE_EXIT_USAGE = 1,  /* bad command line */
    XLATE_EXIT_MODEL = 2,  /* model directory, config, weights or tokenizer unusable */
    XLATE_EXIT_INPUT = 3,  /* bad input data (ids out of range, not a number, unreadable) */
    XLATE_EXIT_OUTPUT = 4, /* cannot write the output */
    XLATE_EXIT_INTERNAL = 5 /* out of memory, thread failure */
};

/* SIGBUS while reading the mapped weights (the file was truncated under xlate) ends xlate with
 * a message naming the file (cli_name_weights) and status 2 instead of a bus error
 * (cli_common.c). */
void cli_catch_sigbus(void);
void cli_name_weights(const char *dir, const char *weights);

/* xlate [options] [TEXT...]: translate (cli_translate.c). */
int cmd_translate(int argc, char **argv);
/* xlate info [DIR]: what a model is (cli_info.c). */
int cmd_info(int argc, char **argv);
/* xlate encode --spm FILE [-i IN] [-o OUT]: text lines to id lines (cli_spm.c). */
int cmd_encode(int argc, char **argv);
/* xlate decode --spm FILE [-i IN] [-o OUT]: id lines to text lines (cli_spm.c). */
int cmd_decode(int argc, char **argv);
/* xlate split [--source-lang L] [-i IN] [-o OUT]: lines to sentences (cli_split.c). */
int cmd_split(int argc, char **argv);
/* xlate detect [--langs L,...] [TEXT...]: the language of each line (cli_detect.c). */
int cmd_detect(int argc, char **argv);
/* xlate pull ORG/NAME[@REVISION] [-q]: a model from the hub into its cache (cli_pull.c). */
int cmd_pull(int argc, char **argv);
/* The pull of a hub name (ORG/NAME[@REVISION]) with SIGINT caught, the snapshot dir into out
 * (cli_pull.c). Returns the exit status: 0, 1 (not a name), 2 (not found, no access, network,
 * integrity), 4 (the cache cannot be written) or 130 (interrupted), with err set. */
int cli_hub_pull(const char *name, int quiet, char *out, size_t n, char *err, size_t errlen);
/* xlate models [--json]: the models in the hub's cache (cli_models.c). */
int cmd_models(int argc, char **argv);
/* xlate serve [-m MODEL]... [--host H] [--port P]: the LibreTranslate API (src/serve/). */
int cmd_serve(int argc, char **argv);

#endif

/* cli_output.h — a translated line in the command line's output formats: text (the line's
 * sentences joined), ids, Moses-style n-best lists, and jsonl with each sentence's source span,
 * translation, ids and scores. */
#ifndef XLATE_CLI_OUTPUT_H
#define XLATE_CLI_OUTPUT_H
#include "cli/cli_common.h"
#include "xlate.h"

enum { FMT_TEXT, FMT_IDS, FMT_JSONL };

typedef struct {
    const xlate_model *model;
    int has_tokenizer;
    int fmt;          /* FMT_* */
    int n_best;       /* hypotheses written per line */
    int token_scores; /* jsonl: "token_logprobs" */
    int sentences;    /* jsonl: the "sentences" array (text input) */
    int alignments;   /* jsonl: each sentence's source tokens and alignments (--alignments) */
    writer *w;
    int detect;       /* jsonl: "detectedLanguage" of each line (--from auto, issue 48) */
    const char *detect_fallback; /* its language when a line cannot be told (confidence 0) */
} output;

/* Writes line t's answer: one line (n_best lines in text and ids formats with n_best > 1).
 * Returns 0, or -1 with a message (out of memory, a detokenizer error). */
int output_line(const output *o, const xlate_translation *t, char *err, size_t errlen);

/* JSON strings are UTF-8: replaces each byte of *text that is not part of a valid sequence
 * with U+FFFD (the string is reallocated). Returns 0, -1 out of memory. */
int utf8_fix(char **text);

/* text[0..n) as a JSON string, quotes included, handed to put piece by piece: control bytes
 * (NUL included) as \u00XX (\n, \t, \r, \", \\ as such), each byte that is not part of a
 * valid UTF-8 sequence as U+FFFD, so no byte is lost silently and the output is valid JSON.
 * The one escaping of jsonl's "source" and xlate split's sentences. */
void json_string_put(void (*put)(void *user, const char *s, size_t n), void *user,
                     const char *text, size_t n);

#endif

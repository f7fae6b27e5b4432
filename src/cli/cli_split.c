/* cli_split.c — `xlate split`: the sentence splitter alone (src/text/split.h), as `xlate
 * encode` is the tokenizer alone. Lines come from the same line_reader as translation's, so
 * long lines, NUL bytes and unreadable files behave alike. Text output: each sentence on its
 * own line, then an empty line closing the input line (so every input line is found again,
 * an empty one as an empty line alone). jsonl: one {"sentences": [...]} per input line. */
#include "cli/cli.h"
#include "cli/cli_common.h"
#include "cli/cli_output.h"
#include "text/split.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SPLIT_ERRLEN = 512 };
/* Lines up to 16 MiB are split whole; a longer one is cut there with a warning (the memory a
 * line may take stays bounded, as in translation). */
#define SPLIT_MAX_LINE ((size_t)1 << 24)

typedef struct {
    const char *lang, *in, *out;
    int jsonl, quiet;
    char *const *texts; /* positional TEXT arguments: split these instead of the input */
    int n_texts;
} split_opts;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: xlate split [--source-lang L] [-i IN] [-o OUT] [--output-format text|jsonl]\n"
            "                   [-q] [TEXT...]\n"
            "Splits each line of IN (default: stdin; or each TEXT argument) into sentences,\n"
            "with the rules of language L (en, eng, de, deu, en_US, ...: abbreviations,\n"
            "ordinals; without L, or for a language it has no rules for, language-neutral\n"
            "rules). Output (default: stdout):\n"
            "  text   each sentence on its own line, then an empty line after each input\n"
            "         line's sentences (an empty or blank input line gives the empty line\n"
            "         alone)\n"
            "  jsonl  one {\"sentences\": [...]} per input line, each sentence trimmed of\n"
            "         surrounding whitespace; bytes that are not UTF-8 become U+FFFD\n"
            "Warnings on stderr (-q: none): a line longer than 16 MiB is cut there; a\n"
            "language without rules of its own gets the neutral ones.\n");
}

/* Returns -1 to go on, else the exit status. */
static int parse_opts(int argc, char **argv, split_opts *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], **dst = NULL, *fmt = NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return XLATE_EXIT_OK;
        }
        if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            o->quiet = 1;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            o->texts = argv + i + 1;
            o->n_texts = argc - i - 1;
            break;
        }
        if (a[0] != '-' || !a[1]) {
            o->texts = argv + i;
            o->n_texts = argc - i;
            break;
        }
        if (strcmp(a, "--source-lang") == 0 || strncmp(a, "--source-lang=", 14) == 0)
            dst = &o->lang;
        else if (strcmp(a, "-i") == 0 || strcmp(a, "--input") == 0 ||
                 strncmp(a, "--input=", 8) == 0)
            dst = &o->in;
        else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0 ||
                 strncmp(a, "--output=", 9) == 0)
            dst = &o->out;
        else if (strcmp(a, "--output-format") == 0 || strncmp(a, "--output-format=", 16) == 0)
            dst = &fmt;
        if (!dst) {
            fprintf(stderr, "xlate split: unknown argument '%s'\n", a);
            usage(stderr);
            return XLATE_EXIT_USAGE;
        }
        if (a[1] == '-' && strchr(a, '=')) {
            *dst = strchr(a, '=') + 1;
        } else if (i + 1 < argc) {
            *dst = argv[++i];
        } else {
            fprintf(stderr, "xlate split: %s needs a value\n", a);
            return XLATE_EXIT_USAGE;
        }
        if (dst == &fmt) {
            if (strcmp(fmt, "text") != 0 && strcmp(fmt, "jsonl") != 0) {
                fprintf(stderr, "xlate split: --output-format: '%s' is not text or jsonl\n",
                        fmt);
                return XLATE_EXIT_USAGE;
            }
            o->jsonl = strcmp(fmt, "jsonl") == 0;
        }
    }
    if (o->texts && o->in) {
        fprintf(stderr, "xlate split: give TEXT arguments or -i, not both\n");
        return XLATE_EXIT_USAGE;
    }
    return -1;
}

/* s[0..n) as a JSON string (cli_output.h json_string_put: the escaping jsonl's "source" has). */
static void put_bytes(void *w, const char *s, size_t n) { writer_put(w, s, n); }
static void put_json_string(writer *w, const char *text, size_t n)
{
    json_string_put(put_bytes, w, text, n);
}

int cmd_split(int argc, char **argv)
{
    split_opts o;
    line_reader in;
    writer out;
    char err[SPLIT_ERRLEN];
    int status = parse_opts(argc, argv, &o);
    if (status >= 0)
        return status;
    if (o.texts) {
        reader_texts(&in, o.texts, o.n_texts);
    } else if (reader_open(&in, o.in, err, sizeof err)) {
        fprintf(stderr, "xlate split: %s\n", err);
        return XLATE_EXIT_INPUT;
    } else {
        in.max_line = SPLIT_MAX_LINE;
    }
    if (o.lang && o.lang[0] && !o.quiet && !split_lang_known(o.lang) &&
        !split_lang_no_spaces(o.lang))
        fprintf(stderr, "xlate split: warning: no rules of its own for language '%s': the "
                        "language-neutral ones\n", o.lang);
    if (writer_open(&out, o.out, err, sizeof err)) {
        fprintf(stderr, "xlate split: %s\n", err);
        reader_close(&in);
        return XLATE_EXIT_OUTPUT;
    }
    status = XLATE_EXIT_OK;
    for (;;) {
        char *line;
        size_t len;
        split_span *v = NULL;
        int n = 0, got = reader_next(&in, &line, &len, err, sizeof err);
        if (got < 0) {
            fprintf(stderr, "xlate split: %s\n", err);
            status = XLATE_EXIT_INPUT;
            break;
        }
        if (got == 0)
            break;
        if (in.cut && !o.quiet) {
            char where[256];
            reader_where(&in, in.line, where, sizeof where);
            fprintf(stderr, "xlate split: warning: %s is longer than %zu bytes: cut there\n",
                    where, in.max_line);
        }
        if (split_sentences(line, len, o.lang, &v, &n, err, sizeof err)) {
            fprintf(stderr, "xlate split: %s\n", err);
            status = XLATE_EXIT_INTERNAL;
            break;
        }
        if (o.jsonl) {
            writer_puts(&out, "{\"sentences\": [");
            for (int k = 0; k < n; k++) {
                if (k)
                    writer_puts(&out, ", ");
                put_json_string(&out, line + v[k].start, v[k].end - v[k].start);
            }
            writer_puts(&out, "]}\n");
        } else {
            for (int k = 0; k < n; k++) {
                writer_put(&out, line + v[k].start, v[k].end - v[k].start);
                writer_put(&out, "\n", 1);
            }
            writer_put(&out, "\n", 1);
        }
        free(v);
        if (!reader_ready(&in))
            writer_flush(&out); /* the next line is not there yet: what is done goes out now */
        if (out.failed || (in.line % 1024 == 0 && writer_gone(&out)))
            break; /* a reader that went away: stop quietly (checked now and then: a poll) */
    }
    reader_close(&in);
    if (status != XLATE_EXIT_OK)
        writer_discard(&out); /* a failed run leaves -o FILE as it was */
    else if (writer_close(&out))
        status = writer_error(&out, 1);
    return status;
}

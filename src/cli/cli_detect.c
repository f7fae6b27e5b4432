/* cli_detect.c — `xlate detect`: the language identifier alone (xlate_detect_language,
 * src/lang/langid.c, docs/LANGID.md), one answer per input line, as `xlate split` is the
 * splitter alone. Text output: the best code and its confidence, tab-separated ("und" and 0
 * for an undetectable line); jsonl: LibreTranslate's /detect answer for the line
 * ([{"confidence": 0-100, "language": "xx"}, ...], [] when undetectable). */
#include "cli/cli.h"
#include "cli/cli_common.h"
#include "cli/cli_output.h"
#include "xlate.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DETECT_MAX_LINE ((size_t)1 << 20)
#define DETECT_MAX_LANGS 256

typedef struct {
    const char *in, *out, *langs; /* langs: "de,fr,en" as given */
    int jsonl, top, list;
    char *const *texts;
    int n_texts;
} detect_opts;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: xlate detect [--langs L1,L2,...] [--top N] [-i IN] [-o OUT]\n"
            "                    [--output-format text|jsonl] [--list] [TEXT...]\n"
            "The language of each line of IN (default: stdin; or each TEXT argument), among\n"
            "the languages given (--langs: short codes or NLLB codes; default: all the\n"
            "detector knows, --list prints them). Output (default: stdout):\n"
            "  text   CODE<TAB>CONFIDENCE (0 to 1) per line, the best N (--top, default 1)\n"
            "         tab-separated; \"und<TAB>0\" when the line cannot be told (empty,\n"
            "         digits or symbols only, fewer than %d letters)\n"
            "  jsonl  LibreTranslate's /detect answer per line: [{\"confidence\": 0-100,\n"
            "         \"language\": CODE}, ...], [] when it cannot be told\n"
            "A confidence under %.2f is a guess (docs/LANGID.md: how often each is right).\n",
            XLATE_DETECT_MIN_LETTERS, (double)XLATE_DETECT_SURE);
}

static int parse_opts(int argc, char **argv, detect_opts *o)
{
    memset(o, 0, sizeof *o);
    o->top = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], **dst = NULL, *val = NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return XLATE_EXIT_OK;
        }
        if (strcmp(a, "--list") == 0) {
            o->list = 1;
            continue;
        }
        if (strcmp(a, "--") == 0 || a[0] != '-' || !a[1]) {
            int skip = strcmp(a, "--") == 0;
            o->texts = argv + i + skip;
            o->n_texts = argc - i - skip;
            break;
        }
        if (strcmp(a, "--langs") == 0 || strncmp(a, "--langs=", 8) == 0)
            dst = &o->langs;
        else if (strcmp(a, "-i") == 0 || strcmp(a, "--input") == 0 ||
                 strncmp(a, "--input=", 8) == 0)
            dst = &o->in;
        else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0 ||
                 strncmp(a, "--output=", 9) == 0)
            dst = &o->out;
        else if (strcmp(a, "--output-format") == 0 || strncmp(a, "--output-format=", 16) == 0 ||
                 strcmp(a, "--top") == 0 || strncmp(a, "--top=", 6) == 0)
            dst = &val;
        if (!dst) {
            fprintf(stderr, "xlate detect: unknown argument '%s'\n", a);
            usage(stderr);
            return XLATE_EXIT_USAGE;
        }
        if (a[1] == '-' && strchr(a, '='))
            *dst = strchr(a, '=') + 1;
        else if (i + 1 < argc)
            *dst = argv[++i];
        else {
            fprintf(stderr, "xlate detect: %s needs a value\n", a);
            return XLATE_EXIT_USAGE;
        }
        if (dst == &val && strncmp(a, "--top", 5) == 0) {
            char *end;
            long n = strtol(val, &end, 10);
            if (*end || end == val || n < 1 || n > 64) {
                fprintf(stderr, "xlate detect: --top '%s': not a number from 1 to 64\n", val);
                return XLATE_EXIT_USAGE;
            }
            o->top = (int)n;
        } else if (dst == &val) {
            if (strcmp(val, "text") != 0 && strcmp(val, "jsonl") != 0) {
                fprintf(stderr, "xlate detect: --output-format: '%s' is not text or jsonl\n",
                        val);
                return XLATE_EXIT_USAGE;
            }
            o->jsonl = strcmp(val, "jsonl") == 0;
        }
    }
    if (o->texts && o->in) {
        fprintf(stderr, "xlate detect: give TEXT arguments or -i, not both\n");
        return XLATE_EXIT_USAGE;
    }
    return -1;
}

/* Splits "de,fr" in place (buf: a copy) into at most max codes. */
static int split_langs(char *buf, const char **v, int max)
{
    int n = 0;
    for (char *s = strtok(buf, ", "); s && n < max; s = strtok(NULL, ", "))
        v[n++] = s;
    return n;
}

int cmd_detect(int argc, char **argv)
{
    detect_opts o;
    line_reader in;
    writer out;
    char err[XLATE_ERRLEN], *langbuf = NULL;
    const char *langs[DETECT_MAX_LANGS];
    int n_langs = 0, status = parse_opts(argc, argv, &o);
    xlate_lang_guess g[64];

    if (status >= 0)
        return status;
    if (o.list) {
        for (int i = 0; i < xlate_detect_n_languages(); i++)
            printf("%s\n", xlate_detect_language_code(i));
        return fflush(stdout) == 0 ? XLATE_EXIT_OK : XLATE_EXIT_OUTPUT;
    }
    if (o.langs) {
        if (!(langbuf = strdup(o.langs)))
            return XLATE_EXIT_INTERNAL;
        n_langs = split_langs(langbuf, langs, DETECT_MAX_LANGS);
        /* an unknown code is refused here (the library skips it: a model may serve one) */
        for (int k = 0; k < n_langs; k++) {
            const char *one[1] = {langs[k]};
            if (xlate_detect_language("", 0, one, 1, g, 1, err, sizeof err) < 0) {
                fprintf(stderr, "xlate detect: --langs: '%s' is not a language the detector "
                        "knows (xlate detect --list)\n", langs[k]);
                free(langbuf);
                return XLATE_EXIT_USAGE;
            }
        }
    }
    if (o.texts)
        reader_texts(&in, o.texts, o.n_texts);
    else if (reader_open(&in, o.in, err, sizeof err)) {
        fprintf(stderr, "xlate detect: %s\n", err);
        free(langbuf);
        return XLATE_EXIT_INPUT;
    } else
        in.max_line = DETECT_MAX_LINE;
    if (writer_open(&out, o.out, err, sizeof err)) {
        fprintf(stderr, "xlate detect: %s\n", err);
        reader_close(&in);
        free(langbuf);
        return XLATE_EXIT_OUTPUT;
    }
    status = XLATE_EXIT_OK;
    for (;;) {
        char *line, buf[64];
        size_t len;
        int n, got = reader_next(&in, &line, &len, err, sizeof err);
        if (got < 0) {
            fprintf(stderr, "xlate detect: %s\n", err);
            status = XLATE_EXIT_INPUT;
            break;
        }
        if (got == 0)
            break;
        n = xlate_detect_language(line, len, o.langs ? langs : NULL, n_langs, g, o.top, err,
                                  sizeof err);
        if (n < 0) {
            fprintf(stderr, "xlate detect: %s\n", err);
            status = XLATE_EXIT_USAGE;
            break;
        }
        if (o.jsonl) {
            writer_puts(&out, "[");
            for (int k = 0; k < n; k++) {
                snprintf(buf, sizeof buf, "%s{\"confidence\": %.1f, \"language\": \"%.7s\"}",
                         k ? ", " : "", 100.0 * g[k].confidence, g[k].lang);
                writer_puts(&out, buf);
            }
            writer_puts(&out, "]\n");
        } else if (n == 0) {
            writer_puts(&out, "und\t0\n");
        } else {
            for (int k = 0; k < n; k++) {
                snprintf(buf, sizeof buf, "%s%.7s\t%.4f", k ? "\t" : "", g[k].lang,
                         (double)g[k].confidence);
                writer_puts(&out, buf);
            }
            writer_puts(&out, "\n");
        }
        if (!reader_ready(&in))
            writer_flush(&out);
        if (out.failed)
            break;
    }
    reader_close(&in);
    free(langbuf);
    if (status != XLATE_EXIT_OK)
        writer_discard(&out);
    else if (writer_close(&out))
        status = writer_error(&out, 1);
    return status;
}

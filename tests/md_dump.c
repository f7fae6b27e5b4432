/* md_dump.c — a helper of tests/py/test_markdown.py (not a test itself: tests/run.sh runs only
 * test_*): a Markdown document through markdown_parse (src/doc/markdown.h) and back.
 *
 *   md_dump write < doc.md          the document written back untranslated (doc_write: each
 *                                   unit as its own text, escaped)
 *   md_dump write-each < docs       the same for each of many documents, each ended by a NUL
 *                                   byte in and out (one process for test_md_spec.py's 652
 *                                   examples, each parsed and written on its own)
 *   md_dump units < doc.md          each unit's text, one a line (what the model reads)
 *   md_dump translate MODEL < doc.md   translated (doc_translate, greedy) and written back
 *   md_dump time < doc.md           parse + write (to nothing), seconds and MB/s on stderr
 *
 * Exit 1 with a message on failure. */
#include "doc/markdown.h"
#include "xlate.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int put(void *user, const char *s, size_t len)
{
    return fwrite(s, 1, len, (FILE *)user) == len ? 0 : -1;
}

static int count(void *user, const char *s, size_t len)
{
    (void)s;
    *(size_t *)user += len;
    return 0;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    char err[512] = "";
    size_t len = 0, cap = 1 << 16;
    char *src = malloc(cap);
    size_t got;
    if (argc < 2 || !src)
        return fprintf(stderr, "usage: md_dump write|write-each|units|translate MODEL|time "
                               "< doc.md\n"), 1;
    while (src && (got = fread(src + len, 1, cap - len, stdin)) > 0) {
        len += got;
        if (len == cap)
            src = realloc(src, cap *= 2);
    }
    if (!src)
        return fprintf(stderr, "md_dump: out of memory\n"), 1;
    if (strcmp(argv[1], "write-each") == 0) {
        int rc = 0;
        for (size_t at = 0; at < len && !rc;) {
            const char *nul = memchr(src + at, 0, len - at);
            size_t n = nul ? (size_t)(nul - (src + at)) : len - at;
            doc one;
            doc_init(&one, src + at, n);
            if (markdown_parse(&one, err, sizeof err) || doc_write(&one, put, stdout) ||
                putchar(0) == EOF)
                rc = fprintf(stderr, "md_dump: document at byte %zu: %s\n", at,
                             err[0] ? err : "write failed");
            doc_free(&one);
            at += n + 1;
        }
        free(src);
        return rc ? 1 : 0;
    }
    doc d;
    doc_init(&d, src, len);
    double t0 = now();
    if (markdown_parse(&d, err, sizeof err))
        return fprintf(stderr, "md_dump: %s\n", err), 1;
    int rc = 0;
    if (strcmp(argv[1], "units") == 0) {
        for (int i = 0; i < d.n_units; i++)
            printf("%s\n", d.units[i].text);
    } else if (strcmp(argv[1], "write") == 0) {
        rc = doc_write(&d, put, stdout);
    } else if (strcmp(argv[1], "time") == 0) {
        size_t out = 0;
        double t1 = now();
        rc = doc_write(&d, count, &out);
        double t2 = now();
        fprintf(stderr, "%zu bytes, %d units: parse %.3f s, write %.3f s, %.1f MB/s\n", len,
                d.n_units, t1 - t0, t2 - t1, len / 1e6 / (t2 - t0));
    } else if (strcmp(argv[1], "translate") == 0 && argc > 2) {
        xlate_model *m = NULL;
        xlate_ctx *ctx = NULL;
        xlate_model_params mp = xlate_model_default_params();
        xlate_lines_params lp = xlate_lines_default_params();
        if (xlate_model_load(&m, argv[2], &mp, err, sizeof err) ||
            !(ctx = xlate_ctx_new(m, 0, err, sizeof err)) ||
            doc_translate(ctx, &lp, &d, NULL, err, sizeof err))
            rc = -1;
        else
            rc = doc_write(&d, put, stdout);
        xlate_ctx_free(ctx);
        xlate_model_free(m);
    } else {
        return fprintf(stderr, "md_dump: unknown mode %s\n", argv[1]), 1;
    }
    if (rc)
        fprintf(stderr, "md_dump: %s\n", err[0] ? err : "write failed");
    doc_free(&d);
    free(src);
    return rc ? 1 : 0;
}

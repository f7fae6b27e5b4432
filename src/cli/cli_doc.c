/* cli_doc.c — a document translated whole (--format html|markdown): read it all (a document is
 * parsed as one: a paragraph's markup may span any number of lines), parse it into text units
 * (src/doc/html.c, markdown.c), translate every unit in one run (doc_translate: sorted and
 * batched together), write it back. The document is held in memory once, plus its units'
 * texts and translations: linear in its size. */
#include "cli/cli_doc.h"
#include "cli/cli.h"
#include "base/util.h"
#include "doc/doc.h"
#include "doc/html.h"
#include "doc/markdown.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DOC_MAX_BYTES ((size_t)1 << 30) /* a document larger than 1 GiB is refused */

static const struct {
    const char *name;
    int fmt;
    int (*parse)(doc *d, char *err, size_t errlen);
} formats[] = {
    {"html", DOCFMT_HTML, html_parse},
    {"markdown", DOCFMT_MARKDOWN, markdown_parse},
    {"md", DOCFMT_MARKDOWN, markdown_parse},
};

int cli_doc_format(const char *name)
{
    char q[200];
    if (strcmp(name, "text") == 0)
        return DOCFMT_NONE;
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (strcmp(name, formats[i].name) == 0)
            return formats[i].fmt;
    fprintf(stderr, "xlate: --format: expected text, html or markdown, got \"%s\"\n",
            cli_quote(q, sizeof q, name, strlen(name)));
    return -1;
}

/* The rest of fd into *data (malloc'd, NUL-terminated), at most DOC_MAX_BYTES. */
static int read_all(int fd, const char *name, char **data, size_t *len, char *err,
                    size_t errlen)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf)
        return xerr(err, errlen, "out of memory");
    for (;;) {
        if (n == cap) {
            char *b;
            if (cap >= DOC_MAX_BYTES) {
                free(buf);
                return xerr(err, errlen, "%s: a document larger than %zu MiB (the bound of "
                            "--format)", name, DOC_MAX_BYTES >> 20);
            }
            cap = cap * 2 > DOC_MAX_BYTES ? DOC_MAX_BYTES : cap * 2;
            if (!(b = realloc(buf, cap + 1))) {
                free(buf);
                return xerr(err, errlen, "out of memory");
            }
            buf = b;
        }
        ssize_t k = read(fd, buf + n, cap - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            int e = errno;
            free(buf);
            return xerr(err, errlen, "cannot read %s: %s", name, strerror(e));
        }
        if (k == 0)
            break;
        n += (size_t)k;
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return 0;
}

static int put(void *user, const char *s, size_t len)
{
    writer *w = user;
    writer_put(w, s, len);
    return w->failed;
}

int cli_doc(xlate_ctx *ctx, const xlate_lines_params *lp, int format, line_reader *in,
            writer *out, int quiet, int verbose)
{
    char err[XLATE_ERRLEN], *src = NULL;
    size_t len = 0;
    int status = XLATE_EXIT_OK, rc;
    int (*parse)(doc *, char *, size_t) = NULL;
    xlate_lines_stats st;
    doc d;
    double t0 = now_seconds(), t_parse;

    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (formats[i].fmt == format)
            parse = formats[i].parse;
    doc_init(&d, NULL, 0);
    if (!parse || in->fd < 0) {
        fprintf(stderr, "xlate: --format: give the document on stdin or with -i\n");
        return XLATE_EXIT_USAGE;
    }
    if (read_all(in->fd, in->name, &src, &len, err, sizeof err)) {
        fprintf(stderr, "xlate: %s\n", err);
        return strstr(err, "out of memory") ? XLATE_EXIT_INTERNAL : XLATE_EXIT_INPUT;
    }
    doc_init(&d, src, len);
    if (parse(&d, err, sizeof err)) {
        fprintf(stderr, "xlate: %s: %s\n", in->name, err);
        status = XLATE_EXIT_INTERNAL;
        goto done;
    }
    t_parse = now_seconds() - t0;
    for (int i = 0; !quiet && i < d.n_warnings && i < 8; i++)
        fprintf(stderr, "xlate: warning: %s: %s\n", in->name, d.warnings[i]);
    if (!quiet && d.n_warnings > 8)
        fprintf(stderr, "xlate: warning: %s: %d more warnings\n", in->name, d.n_warnings - 8);
    memset(&st, 0, sizeof st);
    rc = doc_translate(ctx, lp, &d, &st, err, sizeof err);
    if (rc) {
        fprintf(stderr, "xlate: %s: %s\n", in->name, err);
        status = rc == XLATE_ERR_LINE ? XLATE_EXIT_INPUT : XLATE_EXIT_INTERNAL;
        goto done;
    }
    if (!quiet && st.truncated)
        fprintf(stderr, "xlate: warning: %s: %ld sentence%s longer than the model's input were "
                "cut (--max-input-length)\n", in->name, st.truncated,
                st.truncated > 1 ? "s" : "");
    if (doc_write(&d, put, out)) {
        status = writer_error(out, 1);
        goto done;
    }
    if (verbose)
        fprintf(stderr, "xlate: %s: %zu bytes, %d text units, %ld sentences translated; parse "
                "%.3f s, translate %.3f s, total %.3f s\n", in->name, len, d.n_units,
                st.sentences, t_parse, st.translate_seconds, now_seconds() - t0);
done:
    doc_free(&d);
    free(src);
    return status;
}

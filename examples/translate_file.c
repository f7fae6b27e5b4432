/* translate_file.c — `translate_file MODEL_DIR FILE > out`: a file, line for line, through the
 * public header alone; the library reads ahead, sorts, batches and keeps the input order. */
#define _POSIX_C_SOURCE 200809L /* getline, ssize_t: POSIX.1-2008, not C11 */
#include "xlate.h"
#include <stdio.h>
#include <stdlib.h>

typedef struct { FILE *f; char *buf; size_t cap; long line; } source;

static int next_line(void *user, xlate_line *line, char *err, size_t errlen)
{
    source *s = user;
    ssize_t len = getline(&s->buf, &s->cap, s->f);
    if (len < 0)
        return ferror(s->f) ? snprintf(err, errlen, "line %ld: read error", s->line + 1), -1 : 0;
    while (len > 0 && (s->buf[len - 1] == '\n' || s->buf[len - 1] == '\r'))
        len--;
    *line = (xlate_line){.text = s->buf, .len = (size_t)len, .tag = ++s->line};
    return 1;
}

/* The best translation as text: the line's sentences, each translated on its own, joined as
 * they were in the source; a blank line gives an empty line. */
static int put(void *model, const xlate_translation *t, char *err, size_t errlen)
{
    char *text;
    if (xlate_translation_text(model, t, 0, &text, err, errlen))
        return -1;
    printf("%s\n", text);
    free(text);
    return 0;
}

int main(int argc, char **argv)
{
    char err[XLATE_ERRLEN] = "";
    xlate_model *m = NULL;
    xlate_ctx *ctx = NULL; /* threads: 0, every core */
    source src = {NULL, NULL, 0, 0};
    xlate_lines_params lp = xlate_lines_default_params(); /* greedy, batches of 32 */
    int rc = 1;
    if (argc != 3)
        snprintf(err, sizeof err, "usage: translate_file MODEL_DIR FILE");
    else if (!(src.f = fopen(argv[2], "r")))
        snprintf(err, sizeof err, "%s: cannot open", argv[2]);
    else if (!xlate_model_load(&m, argv[1], NULL, err, sizeof err) &&
             (ctx = xlate_ctx_new(m, 0, err, sizeof err))) {
        xlate_source in = {next_line, NULL, &src};
        xlate_sink out = {put, NULL, m};
        rc = xlate_translate_lines(ctx, &lp, &in, &out, NULL, err, sizeof err) != 0;
    }
    if (rc)
        fprintf(stderr, "translate_file: %s\n", err);
    xlate_ctx_free(ctx);
    xlate_model_free(m);
    free(src.buf);
    if (src.f)
        fclose(src.f);
    return rc;
}

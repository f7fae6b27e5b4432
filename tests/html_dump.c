/* html_dump.c — html_parse alone, for tests/py/test_html.py and the hostile-document checks
 * (not a test itself: tests/run.sh runs test_* only).
 *   html_dump [--units|--count] FILE
 * writes the document back through doc_write with no translation (each unit as its own text:
 * the output must equal the input but for whitespace inside units and re-quoted translated
 * attribute values); --units prints each unit's text, one a line, and the kind (T text, A
 * attribute) before a tab; --count prints the number of units and elements and the parse
 * time. Warnings go to stderr. Exit 0, 1 on a failure. */
#include "base/util.h"
#include "doc/html.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int put(void *user, const char *s, size_t len)
{
    return fwrite(s, 1, len, user) == len ? 0 : -1;
}

int main(int argc, char **argv)
{
    const char *mode = argc == 3 ? argv[1] : "", *path = argv[argc - 1];
    char err[256];
    FILE *f = argc >= 2 ? fopen(path, "rb") : NULL;
    if (!f) {
        fprintf(stderr, "usage: html_dump [--units|--count] FILE\n");
        return 1;
    }
    size_t cap = 1 << 16, n = 0, k;
    char *src = malloc(cap);
    while (src && (k = fread(src + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap && !(src = realloc(src, cap *= 2)))
            break;
    }
    fclose(f);
    if (!src)
        return 1;
    doc d;
    doc_init(&d, src, n);
    double t0 = now_seconds();
    if (html_parse(&d, err, sizeof err)) {
        fprintf(stderr, "html_dump: %s\n", err);
        return 1;
    }
    double t = now_seconds() - t0;
    for (int i = 0; i < d.n_warnings && i < 8; i++)
        fprintf(stderr, "warning: %s\n", d.warnings[i]);
    if (strcmp(mode, "--units") == 0) {
        for (int i = 0; i < d.n_units; i++)
            printf("%c\t%s\n", d.units[i].escape == DOC_ESC_HTML_ATTR ? 'A' : 'T',
                   d.units[i].text);
    } else if (strcmp(mode, "--count") == 0) {
        long elems = 0;
        for (int i = 0; i < d.n_units; i++)
            elems += d.units[i].n_ranges;
        printf("units %d elements %ld parts %d warnings %d parse_s %.3f\n", d.n_units, elems,
               d.n_parts, d.n_warnings, t);
    } else if (doc_write(&d, put, stdout)) {
        return 1;
    }
    doc_free(&d);
    free(src);
    return 0;
}

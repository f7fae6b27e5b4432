/* fuzz_html.c — arbitrary bytes as an HTML document through html_parse and doc_write
 * (src/doc/html.c, doc.c), untranslated (each unit written as its own text). Properties, from
 * doc.h's and html.h's contracts: html_parse succeeds (malformed markup is never an error);
 * every unit's text is valid UTF-8 with no newline, no leading, trailing or doubled space
 * (whitespace is collapsed and the ends kept outside), no NUL; its element ranges lie in the
 * text and each parent comes before its child; doc_write succeeds; and the output is a fixed
 * point: parsing it again and writing it gives the same bytes (nothing of the document is lost
 * or changed by a round through the parser beyond its first normalisation). */
#include "fuzz.h"
#include "doc/html.h"

/* Parses and writes src; checks the units; the output in *out. */
static void fuzz_html_round(const char *src, size_t len, fuzz_buf *out)
{
    doc d;
    char err[256] = "";
    doc_init(&d, src, len);
    FUZZ_CHECK(html_parse(&d, err, sizeof err) == 0, "html_parse failed: %s", err);
    for (int i = 0; i < d.n_units; i++) {
        const doc_unit *u = &d.units[i];
        FUZZ_CHECK(u->text && strlen(u->text) == u->len, "unit %d: a NUL or a wrong length", i);
        FUZZ_CHECK(fuzz_utf8_ok((const unsigned char *)u->text, u->len), "unit %d not UTF-8", i);
        FUZZ_CHECK(!memchr(u->text, '\n', u->len) && !strstr(u->text, "  ") &&
                       (u->len == 0 || (u->text[0] != ' ' && u->text[u->len - 1] != ' ')),
                   "unit %d: whitespace not collapsed: \"%s\"", i, u->text);
        for (int r = 0; r < u->n_ranges; r++)
            FUZZ_CHECK(u->ranges[r].start <= u->ranges[r].end && u->ranges[r].end <= u->len &&
                           u->ranges[r].parent < r,
                       "unit %d element %d: [%zu, %zu) parent %d, text %zu bytes", i, r,
                       u->ranges[r].start, u->ranges[r].end, u->ranges[r].parent, u->len);
    }
    out->len = 0;
    FUZZ_CHECK(doc_write(&d, fuzz_buf_put, out) == 0, "doc_write failed");
    doc_free(&d);
}

int fuzz_html(const uint8_t *data, size_t size)
{
    fuzz_buf a = {0}, b = {0};
    fuzz_html_round((const char *)data, size, &a);
    char *copy = malloc(a.len + 1);
    FUZZ_CHECK(copy != NULL, "malloc");
    if (a.len)
        memcpy(copy, a.s, a.len);
    fuzz_html_round(copy, a.len, &b);
    FUZZ_CHECK(a.len == b.len && (a.len == 0 || memcmp(a.s, b.s, a.len) == 0),
               "not a fixed point: %zu bytes, then %zu", a.len, b.len);
    free(copy);
    free(a.s);
    free(b.s);
    return 0;
}

#ifndef FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_html(data, size);
}
#endif

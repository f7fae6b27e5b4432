/* fuzz_markdown.c — arbitrary bytes as a Markdown document into markdown_parse
 * (src/doc/markdown.h) and back out through doc_write (src/doc/doc.c), untranslated.
 * Properties, from doc.h's and markdown.h's contracts: the parse succeeds; the kept parts point
 * into the document, in order, without overlapping; each unit's text is valid UTF-8 with no line
 * ending; each unit's elements nest (a parent before its children, inside its range, ranges
 * inside the text); doc_write succeeds and gives the same bytes twice; and the written document,
 * parsed again, has units with the same texts (the escaping reads back as the text it
 * escaped). */
#include "doc/markdown.h"
#include "fuzz.h"

int fuzz_markdown(const uint8_t *data, size_t size)
{
    char err[256] = "";
    doc d, e;
    fuzz_buf out = {NULL, 0, 0}, again = {NULL, 0, 0};
    doc_init(&d, (const char *)data, size);
    FUZZ_CHECK(markdown_parse(&d, err, sizeof err) == 0, "parse failed: %s", err);
    const char *at = (const char *)data;
    for (int i = 0; i < d.n_parts; i++) {
        const doc_part *p = &d.parts[i];
        FUZZ_CHECK(p->unit < d.n_units, "part %d: unit %d of %d", i, p->unit, d.n_units);
        if (p->unit >= 0)
            continue;
        FUZZ_CHECK(p->s >= at && p->s + p->len <= (const char *)data + size,
                   "kept part %d out of order or outside the document", i);
        at = p->s + p->len;
    }
    for (int u = 0; u < d.n_units; u++) {
        const doc_unit *x = &d.units[u];
        FUZZ_CHECK(fuzz_utf8_ok((const unsigned char *)x->text, x->len) &&
                       !memchr(x->text, 0, x->len), "unit %d: bad UTF-8 or NUL", u);
        FUZZ_CHECK(!memchr(x->text, '\n', x->len) && !memchr(x->text, '\r', x->len),
                   "unit %d: a line ending", u);
        for (int i = 0; i < x->n_ranges; i++) {
            const doc_range *r = &x->ranges[i];
            FUZZ_CHECK(r->start <= r->end && r->end <= x->len, "unit %d elem %d: range", u, i);
            FUZZ_CHECK(r->parent >= -1 && r->parent < i, "unit %d elem %d: parent %d", u, i,
                       r->parent);
            if (r->parent >= 0)
                FUZZ_CHECK(x->ranges[r->parent].start <= r->start &&
                               r->end <= x->ranges[r->parent].end,
                           "unit %d elem %d: outside its parent", u, i);
        }
    }
    FUZZ_CHECK(doc_write(&d, fuzz_buf_put, &out) == 0, "write failed");
    FUZZ_CHECK(doc_write(&d, fuzz_buf_put, &again) == 0, "second write failed");
    FUZZ_CHECK(again.len == out.len && (out.len == 0 || memcmp(out.s, again.s, out.len) == 0),
               "two writes differ");
    /* the written document read back: the same texts */
    doc_init(&e, out.s ? out.s : "", out.len);
    FUZZ_CHECK(markdown_parse(&e, err, sizeof err) == 0, "parse of the output failed: %s", err);
    FUZZ_CHECK(e.n_units == d.n_units, "%d units, %d read back", d.n_units, e.n_units);
    for (int u = 0; u < d.n_units; u++)
        FUZZ_CHECK(e.units[u].len == d.units[u].len &&
                       (d.units[u].len == 0 ||
                        memcmp(e.units[u].text, d.units[u].text, d.units[u].len) == 0),
                   "unit %d: [%s] read back as [%s]", u, d.units[u].text, e.units[u].text);
    doc_free(&e);
    doc_free(&d);
    free(out.s);
    free(again.s);
    return 0;
}

#ifndef FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_markdown(data, size);
}
#endif

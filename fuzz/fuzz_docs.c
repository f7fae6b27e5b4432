/* fuzz_docs.c — arbitrary bytes through the document formats of issue 47, untranslated
 * (doc_format_translate with no context: each unit written as its own text). The first byte
 * picks the way in, the rest is the document:
 *   0 srt, 1 vtt, 2 po: the text formats' parse, finish and write;
 *   3 docx, 4 pptx, 5 odt, 6 odp, 7 epub: a zip package through pkg.c (bounds, plan, builders,
 *     writers, libzip's output read back);
 *   8, 9: an XML part through xml_parse and ooxml_build (WordprocessingML, DrawingML) written
 *     back, which must parse again as XML (the builder never breaks well-formedness: runs, wraps
 *     and kept bytes nest).
 * Properties: no crash, no sanitizer report; a refusal has a message; a package's output is
 * read again by the same path without an error; an XML part's output is well-formed. */
#include "fuzz.h"
#include "doc/formats.h"
#include "doc/ooxml.h"
#include "doc/pkg.h"
#include "doc/xml.h"

typedef struct {
    char *s;
    size_t len, cap;
} fuzz_docs_buf;

static int fuzz_docs_put(void *user, const char *s, size_t len)
{
    fuzz_docs_buf *b = user;
    if (b->len + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + len + 1)
            cap *= 2;
        char *q = realloc(b->s, cap);
        FUZZ_CHECK(q != NULL, "realloc");
        b->s = q;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, len);
    b->len += len;
    b->s[b->len] = '\0';
    return 0;
}

static void fuzz_docs_xml(const char *src, size_t len, const char *ns)
{
    xml_tree t;
    doc d;
    char err[512] = "";
    fuzz_docs_buf out = {0};
    if (xml_parse(&t, src, len, err, sizeof err)) {
        FUZZ_CHECK(fuzz_msg_ok(err, sizeof err), "xml_parse failed without a message");
        return;
    }
    doc_init(&d, src, len);
    if (ooxml_build(&d, &t, ns, err, sizeof err) == 0) {
        FUZZ_CHECK(doc_write(&d, fuzz_docs_put, &out) == 0, "doc_write failed");
        xml_tree t2;
        char err2[512] = "";
        int rc = xml_parse(&t2, out.s ? out.s : "", out.len, err2, sizeof err2);
        FUZZ_CHECK(rc == 0, "the written part is not well-formed: %s", err2);
        xml_free(&t2);
    } else {
        FUZZ_CHECK(fuzz_msg_ok(err, sizeof err), "ooxml_build failed without a message");
    }
    doc_free(&d);
    xml_free(&t);
    free(out.s);
}

int fuzz_docs(const uint8_t *data, size_t size)
{
    static const int ids[] = {XLATE_FORMAT_SRT,  XLATE_FORMAT_VTT,  XLATE_FORMAT_PO,
                              XLATE_FORMAT_DOCX, XLATE_FORMAT_PPTX, XLATE_FORMAT_ODT,
                              XLATE_FORMAT_ODP,  XLATE_FORMAT_EPUB};
    char err[512] = "", *src;
    fuzz_docs_buf out = {0};
    doc_opts o;
    int way, rc;
    if (size < 1)
        return 0;
    way = data[0] % 10;
    size--;
    if (!(src = malloc(size + 1)))
        return 0;
    memcpy(src, data + 1, size);
    src[size] = '\0';
    if (way >= 8) {
        fuzz_docs_xml(src, size, way == 8 ? OOXML_NS_W : OOXML_NS_A);
        free(src);
        return 0;
    }
    memset(&o, 0, sizeof o);
    o.target_lang = "de";
    o.source_lang = "en";
    const doc_format *f = doc_format_of(ids[way]);
    FUZZ_CHECK(f != NULL, "no format %d", ids[way]);
    rc = doc_format_translate(NULL, NULL, &o, f, src, size, "fuzz", fuzz_docs_put, &out, NULL,
                              err, sizeof err);
    if (rc) {
        FUZZ_CHECK(fuzz_msg_ok(err, sizeof err), "%s: refused without a message", f->name);
    } else if (f->package) { /* what xlate wrote, xlate reads again */
        fuzz_docs_buf again = {0};
        char err2[512] = "";
        FUZZ_CHECK(doc_format_translate(NULL, NULL, &o, f, out.s ? out.s : "", out.len, "fuzz",
                                        fuzz_docs_put, &again, NULL, err2, sizeof err2) == 0,
                   "%s: the written package (%zu bytes) is refused: %s", f->name, out.len, err2);
        free(again.s);
    }
    free(out.s);
    free(src);
    return 0;
}

#ifndef FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_docs(data, size);
}
#endif

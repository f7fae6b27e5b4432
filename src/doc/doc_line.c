/* doc_line.c — a plain text line's translation with its URLs and e-mail addresses kept (line
 * mode, issue 36): the same kept spans as a document's, by the same code. The line is made a
 * document of one unit written as it is (DOC_ESC_NONE), doc_mark_urls makes its addresses kept
 * elements, doc_move_elements places them on the translation (transfer.h's doc_transfer_kept:
 * where the model copied one, exactly there; else beside the words it was aligned to) and
 * doc_write writes it. The model reads the line as it is, so the ids, and the translation of a
 * line without an address, are the same as without this step (docs/DOCUMENTS.md, "Kept
 * spans", says why the span's text and not a placeholder). */
#include "doc/doc.h"
#include "base/strbuf.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>

/* 1 when every sentence of hypothesis h with tokens has its alignment and source spans. */
static int aligned(const xlate_translation *t, int h)
{
    for (int k = 0; k < t->n_segments; k++) {
        const xlate_segment *sg = &t->segments[k];
        int w = t->hyp_of ? t->hyp_of[h * t->n_segments + k] : h;
        if (w < 0 || !sg->res || w >= sg->res->n_hyps || sg->res->hyps[w].n == 0)
            continue;
        if (!sg->src_spans || !sg->res->hyps[w].alignment)
            return 0;
    }
    return 1;
}

int doc_line_text(const xlate_model *m, const xlate_translation *t, int h, char **text,
                  char *err, size_t errlen)
{
    char *plain = NULL;
    doc d;
    int unit, rc = -1, any = 0;
    strbuf b = {0};
    *text = NULL;
    if (xlate_translation_text(m, t, h, &plain, err, errlen))
        return -1;
    for (size_t i = 0; t->text && i < t->len && !any; i++)
        any = doc_url_at(t->text, t->len, i) > 0;
    if (!any || t->res->n_hyps == 0 || !aligned(t, h)) {
        *text = plain;
        return 0;
    }
    doc_init(&d, t->text, t->len);
    if (doc_new_unit(&d, DOC_ESC_NONE, 1, &unit, err, errlen) ||
        doc_put_unit(&d, unit, err, errlen) ||
        doc_unit_text(&d, unit, t->text, t->len, err, errlen) ||
        doc_mark_urls(&d, unit, err, errlen))
        goto done;
    d.units[unit].out = plain; /* (the doc owns it from here) */
    d.units[unit].out_len = strlen(plain);
    plain = NULL;
    if (d.units[unit].n_ranges > 0 &&
        doc_move_elements(m, &d, unit, t, h, err, errlen))
        goto done;
    if (doc_write(&d, strbuf_put, &b) || (!b.s && strbuf_put(&b, "", 0))) {
        xerr(err, errlen, "out of memory");
        goto done;
    }
    *text = b.s;
    b.s = NULL;
    rc = 0;
done:
    free(b.s);
    free(plain);
    doc_free(&d);
    return rc;
}

size_t doc_markup_spaces(const char *s, size_t n, char *out)
{
    size_t k = 0;
    int tag = 0, ref = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (tag)
            tag = c != '>';
        else if (ref)
            ref = c != ';' && c != ' ' && c != '<';
        else if (c == '<')
            tag = 1;
        else if (c == '&')
            ref = 1;
        else {
            out[k++] = c;
            continue;
        }
        out[k++] = ' ';
    }
    return k;
}

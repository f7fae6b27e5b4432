/* fuzz_spm_text.c — arbitrary bytes (invalid UTF-8, NUL, control and combining characters,
 * long runs) into spm_encode / spm_decode (src/text/spm*.c) with two fixed models:
 *   models/en-de/spm.model      the shipped unigram model (nmt_nfkc charsmap, dummy prefix,
 *                               extra whitespace removal): ids in range, decode gives valid
 *                               UTF-8, encoding is deterministic;
 *   fuzz/models/bpe_bytes.model BPE with byte_fallback, identity normalization, no dummy
 *                               prefix, whitespace kept (fuzz/make_corpus.sh): lossless, so
 *                               decode(encode(x)) must equal x with each malformed UTF-8 byte
 *                               replaced by U+FFFD and U+2581 by a space (the sentencepiece
 *                               library behaves so: checked with python3-sentencepiece when the
 *                               model was made).
 * Both models: spm_encode_spans / spm_decode_spans give the same ids / text as spm_encode /
 * spm_decode, and their spans tile (each begins where the one before ends: they come from one
 * alignment, or one output position) inside the text; decode's run from 0 to the text's end,
 * and so do the lossless model's encode spans.
 * The UTF-8 rules below are written from the Unicode standard (well-formed sequences, no
 * overlongs, no surrogates, at most U+10FFFF; a malformed byte is replaced alone), not taken
 * from src/text/spm*.c. */
#include "fuzz.h"
#include "text/spm.h"

typedef struct {
    spm_model *uni, *bpe;
} fuzz_text_models;

static fuzz_text_models *fuzz_text_load(void)
{
    static fuzz_text_models ms;
    if (!ms.uni) {
        char path[4096], err[512];
        if (spm_load(&ms.uni, fuzz_path(path, sizeof path, "models/en-de/spm.model"), err,
                     sizeof err) ||
            spm_load(&ms.bpe, fuzz_path(path, sizeof path, "fuzz/models/bpe_bytes.model"), err,
                     sizeof err)) {
            fprintf(stderr, "fuzz_spm_text: %s (run from the repository root or set "
                    "XLATE_ROOT)\n", err);
            exit(2);
        }
    }
    return &ms;
}

/* Length of the well-formed UTF-8 character at s (1..4), or 0 when s[0] starts none. */
static size_t fuzz_utf8_char(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned long cp, min;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2, cp = c & 0x1F, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3, cp = c & 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4, cp = c & 0x07, min = 0x10000;
    else
        return 0;
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

static int fuzz_utf8_valid(const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t l = fuzz_utf8_char((const unsigned char *)s + i, n - i);
        if (!l)
            return 0;
        i += l;
    }
    return 1;
}

static void fuzz_text_encode(const spm_model *m, const char *s, size_t n, int **ids, int *cnt,
                             const char *which)
{
    char err[512] = "";
    int v = spm_vocab_size(m);
    FUZZ_CHECK(spm_encode(m, s, n, ids, cnt, err, sizeof err) == 0, "%s encode: %s", which, err);
    FUZZ_CHECK(*cnt >= 0 && (*cnt == 0 || *ids), "%s: count %d", which, *cnt);
    for (int i = 0; i < *cnt; i++)
        FUZZ_CHECK((*ids)[i] >= 0 && (*ids)[i] < v, "%s: id %d", which, (*ids)[i]);
}

/* Spans [2 * cnt] tile [first, last] inside [0, n]; exact: first == 0 and last == n. */
static void fuzz_spans_tile(const int *sp, int cnt, size_t n, int exact, const char *which)
{
    for (int i = 0; i < cnt; i++) {
        FUZZ_CHECK(sp[2 * i] >= 0 && sp[2 * i] <= sp[2 * i + 1] && (size_t)sp[2 * i + 1] <= n,
                   "%s: span %d [%d, %d) of %zu bytes", which, i, sp[2 * i], sp[2 * i + 1], n);
        FUZZ_CHECK(i == 0 || sp[2 * i] == sp[2 * i - 1], "%s: span %d begins at %d, the one "
                   "before ends at %d", which, i, sp[2 * i], sp[2 * i - 1]);
    }
    FUZZ_CHECK(!exact || cnt == 0 || (sp[0] == 0 && (size_t)sp[2 * cnt - 1] == n),
               "%s: spans run [%d, %d), not over the %zu bytes", which, sp[0],
               sp[2 * cnt - 1], n);
}

/* The spans variants of encode and decode against the plain ones (ids, cnt: spm_encode's). */
static void fuzz_text_spans(const spm_model *m, const char *s, size_t n, const int *ids,
                            int cnt, int lossless, const char *which)
{
    char err[512] = "", *out = NULL, *out2 = NULL;
    int *ids2 = NULL, *sp = NULL, cnt2 = -1;
    size_t olen = 0, olen2 = 0;
    FUZZ_CHECK(spm_encode_spans(m, s, n, &ids2, &sp, &cnt2, err, sizeof err) == 0,
               "%s encode spans: %s", which, err);
    FUZZ_CHECK(cnt2 == cnt && (cnt == 0 || memcmp(ids, ids2, cnt * sizeof *ids) == 0),
               "%s: encode spans changed the ids", which);
    fuzz_spans_tile(sp, cnt, n, lossless, which);
    free(ids2);
    free(sp);
    sp = NULL;
    FUZZ_CHECK(spm_decode(m, ids, cnt, &out, &olen, err, sizeof err) == 0 &&
                   spm_decode_spans(m, ids, cnt, &out2, &olen2, &sp, err, sizeof err) == 0,
               "%s decode spans: %s", which, err);
    FUZZ_CHECK(olen == olen2 && memcmp(out, out2, olen) == 0, "%s: decode spans changed the "
               "text", which);
    fuzz_spans_tile(sp, cnt, olen, 1, which);
    free(out);
    free(out2);
    free(sp);
}

int fuzz_spm_text(const uint8_t *data, size_t size)
{
    fuzz_text_models *ms = fuzz_text_load();
    char *text = malloc(size ? size : 1), *out = NULL, err[512] = "";
    int *ids = NULL, *ids2 = NULL, cnt = 0, cnt2 = 0;
    size_t olen = 0;
    FUZZ_CHECK(text != NULL, "malloc");
    if (size)
        memcpy(text, data, size);

    /* The unigram model: ids in range, deterministic, decode gives valid UTF-8. */
    fuzz_text_encode(ms->uni, text, size, &ids, &cnt, "unigram");
    fuzz_text_encode(ms->uni, text, size, &ids2, &cnt2, "unigram again");
    FUZZ_CHECK(cnt == cnt2 && (cnt == 0 || memcmp(ids, ids2, cnt * sizeof *ids) == 0),
               "unigram encoding not deterministic");
    FUZZ_CHECK(spm_decode(ms->uni, ids, cnt, &out, &olen, err, sizeof err) == 0,
               "unigram decode: %s", err);
    FUZZ_CHECK(out[olen] == '\0' && fuzz_utf8_valid(out, olen), "unigram decode: invalid UTF-8");
    fuzz_text_spans(ms->uni, text, size, ids, cnt, 0, "unigram");
    free(out);
    free(ids);
    free(ids2);
    out = NULL;
    ids = ids2 = NULL;

    /* The lossless BPE model: decode(encode(x)) is x, cleaned. */
    fuzz_text_encode(ms->bpe, text, size, &ids, &cnt, "bpe");
    fuzz_text_spans(ms->bpe, text, size, ids, cnt, 1, "bpe");
    FUZZ_CHECK(spm_decode(ms->bpe, ids, cnt, &out, &olen, err, sizeof err) == 0,
               "bpe decode: %s", err);
    {
        size_t cap = 3 * size + 1, w = 0;
        char *want = malloc(cap);
        FUZZ_CHECK(want != NULL, "malloc");
        for (size_t i = 0; i < size;) {
            size_t l = fuzz_utf8_char((const unsigned char *)text + i, size - i);
            if (!l) {
                memcpy(want + w, "\xef\xbf\xbd", 3);
                w += 3;
                i++;
            } else if (l == 3 && memcmp(text + i, "\xe2\x96\x81", 3) == 0) {
                want[w++] = ' ';
                i += 3;
            } else {
                memcpy(want + w, text + i, l);
                w += l;
                i += l;
            }
        }
        FUZZ_CHECK(olen == w && memcmp(out, want, w) == 0,
                   "bpe round trip: %zu bytes in, %zu out, %zu expected", size, olen, w);
        free(want);
    }
    free(out);
    free(ids);
    free(text);
    return 0;
}

#ifndef FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_spm_text(data, size);
}
#endif

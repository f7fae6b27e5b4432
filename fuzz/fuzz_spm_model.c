/* fuzz_spm_model.c — a SentencePiece .model (protobuf ModelProto) into spm_load_from_memory
 * (src/text/spm*.c); a model that loads then encodes fixed texts (and the input's own first bytes)
 * and decodes every id. Seeds: small models trained by spm_train (fuzz/make_corpus.sh).
 * Properties: a failure leaves a message and no leak; a loaded model has pieces, special ids
 * that are -1 or in range, a non-empty piece for every id; encode gives ids in range; decode
 * of any in-range ids succeeds, of an out-of-range id fails with a message; the spans variants
 * give the same ids and text, with spans that tile. */
#include "fuzz.h"
#include "text/spm.h"

static const char *const fuzz_spm_texts[] = {
    "Hello world.", "  Two  dogs\tplay in the snow.  ", "", " ", "\xe2\x96\x81", "<unk>",
    "<s> </s> <0x41>", "Ma\xc3\x9f \xc3\x84rger \xef\xbc\xa1 \xe3\x80\x80 \xe2\x85\xa2",
    "\xff\xfe\xc3\x28\xe2\x82 invalid", "\xf0\x9f\x98\x80 emoji", "digits 0123456789",
};

static void fuzz_spm_roundtrip(const spm_model *m, const char *text, size_t len, int n)
{
    int *ids = NULL, cnt = -1;
    char err[512], *out = NULL;
    size_t olen = 0;
    memset(err, 0, sizeof err);
    FUZZ_CHECK(spm_encode(m, text, len, &ids, &cnt, err, sizeof err) == 0, "encode: %s", err);
    FUZZ_CHECK(cnt >= 0 && (cnt == 0 || ids), "encode count %d", cnt);
    for (int i = 0; i < cnt; i++)
        FUZZ_CHECK(ids[i] >= 0 && ids[i] < n, "encode gave id %d of %d", ids[i], n);
    FUZZ_CHECK(spm_decode(m, ids, cnt, &out, &olen, err, sizeof err) == 0, "decode: %s", err);
    FUZZ_CHECK(out && out[olen] == '\0', "decode result not terminated");
    {
        /* the spans variants: the same ids and text; spans that tile (each begins where the one
         * before ends) inside the text, decode's over all of it (a denormalizer's alignment
         * keeps that) */
        int *ids2 = NULL, *sp = NULL, cnt2 = -1;
        char *out2 = NULL;
        size_t olen2 = 0;
        FUZZ_CHECK(spm_encode_spans(m, text, len, &ids2, &sp, &cnt2, err, sizeof err) == 0 &&
                       cnt2 == cnt && (cnt == 0 || memcmp(ids, ids2, cnt * sizeof *ids) == 0),
                   "encode spans: %s", err);
        for (int i = 0; i < cnt; i++)
            FUZZ_CHECK(sp[2 * i] >= 0 && sp[2 * i] <= sp[2 * i + 1] &&
                           (size_t)sp[2 * i + 1] <= len && (i == 0 || sp[2 * i] == sp[2 * i - 1]),
                       "encode span %d [%d, %d) of %zu bytes", i, sp[2 * i], sp[2 * i + 1], len);
        free(ids2);
        free(sp);
        sp = NULL;
        FUZZ_CHECK(spm_decode_spans(m, ids, cnt, &out2, &olen2, &sp, err, sizeof err) == 0 &&
                       olen2 == olen && memcmp(out, out2, olen) == 0,
                   "decode spans: %s", err);
        for (int i = 0; i < cnt; i++)
            FUZZ_CHECK(sp[2 * i] == (i ? sp[2 * i - 1] : 0) && sp[2 * i] <= sp[2 * i + 1] &&
                           (size_t)sp[2 * i + 1] <= olen &&
                           (i + 1 < cnt || (size_t)sp[2 * i + 1] == olen),
                       "decode span %d [%d, %d) of %zu bytes", i, sp[2 * i], sp[2 * i + 1], olen);
        free(out2);
        free(sp);
    }
    free(out);
    free(ids);
}

int fuzz_spm_model(const uint8_t *data, size_t size)
{
    spm_model *m = NULL;
    char err[512], *out = NULL;
    size_t olen;
    int n, special[4], *all;
    uint8_t *img = malloc(size ? size : 1);
    FUZZ_CHECK(img != NULL, "malloc");
    if (size)
        memcpy(img, data, size);
    memset(err, 0, sizeof err);
    if (spm_load_from_memory(&m, img, size, "fuzz.model", err, sizeof err) != 0) {
        FUZZ_CHECK(m == NULL, "failed load returned a model");
        FUZZ_CHECK(fuzz_msg_ok(err, sizeof err), "load failure without a message");
        free(img);
        return 0;
    }
    /* The model copies what it keeps: poison the image to catch a dangling reference. */
    memset(img, 0xA5, size);
    free(img);

    n = spm_vocab_size(m);
    FUZZ_CHECK(n > 0, "loaded model with %d pieces", n);
    special[0] = spm_unk_id(m);
    special[1] = spm_bos_id(m);
    special[2] = spm_eos_id(m);
    special[3] = spm_pad_id(m);
    for (int i = 0; i < 4; i++)
        FUZZ_CHECK(special[i] == -1 || (special[i] >= 0 && special[i] < n), "special %d = %d", i,
                   special[i]);
    for (int i = 0; i < n && i < 4096; i++) {
        const char *p = spm_id_to_piece(m, i);
        FUZZ_CHECK(p && p[0], "piece %d empty", i);
    }
    FUZZ_CHECK(!spm_id_to_piece(m, -1) && !spm_id_to_piece(m, n), "out-of-range piece");

    for (size_t k = 0; k < sizeof fuzz_spm_texts / sizeof fuzz_spm_texts[0]; k++)
        fuzz_spm_roundtrip(m, fuzz_spm_texts[k], strlen(fuzz_spm_texts[k]), n);
    fuzz_spm_roundtrip(m, (const char *)data, size < 256 ? size : 256, n);

    /* Every id (up to 1024) in one sequence, then an id just outside each end. */
    {
        int cnt = n < 1024 ? n : 1024;
        all = malloc((size_t)cnt * sizeof *all);
        FUZZ_CHECK(all != NULL, "malloc");
        for (int i = 0; i < cnt; i++)
            all[i] = i;
        FUZZ_CHECK(spm_decode(m, all, cnt, &out, &olen, err, sizeof err) == 0, "decode all: %s",
                   err);
        FUZZ_CHECK(out && out[olen] == '\0', "decode result not terminated");
        free(out);
        out = NULL;
        all[0] = n;
        memset(err, 0, sizeof err);
        FUZZ_CHECK(spm_decode(m, all, 1, &out, &olen, err, sizeof err) != 0 &&
                       fuzz_msg_ok(err, sizeof err), "id %d accepted", n);
        free(out);
        out = NULL;
        all[0] = -1;
        memset(err, 0, sizeof err);
        FUZZ_CHECK(spm_decode(m, all, 1, &out, &olen, err, sizeof err) != 0 &&
                       fuzz_msg_ok(err, sizeof err), "id -1 accepted");
        free(out);
        free(all);
    }
    spm_free(m);
    return 0;
}

#ifndef FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_spm_model(data, size);
}
#endif

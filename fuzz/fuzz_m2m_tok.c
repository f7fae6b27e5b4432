/* fuzz_m2m_tok.c — the side files of an M2M100 / NLLB-200 tokenizer directory into m2m_tok_load
 * (src/text/m2m_tok.c: the language codes, the added tokens), then a text through
 * m2m_tok_encode (src/text/m2m_added.c: the cut around added tokens) and m2m_tok_decode.
 * The input: a first byte, then up to six parts separated by NUL bytes (JSON has no raw NUL):
 * tokenizer_config.json, special_tokens_map.json, vocab.json, added_tokens.json,
 * tokenizer.json (an empty or missing part: no such file) and the text. The first byte's bit 0
 * picks NLLB (1) or M2M100 (0), the rest the model's vocabulary, 601 + 8 * (byte >> 1) ids;
 * sentencepiece.bpe.model is fuzz/models/bpe_bytes.model (600 pieces). The files are written to
 * one temporary directory (made once, removed at exit).
 * Properties: a failure leaves a message and nothing allocated (LeakSanitizer); a success has
 * a language code, and every language, <mask> and added-token id inside the vocabulary, each
 * added token 1 to 1024 bytes; tokenizer.json's "added_tokens" read by json_member_mem is the
 * strict parse's, where the whole file parses (fuzz_m2m_member); the text encodes to ids inside the vocabulary with spans inside
 * the text, in order, not overlapping (with and without spans: the same ids); each added token
 * alone encodes to its own id (nothing to strip beside it, no longer token fits); the ids
 * decode. */
#include "text/m2m_tok.h"
#include "base/json.h"
#include "fuzz.h"
#include <limits.h>
#include <unistd.h>

#define FUZZ_M2M_SPM "fuzz/models/bpe_bytes.model"

static const char *const fuzz_m2m_names[] = {"tokenizer_config.json", "special_tokens_map.json",
                                             "vocab.json", "added_tokens.json",
                                             "tokenizer.json"};

static char fuzz_m2m_dir[64];

static void fuzz_m2m_cleanup(void)
{
    char p[128];
    for (size_t i = 0; i < sizeof fuzz_m2m_names / sizeof *fuzz_m2m_names; i++) {
        snprintf(p, sizeof p, "%s/%s", fuzz_m2m_dir, fuzz_m2m_names[i]);
        unlink(p);
    }
    snprintf(p, sizeof p, "%s/sentencepiece.bpe.model", fuzz_m2m_dir);
    unlink(p);
    rmdir(fuzz_m2m_dir);
}

/* The directory, made on the first call (test_hardening calls it in the parent process, so
 * that the replays' children share it and the parent removes it). */
static const char *fuzz_m2m_setup(void)
{
    if (!fuzz_m2m_dir[0]) {
        char rel[4096], abs[PATH_MAX], link[128];
        snprintf(fuzz_m2m_dir, sizeof fuzz_m2m_dir, "/tmp/xlate-fuzz-m2m-XXXXXX");
        if (!mkdtemp(fuzz_m2m_dir) || !realpath(fuzz_path(rel, sizeof rel, FUZZ_M2M_SPM), abs)) {
            fprintf(stderr, "fuzz_m2m_tok: cannot make the directory or find %s\n", FUZZ_M2M_SPM);
            exit(2);
        }
        snprintf(link, sizeof link, "%s/sentencepiece.bpe.model", fuzz_m2m_dir);
        if (symlink(abs, link) != 0) {
            perror("fuzz_m2m_tok: symlink");
            exit(2);
        }
        atexit(fuzz_m2m_cleanup);
    }
    return fuzz_m2m_dir;
}

/* tokenizer.json's part through json_member_mem (src/base/json_member.c), against the strict
 * parse of the whole: where the whole is valid JSON (no key twice), the member is found
 * exactly when the whole has it, and parses to the same value; else a failure has a message. */
static void fuzz_m2m_member(const char *json, size_t len)
{
    char err[512] = "", err2[512] = "", *text = NULL;
    size_t n = 0, at = 0;
    cJSON *whole = json_parse_object(json, len, "whole", err2, sizeof err2), *part = NULL;
    const cJSON *want = whole ? cJSON_GetObjectItemCaseSensitive(whole, "added_tokens") : NULL;
    int rc = json_member_mem(json, len, "added_tokens", (size_t)64 << 20, &text, &n, &at,
                             "tokenizer.json", err, sizeof err);
    if (rc)
        FUZZ_CHECK(!text && fuzz_msg_ok(err, sizeof err), "member: failure without a message");
    if (whole) {
        FUZZ_CHECK(rc == 0, "member: the whole parses, the skim fails: %s", err);
        FUZZ_CHECK(!want == !text, "member: the whole %s it, the skim %s it",
                   want ? "has" : "lacks", text ? "found" : "did not find");
        if (want && text) {
            FUZZ_CHECK(at < len && at + n <= len && memcmp(json + at, text, n) == 0,
                       "member: its text is not the file's bytes at %zu", at);
            part = json_parse_strict(text, n, "part", err, sizeof err);
            FUZZ_CHECK(part && cJSON_Compare(part, want, 1), "member: parses otherwise: %s",
                       part ? "a different value" : err);
        }
    }
    cJSON_Delete(part);
    cJSON_Delete(whole);
    free(text);
}

int fuzz_m2m_tok(const uint8_t *data, size_t size)
{
    const char *dir = fuzz_m2m_setup(), *text = "";
    size_t at = 1, text_len = 0;
    m2m_tok t;
    char err[512], p[128];
    int nllb, n_ids, *ids = NULL, *ids2 = NULL, *spans = NULL, n = 0, n2 = 0;
    char *out = NULL;
    if (size < 1)
        return 0;
    nllb = data[0] & 1;
    n_ids = 601 + 8 * (data[0] >> 1);
    for (size_t i = 0; i < 6; i++) {
        const uint8_t *end = at < size ? memchr(data + at, 0, size - at) : NULL;
        size_t len = at < size ? (end ? (size_t)(end - data) : size) - at : 0;
        if (i == 4 && len)
            fuzz_m2m_member((const char *)data + at, len);
        if (i == 5) {
            text = (const char *)data + (at < size ? at : size);
            text_len = len;
            break;
        }
        snprintf(p, sizeof p, "%s/%s", dir, fuzz_m2m_names[i]);
        unlink(p);
        if (len) {
            FILE *f = fopen(p, "wb");
            FUZZ_CHECK(f && fwrite(data + at, 1, len, f) == len && fclose(f) == 0, "write %s",
                       p);
        }
        at += len + 1;
    }
    memset(err, 0, sizeof err);
    if (m2m_tok_load(&t, dir, nllb, n_ids, 2, 1, err, sizeof err)) {
        FUZZ_CHECK(fuzz_msg_ok(err, sizeof err), "failure without a message");
        return 0;
    }
    FUZZ_CHECK(t.n_langs >= 1, "no language codes");
    for (int k = 0; k < t.n_langs; k++)
        FUZZ_CHECK(t.lang_id[k] >= 0 && t.lang_id[k] < n_ids && m2m_tok_lang(&t, t.lang[k]) >= 0,
                   "language %d: id %d", k, t.lang_id[k]);
    FUZZ_CHECK(t.mask < n_ids, "<mask> id %d", t.mask);
    for (int k = 0; k < t.n_added; k++) {
        const m2m_added *a = &t.added[k];
        FUZZ_CHECK(a->id >= 0 && a->id < n_ids && a->len >= 1 && a->len <= 1024 &&
                   (size_t)a->len == strlen(a->text), "added token %d: id %d, %d bytes", k,
                   a->id, a->len);
        if (m2m_tok_encode(&t, a->text, (size_t)a->len, &ids, NULL, &n, err, sizeof err) == 0) {
            FUZZ_CHECK(n == 1 && ids[0] == a->id, "added token \"%s\" alone: %d ids, first %d, "
                       "expected its id %d", a->text, n, n ? ids[0] : -1, a->id);
            free(ids);
            ids = NULL;
        }
    }
    if (m2m_tok_encode(&t, text, text_len, &ids, &spans, &n, err, sizeof err) == 0) {
        int last = 0;
        FUZZ_CHECK(m2m_tok_encode(&t, text, text_len, &ids2, NULL, &n2, err, sizeof err) == 0 &&
                   n2 == n && (n == 0 || memcmp(ids, ids2, (size_t)n * sizeof *ids) == 0),
                   "ids differ with and without spans");
        for (int i = 0; i < n; i++) {
            FUZZ_CHECK(ids[i] >= 0 && ids[i] < n_ids, "id %d at %d", ids[i], i);
            FUZZ_CHECK(spans[2 * i] >= last && spans[2 * i] <= spans[2 * i + 1] &&
                       (size_t)spans[2 * i + 1] <= text_len, "span %d [%d, %d) of %zu bytes", i,
                       spans[2 * i], spans[2 * i + 1], text_len);
            last = spans[2 * i + 1];
        }
        FUZZ_CHECK(m2m_tok_decode(&t, ids, n, &out, err, sizeof err) == 0, "decode: %s", err);
        free(out);
    } else {
        FUZZ_CHECK(fuzz_msg_ok(err, sizeof err), "encode failed without a message");
    }
    free(ids);
    free(ids2);
    free(spans);
    m2m_tok_free(&t);
    return 0;
}

#ifndef FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fuzz_m2m_tok(data, size); }
#endif

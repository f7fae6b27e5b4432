/* fuzz_split.c — arbitrary bytes into the sentence splitter (src/text/split.c). The first byte
 * picks a language code from a list (unknown codes and garbage among them); the rest is the
 * text (invalid UTF-8, NUL, long runs of dots or spaces). Properties, from split.h's contract:
 * split_sentences succeeds; the spans are in order, non-empty, disjoint, start and end on a
 * byte that is not whitespace, and every byte outside them is whitespace; a second call gives
 * the same spans; split_lang_known and split_lang_no_spaces answer 0 or 1 for any string.
 * The whitespace set is written here from split.h's definition (ASCII 9-13 and space, U+0085,
 * U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000), not taken from
 * split.c. */
#include "fuzz.h"
#include "text/split.h"

/* Bytes of the whitespace character at s[i..n), 0 when none starts there. */
static size_t fuzz_space_at(const unsigned char *s, size_t n, size_t i)
{
    if (s[i] == ' ' || (s[i] >= 9 && s[i] <= 13))
        return 1;
    if (i + 1 < n && s[i] == 0xC2 && (s[i + 1] == 0x85 || s[i + 1] == 0xA0))
        return 2;
    if (i + 2 >= n)
        return 0;
    if (s[i] == 0xE1 && s[i + 1] == 0x9A && s[i + 2] == 0x80)
        return 3;
    if (s[i] == 0xE2 && s[i + 1] == 0x80 &&
        ((s[i + 2] >= 0x80 && s[i + 2] <= 0x8A) || s[i + 2] == 0xA8 || s[i + 2] == 0xA9 ||
         s[i + 2] == 0xAF))
        return 3;
    if (s[i] == 0xE2 && s[i + 1] == 0x81 && s[i + 2] == 0x9F)
        return 3;
    if (s[i] == 0xE3 && s[i + 1] == 0x80 && s[i + 2] == 0x80)
        return 3;
    return 0;
}

/* 1 when s[a..b) is whitespace only. */
static int fuzz_all_space(const unsigned char *s, size_t n, size_t a, size_t b)
{
    while (a < b) {
        size_t l = fuzz_space_at(s, n, a);
        if (!l || a + l > b)
            return 0;
        a += l;
    }
    return 1;
}

int fuzz_split(const uint8_t *data, size_t size)
{
    static const char *const langs[] = {NULL, "", "en", "de", "fr", "es", "it", "nl", "pt",
                                        "ru", "el", "hy", "zh", "ja", "EN_us", "deu", "xx",
                                        ">>fra<<", "e", "-", "ko"};
    char err[256];
    split_span *v = NULL, *w = NULL;
    int n = -1, m = -1;
    if (size == 0)
        return 0;
    const char *lang = langs[data[0] % (sizeof langs / sizeof langs[0])];
    const unsigned char *s = data + 1;
    size_t len = size - 1;
    /* the same bytes as a language code, NUL-terminated */
    char *code = malloc(len + 1);
    FUZZ_CHECK(code != NULL, "malloc");
    memcpy(code, s, len);
    code[len] = '\0';
    int k = split_lang_known(code), z = split_lang_no_spaces(code);
    FUZZ_CHECK((k == 0 || k == 1) && (z == 0 || z == 1), "known %d, no_spaces %d", k, z);
    free(code);

    FUZZ_CHECK(split_sentences((const char *)s, len, lang, &v, &n, err, sizeof err) == 0,
               "failed: %s", err);
    FUZZ_CHECK(n >= 0 && (n == 0) == (v == NULL), "n %d, spans %p", n, (void *)v);
    size_t pos = 0;
    for (int j = 0; j < n; j++) {
        FUZZ_CHECK(v[j].start >= pos && v[j].start < v[j].end && v[j].end <= len,
                   "span %d [%zu, %zu) after %zu, len %zu", j, v[j].start, v[j].end, pos, len);
        FUZZ_CHECK(fuzz_all_space(s, len, pos, v[j].start), "a non-space byte before span %d",
                   j);
        FUZZ_CHECK(!fuzz_space_at(s, len, v[j].start), "span %d starts with whitespace", j);
        /* nor ends with it: no whitespace character ends at end (they start on ASCII or a
         * lead byte, never inside another character) */
        for (size_t b = v[j].end - 1; b + 3 >= v[j].end && b >= v[j].start; b--) {
            FUZZ_CHECK(fuzz_space_at(s, len, b) != v[j].end - b, "span %d ends with whitespace",
                       j);
            if (b == 0)
                break;
        }
        pos = v[j].end;
    }
    FUZZ_CHECK(fuzz_all_space(s, len, pos, len), "a non-space byte after the last span");

    FUZZ_CHECK(split_sentences((const char *)s, len, lang, &w, &m, err, sizeof err) == 0 &&
                   m == n && (n == 0 || memcmp(v, w, (size_t)n * sizeof *v) == 0),
               "a second call differs: %d vs %d spans", m, n);
    free(v);
    free(w);
    return 0;
}

#ifndef FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_split(data, size);
}
#endif

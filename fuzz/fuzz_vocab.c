/* fuzz_vocab.c — vocab.json text into vocab_parse (src/text/vocab.c). The first byte picks the
 * vocabulary size n (1..256); the rest is the JSON.
 * Properties: a failure leaves a message and nothing allocated (LeakSanitizer); a success holds
 * exactly n pieces with ids in [0, n), each found again by vocab_find under its own id. */
#include "text/vocab.h"
#include "fuzz.h"
#include <string.h>

int fuzz_vocab(const uint8_t *data, size_t size)
{
    vocab v;
    char err[512];
    int n, found = 0;
    if (size < 1)
        return 0;
    n = 1 + data[0];
    memset(err, 0, sizeof err);
    if (vocab_parse(&v, (const char *)data + 1, size - 1, "fuzz.json", n, "vocab_size", err,
                    sizeof err)) {
        FUZZ_CHECK(fuzz_msg_ok(err, sizeof err), "failure without a message");
        FUZZ_CHECK(!v.piece && !v.slot, "failed vocab kept memory");
        return 0;
    }
    FUZZ_CHECK(v.n == n, "n %d, expected %d", v.n, n);
    for (int i = 0; i < n; i++) {
        FUZZ_CHECK(v.piece[i] != NULL, "id %d has no piece", i);
        FUZZ_CHECK(vocab_find(&v, v.piece[i], v.len[i]) == i, "piece of id %d not found", i);
        found++;
    }
    FUZZ_CHECK(found == n, "%d of %d pieces", found, n);
    vocab_free(&v);
    return 0;
}

#ifndef FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fuzz_vocab(data, size); }
#endif

/* fuzz_config.c — config.json text into config_parse (src/model/config.c).
 * Properties: a failure leaves a message and nothing allocated (LeakSanitizer); a success
 * satisfies every rule docs/FORMAT.md states (heads divide d_model, special ids inside both
 * vocabularies, sizes in range, a weights file name). */
#include "model/config.h"
#include "fuzz.h"
#include <math.h>

static void fuzz_config_warn(void *user, const char *msg)
{
    (*(int *)user)++;
    FUZZ_CHECK(msg && msg[0], "empty warning");
}

int fuzz_config(const uint8_t *data, size_t size)
{
    model_config c;
    char err[512];
    int warnings = 0, rc;
    memset(err, 0, sizeof err);
    rc = config_parse(&c, (const char *)data, size, "fuzz.json", fuzz_config_warn, &warnings, err,
                      sizeof err);
    if (rc != 0) {
        FUZZ_CHECK(fuzz_msg_ok(err, sizeof err), "failure without a message");
        FUZZ_CHECK(!c.weights && !c.tokenizer && !c.target_tokenizer, "failed config kept strings");
        return 0;
    }
    {
        /* strict JSON: one object, then whitespace only, so the last other byte is its '}' */
        size_t n = size;
        while (n > 0 && data[n - 1] && strchr(" \t\r\n", data[n - 1]))
            n--;
        FUZZ_CHECK(n > 0 && data[n - 1] == '}', "accepted content after the object");
    }
    FUZZ_CHECK(c.d_model > 0 && c.heads > 0 && c.d_model % c.heads == 0, "d_model %d heads %d",
               c.d_model, c.heads);
    FUZZ_CHECK(c.ffn_dim > 0 && c.encoder_layers >= 0 && c.decoder_layers > 0, "sizes");
    FUZZ_CHECK(c.src_vocab > 0 && c.tgt_vocab > 0, "vocab %d %d", c.src_vocab, c.tgt_vocab);
    FUZZ_CHECK(c.d_model <= (1 << 24) && c.ffn_dim <= (1 << 24) && c.src_vocab <= (1 << 24) &&
                   c.tgt_vocab <= (1 << 24) && c.max_positions <= (1 << 24),
               "an integer field above the documented bound");
    FUZZ_CHECK(c.max_positions >= 2, "max_positions %d", c.max_positions);
    FUZZ_CHECK(c.positions == POS_LEARNED || c.d_model % 2 == 0, "odd d_model with sinusoids");
    FUZZ_CHECK(!c.shared_embeddings || c.src_vocab == c.tgt_vocab, "shared with unequal vocab");
    {
        int ids[4] = {c.pad_id, c.unk_id, c.bos_id, c.eos_id};
        for (int i = 0; i < 4; i++)
            FUZZ_CHECK(ids[i] >= 0 && ids[i] < c.src_vocab && ids[i] < c.tgt_vocab,
                       "special id %d = %d outside the vocabularies", i, ids[i]);
    }
    FUZZ_CHECK(isfinite(c.layer_norm_eps) && c.layer_norm_eps > 0, "eps %g",
               (double)c.layer_norm_eps);
    FUZZ_CHECK(isfinite(c.embedding_scale) && c.embedding_scale > 0, "scale %g",
               (double)c.embedding_scale);
    FUZZ_CHECK(c.weights && c.weights[0], "no weights file name");
    FUZZ_CHECK(!c.tokenizer || c.tokenizer[0], "empty tokenizer name");
    FUZZ_CHECK(!c.target_tokenizer || c.target_tokenizer[0], "empty target_tokenizer name");
    FUZZ_CHECK(activation_name(c.activation) && positions_name(c.positions), "enum names");
    config_free(&c);
    return 0;
}

#ifndef FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fuzz_config(data, size); }
#endif

/* fuzz_marian_config.c — a Hugging Face MarianMT config.json (and, after a NUL byte, a
 * generation_config.json) into config_parse_marian (src/model/config.c).
 * Properties: a failure leaves a message and nothing allocated (LeakSanitizer); a success has
 * sizes in range, heads dividing d_model, special ids inside the vocabularies, bad_words_ids
 * inside the target vocabulary, the Marian architecture (post-norm, no final norms, sinusoids). */
#include "model/config.h"
#include "fuzz.h"
#include <math.h>

int fuzz_marian_config(const uint8_t *data, size_t size)
{
    model_config c;
    char err[512];
    const uint8_t *nul = memchr(data, 0, size);
    size_t clen = nul ? (size_t)(nul - data) : size;
    const char *gen = nul ? (const char *)nul + 1 : NULL;
    size_t glen = nul ? size - clen - 1 : 0;
    int rc;
    memset(err, 0, sizeof err);
    rc = config_parse_marian(&c, (const char *)data, clen, "config.json", gen, glen,
                             "generation_config.json", 0, err, sizeof err);
    if (rc != 0) {
        FUZZ_CHECK(fuzz_msg_ok(err, sizeof err), "failure without a message");
        FUZZ_CHECK(!c.weights && !c.vocab && !c.gen.bad_ids, "failed config kept memory");
        return 0;
    }
    FUZZ_CHECK(c.d_model > 0 && c.heads > 0 && c.d_model % c.heads == 0 && c.d_model % 2 == 0,
               "d_model %d heads %d", c.d_model, c.heads);
    FUZZ_CHECK(c.ffn_dim > 0 && c.decoder_layers > 0 && c.src_vocab > 0 && c.tgt_vocab > 0,
               "sizes");
    FUZZ_CHECK(c.pad_id < c.src_vocab && c.pad_id < c.tgt_vocab && c.eos_id < c.src_vocab &&
                   c.eos_id < c.tgt_vocab && c.bos_id < c.tgt_vocab && c.pad_id >= 0 &&
                   c.eos_id >= 0 && c.bos_id >= 0,
               "special ids outside the vocabularies");
    FUZZ_CHECK(!c.shared_embeddings || c.src_vocab == c.tgt_vocab, "shared, unequal vocab");
    FUZZ_CHECK(!c.pre_norm && !c.encoder_final_norm && !c.decoder_final_norm &&
                   c.positions == POS_SIN_CONCAT && c.pos_f64,
               "not Marian's architecture");
    FUZZ_CHECK(c.gen.hf_beam && c.gen.num_beams >= 1 && c.gen.max_length >= 1, "generation");
    for (int k = 0; k < c.gen.n_bad; k++) {
        FUZZ_CHECK(c.gen.bad_off[k + 1] > c.gen.bad_off[k], "empty bad words sequence");
        for (int j = c.gen.bad_off[k]; j < c.gen.bad_off[k + 1]; j++)
            FUZZ_CHECK(c.gen.bad_ids[j] >= 0 && c.gen.bad_ids[j] < c.tgt_vocab, "bad word id");
    }
    FUZZ_CHECK(isfinite(c.gen.length_penalty) && isfinite(c.embedding_scale) &&
                   c.embedding_scale > 0, "numbers");
    config_free(&c);
    return 0;
}

#ifndef FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_marian_config(data, size);
}
#endif

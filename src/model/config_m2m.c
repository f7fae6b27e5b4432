/* config_m2m.c — a Hugging Face M2M100 config.json (model_type "m2m_100": facebook/m2m100_*,
 * facebook/nllb-200-*) as xlate's architecture fields.
 *
 * transformers v4.40 (huggingface/transformers 593e8aa5), what each field becomes:
 *   configuration_m2m_100.py M2M100Config.__init__: the defaults below (vocab_size 128112,
 *     d_model 1024, 12 + 12 layers, 16 heads, ffn 4096, relu, max_position_embeddings 1024,
 *     scale_embedding true, pad 1, bos 0, eos 2, decoder_start 2, tie_word_embeddings true);
 *   modeling_m2m_100.py M2M100EncoderLayer / M2M100DecoderLayer.forward: pre-norm
 *     (residual + f(LN(x))), nn.LayerNorm's eps 1e-5; M2M100Encoder/M2M100Decoder: a final
 *     `layer_norm` after the stack; M2M100ScaledWordEmbedding: embeddings * sqrt(d_model) when
 *     scale_embedding; M2M100SinusoidalPositionalEmbedding + create_position_ids_from_input_ids:
 *     positions padding_idx + 1 + (index among the non-pad tokens) into the table get_embedding
 *     builds (POS_SIN_M2M, config.h); M2M100Model: one `shared` embedding for both stacks;
 *     M2M100ForConditionalGeneration: lm_head tied to it, no logits bias;
 *   encoder_layerdrop / decoder_layerdrop, dropouts: training only, ignored.
 * Generation: generation_config.json, else config.json's own fields (GenerationConfig.
 * from_model_config); forced_bos_token_id is kept (the target language by default), the rest
 * as for MarianMT (config.c hf_generation). */
#include "model/config_hf.h"
#include "model/family.h"
#include "base/json.h"
#include "base/util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define INT_MAX_FIELD (1 << 30)

static int activation(model_config *c, const cJSON *root, const char *name, char *err,
                      size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "activation_function");
    const char *a = v && cJSON_IsString(v) ? v->valuestring : v ? "" : "relu";
    if (strcmp(a, "relu") == 0)
        c->activation = ACT_RELU;
    else if (strcmp(a, "gelu") == 0)
        c->activation = ACT_GELU;
    else if (strcmp(a, "gelu_new") == 0 || strcmp(a, "gelu_pytorch_tanh") == 0)
        c->activation = ACT_GELU_TANH;
    else if (strcmp(a, "swish") == 0 || strcmp(a, "silu") == 0)
        c->activation = ACT_SILU;
    else
        return xerr(err, errlen, "%s: field \"activation_function\": expected \"relu\", "
                    "\"gelu\", \"gelu_new\" or \"swish\", got %s%.64s%s", name,
                    cJSON_IsString(v) ? "\"" : json_type_name(v), a,
                    cJSON_IsString(v) ? "\"" : "");
    return 0;
}

/* forced_bos_token_id of g, checked here (hf_processors reads it again, as for every Hugging
 * Face model: the value is the same). */
static int forced_bos(model_config *c, cJSON *g, const char *name, char *err, size_t errlen)
{
    int id;
    if (hf_int(g, "forced_bos_token_id", -1, 1, 0, c->tgt_vocab - 1, &id, name, err, errlen))
        return -1;
    c->gen.forced_bos = id;
    return 0;
}

int config_parse_m2m100(model_config *c, const char *json, size_t len, const char *name,
                        const char *gen_json, size_t gen_len, const char *gen_name, char *err,
                        size_t errlen)
{
    cJSON *root = NULL, *groot = NULL;
    int scale, bos, rc = -1;
    memset(c, 0, sizeof *c);
    c->family = family_m2m100();
    if (!(root = json_parse_object(json, len, name, err, errlen)))
        goto done;
    if (hf_int(root, "d_model", 1024, 0, 2, INT_MAX_FIELD, &c->d_model, name, err, errlen) ||
        hf_int(root, "encoder_layers", 12, 0, 0, 4096, &c->encoder_layers, name, err, errlen) ||
        hf_int(root, "decoder_layers", 12, 0, 1, 4096, &c->decoder_layers, name, err, errlen) ||
        hf_int(root, "encoder_attention_heads", 16, 0, 1, 4096, &c->heads, name, err, errlen) ||
        hf_int(root, "decoder_attention_heads", 16, 0, 1, 4096, &c->decoder_heads, name, err,
               errlen) ||
        hf_int(root, "encoder_ffn_dim", 4096, 0, 1, INT_MAX_FIELD, &c->ffn_dim, name, err,
               errlen) ||
        hf_int(root, "decoder_ffn_dim", 4096, 0, 1, INT_MAX_FIELD, &c->decoder_ffn_dim, name,
               err, errlen) ||
        hf_int(root, "vocab_size", 128112, 0, 1, INT_MAX_FIELD, &c->src_vocab, name, err,
               errlen) ||
        hf_int(root, "max_position_embeddings", 1024, 0, 2, INT_MAX_FIELD, &c->max_positions,
               name, err, errlen) ||
        hf_int(root, "pad_token_id", 1, 0, 0, INT_MAX_FIELD, &c->pad_id, name, err, errlen) ||
        hf_int(root, "bos_token_id", 0, 1, 0, INT_MAX_FIELD, &bos, name, err, errlen) ||
        hf_int(root, "eos_token_id", 2, 0, 0, INT_MAX_FIELD, &c->eos_id, name, err, errlen) ||
        hf_int(root, "decoder_start_token_id", 2, 1, 0, INT_MAX_FIELD, &c->bos_id, name, err,
               errlen) ||
        hf_bool(root, "scale_embedding", 1, &scale, name, err, errlen) ||
        hf_bool(root, "tie_word_embeddings", 1, &c->tied_output, name, err, errlen) ||
        activation(c, root, name, err, errlen))
        goto done;
    c->tgt_vocab = c->src_vocab; /* M2M100Model: one shared embedding */
    c->shared_embeddings = 1;
    c->pre_norm = 1;
    c->encoder_final_norm = c->decoder_final_norm = 1;
    c->layer_norm_eps = 1e-5f;
    c->positions = POS_SIN_M2M;
    c->pos_offset = c->pad_id + 1;
    c->embedding_scale = scale ? (float)sqrt((double)c->d_model) : 1.0f;
    c->output_bias = 0;
    c->unk_id = -1; /* the tokenizer's, once it is read */
    if (!(c->weights = strdup("model.safetensors"))) {
        xerr(err, errlen, "out of memory");
        goto done;
    }
    if (c->d_model % c->heads != 0 || c->d_model % c->decoder_heads != 0) {
        xerr(err, errlen, "%s: field \"%s_attention_heads\": d_model %d is not divisible by %d",
             name, c->d_model % c->heads ? "encoder" : "decoder", c->d_model,
             c->d_model % c->heads ? c->heads : c->decoder_heads);
        goto done;
    }
    if (c->d_model % 2 != 0 || c->d_model < 4) {
        /* get_embedding divides by d/2 - 1; an odd d_model gets a zero column xlate lacks */
        xerr(err, errlen, "%s: field \"d_model\": M2M100's sinusoidal positions need an even "
             "d_model of at least 4, got %d", name, c->d_model);
        goto done;
    }
    if (c->pad_id > INT_MAX_FIELD - c->max_positions - 2) {
        xerr(err, errlen, "%s: field \"pad_token_id\": %d is too large", name, c->pad_id);
        goto done;
    }
    if (check_special(c, "pad_token_id", c->pad_id, name, err, errlen) ||
        check_special(c, "eos_token_id", c->eos_id, name, err, errlen) ||
        check_special(c, "decoder_start_token_id", c->bos_id, name, err, errlen))
        goto done;
    if (gen_json && !(groot = json_parse_object(gen_json, gen_len, gen_name, err, errlen)))
        goto done;
    if (forced_bos(c, groot ? groot : root, groot ? gen_name : name, err, errlen) ||
        hf_generation(c, groot ? groot : root, 0, groot ? gen_name : name, err, errlen))
        goto done;
    rc = 0;
done:
    cJSON_Delete(root);
    cJSON_Delete(groot);
    if (rc)
        config_free(c);
    return rc;
}

int config_load_m2m100(model_config *c, const char *path, const char *text, size_t len,
                       char *err, size_t errlen)
{
    size_t dlen = strrchr(path, '/') ? (size_t)(strrchr(path, '/') - path + 1) : 0;
    char *gen_path = malloc(dlen + 32), *gen_text = NULL;
    size_t gen_len = 0;
    int rc = -1;
    if (!gen_path)
        return xerr(err, errlen, "out of memory");
    snprintf(gen_path, dlen + 32, "%.*sgeneration_config.json", (int)dlen, path);
    if (access(gen_path, F_OK) == 0 && read_file(gen_path, &gen_text, &gen_len, err, errlen))
        goto done;
    rc = config_parse_m2m100(c, text, len, path, gen_text, gen_len, gen_path, err, errlen);
done:
    free(gen_path);
    free(gen_text);
    return rc;
}

/* family.c — the model families xlate runs. */
#include "model/family.h"
#include <stddef.h>

/* xlate's own layout (docs/FORMAT.md), written by tools/convert.py. */
static const model_family xlate_family = {
    .name = "xlate",
    .model_type = "transformer",
    .src_embed = "encoder.embed.weight",
    .src_embed_alt = NULL,
    .enc_embed = "encoder.embed.weight",
    .dec_embed = "decoder.embed.weight",
    .src_pos = "encoder.positions.weight",
    .tgt_pos = "decoder.positions.weight",
    .enc_layer = "encoder.layers.%d",
    .dec_layer = "decoder.layers.%d",
    .self_attn = "self_attn",
    .cross_attn = "cross_attn",
    .proj = {"q", "k", "v", "o"},
    .self_norm = "self_attn_norm",
    .cross_norm = "cross_attn_norm",
    .fc1 = "ffn.fc1",
    .fc2 = "ffn.fc2",
    .ffn_norm = "ffn_norm",
    .enc_final_norm = "encoder.final_norm",
    .dec_final_norm = "decoder.final_norm",
    .out = "output",
    .out_bias = "output.bias",
    .out_bias_rows = 0,
    .out_bias_optional = 0,
    .known_unused = NULL,
};

/* transformers' MarianMTModel state dict (modeling_marian.py). Hub files hold the shared
 * embedding as model.shared.weight, some also its tied copies and the sinusoid tables. */
static const char *const marian_unused[] = {
    "model.encoder.embed_positions.weight", "model.decoder.embed_positions.weight",
    "model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight", "lm_head.weight",
    NULL};

static const model_family marian_family = {
    .name = "marian",
    .model_type = "marian",
    .src_embed = "model.shared.weight",
    .src_embed_alt = "model.encoder.embed_tokens.weight",
    .enc_embed = "model.encoder.embed_tokens.weight",
    .dec_embed = "model.decoder.embed_tokens.weight",
    .src_pos = NULL,
    .tgt_pos = NULL,
    .enc_layer = "model.encoder.layers.%d",
    .dec_layer = "model.decoder.layers.%d",
    .self_attn = "self_attn",
    .cross_attn = "encoder_attn",
    .proj = {"q_proj", "k_proj", "v_proj", "out_proj"},
    .self_norm = "self_attn_layer_norm",
    .cross_norm = "encoder_attn_layer_norm",
    .fc1 = "fc1",
    .fc2 = "fc2",
    .ffn_norm = "final_layer_norm",
    .enc_final_norm = NULL,
    .dec_final_norm = NULL,
    .out = "lm_head",
    .out_bias = "final_logits_bias",
    .out_bias_rows = 1,
    .out_bias_optional = 1,
    .known_unused = marian_unused,
};

/* transformers' M2M100ForConditionalGeneration state dict (modeling_m2m_100.py: M2M100Model
 * `shared`, M2M100Encoder/Decoder `embed_tokens`, `layers`, `layer_norm`; lm_head). Hub files
 * (facebook/nllb-200-*, m2m100_*) hold the shared embedding, often also its tied copies, and
 * those saved before transformers made the sinusoid table a non-persistent buffer hold it as
 * embed_positions.weights. */
static const char *const m2m100_unused[] = {
    "model.encoder.embed_positions.weights", "model.decoder.embed_positions.weights",
    "model.encoder.embed_positions._float_tensor", "model.decoder.embed_positions._float_tensor",
    "model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight", "lm_head.weight",
    NULL};

static const model_family m2m100_family = {
    .name = "m2m100",
    .model_type = "m2m_100",
    .src_embed = "model.shared.weight",
    .src_embed_alt = "model.encoder.embed_tokens.weight",
    .enc_embed = "model.encoder.embed_tokens.weight",
    .dec_embed = "model.decoder.embed_tokens.weight",
    .src_pos = NULL,
    .tgt_pos = NULL,
    .enc_layer = "model.encoder.layers.%d",
    .dec_layer = "model.decoder.layers.%d",
    .self_attn = "self_attn",
    .cross_attn = "encoder_attn",
    .proj = {"q_proj", "k_proj", "v_proj", "out_proj"},
    .self_norm = "self_attn_layer_norm",
    .cross_norm = "encoder_attn_layer_norm",
    .fc1 = "fc1",
    .fc2 = "fc2",
    .ffn_norm = "final_layer_norm",
    .enc_final_norm = "model.encoder.layer_norm",
    .dec_final_norm = "model.decoder.layer_norm",
    .out = "lm_head",
    .out_bias = NULL,
    .out_bias_rows = 0,
    .out_bias_optional = 0,
    .known_unused = m2m100_unused,
};

const model_family *family_xlate(void) { return &xlate_family; }
const model_family *family_m2m100(void) { return &m2m100_family; }
const model_family *family_marian(void) { return &marian_family; }

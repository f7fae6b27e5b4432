/* config.h — the model's config.json: architecture, special ids, file names.
 * The fields and their defaults are documented in docs/FORMAT.md. */
#ifndef XLATE_CONFIG_H
#define XLATE_CONFIG_H
#include "kernels/linear.h" /* activation_kind */
#include <stddef.h>

typedef enum { POS_SIN_INTERLEAVED, POS_SIN_CONCAT, POS_LEARNED } position_kind;

/* Receives one warning line (no trailing newline); may be NULL. */
typedef void (*warn_fn)(void *user, const char *msg);

typedef struct {
    int d_model;
    int heads;            /* divides d_model; head size = d_model / heads */
    int ffn_dim;
    int encoder_layers;
    int decoder_layers;
    int src_vocab;
    int tgt_vocab;
    activation_kind activation;
    int pre_norm;         /* 1: x + f(LN(x)); 0: LN(x + f(x)) */
    int encoder_final_norm;
    int decoder_final_norm;
    float layer_norm_eps;
    position_kind positions;
    int max_positions;
    float embedding_scale;
    int shared_embeddings; /* decoder uses the encoder's embedding table */
    int tied_output;       /* output projection = decoder embedding */
    int output_bias;
    int pad_id, unk_id, bos_id, eos_id;
    char *weights;          /* owned; file name relative to the model directory */
    char *tokenizer;        /* owned; NULL when absent */
    char *target_tokenizer; /* owned; NULL when absent (then = tokenizer) */
} model_config;

/* Parses and validates config JSON text (len bytes). `name` is used in messages. Unknown fields
 * go to warn. On failure the config is left freed. */
int config_parse(model_config *c, const char *json, size_t len, const char *name,
                 warn_fn warn, void *warn_user, char *err, size_t errlen);
int config_load(model_config *c, const char *path, warn_fn warn, void *warn_user,
                char *err, size_t errlen);
void config_free(model_config *c);

const char *activation_name(activation_kind a);
const char *positions_name(position_kind p);

#endif

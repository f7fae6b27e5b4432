/* config.h — the model's config.json: architecture, special ids, file names.
 * The fields and their defaults are documented in docs/FORMAT.md. */
#ifndef XLATE_CONFIG_H
#define XLATE_CONFIG_H
#include "kernels/linear.h" /* activation_kind */
#include <stddef.h>

/* POS_SIN_M2M: M2M100's table (modeling_m2m_100.py get_embedding): frequency i of d/2 is
 * exp(-i * ln(10000) / (d/2 - 1)), sin in the first half, cos in the second, and position p of a
 * sequence reads row p + pos_offset (padding_idx + 1). Not an xlate config.json value. */
typedef enum { POS_SIN_INTERLEAVED, POS_SIN_CONCAT, POS_LEARNED, POS_SIN_M2M } position_kind;

struct model_family;

/* What the model's own files say about generation (Hugging Face's generation_config.json or
 * config.json); xlate's options override them. The xlate family has none of these. */
typedef struct {
    int num_beams;        /* 0: not given (greedy) */
    int max_length;       /* Hugging Face's: counts the decoder start token; 0: not given */
    float length_penalty; /* 1.0 unless given */
    int early_stopping;   /* EARLY_STOP_* */
    int forced_eos;       /* 1: eos is forced at the last allowed position (forced_eos_token_id) */
    int n_bad;            /* bad_words_ids: n_bad sequences */
    int *bad_off;         /* owned; [n_bad + 1] offsets into bad_ids */
    int *bad_ids;         /* owned; the sequences' ids, concatenated */
    int hf_beam;          /* 1: Hugging Face's generate(): processors after the log-softmax (no
                             renormalization), early_stopping, K best finished kept */
    int renormalize;      /* renormalize_logits: beam scores log-softmaxed again after the
                             processors (generate's LogitNormalization, last processor) */
    float repetition_penalty; /* 1 unless given (> 0) */
    int no_repeat_ngram;  /* no_repeat_ngram_size; 0 unless given */
    int forced_bos;       /* forced_bos_token_id; -1 unless given */
    int n_suppress;       /* suppress_tokens */
    int *suppress;        /* owned; [n_suppress] */
    int n_begin_suppress; /* begin_suppress_tokens */
    int *begin_suppress;  /* owned; [n_begin_suppress] */
    int do_sample;        /* 1: generate() samples (then with the three below) */
    int top_k;            /* 50 unless given (GenerationConfig's default); 0: off */
    float top_p;          /* 1 unless given; (0, 1] */
    float temperature;    /* 1 unless given; (0, 1000] */
} gen_config;

enum { EARLY_STOP_TRUE, EARLY_STOP_FALSE, EARLY_STOP_NEVER };

/* Receives one warning line (no trailing newline); may be NULL. */
typedef void (*warn_fn)(void *user, const char *msg);

typedef struct {
    int d_model;
    int heads;            /* the encoder's; divides d_model; head size = d_model / heads */
    int ffn_dim;          /* the encoder's */
    int decoder_heads;    /* the decoder's (self- and cross-attention); divides d_model */
    int decoder_ffn_dim;
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
    const struct model_family *family; /* the tensor names and file layout (family.h) */
    int pos_f64;            /* sinusoids computed in double, rounded to float (Hugging Face) */
    int pos_offset;         /* POS_SIN_M2M: the table row of position 0 (padding_idx + 1) */
    char *vocab;            /* owned; vocab.json-style piece -> id map of the source (and the
                               target unless target_vocab); NULL: spm ids are the model's */
    char *target_vocab;     /* owned; NULL: = vocab */
    char *source_lang;      /* owned; the languages' codes ("en"), for the sentence splitter and
                               the join of sentences; NULL when the config names none (a
                               MarianMT directory's are in its tokenizer_config.json) */
    char *target_lang;
    char *description;      /* owned; what the model is for, in words (its domain, its training
                               data: `xlate info` shows it); NULL when the config says nothing */
    gen_config gen;
} model_config;

/* Parses and validates config JSON text (len bytes). `name` is used in messages. Unknown fields
 * go to warn. On failure the config is left freed. */
int config_parse(model_config *c, const char *json, size_t len, const char *name,
                 warn_fn warn, void *warn_user, char *err, size_t errlen);
int config_load(model_config *c, const char *path, warn_fn warn, void *warn_user,
                char *err, size_t errlen);
/* The same for a Hugging Face MarianMT config.json (model_type "marian"); gen_json (may be NULL):
 * the directory's generation_config.json, which then replaces config.json's generation fields;
 * has_target_vocab: tokenizer_config.json says "separate_vocabs": true (then config_load has
 * checked that target_vocab.json is there; without it target_vocab.json is never read). */
int config_parse_marian(model_config *c, const char *json, size_t len, const char *name,
                        const char *gen_json, size_t gen_len, const char *gen_name,
                        int has_target_vocab, char *err, size_t errlen);
/* The same for an M2M100 / NLLB-200 config.json (model_type "m2m_100", config_m2m.c), with the
 * directory's generation_config.json when there is one (gen_json may be NULL). */
int config_parse_m2m100(model_config *c, const char *json, size_t len, const char *name,
                        const char *gen_json, size_t gen_len, const char *gen_name, char *err,
                        size_t errlen);
void config_free(model_config *c);

const char *activation_name(activation_kind a);
const char *positions_name(position_kind p);

#endif

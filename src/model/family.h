/* family.h — a model family is a table: the names of its weights in the weights file and the
 * files beside it. The architecture itself (norm placement, activation, position table, embedding
 * scale, final norms, output bias, decoder start) is in model_config, which the family's config
 * reader fills from its own config.json (config.c). model.c binds weights through this table
 * only, so a new family is a new entry here plus its config reader, not a fork of model.c.
 *
 * Names are printf patterns: a layer's are relative to enc_layer / dec_layer ("%d" = the layer);
 * an attention block's projections are "<layer>.<block>.<proj[i]>.weight" / ".bias". */
#ifndef XLATE_FAMILY_H
#define XLATE_FAMILY_H

typedef struct model_family {
    const char *name;            /* "xlate", "marian", "m2m100" */
    const char *model_type;      /* config.json's model_type */
    const char *src_embed;       /* [Vs, d] when embeddings are shared */
    const char *src_embed_alt;   /* tried when src_embed is absent (NULL: none) */
    const char *enc_embed;       /* [Vs, d] when not shared */
    const char *dec_embed;       /* [Vt, d] when not shared */
    const char *src_pos, *tgt_pos; /* learned positions [P, d] */
    const char *enc_layer, *dec_layer;
    const char *self_attn, *cross_attn;
    const char *proj[4];         /* q, k, v, o */
    const char *self_norm, *cross_norm, *fc1, *fc2, *ffn_norm;
    const char *enc_final_norm, *dec_final_norm;
    const char *out;             /* output projection "<out>.weight" [Vt, d] */
    const char *out_bias;        /* output bias tensor */
    int out_bias_rows;           /* 0: out_bias is [Vt]; 1: [1, Vt] (Hugging Face's buffer) */
    int out_bias_optional;       /* absent means zeros (transformers loads it so) */
    const char *const *known_unused; /* NULL-terminated names present in the family's files that
                                        xlate does not need (no warning) */
} model_family;

const model_family *family_xlate(void);
const model_family *family_marian(void);
const model_family *family_m2m100(void);

#endif

/* model.h — the weights of an encoder-decoder Transformer, bound by name from model.safetensors,
 * checked against config.json, converted to f32 and packed for compute once at load. */
#ifndef XLATE_MODEL_H
#define XLATE_MODEL_H
#include "model/config.h"
#include "model/safetensors.h"
#include "kernels/linear.h"
#include "kernels/screen.h"
#include "kernels/pool.h"
#include <stddef.h>


typedef struct {
    linear qkv;      /* [3d, d]: q, k, v rows stacked, one GEMM */
    linear o;        /* [d, d] */
    norm attn_norm;
    linear fc1;      /* [F, d] */
    linear fc2;      /* [d, F] */
    norm ffn_norm;
} encoder_layer;

typedef struct {
    linear qkv;      /* [3d, d] self-attention q, k, v */
    linear o;        /* [d, d] */
    norm self_norm;
    linear cross_q;  /* [d, d] */
    linear cross_o;  /* [d, d] */
    norm cross_norm;
    linear fc1;      /* [F, d] */
    linear fc2;      /* [d, F] */
    norm ffn_norm;
} decoder_layer;

/* A packed model's embedding table [rows, d], read a row at a time (model_embed_row):
 *  - from_out: the rows of the packed output projection it is tied to, where those panels hold
 *    its values exactly (f32 panels; f16 panels of an F16 tensor): the table's only copy;
 *  - else w: the tensor in place in the mapped file (or the region a strided view was copied
 *    to), of type dtype (F32, F16, BF16; any alignment), converted on lookup: only the rows
 *    looked up are read (their pages fault in from the page cache), no copy is made; once
 *    the tied output projection is packed from it (model_out_need) into panels that hold its
 *    values exactly, its rows are read there instead (the file's pages stay released). */
typedef struct {
    const void *w;   /* [rows, d] little-endian dtype; NULL when from_out */
    st_dtype dtype;
    int from_out;
} embed_table;

typedef struct {
    model_config cfg;
    /* The embeddings as f32 [Vs, d] and [Vt, d] (tgt = src when shared) when the linears are
     * not packed (OpenBLAS reads the tied output projection from tgt_embed); NULL when packed:
     * then each table stays in its compact form (src_table, tgt_table) and a lookup converts
     * one row (model_embed_row). */
    const float *src_embed;
    const float *tgt_embed;
    embed_table src_table;
    embed_table tgt_table;
    const float *src_pos;   /* [P, d] learned positions; NULL when sinusoidal */
    const float *tgt_pos;   /* [P, d] learned; NULL when sinusoidal */
    encoder_layer *enc;     /* [encoder_layers] */
    decoder_layer *dec;     /* [decoder_layers] */
    /* Every decoder layer's cross-attention k and v, stacked: [decoder_layers * 2d, d], rows of
     * layer l at l*2d (k) and l*2d + d (v). The encoder output is projected once per batch. */
    linear cross_kv;
    norm enc_norm;          /* g NULL when encoder_final_norm is false */
    norm dec_norm;
    linear out;             /* [Vt, d]; w = tgt_embed when tied; packed NULL while out_src
                               waits (model_out_need) */
    /* The tied output projection's tensor in the mapped file ([Vt, d], F32/F16/BF16), when
     * `out` is packed from it only once a run needs every logit (model_out_need): a greedy run
     * through the screen then holds the screen and never the panels, its candidates' exact
     * logits computed from these rows (model_out_exact). NULL: `out` is ready at load (not
     * tied, stored int8, or read by OpenBLAS). */
    const st_tensor *out_src;
    screen out_screen;      /* int8 estimates of `out` with bounds (greedy's argmax), built by
                               the first run that needs it (model_out_need); mem NULL until
                               then, and always when screen_ok is 0 */
    int screen_ok;          /* 1: out is packable as f32/bf16/f16 and XLATE_SCREEN is not 0 */
    void *out_lazy;         /* the lock model_out_need builds under, and the panels it owns */
    size_t n_params;        /* parameters in the file that the model uses */
    float *arena;           /* converted f32 weights (the rest point into `file`) */
    void *packed;           /* the linears packed for the own kernels ([packed_bytes]); NULL
                               when they are read as f32 by OpenBLAS */
    size_t packed_bytes;
    weight_type compute;    /* the type of the packed linears (WT_F32 when not packed) */
    st_file file;           /* the mapped weights file */
} model_weights;

/* Loads dir/config.json (xlate's or a Hugging Face MarianMT one: family.h) and its weights file. Warnings (unknown config fields, unused tensors)
 * go to warn. */
int model_load(model_weights *m, const char *dir, weight_type ct, warn_fn warn,
               void *warn_user, char *err, size_t errlen);
/* Binds the tensors of an indexed weights file to cfg (tests, fuzzing): checks, converts and
 * packs them. cfg and f are moved into m (and freed by model_free), f even on failure. */
int model_bind(model_weights *m, model_config *cfg, st_file *f, warn_fn warn,
               void *warn_user, char *err, size_t errlen);
/* The same with the linears stored as ct (linear.h): quantized or converted at load, packed for
 * the own kernels; f32 is packed too unless the CPU lacks AVX2 + FMA (then OpenBLAS reads the
 * f32 matrices). */
int model_bind_as(model_weights *m, model_config *cfg, st_file *f, weight_type ct,
                  warn_fn warn, void *warn_user, char *err, size_t errlen);

/* Rows [p0, p1) of the sinusoidal position table [P, d], computed in f32 the way the PyTorch
 * recipe does: div_i = 10000^(2i/d); interleaved: PE[p,2i] = sin(p/div_i),
 * PE[p,2i+1] = cos(p/div_i); else (concat) PE[p,i] = sin, PE[p,d/2+i] = cos. f64: concat, the
 * angles and sines in double, rounded to float (Hugging Face's MarianSinusoidalPositionalEmbedding
 * builds its table with numpy so). */
void model_sinusoid(float *pe, int p0, int p1, int d, int interleaved, int f64);
/* Rows [p0, p1) of M2M100's position table (POS_SIN_M2M, config.h): position p is the table's
 * row p + offset (offset = padding_idx + 1), as modeling_m2m_100.py computes it in float32. */
void model_sinusoid_m2m(float *pe, int p0, int p1, int d, int offset);
/* Row `id` of the target (tgt 1) or source (tgt 0) embedding as f32 into out[d_model]: the
 * table's values exactly, whatever form it is kept in. */
void model_embed_row(const model_weights *m, int tgt, int id, float *out);
/* model_weights.out_lazy's lock and panels (model_out.c): made at bind, freed with the model. */
void *model_out_lazy_new(void);
void model_out_lazy_free(void *p);
/* What model_out_need builds. */
enum { MODEL_OUT_PACKED = 1, MODEL_OUT_SCREEN = 2 };
/* Makes `parts` of the output projection ready (those not ready yet: out's panels from out_src,
 * the screen where screen_ok), under the model's lock: runs sharing a model may call it at once,
 * and each reads m->out.packed and m->out_screen only after its own call. The model is
 * logically const (a cache fills): callers hold it const. p (may be NULL) spreads the work.
 * Returns 0, or -1 with err when out of memory (nothing half-built is left). */
int model_out_need(const model_weights *m, int parts, pool *p, char *err, size_t errlen);
/* MODEL_OUT_* bits of what is built now (under the lock; xlate info, -v, tests). */
int model_out_built(const model_weights *m);
/* Bytes model_out_exact's scratch needs (0 when out_src is NULL). */
size_t model_out_exact_bytes(const model_weights *m);
/* Logit n of the row x[d] exactly as the packed kernel computes it (gemm_packed_output: the
 * same FMA chain over the same values, the same bits), from out_src's row n when out is not
 * packed: the row converted and packed as `out` would hold it into a one-panel scratch
 * (model_out_exact_bytes, 64-byte aligned). */
float model_out_exact(const model_weights *m, const float *x, int n, void *scratch);
void model_free(model_weights *m);

#endif

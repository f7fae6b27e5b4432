/* xlate_impl.h — the library's private view of its two opaque types (xlate.h): what xlate.c
 * (models, contexts, translation) and xlate_text.c (text to ids and back) share. */
#ifndef XLATE_IMPL_H
#define XLATE_IMPL_H
#include "xlate.h"
#include "model/model.h"
#include "decode/search.h"
#include "decode/transformer.h"
#include "text/spm.h"
#include "text/hf_tok.h"
#include "text/m2m_tok.h"
#include "kernels/ops.h"

struct xlate_model {
    model_weights w;
    spm_model *src_spm; /* NULL without a tokenizer */
    spm_model *tgt_spm; /* = src_spm when the config names one tokenizer */
    hf_tok hf;          /* a Hugging Face directory's tokenizer (config vocab set) */
    int has_hf;
    m2m_tok m2m;        /* an M2M100 / NLLB directory's tokenizer */
    int has_m2m;
    const char **langs; /* [hf.n_langs] language codes (without >> <<), into lang_buf */
    char *lang_buf;
};

/* A forwarding context's batch runner (xlate_ctx_forwarding): xlate_translate_ex's batch, run
 * elsewhere; the same arguments and return as xlate_translate_ex's batch, and user. */
typedef int (*xlate_forward_fn)(void *user, int n, const int *const *src, const int *src_len,
                                const xlate_sentence_opts *opts, const xlate_decode_params *p,
                                xlate_result *out, char *err, size_t errlen);

struct xlate_ctx {
    const xlate_model *m;
    pool *pool;
    encoder_scratch enc;
    decoder_state dec;
    search_scratch search;
    float *enc_out;    /* [N, d] */
    size_t cap_enc_out;
    float *sin_pos;    /* [sin_rows, d] sinusoidal positions, computed as far as needed */
    int sin_rows;
    xlate_time_split times;
    xlate_workspace_stats ws; /* the working memory runs were planned for (xlate_run.c) */
    /* A forwarding context (xlate_ctx_forwarding, the request queue's): no threads or scratch
     * of its own; xlate_translate_ex hands its batches to forward, which runs them elsewhere
     * (xlate_queue.c: on the queue's one real context, merged with other requests'). */
    xlate_forward_fn forward;
    void *forward_user;
};

/* A forwarding context over model m (xlate_ctx_free frees it); NULL out of memory. */
xlate_ctx *xlate_ctx_forwarding(const xlate_model *m, xlate_forward_fn forward, void *user);

/* 0 when layer (-1: the family's default) names a decoder layer of m, else a message naming
 * alignment_layer (xlate.c; xlate_run.c checks its teacher-forced attention with it too). */
int xlate_check_alignment_layer(const xlate_model *m, int layer, char *err, size_t errlen);

/* The search's parameters from a run's decoding parameters (xlate.c), the one setup that
 * xlate_translate_ex and xlate_decode_screened share; what depends on the batch (prefixes,
 * sampling streams) is the run's. */
void xlate_search_params(const xlate_model *m, const xlate_decode_params *p, search_params *sp);

#endif

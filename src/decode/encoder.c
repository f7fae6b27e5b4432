/* encoder.c — the encoder stack over a packed batch of source sentences.
 *
 *   x = E[ids] * scale + PE[pos]   (M2M100 / NLLB: pos counts only the non-pad
 *                                  tokens, and a pad adds a zero row)
 *   per layer, post-norm: x = LN1(x + SelfAttn(x));  x = LN2(x + FFN(x))
 *              pre-norm:  x = x + SelfAttn(LN1(x));  x = x + FFN(LN2(x))
 *   out = LN_final(x) (when the config has it) */
#include "kernels/ops.h"
#include "decode/transformer.h"
#include "base/util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int grow(float **buf, size_t n, char *err, size_t errlen)
{
    float *p = realloc(*buf, (n ? n : 1) * sizeof(float));
    if (!p)
        return xerr(err, errlen, "out of memory (%zu MB of encoder scratch)", n * 4 >> 20);
    *buf = p;
    return 0;
}

typedef struct {
    const model_weights *m;
    encoder_scratch *s;
    const int *off, *lens;
    int n;
    size_t stride; /* scores floats per thread */
} attn_job;

static void attn_task(void *arg, int task, int thread)
{
    const attn_job *j = arg;
    const model_config *c = &j->m->cfg;
    int d = c->d_model, dh = d / c->heads, i = task / c->heads, h = task % c->heads;
    const float *q = j->s->qkv + (size_t)j->off[i] * 3 * d + h * dh;
    attend_block(j->s->ctx + (size_t)j->off[i] * d + h * dh, d, q, q + d, q + 2 * d, 3 * d,
                 j->lens[i], dh, 1.0f / sqrtf((float)dh), j->s->scores + j->stride * thread);
}

int encoder_forward(const model_weights *m, pool *p, encoder_scratch *s, const float *pos, int n,
                    const int *const *ids, const int *lens, float *out, char *err, size_t errlen)
{
    const model_config *c = &m->cfg;
    int d = c->d_model, F = c->ffn_dim, maxlen = 0, *off;
    size_t N = 0, t = 0;
    attn_job job;

    if (!(off = malloc((n + 1) * sizeof *off)))
        return xerr(err, errlen, "out of memory");
    for (int i = 0; i < n; i++) {
        off[i] = (int)N;
        N += lens[i];
        if (lens[i] > maxlen)
            maxlen = lens[i];
    }
    off[n] = (int)N;
    if (N > s->cap_tokens) {
        if (grow(&s->x, N * d, err, errlen) || grow(&s->h, N * d, err, errlen) ||
            grow(&s->qkv, N * 3 * d, err, errlen) || grow(&s->ctx, N * d, err, errlen) ||
            grow(&s->ff, N * F, err, errlen))
            goto fail;
        s->cap_tokens = N;
    }
    if ((size_t)maxlen * maxlen * pool_threads(p) > s->cap_scores) {
        size_t need = (size_t)maxlen * maxlen * pool_threads(p);
        if (grow(&s->scores, need, err, errlen))
            goto fail;
        s->cap_scores = need;
    }

    for (int i = 0; i < n; i++) {
        int real = 0; /* POS_SIN_M2M: the non-pad tokens so far */
        for (int k = 0; k < lens[i]; k++, t++) {
            const float *pe = pos + (size_t)k * d;
            float *x = s->x + t * d;
            /* M2M100 / NLLB: a pad id (a literal <pad> in the text) takes the table's zeroed
             * padding row and is not counted by the tokens after it
             * (modeling_m2m_100.py create_position_ids_from_input_ids: "mask =
             * input_ids.ne(padding_idx)", "(torch.cumsum(mask, dim=1) ...) * mask +
             * padding_idx"; get_embedding: "emb[padding_idx, :] = 0") */
            int pad = c->positions == POS_SIN_M2M && ids[i][k] == c->pad_id;
            if (c->positions == POS_SIN_M2M)
                pe = pos + (size_t)(pad ? 0 : real++) * d;
            model_embed_row(m, 0, ids[i][k], x); /* the row as f32, then scaled in place */
            for (int k = 0; k < d; k++)
                x[k] = x[k] * c->embedding_scale + (pad ? 0.0f : pe[k]);
        }
    }

    job = (attn_job){m, s, off, lens, n, (size_t)maxlen * maxlen};

    for (int l = 0; l < c->encoder_layers; l++) {
        const encoder_layer *L = &m->enc[l];
        const float *in = s->x;
        if (c->pre_norm) {
            layernorm_rows(s->h, s->x, &L->attn_norm, (int)N, d, c->layer_norm_eps);
            in = s->h;
        }
        gemm_sentences(p, s->qkv, in, &L->qkv, n, off, s->whole_batch, GEMM_SET, NO_ACT);
        pool_run(p, n * c->heads, attn_task, &job);
        gemm_sentences(p, s->x, s->ctx, &L->o, n, off, s->whole_batch, GEMM_ADD, NO_ACT);
        if (!c->pre_norm)
            layernorm_rows(s->x, s->x, &L->attn_norm, (int)N, d, c->layer_norm_eps);

        in = s->x;
        if (c->pre_norm) {
            layernorm_rows(s->h, s->x, &L->ffn_norm, (int)N, d, c->layer_norm_eps);
            in = s->h;
        }
        gemm_sentences(p, s->ff, in, &L->fc1, n, off, s->whole_batch, GEMM_ACT,
                       c->activation);
        gemm_sentences(p, s->x, s->ff, &L->fc2, n, off, s->whole_batch, GEMM_ADD, NO_ACT);
        if (!c->pre_norm)
            layernorm_rows(s->x, s->x, &L->ffn_norm, (int)N, d, c->layer_norm_eps);
    }
    if (m->enc_norm.g)
        layernorm_rows(out, s->x, &m->enc_norm, (int)N, d, c->layer_norm_eps);
    else
        memcpy(out, s->x, N * d * sizeof(float));
    free(off);
    return 0;
fail:
    free(off);
    return -1;
}

size_t encoder_plan_bytes(const model_config *c, const encoder_scratch *held, int threads, int n,
                          const int *lens)
{
    size_t N = 0, maxlen = 0, scores;
    for (int i = 0; i < n; i++) {
        N += lens[i];
        if ((size_t)lens[i] > maxlen)
            maxlen = lens[i];
    }
    scores = maxlen * maxlen * threads;
    if (held && held->cap_tokens > N)
        N = held->cap_tokens;
    if (held && held->cap_scores > scores)
        scores = held->cap_scores;
    /* x, h, ctx [N, d], qkv [N, 3d], ff [N, F]; scores [threads, S*S] */
    return (N * (6 * (size_t)c->d_model + c->ffn_dim) + scores) * sizeof(float);
}

void encoder_scratch_free(encoder_scratch *s)
{
    if (!s)
        return;
    free(s->x);
    free(s->h);
    free(s->qkv);
    free(s->ctx);
    free(s->ff);
    free(s->scores);
    memset(s, 0, sizeof *s);
}

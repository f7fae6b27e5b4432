/* decoder.c — one decoder step for a set of hypotheses, with a KV cache.
 *
 *   x = E[token] * scale + PE[pos]   (M2M100 / NLLB: a pad token adds a zero row)
 *   per layer, post-norm: x = LN1(x + SelfAttn(x, cache)); x = LN2(x + CrossAttn(x, memory));
 *                         x = LN3(x + FFN(x))
 *              pre-norm:  x = x + SelfAttn(LN1(x), cache); x = x + CrossAttn(LN2(x), memory);
 *                         x = x + FFN(LN3(x))
 *   logits = LN_final(x) W_out^T (+ b)
 *
 * The step's key and value are appended to the slot's cache, so the prefix is never
 * recomputed; attention reads the cache and the memory in place. A hypothesis's positions
 * need not lie in its own slot: a row is written once, at its step, by the hypothesis then in
 * that slot, and a child of it (beam search) points at its parent's rows (st->kv_rows) instead
 * of copying them. Copying was 3% of a beam-4 batch-32 run at OPUS-MT size: 96 memcpys of a
 * few hundred bytes a copied slot, each a cache miss. */
#include "kernels/ops.h"
#include "kernels/attend.h"
#include "decode/transformer.h"
#include "base/util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { BUF_K, BUF_V, BUF_MEM, BUF_X, BUF_QKV, BUF_FF, BUF_SCORES, BUF_H, BUF_CTX, BUF_ATTN_H,
       BUF_ATTN, N_BUF };
_Static_assert(N_BUF <= sizeof ((decoder_state *)0)->cap_floats / sizeof(size_t),
               "decoder_state.cap_floats holds a size per buffer");

static int ensure(decoder_state *st, int which, float **buf, size_t n, char *err, size_t errlen)
{
    float *p;
    if (n <= st->cap_floats[which] && *buf)
        return 0;
    free(*buf);
    *buf = NULL;
    st->cap_floats[which] = 0;
    p = aligned_alloc(64, ((n + 15) & ~(size_t)15) * sizeof(float));
    if (!p)
        return xerr(err, errlen, "out of memory (%zu MB of decoder state)", n * 4 >> 20);
    *buf = p;
    st->cap_floats[which] = n;
    return 0;
}

/* Floats of a thread's attention scratch: a self-attention row's cap scores, or the
 * probabilities of a cross-attention group of DEC_ATTN_GROUP rows. */
static size_t scores_stride(int cap, int max_src)
{
    size_t g = (size_t)DEC_ATTN_GROUP * max_src;
    return (size_t)cap > g ? (size_t)cap : g;
}

int decoder_begin(const model_weights *m, pool *p, decoder_state *st, const float *pos,
                  int n_slots, int cap, int max_rows, int n_src, const int *lens, const float *enc,
                  char *err, size_t errlen)
{
    const model_config *c = &m->cfg;
    size_t d = c->d_model, L = c->decoder_layers, N = 0, cache;
    int max_src = 0, *off, *len, *runs;

    off = realloc(st->src_off, (n_src + 1) * sizeof *off);
    if (off)
        st->src_off = off;
    len = realloc(st->src_len, (n_src ? n_src : 1) * sizeof *len);
    if (len)
        st->src_len = len;
    runs = realloc(st->runs, ((size_t)max_rows + 1) * sizeof *runs);
    if (runs)
        st->runs = runs;
    if (!off || !len || !runs)
        return xerr(err, errlen, "out of memory");
    for (int i = 0; i < n_src; i++) {
        off[i] = (int)N;
        len[i] = lens[i];
        N += lens[i];
        if (lens[i] > max_src)
            max_src = lens[i];
    }
    off[n_src] = (int)N;
    if ((size_t)n_slots * cap > st->kv_rows_cap) {
        size_t *kr = realloc(st->kv_rows, (size_t)n_slots * cap * sizeof *kr);
        if (!kr)
            return xerr(err, errlen, "out of memory");
        st->kv_rows = kr;
        st->kv_rows_cap = (size_t)n_slots * cap;
    }
    cache = L * n_slots * (size_t)cap * d;
    if (ensure(st, BUF_K, &st->k, cache, err, errlen) ||
        ensure(st, BUF_V, &st->v, cache, err, errlen) ||
        ensure(st, BUF_MEM, &st->mem_kv, N * L * 2 * d, err, errlen) ||
        ensure(st, BUF_X, &st->x, (size_t)max_rows * d, err, errlen) ||
        ensure(st, BUF_H, &st->h, (size_t)max_rows * d, err, errlen) ||
        ensure(st, BUF_CTX, &st->ctx, (size_t)max_rows * d, err, errlen) ||
        ensure(st, BUF_QKV, &st->qkv, (size_t)max_rows * 3 * d, err, errlen) ||
        ensure(st, BUF_FF, &st->ff, (size_t)max_rows * c->decoder_ffn_dim, err, errlen) ||
        ensure(st, BUF_SCORES, &st->scores,
               (size_t)pool_threads(p) * scores_stride(cap, max_src), err, errlen))
        return -1;
    st->n_slots = n_slots;
    st->cap = cap;
    st->n_src = n_src;
    st->max_src = max_src;
    st->max_rows = max_rows;
    st->pos = pos;
    st->attn_layer = -1;
    gemm_sentences(p, st->mem_kv, enc, &m->cross_kv, n_src, st->src_off, st->whole_batch,
                   GEMM_SET, NO_ACT);
    return 0;
}

/* The bytes of one buffer of n floats as ensure() allocates it; with held, the larger of that
 * and what the buffer holds already (buffers only grow). */
static size_t plan_floats(const decoder_state *held, int which, size_t n)
{
    size_t have = held ? held->cap_floats[which] : 0;
    size_t need = (n + 15) & ~(size_t)15;
    return (need > have ? need : have) * sizeof(float);
}

size_t decoder_plan_bytes(const model_config *c, const decoder_state *held, int threads,
                          int n_slots, int cap, int max_rows, int n_src, const int *lens,
                          int capture)
{
    size_t d = c->d_model, L = c->decoder_layers, N = 0, cache, rows_cap, b = 0;
    int max_src = 0;
    for (int i = 0; i < n_src; i++) {
        N += lens[i];
        if (lens[i] > max_src)
            max_src = lens[i];
    }
    cache = L * n_slots * (size_t)cap * d;
    rows_cap = (size_t)n_slots * cap;
    if (held && held->kv_rows_cap > rows_cap)
        rows_cap = held->kv_rows_cap;
    b += rows_cap * sizeof(size_t);
    b += plan_floats(held, BUF_K, cache) + plan_floats(held, BUF_V, cache);
    b += plan_floats(held, BUF_MEM, N * L * 2 * d);
    b += plan_floats(held, BUF_X, (size_t)max_rows * d) + plan_floats(held, BUF_H, (size_t)max_rows * d);
    b += plan_floats(held, BUF_CTX, (size_t)max_rows * d);
    b += plan_floats(held, BUF_QKV, (size_t)max_rows * 3 * d);
    b += plan_floats(held, BUF_FF, (size_t)max_rows * c->decoder_ffn_dim);
    b += plan_floats(held, BUF_SCORES, (size_t)threads * scores_stride(cap, max_src));
    if (capture) {
        size_t a = (size_t)max_rows * (max_src ? max_src : 1);
        b += plan_floats(held, BUF_ATTN_H, a * c->decoder_heads) + plan_floats(held, BUF_ATTN, a);
    }
    return b;
}

int decoder_capture(const model_weights *m, decoder_state *st, int layer, char *err,
                    size_t errlen)
{
    size_t n = (size_t)st->max_rows * (st->max_src ? st->max_src : 1);
    st->attn_layer = -1;
    if (layer < 0)
        return 0;
    if (ensure(st, BUF_ATTN_H, &st->attn_heads, n * m->cfg.decoder_heads, err, errlen) ||
        ensure(st, BUF_ATTN, &st->attn, n, err, errlen))
        return -1;
    st->attn_layer = layer;
    return 0;
}

/* Cache of one (layer, slot, head): [cap, dh]. */
static size_t cache_at(const decoder_state *st, const model_config *c, int l, int slot, int h)
{
    size_t dh = c->d_model / c->decoder_heads;
    return (((size_t)l * st->n_slots + slot) * c->decoder_heads + h) * st->cap * dh;
}

typedef struct {
    const model_weights *m;
    decoder_state *st;
    const int *slots, *srcs;
    int layer, pos;
    size_t stride;
} step_job;

static void self_attn_task(void *arg, int task, int thread)
{
    const step_job *j = arg;
    const model_config *c = &j->m->cfg;
    decoder_state *st = j->st;
    int H = c->decoder_heads, d = c->d_model, dh = d / H, r = task / H, h = task % H;
    size_t at = cache_at(st, c, j->layer, 0, h);
    attn_rows_at(st->ctx + (size_t)r * d + h * dh, d, st->qkv + (size_t)r * 3 * d + h * dh,
                 3 * d, 1, st->k + at, st->v + at, st->kv_rows + (size_t)j->slots[r] * st->cap,
                 j->pos + 1, dh, 1.0f / sqrtf((float)dh), st->scores + j->stride * thread, 0);
}

/* One head of one group of rows (st->runs) that attend to the same source: the memory's keys
 * and values of that head are read once for all of them. */
static void cross_attn_task(void *arg, int task, int thread)
{
    const step_job *j = arg;
    const model_config *c = &j->m->cfg;
    decoder_state *st = j->st;
    int H = c->decoder_heads, d = c->d_model, dh = d / H, g = task / H, h = task % H;
    int r0 = st->runs[g], n = st->runs[g + 1] - r0;
    int ld = 2 * d * c->decoder_layers, s = j->srcs[r0], T = st->src_len[s];
    const float *k = st->mem_kv + (size_t)st->src_off[s] * ld + (size_t)j->layer * 2 * d + h * dh;
    float *p = st->scores + j->stride * thread;
    attn_rows(st->ctx + (size_t)r0 * d + h * dh, d, st->qkv + (size_t)r0 * d + h * dh, d, n, k,
              ld, k + d, ld, T, dh, 1.0f / sqrtf((float)dh), p, T);
    if (j->layer == st->attn_layer) /* attn_rows leaves the probabilities in its scratch */
        for (int i = 0; i < n; i++)
            memcpy(st->attn_heads + ((size_t)(r0 + i) * c->decoder_heads + h) * st->max_src,
                   p + (size_t)i * T, T * sizeof *p);
}

/* st->runs: consecutive rows with the same source, DEC_ATTN_GROUP at most a group. */
static void group_rows(decoder_state *st, int rows, const int *srcs)
{
    int n = 0;
    for (int r = 0; r < rows; r++)
        if (r == 0 || srcs[r] != srcs[r - 1] || r - st->runs[n - 1] == DEC_ATTN_GROUP)
            st->runs[n++] = r;
    st->runs[n] = rows;
    st->n_runs = n;
}

/* st->attn's rows: the heads' probabilities summed in head order, then divided by H. */
static void average_heads(decoder_state *st, int heads, int rows, const int *srcs)
{
    size_t S = st->max_src;
    for (int r = 0; r < rows; r++) {
        const float *a = st->attn_heads + (size_t)r * heads * S;
        float *o = st->attn + (size_t)r * S;
        int T = st->src_len[srcs[r]];
        for (int t = 0; t < T; t++) {
            float sum = 0;
            for (int h = 0; h < heads; h++)
                sum += a[(size_t)h * S + t];
            o[t] = sum / (float)heads;
        }
    }
}

const float *decoder_hidden(const model_weights *m, pool *p, decoder_state *st, int rows,
                            const int *tokens, const int *slots, const int *srcs, int pos)
{
    const model_config *c = &m->cfg;
    int d = c->d_model, dh = d / c->decoder_heads, H = c->decoder_heads;
    float eps = c->layer_norm_eps;
    const gemm_fn gemm = st->whole_batch ? gemm_whole : gemm_rows;
    double t0;
    step_job job = {m, st, slots, srcs, 0, pos, scores_stride(st->cap, st->max_src)};

    group_rows(st, rows, srcs);
    for (int r = 0; r < rows; r++) /* the rows this step writes: each slot's own */
        st->kv_rows[(size_t)slots[r] * st->cap + pos] =
            ((size_t)slots[r] * H * st->cap + pos) * dh;
    for (int r = 0; r < rows; r++) {
        const float *pe = st->pos + (size_t)pos * d;
        float *x = st->x + (size_t)r * d;
        /* M2M100 / NLLB: a pad fed to the decoder (forced, or a prefix's) takes the zeroed
         * padding row; every other token's position is its step, pads before it counted, as
         * generate() computes it with a cache (M2M100Decoder.forward: "past_key_values_length
         * = past_key_values[0][0].shape[2]", the last token alone through
         * create_position_ids_from_input_ids: (1 + past) * mask + padding_idx) */
        int pad = c->positions == POS_SIN_M2M && tokens[r] == c->pad_id;
        model_embed_row(m, 1, tokens[r], x); /* the row as f32, then scaled in place */
        for (int k = 0; k < d; k++)
            x[k] = x[k] * c->embedding_scale + (pad ? 0.0f : pe[k]);
    }
    for (int l = 0; l < c->decoder_layers; l++) {
        const decoder_layer *L = &m->dec[l];
        const float *in = st->x;
        job.layer = l;

        /* self-attention over the cache */
        if (c->pre_norm) {
            layernorm_rows(st->h, st->x, &L->self_norm, rows, d, eps);
            in = st->h;
        }
        gemm(p, st->qkv, in, &L->qkv, rows, GEMM_SET, NO_ACT);
        t0 = now_seconds();
        for (int r = 0; r < rows; r++) {
            const float *k = st->qkv + (size_t)r * 3 * d + d, *v = k + d;
            for (int h = 0; h < H; h++) {
                size_t at = cache_at(st, c, l, slots[r], h) + (size_t)pos * dh;
                memcpy(st->k + at, k + h * dh, dh * sizeof(float));
                memcpy(st->v + at, v + h * dh, dh * sizeof(float));
            }
        }
        pool_run(p, rows * H, self_attn_task, &job);
        st->attn_s += now_seconds() - t0;
        gemm(p, st->x, st->ctx, &L->o, rows, GEMM_ADD, NO_ACT);
        if (!c->pre_norm)
            layernorm_rows(st->x, st->x, &L->self_norm, rows, d, eps);

        /* cross-attention over the memory; its q [rows, d] reuses the qkv buffer, at row
         * stride d (the self-attention's q, k, v of this layer are no longer needed: k and v
         * are in the cache) */
        in = st->x;
        if (c->pre_norm) {
            layernorm_rows(st->h, st->x, &L->cross_norm, rows, d, eps);
            in = st->h;
        }
        gemm(p, st->qkv, in, &L->cross_q, rows, GEMM_SET, NO_ACT);
        t0 = now_seconds();
        pool_run(p, st->n_runs * H, cross_attn_task, &job);
        if (l == st->attn_layer)
            average_heads(st, H, rows, srcs);
        st->attn_s += now_seconds() - t0;
        gemm(p, st->x, st->ctx, &L->cross_o, rows, GEMM_ADD, NO_ACT);
        if (!c->pre_norm)
            layernorm_rows(st->x, st->x, &L->cross_norm, rows, d, eps);

        /* feed-forward */
        in = st->x;
        if (c->pre_norm) {
            layernorm_rows(st->h, st->x, &L->ffn_norm, rows, d, eps);
            in = st->h;
        }
        gemm(p, st->ff, in, &L->fc1, rows, GEMM_ACT, c->activation);
        gemm(p, st->x, st->ff, &L->fc2, rows, GEMM_ADD, NO_ACT);
        if (!c->pre_norm)
            layernorm_rows(st->x, st->x, &L->ffn_norm, rows, d, eps);
    }
    if (!m->dec_norm.g)
        return st->x;
    layernorm_rows(st->h, st->x, &m->dec_norm, rows, d, eps);
    return st->h;
}

void decoder_logits(const model_weights *m, pool *p, const decoder_state *st, const float *h,
                    int rows, float *logits)
{
    (st->whole_batch ? gemm_whole : gemm_rows)(p, logits, h, &m->out, rows, GEMM_SET, NO_ACT);
}

void decoder_step(const model_weights *m, pool *p, decoder_state *st, int rows,
                  const int *tokens, const int *slots, const int *srcs, int pos, float *logits)
{
    decoder_logits(m, p, st, decoder_hidden(m, p, st, rows, tokens, slots, srcs, pos), rows,
                   logits);
}

void decoder_copy_slot(const model_weights *m, decoder_state *st, int dst, int src, int from,
                       int npos)
{
    (void)m;
    if (dst == src || from >= npos)
        return;
    memcpy(st->kv_rows + (size_t)dst * st->cap + from, st->kv_rows + (size_t)src * st->cap + from,
           (size_t)(npos - from) * sizeof *st->kv_rows);
}

void decoder_state_free(decoder_state *st)
{
    if (!st)
        return;
    free(st->k);
    free(st->v);
    free(st->kv_rows);
    free(st->mem_kv);
    free(st->x);
    free(st->h);
    free(st->ctx);
    free(st->qkv);
    free(st->ff);
    free(st->scores);
    free(st->attn_heads);
    free(st->attn);
    free(st->src_off);
    free(st->src_len);
    free(st->runs);
    memset(st, 0, sizeof *st);
}

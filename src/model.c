/* model.c — bind named tensors to the model's weights, check them against the config, convert
 * to f32 and pack (q/k/v fused, cross-attention k/v of all layers stacked) into one arena.
 *
 * Binding runs twice: a sizing pass that only checks names, shapes and dtypes and counts floats,
 * then a filling pass into an arena of exactly that size. */
#include "model.h"
#include "util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const st_file *f;
    float *arena;   /* NULL in the sizing pass */
    size_t used;    /* floats handed out so far */
    char *used_tensor; /* [f->n] 1 when bound */
    size_t n_params;
    char *err;
    size_t errlen;
} binder;

/* Reserves n floats, 16-float aligned (64 bytes) so every matrix starts on a cache line. */
static float *reserve(binder *b, size_t n)
{
    float *p = b->arena ? b->arena + b->used : NULL;
    b->used += (n + 15) & ~(size_t)15;
    return p;
}

/* Checks tensor `name` has shape [d0] (d1 == 0) or [d0, d1] and a float dtype; copies it as f32
 * to dst (when filling). */
static int take(binder *b, const char *name, int d0, int d1, float *dst)
{
    const st_tensor *t = st_find(b->f, name);
    int64_t want[2] = {d0, d1};
    int ndim = d1 ? 2 : 1;
    char got[128], exp[64];
    if (!t)
        return xerr(b->err, b->errlen, "%s: missing tensor \"%s\" (expected %s of F32, F16 or BF16)",
                    b->f->path, name, st_shape_str(want, ndim, exp, sizeof exp));
    if (t->ndim != ndim || t->shape[0] != d0 || (ndim == 2 && t->shape[1] != d1))
        return xerr(b->err, b->errlen, "%s: tensor \"%s\": shape %s, expected %s", b->f->path, name,
                    st_shape_str(t->shape, t->ndim, got, sizeof got),
                    st_shape_str(want, ndim, exp, sizeof exp));
    if (t->dtype != ST_F32 && t->dtype != ST_F16 && t->dtype != ST_BF16)
        return xerr(b->err, b->errlen, "%s: tensor \"%s\": dtype %s, expected F32, F16 or BF16",
                    b->f->path, name, st_dtype_name(t->dtype));
    b->used_tensor[t - b->f->tensors] = 1;
    if (dst) {
        st_to_f32(dst, t->data, t->dtype, (size_t)t->numel);
        for (int64_t i = 0; i < t->numel; i++)
            if (!isfinite(dst[i]))
                return xerr(b->err, b->errlen, "%s: tensor \"%s\": element %lld is not finite",
                            b->f->path, name, (long long)i);
    } else {
        b->n_params += (size_t)t->numel;
    }
    return 0;
}

/* A Linear `prefix.weight` [out, in] + `prefix.bias` [out] into a fresh block. */
static int take_linear(binder *b, linear *l, const char *prefix, int out, int in, int has_bias)
{
    char name[256];
    float *w = reserve(b, (size_t)out * in), *bias = has_bias ? reserve(b, out) : NULL;
    snprintf(name, sizeof name, "%s.weight", prefix);
    if (take(b, name, out, in, w))
        return -1;
    if (has_bias) {
        snprintf(name, sizeof name, "%s.bias", prefix);
        if (take(b, name, out, 0, bias))
            return -1;
    }
    l->w = w;
    l->b = bias;
    l->out = out;
    l->in = in;
    return 0;
}

/* Stacks `prefix.{names[i]}.weight/.bias` rows into l (already reserved: [rows_total, in]),
 * starting at row `row0`. */
static int take_rows(binder *b, float *w, float *bias, const char *prefix, const char *part,
                     size_t row0, int rows, int in)
{
    char name[256];
    snprintf(name, sizeof name, "%s.%s.weight", prefix, part);
    if (take(b, name, rows, in, w ? w + row0 * in : NULL))
        return -1;
    snprintf(name, sizeof name, "%s.%s.bias", prefix, part);
    return take(b, name, rows, 0, bias ? bias + row0 : NULL);
}

static int take_norm(binder *b, norm *n, const char *prefix, int d)
{
    char name[256];
    float *g = reserve(b, d), *bias = reserve(b, d);
    snprintf(name, sizeof name, "%s.weight", prefix);
    if (take(b, name, d, 0, g))
        return -1;
    snprintf(name, sizeof name, "%s.bias", prefix);
    if (take(b, name, d, 0, bias))
        return -1;
    n->g = g;
    n->b = bias;
    return 0;
}

/* q, k, v of one attention block into one [3d, d] linear. */
static int take_qkv(binder *b, linear *l, const char *prefix, int d)
{
    float *w = reserve(b, (size_t)3 * d * d), *bias = reserve(b, (size_t)3 * d);
    if (take_rows(b, w, bias, prefix, "q", 0, d, d) || take_rows(b, w, bias, prefix, "k", d, d, d) ||
        take_rows(b, w, bias, prefix, "v", 2 * (size_t)d, d, d))
        return -1;
    l->w = w;
    l->b = bias;
    l->out = 3 * d;
    l->in = d;
    return 0;
}

/* The sinusoidal table, computed in f32 the way the PyTorch recipe does:
 * div = 10000^(2i/d); interleaved: PE[p,2i] = sin(p/div), PE[p,2i+1] = cos(p/div);
 * concat: PE[p,i] = sin(p/div_i), PE[p,d/2+i] = cos(p/div_i). */
static void sinusoid(float *pe, int P, int d, int interleaved)
{
    for (int i = 0; i < d / 2; i++) {
        float div = powf(10000.0f, (float)(2 * i) / (float)d);
        for (int p = 0; p < P; p++) {
            float a = (float)p / div;
            if (interleaved) {
                pe[(size_t)p * d + 2 * i] = sinf(a);
                pe[(size_t)p * d + 2 * i + 1] = cosf(a);
            } else {
                pe[(size_t)p * d + i] = sinf(a);
                pe[(size_t)p * d + d / 2 + i] = cosf(a);
            }
        }
    }
}

static int bind_all(binder *b, model_weights *m)
{
    const model_config *c = &m->cfg;
    int d = c->d_model, F = c->ffn_dim, P = c->max_positions, L = c->decoder_layers;
    char name[256];
    float *t;

    t = reserve(b, (size_t)c->src_vocab * d);
    if (take(b, "encoder.embed.weight", c->src_vocab, d, t))
        return -1;
    m->src_embed = t;
    if (c->shared_embeddings) {
        m->tgt_embed = m->src_embed;
    } else {
        t = reserve(b, (size_t)c->tgt_vocab * d);
        if (take(b, "decoder.embed.weight", c->tgt_vocab, d, t))
            return -1;
        m->tgt_embed = t;
    }
    if (c->positions == POS_LEARNED) {
        t = reserve(b, (size_t)P * d);
        if (take(b, "encoder.positions.weight", P, d, t))
            return -1;
        m->src_pos = t;
        t = reserve(b, (size_t)P * d);
        if (take(b, "decoder.positions.weight", P, d, t))
            return -1;
        m->tgt_pos = t;
    } else {
        t = reserve(b, (size_t)P * d);
        if (t)
            sinusoid(t, P, d, c->positions == POS_SIN_INTERLEAVED);
        m->src_pos = m->tgt_pos = t;
    }

    for (int l = 0; l < c->encoder_layers; l++) {
        encoder_layer *e = &m->enc[l];
        char p[128];
        snprintf(p, sizeof p, "encoder.layers.%d", l);
        snprintf(name, sizeof name, "%s.self_attn", p);
        if (take_qkv(b, &e->qkv, name, d))
            return -1;
        snprintf(name, sizeof name, "%s.self_attn.o", p);
        if (take_linear(b, &e->o, name, d, d, 1))
            return -1;
        snprintf(name, sizeof name, "%s.self_attn_norm", p);
        if (take_norm(b, &e->attn_norm, name, d))
            return -1;
        snprintf(name, sizeof name, "%s.ffn.fc1", p);
        if (take_linear(b, &e->fc1, name, F, d, 1))
            return -1;
        snprintf(name, sizeof name, "%s.ffn.fc2", p);
        if (take_linear(b, &e->fc2, name, d, F, 1))
            return -1;
        snprintf(name, sizeof name, "%s.ffn_norm", p);
        if (take_norm(b, &e->ffn_norm, name, d))
            return -1;
    }

    {
        float *w = reserve(b, (size_t)L * 2 * d * d), *bias = reserve(b, (size_t)L * 2 * d);
        m->cross_kv.w = w;
        m->cross_kv.b = bias;
        m->cross_kv.out = L * 2 * d;
        m->cross_kv.in = d;
        for (int l = 0; l < L; l++) {
            snprintf(name, sizeof name, "decoder.layers.%d.cross_attn", l);
            if (take_rows(b, w, bias, name, "k", (size_t)l * 2 * d, d, d) ||
                take_rows(b, w, bias, name, "v", (size_t)l * 2 * d + d, d, d))
                return -1;
        }
    }
    for (int l = 0; l < L; l++) {
        decoder_layer *e = &m->dec[l];
        char p[128];
        snprintf(p, sizeof p, "decoder.layers.%d", l);
        snprintf(name, sizeof name, "%s.self_attn", p);
        if (take_qkv(b, &e->qkv, name, d))
            return -1;
        snprintf(name, sizeof name, "%s.self_attn.o", p);
        if (take_linear(b, &e->o, name, d, d, 1))
            return -1;
        snprintf(name, sizeof name, "%s.self_attn_norm", p);
        if (take_norm(b, &e->self_norm, name, d))
            return -1;
        snprintf(name, sizeof name, "%s.cross_attn.q", p);
        if (take_linear(b, &e->cross_q, name, d, d, 1))
            return -1;
        snprintf(name, sizeof name, "%s.cross_attn.o", p);
        if (take_linear(b, &e->cross_o, name, d, d, 1))
            return -1;
        snprintf(name, sizeof name, "%s.cross_attn_norm", p);
        if (take_norm(b, &e->cross_norm, name, d))
            return -1;
        snprintf(name, sizeof name, "%s.ffn.fc1", p);
        if (take_linear(b, &e->fc1, name, F, d, 1))
            return -1;
        snprintf(name, sizeof name, "%s.ffn.fc2", p);
        if (take_linear(b, &e->fc2, name, d, F, 1))
            return -1;
        snprintf(name, sizeof name, "%s.ffn_norm", p);
        if (take_norm(b, &e->ffn_norm, name, d))
            return -1;
    }
    if (c->encoder_final_norm && take_norm(b, &m->enc_norm, "encoder.final_norm", d))
        return -1;
    if (c->decoder_final_norm && take_norm(b, &m->dec_norm, "decoder.final_norm", d))
        return -1;

    if (c->tied_output) {
        m->out.w = m->tgt_embed;
        m->out.out = c->tgt_vocab;
        m->out.in = d;
        m->out.b = NULL;
        if (c->output_bias) {
            t = reserve(b, c->tgt_vocab);
            if (take(b, "output.bias", c->tgt_vocab, 0, t))
                return -1;
            m->out.b = t;
        }
    } else if (take_linear(b, &m->out, "output", c->tgt_vocab, d, c->output_bias)) {
        return -1;
    }
    return 0;
}

int model_bind(model_weights *m, model_config *cfg, const st_file *f, warn_fn warn,
               void *warn_user, char *err, size_t errlen)
{
    binder b = {.f = f, .err = err, .errlen = errlen};
    memset(m, 0, sizeof *m);
    m->cfg = *cfg;
    memset(cfg, 0, sizeof *cfg);
    m->enc = calloc(m->cfg.encoder_layers ? m->cfg.encoder_layers : 1, sizeof *m->enc);
    m->dec = calloc(m->cfg.decoder_layers, sizeof *m->dec);
    b.used_tensor = calloc(f->n ? f->n : 1, 1);
    if (!m->enc || !m->dec || !b.used_tensor) {
        xerr(err, errlen, "%s: out of memory", f->path);
        goto fail;
    }
    if (bind_all(&b, m))
        goto fail;
    m->n_params = b.n_params;
    m->arena = aligned_alloc(64, (b.used ? b.used : 16) * sizeof(float));
    if (!m->arena) {
        xerr(err, errlen, "%s: out of memory allocating %zu MB of weights", f->path,
             b.used * sizeof(float) >> 20);
        goto fail;
    }
    b.arena = m->arena;
    b.used = 0;
    if (bind_all(&b, m))
        goto fail;
    for (int i = 0; i < f->n && warn; i++)
        if (!b.used_tensor[i]) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s: tensor \"%s\" is not used by this config", f->path,
                     f->tensors[i].name);
            warn(warn_user, msg);
        }
    free(b.used_tensor);
    return 0;
fail:
    free(b.used_tensor);
    model_free(m);
    return -1;
}

int model_load(model_weights *m, const char *dir, warn_fn warn, void *warn_user, char *err,
               size_t errlen)
{
    model_config cfg;
    st_file f;
    char *cpath = path_join(dir, "config.json"), *wpath = NULL;
    int rc = -1;
    memset(m, 0, sizeof *m);
    memset(&f, 0, sizeof f);
    if (!cpath)
        return xerr(err, errlen, "out of memory");
    if (config_load(&cfg, cpath, warn, warn_user, err, errlen))
        goto done;
    if (!(wpath = path_join(dir, cfg.weights))) {
        config_free(&cfg);
        xerr(err, errlen, "out of memory");
        goto done;
    }
    if (st_open(&f, wpath, err, errlen)) {
        config_free(&cfg);
        goto done;
    }
    rc = model_bind(m, &cfg, &f, warn, warn_user, err, errlen);
done:
    st_close(&f);
    free(cpath);
    free(wpath);
    return rc;
}

void model_free(model_weights *m)
{
    if (!m)
        return;
    free(m->arena);
    free(m->enc);
    free(m->dec);
    config_free(&m->cfg);
    memset(m, 0, sizeof *m);
}

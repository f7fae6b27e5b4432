/* model.c — bind named tensors to the model's weights and check them against the config.
 * F32 tensors are read in place from the mapped file (q/k/v too, when they follow each other);
 * F16/BF16 ones, and the stacked cross-attention k/v of all layers, are converted to f32 in
 * one arena.
 *
 * Binding runs twice: a sizing pass that only checks names, shapes and dtypes and counts the
 * arena's floats, then a filling pass into an arena of exactly that size. */
#include "model/model.h"
#include "model/family.h"
#include "model/weights.h"
#include "kernels/simd.h"
#include "kernels/cpu.h"
#include "kernels/ops.h"
#include "base/util.h"
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    const st_file *f;
    float *arena;   /* NULL in the sizing pass */
    size_t used;    /* floats handed out so far */
    char *used_tensor; /* [f->n] 1 when bound */
    size_t n_params;
    char *err;
    size_t errlen;
    int pack;          /* 1: linears are packed for the own kernels (no f32 matrix kept) */
    weight_type ct;    /* the packed type */
    uint8_t *parena;   /* packed weights; NULL in the sizing pass */
    size_t pused;      /* bytes handed out so far */
} binder;

/* The type weights stored as t are packed as: the compute type, except that F16 weights under
 * f32 compute are packed as f16. Every f16 value is an f32 value, and the f16 kernels run the
 * f32 kernels' FMA chains on the converted weights (gemm.c: body_512 / body_avx2 with ld16 /
 * ld8, the same tiles), so the products are the same bits from half the bytes: an f16 file
 * under f32 compute takes the memory of f16 compute. */
static weight_type pack_as(const binder *b, const st_tensor *t)
{
    return b->ct == WT_F32 && t->dtype == ST_F16 ? WT_F16 : b->ct;
}

/* Reserves the packed form of l (l->out, l->in set) as type t and sets its type; NULL in the
 * sizing pass. */
static void *reserve_packed(binder *b, linear *l, weight_type t)
{
    void *p = b->parena ? b->parena + b->pused : NULL;
    l->type = t;
    b->pused += linear_packed_bytes(t, l->out, l->in);
    return p;
}

/* Reserves n floats, 16-float aligned (64 bytes) so every matrix starts on a cache line. */
static float *reserve(binder *b, size_t n)
{
    float *p = b->arena ? b->arena + b->used : NULL;
    b->used += (n + 15) & ~(size_t)15;
    return p;
}

/* The tensor `name`, checked to have shape [d0] (d1 == 0) or [d0, d1] and a float dtype. */
static const st_tensor *find_as(binder *b, const char *name, int d0, int d1, int allow_i8);

static const st_tensor *find(binder *b, const char *name, int d0, int d1)
{
    return find_as(b, name, d0, d1, 0);
}

/* A linear's weight: F32, F16, BF16, or I8 (tools/convert.py --dtype int8) with its row scales
 * `name.scale` [d0] (float) and every value in [-127, 127]. */
static const st_tensor *find_weight(binder *b, const char *name, int d0, int d1)
{
    const st_tensor *t = find_as(b, name, d0, d1, 1);
    char sname[300];
    if (!t || t->dtype != ST_I8)
        return t;
    snprintf(sname, sizeof sname, "%s.scale", name);
    if (!find(b, sname, d0, 0))
        return NULL;
    if (!b->arena)
        for (int64_t i = 0; i < t->numel; i++)
            if (((const int8_t *)t->data)[i] == -128) {
                xerr(b->err, b->errlen, "%s: tensor \"%s\": element %lld is -128, expected "
                     "[-127, 127] (symmetric int8)", b->f->path, name, (long long)i);
                return NULL;
            }
    return t;
}

static const st_tensor *find_as(binder *b, const char *name, int d0, int d1, int allow_i8)
{
    const st_tensor *t = st_find(b->f, name);
    int64_t want[2] = {d0, d1};
    int ndim = d1 ? 2 : 1;
    char got[128], exp[64];
    if (!t) {
        xerr(b->err, b->errlen, "%s: missing tensor \"%s\" (expected %s of F32, F16 or BF16)",
             b->f->path, name, st_shape_str(want, ndim, exp, sizeof exp));
        return NULL;
    }
    if (t->ndim != ndim || t->shape[0] != d0 || (ndim == 2 && t->shape[1] != d1)) {
        xerr(b->err, b->errlen, "%s: tensor \"%s\": shape %s, expected %s", b->f->path, name,
             st_shape_str(t->shape, t->ndim, got, sizeof got),
             st_shape_str(want, ndim, exp, sizeof exp));
        return NULL;
    }
    if (t->dtype != ST_F32 && t->dtype != ST_F16 && t->dtype != ST_BF16 &&
        !(allow_i8 && t->dtype == ST_I8)) {
        xerr(b->err, b->errlen, "%s: tensor \"%s\": dtype %s, expected F32, F16 or BF16%s",
             b->f->path, name, st_dtype_name(t->dtype), allow_i8 ? " (or I8 with .scale)" : "");
        return NULL;
    }
    if (!b->arena && !b->used_tensor[t - b->f->tensors])
        b->n_params += (size_t)t->numel;
    b->used_tensor[t - b->f->tensors] = 1;
    return t;
}

/* Fails on the first element of x[n] that is not finite (inf or NaN: all exponent bits set);
 * x holds t's elements from element `at` on. */
static int check_finite_at(binder *b, const st_tensor *t, const float *x, size_t n, size_t at)
{
    if (simd_all_finite(x, n))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return xerr(b->err, b->errlen, "%s: tensor \"%s\": element %zu is %g", b->f->path,
                        t->name, at + i, (double)x[i]);
    return 0;
}

static int check_finite(binder *b, const st_tensor *t, const float *x, size_t n)
{
    return check_finite_at(b, t, x, n, 0);
}

/* A packed weight must stay finite in the compute type: f16 rounds 65520 and more to inf
 * (the largest f16 is 65504), bf16 rounds 0x1.ffp127 (3.3961775e38) and more (the largest bf16
 * is 0x1.fep127). An inf weight made NaN logits, and the greedy screen's int8 copy of the output
 * projection converted a NaN to int: undefined behaviour (issue 27). Fails naming the tensor
 * (`name`: the tensor the weights came from), the element, its value and the types that hold
 * it. w[n / in][in]: finite f32 values, rows of `in`, the first of them the tensor's row
 * `row0`. */
static int check_holds(binder *b, const char *name, const float *w, size_t n, size_t in,
                       size_t row0, weight_type t)
{
    float lim = t == WT_F16 ? 65520.0f : t == WT_BF16 ? 0x1.ffp127f : 0;
    if (lim == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (fabsf(w[i]) >= lim)
            return xerr(b->err, b->errlen, "%s: tensor \"%s\": element [%zu, %zu] is %.9g, which "
                        "compute type %s cannot hold (its largest value is %.9g; this rounds to "
                        "inf); compute type %s holds it", b->f->path, name, row0 + i / in, i % in,
                        (double)w[i],
                        weight_type_name(t), t == WT_F16 ? 65504.0 : (double)0x1.fep127f,
                        t == WT_F16 ? "bf16, int8 or f32" : "int8 or f32");
    return 0;
}

/* Converts t to f32 into dst (in the filling pass). */
static int fill(binder *b, const st_tensor *t, float *dst)
{
    if (!dst)
        return 0;
    st_to_f32(dst, t->data, t->dtype, (size_t)t->numel);
    /* the converted copy is what is read from now on: the mapped pages can go (a tensor read
     * again faults them back in from the file) */
    st_release(b->f, t->data, t->nbytes);
    return check_finite(b, t, dst, (size_t)t->numel);
}

/* Whether t can be used in place: f32 at a float-aligned address (the format does not promise
 * alignment), little-endian host. */
static int viewable(const st_tensor *t)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return t->dtype == ST_F32 && (uintptr_t)t->data % sizeof(float) == 0;
#else
    (void)t;
    return 0;
#endif
}

/* The tensor `name` as f32: read in place from the mapped file when it is F32 (no copy, and the
 * page cache is shared by every xlate process), else converted into the arena. */
static int view(binder *b, const char *name, int d0, int d1, const float **out)
{
    const st_tensor *t = find(b, name, d0, d1);
    float *dst;
    if (!t)
        return -1;
    if (viewable(t)) {
        *out = t->data;
        return b->arena ? check_finite(b, t, t->data, (size_t)t->numel) : 0;
    }
    dst = reserve(b, (size_t)t->numel);
    *out = dst;
    return fill(b, t, dst);
}

/* Packs tensor t ([rows, l->in]) as rows [row0, row0 + rows) of l into mem (the filling
 * pass): read in place when it is F32, else through a temporary f32 copy of this one tensor.
 * The mapped pages are released after, whatever the type (their only use was this packing). */
static int pack_tensor(binder *b, linear *l, void *mem, const st_tensor *t, int row0)
{
    float *tmp = NULL;
    const float *src = t->data;
    size_t n = (size_t)t->numel;
    if (!mem)
        return 0;
    if (t->dtype == ST_I8) { /* stored int8: kept as is for int8, else dequantized */
        char sname[300];
        const st_tensor *st;
        int rows = (int)t->shape[0], K = (int)t->shape[1];
        const int8_t *q = t->data;
        float *sc;
        snprintf(sname, sizeof sname, "%s.scale", t->name);
        st = st_find(b->f, sname);
        if (!(sc = malloc((size_t)rows * sizeof(float) +
                          (l->type == WT_INT8 ? 0 : n * sizeof(float)))))
            return xerr(b->err, b->errlen, "%s: out of memory converting tensor \"%s\"",
                        b->f->path, t->name);
        st_to_f32(sc, st->data, st->dtype, (size_t)rows);
        if (check_finite(b, st, sc, (size_t)rows)) {
            free(sc);
            return -1;
        }
        if (l->type == WT_INT8) {
            linear_pack_rows_q8(l, mem, row0, row0 + rows, q, sc);
        } else {
            float *w = sc + rows;
            for (int r = 0; r < rows; r++)
                for (int k = 0; k < K; k++)
                    w[(size_t)r * K + k] = (float)q[(size_t)r * K + k] * sc[r];
            if (check_finite(b, t, w, n) || check_holds(b, t->name, w, n, (size_t)K, 0, l->type)) {
                free(sc);
                return -1;
            }
            linear_pack_rows(l, mem, l->type, row0, row0 + rows, w);
        }
        free(sc);
        st_release(b->f, t->data, t->nbytes);
        return 0;
    }
    {
        /* a slice of rows at a time, converted to f32 when not F32, checked, packed, and its
         * mapped pages released: a 1 GB embedding never has a second, f32 copy, nor more than
         * a slice of the file resident beside the packed weights */
        int rows = (int)t->shape[0], K = l->in, step = (int)(((size_t)1 << 20) / (size_t)K);
        size_t es = st_dtype_size(t->dtype);
        step = step < 1 ? 1 : step > rows ? rows : step;
        if (!viewable(t) && !(tmp = malloc((size_t)step * K * sizeof(float))))
            return xerr(b->err, b->errlen, "%s: out of memory converting tensor \"%s\"",
                        b->f->path, t->name);
        for (int r = 0; r < rows; r += step) {
            int nr = rows - r < step ? rows - r : step;
            size_t cnt = (size_t)nr * K;
            const char *p = (const char *)t->data + (size_t)r * K * es;
            if (tmp)
                st_to_f32(tmp, p, t->dtype, cnt);
            src = tmp ? tmp : (const float *)(const void *)p;
            if (check_finite_at(b, t, src, cnt, (size_t)r * K) ||
                check_holds(b, t->name, src, cnt, (size_t)K, (size_t)r, l->type)) {
                free(tmp);
                return -1;
            }
            linear_pack_rows(l, mem, l->type, row0 + r, row0 + r + nr, src);
            st_release(b->f, p, cnt * es);
        }
        free(tmp);
        return 0;
    }
}

/* A Linear `prefix.weight` [out, in] + `prefix.bias` [out]. */
static int take_linear(binder *b, linear *l, const char *prefix, int out, int in, int has_bias)
{
    char name[256];
    snprintf(name, sizeof name, "%s.weight", prefix);
    l->out = out;
    l->in = in;
    if (b->pack) {
        const st_tensor *t = find_weight(b, name, out, in);
        if (!t || pack_tensor(b, l, reserve_packed(b, l, pack_as(b, t)), t, 0))
            return -1;
        l->w = NULL;
    } else if (view(b, name, out, in, &l->w)) {
        return -1;
    }
    l->b = NULL;
    if (has_bias) {
        snprintf(name, sizeof name, "%s.bias", prefix);
        if (view(b, name, out, 0, &l->b))
            return -1;
    }
    return 0;
}

/* `prefix.part.weight` [rows, in] and `.bias` [rows] into rows [row0, row0 + rows) of w/bias. */
static int take_rows(binder *b, float *w, float *bias, const char *prefix, const char *part,
                     size_t row0, int rows, int in, linear *l, void *packed)
{
    char name[256];
    const st_tensor *t;
    snprintf(name, sizeof name, "%s.%s.weight", prefix, part);
    if (!(t = b->pack ? find_weight(b, name, rows, in) : find(b, name, rows, in)))
        return -1;
    if (b->pack ? pack_tensor(b, l, packed, t, (int)row0) : fill(b, t, w ? w + row0 * in : NULL))
        return -1;
    snprintf(name, sizeof name, "%s.%s.bias", prefix, part);
    if (!(t = find(b, name, rows, 0)) || fill(b, t, bias ? bias + row0 : NULL))
        return -1;
    return 0;
}

static int take_norm(binder *b, norm *n, const char *prefix, int d)
{
    char name[256];
    snprintf(name, sizeof name, "%s.weight", prefix);
    if (view(b, name, d, 0, &n->g))
        return -1;
    snprintf(name, sizeof name, "%s.bias", prefix);
    return view(b, name, d, 0, &n->b);
}

/* Whether tensors t[0..n) are F32 and follow each other in the file, so that together they are
 * one matrix in place. */
static int adjacent(const st_tensor *const *t, int n)
{
    for (int i = 0; i < n; i++)
        if (!t[i] || !viewable(t[i]) ||
            (i && (const char *)t[i - 1]->data + t[i - 1]->nbytes != (const char *)t[i]->data))
            return 0;
    return 1;
}

/* q, k, v of one attention block as one [3d, d] linear: in place when the file has them one
 * after the other (tools/convert.py writes them so), else copied together. */
static int take_qkv(binder *b, linear *l, const char *prefix, const char *const *parts, int d)
{
    const st_tensor *w[3], *bs[3];
    char name[256];
    for (int i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "%s.%s.weight", prefix, parts[i]);
        if (!(w[i] = b->pack ? find_weight(b, name, d, d) : find(b, name, d, d)))
            return -1;
        snprintf(name, sizeof name, "%s.%s.bias", prefix, parts[i]);
        if (!(bs[i] = find(b, name, d, 0)))
            return -1;
    }
    l->out = 3 * d;
    l->in = d;
    if (b->pack) {
        /* f16 only when all three are (one linear has one type) */
        weight_type t = w[0]->dtype == w[1]->dtype && w[1]->dtype == w[2]->dtype
                            ? pack_as(b, w[0]) : b->ct;
        void *mem = reserve_packed(b, l, t);
        float *bd = adjacent(bs, 3) ? NULL : reserve(b, (size_t)3 * d);
        l->w = NULL;
        for (int i = 0; i < 3; i++)
            if (pack_tensor(b, l, mem, w[i], i * d))
                return -1;
        if (adjacent(bs, 3)) {
            l->b = bs[0]->data;
            for (int i = 0; i < 3; i++)
                if (b->arena && check_finite(b, bs[i], bs[i]->data, (size_t)bs[i]->numel))
                    return -1;
            return 0;
        }
        for (int i = 0; i < 3; i++)
            if (fill(b, bs[i], bd ? bd + (size_t)i * d : NULL))
                return -1;
        l->b = bd;
        return 0;
    }
    if (adjacent(w, 3) && adjacent(bs, 3)) {
        l->w = w[0]->data;
        l->b = bs[0]->data;
        if (b->arena)
            for (int i = 0; i < 3; i++)
                if (check_finite(b, w[i], w[i]->data, (size_t)w[i]->numel) ||
                    check_finite(b, bs[i], bs[i]->data, (size_t)bs[i]->numel))
                    return -1;
        return 0;
    }
    {
        float *wd = reserve(b, (size_t)3 * d * d), *bd = reserve(b, (size_t)3 * d);
        for (int i = 0; i < 3; i++)
            if (fill(b, w[i], wd ? wd + (size_t)i * d * d : NULL) ||
                fill(b, bs[i], bd ? bd + (size_t)i * d : NULL))
                return -1;
        l->w = wd;
        l->b = bd;
    }
    return 0;
}

/* A layer's self-attention: `prefix.<self_attn>.{q,k,v,o}` and `prefix.<self_norm>`. */
static int take_self_attn(binder *b, const model_family *f, const char *prefix, linear *qkv,
                          linear *o, norm *n, int d)
{
    char name[160];
    snprintf(name, sizeof name, "%s.%s", prefix, f->self_attn);
    if (take_qkv(b, qkv, name, f->proj, d))
        return -1;
    snprintf(name, sizeof name, "%s.%s.%s", prefix, f->self_attn, f->proj[3]);
    if (take_linear(b, o, name, d, d, 1))
        return -1;
    snprintf(name, sizeof name, "%s.%s", prefix, f->self_norm);
    return take_norm(b, n, name, d);
}

/* A layer's feed-forward: `prefix.<fc1>`, `prefix.<fc2>` and `prefix.<ffn_norm>`. */
static int take_ffn(binder *b, const model_family *f, const char *prefix, linear *fc1,
                    linear *fc2, norm *n, int d, int F)
{
    char name[160];
    snprintf(name, sizeof name, "%s.%s", prefix, f->fc1);
    if (take_linear(b, fc1, name, F, d, 1))
        return -1;
    snprintf(name, sizeof name, "%s.%s", prefix, f->fc2);
    if (take_linear(b, fc2, name, d, F, 1))
        return -1;
    snprintf(name, sizeof name, "%s.%s", prefix, f->ffn_norm);
    return take_norm(b, n, name, d);
}

void model_sinusoid(float *pe, int p0, int p1, int d, int interleaved, int f64)
{
    if (f64) { /* Hugging Face's numpy table: pos / 10000^(2i/d) in double, then float */
        for (int i = 0; i < d / 2; i++) {
            double div = pow(10000.0, (double)(2 * i) / (double)d);
            for (int p = p0; p < p1; p++) {
                float *row = pe + (size_t)p * d;
                row[i] = (float)sin((double)p / div);
                row[d / 2 + i] = (float)cos((double)p / div);
            }
        }
        return;
    }
    for (int i = 0; i < d / 2; i++) {
        float div = powf(10000.0f, (float)(2 * i) / (float)d);
        for (int p = p0; p < p1; p++) {
            float a = (float)p / div;
            float *row = pe + (size_t)p * d;
            if (interleaved) {
                row[2 * i] = sinf(a);
                row[2 * i + 1] = cosf(a);
            } else {
                row[i] = sinf(a);
                row[d / 2 + i] = cosf(a);
            }
        }
    }
}

void model_sinusoid_m2m(float *pe, int p0, int p1, int d, int offset)
{
    /* modeling_m2m_100.py get_embedding, in float32 as torch computes it: the frequency
     * exp(float(i) * float(-ln(10000) / (d/2 - 1))), the angle float(row) * frequency, then
     * sin / cos (each rounded once from double: torch's vectorized float functions are within
     * an ulp of that) */
    int half = d / 2;
    float step = (float)(-log(10000.0) / (double)(half - 1));
    for (int i = 0; i < half; i++) {
        float freq = (float)exp((double)((float)i * step));
        for (int p = p0; p < p1; p++) {
            float a = (float)(p + offset) * freq;
            float *row = pe + (size_t)p * d;
            row[i] = (float)sin((double)a);
            row[half + i] = (float)cos((double)a);
        }
    }
}

/* Checks that an embedding read in place (t: [rows, d], F32, F16 or BF16) is finite, and when
 * holds >= 0 that the weight_type `holds` holds it (check_holds: a projection packed from it
 * later), a slice of rows at a time through a small f32 buffer, and releases the slices'
 * mapped pages: the lookups fault back only the rows they read. */
static int check_table(binder *b, const st_tensor *t, int d, int holds)
{
    size_t es = st_dtype_size(t->dtype), step = ((size_t)1 << 20) / (size_t)d * (size_t)d;
    size_t n = (size_t)t->numel;
    float *tmp = malloc((step < n ? step : n) * sizeof(float) + 1);
    if (!tmp)
        return xerr(b->err, b->errlen, "%s: out of memory checking tensor \"%s\"", b->f->path,
                    t->name);
    for (size_t i = 0; i < n; i += step) {
        size_t cnt = n - i < step ? n - i : step;
        const char *p = (const char *)t->data + i * es;
        st_to_f32(tmp, p, t->dtype, cnt);
        if (check_finite_at(b, t, tmp, cnt, i) ||
            (holds >= 0 && check_holds(b, t->name, tmp, cnt, (size_t)d, i / (size_t)d,
                                       (weight_type)holds))) {
            free(tmp);
            return -1;
        }
        st_release(b->f, p, cnt * es);
    }
    free(tmp);
    return 0;
}

/* Whether the file has a tensor of that name (no check, nothing bound). */
static int has(binder *b, const char *name) { return st_find(b->f, name) != NULL; }

static int bind_all(binder *b, model_weights *m)
{
    const model_config *c = &m->cfg;
    const model_family *f = c->family;
    int d = c->d_model, F = c->ffn_dim, Fd = c->decoder_ffn_dim, P = c->max_positions;
    int L = c->decoder_layers;
    char name[256];

    const st_tensor *src_t, *tgt_t;

    if (c->shared_embeddings) {
        const char *src = f->src_embed_alt && !has(b, f->src_embed) ? f->src_embed_alt
                                                                    : f->src_embed;
        if (!(src_t = find(b, src, c->src_vocab, d)))
            return -1;
        tgt_t = src_t;
    } else if (!(src_t = find(b, f->enc_embed, c->src_vocab, d)) ||
               !(tgt_t = find(b, f->dec_embed, c->tgt_vocab, d))) {
        return -1;
    }
    if (b->pack) { /* compact tables (model.h); the tied output is packed below */
        m->src_embed = m->tgt_embed = NULL;
        m->src_table = (embed_table){src_t->data, src_t->dtype, 0};
        m->tgt_table = (embed_table){tgt_t->data, tgt_t->dtype, 0};
    } else if (view(b, src_t->name, c->src_vocab, d, &m->src_embed) ||
               (src_t == tgt_t ? (m->tgt_embed = m->src_embed, 0)
                               : view(b, tgt_t->name, c->tgt_vocab, d, &m->tgt_embed))) {
        return -1;
    }
    if (c->positions == POS_LEARNED &&
        (view(b, f->src_pos, P, d, &m->src_pos) || view(b, f->tgt_pos, P, d, &m->tgt_pos)))
        return -1;

    for (int l = 0; l < c->encoder_layers; l++) {
        encoder_layer *e = &m->enc[l];
        char p[96];
        snprintf(p, sizeof p, f->enc_layer, l);
        if (take_self_attn(b, f, p, &e->qkv, &e->o, &e->attn_norm, d) ||
            take_ffn(b, f, p, &e->fc1, &e->fc2, &e->ffn_norm, d, F))
            return -1;
    }

    {
        float *w = b->pack ? NULL : reserve(b, (size_t)L * 2 * d * d);
        float *bias = reserve(b, (size_t)L * 2 * d);
        void *packed;
        m->cross_kv.w = w;
        m->cross_kv.b = bias;
        m->cross_kv.out = L * 2 * d;
        m->cross_kv.in = d;
        if (b->pack) { /* f16 only when every layer's k and v are (one linear, one type) */
            weight_type t = WT_F16;
            for (int l = 0; l < L; l++)
                for (int i = 1; i <= 2; i++) {
                    const st_tensor *kv;
                    snprintf(name, sizeof name, f->dec_layer, l);
                    snprintf(name + strlen(name), sizeof name - strlen(name), ".%s.%s.weight",
                             f->cross_attn, f->proj[i]);
                    kv = st_find(b->f, name);
                    if (!kv || pack_as(b, kv) != WT_F16)
                        t = b->ct;
                }
            packed = reserve_packed(b, &m->cross_kv, t);
        } else {
            packed = NULL;
        }
        for (int l = 0; l < L; l++) {
            char p[96];
            snprintf(p, sizeof p, f->dec_layer, l);
            snprintf(name, sizeof name, "%s.%s", p, f->cross_attn);
            if (take_rows(b, w, bias, name, f->proj[1], (size_t)l * 2 * d, d, d, &m->cross_kv,
                          packed) ||
                take_rows(b, w, bias, name, f->proj[2], (size_t)l * 2 * d + d, d, d,
                          &m->cross_kv, packed))
                return -1;
        }
    }
    for (int l = 0; l < L; l++) {
        decoder_layer *e = &m->dec[l];
        char p[96];
        snprintf(p, sizeof p, f->dec_layer, l);
        if (take_self_attn(b, f, p, &e->qkv, &e->o, &e->self_norm, d))
            return -1;
        snprintf(name, sizeof name, "%s.%s.%s", p, f->cross_attn, f->proj[0]);
        if (take_linear(b, &e->cross_q, name, d, d, 1))
            return -1;
        snprintf(name, sizeof name, "%s.%s.%s", p, f->cross_attn, f->proj[3]);
        if (take_linear(b, &e->cross_o, name, d, d, 1))
            return -1;
        snprintf(name, sizeof name, "%s.%s", p, f->cross_norm);
        if (take_norm(b, &e->cross_norm, name, d) ||
            take_ffn(b, f, p, &e->fc1, &e->fc2, &e->ffn_norm, d, Fd))
            return -1;
    }
    if (c->encoder_final_norm && take_norm(b, &m->enc_norm, f->enc_final_norm, d))
        return -1;
    if (c->decoder_final_norm && take_norm(b, &m->dec_norm, f->dec_final_norm, d))
        return -1;

    m->out.out = c->tgt_vocab;
    m->out.in = d;
    m->out.b = NULL;
    if (c->tied_output && b->pack) {
        /* packed from the embedding's own tensor, a slice at a time; where the panels hold
         * its values exactly, the target table (and the shared source one) reads them */
        m->out.w = NULL;
        if (tgt_t->dtype != ST_I8) {
            /* packed when a run first needs every logit (model_out_need); checked now as
             * packing would check it, and the tables read the file */
            m->out.type = pack_as(b, tgt_t);
            m->out.packed = NULL;
            m->out_src = tgt_t;
            if (b->arena && check_table(b, tgt_t, d, (int)m->out.type))
                return -1;
        } else {
            void *mem = reserve_packed(b, &m->out, pack_as(b, tgt_t));
            if (pack_tensor(b, &m->out, mem, tgt_t, 0))
                return -1;
            if (m->out.type == WT_F32) {
                m->tgt_table = (embed_table){NULL, tgt_t->dtype, 1};
                if (src_t == tgt_t)
                    m->src_table = m->tgt_table;
            }
        }
    } else if (c->tied_output) {
        m->out.w = m->tgt_embed;
    } else if (take_linear(b, &m->out, f->out, c->tgt_vocab, d, 0)) {
        return -1; /* the bias, when there is one, is the family's: below */
    }
    /* a table read in place: its values checked here (a slice at a time) unless packing the
     * output projection from it checked them */
    if (b->pack && b->arena && !m->src_table.from_out &&
        !(c->tied_output && src_t == tgt_t) && check_table(b, src_t, d, -1))
        return -1;
    if (b->pack && b->arena && src_t != tgt_t && !m->tgt_table.from_out && !c->tied_output &&
        check_table(b, tgt_t, d, -1))
        return -1;
    if (c->output_bias && !(f->out_bias_optional && !has(b, f->out_bias)) &&
        view(b, f->out_bias, f->out_bias_rows ? 1 : c->tgt_vocab,
             f->out_bias_rows ? c->tgt_vocab : 0, &m->out.b))
        return -1;
    return 0;
}

int model_bind(model_weights *m, model_config *cfg, st_file *f, warn_fn warn,
               void *warn_user, char *err, size_t errlen)
{
    return model_bind_as(m, cfg, f, WT_F32, warn, warn_user, err, errlen);
}

int model_bind_as(model_weights *m, model_config *cfg, st_file *f, weight_type ct,
                  warn_fn warn, void *warn_user, char *err, size_t errlen)
{
    /* f32 on a CPU without AVX2 + FMA stays unpacked for OpenBLAS (fmaf in plain C is slow) */
    binder b = {.f = f, .err = err, .errlen = errlen, .ct = ct,
                .pack = ct != WT_F32 || cpu_isa() != ISA_GENERIC};
    /* stored int8 weights (tools/convert.py --dtype int8) are only read through packing */
    for (int i = 0; i < f->n; i++)
        if (f->tensors[i].dtype == ST_I8)
            b.pack = 1;
    memset(m, 0, sizeof *m);
    m->file = *f; /* the weights may be read in place: the mapping lives as long as m */
    memset(f, 0, sizeof *f);
    b.f = &m->file;
    f = &m->file;
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
    m->packed = b.pack ? aligned_alloc(64, b.pused ? b.pused : 64) : NULL;
    if (!m->arena || (b.pack && !m->packed)) {
        xerr(err, errlen, "%s: out of memory allocating %zu MB of weights", f->path,
             (b.used * sizeof(float) + b.pused) >> 20);
        goto fail;
    }
    if (b.pack)
        memset(m->packed, 0, b.pused);
    m->packed_bytes = b.pused;
    m->compute = b.pack ? ct : WT_F32;
    b.arena = m->arena;
    b.parena = m->packed;
    b.used = 0;
    b.pused = 0;
    if (bind_all(&b, m))
        goto fail;
    for (int i = 0; i < f->n && warn; i++) {
        const char *const *k = m->cfg.family->known_unused;
        while (k && *k && strcmp(*k, f->tensors[i].name) != 0)
            k++;
        if (!b.used_tensor[i] && !(k && *k)) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s: tensor \"%s\" is not used by this config", f->path,
                     f->tensors[i].name);
            warn(warn_user, msg);
        }
    }
    /* greedy search's argmax through an int8 screen of the output projection (screen.h):
     * the same tokens, a quarter of its bytes; XLATE_SCREEN=0 leaves it out. Built by the
     * first run that takes it (model_out_need). */
    m->screen_ok = (m->out.packed || m->out_src) && m->out.type != WT_INT8 &&
                   !(getenv("XLATE_SCREEN") && strcmp(getenv("XLATE_SCREEN"), "0") == 0);
    if (!(m->out_lazy = model_out_lazy_new())) {
        xerr(err, errlen, "%s: out of memory", f->path);
        goto fail;
    }
    free(b.used_tensor);
    return 0;
fail:
    free(b.used_tensor);
    model_free(m);
    return -1;
}

int model_load(model_weights *m, const char *dir, weight_type ct, warn_fn warn,
               void *warn_user, char *err, size_t errlen)
{
    model_config cfg;
    st_file f;
    char *cpath = path_join(dir, "config.json");
    int rc = -1;
    memset(m, 0, sizeof *m);
    memset(&f, 0, sizeof f);
    if (!cpath)
        return xerr(err, errlen, "out of memory");
    if (config_load(&cfg, cpath, warn, warn_user, err, errlen))
        goto done;
    /* a Hugging Face directory may hold its weights as model.safetensors, pytorch_model.bin
     * or shards of either (weights.h); xlate's own names its file in config.json */
    if (weights_open(&f, dir, cfg.weights, cfg.family != family_xlate(), NULL, err, errlen)) {
        config_free(&cfg);
        goto done;
    }
    rc = model_bind_as(m, &cfg, &f, ct, warn, warn_user, err, errlen);
done:
    free(cpath);
    return rc;
}

void model_free(model_weights *m)
{
    if (!m)
        return;
    free(m->arena);
    free(m->packed);
    screen_free(&m->out_screen);
    model_out_lazy_free(m->out_lazy);
    st_close(&m->file);
    free(m->enc);
    free(m->dec);
    config_free(&m->cfg);
    memset(m, 0, sizeof *m);
}

/* gemm.c — xlate's own products over weights packed at load (linear.h gives the layouts).
 *
 * f32, bf16, f16: y[r][n] = (acc + b[n]) with acc the one FMA chain
 *     acc = fma(x[r][0], w[0][n], 0); acc = fma(x[r][k], w[k][n], acc) for k = 1 .. K-1
 * (16-bit weights converted to f32 first, exactly), then GEMM_ADD: y[r][n] += that, GEMM_ACT:
 * act(that). A vector lane holds one output n, so the AVX-512 (16 lanes), AVX2 (2 x 8 lanes) and
 * plain-C (fmaf) paths run the very same chain and give the same bits; and since an output's
 * chain never involves another row, the result cannot depend on the rows sharing the call or
 * on how the work is split over threads: batch-invariant by construction.
 *
 * int8 (weights; activations int16): every row of x is quantized by itself, symmetric, to
 * L = min(32767, (2^31 - 1) / (127 K4)) levels (the most that keeps every int32 sum below
 * overflow, whatever the values): s = max|x| / L, q[k] = round-to-even(x[k] * (L / max|x|));
 * then isum = sum_k q[k] qw[n][k] (exact in int32, so its order does not matter), and
 *     y[r][n] = (float)isum * (s * scale[n]) + b[n],
 * the float steps in that order in every path (the epilogue below is shared). 16-bit
 * activations, not 8: on the default model 8-bit ones left 91.6% of the test set's lines as f32
 * translates them, 16-bit ones 95% (the weights' rounding is then the only loss), while the
 * bytes read per token, the weights', stay int8. Products: vpmaddwd on int8 weights widened to
 * int16 (AVX2, AVX-512BW: pairs of products, exact), fused with the add by VNNI's vpdpwssd. A
 * row with inf or NaN gets scale NaN, so its outputs are NaN (the decoder's finite check
 * reports it).
 *
 * The work is cut into tasks of (panel range, row range); each task runs tiles of RT rows x PT
 * panels (registers of accumulators), a lone row tiles of P1 panels. This file holds the packing,
 * the job, the plain-C tile and the dispatch; the vector tiles are in gemm_avx2.c and
 * gemm_avx512.c, one file an instruction set, sharing gemm_internal.h. */
#include "kernels/gemm_internal.h"
#include "kernels/simd.h"
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

static const char *const wt_names[] = {"f32", "int8", "bf16", "f16"};

const char *weight_type_name(weight_type t)
{
    return (unsigned)t < sizeof wt_names / sizeof *wt_names ? wt_names[t] : "?";
}

int weight_type_parse(const char *s)
{
    for (unsigned i = 0; s && i < sizeof wt_names / sizeof *wt_names; i++)
        if (strcasecmp(s, wt_names[i]) == 0)
            return (int)i;
    return -1;
}

static size_t up64(size_t n) { return (n + 63) & ~(size_t)63; }

size_t linear_packed_bytes(weight_type t, int out, int in)
{
    size_t n = up64(panel_bytes(t, in) * panels(out));
    if (t == WT_INT8)
        n += up64((size_t)out * sizeof(float)) + up64((size_t)out * sizeof(int32_t));
    return n;
}

/* f32 -> bf16 and f16, round to nearest even (NaN kept a NaN); bf16/f16 -> f32 exactly. */
static uint16_t to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40);
    u += 0x7fffu + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}

static uint16_t to_f16(float f)
{
    uint32_t u, sign, mag;
    memcpy(&u, &f, 4);
    sign = (u >> 16) & 0x8000u;
    mag = u & 0x7fffffffu;
    if (mag > 0x7f800000u)
        return (uint16_t)(sign | 0x7e00u);
    if (mag >= 0x477ff000u) /* rounds to 65520 or more: inf */
        return (uint16_t)(sign | 0x7c00u);
    if (mag < 0x38800000u) { /* below 2^-14: subnormal half (or zero) */
        float a;
        memcpy(&a, &mag, 4);
        /* a * 2^24 is the subnormal's integer mantissa; rint rounds to even */
        return (uint16_t)(sign | (uint32_t)rintf(a * 16777216.0f));
    }
    {
        uint32_t r = mag + 0xfffu + ((mag >> 13) & 1);
        return (uint16_t)(sign | ((r - 0x38000000u) >> 13));
    }
}

static float bf16_f32(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* bf16 as the bf16 kernels take it: rounded to nearest even, a subnormal flushed to a zero of
 * its sign (AVX512-BF16's vdpbf16ps treats subnormal inputs as zero). */
static uint16_t to_bf16_daz(float f)
{
    uint16_t h = to_bf16(f);
    return (h & 0x7f80u) == 0 ? (uint16_t)(h & 0x8000u) : h;
}

/* weight k of column c in a bf16 panel: pairs of k side by side, [K4/2][16][2] */
static size_t bf16_at(int k, int c) { return (size_t)(k / 2) * PANEL * 2 + (size_t)c * 2 + k % 2; }

/* a result that vdpbf16ps would flush (subnormal) -> a zero of its sign */
static float ftz(float f)
{
    return fabsf(f) < 0x1p-126f ? copysignf(0.0f, f) : f;
}

/* one column's chain over bf16 pairs, as vdpbf16ps runs it: per pair the odd k, then the even k,
 * each one FMA with its result flushed to zero when subnormal. xb: the row as bf16 (to_bf16_daz),
 * K4 long with zeros past K; w: the panel; c: the column. */
static float bf16_chain(const uint16_t *xb, const uint16_t *w, int K, int c)
{
    float acc = 0;
    for (int k = 0; k < k4(K); k += 2) {
        acc = ftz(fmaf(bf16_f32(xb[k + 1]), bf16_f32(w[bf16_at(k + 1, c)]), acc));
        acc = ftz(fmaf(bf16_f32(xb[k]), bf16_f32(w[bf16_at(k, c)]), acc));
    }
    return acc;
}

static float f16_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ffu, u;
    float f;
    if (e == 0) { /* zero or subnormal: m * 2^-24, exact */
        f = (float)m * 5.9604644775390625e-8f;
        return sign ? -f : f;
    }
    u = e == 31 ? sign | 0x7f800000u | (m << 13) : sign | ((e + 112) << 23) | (m << 13);
    memcpy(&f, &u, 4);
    return f;
}

/* weight k of column c of a f32, bf16 or f16 panel, as f32 */
static float panel_w(const uint8_t *panel, weight_type t, int k, int c)
{
    size_t at = (size_t)k * PANEL + c;
    return t == WT_F32 ? ((const float *)panel)[at]
         : t == WT_BF16 ? bf16_f32(((const uint16_t *)panel)[bf16_at(k, c)])
                        : f16_f32(((const uint16_t *)panel)[at]);
}

void linear_pack_rows(linear *l, void *mem, weight_type t, int r0, int r1, const float *w_rows)
{
    int K = l->in, K4 = k4(K), N = l->out;
    size_t pb = panel_bytes(t, K);
    uint8_t *base = mem;
    float *scale = (float *)(base + up64(pb * panels(N)));
    l->type = t;
    l->packed = mem;
    l->scale = t == WT_INT8 ? scale : NULL;
    for (int n = r0; n < r1; n++) {
        const float *w = w_rows + (size_t)(n - r0) * K;
        uint8_t *panel = base + (size_t)(n / PANEL) * pb;
        int c = n % PANEL;
        switch (t) {
        case WT_F32:
            for (int k = 0; k < K; k++)
                ((float *)panel)[(size_t)k * PANEL + c] = w[k];
            break;
        case WT_BF16:
            for (int k = 0; k < K; k++)
                ((uint16_t *)panel)[bf16_at(k, c)] = to_bf16_daz(w[k]);
            break;
        case WT_F16:
            for (int k = 0; k < K; k++)
                ((uint16_t *)panel)[(size_t)k * PANEL + c] = to_f16(w[k]);
            break;
        case WT_INT8: {
            float amax = 0, inv, pre;
            for (int k = 0; k < K; k++)
                amax = fabsf(w[k]) > amax ? fabsf(w[k]) : amax;
            pre = gemm_q_pre(amax);
            inv = amax > 0 ? 127.0f / (amax * pre) : 0;
            scale[n] = amax / 127.0f;
            for (int k = 0; k < K4; k++) {
                int q = k < K ? (int)rintf(w[k] * pre * inv) : 0;
                ((int8_t *)panel)[(size_t)(k / 4) * PANEL * 4 + c * 4 + k % 4] = (int8_t)q;
            }
            break;
        }
        }
    }
}

void linear_pack_rows_q8(linear *l, void *mem, int r0, int r1, const int8_t *q_rows,
                         const float *scales)
{
    int K = l->in, K4 = k4(K), N = l->out;
    size_t pb = panel_bytes(WT_INT8, K);
    uint8_t *base = mem;
    float *scale = (float *)(base + up64(pb * panels(N)));
    l->type = WT_INT8;
    l->packed = mem;
    l->scale = scale;
    for (int n = r0; n < r1; n++) {
        const int8_t *q = q_rows + (size_t)(n - r0) * K;
        int8_t *panel = (int8_t *)(base + (size_t)(n / PANEL) * pb);
        scale[n] = scales[n - r0];
        for (int k = 0; k < K4; k++)
            panel[(size_t)(k / 4) * PANEL * 4 + (n % PANEL) * 4 + k % 4] = k < K ? q[k] : 0;
    }
}

void linear_unpack_row(const linear *l, int n, float *out)
{
    const uint8_t *panel =
        (const uint8_t *)l->packed + (size_t)(n / PANEL) * panel_bytes(l->type, l->in);
    for (int k = 0; k < l->in; k++)
        out[k] = panel_w(panel, l->type, k, n % PANEL);
}


/* y from a tile of accumulators: bias, the residual add, the activation. The same float steps
 * whatever path made the tile. */
/* 4 floats at a time in the epilogue (SSE2 on every x86-64; element-wise IEEE operations, so
 * the same results as one at a time) */
typedef float v4f __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));

/* One element's value before the output's rule: the accumulator (int8: times xs * scale[n]),
 * then + bias. Inline in the one pass below; the same steps as the scalar tail's. */
static inline v4f ep_value(const linear *l, const void *tile, int c, float xs, const float *sc,
                           const float *b)
{
    v4f a;
    if (l->type == WT_INT8) {
        v4i si;
        v4f s4;
        memcpy(&si, (const int32_t *)tile + c, sizeof si);
        memcpy(&s4, sc + c, sizeof s4);
        a = __builtin_convertvector(si, v4f) * (xs * s4);
    } else {
        memcpy(&a, (const float *)tile + c, sizeof a);
    }
    if (b) {
        v4f bb;
        memcpy(&bb, b + c, sizeof bb);
        a = a + bb;
    }
    return a;
}

static inline float ep_value1(const linear *l, const void *tile, int c, float xs, const float *sc,
                              const float *b)
{
    float a = l->type == WT_INT8 ? (float)((const int32_t *)tile)[c] * (xs * sc[c])
                                 : ((const float *)tile)[c];
    return b ? a + b[c] : a;
}

/* One pass a row: the value (ep_value) goes straight to y by the output's rule. It was three
 * (int8 scale, bias, then the rule, through a buffer) and a memcpy: 3-4% of a beam-4 batch-32
 * run at OPUS-MT size, the output projection's 58,101 columns a row. */
static void epilogue(const pk_job *j, int r0, int rr, int p0, int pw, const void *tile)
{
    const linear *l = j->l;
    int N = l->out, n0 = p0 * PANEL, n1 = (p0 + pw) * PANEL < N ? (p0 + pw) * PANEL : N;
    int n = n1 - n0, n4 = n & ~3;
    const float *b = l->b ? l->b + n0 : NULL, *sc = l->type == WT_INT8 ? l->scale + n0 : NULL;
    const v4f zero = {0, 0, 0, 0};
    for (int r = 0; r < rr; r++) {
        float *y = j->y + (size_t)(r0 + r) * N + n0;
        /* int32 or float, the same size */
        const void *t = (const float *)tile + (size_t)r * pw * PANEL;
        float xs = l->type == WT_INT8 ? j->xs[r0 + r] : 0;
        int c;
        if (j->out == GEMM_ADD) { /* y = y + v */
            for (c = 0; c < n4; c += 4) {
                v4f a, v = ep_value(l, t, c, xs, sc, b);
                memcpy(&a, y + c, sizeof a);
                a = a + v;
                memcpy(y + c, &a, sizeof a);
            }
            for (; c < n; c++)
                y[c] = y[c] + ep_value1(l, t, c, xs, sc, b);
        } else if (j->out == GEMM_ACT && j->act == ACT_RELU) {
            /* y = v > 0 ? v : +0 (NaN and -0 to +0, as simd_relu's max_ps and its twin), in
             * this pass rather than a call of activate on each row of a tile (128 rows x 2048
             * a layer at beam 4, batch 32) */
            for (c = 0; c < n4; c += 4) {
                v4f v = ep_value(l, t, c, xs, sc, b);
                v4i keep = (v4i)(v > zero) & (v4i)v;
                memcpy(y + c, &keep, sizeof keep);
            }
            for (; c < n; c++) {
                float v = ep_value1(l, t, c, xs, sc, b);
                y[c] = v > 0 ? v : 0;
            }
        } else {
            for (c = 0; c < n4; c += 4) {
                v4f v = ep_value(l, t, c, xs, sc, b);
                memcpy(y + c, &v, sizeof v);
            }
            for (; c < n; c++)
                y[c] = ep_value1(l, t, c, xs, sc, b);
            if (j->out == GEMM_ACT)
                activate(y, (size_t)n, j->act);
        }
    }
}

static void pk_task(void *arg, int task, int thread)
{
    const pk_job *j = arg;
    int NP = panels(j->l->out), ct = task % j->n_ct, rt = task / j->n_ct;
    int pa = ct * j->cp, pe = pa + j->cp < NP ? pa + j->cp : NP;
    int ra = rt * j->rb, re = ra + j->rb < j->M ? ra + j->rb : j->M;
    int step = j->M == 1 ? j->P1 : j->PT;
    /* int32 or float accumulators of one tile */
    _Alignas(64) float tile[MAXR * MAXP * PANEL];
    (void)thread;
    for (int p0 = pa; p0 < pe; p0 += step) {
        int pw = pe - p0 < step ? pe - p0 : step;
        for (int r0 = ra; r0 < re; r0 += j->RT) {
            int rr = re - r0 < j->RT ? re - r0 : j->RT;
            j->tile(j, r0, rr, p0, pw, tile);
            epilogue(j, r0, rr, p0, pw, tile);
        }
    }
}

/* ---- plain C ---------------------------------------------------------------------------- */

static void tile_c(const pk_job *j, int r0, int rr, int p0, int pw, void *tile)
{
    const linear *l = j->l;
    int K = l->in;
    size_t pb = panel_bytes(l->type, K);
    for (int p = 0; p < pw; p++) {
        const uint8_t *w = (const uint8_t *)l->packed + (size_t)(p0 + p) * pb;
        for (int r = 0; r < rr; r++) {
            if (l->type == WT_INT8) {
                const int16_t *q = j->xq + (size_t)(r0 + r) * k4(K);
                int32_t *out = (int32_t *)tile + (size_t)r * pw * PANEL + p * PANEL;
                for (int c = 0; c < PANEL; c++) {
                    int32_t s = 0;
                    for (int k = 0; k < k4(K); k++)
                        s += (int32_t)q[k] *
                             (int32_t)((const int8_t *)w)[(size_t)(k / 4) * 64 + c * 4 + k % 4];
                    out[c] = s;
                }
                continue;
            }
            if (l->type == WT_BF16) {
                const uint16_t *xb = (const uint16_t *)j->xq + (size_t)(r0 + r) * k4(K);
                float *out = (float *)tile + (size_t)r * pw * PANEL + p * PANEL;
                for (int c = 0; c < PANEL; c++)
                    out[c] = bf16_chain(xb, (const uint16_t *)w, K, c);
                continue;
            }
            {
                const float *x = j->x + (size_t)(r0 + r) * K;
                float acc[PANEL], *out = (float *)tile + (size_t)r * pw * PANEL + p * PANEL;
                for (int c = 0; c < PANEL; c++)
                    acc[c] = 0;
                for (int k = 0; k < K; k++)
                    for (int c = 0; c < PANEL; c++) {
                        float wv = panel_w(w, l->type, k, c);
                        acc[c] = fmaf(x[k], wv, acc[c]);
                    }
                memcpy(out, acc, sizeof acc);
            }
        }
    }
}

/* The activations' levels for K inputs (see the top). */
static float act_levels(int K)
{
    long long L = 2147483647LL / (127LL * k4(K));
    return (float)(L > 32767 ? 32767 : L);
}

float gemm_int8_act_levels(int K) { return act_levels(K); }

float gemm_packed_output(const linear *l, const float *x, int n)
{
    int K = l->in;
    const uint8_t *panel = (const uint8_t *)l->packed + (size_t)(n / PANEL) * panel_bytes(l->type, K);
    size_t c = (size_t)(n % PANEL);
    float acc = 0;
    if (l->type == WT_BF16) {
        uint16_t xb[8192];
        if (k4(K) > 8192)
            return NAN;
        for (int k = 0; k < k4(K); k++)
            xb[k] = k < K ? to_bf16_daz(x[k]) : 0;
        acc = bf16_chain(xb, (const uint16_t *)panel, K, (int)c);
        return l->b ? acc + l->b[n] : acc;
    }
    for (int k = 0; k < K; k++) {
        float wv = panel_w(panel, l->type, k, (int)c);
        acc = fmaf(x[k], wv, acc);
    }
    return l->b ? acc + l->b[n] : acc;
}

void gemm_packed_column(const linear *l, int n, float *w)
{
    int K = l->in;
    const uint8_t *panel = (const uint8_t *)l->packed + (size_t)(n / PANEL) * panel_bytes(l->type, K);
    size_t c = (size_t)(n % PANEL);
    for (int k = 0; k < K; k++)
        w[k] = panel_w(panel, l->type, k, (int)c);
}

void linear_pack_int8_copy(linear *dst, void *mem, const linear *src, int p0, int p1,
                           float *absq)
{
    int K = src->in, N = src->out;
    size_t sb = panel_bytes(src->type, K), db = panel_bytes(WT_INT8, K);
    float *scale = (float *)((uint8_t *)mem + up64(db * panels(N)));
    dst->out = N;
    dst->in = K;
    dst->type = WT_INT8;
    dst->packed = mem;
    dst->scale = scale;
    for (int p = p0; p < p1; p++) {
        const uint8_t *sp = (const uint8_t *)src->packed + (size_t)p * sb;
        int8_t *dp = (int8_t *)mem + (size_t)p * db;
        float amax[PANEL] = {0}, inv[PANEL], pre[PANEL], v[PANEL];
        int32_t sum[PANEL] = {0};
        for (int pass = 0; pass < 2; pass++) {
            for (int k = 0; k < K; k++) {
                for (int c = 0; c < PANEL; c++)
                    v[c] = panel_w(sp, src->type, k, c);
                if (pass == 0) {
                    for (int c = 0; c < PANEL; c++)
                        amax[c] = fabsf(v[c]) > amax[c] ? fabsf(v[c]) : amax[c];
                    continue;
                }
                for (int c = 0; c < PANEL; c++) {
                    /* a column with an inf weight (model.c refuses those at load) gets zeros
                     * and absq inf, an unbounded error the screen falls back on: never a
                     * conversion of NaN to int */
                    int q = isfinite(amax[c]) ? (int)rintf(v[c] * pre[c] * inv[c]) : 0;
                    dp[(size_t)(k / 4) * PANEL * 4 + c * 4 + k % 4] = (int8_t)q;
                    sum[c] += q < 0 ? -q : q;
                }
            }
            /* as linear_pack_rows quantizes a row */
            for (int c = 0; pass == 0 && c < PANEL; c++) {
                pre[c] = gemm_q_pre(amax[c]);
                inv[c] = amax[c] > 0 ? 127.0f / (amax[c] * pre[c]) : 0;
            }
        }
        for (int c = 0; c < PANEL && p * PANEL + c < N; c++) {
            scale[p * PANEL + c] = amax[c] / 127.0f;
            absq[p * PANEL + c] = isfinite(amax[c]) ? scale[p * PANEL + c] * (float)sum[c]
                                                    : INFINITY;
        }
    }
}

/* Row x quantized: q[K4] (zeros past K); returns the scale. amax: max|x[k]|. */
float gemm_quantize_tail(int16_t *q, const float *x, int K, int k, float amax)
{
    float L = act_levels(K), pre = gemm_q_pre(amax), inv = amax > 0 ? L / (amax * pre) : 0;
    for (; k < k4(K); k++)
        q[k] = k < K ? (int16_t)rintf(x[k] * pre * inv) : 0;
    return amax / L;
}

/* Row x as bf16 for the bf16 kernels (to_bf16_daz), zeros past K; the "scale" is unused. */
static float bf16_row(int16_t *q, const float *x, int K)
{
    for (int k = 0; k < k4(K); k++)
        q[k] = (int16_t)(k < K ? to_bf16_daz(x[k]) : 0);
    return 1;
}

static float quantize_row_c(int16_t *q, const float *x, int K)
{
    float amax = 0;
    if (!simd_all_finite(x, (size_t)K)) {
        memset(q, 0, (size_t)k4(K) * sizeof *q);
        return NAN;
    }
    for (int k = 0; k < K; k++)
        amax = fabsf(x[k]) > amax ? fabsf(x[k]) : amax;
    return gemm_quantize_tail(q, x, K, 0, amax);
}


/* ---- dispatch --------------------------------------------------------------------------- */

typedef struct {
    pk_job *j;
    int16_t *xq;
    float *xs;
    int rows_per_task;
    float (*quant)(int16_t *, const float *, int);
} quant_job;

static void quant_task(void *arg, int task, int thread)
{
    const quant_job *q = arg;
    int K = q->j->l->in, r0 = task * q->rows_per_task;
    int r1 = r0 + q->rows_per_task < q->j->M ? r0 + q->rows_per_task : q->j->M;
    (void)thread;
    for (int r = r0; r < r1; r++)
        q->xs[r] = q->quant(q->xq + (size_t)r * k4(K), q->j->x + (size_t)r * K, K);
}

const char *gemm_path_name(weight_type t, enum cpu_isa isa)
{
    if (isa >= ISA_AVX512_VNNI && t == WT_INT8)
        return "avx512vnni";
    if (isa >= ISA_AVX512_BF16 && t == WT_BF16)
        return "avx512bf16";
    if (isa >= ISA_AVX512)
        return "avx512";
    return isa >= ISA_AVX2 ? "avx2" : "generic";
}

/* int8 without room for the quantized rows (out of memory, or no pool): one row at a time,
 * quantized on the stack, single-threaded; the same numbers. A row too long for the stack
 * buffer gets NaN, which the decoder's finite check reports. */
static void gemm_int8_by_row(const pk_job *j0, float (*quant)(int16_t *, const float *, int))
{
    _Alignas(64) int16_t q[8192];
    int K = j0->l->in, N = j0->l->out;
    for (int r = 0; r < j0->M; r++) {
        pk_job j = *j0;
        float xs;
        j.M = 1;
        j.x = j0->x + (size_t)r * K;
        j.y = j0->y + (size_t)r * N;
        if (k4(K) > (int)(sizeof q / sizeof *q)) {
            for (int n = 0; n < N; n++)
                j.y[n] = NAN;
            continue;
        }
        xs = quant(q, j.x, K);
        j.xq = q;
        j.xs = &xs;
        j.rb = 1;
        j.cp = panels(N);
        j.n_ct = 1;
        pk_task(&j, 0, 0);
    }
}

void gemm_packed(pool *p, float *y, const float *x, const linear *l, int M, enum gemm_out out,
                 activation_kind act, enum cpu_isa isa)
{
    pk_job j = {y, x, l, M, out, act, NULL, NULL, tile_c, 1, 1, 1, 0, 0, 0};
    int nt = pool_threads(p), NP = panels(l->out), n_rt, want, step;
    float (*quant)(int16_t *, const float *, int) = quantize_row_c;
    if (M <= 0)
        return;
#ifdef HAVE_X86
    if (isa >= ISA_AVX512) {
        static const tile_fn f[] = {tile_512_f32, tile_512_i8, tile_512_bf16, tile_512_f16};
        j.tile = f[l->type];
        /* int8 holds two widened registers of weights and two accumulators a panel: 4 panels
         * for a lone row keep all of them in the 32 registers */
        j.RT = 4, j.PT = l->type == WT_INT8 ? 2 : 4, j.P1 = l->type == WT_INT8 ? 4 : 8;
        if (l->type == WT_F32 || l->type == WT_F16)
            j.RT = 6; /* gemm_avx512.c: CASES_512_TALL */
        quant = quantize_row_512;
        if (isa >= ISA_AVX512_VNNI && l->type == WT_INT8)
            j.tile = tile_vnni;
        if (isa >= ISA_AVX512_BF16 && l->type == WT_BF16)
            j.tile = tile_bf16;
    } else if (isa >= ISA_AVX2) {
        static const tile_fn f[] = {tile_avx2_f32, tile_avx2_i8, tile_avx2_bf16, tile_avx2_f16};
        int narrow = l->type == WT_INT8 || l->type == WT_BF16; /* more registers a panel */
        j.tile = f[l->type];
        j.RT = narrow ? 2 : 3, j.PT = narrow ? 1 : 2;
        j.P1 = narrow ? 2 : 4;
        quant = quantize_row_avx2;
    }
#endif
    if (l->type == WT_BF16)
        quant = bf16_row;
    if (l->type == WT_INT8 || l->type == WT_BF16) { /* the rows converted first */
        size_t need = up64((size_t)M * sizeof(float)) + (size_t)M * k4(l->in) * sizeof(int16_t);
        uint8_t *s = pool_scratch(p, need);
        quant_job q;
        if (!s) {
            gemm_int8_by_row(&j, quant);
            return;
        }
        q.j = &j;
        q.xs = (float *)s;
        q.xq = (int16_t *)(s + up64((size_t)M * sizeof(float)));
        q.rows_per_task = 16;
        q.quant = quant;
        j.xs = q.xs;
        j.xq = q.xq;
        pool_run(p, (M + 15) / 16, quant_task, &q);
    }
    /* rows per task: whole tiles, at most 64 rows, or 128 for weights too large to stay in
     * cache (a vocabulary's output projection: 119 MB in f32 at OPUS-MT's 58,101 x 512), which
     * each block of rows reads once from memory: beam search's 128 rows a step (batch 32, beam
     * 4) read them once instead of twice, 3-5% less time for the product at 1 thread (the rows,
     * 128 x K floats at K <= 512, stay in L2); then enough column tasks for 4 a thread. The
     * split never changes a result: each output is one chain of its own row. */
    j.rb = linear_packed_bytes(l->type, l->out, l->in) > ((size_t)16 << 20) && l->in <= 512 ? 128
                                                                                            : 64;
    j.rb = M <= j.rb ? M : j.rb;
    n_rt = (M + j.rb - 1) / j.rb;
    step = M == 1 ? j.P1 : j.PT;
    want = (4 * nt + n_rt - 1) / n_rt;
    j.cp = (NP + want - 1) / want;
    j.cp = (j.cp + step - 1) / step * step;
    j.n_ct = (NP + j.cp - 1) / j.cp;
    pool_run(p, j.n_ct * n_rt, pk_task, &j);
}

/* test_kernels.c — the own kernels of src/kernels/gemm.c over packed weights, for every weight
 * type (f32, int8, bf16, f16) and every instruction-set path this CPU has:
 *   - the plain-C path against a double-precision computation written here: for f32 within the
 *     bound of a K-term float sum, (K + 1) 2^-24 sum|x w|; for bf16/f16 the weights rounded
 *     here by hand first, for bf16 the activations too (bf16 x bf16 products, as vdpbf16ps); for int8 the activations quantized here as gemm.c specifies (int16,
 *     L = min(32767, (2^31 - 1) / (127 K4)) levels a row), the integer sums over the packed
 *     int8 weights read back from the layout linear.h documents, then the float steps in
 *     double; and the weights' rounding: scale max|w| / 127 and half a step at most, row by row;
 *   - each vector path bit-identical to the plain-C path (every output is the same chain / the
 *     same exact integer sum);
 *   - batch invariance: a row computed alone, or among 2..37 rows at any position, with 1 or 3
 *     threads, gives the same bits;
 *   - odd shapes: K and N not multiples of 16 (or 4), M from 1 to 37. */
#include "check.h"
#include "kernels/ops.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAXM 37

static float frand(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (float)((*s >> 8) & 0xffff) / 65536.0f - 0.5f;
}

/* bf16 by hand: round to nearest even on the upper 16 bits */
static double round_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    u = (u + 0x7fffu + ((u >> 16) & 1)) & 0xffff0000u;
    memcpy(&f, &u, 4);
    return f;
}

/* the weight as the kernel should see it */
static double wq(weight_type t, float w)
{
    if (t == WT_BF16)
        return round_bf16(w);
    if (t == WT_F16)
        return (double)(_Float16)w; /* the compiler's conversion rounds to nearest even */
    return w;
}

/* y (computed with the plain-C path) against the oracle; returns the worst error over the bound */
/* int8 weight [n][k] of the packed layout */
static int qw_at(const linear *l, int n, int k)
{
    int K4 = (l->in + 3) & ~3;
    return ((const int8_t *)l->packed)[(size_t)(n / 16) * K4 * 16 + (k / 4) * 64 + (n % 16) * 4 +
                                       k % 4];
}

static double oracle_err(const float *y, const float *y0, const float *x, const float *w,
                         const linear *l, int M, int N, int K, weight_type t, enum gemm_out out)
{
    const float *b = l->b;
    double worst = 0;
    for (int r = 0; r < M; r++) {
        const float *xr = x + (size_t)r * K;
        double sx = 0, xmax = 0;
        long qx[2048];
        for (int k = 0; k < K; k++)
            xmax = fabs(xr[k]) > xmax ? fabs(xr[k]) : xmax;
        if (t == WT_INT8) {
            long long L = 2147483647LL / (127LL * ((K + 3) & ~3));
            /* below 2^-100, Lf / xmax overflows: the row is scaled by 2^100 first (exact) */
            float pre = xmax < 0x1p-100 ? 0x1p100f : 1.0f, Lf = (float)(L > 32767 ? 32767 : L);
            float inv = xmax > 0 ? Lf / ((float)xmax * pre) : 0;
            sx = (float)xmax / Lf;
            for (int k = 0; k < K; k++)
                qx[k] = lrintf(xr[k] * pre * inv);
        }
        for (int n = 0; n < N; n++) {
            const float *wn = w + (size_t)n * K;
            double s = 0, mag = 0, want, got = y[(size_t)r * N + n], bound;
            if (t == WT_INT8) {
                long long is = 0;
                for (int k = 0; k < K; k++)
                    is += (long long)qx[k] * qw_at(l, n, k);
                s = (double)is * ((float)sx * l->scale[n]);
                mag = fabs(s) + 1e-30;
                bound = 4 * 0x1p-24; /* three float roundings in the epilogue */
            } else {
                for (int k = 0; k < K; k++) {
                    /* bf16: the activations rounded too (subnormals flushed: none here) */
                    double xk = t == WT_BF16 ? round_bf16(xr[k]) : xr[k];
                    s += xk * wq(t, wn[k]);
                    mag += fabs(xk * wq(t, wn[k]));
                }
                mag += 1e-30;
                bound = (K + 2) * 0x1p-24;
            }
            want = s + (b ? b[n] : 0);
            mag += b ? fabs(b[n]) : 0;
            if (out == GEMM_ADD) {
                want += y0[(size_t)r * N + n];
                mag += fabs(y0[(size_t)r * N + n]);
            } else if (out == GEMM_ACT) {
                want = want > 0 ? want : 0;
            }
            if (!(fabs(got - want) / (bound * mag) <= worst)) /* NaN: worst becomes inf */
                worst = isnan(got) || isnan(want) ? INFINITY : fabs(got - want) / (bound * mag);
        }
    }
    return worst;
}

static int same_bits(const float *a, const float *b, size_t n)
{
    return memcmp(a, b, n * sizeof(float)) == 0;
}

static void shape(int N, int K, weight_type t, int with_bias, enum gemm_out out)
{
    unsigned seed = (unsigned)(N * 7919 + K * 31 + t);
    size_t bytes = linear_packed_bytes(t, N, K);
    float *w = malloc(sizeof(float) * N * K), *b = malloc(sizeof(float) * N);
    float *x = malloc(sizeof(float) * MAXM * K), *y0 = malloc(sizeof(float) * MAXM * N);
    float *ref = malloc(sizeof(float) * MAXM * N), *y = malloc(sizeof(float) * MAXM * N);
    void *mem = aligned_alloc(64, bytes), *mem2 = aligned_alloc(64, bytes);
    linear l = {.b = with_bias ? b : NULL, .out = N, .in = K}, l2 = l;
    char what[200], tag[96];
    const char *outs[] = {"set", "add", "relu"};
    int threads[] = {1, 3};

    snprintf(tag, sizeof tag, "%s %dx%d%s, %s", weight_type_name(t), N, K,
             with_bias ? " + bias" : "", outs[out]);
    for (int i = 0; i < N * K; i++)
        w[i] = frand(&seed);
    for (int i = 0; i < N; i++)
        b[i] = frand(&seed);
    for (int i = 0; i < MAXM * K; i++)
        x[i] = 4 * frand(&seed);
    x[3 * K] = 0; /* a row of zeros, for int8's scale 0 */
    if (t == WT_INT8) { /* rows whose max|.| / 127 (or levels / max) overflows: UBSan's inf-to-int
                         * in the fuzzer before the 2^100 rule; a subnormal activation row, and a
                         * weight row of max 5e-39 */
        for (int k = 0; k < K; k++)
            x[(size_t)7 * K + k] *= 1e-39f;
        for (int k = 0; k < K; k++)
            w[(size_t)(N > 2 ? 2 : 0) * K + k] *= 1e-38f;
    }
    for (int k = 0; k < K; k++)
        x[(size_t)5 * K + k] = 0;
    for (int i = 0; i < MAXM * N; i++)
        y0[i] = frand(&seed);
    memset(mem, 0, bytes);
    memset(mem2, 0, bytes);
    linear_pack_rows(&l, mem, t, 0, N, w);
    /* in pieces, out of order: the same bytes */
    linear_pack_rows(&l2, mem2, t, N / 3, N, w + (size_t)(N / 3) * K);
    linear_pack_rows(&l2, mem2, t, 0, N / 3, w);
    snprintf(what, sizeof what, "%s: packing in pieces gives the same bytes", tag);
    check(memcmp(mem, mem2, bytes) == 0, what, "differ");

    /* the plain-C path against the oracle */
    memcpy(ref, y0, sizeof(float) * MAXM * N);
    gemm_packed(NULL, ref, x, &l, MAXM, out, ACT_RELU, ISA_GENERIC);
    snprintf(what, sizeof what, "%s: plain C within the oracle's bound", tag);
    {
        double e = oracle_err(ref, y0, x, w, &l, MAXM, N, K, t, out);
        check(e <= 1, what, "error %.3g of the bound", e);
    }
    if (t == WT_INT8) { /* each row: scale max|w| / 127, every weight within half a step */
        int worse = -1;
        for (int n = 0; n < N && worse < 0; n++) {
            double wmax = 0;
            for (int k = 0; k < K; k++)
                wmax = fabs(w[(size_t)n * K + k]) > wmax ? fabs(w[(size_t)n * K + k]) : wmax;
            /* a subnormal scale is rounded to 2^-149: up to 127 such steps off at q = 127 */
            if (fabs(l.scale[n] - wmax / 127) > 1e-6 * wmax / 127 + 0x1p-149)
                worse = n;
            for (int k = 0; k < K; k++) {
                double v = w[(size_t)n * K + k];
                int q = qw_at(&l, n, k);
                if (q < -127 || q > 127 ||
                    !(fabs(v - q * (double)l.scale[n]) <= 0.5001 * l.scale[n] + 127 * 0x1p-149))
                    worse = n;
            }
        }
        snprintf(what, sizeof what, "%s: every weight row has scale max|w| / 127 and its weights "
                 "within half a step", tag);
        check(worse < 0, what, "row %d", worse);
    }

    for (int isa = ISA_GENERIC; isa <= (int)cpu_isa_detected(); isa++)
        for (int ti = 0; ti < 2; ti++) {
            pool *p = pool_create(threads[ti]);
            int bad = 0;
            char why[128] = "";
            /* every row alone */
            for (int r = 0; r < MAXM && !bad; r++) {
                memcpy(y, y0 + (size_t)r * N, sizeof(float) * N);
                gemm_packed(p, y, x + (size_t)r * K, &l, 1, out, ACT_RELU, isa);
                if (!same_bits(y, ref + (size_t)r * N, N))
                    bad = 1, snprintf(why, sizeof why, "row %d alone", r);
            }
            /* M rows starting at r0 */
            for (int M = 2; M <= MAXM && !bad; M += M < 9 ? 1 : 7)
                for (int r0 = 0; r0 + M <= MAXM && !bad; r0 += M < 9 ? 5 : 11) {
                    memcpy(y, y0 + (size_t)r0 * N, sizeof(float) * M * N);
                    gemm_packed(p, y, x + (size_t)r0 * K, &l, M, out, ACT_RELU, isa);
                    if (!same_bits(y, ref + (size_t)r0 * N, (size_t)M * N))
                        bad = 1, snprintf(why, sizeof why, "rows %d..%d", r0, r0 + M - 1);
                }
            snprintf(what, sizeof what, "%s: path %s, %d thread(s): every row bitwise equal "
                     "to plain C, alone or among 2..37 rows", tag,
                     gemm_path_name(t, (enum cpu_isa)isa), threads[ti]);
            check(!bad, what, "%s differs", why);
            pool_free(p);
        }
    free(w), free(b), free(x), free(y0), free(ref), free(y), free(mem), free(mem2);
}

/* bf16 with results in the subnormal range: every path flushes them as vdpbf16ps does, the
 * same bits as plain C (no oracle: the flush is the point) */
static void bf16_tiny(void)
{
    int N = 48, K = 40, M = 5;
    unsigned seed = 99;
    float w[48 * 40], x[5 * 40], ref[5 * 48], y[5 * 48];
    void *mem = aligned_alloc(64, linear_packed_bytes(WT_BF16, N, K));
    linear l = {.out = N, .in = K};
    int bad = 0, subnormal = 0;
    for (int i = 0; i < N * K; i++) /* column n's scale 2^(n/4) 1e-21: from all flushed to none */
        w[i] = frand(&seed) * 1e-21f * exp2f((float)(i / K) / 4);
    for (int i = 0; i < M * K; i++)
        x[i] = frand(&seed) * 4e-19f;
    memset(mem, 0, linear_packed_bytes(WT_BF16, N, K));
    linear_pack_rows(&l, mem, WT_BF16, 0, N, w);
    gemm_packed(NULL, ref, x, &l, M, GEMM_SET, NO_ACT, ISA_GENERIC);
    for (int isa = ISA_AVX2; isa <= (int)cpu_isa_detected(); isa++) {
        gemm_packed(NULL, y, x, &l, M, GEMM_SET, NO_ACT, (enum cpu_isa)isa);
        bad |= !same_bits(y, ref, (size_t)M * N);
    }
    /* products from 1e-41 to 1e-37: the chains that stay subnormal end as zeros */
    for (int i = 0; i < M * N; i++)
        subnormal += ref[i] == 0;
    check(!bad, "bf16 with subnormal results: every path equal to plain C", "differs");
    printf("# bf16 tiny: %d of %d outputs flushed to zero\n", subnormal, M * N);
    free(mem);
}

/* GEMM_ACT with ReLU is y = v > 0 ? v : +0 for the GEMM_SET result v (torch.relu's values;
 * NaN to 0 as simd_relu's max_ps and its twin): rows with a NaN, and negative, zero and positive
 * outputs, with and without bias, on every path */
static void relu_act(void)
{
    int N = 37, K = 19, M = 7, bad = 0, neg = 0, pos = 0;
    unsigned seed = 5;
    float w[37 * 19], b[37], x[7 * 19], set[7 * 37], y[7 * 37];
    void *mem = aligned_alloc(64, linear_packed_bytes(WT_F32, N, K));
    linear l = {.out = N, .in = K};
    for (int i = 0; i < N * K; i++)
        w[i] = frand(&seed);
    for (int i = 0; i < N; i++)
        b[i] = i % 3 == 0 ? 0.0f : frand(&seed);
    for (int i = 0; i < M * K; i++)
        x[i] = i / K == 1 ? 0.0f : frand(&seed); /* row 1: x = 0, outputs the bias */
    x[3 * K + 4] = NAN;
    memset(mem, 0, linear_packed_bytes(WT_F32, N, K));
    linear_pack_rows(&l, mem, WT_F32, 0, N, w);
    for (int withb = 0; withb < 2; withb++) {
        l.b = withb ? b : NULL;
        for (int isa = ISA_GENERIC; isa <= (int)cpu_isa_detected(); isa++) {
            gemm_packed(NULL, set, x, &l, M, GEMM_SET, NO_ACT, (enum cpu_isa)isa);
            gemm_packed(NULL, y, x, &l, M, GEMM_ACT, ACT_RELU, (enum cpu_isa)isa);
            for (int i = 0; i < M * N; i++) {
                float want = set[i] > 0 ? set[i] : 0.0f;
                bad |= memcmp(&want, &y[i], sizeof want) != 0;
                neg += set[i] < 0 || isnan(set[i]);
                pos += set[i] > 0;
            }
        }
    }
    check(!bad && neg > 0 && pos > 0, "GEMM_ACT relu: v > 0 ? v : +0 of GEMM_SET's v, bit for bit",
          "differs");
    free(mem);
}

/* Weights too large for the cache (over 16 MB packed, gemm.c then takes blocks of 128 rows
 * instead of 64: a vocabulary's output projection at beam search's 128 rows a step): 130 rows
 * at once give, on every path and thread count, the bits of the plain-C path, and so does each
 * row at the blocks' edges alone. */
static void big_rows(void)
{
    enum { N = 8500, K = 512, M = 130 };
    static const int edge[] = {0, 1, 63, 64, 127, 128, 129};
    unsigned seed = 4242;
    size_t bytes = linear_packed_bytes(WT_F32, N, K);
    float *w = malloc(sizeof(float) * N * K), *x = malloc(sizeof(float) * M * K);
    float *ref = malloc(sizeof(float) * M * N), *y = malloc(sizeof(float) * M * N);
    void *mem = aligned_alloc(64, bytes);
    linear l = {.out = N, .in = K};
    int threads[] = {1, 3};
    char what[160];
    for (size_t i = 0; i < (size_t)N * K; i++)
        w[i] = frand(&seed);
    for (size_t i = 0; i < (size_t)M * K; i++)
        x[i] = 4 * frand(&seed);
    memset(mem, 0, bytes);
    linear_pack_rows(&l, mem, WT_F32, 0, N, w);
    snprintf(what, sizeof what, "f32 %dx%d packs to %zu bytes, over the 16 MiB of 128-row blocks",
             N, K, bytes);
    check(bytes > ((size_t)16 << 20), what, "only %zu bytes", bytes);
    gemm_packed(NULL, ref, x, &l, M, GEMM_SET, ACT_RELU, ISA_GENERIC);
    for (int isa = ISA_GENERIC; isa <= (int)cpu_isa_detected(); isa++)
        for (int ti = 0; ti < 2; ti++) {
            pool *p = pool_create(threads[ti]);
            int bad = -2;
            if (isa == ISA_GENERIC && ti > 0) { /* slow, and the vector paths' bits are its */
                pool_free(p);
                continue;
            }
            if (isa != ISA_GENERIC)
                gemm_packed(p, y, x, &l, M, GEMM_SET, ACT_RELU, isa);
            if (isa == ISA_GENERIC || same_bits(y, ref, (size_t)M * N))
                bad = -1;
            for (unsigned e = 0; e < sizeof edge / sizeof *edge && bad == -1; e++) {
                gemm_packed(p, y, x + (size_t)edge[e] * K, &l, 1, GEMM_SET, ACT_RELU, isa);
                if (!same_bits(y, ref + (size_t)edge[e] * N, N))
                    bad = edge[e];
            }
            snprintf(what, sizeof what, "f32 %dx%d, %d rows: path %s, %d thread(s): the plain-C "
                     "path's bits, and each edge row's alone", N, K, M,
                     gemm_path_name(WT_F32, (enum cpu_isa)isa), threads[ti]);
            check(bad == -1, what, bad == -2 ? "the %d rows differ" : "row %d alone differs",
                  bad == -2 ? M : bad);
            pool_free(p);
        }
    free(w), free(x), free(ref), free(y), free(mem);
}

int main(void)
{
    bf16_tiny();
    relu_act();
    big_rows();
    int shapes[][2] = {{16, 16}, {37, 53}, {100, 257}, {768, 256}, {33, 1024}, {5, 3}};
    weight_type types[] = {WT_F32, WT_INT8, WT_BF16, WT_F16};
    for (int ti = 0; ti < 4; ti++)
        for (unsigned s = 0; s < sizeof shapes / sizeof *shapes; s++)
            shape(shapes[s][0], shapes[s][1], types[ti], s % 2 == 0, (enum gemm_out)(s % 3));
    return check_done();
}

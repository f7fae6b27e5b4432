/* test_screen.c — the int8 screen of an output projection (src/kernels/screen.c):
 *   - gemm_packed_output (the one output greedy rescores) bit-identical to gemm_packed's;
 *   - the bound: |output - est| <= rad for every output, the output being the kernel's float
 *     result and also the exact sum computed here in double over the weights as the kernel sees
 *     them (bf16/f16 rounded here by hand), on random rows, rows with one huge activation, tiny
 *     rows (one subnormal), a weight row of max 1e-38 (127 / max overflows), weights with a huge
 *     column entry, with and without a bias;
 *   - the argmax found from the candidates (screen_floor, screen_candidates, exact rescoring) the
 *     same as argmax over every output, also with exact ties (duplicated weight rows: the lower
 *     id wins) and with the winner banned (est = -inf);
 *   - a row with NaN, or estimates too large to bound, refused (screen_floor returns 0).
 * Run under XLATE_FORCE_ISA=generic too (.ci/run): the plain-C and AVX2 loops. */
#include "check.h"
#include "kernels/ops.h"
#include "kernels/screen.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static float frand(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (float)((*s >> 8) & 0xffff) / 65536.0f - 0.5f;
}

static double as_kernel(weight_type t, float w)
{
    if (t == WT_BF16) {
        uint32_t u;
        memcpy(&u, &w, 4);
        u = (u + 0x7fffu + ((u >> 16) & 1)) & 0xffff0000u;
        memcpy(&w, &u, 4);
        return w;
    }
    return t == WT_F16 ? (double)(_Float16)w : w;
}

/* the screened argmax of row y's outputs, est/rad its screen, banned: -1 or a token */
static int screened_argmax(const linear *l, const float *x, float *est, const float *rad, int N,
                           int banned, int *cand, int *ncand)
{
    float T, bv = 0;
    int best = -1, nc;
    if (banned >= 0)
        est[banned] = -INFINITY;
    if (!screen_floor(est, rad, N, &T))
        return -2;
    nc = screen_candidates(est, rad, N, T, cand);
    *ncand = nc;
    for (int c = 0; c < nc; c++) {
        float e = gemm_packed_output(l, x, cand[c]);
        if (best < 0 || e > bv)
            best = cand[c], bv = e;
    }
    return best;
}

static void shape(weight_type t, int N, int K, int M, int with_bias, unsigned seed)
{
    float *w = malloc((size_t)N * K * sizeof *w), *x = malloc((size_t)M * K * sizeof *x);
    float *b = with_bias ? malloc(N * sizeof *b) : NULL;
    float *y = malloc((size_t)M * N * sizeof *y), *est = malloc((size_t)M * N * sizeof *est);
    float *rad = malloc((size_t)M * N * sizeof *rad);
    int *cand = malloc(N * sizeof *cand);
    void *mem = aligned_alloc(64, linear_packed_bytes(t, N, K));
    linear l = {NULL, b, N, K, WT_F32, NULL, NULL};
    screen s;
    char what[160];
    int bits_ok = 1, bound_ok = 1, argmax_ok = 1, tie_ok = 1, ban_ok = 1;
    long cands = 0;
    double worst = 0;

    for (size_t i = 0; i < (size_t)N * K; i++)
        w[i] = frand(&seed) * 0.2f;
    w[(size_t)(N / 2) * K + 3] = 7.5f;                               /* an outlier weight */
    for (int k = 0; k < K; k++) /* a row of max 1e-38: 127 / max overflowed in the int8 copy */
        w[(size_t)(N / 4) * K + k] *= 1e-37f;
    memcpy(w + (size_t)(N - 1) * K, w + (size_t)(N / 3) * K, K * sizeof *w); /* a tie pair */
    for (int n = 0; n < N && b; n++)
        b[n] = frand(&seed) * 3;
    if (b)
        b[N - 1] = b[N / 3];
    for (int r = 0; r < M; r++)
        for (int k = 0; k < K; k++) {
            float v = frand(&seed) * 4;
            if (r % 4 == 1 && k == 5)
                v = 300; /* one huge activation */
            if (r % 4 == 2)
                v *= r == 6 ? 1e-39f : 1e-20f; /* tiny; row 6 subnormal */
            if (r % 4 == 3) /* aligned with the tied rows (not the outlier weight's k) */
                v = k == 3 ? 0 : w[(size_t)(N / 3) * K + k] * 40;
            x[(size_t)r * K + k] = v;
        }
    memset(mem, 0, linear_packed_bytes(t, N, K));
    linear_pack_rows(&l, mem, t, 0, N, w);
    if (!check(screen_build(&s, &l, NULL) == 0, "screen_build", "out of memory"))
        goto done;
    gemm_packed(NULL, y, x, &l, M, GEMM_SET, NO_ACT, cpu_isa());
    screen_estimate(&s, NULL, x, M, est, rad);
    for (int r = 0; r < M; r++) {
        const float *xr = x + (size_t)r * K;
        int want = argmax(y + (size_t)r * N, N), got, nc, second;
        for (int n = 0; n < N; n++) {
            size_t at = (size_t)r * N + n;
            double exact = b ? b[n] : 0, e = est[at], d;
            for (int k = 0; k < K; k++)
                exact += (double)xr[k] * as_kernel(t, w[(size_t)n * K + k]);
            if (memcmp(&y[at], &(float){gemm_packed_output(&l, xr, n)}, 4))
                bits_ok = 0;
            d = fmax(fabs(y[at] - e), fabs(exact - e));
            if (!(d <= rad[at]))
                bound_ok = 0;
            if (rad[at] > 0 && d / rad[at] > worst)
                worst = d / rad[at];
        }
        got = screened_argmax(&l, xr, est + (size_t)r * N, rad + (size_t)r * N, N, -1, cand, &nc);
        cands += nc;
        if (got != want)
            argmax_ok = 0;
        if (r % 4 == 3 && !(want == N / 3 && got == N / 3 &&
                            y[(size_t)r * N + N / 3] == y[(size_t)r * N + N - 1]))
            tie_ok = 0; /* the tied pair wins: the lower id */
        /* the winner banned: the next best of the exact outputs */
        y[(size_t)r * N + want] = -INFINITY;
        second = argmax(y + (size_t)r * N, N);
        if (screened_argmax(&l, xr, est + (size_t)r * N, rad + (size_t)r * N, N, want, cand,
                            &nc) != second)
            ban_ok = 0;
    }
    snprintf(what, sizeof what, "%s N=%d K=%d M=%d%s", weight_type_name(t), N, K, M,
             b ? " bias" : "");
    printf("# %s\n", what);
    check(bits_ok, "gemm_packed_output = gemm_packed, bit for bit", "it differs");
    check(bound_ok, "|output - est| <= rad, output in float and in double",
          "exceeded (worst %.3g of rad)", worst);
    check(argmax_ok, "screened argmax = full argmax", "it differs");
    check(tie_ok, "tied outputs: the lower id, as argmax", "not so");
    check(ban_ok, "winner banned: the next best", "not so");
    printf("# %s: worst |output - est| = %.3f rad, %.2f candidates a row\n", what, worst,
           (double)cands / M);

    /* a row with NaN, and one so large the bound says nothing: refused */
    x[0] = NAN;
    x[(size_t)1 * K] = 3e37f;
    screen_estimate(&s, NULL, x, 2, est, rad);
    {
        float T;
        check(!screen_floor(est, rad, N, &T) && !screen_floor(est + N, rad + N, N, &T),
              "a NaN row and a huge row refused", "not refused");
    }
    screen_free(&s);
done:
    free(w), free(x), free(b), free(y), free(est), free(rad), free(cand), free(mem);
}

/* A weight the compute type rounds to inf (f16 70000: the loader refuses those since issue 27,
 * but linear_pack_rows takes any float): the screen's int8 copy must not convert inf * 0 = NaN
 * to int (UBSan: "negation of -2147483648" in linear_pack_int8_copy); the column gets an
 * unbounded error, so every row's screen is refused and greedy computes the full projection. */
static void inf_weight(void)
{
    int N = 40, K = 24;
    float w[40 * 24], x[24], est[40], rad[40], T;
    void *mem = aligned_alloc(64, linear_packed_bytes(WT_F16, N, K));
    linear l = {NULL, NULL, N, K, WT_F32, NULL, NULL};
    screen s;
    unsigned seed = 5;
    for (int i = 0; i < N * K; i++)
        w[i] = frand(&seed);
    for (int k = 0; k < K; k++)
        x[k] = frand(&seed);
    w[17 * K + 3] = 70000; /* inf in f16 */
    memset(mem, 0, linear_packed_bytes(WT_F16, N, K));
    linear_pack_rows(&l, mem, WT_F16, 0, N, w);
    if (check(screen_build(&s, &l, NULL) == 0, "screen_build over an f16 linear with an inf weight",
              "out of memory")) {
        screen_estimate(&s, NULL, x, 1, est, rad);
        check(isinf(s.absq[17]) && isfinite(s.absq[16]) && !screen_floor(est, rad, N, &T),
              "an inf weight: its column's error unbounded, the screen refused", "absq[17] %g, "
              "absq[16] %g", (double)s.absq[17], (double)s.absq[16]);
        screen_free(&s);
    }
    free(mem);
}

int main(void)
{
    ops_init();
    inf_weight();
    printf("# ISA %s\n", cpu_isa_name(cpu_isa()));
    for (int t = 0; t < 4; t++) {
        if (t == WT_INT8)
            continue;
        shape((weight_type)t, 8000, 256, 8, 0, 1u + t);
        shape((weight_type)t, 1001, 512, 8, 1, 7u + t);
        shape((weight_type)t, 37, 33, 8, 1, 11u + t);
    }
    return check_done();
}

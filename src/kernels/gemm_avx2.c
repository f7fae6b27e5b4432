/* gemm_avx2.c — the product tiles for AVX2 + FMA (+ F16C): f32, f16, bf16 (vdpbf16ps's steps
 * emulated), int8 with vpmaddwd; the int16 quantization of a row. The same chains as gemm.c's
 * plain-C tile_c, lane by lane (gemm.c's top comment). */
#include "kernels/gemm_internal.h"
#include "kernels/simd.h"
#include <math.h>
#include <string.h>

#ifdef HAVE_X86
#include <immintrin.h>

/* ---- AVX2 + FMA (+ F16C) ---------------------------------------------------------------- */
#define T_AVX2 __attribute__((target("avx2,fma,f16c")))

/* 8 weights of a 16-bit or f32 panel row, as f32 */
INLINE T_AVX2 __m256 ld8(const uint8_t *p, weight_type t)
{
    if (t == WT_F32)
        return _mm256_loadu_ps((const float *)p);
    if (t == WT_BF16)
        return _mm256_castsi256_ps(
            _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p)), 16));
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p));
}

/* A tile of R rows x P panels, weights of type t: 2RP accumulators of 8 lanes. */
INLINE T_AVX2 void body_avx2(const pk_job *j, int r0, int p0, float *tile, weight_type t,
                             const int R, const int P)
{
    const linear *l = j->l;
    int K = l->in;
    size_t es = t == WT_F32 ? 4 : 2, pb = panel_bytes(t, K);
    const uint8_t *w = (const uint8_t *)l->packed + (size_t)p0 * pb;
    const float *x = j->x + (size_t)r0 * K;
    __m256 acc[MAXR][MAXP][2];
#pragma GCC unroll 4
    for (int r = 0; r < R; r++)
#pragma GCC unroll 8
        for (int p = 0; p < P; p++)
            acc[r][p][0] = acc[r][p][1] = _mm256_setzero_ps();
    for (int k = 0; k < K; k++) {
        __m256 w0[MAXP], w1[MAXP];
#pragma GCC unroll 8
        for (int p = 0; p < P; p++) {
            w0[p] = ld8(w + p * pb + (size_t)k * PANEL * es, t);
            w1[p] = ld8(w + p * pb + (size_t)k * PANEL * es + 8 * es, t);
        }
#pragma GCC unroll 4
        for (int r = 0; r < R; r++) {
            __m256 xv = _mm256_broadcast_ss(x + (size_t)r * K + k);
#pragma GCC unroll 8
            for (int p = 0; p < P; p++) {
                acc[r][p][0] = _mm256_fmadd_ps(xv, w0[p], acc[r][p][0]);
                acc[r][p][1] = _mm256_fmadd_ps(xv, w1[p], acc[r][p][1]);
            }
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; r++)
#pragma GCC unroll 8
        for (int p = 0; p < P; p++) {
            _mm256_store_ps(tile + (size_t)r * P * PANEL + p * PANEL, acc[r][p][0]);
            _mm256_store_ps(tile + (size_t)r * P * PANEL + p * PANEL + 8, acc[r][p][1]);
        }
}

/* int8 with vpmaddwd: a panel's 4 k-groups of 16 columns widened to int16, 4 columns x 4 k per
 * register; lane 2c holds k0, k1 of column c, lane 2c + 1 k2, k3. */
INLINE T_AVX2 void body_avx2_i8(const pk_job *j, int r0, int p0, int32_t *tile, weight_type t, const int R,
                                const int P)
{
    (void)t;
    const linear *l = j->l;
    int K4 = k4(l->in);
    size_t pb = panel_bytes(WT_INT8, l->in);
    const uint8_t *w = (const uint8_t *)l->packed + (size_t)p0 * pb;
    __m256i acc[MAXR][MAXP][4];
#pragma GCC unroll 4
    for (int r = 0; r < R; r++)
#pragma GCC unroll 8
        for (int p = 0; p < P; p++)
            acc[r][p][0] = acc[r][p][1] = acc[r][p][2] = acc[r][p][3] = _mm256_setzero_si256();
    for (int g = 0; g < K4 / 4; g++) {
        __m256i wv[MAXP][4];
#pragma GCC unroll 8
        for (int p = 0; p < P; p++)
#pragma GCC unroll 4
            for (int h = 0; h < 4; h++)
                wv[p][h] = _mm256_cvtepi8_epi16(
                    _mm_loadu_si128((const __m128i *)(w + p * pb + (size_t)g * 64 + h * 16)));
#pragma GCC unroll 4
        for (int r = 0; r < R; r++) {
            long long q4;
            __m256i xv;
            memcpy(&q4, j->xq + (size_t)(r0 + r) * K4 + 4 * g, 8);
            xv = _mm256_set1_epi64x(q4);
#pragma GCC unroll 8
            for (int p = 0; p < P; p++)
#pragma GCC unroll 4
                for (int h = 0; h < 4; h++)
                    acc[r][p][h] = _mm256_add_epi32(acc[r][p][h], _mm256_madd_epi16(wv[p][h], xv));
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; r++)
#pragma GCC unroll 8
        for (int p = 0; p < P; p++)
#pragma GCC unroll 4
            for (int h = 0; h < 4; h++) {
                /* pairs (2c, 2c + 1) -> column c: 4 columns of this quarter */
                __m256i s = _mm256_add_epi32(acc[r][p][h], _mm256_srli_epi64(acc[r][p][h], 32));
                int32_t v[8];
                _mm256_storeu_si256((__m256i *)v, s);
                for (int c = 0; c < 4; c++)
                    tile[(size_t)r * P * PANEL + p * PANEL + h * 4 + c] = v[2 * c];
            }
}

#define CASES_AVX2(F, T)                                                                         \
    switch (rr * 16 + pw) {                                                                      \
    case 0x11: F(j, r0, p0, tile, T, 1, 1); break;                                                \
    case 0x12: F(j, r0, p0, tile, T, 1, 2); break;                                                \
    case 0x13: F(j, r0, p0, tile, T, 1, 3); break;                                                \
    case 0x14: F(j, r0, p0, tile, T, 1, 4); break;                                                \
    case 0x21: F(j, r0, p0, tile, T, 2, 1); break;                                                \
    case 0x22: F(j, r0, p0, tile, T, 2, 2); break;                                                \
    case 0x31: F(j, r0, p0, tile, T, 3, 1); break;                                                \
    case 0x32: F(j, r0, p0, tile, T, 3, 2); break;                                                \
    }

#define TILE_FN_AVX2(name, T)                                                                    \
    T_AVX2 NO_ASAN void name(const pk_job *j, int r0, int rr, int p0, int pw, void *tile)\
    {                                                                                            \
        CASES_AVX2(body_avx2, T)                                                                 \
    }
TILE_FN_AVX2(tile_avx2_f32, WT_F32)
TILE_FN_AVX2(tile_avx2_f16, WT_F16)

/* a subnormal lane -> a zero of its sign (vdpbf16ps's flush of its results) */
INLINE T_AVX2 __m256 ftz8(__m256 a)
{
    const __m256 sign = _mm256_set1_ps(-0.0f);
    __m256 tiny = _mm256_cmp_ps(_mm256_andnot_ps(sign, a), _mm256_set1_ps(0x1p-126f), _CMP_LT_OQ);
    return _mm256_blendv_ps(a, _mm256_and_ps(a, sign), tiny);
}

/* bf16 as vdpbf16ps computes it (bf16_chain): a 32-byte load holds 8 columns' pairs of k; the
 * high half of a pair (odd k) goes first. */
INLINE T_AVX2 void body_avx2_bf16(const pk_job *j, int r0, int p0, float *tile, weight_type t,
                                  const int R, const int P)
{
    (void)t;
    const linear *l = j->l;
    int K4 = k4(l->in);
    size_t pb = panel_bytes(WT_BF16, l->in);
    const uint8_t *w = (const uint8_t *)l->packed + (size_t)p0 * pb;
    const uint16_t *xb = (const uint16_t *)j->xq + (size_t)r0 * K4;
    const __m256i hi = _mm256_set1_epi32((int)0xffff0000u);
    __m256 acc[MAXR][MAXP][2];
#pragma GCC unroll 4
    for (int r = 0; r < R; r++)
#pragma GCC unroll 8
        for (int p = 0; p < P; p++)
            acc[r][p][0] = acc[r][p][1] = _mm256_setzero_ps();
    for (int g = 0; g < K4 / 2; g++) {
        __m256 wo[MAXP][2], we[MAXP][2];
#pragma GCC unroll 8
        for (int p = 0; p < P; p++)
            for (int h = 0; h < 2; h++) {
                __m256i v = _mm256_loadu_si256((const __m256i *)(w + p * pb + (size_t)g * 64 +
                                                                 h * 32));
                wo[p][h] = _mm256_castsi256_ps(_mm256_and_si256(v, hi));
                we[p][h] = _mm256_castsi256_ps(_mm256_slli_epi32(v, 16));
            }
#pragma GCC unroll 4
        for (int r = 0; r < R; r++) {
            uint32_t pr;
            __m256 xo, xe;
            memcpy(&pr, xb + (size_t)r * K4 + 2 * g, 4);
            xo = _mm256_castsi256_ps(_mm256_set1_epi32((int)(pr & 0xffff0000u)));
            xe = _mm256_castsi256_ps(_mm256_set1_epi32((int)(pr << 16)));
#pragma GCC unroll 8
            for (int p = 0; p < P; p++)
                for (int h = 0; h < 2; h++) {
                    acc[r][p][h] = ftz8(_mm256_fmadd_ps(xo, wo[p][h], acc[r][p][h]));
                    acc[r][p][h] = ftz8(_mm256_fmadd_ps(xe, we[p][h], acc[r][p][h]));
                }
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; r++)
#pragma GCC unroll 8
        for (int p = 0; p < P; p++) {
            _mm256_store_ps(tile + (size_t)r * P * PANEL + p * PANEL, acc[r][p][0]);
            _mm256_store_ps(tile + (size_t)r * P * PANEL + p * PANEL + 8, acc[r][p][1]);
        }
}

T_AVX2 NO_ASAN void tile_avx2_bf16(const pk_job *j, int r0, int rr, int p0, int pw,
                                           void *tile)
{
    switch (rr * 16 + pw) {
    case 0x11: body_avx2_bf16(j, r0, p0, tile, WT_BF16, 1, 1); break;
    case 0x12: body_avx2_bf16(j, r0, p0, tile, WT_BF16, 1, 2); break;
    case 0x21: body_avx2_bf16(j, r0, p0, tile, WT_BF16, 2, 1); break;
    case 0x22: body_avx2_bf16(j, r0, p0, tile, WT_BF16, 2, 2); break;
    }
}

T_AVX2 NO_ASAN void tile_avx2_i8(const pk_job *j, int r0, int rr, int p0, int pw, void *tile)
{
    switch (rr * 16 + pw) {
    case 0x11: body_avx2_i8(j, r0, p0, tile, WT_INT8, 1, 1); break;
    case 0x12: body_avx2_i8(j, r0, p0, tile, WT_INT8, 1, 2); break;
    case 0x21: body_avx2_i8(j, r0, p0, tile, WT_INT8, 2, 1); break;
    }
}

T_AVX2 float quantize_row_avx2(int16_t *q, const float *x, int K)
{
    __m256 mx = _mm256_setzero_ps(), inv8;
    const __m256 abs = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    float m[8], amax = 0, L = gemm_int8_act_levels(K);
    int k = 0;
    if (!simd_all_finite(x, (size_t)K)) {
        memset(q, 0, (size_t)k4(K) * sizeof *q);
        return NAN;
    }
    for (; k + 8 <= K; k += 8)
        mx = _mm256_max_ps(mx, _mm256_and_ps(_mm256_loadu_ps(x + k), abs));
    _mm256_storeu_ps(m, mx);
    for (int i = 0; i < 8; i++)
        amax = m[i] > amax ? m[i] : amax;
    for (; k < K; k++)
        amax = fabsf(x[k]) > amax ? fabsf(x[k]) : amax;
    if (amax < GEMM_Q_TINY) /* zero or tiny: the scalar rule, whole row */
        return gemm_quantize_tail(q, x, K, 0, amax);
    inv8 = _mm256_set1_ps(amax > 0 ? L / amax : 0);
    for (k = 0; k + 8 <= K; k += 8) {
        __m256i i32 = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + k), inv8));
        _mm_storeu_si128((__m128i *)(q + k), _mm_packs_epi32(_mm256_castsi256_si128(i32),
                                                             _mm256_extracti128_si256(i32, 1)));
    }
    return gemm_quantize_tail(q, x, K, k, amax);
}

#endif /* HAVE_X86 */

/* gemm_avx512.c — the product tiles for AVX-512 (F, BW, VL, DQ), VNNI and AVX512-BF16: f32,
 * f16, bf16 (native vdpbf16ps or its steps emulated), int8 with vpmaddwd or vpdpwssd; the int16
 * quantization of a row. The same chains as gemm.c's plain-C tile_c, lane by lane (gemm.c's top
 * comment). */
#include "kernels/gemm_internal.h"
#include "kernels/simd.h"
#include <math.h>
#include <string.h>

#ifdef HAVE_X86
#include <immintrin.h>

/* ---- AVX-512 (F, BW, VL, DQ) and VNNI ---------------------------------------------------- */
#define T_512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c")))
#define T_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni,avx2,fma")))

INLINE T_512 __m512 ld16(const uint8_t *p, weight_type t)
{
    if (t == WT_F32)
        return _mm512_loadu_ps((const float *)p);
    if (t == WT_BF16)
        return _mm512_castsi512_ps(_mm512_slli_epi32(
            _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p)), 16));
    return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)p));
}

INLINE T_512 void body_512(const pk_job *j, int r0, int p0, float *tile, weight_type t,
                           const int R, const int P)
{
    const linear *l = j->l;
    int K = l->in;
    size_t es = t == WT_F32 ? 4 : 2, pb = panel_bytes(t, K);
    const uint8_t *w = (const uint8_t *)l->packed + (size_t)p0 * pb;
    const float *x = j->x + (size_t)r0 * K;
    __m512 acc[MAXR][MAXP];
#pragma GCC unroll 8
    for (int r = 0; r < R; r++)
#pragma GCC unroll 8
        for (int p = 0; p < P; p++)
            acc[r][p] = _mm512_setzero_ps();
    for (int k = 0; k < K; k++) {
        __m512 wv[MAXP];
#pragma GCC unroll 8
        for (int p = 0; p < P; p++)
            wv[p] = ld16(w + p * pb + (size_t)k * PANEL * es, t);
#pragma GCC unroll 8
        for (int r = 0; r < R; r++) {
            __m512 xv = _mm512_set1_ps(x[(size_t)r * K + k]);
#pragma GCC unroll 8
            for (int p = 0; p < P; p++)
                acc[r][p] = _mm512_fmadd_ps(xv, wv[p], acc[r][p]);
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; r++)
#pragma GCC unroll 8
        for (int p = 0; p < P; p++)
            _mm512_store_ps(tile + (size_t)r * P * PANEL + p * PANEL, acc[r][p]);
}

#define CASES_512(F, T)                                                                          \
    switch (rr * 16 + pw) {                                                                      \
    case 0x11: F(j, r0, p0, tile, T, 1, 1); break;                                                \
    case 0x12: F(j, r0, p0, tile, T, 1, 2); break;                                                \
    case 0x13: F(j, r0, p0, tile, T, 1, 3); break;                                                \
    case 0x14: F(j, r0, p0, tile, T, 1, 4); break;                                                \
    case 0x15: F(j, r0, p0, tile, T, 1, 5); break;                                                \
    case 0x16: F(j, r0, p0, tile, T, 1, 6); break;                                                \
    case 0x17: F(j, r0, p0, tile, T, 1, 7); break;                                                \
    case 0x18: F(j, r0, p0, tile, T, 1, 8); break;                                                \
    case 0x21: F(j, r0, p0, tile, T, 2, 1); break;                                                \
    case 0x22: F(j, r0, p0, tile, T, 2, 2); break;                                                \
    case 0x23: F(j, r0, p0, tile, T, 2, 3); break;                                                \
    case 0x24: F(j, r0, p0, tile, T, 2, 4); break;                                                \
    case 0x31: F(j, r0, p0, tile, T, 3, 1); break;                                                \
    case 0x32: F(j, r0, p0, tile, T, 3, 2); break;                                                \
    case 0x33: F(j, r0, p0, tile, T, 3, 3); break;                                                \
    case 0x34: F(j, r0, p0, tile, T, 3, 4); break;                                                \
    case 0x41: F(j, r0, p0, tile, T, 4, 1); break;                                                \
    case 0x42: F(j, r0, p0, tile, T, 4, 2); break;                                                \
    case 0x43: F(j, r0, p0, tile, T, 4, 3); break;                                                \
    case 0x44: F(j, r0, p0, tile, T, 4, 4); break;                                                \
    }

#define TILE_FN_512_BODY(name, body, T)                                                          \
    T_512 NO_ASAN void name(const pk_job *j, int r0, int rr, int p0, int pw, void *tile)\
    {                                                                                            \
        CASES_512(body, T)                                                                       \
    }
/* f32 and f16 take tiles of 6 rows x 4 panels as well (gemm_packed's RT): 24 accumulators, 4
 * registers of weights and a broadcast of 32; each weight load (and f16 conversion) then feeds 6
 * FMAs instead of 4. At 128 rows (beam 4, batch 32) the products ran 3-5% faster (one thread,
 * N 2048 x K 512 and N 512 x K 2048, f16 weights); 8 rows x 3 panels no faster than 6 x 4. */
#define CASES_512_TALL(F, T)                                                                     \
    CASES_512(F, T)                                                                              \
    switch (rr * 16 + pw) {                                                                      \
    case 0x51: F(j, r0, p0, tile, T, 5, 1); break;                                                 \
    case 0x52: F(j, r0, p0, tile, T, 5, 2); break;                                                 \
    case 0x53: F(j, r0, p0, tile, T, 5, 3); break;                                                 \
    case 0x54: F(j, r0, p0, tile, T, 5, 4); break;                                                 \
    case 0x61: F(j, r0, p0, tile, T, 6, 1); break;                                                 \
    case 0x62: F(j, r0, p0, tile, T, 6, 2); break;                                                 \
    case 0x63: F(j, r0, p0, tile, T, 6, 3); break;                                                 \
    case 0x64: F(j, r0, p0, tile, T, 6, 4); break;                                                 \
    }

#define TILE_FN_512_TALL(name, T)                                                                \
    T_512 NO_ASAN void name(const pk_job *j, int r0, int rr, int p0, int pw, void *tile)         \
    {                                                                                            \
        CASES_512_TALL(body_512, T)                                                              \
    }
TILE_FN_512_TALL(tile_512_f32, WT_F32)
TILE_FN_512_TALL(tile_512_f16, WT_F16)

/* bf16 on AVX-512 without AVX512-BF16: body_avx2_bf16's steps on 16 lanes (a subnormal result
 * found by vfpclassps) */
INLINE T_512 __m512 ftz16(__m512 a)
{
    return _mm512_mask_and_ps(a, _mm512_fpclass_ps_mask(a, 0x20), a, _mm512_set1_ps(-0.0f));
}

INLINE T_512 void body_512_bf16(const pk_job *j, int r0, int p0, float *tile, weight_type t,
                                const int R, const int P)
{
    (void)t;
    const linear *l = j->l;
    int K4 = k4(l->in);
    size_t pb = panel_bytes(WT_BF16, l->in);
    const uint8_t *w = (const uint8_t *)l->packed + (size_t)p0 * pb;
    const uint16_t *xb = (const uint16_t *)j->xq + (size_t)r0 * K4;
    const __m512i hi = _mm512_set1_epi32((int)0xffff0000u);
    __m512 acc[MAXR][MAXP];
#pragma GCC unroll 4
    for (int r = 0; r < R; r++)
#pragma GCC unroll 8
        for (int p = 0; p < P; p++)
            acc[r][p] = _mm512_setzero_ps();
    for (int g = 0; g < K4 / 2; g++) {
        __m512 wo[MAXP], we[MAXP];
#pragma GCC unroll 8
        for (int p = 0; p < P; p++) {
            __m512i v = _mm512_loadu_si512((const void *)(w + p * pb + (size_t)g * 64));
            wo[p] = _mm512_castsi512_ps(_mm512_and_si512(v, hi));
            we[p] = _mm512_castsi512_ps(_mm512_slli_epi32(v, 16));
        }
#pragma GCC unroll 4
        for (int r = 0; r < R; r++) {
            uint32_t pr;
            __m512 xo, xe;
            memcpy(&pr, xb + (size_t)r * K4 + 2 * g, 4);
            xo = _mm512_castsi512_ps(_mm512_set1_epi32((int)(pr & 0xffff0000u)));
            xe = _mm512_castsi512_ps(_mm512_set1_epi32((int)(pr << 16)));
#pragma GCC unroll 8
            for (int p = 0; p < P; p++) {
                acc[r][p] = ftz16(_mm512_fmadd_ps(xo, wo[p], acc[r][p]));
                acc[r][p] = ftz16(_mm512_fmadd_ps(xe, we[p], acc[r][p]));
            }
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; r++)
#pragma GCC unroll 8
        for (int p = 0; p < P; p++)
            _mm512_store_ps(tile + (size_t)r * P * PANEL + p * PANEL, acc[r][p]);
}

TILE_FN_512_BODY(tile_512_bf16, body_512_bf16, WT_BF16)

/* bf16 with AVX512-BF16: one vdpbf16ps per pair of k and 16 columns */
#define T_BF16 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx2,fma")))

INLINE T_BF16 void body_bf16(const pk_job *j, int r0, int p0, float *tile, weight_type t,
                             const int R, const int P)
{
    (void)t;
    const linear *l = j->l;
    int K4 = k4(l->in);
    size_t pb = panel_bytes(WT_BF16, l->in);
    const uint8_t *w = (const uint8_t *)l->packed + (size_t)p0 * pb;
    const uint16_t *xb = (const uint16_t *)j->xq + (size_t)r0 * K4;
    __m512 acc[MAXR][MAXP];
#pragma GCC unroll 4
    for (int r = 0; r < R; r++)
#pragma GCC unroll 8
        for (int p = 0; p < P; p++)
            acc[r][p] = _mm512_setzero_ps();
    for (int g = 0; g < K4 / 2; g++) {
        __m512i wv[MAXP];
#pragma GCC unroll 8
        for (int p = 0; p < P; p++)
            wv[p] = _mm512_loadu_si512((const void *)(w + p * pb + (size_t)g * 64));
#pragma GCC unroll 4
        for (int r = 0; r < R; r++) {
            uint32_t pr;
            __m512i xv;
            memcpy(&pr, xb + (size_t)r * K4 + 2 * g, 4);
            xv = _mm512_set1_epi32((int)pr);
#pragma GCC unroll 8
            for (int p = 0; p < P; p++)
                acc[r][p] = _mm512_dpbf16_ps(acc[r][p], (__m512bh)xv, (__m512bh)wv[p]);
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; r++)
#pragma GCC unroll 8
        for (int p = 0; p < P; p++)
            _mm512_store_ps(tile + (size_t)r * P * PANEL + p * PANEL, acc[r][p]);
}

T_BF16 NO_ASAN void tile_bf16(const pk_job *j, int r0, int rr, int p0, int pw, void *tile)
{
    CASES_512(body_bf16, WT_BF16)
}

/* int8, AVX-512BW: as the AVX2 path with 8 columns x 4 k a register (2 a panel) */
INLINE T_512 void body_512_i8(const pk_job *j, int r0, int p0, int32_t *tile, weight_type t, const int R,
                              const int P)
{
    (void)t;
    const linear *l = j->l;
    int K4 = k4(l->in);
    size_t pb = panel_bytes(WT_INT8, l->in);
    const uint8_t *w = (const uint8_t *)l->packed + (size_t)p0 * pb;
    __m512i acc[MAXR][MAXP][2];
#pragma GCC unroll 4
    for (int r = 0; r < R; r++)
#pragma GCC unroll 8
        for (int p = 0; p < P; p++)
            acc[r][p][0] = acc[r][p][1] = _mm512_setzero_si512();
    for (int g = 0; g < K4 / 4; g++) {
        __m512i wv[MAXP][2];
#pragma GCC unroll 8
        for (int p = 0; p < P; p++) {
            wv[p][0] = _mm512_cvtepi8_epi16(
                _mm256_loadu_si256((const __m256i *)(w + p * pb + (size_t)g * 64)));
            wv[p][1] = _mm512_cvtepi8_epi16(
                _mm256_loadu_si256((const __m256i *)(w + p * pb + (size_t)g * 64 + 32)));
        }
#pragma GCC unroll 4
        for (int r = 0; r < R; r++) {
            long long q4;
            __m512i xv;
            memcpy(&q4, j->xq + (size_t)(r0 + r) * K4 + 4 * g, 8);
            xv = _mm512_set1_epi64(q4);
#pragma GCC unroll 8
            for (int p = 0; p < P; p++) {
                acc[r][p][0] = _mm512_add_epi32(acc[r][p][0], _mm512_madd_epi16(wv[p][0], xv));
                acc[r][p][1] = _mm512_add_epi32(acc[r][p][1], _mm512_madd_epi16(wv[p][1], xv));
            }
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; r++)
#pragma GCC unroll 8
        for (int p = 0; p < P; p++)
            for (int h = 0; h < 2; h++) {
                __m512i s = _mm512_add_epi32(acc[r][p][h], _mm512_srli_epi64(acc[r][p][h], 32));
                /* the even lanes hold the 8 columns */
                _mm256_storeu_si256((__m256i *)(tile + (size_t)r * P * PANEL + p * PANEL + h * 8),
                                    _mm512_cvtepi64_epi32(s));
            }
}

T_512 NO_ASAN void tile_512_i8(const pk_job *j, int r0, int rr, int p0, int pw, void *tile)
{
    switch (rr * 16 + pw) {
    case 0x11: body_512_i8(j, r0, p0, tile, WT_INT8, 1, 1); break;
    case 0x12: body_512_i8(j, r0, p0, tile, WT_INT8, 1, 2); break;
    case 0x13: body_512_i8(j, r0, p0, tile, WT_INT8, 1, 3); break;
    case 0x14: body_512_i8(j, r0, p0, tile, WT_INT8, 1, 4); break;
    case 0x21: body_512_i8(j, r0, p0, tile, WT_INT8, 2, 1); break;
    case 0x22: body_512_i8(j, r0, p0, tile, WT_INT8, 2, 2); break;
    case 0x31: body_512_i8(j, r0, p0, tile, WT_INT8, 3, 1); break;
    case 0x32: body_512_i8(j, r0, p0, tile, WT_INT8, 3, 2); break;
    case 0x41: body_512_i8(j, r0, p0, tile, WT_INT8, 4, 1); break;
    case 0x42: body_512_i8(j, r0, p0, tile, WT_INT8, 4, 2); break;
    }
}

/* acc += pairwise products of w and x (int16), summed in int32. In asm: gcc 12's intrinsic makes
 * a register copy of the accumulator for every instruction. */
INLINE T_VNNI void dpwssd(__m512i *acc, __m512i w, __m512i x)
{
    __asm__("vpdpwssd %2, %1, %0" : "+v"(*acc) : "v"(w), "v"(x));
}

/* int8, VNNI: as the AVX-512BW path, vpmaddwd and the add fused in one vpdpwssd */
INLINE T_VNNI void body_vnni(const pk_job *j, int r0, int p0, int32_t *tile, weight_type t,
                             const int R, const int P)
{
    const linear *l = j->l;
    int K4 = k4(l->in);
    size_t pb = panel_bytes(WT_INT8, l->in);
    const uint8_t *w = (const uint8_t *)l->packed + (size_t)p0 * pb;
    __m512i acc[MAXR][MAXP][2];
    (void)t;
#pragma GCC unroll 4
    for (int r = 0; r < R; r++)
#pragma GCC unroll 8
        for (int p = 0; p < P; p++)
            acc[r][p][0] = acc[r][p][1] = _mm512_setzero_si512();
    for (int g = 0; g < K4 / 4; g++) {
        __m512i wv[MAXP][2];
#pragma GCC unroll 8
        for (int p = 0; p < P; p++) {
            wv[p][0] = _mm512_cvtepi8_epi16(
                _mm256_loadu_si256((const __m256i *)(w + p * pb + (size_t)g * 64)));
            wv[p][1] = _mm512_cvtepi8_epi16(
                _mm256_loadu_si256((const __m256i *)(w + p * pb + (size_t)g * 64 + 32)));
        }
#pragma GCC unroll 4
        for (int r = 0; r < R; r++) {
            long long q4;
            __m512i xv;
            memcpy(&q4, j->xq + (size_t)(r0 + r) * K4 + 4 * g, 8);
            xv = _mm512_set1_epi64(q4);
#pragma GCC unroll 8
            for (int p = 0; p < P; p++) {
                dpwssd(&acc[r][p][0], wv[p][0], xv);
                dpwssd(&acc[r][p][1], wv[p][1], xv);
            }
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; r++)
#pragma GCC unroll 8
        for (int p = 0; p < P; p++)
            for (int h = 0; h < 2; h++) {
                __m512i s = _mm512_add_epi32(acc[r][p][h], _mm512_srli_epi64(acc[r][p][h], 32));
                _mm256_storeu_si256((__m256i *)(tile + (size_t)r * P * PANEL + p * PANEL + h * 8),
                                    _mm512_cvtepi64_epi32(s));
            }
}

T_VNNI NO_ASAN void tile_vnni(const pk_job *j, int r0, int rr, int p0, int pw, void *tile)
{
    switch (rr * 16 + pw) {
    case 0x11: body_vnni(j, r0, p0, tile, WT_INT8, 1, 1); break;
    case 0x12: body_vnni(j, r0, p0, tile, WT_INT8, 1, 2); break;
    case 0x13: body_vnni(j, r0, p0, tile, WT_INT8, 1, 3); break;
    case 0x14: body_vnni(j, r0, p0, tile, WT_INT8, 1, 4); break;
    case 0x21: body_vnni(j, r0, p0, tile, WT_INT8, 2, 1); break;
    case 0x22: body_vnni(j, r0, p0, tile, WT_INT8, 2, 2); break;
    case 0x31: body_vnni(j, r0, p0, tile, WT_INT8, 3, 1); break;
    case 0x32: body_vnni(j, r0, p0, tile, WT_INT8, 3, 2); break;
    case 0x41: body_vnni(j, r0, p0, tile, WT_INT8, 4, 1); break;
    case 0x42: body_vnni(j, r0, p0, tile, WT_INT8, 4, 2); break;
    }
}

T_512 float quantize_row_512(int16_t *q, const float *x, int K)
{
    __m512 mx = _mm512_setzero_ps(), inv16;
    float amax, L = gemm_int8_act_levels(K);
    int k = 0;
    if (!simd_all_finite(x, (size_t)K)) {
        memset(q, 0, (size_t)k4(K) * sizeof *q);
        return NAN;
    }
    for (; k + 16 <= K; k += 16)
        mx = _mm512_max_ps(mx, _mm512_abs_ps(_mm512_loadu_ps(x + k)));
    amax = _mm512_reduce_max_ps(mx);
    for (; k < K; k++)
        amax = fabsf(x[k]) > amax ? fabsf(x[k]) : amax;
    if (amax < GEMM_Q_TINY) /* zero or tiny: the scalar rule, whole row */
        return gemm_quantize_tail(q, x, K, 0, amax);
    inv16 = _mm512_set1_ps(amax > 0 ? L / amax : 0);
    for (k = 0; k + 16 <= K; k += 16)
        _mm256_storeu_si256((__m256i *)(q + k), _mm512_cvtsepi32_epi16(_mm512_cvtps_epi32(
                                                    _mm512_mul_ps(_mm512_loadu_ps(x + k), inv16))));
    return gemm_quantize_tail(q, x, K, k, amax);
}

#endif /* HAVE_X86 */

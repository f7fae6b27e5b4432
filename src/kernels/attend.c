/* attend.c — the decoder's attention (attend.h): q.k scores, softmax, p V for a few query rows
 * over one head's keys and values, on own kernels chosen at run time.
 *
 * Why not OpenBLAS: a decoder step's attention is two tiny products a (row, head) (dh = 64,
 * T ~ 15-30), where sgemv's call overhead was most of the time (5% of a beam-4 batch-32 f32
 * run at OPUS-MT size); and its summation order depends on the kernel OpenBLAS picked.
 *
 * One order of operations (attend.h) on three paths: the AVX-512 and AVX2 code keeps the 16
 * lanes of a q.k chain in one zmm or two ymm (lanes 0-7, 8-15) and reduces them with the tree
 * written out in the plain-C twin; p V is vectorised over the output elements, so each element
 * stays one chain over t. Latency: several keys (q.k) or two queries and up to 64 (AVX-512) or
 * 32 (AVX2) output elements (p V) are in flight at once; a key past T is computed as the last
 * key again and not stored, a query past nq is the last query again and not stored. */
#include "kernels/attend.h"
#include "kernels/ops.h"
#include <math.h>

/* Row t of a head's keys or values: base + rows[t] (the decoder's cache, where a hypothesis's
 * positions may lie in other slots' rows), or base + t ld (rows NULL). */
static inline const float *row_at(const float *base, size_t ld, const size_t *rows, int t)
{
    return base + (rows ? rows[t] : (size_t)t * ld);
}

/* The 16 lanes summed in attend.h's tree. a[] is overwritten. */
static float tree16(float *a)
{
    for (int l = 0; l < 8; l++)
        a[l] = a[l] + a[l + 8];
    for (int l = 0; l < 4; l++)
        a[l] = a[l] + a[l + 4];
    for (int l = 0; l < 2; l++)
        a[l] = a[l] + a[l + 2];
    return a[0] + a[1];
}

/* s[t] = scale * q.K[t], t < T. */
static void scores_c(float *s, const float *q, const float *K, size_t ldk, const size_t *rows,
                     int T, int dh, float scale)
{
    for (int t = 0; t < T; t++) {
        const float *k = row_at(K, ldk, rows, t);
        float acc[16] = {0};
        for (int i = 0; i < dh; i += 16)
            for (int l = 0; l < 16; l++) {
                float a = i + l < dh ? q[i + l] : 0.0f, b = i + l < dh ? k[i + l] : 0.0f;
                acc[l] = fmaf(a, b, acc[l]);
            }
        s[t] = scale * tree16(acc);
    }
}

/* out[i][e] = sum over t of p[i][t] V[t][e], one chain over t a element (kept in out). */
static void mix_c(float *out, size_t ldo, const float *p, size_t ldp, int nq, const float *V,
                  size_t ldv, const size_t *rows, int T, int dh)
{
    for (int i = 0; i < nq; i++) {
        float *o = out + (size_t)i * ldo;
        const float *pi = p + (size_t)i * ldp;
        for (int e = 0; e < dh; e++)
            o[e] = 0.0f;
        for (int t = 0; t < T; t++) {
            const float *v = row_at(V, ldv, rows, t);
            for (int e = 0; e < dh; e++)
                o[e] = fmaf(pi[t], v[e], o[e]);
        }
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_X86 1
#define T_AVX2 __attribute__((target("avx2,fma")))
#define T_512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,fma")))

/* Four keys' 16-lane sums in attend.h's tree, as (s0, s1, s2, s3): after the last step every
 * lane of quarter j holds key j's sum (a + b and b + a are the same bits). */
T_512 static __m128 red4_512(__m512 a0, __m512 a1, __m512 a2, __m512 a3)
{
    /* s8: lane l + lane l + 8, keys 0 and 1 in the low and high halves */
    __m512 t01 = _mm512_add_ps(_mm512_shuffle_f32x4(a0, a1, _MM_SHUFFLE(1, 0, 1, 0)),
                               _mm512_shuffle_f32x4(a0, a1, _MM_SHUFFLE(3, 2, 3, 2)));
    __m512 t23 = _mm512_add_ps(_mm512_shuffle_f32x4(a2, a3, _MM_SHUFFLE(1, 0, 1, 0)),
                               _mm512_shuffle_f32x4(a2, a3, _MM_SHUFFLE(3, 2, 3, 2)));
    /* s4: lane l + lane l + 4, key j in quarter j */
    __m512 u = _mm512_add_ps(_mm512_shuffle_f32x4(t01, t23, _MM_SHUFFLE(2, 0, 2, 0)),
                             _mm512_shuffle_f32x4(t01, t23, _MM_SHUFFLE(3, 1, 3, 1)));
    u = _mm512_add_ps(u, _mm512_permute_ps(u, _MM_SHUFFLE(1, 0, 3, 2))); /* s2 */
    u = _mm512_add_ps(u, _mm512_permute_ps(u, _MM_SHUFFLE(2, 3, 0, 1))); /* s */
    return _mm512_castps512_ps128(
        _mm512_permutexvar_ps(_mm512_setr_epi32(0, 4, 8, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), u));
}

T_512 static void scores_512(float *s, const float *q, const float *K, size_t ldk,
                             const size_t *rows, int T, int dh, float scale)
{
    const int full = dh / 16, rem = dh % 16;
    const __mmask16 tail = (__mmask16)((1u << rem) - 1);
    const __m128 sc = _mm_set1_ps(scale);
    for (int t = 0; t < T; t += 8) {
        const float *k[8];
        __m512 a[8];
        float r[8];
#pragma GCC unroll 8
        for (int j = 0; j < 8; j++) {
            k[j] = row_at(K, ldk, rows, t + j < T ? t + j : T - 1);
            a[j] = _mm512_setzero_ps();
        }
        for (int c = 0; c < full; c++) {
            __m512 x = _mm512_loadu_ps(q + 16 * c);
#pragma GCC unroll 8
            for (int j = 0; j < 8; j++)
                a[j] = _mm512_fmadd_ps(x, _mm512_loadu_ps(k[j] + 16 * c), a[j]);
        }
        if (rem) {
            __m512 x = _mm512_maskz_loadu_ps(tail, q + 16 * full);
#pragma GCC unroll 8
            for (int j = 0; j < 8; j++)
                a[j] = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(tail, k[j] + 16 * full), a[j]);
        }
        _mm_storeu_ps(r, _mm_mul_ps(red4_512(a[0], a[1], a[2], a[3]), sc));
        _mm_storeu_ps(r + 4, _mm_mul_ps(red4_512(a[4], a[5], a[6], a[7]), sc));
        for (int j = 0; j < 8 && t + j < T; j++)
            s[t + j] = r[j];
    }
}

T_512 static __mmask16 mask16(int n) /* the first n lanes, n clamped to [0, 16] */
{
    return n >= 16 ? (__mmask16)0xffff : n <= 0 ? (__mmask16)0 : (__mmask16)((1u << n) - 1);
}

T_512 static void mix_512(float *out, size_t ldo, const float *p, size_t ldp, int nq,
                          const float *V, size_t ldv, const size_t *rows, int T, int dh)
{
    for (int e = 0; e < dh; e += 64) {
        __mmask16 m[4];
#pragma GCC unroll 4
        for (int c = 0; c < 4; c++)
            m[c] = mask16(dh - e - 16 * c);
        for (int i = 0; i < nq; i += 2) {
            const float *p0 = p + (size_t)i * ldp, *p1 = i + 1 < nq ? p0 + ldp : p0;
            __m512 a0[4], a1[4];
#pragma GCC unroll 4
            for (int c = 0; c < 4; c++)
                a0[c] = a1[c] = _mm512_setzero_ps();
            for (int t = 0; t < T; t++) {
                const float *v = row_at(V, ldv, rows, t) + e;
                __m512 b0 = _mm512_set1_ps(p0[t]), b1 = _mm512_set1_ps(p1[t]);
#pragma GCC unroll 4
                for (int c = 0; c < 4; c++) {
                    __m512 x = _mm512_maskz_loadu_ps(m[c], v + 16 * c);
                    a0[c] = _mm512_fmadd_ps(b0, x, a0[c]);
                    a1[c] = _mm512_fmadd_ps(b1, x, a1[c]);
                }
            }
#pragma GCC unroll 4
            for (int c = 0; c < 4; c++) {
                _mm512_mask_storeu_ps(out + (size_t)i * ldo + e + 16 * c, m[c], a0[c]);
                if (i + 1 < nq)
                    _mm512_mask_storeu_ps(out + (size_t)(i + 1) * ldo + e + 16 * c, m[c], a1[c]);
            }
        }
    }
}

/* Four keys' sums from their lane halves (lo: lanes 0-7, hi: lanes 8-15), as (s0 .. s3). */
T_AVX2 static __m128 red4_avx2(const __m256 *lo, const __m256 *hi)
{
    __m256 x0 = _mm256_add_ps(lo[0], hi[0]), x1 = _mm256_add_ps(lo[1], hi[1]); /* s8 */
    __m256 x2 = _mm256_add_ps(lo[2], hi[2]), x3 = _mm256_add_ps(lo[3], hi[3]);
    /* s4: keys 0 and 1 (2 and 3) in the low and high 128 bits */
    __m256 ab = _mm256_add_ps(_mm256_permute2f128_ps(x0, x1, 0x20),
                              _mm256_permute2f128_ps(x0, x1, 0x31));
    __m256 cd = _mm256_add_ps(_mm256_permute2f128_ps(x2, x3, 0x20),
                              _mm256_permute2f128_ps(x2, x3, 0x31));
    ab = _mm256_add_ps(ab, _mm256_permute_ps(ab, _MM_SHUFFLE(1, 0, 3, 2))); /* s2 */
    cd = _mm256_add_ps(cd, _mm256_permute_ps(cd, _MM_SHUFFLE(1, 0, 3, 2)));
    ab = _mm256_add_ps(ab, _mm256_permute_ps(ab, _MM_SHUFFLE(2, 3, 0, 1))); /* s, every lane */
    cd = _mm256_add_ps(cd, _mm256_permute_ps(cd, _MM_SHUFFLE(2, 3, 0, 1)));
    /* (s0, s0, s2, s2, s1, s1, s3, s3), then lanes 0, 4, 2, 6 */
    return _mm256_castps256_ps128(_mm256_permutevar8x32_ps(
        _mm256_blend_ps(ab, cd, 0xcc), _mm256_setr_epi32(0, 4, 2, 6, 0, 0, 0, 0)));
}

T_AVX2 static __m256 maskv8(int n) /* lanes l < n set */
{
    return _mm256_castsi256_ps(
        _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)));
}

T_AVX2 static void scores_avx2(float *s, const float *q, const float *K, size_t ldk,
                               const size_t *rows, int T, int dh, float scale)
{
    const int full = dh / 16, rem = dh % 16;
    const __m256i mlo = _mm256_castps_si256(maskv8(rem)), mhi = _mm256_castps_si256(maskv8(rem - 8));
    const __m128 sc = _mm_set1_ps(scale);
    for (int t = 0; t < T; t += 4) {
        const float *k[4];
        __m256 lo[4], hi[4];
        float r[4];
#pragma GCC unroll 4
        for (int j = 0; j < 4; j++) {
            k[j] = row_at(K, ldk, rows, t + j < T ? t + j : T - 1);
            lo[j] = hi[j] = _mm256_setzero_ps();
        }
        for (int c = 0; c < full; c++) {
            __m256 xl = _mm256_loadu_ps(q + 16 * c), xh = _mm256_loadu_ps(q + 16 * c + 8);
#pragma GCC unroll 4
            for (int j = 0; j < 4; j++) {
                lo[j] = _mm256_fmadd_ps(xl, _mm256_loadu_ps(k[j] + 16 * c), lo[j]);
                hi[j] = _mm256_fmadd_ps(xh, _mm256_loadu_ps(k[j] + 16 * c + 8), hi[j]);
            }
        }
        if (rem) {
            const float *qc = q + 16 * full;
            __m256 xl = _mm256_maskload_ps(qc, mlo), xh = _mm256_maskload_ps(qc + 8, mhi);
#pragma GCC unroll 4
            for (int j = 0; j < 4; j++) {
                const float *kc = k[j] + 16 * full;
                lo[j] = _mm256_fmadd_ps(xl, _mm256_maskload_ps(kc, mlo), lo[j]);
                hi[j] = _mm256_fmadd_ps(xh, _mm256_maskload_ps(kc + 8, mhi), hi[j]);
            }
        }
        _mm_storeu_ps(r, _mm_mul_ps(red4_avx2(lo, hi), sc));
        for (int j = 0; j < 4 && t + j < T; j++)
            s[t + j] = r[j];
    }
}

T_AVX2 static void mix_avx2(float *out, size_t ldo, const float *p, size_t ldp, int nq,
                            const float *V, size_t ldv, const size_t *rows, int T, int dh)
{
    for (int e = 0; e < dh; e += 32) {
        __m256i m[4];
#pragma GCC unroll 4
        for (int c = 0; c < 4; c++)
            m[c] = _mm256_castps_si256(maskv8(dh - e - 8 * c));
        for (int i = 0; i < nq; i += 2) {
            const float *p0 = p + (size_t)i * ldp, *p1 = i + 1 < nq ? p0 + ldp : p0;
            __m256 a0[4], a1[4];
#pragma GCC unroll 4
            for (int c = 0; c < 4; c++)
                a0[c] = a1[c] = _mm256_setzero_ps();
            for (int t = 0; t < T; t++) {
                const float *v = row_at(V, ldv, rows, t) + e;
                __m256 b0 = _mm256_set1_ps(p0[t]), b1 = _mm256_set1_ps(p1[t]);
#pragma GCC unroll 4
                for (int c = 0; c < 4; c++) {
                    __m256 x = _mm256_maskload_ps(v + 8 * c, m[c]);
                    a0[c] = _mm256_fmadd_ps(b0, x, a0[c]);
                    a1[c] = _mm256_fmadd_ps(b1, x, a1[c]);
                }
            }
#pragma GCC unroll 4
            for (int c = 0; c < 4; c++) {
                _mm256_maskstore_ps(out + (size_t)i * ldo + e + 8 * c, m[c], a0[c]);
                if (i + 1 < nq)
                    _mm256_maskstore_ps(out + (size_t)(i + 1) * ldo + e + 8 * c, m[c], a1[c]);
            }
        }
    }
}
#endif

/* Both entries: rows NULL (strided) or the rows' offsets (attend.h). */
static void attn_core(enum cpu_isa isa, float *out, size_t ldo, const float *q, size_t ldq,
                      int nq, const float *K, size_t ldk, const float *V, size_t ldv,
                      const size_t *rows, int T, int dh, float scale, float *p, size_t ldp)
{
    void (*scores)(float *, const float *, const float *, size_t, const size_t *, int, int,
                   float) = scores_c;
    void (*mix)(float *, size_t, const float *, size_t, int, const float *, size_t,
                const size_t *, int, int) = mix_c;
#ifdef HAVE_X86
    if (isa >= ISA_AVX512) {
        scores = scores_512;
        mix = mix_512;
    } else if (isa >= ISA_AVX2) {
        scores = scores_avx2;
        mix = mix_avx2;
    }
#else
    (void)isa;
#endif
    /* The rows are far apart (the memory's: 2 d L floats; the cache's: other slots' rows) and
     * in L3 or DRAM at a decoder step; the hardware prefetchers do not follow them across
     * pages, so every row a query reads is asked for at once, before the first product needs
     * it. */
    for (int t = 0; t < T; t++)
        for (int e = 0; e < dh; e += 16) {
            __builtin_prefetch(row_at(K, ldk, rows, t) + e);
            __builtin_prefetch(row_at(V, ldv, rows, t) + e);
        }
    for (int i = 0; i < nq; i++) {
        float *pi = p + (size_t)i * ldp;
        scores(pi, q + (size_t)i * ldq, K, ldk, rows, T, dh, scale);
        softmax(pi, T);
    }
    mix(out, ldo, p, ldp, nq, V, ldv, rows, T, dh);
}

void attn_rows_isa(enum cpu_isa isa, float *out, size_t ldo, const float *q, size_t ldq, int nq,
                   const float *K, size_t ldk, const float *V, size_t ldv, int T, int dh,
                   float scale, float *p, size_t ldp)
{
    attn_core(isa, out, ldo, q, ldq, nq, K, ldk, V, ldv, NULL, T, dh, scale, p, ldp);
}

void attn_rows(float *out, size_t ldo, const float *q, size_t ldq, int nq, const float *K,
               size_t ldk, const float *V, size_t ldv, int T, int dh, float scale, float *p,
               size_t ldp)
{
    attn_core(cpu_isa(), out, ldo, q, ldq, nq, K, ldk, V, ldv, NULL, T, dh, scale, p, ldp);
}

void attn_rows_at_isa(enum cpu_isa isa, float *out, size_t ldo, const float *q, size_t ldq,
                      int nq, const float *K, const float *V, const size_t *rows, int T, int dh,
                      float scale, float *p, size_t ldp)
{
    attn_core(isa, out, ldo, q, ldq, nq, K, 0, V, 0, rows, T, dh, scale, p, ldp);
}

void attn_rows_at(float *out, size_t ldo, const float *q, size_t ldq, int nq, const float *K,
                  const float *V, const size_t *rows, int T, int dh, float scale, float *p,
                  size_t ldp)
{
    attn_core(cpu_isa(), out, ldo, q, ldq, nq, K, 0, V, 0, rows, T, dh, scale, p, ldp);
}

/* simd.c — AVX2+FMA versions of the small vector loops, chosen at run time, with plain-C
 * twins that give the same bits. exp is a degree-7 polynomial after range reduction (relative
 * error < 1e-6 on the range softmax uses).
 *
 * The twins run the vector code's steps one lane at a time: a sum keeps 8 partial sums (lane l
 * takes x[l], x[l + 8], ...), reduces them as hsum8 does, ((l0 + l4) + (l2 + l6)) + ((l1 + l5) +
 * (l3 + l7)), then adds the tail in order; exp is exp8's polynomial with fmaf for each FMA; a
 * max is max_ps's "a > b ? a : b". So a model's numbers do not depend on the path (issue 27:
 * int8 and bf16 translations did, since their activations are rounded to int16 or bf16 after a
 * LayerNorm, and a last-bit difference there can move a rounding step). fmaf is slower than a
 * plain multiply-add without FMA hardware; the plain-C path is the fallback, not the fast one. */
#include "kernels/simd.h"
#include "kernels/cpu.h"
#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_X86 1
#define AVX2 __attribute__((target("avx2,fma")))
#define AVX512 __attribute__((target("avx512f,avx512dq,avx2,fma")))

static int has_avx2(void) { return cpu_isa() >= ISA_AVX2; }
static int has_avx512(void) { return cpu_isa() >= ISA_AVX512; }

AVX2 static float hmax8(__m256 v)
{
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_shuffle_ps(m, m, 1));
    return _mm_cvtss_f32(m);
}

AVX2 static float hsum8(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
    return _mm_cvtss_f32(s);
}

/* exp(x) for 8 lanes, x clamped to [-87.3, 88.7]. */
AVX2 static __m256 exp8(__m256 x)
{
    const __m256 lo = _mm256_set1_ps(-87.33654f), hi = _mm256_set1_ps(88.72283f);
    __m256 n, r, p;
    __m256i e;
    x = _mm256_min_ps(_mm256_max_ps(x, lo), hi);
    n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693145751953125f), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(1.428606765330187045e-06f), r);
    p = _mm256_set1_ps(1.98393347766250e-4f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.38925306964666e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.33336077630520e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.16666232049465e-2f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.66666671633720e-1f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    /* n in [-126, 128]: 2^n as two factors so that n = 128 does not overflow the exponent */
    e = _mm256_cvtps_epi32(n);
    {
        __m256i e1 = _mm256_srai_epi32(e, 1), e2 = _mm256_sub_epi32(e, e1);
        __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(e1, _mm256_set1_epi32(127)), 23));
        __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(e2, _mm256_set1_epi32(127)), 23));
        return _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
    }
}

AVX2 static float max_avx2(const float *x, int n)
{
    __m256 m = _mm256_set1_ps(x[0]);
    int i = 0;
    float r;
    for (; i + 8 <= n; i += 8)
        m = _mm256_max_ps(m, _mm256_loadu_ps(x + i));
    r = hmax8(m);
    for (; i < n; i++)
        r = x[i] > r ? x[i] : r;
    return r;
}

AVX2 static int find_avx2(const float *x, int n, float v)
{
    __m256 t = _mm256_set1_ps(v);
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        int mask = _mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(x + i), t, _CMP_EQ_OQ));
        if (mask)
            return i + __builtin_ctz(mask);
    }
    for (; i < n; i++)
        if (x[i] == v)
            return i;
    return n;
}

/* The sum from x[i] on, with s the 8 partial sums of x[0 .. i) (i a multiple of 8): the rest
 * of exp_sum_avx2, and of exp_sum_avx512 after its 16-wide rounds. */
AVX2 static float exp_sum_avx2_from(float *out, const float *x, int n, float shift, int i,
                                    __m256 s)
{
    __m256 sh = _mm256_set1_ps(shift);
    float r;
    for (; i + 8 <= n; i += 8) {
        __m256 e = exp8(_mm256_sub_ps(_mm256_loadu_ps(x + i), sh));
        if (out)
            _mm256_storeu_ps(out + i, e);
        s = _mm256_add_ps(s, e);
    }
    r = hsum8(s);
    if (i < n) {
        float tail[8] = {0};
        __m256 e;
        memcpy(tail, x + i, (n - i) * sizeof(float));
        e = exp8(_mm256_sub_ps(_mm256_loadu_ps(tail), sh));
        _mm256_storeu_ps(tail, e);
        for (int k = 0; k < n - i; k++) {
            if (out)
                out[i + k] = tail[k];
            r += tail[k];
        }
    }
    return r;
}

AVX2 static float exp_sum_avx2(float *out, const float *x, int n, float shift)
{
    return exp_sum_avx2_from(out, x, n, shift, 0, _mm256_setzero_ps());
}

/* exp8 on 16 lanes: the same clamp, reduction, polynomial and two-factor scaling, lane by lane
 * (roundscale with imm 8 is round_ps's nearest-even without exceptions). */
AVX512 static __m512 exp16(__m512 x)
{
    const __m512 lo = _mm512_set1_ps(-87.33654f), hi = _mm512_set1_ps(88.72283f);
    __m512 n, r, p;
    __m512i e, e1, e2;
    x = _mm512_min_ps(_mm512_max_ps(x, lo), hi);
    n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145751953125f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.428606765330187045e-06f), r);
    p = _mm512_set1_ps(1.98393347766250e-4f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.38925306964666e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.33336077630520e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.16666232049465e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.66666671633720e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    e = _mm512_cvtps_epi32(n);
    e1 = _mm512_srai_epi32(e, 1);
    e2 = _mm512_sub_epi32(e, e1);
    return _mm512_mul_ps(
        _mm512_mul_ps(p, _mm512_castsi512_ps(_mm512_slli_epi32(
                             _mm512_add_epi32(e1, _mm512_set1_epi32(127)), 23))),
        _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(e2, _mm512_set1_epi32(127)), 23)));
}

/* exp_sum_avx2's 8 partial sums in its order: 16 values a round, the low 8 added before the
 * high 8, so lane l still takes x[l], x[l + 8], x[l + 16]... in turn. */
AVX512 static float exp_sum_avx512(float *out, const float *x, int n, float shift)
{
    __m256 s = _mm256_setzero_ps();
    __m512 sh = _mm512_set1_ps(shift);
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512 e = exp16(_mm512_sub_ps(_mm512_loadu_ps(x + i), sh));
        if (out)
            _mm512_storeu_ps(out + i, e);
        s = _mm256_add_ps(s, _mm512_castps512_ps256(e));
        s = _mm256_add_ps(s, _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(e), 1)));
    }
    return exp_sum_avx2_from(out, x, n, shift, i, s);
}

AVX2 static void scale_avx2(float *x, int n, float a)
{
    __m256 va = _mm256_set1_ps(a);
    int i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(x + i, _mm256_mul_ps(_mm256_loadu_ps(x + i), va));
    for (; i < n; i++)
        x[i] *= a;
}

AVX2 static float sum_avx2(const float *x, int n)
{
    __m256 s = _mm256_setzero_ps();
    int i = 0;
    float r;
    for (; i + 8 <= n; i += 8)
        s = _mm256_add_ps(s, _mm256_loadu_ps(x + i));
    r = hsum8(s);
    for (; i < n; i++)
        r += x[i];
    return r;
}

AVX2 static float sqdev_avx2(const float *x, int n, float mean)
{
    __m256 s = _mm256_setzero_ps(), m = _mm256_set1_ps(mean);
    int i = 0;
    float r;
    for (; i + 8 <= n; i += 8) {
        __m256 d = _mm256_sub_ps(_mm256_loadu_ps(x + i), m);
        s = _mm256_fmadd_ps(d, d, s);
    }
    r = hsum8(s);
    for (; i < n; i++)
        r += (x[i] - mean) * (x[i] - mean);
    return r;
}

AVX2 static void norm_avx2(float *out, const float *x, const float *g, const float *b, int n,
                           float mean, float inv)
{
    __m256 m = _mm256_set1_ps(mean), iv = _mm256_set1_ps(inv);
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 y = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), m), iv);
        _mm256_storeu_ps(out + i, _mm256_fmadd_ps(y, _mm256_loadu_ps(g + i), _mm256_loadu_ps(b + i)));
    }
    for (; i < n; i++)
        out[i] = (x[i] - mean) * inv * g[i] + b[i];
}

AVX2 static int all_finite_avx2(const float *x, size_t n)
{
    const __m256i e = _mm256_set1_epi32(0x7f800000);
    __m256i any = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i v = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(x + i)), e);
        any = _mm256_or_si256(any, _mm256_cmpeq_epi32(v, e));
    }
    if (!_mm256_testz_si256(any, any))
        return 0;
    for (; i < n; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

/* max_avx2's lanes and order, with all_finite_avx2's exponent test and, per lane, the index of
 * the value whose bits the lane's max holds (max_ps takes the new value on ties, so the index
 * follows >=): the search's row in one pass instead of two. */
AVX2 static int max_finite_avx2(const float *x, int n, float *max, int *at)
{
    const __m256i e = _mm256_set1_epi32(0x7f800000), eight = _mm256_set1_epi32(8);
    __m256i any = _mm256_setzero_si256(), idx = _mm256_setzero_si256();
    __m256i cur = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256 m = _mm256_set1_ps(x[0]);
    int i = 0, k = 0;
    float r, lane[8];
    int li[8];
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        __m256i bits = _mm256_and_si256(_mm256_castps_si256(v), e);
        any = _mm256_or_si256(any, _mm256_cmpeq_epi32(bits, e));
        idx = _mm256_blendv_epi8(idx, cur, _mm256_castps_si256(_mm256_cmp_ps(v, m, _CMP_GE_OQ)));
        m = _mm256_max_ps(m, v);
        cur = _mm256_add_epi32(cur, eight);
    }
    if (!_mm256_testz_si256(any, any))
        return 0;
    r = hmax8(m);
    _mm256_storeu_ps(lane, m);
    _mm256_storeu_si256((__m256i *)li, idx);
    while (memcmp(&lane[k], &r, sizeof r)) /* hmax8 returns one lane's bits */
        k++;
    k = li[k];
    for (; i < n; i++) {
        if (!isfinite(x[i]))
            return 0;
        if (x[i] > r) {
            r = x[i];
            k = i;
        }
    }
    *max = r;
    *at = k;
    return 1;
}

/* 16 values a round (two vectors, one test): beam search's scan finds a candidate in a few
 * hundred of its 58,101 logits, so the loop is the loads, adds and compares */
AVX2 static int first_above_avx2(const float *x, int n, float base, float thr)
{
    __m256 b = _mm256_set1_ps(base), t = _mm256_set1_ps(thr);
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256 a0 = _mm256_add_ps(_mm256_loadu_ps(x + i), b);
        __m256 a1 = _mm256_add_ps(_mm256_loadu_ps(x + i + 8), b);
        int m = _mm256_movemask_ps(_mm256_cmp_ps(a0, t, _CMP_GT_OQ)) |
                _mm256_movemask_ps(_mm256_cmp_ps(a1, t, _CMP_GT_OQ)) << 8;
        if (m)
            return i + __builtin_ctz(m);
    }
    for (; i < n; i++)
        if (base + x[i] > thr)
            return i;
    return n;
}

AVX2 static void relu_avx2(float *x, long n)
{
    __m256 z = _mm256_setzero_ps();
    long i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(x + i, _mm256_max_ps(_mm256_loadu_ps(x + i), z));
    for (; i < n; i++)
        x[i] = x[i] > 0 ? x[i] : 0;
}
#else
#define HAVE_X86 0
static int has_avx2(void) { return 0; }
static int has_avx512(void) { return 0; }
#endif

/* ---- the plain-C twins ------------------------------------------------------------------ */

/* hsum8's tree over 8 lanes */
static float hsum8_c(const float v[8])
{
    float s0 = v[0] + v[4], s1 = v[1] + v[5], s2 = v[2] + v[6], s3 = v[3] + v[7];
    return (s0 + s2) + (s1 + s3);
}

/* max_ps(a, b): b when a is not greater (NaN included) */
static float max_c(float a, float b) { return a > b ? a : b; }

/* exp8 of one lane: the same clamp, reduction, polynomial and two-factor scaling */
static float exp_c(float x)
{
    float n, r, p, s1, s2;
    int32_t e, e1;
    uint32_t u1, u2;
    x = max_c(x, -87.33654f);
    x = x < 88.72283f ? x : 88.72283f; /* min_ps(x, hi) */
    n = rintf(x * 1.44269504088896341f); /* round_ps to nearest, ties to even */
    r = fmaf(-n, 0.693145751953125f, x);
    r = fmaf(-n, 1.428606765330187045e-06f, r);
    p = 1.98393347766250e-4f;
    p = fmaf(p, r, 1.38925306964666e-3f);
    p = fmaf(p, r, 8.33336077630520e-3f);
    p = fmaf(p, r, 4.16666232049465e-2f);
    p = fmaf(p, r, 1.66666671633720e-1f);
    p = fmaf(p, r, 0.5f);
    p = fmaf(p, r, 1.0f);
    p = fmaf(p, r, 1.0f);
    e = (int32_t)n; /* in [-126, 128] */
    e1 = e >= 0 ? e / 2 : -((1 - e) / 2); /* floor(e / 2): srai by 1 */
    u1 = (uint32_t)(e1 + 127) << 23;
    u2 = (uint32_t)(e - e1 + 127) << 23;
    memcpy(&s1, &u1, 4);
    memcpy(&s2, &u2, 4);
    return (p * s1) * s2;
}

static float max_twin(const float *x, int n)
{
    float m[8], r;
    int i = 0;
    for (int l = 0; l < 8; l++)
        m[l] = x[0];
    for (; i + 8 <= n; i += 8)
        for (int l = 0; l < 8; l++)
            m[l] = max_c(m[l], x[i + l]);
    /* hmax8: max_ps(lo, hi), then with movehl, then max_ss with lane 1 */
    for (int l = 0; l < 4; l++)
        m[l] = max_c(m[l], m[l + 4]);
    m[0] = max_c(m[0], m[2]);
    m[1] = max_c(m[1], m[3]);
    r = max_c(m[0], m[1]);
    for (; i < n; i++)
        r = x[i] > r ? x[i] : r;
    return r;
}

static float exp_sum_twin(float *out, const float *x, int n, float shift)
{
    float s[8] = {0}, r;
    int i = 0;
    for (; i + 8 <= n; i += 8)
        for (int l = 0; l < 8; l++) {
            float e = exp_c(x[i + l] - shift);
            if (out)
                out[i + l] = e;
            s[l] += e;
        }
    r = hsum8_c(s);
    for (; i < n; i++) {
        float e = exp_c(x[i] - shift);
        if (out)
            out[i] = e;
        r += e;
    }
    return r;
}

static float sum_twin(const float *x, int n)
{
    float s[8] = {0}, r;
    int i = 0;
    for (; i + 8 <= n; i += 8)
        for (int l = 0; l < 8; l++)
            s[l] += x[i + l];
    r = hsum8_c(s);
    for (; i < n; i++)
        r += x[i];
    return r;
}

static float sqdev_twin(const float *x, int n, float mean)
{
    float s[8] = {0}, r;
    int i = 0;
    for (; i + 8 <= n; i += 8)
        for (int l = 0; l < 8; l++) {
            float d = x[i + l] - mean;
            s[l] = fmaf(d, d, s[l]);
        }
    r = hsum8_c(s);
    for (; i < n; i++) /* the vector code's tail: no FMA (C11 mode contracts nothing) */
        r += (x[i] - mean) * (x[i] - mean);
    return r;
}

float simd_max(const float *x, int n)
{
#if HAVE_X86
    if (has_avx2())
        return max_avx2(x, n);
#endif
    return max_twin(x, n);
}

int simd_find(const float *x, int n, float v)
{
#if HAVE_X86
    if (has_avx2())
        return find_avx2(x, n, v);
#endif
    for (int i = 0; i < n; i++)
        if (x[i] == v)
            return i;
    return n;
}

float simd_exp_sum(float *out, const float *x, int n, float shift)
{
#if HAVE_X86
    if (has_avx512())
        return exp_sum_avx512(out, x, n, shift);
    if (has_avx2())
        return exp_sum_avx2(out, x, n, shift);
#endif
    return exp_sum_twin(out, x, n, shift);
}

void simd_scale(float *x, int n, float a)
{
#if HAVE_X86
    if (has_avx2()) {
        scale_avx2(x, n, a);
        return;
    }
#endif
    for (int i = 0; i < n; i++)
        x[i] *= a;
}

float simd_sum(const float *x, int n)
{
#if HAVE_X86
    if (has_avx2())
        return sum_avx2(x, n);
#endif
    return sum_twin(x, n);
}

float simd_sqdev(const float *x, int n, float mean)
{
#if HAVE_X86
    if (has_avx2())
        return sqdev_avx2(x, n, mean);
#endif
    return sqdev_twin(x, n, mean);
}

void simd_norm(float *out, const float *x, const float *g, const float *b, int n, float mean,
               float inv)
{
#if HAVE_X86
    if (has_avx2()) {
        norm_avx2(out, x, g, b, n, mean, inv);
        return;
    }
#endif
    for (int i = 0; i < n; i++) /* norm_avx2: an FMA on whole groups of 8, none in the tail */
        out[i] = i < (n & ~7) ? fmaf((x[i] - mean) * inv, g[i], b[i])
                              : (x[i] - mean) * inv * g[i] + b[i];
}

int simd_all_finite(const float *x, size_t n)
{
    uint32_t any = 0;
#if HAVE_X86
    if (has_avx2())
        return all_finite_avx2(x, n);
#endif
    for (size_t i = 0; i < n; i++) {
        uint32_t bits;
        memcpy(&bits, x + i, 4);
        any |= (bits & 0x7f800000u) == 0x7f800000u;
    }
    return !any;
}

int simd_max_finite(const float *x, int n, float *max, int *at)
{
#if HAVE_X86
    if (has_avx2())
        return max_finite_avx2(x, n, max, at);
#endif
    if (!simd_all_finite(x, n))
        return 0;
    *max = max_twin(x, n);
    *at = simd_find(x, n, *max);
    return 1;
}

void simd_relu(float *x, long n)
{
#if HAVE_X86
    if (has_avx2()) {
        relu_avx2(x, n);
        return;
    }
#endif
    for (long i = 0; i < n; i++)
        x[i] = x[i] > 0 ? x[i] : 0;
}

int simd_first_above(const float *x, int n, float base, float thr)
{
#if HAVE_X86
    if (has_avx2())
        return first_above_avx2(x, n, base, thr);
#endif
    for (int i = 0; i < n; i++)
        if (base + x[i] > thr)
            return i;
    return n;
}

#if HAVE_X86
__attribute__((target("avx2,f16c"))) static void f16c_convert(float *dst, const void *src,
                                                                size_t n)
{
    const unsigned char *s = src;
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(s + 2 * i))));
    for (; i < n; i++) {
        uint16_t h;
        memcpy(&h, s + 2 * i, 2);
        _mm_store_ss(dst + i, _mm_cvtph_ps(_mm_cvtsi32_si128(h)));
    }
}
#endif

int simd_f16_to_f32(float *dst, const void *src, size_t n)
{
#if HAVE_X86 && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (cpu_has_f16c()) {
        f16c_convert(dst, src, n);
        return 1;
    }
#else
    (void)dst;
    (void)src;
    (void)n;
#endif
    return 0;
}

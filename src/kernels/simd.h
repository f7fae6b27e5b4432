/* simd.h — the vector loops of ops.c, in AVX2+FMA where the CPU has it (checked at run time),
 * else in plain C. Both paths give the same bits (simd.c says how; tests/test_simd.c). */
#ifndef XLATE_SIMD_H
#define XLATE_SIMD_H
#include <stddef.h>

/* Largest of n > 0 values. */
float simd_max(const float *x, int n);
/* First index i with x[i] == v (n if none). */
int simd_find(const float *x, int n, float v);
/* Sum of exp(x[i] - shift); also out[i] = exp(x[i] - shift) unless out is NULL (out may be x). */
float simd_exp_sum(float *out, const float *x, int n, float shift);
/* x[i] *= a. */
void simd_scale(float *x, int n, float a);
/* Sum of x[i], and sum of (x[i] - mean)^2. */
float simd_sum(const float *x, int n);
float simd_sqdev(const float *x, int n, float mean);
/* out[i] = (x[i] - mean) * inv * g[i] + b[i]. */
void simd_norm(float *out, const float *x, const float *g, const float *b, int n, float mean,
               float inv);
/* 1 when no x[i] is inf or NaN. */
int simd_all_finite(const float *x, size_t n);
/* simd_all_finite and simd_max in one pass over n > 0 values: 1 when all are finite, with
 * *max = simd_max(x, n) (its bits: the largest value, the sign of a zero included, since both
 * take the lanes in the same order) and *at an index whose value == *max; 0 otherwise (*max
 * and *at unset). */
int simd_max_finite(const float *x, int n, float *max, int *at);
/* The first i with base + x[i] > thr, the sum rounded to float (n if none; NaN is never
 * above). Both paths compute the same float sum and compare, so they give the same i. */
int simd_first_above(const float *x, int n, float base, float thr);
/* x[i] = max(x[i], 0). */
void simd_relu(float *x, long n);
/* dst[i] = the IEEE half src[i] (little-endian) as a float, exactly: F16C where the CPU has it
 * (with AVX2), else one at a time. Returns 0 when it did nothing (no F16C): the caller converts
 * itself. */
int simd_f16_to_f32(float *dst, const void *src, size_t n);

#endif

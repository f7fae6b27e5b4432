/* attend.h — the decoder's attention of a few query rows over one head's keys and values, on
 * xlate's own kernels (AVX-512, AVX2+FMA, plain C: the same bits on every path). */
#ifndef XLATE_ATTEND_H
#define XLATE_ATTEND_H
#include "kernels/cpu.h"
#include <stddef.h>

/* Attention of nq query rows over the same T keys and values of one head, all read in place:
 *   p[i]   = softmax(scale * K q[i])     (T floats, row i of p at stride ldp)
 *   out[i] = p[i] V                      (dh floats, row i of out at stride ldo)
 * q rows at stride ldq, K rows at stride ldk, V rows at stride ldv (floats), T >= 1, dh >= 1.
 * p is the caller's scratch of nq rows; it holds the probabilities on return (alignments).
 *
 * The order of operations is fixed, so each (query, key) and (query, output element) gets the
 * same bits whatever nq, the path or the rows around it:
 *   q.k:  16 lanes, lane l the fmaf chain over q[l + 16 i] * k[l + 16 i], i = 0, 1, ... in
 *         order, from +0, a lane past dh taking fmaf(0, 0, acc); then the tree
 *         s8[l] = a[l] + a[l + 8], s4[l] = s8[l] + s8[l + 4], s2[l] = s4[l] + s4[l + 2],
 *         s = s2[0] + s2[1]; the score is scale * s;
 *   softmax: softmax() of ops.h (simd.c's, itself the same bits on every path);
 *   p V:  out[i][e] one fmaf chain over t = 0 .. T-1 in order, from +0.
 * attn_rows picks the path by cpu_isa(); attn_rows_isa takes it (the tests run every level). */
void attn_rows(float *out, size_t ldo, const float *q, size_t ldq, int nq, const float *K,
               size_t ldk, const float *V, size_t ldv, int T, int dh, float scale, float *p,
               size_t ldp);
void attn_rows_isa(enum cpu_isa isa, float *out, size_t ldo, const float *q, size_t ldq, int nq,
                   const float *K, size_t ldk, const float *V, size_t ldv, int T, int dh,
                   float scale, float *p, size_t ldp);

/* The same, key t at K + rows[t] and value t at V + rows[t] (floats): the decoder's cache, where
 * a hypothesis's positions lie in the rows of the slots that computed them (decoder.c). The bits
 * are attn_rows's over the same rows laid out at a stride. */
void attn_rows_at(float *out, size_t ldo, const float *q, size_t ldq, int nq, const float *K,
                  const float *V, const size_t *rows, int T, int dh, float scale, float *p,
                  size_t ldp);
void attn_rows_at_isa(enum cpu_isa isa, float *out, size_t ldo, const float *q, size_t ldq,
                      int nq, const float *K, const float *V, const size_t *rows, int T, int dh,
                      float scale, float *p, size_t ldp);

#endif

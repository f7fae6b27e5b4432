/* gemm_internal.h — what the product kernels' files share (gemm.c: packing, the job, plain C,
 * dispatch; gemm_avx2.c, gemm_avx512.c: the vector tiles, one file an instruction set). Private
 * to src/kernels/gemm*.c; gemm.c's top comment says the arithmetic every path runs. */
#ifndef XLATE_GEMM_INTERNAL_H
#define XLATE_GEMM_INTERNAL_H

#include "kernels/ops.h"
#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_X86 1
#endif

#define PANEL 16
#define MAXR 6  /* rows of a tile at most */
#define MAXP 8  /* panels of a tile at most */

static inline int k4(int K) { return (K + 3) & ~3; }
static inline int panels(int N) { return (N + PANEL - 1) / PANEL; }

/* bytes of one panel */
static inline size_t panel_bytes(weight_type t, int K)
{
    switch (t) {
    case WT_F32: return (size_t)K * PANEL * 4;
    case WT_BF16: return (size_t)k4(K) * PANEL * 2;
    case WT_F16: return (size_t)K * PANEL * 2;
    case WT_INT8: return (size_t)k4(K) * PANEL;
    }
    return 0;
}

typedef struct pk_job pk_job;
/* Computes a tile: rows [r0, r0 + rr) x panels [p0, p0 + pw) into tile ([rr][pw * 16], float
 * accumulators, or int32 sums for int8). */
typedef void (*tile_fn)(const pk_job *j, int r0, int rr, int p0, int pw, void *tile);

struct pk_job {
    float *y;
    const float *x;
    const linear *l;
    int M;
    enum gemm_out out;
    activation_kind act;
    const int16_t *xq; /* int8: [M][K4] quantized rows */
    const float *xs;   /* int8: [M] their scales */
    tile_fn tile;
    int RT, PT, P1;    /* tile rows, tile panels, a lone row's tile panels */
    int cp, rb;        /* panels and rows a task covers */
    int n_ct;          /* column tasks */
};

/* Row x quantized to int16 for the int8 kernels from the k-th input on (x[0 .. k) already done
 * by the caller's vector loop): q[K4], zeros past K; amax = max|x|; returns the row's scale. */
float gemm_quantize_tail(int16_t *q, const float *x, int K, int k, float amax);

/* Below this amax, levels / amax overflows to inf (127 / amax does for amax < 3.7e-37) and the
 * quantized values would be inf or NaN converted to int. Such rows are scaled by GEMM_Q_PRE
 * first, exactly (a power of two), so q = rint((x * pre) * (levels / (amax * pre))). Rows at or
 * above it keep pre = 1: the same bits as without the rule. The vector quantizers hand such a
 * row whole to gemm_quantize_tail. */
#define GEMM_Q_TINY 0x1p-100f
#define GEMM_Q_PRE 0x1p100f
static inline float gemm_q_pre(float amax) { return amax < GEMM_Q_TINY ? GEMM_Q_PRE : 1.0f; }

#ifdef HAVE_X86
/* The vector tiles (the body_* loops and the tile_* functions that run them) are left out of
 * AddressSanitizer's instrumentation (make sanitize), UBSan kept: ASan checked the shadow of
 * every 32- or 64-byte weight load of the inner loop, which made the sanitized suite's products
 * 7x slower than on OpenBLAS (uninstrumented) before the own kernels took them over (issue 27:
 * a 500-sentence line, 9.6 s of CPU against 1.4 s; perf: 77% in tile_512_f32, the rest of
 * the time in shadow checks). What they read and write is what tile_c reads and writes: the
 * same panels (p0 .. p0 + pw, k < K or K4), the same rows of x or xq, the same tile slots,
 * from the same job fields; tile_c stays instrumented, and test_kernels runs it on every
 * shape under make sanitize. */
#define NO_ASAN __attribute__((no_sanitize_address))
#define INLINE static inline __attribute__((always_inline)) NO_ASAN

/* gemm_avx2.c (AVX2 + FMA + F16C) */
void tile_avx2_f32(const pk_job *j, int r0, int rr, int p0, int pw, void *tile);
void tile_avx2_i8(const pk_job *j, int r0, int rr, int p0, int pw, void *tile);
void tile_avx2_bf16(const pk_job *j, int r0, int rr, int p0, int pw, void *tile);
void tile_avx2_f16(const pk_job *j, int r0, int rr, int p0, int pw, void *tile);
float quantize_row_avx2(int16_t *q, const float *x, int K);

/* gemm_avx512.c (AVX-512 F/BW/VL/DQ, VNNI, AVX512-BF16) */
void tile_512_f32(const pk_job *j, int r0, int rr, int p0, int pw, void *tile);
void tile_512_i8(const pk_job *j, int r0, int rr, int p0, int pw, void *tile);
void tile_512_bf16(const pk_job *j, int r0, int rr, int p0, int pw, void *tile);
void tile_512_f16(const pk_job *j, int r0, int rr, int p0, int pw, void *tile);
void tile_vnni(const pk_job *j, int r0, int rr, int p0, int pw, void *tile);
void tile_bf16(const pk_job *j, int r0, int rr, int p0, int pw, void *tile);
float quantize_row_512(int16_t *q, const float *x, int K);
#endif

#endif

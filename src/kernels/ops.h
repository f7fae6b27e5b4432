/* ops.h — the kernels. Every matrix product goes through gemm()/the attention helpers here,
 * which are the only callers of OpenBLAS; the rest are small vector loops. */
#ifndef XLATE_OPS_H
#define XLATE_OPS_H
#include "kernels/cpu.h"
#include "kernels/linear.h"
#include "kernels/pool.h"

/* Tells OpenBLAS to run single-threaded: xlate splits the work over its own pool. */
void ops_init(void);
/* The name of the kernels OpenBLAS picked for this CPU ("Haswell", "SkylakeX", "Prescott"...),
 * into buf (n bytes); "?" when this OpenBLAS does not say. */
const char *ops_blas_core(char *buf, size_t n);
/* The OPENBLAS_CORETYPE that would serve this CPU better than the kernels OpenBLAS picked, or
 * NULL. OpenBLAS's dynamic build names its core from a list of known CPU models, and one it does
 * not know gets the generic SSE3 "Prescott" kernels (Debian's 0.3.21 on Sapphire Rapids: 3.4x
 * slower products): then "SkylakeX" on a CPU with AVX-512, "Haswell" on one with AVX2 + FMA. */
const char *ops_blas_better_core(void);
/* A pool of at most `threads` threads (the caller included) for the products below, every one
 * of which holds the BLAS library's work space before any work starts, so that no product ever
 * waits on memory (OpenBLAS 0.3.21 retries a failed mapping forever): fewer threads when fewer
 * fit under the address-space limit (ulimit -v) or in OpenBLAS's buffer table; NULL with a
 * message saying how much memory is needed when not even one fits. Free with pool_free(). */
pool *ops_pool_create(int threads, char *err, size_t errlen);

/* The products of a linear layer, arranged so that each row's result depends only on its own
 * data: never on the batch it is in, nor on the thread count (a sentence translates the same
 * alone or in a batch, with 1 thread or 16).
 *
 * Output features are cut into chunks on a fixed grid; a task computes one chunk for a block of
 * row groups, so a chunk of W stays in cache while rows stream past it: GEMV_CHUNK columns for
 * sgemv (32: 32 KB of W at in = 256, in L1), GEMM_CHUNK for sgemm (128: x is packed per call).
 * A lone row is done in runs of chunks, one sgemv per run: the same numbers, as sgemv groups a
 * call's outputs from its start (bench/blas_rows.sh measures it, tests/test_ops.c checks it).
 *
 * gemm_rows:   y[M, out] = x[M, in] W^T + b, each row by itself (sgemv).
 * gemm_groups: the same, with the rows cut in groups [off[g], off[g+1]) that each go through one
 *              sgemm (an encoder sentence: same sentence, same group, same result).
 * out: GEMM_SET (y = ...), GEMM_ADD (y += ..., a fused residual add) or GEMM_ACT (y =
 * act(...), the feed-forward activation fused, `act` naming it). */
#define GEMM_CHUNK 128
#define GEMV_CHUNK 32
enum gemm_out { GEMM_SET, GEMM_ADD, GEMM_ACT };
#define NO_ACT ACT_RELU /* the act argument when out is not GEMM_ACT (ignored) */
void gemm_rows(pool *p, float *y, const float *x, const linear *l, int M, enum gemm_out out,
               activation_kind act);
void gemm_groups(pool *p, float *y, const float *x, const linear *l, int n_groups,
                 const int *off, enum gemm_out out, activation_kind act);
/* gemm_whole: the same product as one sgemm over all M rows (columns split per thread). About
 * 1.4x faster than gemm_rows at 32-64 rows, but a row's rounding then depends on M and the
 * thread count (xlate_ctx_set_batch_invariant(ctx, 0)). Same signature as gemm_rows. */
void gemm_whole(pool *p, float *y, const float *x, const linear *l, int M, enum gemm_out out,
                activation_kind act);
/* Sentences packed as groups [off[g], off[g+1]), g < n: gemm_groups, or gemm_whole over all
 * off[n] rows when whole (not batch-invariant). */
void gemm_sentences(pool *p, float *y, const float *x, const linear *l, int n, const int *off,
                    int whole, enum gemm_out out, activation_kind act);
typedef void (*gemm_fn)(pool *p, float *y, const float *x, const linear *l, int M,
                        enum gemm_out out, activation_kind act);

/* The products above go to xlate's own kernels (gemm.c) when the weights are packed
 * (l->packed), whatever the rows' grouping: each output is one chain over k in order (f32,
 * bf16, f16) or an exact integer sum (int8), so a row's result never depends on the rows beside
 * it or on the threads, and every instruction-set path gives the same bits. This is that entry,
 * with the path named (tests force each; the rest pass cpu_isa()). */
void gemm_packed(pool *p, float *y, const float *x, const linear *l, int M, enum gemm_out out,
                 activation_kind act, enum cpu_isa isa);
/* The name of the path gemm_packed takes for weights of type t at level isa ("avx512vnni",
 * "avx512", "avx2", "generic"). */
const char *gemm_path_name(weight_type t, enum cpu_isa isa);

/* Output n of row x (l->in floats) exactly as gemm_packed computes it, for a linear packed as
 * f32, bf16 or f16: the same chain over k, then the bias (screen.c rescores with it). */
float gemm_packed_output(const linear *l, const float *x, int n);
/* Column n of such a linear's weights (l->in floats), as the kernels see them. */
void gemm_packed_column(const linear *l, int n, float *w);
/* Panels [p0, p1) of an int8 copy of src (packed as f32, bf16 or f16) into dst and mem
 * (linear_packed_bytes(WT_INT8, out, in), zeroed): src's weights as its kernels see them,
 * quantized as linear_pack_rows does; absq[n] = scale[n] * sum_k |q[n][k]|. */
void linear_pack_int8_copy(linear *dst, void *mem, const linear *src, int p0, int p1,
                           float *absq);
/* The int8 path's levels L for rows of K inputs: a row x is quantized with step max|x| / L. */
float gemm_int8_act_levels(int K);

/* out[n] = (x - mean) / sqrt(var + eps) * g + b; out may be x. */
void layernorm(float *out, const float *x, const float *g, const float *b, int n, float eps);
/* layernorm over M rows of n (stride n). */
void layernorm_rows(float *out, const float *x, const norm *nm, int M, int n, float eps);

/* In place softmax of n values. */
void softmax(float *x, int n);
/* Activation in place on n values. */
void activate(float *x, size_t n, activation_kind a);
/* Index of the largest value (the first one on ties, as torch.argmax). */
int argmax(const float *x, int n);
/* log(sum(exp(x))) over n values. */
float logsumexp(const float *x, int n);

/* Self-attention of S query rows over the same S keys (an encoder sentence), one head, on
 * OpenBLAS (the decoder's attention is kernels/attend.h):
 * out[S, dh] (stride ldo) = softmax(scale * Q K^T) V with Q, K, V rows at stride ld.
 * scores: scratch of S*S floats. */
void attend_block(float *out, int ldo, const float *Q, const float *K, const float *V, int ld,
                  int S, int dh, float scale, float *scores);

#endif

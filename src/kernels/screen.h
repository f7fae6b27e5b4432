/* screen.h — the largest outputs of a linear layer (the logits) without computing all of them
 * exactly: an int8 copy of its weights gives every output an estimate and a proven bound on
 * how far the exact output can be from it; only the outputs that could be the largest are then
 * computed exactly (gemm_packed_output: the packed kernel's own chain, the same bits).
 *
 * Why: the output projection is the largest product of a decoder step (vocabulary x d: 43% of
 * the default model's multiply-adds per token, 57% of an OPUS-MT model's), and greedy search
 * without scores needs only its argmax. Reading the int8 copy moves a quarter of the f32
 * weights' bytes and runs on the int8 kernels; the token chosen is the one the exact f32 (bf16,
 * f16) logits give, always, not approximately.
 *
 * The bound. With x the row, w the exact weights of output n, q its int8 copy (scale s_n, every
 * |w_k - s_n q_k| <= 0.51 s_n: rounding to nearest, with slack for the float steps), and the
 * int8 kernel's activations x^ (step s_x = max|x| / L, every |x_k - x^_k| <= 0.51 s_x):
 *     |x.w - x^.(s_n q)| <= 0.51 s_n |x|_1 + 0.51 s_x s_n sum_k |q_k|
 * The exact output is that sum rounded K times by the FMA chain (at most gamma_K sum|x_k w_k|
 * <= gamma_K 128 s_n |x|_1, gamma_K = K u / (1 - K u), u = 2^-24) plus the bias (one rounding);
 * the estimate is the integer sum's float epilogue (a few roundings of its own size). So
 *     rad_n = 1.001 (s_n |x|_1 (0.51 + 128 gamma_K) + 0.51 s_x a_n + 9 u (|est_n| + |b_n|))
 * with a_n = s_n sum_k |q_k| stored at build; bf16 kernels, which round the activations to bf16
 * as well, add 0.25 s_n |x|_1 (act_err). tests/test_screen.c checks it on random and
 * adversarial rows on every instruction-set path. */
#ifndef XLATE_SCREEN_H
#define XLATE_SCREEN_H
#include "kernels/linear.h"
#include "kernels/pool.h"

typedef struct {
    linear q;    /* the int8 copy: q.packed panels and q.scale; q.b = the exact linear's bias */
    float *absq; /* [out] a_n = scale[n] * sum_k |q[n][k]| */
    float *bterm; /* [out] 1.001 * 9 u |b_n| + 1e-30 (the bias's share of rad_n) */
    double act_err; /* bf16: the activations' rounding, in units of scale[n] |x|_1 */
    void *mem;   /* owns the panels and absq */
} screen;

/* Builds the screen of l, a linear packed as f32, bf16 or f16. pool (may be NULL) spreads the
 * quantization over threads. Returns 0, or -1 when out of memory (s zeroed). */
int screen_build(screen *s, const linear *l, pool *p);
/* The same from the linear's rows as f32 (rows(user, r0, r1, w) writes rows [r0, r1) into
 * w[r1 - r0][in]), a slice at a time, for a linear that is not packed: each slice is packed as
 * type t (f32, bf16, f16: linear_pack_rows, the values a packed copy would hold) into a
 * temporary panel block and quantized from there, so the screen is the very one screen_build
 * makes from the packed linear, without the packed linear ever existing whole. b: its bias
 * [out] or NULL. rows is called from pool threads, on disjoint slices. Returns 0, or -1 when
 * out of memory (s zeroed). */
int screen_build_rows(screen *s, weight_type t, int out, int in, const float *b,
                      void (*rows)(void *user, int r0, int r1, float *w), void *user, pool *p);
void screen_free(screen *s);
/* Bytes the screen holds. */
size_t screen_bytes(const screen *s);

/* For M rows of x ([M][in]): est[M][out] the estimates and rad[M][out] their bounds, so that
 * |output - est| <= rad for every output of the exact linear. A row with inf or NaN gets NaN
 * estimates (the caller then computes it exactly). */
void screen_estimate(const screen *s, pool *p, const float *x, int M, float *est, float *rad);

/* The candidates of one row after the caller's bans (est[v] = -inf: banned). screen_floor sets
 * *T, the largest lower bound est - rad of a token not banned (-inf when every token is), and
 * returns 0 when some rad is not below 1e30 (NaN included): an estimate was not finite or so
 * large that the bound says nothing (rad grows with |est|, and bans leave rad alone).
 * screen_candidates writes the tokens not banned with est + rad >= T to idx, in order, and
 * returns how many. Exact float comparisons: every instruction-set path gives the same. */
int screen_floor(const float *est, const float *rad, int n, float *T);
int screen_candidates(const float *est, const float *rad, int n, float T, int *idx);

#endif

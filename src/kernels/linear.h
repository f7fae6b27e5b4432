/* linear.h — the operands of the kernels: a linear layer's weights with their type and packed
 * layout, a norm's gain and bias, the activation kinds. The model binder fills these; the
 * encoder, decoder and search pass them to ops.h without looking at the type.
 *
 * Packed layouts (linear_pack), cut in panels of 16 output columns so that a panel streams
 * linearly while a kernel keeps 16 outputs per row in one vector register:
 *   WT_F32:         float    [P][K][16]        P = ceil(out / 16), columns past `out` zero
 *   WT_BF16/WT_F16: uint16_t [P][K][16]        the same, 16-bit
 *   WT_INT8:        int8_t   [P][K4/4][16][4]  K4 = K rounded up to 4: four consecutive k of a
 *                   column side by side (one 32-bit lane of VNNI's vpdpbusd), zeros past K;
 *                   then float scale[out], int32 comp[out] (see below). */
#ifndef XLATE_LINEAR_H
#define XLATE_LINEAR_H
#include <stddef.h>
#include <stdint.h>

typedef enum { ACT_RELU, ACT_GELU, ACT_GELU_TANH, ACT_SILU } activation_kind;

/* How a linear's weights are stored for compute (the --compute-type). */
typedef enum { WT_F32, WT_INT8, WT_BF16, WT_F16 } weight_type;

/* "f32", "int8", "bf16", "f16". */
const char *weight_type_name(weight_type t);
/* Parses a name (case-insensitive); -1 when it is none of them. */
int weight_type_parse(const char *s);

/* y = x W^T + b, as nn.Linear. */
typedef struct {
    const float *w;      /* [out, in] row-major f32 for OpenBLAS; NULL when only packed */
    const float *b;      /* [out], or NULL */
    int out, in;
    weight_type type;    /* of `packed` (WT_F32 when not packed) */
    const void *packed;  /* the panels above; NULL: not packed, OpenBLAS reads w */
    const float *scale;  /* WT_INT8: [out] w[n][k] ~ q[n][k] * scale[n] (symmetric) */
} linear;

typedef struct {
    const float *g; /* [d] gain; NULL when the norm is absent */
    const float *b; /* [d] bias */
} norm;

/* Bytes of linear_pack_rows's output for `out` x `in` weights of type t (a multiple of 64). */
size_t linear_packed_bytes(weight_type t, int out, int in);
/* Packs output rows [r0, r1) of l (l->out, l->in set) from w_rows ([r1 - r0, in] f32) into
 * mem (linear_packed_bytes, 64-byte aligned, zeroed by the caller), and points l->packed (and
 * l->scale for int8) into it. Rows may be packed in any order and in any pieces.
 * int8: scale[n] = max|w[n]| / 127, q = round-to-even(w * (127 / max|w[n]|)). (Choosing a
 * narrower clipping range per row for the least squared error changed 1 line in 1000 on the
 * default model: not worth 0.5 s of load.) */
void linear_pack_rows(linear *l, void *mem, weight_type t, int r0, int r1, const float *w_rows);

/* The same for weights already quantized (tools/convert.py --dtype int8): q_rows [r1 - r0, in]
 * in [-127, 127] with their scales [r1 - r0], packed as they are. */
void linear_pack_rows_q8(linear *l, void *mem, int r0, int r1, const int8_t *q_rows,
                         const float *scales);

/* Row n of l's packed weights as f32 into out[l->in]: the packed values exactly (f32, bf16 or f16
 * panels; not int8). The lookups of an embedding tied to a packed output projection read it
 * (the projection's panels are then the only copy of the table): a strided gather, 16 columns
 * a panel row. */
void linear_unpack_row(const linear *l, int n, float *out);

#endif

/* test_ops.c — the products of ops.c: correct against a double-precision hand computation, and
 * batch-invariant: a row's result is bitwise the same alone (gemm_rows takes long calls for a
 * lone row) as among other rows (32-column calls), at every position and thread count, and a
 * sentence's (gemm_groups) the same whatever sentences surround it. */
#include "check.h"
#include "kernels/ops.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static float frand(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (float)((*s >> 8) & 0xffff) / 65536.0f - 0.5f;
}

/* |y - x W^T - b| against double sums, scaled by sum |x||w| (the rounding's own scale) */
static double max_err(const float *y, const float *x, const linear *l, int M)
{
    double worst = 0;
    for (int r = 0; r < M; r++)
        for (int n = 0; n < l->out; n++) {
            double s = l->b ? l->b[n] : 0, mag = 1e-30;
            for (int k = 0; k < l->in; k++) {
                s += (double)x[(size_t)r * l->in + k] * l->w[(size_t)n * l->in + k];
                mag += fabs((double)x[(size_t)r * l->in + k] * l->w[(size_t)n * l->in + k]);
            }
            double e = fabs(y[(size_t)r * l->out + n] - s) / mag;
            if (e > worst)
                worst = e;
        }
    return worst;
}

static void shape(int out, int in, int with_bias, int threads)
{
    enum { MAXM = 37 };
    unsigned seed = (unsigned)(out * 131 + in);
    float *w = malloc(sizeof(float) * out * in), *b = malloc(sizeof(float) * out);
    float *rows = malloc(sizeof(float) * MAXM * in), *x = malloc(sizeof(float) * MAXM * in);
    float *alone = malloc(sizeof(float) * MAXM * out), *y = malloc(sizeof(float) * MAXM * out);
    pool *p = pool_create(threads);
    linear l = {.w = w, .b = with_bias ? b : NULL, .out = out, .in = in};
    int bad_rows = 0, bad_groups = 0, Ms[] = {2, 3, 5, 8, 33, MAXM};
    char what[160];

    for (int i = 0; i < out * in; i++)
        w[i] = frand(&seed);
    for (int i = 0; i < out; i++)
        b[i] = frand(&seed);
    for (int i = 0; i < MAXM * in; i++)
        rows[i] = 4 * frand(&seed);
    /* each row alone: the lone-row path */
    for (int r = 0; r < MAXM; r++)
        gemm_rows(p, alone + (size_t)r * out, rows + (size_t)r * in, &l, 1, GEMM_SET, NO_ACT);
    snprintf(what, sizeof what, "gemm_rows %dx%d%s, %d thread(s): a lone row within float "
             "rounding of the double product", out, in, with_bias ? " + bias" : "", threads);
    double e = max_err(alone, rows, &l, MAXM);
    check(e < 1e-5, what, "relative error %.3g", e);

    /* the same rows among others, rotated so each sits at several positions */
    for (size_t mi = 0; mi < sizeof Ms / sizeof *Ms; mi++) {
        int M = Ms[mi];
        for (int rot = 0; rot < 3; rot++) {
            for (int r = 0; r < M; r++)
                memcpy(x + (size_t)r * in, rows + (size_t)((r + rot * 7) % MAXM) * in,
                       sizeof(float) * in);
            gemm_rows(p, y, x, &l, M, GEMM_SET, NO_ACT);
            for (int r = 0; r < M; r++)
                if (memcmp(y + (size_t)r * out, alone + (size_t)((r + rot * 7) % MAXM) * out,
                           sizeof(float) * out))
                    bad_rows++;
        }
    }
    snprintf(what, sizeof what, "gemm_rows %dx%d, %d thread(s): every row bitwise equal to "
             "the row alone, at M = 2..37 and several positions", out, in, threads);
    check(bad_rows == 0, what, "%d rows differ", bad_rows);

    /* groups: sentence [0, 5) alone, then after sentences of 1..4 rows and before others */
    {
        int off_alone[2] = {0, 5};
        gemm_groups(p, alone, rows, &l, 1, off_alone, GEMM_SET, NO_ACT);
        for (int pre = 1; pre <= 4; pre++) {
            int off[4] = {0, pre, pre + 5, pre + 5 + 9};
            for (int r = 0; r < pre + 14; r++)
                memcpy(x + (size_t)r * in,
                       rows + (size_t)(r >= pre && r < pre + 5 ? r - pre : 10 + r) * in,
                       sizeof(float) * in);
            gemm_groups(p, y, x, &l, 3, off, GEMM_SET, NO_ACT);
            if (memcmp(y + (size_t)pre * out, alone, sizeof(float) * 5 * out))
                bad_groups++;
        }
        snprintf(what, sizeof what, "gemm_groups %dx%d, %d thread(s): a sentence's rows "
                 "bitwise the same alone and among other sentences", out, in, threads);
        check(bad_groups == 0, what, "%d of 4 placements differ", bad_groups);
    }
    pool_free(p);
    free(w), free(b), free(rows), free(x), free(alone), free(y);
}

int main(void)
{
    ops_init();
    /* the default model's shapes, and odd ones: outputs not a multiple of 4 or 32 */
    int shapes[][2] = {{768, 256}, {256, 1024}, {8000, 256}, {8001, 64}, {37, 48}, {100, 33}};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        for (int t = 1; t <= 3; t += 2)
            shape(shapes[i][0], shapes[i][1], (int)i % 2 == 0, t);
    return check_done();
}

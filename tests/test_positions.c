/* test_positions.c — the sinusoidal position tables against hand-computed values.
 * d = 4, position 1: div_0 = 10000^(0/4) = 1, div_1 = 10000^(2/4) = 100, so the angles are 1 and
 * 0.01: sin(1) = 0.8414710, cos(1) = 0.5403023, sin(0.01) = 0.0099998, cos(0.01) = 0.9999500.
 * Interleaved (PyTorch recipe): [sin 1, cos 1, sin .01, cos .01]; concat (Marian, fairseq):
 * [sin 1, sin .01, cos 1, cos .01]. Position 0 is [0, 1, 0, 1] / [0, 0, 1, 1]. */
#include "check.h"
#include "model/model.h"
#include <math.h>

static int close4(const float *got, const float *want)
{
    for (int i = 0; i < 4; i++)
        if (fabsf(got[i] - want[i]) > 1e-6f)
            return 0;
    return 1;
}

int main(void)
{
    float pe[3 * 4];
    const float inter0[4] = {0, 1, 0, 1}, inter1[4] = {0.8414710f, 0.5403023f, 0.0099998f, 0.9999500f};
    const float cat0[4] = {0, 0, 1, 1}, cat1[4] = {0.8414710f, 0.0099998f, 0.5403023f, 0.9999500f};

    model_sinusoid(pe, 0, 2, 4, 1, 0);
    check(close4(pe, inter0) && close4(pe + 4, inter1), "interleaved sinusoid, positions 0 and 1",
          "got %g %g %g %g", pe[4], pe[5], pe[6], pe[7]);
    model_sinusoid(pe, 0, 2, 4, 0, 0);
    check(close4(pe, cat0) && close4(pe + 4, cat1), "concat sinusoid, positions 0 and 1",
          "got %g %g %g %g", pe[4], pe[5], pe[6], pe[7]);
    /* computing rows [1, 3) after [0, 1) gives the same rows as all at once */
    {
        float a[3 * 4], b[3 * 4];
        model_sinusoid(a, 0, 3, 4, 1, 0);
        model_sinusoid(b, 0, 1, 4, 1, 0);
        model_sinusoid(b, 1, 3, 4, 1, 0);
        check(close4(a + 4, b + 4) && close4(a + 8, b + 8), "rows computed in two goes",
              "row 2 %g vs %g", a[8], b[8]);
    }
    return check_done();
}

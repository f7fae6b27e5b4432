/* blas_rows.c — does OpenBLAS compute a row of x W^T the same whatever rows share the call?
 *
 * The evidence behind xlate's default products (src/kernels/ops.h): for each of the default model's
 * product shapes, each row of a random x is computed alone, then inside calls of M = 2..64 rows
 * at every position, and the rows that differ bitwise from the row alone are counted:
 *   sgemm    one cblas_sgemm over the M rows (--fast, and what PyTorch does)
 *   sgemv    one cblas_sgemv per row in 32-column calls (xlate's default decoder products)
 *   runs     a lone row's sgemv in one call over all its columns, against the 32-column calls
 *            (xlate's lone-row path relies on these being equal)
 * Build and run: sh bench/blas_rows.sh (every OPENBLAS_CORETYPE this CPU can run). */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void openblas_set_num_threads(int n);
char *openblas_get_corename(void);

#define MAXM 64

static float frand(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (float)((*s >> 8) & 0xffff) / 65536.0f - 0.5f;
}

static void sgemv_rows(float *y, const float *x, const float *w, int M, int N, int K, int chunk)
{
    for (int r = 0; r < M; r++)
        for (int n0 = 0; n0 < N; n0 += chunk) {
            int n = N - n0 < chunk ? N - n0 : chunk;
            cblas_sgemv(CblasRowMajor, CblasNoTrans, n, K, 1.0f, w + (size_t)n0 * K, K,
                        x + (size_t)r * K, 1, 0.0f, y + (size_t)r * N + n0, 1);
        }
}

int main(void)
{
    static const int shapes[][2] = {{768, 256}, {256, 256}, {1024, 256}, {256, 1024}, {8000, 256}};
    unsigned seed = 12345;
    int total_sgemm = 0, total_sgemv = 0, total_runs = 0;
    openblas_set_num_threads(1);
    printf("OpenBLAS core: %s\n", openblas_get_corename());
    printf("%-10s %8s %8s %8s   (rows differing from the row alone, of all M x position)\n",
           "W [N, K]", "sgemm", "sgemv", "runs");
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        int N = shapes[s][0], K = shapes[s][1], bad_sgemm = 0, bad_sgemv = 0, bad_runs = 0;
        int tried = 0;
        float *w = malloc(sizeof(float) * N * K), *x = malloc(sizeof(float) * MAXM * K);
        float *alone = malloc(sizeof(float) * MAXM * N), *y = malloc(sizeof(float) * MAXM * N);
        float *xx = malloc(sizeof(float) * MAXM * K), *yv = malloc(sizeof(float) * N);
        for (int i = 0; i < N * K; i++)
            w[i] = frand(&seed);
        for (int i = 0; i < MAXM * K; i++)
            x[i] = 4 * frand(&seed);
        /* alone: M = 1 for sgemm; 32-column sgemv calls for the others */
        for (int r = 0; r < MAXM; r++)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, 1, N, K, 1.0f, x + (size_t)r * K,
                        K, w, K, 0.0f, alone + (size_t)r * N, N);
        for (int M = 2; M <= MAXM; M++)
            for (int p = 0; p < M; p++) {
                /* row 0 of x at position p, other rows around it */
                for (int r = 0; r < M; r++)
                    memcpy(xx + (size_t)r * K, x + (size_t)(r == p ? 0 : 1 + (r + M) % (MAXM - 1)) * K,
                           sizeof(float) * K);
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1.0f, xx, K, w, K,
                            0.0f, y, N);
                bad_sgemm += memcmp(y + (size_t)p * N, alone, sizeof(float) * N) != 0;
                tried++;
            }
        sgemv_rows(alone, x, w, 1, N, K, 32);
        for (int M = 2; M <= MAXM; M++)
            for (int p = 0; p < M; p += 7) {
                for (int r = 0; r < M; r++)
                    memcpy(xx + (size_t)r * K, x + (size_t)(r == p ? 0 : 1 + (r + M) % (MAXM - 1)) * K,
                           sizeof(float) * K);
                sgemv_rows(y, xx, w, M, N, K, 32);
                bad_sgemv += memcmp(y + (size_t)p * N, alone, sizeof(float) * N) != 0;
            }
        for (int r = 0; r < MAXM; r++) {
            sgemv_rows(alone, x + (size_t)r * K, w, 1, N, K, 32);
            for (int run = 2; run <= 32; run *= 2) {
                sgemv_rows(yv, x + (size_t)r * K, w, 1, N, K, 32 * run);
                bad_runs += memcmp(yv, alone, sizeof(float) * N) != 0;
            }
        }
        printf("%4d x %-4d %8d %8d %8d   of %d, %d, %d\n", N, K, bad_sgemm, bad_sgemv, bad_runs,
               tried, (MAXM - 1) * 5, MAXM * 5);
        total_sgemm += bad_sgemm, total_sgemv += bad_sgemv, total_runs += bad_runs;
        free(w), free(x), free(alone), free(y), free(xx), free(yv);
    }
    printf("sgemm: a row's result %s on the rows beside it; sgemv per row: %s; runs: %s\n",
           total_sgemm ? "DEPENDS" : "does not depend",
           total_sgemv ? "DEPENDS" : "independent", total_runs ? "DIFFER" : "equal");
    return 0;
}

/* ops.c — gemm (the one door to OpenBLAS), attention products, LayerNorm, softmax,
 * activations. */
#include "kernels/ops.h"
#include "kernels/simd.h"
#include <cblas.h>
#include "base/util.h"
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

void openblas_set_num_threads(int n);
int openblas_get_num_threads(void);
/* OpenBLAS (pthread builds) exports this for its fork handler; weak: other builds lack it. */
int blas_thread_shutdown_(void) __attribute__((weak));

static void *stop_openblas_threads(void *unused)
{
    (void)unused;
    blas_thread_shutdown_();
    return NULL;
}

/* xlate splits the work over its own pool and calls OpenBLAS single-threaded. OpenBLAS starts
 * worker threads when it is loaded, and they spin (~2^28 cycles, 0.1 s) before sleeping: on a
 * 2-core machine that steals a core from the first translation. One thread, and the idle
 * workers stopped -- from a detached thread, because the stop joins them, and a worker that
 * could not get its buffer (out of memory) never comes back to be joined. */
void ops_init(void)
{
    pthread_t t;
    pthread_attr_t attr;
    /* the xlate program re-executes itself with OPENBLAS_NUM_THREADS=1 (preinit.c): then
     * OpenBLAS has no workers and there is nothing to stop */
    int had = openblas_get_num_threads();
    openblas_set_num_threads(1);
    if (had <= 1 || !blas_thread_shutdown_ || pthread_attr_init(&attr) != 0)
        return;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_create(&t, &attr, stop_openblas_threads, NULL);
    pthread_attr_destroy(&attr);
}

/* OpenBLAS maps a 128 MB work area (BUFFER_SIZE on x86-64) for each thread that calls it, and
 * when the mapping fails it retries forever. Under an address-space limit (ulimit -v), only as
 * many threads as fit may call it: each needs that area and its stack. */
#define BLAS_THREAD_BYTES ((size_t)136 << 20)
#define SCRATCH_MARGIN ((size_t)64 << 20)

int ops_threads_that_fit(int threads, char *err, size_t errlen)
{
    struct rlimit rl;
    unsigned long pages = 0;
    size_t used, room;
    FILE *f;
    int fit;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return threads;
    if ((f = fopen("/proc/self/statm", "r"))) {
        if (fscanf(f, "%lu", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    used = (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
    room = (size_t)rl.rlim_cur > used + SCRATCH_MARGIN ? (size_t)rl.rlim_cur - used - SCRATCH_MARGIN : 0;
    fit = (int)(room / BLAS_THREAD_BYTES);
    if (fit < 1)
        return xerr(err, errlen, "out of memory: the address-space limit (ulimit -v) of %zu MB "
                    "leaves %zu MB, and each thread needs about %zu MB (OpenBLAS maps 128 MB of "
                    "work space per thread)", (size_t)rl.rlim_cur >> 20,
                    ((size_t)rl.rlim_cur > used ? (size_t)rl.rlim_cur - used : 0) >> 20,
                    (BLAS_THREAD_BYTES + SCRATCH_MARGIN) >> 20);
    return threads < fit ? threads : fit;
}

typedef struct {
    float *y;
    const float *x;
    const linear *l;
    const int *off;   /* [n_groups + 1] row offsets; NULL: every row is its own group */
    int n_groups;
    int per_task;     /* groups per task */
    int chunk;        /* output columns per chunk */
    int n_chunks;
    enum gemm_out out;
    activation_kind act;
} gemm_job;

/* Output columns [n0, n1) of the rows [r0, r1) as one product. */
static void gemm_block(const gemm_job *j, int r0, int r1, int n0, int n1)
{
    const linear *l = j->l;
    int n = n1 - n0, K = l->in, N = l->out, M = r1 - r0;
    for (int r = r0; r < r1; r++) {
        float *yr = j->y + (size_t)r * N + n0;
        if (j->out != GEMM_ADD) {
            if (l->b)
                memcpy(yr, l->b + n0, n * sizeof(float));
            else
                memset(yr, 0, n * sizeof(float));
        } else if (l->b) {
            for (int c = 0; c < n; c++)
                yr[c] += l->b[n0 + c];
        }
    }
    if (!j->off)
        cblas_sgemv(CblasRowMajor, CblasNoTrans, n, K, 1.0f, l->w + (size_t)n0 * K, K,
                    j->x + (size_t)r0 * K, 1, 1.0f, j->y + (size_t)r0 * N + n0, 1);
    else if (M > 0)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, n, K, 1.0f,
                    j->x + (size_t)r0 * K, K, l->w + (size_t)n0 * K, K, 1.0f,
                    j->y + (size_t)r0 * N + n0, N);
    if (j->out == GEMM_ACT)
        for (int r = r0; r < r1; r++)
            activate(j->y + (size_t)r * N + n0, (size_t)n, j->act);
}

static void gemm_task(void *arg, int task, int thread)
{
    const gemm_job *j = arg;
    int chunk = task % j->n_chunks, g0 = task / j->n_chunks * j->per_task;
    int g1 = g0 + j->per_task < j->n_groups ? g0 + j->per_task : j->n_groups;
    int n0 = chunk * j->chunk, n1 = n0 + j->chunk < j->l->out ? n0 + j->chunk : j->l->out;
    (void)thread;
    for (int g = g0; g < g1; g++) {
        if (j->off)
            gemm_block(j, j->off[g], j->off[g + 1], n0, n1);
        else
            gemm_block(j, g, g + 1, n0, n1);
    }
}

/* One row: a task is a run of consecutive chunks, done as one sgemv. */
static void gemm_run_task(void *arg, int task, int thread)
{
    const gemm_job *j = arg;
    int n0 = task * j->chunk, n1 = n0 + j->chunk < j->l->out ? n0 + j->chunk : j->l->out;
    (void)thread;
    gemm_block(j, 0, 1, n0, n1);
}

static void gemm_run(pool *p, gemm_job *j)
{
    int nt = pool_threads(p), tasks;
    if (j->n_groups <= 0)
        return;
    /* sgemv: 32 columns (32 KB of W at d = 256) stay in L1 while the rows stream past them,
     * 1.2x the rate of 128. sgemm (a sentence's rows): 128, so x is packed less often. */
    j->chunk = j->off ? GEMM_CHUNK : GEMV_CHUNK;
    j->n_chunks = (j->l->out + j->chunk - 1) / j->chunk;
    if (!j->off && j->n_groups == 1) {
        /* A lone row reuses nothing: fewer, longer calls (4 per thread, 128 columns at least:
         * below that the pool costs more than it saves). The same numbers as
         * chunk by chunk, since the calls still start on the chunk grid (sgemv groups its
         * outputs from the start of a call in 4s or 8s; tests/test_ops.c checks it) */
        int per = (j->n_chunks + 4 * nt - 1) / (4 * nt);
        j->chunk *= per > 4 ? per : 4;
        pool_run(p, (j->l->out + j->chunk - 1) / j->chunk, gemm_run_task, j);
        return;
    }
    /* Enough tasks to balance the threads; chunk-major, so a task reuses its chunk of W. */
    tasks = 4 * nt > j->n_chunks ? (4 * nt + j->n_chunks - 1) / j->n_chunks : 1;
    if (tasks > j->n_groups)
        tasks = j->n_groups;
    j->per_task = (j->n_groups + tasks - 1) / tasks;
    tasks = (j->n_groups + j->per_task - 1) / j->per_task;
    pool_run(p, tasks * j->n_chunks, gemm_task, j);
}

void gemm_whole(pool *p, float *y, const float *x, const linear *l, int M, enum gemm_out out,
                activation_kind act)
{
    int off[2] = {0, M}, nt = pool_threads(p);
    gemm_job j = {y, x, l, off, 1, 1, 0, 0, out, act};
    if (M <= 1) {
        gemm_rows(p, y, x, l, M, out, act);
        return;
    }
    /* one block of columns per thread: big blocks, so that each sgemm packs x once for many
     * columns */
    j.chunk = ((l->out + nt - 1) / nt + 15) & ~15;
    j.n_chunks = (l->out + j.chunk - 1) / j.chunk;
    pool_run(p, j.n_chunks, gemm_task, &j);
}

void gemm_sentences(pool *p, float *y, const float *x, const linear *l, int n, const int *off,
                    int whole, enum gemm_out out, activation_kind act)
{
    if (whole)
        gemm_whole(p, y, x, l, off[n], out, act);
    else
        gemm_groups(p, y, x, l, n, off, out, act);
}

void gemm_rows(pool *p, float *y, const float *x, const linear *l, int M, enum gemm_out out,
               activation_kind act)
{
    gemm_job j = {y, x, l, NULL, M, 0, 0, 0, out, act};
    gemm_run(p, &j);
}

void gemm_groups(pool *p, float *y, const float *x, const linear *l, int n_groups,
                 const int *off, enum gemm_out out, activation_kind act)
{
    gemm_job j = {y, x, l, off, n_groups, 0, 0, 0, out, act};
    gemm_run(p, &j);
}

void layernorm(float *out, const float *x, const float *g, const float *b, int n, float eps)
{
    float mean = simd_sum(x, n) / n;
    float var = simd_sqdev(x, n, mean) / n;
    simd_norm(out, x, g, b, n, mean, 1.0f / sqrtf(var + eps));
}

void layernorm_rows(float *out, const float *x, const norm *nm, int M, int n, float eps)
{
    for (int r = 0; r < M; r++)
        layernorm(out + (size_t)r * n, x + (size_t)r * n, nm->g, nm->b, n, eps);
}

void softmax(float *x, int n)
{
    float mx = simd_max(x, n);
    float sum = simd_exp_sum(x, x, n, mx);
    simd_scale(x, n, 1.0f / sum);
}

void activate(float *x, size_t n, activation_kind a)
{
    switch (a) {
    case ACT_RELU:
        simd_relu(x, (long)n);
        break;
    case ACT_GELU:
        for (size_t i = 0; i < n; i++)
            x[i] = 0.5f * x[i] * (1.0f + erff(x[i] * 0.70710678118654752f));
        break;
    case ACT_GELU_TANH:
        for (size_t i = 0; i < n; i++) {
            float v = x[i];
            x[i] = 0.5f * v * (1.0f + tanhf(0.79788456080286536f * (v + 0.044715f * v * v * v)));
        }
        break;
    case ACT_SILU: /* x * sigmoid(x), as torch's silu computes it */
        for (size_t i = 0; i < n; i++)
            x[i] = x[i] / (1.0f + expf(-x[i]));
        break;
    }
}

int argmax(const float *x, int n)
{
    return simd_find(x, n, simd_max(x, n));
}

float logsumexp(const float *x, int n)
{
    float mx = simd_max(x, n);
    return mx + logf(simd_exp_sum(NULL, x, n, mx));
}

void attend(float *out, const float *q, const float *K, int ldk, const float *V, int ldv, int T,
            int dh, float scale, float *scores)
{
    cblas_sgemv(CblasRowMajor, CblasNoTrans, T, dh, scale, K, ldk, q, 1, 0.0f, scores, 1);
    softmax(scores, T);
    cblas_sgemv(CblasRowMajor, CblasTrans, T, dh, 1.0f, V, ldv, scores, 1, 0.0f, out, 1);
}

void attend_block(float *out, int ldo, const float *Q, const float *K, const float *V, int ld,
                  int S, int dh, float scale, float *scores)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, S, S, dh, scale, Q, ld, K, ld, 0.0f,
                scores, S);
    for (int i = 0; i < S; i++)
        softmax(scores + (size_t)i * S, S);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, S, dh, S, 1.0f, scores, S, V, ld, 0.0f,
                out, ldo);
}

/* ops.c — gemm (the one door to OpenBLAS), the encoder's attention products, LayerNorm, softmax,
 * activations. */
#include "kernels/ops.h"
#include "kernels/simd.h"
#include <cblas.h>
#include "base/util.h"
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

void openblas_set_num_threads(int n);
char *openblas_get_corename(void) __attribute__((weak));
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

const char *ops_blas_core(char *buf, size_t n)
{
    const char *c = openblas_get_corename ? openblas_get_corename() : NULL;
    snprintf(buf, n, "%s", c ? c : "?");
    return buf;
}

const char *ops_blas_better_core(void)
{
    /* OpenBLAS's cores without AVX2 kernels: its fallback and the older CPUs' */
    static const char *const old[] = {"Prescott", "Core2", "Penryn", "Dunnington", "Nehalem",
                                      "Atom", "Katmai", "Coppermine", "Northwood", "Banias",
                                      "Sandybridge", "Opteron", "Barcelona", "Bobcat",
                                      "Bulldozer", "Piledriver", "Steamroller", "Unknown"};
    const char *c = openblas_get_corename ? openblas_get_corename() : NULL;
    enum cpu_isa isa = cpu_isa_detected();
    if (!c || isa < ISA_AVX2)
        return NULL;
    for (unsigned i = 0; i < sizeof old / sizeof *old; i++)
        if (strcasecmp(c, old[i]) == 0)
            return isa >= ISA_AVX512 ? "SkylakeX" : "Haswell";
    return NULL;
}

/* OpenBLAS's work buffers, and why every thread takes one before any work.
 *
 * A call to sgemm (and to sgemv past a few hundred values) holds a work buffer of BUFFER_SIZE
 * bytes (128 MB on x86-64) for its duration. OpenBLAS keeps them in one table for the whole
 * process (0.3.21 and the default builds since; USE_TLS builds keep one table per thread): a
 * call takes a free one, and maps a new one only when none is free. When that mapping fails
 * (an address-space limit, ulimit -v; strict overcommit) OpenBLAS 0.3.21 retries forever,
 * silently (docs/HARDENING.md finding 5; OpenMathLib/OpenBLAS#5289): a worker starting its
 * first product after the translation's own memory has filled the limit hung xlate.
 *
 * So a pool that calls OpenBLAS is made by ops_pool_create(): every thread takes a buffer at the
 * same time, in turn, each one only after its own mmap of the same size has shown that the
 * mapping succeeds (for a worker, of SCRATCH_MARGIN more, left to the translation: under a
 * limit, threads are what to give up first); then all give them back. The table then holds a
 * buffer for every thread (a per-thread table: each thread its own), so no product the pool
 * runs ever maps one again, and a later shortage can only make a malloc return NULL, which
 * every caller reports. The threads that got no buffer are stopped. This holds whatever
 * computes the products, as long as OpenBLAS is called only from the pool's threads, one call
 * at a time per thread. (Two contexts of one process running at once could need more buffers
 * than either reserved: under a memory limit, use one context per process.) */
#define BLAS_BUFFER_BYTES ((size_t)128 << 20) /* BUFFER_SIZE: 32 << 22 (common_x86_64.h) */
/* left free by every further thread: beam 5 over 100 Multi30k lines takes ~140 MB at batch 32,
 * ~260 MB at batch 64, greedy ~40 MB at 32 (measured: the least ulimit -v that translates) */
#define SCRATCH_MARGIN ((size_t)256 << 20)
#define MB(x) (((x) + ((size_t)1 << 20) - 1) >> 20)

/* OpenBLAS's own entry points (exported by libopenblas; weak: another BLAS lacks them, and
 * then there is no buffer to reserve). */
void *blas_memory_alloc(int procpos) __attribute__((weak));
void blas_memory_free(void *buffer) __attribute__((weak));
char *openblas_get_config(void) __attribute__((weak));

/* Bytes of address space the process uses now (VmSize). */
static size_t vm_bytes(void)
{
    unsigned long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%lu", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

/* 1 when a private mapping of `bytes` succeeds now (it is undone at once); else 0, errno set. */
static int can_map(size_t bytes)
{
    void *q = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (q == MAP_FAILED)
        return 0;
    munmap(q, bytes);
    return 1;
}

/* How many threads may hold a buffer at once without OpenBLAS growing its table (which it
 * announces on stderr, and past 512 more gives up with a message on stdout and NULL): the table
 * has max(50, 2 * MAX_THREADS) entries (NUM_BUFFERS in common.h). */
static int blas_table_size(void)
{
    const char *c = openblas_get_config ? openblas_get_config() : NULL;
    const char *m = c ? strstr(c, "MAX_THREADS=") : NULL;
    long n = m ? strtol(m + 12, NULL, 10) : 0;
    return n > 25 && n < (1L << 20) ? 2 * (int)n : 50;
}

/* An upper bound on the threads that fit under the address-space limit, before any is
 * started: the caller needs a buffer, each worker a buffer and its stack, and SCRATCH_MARGIN
 * is left. At least 1 (the reservation then says what is missing). */
static int threads_that_fit(int threads, size_t buffer)
{
    struct rlimit rl;
    pthread_attr_t attr;
    size_t stack = (size_t)8 << 20, used, room;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return threads;
    if (pthread_attr_init(&attr) == 0) {
        pthread_attr_getstacksize(&attr, &stack);
        pthread_attr_destroy(&attr);
    }
    used = vm_bytes();
    room = (size_t)rl.rlim_cur > used ? (size_t)rl.rlim_cur - used : 0;
    if (room < buffer + SCRATCH_MARGIN)
        return 1;
    room = 1 + (room - buffer - SCRATCH_MARGIN) / (buffer + stack);
    return (size_t)threads < room ? threads : (int)room;
}

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int n;            /* threads taking part: each runs one task */
    int turn;         /* the thread whose turn it is to take its buffer */
    int got;          /* threads [0, got) hold one */
    int arrived;      /* threads done with their turn */
    int map_errno;    /* why the first thread that got none could not map it */
    size_t buffer;    /* bytes of a buffer: BLAS_BUFFER_BYTES, or as measured by thread 0 */
} reserve_job;

/* One thread's turn: take a buffer if the mapping surely succeeds, hold it until every thread
 * has had its turn, give it back. Tasks block until all n have arrived, so each of the n
 * threads runs exactly one. */
static void reserve_task(void *arg, int task, int thread)
{
    reserve_job *j = arg;
    void *buf = NULL;
    (void)task;
    pthread_mutex_lock(&j->mu);
    while (j->turn != thread)
        pthread_cond_wait(&j->cv, &j->mu);
    if (j->got == thread) {
        if (can_map(j->buffer + (thread ? SCRATCH_MARGIN : 0))) {
            size_t before = vm_bytes(), grew;
            buf = blas_memory_alloc(0);
            grew = vm_bytes();
            grew = grew > before ? grew - before : 0;
            if (thread == 0 && grew > j->buffer)
                j->buffer = grew; /* a build with a larger BUFFER_SIZE: probe for that */
            j->got += buf != NULL;
        } else {
            j->map_errno = errno;
        }
    }
    j->turn++;
    j->arrived++;
    pthread_cond_broadcast(&j->cv);
    while (j->arrived < j->n)
        pthread_cond_wait(&j->cv, &j->mu);
    pthread_mutex_unlock(&j->mu);
    if (buf)
        blas_memory_free(buf);
}

pool *ops_pool_create(int threads, char *err, size_t errlen)
{
    reserve_job j = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, 0,
                     BLAS_BUFFER_BYTES};
    int table = blas_table_size();
    size_t used;
    pool *p;
    struct rlimit rl;
    if (blas_memory_alloc && blas_memory_free) {
        if (threads > table)
            threads = table;
        threads = threads_that_fit(threads, j.buffer);
    }
    if (!(p = pool_create(threads))) {
        xerr(err, errlen, "cannot start %d threads", threads);
        return NULL;
    }
    if (!blas_memory_alloc || !blas_memory_free)
        return p;
    j.n = pool_threads(p);
    pool_run(p, j.n, reserve_task, &j);
    if (j.got >= 1) {
        pool_shrink(p, j.got);
        return p;
    }
    pool_free(p);
    used = vm_bytes();
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        xerr(err, errlen, "out of memory: cannot map the %zu MB of work space the BLAS library "
             "needs for a thread (%s)", MB(j.buffer), strerror(j.map_errno));
    else
        xerr(err, errlen, "out of memory: the address-space limit (ulimit -v) of %zu MB leaves "
             "%zu MB after loading the model, and a thread needs %zu MB of BLAS work space: one "
             "thread needs a limit above %zu MB and room for the translation (about 40 MB "
             "greedy at batch size 32, 140 MB at beam size 5, 260 MB at beam 5 and batch 64); "
             "a further thread starts only if %zu MB more fit with %zu MB to spare",
             MB((size_t)rl.rlim_cur),
             (size_t)rl.rlim_cur > used ? ((size_t)rl.rlim_cur - used) >> 20 : 0, MB(j.buffer),
             MB(used + j.buffer), MB(j.buffer + ((size_t)8 << 20)), MB(SCRATCH_MARGIN));
    return NULL;
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
    if (l->packed) {
        gemm_packed(p, y, x, l, M, out, act, cpu_isa());
        return;
    }
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
    if (l->packed) {
        gemm_packed(p, y, x, l, M, out, act, cpu_isa());
        return;
    }
    gemm_run(p, &j);
}

void gemm_groups(pool *p, float *y, const float *x, const linear *l, int n_groups,
                 const int *off, enum gemm_out out, activation_kind act)
{
    gemm_job j = {y, x, l, off, n_groups, 0, 0, 0, out, act};
    if (l->packed) {
        if (n_groups > 0)
            gemm_packed(p, y + (size_t)off[0] * l->out, x + (size_t)off[0] * l->in, l,
                        off[n_groups] - off[0], out, act, cpu_isa());
        return;
    }
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

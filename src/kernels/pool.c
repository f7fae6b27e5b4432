/* pool.c — worker threads that take tasks from a shared counter, spin briefly, then sleep.
 *
 * A job is one 64-bit word: generation (24 bits) | task count (20) | next task (20). Whoever
 * runs (the caller or a worker) claims a task by a compare-and-swap that bumps `next`, so a
 * worker that wakes late, or was preempted, never holds the caller up: the tasks nobody has
 * claimed are done by whoever is running, and the job ends when the count of finished tasks
 * reaches the task count. fn/arg are written before the word that announces them, and a job
 * cannot be replaced while one of its tasks is claimed, so a claimed task always sees its own
 * job's fn/arg.
 *
 * Idle workers spin for XLATE_SPIN_US (default 100 us: a decoder step's regions follow each
 * other within microseconds), then sleep on a futex; an idle xlate uses no CPU. */
#include "kernels/pool.h"
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TASK_BITS 20
#define TASK_MASK ((1u << TASK_BITS) - 1)
#define MAX_TASKS TASK_MASK

typedef struct {
    struct pool *p;
    int index;
} worker_arg;

struct pool {
    int n;                      /* threads, the caller included */
    pthread_t *tid;             /* [n - 1] */
    worker_arg *args;           /* [n - 1]: held here, so a worker allocates nothing (a thread's
                                 * first malloc or free gives it a 64 MB glibc arena of address
                                 * space, which a memory limit would rather give OpenBLAS) */
    _Atomic int keep;           /* workers with an index >= keep return (pool_shrink) */
    _Atomic uint64_t job;       /* gen | ntasks | next */
    _Atomic uint32_t wake;      /* bumped at every job: the futex idle workers sleep on */
    _Atomic int sleepers;
    _Atomic int done;           /* tasks of the current job finished */
    _Atomic int stop;
    pool_fn fn;
    void *arg;
    long spin_ns;
    void *scratch;              /* pool_scratch's area */
    size_t scratch_bytes;
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

static void futex_wait(_Atomic uint32_t *addr, uint32_t val)
{
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake_all(_Atomic uint32_t *addr)
{
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAKE_PRIVATE, 0x7fffffff, NULL, NULL, 0);
}

/* Claims and runs tasks of the current job until none is left. Returns 1 if it ran any. */
static int run_tasks(pool *p, int thread)
{
    int ran = 0;
    uint64_t w = atomic_load(&p->job);
    for (;;) {
        uint32_t ntasks = (uint32_t)(w >> TASK_BITS) & TASK_MASK, next = (uint32_t)w & TASK_MASK;
        if (next >= ntasks)
            return ran;
        if (atomic_compare_exchange_weak(&p->job, &w, w + 1)) {
            p->fn(p->arg, (int)next, thread);
            atomic_fetch_add(&p->done, 1);
            ran = 1;
            w = atomic_load(&p->job);
        }
    }
}

static int has_work(pool *p)
{
    uint64_t w = atomic_load(&p->job);
    return ((uint32_t)w & TASK_MASK) < ((uint32_t)(w >> TASK_BITS) & TASK_MASK);
}

static int leaving(pool *p, int index)
{
    return atomic_load(&p->stop) || index >= atomic_load(&p->keep);
}

static void *worker_main(void *a)
{
    pool *p = ((worker_arg *)a)->p;
    int index = ((worker_arg *)a)->index;
    while (!leaving(p, index)) {
        uint32_t seen = atomic_load(&p->wake);
        long t0;
        if (run_tasks(p, index))
            continue;
        t0 = now_ns();
        for (int spins = 1; !has_work(p) && !leaving(p, index); spins++) {
            cpu_relax();
            if (spins % 64 == 0 && now_ns() - t0 > p->spin_ns) {
                atomic_fetch_add(&p->sleepers, 1);
                if (!has_work(p) && !leaving(p, index))
                    futex_wait(&p->wake, seen);
                atomic_fetch_sub(&p->sleepers, 1);
                break;
            }
        }
    }
    return NULL;
}

int pool_spin_us_parse(const char *s, long *us)
{
    long v = 0;
    size_t i = 0;
    for (; s[i] >= '0' && s[i] <= '9' && i < 8; i++)
        v = v * 10 + (s[i] - '0');
    if (i == 0 || s[i] || v > POOL_SPIN_US_MAX)
        return -1;
    *us = v;
    return 0;
}

pool *pool_create(int nthreads)
{
    pool *p = calloc(1, sizeof *p);
    const char *spin = getenv("XLATE_SPIN_US");
    long us = 100;
    if (!p)
        return NULL;
    if (nthreads < 1)
        nthreads = 1;
    p->n = 1;
    /* a value it does not take is the default here (atol read "abc" as 0 and "-5" as -5, a
     * negative spin; the command line refuses such a value: xlate_env_check) */
    if (spin && *spin)
        pool_spin_us_parse(spin, &us);
    p->spin_ns = us * 1000L;
    atomic_store(&p->keep, nthreads);
    if (nthreads > 1 && (!(p->tid = calloc(nthreads - 1, sizeof *p->tid)) ||
                         !(p->args = calloc(nthreads - 1, sizeof *p->args)))) {
        free(p->tid);
        free(p);
        return NULL;
    }
    for (int i = 1; i < nthreads; i++) {
        worker_arg *a = &p->args[i - 1];
        a->p = p;
        a->index = i;
        if (pthread_create(&p->tid[i - 1], NULL, worker_main, a) != 0)
            break; /* run with the threads we have */
        p->n++;
    }
    return p;
}

void pool_shrink(pool *p, int nthreads)
{
    if (!p || nthreads < 1 || nthreads >= p->n)
        return;
    atomic_store(&p->keep, nthreads);
    atomic_fetch_add(&p->wake, 1);
    futex_wake_all(&p->wake);
    for (int i = nthreads; i < p->n; i++)
        pthread_join(p->tid[i - 1], NULL);
    p->n = nthreads;
}

void pool_free(pool *p)
{
    if (!p)
        return;
    atomic_store(&p->stop, 1);
    atomic_fetch_add(&p->wake, 1);
    futex_wake_all(&p->wake);
    for (int i = 1; i < p->n; i++)
        pthread_join(p->tid[i - 1], NULL);
    free(p->tid);
    free(p->scratch);
    free(p->args);
    free(p);
}

void *pool_scratch(pool *p, size_t bytes)
{
    void *s;
    if (!p)
        return NULL;
    if (bytes <= p->scratch_bytes)
        return p->scratch;
    bytes = (bytes + bytes / 2 + 63) & ~(size_t)63;
    if (!(s = aligned_alloc(64, bytes)))
        return NULL;
    free(p->scratch);
    p->scratch = s;
    p->scratch_bytes = bytes;
    return s;
}

int pool_threads(const pool *p) { return p ? p->n : 1; }

void pool_run(pool *p, int ntasks, pool_fn fn, void *arg)
{
    uint64_t gen;
    long t0;
    if (ntasks <= 0)
        return;
    if (!p || p->n == 1 || ntasks == 1 || ntasks > (int)MAX_TASKS) {
        for (int t = 0; t < ntasks; t++)
            fn(arg, t, 0);
        return;
    }
    p->fn = fn;
    p->arg = arg;
    atomic_store(&p->done, 0);
    gen = (atomic_load(&p->job) >> (2 * TASK_BITS)) + 1;
    atomic_store(&p->job, (gen << (2 * TASK_BITS)) | ((uint64_t)ntasks << TASK_BITS));
    atomic_fetch_add(&p->wake, 1);
    if (atomic_load(&p->sleepers))
        futex_wake_all(&p->wake);
    run_tasks(p, 0);
    /* Every task is claimed; wait for the ones still running elsewhere. */
    t0 = now_ns();
    for (int spins = 1; atomic_load(&p->done) < ntasks; spins++) {
        cpu_relax();
        if (spins % 64 == 0 && now_ns() - t0 > 20000)
            sched_yield(); /* the thread we wait for may need this core */
    }
}

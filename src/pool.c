/* pool.c — worker threads with a bounded spin, then sleep.
 *
 * A job is published by writing fn/arg/ntasks, resetting the task counter and bumping `gen`.
 * Each worker takes tasks from the shared counter until none are left, then acknowledges the
 * generation. The caller returns only when every worker has acknowledged, so the next job can
 * never be mistaken for the current one. */
#include "pool.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

typedef struct {
    pool *p;
    int index;
    _Atomic unsigned ack; /* last generation this worker finished */
    pthread_t tid;
    char pad[64];
} worker;

struct pool {
    int n;              /* threads, the caller included */
    worker *w;          /* [n - 1] */
    _Atomic unsigned gen;
    _Atomic int next;   /* next task to take */
    int ntasks;
    pool_fn fn;
    void *arg;
    _Atomic int sleepers;
    _Atomic int stop;
    long spin_ns;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static long elapsed_ns(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (t.tv_sec - t0->tv_sec) * 1000000000L + (t.tv_nsec - t0->tv_nsec);
}

static void take_tasks(pool *p, int thread)
{
    int t;
    while ((t = atomic_fetch_add(&p->next, 1)) < p->ntasks)
        p->fn(p->arg, t, thread);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    pool *p = w->p;
    unsigned seen = 0; /* the generation at creation: a job published before this thread ran is still ours */
    for (;;) {
        unsigned g = atomic_load(&p->gen);
        if (g == seen) {
            struct timespec t0;
            int spins = 0;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            while ((g = atomic_load(&p->gen)) == seen && !atomic_load(&p->stop)) {
                cpu_relax();
                if (++spins % 64 == 0 && elapsed_ns(&t0) > p->spin_ns)
                    break;
            }
            if (g == seen && !atomic_load(&p->stop)) {
                pthread_mutex_lock(&p->mu);
                atomic_fetch_add(&p->sleepers, 1);
                while ((g = atomic_load(&p->gen)) == seen && !atomic_load(&p->stop))
                    pthread_cond_wait(&p->cv, &p->mu);
                atomic_fetch_sub(&p->sleepers, 1);
                pthread_mutex_unlock(&p->mu);
            }
        }
        if (atomic_load(&p->stop))
            return NULL;
        seen = g;
        take_tasks(p, w->index);
        atomic_store(&w->ack, g);
    }
}

pool *pool_create(int nthreads)
{
    pool *p = calloc(1, sizeof *p);
    const char *spin = getenv("XLATE_SPIN_US");
    if (!p)
        return NULL;
    if (nthreads < 1)
        nthreads = 1;
    p->n = 1;
    p->spin_ns = (spin ? atol(spin) : 100) * 1000L;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    if (nthreads > 1) {
        p->w = calloc(nthreads - 1, sizeof *p->w);
        if (!p->w) {
            pool_free(p);
            return NULL;
        }
    }
    for (int i = 1; i < nthreads; i++) {
        worker *w = &p->w[i - 1];
        w->p = p;
        w->index = i;
        if (pthread_create(&w->tid, NULL, worker_main, w) != 0)
            break; /* run with the threads we have */
        p->n++;
    }
    return p;
}

void pool_free(pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->stop, 1);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 1; i < p->n; i++)
        pthread_join(p->w[i - 1].tid, NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p->w);
    free(p);
}

int pool_threads(const pool *p) { return p ? p->n : 1; }

void pool_run(pool *p, int ntasks, pool_fn fn, void *arg)
{
    unsigned g;
    if (ntasks <= 0)
        return;
    if (!p || p->n == 1 || ntasks == 1) {
        for (int t = 0; t < ntasks; t++)
            fn(arg, t, 0);
        return;
    }
    p->fn = fn;
    p->arg = arg;
    p->ntasks = ntasks;
    atomic_store(&p->next, 0);
    g = atomic_fetch_add(&p->gen, 1) + 1;
    if (atomic_load(&p->sleepers)) {
        pthread_mutex_lock(&p->mu);
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
    take_tasks(p, 0);
    for (int i = 1; i < p->n; i++)
        while (atomic_load(&p->w[i - 1].ack) != g)
            cpu_relax();
}

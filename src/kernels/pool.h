/* pool.h — a fixed set of worker threads that run an indexed loop together.
 *
 * Workers spin for a short while (XLATE_SPIN_US, default 100 us) after a job, so that the
 * back-to-back regions of a decoder step hand over in well under a microsecond, then sleep on a
 * futex, so an idle xlate uses no CPU (unlike OpenMP's default spin of 200 ms). */
#ifndef XLATE_POOL_H
#define XLATE_POOL_H
#include <stddef.h>

typedef struct pool pool;

/* fn(arg, task, thread): task in [0, ntasks), thread in [0, pool_threads). */
typedef void (*pool_fn)(void *arg, int task, int thread);

/* XLATE_SPIN_US's values: decimal digits, 0 to POOL_SPIN_US_MAX (one second), nothing else.
 * Returns 0 with *us set, or -1 (then pool_create keeps its default, 100). */
#define POOL_SPIN_US_MAX 1000000L
int pool_spin_us_parse(const char *s, long *us);

/* nthreads >= 1 counts the caller; nthreads - 1 workers are started. NULL when out of memory or
 * when no thread can be created. */
pool *pool_create(int nthreads);
void pool_free(pool *p);
int pool_threads(const pool *p);
/* Stops the workers numbered nthreads and above (between jobs), so that the pool runs on
 * threads [0, nthreads); nothing when nthreads >= pool_threads(p). */
void pool_shrink(pool *p, int nthreads);
/* Runs fn for every task, spread over the threads (the caller takes part); returns when all are
 * done. p NULL: every task on the calling thread, as thread 0, in order. Not reentrant: fn must
 * not call pool_run on the same pool. */
void pool_run(pool *p, int ntasks, pool_fn fn, void *arg);
/* A scratch area of at least `bytes` (64-byte aligned), kept and grown with the pool, for the
 * one job that runs at a time (the kernels' quantized rows). NULL when p is NULL or out of
 * memory. */
void *pool_scratch(pool *p, size_t bytes);

#endif

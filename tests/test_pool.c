/* test_pool.c — the thread pool: every task runs exactly once, on a thread index in range, for
 * any thread count and task count, run after run (the workers spinning or asleep between runs),
 * a second pool used from inside a task, and results that do not depend on the thread count. */
#include "check.h"
#include "kernels/pool.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXT 5000

typedef struct job job;
struct job {
    _Atomic int count[MAXT]; /* times task t ran */
    _Atomic int bad_thread;  /* tasks that saw a thread index out of range */
    int threads;
    double value[MAXT];      /* what task t computed */
    pool *inner;             /* task 0 runs a job of its own on this pool */
    job *inner_job;
};

static void task(void *arg, int t, int thread)
{
    job *j = arg;
    double v = 0;
    atomic_fetch_add(&j->count[t], 1);
    if (thread < 0 || thread >= j->threads)
        atomic_fetch_add(&j->bad_thread, 1);
    for (int k = 1; k <= (t % 7 == 3 ? 20000 : 50 + t % 7); k++) /* work, unequal per task */
        v += 1.0 / (k * (double)(t + 1));
    j->value[t] = v;
    if (t == 0 && j->inner)
        pool_run(j->inner, 300, task, j->inner_job);
}

/* Every task in [0, n) ran `times` times and no other did. */
static int exactly(job *j, int n, int times, int *first_bad)
{
    for (int t = 0; t < MAXT; t++)
        if (atomic_load(&j->count[t]) != (t < n ? times : 0)) {
            *first_bad = t;
            return 0;
        }
    return 1;
}

static void reset(job *j, int threads)
{
    memset(j, 0, sizeof *j);
    j->threads = threads;
}

static double total(const job *j, int n)
{
    double s = 0;
    for (int t = 0; t < n; t++)
        s += j->value[t];
    return s;
}

int main(void)
{
    static job j, inner;
    static const int counts[] = {0, 1, 2, 3, 7, 64, 1000, MAXT};
    double want[sizeof counts / sizeof *counts];
    int bad = -1;
    double want300;

    /* the sums with one thread: the reference for every other count */
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
        reset(&j, 1);
        for (int t = 0; t < counts[c]; t++)
            task(&j, t, 0);
        want[c] = total(&j, counts[c]);
    }

    reset(&j, 1);
    for (int t = 0; t < 300; t++)
        task(&j, t, 0);
    want300 = total(&j, 300);

    for (int threads = 1; threads <= 8; threads++) {
        pool *p = pool_create(threads);
        int ok_once = 1, ok_range = 1, ok_value = 1, ok_repeat = 1;
        char what[128];
        if (!check(p && pool_threads(p) == threads, "pool_create", "%d threads: got %d",
                   threads, p ? pool_threads(p) : -1))
            continue;
        for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
            reset(&j, threads);
            pool_run(p, counts[c], task, &j);
            if (!exactly(&j, counts[c], 1, &bad)) {
                ok_once = 0;
                printf("# %d threads, %d tasks: task %d ran %d times\n", threads, counts[c], bad,
                       atomic_load(&j.count[bad]));
            }
            ok_range &= atomic_load(&j.bad_thread) == 0;
            ok_value &= total(&j, counts[c]) == want[c];
        }
        snprintf(what, sizeof what, "%d threads: every task of 0..%d runs exactly once", threads,
                 MAXT);
        check(ok_once, what, "see above");
        snprintf(what, sizeof what, "%d threads: thread index in [0, %d)", threads, threads);
        check(ok_range, what, "out of range");
        snprintf(what, sizeof what, "%d threads: results equal one thread's", threads);
        check(ok_value, what, "sums differ");

        /* back-to-back runs on one job (workers spinning), then after a pause (asleep) */
        reset(&j, threads);
        for (int r = 0; r < 2000; r++)
            pool_run(p, 1 + r % 13, task, &j);
        for (int t = 0; t < 13; t++) {
            int want_runs = 0;
            for (int r = 0; r < 2000; r++)
                want_runs += t < 1 + r % 13;
            ok_repeat &= atomic_load(&j.count[t]) == want_runs;
        }
        for (int r = 0; r < 3; r++) {
            struct timespec ms = {0, 2000000}; /* 2 ms: past the 100 us spin */
            nanosleep(&ms, NULL);
            pool_run(p, 13, task, &j);
        }
        for (int t = 0; t < 13; t++) {
            int want_runs = 3;
            for (int r = 0; r < 2000; r++)
                want_runs += t < 1 + r % 13;
            ok_repeat &= atomic_load(&j.count[t]) == want_runs;
        }
        snprintf(what, sizeof what, "%d threads: 2000 runs back to back, then runs after the "
                 "workers slept: every task counted", threads);
        check(ok_repeat, what, "a task ran the wrong number of times");

        /* a task that runs a job on another pool */
        if (threads == 1 || threads == 3 || threads == 8) {
            pool *q = pool_create(threads);
            reset(&j, threads);
            reset(&inner, threads);
            j.inner = q;
            j.inner_job = &inner;
            pool_run(p, 64, task, &j);
            snprintf(what, sizeof what, "%d threads: a task runs a job on a second pool", threads);
            check(q && exactly(&j, 64, 1, &bad) && exactly(&inner, 300, 1, &bad) &&
                      total(&inner, 300) == want300,
                  what, "task %d", bad);
            pool_free(q);
        }
        pool_free(p);
    }
    /* no pool: the caller runs every task */
    reset(&j, 1);
    pool_run(NULL, 100, task, &j);
    check(exactly(&j, 100, 1, &bad), "no pool: the caller runs every task", "task %d", bad);
    check(pool_threads(NULL) == 1, "no pool: one thread", "got %d", pool_threads(NULL));
    pool_free(NULL);
    return check_done();
}

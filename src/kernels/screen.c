/* screen.c — int8 estimates of a linear's outputs with proven bounds (screen.h). */
#include "kernels/screen.h"
#include "kernels/ops.h"
#include "kernels/cpu.h"
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_X86 1
#define T_AVX2 __attribute__((target("avx2,fma")))
#endif
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PANEL 16
/* 1.001 * 9 u: the estimate's and the exact output's own roundings, relative to |est| + |b| */
#define RAD_C3 5.37e-7f

typedef struct {
    screen *s;
    const linear *l;
    int per_task; /* panels */
} build_job;

static void build_task(void *arg, int task, int thread)
{
    const build_job *j = arg;
    int np = (j->l->out + PANEL - 1) / PANEL, p0 = task * j->per_task;
    linear q; /* a copy: every task sets the same fields */
    (void)thread;
    linear_pack_int8_copy(&q, j->s->mem, j->l, p0, p0 + j->per_task < np ? p0 + j->per_task : np,
                          j->s->absq);
}

/* s->mem for l (out, in, type set) and every field but the panels, absq and scale. */
static int screen_alloc(screen *s, const linear *l)
{
    size_t qb = linear_packed_bytes(WT_INT8, l->out, l->in);
    size_t ab = ((size_t)l->out * sizeof(float) + 63) & ~(size_t)63; /* absq, then bterm */
    memset(s, 0, sizeof *s);
    if (!(s->mem = aligned_alloc(64, qb + 2 * ab)))
        return -1;
    memset(s->mem, 0, qb + 2 * ab);
    s->absq = (float *)((uint8_t *)s->mem + qb);
    s->bterm = (float *)((uint8_t *)s->mem + qb + ab);
    for (int n = 0; n < l->out; n++)
        s->bterm[n] = RAD_C3 * (l->b ? fabsf(l->b[n]) : 0.0f) + 1e-30f;
    linear_pack_int8_copy(&s->q, s->mem, l, 0, 0, s->absq); /* the fields, no panel */
    s->q.b = l->b;
    /* bf16 kernels round the activations too: |x - bf16(x)| <= 2^-9 |x|, times max|w| <= 127.51
     * scale (a flushed subnormal's share is inside bterm's 1e-30) */
    s->act_err = l->type == WT_BF16 ? 0.25 : 0;
    return 0;
}

int screen_build(screen *s, const linear *l, pool *p)
{
    int tasks = ((l->out + PANEL - 1) / PANEL + 15) / 16;
    build_job j = {s, l, 16};
    if (screen_alloc(s, l))
        return -1;
    pool_run(p, tasks, build_task, &j);
    return 0;
}

/* screen_build_rows's slices: SLICE_PANELS panels of rows each. */
#define SLICE_PANELS 64

typedef struct {
    screen *s;
    weight_type t;
    void (*rows)(void *user, int r0, int r1, float *w);
    void *user;
    int failed; /* a task could not allocate its buffers (written under no lock: any task's 1) */
} rows_job;

/* Slice `task`: rows [r0, r1) as f32, packed as t into a block of their own (a linear of
 * r1 - r0 outputs: the same panels as rows r0.. of the whole, r0 being a multiple of 16),
 * quantized as linear_pack_int8_copy quantizes the whole, then the int8 panels, scales and
 * absq copied to their places in the screen. */
static void rows_task(void *arg, int task, int thread)
{
    rows_job *j = arg;
    screen *s = j->s;
    int K = s->q.in, N = s->q.out, r0 = task * SLICE_PANELS * PANEL;
    int r1 = r0 + SLICE_PANELS * PANEL < N ? r0 + SLICE_PANELS * PANEL : N, nr = r1 - r0;
    linear l = {NULL, NULL, nr, K, j->t, NULL, NULL}, q;
    size_t pb = linear_packed_bytes(j->t, nr, K), qb = linear_packed_bytes(WT_INT8, nr, K);
    float *w = malloc((size_t)nr * K * sizeof *w), *absq = malloc((size_t)nr * sizeof *absq);
    void *pm = aligned_alloc(64, pb), *qm = aligned_alloc(64, qb);
    (void)thread;
    if (!w || !absq || !pm || !qm) {
        j->failed = 1;
        goto done;
    }
    memset(pm, 0, pb);
    memset(qm, 0, qb);
    j->rows(j->user, r0, r1, w);
    linear_pack_rows(&l, pm, j->t, 0, nr, w);
    linear_pack_int8_copy(&q, qm, &l, 0, (nr + PANEL - 1) / PANEL, absq);
    {
        /* the slice's int8 panels (each a whole number of cache lines: 16 columns x 4 k)
         * end where its scales begin */
        size_t bytes = (size_t)((const int8_t *)q.scale - (const int8_t *)q.packed);
        size_t db = bytes / (size_t)((nr + PANEL - 1) / PANEL);
        memcpy((int8_t *)s->mem + (size_t)(r0 / PANEL) * db, q.packed, bytes);
    }
    memcpy((float *)s->q.scale + r0, q.scale, (size_t)nr * sizeof(float));
    memcpy(s->absq + r0, absq, (size_t)nr * sizeof(float));
done:
    free(w);
    free(absq);
    free(pm);
    free(qm);
}

int screen_build_rows(screen *s, weight_type t, int out, int in, const float *b,
                      void (*rows)(void *user, int r0, int r1, float *w), void *user, pool *p)
{
    linear l = {NULL, b, out, in, t, NULL, NULL};
    int tasks = (out + SLICE_PANELS * PANEL - 1) / (SLICE_PANELS * PANEL);
    rows_job j = {s, t, rows, user, 0};
    if (screen_alloc(s, &l))
        return -1;
    pool_run(p, tasks, rows_task, &j);
    if (j.failed) {
        screen_free(s);
        return -1;
    }
    return 0;
}

void screen_free(screen *s)
{
    if (!s)
        return;
    free(s->mem);
    memset(s, 0, sizeof *s);
}

size_t screen_bytes(const screen *s)
{
    return s->mem ? linear_packed_bytes(WT_INT8, s->q.out, s->q.in) +
                        2 * (size_t)s->q.out * sizeof(float)
                  : 0;
}

typedef struct {
    const screen *s;
    const float *x;
    float *est, *rad;
} rad_job;

/* rad[n] = sc[n] c1 + a[n] c2 + c3 |est[n]| + bt[n], n in [v, N): the same float steps in both
 * paths (no FMA contraction in C11 mode), so the same bounds. */
static void rad_c(float *rad, const float *est, const float *sc, const float *a,
                  const float *bt, float c1, float c2, float c3, int v, int N)
{
    for (; v < N; v++)
        rad[v] = sc[v] * c1 + a[v] * c2 + c3 * fabsf(est[v]) + bt[v];
}

#ifdef HAVE_X86
static T_AVX2 void rad_avx2(float *rad, const float *est, const float *sc, const float *a,
                            const float *bt, float c1, float c2, float c3, int N)
{
    __m256 v1 = _mm256_set1_ps(c1), v2 = _mm256_set1_ps(c2), v3 = _mm256_set1_ps(c3);
    __m256 abs = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    int v = 0;
    for (; v + 8 <= N; v += 8) {
        __m256 t = _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(sc + v), v1),
                                 _mm256_mul_ps(_mm256_loadu_ps(a + v), v2));
        t = _mm256_add_ps(t, _mm256_mul_ps(v3, _mm256_and_ps(_mm256_loadu_ps(est + v), abs)));
        _mm256_storeu_ps(rad + v, _mm256_add_ps(t, _mm256_loadu_ps(bt + v)));
    }
    rad_c(rad, est, sc, a, bt, c1, c2, c3, v, N);
}
#endif

/* Row r's bounds (screen.h gives the formula). */
static void rad_task(void *arg, int r, int thread)
{
    const rad_job *j = arg;
    const linear *q = &j->s->q;
    int K = q->in, N = q->out;
    const float *x = j->x + (size_t)r * K;
    const float *est = j->est + (size_t)r * N;
    float *rad = j->rad + (size_t)r * N;
    double x1 = 0, u = 1.0 / 16777216.0, gamma = K * u / (1 - K * u);
    float amax = 0, c1, c2;
    (void)thread;
    for (int k = 0; k < K; k++) {
        x1 += fabsf(x[k]);
        amax = fabsf(x[k]) > amax ? fabsf(x[k]) : amax;
    }
    /* rounded up: the float steps of rad lose at most a few u, inside the 1.001 */
    c1 = (float)(1.001 * x1 * (0.51 + 128 * gamma + j->s->act_err) * (1 + 1e-6));
    c2 = (float)(1.001 * 0.51 * (amax / gemm_int8_act_levels(K)) * (1 + 1e-6));
#ifdef HAVE_X86
    if (cpu_isa() >= ISA_AVX2) {
        rad_avx2(rad, est, q->scale, j->s->absq, j->s->bterm, c1, c2, RAD_C3, N);
        return;
    }
#endif
    rad_c(rad, est, q->scale, j->s->absq, j->s->bterm, c1, c2, RAD_C3, 0, N);
}

void screen_estimate(const screen *s, pool *p, const float *x, int M, float *est, float *rad)
{
    rad_job j = {s, x, est, rad};
    gemm_packed(p, est, x, &s->q, M, GEMM_SET, NO_ACT, cpu_isa());
    pool_run(p, M, rad_task, &j);
}

static int floor_c(const float *est, const float *rad, int v, int n, float *T, int ok)
{
    for (; v < n; v++) {
        ok &= rad[v] < 1e30f;
        if (est[v] != -INFINITY && est[v] - rad[v] > *T)
            *T = est[v] - rad[v];
    }
    return ok;
}

static int candidates_c(const float *est, const float *rad, int v, int n, float T, int *idx,
                        int c)
{
    for (; v < n; v++)
        if (est[v] != -INFINITY && est[v] + rad[v] >= T)
            idx[c++] = v;
    return c;
}

#ifdef HAVE_X86
static T_AVX2 int floor_avx2(const float *est, const float *rad, int n, float *T)
{
    __m256 t = _mm256_set1_ps(-INFINITY), big = _mm256_set1_ps(1e30f), ninf = t;
    __m256 ok = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
    float m[8];
    int v = 0, okk;
    for (; v + 8 <= n; v += 8) {
        __m256 e = _mm256_loadu_ps(est + v), r = _mm256_loadu_ps(rad + v);
        __m256 live = _mm256_cmp_ps(e, ninf, _CMP_NEQ_OQ);
        ok = _mm256_and_ps(ok, _mm256_cmp_ps(r, big, _CMP_LT_OQ));
        t = _mm256_max_ps(t, _mm256_blendv_ps(ninf, _mm256_sub_ps(e, r), live));
    }
    _mm256_storeu_ps(m, t);
    *T = -INFINITY;
    for (int i = 0; i < 8; i++)
        *T = m[i] > *T ? m[i] : *T;
    okk = _mm256_movemask_ps(ok) == 0xff;
    return floor_c(est, rad, v, n, T, okk);
}

static T_AVX2 int candidates_avx2(const float *est, const float *rad, int n, float T, int *idx)
{
    __m256 t = _mm256_set1_ps(T), ninf = _mm256_set1_ps(-INFINITY);
    int v = 0, c = 0;
    for (; v + 8 <= n; v += 8) {
        __m256 e = _mm256_loadu_ps(est + v), r = _mm256_loadu_ps(rad + v);
        unsigned mask = (unsigned)_mm256_movemask_ps(
            _mm256_and_ps(_mm256_cmp_ps(e, ninf, _CMP_NEQ_OQ),
                          _mm256_cmp_ps(_mm256_add_ps(e, r), t, _CMP_GE_OQ)));
        while (mask) {
            idx[c++] = v + __builtin_ctz(mask);
            mask &= mask - 1;
        }
    }
    return candidates_c(est, rad, v, n, T, idx, c);
}
#endif

int screen_floor(const float *est, const float *rad, int n, float *T)
{
#ifdef HAVE_X86
    if (cpu_isa() >= ISA_AVX2)
        return floor_avx2(est, rad, n, T);
#endif
    *T = -INFINITY;
    return floor_c(est, rad, 0, n, T, 1);
}

int screen_candidates(const float *est, const float *rad, int n, float T, int *idx)
{
#ifdef HAVE_X86
    if (cpu_isa() >= ISA_AVX2)
        return candidates_avx2(est, rad, n, T, idx);
#endif
    return candidates_c(est, rad, 0, n, T, idx, 0);
}

/* test_attend.c — the decoder's attention kernels (kernels/attend.h) on every instruction-set
 * level this CPU has, over many shapes (dh 4..128 with non-multiples of 16, T 1..600, nq 1..8,
 * strided rows):
 *   - each vector level gives the plain-C twin's bits, outputs and probabilities;
 *   - a query's bits do not depend on the queries it is grouped with (nq > 1 against nq = 1);
 *   - nothing is written between the strided rows;
 *   - rows given by their offsets (attn_rows_at: the decoder's cache, a hypothesis's positions
 *     in other slots' rows) give the bits of the same rows laid out at a stride;
 *   - the plain-C path is within a stated bound of the same attention in double precision.
 * (The softmax between the two products is simd.c's, the same in every call here;
 * test_simd.c checks its own paths against each other.) */
#include "check.h"
#include "kernels/attend.h"
#include "kernels/cpu.h"
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SENTINEL 12345.0f

static const int dhs[] = {4, 5, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 48, 63, 64, 65, 80, 96,
                          100, 127, 128};
static const int Ts[] = {1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 24, 25, 31, 33, 64, 100, 257,
                         600};
#define NDH (int)(sizeof dhs / sizeof *dhs)
#define NT (int)(sizeof Ts / sizeof *Ts)

typedef struct {
    int dh, T, nq;
    size_t ldq, ldk, ldv, ldo, ldp;
} shape;

/* Deterministic values in [-a, a). */
static void fill(float *x, size_t n, uint32_t seed, float a)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)(((seed >> 8) * (2.0 / 16777216.0) - 1.0) * a);
    }
}

/* The shape of case (i, j): strides and nq vary with the case, K and V apart or interleaved
 * as the decoder's memory rows are (k and v of a row side by side). */
static shape shape_of(int i, int j)
{
    shape s;
    int c = i * NT + j;
    s.dh = dhs[i];
    s.T = Ts[j];
    s.nq = 1 + c % 8;
    s.ldq = (size_t)s.dh + (c % 3 ? 0 : 3);
    s.ldk = c % 4 == 0 ? (size_t)s.dh : c % 4 == 1 ? 2 * (size_t)s.dh + 1 : 6 * (size_t)s.dh;
    s.ldv = c % 4 == 3 ? (size_t)s.dh + 7 : s.ldk;
    s.ldo = (size_t)s.dh + (c % 2 ? 5 : 0);
    s.ldp = (size_t)s.T + (c % 5 ? 1 : 0);
    return s;
}

typedef struct {
    float *q, *k, *v; /* inputs */
    const float *vp;  /* V as the kernels read it: v, or k + dh (a row's k and v side by side,
                         as the decoder's memory holds them) */
    float *out, *p;   /* outputs, SENTINEL where nothing is to be written */
    size_t nout, np;
} bufs;

static int alloc_bufs(bufs *b, const shape *s)
{
    size_t nk = (size_t)(s->T - 1) * s->ldk + s->dh + s->dh + 16;
    size_t nv = (size_t)(s->T - 1) * s->ldv + s->dh;
    b->q = malloc(((size_t)(s->nq - 1) * s->ldq + s->dh) * sizeof(float));
    b->k = malloc(nk * sizeof(float));
    b->v = malloc(nv * sizeof(float));
    b->nout = (size_t)s->nq * s->ldo + 16;
    b->np = (size_t)s->nq * s->ldp + 16;
    b->out = malloc(b->nout * sizeof(float));
    b->p = malloc(b->np * sizeof(float));
    if (!b->q || !b->k || !b->v || !b->out || !b->p)
        return -1;
    fill(b->q, (size_t)(s->nq - 1) * s->ldq + s->dh, (uint32_t)(s->dh * 7 + s->T), 1.5f);
    fill(b->k, nk, (uint32_t)(s->dh * 13 + s->T * 3), 1.5f);
    fill(b->v, nv, (uint32_t)(s->dh * 17 + s->T * 5), 2.0f);
    b->vp = s->ldv == s->ldk && s->ldk >= 2 * (size_t)s->dh ? b->k + s->dh : b->v;
    return 0;
}

static void free_bufs(bufs *b)
{
    free(b->q);
    free(b->k);
    free(b->v);
    free(b->out);
    free(b->p);
}

static void run(enum cpu_isa isa, const shape *s, const bufs *b, float *out, float *p)
{
    for (size_t i = 0; i < b->nout; i++)
        out[i] = SENTINEL;
    for (size_t i = 0; i < b->np; i++)
        p[i] = SENTINEL;
    attn_rows_isa(isa, out, s->ldo, b->q, s->ldq, s->nq, b->k, s->ldk, b->vp, s->ldv, s->T, s->dh,
                  1.0f / sqrtf((float)s->dh), p, s->ldp);
}

static int same_bits(const shape *s, const float *a, const float *b, size_t ld, int n)
{
    for (int i = 0; i < s->nq; i++)
        if (memcmp(a + i * ld, b + i * ld, (size_t)n * sizeof *a))
            return 0;
    return 1;
}

/* attn_rows_at over the same keys and values scattered: row t at offset (2 (T - 1 - t) + 1)
 * (dh + 3) floats of fresh buffers, backwards with gaps. 0: the strided run's bits (out1, p1). */
static int scattered_differs(enum cpu_isa isa, const shape *s, const bufs *b, const float *out1,
                             const float *p1)
{
    size_t row = (size_t)s->dh + 3, n = (2 * (size_t)s->T + 1) * row;
    float *k = malloc(n * sizeof *k), *v = malloc(n * sizeof *v);
    float *o = malloc(b->nout * sizeof *o), *pp = malloc(b->np * sizeof *pp);
    size_t *rows = malloc((size_t)s->T * sizeof *rows);
    int bad = 1;
    if (!k || !v || !o || !pp || !rows)
        goto done;
    fill(k, n, 99u, 3.0f);
    fill(v, n, 98u, 3.0f);
    for (int t = 0; t < s->T; t++) {
        rows[t] = (2 * (size_t)(s->T - 1 - t) + 1) * row;
        memcpy(k + rows[t], b->k + (size_t)t * s->ldk, s->dh * sizeof *k);
        memcpy(v + rows[t], b->vp + (size_t)t * s->ldv, s->dh * sizeof *v);
    }
    attn_rows_at_isa(isa, o, s->ldo, b->q, s->ldq, s->nq, k, v, rows, s->T, s->dh,
                     1.0f / sqrtf((float)s->dh), pp, s->ldp);
    bad = !same_bits(s, o, out1, s->ldo, s->dh) || !same_bits(s, pp, p1, s->ldp, s->T);
done:
    free(k);
    free(v);
    free(o);
    free(pp);
    free(rows);
    return bad;
}

/* The untouched places: past dh in each out row, past T in each p row, after the last row. */
static int writes_outside(const shape *s, const bufs *b, const float *out, const float *p)
{
    for (size_t i = 0; i < b->nout; i++)
        if ((i >= (size_t)s->nq * s->ldo || (int)(i % s->ldo) >= s->dh) && out[i] != SENTINEL)
            return 1;
    for (size_t i = 0; i < b->np; i++)
        if ((i >= (size_t)s->nq * s->ldp || (int)(i % s->ldp) >= s->T) && p[i] != SENTINEL)
            return 1;
    return 0;
}


/* u = 2^-24; gamma(n) = n u / (1 - n u) bounds n roundings (Higham, "Accuracy and Stability
 * of Numerical Algorithms", 2nd ed., Lemma 3.1). */
static double gamma_n(double n)
{
    const double u = 1.0 / 16777216.0;
    return n * u / (1 - n * u);
}

/* The plain-C result against double precision. A score is a chain of ceil(dh / 16) fmaf's, a
 * tree of 4 adds and the scale: |ds| <= gamma(dh / 16 + 6) scale sum |q k| (the scale itself
 * rounded to float counts as one more rounding). softmax: each p is exp(s - max) / sum, with
 * the subtraction rounded (|s - max| u), the exp polynomial's relative error below 1e-6
 * (simd.c), the sum of T terms in 8 partial chains and a tree (gamma(T / 8 + 4)) and the scale
 * by 1 / sum (2 roundings): rel(p) <= 2 max(ds + |s - max| u) + 1e-6 + gamma(T / 8 + 7).
 * out: a chain of T fmaf's over p v: |dout| <= rel(p) sum p |v| + gamma(T) sum p |v|. */
static int check_double(const shape *s, const bufs *b, const float *out, const float *p,
                        double *worst)
{
    const double u = 1.0 / 16777216.0;
    double *sc = malloc((size_t)s->T * sizeof *sc), *er = malloc((size_t)s->T * sizeof *er);
    int bad = 0;
    float scale = 1.0f / sqrtf((float)s->dh);
    if (!sc || !er) {
        free(sc);
        free(er);
        return 1;
    }
    for (int i = 0; i < s->nq && !bad; i++) {
        const float *q = b->q + i * s->ldq;
        double mx = -INFINITY, sum = 0, rel = 0, emax = 0;
        for (int t = 0; t < s->T; t++) {
            const float *k = b->k + t * s->ldk;
            double d = 0, a = 0;
            for (int e = 0; e < s->dh; e++) {
                d += (double)q[e] * k[e];
                a += fabs((double)q[e] * k[e]);
            }
            sc[t] = d / sqrt((double)s->dh);
            er[t] = gamma_n(s->dh / 16.0 + 7) * scale * a;
            if (sc[t] > mx)
                mx = sc[t];
            if (er[t] > emax)
                emax = er[t];
        }
        for (int t = 0; t < s->T; t++) {
            double x = er[t] + emax + fabs(sc[t] - mx) * u;
            if (x > rel)
                rel = x;
            sum += exp(sc[t] - mx);
        }
        rel = 2 * rel + 1e-6 + gamma_n(s->T / 8.0 + 7);
        for (int t = 0; t < s->T; t++) {
            double pr = exp(sc[t] - mx) / sum, got = p[i * s->ldp + t];
            if (fabs(got - pr) > rel * pr + 1e-30) {
                bad = 1;
                break;
            }
            if (pr > 1e-30 && fabs(got - pr) / pr / rel > *worst)
                *worst = fabs(got - pr) / pr / rel;
        }
        for (int e = 0; e < s->dh && !bad; e++) {
            double o = 0, mag = 0;
            for (int t = 0; t < s->T; t++) {
                double pr = exp(sc[t] - mx) / sum, v = b->vp[t * s->ldv + e];
                o += pr * v;
                mag += pr * fabs(v);
            }
            {
                double tol = (rel + gamma_n(s->T + 1)) * mag * 1.01 + 1e-30;
                double dev = fabs(out[i * s->ldo + e] - o);
                if (dev > tol)
                    bad = 1;
                else if (dev / tol > *worst)
                    *worst = dev / tol;
            }
        }
    }
    free(sc);
    free(er);
    return bad;
}

int main(void)
{
    enum cpu_isa top = cpu_isa_detected();
    int n_cases = 0, fail_twin[8] = {0}, fail_group = 0, fail_outside = 0, fail_double = 0;
    int fail_at = 0;
    char first_twin[8][160] = {{0}}, first_group[160] = "", first_outside[160] = "",
                                     first_double[160] = "", first_at[160] = "";
    double worst = 0;

    for (int i = 0; i < NDH; i++)
        for (int j = 0; j < NT; j++) {
            shape s = shape_of(i, j);
            bufs b;
            float *out0, *p0, *out1, *p1;
            char name[96];
            snprintf(name, sizeof name, "dh %d T %d nq %d ldk %zu ldv %zu", s.dh, s.T, s.nq,
                     s.ldk, s.ldv);
            if (alloc_bufs(&b, &s))
                return check(0, "allocate", "out of memory"), 1;
            out0 = malloc(b.nout * sizeof *out0);
            p0 = malloc(b.np * sizeof *p0);
            out1 = malloc(b.nout * sizeof *out1);
            p1 = malloc(b.np * sizeof *p1);
            if (!out0 || !p0 || !out1 || !p1)
                return check(0, "allocate", "out of memory"), 1;
            n_cases++;

            run(ISA_GENERIC, &s, &b, out0, p0);
            if (writes_outside(&s, &b, out0, p0) && !fail_outside++)
                snprintf(first_outside, sizeof first_outside, "generic, %s", name);
            if (check_double(&s, &b, out0, p0, &worst) && !fail_double++)
                snprintf(first_double, sizeof first_double, "%s", name);

            for (int lv = ISA_GENERIC; lv <= (int)top; lv++) {
                run((enum cpu_isa)lv, &s, &b, out1, p1);
                if (lv > ISA_GENERIC &&
                    (!same_bits(&s, out0, out1, s.ldo, s.dh) ||
                     !same_bits(&s, p0, p1, s.ldp, s.T)) &&
                    !fail_twin[lv]++)
                    snprintf(first_twin[lv], sizeof first_twin[lv], "%s", name);
                if (scattered_differs((enum cpu_isa)lv, &s, &b, out1, p1) && !fail_at++)
                    snprintf(first_at, sizeof first_at, "%s, %s", cpu_isa_name((enum cpu_isa)lv),
                             name);
                if (writes_outside(&s, &b, out1, p1) && !fail_outside++)
                    snprintf(first_outside, sizeof first_outside, "%s, %s",
                             cpu_isa_name((enum cpu_isa)lv), name);
                /* each query alone gives its bits in the group */
                for (int r = 0; r < s.nq; r++) {
                    float o[128], pp[600];
                    attn_rows_isa((enum cpu_isa)lv, o, 0, b.q + r * s.ldq, 0, 1, b.k, s.ldk, b.vp,
                                  s.ldv, s.T, s.dh, 1.0f / sqrtf((float)s.dh), pp, 0);
                    if ((memcmp(o, out1 + r * s.ldo, s.dh * sizeof *o) ||
                         memcmp(pp, p1 + r * s.ldp, s.T * sizeof *pp)) &&
                        !fail_group++)
                        snprintf(first_group, sizeof first_group, "%s, %s, query %d",
                                 cpu_isa_name((enum cpu_isa)lv), name, r);
                }
            }
            free(out0);
            free(p0);
            free(out1);
            free(p1);
            free_bufs(&b);
        }

    printf("# %d shapes; this CPU's levels: generic .. %s\n", n_cases, cpu_isa_name(top));
    for (int lv = ISA_AVX2; lv <= (int)top; lv++) {
        char what[96];
        snprintf(what, sizeof what, "%s: the plain-C twin's bits, outputs and probabilities",
                 cpu_isa_name((enum cpu_isa)lv));
        check(!fail_twin[lv], what, "%d of %d shapes differ, first %s", fail_twin[lv], n_cases,
              first_twin[lv]);
    }
    if (top < ISA_AVX2)
        printf("# no AVX2 + FMA here: only the plain-C path ran\n");
    check(!fail_group, "a query's bits do not depend on the queries grouped with it",
          "%d differ, first %s", fail_group, first_group);
    check(!fail_at, "rows at offsets (attn_rows_at) give the strided rows' bits, every level",
          "%d cases differ, first %s", fail_at, first_at);
    check(!fail_outside, "nothing written between strided rows or after the last",
          "%d cases, first %s", fail_outside, first_outside);
    check(!fail_double, "plain C within the stated bound of double-precision attention",
          "%d of %d shapes outside, first %s", fail_double, n_cases, first_double);
    printf("# largest deviation: %.3f of its bound\n", worst);
    check(worst > 0 && worst < 1, "the bound is met and the deviations are not all zero",
          "worst %.3f of the bound", worst);
    return check_done();
}

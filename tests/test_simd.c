/* test_simd.c — the vector loops of simd.c on both paths: the CPU's best (AVX2+FMA where it
 * has it) in this process, the plain-C twins in a child forked before any vector code ran,
 * with XLATE_FORCE_ISA=generic (cpu_isa() decides once per process). Each path is checked
 * against the same sums in double precision computed here, within float rounding bounds
 * stated below; and the two paths must agree bit for bit. */
#include "check.h"
#include "kernels/cpu.h"
#include "kernels/simd.h"
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const int sizes[] = {1, 2, 7, 8, 9, 15, 16, 17, 31, 64, 100, 1000, 4099};
#define NS (int)(sizeof sizes / sizeof *sizes)
#define MAXN 4099

/* What one path computed for every size. */
typedef struct {
    int isa;
    float max[NS];
    int find[NS][3];   /* a value present (first of two copies), the last element, absent */
    float exp_sum[NS];
    float exp_out[NS][MAXN];
    float scale[NS][MAXN];
    float sum[NS], sqdev[NS];
    float norm[NS][MAXN];
    int finite[NS][4]; /* clean, inf at the last element, NaN at the first, inf mid-vector */
    float relu[NS][MAXN];
    int above[NS][5];  /* first_above: mid, last, absent, a tie and a NaN, a sum rounded away */
    int mf[NS][4];     /* max_finite: as finite[] */
    float mf_max[NS];  /* max_finite of the clean values, and where */
    int mf_at[NS];
    float z_max[NS], z_ref[NS]; /* max_finite and simd_max of -1s with a -0 and a +0 */
    int z_at[NS];
} results;

/* Deterministic values in [-4, 4). */
static void fill(float *x, int n, uint32_t seed)
{
    for (int i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)((seed >> 8) * (8.0 / 16777216.0) - 4.0);
    }
}

static void compute(results *r)
{
    static float x[MAXN], g[MAXN], b[MAXN], t[MAXN];
    r->isa = (int)cpu_isa();
    for (int s = 0; s < NS; s++) {
        int n = sizes[s];
        fill(x, n, 11 + s);
        fill(g, n, 101 + s);
        fill(b, n, 1001 + s);
        r->max[s] = simd_max(x, n);
        memcpy(t, x, n * sizeof *t);
        t[n / 2] = 7.5f;
        t[n - 1] = 7.5f;
        r->find[s][0] = simd_find(t, n, 7.5f);
        t[n / 2] = 0.5f;
        r->find[s][1] = simd_find(t, n, 7.5f);
        r->find[s][2] = simd_find(x, n, 9.0f);
        r->exp_sum[s] = simd_exp_sum(r->exp_out[s], x, n, r->max[s]);
        memcpy(r->scale[s], x, n * sizeof *x);
        simd_scale(r->scale[s], n, 0.3f);
        r->sum[s] = simd_sum(x, n);
        r->sqdev[s] = simd_sqdev(x, n, 0.25f);
        simd_norm(r->norm[s], x, g, b, n, 0.25f, 1.7f);
        r->finite[s][0] = simd_all_finite(x, n);
        memcpy(t, x, n * sizeof *t);
        t[n - 1] = INFINITY;
        r->finite[s][1] = simd_all_finite(t, n);
        t[n - 1] = x[n - 1];
        t[0] = NAN;
        r->finite[s][2] = simd_all_finite(t, n);
        t[0] = x[0];
        t[n / 2] = -INFINITY;
        r->finite[s][3] = simd_all_finite(t, n);
        r->mf[s][0] = simd_max_finite(x, n, &r->mf_max[s], &r->mf_at[s]);
        {
            float m0;
            int a0;
            memcpy(t, x, n * sizeof *t);
            t[n - 1] = INFINITY;
            r->mf[s][1] = simd_max_finite(t, n, &m0, &a0);
            t[n - 1] = x[n - 1];
            t[0] = NAN;
            r->mf[s][2] = simd_max_finite(t, n, &m0, &a0);
            t[0] = x[0];
            t[n / 2] = -INFINITY;
            r->mf[s][3] = simd_max_finite(t, n, &m0, &a0);
            for (int i = 0; i < n; i++) /* the largest is a zero: its sign is the lanes' */
                t[i] = -1.0f;
            t[n / 2] = -0.0f;
            t[n - 1] = 0.0f;
            r->z_at[s] = -1;
            if (!simd_max_finite(t, n, &r->z_max[s], &r->z_at[s]))
                r->z_at[s] = -2;
            r->z_ref[s] = simd_max(t, n);
        }
        memcpy(r->relu[s], x, n * sizeof *x);
        simd_relu(r->relu[s], n);
        /* x is below 4, so base 0.5 + x is below 4.5 < thr 5.25 but at the 5.0s planted */
        memcpy(t, x, n * sizeof *t);
        t[n / 2] = 5.0f;
        r->above[s][0] = simd_first_above(t, n, 0.5f, 5.25f);
        t[n / 2] = x[n / 2];
        t[n - 1] = 5.0f;
        r->above[s][1] = simd_first_above(t, n, 0.5f, 5.25f);
        r->above[s][2] = simd_first_above(x, n, 0.5f, 5.25f);
        t[n - 1] = x[n - 1];
        t[0] = 4.75f; /* 0.5 + 4.75 == 5.25: not above */
        t[n / 2] = NAN;
        r->above[s][3] = simd_first_above(t, n, 0.5f, 5.25f);
        for (int i = 0; i < n; i++) /* 1 + 2^-25 rounds to 1 in float: never above 1 */
            t[i] = 1.0f;
        r->above[s][4] = simd_first_above(t, n, 0x1p-25f, 1.0f);
    }
}

/* Checks one path against double-precision sums. Bounds: a sum of n terms in float is within
 * n * eps * sum|terms| of the exact sum; exp has a relative error below 1e-6 (simd.c); a
 * product or an fma of a few terms is within 4 eps of each term's size. */
static int against_double(const results *r, char *why, size_t len)
{
    static float x[MAXN], g[MAXN], b[MAXN];
    const double eps = FLT_EPSILON;
    for (int s = 0; s < NS; s++) {
        int n = sizes[s];
        double mx = -1e30, es = 0, sum = 0, abssum = 0, sq = 0;
        int last;
        fill(x, n, 11 + s);
        fill(g, n, 101 + s);
        fill(b, n, 1001 + s);
        for (int i = 0; i < n; i++) {
            mx = x[i] > mx ? x[i] : mx;
            sum += x[i];
            abssum += fabs(x[i]);
            sq += ((double)x[i] - 0.25) * ((double)x[i] - 0.25);
        }
        if (r->max[s] != (float)mx)
            return snprintf(why, len, "n=%d max %g, want %g", n, r->max[s], mx), 0;
        if (r->mf[s][0] != 1 || r->mf[s][1] || r->mf[s][2] || r->mf[s][3] ||
            r->mf_max[s] != (float)mx || r->mf_at[s] < 0 || r->mf_at[s] >= n ||
            x[r->mf_at[s]] != (float)mx)
            return snprintf(why, len, "n=%d max_finite %d %d %d %d max %g at %d, want 1 0 0 0 "
                            "max %g", n, r->mf[s][0], r->mf[s][1], r->mf[s][2], r->mf[s][3],
                            r->mf_max[s], r->mf_at[s], mx), 0;
        /* the zeros: simd_max's very bits, at a zero (index n / 2 or n - 1) */
        if (memcmp(&r->z_max[s], &r->z_ref[s], sizeof(float)) || r->z_max[s] != 0 ||
            (r->z_at[s] != n / 2 && r->z_at[s] != n - 1))
            return snprintf(why, len, "n=%d max_finite of zeros %g at %d, simd_max %g", n,
                            r->z_max[s], r->z_at[s], r->z_ref[s]), 0;
        /* the second copy is gone when it was the first (n / 2 == n - 1) */
        last = n / 2 == n - 1 ? n : n - 1;
        if (r->find[s][0] != n / 2 || r->find[s][1] != last || r->find[s][2] != n)
            return snprintf(why, len, "n=%d find %d %d %d, want %d %d %d", n, r->find[s][0],
                            r->find[s][1], r->find[s][2], n / 2, last, n), 0;
        for (int i = 0; i < n; i++) {
            double e = exp((double)x[i] - mx);
            es += e;
            if (fabs(r->exp_out[s][i] - e) > 2e-6 * e)
                return snprintf(why, len, "n=%d exp[%d] %.9g, want %.9g", n, i,
                                r->exp_out[s][i], e), 0;
            if (r->scale[s][i] != (float)(x[i] * 0.3f))
                return snprintf(why, len, "n=%d scale[%d]", n, i), 0;
            {
                double y = ((double)x[i] - 0.25) * 1.7 * g[i] + b[i];
                double size = fabs(((double)x[i] - 0.25) * 1.7 * g[i]) + fabs(b[i]);
                if (fabs(r->norm[s][i] - y) > 4 * eps * size)
                    return snprintf(why, len, "n=%d norm[%d] %.9g, want %.9g", n, i,
                                    r->norm[s][i], y), 0;
            }
            if (r->relu[s][i] != (x[i] > 0 ? x[i] : 0))
                return snprintf(why, len, "n=%d relu[%d]", n, i), 0;
        }
        {
            /* the planted value's index, else n */
            int want[5] = {n / 2, n - 1, n, n, n};
            if (memcmp(r->above[s], want, sizeof want))
                return snprintf(why, len, "n=%d first_above %d %d %d %d %d, want %d %d %d %d %d",
                                n, r->above[s][0], r->above[s][1], r->above[s][2],
                                r->above[s][3], r->above[s][4], want[0], want[1], want[2],
                                want[3], want[4]), 0;
        }
        if (fabs(r->exp_sum[s] - es) > (2e-6 + n * eps) * es)
            return snprintf(why, len, "n=%d exp_sum %.9g, want %.9g", n, r->exp_sum[s], es), 0;
        if (fabs(r->sum[s] - sum) > n * eps * abssum)
            return snprintf(why, len, "n=%d sum %.9g, want %.9g", n, r->sum[s], sum), 0;
        if (fabs(r->sqdev[s] - sq) > (n + 2) * eps * sq)
            return snprintf(why, len, "n=%d sqdev %.9g, want %.9g", n, r->sqdev[s], sq), 0;
        if (r->finite[s][0] != 1 || r->finite[s][1] != 0 || r->finite[s][2] != 0 ||
            r->finite[s][3] != 0)
            return snprintf(why, len, "n=%d all_finite %d %d %d %d, want 1 0 0 0", n,
                            r->finite[s][0], r->finite[s][1], r->finite[s][2],
                            r->finite[s][3]), 0;
    }
    return 1;
}

/* Fills r with compute() run in a child forked before any vector code ran, under
 * XLATE_FORCE_ISA=isa (cpu_isa() decides once per process). Returns 1 when it came back. */
static int in_child(const char *isa, results *r)
{
    int fd[2], status = 0;
    pid_t pid;
    size_t off = 0;
    ssize_t got;
    if (pipe(fd) || (pid = fork()) < 0)
        return 0;
    if (pid == 0) {
        setenv("XLATE_FORCE_ISA", isa, 1);
        close(fd[0]);
        compute(r);
        while (off < sizeof *r) {
            ssize_t w = write(fd[1], (char *)r + off, sizeof *r - off);
            if (w <= 0)
                _exit(1);
            off += w;
        }
        _exit(0);
    }
    close(fd[1]);
    while (off < sizeof *r && (got = read(fd[0], (char *)r + off, sizeof *r - off)) > 0)
        off += got;
    close(fd[0]);
    waitpid(pid, &status, 0);
    return off == sizeof *r && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Path a against the plain-C twins p, bit for bit. */
static void same_bits(const results *a, const results *p, const char *name)
{
    int same = 1, bad = -1;
    const char *what = "";
    for (int s = 0; s < NS; s++) {
        int n = sizes[s];
        same &= a->max[s] == p->max[s];
        same &= memcmp(a->find[s], p->find[s], sizeof a->find[s]) == 0;
        same &= memcmp(a->finite[s], p->finite[s], sizeof a->finite[s]) == 0;
        same &= memcmp(a->scale[s], p->scale[s], n * sizeof(float)) == 0;
        same &= memcmp(a->relu[s], p->relu[s], n * sizeof(float)) == 0;
        same &= memcmp(a->above[s], p->above[s], sizeof a->above[s]) == 0;
        same &= memcmp(a->mf[s], p->mf[s], sizeof a->mf[s]) == 0;
        same &= memcmp(&a->mf_max[s], &p->mf_max[s], sizeof(float)) == 0;
        same &= a->mf_at[s] == p->mf_at[s];
        same &= memcmp(&a->z_max[s], &p->z_max[s], sizeof(float)) == 0;
    }
    check(same, "max, find, all_finite, scale, relu, first_above, max_finite: the plain-C "
          "twins' bits", "%s differs", name);
    /* the loops that sum (softmax's exp sum, LayerNorm's mean and variance) and the
     * normalization: the plain-C twins add in the vector path's order (8 lanes, then the
     * lanes' tree, then the tail) with the same exp polynomial and FMAs, so a model's numbers
     * do not depend on XLATE_FORCE_ISA (issue 27: int8 and bf16 translations did, through
     * activations rounded to int16 or bf16 after a LayerNorm) */
    for (int s = 0; s < NS && bad < 0; s++) {
        int n = sizes[s];
        if (memcmp(&a->exp_sum[s], &p->exp_sum[s], sizeof(float)) ||
            memcmp(a->exp_out[s], p->exp_out[s], n * sizeof(float)))
            bad = s, what = "exp_sum";
        else if (memcmp(&a->sum[s], &p->sum[s], sizeof(float)))
            bad = s, what = "sum";
        else if (memcmp(&a->sqdev[s], &p->sqdev[s], sizeof(float)))
            bad = s, what = "sqdev";
        else if (memcmp(a->norm[s], p->norm[s], n * sizeof(float)))
            bad = s, what = "norm";
    }
    check(bad < 0, "exp_sum, sum, sqdev, norm: the plain-C twins' bits", "%s: %s differs at n=%d",
          name, what, bad < 0 ? 0 : sizes[bad]);
}

int main(void)
{
    static results best, plain, avx2;
    char why[256] = "";

    /* the plain-C twins, and the AVX2 path where the CPU's best is above it (simd.c's AVX-512
     * exp_sum), each in a child that has not asked cpu_isa() yet */
    if (!check(in_child("generic", &plain), "the child computed the plain-C path",
               "pipe, fork or read failed"))
        return check_done();
    if (cpu_isa_detected() > ISA_AVX2 &&
        !check(in_child("avx2", &avx2), "the child computed the AVX2 path",
               "pipe, fork or read failed"))
        return check_done();
    compute(&best);

    check(plain.isa == ISA_GENERIC, "child: XLATE_FORCE_ISA=generic selects the plain-C twins",
          "isa %s", cpu_isa_name(plain.isa));
    printf("# this process: %s (the CPU's best: %s)\n", cpu_isa_name(best.isa),
           cpu_isa_name(cpu_isa_detected()));
    check(against_double(&plain, why, sizeof why), "plain C: within float rounding of double "
          "sums", "%s", why);
    check(against_double(&best, why, sizeof why), "vector path: within float rounding of "
          "double sums", "%s", why);
    same_bits(&best, &plain, cpu_isa_name(best.isa));
    if (cpu_isa_detected() > ISA_AVX2) {
        check(avx2.isa == ISA_AVX2, "child: XLATE_FORCE_ISA=avx2 selects the AVX2 path",
              "isa %s", cpu_isa_name(avx2.isa));
        same_bits(&avx2, &plain, "avx2");
    }
    return check_done();
}

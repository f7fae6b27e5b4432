/* peak.c — what this machine can do, for bench.py's "distance from the limit": with T threads,
 * the peak rate of the instructions xlate's kernels are made of, and how fast the cores read a
 * buffer the size of the weights.
 *
 *   cc -O2 -pthread -o build/peak bench/peak.c && build/peak THREADS BYTES
 *
 * prints one JSON line: fma_gflops (f32 FMA: AVX-512 where the CPU has it, else AVX2, 2 FLOP a
 * lane), int8_gops (vpdpwssd with VNNI, else vpmaddwd + vpaddd: 2 OP per multiply-add of int16
 * pairs), bf16_gflops (vdpbf16ps where present, else null), read_gbs (every thread summing its
 * share of a BYTES buffer, again and again: from the cache level that holds it). Each figure is
 * the best of 5 timings of independent chains (12 accumulators a thread, enough to cover the
 * latency), so it is the hardware's throughput, not a kernel's. */
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPS 4000000L

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

typedef struct {
    int kind;
    const float *buf;
    size_t n;
    double sink;
} job;

enum { FMA512, FMA256, VNNI, MADD512, MADD256, BF16, READ };

__attribute__((target("avx512f"))) static double fma512(void)
{
    __m512 a[12], x = _mm512_set1_ps(1.0000001f), y = _mm512_set1_ps(0.9999999f);
    for (int i = 0; i < 12; i++)
        a[i] = _mm512_set1_ps((float)i);
    for (long r = 0; r < REPS; r++)
#pragma GCC unroll 12
        for (int i = 0; i < 12; i++)
            a[i] = _mm512_fmadd_ps(a[i], x, y);
    for (int i = 1; i < 12; i++)
        a[0] = _mm512_add_ps(a[0], a[i]);
    return _mm512_reduce_add_ps(a[0]);
}

__attribute__((target("avx2,fma"))) static double fma256(void)
{
    __m256 a[12], x = _mm256_set1_ps(1.0000001f), y = _mm256_set1_ps(0.9999999f);
    float o[8];
    for (int i = 0; i < 12; i++)
        a[i] = _mm256_set1_ps((float)i);
    for (long r = 0; r < REPS; r++)
#pragma GCC unroll 12
        for (int i = 0; i < 12; i++)
            a[i] = _mm256_fmadd_ps(a[i], x, y);
    for (int i = 1; i < 12; i++)
        a[0] = _mm256_add_ps(a[0], a[i]);
    _mm256_storeu_ps(o, a[0]);
    return o[0];
}

__attribute__((target("avx512f,avx512bw,avx512vnni"))) static double vnni(void)
{
    __m512i a[12], x = _mm512_set1_epi16(3), y = _mm512_set1_epi16(5);
    for (int i = 0; i < 12; i++)
        a[i] = _mm512_set1_epi32(i);
    for (long r = 0; r < REPS; r++)
#pragma GCC unroll 12
        for (int i = 0; i < 12; i++)
            a[i] = _mm512_dpwssd_epi32(a[i], x, y);
    for (int i = 1; i < 12; i++)
        a[0] = _mm512_add_epi32(a[0], a[i]);
    return _mm512_reduce_add_epi32(a[0]);
}

__attribute__((target("avx512f,avx512bw"))) static double madd512(void)
{
    __m512i a[12], x = _mm512_set1_epi16(3), y = _mm512_set1_epi16(5);
    for (int i = 0; i < 12; i++)
        a[i] = _mm512_set1_epi32(i);
    for (long r = 0; r < REPS; r++)
#pragma GCC unroll 12
        for (int i = 0; i < 12; i++)
            a[i] = _mm512_add_epi32(a[i], _mm512_madd_epi16(x, y));
    for (int i = 1; i < 12; i++)
        a[0] = _mm512_add_epi32(a[0], a[i]);
    return _mm512_reduce_add_epi32(a[0]);
}

__attribute__((target("avx2"))) static double madd256(void)
{
    __m256i a[12], x = _mm256_set1_epi16(3), y = _mm256_set1_epi16(5);
    int o[8];
    for (int i = 0; i < 12; i++)
        a[i] = _mm256_set1_epi32(i);
    for (long r = 0; r < REPS; r++)
#pragma GCC unroll 12
        for (int i = 0; i < 12; i++)
            a[i] = _mm256_add_epi32(a[i], _mm256_madd_epi16(x, y));
    for (int i = 1; i < 12; i++)
        a[0] = _mm256_add_epi32(a[0], a[i]);
    _mm256_storeu_si256((__m256i *)o, a[0]);
    return o[0];
}

__attribute__((target("avx512f,avx512bf16"))) static double bf16(void)
{
    __m512 a[12];
    __m512i x = _mm512_set1_epi32(0x3f803f80), y = _mm512_set1_epi32(0x3f803f80);
    for (int i = 0; i < 12; i++)
        a[i] = _mm512_set1_ps((float)i);
    for (long r = 0; r < REPS; r++)
#pragma GCC unroll 12
        for (int i = 0; i < 12; i++)
            a[i] = _mm512_dpbf16_ps(a[i], (__m512bh)x, (__m512bh)y);
    for (int i = 1; i < 12; i++)
        a[0] = _mm512_add_ps(a[0], a[i]);
    return _mm512_reduce_add_ps(a[0]);
}

__attribute__((target("avx2"))) static double readbuf(const float *b, size_t n)
{
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0, s7 = s0;
    float o[8];
    for (int rep = 0; rep < 20; rep++)
        for (size_t i = 0; i + 64 <= n; i += 64) {
            s0 = _mm256_add_ps(s0, _mm256_load_ps(b + i));
            s1 = _mm256_add_ps(s1, _mm256_load_ps(b + i + 8));
            s2 = _mm256_add_ps(s2, _mm256_load_ps(b + i + 16));
            s3 = _mm256_add_ps(s3, _mm256_load_ps(b + i + 24));
            s4 = _mm256_add_ps(s4, _mm256_load_ps(b + i + 32));
            s5 = _mm256_add_ps(s5, _mm256_load_ps(b + i + 40));
            s6 = _mm256_add_ps(s6, _mm256_load_ps(b + i + 48));
            s7 = _mm256_add_ps(s7, _mm256_load_ps(b + i + 56));
        }
    s0 = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)),
                       _mm256_add_ps(_mm256_add_ps(s4, s5), _mm256_add_ps(s6, s7)));
    _mm256_storeu_ps(o, s0);
    return o[0];
}

static void *run(void *arg)
{
    job *j = arg;
    switch (j->kind) {
    case FMA512: j->sink = fma512(); break;
    case FMA256: j->sink = fma256(); break;
    case VNNI: j->sink = vnni(); break;
    case MADD512: j->sink = madd512(); break;
    case MADD256: j->sink = madd256(); break;
    case BF16: j->sink = bf16(); break;
    case READ: j->sink = readbuf(j->buf, j->n); break;
    }
    return NULL;
}

/* best of 5: seconds for every thread to run kind once */
static double timed(int kind, int T, const float *buf, size_t n)
{
    double best = 1e30;
    for (int rep = 0; rep < 5; rep++) {
        pthread_t th[64];
        job jb[64];
        double t0 = now(), dt;
        for (int t = 0; t < T; t++) {
            size_t share = n / T / 64 * 64;
            jb[t] = (job){kind, buf + share * t, share, 0};
            pthread_create(&th[t], NULL, run, &jb[t]);
        }
        for (int t = 0; t < T; t++)
            pthread_join(th[t], NULL);
        dt = now() - t0;
        best = dt < best ? dt : best;
    }
    return best;
}

int main(int argc, char **argv)
{
    int T = argc > 1 ? atoi(argv[1]) : 1;
    size_t bytes = argc > 2 ? (size_t)atol(argv[2]) : 19u << 20, n = bytes / sizeof(float);
    float *buf = aligned_alloc(64, (n * sizeof(float) + 63) & ~(size_t)63);
    double work = (double)REPS * 12 * T, fma, i8, bf = -1, rd;
    int a512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
    if (T < 1 || T > 64 || !buf)
        return 2;
    for (size_t i = 0; i < n; i++)
        buf[i] = (float)(i & 7);
    __builtin_cpu_init();
    fma = work * (a512 ? 32 : 16) / timed(a512 ? FMA512 : FMA256, T, NULL, 0) / 1e9;
    if (a512 && __builtin_cpu_supports("avx512vnni"))
        i8 = work * 64 / timed(VNNI, T, NULL, 0) / 1e9;
    else
        i8 = work * (a512 ? 64 : 32) / timed(a512 ? MADD512 : MADD256, T, NULL, 0) / 1e9;
    {
        unsigned a, b, c, d;
        __asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(7), "c"(1));
        if (a512 && (a >> 5 & 1))
            bf = work * 64 / timed(BF16, T, NULL, 0) / 1e9;
    }
    rd = (double)(n / T / 64 * 64 * T) * sizeof(float) * 20 / timed(READ, T, buf, n) / 1e9;
    printf("{\"threads\": %d, \"fma_gflops\": %.1f, \"int8_gops\": %.1f, \"bf16_gflops\": ", T,
           fma, i8);
    if (bf > 0)
        printf("%.1f", bf);
    else
        printf("null");
    printf(", \"read_gbs\": %.1f, \"bytes\": %zu}\n", rd, bytes);
    free(buf);
    return 0;
}

/* cpu.c — the instruction-set level of the vector code, from the CPU and XLATE_FORCE_ISA.
 *
 * The level is computed once (the environment and the CPU do not change under a running
 * process) and cached in an atomic: the one piece of process-wide state in the library, and it
 * is read-only after the first call. Any thread may make that first call; they all compute the
 * same value. */
#include "kernels/cpu.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <strings.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#endif

static const char *const names[] = {"generic", "avx2", "avx512", "avx512vnni", "avx512bf16"};

const char *cpu_isa_name(enum cpu_isa isa)
{
    return (unsigned)isa < sizeof names / sizeof *names ? names[isa] : "?";
}

int cpu_isa_parse(const char *s)
{
    for (unsigned i = 0; s && i < sizeof names / sizeof *names; i++)
        if (strcasecmp(s, names[i]) == 0)
            return (int)i;
    return -1;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
/* CPUID leaf 1, ECX bit 29 (gcc's __builtin_cpu_supports has no name for it) */
static int has_f16c(void)
{
    unsigned a, b, c, d;
    return __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29));
}
/* CPUID leaf 7 subleaf 1, EAX bit 5 (GCC 12's __builtin_cpu_supports has "avx512bf16", but
 * older compilers do not) */
static int has_avx512bf16(void)
{
    unsigned a, b, c, d;
    return __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a & (1u << 5));
}
#endif

enum cpu_isa cpu_isa_detected(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    /* F16C comes with every AVX2 CPU; the f16 weights' kernels use it */
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma") || !has_f16c())
        return ISA_GENERIC;
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw") ||
        !__builtin_cpu_supports("avx512vl") || !__builtin_cpu_supports("avx512dq"))
        return ISA_AVX2;
    if (!__builtin_cpu_supports("avx512vnni"))
        return ISA_AVX512;
    return has_avx512bf16() ? ISA_AVX512_BF16 : ISA_AVX512_VNNI;
#else
    return ISA_GENERIC;
#endif
}

enum cpu_isa cpu_isa(void)
{
    static atomic_int cached = -1;
    int v = atomic_load_explicit(&cached, memory_order_relaxed);
    if (v < 0) {
        int forced = cpu_isa_parse(getenv("XLATE_FORCE_ISA"));
        v = (int)cpu_isa_detected();
        if (forced >= 0 && forced < v)
            v = forced;
        atomic_store_explicit(&cached, v, memory_order_relaxed);
    }
    return (enum cpu_isa)v;
}

int cpu_has_f16c(void)
{
    /* cpu_isa_detected gives AVX2 or more only where CPUID has F16C, and XLATE_FORCE_ISA only
     * lowers the level: so the cached level answers without a CPUID, which a virtual machine
     * traps (a few microseconds: it was 5% of a greedy run that converts f16 rows one at a
     * time, the embedding's and the screen's candidates') */
    return cpu_isa() >= ISA_AVX2;
}

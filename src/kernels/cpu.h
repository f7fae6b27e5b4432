/* cpu.h — which instruction sets the vector code may use: what the CPU has, at most what
 * XLATE_FORCE_ISA names (generic, avx2, avx512, avx512vnni, avx512bf16). Chosen once per process, read everywhere. */
#ifndef XLATE_CPU_H
#define XLATE_CPU_H

/* Ordered: a level includes every level below it. */
enum cpu_isa {
    ISA_GENERIC = 0,
    ISA_AVX2 = 1,
    ISA_AVX512 = 2,
    ISA_AVX512_VNNI = 3,
    ISA_AVX512_BF16 = 4 /* VNNI and AVX512-BF16 (Cooper Lake, Sapphire Rapids, Zen 4) */
};

/* The level the kernels use: the CPU's best, lowered to XLATE_FORCE_ISA when that is set.
 * Never above what the CPU has (a forced level it lacks falls back to its best). */
enum cpu_isa cpu_isa(void);
/* The CPU's own best level, whatever XLATE_FORCE_ISA says. */
enum cpu_isa cpu_isa_detected(void);
/* "generic", "avx2", "avx512", "avx512vnni" or "avx512bf16". */
const char *cpu_isa_name(enum cpu_isa isa);
/* Parses a level name (case-insensitive); -1 when it is none of them. */
int cpu_isa_parse(const char *s);

/* 1 when the vector level is AVX2 or more and the CPU converts halves (F16C). */
int cpu_has_f16c(void);

#endif

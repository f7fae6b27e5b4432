/* preinit.c — keeps OpenBLAS from starting threads of its own.
 *
 * xlate splits the work over its own pool and calls OpenBLAS single-threaded. But OpenBLAS
 * starts its worker threads in its constructor, before main(), and they spin for about 2^28
 * cycles (~0.1 s) before sleeping: on a 2-core machine that steals a core from the first
 * translation (start-up plus one sentence: ~60 ms instead of ~30 ms, measured with hyperfine).
 * OpenBLAS reads OPENBLAS_NUM_THREADS in that constructor, and libc resets the environment
 * after .preinit_array functions run, so setenv() here is too early to be seen. Instead, when
 * the variable is not already 1, this re-executes the program with it set: one execve, before
 * any library has started (about 1 ms). If /proc/self/exe cannot be executed, xlate goes on
 * as it is. */
#include <string.h>
#include <unistd.h>

static void openblas_one_thread(int argc, char **argv, char **envp)
{
    static const char want[] = "OPENBLAS_NUM_THREADS=1";
    size_t n = 0;
    (void)argc;
    for (char **e = envp; *e; e++, n++)
        if (strncmp(*e, "OPENBLAS_NUM_THREADS=", 21) == 0 && strcmp(*e, want) == 0)
            return;
    {
        char *env[n + 2];
        size_t k = 0;
        for (char **e = envp; *e; e++)
            if (strncmp(*e, "OPENBLAS_NUM_THREADS=", 21) != 0)
                env[k++] = *e;
        env[k++] = (char *)want;
        env[k] = NULL;
        execve("/proc/self/exe", argv, env);
    }
}

__attribute__((section(".preinit_array"), used)) static void (*const preinit)(int, char **,
                                                                               char **) =
    openblas_one_thread;

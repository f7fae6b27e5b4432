/* preinit.c — keeps OpenBLAS from starting threads of its own (linked into the xlate program).
 *
 * xlate splits the work over its own pool and calls OpenBLAS single-threaded. But OpenBLAS
 * starts worker threads in its constructor, before main(): they spin for about 2^28 cycles
 * (~0.1 s) before sleeping, stealing a core from the first translation, and under a memory
 * limit (ulimit -v) a worker that cannot get its buffer spins forever and OpenBLAS's exit
 * handler waits for it: xlate would hang. OpenBLAS reads OPENBLAS_NUM_THREADS in that
 * constructor, and libc resets the environment after the .preinit_array functions run, so a
 * setenv() here would not be seen. Instead, when the variable is not already 1, this
 * re-executes the program with it set: one execve before any library has started (about 1 ms).
 * Not under valgrind (the new image would run outside it; ops_init() stops the threads then),
 * and if /proc/self/exe cannot be executed xlate goes on as it is. */
#include <string.h>
#include <unistd.h>

static void openblas_one_thread(int argc, char **argv, char **envp)
{
    static const char want[] = "OPENBLAS_NUM_THREADS=1";
    size_t n = 0;
    (void)argc;
    for (char **e = envp; *e; e++, n++) {
        if (strcmp(*e, want) == 0)
            return;
        if (strncmp(*e, "LD_PRELOAD=", 11) == 0 && strstr(*e, "vgpreload"))
            return;
    }
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

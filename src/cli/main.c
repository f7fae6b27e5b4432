/* main.c — the xlate command: dispatches to a subcommand and returns its exit status.
 * The only place that exits. */
#include "cli/cli.h"
#include "cli/cli_common.h"
#include "xlate.h"
#include "kernels/ops.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* When OpenBLAS did not recognise the CPU and took its generic kernels, and the user has not
 * named a core (OPENBLAS_CORETYPE set, even empty, is never overridden), the program runs again
 * with the core that fits (ops_blas_better_core): OpenBLAS reads the variable only in its
 * constructor, before main. Once at most: the new image has the variable set. Not under
 * valgrind (the new image would run outside it). */
static void blas_core(char **argv)
{
    const char *want, *pre = getenv("LD_PRELOAD");
    if (getenv("OPENBLAS_CORETYPE") || (pre && strstr(pre, "vgpreload")) ||
        !(want = ops_blas_better_core()))
        return;
    if (setenv("OPENBLAS_CORETYPE", want, 1) == 0)
        execv("/proc/self/exe", argv);
    unsetenv("OPENBLAS_CORETYPE"); /* could not run again: go on with OpenBLAS's choice */
}

int main(int argc, char **argv)
{
    char err[XLATE_ERRLEN];
    blas_core(argv);
    /* a variable's value it does not take is refused before any work (issue 27: a misspelt
     * XLATE_FORCE_ISA measured the wrong kernels without a word); an unknown XLATE_* name is
     * a warning */
    if (xlate_env_check(warn_stderr, NULL, err, sizeof err)) {
        fprintf(stderr, "xlate: %s\n", err);
        return XLATE_EXIT_USAGE;
    }
    /* A closed stdout shows up as EPIPE on write, handled where output is written. */
    signal(SIGPIPE, SIG_IGN);
    cli_catch_sigbus();
    if (argc > 1) {
        if (strcmp(argv[1], "encode") == 0)
            return cmd_encode(argc - 1, argv + 1);
        if (strcmp(argv[1], "decode") == 0)
            return cmd_decode(argc - 1, argv + 1);
        if (strcmp(argv[1], "split") == 0)
            return cmd_split(argc - 1, argv + 1);
        if (strcmp(argv[1], "detect") == 0)
            return cmd_detect(argc - 1, argv + 1);
        if (strcmp(argv[1], "info") == 0)
            return cmd_info(argc - 1, argv + 1);
        if (strcmp(argv[1], "pull") == 0)
            return cmd_pull(argc - 1, argv + 1);
        if (strcmp(argv[1], "models") == 0)
            return cmd_models(argc - 1, argv + 1);
        if (strcmp(argv[1], "serve") == 0)
            return cmd_serve(argc - 1, argv + 1);
        if (strcmp(argv[1], "translate") == 0)
            return cmd_translate(argc - 1, argv + 1);
    }
    return cmd_translate(argc, argv);
}

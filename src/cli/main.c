/* main.c — the xlate command: dispatches to a subcommand and returns its exit status.
 * The only place that exits. */
#include "cli/cli.h"
#include <signal.h>
#include <string.h>

int main(int argc, char **argv)
{
    /* A closed stdout shows up as EPIPE on write, handled where output is written. */
    signal(SIGPIPE, SIG_IGN);
    cli_catch_sigbus();
    if (argc > 1) {
        if (strcmp(argv[1], "encode") == 0)
            return cmd_encode(argc - 1, argv + 1);
        if (strcmp(argv[1], "decode") == 0)
            return cmd_decode(argc - 1, argv + 1);
        if (strcmp(argv[1], "info") == 0)
            return cmd_info(argc - 1, argv + 1);
        if (strcmp(argv[1], "translate") == 0)
            return cmd_translate(argc - 1, argv + 1);
    }
    return cmd_translate(argc, argv);
}

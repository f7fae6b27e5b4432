/* cli_outfile.h — -o FILE replaced whole or not at all (a temporary file beside it, renamed
 * over it at the end), and what SIGINT, SIGTERM or SIGHUP do during a run (the temporary file
 * removed, the lines done said). See cli_outfile.c. */
#ifndef XLATE_CLI_OUTFILE_H
#define XLATE_CLI_OUTFILE_H

#include <stdio.h>

/* Opens the output for `-o path`: a temporary file `.NAME.xlate-XXXXXX` in path's directory
 * when path is a regular file or does not exist yet (it takes path's mode, or 0666 less the
 * umask), else path itself (a device, a FIFO, a terminal: written in place, there is nothing to
 * replace). shown: path as messages name it. Catches SIGINT, SIGTERM and SIGHUP from here on
 * (outfile_catch_interrupt). Returns the stream, or NULL with "SHOWN: cannot open for writing:
 * reason" in err. One output at a time per process. */
FILE *outfile_open(const char *path, const char *shown, char *err, size_t errlen);
/* 1 while a temporary file waits to be renamed or removed. */
int outfile_pending(void);
/* After the stream is closed: keep != 0 renames the temporary file over the target, 0 removes
 * it (a failed run: the target stays as it was). Returns 0, or -1 with errno (the rename
 * failed; the temporary file is removed then too). No-op without a pending file. */
int outfile_finish(int keep);
/* From here on SIGINT, SIGTERM and SIGHUP remove the pending temporary file, say so on stderr,
 * with the number of lines written when count_lines (outfile_lines), and end the process by
 * the same signal. A signal the process was started with ignored (nohup, a background job)
 * stays ignored. */
void outfile_catch_interrupt(int count_lines);
/* The lines written so far, for the interrupt's message (line mode). */
void outfile_lines(long n);

#endif

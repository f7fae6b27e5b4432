/* cli_doc.h — `xlate --format NAME`: a whole document in, the same document out with
 * only its text translated (src/doc/). */
#ifndef XLATE_CLI_DOC_H
#define XLATE_CLI_DOC_H
#include "cli/cli_common.h"
#include "doc/formats.h"
#include "xlate.h"

/* The --format value's XLATE_FORMAT_* (TEXT: line mode), or -1 with a message on stderr. */
int cli_doc_format(const char *name);
/* The format -i PATH's extension says, else, for a zip, its content; XLATE_FORMAT_TEXT when
 * neither names a document format. */
int cli_doc_detect(const char *path);
/* Reads the whole document from in's file descriptor, translates it with the params and writes
 * it to out. Warnings (markup passed through as it is, sentences cut) go to stderr unless
 * quiet; -v adds the counts. Returns the exit status. */
int cli_doc(xlate_ctx *ctx, const xlate_lines_params *lp, const doc_opts *dopts, int format,
            line_reader *in, writer *out, int quiet, int verbose);
#endif

/* cli_doc.h — `xlate --format html|markdown`: a whole document in, the same document out with
 * only its text translated (src/doc/). */
#ifndef XLATE_CLI_DOC_H
#define XLATE_CLI_DOC_H
#include "cli/cli_common.h"
#include "xlate.h"

enum { DOCFMT_NONE = 0, DOCFMT_HTML, DOCFMT_MARKDOWN };

/* The --format value's DOCFMT_*, or -1 with a message on stderr. */
int cli_doc_format(const char *name);
/* Reads the whole document from in's file descriptor, translates it with the params and writes
 * it to out. Warnings (markup passed through as it is, sentences cut) go to stderr unless
 * quiet; -v adds the counts. Returns the exit status. */
int cli_doc(xlate_ctx *ctx, const xlate_lines_params *lp, int format, line_reader *in,
            writer *out, int quiet, int verbose);
#endif

/* markdown.c — placeholder until the Markdown parser lands (issue 23): refuses. */
#include "doc/markdown.h"
#include "base/util.h"

int markdown_parse(doc *d, char *err, size_t errlen)
{
    (void)d;
    return xerr(err, errlen, "--format markdown is not built yet");
}

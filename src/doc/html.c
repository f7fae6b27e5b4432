/* html.c — placeholder until the HTML parser lands (issue 23): refuses. */
#include "doc/html.h"
#include "base/util.h"

int html_parse(doc *d, char *err, size_t errlen)
{
    (void)d;
    return xerr(err, errlen, "--format html is not built yet");
}

/* pptx.c — the PowerPoint package's plan (pkg.h). (Being written: until then the format is refused.) */
#include "doc/pkg.h"
#include "base/util.h"

int pptx_plan(pkg_in *in, pkg_plan *plan, char *err, size_t errlen)
{
    (void)plan;
    return xerr(err, errlen, "%s: PowerPoint packages are not read yet", pkg_name(in));
}

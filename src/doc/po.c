/* po.c — gettext PO/POT catalogs into a doc (formats.h). (Being written: until then the format
 * is refused.) */
#include "doc/formats.h"
#include "base/util.h"

int po_parse(doc *d, const doc_opts *o, char *err, size_t errlen)
{
    (void)d, (void)o;
    return xerr(err, errlen, "PO catalogs are not read yet");
}

int po_finish(doc *d, const doc_opts *o, char *err, size_t errlen)
{
    (void)d, (void)o, (void)err, (void)errlen;
    return 0;
}

/* doc_utf16.c — a UTF-16 document (a byte order mark FF FE or FE FF at its start) decoded to
 * UTF-8, as a browser decodes it (the WHATWG Encoding standard's "BOM sniff" wins over any
 * <meta charset>): pairs of surrogates joined, a lone one and an odd last byte read as
 * U+FFFD. The BOM becomes U+FEFF in UTF-8 (EF BB BF), so the output, written in UTF-8, is
 * read as UTF-8 by the same rule. */
#include "doc/doc.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>

static size_t put_utf8(char *o, unsigned v)
{
    if (v < 0x80) {
        o[0] = (char)v;
        return 1;
    }
    if (v < 0x800) {
        o[0] = (char)(0xC0 | (v >> 6));
        o[1] = (char)(0x80 | (v & 0x3F));
        return 2;
    }
    if (v < 0x10000) {
        o[0] = (char)(0xE0 | (v >> 12));
        o[1] = (char)(0x80 | ((v >> 6) & 0x3F));
        o[2] = (char)(0x80 | (v & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (v >> 18));
    o[1] = (char)(0x80 | ((v >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((v >> 6) & 0x3F));
    o[3] = (char)(0x80 | (v & 0x3F));
    return 4;
}

int doc_utf16_bom(const char *s, size_t len)
{
    const unsigned char *b = (const unsigned char *)s;
    if (len >= 2 && b[0] == 0xFF && b[1] == 0xFE)
        return 1;
    if (len >= 2 && b[0] == 0xFE && b[1] == 0xFF)
        return 2;
    return 0;
}

char *doc_utf16_decode(const char *s, size_t len, size_t *out_len)
{
    const unsigned char *b = (const unsigned char *)s;
    int le = doc_utf16_bom(s, len) == 1;
    /* each unit of 2 bytes gives at most 3 bytes (a pair of 4 bytes gives 4) */
    char *o = malloc(len / 2 * 3 + 4), *w = o;
    if (!o)
        return NULL;
    size_t i = 0;
    for (; i + 1 < len; i += 2) {
        unsigned u = le ? (unsigned)b[i] | (unsigned)b[i + 1] << 8
                        : (unsigned)b[i] << 8 | (unsigned)b[i + 1];
        if (u >= 0xD800 && u <= 0xDBFF && i + 3 < len) {
            unsigned u2 = le ? (unsigned)b[i + 2] | (unsigned)b[i + 3] << 8
                             : (unsigned)b[i + 2] << 8 | (unsigned)b[i + 3];
            if (u2 >= 0xDC00 && u2 <= 0xDFFF) {
                w += put_utf8(w, 0x10000 + ((u - 0xD800) << 10) + (u2 - 0xDC00));
                i += 2;
                continue;
            }
        }
        w += put_utf8(w, u >= 0xD800 && u <= 0xDFFF ? 0xFFFD : u);
    }
    if (i < len) /* an odd last byte */
        w += put_utf8(w, 0xFFFD);
    *out_len = (size_t)(w - o);
    return o;
}

int doc_utf16_src(doc *d, char *err, size_t errlen)
{
    size_t n;
    if (!doc_utf16_bom(d->src, d->src_len))
        return 0;
    char *u8 = doc_utf16_decode(d->src, d->src_len, &n), *c = u8 ? doc_copy(d, u8, n) : NULL;
    free(u8);
    if (!c)
        return xerr(err, errlen, "out of memory decoding a UTF-16 document of %zu bytes",
                    d->src_len);
    doc_warn(d, 1, "a UTF-16 document (byte order mark %s): decoded, written as UTF-8",
             doc_utf16_bom(d->src, d->src_len) == 1 ? "FF FE" : "FE FF");
    d->src = c;
    d->src_len = n;
    return 0;
}

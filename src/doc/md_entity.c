/* md_entity.c — the HTML named character references for Markdown (CommonMark 6.2 "Entity and
 * numeric character references": every HTML5 name, with its ';'), looked up in the WHATWG table
 * the HTML parser generated (html_entities.c, html_tok.h). */
#include "doc/md_internal.h"
#include "doc/html_tok.h"
#include <string.h>

/* name[0..len) (without & and ;) against a table name (with its ';', or a legacy one without):
 * the order of name + ";" and it, as bytes. */
static int cmp(const char *name, size_t len, const char *t)
{
    for (size_t i = 0; i <= len; i++) {
        unsigned char a = i < len ? (unsigned char)name[i] : ';', b = (unsigned char)t[i];
        if (a != b)
            return a < b ? -1 : 1;
        if (b == 0)
            return 1;
    }
    return t[len + 1] == '\0' ? 0 : -1;
}

int md_entity(const char *name, size_t len, char *out)
{
    int lo = 0, hi = ht_n_entities;
    while (lo < hi) {
        int mid = (lo + hi) / 2, c = cmp(name, len, ht_entities[mid].name);
        if (c == 0) {
            int k = ht_utf8(ht_entities[mid].cp1, out);
            if (ht_entities[mid].cp2)
                k += ht_utf8(ht_entities[mid].cp2, out + k);
            return k;
        }
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return 0;
}

/* strbuf.c — a growing, NUL-terminated byte string (strbuf.h). */
#include "base/strbuf.h"
#include <stdlib.h>
#include <string.h>

int strbuf_put(void *user, const char *s, size_t len)
{
    strbuf *b = user;
    if (b->failed || len > (size_t)-1 / 2 - b->len - 1)
        return b->failed = 1, -1;
    if (b->len + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        char *t;
        while (cap < b->len + len + 1)
            cap *= 2;
        if (!(t = realloc(b->s, cap)))
            return b->failed = 1, -1;
        b->s = t;
        b->cap = cap;
    }
    if (len)
        memcpy(b->s + b->len, s, len);
    b->len += len;
    b->s[b->len] = '\0';
    return 0;
}

void strbuf_free(strbuf *b)
{
    free(b->s);
    *b = (strbuf){0};
}

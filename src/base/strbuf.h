/* strbuf.h — a growing, NUL-terminated byte string: the writer that doc_write and the
 * queue's answers append to. */
#ifndef XLATE_STRBUF_H
#define XLATE_STRBUF_H
#include <stddef.h>

/* Zero-initialise ({0}); s is malloc'd and owned by the strbuf until the caller takes it
 * (then sets s to NULL). s[len] is '\0' once anything, even "", was put. */
typedef struct {
    char *s;
    size_t len, cap;
    int failed; /* set by the first failed put: every later put fails too */
} strbuf;

/* Appends s[0, len) to the strbuf at user (a strbuf *): 0, or -1 out of memory. The
 * signature is a writer callback's (doc_write, doc_markdown_escape). */
int strbuf_put(void *user, const char *s, size_t len);

void strbuf_free(strbuf *b);

#endif

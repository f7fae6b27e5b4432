/* serve_page.h — the web page `xlate serve` answers at "/" (src/serve/page/: index.html,
 * app.js, style.css), embedded in the binary: serve_page_data.c holds the files' bytes,
 * generated from the page's files by tools/gen_serve_page.sh (the Makefile reruns it). */
#ifndef XLATE_SERVE_PAGE_H
#define XLATE_SERVE_PAGE_H

#include <stddef.h>

/* one embedded file: its URL path ("/app.js"), its bytes (NUL after them) and their count */
typedef struct {
    const char *path;
    const unsigned char *data;
    size_t len;
} serve_page_file;

extern const serve_page_file serve_page_files[]; /* serve_page_data.c */
extern const size_t serve_page_nfiles;

/* The embedded file for a URL path ("/" and "/index.html" = the page; the query string already
 * cut off): its bytes (static, never freed), length and MIME type (with charset for text), or
 * NULL when there is none. */
const char *serve_page_lookup(const char *path, size_t *len, const char **mime);

#endif

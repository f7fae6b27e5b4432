/* serve_page.c — a URL path to one of the page's embedded files (serve_page_data.c), with its
 * MIME type. Only the exact paths of the files are answered: no directories, no "..", no
 * file system. */
#include "serve/serve_page.h"

#include <string.h>

/* the MIME type of a file's name by its extension; text ones say UTF-8 (the page's files are) */
static const char *mime_of(const char *path) {
    static const struct { const char *ext, *mime; } types[] = {
        {".html", "text/html; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        {".svg", "image/svg+xml"},
        {".png", "image/png"},
        {".ico", "image/x-icon"},
        {".txt", "text/plain; charset=utf-8"},
    };
    const char *dot = strrchr(path, '.');
    if (dot)
        for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
            if (strcmp(dot, types[i].ext) == 0) return types[i].mime;
    return "application/octet-stream";
}

const char *serve_page_lookup(const char *path, size_t *len, const char **mime) {
    if (!path) return NULL;
    if (strcmp(path, "/") == 0) path = "/index.html";
    for (size_t i = 0; i < serve_page_nfiles; i++) {
        const serve_page_file *f = &serve_page_files[i];
        if (strcmp(path, f->path) != 0) continue;
        if (len) *len = f->len;
        if (mime) *mime = mime_of(f->path);
        return (const char *)f->data;
    }
    return NULL;
}

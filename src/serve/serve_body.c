/* serve_body.c — a request's body as fields: the form and multipart fields libmicrohttpd's
 * post processor hands over (chunk by chunk, appended here by name), and the UTF-8 checks
 * every text goes through (JSON is parsed by cJSON in serve_api.c). */
#include "serve/serve.h"
#include <stdlib.h>
#include <string.h>

int serve_utf8_ok(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        int k;
        unsigned cp;
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF)
            k = 1, cp = c & 0x1F;
        else if (c >= 0xE0 && c <= 0xEF)
            k = 2, cp = c & 0x0F;
        else if (c >= 0xF0 && c <= 0xF4)
            k = 3, cp = c & 0x07;
        else
            return 0;
        for (int j = 1; j <= k; j++) {
            if (i + j >= n || (s[i + j] & 0xC0) != 0x80)
                return 0;
            cp = cp << 6 | (s[i + j] & 0x3F);
        }
        /* overlong forms, surrogates, past U+10FFFF */
        if ((k == 2 && cp < 0x800) || (k == 3 && cp < 0x10000) || cp > 0x10FFFF ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        i += k + 1;
    }
    return 1;
}

size_t serve_utf8_chars(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

int serve_body_field(serve_req *r, const char *name, const char *filename, const char *data,
                     size_t off, size_t size)
{
    serve_field *f = NULL;
    if (!name)
        return 0;
    for (int i = r->n_fields - 1; i >= 0 && off > 0; i--) /* a later chunk of a field */
        if (strcmp(r->fields[i].name, name) == 0) {
            f = &r->fields[i];
            break;
        }
    if (!f) {
        if (r->n_fields == r->cap_fields) {
            int cap = r->cap_fields ? 2 * r->cap_fields : 8;
            serve_field *t;
            if (cap > 4096 || !(t = realloc(r->fields, cap * sizeof *t)))
                return -1; /* a form of more than 4096 fields is refused */
            r->fields = t;
            r->cap_fields = cap;
        }
        f = &r->fields[r->n_fields];
        memset(f, 0, sizeof *f);
        if (!(f->name = strdup(name)) || !(f->value = malloc(1)) ||
            (filename && !(f->filename = strdup(filename)))) {
            free(f->name);
            free(f->value);
            return -1;
        }
        f->value[0] = '\0';
        r->n_fields++;
    }
    if (size > 0) {
        char *v = realloc(f->value, f->value_len + size + 1);
        if (!v)
            return -1;
        memcpy(v + f->value_len, data, size);
        f->value_len += size;
        v[f->value_len] = '\0';
        f->value = v;
    }
    return 0;
}

const serve_field *serve_field_get(const serve_req *r, const char *name)
{
    for (int i = 0; i < r->n_fields; i++)
        if (strcmp(r->fields[i].name, name) == 0)
            return &r->fields[i];
    return NULL;
}

void serve_fields_free(serve_req *r)
{
    for (int i = 0; i < r->n_fields; i++) {
        free(r->fields[i].name);
        free(r->fields[i].value);
        free(r->fields[i].filename);
    }
    free(r->fields);
    r->fields = NULL;
    r->n_fields = r->cap_fields = 0;
}

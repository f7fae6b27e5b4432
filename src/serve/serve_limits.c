/* serve_limits.c — what the server keeps between requests, each bounded: the api keys
 * (--api-keys FILE, one a line), the requests a minute of each client address (--req-limit:
 * a table of SERVE_RATES addresses, a slot reused once its minute is past), and the
 * translated files of /translate_file (a ring of SERVE_FILES, the oldest dropped), so memory
 * stays flat under any load. LibreTranslate keeps its files on disk (app.py:995-1024,
 * get_upload_dir) and counts limits with Flask-Limiter (app.py:139-166); these are in memory. */
#include "serve/serve.h"
#include "base/util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

int serve_keys_load(serve *s, const char *path, char *err, size_t errlen)
{
    char *data = NULL, *line, *save = NULL;
    size_t len;
    if (read_file_max(path, (size_t)64 << 20, &data, &len, err, errlen))
        return -1;
    for (line = strtok_r(data, "\r\n", &save); line; line = strtok_r(NULL, "\r\n", &save)) {
        char **k;
        while (*line == ' ' || *line == '\t')
            line++;
        size_t n = strlen(line);
        while (n && (line[n - 1] == ' ' || line[n - 1] == '\t'))
            line[--n] = '\0';
        if (!n || line[0] == '#')
            continue;
        if (!(k = realloc(s->keys, (s->n_keys + 1) * sizeof *k)) ||
            !(k[s->n_keys] = strdup(line))) {
            if (k)
                s->keys = k;
            free(data);
            return xerr(err, errlen, "out of memory");
        }
        s->keys = k;
        s->n_keys++;
    }
    free(data);
    if (s->n_keys == 0)
        return xerr(err, errlen, "--api-keys %s: no key in the file (one a line; '#' starts a "
                    "comment)", path);
    return 0;
}

int serve_key_ok(const serve *s, const char *key)
{
    if (!key)
        return 0;
    for (int i = 0; i < s->n_keys; i++)
        if (strcmp(s->keys[i], key) == 0)
            return 1;
    return 0;
}

static unsigned long hash(const char *s)
{
    unsigned long h = 5381;
    while (*s)
        h = h * 33 + (unsigned char)*s++;
    return h;
}

int serve_rate_take(serve *s, const char *addr)
{
    struct timespec ts;
    long minute;
    int ok = 1;
    if (s->o.req_limit < 0)
        return 1;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    minute = (long)(ts.tv_sec / 60);
    pthread_mutex_lock(&s->mu);
    {
        unsigned long h = hash(addr);
        serve_rate *slot = NULL;
        /* open addressing over 16 slots; a slot of a past minute is free */
        for (int i = 0; i < 16; i++) {
            serve_rate *e = &s->rates[(h + i) % SERVE_RATES];
            if (strcmp(e->addr, addr) == 0) {
                slot = e;
                break;
            }
            if (!slot && e->minute != minute)
                slot = e;
        }
        if (!slot) /* 16 busy addresses in a row: the first is taken over */
            slot = &s->rates[h % SERVE_RATES];
        if (strcmp(slot->addr, addr) != 0 || slot->minute != minute) {
            snprintf(slot->addr, sizeof slot->addr, "%s", addr);
            slot->minute = minute;
            slot->count = 0;
        }
        if (slot->count >= s->o.req_limit)
            ok = 0;
        else
            slot->count++;
    }
    pthread_mutex_unlock(&s->mu);
    return ok;
}

int serve_file_put(serve *s, const char *file_name, char *data, size_t len, char *name,
                   size_t n)
{
    unsigned char id[16];
    char hex[33];
    serve_file *f;
    if (getrandom(id, sizeof id, 0) != (ssize_t)sizeof id) /* never less than 256 bytes */
        return -1;
    for (int i = 0; i < 16; i++)
        snprintf(hex + 2 * i, 3, "%02x", id[i]);
    pthread_mutex_lock(&s->mu);
    f = &s->files[s->next_file];
    s->next_file = (s->next_file + 1) % SERVE_FILES;
    free(f->data);
    snprintf(f->name, sizeof f->name, "%s.%s", hex, file_name);
    f->data = data;
    f->len = len;
    snprintf(name, n, "%s", f->name);
    pthread_mutex_unlock(&s->mu);
    return 0;
}

char *serve_file_get(serve *s, const char *name, size_t *len)
{
    char *copy = NULL;
    pthread_mutex_lock(&s->mu);
    for (int i = 0; i < SERVE_FILES; i++) {
        serve_file *f = &s->files[i];
        if (f->data && strcmp(f->name, name) == 0) {
            if ((copy = malloc(f->len + 1))) {
                memcpy(copy, f->data, f->len);
                *len = f->len;
            }
            break;
        }
    }
    pthread_mutex_unlock(&s->mu);
    return copy;
}

void serve_limits_free(serve *s)
{
    for (int i = 0; i < s->n_keys; i++)
        free(s->keys[i]);
    free(s->keys);
    s->keys = NULL;
    s->n_keys = 0;
    for (int i = 0; i < SERVE_FILES; i++) {
        free(s->files[i].data);
        s->files[i].data = NULL;
    }
}

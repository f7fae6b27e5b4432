/* vocab.c — vocab.json: parsed strictly (base/json.h), kept as an array by id plus a hash
 * table (FNV-1a, open addressing) from piece to id. */
#include "text/vocab.h"
#include "base/json.h"
#include "base/util.h"
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

int vocab_find(const vocab *v, const char *s, size_t len)
{
    if (!v->cap)
        return -1;
    for (size_t i = fnv1a(s, len) & (v->cap - 1);; i = (i + 1) & (v->cap - 1)) {
        int id = v->slot[i];
        if (id < 0)
            return -1;
        if (v->len[id] == len && memcmp(v->piece[id], s, len) == 0)
            return id;
    }
}

int vocab_parse(vocab *v, const char *json, size_t len, const char *name, int n,
                const char *field, char *err, size_t errlen)
{
    cJSON *root, *item;
    int count = 0;
    memset(v, 0, sizeof *v);
    if (!(root = json_parse_strict(json, len, name, err, errlen)))
        return -1;
    if (!cJSON_IsObject(root)) {
        xerr(err, errlen, "%s: expected a JSON object mapping pieces to ids, got %s", name,
             json_type_name(root));
        goto fail;
    }
    cJSON_ArrayForEach(item, root) count++;
    if (count != n) {
        xerr(err, errlen, "%s: %d pieces, but config.json's %s is %d", name, count, field, n);
        goto fail;
    }
    v->n = n;
    v->cap = 16;
    while (v->cap < (size_t)count * 2)
        v->cap <<= 1;
    v->piece = calloc(n, sizeof *v->piece);
    v->len = calloc(n, sizeof *v->len);
    v->slot = malloc(v->cap * sizeof *v->slot);
    if (!v->piece || !v->len || !v->slot) {
        xerr(err, errlen, "%s: out of memory", name);
        goto fail;
    }
    memset(v->slot, 0xff, v->cap * sizeof *v->slot);
    cJSON_ArrayForEach(item, root) {
        size_t plen = strlen(item->string);
        int64_t x;
        int id;
        char where[160];
        /* json.h's rule: an id is an integer literal (5.0 is refused) */
        snprintf(where, sizeof where, "piece \"%.64s\" (ids below config.json's %s)",
                 item->string, field);
        if (json_int(item, 0, n - 1, &x, name, where, err, errlen))
            goto fail;
        id = (int)x;
        if (v->piece[id]) {
            xerr(err, errlen, "%s: id %d belongs to two pieces, \"%.64s\" and \"%.64s\"", name,
                 id, v->piece[id], item->string);
            goto fail;
        }
        if (vocab_find(v, item->string, plen) >= 0) {
            xerr(err, errlen, "%s: piece \"%.64s\" appears twice", name, item->string);
            goto fail;
        }
        if (!(v->piece[id] = strdup(item->string))) {
            xerr(err, errlen, "%s: out of memory", name);
            goto fail;
        }
        v->len[id] = plen;
        for (size_t i = fnv1a(item->string, plen) & (v->cap - 1);; i = (i + 1) & (v->cap - 1))
            if (v->slot[i] < 0) {
                v->slot[i] = id;
                break;
            }
    }
    cJSON_Delete(root);
    return 0;
fail:
    cJSON_Delete(root);
    vocab_free(v);
    return -1;
}

int vocab_load(vocab *v, const char *path, int n, const char *field, char *err, size_t errlen)
{
    char *text;
    size_t len;
    int rc;
    memset(v, 0, sizeof *v);
    if (read_file_max(path, READ_MAX_VOCAB, &text, &len, err, errlen))
        return -1;
    rc = vocab_parse(v, text, len, path, n, field, err, errlen);
    free(text);
    return rc;
}

void vocab_free(vocab *v)
{
    if (!v)
        return;
    for (int i = 0; v->piece && i < v->n; i++)
        free(v->piece[i]);
    free(v->piece);
    free(v->len);
    free(v->slot);
    memset(v, 0, sizeof *v);
}

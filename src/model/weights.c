/* weights.c — which weights file a directory holds, and sharded checkpoints.
 *
 * A shard index (model.safetensors.index.json, pytorch_model.bin.index.json) is
 *   {"metadata": {...}, "weight_map": {"<tensor>": "<file>", ...}}
 * Each file it names is opened once (a plain name in the index's directory: no '/', not
 * starting with '.', not itself an index), every tensor the map names must be in the file it
 * names, and no tensor may be in two files. The shards' tensors then form one st_file whose
 * regions keep every shard's mapping (st_close unmaps them); messages name the index. */
#include "model/weights.h"
#include "model/torch_bin.h"
#include "base/json.h"
#include "base/util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_INDEX ((size_t)64 << 20)
#define MAX_SHARDS 4096

static int ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}

/* One file, not an index: torch.save's zip (its first bytes, or a name ending in .bin) or
 * safetensors (an st_parser for st_open_with). */
static int parse_file(st_file *f, const void *map, size_t size, const char *path, char *err,
                      size_t errlen)
{
    if (map && size >= 2 && memcmp(map, "\x80\x02", 2) == 0) /* a pickle: torch < 1.6 */
        return xerr(err, errlen, "%s: a PyTorch checkpoint in the legacy format (torch < 1.6: a "
                    "pickle, not a zip archive): xlate reads torch.save's zip format; save it "
                    "again with torch >= 1.6, or convert it with tools/convert.py", path);
    return (map && tb_is_zip(map, size)) || ends_with(path, ".bin")
               ? tb_parse(f, map, size, path, err, errlen)
               : st_parse(f, map, size, path, err, errlen);
}

/* Moves shard s's tensors and memory into out (s is left empty). */
static int merge(st_file *out, st_file *s, char *err, size_t errlen)
{
    memcpy(out->tensors + out->n, s->tensors, (size_t)s->n * sizeof *s->tensors);
    out->n += s->n;
    s->n = 0;
    if (s->map && st_add_region(out, s->map, s->size, s->mapped, err, errlen)) {
        s->map = NULL;
        return -1;
    }
    s->map = NULL;
    for (int i = 0; i < s->n_regions; i++) {
        st_region r = s->regions[i];
        if (st_add_region(out, r.p, r.size, r.mapped, err, errlen)) {
            int rest = s->n_regions - i - 1; /* r is freed; the rest stay s's */
            memmove(s->regions, s->regions + i + 1, (size_t)rest * sizeof r);
            s->n_regions = rest;
            return -1;
        }
    }
    s->n_regions = 0;
    return 0;
}

static int open_index(st_file *out, const char *path, char *err, size_t errlen)
{
    struct stat sb;
    char *text = NULL, *dir = NULL, *slash;
    size_t len, total = 0;
    cJSON *root = NULL;
    const cJSON *wm, *meta, *e;
    const char **files = NULL;
    st_file *shards = NULL;
    const st_tensor *dup;
    int nfiles = 0, rc = -1;

    memset(out, 0, sizeof *out);
    if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && (size_t)sb.st_size > MAX_INDEX)
        return xerr(err, errlen, "%s: %lld bytes: a shard index is at most %zu", path,
                    (long long)sb.st_size, MAX_INDEX);
    if (read_file(path, &text, &len, err, errlen))
        return -1;
    if (!(root = json_parse_object(text, len, path, err, errlen)))
        goto done;
    meta = cJSON_GetObjectItemCaseSensitive(root, "metadata");
    if (meta && !cJSON_IsObject(meta)) {
        xerr(err, errlen, "%s: \"metadata\": expected an object, got %s", path,
             json_type_name(meta));
        goto done;
    }
    wm = cJSON_GetObjectItemCaseSensitive(root, "weight_map");
    if (!cJSON_IsObject(wm)) {
        xerr(err, errlen, "%s: \"weight_map\": expected an object of tensor names to file "
             "names, got %s", path, wm ? json_type_name(wm) : "nothing");
        goto done;
    }
    if (!(files = calloc((size_t)cJSON_GetArraySize(wm) + 1, sizeof *files)))
        goto oom;
    cJSON_ArrayForEach(e, wm) {
        int k;
        if (!cJSON_IsString(e)) {
            xerr(err, errlen, "%s: \"weight_map\": \"%.200s\": expected a file name, got %s",
                 path, e->string, json_type_name(e));
            goto done;
        }
        for (k = 0; k < nfiles && strcmp(files[k], e->valuestring) != 0; k++)
            ;
        if (k < nfiles)
            continue;
        if (!e->valuestring[0] || e->valuestring[0] == '.' || strchr(e->valuestring, '/') ||
            strchr(e->valuestring, '\\') || ends_with(e->valuestring, ".index.json")) {
            xerr(err, errlen, "%s: \"weight_map\": \"%.200s\": file \"%.200s\" is not a file "
                 "name in the index's directory", path, e->string, e->valuestring);
            goto done;
        }
        if (nfiles >= MAX_SHARDS) {
            xerr(err, errlen, "%s: more than %d shard files", path, MAX_SHARDS);
            goto done;
        }
        files[nfiles++] = e->valuestring;
    }
    if (!nfiles) {
        xerr(err, errlen, "%s: \"weight_map\" is empty", path);
        goto done;
    }
    if (!(dir = strdup(path)) || !(shards = calloc((size_t)nfiles, sizeof *shards)))
        goto oom;
    slash = strrchr(dir, '/');
    if (slash)
        slash[1] = 0;
    else
        dir[0] = 0;
    for (int k = 0; k < nfiles; k++) {
        char *sp = dir[0] ? path_join(dir, files[k]) : strdup(files[k]);
        int bad;
        if (!sp)
            goto oom;
        bad = st_open_with(&shards[k], sp, parse_file, err, errlen);
        free(sp);
        if (bad)
            goto done;
        total += (size_t)shards[k].n;
    }
    cJSON_ArrayForEach(e, wm) {
        int k;
        for (k = 0; strcmp(files[k], e->valuestring) != 0; k++)
            ;
        if (!st_find(&shards[k], e->string)) {
            xerr(err, errlen, "%s: tensor \"%.200s\" is not in \"%s\", the file the index names "
                 "for it", path, e->string, files[k]);
            goto done;
        }
    }
    if (!(out->path = strdup(path)) || !(out->tensors = calloc(total + 1, sizeof *out->tensors)))
        goto oom;
    for (int k = 0; k < nfiles; k++)
        if (merge(out, &shards[k], err, errlen))
            goto done;
    if ((dup = st_sort_names(out))) {
        xerr(err, errlen, "%s: tensor \"%s\" is in two shard files", path, dup->name);
        goto done;
    }
    rc = 0;
    goto done;
oom:
    xerr(err, errlen, "%s: out of memory", path);
done:
    for (int k = 0; shards && k < nfiles; k++)
        st_close(&shards[k]);
    free(shards);
    free(files);
    free(dir);
    cJSON_Delete(root);
    free(text);
    if (rc)
        st_close(out);
    return rc;
}

int weights_open_path(st_file *f, const char *path, char *err, size_t errlen)
{
    return ends_with(path, ".index.json") ? open_index(f, path, err, errlen)
                                          : st_open_with(f, path, parse_file, err, errlen);
}

int weights_open(st_file *f, const char *dir, const char *name, int hub, const char **used,
                 char *err, size_t errlen)
{
    /* transformers v4.40 modeling_utils.py from_pretrained: SAFE_WEIGHTS_NAME, then
     * SAFE_WEIGHTS_INDEX_NAME, WEIGHTS_NAME, WEIGHTS_INDEX_NAME */
    static const char *const hub_names[] = {"model.safetensors", "model.safetensors.index.json",
                                            "pytorch_model.bin", "pytorch_model.bin.index.json"};
    const char *pick = name;
    char *p;
    int rc;
    memset(f, 0, sizeof *f);
    if (hub && strcmp(name, hub_names[0]) == 0) {
        for (size_t i = 0; i < sizeof hub_names / sizeof hub_names[0]; i++) {
            char *q = path_join(dir, hub_names[i]);
            int there;
            if (!q)
                return xerr(err, errlen, "out of memory");
            there = access(q, F_OK) == 0;
            free(q);
            if (there) {
                pick = hub_names[i];
                break;
            }
        }
    }
    if (!(p = path_join(dir, pick)))
        return xerr(err, errlen, "out of memory");
    if (hub && pick == name && strcmp(name, hub_names[0]) == 0 && access(p, F_OK) != 0) {
        xerr(err, errlen, "%s: no weights: none of model.safetensors, "
             "model.safetensors.index.json, pytorch_model.bin, pytorch_model.bin.index.json",
             dir);
        free(p);
        return -1;
    }
    rc = weights_open_path(f, p, err, errlen);
    free(p);
    if (!rc && used)
        *used = pick;
    return rc;
}

/* torch_bin.c — torch.save's zip format as an st_file.
 *
 * The archive holds, under one top folder P (torch 1.13 names it after the file: "x" for
 * x.bin; later versions write "archive"): P/data.pkl, the pickle of the state dict, whose
 * persistent ids name storages by key; P/data/<key>, each storage's raw little-endian bytes;
 * P/version; and, from torch 2.1, P/byteorder ("little") and P/.data/serialization_id.
 * Everything else is ignored. A storage's record must hold exactly the bytes its declared
 * element count takes; a tensor is a view of a storage (offset, sizes, strides, in elements),
 * which torch_pickle.c has checked to stay inside the storage. Several tensors may view one
 * storage (tied weights, or a tensor saved under two names): they then share its bytes. */
#include "model/torch_bin.h"
#include "model/torch_pickle.h"
#include "model/zip_store.h"
#include "base/util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int tb_is_zip(const void *bytes, size_t size)
{
    return size >= 4 && memcmp(bytes, "PK\003\004", 4) == 0;
}

/* Whether the view's strides are the row-major ones of its sizes (a size-1 dimension's stride
 * does not matter, as for torch's is_contiguous). */
static int contiguous(const tp_tensor *t, int64_t numel)
{
    int64_t want = 1;
    if (numel == 0)
        return 1;
    for (int i = t->ndim; i-- > 0;) {
        if (t->shape[i] != 1 && t->stride[i] != want)
            return 0;
        want *= t->shape[i];
    }
    return 1;
}

/* Copies the strided view t of storage bytes `base` into dst, contiguous, element by element
 * (esize bytes each). torch_pickle.c has checked every index it reaches. */
static void gather(unsigned char *dst, const unsigned char *base, const tp_tensor *t,
                   int64_t numel, size_t esize)
{
    int64_t idx[ST_MAX_DIMS] = {0}, src = t->offset;
    for (int64_t e = 0; e < numel; e++) {
        memcpy(dst + (size_t)e * esize, base + (size_t)src * esize, esize);
        for (int i = t->ndim; i-- > 0;) { /* next index, last dimension fastest */
            if (++idx[i] < t->shape[i]) {
                src += t->stride[i];
                break;
            }
            src -= (idx[i] - 1) * t->stride[i];
            idx[i] = 0;
        }
    }
}

/* The one P/data.pkl of the archive (P without a '/'). */
static const zip_entry *find_pickle(const zip_archive *z, const char *name, char *err,
                                    size_t errlen)
{
    const zip_entry *found = NULL;
    for (int i = 0; i < z->n; i++) {
        const char *s = z->e[i].name, *slash = strchr(s, '/');
        if (slash && slash != s && strcmp(slash, "/data.pkl") == 0) {
            if (found) {
                xerr(err, errlen, "%s: two pickles, \"%s\" and \"%s\"", name, found->name, s);
                return NULL;
            }
            found = &z->e[i];
        }
    }
    if (!found)
        xerr(err, errlen, "%s: no <folder>/data.pkl record: not a torch.save archive", name);
    return found;
}

/* Checks the storages against the archive; sets base[k] to storage k's bytes. */
static int storages(const zip_archive *z, const tp_state_dict *sd, const char *prefix,
                    const unsigned char **base, const char *name, char *err, size_t errlen)
{
    for (int k = 0; k < sd->n_storages; k++) {
        const tp_storage *s = &sd->storages[k];
        char rec[160];
        const zip_entry *e;
        uint64_t want = (uint64_t)s->numel * st_dtype_size(s->dtype);
        snprintf(rec, sizeof rec, "%s/data/%s", prefix, s->key);
        if (!(e = zip_find(z, rec)))
            return xerr(err, errlen, "%s: storage \"%s\" (%s of %lld elements): no record "
                        "\"%s\" in the archive", name, s->key, st_dtype_name(s->dtype),
                        (long long)s->numel, rec);
        if (e->size != want)
            return xerr(err, errlen, "%s: storage \"%s\": %s of %lld elements takes %llu bytes, "
                        "its record \"%s\" holds %llu", name, s->key, st_dtype_name(s->dtype),
                        (long long)s->numel, (unsigned long long)want, rec,
                        (unsigned long long)e->size);
        base[k] = e->data;
    }
    return 0;
}

int tb_parse(st_file *f, const void *bytes, size_t size, const char *name, char *err,
             size_t errlen)
{
    zip_archive z;
    tp_state_dict sd;
    const zip_entry *pkl, *bo;
    const unsigned char **base = NULL;
    char prefix[128], pname[400];
    size_t copied = 0;
    int rc = -1;

    memset(&sd, 0, sizeof sd);
    if (!f->path && !(f->path = strdup(name)))
        return xerr(err, errlen, "%s: out of memory", name);
    if (zip_index(&z, bytes, size, name, err, errlen))
        return -1;
    if (!(pkl = find_pickle(&z, name, err, errlen)))
        goto done;
    if (strlen(pkl->name) - strlen("/data.pkl") >= sizeof prefix) {
        xerr(err, errlen, "%s: folder name of %zu bytes", name, strlen(pkl->name));
        goto done;
    }
    snprintf(prefix, sizeof prefix, "%.*s", (int)(strlen(pkl->name) - strlen("/data.pkl")),
             pkl->name);
    snprintf(pname, sizeof pname, "%s/byteorder", prefix);
    if ((bo = zip_find(&z, pname)) &&
        !(bo->size == 6 && memcmp(bo->data, "little", 6) == 0)) {
        char q[200]; /* every byte said, escaped: "little\0junk" read as "little" (issue 37) */
        xerr(err, errlen, "%s: record \"%s\" says \"%s\" (%llu bytes): only \"little\" "
             "(little-endian data) is read", name, pname,
             str_quote(q, sizeof q, (const char *)bo->data, (size_t)bo->size),
             (unsigned long long)bo->size);
        goto done;
    }
    snprintf(pname, sizeof pname, "%s: %s", name, pkl->name);
    if (tp_read(&sd, pkl->data, (size_t)pkl->size, pname, err, errlen))
        goto done;
    if (!(base = calloc((size_t)sd.n_storages + 1, sizeof *base)) ||
        !(f->tensors = calloc((size_t)sd.n_tensors + 1, sizeof *f->tensors))) {
        xerr(err, errlen, "%s: out of memory", name);
        goto done;
    }
    if (storages(&z, &sd, prefix, base, name, err, errlen))
        goto done;
    for (int i = 0; i < sd.n_tensors; i++) {
        const tp_tensor *p = &sd.tensors[i];
        st_tensor *t = &f->tensors[f->n];
        size_t esize = st_dtype_size(sd.storages[p->storage].dtype);
        t->numel = 1;
        for (int k = 0; k < p->ndim; k++)
            t->numel *= p->shape[k]; /* <= 2^50: torch_pickle.c */
        t->ndim = p->ndim;
        memcpy(t->shape, p->shape, sizeof t->shape);
        t->dtype = sd.storages[p->storage].dtype;
        t->nbytes = (size_t)t->numel * esize;
        t->name = p->name; /* taken over from sd */
        sd.tensors[i].name = NULL;
        f->n++;
        if (contiguous(p, t->numel)) {
            t->data = base[p->storage] + (size_t)p->offset * esize;
            continue;
        }
        /* a view with other strides (a transposed or sliced tensor saved as it was): copied
         * out; all such copies together may not exceed the archive's size, so that an
         * expanded view (stride 0) cannot make a small file ask for huge memory */
        if (t->nbytes > size - copied) {
            xerr(err, errlen, "%s: tensor \"%s\": copying its strided view (%zu bytes) would "
                 "take more memory than the file's %zu bytes", name, t->name, t->nbytes, size);
            goto done;
        }
        copied += t->nbytes;
        {
            unsigned char *dst = malloc(t->nbytes ? t->nbytes : 1);
            if (!dst || st_add_region(f, dst, t->nbytes, 0, err, errlen)) {
                if (!dst)
                    xerr(err, errlen, "%s: out of memory copying tensor \"%s\"", name, t->name);
                goto done;
            }
            gather(dst, base[p->storage], p, t->numel, esize);
            t->data = dst;
        }
    }
    if (st_index_done(f, bytes, size, name, err, errlen))
        goto done;
    rc = 0;
done:
    free(base);
    tp_free(&sd);
    zip_free(&z);
    return rc;
}

/* safetensors.c — map a .safetensors file and check every tensor entry against the file. */
#include "model/safetensors.h"
#include "base/json.h"
#include "kernels/simd.h"
#include "base/util.h"
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct {
    const char *name;
    st_dtype type;
    size_t size;
} dtypes[] = {
    {"F32", ST_F32, 4}, {"F16", ST_F16, 2}, {"BF16", ST_BF16, 2}, {"I32", ST_I32, 4},
    {"I64", ST_I64, 8}, {"F64", ST_F64, 8}, {"I8", ST_I8, 1},     {"U8", ST_U8, 1},
    {"I16", ST_I16, 2}, {"BOOL", ST_BOOL, 1},
};
#define NDTYPES (sizeof dtypes / sizeof dtypes[0])

/* A header larger than this is not a weights file we want to parse. */
#define MAX_HEADER (100u << 20)

const char *st_dtype_name(st_dtype t)
{
    for (size_t i = 0; i < NDTYPES; i++)
        if (dtypes[i].type == t)
            return dtypes[i].name;
    return "?";
}

size_t st_dtype_size(st_dtype t)
{
    for (size_t i = 0; i < NDTYPES; i++)
        if (dtypes[i].type == t)
            return dtypes[i].size;
    return 0;
}

const char *st_shape_str(const int64_t *shape, int ndim, char *buf, size_t n)
{
    size_t used = 0;
    used += snprintf(buf, n, "[");
    for (int i = 0; i < ndim && used < n; i++)
        used += snprintf(buf + used, n - used, "%s%lld", i ? ", " : "", (long long)shape[i]);
    if (used < n)
        snprintf(buf + used, n - used, "]");
    return buf;
}

static int cmp_offset(const void *a, const void *b)
{
    const st_tensor *x = a, *y = b;
    const char *px = x->data, *py = y->data;
    return px < py ? -1 : px > py;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(((const st_tensor *)a)->name, ((const st_tensor *)b)->name);
}

/* Parses one header entry into t. data/dsize: the data section. */
static int parse_entry(st_tensor *t, const cJSON *e, const char *data, size_t dsize,
                       const char *name, char *err, size_t errlen)
{
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(e, "dtype");
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(e, "shape");
    const cJSON *offs = cJSON_GetObjectItemCaseSensitive(e, "data_offsets");
    const cJSON *v;
    int64_t b = 0, en = 0;
    size_t esize = 0;
    int i = 0;

    if (!cJSON_IsObject(e))
        return xerr(err, errlen, "%s: tensor \"%s\": header entry is not an object", name,
                    t->name);
    if (!cJSON_IsString(dt))
        return xerr(err, errlen, "%s: tensor \"%s\": missing or non-string \"dtype\"", name,
                    t->name);
    for (size_t k = 0; k < NDTYPES; k++)
        if (strcmp(dt->valuestring, dtypes[k].name) == 0) {
            t->dtype = dtypes[k].type;
            esize = dtypes[k].size;
        }
    if (!esize)
        return xerr(err, errlen, "%s: tensor \"%s\": unsupported dtype \"%.32s\"", name, t->name,
                    dt->valuestring);
    if (!cJSON_IsArray(shape))
        return xerr(err, errlen, "%s: tensor \"%s\": missing or non-array \"shape\"", name,
                    t->name);
    t->numel = 1;
    cJSON_ArrayForEach(v, shape) {
        char where[160];
        int64_t d;
        if (i >= ST_MAX_DIMS)
            return xerr(err, errlen, "%s: tensor \"%s\": more than %d dimensions", name, t->name,
                        ST_MAX_DIMS);
        snprintf(where, sizeof where, "tensor \"%.100s\": \"shape\"[%d]", t->name, i);
        if (json_int(v, 0, (int64_t)1 << 40, &d, name, where, err, errlen))
            return -1;
        t->shape[i++] = d;
        if (t->shape[i - 1] && t->numel > (int64_t)(1ll << 50) / t->shape[i - 1])
            return xerr(err, errlen, "%s: tensor \"%s\": shape too large", name, t->name);
        t->numel *= t->shape[i - 1];
    }
    t->ndim = i;
    if (!cJSON_IsArray(offs) || cJSON_GetArraySize(offs) != 2)
        return xerr(err, errlen, "%s: tensor \"%s\": \"data_offsets\" is not [begin, end]",
                    name, t->name);
    for (int k = 0; k < 2; k++) {
        char where[160];
        snprintf(where, sizeof where, "tensor \"%.100s\": \"data_offsets\"[%d]", t->name, k);
        if (json_int(cJSON_GetArrayItem(offs, k), 0, INT64_MAX, k ? &en : &b, name, where, err,
                     errlen))
            return -1;
    }
    if (en < b)
        return xerr(err, errlen, "%s: tensor \"%s\": invalid data_offsets [%lld, %lld]", name,
                    t->name, (long long)b, (long long)en);
    if ((uint64_t)en > dsize)
        return xerr(err, errlen,
                    "%s: tensor \"%s\": data_offsets [%lld, %lld] run past the end of the data "
                    "(%zu bytes): the file is truncated or corrupt", name, t->name, (long long)b,
                    (long long)en, dsize);
    t->nbytes = (size_t)en - (size_t)b;
    if ((uint64_t)t->numel * esize != t->nbytes) {
        char sh[128];
        return xerr(err, errlen,
                    "%s: tensor \"%s\": %s %s needs %llu bytes, data_offsets give %zu", name,
                    t->name, st_dtype_name(t->dtype), st_shape_str(t->shape, t->ndim, sh, sizeof sh),
                    (unsigned long long)((uint64_t)t->numel * esize), t->nbytes);
    }
    t->data = data + (size_t)b;
    return 0;
}

int st_parse(st_file *f, const void *bytes, size_t size, const char *name, char *err,
             size_t errlen)
{
    const unsigned char *p = bytes;
    uint64_t hsize = 0;
    cJSON *root = NULL, *e, *meta;
    char what[4200];
    const char *data;
    size_t dsize;
    int rc = -1, n = 0;

    if (!f->path && !(f->path = strdup(name)))
        return xerr(err, errlen, "%s: out of memory", name);
    if (size < 8)
        return xerr(err, errlen, "%s: %zu bytes: too short for a safetensors file (needs an "
                    "8-byte header size)", name, size);
    for (int i = 7; i >= 0; i--)
        hsize = hsize << 8 | p[i];
    if (hsize > size - 8 || hsize > MAX_HEADER)
        return xerr(err, errlen,
                    "%s: header size %llu exceeds the file (%zu bytes): truncated or not a "
                    "safetensors file", name, (unsigned long long)hsize, size);
    /* The header is one JSON object, starting with '{' and padded at the end with spaces
     * (the format; any JSON whitespace is taken, as the reference library does); offsets in
     * its messages count from the header's first byte, byte 8 of the file. */
    snprintf(what, sizeof what, "%s: header", name);
    if (hsize == 0 || p[8] != '{') {
        xerr(err, errlen, "%s: header: expected a JSON object starting with '{' at byte 8, "
             "got %s", name, hsize ? "something else" : "an empty header");
        goto done;
    }
    if (!(root = json_parse_strict((const char *)p + 8, (size_t)hsize, what, err, errlen)))
        goto done;
    meta = cJSON_GetObjectItemCaseSensitive(root, "__metadata__");
    if (meta) {
        const cJSON *m;
        if (!cJSON_IsObject(meta)) {
            xerr(err, errlen, "%s: header: \"__metadata__\": expected an object of strings, got "
                 "%s", name, JSON_GOT(meta));
            goto done;
        }
        cJSON_ArrayForEach(m, meta) if (!cJSON_IsString(m)) {
            xerr(err, errlen, "%s: header: \"__metadata__\": \"%.64s\": expected a string, got "
                 "%s", name, m->string, JSON_GOT(m));
            goto done;
        }
    }
    data = (const char *)p + 8 + hsize;
    dsize = size - 8 - (size_t)hsize;
    cJSON_ArrayForEach(e, root) n += strcmp(e->string, "__metadata__") != 0;
    f->tensors = calloc(n ? n : 1, sizeof *f->tensors);
    if (!f->tensors) {
        xerr(err, errlen, "%s: out of memory", name);
        goto done;
    }
    cJSON_ArrayForEach(e, root) {
        st_tensor *t;
        if (strcmp(e->string, "__metadata__") == 0)
            continue;
        t = &f->tensors[f->n++];
        if (!(t->name = strdup(e->string))) {
            xerr(err, errlen, "%s: out of memory", name);
            goto done;
        }
        if (parse_entry(t, e, data, dsize, name, err, errlen))
            goto done;
    }
    /* Tensors must not overlap (an overlap means a corrupt header). */
    qsort(f->tensors, f->n, sizeof *f->tensors, cmp_offset);
    for (int i = 1; i < f->n; i++) {
        const st_tensor *a = &f->tensors[i - 1], *b = &f->tensors[i];
        if ((const char *)a->data + a->nbytes > (const char *)b->data && a->nbytes && b->nbytes) {
            xerr(err, errlen, "%s: tensors \"%s\" and \"%s\" overlap in the data section", name,
                 a->name, b->name);
            goto done;
        }
    }
    if (st_index_done(f, bytes, size, name, err, errlen))
        goto done;
    rc = 0;
done:
    cJSON_Delete(root);
    return rc;
}

int st_map(const char *path, void **out, size_t *size, char *err, size_t errlen)
{
    struct stat sb;
    void *map = NULL;
    int fd;
    *out = NULL;
    *size = 0;
    fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a FIFO must not hang the open */
    if (fd < 0)
        return xerr(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return xerr(err, errlen, "%s: not a regular file", path);
    }
    if (sb.st_size > 0) {
        map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            int e = errno;
            close(fd);
            return xerr(err, errlen, "%s: cannot map its %lld MB: %s", path,
                        ((long long)sb.st_size + (1 << 20) - 1) >> 20, strerror(e));
        }
    }
    close(fd);
    *out = map;
    *size = (size_t)sb.st_size;
    return 0;
}

const st_tensor *st_sort_names(st_file *f)
{
    qsort(f->tensors, (size_t)f->n, sizeof *f->tensors, cmp_name);
    for (int i = 1; i < f->n; i++)
        if (strcmp(f->tensors[i - 1].name, f->tensors[i].name) == 0)
            return &f->tensors[i];
    return NULL;
}

int st_index_done(st_file *f, const void *bytes, size_t size, const char *name, char *err,
                  size_t errlen)
{
    const st_tensor *dup = st_sort_names(f);
    if (dup)
        return xerr(err, errlen, "%s: tensor \"%s\" appears twice", name, dup->name);
    f->map = (void *)bytes;
    f->size = size;
    return 0;
}

int st_open(st_file *f, const char *path, char *err, size_t errlen)
{
    return st_open_with(f, path, st_parse, err, errlen);
}

int st_open_with(st_file *f, const char *path, st_parser parse, char *err, size_t errlen)
{
    void *map;
    size_t size;
    memset(f, 0, sizeof *f);
    if (st_map(path, &map, &size, err, errlen))
        return -1;
    if (parse(f, map, size, path, err, errlen)) {
        if (map)
            munmap(map, size);
        f->map = NULL;
        st_close(f);
        return -1;
    }
    f->mapped = map != NULL;
    return 0;
}

int st_add_region(st_file *f, void *p, size_t size, int mapped, char *err, size_t errlen)
{
    st_region *r = realloc(f->regions, (size_t)(f->n_regions + 1) * sizeof *r);
    if (!r) {
        if (mapped && p)
            munmap(p, size);
        else if (!mapped)
            free(p);
        return xerr(err, errlen, "%s: out of memory", f->path ? f->path : "weights");
    }
    f->regions = r;
    r[f->n_regions].p = p;
    r[f->n_regions].size = size;
    r[f->n_regions++].mapped = mapped;
    return 0;
}

void st_close(st_file *f)
{
    if (!f)
        return;
    if (f->mapped && f->map)
        munmap(f->map, f->size);
    for (int i = 0; i < f->n; i++)
        free(f->tensors[i].name);
    for (int i = 0; i < f->n_regions; i++)
        if (f->regions[i].mapped && f->regions[i].p)
            munmap(f->regions[i].p, f->regions[i].size);
        else if (!f->regions[i].mapped)
            free(f->regions[i].p);
    free(f->regions);
    free(f->tensors);
    free(f->path);
    memset(f, 0, sizeof *f);
}

/* Whether [p, p + n) lies inside one mapping of f. */
static int in_mapping(const st_file *f, const void *p, size_t n)
{
    const char *c = p;
    if (f->mapped && f->map && c >= (const char *)f->map &&
        c <= (const char *)f->map + f->size && n <= (size_t)((const char *)f->map + f->size - c))
        return 1;
    for (int i = 0; i < f->n_regions; i++) {
        const char *b = f->regions[i].p;
        if (f->regions[i].mapped && b && c >= b && c <= b + f->regions[i].size &&
            n <= (size_t)(b + f->regions[i].size - c))
            return 1;
    }
    return 0;
}

void st_release(const st_file *f, const void *p, size_t n)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), a, e;
    if (!p || !n || !in_mapping(f, p, n))
        return;
    a = ((uintptr_t)p + page - 1) & ~(page - 1);
    e = ((uintptr_t)p + n) & ~(page - 1);
    if (e > a)
        madvise((void *)a, e - a, MADV_DONTNEED);
}

const st_tensor *st_find(const st_file *f, const char *name)
{
    int lo = 0, hi = f->n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2, c = strcmp(f->tensors[mid].name, name);
        if (c == 0)
            return &f->tensors[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

static float f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    float out;
    if (exp == 0) {
        /* zero or subnormal: man * 2^-24, exact in f32 */
        out = (float)man * 5.9604644775390625e-08f;
        return sign ? -out : out;
    }
    if (exp == 31)
        bits = sign | 0x7f800000u | (man << 13);
    else
        bits = sign | ((exp + 112) << 23) | (man << 13);
    memcpy(&out, &bits, 4);
    return out;
}

void st_to_f32(float *dst, const void *src, st_dtype t, size_t n)
{
    const unsigned char *s = src;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (t == ST_F32) {
        memcpy(dst, src, n * 4);
        return;
    }
#endif
    if (t == ST_F16 && simd_f16_to_f32(dst, src, n)) /* F16C: 8 at a time, exact */
        return;
    for (size_t i = 0; i < n; i++) {
        uint32_t bits;
        switch (t) {
        case ST_F32:
            bits = (uint32_t)s[4 * i] | (uint32_t)s[4 * i + 1] << 8 |
                   (uint32_t)s[4 * i + 2] << 16 | (uint32_t)s[4 * i + 3] << 24;
            memcpy(&dst[i], &bits, 4);
            break;
        case ST_F16:
            dst[i] = f16_to_f32((uint16_t)(s[2 * i] | s[2 * i + 1] << 8));
            break;
        case ST_BF16:
            bits = ((uint32_t)s[2 * i] | (uint32_t)s[2 * i + 1] << 8) << 16;
            memcpy(&dst[i], &bits, 4);
            break;
        default:
            dst[i] = NAN;
        }
    }
}

int64_t st_int_at(const st_tensor *t, size_t i)
{
    const unsigned char *s = t->data;
    uint64_t v = 0;
    size_t w = st_dtype_size(t->dtype);
    if (i >= (size_t)t->numel || (t->dtype != ST_I32 && t->dtype != ST_I64))
        return 0;
    for (size_t k = w; k-- > 0;)
        v = v << 8 | s[i * w + k];
    if (w == 4)
        return (int32_t)(uint32_t)v;
    return (int64_t)v;
}

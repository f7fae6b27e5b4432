/* safetensors.c — map a .safetensors file and check every tensor entry against the file. */
#include "model/safetensors.h"
#include "kernels/simd.h"
#include "base/util.h"
#include <cJSON.h>
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
    double b, en;
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
        double d = cJSON_IsNumber(v) ? v->valuedouble : -1;
        if (i >= ST_MAX_DIMS)
            return xerr(err, errlen, "%s: tensor \"%s\": more than %d dimensions", name, t->name,
                        ST_MAX_DIMS);
        if (d < 0 || d != floor(d) || d > (double)(1ll << 40))
            return xerr(err, errlen, "%s: tensor \"%s\": shape entry %d is not a valid size",
                        name, t->name, i);
        t->shape[i++] = (int64_t)d;
        if (t->shape[i - 1] && t->numel > (int64_t)(1ll << 50) / t->shape[i - 1])
            return xerr(err, errlen, "%s: tensor \"%s\": shape too large", name, t->name);
        t->numel *= t->shape[i - 1];
    }
    t->ndim = i;
    if (!cJSON_IsArray(offs) || cJSON_GetArraySize(offs) != 2 ||
        !cJSON_IsNumber(cJSON_GetArrayItem(offs, 0)) ||
        !cJSON_IsNumber(cJSON_GetArrayItem(offs, 1)))
        return xerr(err, errlen, "%s: tensor \"%s\": \"data_offsets\" is not [begin, end]", name,
                    t->name);
    b = cJSON_GetArrayItem(offs, 0)->valuedouble;
    en = cJSON_GetArrayItem(offs, 1)->valuedouble;
    if (b < 0 || en < b || b != floor(b) || en != floor(en))
        return xerr(err, errlen, "%s: tensor \"%s\": invalid data_offsets [%.0f, %.0f]", name,
                    t->name, b, en);
    if (en > (double)dsize)
        return xerr(err, errlen,
                    "%s: tensor \"%s\": data_offsets [%.0f, %.0f] run past the end of the data "
                    "(%zu bytes): the file is truncated or corrupt", name, t->name, b, en, dsize);
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
    cJSON *root = NULL, *e;
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
    root = cJSON_ParseWithLength((const char *)p + 8, (size_t)hsize);
    if (!root || !cJSON_IsObject(root)) {
        xerr(err, errlen, "%s: the header is not a JSON object", name);
        goto done;
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
    qsort(f->tensors, f->n, sizeof *f->tensors, cmp_name);
    for (int i = 1; i < f->n; i++)
        if (strcmp(f->tensors[i - 1].name, f->tensors[i].name) == 0) {
            xerr(err, errlen, "%s: tensor \"%s\" appears twice", name, f->tensors[i].name);
            goto done;
        }
    f->map = (void *)bytes;
    f->size = size;
    rc = 0;
done:
    cJSON_Delete(root);
    return rc;
}

int st_open(st_file *f, const char *path, char *err, size_t errlen)
{
    struct stat sb;
    void *map = NULL;
    int fd;
    memset(f, 0, sizeof *f);
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
            return xerr(err, errlen, "%s: cannot map: %s", path, strerror(e));
        }
    }
    close(fd);
    if (st_parse(f, map, (size_t)sb.st_size, path, err, errlen)) {
        if (map)
            munmap(map, (size_t)sb.st_size);
        f->map = NULL;
        st_close(f);
        return -1;
    }
    f->mapped = map != NULL;
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
    free(f->tensors);
    free(f->path);
    memset(f, 0, sizeof *f);
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

/* zip_store.c — index a zip archive of stored entries (PKWARE APPNOTE 6.3: the end of central
 * directory record, its zip64 form and locator, central directory headers with their zip64
 * extra field, local file headers). torch.save (miniz) writes every record stored, each local
 * header with general-purpose flag bit 3 (sizes in a data descriptor after the data, zeros in
 * the local header) and an "FB" extra field that pads the data to 64 bytes, and always a zip64
 * end record and locator. The sizes and offsets are taken from the central directory and
 * checked against the archive: each entry's data lies inside the archive before the central
 * directory, and no two entries (local header + data) overlap. CRC-32s are not checked:
 * checking them would read every byte of the weights at load, where the mapping reads only
 * what binding touches; a flipped byte in the data is caught, if at all, by the finiteness
 * checks at bind. */
#include "model/zip_store.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>

#define SIG_LOCAL 0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_END 0x06054b50u
#define SIG_END64 0x06064b50u
#define SIG_LOC64 0x07064b50u
#define CENTRAL_FIXED 46 /* bytes of a central directory header before its name */
#define LOCAL_FIXED 30
#define END_FIXED 22
#define END64_FIXED 56
#define LOC64_SIZE 20
#define MAX_ENTRIES (1 << 20)

static uint32_t rd16(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t rd32(const unsigned char *p) { return rd16(p) | rd16(p + 2) << 16; }
static uint64_t rd64(const unsigned char *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

static int cmp_name(const void *a, const void *b)
{
    return strcmp(((const zip_entry *)a)->name, ((const zip_entry *)b)->name);
}

static int cmp_header(const void *a, const void *b)
{
    uint64_t x = ((const zip_entry *)a)->header, y = ((const zip_entry *)b)->header;
    return x < y ? -1 : x > y;
}

void zip_free(zip_archive *z)
{
    if (!z)
        return;
    for (int i = 0; i < z->n; i++)
        free(z->e[i].name);
    free(z->e);
    z->e = NULL;
    z->n = 0;
}

/* Finds the end of central directory record: the last signature from which the record and its
 * comment reach exactly the end of the archive. */
static long long find_end(const unsigned char *p, size_t size)
{
    size_t lo = size > END_FIXED + 65535 ? size - END_FIXED - 65535 : 0;
    if (size < END_FIXED)
        return -1;
    for (size_t i = size - END_FIXED + 1; i-- > lo;)
        if (rd32(p + i) == SIG_END && i + END_FIXED + rd16(p + i + 20) == size)
            return (long long)i;
    return -1;
}

/* The zip64 extra field (id 1) of a central header: the 64-bit values of the fields whose
 * 32-bit forms are 0xFFFFFFFF, in the order usize, csize, offset. */
static int zip64_extra(const unsigned char *x, size_t xlen, uint64_t *usize, uint64_t *csize,
                       uint64_t *off, const char *name, const char *ename, char *err,
                       size_t errlen)
{
    int need = (*usize == 0xFFFFFFFFu) + (*csize == 0xFFFFFFFFu) + (*off == 0xFFFFFFFFu);
    size_t i = 0;
    while (i + 4 <= xlen) {
        uint32_t id = rd16(x + i), len = rd16(x + i + 2);
        const unsigned char *v = x + i + 4;
        if (i + 4 + len > xlen)
            break;
        if (id == 1) {
            if (len < 8u * (uint32_t)need)
                return xerr(err, errlen, "%s: entry \"%s\": zip64 extra field of %u bytes, "
                            "expected at least %d", name, ename, len, 8 * need);
            if (*usize == 0xFFFFFFFFu)
                *usize = rd64(v), v += 8;
            if (*csize == 0xFFFFFFFFu)
                *csize = rd64(v), v += 8;
            if (*off == 0xFFFFFFFFu)
                *off = rd64(v);
            return 0;
        }
        i += 4 + len;
    }
    if (need)
        return xerr(err, errlen, "%s: entry \"%s\": sizes say zip64 but there is no zip64 extra "
                    "field", name, ename);
    return 0;
}

/* Reads the central header at p[0..avail) into e (name, sizes, local offset). */
static int central(zip_entry *e, const unsigned char *p, size_t avail, size_t *len,
                   const char *name, int idx, char *err, size_t errlen)
{
    uint32_t flags, method, nlen, xlen, clen;
    uint64_t csize, usize, off;
    if (avail < CENTRAL_FIXED || rd32(p) != SIG_CENTRAL)
        return xerr(err, errlen, "%s: central directory entry %d: no central header signature "
                    "(the archive is truncated or not a zip)", name, idx);
    flags = rd16(p + 8);
    method = rd16(p + 10);
    csize = rd32(p + 20);
    usize = rd32(p + 24);
    nlen = rd16(p + 28);
    xlen = rd16(p + 30);
    clen = rd16(p + 32);
    off = rd32(p + 42);
    if ((size_t)CENTRAL_FIXED + nlen + xlen + clen > avail)
        return xerr(err, errlen, "%s: central directory entry %d runs past the directory", name,
                    idx);
    if (nlen == 0 || memchr(p + CENTRAL_FIXED, 0, nlen))
        return xerr(err, errlen, "%s: central directory entry %d: empty name or a NUL in it",
                    name, idx);
    if (!(e->name = malloc(nlen + 1)))
        return xerr(err, errlen, "%s: out of memory", name);
    memcpy(e->name, p + CENTRAL_FIXED, nlen);
    e->name[nlen] = 0;
    if (flags & 1)
        return xerr(err, errlen, "%s: entry \"%s\" is encrypted", name, e->name);
    if (method != 0)
        return xerr(err, errlen, "%s: entry \"%s\" is compressed (method %u%s): xlate reads "
                    "stored entries only, as torch.save writes them", name, e->name, method,
                    method == 8 ? ", deflate" : "");
    if (rd16(p + 34) != 0 && rd16(p + 34) != 0xFFFF)
        return xerr(err, errlen, "%s: entry \"%s\" starts on disk %u: multi-disk archives are "
                    "not supported", name, e->name, rd16(p + 34));
    if (zip64_extra(p + CENTRAL_FIXED + nlen, xlen, &usize, &csize, &off, name, e->name, err,
                    errlen))
        return -1;
    if (csize != usize)
        return xerr(err, errlen, "%s: entry \"%s\": stored size %llu differs from its size %llu "
                    "(a stored entry has both equal)", name, e->name, (unsigned long long)csize,
                    (unsigned long long)usize);
    e->size = usize;
    e->header = off;
    *len = (size_t)CENTRAL_FIXED + nlen + xlen + clen;
    return 0;
}

/* Checks e's local header at e->header and finds its data; limit = the central directory's
 * start (no entry reaches into it). */
static int local(zip_entry *e, const unsigned char *p, uint64_t limit, const char *name,
                 char *err, size_t errlen)
{
    const unsigned char *h = p + e->header;
    uint32_t nlen, xlen, flags;
    uint64_t start;
    if (e->header > limit || limit - e->header < LOCAL_FIXED || rd32(h) != SIG_LOCAL)
        return xerr(err, errlen, "%s: entry \"%s\": no local header at byte %llu", name, e->name,
                    (unsigned long long)e->header);
    flags = rd16(h + 6);
    nlen = rd16(h + 26);
    xlen = rd16(h + 28);
    start = e->header + LOCAL_FIXED + nlen + xlen;
    if (start > limit)
        return xerr(err, errlen, "%s: entry \"%s\": local header runs past byte %llu", name,
                    e->name, (unsigned long long)limit);
    if (nlen != strlen(e->name) || memcmp(h + LOCAL_FIXED, e->name, nlen) != 0)
        return xerr(err, errlen, "%s: entry \"%s\": the local header at byte %llu names "
                    "another entry", name, e->name, (unsigned long long)e->header);
    if (rd16(h + 8) != 0)
        return xerr(err, errlen, "%s: entry \"%s\": local header says compressed (method %u)",
                    name, e->name, rd16(h + 8));
    if (flags & 1)
        return xerr(err, errlen, "%s: entry \"%s\" is encrypted", name, e->name);
    /* without a data descriptor (bit 3) the local sizes are the real ones: they must agree */
    if (!(flags & 8) && rd32(h + 22) != 0xFFFFFFFFu && rd32(h + 22) != e->size)
        return xerr(err, errlen, "%s: entry \"%s\": local header says %u bytes, the central "
                    "directory %llu", name, e->name, rd32(h + 22), (unsigned long long)e->size);
    if (e->size > limit - start)
        return xerr(err, errlen, "%s: entry \"%s\": %llu bytes at byte %llu run past byte %llu "
                    "(the central directory): the archive is truncated or corrupt", name,
                    e->name, (unsigned long long)e->size, (unsigned long long)start,
                    (unsigned long long)limit);
    e->data = p + start;
    return 0;
}

int zip_index(zip_archive *z, const void *bytes, size_t size, const char *name, char *err,
              size_t errlen)
{
    const unsigned char *p = bytes;
    long long end;
    uint64_t n, cd_size, cd_off;
    size_t at;

    memset(z, 0, sizeof *z);
    if (size < 4 || rd32(p) != SIG_LOCAL)
        return xerr(err, errlen, "%s: not a zip archive (no local header signature PK\\3\\4 at "
                    "byte 0)", name);
    if ((end = find_end(p, size)) < 0)
        return xerr(err, errlen, "%s: no end of central directory record: the archive is "
                    "truncated or not a zip", name);
    if (rd16(p + end + 4) != 0 || rd16(p + end + 6) != 0)
        return xerr(err, errlen, "%s: multi-disk archives are not supported", name);
    n = rd16(p + end + 10);
    cd_size = rd32(p + end + 12);
    cd_off = rd32(p + end + 16);
    if (end >= LOC64_SIZE && rd32(p + end - LOC64_SIZE) == SIG_LOC64) {
        /* zip64: the real values are in the zip64 end record the locator points to; where the
         * 32-bit record holds a value (not its all-ones marker) both must agree */
        uint64_t e64 = rd64(p + end - LOC64_SIZE + 8), n64, sz64, off64;
        const unsigned char *r;
        if (e64 > (uint64_t)end - LOC64_SIZE || (uint64_t)end - LOC64_SIZE - e64 < END64_FIXED ||
            rd32(p + e64) != SIG_END64)
            return xerr(err, errlen, "%s: the zip64 locator points to byte %llu, where there is "
                        "no zip64 end record", name, (unsigned long long)e64);
        r = p + e64;
        n64 = rd64(r + 32);
        sz64 = rd64(r + 40);
        off64 = rd64(r + 48);
        if (rd32(r + 16) != 0 || rd32(r + 20) != 0 || rd64(r + 24) != n64)
            return xerr(err, errlen, "%s: multi-disk archives are not supported", name);
        if ((n != 0xFFFF && n != n64) || (cd_size != 0xFFFFFFFFu && cd_size != sz64) ||
            (cd_off != 0xFFFFFFFFu && cd_off != off64))
            return xerr(err, errlen, "%s: the end record and the zip64 end record disagree "
                        "(%llu / %llu entries, directory at %llu / %llu)", name,
                        (unsigned long long)n, (unsigned long long)n64,
                        (unsigned long long)cd_off, (unsigned long long)off64);
        n = n64;
        cd_size = sz64;
        cd_off = off64;
        end = (long long)e64; /* the directory ends where the zip64 record starts */
    }
    if (cd_off > (uint64_t)end || cd_size != (uint64_t)end - cd_off)
        return xerr(err, errlen, "%s: the central directory (%llu bytes at byte %llu) does not "
                    "end where the end record starts (byte %lld): truncated or corrupt", name,
                    (unsigned long long)cd_size, (unsigned long long)cd_off, end);
    if (n > cd_size / CENTRAL_FIXED || n > MAX_ENTRIES)
        return xerr(err, errlen, "%s: %llu entries cannot fit in a central directory of %llu "
                    "bytes", name, (unsigned long long)n, (unsigned long long)cd_size);
    if (!(z->e = calloc(n ? n : 1, sizeof *z->e)))
        return xerr(err, errlen, "%s: out of memory", name);
    at = (size_t)cd_off;
    for (uint64_t i = 0; i < n; i++) {
        size_t len = 0;
        z->n++;
        if (central(&z->e[i], p + at, (size_t)(cd_off + cd_size - at), &len, name, (int)i, err,
                    errlen) ||
            local(&z->e[i], p, cd_off, name, err, errlen))
            goto fail;
        at += len;
    }
    if (at != cd_off + cd_size) {
        xerr(err, errlen, "%s: %llu bytes after the last central directory entry", name,
             (unsigned long long)(cd_off + cd_size - at));
        goto fail;
    }
    /* no two entries overlap: each one's data ends before the next local header */
    qsort(z->e, (size_t)z->n, sizeof *z->e, cmp_header);
    for (int i = 1; i < z->n; i++)
        if ((uint64_t)(z->e[i - 1].data - p) + z->e[i - 1].size > z->e[i].header) {
            xerr(err, errlen, "%s: entries \"%s\" and \"%s\" overlap", name, z->e[i - 1].name,
                 z->e[i].name);
            goto fail;
        }
    qsort(z->e, (size_t)z->n, sizeof *z->e, cmp_name);
    for (int i = 1; i < z->n; i++)
        if (strcmp(z->e[i - 1].name, z->e[i].name) == 0) {
            xerr(err, errlen, "%s: entry \"%s\" appears twice", name, z->e[i].name);
            goto fail;
        }
    return 0;
fail:
    zip_free(z);
    return -1;
}

const zip_entry *zip_find(const zip_archive *z, const char *name)
{
    int lo = 0, hi = z->n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2, c = strcmp(z->e[mid].name, name);
        if (c == 0)
            return &z->e[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

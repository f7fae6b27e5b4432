/* zip_store.h — the entries of a zip archive whose entries are stored (not compressed), as
 * torch.save writes them (pytorch_model.bin): an index of names to byte ranges inside the
 * caller's bytes. Only what the central directory and the local headers say is used, and all of
 * it is checked against the archive before anyone reads a byte (docs/FORMAT.md, "pytorch_model.bin").
 * No data is copied and nothing is decompressed: a compressed or encrypted entry is refused. */
#ifndef XLATE_ZIP_STORE_H
#define XLATE_ZIP_STORE_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
    char *name;                /* owned, NUL-free */
    const unsigned char *data; /* inside the caller's bytes: [size] */
    uint64_t size;
    uint64_t header;           /* offset of its local header (messages) */
} zip_entry;

typedef struct {
    zip_entry *e; /* [n], sorted by name */
    int n;
} zip_archive;

/* Indexes the size bytes at `bytes` (which the caller keeps alive) as a zip archive of stored
 * entries. `name` is used in messages. On failure *z holds nothing (zip_free is still safe). */
int zip_index(zip_archive *z, const void *bytes, size_t size, const char *name, char *err,
              size_t errlen);
const zip_entry *zip_find(const zip_archive *z, const char *name);
void zip_free(zip_archive *z);

#endif

/* safetensors.h — read-only access to a .safetensors file: an 8-byte little-endian header size,
 * a JSON header {name: {dtype, shape, data_offsets}}, then the raw little-endian data.
 * Everything the header claims is checked against the file before anyone reads a byte. */
#ifndef XLATE_SAFETENSORS_H
#define XLATE_SAFETENSORS_H
#include <stddef.h>
#include <stdint.h>

typedef enum { ST_F32, ST_F16, ST_BF16, ST_I32, ST_I64, ST_F64, ST_I8, ST_U8, ST_I16, ST_BOOL } st_dtype;

#define ST_MAX_DIMS 8

typedef struct {
    char *name;     /* owned */
    st_dtype dtype;
    int ndim;
    int64_t shape[ST_MAX_DIMS];
    int64_t numel;
    size_t nbytes;
    const void *data; /* inside the mapping; not aligned beyond 1 byte in general */
} st_tensor;

/* More memory a file's tensors may point into (model/weights.c, model/torch_bin.c): the
 * mappings of the other shards of a sharded checkpoint, views a pytorch_model.bin stores with
 * strides (copied out contiguous). Owned by the st_file, released by st_close. */
typedef struct {
    void *p;
    size_t size;
    int mapped; /* 1: munmap'd; 0: free'd */
} st_region;

typedef struct {
    char *path;        /* owned; used in messages */
    void *map;         /* the mmap'd (or caller's) bytes */
    size_t size;
    int mapped;        /* 1 when map must be munmap'd */
    st_tensor *tensors; /* [n], sorted by name */
    int n;
    st_region *regions; /* [n_regions] */
    int n_regions;
} st_file;

/* Maps and indexes path. */
int st_open(st_file *f, const char *path, char *err, size_t errlen);
/* Indexes size bytes the caller keeps alive (fuzzing, tests). `name` is used in messages. */
int st_parse(st_file *f, const void *data, size_t size, const char *name, char *err,
             size_t errlen);
void st_close(st_file *f);
/* A reader of a file's bytes (st_parse, tb_parse): indexes them into f, or fills err. */
typedef int (*st_parser)(st_file *f, const void *data, size_t size, const char *name, char *err,
                         size_t errlen);
/* Maps path and indexes it with parse; on failure f is closed and the mapping released. */
int st_open_with(st_file *f, const char *path, st_parser parse, char *err, size_t errlen);
/* Sorts f's tensors by name (st_find's order); the first tensor whose name the one before it
 * has too, or NULL when the names are unique. The caller words the message. */
const st_tensor *st_sort_names(st_file *f);
/* A reader's last step over bytes [size] it indexed into f: the names sorted and checked unique
 * ("NAME: tensor \"X\" appears twice"), f's map and size set to the bytes. */
int st_index_done(st_file *f, const void *bytes, size_t size, const char *name, char *err,
                  size_t errlen);
/* Maps a regular file read-only (opened non-blocking: a FIFO fails instead of hanging). An empty
 * file gives *map NULL, *size 0. */
int st_map(const char *path, void **map, size_t *size, char *err, size_t errlen);
/* Adds a region to f (taken over: freed by st_close, and on failure here too). */
int st_add_region(st_file *f, void *p, size_t size, int mapped, char *err, size_t errlen);

/* Tells the kernel that bytes [p, p + n) of a mapped file will not be read again soon: its whole
 * pages leave the process's resident set (they stay in the page cache, and come back if read).
 * Nothing unless [p, p + n) lies inside one of f's mappings (never on copied memory, whose
 * pages would come back as zeros). */
void st_release(const st_file *f, const void *p, size_t n);

const st_tensor *st_find(const st_file *f, const char *name);
const char *st_dtype_name(st_dtype t);
size_t st_dtype_size(st_dtype t);
/* "[2, 3]" into buf. */
const char *st_shape_str(const int64_t *shape, int ndim, char *buf, size_t n);

/* Converts n elements of a float tensor (F32/F16/BF16) to f32. */
void st_to_f32(float *dst, const void *src, st_dtype t, size_t n);
/* Reads element i of an integer tensor (I32/I64) as int64. */
int64_t st_int_at(const st_tensor *t, size_t i);

#endif

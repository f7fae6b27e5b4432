/* torch_pickle.h — the pickle stream of a PyTorch state dict (data.pkl inside
 * pytorch_model.bin), read by a small machine that knows only the opcodes and the globals a
 * state dict needs (docs/FORMAT.md, "pytorch_model.bin"): it builds no Python objects and calls
 * nothing. A global outside the allow-list (os.system, builtins.eval, ...), an opcode outside
 * the subset, or a callable applied to arguments other than a state dict's is refused with a
 * message naming it and its byte offset.
 *
 * The result is the dict's entries (name -> a view of a storage) and the storages they name
 * (a key, which torch_bin.c finds as the archive record data/<key>, a dtype and an element
 * count); nothing here knows the zip archive. */
#ifndef XLATE_TORCH_PICKLE_H
#define XLATE_TORCH_PICKLE_H
#include "model/safetensors.h"
#include <stddef.h>
#include <stdint.h>

typedef struct {
    char *key;     /* owned: the record name under data/ */
    st_dtype dtype;
    int64_t numel; /* elements the pickle says it holds */
} tp_storage;

typedef struct {
    char *name;    /* owned: the state dict's key */
    int storage;   /* index into tp_state_dict.storages */
    int64_t offset; /* in elements, from the storage's start */
    int ndim;
    int64_t shape[ST_MAX_DIMS];
    int64_t stride[ST_MAX_DIMS]; /* in elements */
} tp_tensor;

typedef struct {
    tp_storage *storages; /* [n_storages], in order of first use */
    int n_storages;
    tp_tensor *tensors;   /* [n_tensors], in the dict's order */
    int n_tensors;
} tp_state_dict;

/* Runs the pickle at pkl[0..n) (n bytes: the whole of data.pkl, ending at its STOP). `name` is
 * used in messages ("pytorch_model.bin: data.pkl"). On failure sd holds nothing. */
int tp_read(tp_state_dict *sd, const void *pkl, size_t n, const char *name, char *err,
            size_t errlen);
void tp_free(tp_state_dict *sd);

#endif

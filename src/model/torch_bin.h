/* torch_bin.h — a PyTorch checkpoint of a state dict (pytorch_model.bin: torch.save's zip
 * format, torch >= 1.6) indexed as an st_file, so that model.c binds it exactly as it binds
 * a .safetensors file. The zip container is read by zip_store.c, the pickle by torch_pickle.c;
 * here the pickle's storages are found as the archive's records and each tensor is checked
 * against its storage (docs/FORMAT.md, "pytorch_model.bin"). Tensors point into the mapped
 * file (a contiguous view) or into a copy (a view with other strides, copied out contiguous
 * into a region of the st_file). */
#ifndef XLATE_TORCH_BIN_H
#define XLATE_TORCH_BIN_H
#include "model/safetensors.h"
#include <stddef.h>

/* Indexes size bytes the caller keeps alive (fuzzing, tests). `name` is used in messages. */
int tb_parse(st_file *f, const void *bytes, size_t size, const char *name, char *err,
             size_t errlen);
/* 1 when the bytes start as a zip archive does ("PK\3\4"): a torch.save file, not safetensors. */
int tb_is_zip(const void *bytes, size_t size);

#endif

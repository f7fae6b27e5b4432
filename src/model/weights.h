/* weights.h — a model directory's weights as one st_file, whatever form they take: a
 * .safetensors file, a PyTorch pytorch_model.bin (torch_bin.h), or a checkpoint sharded into
 * several of either with a *.index.json naming each tensor's file (as transformers'
 * save_pretrained writes one). model.c binds the result by name, whatever its form. */
#ifndef XLATE_WEIGHTS_H
#define XLATE_WEIGHTS_H
#include "model/safetensors.h"
#include <stddef.h>

/* Opens dir/name: a name ending in ".index.json" is a shard index; a file starting as a zip
 * archive, or named *.bin, is a torch.save checkpoint; anything else is read as safetensors. With `hub` (a
 * Hugging Face directory) and name "model.safetensors" absent, the other names
 * transformers' from_pretrained tries are tried in its order: model.safetensors.index.json,
 * pytorch_model.bin, pytorch_model.bin.index.json. *used (may be NULL) gets the name opened, a
 * static string or `name`. */
int weights_open(st_file *f, const char *dir, const char *name, int hub, const char **used,
                 char *err, size_t errlen);
/* One file (or index) by its path, by the same rules. */
int weights_open_path(st_file *f, const char *path, char *err, size_t errlen);

#endif

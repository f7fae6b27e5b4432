/* weights_dump.c — prints what the weights reader (src/model/weights.h) makes of a file, for
 * tests/py/test_torch_bin.py, which compares it with torch.load of the same file.
 *   weights_dump PATH       one line per tensor, by name: NAME DTYPE [SHAPE] and every element
 *                           (floats as f32 "%.9g", integers in decimal), then "ok N"
 * On failure: the reader's message on stderr and exit status 2. */
#include "model/safetensors.h"
#include "model/weights.h"
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    st_file f;
    char err[1024];
    if (argc != 2) {
        fprintf(stderr, "usage: weights_dump PATH\n");
        return 64;
    }
    if (weights_open_path(&f, argv[1], err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    for (int i = 0; i < f.n; i++) {
        const st_tensor *t = &f.tensors[i];
        char sh[200];
        printf("%s %s %s", t->name, st_dtype_name(t->dtype),
               st_shape_str(t->shape, t->ndim, sh, sizeof sh));
        if (t->dtype == ST_F32 || t->dtype == ST_F16 || t->dtype == ST_BF16) {
            float *v = malloc((size_t)t->numel * sizeof *v + 1);
            if (!v)
                return 3;
            st_to_f32(v, t->data, t->dtype, (size_t)t->numel);
            for (int64_t k = 0; k < t->numel; k++)
                printf(" %.9g", (double)v[k]);
            free(v);
        } else if (t->dtype == ST_I32 || t->dtype == ST_I64) {
            for (int64_t k = 0; k < t->numel; k++)
                printf(" %lld", (long long)st_int_at(t, (size_t)k));
        }
        printf("\n");
    }
    printf("ok %d\n", f.n);
    st_close(&f);
    return 0;
}

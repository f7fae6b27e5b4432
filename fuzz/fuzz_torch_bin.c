/* fuzz_torch_bin.c — a pytorch_model.bin image (torch.save's zip of a pickled state dict) into
 * tb_parse (src/model/torch_bin.c: zip_store.c, torch_pickle.c), then model_bind against the
 * three tiny configs of fuzz_safetensors.c (the seeds in fuzz/corpus/torch_bin/ are complete
 * weights for each, written by torch.save: fuzz/make_corpus.py).
 * Properties: a failure leaves a message and no leak; on success every tensor has
 * nbytes = numel * dtype size and lies inside the image (a contiguous view) or inside one of the
 * file's own regions (a strided view copied out), the copies together are no larger than the
 * image, names are sorted, unique and found; a bound model keeps the properties checked for
 * safetensors (parameter count, every bound float readable, finite and float-aligned). */
#ifdef FUZZ_NO_MAIN
#include "fuzz_safetensors.c"
#else
#define FUZZ_NO_MAIN
#include "fuzz_safetensors.c"
#undef FUZZ_NO_MAIN
#endif
#include "model/torch_bin.h"

/* A contiguous view lies in the image, a strided one in one of the file's own copies. */
static int fuzz_tb_inside(const st_file *f, const st_tensor *t, const uint8_t *img, size_t size)
{
    if (t->nbytes == 0 || fuzz_st_within(t->data, t->nbytes, img, img + size))
        return 1;
    for (int r = 0; r < f->n_regions; r++) {
        const uint8_t *b = f->regions[r].p;
        if (fuzz_st_within(t->data, t->nbytes, b, b + f->regions[r].size))
            return 1;
    }
    return 0;
}

static void fuzz_tb_check_file(const st_file *f, const uint8_t *img, size_t size)
{
    size_t copied = 0;
    for (int i = 0; i < f->n_regions; i++) {
        FUZZ_CHECK(!f->regions[i].mapped, "region %d is a mapping", i);
        copied += f->regions[i].size;
    }
    FUZZ_CHECK(copied <= size, "copies of %zu bytes from an image of %zu", copied, size);
    /* views may share a storage, so reading every byte of each could cost views x image */
    fuzz_st_check_tensors(f, img, size, fuzz_tb_inside, (size_t)1 << 20);
}

int fuzz_torch_bin(const uint8_t *data, size_t size)
{
    st_file f;
    char err[512];
    uint8_t *img = malloc(size ? size : 1); /* exactly `size` bytes for ASan */
    FUZZ_CHECK(img != NULL, "malloc");
    if (size)
        memcpy(img, data, size);
    memset(&f, 0, sizeof f);
    memset(err, 0, sizeof err);
    if (tb_parse(&f, img, size, "fuzz.bin", err, sizeof err) != 0) {
        FUZZ_CHECK(fuzz_msg_ok(err, sizeof err), "parse failure without a message");
        st_close(&f);
        free(img);
        return 0;
    }
    fuzz_tb_check_file(&f, img, size);
    st_close(&f);
    fuzz_st_bind_each(img, size, tb_parse, "fuzz.bin");
    free(img);
    return 0;
}

#ifndef FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_torch_bin(data, size);
}
#endif

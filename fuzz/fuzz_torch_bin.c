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

static void fuzz_tb_check_file(const st_file *f, const uint8_t *img, size_t size)
{
    size_t copied = 0;
    for (int i = 0; i < f->n_regions; i++) {
        FUZZ_CHECK(!f->regions[i].mapped, "region %d is a mapping", i);
        copied += f->regions[i].size;
    }
    FUZZ_CHECK(copied <= size, "copies of %zu bytes from an image of %zu", copied, size);
    for (int i = 0; i < f->n; i++) {
        const st_tensor *t = &f->tensors[i];
        const uint8_t *p = t->data;
        int64_t numel = 1;
        int inside = t->nbytes == 0 || (p >= img && p <= img + size &&
                                        t->nbytes <= (size_t)(img + size - p));
        for (int r = 0; !inside && r < f->n_regions; r++) {
            const uint8_t *b = f->regions[r].p;
            inside = p >= b && p <= b + f->regions[r].size &&
                     t->nbytes <= (size_t)(b + f->regions[r].size - p);
        }
        FUZZ_CHECK(st_find(f, t->name) == t, "st_find(\"%s\") misses", t->name);
        FUZZ_CHECK(i == 0 || strcmp(f->tensors[i - 1].name, t->name) < 0, "names not sorted");
        for (int k = 0; k < t->ndim; k++)
            numel *= t->shape[k];
        FUZZ_CHECK(numel == t->numel, "\"%s\": numel %lld, shape product %lld", t->name,
                   (long long)t->numel, (long long)numel);
        FUZZ_CHECK((uint64_t)t->numel * st_dtype_size(t->dtype) == t->nbytes,
                   "\"%s\": nbytes %zu for %lld elements", t->name, t->nbytes,
                   (long long)t->numel);
        FUZZ_CHECK(inside, "\"%s\": data outside the image and the copies", t->name);
        if (t->nbytes <= (1u << 20)) { /* ASan checks every byte is readable */
            volatile uint8_t x = 0;
            for (size_t k = 0; k < t->nbytes; k++)
                x ^= p[k];
            (void)x;
        }
    }
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
    for (size_t k = 0; k < sizeof fuzz_st_configs / sizeof fuzz_st_configs[0]; k++) {
        model_config cfg;
        model_weights m;
        int rc = config_parse(&cfg, fuzz_st_configs[k], strlen(fuzz_st_configs[k]), "tiny.json",
                              NULL, NULL, err, sizeof err);
        FUZZ_CHECK(rc == 0, "tiny config %zu: %s", k, err);
        memset(&f, 0, sizeof f);
        FUZZ_CHECK(tb_parse(&f, img, size, "fuzz.bin", err, sizeof err) == 0, "second parse: %s",
                   err);
        memset(err, 0, sizeof err);
        if (model_bind(&m, &cfg, &f, NULL, NULL, err, sizeof err) != 0) {
            FUZZ_CHECK(fuzz_msg_ok(err, sizeof err), "bind failure without a message");
            continue;
        }
        fuzz_st_check_model(&m);
        model_free(&m);
    }
    free(img);
    return 0;
}

#ifndef FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_torch_bin(data, size);
}
#endif

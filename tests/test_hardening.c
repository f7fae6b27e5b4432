/* test_hardening.c — the fuzz targets' properties on every committed input, and regression
 * checks for what fuzzing found (docs/HARDENING.md).
 *
 * The fuzz targets (fuzz/fuzz_*.c) are compiled in here without their libFuzzer entry points;
 * each committed seed (fuzz/corpus/<target>/) and each input that once crashed
 * (fuzz/crashes/<target>/) is replayed in a child process, so that a property failure or a
 * sanitizer abort (make sanitize) names its input and the other checks still run. */
#define FUZZ_NO_MAIN
#include "../fuzz/fuzz_config.c"
#include "../fuzz/fuzz_ids_cli.c"
#include "../fuzz/fuzz_safetensors.c"
#include "../fuzz/fuzz_spm_model.c"
#include "../fuzz/fuzz_spm_text.c"
#include "../fuzz/fuzz_vocab.c"
#include "../fuzz/fuzz_marian_config.c"
#include "../fuzz/fuzz_split.c"
#include "../fuzz/fuzz_html.c"
#include "../fuzz/fuzz_markdown.c"
#include "../fuzz/fuzz_torch_bin.c"
#include "../fuzz/fuzz_m2m_tok.c"
#include "../fuzz/fuzz_docs.c"
#include "check.h"
#include "model/config.h"
#include <dirent.h>
#include <sys/wait.h>

typedef int (*fuzz_fn)(const uint8_t *, size_t);

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replays every file of dir through fn, one child each; one check line for the directory. */
static void replay(const char *dir, fuzz_fn fn)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char *names[4096], what[512], failed[2048] = "";
    int n = 0, bad = 0;
    if (!d) {
        snprintf(what, sizeof what, "replay %s", dir);
        check(0, what, "cannot open the directory");
        return;
    }
    while ((e = readdir(d)) && n < 4096)
        if (e->d_name[0] != '.')
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    for (int i = 0; i < n; i++) {
        char path[4096];
        size_t len;
        unsigned char *data;
        pid_t pid;
        int status = 0;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        data = fuzz_slurp(path, &len);
        fflush(NULL);
        pid = fork();
        if (pid == 0) {
            fn(data, len);
            fflush(NULL);
            _exit(0);
        }
        if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0) {
            size_t used = strlen(failed);
            bad++;
            snprintf(failed + used, sizeof failed - used, "%s%s (%s %d)", used ? ", " : "",
                     names[i], WIFSIGNALED(status) ? "signal" : "exit",
                     WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        }
        free(data);
    }
    snprintf(what, sizeof what, "replay %s: %d inputs keep the fuzz target's properties", dir, n);
    check(n > 0 && bad == 0, what, n ? "%d failed: %s (see stderr)" : "no inputs", bad, failed);
    for (int i = 0; i < n; i++)
        free(names[i]);
}

/* A config (the minimal one of fuzz/corpus/config/minimal) with one more field. */
static int parse_with(const char *extra, model_config *c, char *err, size_t errlen)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"model_type\": \"transformer\", \"d_model\": 4, \"heads\": 2, \"ffn_dim\": 8, "
             "\"encoder_layers\": 0, \"decoder_layers\": 1, \"src_vocab_size\": 5, "
             "\"tgt_vocab_size\": 5, \"pad_id\": 0, \"unk_id\": 1, \"bos_id\": 2, \"eos_id\": 3, "
             "%s}", extra);
    return config_parse(c, json, strlen(json), "cfg.json", NULL, NULL, err, errlen);
}

static void number_field_in_float_range(const char *field, const char *value)
{
    model_config c;
    char extra[128], err[512] = "", what[256];
    int rc;
    snprintf(extra, sizeof extra, "\"%s\": %s", field, value);
    rc = parse_with(extra, &c, err, sizeof err);
    snprintf(what, sizeof what, "config: \"%s\": %s (0 as a float) is rejected, field named",
             field, value);
    check(rc != 0 && strstr(err, field) != NULL, what,
          "rc %d, message [%s] (accepted: the float value is %g)", rc, err,
          rc == 0 ? (double)(strcmp(field, "layer_norm_eps") == 0 ? c.layer_norm_eps
                                                                  : c.embedding_scale)
                  : 0.0);
    if (rc == 0)
        config_free(&c);
}

/* Found by fuzz_safetensors: F32 tensors were used in place from the file even when their data
 * starts at an address that is not a multiple of 4 (a header whose length is not a multiple of
 * 4 is valid safetensors), so every read of those weights was a misaligned float access
 * (undefined behaviour; UBSan: "load of misaligned address" in src/kernels/simd.c). */
static void misaligned_weights(void)
{
    const char *path = "fuzz/crashes/safetensors/f32-data-misaligned";
    size_t len;
    unsigned char *img = fuzz_slurp(path, &len);
    model_config cfg;
    model_weights m;
    st_file f;
    char err[512] = "";
    int rc;
    memset(&f, 0, sizeof f);
    rc = config_parse(&cfg, fuzz_st_configs[0], strlen(fuzz_st_configs[0]), "tiny.json", NULL,
                      NULL, err, sizeof err) ||
         st_parse(&f, img, len, path, err, sizeof err) ||
         model_bind(&m, &cfg, &f, NULL, NULL, err, sizeof err);
    if (check(rc == 0, "weights with misaligned F32 data: the file binds", "%s", err)) {
        /* packed (a CPU with AVX2): the linears and the embedding (read a row at a time
         * through memcpy-based conversion, model_embed_row) are NULL here: no misaligned use */
        const float *p[] = {m.src_embed, m.enc[0].o.w, m.enc[0].fc1.w, m.dec[0].cross_q.w,
                            m.dec[0].fc2.b, m.out.w};
        int bad = 0;
        for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
            bad += ((uintptr_t)p[i] & (_Alignof(float) - 1)) != 0;
        check(bad == 0, "weights with misaligned F32 data: every bound weight is float-aligned "
              "(converted, not used in place)", "%d of %zu pointers misaligned (e.g. src_embed "
              "at %p)", bad, sizeof p / sizeof p[0], (const void *)m.src_embed);
        model_free(&m);
    }
    free(img);
}

int main(void)
{
    static const struct {
        const char *name;
        fuzz_fn fn;
    } targets[] = {
        {"config", fuzz_config},       {"safetensors", fuzz_safetensors},
        {"spm_model", fuzz_spm_model}, {"spm_text", fuzz_spm_text},
        {"ids_cli", fuzz_ids_cli},     {"vocab", fuzz_vocab},
        {"marian_config", fuzz_marian_config}, {"split", fuzz_split},
        {"html", fuzz_html},
        {"markdown", fuzz_markdown},
        {"torch_bin", fuzz_torch_bin},
        {"m2m_tok", fuzz_m2m_tok},
        {"docs", fuzz_docs},
    };
    fuzz_ids_setup(); /* its temporary files, made here so that this process removes them */
    fuzz_m2m_setup();
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        char dir[256];
        DIR *d;
        snprintf(dir, sizeof dir, "fuzz/corpus/%s", targets[i].name);
        replay(dir, targets[i].fn);
        snprintf(dir, sizeof dir, "fuzz/crashes/%s", targets[i].name);
        if ((d = opendir(dir))) {
            closedir(d);
            replay(dir, targets[i].fn);
        }
    }

    /* Found by fuzz_config: a positive double that is 0 as a float passed the "> 0" check
     * (done on the double), giving LayerNorm an epsilon of 0 (fuzz/crashes/config/). */
    number_field_in_float_range("layer_norm_eps", "1e-51");
    number_field_in_float_range("embedding_scale", "1e-46");
    misaligned_weights();
    return check_done();
}

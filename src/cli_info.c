/* cli_info.c — `xlate info [DIR]`: the model's config, parameter count, dtypes, vocabulary
 * and file sizes. */
#include "cli.h"
#include "cli_common.h"
#include "config.h"
#include "safetensors.h"
#include "util.h"
#include "xlate.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void file_line(const char *dir, const char *name, const char *what)
{
    struct stat sb;
    char *p = path_join(dir, name);
    if (p && stat(p, &sb) == 0)
        printf("%-18s %s (%.1f MB)\n", what, name, sb.st_size / 1e6);
    else
        printf("%-18s %s (missing)\n", what, name);
    free(p);
}

int cmd_info(int argc, char **argv)
{
    char err[XLATE_ERRLEN], dir[4096];
    const char *opt = NULL;
    model_config c;
    st_file f;
    char *cpath = NULL, *wpath = NULL;
    int quiet = 0, status = XLATE_EXIT_MODEL;
    size_t count[16] = {0};
    size_t params = 0;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("Usage: xlate info [DIR | -m DIR]\nPrints what a model directory holds "
                   "(default: the default model).\n");
            return XLATE_EXIT_OK;
        } else if (strcmp(argv[i], "-m") == 0 && i + 1 < argc) {
            opt = argv[++i];
        } else if (argv[i][0] != '-' && !opt) {
            opt = argv[i];
        } else {
            fprintf(stderr, "xlate info: unexpected argument \"%s\" (see xlate info --help)\n",
                    argv[i]);
            return XLATE_EXIT_USAGE;
        }
    }
    if (find_model_dir(opt, dir, sizeof dir, err, sizeof err)) {
        fprintf(stderr, "xlate: %s\n", err);
        return XLATE_EXIT_MODEL;
    }
    memset(&f, 0, sizeof f);
    cpath = path_join(dir, "config.json");
    if (!cpath || config_load(&c, cpath, warn_stderr, &quiet, err, sizeof err)) {
        fprintf(stderr, "xlate: %s\n", cpath ? err : "out of memory");
        free(cpath);
        return XLATE_EXIT_MODEL;
    }
    wpath = path_join(dir, c.weights);
    if (!wpath || st_open(&f, wpath, err, sizeof err)) {
        fprintf(stderr, "xlate: %s\n", wpath ? err : "out of memory");
        goto done;
    }
    for (int i = 0; i < f.n; i++) {
        count[f.tensors[i].dtype] += (size_t)f.tensors[i].numel;
        params += (size_t)f.tensors[i].numel;
    }
    printf("%-18s %s\n", "model", dir);
    printf("%-18s transformer, %d encoder + %d decoder layers, %s-norm, %s\n", "architecture",
           c.encoder_layers, c.decoder_layers, c.pre_norm ? "pre" : "post",
           activation_name(c.activation));
    printf("%-18s d_model %d, %d heads of %d, ffn %d\n", "size", c.d_model, c.heads,
           c.d_model / c.heads, c.ffn_dim);
    printf("%-18s %zu (%.1fM) in %d tensors\n", "parameters", params, params / 1e6, f.n);
    printf("%-18s", "dtypes");
    for (int t = 0; t < 16; t++)
        if (count[t])
            printf(" %s %zu", st_dtype_name((st_dtype)t), count[t]);
    printf("\n");
    printf("%-18s source %d, target %d%s%s\n", "vocabulary", c.src_vocab, c.tgt_vocab,
           c.shared_embeddings ? ", shared embeddings" : "",
           c.tied_output ? ", output tied to the target embedding" : "");
    printf("%-18s %s, max %d, embeddings scaled by %g\n", "positions", positions_name(c.positions),
           c.max_positions, (double)c.embedding_scale);
    printf("%-18s pad %d, unk %d, bos %d, eos %d\n", "special ids", c.pad_id, c.unk_id, c.bos_id,
           c.eos_id);
    file_line(dir, "config.json", "config");
    file_line(dir, c.weights, "weights");
    if (c.tokenizer)
        file_line(dir, c.tokenizer, "tokenizer");
    else
        printf("%-18s none (ids only)\n", "tokenizer");
    if (c.target_tokenizer)
        file_line(dir, c.target_tokenizer, "target tokenizer");
    status = XLATE_EXIT_OK;
    if (fflush(stdout) != 0) {
        perror("xlate: stdout");
        status = XLATE_EXIT_OUTPUT;
    }
done:
    st_close(&f);
    config_free(&c);
    free(cpath);
    free(wpath);
    return status;
}

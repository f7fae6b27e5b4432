/* cli_info.c — `xlate info [--json] [DIR]`: the model's languages and description (what it is
 * for, from its config.json), config, parameter count, dtypes, vocabulary and file sizes, and whether the model loads (weights bound to the config,
 * tokenizer vocabulary = the config's). The exit status says it: 0, or 2 when it does not. */
#include "cli/cli.h"
#include "cli/cli_common.h"
#include "model/config.h"
#include "model/family.h"
#include "model/safetensors.h"
#include "model/weights.h"
#include "base/util.h"
#include "xlate.h"
#include <cJSON.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { N_DTYPES = 16 };

/* What `info` shows, gathered before anything is printed. */
typedef struct {
    char dir[4096];
    char *cpath, *wpath;
    const char *wname;        /* the weights file opened (weights.h: may not be c.weights) */
    char *config_text;        /* config.json as read */
    size_t config_len;
    model_config c;
    int have_config;
    st_file f;
    int have_weights;
    size_t params, per_dtype[N_DTYPES]; /* each storage counted once (tied names share one) */
    int shared;                          /* tensors whose bytes another tensor already holds */
    int load_ok;              /* xlate_model_load succeeded */
    xlate_model_info mi;      /* when load_ok */
    xlate_model *model;       /* NULL unless load_ok; mi points into it */
    char load_err[XLATE_ERRLEN];
} info;

static long long file_size(const char *dir, const char *name)
{
    struct stat sb;
    char *p = path_join(dir, name);
    long long n = p && stat(p, &sb) == 0 ? (long long)sb.st_size : -1;
    free(p);
    return n;
}

static void file_line(const char *dir, const char *name, const char *what, const char *extra)
{
    long long n = file_size(dir, name);
    if (n >= 1000000)
        printf("%-18s %s, %lld bytes (%.1f MB)%s\n", what, name, n, n / 1e6, extra);
    else if (n >= 1000)
        printf("%-18s %s, %lld bytes (%.1f kB)%s\n", what, name, n, n / 1e3, extra);
    else if (n >= 0)
        printf("%-18s %s, %lld bytes%s\n", what, name, n, extra);
    else
        printf("%-18s %s (missing)\n", what, name);
}

/* "label  text" with text wrapped at 80 columns, the lines after the first indented under it. */
static void print_wrapped(const char *label, const char *text)
{
    enum { COL = 19, WIDTH = 80 };
    int at = printf("%-18s", label);
    while (*text) {
        size_t w = strcspn(text, " ");
        if (at > COL && at + 1 + (int)w > WIDTH)
            at = printf("\n%*s", COL - 1, "") - 1;
        at += printf(" %.*s", (int)w, text);
        text += w;
        text += strspn(text, " ");
    }
    printf("\n");
}

/* The languages the model's files name, from the loaded model, else from config.json. */
static void model_langs(const info *in, const char **src, const char **tgt)
{
    *src = in->load_ok ? in->mi.source_lang : in->c.source_lang;
    *tgt = in->load_ok ? in->mi.target_lang : in->c.target_lang;
}

static void print_text(const info *in)
{
    const char *src, *tgt;
    const model_config *c = &in->c;
    char extra[64] = "";
    printf("%-18s %s\n", "model", in->dir);
    printf("%-18s %s\n", "family", strcmp(c->family->name, "marian") == 0
           ? "marian (Hugging Face MarianMT / OPUS-MT)"
           : strcmp(c->family->name, "m2m100") == 0 ? "m2m100 (Hugging Face M2M100 / NLLB-200)"
           : "xlate (tools/convert.py layout)");
    model_langs(in, &src, &tgt);
    if ((src || tgt) && !(in->load_ok && in->mi.n_langs)) /* a multilingual model lists its codes */
        printf("%-18s %s -> %s\n", "languages", src ? src : "?", tgt ? tgt : "?");
    if (c->description)
        print_wrapped("description", c->description);
    printf("%-18s transformer, %d encoder + %d decoder layers, %s-norm, %s\n", "architecture",
           c->encoder_layers, c->decoder_layers, c->pre_norm ? "pre" : "post",
           activation_name(c->activation));
    if (c->heads == c->decoder_heads && c->ffn_dim == c->decoder_ffn_dim)
        printf("%-18s d_model %d, %d heads of %d, ffn %d\n", "size", c->d_model, c->heads,
               c->d_model / c->heads, c->ffn_dim);
    else
        printf("%-18s d_model %d; encoder %d heads of %d, ffn %d; decoder %d heads of %d, "
               "ffn %d\n", "size", c->d_model, c->heads, c->d_model / c->heads, c->ffn_dim,
               c->decoder_heads, c->d_model / c->decoder_heads, c->decoder_ffn_dim);
    if (in->shared)
        printf("%-18s %zu (%.1fM) in %d tensors (%d of them another's storage, counted once)\n",
               "parameters", in->params, in->params / 1e6, in->f.n, in->shared);
    else
        printf("%-18s %zu (%.1fM) in %d tensors\n", "parameters", in->params, in->params / 1e6,
               in->f.n);
    printf("%-18s", "dtypes");
    for (int t = 0; t < N_DTYPES; t++)
        if (in->per_dtype[t])
            printf(" %s %zu", st_dtype_name((st_dtype)t), in->per_dtype[t]);
    printf("\n");
    printf("%-18s source %d, target %d%s%s\n", "vocabulary", c->src_vocab, c->tgt_vocab,
           c->shared_embeddings ? ", shared embeddings" : "",
           c->tied_output ? ", output tied to the target embedding" : "");
    printf("%-18s %s, max %d, embeddings scaled by %g\n", "positions",
           positions_name(c->positions), c->max_positions, (double)c->embedding_scale);
    printf("%-18s pad %d, unk %d, bos %d, eos %d\n", "special ids", c->pad_id,
           in->load_ok ? in->mi.unk_id : c->unk_id, c->bos_id, c->eos_id);
    if (c->gen.hf_beam) {
        printf("%-18s num_beams %d, max_length %d (%d tokens), length_penalty %g, "
               "early_stopping %s, bad_words_ids %d, forced eos %s\n", "generation",
               c->gen.num_beams, c->gen.max_length, c->gen.max_length - 1,
               (double)c->gen.length_penalty,
               c->gen.early_stopping == EARLY_STOP_TRUE    ? "true"
               : c->gen.early_stopping == EARLY_STOP_FALSE ? "false" : "never",
               c->gen.n_bad, c->gen.forced_eos ? "yes" : "no");
        printf("%-18s repetition_penalty %g, no_repeat_ngram_size %d, suppress_tokens %d, "
               "begin_suppress_tokens %d, forced_bos_token_id ", "", (double)c->gen.repetition_penalty,
               c->gen.no_repeat_ngram, c->gen.n_suppress, c->gen.n_begin_suppress);
        if (c->gen.forced_bos >= 0)
            printf("%d\n", c->gen.forced_bos);
        else
            printf("none\n");
        if (c->gen.do_sample)
            printf("%-18s do_sample true: top_k %d, top_p %g, temperature %g (--sampling-topk "
                   "1: greedy)\n", "", c->gen.top_k, (double)c->gen.top_p,
                   (double)c->gen.temperature);
        if (in->load_ok && in->mi.n_langs) {
            printf("%-18s %d:", "languages", in->mi.n_langs);
            for (int i = 0; i < in->mi.n_langs; i++)
                printf(" %s", in->mi.langs[i]);
            printf(" (--target-lang)\n");
        }
    }
    file_line(in->dir, "config.json", "config", "");
    file_line(in->dir, in->wname ? in->wname : c->weights, "weights", "");
    if (c->vocab) {
        file_line(in->dir, c->vocab, "vocabulary", "");
        if (c->target_vocab)
            file_line(in->dir, c->target_vocab, "target vocabulary", "");
    }
    if (c->tokenizer) {
        if (in->load_ok && !c->vocab)
            snprintf(extra, sizeof extra, ", %d pieces", c->src_vocab);
        file_line(in->dir, c->tokenizer, "tokenizer", extra);
    } else {
        printf("%-18s none (ids only)\n", "tokenizer");
    }
    if (c->target_tokenizer) {
        if (in->load_ok && !c->vocab)
            snprintf(extra, sizeof extra, ", %d pieces", c->tgt_vocab);
        file_line(in->dir, c->target_tokenizer, "target tokenizer", extra);
    }
    printf("%-18s %s%s\n", "loads", in->load_ok ? "yes" : "no: ", in->load_ok ? "" : in->load_err);
}

static int add_file(cJSON *files, const char *dir, const char *name)
{
    long long n = file_size(dir, name);
    return cJSON_AddItemToObject(files, name, n >= 0 ? cJSON_CreateNumber((double)n)
                                                     : cJSON_CreateNull());
}

/* {"model", "config" (config.json as it is), "source_lang", "target_lang", "description"
 *  (when known), "parameters", "tensors", "dtypes", "files", "loads", "error"} on one line. */
static int print_json(const info *in)
{
    cJSON *o = cJSON_CreateObject(), *cfg, *d, *files;
    const char *src, *tgt;
    char *s = NULL;
    int ok = o != NULL;
    const model_config *c = &in->c;
    cfg = cJSON_ParseWithLength(in->config_text, in->config_len);
    ok = ok && cJSON_AddStringToObject(o, "model", in->dir);
    ok = ok && cfg && cJSON_AddItemToObject(o, "config", cfg);
    if (!ok)
        cJSON_Delete(cfg);
    model_langs(in, &src, &tgt);
    if (ok && src)
        ok = cJSON_AddStringToObject(o, "source_lang", src) != NULL;
    if (ok && tgt)
        ok = cJSON_AddStringToObject(o, "target_lang", tgt) != NULL;
    if (ok && c->description)
        ok = cJSON_AddStringToObject(o, "description", c->description) != NULL;
    ok = ok && cJSON_AddNumberToObject(o, "parameters", (double)in->params);
    ok = ok && cJSON_AddNumberToObject(o, "tensors", in->f.n);
    ok = ok && (d = cJSON_AddObjectToObject(o, "dtypes"));
    for (int t = 0; ok && t < N_DTYPES; t++)
        if (in->per_dtype[t])
            ok = cJSON_AddNumberToObject(d, st_dtype_name((st_dtype)t),
                                         (double)in->per_dtype[t]) != NULL;
    ok = ok && (files = cJSON_AddObjectToObject(o, "files"));
    ok = ok && add_file(files, in->dir, "config.json") && add_file(files, in->dir, in->wname ? in->wname : c->weights);
    if (ok && c->tokenizer)
        ok = add_file(files, in->dir, c->tokenizer);
    if (ok && c->target_tokenizer)
        ok = add_file(files, in->dir, c->target_tokenizer);
    ok = ok && cJSON_AddBoolToObject(o, "loads", in->load_ok);
    if (ok && !in->load_ok)
        ok = cJSON_AddStringToObject(o, "error", in->load_err) != NULL;
    if (ok && (s = cJSON_PrintUnformatted(o)))
        printf("%s\n", s);
    free(s);
    cJSON_Delete(o);
    return ok && s ? 0 : -1;
}

static int by_data(const void *a, const void *b)
{
    const st_tensor *x = *(const st_tensor *const *)a, *y = *(const st_tensor *const *)b;
    uintptr_t p = (uintptr_t)x->data, q = (uintptr_t)y->data;
    return p < q ? -1 : p > q ? 1 : x->nbytes < y->nbytes ? -1 : x->nbytes > y->nbytes;
}

/* The parameters as PyTorch counts a module's (model.parameters(): a tied weight once): a
 * pytorch_model.bin stores tied names (NLLB's shared, encoder and decoder embed_tokens and
 * lm_head) as views of one storage, which the reader maps to the same bytes; a tensor at the
 * same address and size as another is counted once. Safetensors files hold no such aliases. */
static void count_params(info *in)
{
    const st_tensor **t = malloc((size_t)(in->f.n ? in->f.n : 1) * sizeof *t);
    int n = in->f.n;

    if (!t) { /* counting every name is the fallback: a count, not a failure */
        for (int i = 0; i < n; i++) {
            in->per_dtype[in->f.tensors[i].dtype] += (size_t)in->f.tensors[i].numel;
            in->params += (size_t)in->f.tensors[i].numel;
        }
        return;
    }
    for (int i = 0; i < n; i++)
        t[i] = &in->f.tensors[i];
    qsort(t, (size_t)n, sizeof *t, by_data);
    for (int i = 0; i < n; i++) {
        if (i > 0 && t[i]->nbytes && t[i]->data == t[i - 1]->data &&
            t[i]->nbytes == t[i - 1]->nbytes && t[i]->dtype == t[i - 1]->dtype) {
            in->shared++;
            continue;
        }
        in->per_dtype[t[i]->dtype] += (size_t)t[i]->numel;
        in->params += (size_t)t[i]->numel;
    }
    free(t);
}

/* Reads the config and indexes the weights; returns 0 or an exit status with a message. */
static int gather(info *in)
{
    char err[XLATE_ERRLEN];
    int quiet = 0;
    xlate_model *m = NULL;
    xlate_model_params mp = xlate_model_default_params();

    in->cpath = path_join(in->dir, "config.json");
    if (!in->cpath || read_file_max(in->cpath, READ_MAX_JSON, &in->config_text,
                                     &in->config_len, err, sizeof err) ||
        config_load(&in->c, in->cpath, warn_stderr, &quiet, err, sizeof err))
        return cli_load_failed("xlate", in->cpath ? err : "out of memory");
    in->have_config = 1;
    in->wpath = path_join(in->dir, in->c.weights);
    if (!in->wpath || weights_open(&in->f, in->dir, in->c.weights, in->c.family != family_xlate(),
                                   &in->wname, err, sizeof err))
        return cli_load_failed("xlate", in->wpath ? err : "out of memory");
    in->have_weights = 1;
    count_params(in);
    mp.warn = NULL;
    in->load_ok = xlate_model_load(&m, in->dir, &mp, in->load_err, sizeof in->load_err) == 0;
    if (in->load_ok)
        in->mi = xlate_model_get_info(m);
    in->model = m;
    return XLATE_EXIT_OK;
}

int cmd_info(int argc, char **argv)
{
    const char *opt = NULL;
    char err[XLATE_ERRLEN];
    int json = 0, status;
    info *in = calloc(1, sizeof *in);

    if (!in) {
        fprintf(stderr, "xlate: out of memory\n");
        return XLATE_EXIT_INTERNAL;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("Usage: xlate info [--json] [DIR | -m DIR]\n"
                   "Prints what a model directory holds (default: the default model): its\n"
                   "languages, what it is for (config.json's \"description\"), the\n"
                   "architecture, parameter count, dtypes, vocabulary, special ids, file sizes,\n"
                   "and whether the model loads. --json: the same as one JSON object, with\n"
                   "config.json as it is. Exit status 2 when the model does not load (5\n"
                   "when memory ran out).\n");
            free(in);
            return fflush(stdout) == 0 ? XLATE_EXIT_OK : XLATE_EXIT_OUTPUT;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if ((strcmp(argv[i], "-m") == 0 || strcmp(argv[i], "--model") == 0) &&
                   i + 1 < argc && !opt) {
            opt = argv[++i];
        } else if (argv[i][0] != '-' && !opt) {
            opt = argv[i];
        } else {
            char q[200];
            fprintf(stderr, "xlate info: unexpected argument \"%s\" (see xlate info --help)\n",
                    cli_quote(q, sizeof q, argv[i], strlen(argv[i])));
            free(in);
            return XLATE_EXIT_USAGE;
        }
    }
    status = find_model_dir_quiet(opt, 0, in->dir, sizeof in->dir, err, sizeof err);
    if (status) {
        fprintf(stderr, "xlate: %s\n", err);
        status = status > 0 ? status : XLATE_EXIT_MODEL; /* a pull's 4 or 130 as it is */
        goto done;
    }
    status = gather(in);
    if (status != XLATE_EXIT_OK)
        goto done;
    if (json ? print_json(in) : (print_text(in), 0)) {
        fprintf(stderr, "xlate: out of memory\n");
        status = XLATE_EXIT_INTERNAL;
        goto done;
    }
    if (!in->load_ok)
        status = cli_load_failed("xlate", in->load_err);
    if (cli_flush_stdout())
        status = XLATE_EXIT_OUTPUT;
done:
    if (in->have_weights)
        st_close(&in->f);
    if (in->have_config)
        config_free(&in->c);
    xlate_model_free(in->model);
    free(in->config_text);
    free(in->cpath);
    free(in->wpath);
    free(in);
    return status;
}

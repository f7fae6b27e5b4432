/* hub_files.c — which of a repository's files xlate downloads: the configs, the family's
 * tokenizer files and one weights format (docs: hub spec "Wire protocol" 2), and the shards a
 * weights index names. Never the TensorFlow, Flax, ONNX or Rust copies. No network. */
#include "hub/hub.h"
#include "base/json.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>

static int listed(char *const *files, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(files[i], name) == 0)
            return 1;
    return 0;
}

int hub_choose_files(char *const *files, int n, const char **out, int max, char *err,
                     size_t errlen)
{
    /* the weights xlate reads, in the order transformers tries them (src/model/weights.c) */
    static const char *weights[] = {"model.safetensors", "model.safetensors.index.json",
                                    "pytorch_model.bin", "pytorch_model.bin.index.json"};
    /* MarianTokenizer's files (src/text/hf_tok.c) */
    static const char *marian[] = {"source.spm", "target.spm", "vocab.json", "target_vocab.json",
                                   "tokenizer_config.json", "special_tokens_map.json"};
    /* NllbTokenizer / M2M100Tokenizer's (src/text/m2m_tok.c): tokenizer.json is read for its
     * added_tokens member only */
    static const char *m2m[] = {"sentencepiece.bpe.model", "vocab.json", "tokenizer_config.json",
                                "special_tokens_map.json", "added_tokens.json", "tokenizer.json"};
    const char *const *tok = marian;
    size_t ntok = sizeof marian / sizeof *marian;
    int k = 0;
    size_t i;

    if (!listed(files, n, "config.json"))
        return xerr(err, errlen, "the repository has no config.json: not a model xlate runs");
    for (i = 0; i < sizeof weights / sizeof *weights; i++)
        if (listed(files, n, weights[i]))
            break;
    if (i == sizeof weights / sizeof *weights)
        return xerr(err, errlen, "the repository has none of model.safetensors, "
                    "model.safetensors.index.json, pytorch_model.bin, "
                    "pytorch_model.bin.index.json: no weights xlate reads");
    if (max < 16)
        return xerr(err, errlen, "hub_choose_files: room for 16 names needed");
    out[k++] = weights[i];
    if (!listed(files, n, "source.spm") && listed(files, n, "sentencepiece.bpe.model")) {
        tok = m2m;
        ntok = sizeof m2m / sizeof *m2m;
    }
    for (i = 0; i < ntok; i++)
        if (listed(files, n, tok[i]))
            out[k++] = tok[i];
    if (listed(files, n, "generation_config.json"))
        out[k++] = "generation_config.json";
    out[k++] = "config.json"; /* last: a snapshot with config.json is a whole one */
    return k;
}

/* a shard's name as a safe relative path: no '/' at the ends, no empty, "." or ".." part, no
 * '\\' (huggingface_hub _validate_relative_filename's intent), no control byte (a name that
 * would drive the terminal where it is shown) */
static int safe_relpath(const char *s)
{
    if (!*s || strchr(s, '\\'))
        return 0;
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        if (*c < 0x20 || *c == 0x7f || (*c == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f))
            return 0; /* C0, DEL, C1 (U+0080-U+009F, 0xC2 0x9B a CSI) */
    for (const char *c = s;;) {
        const char *e = strchr(c, '/');
        size_t len = e ? (size_t)(e - c) : strlen(c);
        if (len == 0 || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
            return 0;
        if (!e)
            return 1;
        c = e + 1;
    }
}

int hub_index_shards(const char *index_path, char ***shards, int *n, char *err, size_t errlen)
{
    char *text = NULL;
    size_t len;
    cJSON *root = NULL, *map, *e;
    int k = 0, rc = -1;
    *shards = NULL;
    *n = 0;
    if (read_file_max(index_path, READ_MAX_JSON, &text, &len, err, errlen))
        return -1;
    if (!(root = json_parse_object(text, len, index_path, err, errlen)))
        goto out;
    map = cJSON_GetObjectItemCaseSensitive(root, "weight_map");
    if (!cJSON_IsObject(map)) {
        xerr(err, errlen, "%s: \"weight_map\": expected an object, got %s", index_path,
             map ? JSON_GOT(map) : "nothing");
        goto out;
    }
    if (!(*shards = calloc((size_t)cJSON_GetArraySize(map) + 1, sizeof **shards)))
        goto oom;
    cJSON_ArrayForEach(e, map) {
        int seen = 0;
        if (!cJSON_IsString(e) || !safe_relpath(e->valuestring)) {
            char q[200]; /* the key and the value are the index's bytes: quoted */
            xerr(err, errlen, "%s: \"weight_map\": \"%s\": expected a file name in the "
                 "repository (no control byte, no \"..\"), got %s", index_path,
                 str_quote(q, sizeof q, e->string, strlen(e->string)), JSON_GOT(e));
            goto out;
        }
        for (int j = 0; j < k && !seen; j++)
            seen = strcmp((*shards)[j], e->valuestring) == 0;
        if (!seen && !((*shards)[k++] = strdup(e->valuestring)))
            goto oom;
    }
    *n = k;
    rc = 0;
    goto out;
oom:
    xerr(err, errlen, "%s: out of memory", index_path);
out:
    if (rc) {
        for (int j = 0; *shards && j < k; j++)
            free((*shards)[j]);
        free(*shards);
        *shards = NULL;
    }
    cJSON_Delete(root);
    free(text);
    return rc;
}

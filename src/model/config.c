/* config.c — parse and validate config.json with cJSON. Every message names the field. */
#include "model/config.h"
#include "base/json.h"
#include "base/util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum field_type { F_INT, F_NUM, F_BOOL, F_STR, F_ENUM };

/* One known field: where it goes, whether it must be there, its range. */
typedef struct {
    const char *name;
    enum field_type type;
    int required;
    size_t offset;
    double min;               /* for F_INT / F_NUM */
    const char *const *names; /* for F_ENUM: NULL-terminated, value = index */
} field_spec;

static const char *const activation_names[] = {"relu", "gelu", "gelu_tanh", NULL};
static const char *const placement_names[] = {"post", "pre", NULL};
static const char *const position_names[] = {"sinusoidal-interleaved", "sinusoidal-concat",
                                             "learned", NULL};

#define OFF(f) offsetof(model_config, f)
static const field_spec fields[] = {
    {"d_model", F_INT, 1, OFF(d_model), 1, NULL},
    {"heads", F_INT, 1, OFF(heads), 1, NULL},
    {"ffn_dim", F_INT, 1, OFF(ffn_dim), 1, NULL},
    {"encoder_layers", F_INT, 1, OFF(encoder_layers), 0, NULL},
    {"decoder_layers", F_INT, 1, OFF(decoder_layers), 1, NULL},
    {"src_vocab_size", F_INT, 1, OFF(src_vocab), 1, NULL},
    {"tgt_vocab_size", F_INT, 1, OFF(tgt_vocab), 1, NULL},
    {"activation", F_ENUM, 0, OFF(activation), 0, activation_names},
    {"norm_placement", F_ENUM, 0, OFF(pre_norm), 0, placement_names},
    {"encoder_final_norm", F_BOOL, 0, OFF(encoder_final_norm), 0, NULL},
    {"decoder_final_norm", F_BOOL, 0, OFF(decoder_final_norm), 0, NULL},
    {"layer_norm_eps", F_NUM, 0, OFF(layer_norm_eps), 0, NULL},
    {"positions", F_ENUM, 0, OFF(positions), 0, position_names},
    {"max_positions", F_INT, 0, OFF(max_positions), 1, NULL},
    {"embedding_scale", F_NUM, 0, OFF(embedding_scale), 0, NULL},
    {"shared_embeddings", F_BOOL, 0, OFF(shared_embeddings), 0, NULL},
    {"tied_output", F_BOOL, 0, OFF(tied_output), 0, NULL},
    {"output_bias", F_BOOL, 0, OFF(output_bias), 0, NULL},
    {"pad_id", F_INT, 1, OFF(pad_id), 0, NULL},
    {"unk_id", F_INT, 1, OFF(unk_id), 0, NULL},
    {"bos_id", F_INT, 1, OFF(bos_id), 0, NULL},
    {"eos_id", F_INT, 1, OFF(eos_id), 0, NULL},
    {"weights", F_STR, 0, OFF(weights), 0, NULL},
    {"tokenizer", F_STR, 0, OFF(tokenizer), 0, NULL},
    {"target_tokenizer", F_STR, 0, OFF(target_tokenizer), 0, NULL},
};
#undef OFF
#define NFIELDS (sizeof fields / sizeof fields[0])

/* Largest integer a field may hold: keeps every size product well inside size_t. */
#define INT_FIELD_MAX (1 << 24)

const char *activation_name(activation_kind a) { return activation_names[a]; }
const char *positions_name(position_kind p) { return position_names[p]; }

static int set_field(model_config *c, const field_spec *f, const cJSON *v, const char *name,
                     char *err, size_t errlen)
{
    char *base = (char *)c;
    switch (f->type) {
    case F_INT: {
        char where[96];
        int64_t x;
        snprintf(where, sizeof where, "field \"%s\"", f->name);
        if (json_int(v, (int64_t)f->min, INT_FIELD_MAX, &x, name, where, err, errlen))
            return -1;
        *(int *)(base + f->offset) = (int)x;
        return 0;
    }
    case F_NUM:
        if (!cJSON_IsNumber(v))
            return xerr(err, errlen, "%s: field \"%s\": expected a number, got %s", name, f->name,
                        json_type_name(v));
        /* checked as the float it becomes: 1e-46 is > 0 as a double but 0 as a float */
        if (!((float)v->valuedouble > f->min) || !isfinite(v->valuedouble) ||
            v->valuedouble > 1e30)
            return xerr(err, errlen, "%s: field \"%s\": expected a finite number > %g (as a "
                        "32-bit float), got %g", name, f->name, f->min, v->valuedouble);
        *(float *)(base + f->offset) = (float)v->valuedouble;
        return 0;
    case F_BOOL:
        if (!cJSON_IsBool(v))
            return xerr(err, errlen, "%s: field \"%s\": expected true or false, got %s", name,
                        f->name, json_type_name(v));
        *(int *)(base + f->offset) = cJSON_IsTrue(v);
        return 0;
    case F_STR: {
        char **dst = (char **)(base + f->offset);
        if (!cJSON_IsString(v) || !v->valuestring[0])
            return xerr(err, errlen, "%s: field \"%s\": expected a non-empty string, got %s",
                        name, f->name, cJSON_IsString(v) ? "an empty string" : json_type_name(v));
        free(*dst);
        *dst = strdup(v->valuestring);
        if (!*dst)
            return xerr(err, errlen, "%s: out of memory", name);
        return 0;
    }
    case F_ENUM: {
        char allowed[256] = "";
        if (cJSON_IsString(v)) {
            for (int i = 0; f->names[i]; i++)
                if (strcmp(v->valuestring, f->names[i]) == 0) {
                    *(int *)(base + f->offset) = i;
                    return 0;
                }
        }
        for (int i = 0; f->names[i]; i++) {
            size_t n = strlen(allowed);
            snprintf(allowed + n, sizeof allowed - n, "%s\"%s\"", i ? ", " : "", f->names[i]);
        }
        if (cJSON_IsString(v))
            return xerr(err, errlen, "%s: field \"%s\": expected one of %s, got \"%.64s\"", name,
                        f->name, allowed, v->valuestring);
        return xerr(err, errlen, "%s: field \"%s\": expected one of %s, got %s", name, f->name,
                    allowed, json_type_name(v));
    }
    }
    return xerr(err, errlen, "%s: internal error on field \"%s\"", name, f->name);
}

static int check_special(const model_config *c, const char *field, int id, const char *name,
                         char *err, size_t errlen)
{
    if (id >= c->src_vocab || id >= c->tgt_vocab)
        return xerr(err, errlen,
                    "%s: field \"%s\": id %d lies outside the vocabulary (src_vocab_size %d, "
                    "tgt_vocab_size %d)", name, field, id, c->src_vocab, c->tgt_vocab);
    return 0;
}

static int validate(const model_config *c, const char *name, char *err, size_t errlen)
{
    if (c->d_model % c->heads != 0)
        return xerr(err, errlen,
                    "%s: field \"heads\": d_model %d is not divisible by heads %d", name,
                    c->d_model, c->heads);
    if (c->positions != POS_LEARNED && c->d_model % 2 != 0)
        return xerr(err, errlen,
                    "%s: field \"positions\": sinusoidal positions need an even d_model, got %d",
                    name, c->d_model);
    if (c->shared_embeddings && c->src_vocab != c->tgt_vocab)
        return xerr(err, errlen,
                    "%s: field \"shared_embeddings\": true needs src_vocab_size (%d) == "
                    "tgt_vocab_size (%d)", name, c->src_vocab, c->tgt_vocab);
    if (check_special(c, "pad_id", c->pad_id, name, err, errlen) ||
        check_special(c, "unk_id", c->unk_id, name, err, errlen) ||
        check_special(c, "bos_id", c->bos_id, name, err, errlen) ||
        check_special(c, "eos_id", c->eos_id, name, err, errlen))
        return -1;
    if (c->max_positions < 2)
        return xerr(err, errlen, "%s: field \"max_positions\": expected at least 2, got %d", name,
                    c->max_positions);
    return 0;
}

int config_parse(model_config *c, const char *json, size_t len, const char *name,
                 warn_fn warn, void *warn_user, char *err, size_t errlen)
{
    cJSON *root = NULL, *item;
    int rc = -1;
    memset(c, 0, sizeof *c);
    c->activation = ACT_RELU;
    c->pre_norm = 0;
    c->encoder_final_norm = 1;
    c->decoder_final_norm = 1;
    c->layer_norm_eps = 1e-5f;
    c->positions = POS_SIN_INTERLEAVED;
    c->max_positions = 512;
    c->embedding_scale = -1; /* sqrt(d_model) unless given */

    root = json_parse_strict(json, len, name, err, errlen);
    if (!root)
        goto done;
    if (!cJSON_IsObject(root)) {
        xerr(err, errlen, "%s: expected a JSON object at the top, got %s", name,
             json_type_name(root));
        goto done;
    }
    /* (a field twice is refused by json_parse_strict, as any key twice) */
    item = cJSON_GetObjectItemCaseSensitive(root, "model_type");
    if (!item) {
        xerr(err, errlen, "%s: missing field \"model_type\" (expected \"transformer\")", name);
        goto done;
    }
    if (!cJSON_IsString(item) || strcmp(item->valuestring, "transformer") != 0) {
        xerr(err, errlen, "%s: field \"model_type\": expected \"transformer\", got %s%.64s%s",
             name, cJSON_IsString(item) ? "\"" : json_type_name(item),
             cJSON_IsString(item) ? item->valuestring : "", cJSON_IsString(item) ? "\"" : "");
        goto done;
    }
    for (size_t i = 0; i < NFIELDS; i++) {
        item = cJSON_GetObjectItemCaseSensitive(root, fields[i].name);
        if (!item) {
            if (fields[i].required) {
                xerr(err, errlen, "%s: missing field \"%s\"", name, fields[i].name);
                goto done;
            }
            continue;
        }
        if (set_field(c, &fields[i], item, name, err, errlen))
            goto done;
    }
    cJSON_ArrayForEach(item, root) {
        int known = item->string[0] == '_' || strcmp(item->string, "model_type") == 0;
        for (size_t i = 0; i < NFIELDS && !known; i++)
            known = strcmp(item->string, fields[i].name) == 0;
        if (!known && warn) {
            char msg[256];
            snprintf(msg, sizeof msg, "%s: unknown field \"%.64s\" ignored", name, item->string);
            warn(warn_user, msg);
        }
    }
    if (c->embedding_scale < 0)
        c->embedding_scale = sqrtf((float)c->d_model);
    if (!c->weights && !(c->weights = strdup("model.safetensors"))) {
        xerr(err, errlen, "%s: out of memory", name);
        goto done;
    }
    if (validate(c, name, err, errlen))
        goto done;
    rc = 0;
done:
    cJSON_Delete(root);
    if (rc)
        config_free(c);
    return rc;
}

int config_load(model_config *c, const char *path, warn_fn warn, void *warn_user, char *err,
                size_t errlen)
{
    char *text;
    size_t len;
    int rc;
    memset(c, 0, sizeof *c);
    if (read_file(path, &text, &len, err, errlen))
        return -1;
    rc = config_parse(c, text, len, path, warn, warn_user, err, errlen);
    free(text);
    return rc;
}

void config_free(model_config *c)
{
    if (!c)
        return;
    free(c->weights);
    free(c->tokenizer);
    free(c->target_tokenizer);
    c->weights = c->tokenizer = c->target_tokenizer = NULL;
}

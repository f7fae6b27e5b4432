/* config.c — parse and validate config.json with cJSON. Every message names the field. */
#include "model/config.h"
#include "model/config_hf.h"
#include "model/family.h"
#include "base/json.h"
#include "base/util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    {"decoder_heads", F_INT, 0, OFF(decoder_heads), 1, NULL},
    {"decoder_ffn_dim", F_INT, 0, OFF(decoder_ffn_dim), 1, NULL},
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
    {"source_lang", F_STR, 0, OFF(source_lang), 0, NULL},
    {"target_lang", F_STR, 0, OFF(target_lang), 0, NULL},
    {"description", F_STR, 0, OFF(description), 0, NULL},
};
#undef OFF
#define NFIELDS (sizeof fields / sizeof fields[0])

/* Largest integer a field may hold: keeps every size product well inside size_t. */
#define INT_FIELD_MAX (1 << 24)

const char *activation_name(activation_kind a)
{
    return a == ACT_SILU ? "swish" : activation_names[a];
}
const char *positions_name(position_kind p)
{
    return p == POS_SIN_M2M ? "sinusoidal-m2m100" : position_names[p];
}

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
                        JSON_GOT(v));
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
                        f->name, JSON_GOT(v));
        *(int *)(base + f->offset) = cJSON_IsTrue(v);
        return 0;
    case F_STR: {
        char **dst = (char **)(base + f->offset);
        if (!cJSON_IsString(v) || !v->valuestring[0])
            return xerr(err, errlen, "%s: field \"%s\": expected a non-empty string, got %s",
                        name, f->name, cJSON_IsString(v) ? "an empty string" : JSON_GOT(v));
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
                    allowed, JSON_GOT(v));
    }
    }
    return xerr(err, errlen, "%s: internal error on field \"%s\"", name, f->name);
}

int check_special(const model_config *c, const char *field, int id, const char *name,
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
    if (c->d_model % c->decoder_heads != 0)
        return xerr(err, errlen,
                    "%s: field \"decoder_heads\": d_model %d is not divisible by "
                    "decoder_heads %d", name, c->d_model, c->decoder_heads);
    if (c->positions != POS_LEARNED && c->d_model % 2 != 0)
        return xerr(err, errlen,
                    "%s: field \"positions\": sinusoidal positions need an even d_model, got %d",
                    name, c->d_model);
    for (int k = 0; k < 2; k++) {
        const char *l = k ? c->target_lang : c->source_lang;
        if (l && !is_lang_code(l))
            return xerr(err, errlen, "%s: field \"%s\": expected a language code such as "
                        "\"en\" (1 to 15 letters, digits, '-', '_'), got a string of %zu bytes", name,
                        k ? "target_lang" : "source_lang", strlen(l));
    }
    if (c->description) { /* shown by `xlate info` on a terminal: text, not escape sequences */
        size_t n = strlen(c->description);
        if (n > 2000)
            return xerr(err, errlen, "%s: field \"description\": expected at most 2000 bytes, "
                        "got %zu", name, n);
        for (size_t i = 0; i < n; i++)
            if ((unsigned char)c->description[i] < 0x20 || c->description[i] == 0x7f)
                return xerr(err, errlen, "%s: field \"description\": expected text without "
                            "control characters, got byte 0x%02x at offset %zu", name,
                            (unsigned char)c->description[i], i);
    }
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

    root = json_parse_object(json, len, name, err, errlen);
    if (!root)
        goto done;
    /* (a field twice is refused by json_parse_strict, as any key twice) */
    c->family = family_xlate();
    item = cJSON_GetObjectItemCaseSensitive(root, "model_type");
    if (!item) {
        xerr(err, errlen, "%s: missing field \"model_type\" (expected \"transformer\", "
             "\"marian\" or \"m2m_100\")", name);
        goto done;
    }
    if (!cJSON_IsString(item) || strcmp(item->valuestring, "transformer") != 0) {
        xerr(err, errlen, "%s: field \"model_type\": expected \"transformer\" (xlate's layout), "
             "\"marian\" (Hugging Face MarianMT) or \"m2m_100\" (M2M100, NLLB), got %s%.64s%s",
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
    /* the decoder's sizes are the encoder's unless given */
    if (!c->decoder_heads)
        c->decoder_heads = c->heads;
    if (!c->decoder_ffn_dim)
        c->decoder_ffn_dim = c->ffn_dim;
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

static int file_exists(const char *path) { return access(path, F_OK) == 0; }

/* tokenizer_config.json's "separate_vocabs" (MarianTokenizer's default: false) into *sep.
 * transformers reads target_vocab.json only when it is true, and then needs it. */
static int read_separate_vocabs(const char *dir, size_t dlen, const char *tv_path, int *sep,
                                char *err, size_t errlen)
{
    char *path = malloc(dlen + 32), *text = NULL;
    size_t len;
    cJSON *root = NULL, *v;
    int rc = -1;
    *sep = 0;
    if (!path)
        return xerr(err, errlen, "out of memory");
    snprintf(path, dlen + 32, "%.*stokenizer_config.json", (int)dlen, dir);
    if (!file_exists(path)) {
        rc = 0;
        goto done;
    }
    if (read_file_max(path, READ_MAX_JSON, &text, &len, err, errlen) ||
        !(root = json_parse_object(text, len, path, err, errlen)))
        goto done;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "separate_vocabs")) && !cJSON_IsNull(v)) {
        if (!cJSON_IsBool(v)) {
            xerr(err, errlen, "%s: field \"separate_vocabs\": expected true or false, got %s",
                 path, JSON_GOT(v));
            goto done;
        }
        *sep = cJSON_IsTrue(v);
    }
    if (*sep && !file_exists(tv_path)) {
        xerr(err, errlen, "%s: field \"separate_vocabs\": true, but %s is missing (or a link "
             "to nothing)", path, tv_path);
        goto done;
    }
    rc = 0;
done:
    cJSON_Delete(root);
    free(text);
    free(path);
    return rc;
}

/* The model_type of config JSON text, or NULL (then config_parse reports what is wrong). */
static char *peek_model_type(const char *text, size_t len)
{
    char e[8];
    cJSON *root = json_parse_strict(text, len, "", e, sizeof e), *t;
    char *out = NULL;
    if (root && (t = cJSON_GetObjectItemCaseSensitive(root, "model_type")) && cJSON_IsString(t))
        out = strdup(t->valuestring);
    cJSON_Delete(root);
    return out;
}

int config_load(model_config *c, const char *path, warn_fn warn, void *warn_user, char *err,
                size_t errlen)
{
    char *text, *type, *gen_text = NULL, *gen_path = NULL, *tv_path = NULL;
    size_t len, gen_len = 0, dlen;
    int rc = -1, separate;
    memset(c, 0, sizeof *c);
    if (read_file_max(path, READ_MAX_JSON, &text, &len, err, errlen))
        return -1;
    type = peek_model_type(text, len);
    if (type && strcmp(type, "m2m_100") == 0) {
        rc = config_load_m2m100(c, path, text, len, err, errlen);
        goto done;
    }
    if (!type || strcmp(type, "marian") != 0) {
        rc = config_parse(c, text, len, path, warn, warn_user, err, errlen);
        goto done;
    }
    /* the directory's other files: generation_config.json, target_vocab.json */
    dlen = strrchr(path, '/') ? (size_t)(strrchr(path, '/') - path + 1) : 0;
    gen_path = malloc(dlen + 32);
    tv_path = malloc(dlen + 32);
    if (!gen_path || !tv_path) {
        xerr(err, errlen, "out of memory");
        goto done;
    }
    snprintf(gen_path, dlen + 32, "%.*sgeneration_config.json", (int)dlen, path);
    snprintf(tv_path, dlen + 32, "%.*starget_vocab.json", (int)dlen, path);
    if (file_exists(gen_path) && read_file_max(gen_path, READ_MAX_JSON, &gen_text, &gen_len, err, errlen))
        goto done;
    if (read_separate_vocabs(path, dlen, tv_path, &separate, err, errlen))
        goto done;
    rc = config_parse_marian(c, text, len, path, gen_text, gen_len, gen_path, separate, err,
                             errlen);
done:
    free(text);
    free(type);
    free(gen_text);
    free(gen_path);
    free(tv_path);
    return rc;
}

/* ---------------------------------------------------------------- Hugging Face MarianMT */

/* Field `key` of obj as an integer in [lo, hi]: *out = dflt when absent (or null and
 * null_ok). 0, or -1 with a message naming the file and field. */
int hf_int(const cJSON *obj, const char *key, int dflt, int null_ok, int lo, int hi, int *out,
           const char *name, char *err, size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    char where[96];
    int64_t x;
    if (!v || (null_ok && cJSON_IsNull(v))) {
        *out = dflt;
        return 0;
    }
    /* json.h's rule, as in xlate's own config.json: 2071.0 is not an integer */
    snprintf(where, sizeof where, "field \"%.64s\"", key);
    if (json_int(v, lo, hi, &x, name, where, err, errlen))
        return -1;
    *out = (int)x;
    return 0;
}

int hf_bool(const cJSON *obj, const char *key, int dflt, int *out, const char *name, char *err,
            size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        *out = dflt;
        return 0;
    }
    if (!cJSON_IsBool(v))
        return xerr(err, errlen, "%s: field \"%s\": expected true or false, got %s", name, key,
                    JSON_GOT(v));
    *out = cJSON_IsTrue(v);
    return 0;
}

/* Generation fields xlate does not implement, with the value that turns each off
 * (GenerationConfig's default): any other value is refused, naming the file and the field,
 * rather than ignored. A number is compared as a number; "null": only null, absent or []. The
 * second list counts only when do_sample is true (generate() reads them only then). */
typedef struct {
    const char *key, *off;
} hf_off;
static const hf_off hf_unsupported[] = {
    {"min_length", "0"},             {"min_new_tokens", "null"},
    {"encoder_repetition_penalty", "1"}, {"encoder_no_repeat_ngram_size", "0"},
    {"num_beam_groups", "1"},        {"diversity_penalty", "0"},
    {"penalty_alpha", "null"},       {"force_words_ids", "null"},
    {"sequence_bias", "null"},       {"exponential_decay_length_penalty", "null"},
    {"max_time", "null"},            {"forced_decoder_ids", "null"},
    /* issue 37: these were ignored. guidance_scale: classifier-free guidance, off at None or 1
     * (generation/utils.py: "if generation_config.guidance_scale is not None and
     * generation_config.guidance_scale != 1"); num_return_sequences: more than one answer a
     * source (xlate's --n-best is the option for that) */
    {"guidance_scale", "1"},         {"num_return_sequences", "1"},
    {NULL, NULL},
};
static const hf_off hf_unsupported_sampling[] = {
    {"typical_p", "1"}, {"epsilon_cutoff", "0"}, {"eta_cutoff", "0"}, {"min_p", "null"},
    {NULL, NULL},
};

static int hf_check_unsupported(const cJSON *g, const hf_off *list, const char *name, char *err,
                                size_t errlen)
{
    for (size_t i = 0; list[i].key; i++) {
        const char *off = list[i].off;
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(g, list[i].key);
        int same;
        if (!v || cJSON_IsNull(v) || (cJSON_IsArray(v) && cJSON_GetArraySize(v) == 0))
            continue; /* an empty list of tokens is off too */
        if (strcmp(off, "false") == 0)
            same = cJSON_IsFalse(v);
        else if (strcmp(off, "null") == 0)
            same = 0;
        else
            same = cJSON_IsNumber(v) && v->valuedouble == atof(off);
        if (!same)
            return xerr(err, errlen, "%s: field \"%s\": xlate does not implement it (it takes "
                        "only %s), got %.40s", name, list[i].key, off,
                        cJSON_IsNumber(v) ? v->valuestring : cJSON_IsTrue(v) ? "true"
                        : json_type_name(v));
    }
    return 0;
}

/* Field `key` of g as a number in (lo, hi] (lo_open) or [lo, hi]: *out = dflt when absent or
 * null. The bounds hold for the float the value becomes: a positive value below the smallest
 * float (1e-320) is 0 as a float, which the decoding's checks would refuse later as if an
 * option had given it (issue 37). */
static int hf_num(const cJSON *g, const char *key, float dflt, double lo, int lo_open, double hi,
                  float *out, const char *name, char *err, size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(g, key);
    *out = dflt;
    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble > hi ||
        (lo_open ? v->valuedouble <= lo : v->valuedouble < lo))
        return xerr(err, errlen, "%s: field \"%s\": expected a number in %c%g, %g], got %.40s",
                    name, key, lo_open ? '(' : '[', lo, hi,
                    cJSON_IsNumber(v) ? v->valuestring : json_type_name(v));
    if (lo_open && (float)v->valuedouble <= (float)lo)
        return xerr(err, errlen, "%s: field \"%s\": expected a number in (%g, %g] (at least "
                    "1.4e-45, the smallest 32-bit float, above %g), got %.40s: %g as a float",
                    name, key, lo, hi, lo, v->valuestring, (double)(float)v->valuedouble);
    *out = (float)v->valuedouble;
    return 0;
}

/* Field `key` of g as a list of target ids (null, absent: none): *ids owned, *n of them. */
static int hf_ids(const cJSON *g, const char *key, const model_config *c, int **ids, int *n,
                  const char *name, char *err, size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(g, key), *id;
    char where[96];
    int k = 0;
    *ids = NULL;
    *n = 0;
    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsArray(v))
        return xerr(err, errlen, "%s: field \"%s\": expected a list of ids, got %s", name, key,
                    json_type_name(v));
    if (!(*ids = malloc((cJSON_GetArraySize(v) + 1) * sizeof **ids)))
        return xerr(err, errlen, "out of memory");
    cJSON_ArrayForEach(id, v) {
        int64_t x;
        snprintf(where, sizeof where, "field \"%s\": entry %d", key, k + 1);
        if (json_int(id, 0, c->tgt_vocab - 1, &x, name, where, err, errlen))
            return -1;
        (*ids)[k++] = (int)x;
    }
    *n = k;
    return 0;
}

/* The fields of the processors and of sampling (generation/utils.py _get_logits_processor,
 * _get_logits_warper; GenerationConfig's defaults where absent). */
static int hf_processors(model_config *c, const cJSON *g, const char *name, char *err,
                         size_t errlen)
{
    gen_config *gc = &c->gen;
    int fb;
    if (hf_num(g, "repetition_penalty", 1, 0, 1, 1000, &gc->repetition_penalty, name, err,
               errlen) ||
        hf_int(g, "no_repeat_ngram_size", 0, 1, 0, INT_FIELD_MAX, &gc->no_repeat_ngram, name, err,
               errlen) ||
        hf_int(g, "forced_bos_token_id", -1, 1, 0, c->tgt_vocab - 1, &fb, name, err, errlen) ||
        hf_ids(g, "suppress_tokens", c, &gc->suppress, &gc->n_suppress, name, err, errlen) ||
        hf_ids(g, "begin_suppress_tokens", c, &gc->begin_suppress, &gc->n_begin_suppress, name,
               err, errlen) ||
        hf_bool(g, "do_sample", 0, &gc->do_sample, name, err, errlen) ||
        hf_int(g, "top_k", 50, 1, 0, INT_FIELD_MAX, &gc->top_k, name, err, errlen) ||
        hf_num(g, "top_p", 1, 0, 1, 1, &gc->top_p, name, err, errlen) ||
        hf_num(g, "temperature", 1, 0, 1, 1000, &gc->temperature, name, err, errlen))
        return -1;
    gc->forced_bos = fb;
    if (!gc->do_sample)
        return 0;
    if (gc->num_beams > 1)
        return xerr(err, errlen, "%s: field \"do_sample\": true with num_beams %d (beam "
                    "sampling): xlate does not implement it (it samples with num_beams 1 only)",
                    name, gc->num_beams);
    return hf_check_unsupported(g, hf_unsupported_sampling, name, err, errlen);
}

/* The generation fields of `g` (generation_config.json, or config.json when there is none:
 * is_config) into c->gen, as transformers' GenerationConfig reads them. */
int hf_generation(model_config *c, const cJSON *g, int is_config, const char *name, char *err,
                  size_t errlen)
{
    gen_config *gc = &c->gen;
    const cJSON *v, *seq, *id;
    int fe, n = 0, total = 0, max_new;
    if (hf_check_unsupported(g, hf_unsupported, name, err, errlen) ||
        hf_int(g, "num_beams", 1, 1, 1, 256, &gc->num_beams, name, err, errlen) ||
        hf_int(g, "max_length", 20, 1, 1, INT_FIELD_MAX, &gc->max_length, name, err, errlen) ||
        /* generation/utils.py _prepare_generated_length: max_new_tokens, when set, wins over
         * max_length: max_length = max_new_tokens + the decoder prompt (the start token) */
        hf_int(g, "max_new_tokens", 0, 1, 1, INT_FIELD_MAX - 1, &max_new, name, err, errlen) ||
        hf_bool(g, "renormalize_logits", 0, &gc->renormalize, name, err, errlen) ||
        /* MarianConfig's default forced_eos_token_id is 0; GenerationConfig's is none */
        hf_int(g, "forced_eos_token_id", is_config ? 0 : -1, 1, 0, INT_FIELD_MAX, &fe, name, err,
               errlen))
        return -1;
    gc->forced_eos = fe >= 0;
    /* generate() stops at the generation config's eos_token_id (an id or a list of ids); xlate
     * stops at config.json's alone: any other value is refused rather than ignored (issue 37:
     * -1, an id past the vocabulary and [] were) */
    if (!is_config && (v = cJSON_GetObjectItemCaseSensitive(g, "eos_token_id")) &&
        !cJSON_IsNull(v)) {
        int same = cJSON_IsNumber(v) && v->valuestring && atoll(v->valuestring) == c->eos_id &&
                   !strpbrk(v->valuestring, ".eE");
        if (cJSON_IsArray(v) && cJSON_GetArraySize(v) > 0) {
            same = 1;
            cJSON_ArrayForEach(id, v)
                same &= cJSON_IsNumber(id) && id->valuestring && !strpbrk(id->valuestring,
                        ".eE") && atoll(id->valuestring) == c->eos_id;
        }
        if (!same)
            return xerr(err, errlen, "%s: field \"eos_token_id\": xlate stops at config.json's "
                        "eos_token_id %d only (or a list of it alone), got %s", name, c->eos_id,
                        cJSON_IsArray(v) ? (cJSON_GetArraySize(v) ? "a list with another id"
                                            : "an empty list") : JSON_GOT(v));
    }
    if (max_new > 0)
        gc->max_length = max_new + 1;
    /* generate() starts from the generation config's decoder_start_token_id */
    if (!is_config &&
        hf_int(g, "decoder_start_token_id", c->bos_id, 1, 0, c->tgt_vocab - 1, &c->bos_id, name,
               err, errlen))
        return -1;
    if (fe >= 0 && fe != c->eos_id)
        return xerr(err, errlen, "%s: field \"forced_eos_token_id\": %d differs from "
                    "eos_token_id %d (xlate forces eos only)", name, fe, c->eos_id);
    gc->length_penalty = 1.0f;
    if ((v = cJSON_GetObjectItemCaseSensitive(g, "length_penalty")) && !cJSON_IsNull(v)) {
        /* the range xlate_decode_params_check takes (a larger exponent overflows the float
         * score): a model's value outside it is the model's fault, said at load */
        if (!cJSON_IsNumber(v))
            return xerr(err, errlen, "%s: field \"length_penalty\": expected a number, got %s",
                        name, JSON_GOT(v));
        if (!isfinite(v->valuedouble) || fabs(v->valuedouble) > 10)
            return xerr(err, errlen, "%s: field \"length_penalty\": expected a number in "
                        "[-10, 10] (xlate's range), got %.40s", name, v->valuestring);
        gc->length_penalty = (float)v->valuedouble;
    }
    gc->early_stopping = EARLY_STOP_FALSE;
    if ((v = cJSON_GetObjectItemCaseSensitive(g, "early_stopping")) && !cJSON_IsNull(v)) {
        if (cJSON_IsBool(v))
            gc->early_stopping = cJSON_IsTrue(v) ? EARLY_STOP_TRUE : EARLY_STOP_FALSE;
        else if (cJSON_IsString(v) && strcmp(v->valuestring, "never") == 0)
            gc->early_stopping = EARLY_STOP_NEVER;
        else
            return xerr(err, errlen, "%s: field \"early_stopping\": expected true, false or "
                        "\"never\", got %s", name, JSON_GOT(v));
    }
    gc->hf_beam = 1;
    if (hf_processors(c, g, name, err, errlen))
        return -1;
    v = cJSON_GetObjectItemCaseSensitive(g, "bad_words_ids");
    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsArray(v))
        return xerr(err, errlen, "%s: field \"bad_words_ids\": expected a list of lists of "
                    "ids, got %s", name, JSON_GOT(v));
    cJSON_ArrayForEach(seq, v) {
        if (!cJSON_IsArray(seq) || cJSON_GetArraySize(seq) < 1)
            return xerr(err, errlen, "%s: field \"bad_words_ids\": entry %d: expected a "
                        "non-empty list of ids", name, n + 1);
        total += cJSON_GetArraySize(seq);
        n++;
    }
    gc->bad_off = malloc((n + 1) * sizeof *gc->bad_off);
    gc->bad_ids = malloc((total ? total : 1) * sizeof *gc->bad_ids);
    if (!gc->bad_off || !gc->bad_ids)
        return xerr(err, errlen, "out of memory");
    gc->n_bad = 0;
    gc->bad_off[0] = 0;
    total = 0;
    cJSON_ArrayForEach(seq, v) {
        cJSON_ArrayForEach(id, seq) {
            char where[96];
            int64_t x;
            snprintf(where, sizeof where, "field \"bad_words_ids\": entry %d", gc->n_bad + 1);
            if (json_int(id, 0, c->tgt_vocab - 1, &x, name, where, err, errlen))
                return -1;
            gc->bad_ids[total++] = (int)x;
        }
        gc->bad_off[++gc->n_bad] = total;
    }
    return 0;
}

int config_parse_marian(model_config *c, const char *json, size_t len, const char *name,
                        const char *gen_json, size_t gen_len, const char *gen_name,
                        int has_target_vocab, char *err, size_t errlen)
{
    cJSON *root = NULL, *groot = NULL, *v;
    int enc_heads, dec_heads, enc_ffn, dec_ffn, dec_vocab, scale, rc = -1;
    memset(c, 0, sizeof *c);
    c->family = family_marian();
    root = json_parse_object(json, len, name, err, errlen);
    if (!root)
        goto done;
    /* transformers' MarianConfig defaults where a field is absent */
    if (hf_int(root, "d_model", 1024, 0, 2, INT_FIELD_MAX, &c->d_model, name, err, errlen) ||
        hf_int(root, "encoder_layers", 12, 0, 0, 4096, &c->encoder_layers, name, err, errlen) ||
        hf_int(root, "decoder_layers", 12, 0, 1, 4096, &c->decoder_layers, name, err, errlen) ||
        hf_int(root, "encoder_attention_heads", 16, 0, 1, 4096, &enc_heads, name, err,
               errlen) ||
        hf_int(root, "decoder_attention_heads", 16, 0, 1, 4096, &dec_heads, name, err,
               errlen) ||
        hf_int(root, "encoder_ffn_dim", 4096, 0, 1, INT_FIELD_MAX, &enc_ffn, name, err,
               errlen) ||
        hf_int(root, "decoder_ffn_dim", 4096, 0, 1, INT_FIELD_MAX, &dec_ffn, name, err,
               errlen) ||
        hf_int(root, "vocab_size", 58101, 0, 1, INT_FIELD_MAX, &c->src_vocab, name, err,
               errlen) ||
        hf_int(root, "decoder_vocab_size", c->src_vocab, 1, 1, INT_FIELD_MAX, &dec_vocab, name,
               err, errlen) ||
        hf_int(root, "max_position_embeddings", 1024, 0, 2, INT_FIELD_MAX, &c->max_positions,
               name, err, errlen) ||
        hf_int(root, "pad_token_id", 58100, 0, 0, INT_FIELD_MAX, &c->pad_id, name, err,
               errlen) ||
        hf_int(root, "eos_token_id", 0, 0, 0, INT_FIELD_MAX, &c->eos_id, name, err, errlen) ||
        hf_int(root, "decoder_start_token_id", c->pad_id, 1, 0, INT_FIELD_MAX, &c->bos_id,
               name, err, errlen) ||
        hf_bool(root, "scale_embedding", 0, &scale, name, err, errlen) ||
        hf_bool(root, "share_encoder_decoder_embeddings", 1, &c->shared_embeddings, name, err,
                errlen) ||
        hf_bool(root, "tie_word_embeddings", 1, &c->tied_output, name, err, errlen))
        goto done;
    /* MarianConfig's sizes of the two stacks are independent (configuration_marian.py) */
    c->heads = enc_heads;
    c->ffn_dim = enc_ffn;
    c->decoder_heads = dec_heads;
    c->decoder_ffn_dim = dec_ffn;
    /* the target vocabulary: the shared one, else decoder_vocab_size (MarianMTModel) */
    c->tgt_vocab = c->shared_embeddings ? c->src_vocab : dec_vocab;
    c->activation = ACT_GELU;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "activation_function"))) {
        const char *a = cJSON_IsString(v) ? v->valuestring : "";
        if (strcmp(a, "swish") == 0 || strcmp(a, "silu") == 0)
            c->activation = ACT_SILU;
        else if (strcmp(a, "gelu") == 0)
            c->activation = ACT_GELU;
        else if (strcmp(a, "relu") == 0)
            c->activation = ACT_RELU;
        else if (strcmp(a, "gelu_new") == 0 || strcmp(a, "gelu_pytorch_tanh") == 0)
            c->activation = ACT_GELU_TANH;
        else {
            xerr(err, errlen, "%s: field \"activation_function\": expected \"swish\", "
                 "\"silu\", \"gelu\", \"gelu_new\" or \"relu\", got %s%.64s%s", name,
                 cJSON_IsString(v) ? "\"" : json_type_name(v), a, cJSON_IsString(v) ? "\"" : "");
            goto done;
        }
    }
    /* MarianMTModel's architecture, whatever else config.json says */
    c->pre_norm = 0;
    c->encoder_final_norm = c->decoder_final_norm = 0;
    c->layer_norm_eps = 1e-5f;
    c->positions = POS_SIN_CONCAT;
    c->pos_f64 = 1;
    c->embedding_scale = scale ? (float)sqrt((double)c->d_model) : 1.0f;
    c->output_bias = 1; /* final_logits_bias (zeros when the file lacks it) */
    c->unk_id = -1;     /* vocab.json's "<unk>", set when the vocabulary is read */
    if (!(c->weights = strdup("model.safetensors")) || !(c->tokenizer = strdup("source.spm")) ||
        !(c->target_tokenizer = strdup("target.spm")) || !(c->vocab = strdup("vocab.json")) ||
        (has_target_vocab && !(c->target_vocab = strdup("target_vocab.json")))) {
        xerr(err, errlen, "out of memory");
        goto done;
    }
    if (has_target_vocab == 0 && !c->shared_embeddings && c->src_vocab != c->tgt_vocab) {
        xerr(err, errlen, "%s: field \"decoder_vocab_size\": %d differs from vocab_size %d, "
             "but the vocabularies are not separate (tokenizer_config.json's "
             "\"separate_vocabs\")", name, c->tgt_vocab, c->src_vocab);
        goto done;
    }
    if (c->d_model % c->heads != 0) {
        xerr(err, errlen, "%s: field \"encoder_attention_heads\": d_model %d is not divisible "
             "by %d", name, c->d_model, c->heads);
        goto done;
    }
    if (c->d_model % c->decoder_heads != 0) {
        xerr(err, errlen, "%s: field \"decoder_attention_heads\": d_model %d is not divisible "
             "by %d", name, c->d_model, c->decoder_heads);
        goto done;
    }
    if (c->d_model % 2 != 0) {
        xerr(err, errlen, "%s: field \"d_model\": sinusoidal positions need an even d_model, "
             "got %d", name, c->d_model);
        goto done;
    }
    if (check_special(c, "pad_token_id", c->pad_id, name, err, errlen) ||
        check_special(c, "eos_token_id", c->eos_id, name, err, errlen))
        goto done;
    if (c->bos_id >= c->tgt_vocab) {
        xerr(err, errlen, "%s: field \"decoder_start_token_id\": %d lies outside the target "
             "vocabulary (%d)", name, c->bos_id, c->tgt_vocab);
        goto done;
    }
    if (gen_json) {
        if (!(groot = json_parse_object(gen_json, gen_len, gen_name, err, errlen)))
            goto done;
    }
    if (hf_generation(c, groot ? groot : root, !groot, groot ? gen_name : name, err, errlen))
        goto done;
    rc = 0;
done:
    cJSON_Delete(root);
    cJSON_Delete(groot);
    if (rc)
        config_free(c);
    return rc;
}

void config_free(model_config *c)
{
    if (!c)
        return;
    free(c->weights);
    free(c->tokenizer);
    free(c->target_tokenizer);
    free(c->vocab);
    free(c->target_vocab);
    free(c->source_lang);
    free(c->target_lang);
    c->source_lang = c->target_lang = NULL;
    free(c->description);
    c->description = NULL;
    free(c->gen.bad_off);
    free(c->gen.bad_ids);
    free(c->gen.suppress);
    free(c->gen.begin_suppress);
    c->weights = c->tokenizer = c->target_tokenizer = c->vocab = c->target_vocab = NULL;
    c->gen.bad_off = c->gen.bad_ids = c->gen.suppress = c->gen.begin_suppress = NULL;
    c->gen.n_bad = c->gen.n_suppress = c->gen.n_begin_suppress = 0;
}

/* m2m_tok.c — NllbTokenizer and M2M100Tokenizer (transformers v4.40), rule by rule:
 *
 * NLLB (models/nllb/tokenization_nllb.py):
 *   __init__: `self.fairseq_offset = 1`, `_added_tokens_decoder = {0: bos, 1: pad, 2: eos,
 *     3: unk}`; additional_special_tokens default FAIRSEQ_LANGUAGE_CODES, each an added token
 *     after the vocabulary (vocab_size = len(sp_model) + fairseq_offset), <mask> after them
 *     (hub tokenizer_config.json files carry these ids in added_tokens_decoder: used when
 *     present);
 *   _tokenize: `self.sp_model.encode(text, out_type=str)`;
 *   _convert_token_to_id: `spm_id = self.sp_model.PieceToId(token); return spm_id +
 *     self.fairseq_offset if spm_id else self.unk_token_id`;
 *   set_src_lang_special_tokens: legacy_behaviour: prefix [], suffix [eos, src_lang_code];
 *     else prefix [src_lang_code], suffix [eos] (the caller adds them);
 *   _convert_id_to_token: `self.sp_model.IdToPiece(index - self.fairseq_offset)`;
 *   convert_tokens_to_string: `"".join(tokens).replace(SPIECE_UNDERLINE, " ").strip()`.
 * M2M100 (models/m2m_100/tokenization_m2m_100.py):
 *   __init__: `self.encoder = load_json(vocab_file)`; `self.lang_token_to_id =
 *     {self.get_lang_token(lang_code): self.encoder_size + i ...}` with get_lang_token
 *     `f"__{lang}__"`;
 *   _convert_token_to_id: a language token's id, else `self.encoder.get(token,
 *     self.encoder[self.unk_token])`;
 *   _convert_id_to_token: a language token, else `self.decoder.get(index, self.unk_token)`;
 *   convert_tokens_to_string: runs of pieces through `self.sp_model.decode(...)`, `.strip()`;
 *   set_src_lang_special_tokens: prefix [lang_code_id], suffix [eos].
 * Both decode with skip_special_tokens (tokenization_utils.py convert_ids_to_tokens: every
 * id in all_special_ids is dropped: the specials, the language codes, <mask>), the files'
 * added tokens written apart (_decode's legacy_added_tokens; m2m_tok_decode has the rules) and
 * then clean_up_tokenization when clean_up_tokenization_spaces (default true). */
#include "text/m2m_tok.h"
#include "text/hf_tok.h"
#include "base/json.h"
#include "base/util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define MAX_LANGS 4096
#define MAX_ADDED 65536
#define MAX_ADDED_LEN 1024
#define MAX_SIDE_FILE ((size_t)64 << 20) /* tokenizer.json's added_tokens (NLLB's: 32 kB of a
                                             17 MB file) */

/* dir/name as a JSON object (NULL with *absent 1 when there is no such file); at most max
 * bytes. */
static cJSON *read_json_max(const char *dir, const char *name, size_t max, int *absent,
                            char *err, size_t errlen)
{
    char *path = path_join(dir, name), *text = NULL;
    size_t len;
    cJSON *root = NULL;
    *absent = 0;
    if (!path) {
        xerr(err, errlen, "out of memory");
        return NULL;
    }
    if (access(path, F_OK) != 0)
        *absent = 1;
    else if (!read_file_max(path, max, &text, &len, err, errlen))
        root = json_parse_object(text, len, path, err, errlen);
    free(text);
    free(path);
    return root;
}

static cJSON *read_json(const char *dir, const char *name, int *absent, char *err, size_t errlen)
{
    return read_json_max(dir, name, READ_MAX_JSON, absent, err, errlen);
}

/* An added token's text: a string, or an AddedToken object's "content". */
static const char *token_text(const cJSON *v)
{
    if (cJSON_IsObject(v))
        v = cJSON_GetObjectItemCaseSensitive(v, "content");
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* added_tokens_decoder's id of `text`, or -1. */
static int added_id(const cJSON *dec, const char *text)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, dec) {
        const char *s = token_text(e);
        char *end;
        long id = strtol(e->string, &end, 10);
        if (s && strcmp(s, text) == 0 && *end == 0 && end != e->string && id >= 0)
            return (int)id;
    }
    return -1;
}

/* Whether texts[0, n) holds s. */
static int listed_in(const char *const *texts, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (strcmp(texts[i], s) == 0)
            return 1;
    return 0;
}

/* The additional_special_tokens (the language codes) as transformers v4.40 collects them
 * (tokenization_utils_base.py PreTrainedTokenizerBase._from_pretrained): tokenizer_config.json's
 * list; special_tokens_map.json is read only in the legacy branch, when tokenizer_config.json
 * has no added_tokens_decoder ("# begin legacy: read the added_tokens_file and update kwargs
 * with special_tokens_map if modified"), and there its list is merged into the config's:
 * "additional_special_tokens = init_kwargs.pop(\"additional_special_tokens\", []) or []; for
 * token in value: ... if token not in additional_special_tokens:
 * additional_special_tokens.append(token)". Where neither gives a list, the tokenizer classes
 * default to their FAIRSEQ_LANGUAGE_CODES, which xlate does not carry: then
 * special_tokens_map.json's list is taken whatever the branch (hub directories hold it), else
 * the directory is refused. The codes' texts in that order into *out (malloc'd; the strings
 * are cfg's and map's), *count of them (at most MAX_LANGS). 0, or -1 with err. */
static int lang_texts(const cJSON *cfg, const cJSON *map, const char *dir, const char ***out,
                      int *count, char *err, size_t errlen)
{
    const cJSON *list = cfg ? cJSON_GetObjectItemCaseSensitive(cfg, "additional_special_tokens")
                            : NULL, *e;
    const cJSON *dec = cfg ? cJSON_GetObjectItemCaseSensitive(cfg, "added_tokens_decoder") : NULL;
    const cJSON *more = map ? cJSON_GetObjectItemCaseSensitive(map, "additional_special_tokens")
                            : NULL;
    const char **texts = NULL;
    int n = 0, k = 0;
    *out = NULL;
    if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) == 0)
        list = NULL;
    if (!cJSON_IsArray(more) || (list && dec))
        more = NULL;
    n = (list ? cJSON_GetArraySize(list) : 0) + (more ? cJSON_GetArraySize(more) : 0);
    if (n == 0)
        return xerr(err, errlen, "%s: no language codes: neither tokenizer_config.json nor "
                    "special_tokens_map.json lists additional_special_tokens", dir);
    if (n > 2 * MAX_LANGS)
        return xerr(err, errlen, "%s: %d additional_special_tokens (at most %d)", dir, n,
                    MAX_LANGS);
    if (!(texts = calloc((size_t)n, sizeof *texts)))
        return xerr(err, errlen, "out of memory");
    n = 0;
    for (int pass = 0; pass < 2; pass++) {
        const cJSON *l = pass ? more : list;
        cJSON_ArrayForEach(e, l) {
            const char *s = token_text(e);
            if (!s || !*s) {
                xerr(err, errlen, "%s/%s: additional_special_tokens[%d]: not a language code",
                     dir, pass ? "special_tokens_map.json" : "tokenizer_config.json", k);
                goto bad;
            }
            /* a code twice in one file would count twice, moving <mask> and the codes after
             * it (issue 37: "<mask> outside the vocabulary", no file named); the second
             * file's codes already listed merge, as transformers merges them */
            if (!pass && listed_in(texts, n, s)) {
                xerr(err, errlen, "%s/tokenizer_config.json: additional_special_tokens[%d]: "
                     "\"%.40s\" is listed twice", dir, k, s);
                goto bad;
            }
            if (!pass || !listed_in(texts, n, s))
                texts[n++] = s;
            k++;
        }
        k = 0;
    }
    if (n > MAX_LANGS) {
        xerr(err, errlen, "%s: %d language codes (at most %d)", dir, n, MAX_LANGS);
        goto bad;
    }
    *out = texts;
    *count = n;
    return 0;
bad:
    free(texts);
    return -1;
}

/* A code's text as users give it: NLLB's as it is ("deu_Latn"), M2M100's "__de__" as "de".
 * 0, or -1 with err. */
static int lang_code(const char *dir, int nllb, int k, const char *s, char code[24], char *err,
                     size_t errlen)
{
    size_t l = strlen(s);
    if (l >= 24 + (nllb ? 0 : 4))
        return xerr(err, errlen, "%s: additional_special_tokens[%d]: not a language code", dir,
                    k);
    if (!nllb) { /* "__en__" -> "en" */
        if (l < 5 || strncmp(s, "__", 2) != 0 || strcmp(s + l - 2, "__") != 0)
            return xerr(err, errlen, "%s: additional_special_tokens[%d]: \"%.40s\" is not a "
                        "language token \"__xx__\"", dir, k, s);
        snprintf(code, 24, "%.*s", (int)(l - 4), s + 2);
    } else {
        snprintf(code, 24, "%s", s);
    }
    return 0;
}

static int load_langs(m2m_tok *t, const cJSON *cfg, const cJSON *map, const char *dir,
                      char *err, size_t errlen)
{
    const cJSON *dec = cfg ? cJSON_GetObjectItemCaseSensitive(cfg, "added_tokens_decoder") : NULL;
    const char **texts = NULL;
    int n = 0, k = 0, first = t->nllb ? t->sp_size + 1 : t->v.n, rc = -1;
    if (lang_texts(cfg, map, dir, &texts, &n, err, errlen))
        return -1;
    t->lang = calloc((size_t)n, sizeof *t->lang);
    t->lang_id = calloc((size_t)n, sizeof *t->lang_id);
    t->lang_ptr = calloc((size_t)n, sizeof *t->lang_ptr);
    if (!t->lang || !t->lang_id || !t->lang_ptr) {
        xerr(err, errlen, "out of memory");
        goto done;
    }
    for (k = 0; k < n; k++) {
        const char *s = texts[k];
        int id;
        if (lang_code(dir, t->nllb, k, s, t->lang[k], err, errlen))
            goto done;
        id = dec ? added_id(dec, s) : -1;
        if (id < 0)
            id = first + k;
        if (id >= t->n_ids || (t->nllb && id <= t->sp_size) || (!t->nllb && id < t->v.n)) {
            xerr(err, errlen, "%s: language token \"%.40s\": id %d is not past the pieces and "
                 "inside the model's vocabulary (%d)", dir, s, id, t->n_ids);
            goto done;
        }
        t->lang_id[k] = id;
        t->lang_ptr[k] = t->lang[k];
    }
    t->n_langs = n;
    if (t->nllb) {
        t->mask = dec ? added_id(dec, "<mask>") : -1;
        if (t->mask < 0)
            t->mask = first + n;
    }
    rc = 0;
done:
    free(texts);
    return rc;
}

int m2m_tok_langs(const char *dir, int nllb, char (**codes)[24], int *n, char *err,
                  size_t errlen)
{
    cJSON *cfg, *map = NULL;
    const char **texts = NULL;
    int absent, k = 0, rc = -1;
    *codes = NULL;
    *n = 0;
    cfg = read_json(dir, "tokenizer_config.json", &absent, err, errlen);
    if (!cfg && !absent)
        return -1;
    map = read_json(dir, "special_tokens_map.json", &absent, err, errlen);
    if ((!map && !absent) || lang_texts(cfg, map, dir, &texts, &k, err, errlen))
        goto done;
    if (!(*codes = calloc((size_t)k, sizeof **codes))) {
        xerr(err, errlen, "out of memory");
        goto done;
    }
    for (int i = 0; i < k; i++)
        if (lang_code(dir, nllb, i, texts[i], (*codes)[i], err, errlen))
            goto done;
    *n = k;
    rc = 0;
done:
    if (rc) {
        free(*codes);
        *codes = NULL;
    }
    free(texts);
    cJSON_Delete(cfg);
    cJSON_Delete(map);
    return rc;
}

/* Adds (or, when its text is there already, replaces) an added token. */
static int add_token(m2m_tok *t, const char *text, int id, int lstrip, int rstrip,
                     int single_word, int special, const char *where, char *err, size_t errlen)
{
    size_t len = strlen(text);
    int k;
    if (len == 0 || len > MAX_ADDED_LEN)
        return xerr(err, errlen, "%s: an added token of %zu bytes (1 to %d)", where, len,
                    MAX_ADDED_LEN);
    if (id < 0 || id >= t->n_ids)
        return xerr(err, errlen, "%s: added token \"%.40s\": id %d is outside the model's "
                    "vocabulary [0, %d)", where, text, id, t->n_ids);
    for (k = 0; k < t->n_added && strcmp(t->added[k].text, text) != 0; k++)
        ;
    if (k == t->n_added) {
        m2m_added *a;
        if (t->n_added >= MAX_ADDED)
            return xerr(err, errlen, "%s: more than %d added tokens", where, MAX_ADDED);
        if (!(a = realloc(t->added, (size_t)(t->n_added + 1) * sizeof *a)))
            return xerr(err, errlen, "out of memory");
        t->added = a;
        if (!(a[k].text = strdup(text)))
            return xerr(err, errlen, "out of memory");
        a[k].len = (int)len;
        a[k].listed = 0;
        t->n_added++;
    }
    t->added[k].id = id;
    t->added[k].lstrip = (unsigned char)lstrip;
    t->added[k].rstrip = (unsigned char)rstrip;
    t->added[k].single_word = (unsigned char)single_word;
    t->added[k].special = (unsigned char)special;
    return 0;
}

static int flag(const cJSON *o, const char *name)
{
    return cJSON_IsObject(o) && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, name));
}

/* One entry of added_tokens_decoder ({"<id>": AddedToken}) or of tokenizer.json's
 * added_tokens ([{"id", "content", ...}]): AddedToken(**entry), with AddedToken's defaults
 * (single_word, lstrip, rstrip, special false). */
static int add_entry(m2m_tok *t, const cJSON *e, int id, const char *where, char *err,
                     size_t errlen)
{
    const char *text = token_text(e);
    if (!text)
        return xerr(err, errlen, "%s: expected an added token (a string, or an object with a "
                    "string \"content\")", where);
    return add_token(t, text, id, flag(e, "lstrip"), flag(e, "rstrip"), flag(e, "single_word"),
                     cJSON_IsString(e) ? 0 : flag(e, "special"), where, err, errlen);
}

/* tokenizer.json's "added_tokens" as *out (NULL when there is no file or no such member):
 * the member alone read and parsed (json_member_file), never the rest: the "model" of NLLB's
 * tokenizer.json is 17 MB, whose tree would take ~10x that. */
static int added_tokens_member(const char *dir, cJSON **out, char *err, size_t errlen)
{
    char *path = path_join(dir, "tokenizer.json"), *text = NULL, what[600];
    size_t len, at;
    int rc = -1;
    *out = NULL;
    if (!path)
        return xerr(err, errlen, "out of memory");
    if (access(path, F_OK) != 0) {
        free(path);
        return 0;
    }
    if (json_member_file(path, "added_tokens", MAX_SIDE_FILE, &text, &len, &at, err, errlen))
        goto done;
    snprintf(what, sizeof what, "%s: \"added_tokens\" (from byte %zu)", path, at);
    if (text && !(*out = json_parse_strict(text, len, what, err, errlen)))
        goto done;
    rc = 0;
done:
    free(text);
    free(path);
    return rc;
}

/* The added tokens as transformers v4.40 collects them for a slow tokenizer:
 *  - the tokenizer's own (NllbTokenizer.__init__: `_added_tokens_decoder = {0: bos_token,
 *    1: pad_token, 2: eos_token, 3: unk_token}`, AddedToken(normalized=False, special=True);
 *    the additional_special_tokens, the language codes, added after them as special tokens
 *    (PreTrainedTokenizer.__init__ `self._add_tokens(... all_special_tokens_extended ...,
 *    special_tokens=True)`); `mask_token = AddedToken(mask_token, normalized=True,
 *    lstrip=True, special=True)`; M2M100Tokenizer: its specials at their vocab.json ids, the
 *    "__xx__" tokens at theirs);
 *  - tokenization_utils_base.py PreTrainedTokenizerBase._from_pretrained: `if
 *    "added_tokens_decoder" in init_kwargs` (tokenizer_config.json): each `AddedToken(**token)`
 *    at its id; else (legacy) added_tokens.json's `for str_token, index in
 *    added_tok_encoder.items(): special = str_token in special_tokens;
 *    added_tokens_decoder[index] = AddedToken(str_token, rstrip=False, lstrip=False,
 *    normalized=not special, special=special)`, then tokenizer.json's `added_tokens =
 *    tokenizer_file_handle.pop("added_tokens")`, `for serialized_tokens in added_tokens: idx =
 *    serialized_tokens.pop("id"); added_tokens_decoder[idx] = AddedToken(**serialized_tokens)`.
 * A token the files name again takes their id and flags. */
static int load_added(m2m_tok *t, const cJSON *cfg, const char *dir, char *err, size_t errlen)
{
    static const char *const names[] = {"<s>", "<pad>", "</s>", "<unk>"};
    const int ids[] = {t->bos, t->pad, t->eos, t->unk};
    const cJSON *dec = cfg ? cJSON_GetObjectItemCaseSensitive(cfg, "added_tokens_decoder") : NULL;
    const cJSON *e;
    char where[600];
    int absent, rc = -1;
    cJSON *side = NULL;
    for (int i = 0; i < 4; i++)
        if (ids[i] >= 0 && add_token(t, names[i], ids[i], 0, 0, 0, 1, dir, err, errlen))
            return -1;
    for (int k = 0; k < t->n_langs; k++) {
        char code[32];
        snprintf(code, sizeof code, t->nllb ? "%s" : "__%s__", t->lang[k]);
        if (add_token(t, code, t->lang_id[k], 0, 0, 0, 1, dir, err, errlen))
            return -1;
    }
    if (t->mask >= 0 && add_token(t, "<mask>", t->mask, 1, 0, 0, 1, dir, err, errlen))
        return -1;
    for (int k = 0; k < t->n_added; k++) /* all_special_tokens; the files' tokens are not */
        t->added[k].listed = 1;
    if (cJSON_IsObject(dec)) {
        cJSON_ArrayForEach(e, dec) {
            char *end;
            long id = strtol(e->string, &end, 10);
            snprintf(where, sizeof where, "%s/tokenizer_config.json: added_tokens_decoder: "
                     "\"%.40s\"", dir, e->string);
            if (*end || end == e->string || id < 0 || id > 0x7fffffff)
                return xerr(err, errlen, "%s: expected a token id", where);
            if (add_entry(t, e, (int)id, where, err, errlen))
                return -1;
        }
        return 0;
    }
    /* legacy: added_tokens.json, then tokenizer.json's added_tokens */
    side = read_json(dir, "added_tokens.json", &absent, err, errlen);
    if (!side && !absent)
        return -1;
    cJSON_ArrayForEach(e, side) {
        int64_t id;
        snprintf(where, sizeof where, "%s/added_tokens.json", dir);
        /* FORMAT.md's integer rule (json_int), the vocabulary's range said (issue 37) */
        if (json_int(e, 0, t->n_ids - 1, &id, where, "a token id", err, errlen))
            goto done;
        snprintf(where, sizeof where, "%s/added_tokens.json: \"%.40s\"", dir, e->string);
        { /* special when it is one of the tokenizer's specials or language tokens */
            int special = 0;
            for (int k = 0; k < t->n_added && !special; k++)
                special = t->added[k].special && strcmp(t->added[k].text, e->string) == 0;
            if (add_token(t, e->string, (int)id, 0, 0, 0, special, where, err, errlen))
                goto done;
        }
    }
    cJSON_Delete(side);
    side = NULL;
    if (added_tokens_member(dir, &side, err, errlen))
        return -1;
    if (side) {
        const cJSON *list = side;
        int k = 0;
        if (!cJSON_IsArray(list)) {
            xerr(err, errlen, "%s/tokenizer.json: \"added_tokens\": expected an array, got %s",
                 dir, json_type_name(list));
            goto done;
        }
        cJSON_ArrayForEach(e, list) {
            const cJSON *id = cJSON_GetObjectItemCaseSensitive(e, "id");
            int64_t x;
            snprintf(where, sizeof where, "%s/tokenizer.json: added_tokens[%d]", dir, k++);
            if (!cJSON_IsObject(e) || !id) {
                xerr(err, errlen, "%s: expected an object with an integer \"id\"", where);
                goto done;
            }
            /* FORMAT.md's integer rule: 400.0 and 4e2 are refused as everywhere else, and
             * -1 is said to be outside the vocabulary (issue 37) */
            if (json_int(id, 0, t->n_ids - 1, &x, where, "\"id\"", err, errlen) ||
                add_entry(t, e, (int)x, where, err, errlen))
                goto done;
        }
    }
    rc = 0;
done:
    cJSON_Delete(side);
    return rc;
}

int m2m_tok_is_nllb(const char *dir)
{
    char e[8];
    int absent, nllb;
    cJSON *cfg = read_json(dir, "tokenizer_config.json", &absent, e, sizeof e);
    const cJSON *v = cfg ? cJSON_GetObjectItemCaseSensitive(cfg, "tokenizer_class") : NULL;
    if (cJSON_IsString(v) && strncmp(v->valuestring, "Nllb", 4) == 0)
        nllb = 1;
    else if (cJSON_IsString(v) && strncmp(v->valuestring, "M2M100", 6) == 0)
        nllb = 0;
    else { /* facebook/m2m100_* ship vocab.json; facebook/nllb-200-* do not */
        char *p = path_join(dir, "vocab.json");
        nllb = !p || access(p, F_OK) != 0;
        free(p);
    }
    cJSON_Delete(cfg);
    return nllb;
}

int m2m_tok_load(m2m_tok *t, const char *dir, int nllb, int n_ids, int eos_id, int pad_id,
                 char *err, size_t errlen)
{
    cJSON *cfg = NULL, *map = NULL;
    const cJSON *v;
    char *path = NULL;
    int absent, rc = -1;
    memset(t, 0, sizeof *t);
    t->nllb = nllb;
    t->n_ids = n_ids;
    t->cleanup = 1;
    t->mask = -1;
    if (!(path = path_join(dir, "sentencepiece.bpe.model")))
        return xerr(err, errlen, "out of memory");
    if (spm_load(&t->spm, path, err, errlen))
        goto done;
    if (nllb) {
        t->sp_size = spm_vocab_size(t->spm);
        t->bos = 0, t->pad = 1, t->eos = 2, t->unk = 3;
        if (t->sp_size + 1 > n_ids) {
            xerr(err, errlen, "%s: %d pieces + the offset exceed config.json's vocab_size %d",
                 path, t->sp_size, n_ids);
            goto done;
        }
    } else {
        char *vp = path_join(dir, "vocab.json"), *text = NULL;
        size_t len;
        cJSON *root = NULL;
        int count = 0;
        if (!vp || read_file(vp, &text, &len, err, errlen) ||
            !(root = json_parse_object(text, len, vp, err, errlen))) {
            if (!vp)
                xerr(err, errlen, "out of memory");
            free(vp);
            free(text);
            goto done;
        }
        count = cJSON_GetArraySize(root);
        cJSON_Delete(root);
        absent = vocab_parse(&t->v, text, len, vp, count, "size", err, errlen);
        free(text);
        if (absent) {
            free(vp);
            goto done;
        }
        t->bos = vocab_find(&t->v, "<s>", 3);
        t->pad = vocab_find(&t->v, "<pad>", 5);
        t->eos = vocab_find(&t->v, "</s>", 4);
        t->unk = vocab_find(&t->v, "<unk>", 5);
        if (t->unk < 0 || t->v.n > n_ids) {
            xerr(err, errlen, "%s: %s", vp, t->unk < 0 ? "no \"<unk>\" piece"
                 : "more pieces than config.json's vocab_size");
            free(vp);
            goto done;
        }
        free(vp);
    }
    if (t->eos != eos_id || t->pad != pad_id) {
        xerr(err, errlen, "%s: the tokenizer's %s is id %d, config.json's %s %d", dir,
             t->eos != eos_id ? "</s>" : "<pad>", t->eos != eos_id ? t->eos : t->pad,
             t->eos != eos_id ? "eos_token_id" : "pad_token_id", t->eos != eos_id ? eos_id
                                                                                  : pad_id);
        goto done;
    }
    cfg = read_json(dir, "tokenizer_config.json", &absent, err, errlen);
    if (!cfg && !absent)
        goto done;
    map = read_json(dir, "special_tokens_map.json", &absent, err, errlen);
    if (!map && !absent)
        goto done;
    if (cfg) {
        if ((v = cJSON_GetObjectItemCaseSensitive(cfg, "clean_up_tokenization_spaces")) &&
            cJSON_IsBool(v))
            t->cleanup = cJSON_IsTrue(v);
        if ((v = cJSON_GetObjectItemCaseSensitive(cfg, "legacy_behaviour")) && cJSON_IsBool(v))
            t->legacy = nllb && cJSON_IsTrue(v);
        if ((v = cJSON_GetObjectItemCaseSensitive(cfg, "src_lang")) && cJSON_IsString(v))
            snprintf(t->src_lang, sizeof t->src_lang, "%s", v->valuestring);
    }
    if (load_langs(t, cfg, map, dir, err, errlen) || load_added(t, cfg, dir, err, errlen))
        goto done;
    if (nllb) {
        /* NLLB: the id the files give a code or <mask> (tokenizer.json, added_tokens.json) is
         * the code's everywhere, as NllbTokenizer reads it through convert_tokens_to_ids
         * (_added_tokens_encoder first): the source's prefix (set_src_lang_special_tokens),
         * all_special_ids. (M2M100Tokenizer's prefix takes lang_token_to_id, encoder_size + i,
         * whatever the files say: its ids stay.) */
        for (int k = 0; k < t->n_added; k++) {
            const m2m_added *a = &t->added[k];
            if (strcmp(a->text, "<mask>") == 0)
                t->mask = a->id;
            for (int j = 0; j < t->n_langs; j++)
                if (strcmp(a->text, t->lang[j]) == 0)
                    t->lang_id[j] = a->id;
        }
    }
    if (!t->src_lang[0]) /* NllbTokenizer's default "eng_Latn"; M2M100Tokenizer's "en" */
        snprintf(t->src_lang, sizeof t->src_lang, "%s", nllb ? "eng_Latn" : "en");
    rc = 0;
done:
    cJSON_Delete(cfg);
    cJSON_Delete(map);
    free(path);
    if (rc)
        m2m_tok_free(t);
    return rc;
}

void m2m_tok_free(m2m_tok *t)
{
    if (!t)
        return;
    spm_free(t->spm);
    vocab_free(&t->v);
    free(t->lang);
    free(t->lang_id);
    free(t->lang_ptr);
    for (int k = 0; k < t->n_added; k++)
        free(t->added[k].text);
    free(t->added);
    memset(t, 0, sizeof *t);
}

int m2m_tok_encode_plain(const m2m_tok *t, const char *text, size_t len, int **ids,
                         int **spans, int *n, char *err, size_t errlen)
{
    char *buf = NULL;
    size_t *offs = NULL;
    int rc;
    *ids = NULL;
    if (t->nllb) { /* PieceToId of each piece, + the offset; spm's unk (0) -> <unk> */
        int unk = spm_unk_id(t->spm);
        rc = spans ? spm_encode_spans(t->spm, text, len, ids, spans, n, err, errlen)
                   : spm_encode(t->spm, text, len, ids, n, err, errlen);
        if (rc)
            return -1;
        for (int i = 0; i < *n; i++)
            (*ids)[i] = (*ids)[i] == unk ? t->unk : (*ids)[i] + 1;
        return 0;
    }
    /* M2M100: each piece's vocab.json id, <unk> when it has none */
    if (spm_encode_pieces(t->spm, text, len, &buf, &offs, spans, n, err, errlen))
        return -1;
    if (!(*ids = malloc((size_t)(*n ? *n : 1) * sizeof **ids))) {
        free(buf);
        free(offs);
        if (spans) {
            free(*spans);
            *spans = NULL;
        }
        return xerr(err, errlen, "out of memory");
    }
    for (int i = 0; i < *n; i++) {
        int id = vocab_find(&t->v, buf + offs[i], offs[i + 1] - offs[i]);
        (*ids)[i] = id >= 0 ? id : t->unk;
    }
    free(buf);
    free(offs);
    return 0;
}

static int is_special(const m2m_tok *t, int id)
{
    if (id == t->bos || id == t->pad || id == t->eos || id == t->unk || id == t->mask)
        return 1;
    for (int k = 0; k < t->n_langs; k++)
        if (t->lang_id[k] == id)
            return 1;
    return 0;
}

/* The added token (index into t->added) that is text[0, l) and `listed` as asked (-1: either),
 * or -1. */
static int added_text(const m2m_tok *t, const char *text, size_t l, int listed)
{
    for (int k = 0; k < t->n_added; k++)
        if ((size_t)t->added[k].len == l && t->added[k].text[0] == text[0] &&
            (listed < 0 || t->added[k].listed == listed) && memcmp(t->added[k].text, text, l) == 0)
            return k;
    return -1;
}

/* A growing byte string. */
typedef struct {
    char *s;
    size_t n, cap;
} sbuf;

static int sb_put(sbuf *b, const char *p, size_t l)
{
    if (b->n + l + 1 > b->cap) {
        size_t c = b->cap ? b->cap : 64;
        char *q;
        while (b->n + l + 1 > c)
            c *= 2;
        if (!(q = realloc(b->s, c)))
            return -1;
        b->s = q;
        b->cap = c;
    }
    memcpy(b->s + b->n, p, l);
    b->n += l;
    b->s[b->n] = 0;
    return 0;
}

/* convert_tokens_to_string of a run of tokens (token i: tok[offs[i], offs[i+1])), appended to
 * out. NLLB: "".join(tokens).replace(SPIECE_UNDERLINE, " ").strip(); M2M100: "if token in
 * self.all_special_tokens: out_string += self.sp_model.decode(current_sub_tokens) + token"
 * (the "<unk>" that an id without a piece gives), the rest through sp_model.decode, .strip().
 * Returns the bytes appended, or -1 (err). */
static long run_text(const m2m_tok *t, const char *tok, const size_t *offs, int n, sbuf *out,
                     char *err, size_t errlen)
{
    size_t start = out->n;
    if (t->nllb) {
        if (sb_put(out, tok, offs[n]))
            return xerr(err, errlen, "out of memory");
    } else {
        int i = 0;
        while (i <= n) {
            int j = i;
            char *part = NULL;
            size_t pl = 0;
            while (j < n && added_text(t, tok + offs[j], offs[j + 1] - offs[j], 1) < 0)
                j++;
            if (spm_decode_pieces(t->spm, tok, offs + i, j - i, &part, &pl, err, errlen))
                return -1;
            if (sb_put(out, part, pl) ||
                (j < n && sb_put(out, tok + offs[j], offs[j + 1] - offs[j]))) {
                free(part);
                return xerr(err, errlen, "out of memory");
            }
            free(part);
            i = j + 1;
        }
    }
    out->n = start + hf_tok_finish_text(out->s + start, out->n - start, 0);
    out->s[out->n] = 0;
    return (long)(out->n - start);
}

/* transformers v4.40 PreTrainedTokenizer._decode(ids, skip_special_tokens=True) with its
 * defaults (spaces_between_special_tokens=True), rule by rule (tokenization_utils.py):
 *  1. convert_ids_to_tokens: "if skip_special_tokens and index in self.all_special_ids:
 *     continue" (the four specials, <mask>, the language codes); "if index in
 *     self._added_tokens_decoder: tokens.append(self._added_tokens_decoder[index].content)",
 *     else "self._convert_id_to_token(index)" (NLLB: IdToPiece(index - 1), an id past the
 *     pieces skipped here; M2M100: vocab.json's piece, else "<unk>");
 *  2. "legacy_added_tokens = set(self._added_tokens_encoder.keys()) -
 *     set(self.all_special_tokens) | {...}": the added tokens' texts but the specials' (the
 *     files' tokens; the set after `|` is of additional special tokens, skipped in 1);
 *  3. "for token in filtered_tokens: ... if token in legacy_added_tokens: if
 *     current_sub_text: string = self.convert_tokens_to_string(current_sub_text); if
 *     len(string) > 0: sub_texts.append(string) ... sub_texts.append(token) else:
 *     current_sub_text.append(token)": a token whose text is such an added token's (by text:
 *     a piece spelled so too) ends the run of pieces and is a text of its own;
 *     "if current_sub_text: sub_texts.append(self.convert_tokens_to_string(...))": the last
 *     run is kept even when empty;
 *  4. "if spaces_between_special_tokens: text = \" \".join(sub_texts)" (no strip after);
 *  5. "if clean_up_tokenization_spaces: clean_text = self.clean_up_tokenization(text)". */
int m2m_tok_decode(const m2m_tok *t, const int *ids, int n, char **text, char *err,
                   size_t errlen)
{
    sbuf out = {0}, tok = {0};
    size_t *offs = malloc((size_t)(n + 1) * sizeof *offs);
    int np = 0, rc = -1, subs = 0;
    *text = NULL;
    if (!offs || sb_put(&out, "", 0) || sb_put(&tok, "", 0))
        goto oom;
    for (int i = 0; i <= n; i++) {
        const char *p = NULL;
        size_t pl = 0;
        int k = -1, alone;
        if (i < n) {
            if (ids[i] < 0 || ids[i] >= t->n_ids) {
                xerr(err, errlen, "id %d (at position %d) is out of range [0, %d)", ids[i], i,
                     t->n_ids);
                goto done;
            }
            if (is_special(t, ids[i])) /* rule 1 */
                continue;
            /* the listed tokens' ids are all_special_ids, skipped above */
            for (int a = t->n_added - 1; a >= 0 && k < 0; a--)
                if (!t->added[a].listed && t->added[a].id == ids[i])
                    k = a;
            if (k >= 0)
                p = t->added[k].text;
            else if (t->nllb)
                p = ids[i] - 1 < t->sp_size ? spm_id_to_piece(t->spm, ids[i] - 1) : NULL;
            else
                p = ids[i] < t->v.n && t->v.piece[ids[i]] ? t->v.piece[ids[i]] : "<unk>";
            if (!p)
                continue;
            pl = strlen(p);
        }
        alone = i < n && added_text(t, p, pl, 0) >= 0; /* rule 2 */
        if (i == n || alone) {                          /* rule 3 */
            size_t before = out.n;
            long l;
            if (np > 0) {
                if (subs && sb_put(&out, " ", 1)) /* rule 4 */
                    goto oom;
                offs[np] = tok.n;
                if ((l = run_text(t, tok.s, offs, np, &out, err, errlen)) < 0)
                    goto done;
                if (l == 0 && i < n)
                    out.n = before; /* "if len(string) > 0" */
                else
                    subs++;
                out.s[out.n] = 0;
            }
            np = 0;
            tok.n = 0;
            if (alone && ((subs && sb_put(&out, " ", 1)) || sb_put(&out, p, pl)))
                goto oom;
            subs += alone;
            continue;
        }
        offs[np++] = tok.n;
        if (sb_put(&tok, p, pl))
            goto oom;
    }
    if (t->cleanup) /* rule 5 */
        out.n = hf_tok_cleanup(out.s, out.n);
    out.s[out.n] = 0;
    *text = out.s;
    out.s = NULL;
    rc = 0;
    goto done;
oom:
    xerr(err, errlen, "out of memory decoding %d ids", n);
done:
    free(out.s);
    free(tok.s);
    free(offs);
    return rc;
}

int m2m_tok_lang(const m2m_tok *t, const char *code)
{
    for (int k = 0; k < t->n_langs; k++)
        if (strcmp(t->lang[k], code) == 0)
            return t->lang_id[k];
    return -1;
}

/* Levenshtein distance of a and b (ASCII case folded), capped at 9. */
static int distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    int row[32], prev;
    if (la > 30 || lb > 30)
        return 9;
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        prev = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int cur = row[j], ca = a[i - 1] | 0x20, cb = b[j - 1] | 0x20;
            int best = prev + (ca != cb);
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            prev = cur;
        }
    }
    return row[lb] < 9 ? row[lb] : 9;
}

void m2m_tok_suggest(const m2m_tok *t, const char *code, char *buf, size_t n, int max)
{
    size_t used = 0;
    int shown = 0;
    buf[0] = 0;
    /* the closest first: the same code but for case; codes that start with the given one
     * ("fr": fra_Latn) or whose language part it starts with; edit distance 1, 2; codes
     * sharing the first 3 letters */
    for (int d = 0; d <= 4 && shown < max; d++)
        for (int k = 0; k < t->n_langs && shown < max; k++) {
            int dist = distance(code, t->lang[k]);
            size_t cl = strlen(code), ll = strcspn(t->lang[k], "_");
            int pre = dist > 0 && cl >= 2 && (strncasecmp(t->lang[k], code, cl) == 0 ||
                                              (ll >= 2 && strncasecmp(code, t->lang[k], ll) == 0));
            int near = d == 0 ? dist == 0 : d == 1 ? pre : d < 4 ? !pre && dist == d - 1
                     : dist > 2 && !pre && strncmp(code, t->lang[k], 3) == 0;
            if (!near || used >= n)
                continue;
            used += (size_t)snprintf(buf + used, n - used, "%s%s", shown ? ", " : "",
                                     t->lang[k]);
            shown++;
        }
    for (int k = 0; !shown && k < t->n_langs && k < max && used < n; k++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", k ? ", " : "", t->lang[k]);
}

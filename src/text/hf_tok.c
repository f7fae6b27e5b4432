/* hf_tok.c — MarianTokenizer's encode and decode over spm.c and vocab.c (hf_tok.h). */
#include "text/hf_tok.h"
#include "base/json.h"
#include "base/util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int load_one_spm(spm_model **out, const char *dir, const char *name, char *err,
                        size_t errlen)
{
    char *path = path_join(dir, name);
    int rc;
    if (!path)
        return xerr(err, errlen, "out of memory");
    rc = spm_load(out, path, err, errlen);
    free(path);
    return rc;
}

static int load_vocab(vocab *v, const char *dir, const char *name, int n, const char *field,
                      char *err, size_t errlen)
{
    char *path = path_join(dir, name);
    int rc;
    if (!path)
        return xerr(err, errlen, "out of memory");
    rc = vocab_load(v, path, n, field, err, errlen);
    free(path);
    return rc;
}

/* "clean_up_tokenization_spaces" of tokenizer_config.json (transformers v4.40's default: true). */
static int read_tokenizer_config(hf_tok *t, const char *dir, char *err, size_t errlen)
{
    char *path = path_join(dir, "tokenizer_config.json"), *text = NULL;
    size_t len;
    cJSON *root = NULL, *v;
    int rc = -1;
    t->cleanup = 1;
    if (!path)
        return xerr(err, errlen, "out of memory");
    if (access(path, F_OK) != 0) {
        rc = 0;
        goto done;
    }
    if (read_file_max(path, READ_MAX_JSON, &text, &len, err, errlen) ||
        !(root = json_parse_object(text, len, path, err, errlen)))
        goto done;
    /* MarianTokenizer.__init__'s unk_token "<unk>", eos_token "</s>", pad_token "<pad>": xlate
     * takes those (a string, or an AddedToken object whose "content" is it) and no
     * additional_special_tokens, which transformers would skip in decoding and split out in
     * encoding */
    for (int i = 0; i < 3; i++) {
        static const char *const keys[3] = {"unk_token", "eos_token", "pad_token"};
        static const char *const want[3] = {"<unk>", "</s>", "<pad>"};
        const cJSON *c;
        if (!(v = cJSON_GetObjectItemCaseSensitive(root, keys[i])) || cJSON_IsNull(v))
            continue;
        c = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, "content") : v;
        if (!cJSON_IsString(c) || strcmp(c->valuestring, want[i]) != 0) {
            xerr(err, errlen, "%s: field \"%s\": xlate takes only \"%s\", got %s%.64s%s", path,
                 keys[i], want[i], cJSON_IsString(c) ? "\"" : json_type_name(c),
                 cJSON_IsString(c) ? c->valuestring : "", cJSON_IsString(c) ? "\"" : "");
            goto done;
        }
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "additional_special_tokens")) &&
        !cJSON_IsNull(v) && !(cJSON_IsArray(v) && cJSON_GetArraySize(v) == 0)) {
        xerr(err, errlen, "%s: field \"additional_special_tokens\": xlate does not implement "
             "them (it takes only an empty list)", path);
        goto done;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "clean_up_tokenization_spaces"))) {
        if (!cJSON_IsBool(v)) {
            xerr(err, errlen, "%s: field \"clean_up_tokenization_spaces\": expected true or "
                 "false, got %s", path, JSON_GOT(v));
            goto done;
        }
        t->cleanup = cJSON_IsTrue(v);
    }
    /* "source_lang" / "target_lang" (an OPUS-MT directory names its languages there): the
     * sentence splitter's rules and the join of sentences; a value that is no short code (a
     * path, a group name longer than 15 bytes) is not a language xlate has rules for */
    for (int k = 0; k < 2; k++) {
        char *dst = k ? t->target_lang : t->source_lang;
        v = cJSON_GetObjectItemCaseSensitive(root, k ? "target_lang" : "source_lang");
        if (v && cJSON_IsString(v) && is_lang_code(v->valuestring))
            snprintf(dst, sizeof t->source_lang, "%s", v->valuestring);
    }
    rc = 0;
done:
    cJSON_Delete(root);
    free(text);
    free(path);
    return rc;
}

static int special(const vocab *v, const char *piece)
{
    return vocab_find(v, piece, strlen(piece));
}

int hf_tok_load(hf_tok *t, const char *dir, const char *source_spm, const char *target_spm,
                const char *vocab_json, const char *target_vocab_json, int n_src, int n_tgt,
                int eos_id, int pad_id, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    if (load_one_spm(&t->src_spm, dir, source_spm, err, errlen) ||
        load_one_spm(&t->tgt_spm, dir, target_spm, err, errlen) ||
        load_vocab(&t->src, dir, vocab_json, n_src, "vocab_size", err, errlen))
        goto fail;
    if (target_vocab_json) {
        if (load_vocab(&t->tgt_own, dir, target_vocab_json, n_tgt, "decoder_vocab_size", err,
                       errlen))
            goto fail;
        t->tgt = &t->tgt_own;
    } else {
        t->tgt = &t->src;
    }
    t->unk = special(&t->src, "<unk>");
    t->eos = special(&t->src, "</s>");
    t->pad = special(&t->src, "<pad>");
    if (t->unk < 0 || t->eos != eos_id || (t->pad >= 0 && t->pad != pad_id)) {
        const char *what = t->unk < 0 ? "<unk>" : t->eos != eos_id ? "</s>" : "<pad>";
        int got = t->unk < 0 ? -1 : t->eos != eos_id ? t->eos : t->pad;
        char where[64] = "absent";
        if (got >= 0)
            snprintf(where, sizeof where, "id %d", got);
        xerr(err, errlen, "%s/%s: piece \"%s\": %s, expected %s", dir, vocab_json, what, where,
             t->unk < 0 ? "present (MarianTokenizer needs it)" : t->eos != eos_id
             ? "config.json's eos_token_id" : "config.json's pad_token_id");
        goto fail;
    }
    if (read_tokenizer_config(t, dir, err, errlen))
        goto fail;
    /* the language codes: pieces ">>xx<<" of a joint vocabulary (MarianTokenizer lists none
     * when the vocabularies are separate) */
    if (!target_vocab_json) {
        t->langs = malloc(n_src * sizeof *t->langs);
        if (!t->langs) {
            xerr(err, errlen, "out of memory");
            goto fail;
        }
        for (int i = 0; i < n_src; i++) {
            const char *p = t->src.piece[i];
            size_t l = t->src.len[i];
            if (p && l >= 4 && memcmp(p, ">>", 2) == 0 && memcmp(p + l - 2, "<<", 2) == 0)
                t->langs[t->n_langs++] = i;
        }
    }
    return 0;
fail:
    hf_tok_free(t);
    return -1;
}

void hf_tok_free(hf_tok *t)
{
    if (!t)
        return;
    spm_free(t->src_spm);
    spm_free(t->tgt_spm);
    vocab_free(&t->src);
    vocab_free(&t->tgt_own);
    free(t->langs);
    memset(t, 0, sizeof *t);
}

int hf_tok_lang(const hf_tok *t, const char *lang)
{
    char piece[128];
    int n = snprintf(piece, sizeof piece, ">>%s<<", lang);
    if (n < 0 || (size_t)n >= sizeof piece)
        return -1;
    for (int i = 0; i < t->n_langs; i++)
        if (t->src.len[t->langs[i]] == (size_t)n && memcmp(t->src.piece[t->langs[i]], piece, n) == 0)
            return t->langs[i];
    return -1;
}

/* The next match of the regex ">>.+<<" in s[from, len): [*a, *b), greedy ('.' is any byte but
 * '\n'; '<' and '>' are ASCII, so bytes stand for code points). 0 when there is none. */
static int next_code(const char *s, size_t len, size_t from, size_t *a, size_t *b)
{
    for (size_t i = from; i + 5 <= len; i++) {
        size_t e = i, best = 0;
        int found = 0;
        if (s[i] != '>' || s[i + 1] != '>')
            continue;
        while (e < len && s[e] != '\n')
            e++;
        for (size_t j = i + 3; j + 2 <= e; j++)
            if (s[j] == '<' && s[j + 1] == '<') {
                best = j;
                found = 1;
            }
        if (found) {
            *a = i;
            *b = best + 2;
            return 1;
        }
    }
    return 0;
}

/* hf_tok_encode, and with spans != NULL each id's [begin, end) in text (*spans [2 * *n]):
 * the leading code's own bytes, a piece's span in the text without the codes (spm) mapped back
 * through rmap. */
static int encode_impl(const hf_tok *t, const char *text, size_t len, int **ids, int **spans,
                       int *n, char *err, size_t errlen)
{
    char *rest = NULL, *buf = NULL;
    size_t *offs = NULL, a, b, from = 0, rn = 0, *rmap = NULL, code_end = 0;
    int np = 0, code = -1, *out = NULL, *psp = NULL, *osp = NULL;
    *ids = NULL;
    *n = 0;
    if (spans)
        *spans = NULL;
    /* rmap [rn + 1]: the offset in text of each byte of rest, then len */
    if (!(rest = malloc(len + 1)) || (spans && !(rmap = malloc((len + 1) * sizeof *rmap)))) {
        xerr(err, errlen, "out of memory");
        goto fail;
    }
    /* language_code_re.match: a code at the very start is one token; .sub removes every match */
    while (next_code(text, len, from, &a, &b)) {
        if (a == 0) {
            code = vocab_find(&t->src, text, b);
            if (code < 0)
                code = t->unk;
            code_end = b;
        }
        memcpy(rest + rn, text + from, a - from);
        for (size_t k = 0; rmap && k < a - from; k++)
            rmap[rn + k] = from + k;
        rn += a - from;
        from = b;
    }
    memcpy(rest + rn, text + from, len - from);
    for (size_t k = 0; rmap && k < len - from; k++)
        rmap[rn + k] = from + k;
    rn += len - from;
    if (rmap)
        rmap[rn] = len;
    if (spm_encode_pieces(t->src_spm, rest, rn, &buf, &offs, spans ? &psp : NULL, &np, err,
                          errlen))
        goto fail;
    out = malloc((np + 1) * sizeof *out);
    if (!out || (spans && !(osp = malloc(2 * (np + 1) * sizeof *osp)))) {
        xerr(err, errlen, "out of memory");
        goto fail;
    }
    if (code >= 0) {
        if (osp) {
            osp[0] = 0;
            osp[1] = (int)code_end;
        }
        out[(*n)++] = code;
    }
    for (int i = 0; i < np; i++) {
        int id = vocab_find(&t->src, buf + offs[i], offs[i + 1] - offs[i]);
        if (osp) {
            /* a begin is where its byte of rest stands in text; an end follows the last byte
             * covered (a code removed just before it stays outside) */
            size_t rb = (size_t)psp[2 * i], re = (size_t)psp[2 * i + 1];
            osp[2 * *n] = (int)rmap[rb];
            osp[2 * *n + 1] = re > rb ? (int)rmap[re - 1] + 1 : (int)rmap[rb];
        }
        out[(*n)++] = id >= 0 ? id : t->unk;
    }
    free(rest);
    free(buf);
    free(offs);
    free(rmap);
    free(psp);
    if (*n == 0) {
        free(out);
        free(osp);
        out = osp = NULL;
    }
    *ids = out;
    if (spans)
        *spans = osp;
    return 0;
fail:
    free(rest);
    free(buf);
    free(offs);
    free(rmap);
    free(psp);
    free(out);
    free(osp);
    *n = 0;
    return -1;
}

int hf_tok_encode(const hf_tok *t, const char *text, size_t len, int **ids, int *n, char *err,
                  size_t errlen)
{
    return encode_impl(t, text, len, ids, NULL, n, err, errlen);
}

int hf_tok_encode_spans(const hf_tok *t, const char *text, size_t len, int **ids, int **spans,
                        int *n, char *err, size_t errlen)
{
    return encode_impl(t, text, len, ids, spans, n, err, errlen);
}

int hf_tok_encode_target(const hf_tok *t, const char *text, size_t len, int **ids, int *n,
                         char *err, size_t errlen)
{
    char *buf = NULL;
    size_t *offs = NULL;
    int np = 0, unk = vocab_find(t->tgt, "<unk>", 5);
    *ids = NULL;
    *n = 0;
    if (spm_encode_pieces(t->tgt_spm, text, len, &buf, &offs, NULL, &np, err, errlen))
        return -1;
    if (np && !(*ids = malloc(np * sizeof **ids))) {
        free(buf);
        free(offs);
        return xerr(err, errlen, "out of memory");
    }
    for (int i = 0; i < np; i++) {
        int id = vocab_find(t->tgt, buf + offs[i], offs[i + 1] - offs[i]);
        (*ids)[i] = id >= 0 ? id : unk >= 0 ? unk : t->unk;
    }
    *n = np;
    free(buf);
    free(offs);
    return 0;
}

/* Length of the Unicode whitespace (Python's str.isspace) character at s[0, n), or 0. */
static size_t space_len(const unsigned char *s, size_t n)
{
    unsigned cp;
    size_t l;
    if (s[0] < 0x80)
        return (s[0] == ' ' || (s[0] >= 0x09 && s[0] <= 0x0d) || (s[0] >= 0x1c && s[0] <= 0x1f));
    if ((s[0] & 0xe0) == 0xc0 && n >= 2) {
        cp = ((s[0] & 0x1fu) << 6) | (s[1] & 0x3fu);
        l = 2;
    } else if ((s[0] & 0xf0) == 0xe0 && n >= 3) {
        cp = ((s[0] & 0x0fu) << 12) | ((s[1] & 0x3fu) << 6) | (s[2] & 0x3fu);
        l = 3;
    } else {
        return 0;
    }
    if (cp == 0x85 || cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) ||
        cp == 0x2028 || cp == 0x2029 || cp == 0x202f || cp == 0x205f || cp == 0x3000)
        return l;
    return 0;
}

/* Length of the whitespace character ending at s[n - 1], or 0. */
static size_t space_len_back(const unsigned char *s, size_t n)
{
    for (size_t l = 1; l <= 3 && l <= n; l++)
        if ((l == 1 || (s[n - l] & 0xc0) != 0x80) && space_len(s + n - l, l) == l)
            return l;
    return 0;
}

/* transformers' clean_up_tokenization, in place. */
static size_t cleanup(char *s, size_t n)
{
    static const char *const from[] = {" .", " ?", " !", " ,", " ' ", " n't", " 'm", " 's",
                                       " 've", " 're"};
    static const char *const to[] = {".", "?", "!", ",", "'", "n't", "'m", "'s", "'ve", "'re"};
    for (size_t r = 0; r < sizeof from / sizeof from[0]; r++) {
        size_t fl = strlen(from[r]), tl = strlen(to[r]), w = 0;
        for (size_t i = 0; i < n;) {
            if (i + fl <= n && memcmp(s + i, from[r], fl) == 0) {
                memcpy(s + w, to[r], tl);
                w += tl;
                i += fl;
            } else {
                s[w++] = s[i++];
            }
        }
        n = w;
    }
    return n;
}

/* Is the piece p[0, l) one of the special tokens' texts (all_special_tokens)? */
static int is_special_text(const char *p, size_t l)
{
    return (l == 4 && memcmp(p, "</s>", 4) == 0) || (l == 5 && memcmp(p, "<unk>", 5) == 0) ||
           (l == 5 && memcmp(p, "<pad>", 5) == 0);
}

/* Replaces every U+2581 (E2 96 81) of s[0, n) by a space, in place; the new length. */
static size_t metaspace_to_space(char *s, size_t n)
{
    size_t w = 0;
    for (size_t i = 0; i < n;) {
        if (i + 3 <= n && (unsigned char)s[i] == 0xe2 && (unsigned char)s[i + 1] == 0x96 &&
            (unsigned char)s[i + 2] == 0x81) {
            s[w++] = ' ';
            i += 3;
        } else {
            s[w++] = s[i++];
        }
    }
    return w;
}

size_t hf_tok_cleanup(char *s, size_t n)
{
    return cleanup(s, n);
}

size_t hf_tok_finish_text(char *s, size_t n, int clean)
{
    size_t a = 0, l;
    n = metaspace_to_space(s, n);
    while (a < n && (l = space_len((unsigned char *)s + a, n - a)))
        a += l;
    while (n > a && (l = space_len_back((unsigned char *)s + a, n - a)))
        n -= l;
    memmove(s, s + a, n - a);
    n -= a;
    return clean ? cleanup(s, n) : n;
}

/* transformers v4.40, rule by rule (docs/MODELS.md "OPUS-MT models" lists them with their tests):
 * 1. tokenization_utils.py PreTrainedTokenizer.convert_ids_to_tokens,
 *    "if skip_special_tokens and index in self.all_special_ids: continue": all_special_ids are
 *    the ids _add_tokens gave "</s>", "<unk>", "<pad>" from get_vocab() = vocab.json (the
 *    SOURCE map, tokenization_marian.py get_vocab -> get_src_vocab), also when target_vocab.json
 *    numbers them otherwise;
 * 2. tokenization_marian.py _convert_id_to_token, "return self.decoder.get(index,
 *    self.unk_token)": the piece of target_vocab.json (separate_vocabs) or vocab.json;
 * 3. convert_tokens_to_string, "if token in self.all_special_tokens: out_string +=
 *    sp_model.decode_pieces(current_sub_tokens) + token + \" \"": a piece that is a special
 *    token's text (a target id numbered otherwise, an id without a piece) cuts the run of
 *    pieces, its text follows with a space; "out_string += sp_model.decode_pieces(...)": the
 *    runs go through target.spm's DecodePieces (which keeps a piece it lacks as it is, U+2581
 *    included);
 * 4. "out_string = out_string.replace(SPIECE_UNDERLINE, \" \")" (PR #26091, v4.34), then
 *    "return out_string.strip()" (Python's str.strip: Unicode whitespace);
 * 5. tokenization_utils_base.py clean_up_tokenization when clean_up_tokenization_spaces. */
int hf_tok_decode(const hf_tok *t, const int *ids, int n, char **text, char *err, size_t errlen)
{
    char *buf = NULL, *part = NULL, *out = NULL;
    size_t cap = 16, on = 0, pn, *offs = malloc((n + 1) * sizeof *offs), bn = 0, bcap = 16;
    int np = 0, rc = -1;
    *text = NULL;
    out = malloc(cap);
    buf = malloc(bcap);
    if (!offs || !out || !buf)
        goto oom;
    for (int i = 0; i <= n; i++) {
        const char *p = NULL;
        size_t pl = 0;
        int flush = i == n;
        if (i < n) {
            int id = ids[i];
            if (id < 0 || id >= t->tgt->n) {
                xerr(err, errlen, "id %d (at position %d) is out of range [0, %d)", id, i,
                     t->tgt->n);
                goto done;
            }
            if (id == t->unk || id == t->eos || id == t->pad)
                continue; /* rule 1 */
            p = t->tgt->piece[id];
            pl = p ? t->tgt->len[id] : 0;
            if (!p) {
                p = "<unk>";
                pl = 5;
            }
            if (is_special_text(p, pl))
                flush = 1; /* rule 3 */
        }
        if (flush) {
            offs[np] = bn;
            if (spm_decode_pieces(t->tgt_spm, buf, offs, np, &part, &pn, err, errlen))
                goto done;
            while (on + pn + pl + 2 > cap) {
                char *q = realloc(out, cap *= 2);
                if (!q)
                    goto oom;
                out = q;
            }
            memcpy(out + on, part, pn);
            on += pn;
            free(part);
            part = NULL;
            if (i < n) {
                memcpy(out + on, p, pl);
                on += pl;
                out[on++] = ' ';
            }
            np = 0;
            bn = 0;
            continue;
        }
        while (bn + pl > bcap) {
            char *q = realloc(buf, bcap *= 2);
            if (!q)
                goto oom;
            buf = q;
        }
        offs[np++] = bn;
        memcpy(buf + bn, p, pl);
        bn += pl;
    }
    on = hf_tok_finish_text(out, on, t->cleanup); /* rules 4, 5 */
    out[on] = '\0';
    *text = out;
    out = NULL;
    rc = 0;
    goto done;
oom:
    xerr(err, errlen, "out of memory decoding %d ids", n);
done:
    free(out);
    free(buf);
    free(part);
    free(offs);
    return rc;
}

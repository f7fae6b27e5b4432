/* serve_routes.c — which loaded model translates a language pair, as the command line would
 * set it up for that pair (cli_translate.c: setup_forced_langs, the >>xx<< token), and
 * /languages (LibreTranslate app.py:507-539: each source code with its targets). A one-pair
 * model (xlate's own, an OPUS-MT pair) gives its config's source_lang -> target_lang; a
 * multilingual MarianMT model its source_lang -> each >>xx<< language; an M2M100 / NLLB model
 * every code -> every other. The first model given (-m) wins a pair two models serve.
 * An NLLB code that has a short code (base/langs.c: "deu_Latn" is "de") is routed and listed
 * under the short one, as LibreTranslate's clients send and look for them; a request may give
 * either (serve_route_find). Every other code is the model's own. */
#include "serve/serve.h"
#include "base/langs.h"
#include "base/util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The code a forced-language model's code is routed and listed under: an NLLB code's short code
 * ("deu_Latn" -> "de"), else the code itself. */
static const char *listed(const char *code)
{
    const char *c = lang_short_code(code);
    return c ? c : code;
}

/* The short code that a code sent by a client stands for, when the table knows one: an NLLB
 * code's ("deu_Latn" -> "de"), a short code's own written otherwise ("no" -> "nb", "EN" ->
 * "en", "pt-BR" -> "pt", "zh-TW" -> "zt"); else the code itself. */
static const char *canonical(const char *code)
{
    const char *c = lang_short_code(code), *n;
    if (c)
        return c;
    if ((n = lang_nllb_code(code)) && (c = lang_short_code(n)))
        return c;
    return code;
}

int serve_lang_is(const char *route_code, const char *code)
{
    return strcmp(route_code, code) == 0 || strcmp(route_code, canonical(code)) == 0;
}

static int add_route(serve *s, int *cap, const char *src, const char *tgt, int model,
                     serve_route **out)
{
    serve_route *r;
    if (strlen(src) >= sizeof r->src || strlen(tgt) >= sizeof r->tgt || !is_lang_code(src) ||
        !is_lang_code(tgt))
        return 1; /* a code the API cannot carry as it is: left out */
    if (s->n_routes == *cap) {
        int c = *cap ? 2 * *cap : 16;
        serve_route *t = realloc(s->routes, c * sizeof *t);
        if (!t)
            return -1;
        s->routes = t;
        *cap = c;
    }
    r = &s->routes[s->n_routes];
    memset(r, 0, sizeof *r);
    snprintf(r->src, sizeof r->src, "%s", src);
    snprintf(r->tgt, sizeof r->tgt, "%s", tgt);
    r->model = model;
    r->seq = s->n_routes++;
    r->target_lang_id = r->forced_bos_id = r->source_suffix_id = -1;
    *out = r;
    return 0;
}

static int cmp_route(const void *a, const void *b)
{
    const serve_route *x = a, *y = b;
    int c = strcmp(x->src, y->src);
    if (!c)
        c = strcmp(x->tgt, y->tgt);
    return c ? c : x->seq - y->seq;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Appends s to a growing buffer; -1 out of memory. */
static int put(char **b, size_t *len, size_t *cap, const char *s)
{
    size_t n = strlen(s);
    if (*len + n + 1 > *cap) {
        size_t c = *cap ? *cap : 1024;
        char *t;
        while (c < *len + n + 1)
            c *= 2;
        if (!(t = realloc(*b, c)))
            return -1;
        *b = t;
        *cap = c;
    }
    memcpy(*b + *len, s, n + 1);
    *len += n;
    return 0;
}

/* The index of the first route from src, or n_routes. */
static int first_from(const serve *s, const char *src)
{
    int lo = 0, hi = s->n_routes;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (strcmp(s->routes[mid].src, src) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* /languages (app.py:507-539): every language of the models, each once in code order, with
 * the targets it translates into (none for a language that is only a target: LibreTranslate
 * lists every installed language, and clients such as the libretranslate npm package look for
 * a target among these codes). Codes are [A-Za-z0-9_-] (add_route): nothing to escape. */
static char *languages_json(const serve *s)
{
    const char **codes = malloc((size_t)2 * s->n_routes * sizeof *codes);
    char *b = NULL, item[128];
    size_t len = 0, cap = 0;
    int n = 0, fail = !codes || put(&b, &len, &cap, "[");
    for (int i = 0; !fail && i < s->n_routes; i++) {
        codes[n++] = s->routes[i].src;
        codes[n++] = s->routes[i].tgt;
    }
    if (!fail)
        qsort(codes, n, sizeof *codes, cmp_str);
    for (int i = 0; !fail && i < n; i++) {
        int t = 0;
        if (i && strcmp(codes[i], codes[i - 1]) == 0)
            continue;
        snprintf(item, sizeof item, "%s{\"code\": \"%s\", \"name\": \"%s\", \"targets\": [",
                 len > 1 ? ", " : "", codes[i], serve_lang_name(codes[i]));
        fail |= put(&b, &len, &cap, item);
        for (int j = first_from(s, codes[i]); !fail && j < s->n_routes &&
                                              strcmp(s->routes[j].src, codes[i]) == 0; j++) {
            snprintf(item, sizeof item, "%s\"%s\"", t++ ? ", " : "", s->routes[j].tgt);
            fail |= put(&b, &len, &cap, item);
        }
        fail |= put(&b, &len, &cap, "]}");
    }
    fail |= put(&b, &len, &cap, "]");
    free(codes);
    if (fail) {
        free(b);
        return NULL;
    }
    return b;
}

/* Sorts the routes and keeps the first made of each pair. */
static void routes_sort(serve *s)
{
    int k = 0;
    qsort(s->routes, s->n_routes, sizeof *s->routes, cmp_route);
    for (int i = 0; i < s->n_routes; i++)
        if (!k || strcmp(s->routes[i].src, s->routes[k - 1].src) ||
            strcmp(s->routes[i].tgt, s->routes[k - 1].tgt))
            s->routes[k++] = s->routes[i];
    s->n_routes = k;
}

/* The index of the first route from src among the first n (sorted), or n. */
static int first_in(const serve *s, int n, const char *src)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (strcmp(s->routes[mid].src, src) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The pairs no model serves that two chain through one language (issue 48), added after the
 * models' own (a larger seq: a model's own pair always wins): through English first, as
 * argos-translate prefers, then through each target of a MarianMT model (an M2M100 / NLLB
 * model serves its pairs itself); one pivot, never two (the legs are models' own pairs).
 * s->routes sorted and deduplicated before; its first n_direct entries are read. */
static int add_pivots(serve *s, int *cap)
{
    int n_direct = s->n_routes, n_piv = 0;
    const char *piv[64];
    piv[n_piv++] = "en";
    for (int k = 0; k < s->n_models && n_piv < 64; k++) {
        const xlate_model_info *in = &s->models[k].info;
        if (in->lang_forced)
            continue;
        for (int j = 0; j < (in->n_langs ? in->n_langs : 1) && n_piv < 64; j++) {
            const char *c = in->n_langs ? in->langs[j] : in->target_lang;
            int seen = !c;
            for (int i = 0; i < n_piv && !seen; i++)
                seen = strcmp(piv[i], c) == 0;
            if (!seen)
                piv[n_piv++] = c;
        }
    }
    for (int v = 0; v < n_piv; v++) {
        char p[32];
        snprintf(p, sizeof p, "%s", piv[v]);
        for (int a = 0; a < n_direct; a++) {
            char src[32];
            if (strcmp(s->routes[a].tgt, p) != 0)
                continue;
            snprintf(src, sizeof src, "%s", s->routes[a].src);
            for (int b = first_in(s, n_direct, p); b < n_direct &&
                                                   !strcmp(s->routes[b].src, p); b++) {
                serve_route *r;
                int have = 0, rc;
                if (strcmp(s->routes[b].tgt, src) == 0)
                    continue;
                /* a model's own pair (sorted: found by halving); a pivot pair made twice
                 * keeps its first (routes_sort), English's */
                for (int i = first_in(s, n_direct, src); i < n_direct && !have &&
                                                         !strcmp(s->routes[i].src, src); i++)
                    have = !strcmp(s->routes[i].tgt, s->routes[b].tgt);
                if (have)
                    continue;
                {
                    char tgt[32];
                    int model = s->routes[a].model;
                    snprintf(tgt, sizeof tgt, "%s", s->routes[b].tgt);
                    if ((rc = add_route(s, cap, src, tgt, model, &r)) < 0)
                        return -1;
                    if (rc == 0)
                        snprintf(r->pivot, sizeof r->pivot, "%s", p);
                }
            }
        }
    }
    return 0;
}

/* Sorts the routes, keeps the first made of each pair, and makes /languages. */
static int routes_index(serve *s, char *err, size_t errlen)
{
    routes_sort(s);
    s->first_route = 0;
    for (int i = 0; i < s->n_routes; i++)
        if (s->routes[i].seq < s->routes[s->first_route].seq)
            s->first_route = i;
    if (!(s->languages = languages_json(s)))
        return xerr(err, errlen, "out of memory");
    return 0;
}

int serve_routes_build(serve *s, char *err, size_t errlen)
{
    int cap = 0;
    for (int k = 0; k < s->n_models; k++) {
        const xlate_model *m = s->models[k].model;
        const xlate_model_info *in = &s->models[k].info;
        serve_route *r;
        int rc;
        if (in->lang_forced) {
            for (int i = 0; i < in->n_langs; i++)
                for (int j = 0; j < in->n_langs; j++) {
                    if (i == j)
                        continue;
                    if ((rc = add_route(s, &cap, listed(in->langs[i]), listed(in->langs[j]), k,
                                        &r)) < 0)
                        return xerr(err, errlen, "out of memory");
                    if (rc)
                        continue;
                    r->forced_bos_id = xlate_lang_id(m, in->langs[j]);
                    if (in->lang_after_eos)
                        r->source_suffix_id = xlate_lang_id(m, in->langs[i]);
                    else
                        r->target_lang_id = xlate_lang_id(m, in->langs[i]);
                }
        } else if (in->n_langs > 0) {
            if (!in->source_lang)
                return xerr(err, errlen, "%s: a multilingual model whose files name no source "
                            "language (tokenizer_config.json \"source_lang\"): the server "
                            "cannot route to it", s->models[k].dir);
            for (int j = 0; j < in->n_langs; j++) {
                if ((rc = add_route(s, &cap, in->source_lang, in->langs[j], k, &r)) < 0)
                    return xerr(err, errlen, "out of memory");
                if (rc)
                    continue;
                r->target_lang_id = xlate_lang_id(m, in->langs[j]);
                r->set_target_lang = is_lang_code(in->langs[j]);
            }
        } else {
            if (!in->source_lang || !in->target_lang)
                return xerr(err, errlen, "%s: the model's files name no source and target "
                            "language (config.json \"source_lang\" / \"target_lang\", or a "
                            "MarianMT tokenizer_config.json): the server cannot route to it",
                            s->models[k].dir);
            if ((rc = add_route(s, &cap, in->source_lang, in->target_lang, k, &r)) < 0)
                return xerr(err, errlen, "out of memory");
        }
    }
    if (s->n_routes == 0)
        return xerr(err, errlen, "the models translate no language pair");
    routes_sort(s);
    if (add_pivots(s, &cap))
        return xerr(err, errlen, "out of memory");
    return routes_index(s, err, errlen);
}

/* The route of exactly src -> tgt, or NULL. */
static const serve_route *find_exact(const serve *s, const char *src, const char *tgt)
{
    for (int i = first_from(s, src); i < s->n_routes && !strcmp(s->routes[i].src, src); i++)
        if (strcmp(s->routes[i].tgt, tgt) == 0)
            return &s->routes[i];
    return NULL;
}

/* The codes as sent, and each as its short code (canonical): a model's own "pt_BR" still
 * reaches a MarianMT >>pt_BR<<, "deu_Latn" and "de" both an NLLB model's "de". Of the pairs
 * found, the first model's (the smallest seq), so the first -m still wins. */
const serve_route *serve_route_find(const serve *s, const char *src, const char *tgt)
{
    const char *srcs[2] = {src, canonical(src)}, *tgts[2] = {tgt, canonical(tgt)};
    const serve_route *best = NULL;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            const serve_route *r = find_exact(s, srcs[i], tgts[j]);
            if (r && (!best || r->seq < best->seq))
                best = r;
        }
    return best;
}

const char *serve_lang_name(const char *code)
{
    static const char *const names[][2] = {
        {"ar", "Arabic"}, {"bg", "Bulgarian"}, {"ca", "Catalan"}, {"cs", "Czech"},
        {"da", "Danish"}, {"de", "German"}, {"el", "Greek"}, {"en", "English"},
        {"es", "Spanish"}, {"et", "Estonian"}, {"fi", "Finnish"}, {"fr", "French"},
        {"ga", "Irish"}, {"he", "Hebrew"}, {"hi", "Hindi"}, {"hu", "Hungarian"},
        {"id", "Indonesian"}, {"it", "Italian"}, {"ja", "Japanese"}, {"ko", "Korean"},
        {"lt", "Lithuanian"}, {"lv", "Latvian"}, {"nb", "Norwegian"}, {"nl", "Dutch"},
        {"no", "Norwegian"}, {"pb", "Portuguese (Brazil)"}, {"pl", "Polish"},
        {"pt", "Portuguese"}, {"ro", "Romanian"}, {"ru", "Russian"}, {"sk", "Slovak"},
        {"sl", "Slovenian"}, {"sv", "Swedish"}, {"th", "Thai"}, {"tr", "Turkish"},
        {"uk", "Ukrainian"}, {"vi", "Vietnamese"}, {"zh", "Chinese"},
        {"zt", "Chinese (traditional)"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(names[i][0], code) == 0)
            return names[i][1];
    return code;
}

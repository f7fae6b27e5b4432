/* hub_pair.c — which cached model serves a language pair: an OPUS-MT model for the one pair (by
 * its name, Helsinki-NLP/opus-mt-SRC-TGT, or its files' codes), a multilingual OPUS-MT model
 * with the target's >>xx<< token, an M2M100 / NLLB-200 model with both languages among its codes
 * (ISO 639-1 codes mapped to NLLB's FLORES-200 codes for the common languages: base/langs.c's
 * table, which xlate serve shares); and the model to name when none is cached. */
#include "hub/hub_scan.h"
#include "base/langs.h"
#include "base/util.h"
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The language part of a code: its length up to a region ("en_US", "pt-BR"). */
static size_t base_len(const char *s)
{
    return strcspn(s, "_-");
}

int hub_lang_eq(const char *a, const char *b)
{
    size_t la, lb;
    if (!a || !b || !a[0] || !b[0])
        return 0;
    if (strcasecmp(a, b) == 0)
        return 1;
    la = base_len(a);
    lb = base_len(b);
    /* the same language, one of them without a region */
    return la == lb && strncasecmp(a, b, la) == 0 && (!a[la] || !b[lb]);
}

/* The model's code for lang: lang itself, its language part, or (an NLLB code's first three
 * letters: ISO 639-3) the code a multilingual OPUS-MT model writes ">>fra<<"; NULL when none. */
static const char *find_code(const hub_model *m, const char *lang)
{
    const char *nllb = lang_nllb_code(lang);
    for (int pass = 0; pass < 3; pass++)
        for (int i = 0; i < m->n_langs; i++) {
            const char *c = m->langs[i];
            if ((pass == 0 && strcasecmp(c, lang) == 0) ||
                (pass == 1 && strlen(c) == base_len(lang) &&
                 strncasecmp(c, lang, base_len(lang)) == 0) ||
                (pass == 2 && nllb && strlen(c) == 3 && strncmp(c, nllb, 3) == 0))
                return c;
        }
    return NULL;
}

/* An NLLB model's code for lang: lang when it is one of its codes ("deu_Latn"), else the
 * mapped ISO 639-1 code. */
static const char *find_nllb(const hub_model *m, const char *lang)
{
    const char *c = lang_nllb_code(lang);
    for (int i = 0; i < m->n_langs; i++)
        if (strcmp(m->langs[i], lang) == 0 || (c && strcmp(m->langs[i], c) == 0))
            return m->langs[i];
    return NULL;
}

int hub_model_serves(const hub_model *m, const char *src, const char *tgt,
                     const char **src_code, const char **tgt_code)
{
    const char *s = NULL, *t = NULL;
    if (!hub_model_runs(m) || !src || !tgt)
        return 0;
    if (strcmp(m->family, "m2m100") == 0) {
        /* every pair of its codes: the source's token marks the source, the target's is
         * forced first */
        s = m->nllb ? find_nllb(m, src) : find_code(m, src);
        t = m->nllb ? find_nllb(m, tgt) : find_code(m, tgt);
    } else if (m->n_langs) {
        /* a multilingual OPUS-MT model: its source side from its name ("mul": any), the
         * target by its >>xx<< token; the source code is the splitter's */
        if (hub_lang_eq(m->source_lang, src) || strcasecmp(m->source_lang, "mul") == 0)
            s = src;
        t = find_code(m, tgt);
    } else if ((hub_lang_eq(m->source_lang, src) || strcasecmp(m->source_lang, "mul") == 0) &&
               hub_lang_eq(m->target_lang, tgt)) {
        s = src; /* one pair (or any source into one target: opus-mt-mul-en): no token */
        t = "";
    }
    if (!s || !t)
        return 0;
    if (src_code)
        *src_code = s;
    if (tgt_code)
        *tgt_code = t;
    return 1;
}

/* A kind's rank: one pair, a multilingual OPUS-MT model (many targets, or "mul" sources),
 * M2M100 / NLLB. */
static int rank(const hub_model *m)
{
    return strcmp(m->family, "m2m100") == 0                          ? 2
           : m->n_langs || strcasecmp(m->source_lang, "mul") == 0 ? 1 : 0;
}

int hub_pair_find(const char *cache, const char *src, const char *tgt, hub_pair_choice *out,
                  char *err, size_t errlen)
{
    hub_cache_info ci;
    int best = 3;
    if (hub_scan(cache, &ci, err, errlen))
        return -1;
    memset(out, 0, sizeof *out);
    for (int i = 0; i < ci.n && best > 0; i++) {
        const hub_repo_info *r = &ci.repos[i];
        const hub_revision *rv = hub_repo_main(r);
        const char *sc, *tc;
        hub_model m;
        if (!rv)
            continue; /* no revision a plain name would load */
        hub_probe_langs(&m, rv->dir, r->repo_id); /* the languages alone: cheap */
        if (rank(&m) < best && hub_model_serves(&m, src, tgt, &sc, &tc)) {
            best = rank(&m);
            snprintf(out->repo_id, sizeof out->repo_id, "%s", r->repo_id);
            snprintf(out->dir, sizeof out->dir, "%s", rv->dir);
            snprintf(out->family, sizeof out->family, "%s", m.family);
            snprintf(out->source_lang, sizeof out->source_lang, "%s", sc);
            snprintf(out->target_lang, sizeof out->target_lang, "%s", tc);
        }
        hub_model_free(&m);
    }
    hub_scan_free(&ci);
    return best < 3;
}

/* 1 when s's language part ("pt" of "pt_BR") is 2-3 lowercase letters, as OPUS-MT's names. */
static int plain_code(const char *s)
{
    size_t n = base_len(s);
    if (n < 2 || n > 3)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!islower((unsigned char)s[i]))
            return 0;
    return 1;
}

void hub_pair_suggest(const char *src, const char *tgt, char *out, size_t n)
{
    if (src && tgt && plain_code(src) && plain_code(tgt))
        snprintf(out, n, "Helsinki-NLP/opus-mt-%.*s-%.*s", (int)base_len(src), src,
                 (int)base_len(tgt), tgt);
    else
        snprintf(out, n, "facebook/nllb-200-distilled-600M");
}

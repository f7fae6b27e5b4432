/* hub_pair.c — which cached model serves a language pair: an OPUS-MT model for the one pair (by
 * its name, Helsinki-NLP/opus-mt-SRC-TGT, or its files' codes), a multilingual OPUS-MT model
 * with the target's >>xx<< token, an M2M100 / NLLB-200 model with both languages among its codes
 * (ISO 639-1 codes mapped to NLLB's FLORES-200 codes for the common languages); and the model to
 * name when none is cached. */
#include "hub/hub_scan.h"
#include "base/util.h"
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* ISO 639-1 -> NLLB-200's code (transformers tokenization_nllb.py FAIRSEQ_LANGUAGE_CODES; the
 * language's main script and, for a macrolanguage, the individual language NLLB was trained on:
 * ar arb, fa pes, lv lvs, ms zsm, mn khk, ne npi, sq als, sw swh, uz uzn, et est, ps pbt,
 * zh zho_Hans, no / nb nob). tests/py/test_hub_models.py checks each against make_m2m100.py's
 * list of the 202 codes. */
static const char *const nllb_codes[][2] = {
    {"af", "afr_Latn"}, {"am", "amh_Ethi"}, {"ar", "arb_Arab"}, {"az", "azj_Latn"},
    {"be", "bel_Cyrl"}, {"bg", "bul_Cyrl"}, {"bn", "ben_Beng"}, {"bs", "bos_Latn"},
    {"ca", "cat_Latn"}, {"cs", "ces_Latn"}, {"cy", "cym_Latn"}, {"da", "dan_Latn"},
    {"de", "deu_Latn"}, {"el", "ell_Grek"}, {"en", "eng_Latn"}, {"eo", "epo_Latn"},
    {"es", "spa_Latn"}, {"et", "est_Latn"}, {"eu", "eus_Latn"}, {"fa", "pes_Arab"},
    {"fi", "fin_Latn"}, {"fr", "fra_Latn"}, {"ga", "gle_Latn"}, {"gl", "glg_Latn"},
    {"gu", "guj_Gujr"}, {"ha", "hau_Latn"}, {"he", "heb_Hebr"}, {"hi", "hin_Deva"},
    {"hr", "hrv_Latn"}, {"hu", "hun_Latn"}, {"hy", "hye_Armn"}, {"id", "ind_Latn"},
    {"ig", "ibo_Latn"}, {"is", "isl_Latn"}, {"it", "ita_Latn"}, {"ja", "jpn_Jpan"},
    {"jv", "jav_Latn"}, {"ka", "kat_Geor"}, {"kk", "kaz_Cyrl"}, {"km", "khm_Khmr"},
    {"kn", "kan_Knda"}, {"ko", "kor_Hang"}, {"ky", "kir_Cyrl"}, {"lb", "ltz_Latn"},
    {"lo", "lao_Laoo"}, {"lt", "lit_Latn"}, {"lv", "lvs_Latn"}, {"mk", "mkd_Cyrl"},
    {"ml", "mal_Mlym"}, {"mn", "khk_Cyrl"}, {"mr", "mar_Deva"}, {"ms", "zsm_Latn"},
    {"mt", "mlt_Latn"}, {"my", "mya_Mymr"}, {"nb", "nob_Latn"}, {"ne", "npi_Deva"},
    {"nl", "nld_Latn"}, {"nn", "nno_Latn"}, {"no", "nob_Latn"}, {"pa", "pan_Guru"},
    {"pl", "pol_Latn"}, {"ps", "pbt_Arab"}, {"pt", "por_Latn"}, {"ro", "ron_Latn"},
    {"ru", "rus_Cyrl"}, {"si", "sin_Sinh"}, {"sk", "slk_Latn"}, {"sl", "slv_Latn"},
    {"so", "som_Latn"}, {"sq", "als_Latn"}, {"sr", "srp_Cyrl"}, {"su", "sun_Latn"},
    {"sv", "swe_Latn"}, {"sw", "swh_Latn"}, {"ta", "tam_Taml"}, {"te", "tel_Telu"},
    {"tg", "tgk_Cyrl"}, {"th", "tha_Thai"}, {"tk", "tuk_Latn"}, {"tl", "tgl_Latn"},
    {"tr", "tur_Latn"}, {"tt", "tat_Cyrl"}, {"ug", "uig_Arab"}, {"uk", "ukr_Cyrl"},
    {"ur", "urd_Arab"}, {"uz", "uzn_Latn"}, {"vi", "vie_Latn"}, {"xh", "xho_Latn"},
    {"yo", "yor_Latn"}, {"zh", "zho_Hans"}, {"zu", "zul_Latn"},
};

/* The language part of a code: its length up to a region ("en_US", "pt-BR"). */
static size_t base_len(const char *s)
{
    return strcspn(s, "_-");
}

const char *hub_nllb_code(const char *iso)
{
    size_t n = iso ? base_len(iso) : 0;
    if (n != 2)
        return NULL;
    for (size_t i = 0; i < sizeof nllb_codes / sizeof *nllb_codes; i++)
        if (strncasecmp(nllb_codes[i][0], iso, 2) == 0)
            return nllb_codes[i][1];
    return NULL;
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
    const char *nllb = hub_nllb_code(lang);
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
    const char *c = hub_nllb_code(lang);
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

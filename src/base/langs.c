/* langs.c — the one table of short language codes (ISO 639-1, as LibreTranslate and its
 * clients send them) and NLLB-200's codes, read both ways (langs.h). */
#include "base/langs.h"
#include <stddef.h>
#include <string.h>
#include <strings.h>

/* ISO 639-1 -> NLLB-200's code (transformers tokenization_nllb.py FAIRSEQ_LANGUAGE_CODES; the
 * language's main script and, for a macrolanguage, the individual language NLLB was trained on:
 * ar arb, fa pes, lv lvs, ms zsm, mn khk, ne npi, sq als, sw swh, uz uzn, et est, ps pbt,
 * zh zho_Hans, no / nb nob). tests/py/test_hub_models.py checks each against make_m2m100.py's
 * list of the 202 codes. The first entry of an NLLB code is its short code (lang_short_code):
 * nb before no, as LibreTranslate lists Norwegian; the codes LibreTranslate has beyond ISO
 * 639-1 (argos-translate's packages: zt Traditional Chinese, pb Brazilian Portuguese) come last
 * for that reason. */
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
    {"zt", "zho_Hant"}, {"pb", "por_Latn"},
};

/* 1 when the part of s after its language ("-TW" of "zh-TW") names Traditional Chinese. */
static int traditional(const char *rest)
{
    static const char *const tags[] = {"hant", "tw", "hk", "mo"};
    while (*rest == '-' || *rest == '_') {
        size_t n;
        rest++;
        n = strcspn(rest, "-_");
        for (size_t i = 0; i < sizeof tags / sizeof *tags; i++)
            if (n == strlen(tags[i]) && strncasecmp(rest, tags[i], n) == 0)
                return 1;
        rest += n;
    }
    return 0;
}

const char *lang_nllb_code(const char *code)
{
    size_t n = code ? strcspn(code, "_-") : 0;
    if (n != 2)
        return NULL;
    if (strncasecmp(code, "zh", 2) == 0 && traditional(code + 2))
        return "zho_Hant";
    for (size_t i = 0; i < sizeof nllb_codes / sizeof *nllb_codes; i++)
        if (strncasecmp(nllb_codes[i][0], code, 2) == 0)
            return nllb_codes[i][1];
    return NULL;
}

const char *lang_short_code(const char *nllb)
{
    for (size_t i = 0; nllb && i < sizeof nllb_codes / sizeof *nllb_codes; i++)
        if (strcmp(nllb_codes[i][1], nllb) == 0)
            return nllb_codes[i][0];
    return NULL;
}

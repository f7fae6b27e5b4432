/* langs.h — language codes as users and LibreTranslate clients write them (ISO 639-1: "de") and
 * as NLLB-200 models name them (FLORES-200: "deu_Latn"), both ways: the command line's --from /
 * --to (hub_pair.c) and xlate serve's routes and /languages (serve_routes.c) share this one
 * table. */
#ifndef XLATE_LANGS_H
#define XLATE_LANGS_H

/* The NLLB-200 code of a short code, or NULL when the table has none. The language part is
 * read up to a region or script ("pt_BR", "en-US" as "pt", "en"), case-insensitively. Chinese
 * is the ambiguous one: "zh" is zho_Hans (the script most of its speakers write), "zh" with
 * "Hant", "TW", "HK" or "MO" after it ("zh-TW", "zh_Hant") and LibreTranslate's "zt" (its code
 * for Traditional Chinese) are zho_Hant. */
const char *lang_nllb_code(const char *code);

/* The short code that stands for an NLLB-200 code ("deu_Latn" -> "de"), or NULL when none does
 * (exact case). Where two short codes map to one NLLB code (nb and no: nob_Latn; pt and
 * LibreTranslate's pb: por_Latn) it is the first: the one LibreTranslate lists. */
const char *lang_short_code(const char *nllb);

#endif

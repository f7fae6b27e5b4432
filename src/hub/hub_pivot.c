/* hub_pivot.c — a language pair through a pivot language (issue 48, hub_pivot.h): the pivots
 * tried are English first, then every target language of a cached model that takes src (a
 * one-pair model's target, a multilingual model's >>xx<< codes, an M2M100 / NLLB model's codes
 * as short codes); each leg is hub_pair_find's pick, so a leg is chosen as a direct pair is. */
#include "hub/hub_pivot.h"
#include "base/langs.h"
#include "base/util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tries one pivot: 1 with both legs, 0, -1 with err. */
static int try_pivot(const char *cache, const char *src, const char *p, const char *tgt,
                     hub_pair_choice *first, hub_pair_choice *second, char *err, size_t errlen)
{
    int rc;
    if (hub_lang_eq(p, src) || hub_lang_eq(p, tgt))
        return 0;
    if ((rc = hub_pair_find(cache, src, p, first, err, errlen)) <= 0)
        return rc;
    return hub_pair_find(cache, p, tgt, second, err, errlen);
}

int hub_pivot_find(const char *cache, const char *src, const char *tgt, char *pivot,
                   size_t pivot_len, hub_pair_choice *first, hub_pair_choice *second,
                   char *looked, size_t looked_len, char *err, size_t errlen)
{
    hub_cache_info ci;
    size_t used = 0;
    int rc = try_pivot(cache, src, "en", tgt, first, second, err, errlen);

    if (looked_len)
        looked[0] = 0;
    if (rc) {
        if (rc > 0)
            snprintf(pivot, pivot_len, "en");
        return rc;
    }
    if (hub_scan(cache, &ci, err, errlen))
        return -1;
    for (int i = 0; i < ci.n && rc == 0; i++) {
        const hub_revision *rv = hub_repo_main(&ci.repos[i]);
        hub_model m;
        if (!rv)
            continue;
        hub_probe_langs(&m, rv->dir, ci.repos[i].repo_id);
        if (hub_model_runs(&m) && used + 1 < looked_len) {
            /* what the message of a refused pair names */
            if (m.source_lang[0] && m.target_lang[0] && !m.n_langs)
                used += (size_t)snprintf(looked + used, looked_len - used, "%s%s (%s -> %s)",
                                         used ? ", " : "", ci.repos[i].repo_id, m.source_lang,
                                         m.target_lang);
            else
                used += (size_t)snprintf(looked + used, looked_len - used, "%s%s (%d languages)",
                                         used ? ", " : "", ci.repos[i].repo_id, m.n_langs);
            if (used >= looked_len)
                used = looked_len - 1;
        }
        /* the targets of a model that takes src: each a pivot to try */
        if (hub_model_runs(&m) && !m.n_langs && hub_model_serves(&m, src, m.target_lang, NULL,
                                                                  NULL))
            rc = try_pivot(cache, src, m.target_lang, tgt, first, second, err, errlen) > 0
                 ? (snprintf(pivot, pivot_len, "%s", m.target_lang), 1) : 0;
        for (int k = 0; rc == 0 && k < m.n_langs; k++) {
            const char *p = m.langs[k], *s = lang_short_code(p);
            if (!hub_model_serves(&m, src, p, NULL, NULL))
                continue;
            if (try_pivot(cache, src, s ? s : p, tgt, first, second, err, errlen) > 0) {
                snprintf(pivot, pivot_len, "%s", s ? s : p);
                rc = 1;
            }
        }
        hub_model_free(&m);
    }
    hub_scan_free(&ci);
    return rc;
}

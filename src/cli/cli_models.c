/* cli_models.c — `xlate models [--json]`: the models in the Hugging Face hub's cache
 * (hub_scan.h), one line each: repo id, family, languages, revisions (refs and short commits),
 * size on disk, and whether every file xlate needs is there (else the missing files) or why
 * xlate cannot run it. --json: an array of objects, every revision with its own verdict. */
#include "cli/cli.h"
#include "cli/cli_common.h"
#include "hub/hub_scan.h"
#include "xlate.h"
#include <cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One repo as a line shows it: its revision refs/main names (else its only or first one). */
typedef struct {
    const hub_repo_info *r;
    const hub_revision *rv;  /* NULL: no snapshot */
    hub_model *probe;        /* [r->n_revs], probe[i] of r->revs[i] */
    int main_i;              /* rv's index */
} repo_view;

static const char *family_word(const hub_model *m)
{
    return !m->family[0] ? "?" : m->nllb ? "nllb" : m->family;
}

static void langs_text(const hub_model *m, char *out, size_t n)
{
    if (strcmp(m->family, "m2m100") == 0 && m->n_langs)
        snprintf(out, n, "%d languages", m->n_langs);
    else if (m->n_langs)
        snprintf(out, n, "%s -> %d languages", m->source_lang[0] ? m->source_lang : "?",
                 m->n_langs);
    else if (m->source_lang[0] || m->target_lang[0])
        snprintf(out, n, "%s -> %s", m->source_lang[0] ? m->source_lang : "?",
                 m->target_lang[0] ? m->target_lang : "?");
    else
        snprintf(out, n, "-");
}

static void revs_text(const hub_repo_info *r, char *out, size_t n)
{
    size_t w = 0;
    out[0] = '\0';
    for (int i = 0; i < r->n_revs && w < n; i++) {
        const hub_revision *rv = &r->revs[i];
        w += (size_t)snprintf(out + w, n - w, "%s", i ? ", " : "");
        for (int k = 0; k < rv->n_refs && w < n; k++)
            w += (size_t)snprintf(out + w, n - w, "%s%s", k ? "," : "", rv->refs[k]);
        if (w < n)
            w += (size_t)snprintf(out + w, n - w, "%s%.7s", rv->n_refs ? ":" : "", rv->commit);
    }
    if (!r->n_revs)
        snprintf(out, n, "-");
}

/* The main revision's verdict, then the repo's own problem (a ref to a missing snapshot). */
static void status_text(const repo_view *v, char *out, size_t n)
{
    const hub_model *m = v->rv ? &v->probe[v->main_i] : NULL;
    const char *rp = v->r->problem;
    if (!m)
        snprintf(out, n, "cannot run: %s", rp[0] ? rp : "no snapshot");
    else if (m->missing[0])
        snprintf(out, n, "incomplete: missing %s%s%s", m->missing, rp[0] ? "; " : "", rp);
    else if (m->problem[0])
        snprintf(out, n, "cannot run: %s%s%s", m->problem, rp[0] ? "; " : "", rp);
    else
        snprintf(out, n, "complete%s%s", rp[0] ? "; " : "", rp);
}

static int print_text(const repo_view *v, int n)
{
    int w[4] = {0, 0, 0, 0};
    char lang[128], revs[512], size[32], status[1100];
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            const hub_model *m = v[i].rv ? &v[i].probe[v[i].main_i] : NULL;
            const char *fam = m ? family_word(m) : "?";
            if (m)
                langs_text(m, lang, sizeof lang);
            else
                snprintf(lang, sizeof lang, "-");
            revs_text(v[i].r, revs, sizeof revs);
            hub_format_size(v[i].r->size, size, sizeof size);
            if (pass == 0) {
                int l[4] = {(int)strlen(v[i].r->repo_id), (int)strlen(fam), (int)strlen(lang),
                            (int)strlen(revs)};
                for (int k = 0; k < 4; k++)
                    w[k] = l[k] > w[k] ? l[k] : w[k];
                continue;
            }
            status_text(&v[i], status, sizeof status);
            printf("%-*s  %-*s  %-*s  %-*s  %7s  %s\n", w[0], v[i].r->repo_id, w[1], fam, w[2],
                   lang, w[3], revs, size, status);
        }
    return 0;
}

static cJSON *str_or_null(const char *s)
{
    return s && s[0] ? cJSON_CreateString(s) : cJSON_CreateNull();
}

/* A probe's fields into o (the revision's, or the repo's own from its main revision). */
static int probe_json(cJSON *o, const hub_model *m)
{
    cJSON *langs = cJSON_AddArrayToObject(o, "languages"), *miss;
    int ok = langs != NULL;
    char buf[sizeof m->missing], *save = NULL, *tok;
    ok = ok && cJSON_AddItemToObject(o, "family", str_or_null(m->family));
    ok = ok && cJSON_AddBoolToObject(o, "nllb", m->nllb);
    for (int i = 0; ok && i < m->n_langs; i++)
        ok = cJSON_AddItemToArray(langs, cJSON_CreateString(m->langs[i]));
    ok = ok && cJSON_AddItemToObject(o, "source_lang", str_or_null(m->source_lang));
    ok = ok && cJSON_AddItemToObject(o, "target_lang", str_or_null(m->target_lang));
    ok = ok && cJSON_AddBoolToObject(o, "complete", m->family[0] && !m->missing[0]);
    ok = ok && (miss = cJSON_AddArrayToObject(o, "missing"));
    snprintf(buf, sizeof buf, "%s", m->missing);
    for (tok = strtok_r(buf, ",", &save); ok && tok; tok = strtok_r(NULL, ",", &save))
        ok = cJSON_AddItemToArray(miss, cJSON_CreateString(tok + (tok[0] == ' ')));
    ok = ok && cJSON_AddBoolToObject(o, "runs", hub_model_runs(m));
    ok = ok && cJSON_AddItemToObject(o, "reason", str_or_null(m->problem));
    return ok;
}

/* [{"repo_id", "repo_path", "size_on_disk", "nb_files", "problem", "revision" (the main one's
 *   commit), its family, nllb, languages, source_lang, target_lang, complete, missing, runs,
 *   reason, "revisions": [{"commit", "refs", "snapshot_path", "size_on_disk", "nb_files", and
 *   the same probe fields}]}] on one line; the names of huggingface_hub's CachedRepoInfo /
 *   CachedRevisionInfo where they are its values. */
static int print_json(const repo_view *v, int n)
{
    cJSON *a = cJSON_CreateArray();
    char *s = NULL;
    int ok = a != NULL;
    for (int i = 0; ok && i < n; i++) {
        const hub_repo_info *r = v[i].r;
        cJSON *o = cJSON_CreateObject(), *revs;
        ok = o && cJSON_AddItemToArray(a, o);
        ok = ok && cJSON_AddStringToObject(o, "repo_id", r->repo_id);
        ok = ok && cJSON_AddStringToObject(o, "repo_path", r->dir);
        ok = ok && cJSON_AddNumberToObject(o, "size_on_disk", (double)r->size);
        ok = ok && cJSON_AddNumberToObject(o, "nb_files", r->n_blobs);
        ok = ok && cJSON_AddItemToObject(o, "problem", str_or_null(r->problem));
        ok = ok && cJSON_AddItemToObject(o, "revision", str_or_null(v[i].rv ? v[i].rv->commit
                                                                             : NULL));
        if (ok && v[i].rv) {
            ok = probe_json(o, &v[i].probe[v[i].main_i]);
        } else if (ok) {
            ok = cJSON_AddNullToObject(o, "family") && cJSON_AddBoolToObject(o, "runs", 0) &&
                 cJSON_AddItemToObject(o, "reason", str_or_null(r->problem[0] ? r->problem
                                                                              : "no snapshot"));
        }
        ok = ok && (revs = cJSON_AddArrayToObject(o, "revisions"));
        for (int j = 0; ok && j < r->n_revs; j++) {
            const hub_revision *rv = &r->revs[j];
            cJSON *ro = cJSON_CreateObject(), *refs;
            ok = ro && cJSON_AddItemToArray(revs, ro);
            ok = ok && cJSON_AddStringToObject(ro, "commit", rv->commit);
            ok = ok && (refs = cJSON_AddArrayToObject(ro, "refs"));
            for (int k = 0; ok && k < rv->n_refs; k++)
                ok = cJSON_AddItemToArray(refs, cJSON_CreateString(rv->refs[k]));
            ok = ok && cJSON_AddStringToObject(ro, "snapshot_path", rv->dir);
            ok = ok && cJSON_AddNumberToObject(ro, "size_on_disk", (double)rv->size);
            ok = ok && cJSON_AddNumberToObject(ro, "nb_files", rv->n_files);
            ok = ok && probe_json(ro, &v[i].probe[j]);
        }
    }
    if (ok && (s = cJSON_PrintUnformatted(a)))
        printf("%s\n", s);
    free(s);
    cJSON_Delete(a);
    return ok && s ? 0 : -1;
}

int cmd_models(int argc, char **argv)
{
    char err[XLATE_ERRLEN];
    int json = 0, status = XLATE_EXIT_OK;
    hub_cache_info ci;
    repo_view *v = NULL;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("Usage: xlate models [--json]\n"
                   "Lists the models in the Hugging Face hub's cache (HF_HUB_CACHE, else\n"
                   "HF_HOME/hub, else ~/.cache/huggingface/hub), one line each: the repo id,\n"
                   "family, languages, revisions (ref:commit), size on disk, and \"complete\",\n"
                   "the files xlate needs that are missing, or why xlate cannot run it.\n"
                   "--json: an array of objects, each revision with its own verdict.\n"
                   "A model is fetched with `xlate pull ORG/NAME` and run with\n"
                   "`xlate -m ORG/NAME`.\n");
            return fflush(stdout) == 0 ? XLATE_EXIT_OK : XLATE_EXIT_OUTPUT;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else {
            char q[200];
            fprintf(stderr, "xlate models: unexpected argument \"%s\" (see xlate models "
                    "--help)\n", cli_quote(q, sizeof q, argv[i], strlen(argv[i])));
            return XLATE_EXIT_USAGE;
        }
    }
    if (hub_scan(NULL, &ci, err, sizeof err)) {
        fprintf(stderr, "xlate: %s\n", err);
        return XLATE_EXIT_MODEL;
    }
    if (ci.n && !(v = calloc((size_t)ci.n, sizeof *v))) {
        hub_scan_free(&ci);
        fprintf(stderr, "xlate: out of memory\n");
        return XLATE_EXIT_INTERNAL;
    }
    for (int i = 0; i < ci.n; i++) {
        const hub_repo_info *r = &ci.repos[i];
        v[i].r = r;
        v[i].rv = hub_repo_main(r);
        if (!v[i].rv && r->n_revs)
            v[i].rv = &r->revs[0];
        v[i].main_i = v[i].rv ? (int)(v[i].rv - r->revs) : 0;
        if (r->n_revs && !(v[i].probe = calloc((size_t)r->n_revs, sizeof *v[i].probe))) {
            status = XLATE_EXIT_INTERNAL;
            fprintf(stderr, "xlate: out of memory\n");
            goto done;
        }
        for (int j = 0; j < r->n_revs; j++)
            hub_probe(&v[i].probe[j], r->revs[j].dir, r->repo_id, 1);
    }
    if (json ? print_json(v, ci.n) : print_text(v, ci.n)) {
        fprintf(stderr, "xlate: out of memory\n");
        status = XLATE_EXIT_INTERNAL;
        goto done;
    }
    if (!ci.n && !json)
        fprintf(stderr, "xlate: no models in the hub cache %s (xlate pull ORG/NAME fetches "
                "one)\n", ci.cache);
    if (cli_flush_stdout())
        status = XLATE_EXIT_OUTPUT;
done:
    for (int i = 0; v && i < ci.n; i++) {
        for (int j = 0; v[i].probe && j < ci.repos[i].n_revs; j++)
            hub_model_free(&v[i].probe[j]);
        free(v[i].probe);
    }
    free(v);
    hub_scan_free(&ci);
    return status;
}

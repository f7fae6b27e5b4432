/* cli_models.c — `xlate models [--json]`: the models xlate can run by name. First those
 * shipped with it (the models/ directories -m NAME looks in, cli_shipped_bases), the default
 * marked and each said for what it is (the first clause of its config's description); then
 * those in the Hugging Face hub's cache (hub_scan.h). One line each: name or repo id, family,
 * languages, revisions ("shipped", or refs and short commits), size on disk, and whether every
 * file xlate needs is there (else the missing files) or why xlate cannot run it. --json: an
 * array of objects, every revision with its own verdict, "shipped" telling the two apart. */
#include "cli/cli.h"
#include "cli/cli_common.h"
#include "hub/hub_scan.h"
#include "xlate.h"
#include "model/config.h"
#include <cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One repo as a line shows it: its revision refs/main names (else its only or first one). */
typedef struct {
    const hub_repo_info *r;
    const hub_revision *rv;  /* NULL: no snapshot */
    hub_model *probe;        /* [r->n_revs], probe[i] of r->revs[i] */
    int main_i;              /* rv's index */
} repo_view;

/* A model shipped with xlate: models/NAME in one of cli_shipped_bases (the most local of a
 * name, the one -m NAME runs). */
typedef struct {
    char name[256];
    char dir[PATH_MAX + 260];
    long long size;          /* its files' bytes */
    int n_files;
    int is_default;          /* the model xlate runs without -m */
    char *description;       /* owned: config.json's "description", or NULL */
    hub_model probe;
} shipped_model;

static int by_name(const void *a, const void *b)
{
    return strcmp(((const shipped_model *)a)->name, ((const shipped_model *)b)->name);
}

/* dir's regular files (symlinks followed, as a load reads them): their bytes and count */
static void dir_size(const char *dir, long long *size, int *n_files)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    *size = 0;
    *n_files = 0;
    while (d && (e = readdir(d))) {
        char p[PATH_MAX + 520];
        struct stat sb;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (e->d_name[0] != '.' && stat(p, &sb) == 0 && S_ISREG(sb.st_mode)) {
            *size += (long long)sb.st_size;
            (*n_files)++;
        }
    }
    if (d)
        closedir(d);
}

/* The shipped models, sorted by name, into *out ([*n], owned; shipped_free). A name in two
 * models/ directories is the most local one's. Returns 0, or -1 out of memory. */
static int shipped_scan(shipped_model **out, int *n)
{
    char bases[CLI_SHIPPED_BASES][PATH_MAX], def[PATH_MAX + 64], err[XLATE_ERRLEN];
    char def_real[PATH_MAX], real[PATH_MAX];
    int nb = cli_shipped_bases(bases), cap = 0, has_def;
    shipped_model *v = NULL;

    *out = NULL;
    *n = 0;
    /* the default: where xlate without -m goes (XLATE_MODEL included); a hub name there is
     * no shipped model and is not resolved (that could download) */
    const char *env = getenv("XLATE_MODEL");
    struct stat esb;
    int hub_env = env && env[0] && stat(env, &esb) != 0 && strchr(env, '/');
    has_def = !hub_env && find_model_dir_quiet(NULL, 1, def, sizeof def, err, sizeof err) == 0 &&
              realpath(def, def_real) != NULL;
    for (int b = 0; b < nb; b++) {
        DIR *d = opendir(bases[b]);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            char cfg[PATH_MAX + 300];
            struct stat sb;
            int seen = 0;
            if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof v->name)
                continue;
            snprintf(cfg, sizeof cfg, "%.4000s/%.255s/config.json", bases[b], e->d_name);
            if (stat(cfg, &sb) != 0 || !S_ISREG(sb.st_mode))
                continue;
            for (int i = 0; i < *n; i++)
                seen |= strcmp(v[i].name, e->d_name) == 0;
            if (seen)
                continue;
            if (*n == cap) {
                shipped_model *g = realloc(v, (size_t)(cap = cap ? 2 * cap : 4) * sizeof *v);
                if (!g) {
                    closedir(d);
                    *out = v;
                    return -1;
                }
                v = g;
            }
            shipped_model *m = &v[(*n)++];
            memset(m, 0, sizeof *m);
            snprintf(m->name, sizeof m->name, "%s", e->d_name);
            snprintf(m->dir, sizeof m->dir, "%.4000s/%.255s", bases[b], e->d_name);
        }
        if (d)
            closedir(d);
    }
    *out = v;
    if (*n > 1)
        qsort(v, (size_t)*n, sizeof *v, by_name);
    for (int i = 0; i < *n; i++) {
        shipped_model *m = &v[i];
        model_config c;
        char cfg[PATH_MAX + 300];
        dir_size(m->dir, &m->size, &m->n_files);
        m->is_default = has_def && realpath(m->dir, real) && strcmp(real, def_real) == 0;
        snprintf(cfg, sizeof cfg, "%s/config.json", m->dir);
        if (config_load(&c, cfg, NULL, NULL, err, sizeof err) == 0) {
            if (c.description && !(m->description = strdup(c.description))) {
                config_free(&c);
                return -1;
            }
            config_free(&c);
        }
        /* the family, languages and verdict as a cached model's (a bare name gives no pair) */
        hub_probe(&m->probe, m->dir, "", 1);
    }
    return 0;
}

static void shipped_free(shipped_model *v, int n)
{
    for (int i = 0; v && i < n; i++) {
        free(v[i].description);
        hub_model_free(&v[i].probe);
    }
    free(v);
}

/* The description's first clause (to its first ": " or ". "), whole words, at most max bytes
 * then "...": a line of the listing; the whole text is in --json and `xlate info`. */
static void first_clause(const char *desc, char *out, size_t max)
{
    size_t n = 0, cut;
    while (desc[n] && !((desc[n] == ':' || desc[n] == '.') && (desc[n + 1] == ' ' ||
                                                                 !desc[n + 1])))
        n++;
    if (n < max) {
        snprintf(out, max + 1, "%.*s", (int)n, desc);
        return;
    }
    cut = max - 3;
    while (cut > 0 && desc[cut] != ' ')
        cut--;
    snprintf(out, max + 1, "%.*s...", (int)(cut ? cut : max - 3), desc);
}

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

/* One line of the text listing. */
typedef struct {
    const char *id, *fam;
    char lang[128], revs[512], size[32], status[1100];
} text_row;

static void shipped_row(const shipped_model *m, text_row *t)
{
    char what[200] = "";
    if (m->description)
        first_clause(m->description, what, 120);
    t->id = m->name;
    t->fam = family_word(&m->probe);
    langs_text(&m->probe, t->lang, sizeof t->lang);
    snprintf(t->revs, sizeof t->revs, "%s", m->is_default ? "shipped,default" : "shipped");
    hub_format_size(m->size, t->size, sizeof t->size);
    if (m->probe.missing[0])
        snprintf(t->status, sizeof t->status, "incomplete: missing %s", m->probe.missing);
    else if (m->probe.problem[0])
        snprintf(t->status, sizeof t->status, "cannot run: %s", m->probe.problem);
    else
        snprintf(t->status, sizeof t->status, "complete%s%s", what[0] ? ": " : "", what);
}

static void repo_row(const repo_view *v, text_row *t)
{
    const hub_model *m = v->rv ? &v->probe[v->main_i] : NULL;
    t->id = v->r->repo_id;
    t->fam = m ? family_word(m) : "?";
    if (m)
        langs_text(m, t->lang, sizeof t->lang);
    else
        snprintf(t->lang, sizeof t->lang, "-");
    revs_text(v->r, t->revs, sizeof t->revs);
    hub_format_size(v->r->size, t->size, sizeof t->size);
    status_text(v, t->status, sizeof t->status);
}

/* s into out with its control bytes as \xNN (C0, DEL, and C1 as UTF-8 writes them: C2 80-9F),
 * the rest (UTF-8 text) as it is: the cache's names and files are anyone's bytes (a ref holding
 * an escape sequence, issue 51 item 9), and they must not drive the terminal. */
static void shown(char *out, size_t n, const char *s)
{
    size_t k = 0;
    for (const unsigned char *c = (const unsigned char *)s; *c && k + 5 < n; c++) {
        if (*c < 0x20 || *c == 0x7f) {
            k += (size_t)snprintf(out + k, n - k, "\\x%02x", *c);
        } else if (*c == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f) {
            k += (size_t)snprintf(out + k, n - k, "\\x%02x\\x%02x", c[0], c[1]);
            c++;
        } else {
            out[k++] = (char)*c;
        }
    }
    out[k] = '\0';
}

/* The shipped models, then the cached ones, in columns as wide as their widest entry. */
static int print_text(const shipped_model *s, int ns, const repo_view *v, int n)
{
    int w[4] = {0, 0, 0, 0};
    text_row t;
    char q[5][4400];
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < ns + n; i++) {
            if (i < ns)
                shipped_row(&s[i], &t);
            else
                repo_row(&v[i - ns], &t);
            shown(q[0], sizeof q[0], t.id);
            shown(q[1], sizeof q[1], t.fam);
            shown(q[2], sizeof q[2], t.lang);
            shown(q[3], sizeof q[3], t.revs);
            shown(q[4], sizeof q[4], t.status);
            if (pass == 0) {
                for (int k = 0; k < 4; k++)
                    w[k] = (int)strlen(q[k]) > w[k] ? (int)strlen(q[k]) : w[k];
                continue;
            }
            printf("%-*s  %-*s  %-*s  %-*s  %7s  %s\n", w[0], q[0], w[1], q[1], w[2], q[2],
                   w[3], q[3], t.size, q[4]);
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

/* A shipped model's object: {"repo_id": its name, "shipped": true, "default", "repo_path",
 * "size_on_disk", "nb_files", "problem": null, "revision": null, the probe fields,
 * "description", "revisions": []}: a cached repo's keys, so one reader takes both. */
static int shipped_json(cJSON *a, const shipped_model *m)
{
    cJSON *o = cJSON_CreateObject();
    int ok = o && cJSON_AddItemToArray(a, o);
    ok = ok && cJSON_AddStringToObject(o, "repo_id", m->name);
    ok = ok && cJSON_AddBoolToObject(o, "shipped", 1);
    ok = ok && cJSON_AddBoolToObject(o, "default", m->is_default);
    ok = ok && cJSON_AddStringToObject(o, "repo_path", m->dir);
    ok = ok && cJSON_AddNumberToObject(o, "size_on_disk", (double)m->size);
    ok = ok && cJSON_AddNumberToObject(o, "nb_files", m->n_files);
    ok = ok && cJSON_AddNullToObject(o, "problem");
    ok = ok && cJSON_AddNullToObject(o, "revision");
    ok = ok && probe_json(o, &m->probe);
    ok = ok && cJSON_AddItemToObject(o, "description", str_or_null(m->description));
    ok = ok && cJSON_AddArrayToObject(o, "revisions");
    return ok;
}

/* [the shipped models' objects (shipped_json), then the cached repos': {"repo_id",
 *   "shipped": false, "repo_path", "size_on_disk", "nb_files", "problem", "revision" (the main
 *   one's commit), its family, nllb, languages, source_lang, target_lang, complete, missing,
 *   runs, reason, "revisions": [{"commit", "refs", "snapshot_path", "size_on_disk",
 *   "nb_files", and the same probe fields}]}] on one line; the names of huggingface_hub's
 *   CachedRepoInfo / CachedRevisionInfo where they are its values. */
static int print_json(const shipped_model *sm, int ns, const repo_view *v, int n)
{
    cJSON *a = cJSON_CreateArray();
    char *s = NULL;
    int ok = a != NULL;
    for (int i = 0; ok && i < ns; i++)
        ok = shipped_json(a, &sm[i]);
    for (int i = 0; ok && i < n; i++) {
        const hub_repo_info *r = v[i].r;
        cJSON *o = cJSON_CreateObject(), *revs;
        ok = o && cJSON_AddItemToArray(a, o);
        ok = ok && cJSON_AddStringToObject(o, "repo_id", r->repo_id);
        ok = ok && cJSON_AddBoolToObject(o, "shipped", 0);
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
    shipped_model *sm = NULL;
    int ns = 0;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("Usage: xlate models [--json]\n"
                   "Lists the models xlate runs by name: first those shipped with it (run\n"
                   "with `xlate -m NAME`; \"shipped,default\" marks the one xlate runs without\n"
                   "-m), then those in the Hugging Face hub's cache (HF_HUB_CACHE, else\n"
                   "HF_HOME/hub, else ~/.cache/huggingface/hub). One line each: the name or\n"
                   "repo id, family, languages, revisions (\"shipped\", or ref:commit), size\n"
                   "on disk, and \"complete\" (a shipped model: and what it is), the files\n"
                   "xlate needs that are missing, or why xlate cannot run it.\n"
                   "--json: an array of objects, each revision with its own verdict, a\n"
                   "shipped model's with \"shipped\", \"default\" and its whole description.\n"
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
    if (shipped_scan(&sm, &ns)) {
        status = XLATE_EXIT_INTERNAL;
        fprintf(stderr, "xlate: out of memory\n");
        goto done;
    }
    if (ci.n && !(v = calloc((size_t)ci.n, sizeof *v))) {
        status = XLATE_EXIT_INTERNAL;
        fprintf(stderr, "xlate: out of memory\n");
        goto done;
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
    if (json ? print_json(sm, ns, v, ci.n) : print_text(sm, ns, v, ci.n)) {
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
    shipped_free(sm, ns);
    hub_scan_free(&ci);
    return status;
}

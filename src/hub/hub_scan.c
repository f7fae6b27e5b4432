/* hub_scan.c — the hub cache's model repositories as huggingface_hub's scan_cache_dir reads them
 * (src/huggingface_hub/utils/_cache_manager.py at ee0a4510, cited by line), and what model a
 * snapshot holds (hub_probe: the library's config and tokenizer readers, no second parser).
 * xlate's one difference: a broken link or a ref to a missing snapshot makes huggingface_hub drop
 * the whole repo as corrupted (_cache_manager.py:800-801, :838-841); xlate keeps listing it, the
 * file named as missing or the ref as the repo's problem, so that `xlate models` says why. */
#include "hub/hub_scan.h"
#include "hub/hub.h"
#include "model/config.h"
#include "model/family.h"
#include "model/weights.h"
#include "text/hf_tok.h"
#include "text/m2m_tok.h"
#include "base/util.h"
#include "base/json.h"
#include "xlate.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------ small helpers */

typedef struct {
    char **v;
    int n, cap;
} strlist;

static int strlist_add(strlist *l, const char *s)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 8;
        char **v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    if (!(l->v[l->n] = strdup(s)))
        return -1;
    l->n++;
    return 0;
}

static void strlist_free(strlist *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* huggingface_hub FILES_TO_IGNORE (_cache_manager.py:36) and the dot entries */
static int ignored(const char *name)
{
    return strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strcmp(name, ".DS_Store") == 0 ||
           strcmp(name, "Thumbs.db") == 0 || strcmp(name, "desktop.ini") == 0;
}

/* Every non-folder below dir (links followed, as glob("**") does), as paths relative to it;
 * at most WALK_DEPTH folders deep (a link to a folder above cannot loop it forever). */
enum { WALK_DEPTH = 32 };
static int walk_at(const char *dir, const char *rel, strlist *out, int depth)
{
    char *path = rel[0] ? path_join(dir, rel) : strdup(dir);
    DIR *d = path ? opendir(path) : NULL;
    struct dirent *e;
    int rc = 0;
    if (!d) {
        free(path);
        return path ? 0 : -1; /* an unreadable folder holds nothing usable */
    }
    while (rc == 0 && (e = readdir(d))) {
        char *sub, *full;
        struct stat sb;
        if (ignored(e->d_name))
            continue;
        sub = rel[0] ? path_join(rel, e->d_name) : strdup(e->d_name);
        full = sub ? path_join(dir, sub) : NULL;
        if (!full)
            rc = -1;
        else if (stat(full, &sb) == 0 && S_ISDIR(sb.st_mode))
            rc = depth < WALK_DEPTH ? walk_at(dir, sub, out, depth + 1) : 0;
        else
            rc = strlist_add(out, sub);
        free(sub);
        free(full);
    }
    closedir(d);
    free(path);
    return rc;
}

static int walk(const char *dir, const char *rel, strlist *out)
{
    return walk_at(dir, rel, out, 0);
}

/* A ref's text (its first n - 1 bytes), whitespace-trimmed, into out; -1 with err when it is
 * not a regular file or unreadable: hub_open_file, so that a FIFO there never blocks the scan
 * (issue 51 item 12: `xlate models` waited forever on a refs/main FIFO). */
static int read_ref(const char *path, char *out, size_t n, char *err, size_t errlen)
{
    int fd = hub_open_file(path, O_RDONLY, 0, err, errlen);
    ssize_t len = 0;
    out[0] = '\0';
    if (fd < 0)
        return -1;
    for (;;) {
        ssize_t r = read(fd, out + len, n - 1 - (size_t)len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            xerr(err, errlen, "%s: cannot read: %s", path, strerror(errno));
            close(fd);
            out[0] = '\0';
            return -1;
        }
        len += r;
        if (r == 0 || (size_t)len == n - 1)
            break;
    }
    close(fd);
    out[len] = '\0';
    while (len && (out[len - 1] == '\n' || out[len - 1] == '\r' || out[len - 1] == ' '))
        out[--len] = '\0';
    return 0;
}

/* ------------------------------------------------------------------ one repository */

typedef struct {
    unsigned long long dev, ino;
    long long size;
} blob_id;

/* Adds b to the set (*ids)[*n] unless there; returns 1 when added, 0 when there, -1 memory. */
static int blob_add(blob_id **ids, int *n, int *cap, blob_id b)
{
    for (int i = 0; i < *n; i++)
        if ((*ids)[i].dev == b.dev && (*ids)[i].ino == b.ino)
            return 0;
    if (*n == *cap) {
        int c = *cap ? 2 * *cap : 16;
        blob_id *v = realloc(*ids, (size_t)c * sizeof *v);
        if (!v)
            return -1;
        *ids = v;
        *cap = c;
    }
    (*ids)[(*n)++] = b;
    return 1;
}

static int cmp_file(const void *a, const void *b)
{
    return strcmp(((const hub_cached_file *)a)->path, ((const hub_cached_file *)b)->path);
}

/* The refs (_cache_manager.py:762-782): every file below refs/, its path the ref's name, its
 * text the commit. A ref that cannot be read is the repo's problem (the first one said). */
static int scan_refs(const char *repo_dir, strlist *names, strlist *commits, char *problem,
                     size_t plen)
{
    char *refs = path_join(repo_dir, "refs");
    int rc = refs ? walk(refs, "", names) : -1;
    for (int i = 0; rc == 0 && i < names->n; i++) {
        char c[128] = "", e[XLATE_ERRLEN], *p = path_join(refs, names->v[i]);
        if (!p) {
            rc = -1;
            break;
        }
        if (read_ref(p, c, sizeof c, e, sizeof e) && !problem[0])
            snprintf(problem, plen, "%.300s", e);
        free(p);
        rc = strlist_add(commits, c);
    }
    free(refs);
    return rc;
}

/* A snapshot's files and size (_cache_manager.py:786-835: each file resolved to its blob, a
 * blob's size counted once in the revision's size_on_disk). Repo-wide blobs go to *ids. */
static int scan_revision(hub_revision *rv, blob_id **ids, int *n_ids, int *cap_ids)
{
    strlist files = {0};
    blob_id *own = NULL;
    int n_own = 0, cap_own = 0, rc = walk(rv->dir, "", &files);
    if (rc == 0 && files.n &&
        !(rv->files = calloc((size_t)files.n, sizeof *rv->files)))
        rc = -1;
    for (int i = 0; rc == 0 && i < files.n; i++) {
        hub_cached_file *f = &rv->files[i];
        char *p = path_join(rv->dir, files.v[i]);
        struct stat sb;
        f->path = files.v[i];
        files.v[i] = NULL;
        rv->n_files++;
        if (!p) {
            rc = -1;
            break;
        }
        f->size = -1;
        if (stat(p, &sb) == 0) {
            blob_id b = {(unsigned long long)sb.st_dev, (unsigned long long)sb.st_ino,
                         (long long)sb.st_size};
            f->size = b.size;
            f->dev = b.dev;
            f->ino = b.ino;
            if (blob_add(&own, &n_own, &cap_own, b) < 0 || blob_add(ids, n_ids, cap_ids, b) < 0)
                rc = -1;
        }
        free(p);
    }
    for (int i = 0; i < n_own; i++)
        rv->size += own[i].size;
    if (rv->n_files)
        qsort(rv->files, (size_t)rv->n_files, sizeof *rv->files, cmp_file);
    free(own);
    strlist_free(&files);
    return rc;
}

static int scan_repo(hub_repo_info *r, const char *cache, const char *name)
{
    char *snaps = NULL;
    strlist revs = {0}, ref_names = {0}, ref_commits = {0};
    blob_id *ids = NULL;
    int n_ids = 0, cap_ids = 0, rc = -1;
    DIR *d;
    struct dirent *e;
    struct stat sb;

    /* "models--ORG--NAME": the type before the first "--", then "--" is "/" (:742-744) */
    if (!(r->repo_id = strdup(name + strlen("models--"))) || !(r->dir = path_join(cache, name)))
        goto done;
    for (char *p; (p = strstr(r->repo_id, "--"));)
        memmove(p + 1, p + 2, strlen(p + 2) + 1), *p = '/';
    if (!(snaps = path_join(r->dir, "snapshots")))
        goto done;
    if (stat(snaps, &sb) != 0 || !S_ISDIR(sb.st_mode)) { /* :756-757 */
        snprintf(r->problem, sizeof r->problem, "no snapshots folder (%s)", snaps);
        rc = 0;
        goto done;
    }
    if (scan_refs(r->dir, &ref_names, &ref_commits, r->problem, sizeof r->problem))
        goto done;
    if (!(d = opendir(snaps))) {
        snprintf(r->problem, sizeof r->problem, "%s: cannot read: %s", snaps, strerror(errno));
        rc = 0;
        goto done;
    }
    while ((e = readdir(d))) {
        char *p;
        if (ignored(e->d_name))
            continue;
        p = path_join(snaps, e->d_name);
        if (p && stat(p, &sb) == 0 && S_ISDIR(sb.st_mode) && strlist_add(&revs, e->d_name)) {
            free(p);
            closedir(d);
            goto done;
        }
        free(p);
    }
    closedir(d);
    if (revs.n)
        qsort(revs.v, (size_t)revs.n, sizeof *revs.v, cmp_str);
    if (revs.n && !(r->revs = calloc((size_t)revs.n, sizeof *r->revs)))
        goto done;
    for (int i = 0; i < revs.n; i++) {
        hub_revision *rv = &r->revs[r->n_revs++];
        strlist mine = {0};
        if (!(rv->commit = strdup(revs.v[i])) || !(rv->dir = path_join(snaps, revs.v[i])))
            goto done;
        for (int k = 0; k < ref_names.n; k++)
            if (ref_commits.v[k] && strcmp(ref_commits.v[k], revs.v[i]) == 0) {
                if (strlist_add(&mine, ref_names.v[k])) {
                    strlist_free(&mine);
                    goto done;
                }
                free(ref_commits.v[k]);
                ref_commits.v[k] = NULL; /* refs_by_hash.pop (:828) */
            }
        if (mine.n)
            qsort(mine.v, (size_t)mine.n, sizeof *mine.v, cmp_str);
        rv->refs = mine.v;
        rv->n_refs = mine.n;
        if (scan_revision(rv, &ids, &n_ids, &cap_ids))
            goto done;
    }
    /* a ref left over names a commit with no snapshot (:838-841) */
    for (int k = 0; k < ref_names.n; k++)
        if (ref_commits.v[k] && !r->problem[0]) {
            char q1[200], q2[200]; /* a ref's name and text are the cache's bytes: escaped */
            snprintf(r->problem, sizeof r->problem, "ref %s names commit %s, which has no "
                     "snapshot", str_quote(q1, sizeof q1, ref_names.v[k],
                                              strlen(ref_names.v[k])),
                     str_quote_max(q2, sizeof q2, ref_commits.v[k], strlen(ref_commits.v[k]),
                                   48));
        }
    /* the revision refs/main names first: the one a name without @REVISION loads */
    for (int i = 1; i < r->n_revs; i++)
        for (int k = 0; k < r->revs[i].n_refs; k++)
            if (strcmp(r->revs[i].refs[k], "main") == 0) {
                hub_revision t = r->revs[i];
                memmove(r->revs + 1, r->revs, (size_t)i * sizeof *r->revs);
                r->revs[0] = t;
            }
    r->n_blobs = n_ids; /* repo size: the distinct blobs of every snapshot (:855, :860) */
    for (int i = 0; i < n_ids; i++)
        r->size += ids[i].size;
    rc = 0;
done:
    free(snaps);
    free(ids);
    strlist_free(&revs);
    strlist_free(&ref_names);
    strlist_free(&ref_commits);
    return rc;
}

static int cmp_repo(const void *a, const void *b)
{
    return strcmp(((const hub_repo_info *)a)->repo_id, ((const hub_repo_info *)b)->repo_id);
}

int hub_scan(const char *cache, hub_cache_info *out, char *err, size_t errlen)
{
    char def[4096];
    DIR *d;
    struct dirent *e;
    strlist names = {0};
    int rc = -1;

    memset(out, 0, sizeof *out);
    if (!cache) {
        if (hub_cache_dir(def, sizeof def, err, errlen))
            return -1;
        cache = def;
    }
    if (!(out->cache = strdup(cache)))
        return xerr(err, errlen, "out of memory");
    if (!(d = opendir(cache))) {
        if (errno == ENOENT)
            return 0; /* no cache yet: no models */
        xerr(err, errlen, "%s: cannot read the hub cache folder: %s", cache, strerror(errno));
        hub_scan_free(out);
        return -1;
    }
    /* only model repos: "models--*" folders (:692-704, :742-746; datasets--, spaces--, .locks
     * are not models) */
    while ((e = readdir(d)))
        if (strncmp(e->d_name, "models--", 8) == 0 && e->d_name[8] &&
            strlist_add(&names, e->d_name))
            break;
    closedir(d);
    if (names.n) {
        qsort(names.v, (size_t)names.n, sizeof *names.v, cmp_str);
        if (!(out->repos = calloc((size_t)names.n, sizeof *out->repos)))
            goto done;
    }
    for (int i = 0; i < names.n; i++) {
        char *p = path_join(cache, names.v[i]);
        struct stat sb;
        int isdir = p && stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
        free(p);
        if (!isdir)
            continue; /* "Repo path is not a directory" (:736-737): not a repo */
        if (scan_repo(&out->repos[out->n++], cache, names.v[i]))
            goto done;
    }
    if (out->n)
        qsort(out->repos, (size_t)out->n, sizeof *out->repos, cmp_repo);
    rc = 0;
done:
    strlist_free(&names);
    if (rc) {
        hub_scan_free(out);
        xerr(err, errlen, "out of memory");
    }
    return rc;
}

void hub_scan_free(hub_cache_info *s)
{
    for (int i = 0; i < s->n; i++) {
        hub_repo_info *r = &s->repos[i];
        for (int j = 0; j < r->n_revs; j++) {
            hub_revision *rv = &r->revs[j];
            for (int k = 0; k < rv->n_refs; k++)
                free(rv->refs[k]);
            for (int k = 0; k < rv->n_files; k++)
                free(rv->files[k].path);
            free(rv->refs);
            free(rv->files);
            free(rv->commit);
            free(rv->dir);
        }
        free(r->revs);
        free(r->repo_id);
        free(r->dir);
    }
    free(s->repos);
    free(s->cache);
    memset(s, 0, sizeof *s);
}

const hub_revision *hub_repo_main(const hub_repo_info *r)
{
    if (r->n_revs == 1)
        return &r->revs[0];
    for (int k = 0; r->n_revs && k < r->revs[0].n_refs; k++)
        if (strcmp(r->revs[0].refs[k], "main") == 0)
            return &r->revs[0];
    return NULL;
}

void hub_format_size(long long bytes, char *out, size_t n)
{
    /* _cache_manager.py:866-876: f"{num:3.1f}{unit}", unit "", K, M, G... at 1000 */
    static const char *const units[] = {"", "K", "M", "G", "T", "P", "E", "Z"};
    double x = (double)bytes;
    for (int i = 0; i < 8; i++) {
        if (x < 1000.0 && x > -1000.0) {
            snprintf(out, n, "%3.1f%s", x, units[i]);
            return;
        }
        x /= 1000.0;
    }
    snprintf(out, n, "%.1fY", x);
}

/* ------------------------------------------------------------------ what a snapshot holds */

static int present(const char *dir, const char *name)
{
    struct stat sb;
    char *p = path_join(dir, name);
    int ok = p && stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
    free(p);
    return ok;
}

static void need(hub_model *m, const char *dir, const char *name)
{
    size_t l = strlen(m->missing);
    if (name && !present(dir, name))
        snprintf(m->missing + l, sizeof m->missing - l, "%s%s", l ? ", " : "", name);
}

/* The library's message with the folder's path cut out (the listing names the repo). */
static void set_problem(hub_model *m, const char *dir, const char *msg)
{
    size_t dl = strlen(dir);
    char *o = m->problem, *end = m->problem + sizeof m->problem - 1;
    while (*msg && o < end) {
        if (strncmp(msg, dir, dl) == 0 && msg[dl] == '/')
            msg += dl + 1;
        else
            *o++ = *msg++;
    }
    *o = '\0';
}

static int copy_langs(hub_model *m, int n, const char *const *codes, const size_t *lens)
{
    if (!n)
        return 0;
    if (!(m->langs = calloc((size_t)n, sizeof *m->langs)))
        return -1;
    for (int i = 0; i < n; i++) {
        size_t l = lens ? lens[i] : strlen(codes[i]);
        if (!(m->langs[i] = malloc(l + 1)))
            return -1;
        memcpy(m->langs[i], codes[i], l);
        m->langs[i][l] = '\0';
        m->n_langs++;
    }
    return 0;
}

/* OPUS-MT's names: ".../opus-mt-SRC-TGT" (also "opus-mt-tc-big-SRC-TGT"): the last two
 * dash-separated words after "opus-mt-". */
static void pair_from_name(hub_model *m, const char *repo_id)
{
    const char *name = repo_id ? strrchr(repo_id, '/') : NULL, *t, *s;
    name = name ? name + 1 : repo_id;
    if (!name || strncasecmp(name, "opus-mt-", 8) != 0 || !(t = strrchr(name, '-')) ||
        t == name + 7)
        return;
    for (s = t - 1; s > name + 7 && s[-1] != '-'; s--)
        ;
    if (t - s < 1 || t - s >= (long)sizeof m->source_lang || strlen(t + 1) >= sizeof m->target_lang)
        return;
    snprintf(m->source_lang, sizeof m->source_lang, "%.*s", (int)(t - s), s);
    snprintf(m->target_lang, sizeof m->target_lang, "%s", t + 1);
}

/* The tokenizers as xlate_model_load loads them (xlate.c), for their language codes. */
static void probe_tokenizers(hub_model *m, const char *dir, const model_config *c)
{
    char err[XLATE_ERRLEN];
    if (c->family == family_m2m100()) {
        m2m_tok t;
        memset(&t, 0, sizeof t);
        if (m2m_tok_load(&t, dir, m->nllb, c->src_vocab, c->eos_id, c->pad_id, err, sizeof err)) {
            set_problem(m, dir, err);
            return;
        }
        if (copy_langs(m, t.n_langs, t.lang_ptr, NULL))
            snprintf(m->problem, sizeof m->problem, "out of memory");
        m2m_tok_free(&t);
    } else if (c->vocab) {
        hf_tok t;
        const char **codes = NULL;
        size_t *lens = NULL;
        memset(&t, 0, sizeof t);
        if (hf_tok_load(&t, dir, c->tokenizer, c->target_tokenizer, c->vocab, c->target_vocab,
                        c->src_vocab, c->tgt_vocab, c->eos_id, c->pad_id, err, sizeof err)) {
            set_problem(m, dir, err);
            return;
        }
        if (!m->source_lang[0] && !m->target_lang[0]) {
            snprintf(m->source_lang, sizeof m->source_lang, "%s", t.source_lang);
            snprintf(m->target_lang, sizeof m->target_lang, "%s", t.target_lang);
        }
        /* ">>xx<<" pieces: the code is the piece without its 2 + 2 brackets */
        codes = t.n_langs ? calloc((size_t)t.n_langs, sizeof *codes) : NULL;
        lens = t.n_langs ? calloc((size_t)t.n_langs, sizeof *lens) : NULL;
        if (t.n_langs && (!codes || !lens)) {
            snprintf(m->problem, sizeof m->problem, "out of memory");
        } else {
            for (int i = 0; i < t.n_langs; i++) {
                codes[i] = t.src.piece[t.langs[i]] + 2;
                lens[i] = t.src.len[t.langs[i]] - 4;
            }
            if (copy_langs(m, t.n_langs, codes, lens))
                snprintf(m->problem, sizeof m->problem, "out of memory");
        }
        free(codes);
        free(lens);
        hf_tok_free(&t);
    }
}

static void probe(hub_model *m, const char *dir, const char *repo_id, int level);

/* ---- the languages alone (choosing a model by its pair: hub_pair_find) */

typedef struct {
    long id;
    const char *code; /* into the file's text, len bytes */
    size_t len;
} vocab_code;

static int cmp_code_id(const void *a, const void *b)
{
    const vocab_code *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* MarianTokenizer's language tokens: the ">>xx<<" keys of a vocab.json (its pieces with ids
 * below n), in id order, as hf_tok_load lists them, read without building the object: the text
 * walked key by key ({"piece": id, ...}; transformers' MarianTokenizer takes
 * `self.supported_language_codes = [k for k in self.encoder if k.startswith(">>") and
 * k.endswith("<<")]`, tokenization_marian.py). A key with an escape is decoded by cJSON. 0, or
 * -1 when the file is not such an object (the caller then loads the tokenizer). */
static int vocab_lang_codes(hub_model *m, const char *path, int n)
{
    char *text = NULL, err[XLATE_ERRLEN];
    size_t len;
    const char *p, *end;
    vocab_code *v = NULL;
    const char **codes = NULL;
    size_t *lens = NULL;
    int k = 0, cap = 0, rc = -1;
    if (read_file(path, &text, &len, err, sizeof err))
        return -1;
    p = skip_ws(text, end = text + len);
    if (p == end || *p++ != '{')
        goto out;
    for (;;) {
        const char *key, *kend;
        int esc = 0;
        char *num_end;
        long id;
        p = skip_ws(p, end);
        if (p < end && *p == '}' && k == 0 && cap == 0)
            break; /* {} */
        if (p == end || *p++ != '"')
            goto out;
        for (key = p; p < end && *p != '"'; p++)
            if (*p == '\\') {
                esc = 1;
                p++;
            }
        if (p >= end)
            goto out;
        kend = p++;
        p = skip_ws(p, end);
        if (p == end || *p++ != ':')
            goto out;
        p = skip_ws(p, end);
        if (p == end || !(*p == '-' || (*p >= '0' && *p <= '9')))
            goto out;
        id = strtol(p, &num_end, 10); /* the text ends in a NUL: strtol stops there */
        p = num_end;
        if (esc) { /* rare: the key's text decoded as JSON decodes it */
            cJSON *j = cJSON_ParseWithLength(key - 1, (size_t)(kend - key) + 2);
            int is = 0;
            if (cJSON_IsString(j)) {
                size_t l = strlen(j->valuestring);
                is = l >= 4 && !strncmp(j->valuestring, ">>", 2) &&
                     !strcmp(j->valuestring + l - 2, "<<");
            }
            cJSON_Delete(j);
            if (is) /* a code with an escape in it: the whole load says what it is */
                goto out;
        } else if (kend - key >= 4 && !strncmp(key, ">>", 2) && !strncmp(kend - 2, "<<", 2) &&
                   id >= 0 && id < n) {
            if (k == cap) {
                vocab_code *w = realloc(v, (size_t)(cap = cap ? 2 * cap : 64) * sizeof *v);
                if (!w)
                    goto out;
                v = w;
            }
            v[k++] = (vocab_code){id, key + 2, (size_t)(kend - key) - 4};
        }
        p = skip_ws(p, end);
        if (p < end && *p == ',') {
            p++;
            continue;
        }
        if (p < end && *p == '}')
            break;
        goto out;
    }
    if (k) { /* qsort of no array (NULL) is undefined */
        qsort(v, (size_t)k, sizeof *v, cmp_code_id);
        if (!(codes = calloc((size_t)k, sizeof *codes)) ||
            !(lens = calloc((size_t)k, sizeof *lens)))
            goto out;
    }
    for (int i = 0; i < k; i++) {
        codes[i] = v[i].code;
        lens[i] = v[i].len;
    }
    rc = copy_langs(m, k, codes, lens) ? -1 : 0;
out:
    if (rc)
        hub_model_free(m);
    free(codes);
    free(lens);
    free(v);
    free(text);
    return rc;
}

/* What choosing a model by its languages needs, as transformers reads it before loading
 * anything heavy: M2M100 / NLLB's codes from tokenizer_config.json and special_tokens_map.json
 * (m2m_tok_langs: additional_special_tokens), an OPUS-MT model's pair from
 * tokenizer_config.json's source_lang / target_lang and its >>xx<< tokens from vocab.json's
 * keys. Not the SentencePiece models (NLLB's is 4.8 MB of 256,000 pieces) nor a parse of every
 * vocabulary entry: a pick that read them cost 0.1 to 0.5 s a cached model (docs/MODELS.md). */
static void probe_langs(hub_model *m, const char *dir, const model_config *c)
{
    char err[XLATE_ERRLEN];
    if (c->family == family_m2m100()) {
        char (*codes)[24] = NULL;
        const char **ptr = NULL;
        int n = 0;
        if (m2m_tok_langs(dir, m->nllb, &codes, &n, err, sizeof err)) {
            set_problem(m, dir, err);
            return;
        }
        if (n && !(ptr = calloc((size_t)n, sizeof *ptr)))
            snprintf(m->problem, sizeof m->problem, "out of memory");
        for (int i = 0; ptr && i < n; i++)
            ptr[i] = codes[i];
        if (ptr && copy_langs(m, n, ptr, NULL))
            snprintf(m->problem, sizeof m->problem, "out of memory");
        free(ptr);
        free(codes);
    } else if (c->vocab) {
        char *tp = path_join(dir, "tokenizer_config.json"), *text = NULL, *vp;
        size_t len;
        if (!m->source_lang[0] && !m->target_lang[0] && tp && access(tp, F_OK) == 0 &&
            read_file(tp, &text, &len, err, sizeof err) == 0) {
            cJSON *root = cJSON_ParseWithLength(text, len);
            for (int k = 0; k < 2; k++) {
                const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, k ? "target_lang"
                                                                          : "source_lang");
                if (cJSON_IsString(v) && is_lang_code(v->valuestring))
                    snprintf(k ? m->target_lang : m->source_lang, sizeof m->source_lang, "%s",
                             v->valuestring);
            }
            cJSON_Delete(root);
        }
        free(text);
        free(tp);
        /* the codes of a joint vocabulary only (hf_tok_load's rule) */
        if (c->target_vocab)
            return;
        vp = path_join(dir, c->vocab);
        if (!vp || vocab_lang_codes(m, vp, c->src_vocab))
            probe_tokenizers(m, dir, c); /* not a plain {"piece": id} object: the whole load */
        free(vp);
    }
}

void hub_probe(hub_model *m, const char *dir, const char *repo_id, int check_weights)
{
    probe(m, dir, repo_id, check_weights ? 2 : 1);
}

void hub_probe_langs(hub_model *m, const char *dir, const char *repo_id)
{
    probe(m, dir, repo_id, 0);
}

/* level 0: the languages alone; 1: the tokenizers loaded; 2: the weights indexed too */
static void probe(hub_model *m, const char *dir, const char *repo_id, int level)
{
    model_config c;
    char err[XLATE_ERRLEN], *cpath;
    int hub;

    memset(m, 0, sizeof *m);
    pair_from_name(m, repo_id);
    if (!present(dir, "config.json")) {
        need(m, dir, "config.json");
        return;
    }
    if (!(cpath = path_join(dir, "config.json"))) {
        snprintf(m->problem, sizeof m->problem, "out of memory");
        return;
    }
    if (config_load(&c, cpath, NULL, NULL, err, sizeof err)) {
        set_problem(m, dir, err);
        free(cpath);
        return;
    }
    free(cpath);
    hub = c.family != family_xlate();
    snprintf(m->family, sizeof m->family, "%s", c.family->name);
    if (c.family == family_m2m100()) {
        /* the files m2m_tok_load cannot do without (m2m_tok.h) */
        m->nllb = m2m_tok_is_nllb(dir);
        need(m, dir, "sentencepiece.bpe.model");
        if (!m->nllb)
            need(m, dir, "vocab.json");
        m->source_lang[0] = m->target_lang[0] = '\0'; /* every pair of its codes */
    } else {
        need(m, dir, c.tokenizer);
        need(m, dir, c.target_tokenizer);
        need(m, dir, c.vocab);
        need(m, dir, c.target_vocab);
        if (c.family == family_xlate() && !m->source_lang[0] && c.source_lang && c.target_lang) {
            snprintf(m->source_lang, sizeof m->source_lang, "%s", c.source_lang);
            snprintf(m->target_lang, sizeof m->target_lang, "%s", c.target_lang);
        }
    }
    /* one weights format: the names weights_open tries for a Hugging Face directory (as
     * transformers' from_pretrained), or xlate's config field */
    if (hub ? !present(dir, "model.safetensors") &&
                  !present(dir, "model.safetensors.index.json") &&
                  !present(dir, "pytorch_model.bin") &&
                  !present(dir, "pytorch_model.bin.index.json")
            : !present(dir, c.weights)) {
        size_t l = strlen(m->missing);
        snprintf(m->missing + l, sizeof m->missing - l, "%s%s", l ? ", " : "",
                 hub ? "model.safetensors (or pytorch_model.bin)" : c.weights);
    }
    if (!m->missing[0] && level == 0) {
        probe_langs(m, dir, &c);
    } else if (!m->missing[0]) {
        probe_tokenizers(m, dir, &c);
        if (!m->problem[0] && level == 2) {
            st_file f;
            if (weights_open(&f, dir, c.weights, hub, NULL, err, sizeof err))
                set_problem(m, dir, err);
            else
                st_close(&f);
        }
    }
    config_free(&c);
}

void hub_model_free(hub_model *m)
{
    for (int i = 0; i < m->n_langs; i++)
        free(m->langs[i]);
    free(m->langs);
    m->langs = NULL;
    m->n_langs = 0;
}

int hub_model_runs(const hub_model *m)
{
    return m->family[0] && !m->missing[0] && !m->problem[0];
}

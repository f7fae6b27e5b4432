/* hub.h — the Hugging Face hub: model names (hub_name.c), the hub's cache on disk
 * (hub_cache.c), which files a model needs (hub_files.c) and downloads into the cache over
 * HTTP(S) with libcurl (hub_pull.c; its requests in hub_http.c). Nothing else in xlate knows
 * HTTP. The cache is huggingface_hub's, so that xlate, transformers and
 * huggingface-cli share it:
 *   CACHE/models--ORG--NAME/refs/REVISION       the 40-hex commit, no newline
 *   CACHE/models--ORG--NAME/blobs/ETAG          a file's bytes (ETAG.incomplete while it comes)
 *   CACHE/models--ORG--NAME/snapshots/COMMIT/P  relative symlink to ../../blobs/ETAG
 *   CACHE/.locks/models--ORG--NAME/ETAG.lock    flock while a blob is written
 * The model directory xlate loads is CACHE/models--ORG--NAME/snapshots/COMMIT. */
#ifndef XLATE_HUB_H
#define XLATE_HUB_H
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

/* A repository id ("Helsinki-NLP/opus-mt-en-de") and a revision (branch, tag or commit;
 * "main" when the name has no "@REV"). */
typedef struct hub_ref {
    char repo[256];
    char revision[256];
} hub_ref;

enum {
    HUB_OK = 0,
    HUB_ENOTFOUND = 1,  /* no such repository, revision or file (404), or nothing xlate runs */
    HUB_EAUTH = 2,      /* 401/403: gated or private (set HF_TOKEN) */
    HUB_ENET = 3,       /* connection, timeout or 5xx after the retries; other HTTP answers */
    HUB_EDISK = 4,      /* the cache cannot be written (disk full, permissions) */
    HUB_EINTEGRITY = 5, /* the bytes do not match the hub's sha256 or size */
    HUB_EINTR = 6       /* cancelled (SIGINT); the .incomplete blob stays for a resume */
};

/* --- names (hub_name.c) --- */

/* 1 when s is a repository id by huggingface_hub's validate_repo_id ("name" or "ns/name"). */
int hub_repo_id_valid(const char *s);
/* 1 when s looks like a hub name (ORG/NAME[@REV]: exactly one '/' before any '@', a valid
 * repository id, a valid revision) and is not an existing path; a string starting with '/',
 * '.' or '~' is always a path. */
int hub_is_name(const char *s);
/* ORG/NAME[@REV] (or NAME[@REV]) into out; revision "main" when not given. 0, or -1 with a
 * message saying which rule the name breaks. */
int hub_ref_parse(const char *s, hub_ref *out, char *err, size_t errlen);
/* 1 when s is exactly 40 lowercase hex digits (a commit: file_download.py REGEX_COMMIT_HASH). */
int hub_is_commit(const char *s);

/* --- the cache (hub_cache.c) --- */

/* The cache dir: $HF_HUB_CACHE, else $HUGGINGFACE_HUB_CACHE, else $HF_HOME/hub, else
 * $XDG_CACHE_HOME/huggingface/hub, else $HOME/.cache/huggingface/hub; 0 or -1 with err. */
int hub_cache_dir(char *out, size_t n, char *err, size_t errlen);
/* HF_HOME: $HF_HOME, else $XDG_CACHE_HOME/huggingface, else $HOME/.cache/huggingface (the
 * token file's folder). 0 or -1 with err. */
int hub_home_dir(char *out, size_t n, char *err, size_t errlen);
/* CACHE/models--ORG--NAME; 0, or -1 when it does not fit in n. */
int hub_repo_dir(const char *cache, const char *repo, char *out, size_t n);
/* The commit a revision names in repo_dir: the revision itself when 40-hex, else the content
 * of refs/REVISION (trailing whitespace dropped; must be 40-hex). 0 found, 1 no such ref,
 * -1 error (err says: an unreadable or malformed ref). commit: 41 bytes. */
int hub_ref_commit(const char *repo_dir, const char *revision, char commit[41], char *err,
                   size_t errlen);
/* the snapshot dir of ref if the commit is known locally and has config.json there:
   0 found, 1 not cached, -1 error (err says) */
int hub_resolve_cached(const hub_ref *ref, char *out, size_t n, char *err, size_t errlen);
/* The target of the symlink snapshots/COMMIT/PATH: "../../blobs/ETAG" with one more "../" for
 * every '/' in path. 0, or -1 when it does not fit. */
int hub_link_target(const char *path, const char *etag, char *out, size_t n);
/* Makes snapshots/COMMIT/PATH (its folders too) a symlink to the blob ETAG, atomically (a
 * temporary link renamed over). 0, or -1 with err. */
int hub_link(const char *repo_dir, const char *commit, const char *path, const char *etag,
             char *err, size_t errlen);
/* Writes refs/REVISION = commit atomically (temporary file renamed over), unless the revision
 * is the commit itself or the ref already says it. 0, or -1 with err. */
int hub_write_ref(const char *repo_dir, const char *revision, const char *commit, char *err,
                  size_t errlen);
/* Opens a file of the cache (flags: O_RDONLY, or O_RDWR with O_CREAT, mode 0644 & ~umask) as
 * the cache's own: never through a symbolic link (O_NOFOLLOW), never blocked on a FIFO
 * (O_NONBLOCK, cleared once it is known regular), a regular file only, and one opened for
 * writing with no second name (a hard link to a file outside the cache would be written
 * through). The fd, or -1 with err naming path and what it is. */
int hub_open_file(const char *path, int flags, mode_t mode, char *err, size_t errlen);
/* 1 when path (not followed) is a directory, not a symbolic link to one */
int hub_real_dir(const char *path);
/* mkdir -p of path (mode 0777 & ~umask). 0, or -1 with errno set. */
int hub_mkdirs(const char *path);
/* 1 when HF_HUB_OFFLINE (else TRANSFORMERS_OFFLINE) is 1/ON/YES/TRUE in any case
 * (constants.py _is_true). */
int hub_offline(void);
/* $HF_ENDPOINT without trailing '/', else https://huggingface.co. */
void hub_endpoint(char *out, size_t n);

/* --- which files (hub_files.c) --- */

/* Of a repository's files (the API's siblings), those xlate downloads, into out (room for 16):
 * one weights format (model.safetensors, else model.safetensors.index.json, else
 * pytorch_model.bin, else pytorch_model.bin.index.json), the family's tokenizer files that are
 * listed (MarianMT when source.spm is, else NLLB/M2M100 when sentencepiece.bpe.model is),
 * generation_config.json when listed, config.json last. Returns the count, or -1 with err
 * (no config.json, no weights). The names are static strings. */
int hub_choose_files(char *const *files, int n, const char **out, int max, char *err,
                     size_t errlen);
/* The distinct shard files a weights index (*.index.json) names in its weight_map, in order
 * of first appearance; *shards malloc'd (each name too). 0, or -1 with err. */
int hub_index_shards(const char *index_path, char ***shards, int *n, char *err, size_t errlen);

/* --- downloads (hub_pull.c) --- */

typedef struct hub_pull_params {
    int quiet;
    int progress; /* a line per file on a tty */
    void (*warn)(void *user, const char *msg);
    void *user;
    /* when set and non-zero (a SIGINT handler sets it), the pull stops: HUB_EINTR */
    const volatile sig_atomic_t *cancel;
    /* files downloading at once (each its own connection); 0: 8. XLATE_HUB_WORKERS overrides */
    int workers;
} hub_pull_params;
hub_pull_params hub_pull_default_params(void);
/* downloads what xlate needs into the cache; on success out = snapshot dir.
   Returns 0, or a hub_status below with err set. */
int hub_pull(const hub_ref *ref, const hub_pull_params *p, char *out, size_t n, char *err,
             size_t errlen);

#endif

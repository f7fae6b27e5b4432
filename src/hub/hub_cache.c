/* hub_cache.c — the hub's cache on disk as huggingface_hub lays it out (constants.py,
 * file_download.py): where the cache is, a repository's folder, refs to commits, snapshot
 * folders, and the atomic writes of refs and relative snapshot symlinks. No network. */
#include "hub/hub.h"
#include "base/util.h"
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* getenv that takes an empty value for unset (huggingface_hub would take "" as a relative
 * path; a variable set empty means "not set" to a shell user) */
static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* The home directory: $HOME, else the password database (os.path.expanduser does the same). */
static const char *home_dir(void)
{
    const char *h = env("HOME");
    struct passwd *pw;
    if (h)
        return h;
    pw = getpwuid(getuid());
    return pw && pw->pw_dir && *pw->pw_dir ? pw->pw_dir : NULL;
}

/* out = path with a leading "~" or "~/" expanded (constants.py:159 os.path.expanduser), then
 * suffix appended. 0, or -1 with err. */
static int expand(const char *path, const char *suffix, const char *var, char *out, size_t n,
                  char *err, size_t errlen)
{
    int len;
    if (path[0] == '~' && (path[1] == '/' || path[1] == '\0')) {
        const char *h = home_dir();
        if (!h)
            return xerr(err, errlen, "%s=%s: no home directory to expand '~' (HOME unset)",
                        var, path);
        len = snprintf(out, n, "%s%s%s", h, path + 1, suffix);
    } else {
        len = snprintf(out, n, "%s%s", path, suffix);
    }
    if (len < 0 || (size_t)len >= n)
        return xerr(err, errlen, "%s: the hub cache's path is longer than %zu bytes", var, n - 1);
    return 0;
}

int hub_home_dir(char *out, size_t n, char *err, size_t errlen)
{
    const char *v, *h;
    /* constants.py:157-165: HF_HOME, else XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface */
    if ((v = env("HF_HOME")))
        return expand(v, "", "HF_HOME", out, n, err, errlen);
    if ((v = env("XDG_CACHE_HOME")))
        return expand(v, "/huggingface", "XDG_CACHE_HOME", out, n, err, errlen);
    if (!(h = home_dir()))
        return xerr(err, errlen, "no hub cache: HF_HUB_CACHE, HF_HOME, XDG_CACHE_HOME and HOME "
                    "are all unset");
    return expand(h, "/.cache/huggingface", "HOME", out, n, err, errlen);
}

int hub_cache_dir(char *out, size_t n, char *err, size_t errlen)
{
    const char *v;
    size_t len;
    /* constants.py:175-183: HF_HUB_CACHE, else the legacy HUGGINGFACE_HUB_CACHE (:171), else
     * HF_HOME/hub (:167) */
    if ((v = env("HF_HUB_CACHE")))
        return expand(v, "", "HF_HUB_CACHE", out, n, err, errlen);
    if ((v = env("HUGGINGFACE_HUB_CACHE")))
        return expand(v, "", "HUGGINGFACE_HUB_CACHE", out, n, err, errlen);
    if (hub_home_dir(out, n, err, errlen))
        return -1;
    len = strlen(out);
    if (len + 5 > n)
        return xerr(err, errlen, "the hub cache's path is longer than %zu bytes", n - 1);
    memcpy(out + len, "/hub", 5);
    return 0;
}

int hub_repo_dir(const char *cache, const char *repo, char *out, size_t n)
{
    /* file_download.py:720-728 repo_folder_name: "models" and the id's parts joined by "--"
     * (constants.py:108 REPO_ID_SEPARATOR) */
    size_t len = (size_t)snprintf(out, n, "%s/models--", cache);
    if (len >= n)
        return -1;
    for (const char *c = repo; *c; c++) {
        if (len + 3 >= n)
            return -1;
        if (*c == '/') {
            out[len++] = '-';
            out[len++] = '-';
        } else {
            out[len++] = *c;
        }
    }
    out[len] = '\0';
    return 0;
}

int hub_ref_commit(const char *repo_dir, const char *revision, char commit[41], char *err,
                   size_t errlen)
{
    char *path, *data = NULL;
    size_t len = 0;
    int rc;
    /* file_download.py:1072, :1118: a 40-hex revision is the commit itself */
    if (hub_is_commit(revision)) {
        memcpy(commit, revision, 41);
        return 0;
    }
    /* file_download.py:1121-1124, _snapshot_download.py:309-313: refs/REVISION holds it */
    if (!(path = malloc(strlen(repo_dir) + strlen(revision) + 8)))
        return xerr(err, errlen, "out of memory");
    sprintf(path, "%s/refs/%s", repo_dir, revision);
    if (access(path, F_OK) != 0) {
        free(path);
        return 1;
    }
    rc = read_file_max(path, 4096, &data, &len, err, errlen);
    if (rc == 0) {
        while (len > 0 && (data[len - 1] == '\n' || data[len - 1] == '\r' ||
                           data[len - 1] == ' ' || data[len - 1] == '\t'))
            data[--len] = '\0';
        if (!hub_is_commit(data)) {
            char q[200];
            rc = xerr(err, errlen, "%s: expected a 40-hex commit, got \"%s\"", path,
                      str_quote(q, sizeof q, data, len));
        } else {
            memcpy(commit, data, 41);
        }
    }
    free(data);
    free(path);
    return rc ? -1 : 0;
}

int hub_resolve_cached(const hub_ref *ref, char *out, size_t n, char *err, size_t errlen)
{
    char cache[4096], repo[4400], commit[41], cfg[4600];
    struct stat sb;
    int rc;
    if (hub_cache_dir(cache, sizeof cache, err, errlen))
        return -1;
    if (hub_repo_dir(cache, ref->repo, repo, sizeof repo))
        return xerr(err, errlen, "%s: the cache path is too long", cache);
    if ((rc = hub_ref_commit(repo, ref->revision, commit, err, errlen)) != 0)
        return rc;
    /* _snapshot_download.py:316-317: the snapshot folder of the commit */
    if ((size_t)snprintf(out, n, "%s/snapshots/%s", repo, commit) >= n)
        return xerr(err, errlen, "%s: the snapshot path is too long", repo);
    snprintf(cfg, sizeof cfg, "%s/config.json", out);
    /* stat follows the symlink: a link to a missing blob is not a cached file */
    return stat(cfg, &sb) == 0 && S_ISREG(sb.st_mode) ? 0 : 1;
}

int hub_link_target(const char *path, const char *etag, char *out, size_t n)
{
    /* file_download.py:645 os.path.relpath(blob, dirname(pointer)): from
     * snapshots/COMMIT/a/b/ up to the repository folder is 2 + (slashes in the path) levels */
    size_t len = 0;
    int up = 2;
    for (const char *c = path; *c; c++)
        up += *c == '/';
    for (int i = 0; i < up; i++) {
        if (len + 3 >= n)
            return -1;
        memcpy(out + len, "../", 3);
        len += 3;
    }
    if ((size_t)snprintf(out + len, n - len, "blobs/%s", etag) >= n - len)
        return -1;
    return 0;
}

int hub_open_file(const char *path, int flags, mode_t mode, char *err, size_t errlen)
{
    struct stat sb;
    int fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode), e;
    const char *what;
    if (fd < 0) {
        e = errno;
        if (e == ELOOP)
            xerr(err, errlen, "%s is a symbolic link, not a regular file: refused (the cache's "
                 "files are its own; remove it)", path);
        else
            xerr(err, errlen, "cannot open %s: %s", path, strerror(e));
        errno = e;
        return -1;
    }
    if (fstat(fd, &sb) != 0) {
        e = errno;
        close(fd);
        errno = e;
        return xerr(err, errlen, "cannot open %s: %s", path, strerror(e));
    }
    what = S_ISREG(sb.st_mode) ? NULL : S_ISFIFO(sb.st_mode) ? "a FIFO"
           : S_ISDIR(sb.st_mode) ? "a directory" : S_ISSOCK(sb.st_mode) ? "a socket"
           : "a device";
    if (!what && (flags & O_ACCMODE) != O_RDONLY && sb.st_nlink > 1)
        what = "a file with another name (a hard link)";
    if (what) {
        close(fd);
        errno = EINVAL;
        return xerr(err, errlen, "%s is %s, not a regular file: refused (the cache's files are "
                    "its own; remove it)", path, what);
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

int hub_real_dir(const char *path)
{
    struct stat sb;
    return lstat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

int hub_mkdirs(const char *path)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return -1;
        buf[i] = i < n ? '/' : '\0';
    }
    return 0;
}

/* the folder part of path into dir */
static void dirname_of(const char *path, char *dir, size_t n)
{
    const char *s = strrchr(path, '/');
    size_t len = s ? (size_t)(s - path) : 0;
    if (len >= n)
        len = n - 1;
    memcpy(dir, path, len);
    dir[len] = '\0';
}

int hub_link(const char *repo_dir, const char *commit, const char *path, const char *etag,
             char *err, size_t errlen)
{
    char link[4096], tmp[4200], target[4096], dir[4096];
    if ((size_t)snprintf(link, sizeof link, "%s/snapshots/%s/%s", repo_dir, commit, path) >=
            sizeof link ||
        hub_link_target(path, etag, target, sizeof target))
        return xerr(err, errlen, "%s: the snapshot path is too long", repo_dir);
    dirname_of(link, dir, sizeof dir);
    if (hub_mkdirs(dir))
        return xerr(err, errlen, "cannot create %s: %s", dir, strerror(errno));
    /* file_download.py:606-660 _create_symlink removes dst then links; here a temporary link
     * renamed over dst, so a reader sees the old link or the new one, never none */
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", link, (long)getpid());
    unlink(tmp);
    if (symlink(target, tmp) != 0)
        return xerr(err, errlen, "cannot create the link %s: %s", tmp, strerror(errno));
    if (rename(tmp, link) != 0) {
        int e = errno;
        unlink(tmp);
        return xerr(err, errlen, "cannot rename %s to %s: %s", tmp, link, strerror(e));
    }
    return 0;
}

int hub_write_ref(const char *repo_dir, const char *revision, const char *commit, char *err,
                  size_t errlen)
{
    char path[4096], tmp[4200], dir[4096], have[41];
    FILE *f;
    int bad, fd = -1;
    /* file_download.py:700-717 _cache_commit_hash_for_specific_revision: nothing when the
     * revision is the commit or the ref says it already; else a temporary file renamed over */
    if (strcmp(revision, commit) == 0)
        return 0;
    if (hub_ref_commit(repo_dir, revision, have, NULL, 0) == 0 && strcmp(have, commit) == 0)
        return 0;
    if ((size_t)snprintf(path, sizeof path, "%s/refs/%s", repo_dir, revision) >= sizeof path)
        return xerr(err, errlen, "%s: the ref's path is too long", repo_dir);
    dirname_of(path, dir, sizeof dir);
    if (hub_mkdirs(dir))
        return xerr(err, errlen, "cannot create %s: %s", dir, strerror(errno));
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    /* a fresh file, never through a link planted at the temporary name */
    unlink(tmp);
    if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666)) < 0 ||
        !(f = fdopen(fd, "w"))) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return xerr(err, errlen, "cannot write %s: %s", tmp, strerror(e));
    }
    bad = fputs(commit, f) < 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return xerr(err, errlen, "cannot write %s: %s", path, strerror(e));
    }
    return 0;
}

int hub_offline(void)
{
    /* constants.py:192: HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE, by _is_true (:12, :16-19):
     * "1", "ON", "YES", "TRUE" in any case */
    static const char *yes[] = {"1", "ON", "YES", "TRUE"};
    const char *v = env("HF_HUB_OFFLINE");
    if (!v)
        v = env("TRANSFORMERS_OFFLINE");
    for (size_t i = 0; v && i < sizeof yes / sizeof *yes; i++)
        if (strcasecmp(v, yes[i]) == 0)
            return 1;
    return 0;
}

void hub_endpoint(char *out, size_t n)
{
    /* constants.py:67-69: HF_ENDPOINT, default https://huggingface.co, rstrip("/") */
    const char *v = env("HF_ENDPOINT");
    size_t len;
    snprintf(out, n, "%s", v ? v : "https://huggingface.co");
    len = strlen(out);
    while (len > 0 && out[len - 1] == '/')
        out[--len] = '\0';
}

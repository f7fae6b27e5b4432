/* hub_pull.c — hub_pull: a model's files from the hub into the cache, speaking
 * huggingface_hub's protocol (file_download.py, _snapshot_download.py):
 *   1. GET {endpoint}/api/models/{repo}/revision/{rev}: the commit ("sha") and the file list;
 *   2. the files xlate needs (hub_files.c);
 *   3. per file HEAD {endpoint}/{repo}/resolve/{commit}/{path} for its etag, size and where the
 *      bytes are (a redirect to another host for LFS files), then GET of those bytes into
 *      blobs/ETAG.incomplete under the blob's flock (resumed with Range), checked, renamed to
 *      blobs/ETAG and linked from snapshots/COMMIT/PATH; refs/REVISION last.
 * The HTTP side is hub_http.c. SHA-256 of LFS blobs: OpenSSL's libcrypto (EVP), there with
 * libcurl's OpenSSL flavour anyway; nothing of our own to get wrong. A body streams to disk in
 * curl's buffers: memory does not grow with a file's size. A model's files download on up to
 * 8 threads at once (XLATE_HUB_WORKERS), each with its own curl handle and connection
 * (run_parallel): on a link with latency a small model's files are mostly round trips (API,
 * HEAD, redirect, GET each), which then overlap; config.json is linked last. */
#include "hub/hub_http.h"
#include "base/json.h"
#include "base/util.h"
#include "xlate.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------ one file */

/* 1 when s is exactly n lowercase hex digits: 64 a sha256 (an LFS blob's name, file_download.py
 * :75 REGEX_SHA256), 40 a git blob sha1 (a regular file's) */
static int is_hex(const char *s, size_t n)
{
    size_t i;
    for (i = 0; s[i]; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return i == n;
}

/* an etag as a file name: huggingface_hub's _normalize_etag (file_download.py:579-598: "W/"
 * and quotes stripped), then a 40-hex git blob sha1 or a 64-hex sha256 and nothing else (issue
 * 51 item 7): the server names a file in our cache, and any other name could reach out of
 * blobs/ or be another file's partial download ("SHA256.incomplete": a snapshot linked to a
 * half file). Every blob is then checked against its name (download_blob). 0, or -1. */
static int etag_name(const char *raw, char *out, size_t n)
{
    const char *s = raw;
    size_t len;
    if (strncmp(s, "W/", 2) == 0)
        s += 2;
    while (*s == '"')
        s++;
    len = strlen(s);
    while (len && s[len - 1] == '"')
        len--;
    if ((len != 40 && len != 64) || len >= n)
        return -1;
    memcpy(out, s, len);
    out[len] = '\0';
    return is_hex(out, len) ? 0 : -1;
}

/* the sha256 of the first `upto` bytes of fd into ctx (a resumed blob's bytes) */
static int hash_prefix(int fd, long long upto, EVP_MD_CTX *ctx)
{
    char buf[1 << 16];
    long long at = 0;
    while (at < upto) {
        size_t want = upto - at < (long long)sizeof buf ? (size_t)(upto - at) : sizeof buf;
        ssize_t r = pread(fd, buf, want, at);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        EVP_DigestUpdate(ctx, buf, (size_t)r);
        at += r;
    }
    return 0;
}

/* The git blob sha1 of the whole file fd ("blob LEN\0" then the bytes: git hash-object, as
 * huggingface_hub utils/sha.py:32-64 git_hash computes it) as 40 hex digits into out. 0 or -1
 * (a read error, errno set). A regular file is at most 10 MB on the hub, so it is read again
 * from disk once it is whole rather than hashed as it comes: a resumed file needs no prefix
 * pass, and the header needs the length, which an answer without a size does not say. */
static int git_sha1_fd(int fd, char out[41])
{
    char buf[1 << 16], head[40];
    struct stat sb;
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned mdlen = 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int rc = -1;
    if (!ctx || fstat(fd, &sb) != 0 || !EVP_DigestInit_ex(ctx, EVP_sha1(), NULL))
        goto out;
    EVP_DigestUpdate(ctx, head, (size_t)snprintf(head, sizeof head, "blob %lld", (long long)sb.st_size) + 1);
    for (long long at = 0; at < (long long)sb.st_size;) {
        ssize_t r = pread(fd, buf, sizeof buf, at);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = EIO;
            goto out;
        }
        EVP_DigestUpdate(ctx, buf, (size_t)r);
        at += r;
    }
    EVP_DigestFinal_ex(ctx, md, &mdlen);
    for (unsigned i = 0; i < mdlen && i < 20; i++)
        sprintf(out + 2 * i, "%02x", md[i]);
    rc = mdlen == 20 ? 0 : -1;
out:
    EVP_MD_CTX_free(ctx);
    return rc;
}

/* A cached blob against the hub's word (issue 51 item 8: a damaged blob was linked as it
 * was, and the pull said nothing): size bytes (when size >= 0), and the bytes hashing to the
 * name, the sha256 of a 64-hex ETag (an LFS file) or the git blob sha1 of a 40-hex one. 0
 * whole, 1 not (why says how), -1 unreadable (why says why). */
static int blob_verify(const char *path, long long size, const char *etag, char *why, size_t n)
{
    struct stat sb;
    char got[65];
    int fd = hub_open_file(path, O_RDONLY, 0, why, n), rc = 1;
    if (fd < 0)
        return -1;
    if (fstat(fd, &sb) != 0) {
        rc = xerr(why, n, "%s: %s", path, strerror(errno));
        goto out;
    }
    if (size >= 0 && (long long)sb.st_size != size) {
        snprintf(why, n, "has %lld bytes, the hub says %lld", (long long)sb.st_size, size);
        goto out;
    }
    if (strlen(etag) == 64) {
        EVP_MD_CTX *ctx = EVP_MD_CTX_new();
        unsigned char md[32];
        unsigned mdlen = 0;
        if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) ||
            hash_prefix(fd, (long long)sb.st_size, ctx)) {
            EVP_MD_CTX_free(ctx);
            rc = xerr(why, n, "%s: cannot read it to hash it", path);
            goto out;
        }
        EVP_DigestFinal_ex(ctx, md, &mdlen);
        EVP_MD_CTX_free(ctx);
        for (unsigned i = 0; i < mdlen && i < 32; i++)
            sprintf(got + 2 * i, "%02x", md[i]);
        got[64] = '\0';
    } else if (git_sha1_fd(fd, got)) {
        rc = xerr(why, n, "%s: %s", path, strerror(errno));
        goto out;
    }
    if (strcmp(got, etag) != 0) {
        snprintf(why, n, "holds bytes whose %s is %s", strlen(etag) == 64 ? "sha256"
                 : "git blob sha1", got);
        goto out;
    }
    rc = 0;
out:
    close(fd);
    return rc;
}

/* The bytes of one file into blobs/ETAG.incomplete, resumed, checked (size; the sha256 of an
 * LFS blob, the git blob sha1 of a regular file). Called under the blob's lock. On success the
 * .incomplete is whole and checked. */
static int download_blob(pull *pl, const char *what, const char *path, const char *url,
                         const char *etag, long long size, const char *incomplete, char *err,
                         size_t errlen)
{
    body_sink s = {.fd = -1};
    http_answer a;
    struct stat sb;
    char cur[4096], got[65];
    unsigned char md[32];
    unsigned mdlen = 0;
    int rc = HUB_OK, tries = 0, hops = 0, attempts = 0;

    /* never through a link, a FIFO or a second name (issue 51 item 6: a planted
     * blobs/X.incomplete -> ~/.bashrc was written through, then renamed into a blob) */
    if ((s.fd = hub_open_file(incomplete, O_RDWR | O_CREAT, 0644, err, errlen)) < 0) {
        char e2[XLATE_ERRLEN];
        snprintf(e2, sizeof e2, "%.200s: %s", what, err);
        snprintf(err, errlen, "%s", e2);
        return HUB_EDISK;
    }
    if (fstat(s.fd, &sb) != 0)
        goto disk;
    s.offset = sb.st_size;
    if (size >= 0 && s.offset > size) { /* longer than the file: not ours to resume */
        if (ftruncate(s.fd, 0) != 0)
            goto disk;
        s.offset = 0;
    }
    if (is_hex(etag, 64)) {
        if (!(s.sha = EVP_MD_CTX_new()) || !EVP_DigestInit_ex(s.sha, EVP_sha256(), NULL)) {
            rc = (xerr(err, errlen, "%s: cannot start a SHA-256", what), HUB_EINTEGRITY);
            goto out;
        }
        if (s.offset > 0 && hash_prefix(s.fd, s.offset, s.sha))
            goto disk;
    }
    if (lseek(s.fd, s.offset, SEEK_SET) < 0)
        goto disk;
    snprintf(cur, sizeof cur, "%s", url);
    pl->file = path;
    pl->total = size;
    pl->t0 = pl->last = now_seconds();
    pl->at_t0 = s.offset;
    pl->shown = 0;
    http_board_start(pl, s.offset, size);
    /* file_download.py:357-359: a whole .incomplete needs no request */
    while (!(size >= 0 && s.offset == size)) {
        CURLcode cc;
        pl->base = s.offset;
        cc = http_request(pl, "GET", cur, s.offset, &s, &a);
        if (cc == CURLE_OK && a.status >= 300 && a.status < 400 && a.location[0]) {
            char next[4096];
            if (++hops > MAX_HOPS || http_resolve(cur, a.location, next, sizeof next)) {
                rc = (xerr(err, errlen, "%s: %s: too many or bad redirects", what, cur), HUB_ENET);
                goto out;
            }
            snprintf(cur, sizeof cur, "%s", next);
            continue;
        }
        if (cc == CURLE_OK && a.status == 206) {
            /* Content-Range must start where the file ends: "bytes START-END/TOTAL" */
            long long start = -1;
            if (sscanf(a.content_range, "bytes %lld-", &start) != 1 || start != s.offset) {
                char q[200];
                rc = (xerr(err, errlen, "%s: %s: asked bytes from %lld, the answer's Content-Range "
                          "is \"%s\"", what, cur, s.offset,
                          str_quote(q, sizeof q, a.content_range, strlen(a.content_range))),
                      HUB_EINTEGRITY);
                goto bad;
            }
        }
        if (cc == CURLE_OK && a.status == 416 && s.offset > 0) { /* resume refused: start over */
            if (ftruncate(s.fd, 0) != 0 || lseek(s.fd, 0, SEEK_SET) != 0)
                goto disk;
            s.offset = 0;
            if (s.sha)
                EVP_DigestInit_ex(s.sha, EVP_sha256(), NULL);
            continue;
        }
        s.offset += s.got; /* what this answer wrote counts, whatever ended it */
        if (cc == CURLE_OK && (a.status == 200 || a.status == 206)) {
            if (size < 0 || s.offset >= size)
                break;
            cc = CURLE_PARTIAL_FILE; /* ended early without an error: resume */
        }
        if (cc == CURLE_WRITE_ERROR || cc == CURLE_ABORTED_BY_CALLBACK || http_cancelled(pl)) {
            rc = http_transfer_error(pl, what, cur, cc, &s, incomplete, tries + 1, err, errlen);
            goto out;
        }
        if (cc == CURLE_OK && !http_transient_status(a.status)) {
            rc = http_error(pl, what, cur, &a, err, errlen);
            goto out;
        }
        if (cc != CURLE_OK && !http_transient_curl(cc)) {
            rc = http_transfer_error(pl, what, cur, cc, &s, incomplete, tries + 1, err, errlen);
            goto out;
        }
        if (s.got > 0) /* progress was made: the tries count again (http_get's rule), */
            tries = 0;
        if (++attempts >= FILE_TRIES || ++tries > MAX_RETRIES) { /* but a trickle ends too */
            rc = cc ? http_transfer_error(pl, what, cur, cc, &s, incomplete, attempts, err,
                                          errlen)
                    : (xerr(err, errlen, "%s: %s: HTTP %ld (%d tries)", what, cur, a.status,
                            attempts), HUB_ENET);
            goto out;
        }
        http_nap(pl, http_backoff_ms(pl, tries));
        if (http_cancelled(pl)) {
            rc = (xerr(err, errlen, "%s: interrupted (a rerun resumes)", what), HUB_EINTR);
            goto out;
        }
        snprintf(cur, sizeof cur, "%s", url); /* a signed CDN URL may be stale: from the top */
        hops = 0;
    }
    if (size >= 0 && s.offset != size) {
        rc = (xerr(err, errlen, "%s: %s: got %lld bytes, the hub said %lld", what, url, s.offset,
                  size), HUB_EINTEGRITY);
        goto bad;
    }
    if (s.sha) {
        EVP_DigestFinal_ex(s.sha, md, &mdlen);
        for (unsigned i = 0; i < mdlen; i++)
            sprintf(got + 2 * i, "%02x", md[i]);
        if (strcmp(got, etag) != 0) {
            rc = (xerr(err, errlen, "%s: %s: the bytes' sha256 is %s, the hub's is %s: refused "
                      "(removed; a rerun downloads it again)", what, url, got, etag),
                  HUB_EINTEGRITY);
            goto bad;
        }
    }
    /* a regular file's ETag is its git blob sha1 (file_download.py:256-261: "An object's ETag
     * is: its git-sha1 if stored in git, or its sha256 if stored in git-lfs"), and the blob is
     * named by it (file_download.py:1173): bytes that do not hash to it must not take the name.
     * huggingface_hub itself checks only the size (file_download.py:471); a 40-hex ETag is
     * checked here as the sha256 of an LFS blob is; etag_name takes no other form. */
    if (is_hex(etag, 40)) {
        if (git_sha1_fd(s.fd, got))
            goto disk;
        if (strcmp(got, etag) != 0) {
            rc = (xerr(err, errlen, "%s: %s: the bytes' git blob sha1 is %s, the hub's ETag is "
                      "%s: refused (removed; a rerun downloads it again)", what, url, got, etag),
                  HUB_EINTEGRITY);
            goto bad;
        }
    }
    if (fsync(s.fd) != 0)
        goto disk;
    goto out;
disk:
    s.write_errno = errno;
    rc = (xerr(err, errlen, "%s: cannot write %s: %s", what, incomplete, strerror(errno)),
          HUB_EDISK);
bad:
    unlink(incomplete); /* bad bytes or a full disk: nothing to resume from */
out:
    if (rc == HUB_EDISK)
        unlink(incomplete);
    if (pl->tty && pl->file && rc == HUB_OK) {
        char a1[32], r[32];
        double t = now_seconds() - pl->t0;
        http_human((double)s.offset, a1, sizeof a1);
        http_human(t > 0 ? (double)(s.offset - pl->at_t0) / t : 0, r, sizeof r);
        http_file_line(pl, "%-32.32s %s, %s/s, done", path, a1, r);
    } else if (pl->tty && pl->file && pl->shown) {
        fprintf(stderr, "\n");
    }
    if (pl->file)
        http_board_end(pl, s.offset, rc == HUB_OK);
    pl->file = NULL;
    if (s.sha)
        EVP_MD_CTX_free(s.sha);
    if (s.fd >= 0 && close(s.fd) != 0 && rc == HUB_OK) {
        rc = (xerr(err, errlen, "%s: cannot write %s: %s", what, incomplete, strerror(errno)),
              HUB_EDISK);
        unlink(incomplete);
    }
    return rc;
}

/* takes the flock of blobs' ETAG at CACHE/.locks/models--ORG--NAME/ETAG.lock (file_download.py
 * :1212, filelock's UnixFileLock is flock(LOCK_EX) on it, created 0664: utils/_fixes.py:83-90),
 * waiting for another pull (xlate or huggingface_hub) that holds it, or another worker of this
 * pull (two paths with the same bytes: flock is per open file, so the second open waits). The
 * wait polls (LOCK_NB, then 20 ms naps, as filelock polls) rather than blocks: a SIGINT reaches
 * one thread only, and every worker must see the cancel. The fd, or -1 with err. */
static int lock_blob(pull *pl, const char *lockdir, const char *etag, int *status, char *err,
                     size_t errlen)
{
    char path[4700];
    int fd;
    snprintf(path, sizeof path, "%s/%s.lock", lockdir, etag);
    if (hub_mkdirs(lockdir)) {
        *status = HUB_EDISK;
        return xerr(err, errlen, "cannot create %s: %s", lockdir, strerror(errno));
    }
    if ((fd = hub_open_file(path, O_RDWR | O_CREAT, 0664, err, errlen)) < 0) {
        *status = HUB_EDISK;
        return -1;
    }
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if ((errno == EWOULDBLOCK || errno == EINTR) && !http_cancelled(pl)) {
            http_nap(pl, 20);
            continue;
        }
        *status = http_cancelled(pl) ? HUB_EINTR : HUB_EDISK;
        xerr(err, errlen, "%s: %s", path, http_cancelled(pl) ? "interrupted" : strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* One file of the snapshot: its metadata, its blob (downloaded unless there), its link; the
 * link left to the caller when etag_out is given (config.json, linked last: a snapshot with
 * config.json is taken as complete by hub_resolve_cached), the blob's name then in etag_out
 * ("" when the file was linked already). */
static int pull_file(pull *pl, const char *cache, const char *repo_dir, const char *repo,
                     const char *commit, const char *path, char *etag_out, char *err,
                     size_t errlen)
{
    char url[4096], qpath[2048], final[4096], get_url[4096], etag[200], tmp[4600];
    char blobs[4400], blob[4600], incomplete[4700], lockdir[4400], what[600], qe[200];
    const char *raw;
    body_sink m = {.fd = -1};
    http_answer a;
    struct stat sb;
    long long size;
    int rc, lock = -1;

    /* file_download.py:1072-1076: a commit's file already linked needs no request; here only
     * when the API said its size and blob (blobs=true) and the link names that blob and the
     * blob is whole (blob_verify). Otherwise the HEAD below, and the blob checked there. */
    snprintf(tmp, sizeof tmp, "%s/snapshots/%s/%s", repo_dir, commit, path);
    if (etag_out)
        etag_out[0] = '\0';
    for (int i = 0; i < pl->nnames; i++) {
        char have[4096], want[4096], why[600];
        ssize_t tl;
        if (strcmp(pl->names[i], path) != 0 || !pl->etags[i][0] || pl->sizes[i] < 0)
            continue;
        tl = readlink(tmp, have, sizeof have - 1);
        if (tl > 0 && !hub_link_target(path, pl->etags[i], want, sizeof want) &&
            (size_t)tl == strlen(want) && memcmp(have, want, (size_t)tl) == 0) {
            snprintf(blob, sizeof blob, "%s/blobs/%s", repo_dir, pl->etags[i]);
            if (blob_verify(blob, pl->sizes[i], pl->etags[i], why, sizeof why) == 0) {
                http_file_line(pl, "%-32.32s in the cache", path);
                return HUB_OK;
            }
        }
        break;
    }
    snprintf(what, sizeof what, "%s: %s", repo, path);
    if (http_quote(pl, path, 0, qpath, sizeof qpath))
        return xerr(err, errlen, "%s: the file name is too long", what), HUB_ENOTFOUND;
    /* constants.py:70 HUGGINGFACE_CO_URL_TEMPLATE */
    snprintf(url, sizeof url, "%s/%s/resolve/%s/%s", pl->endpoint, repo, commit, qpath);
    /* get_hf_file_metadata (file_download.py:1569-1641): HEAD, same-origin redirects followed
     * (a renamed repository), another host's not (the LFS bytes' place) */
    if ((rc = http_fetch(pl, "HEAD", url, 1, &m, &a, final, sizeof final, what, err, errlen)))
        return rc;
    if (a.status == 405 || a.status == 501) { /* a server without HEAD: GET, cut after headers */
        m.discard = 1;
        if ((rc = http_fetch(pl, "GET", url, 1, &m, &a, final, sizeof final, what, err, errlen)))
            return rc;
    }
    if (a.status >= 300 && a.status < 400 && a.location[0]) {
        /* file_download.py:1769-1773: the bytes come from the Location; the token is not sent
         * there when its host differs (http_request() sends it to the endpoint's origin only) */
        if (http_resolve(final, a.location, get_url, sizeof get_url))
            return xerr(err, errlen, "%s: %s: a redirect to a bad URL", what, final), HUB_ENET;
    } else if (a.status >= 200 && a.status < 300) {
        snprintf(get_url, sizeof get_url, "%s", final);
    } else {
        return http_error(pl, what, final, &a, err, errlen);
    }
    /* file_download.py:1630-1640: etag = X-Linked-Etag or ETag, normalized; size =
     * X-Linked-Size, else Content-Length unless a redirect */
    raw = a.linked_etag[0] ? a.linked_etag : a.etag;
    if (!raw[0])
        return xerr(err, errlen, "%s: %s: the answer has no ETag (nor X-Linked-Etag): the server "
                    "is not a hub", what, url), HUB_ENET;
    if (etag_name(raw, etag, sizeof etag))
        return xerr(err, errlen, "%s: %s: the %s \"%s\" is neither a 40-hex git blob sha1 nor "
                    "a 64-hex sha256: refused (it would name the file in the cache)", what, url,
                    a.linked_etag[0] ? "X-Linked-Etag" : "ETag",
                    str_quote(qe, sizeof qe, raw, strlen(raw))),
               HUB_ENET;
    size = a.linked_size >= 0 ? a.linked_size
           : a.status >= 300 && a.status < 400 ? -1 : a.content_length;
    snprintf(blobs, sizeof blobs, "%s/blobs", repo_dir);
    snprintf(blob, sizeof blob, "%s/%s", blobs, etag);
    snprintf(incomplete, sizeof incomplete, "%s.incomplete", blob);
    snprintf(lockdir, sizeof lockdir, "%s/.locks/%s", cache, strrchr(repo_dir, '/') + 1);
    if (hub_mkdirs(blobs))
        return xerr(err, errlen, "cannot create %s: %s", blobs, strerror(errno)), HUB_EDISK;
    if (!hub_real_dir(blobs)) /* a link to a folder elsewhere: blobs go under the cache only */
        return xerr(err, errlen, "%s is not a directory of the cache (a symbolic link?): refused",
                    blobs), HUB_EDISK;
    if ((lock = lock_blob(pl, lockdir, etag, &rc, err, errlen)) < 0)
        return rc;
    /* file_download.py:1227-1237: a blob there (another repo's file, another pull) is linked;
     * lstat: a link is no blob of the cache (a link out of it is downloaded over) */
    if (lstat(blob, &sb) == 0 && S_ISREG(sb.st_mode)) {
        char why[600], msg[1700];
        int v = blob_verify(blob, size, etag, why, sizeof why);
        if (v != 0) { /* damaged: said, removed, fetched again (the repair) */
            snprintf(msg, sizeof msg, "%s: the cached blob %s %s: fetching it again", what, etag,
                     why);
            if (pl->p->warn)
                pl->p->warn(pl->p->user, msg);
            if (unlink(blob) != 0) {
                rc = (xerr(err, errlen, "cannot remove the damaged %s: %s", blob,
                          strerror(errno)), HUB_EDISK);
                goto out;
            }
        }
    }
    if (!(lstat(blob, &sb) == 0 && S_ISREG(sb.st_mode))) {
        if ((rc = download_blob(pl, what, path, get_url, etag, size, incomplete, err, errlen)))
            goto out;
        /* file_download.py:2000 _chmod_and_move: the umask's mode, then the rename */
        chmod(incomplete, 0666 & ~pl->umask);
        if (rename(incomplete, blob) != 0) {
            rc = (xerr(err, errlen, "cannot rename %s to %s: %s", incomplete, blob,
                      strerror(errno)), HUB_EDISK);
            goto out;
        }
    } else {
        http_file_line(pl, "%-32.32s in the cache (blob)", path);
    }
    if (etag_out)
        snprintf(etag_out, 200, "%s", etag);
    else if (hub_link(repo_dir, commit, path, etag, err, errlen))
        rc = HUB_EDISK;
out:
    close(lock);
    return rc;
}

hub_pull_params hub_pull_default_params(void)
{
    hub_pull_params p = {0};
    p.progress = 1;
    return p;
}

/* the API's answer: the commit and the file names; with blobs=true (hf_api.py model_info
 * files_metadata: each sibling's size, blobId, lfs {size, sha256}) each file's size and the
 * ETag its blob has (lfs.sha256 for an LFS file, blobId, its git blob sha1, else), -1 and ""
 * where not said or not of that form */
static int read_api(const char *url, const char *text, size_t len, char commit[41],
                    char ***files, int *n, long long **sizes, char (**etags)[65], char *err,
                    size_t errlen)
{
    cJSON *root = json_parse_object(text, len, url, err, errlen), *sha, *sib, *e;
    int k = 0;
    if (!root)
        return -1;
    sha = cJSON_GetObjectItemCaseSensitive(root, "sha");
    sib = cJSON_GetObjectItemCaseSensitive(root, "siblings");
    if (!cJSON_IsString(sha) || !hub_is_commit(sha->valuestring)) {
        xerr(err, errlen, "%s: \"sha\": expected a 40-hex commit, got %s", url,
             sha ? JSON_GOT(sha) : "nothing");
        goto bad;
    }
    if (!cJSON_IsArray(sib)) {
        xerr(err, errlen, "%s: \"siblings\": expected an array, got %s", url,
             sib ? JSON_GOT(sib) : "nothing");
        goto bad;
    }
    memcpy(commit, sha->valuestring, 41);
    if (!(*files = calloc((size_t)cJSON_GetArraySize(sib) + 1, sizeof **files)) ||
        !(*sizes = calloc((size_t)cJSON_GetArraySize(sib) + 1, sizeof **sizes)) ||
        !(*etags = calloc((size_t)cJSON_GetArraySize(sib) + 1, sizeof **etags)))
        goto oom;
    cJSON_ArrayForEach(e, sib) {
        cJSON *f = cJSON_GetObjectItemCaseSensitive(e, "rfilename");
        cJSON *sz = cJSON_GetObjectItemCaseSensitive(e, "size");
        cJSON *lfs = cJSON_GetObjectItemCaseSensitive(e, "lfs");
        cJSON *id = cJSON_IsObject(lfs) ? cJSON_GetObjectItemCaseSensitive(lfs, "sha256")
                                        : cJSON_GetObjectItemCaseSensitive(e, "blobId");
        (*sizes)[k] = cJSON_IsNumber(sz) && sz->valuedouble >= 0 && sz->valuedouble < 9e15
                          ? (long long)sz->valuedouble : -1;
        if (cJSON_IsString(id) && (is_hex(id->valuestring, 40) || is_hex(id->valuestring, 64)))
            snprintf((*etags)[k], sizeof (*etags)[k], "%s", id->valuestring);
        if (!cJSON_IsString(f)) {
            xerr(err, errlen, "%s: \"siblings\"[%d]: \"rfilename\": expected a string, got %s",
                 url, k, f ? JSON_GOT(f) : "nothing");
            goto bad;
        }
        if (!((*files)[k++] = strdup(f->valuestring)))
            goto oom;
    }
    *n = k;
    cJSON_Delete(root);
    return 0;
oom:
    xerr(err, errlen, "%s: out of memory", url);
bad:
    for (int j = 0; *files && j < k; j++)
        free((*files)[j]);
    free(*files);
    *files = NULL;
    free(*sizes);
    *sizes = NULL;
    free(*etags);
    *etags = NULL;
    cJSON_Delete(root);
    return -1;
}

static void free_names(char **v, int n)
{
    for (int i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

/* ------------------------------------------------------------------ the files, in parallel */

/* A pull's files shared by its workers (huggingface_hub's snapshot_download maps
 * hf_hub_download over the files on max_workers=8 threads: _snapshot_download.py:55,522-527).
 * Each worker takes the next file not taken, under mu, and keeps its status and message; a
 * file's failure does not stop the others (as there: every file is tried), except a status
 * every later file would meet too (a full disk, no access, a cancel). */
typedef struct pull_files {
    pthread_mutex_t mu;
    const char *cache, *repo_dir, *repo, *commit;
    const char **paths; /* n of them */
    int n, next;
    int stop;           /* take no more files */
    int defer;          /* the file linked by the caller, last (config.json), or -1 */
    char defer_etag[200];
    int *rc;            /* per file; -1 not tried */
    char (*err)[XLATE_ERRLEN];
    pull_board board;   /* the progress line when several workers */
} pull_files;

static void run_files(pull_files *j, pull *pl)
{
    for (;;) {
        int i, rc;
        pthread_mutex_lock(&j->mu);
        i = j->stop || http_cancelled(pl) || j->next >= j->n ? -1 : j->next++;
        pthread_mutex_unlock(&j->mu);
        if (i < 0)
            return;
        if (pl->board) {
            pthread_mutex_lock(&pl->board->mu);
            pl->board->started++;
            pthread_mutex_unlock(&pl->board->mu);
        }
        rc = pull_file(pl, j->cache, j->repo_dir, j->repo, j->commit, j->paths[i],
                       i == j->defer ? j->defer_etag : NULL, j->err[i], XLATE_ERRLEN);
        j->rc[i] = rc;
        if (pl->board) {
            pthread_mutex_lock(&pl->board->mu);
            pl->board->done++;
            pthread_mutex_unlock(&pl->board->mu);
        }
        if (rc == HUB_EDISK || rc == HUB_EAUTH || rc == HUB_EINTR) {
            pthread_mutex_lock(&j->mu);
            j->stop = 1;
            pthread_mutex_unlock(&j->mu);
        }
    }
}

typedef struct pull_worker {
    pull_files *j;
    pull pl; /* a copy of the pull with its own curl handle */
    pthread_t thread;
    int running;
} pull_worker;

static void *worker_main(void *arg)
{
    pull_worker *w = arg;
    run_files(w->j, &w->pl);
    return NULL;
}

/* The files of j on `workers` threads (the calling one among them; 1: no thread at all), each
 * with its own connection. HUB_OK, or the first failed file's status and message in the
 * files' order (a cancel first), with the count of the others that failed. */
static int run_parallel(pull *pl, pull_files *j, int workers, char *err, size_t errlen)
{
    pull_worker w[PULL_MAX_WORKERS];
    int first = -1, more = 0, rc = HUB_OK;
    if (workers > j->n)
        workers = j->n;
    if (workers > PULL_MAX_WORKERS)
        workers = PULL_MAX_WORKERS;
    memset(w, 0, sizeof w);
    pthread_mutex_init(&j->mu, NULL);
    if (workers > 1 && pl->tty) {
        memset(&j->board, 0, sizeof j->board);
        pthread_mutex_init(&j->board.mu, NULL);
        j->board.files = j->n;
        j->board.t0 = now_seconds();
        pl->board = &j->board;
        pl->slot = 0;
    }
    for (int k = 1; k < workers; k++) {
        w[k].j = j;
        w[k].pl = *pl;
        w[k].pl.slot = k;
        if (!(w[k].pl.curl = curl_easy_init()))
            break;
        if (pthread_create(&w[k].thread, NULL, worker_main, &w[k]) != 0) {
            curl_easy_cleanup(w[k].pl.curl);
            break; /* fewer workers: the calling thread takes what is left */
        }
        w[k].running = 1;
    }
    run_files(j, pl);
    for (int k = 1; k < workers; k++) {
        if (!w[k].running)
            continue;
        pthread_join(w[k].thread, NULL);
        curl_easy_cleanup(w[k].pl.curl);
        memset(w[k].pl.auth, 0, sizeof w[k].pl.auth); /* the token's copy */
    }
    if (pl->board) {
        if (j->board.shown)
            fputs("\r\033[K", stderr);
        pthread_mutex_destroy(&j->board.mu);
        pl->board = NULL;
    }
    pthread_mutex_destroy(&j->mu);
    for (int i = 0; i < j->n; i++) {
        if (j->rc[i] <= 0)
            continue;
        if (first < 0 || (j->rc[i] == HUB_EINTR && j->rc[first] != HUB_EINTR))
            first = i;
        more++;
    }
    if (first < 0)
        return HUB_OK;
    rc = j->rc[first];
    if (more > 1 && rc != HUB_EINTR) {
        size_t len = strlen(j->err[first]);
        snprintf(j->err[first] + len, XLATE_ERRLEN - len, " (and %d other file%s failed: a "
                 "rerun fetches what is missing)", more - 1, more > 2 ? "s" : "");
    }
    snprintf(err, errlen, "%s", j->err[first]);
    return rc;
}

/* files downloading at once: XLATE_HUB_WORKERS, else p->workers, else 8, huggingface_hub's
 * max_workers (_snapshot_download.py:55): a model's 6 to 9 files then all go at once
 * (bench/README.md "Parallel pulls": a 7-file model over a 100 ms round trip, 2.16 s on 1
 * worker, 1.10 s on 4, 0.77 s on 8) */
static int pull_workers(const hub_pull_params *p)
{
    long w = http_env_long("XLATE_HUB_WORKERS", 0, 1, PULL_MAX_WORKERS);
    if (w > 0)
        return (int)w;
    return p->workers > 0 ? (p->workers < PULL_MAX_WORKERS ? p->workers : PULL_MAX_WORKERS) : 8;
}

int hub_pull(const hub_ref *ref, const hub_pull_params *p, char *out, size_t n, char *err,
             size_t errlen)
{
    char cache[4096], repo_dir[4400], url[4096], qrev[1024], final[4096], commit[41], what[600];
    char idx[4700], tag[4200];
    const char *chosen[16];
    char **files = NULL, **shards = NULL, (*etags)[65] = NULL;
    long long *sizes = NULL;
    int nfiles = 0, nshards = 0, nchosen, rc, tagfd;
    body_sink api = {.fd = -1};
    http_answer a;
    pull pl = {.p = p};
    pull_files jobs = {.defer = -1};
    FILE *f;

    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return xerr(err, errlen, "libcurl did not start"), HUB_ENET;
    if (!(pl.curl = curl_easy_init())) {
        curl_global_cleanup();
        return xerr(err, errlen, "libcurl did not start"), HUB_ENET;
    }
    hub_endpoint(pl.endpoint, sizeof pl.endpoint);
    http_read_token(&pl);
    pl.retry_ms = http_env_long("XLATE_HUB_RETRY_MS", 1000, 0, 600000);
    pl.timeout_s = http_env_long("XLATE_HUB_TIMEOUT_S", 30, 1, 86400);
    pl.tty = p->progress && !p->quiet && isatty(STDERR_FILENO);
    pl.umask = umask(0); /* once, before any worker: umask() is the process's */
    umask(pl.umask);
    snprintf(what, sizeof what, "%s@%s", ref->repo, ref->revision);

    rc = HUB_EDISK;
    if (hub_cache_dir(cache, sizeof cache, err, errlen) ||
        hub_repo_dir(cache, ref->repo, repo_dir, sizeof repo_dir)) {
        xerr(err, errlen, "the hub cache's path is too long");
        goto out;
    }
    /* _snapshot_download.py:268 repo_info: GET /api/models/{repo}/revision/{quoted revision} */
    rc = HUB_ENOTFOUND;
    if (http_quote(&pl, ref->revision, 1, qrev, sizeof qrev)) {
        xerr(err, errlen, "%s: the revision is too long", what);
        goto out;
    }
    snprintf(url, sizeof url, "%s/api/models/%s/revision/%s?blobs=true", pl.endpoint,
             ref->repo, qrev);
    if ((rc = http_fetch(&pl, "GET", url, 2, &api, &a, final, sizeof final, what, err, errlen)))
        goto out;
    if (a.status != 200) {
        rc = http_error(&pl, what, final, &a, err, errlen);
        goto out;
    }
    rc = HUB_ENET;
    if (read_api(final, api.mem ? api.mem : "", api.len, commit, &files, &nfiles, &sizes,
                 &etags, err, errlen))
        goto out;
    pl.names = files;
    pl.sizes = sizes;
    pl.etags = (const char (*)[65])etags;
    pl.nnames = nfiles;
    rc = HUB_ENOTFOUND;
    if ((nchosen = hub_choose_files(files, nfiles, chosen, 16, err, errlen)) < 0) {
        char e2[XLATE_ERRLEN];
        snprintf(e2, sizeof e2, "%.100s: %.400s", what, err);
        snprintf(err, errlen, "%s", e2);
        goto out;
    }
    rc = HUB_EDISK;
    if (hub_mkdirs(repo_dir)) {
        xerr(err, errlen, "cannot create %s: %s", repo_dir, strerror(errno));
        goto out;
    }
    /* file_download.py:1200 _create_cachedir_tag (best effort, as there) */
    snprintf(tag, sizeof tag, "%s/CACHEDIR.TAG", cache);
    /* O_EXCL | O_NOFOLLOW: a link planted there does not make a file elsewhere */
    tagfd = open(tag, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (tagfd >= 0 && !(f = fdopen(tagfd, "w")))
        close(tagfd);
    else if (tagfd >= 0) {
        fputs("Signature: 8a477f597d28d172789f06886806bc55\n"
              "# This file is a cache directory tag (the hub's cache, written by xlate).\n"
              "# For information about cache directory tags, see:\n"
              "#\thttps://bford.info/cachedir/\n", f);
        fclose(f);
    }
    /* a sharded checkpoint: its index first (hub_choose_files puts it first), for the shards
     * it names, each one listed */
    if (strstr(chosen[0], ".index.json")) {
        if ((rc = pull_file(&pl, cache, repo_dir, ref->repo, commit, chosen[0], NULL, err,
                            errlen)))
            goto out;
        snprintf(idx, sizeof idx, "%s/snapshots/%s/%s", repo_dir, commit, chosen[0]);
        rc = HUB_EINTEGRITY;
        if (hub_index_shards(idx, &shards, &nshards, err, errlen))
            goto out;
        for (int j = 0; j < nshards; j++) {
            int k;
            for (k = 0; k < nfiles && strcmp(files[k], shards[j]); k++)
                ;
            if (k == nfiles) {
                char q[200];
                rc = (xerr(err, errlen, "%s: %s names the shard \"%s\", which the repository "
                          "does not list", what, chosen[0],
                          str_quote_max(q, sizeof q, shards[j], strlen(shards[j]), 120)),
                      HUB_ENOTFOUND);
                goto out;
            }
        }
    }
    /* the rest at once: the shards, the other files; config.json linked when all are there */
    rc = HUB_EDISK;
    jobs.n = nshards + nchosen - (nshards > 0 || strstr(chosen[0], ".index.json") ? 1 : 0);
    if (!(jobs.paths = calloc((size_t)jobs.n + 1, sizeof *jobs.paths)) ||
        !(jobs.rc = malloc(((size_t)jobs.n + 1) * sizeof *jobs.rc)) ||
        !(jobs.err = calloc((size_t)jobs.n + 1, sizeof *jobs.err))) {
        xerr(err, errlen, "%s: out of memory", what);
        goto out;
    }
    jobs.n = 0;
    for (int j = 0; j < nshards; j++)
        jobs.paths[jobs.n++] = shards[j];
    for (int i = strstr(chosen[0], ".index.json") ? 1 : 0; i < nchosen; i++) {
        if (strcmp(chosen[i], "config.json") == 0)
            jobs.defer = jobs.n;
        jobs.paths[jobs.n++] = chosen[i];
    }
    for (int i = 0; i < jobs.n; i++)
        jobs.rc[i] = -1;
    jobs.cache = cache;
    jobs.repo_dir = repo_dir;
    jobs.repo = ref->repo;
    jobs.commit = commit;
    if ((rc = run_parallel(&pl, &jobs, pull_workers(p), err, errlen)))
        goto out;
    rc = HUB_EDISK;
    if (jobs.defer >= 0 && jobs.defer_etag[0] &&
        hub_link(repo_dir, commit, "config.json", jobs.defer_etag, err, errlen))
        goto out;
    /* refs/REVISION last, so that an interrupted pull leaves the ref at the snapshot before */
    rc = HUB_EDISK;
    if (hub_write_ref(repo_dir, ref->revision, commit, err, errlen))
        goto out;
    rc = HUB_OK;
    if ((size_t)snprintf(out, n, "%s/snapshots/%s", repo_dir, commit) >= n)
        rc = (xerr(err, errlen, "%s: the snapshot path is too long", repo_dir), HUB_EDISK);
out:
    free(api.mem);
    free_names(files, nfiles);
    free(sizes);
    free(etags);
    free_names(shards, nshards);
    free(jobs.paths);
    free(jobs.rc);
    free(jobs.err);
    curl_easy_cleanup(pl.curl);
    curl_global_cleanup();
    memset(pl.auth, 0, sizeof pl.auth); /* the token leaves no copy behind */
    return rc;
}

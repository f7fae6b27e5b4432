/* cli_outfile.c — `-o FILE` replaced whole or not at all, and the interrupt (issue 36).
 *
 * The output goes to a temporary file beside the target, `.NAME.xlate-XXXXXX` in the same
 * directory (so the same file system: rename(2) replaces the target in one step), which is
 * renamed over the target when the run succeeded and removed when it failed (a write error, a
 * full disk, a bad line, a translation error). SIGINT, SIGTERM and SIGHUP remove it too, say on
 * stderr what was done (in line mode, how many lines were written), and end the process by
 * the same signal, as the shell expects of a program it interrupted. So an old target is never
 * replaced by an empty or partial file: it stays as it was until a complete output replaces
 * it. A target that exists and is not a regular file (/dev/null, a FIFO, a terminal) is
 * written in place: there is nothing to replace, and renaming over a device would be wrong.
 * The way GNU sed -i and rsync replace a file (a temporary file in the target's directory,
 * then rename), written here from rename(2)'s and mkstemp(3)'s manuals. */
#include "cli/cli_outfile.h"
#include "base/util.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const int caught_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define N_CAUGHT ((int)(sizeof caught_signals / sizeof caught_signals[0]))

/* The process's one pending output and what the signal handler says. Global state, as
 * cli_common.c's SIGBUS message: a signal handler has no other way to its data. The strings
 * are written before `pending` is set; the handler only reads them. */
static struct {
    char target[PATH_MAX];     /* what the temporary file is renamed to */
    char tmp[PATH_MAX];        /* the temporary file */
    char shown[1024];          /* the target as messages name it */
    volatile sig_atomic_t pending;     /* tmp exists and is ours to rename or remove */
    volatile sig_atomic_t existed;     /* the target existed: "left as it was" */
    volatile sig_atomic_t count_lines; /* say how many lines were written */
    volatile sig_atomic_t tty;         /* stderr is a terminal: clear the progress line first */
    int caught;                        /* the handler is installed */
    atomic_long lines;                 /* lock-free on the targets built for: safe in a handler */
} of;

/* ---- the handler: only async-signal-safe calls (unlink, write, sigaction, raise) ---- */

static void put_str(char *buf, size_t *k, size_t cap, const char *s)
{
    while (*s && *k + 1 < cap)
        buf[(*k)++] = *s++;
}

static void put_long(char *buf, size_t *k, size_t cap, long v)
{
    char d[24];
    int n = 0;
    unsigned long u = v < 0 ? 0 : (unsigned long)v;
    do
        d[n++] = (char)('0' + u % 10);
    while ((u /= 10) && n < (int)sizeof d);
    while (n > 0 && *k + 1 < cap)
        buf[(*k)++] = d[--n];
}

static void on_interrupt(int sig)
{
    char msg[sizeof of.shown + 256];
    size_t k = 0;
    long n = atomic_load_explicit(&of.lines, memory_order_relaxed);
    int pending = of.pending;
    if (pending)
        unlink(of.tmp);
    put_str(msg, &k, sizeof msg, of.tty ? "\r\033[K" : "");
    put_str(msg, &k, sizeof msg, "xlate: interrupted");
    if (of.count_lines) {
        put_str(msg, &k, sizeof msg, " after ");
        put_long(msg, &k, sizeof msg, n);
        put_str(msg, &k, sizeof msg, n == 1 ? " line written" : " lines written");
        if (pending)
            put_str(msg, &k, sizeof msg, " to a temporary file, now removed");
    } else if (pending) {
        put_str(msg, &k, sizeof msg, "; the temporary file removed");
    }
    if (pending) {
        put_str(msg, &k, sizeof msg, "; ");
        put_str(msg, &k, sizeof msg, of.shown);
        put_str(msg, &k, sizeof msg, of.existed ? " was left as it was" : " was not created");
    }
    put_str(msg, &k, sizeof msg, "\n");
    if (write(STDERR_FILENO, msg, k) < 0) {
        /* nothing more can be said */
    }
    /* SA_RESETHAND and SA_NODEFER: the disposition is the default again and sig not held, so
     * this ends the process by sig (a shell sees 128 + sig and stops its script) */
    raise(sig);
    _exit(128 + sig);
}

void outfile_catch_interrupt(int count_lines)
{
    struct sigaction sa, old;
    of.count_lines = count_lines;
    of.tty = isatty(STDERR_FILENO);
    if (of.caught)
        return;
    of.caught = 1;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sa.sa_flags = SA_RESETHAND | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < N_CAUGHT; i++)
        sigaddset(&sa.sa_mask, caught_signals[i]); /* one handler at a time */
    for (int i = 0; i < N_CAUGHT; i++) {
        if (sigaction(caught_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue; /* started ignoring it (nohup, a background job): so it stays */
        sigdelset(&sa.sa_mask, caught_signals[i]); /* SA_NODEFER: its own stays deliverable */
        sigaction(caught_signals[i], &sa, NULL);
        sigaddset(&sa.sa_mask, caught_signals[i]);
    }
}

void outfile_lines(long n) { atomic_store_explicit(&of.lines, n, memory_order_relaxed); }

int outfile_pending(void) { return of.pending; }

/* ---- opening and finishing ---- */

static FILE *open_in_place(const char *path, const char *shown, char *err, size_t errlen)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        xerr(err, errlen, "%s: cannot open for writing: %s", shown, strerror(errno));
    return f;
}

FILE *outfile_open(const char *path, const char *shown, char *err, size_t errlen)
{
    struct stat sb;
    char real[PATH_MAX];
    const char *target = path, *base;
    size_t dir_len;
    int fd, existed;
    mode_t mask;
    FILE *f;

    if (of.pending) {
        xerr(err, errlen, "%s: another output is still open", shown);
        return NULL;
    }
    if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode)) {
        if (!realpath(path, real))
            return open_in_place(path, shown, err, errlen); /* dangling: creates its target */
        target = real; /* the link stays a link; the file it names is replaced */
    }
    existed = stat(target, &sb) == 0;
    if (existed && S_ISDIR(sb.st_mode)) {
        xerr(err, errlen, "%s: cannot open for writing: %s", shown, strerror(EISDIR));
        return NULL;
    }
    base = strrchr(target, '/');
    base = base ? base + 1 : target;
    dir_len = (size_t)(base - target);
    if ((existed && !S_ISREG(sb.st_mode)) || (!existed && errno != ENOENT) || !*base ||
        strlen(target) >= sizeof of.target)
        return open_in_place(path, shown, err, errlen);
    /* dir/.NAME.xlate-XXXXXX, NAME cut to 200 bytes so the name stays under NAME_MAX */
    if (snprintf(of.tmp, sizeof of.tmp, "%.*s.%.200s.xlate-XXXXXX", (int)dir_len, target,
                 base) >= (int)sizeof of.tmp)
        return open_in_place(path, shown, err, errlen);
    snprintf(of.target, sizeof of.target, "%s", target);
    snprintf(of.shown, sizeof of.shown, "%s", shown);
    fd = mkostemp(of.tmp, O_CLOEXEC);
    if (fd < 0) {
        xerr(err, errlen, "%s: cannot open for writing: %s%s", shown, strerror(errno),
             existed ? " (a temporary file in its directory, renamed over it at the end)" : "");
        return NULL;
    }
    /* mkstemp makes it 0600: give it what the target has, or what fopen would have made */
    if (existed) {
        if (fchown(fd, sb.st_uid, sb.st_gid) != 0) {
            /* not ours to give away: the file stays ours, as a new one would be */
        }
        fchmod(fd, sb.st_mode & 07777);
    } else {
        mask = umask(0);
        umask(mask);
        fchmod(fd, 0666 & ~mask);
    }
    if (!(f = fdopen(fd, "wb"))) {
        xerr(err, errlen, "%s: cannot open for writing: %s", shown, strerror(errno));
        close(fd);
        unlink(of.tmp);
        return NULL;
    }
    of.existed = existed;
    of.pending = 1;
    outfile_catch_interrupt(of.count_lines);
    return f;
}

int outfile_finish(int keep)
{
    struct sigaction ign, old[N_CAUGHT];
    int rc = 0, e = 0;
    if (!of.pending)
        return 0;
    /* The signals ignored for the moment of the rename: a handler in another thread must not
     * remove a file already renamed, nor say the target stayed. One that comes now is lost:
     * the run is done. */
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    for (int i = 0; i < N_CAUGHT; i++)
        sigaction(caught_signals[i], &ign, &old[i]);
    if (keep && rename(of.tmp, of.target) != 0) {
        e = errno;
        rc = -1;
    }
    if (!keep || rc)
        unlink(of.tmp);
    of.pending = 0;
    for (int i = 0; i < N_CAUGHT; i++)
        sigaction(caught_signals[i], &old[i], NULL);
    errno = e;
    return rc;
}

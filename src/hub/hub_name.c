/* hub_name.c — Hugging Face repository ids and ORG/NAME[@REVISION] names: the rules of
 * huggingface_hub's validate_repo_id (utils/_validators.py), written out as plain checks
 * instead of its regular expression, and what xlate takes for a hub name rather than a path. */
#include "hub/hub.h"
#include "base/util.h"
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* \w of an ASCII regular expression (_validators.py:38 re.ASCII): [A-Za-z0-9_] */
static int word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

/* One part of an id, s[0, n): [\w\-.]+ between word boundaries (_validators.py:31 and :32-35),
 * so its first and last characters are \w (the boundary at the string's start, before '/',
 * after '/' and at its end sits between a \w and a non-\w); max bytes at most (0: no limit).
 * Returns NULL when fine, else the rule it breaks. */
static const char *part_bad(const char *s, size_t n, size_t max)
{
    if (n == 0)
        return "is empty";
    if (max && n > max)
        return "is longer than 96 characters";
    for (size_t i = 0; i < n; i++)
        if (!word_char(s[i]) && s[i] != '-' && s[i] != '.')
            return "has a character other than A-Z, a-z, 0-9, '-', '_' and '.'";
    if (!word_char(s[0]) || !word_char(s[n - 1]))
        return "starts or ends with '-' or '.'";
    return NULL;
}

/* The rule s breaks as a repository id, or NULL (validate_repo_id, _validators.py:131-148). */
static const char *repo_id_bad(const char *s)
{
    const char *slash = strchr(s, '/'), *why;
    size_t n = strlen(s);
    /* _validators.py:131: at most one '/' */
    if (slash && strchr(slash + 1, '/'))
        return "has more than one '/'";
    /* _validators.py:28-36, :137: the optional namespace (no length limit in the expression),
     * then the name of 1 to 96 characters */
    if (slash && (why = part_bad(s, (size_t)(slash - s), 0)))
        return why;
    if ((why = part_bad(slash ? slash + 1 : s, slash ? n - (size_t)(slash - s) - 1 : n, 96)))
        return why;
    /* _validators.py:144 */
    if (strstr(s, "--") || strstr(s, ".."))
        return "has \"--\" or \"..\"";
    /* _validators.py:147 */
    if (n >= 4 && strcmp(s + n - 4, ".git") == 0)
        return "ends with \".git\"";
    return NULL;
}

int hub_repo_id_valid(const char *s) { return s && repo_id_bad(s) == NULL; }

/* A revision as a branch, tag or commit name that is safe as a path under refs/: printable
 * ASCII without space or '\\', no empty, "." or ".." component, shorter than 256 bytes.
 * NULL when fine, else the rule it breaks. */
static const char *revision_bad(const char *r)
{
    size_t n = strlen(r);
    if (n == 0)
        return "is empty";
    if (n >= sizeof ((hub_ref *)0)->revision)
        return "is longer than 255 bytes";
    for (size_t i = 0; i < n; i++)
        if (r[i] <= ' ' || r[i] > '~' || r[i] == '\\')
            return "has a space, a '\\' or a byte that is not printable ASCII";
    for (const char *c = r;;) {
        const char *e = strchr(c, '/');
        size_t len = e ? (size_t)(e - c) : strlen(c);
        if (len == 0 || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
            return "has an empty, \".\" or \"..\" part between '/'";
        if (!e)
            break;
        c = e + 1;
    }
    return NULL;
}

int hub_is_commit(const char *s)
{
    size_t i;
    for (i = 0; s[i]; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return i == 40;
}

int hub_ref_parse(const char *s, hub_ref *out, char *err, size_t errlen)
{
    char q[200];
    const char *at = strchr(s, '@'), *why;
    size_t rn = at ? (size_t)(at - s) : strlen(s);

    memset(out, 0, sizeof *out);
    if (rn >= sizeof out->repo)
        return xerr(err, errlen, "\"%s\": not a hub name: the repository id is longer than %zu "
                    "bytes", str_quote(q, sizeof q, s, strlen(s)), sizeof out->repo - 1);
    memcpy(out->repo, s, rn);
    if ((why = repo_id_bad(out->repo)))
        return xerr(err, errlen, "\"%s\": not a hub name (ORG/NAME[@REVISION]): the repository "
                    "id %s", str_quote(q, sizeof q, s, strlen(s)), why);
    snprintf(out->revision, sizeof out->revision, "%s", "main");
    if (at) {
        if ((why = revision_bad(at + 1)))
            return xerr(err, errlen, "\"%s\": not a hub name (ORG/NAME[@REVISION]): the "
                        "revision %s", str_quote(q, sizeof q, s, strlen(s)), why);
        snprintf(out->revision, sizeof out->revision, "%s", at + 1);
    }
    return 0;
}

int hub_is_name(const char *s)
{
    hub_ref r;
    struct stat sb;
    const char *at, *slash;
    size_t rn;
    if (!s || !*s || s[0] == '/' || s[0] == '.' || s[0] == '~')
        return 0;
    at = strchr(s, '@');
    rn = at ? (size_t)(at - s) : strlen(s);
    slash = memchr(s, '/', rn);
    /* exactly one '/' in the id: a bare NAME is a valid repo id, but for xlate a word alone is
     * a directory that is not there (hub spec "Names") */
    if (!slash || memchr(slash + 1, '/', rn - (size_t)(slash - s) - 1))
        return 0;
    if (hub_ref_parse(s, &r, NULL, 0))
        return 0;
    return stat(s, &sb) != 0;
}

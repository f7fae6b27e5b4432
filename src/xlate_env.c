/* xlate_env.c — xlate_env_check (xlate.h): the environment variables the library reads, each
 * with the values it takes, in one table, so that a misspelt value or name is said at start
 * (issue 27: XLATE_FORCE_ISA=avx512x and XLATE_SCREEN=yes were ignored without a word). */
#include "xlate.h"
#include "base/util.h"
#include "kernels/cpu.h"
#include "kernels/pool.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

static int isa_ok(const char *s) { return cpu_isa_parse(s) >= 0; }
static int screen_ok(const char *s) { return strcmp(s, "0") == 0 || strcmp(s, "1") == 0; }
static int spin_ok(const char *s)
{
    long us;
    return pool_spin_us_parse(s, &us) == 0;
}
/* a whole decimal in [lo, hi] (the hub's test knobs, read by src/hub/hub_http.c) */
static int decimal_in(const char *s, long lo, long hi)
{
    long x = 0;
    if (!*s)
        return 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || x > hi)
            return 0;
        x = x * 10 + (*s - '0');
    }
    return x >= lo && x <= hi;
}
static int retry_ok(const char *s) { return decimal_in(s, 0, 600000); }
static int timeout_ok(const char *s) { return decimal_in(s, 1, 86400); }
static int workers_ok(const char *s) { return decimal_in(s, 1, 16); }
static int any_ok(const char *s)
{
    (void)s;
    return 1;
}

static const struct {
    const char *name;
    int (*ok)(const char *value);
    const char *takes;
} vars[] = {
    {"XLATE_FORCE_ISA", isa_ok, "generic, avx2, avx512, avx512vnni or avx512bf16"},
    {"XLATE_SCREEN", screen_ok, "0 (every logit computed) or 1 (the int8 screen, the default)"},
    {"XLATE_SPIN_US", spin_ok, "microseconds, 0 to 1000000, in decimal digits"},
    {"XLATE_MODEL", any_ok, "a model directory"},
    {"XLATE_HUB_RETRY_MS", retry_ok, "milliseconds, 0 to 600000, in decimal digits"},
    {"XLATE_HUB_TIMEOUT_S", timeout_ok, "seconds, 1 to 86400, in decimal digits"},
    {"XLATE_HUB_WORKERS", workers_ok, "files downloading at once, 1 to 16, in decimal digits"},
};
#define NVARS (sizeof vars / sizeof *vars)

int xlate_env_check(void (*warn)(void *user, const char *msg), void *warn_user, char *err,
                    size_t errlen)
{
    char q[200];
    for (size_t i = 0; i < NVARS; i++) {
        const char *v = getenv(vars[i].name);
        if (v && *v && !vars[i].ok(v))
            return xerr(err, errlen, "%s=\"%s\": expected %s (or unset)", vars[i].name,
                        str_quote(q, sizeof q, v, strlen(v)), vars[i].takes);
    }
    for (char **e = environ; warn && e && *e; e++) {
        const char *eq = strchr(*e, '=');
        size_t len = eq ? (size_t)(eq - *e) : strlen(*e), i;
        char msg[512], nm[200];
        if (strncmp(*e, "XLATE_", 6) != 0)
            continue;
        for (i = 0; i < NVARS; i++)
            if (strlen(vars[i].name) == len && strncmp(vars[i].name, *e, len) == 0)
                break;
        if (i < NVARS)
            continue;
        snprintf(nm, sizeof nm, "%.*s", (int)(len < 100 ? len : 100), *e);
        {
            /* the names it reads, from the table (a name added there is said here too) */
            char names[256];
            size_t at = 0;
            for (i = 0; i < NVARS && at < sizeof names; i++)
                at += (size_t)snprintf(names + at, sizeof names - at, "%s%s",
                                       i == 0 ? "" : i + 1 == NVARS ? " and " : ", ",
                                       vars[i].name);
            snprintf(msg, sizeof msg, "the environment variable %s is not one xlate reads (it "
                     "reads %s); ignored", str_quote(q, sizeof q, nm, strlen(nm)), names);
        }
        warn(warn_user, msg);
    }
    return 0;
}

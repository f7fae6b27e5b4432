/* check.h — the smallest test harness: one "ok"/"not ok" line per check (see tests/run.sh). */
#ifndef XLATE_CHECK_H
#define XLATE_CHECK_H
#include <stdio.h>
#include <stdarg.h>

static int check_failures;

/* Prints "ok - what" when cond holds, else "not ok - what: why" (why is printf-style). */
static int check(int cond, const char *what, const char *why, ...)
{
    if (cond) {
        printf("ok - %s\n", what);
    } else {
        va_list ap;
        printf("not ok - %s: ", what);
        va_start(ap, why);
        vprintf(why, ap);
        va_end(ap);
        printf("\n");
        check_failures++;
    }
    fflush(stdout);
    return cond;
}

static int check_done(void) { return check_failures ? 1 : 0; }
#endif

/* cli_pull.c — `xlate pull ORG/NAME[@REVISION] [-q]`: a model from the hub into its cache
 * (src/hub/), the snapshot dir printed on stdout; and cli_hub_pull, the pull with SIGINT caught
 * that `-m ORG/NAME` (find_model_dir) uses too. */
#include "cli/cli.h"
#include "cli/cli_common.h"
#include "hub/hub.h"
#include "base/util.h"
#include "xlate.h"
#include <signal.h>
#include <stdio.h>
#include <string.h>

/* set by SIGINT while a pull runs; the pull polls it (a handler can only set a flag) */
static volatile sig_atomic_t pull_interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    pull_interrupted = 1;
}

static void pull_note(void *user, const char *msg)
{
    char q[1200];
    (void)user;
    /* the message names the hub's ETag and the cache's path: printable already, escaped
     * anyway as every remote string is */
    fprintf(stderr, "xlate pull: note: %s\n", str_quote_max(q, sizeof q, msg, strlen(msg), 1000));
}

int cli_hub_pull(const char *name, int quiet, char *out, size_t n, char *err, size_t errlen)
{
    hub_ref ref;
    hub_pull_params p = hub_pull_default_params();
    struct sigaction sa, old;
    int rc;
    if (hub_ref_parse(name, &ref, err, errlen))
        return XLATE_EXIT_USAGE;
    p.quiet = quiet;
    p.warn = pull_note; /* a damaged blob fetched again is said, -q or not */
    p.cancel = &pull_interrupted;
    pull_interrupted = 0;
    /* no SA_RESTART: a wait for another pull's lock returns on ^C */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old);
    rc = hub_pull(&ref, &p, out, n, err, errlen);
    sigaction(SIGINT, &old, NULL);
    switch (rc) {
    case HUB_OK:
        return XLATE_EXIT_OK;
    case HUB_EDISK:
        return XLATE_EXIT_OUTPUT; /* 4: the cache cannot be written */
    case HUB_EINTR:
        return 130; /* 128 + SIGINT, as a shell reports it */
    default:
        return XLATE_EXIT_MODEL; /* 2: not found, gated, network, integrity */
    }
}

static void usage(FILE *f)
{
    fputs("usage: xlate pull ORG/NAME[@REVISION] [-q]\n"
          "Downloads a model from the Hugging Face hub (HF_ENDPOINT, default\n"
          "https://huggingface.co) into its cache (HF_HUB_CACHE, else HF_HOME/hub, else\n"
          "~/.cache/huggingface/hub), as huggingface-cli does: only the files xlate needs\n"
          "(config, tokenizer, one weights format). Prints the model's directory.\n"
          "  -q, --quiet   no progress lines\n"
          "  -h, --help    this help\n"
          "HF_TOKEN (or the token file) opens gated and private models. Exit status: 0 done,\n"
          "1 usage, 2 not found / no access / network / integrity, 4 cannot write the cache,\n"
          "130 interrupted (a rerun resumes).\n",
          f);
}

int cmd_pull(int argc, char **argv)
{
    const char *name = NULL;
    char dir[8192], err[XLATE_ERRLEN], cache[4096];
    int quiet = 0, rc;
    hub_ref ref;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return XLATE_EXIT_OK;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(a, "--") == 0 && i + 1 < argc && !name) {
            name = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "xlate pull: unknown option %s (see xlate pull --help)\n", a);
            return XLATE_EXIT_USAGE;
        } else if (name) {
            fprintf(stderr, "xlate pull: one model at a time (got %s and %s)\n", name, a);
            return XLATE_EXIT_USAGE;
        } else {
            name = a;
        }
    }
    if (!name) {
        usage(stderr);
        return XLATE_EXIT_USAGE;
    }
    if (hub_ref_parse(name, &ref, err, sizeof err)) {
        fprintf(stderr, "xlate pull: %s\n", err);
        return XLATE_EXIT_USAGE;
    }
    if (hub_offline()) { /* huggingface-cli download in offline mode: the cached copy or fail */
        rc = hub_resolve_cached(&ref, dir, sizeof dir, err, sizeof err);
        if (rc == 0) {
            printf("%s\n", dir);
            return fflush(stdout) ? XLATE_EXIT_OUTPUT : XLATE_EXIT_OK;
        }
        if (rc > 0 && hub_cache_dir(cache, sizeof cache, err, sizeof err) == 0)
            fprintf(stderr, "xlate pull: %s is not in the cache (%s) and HF_HUB_OFFLINE is set: "
                    "unset it to download\n", name, cache);
        else
            fprintf(stderr, "xlate pull: %s\n", err);
        return XLATE_EXIT_MODEL;
    }
    rc = cli_hub_pull(name, quiet, dir, sizeof dir, err, sizeof err);
    if (rc) {
        fprintf(stderr, "xlate pull: %s\n", err);
        return rc;
    }
    printf("%s\n", dir);
    if (fflush(stdout)) {
        fprintf(stderr, "xlate pull: cannot write to stdout\n");
        return XLATE_EXIT_OUTPUT;
    }
    return XLATE_EXIT_OK;
}

/* test_hub.c — the hub's names, cache layout and file choice (src/hub/), no network: every
 * rule of huggingface_hub's validate_repo_id (utils/_validators.py:28-148) reached with ids
 * checked by hand against it, the cache dir's environment precedence (constants.py:157-183),
 * refs to commits, 40-hex revisions, relative symlink targets for nested paths. */
#include "check.h"
#include "hub/hub.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define C40 "0123456789abcdef0123456789abcdef01234567"

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void names(void)
{
    /* valid: the docstring's examples (_validators.py:108) and each character class */
    static const char *ok[] = {"foo", "foo/bar", "123", "Foo-BAR_foo.bar123",
                               "Helsinki-NLP/opus-mt-en-de", "facebook/nllb-200-distilled-600M",
                               "a/b", "_/_", "a.b-c_d/e.f-g_h", "x/a.gitx"};
    /* invalid, with the rule each breaks */
    static const struct { const char *id, *rule; } bad[] = {
        {"datasets/foo/bar", "two '/' (_validators.py:131)"},
        {".repo_id", "starts with '.' (the \\b at :32)"},
        {"foo--bar", "'--' (:144)"},
        {"foo.git", "ends with .git (:147)"},
        {"org/foo.git", "ends with .git with a namespace (:147)"},
        {"a/b..c", "'..' (:144)"},
        {"-a/b", "namespace starts with '-' (\\b at :31)"},
        {"a-/b", "namespace ends with '-' (\\b before '/', :31)"},
        {"a/-b", "name starts with '-' (\\b at :32)"},
        {"a/b.", "name ends with '.' (\\b at :34)"},
        {"a/b c", "a space (the class at :33)"},
        {"a/b\xc3\xa9", "non-ASCII (re.ASCII, :38)"},
        {"a/", "empty name ({1,96} at :33)"},
        {"/b", "empty namespace (+ at :31)"},
        {"", "empty"},
        {"a/b+c", "'+' (the class at :33)"},
    };
    char buf[300];
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
        check(hub_repo_id_valid(ok[i]), "repo id valid", "\"%s\" refused", ok[i]);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        check(!hub_repo_id_valid(bad[i].id), "repo id invalid", "\"%s\" (%s) taken", bad[i].id,
              bad[i].rule);
    /* the name's length: 96 characters at most (:33); the namespace has no limit (:31) */
    memset(buf, 'n', 96);
    buf[96] = '\0';
    check(hub_repo_id_valid(buf), "a 96-character name is valid", "refused");
    strcpy(buf + 96, "n");
    check(!hub_repo_id_valid(buf), "a 97-character name is invalid", "taken");
    memset(buf, 'o', 120);
    strcpy(buf + 120, "/name");
    check(hub_repo_id_valid(buf), "a 120-character namespace is valid (no limit in :31)",
          "refused");
}

static void refs_parse(void)
{
    hub_ref r;
    char err[512];
    check(hub_ref_parse("Helsinki-NLP/opus-mt-en-de", &r, err, sizeof err) == 0 &&
              strcmp(r.repo, "Helsinki-NLP/opus-mt-en-de") == 0 && strcmp(r.revision, "main") == 0,
          "ORG/NAME: revision main", "%s / %s", r.repo, r.revision);
    check(hub_ref_parse("a/b@v1.0", &r, err, sizeof err) == 0 && strcmp(r.repo, "a/b") == 0 &&
              strcmp(r.revision, "v1.0") == 0,
          "ORG/NAME@REV", "%s / %s", r.repo, r.revision);
    check(hub_ref_parse("a/b@refs/pr/1", &r, err, sizeof err) == 0 &&
              strcmp(r.revision, "refs/pr/1") == 0,
          "a revision with '/' (refs/pr/1)", "%s", r.revision);
    check(hub_ref_parse("a/b@" C40, &r, err, sizeof err) == 0 && strcmp(r.revision, C40) == 0,
          "a commit as revision", "%s", r.revision);
    check(hub_ref_parse("a/b@", &r, err, sizeof err) != 0 && strstr(err, "revision is empty"),
          "an empty revision is refused", "%s", err);
    check(hub_ref_parse("a/b@../x", &r, err, sizeof err) != 0 && strstr(err, "\"..\""),
          "a revision with '..' is refused (it names refs/REVISION)", "%s", err);
    check(hub_ref_parse("a/b@x y", &r, err, sizeof err) != 0, "a revision with a space is refused",
          "taken");
    check(hub_ref_parse("a--b/c", &r, err, sizeof err) != 0 && strstr(err, "\"--\""),
          "the message says the rule", "%s", err);

    check(hub_is_commit(C40), "40 lowercase hex is a commit", "no");
    check(!hub_is_commit("0123456789ABCDEF0123456789abcdef01234567"),
          "uppercase hex is no commit (REGEX_COMMIT_HASH ^[0-9a-f]{40}$)", "yes");
    check(!hub_is_commit(C40 "8") && !hub_is_commit("0123456789abcdef"), "41 and 16 hex are not",
          "yes");
}

static void is_name(void)
{
    check(hub_is_name("test-org-xyz/model-q"), "ORG/NAME that is no path is a hub name", "no");
    check(hub_is_name("test-org-xyz/model-q@v2"), "ORG/NAME@REV is a hub name", "no");
    check(!hub_is_name("model-q"), "NAME alone is a path for xlate", "yes");
    check(!hub_is_name("a/b/c"), "two '/' is a path", "yes");
    check(!hub_is_name("./a/b") && !hub_is_name("/a/b") && !hub_is_name("~/b") &&
              !hub_is_name(".a/b"),
          "'/', '.', '~' first: a path", "yes");
    check(!hub_is_name("a/b--c"), "an invalid id is a path", "yes");
    /* an existing directory of that name is a path (the test runs in its own temp dir) */
    if (mkdir("org-here", 0777) == 0 && mkdir("org-here/name-here", 0777) == 0)
        check(!hub_is_name("org-here/name-here"), "an existing ORG/NAME directory is a path",
              "yes");
}

static void cache_dir(void)
{
    char out[4096], err[512];
    static const char *vars[] = {"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME",
                                 "XDG_CACHE_HOME"};
    for (size_t i = 0; i < 4; i++)
        unsetenv(vars[i]);
    setenv("HOME", "/home/u", 1);
    check(hub_cache_dir(out, sizeof out, err, sizeof err) == 0 &&
              strcmp(out, "/home/u/.cache/huggingface/hub") == 0,
          "cache: ~/.cache/huggingface/hub (constants.py:157, :167)", "%s", out);
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    check(hub_cache_dir(out, sizeof out, err, sizeof err) == 0 &&
              strcmp(out, "/xdg/huggingface/hub") == 0,
          "cache: XDG_CACHE_HOME/huggingface/hub (:162)", "%s", out);
    setenv("HF_HOME", "/hfhome", 1);
    check(hub_cache_dir(out, sizeof out, err, sizeof err) == 0 && strcmp(out, "/hfhome/hub") == 0,
          "cache: HF_HOME/hub over XDG_CACHE_HOME (:161)", "%s", out);
    setenv("HF_HOME", "~/hf", 1);
    check(hub_cache_dir(out, sizeof out, err, sizeof err) == 0 &&
              strcmp(out, "/home/u/hf/hub") == 0,
          "cache: HF_HOME's ~ expanded (:159 expanduser)", "%s", out);
    setenv("HUGGINGFACE_HUB_CACHE", "/legacy", 1);
    check(hub_cache_dir(out, sizeof out, err, sizeof err) == 0 && strcmp(out, "/legacy") == 0,
          "cache: the legacy HUGGINGFACE_HUB_CACHE over HF_HOME (:171)", "%s", out);
    setenv("HF_HUB_CACHE", "/hubcache", 1);
    check(hub_cache_dir(out, sizeof out, err, sizeof err) == 0 && strcmp(out, "/hubcache") == 0,
          "cache: HF_HUB_CACHE over all (:178)", "%s", out);
    setenv("HF_HUB_CACHE", "", 1);
    check(hub_cache_dir(out, sizeof out, err, sizeof err) == 0 && strcmp(out, "/legacy") == 0,
          "cache: an empty HF_HUB_CACHE counts as unset", "%s", out);
    for (size_t i = 0; i < 4; i++)
        unsetenv(vars[i]);
    setenv("HF_HOME", "/hfhome", 1);
    check(hub_home_dir(out, sizeof out, err, sizeof err) == 0 && strcmp(out, "/hfhome") == 0,
          "HF_HOME (the token file's folder)", "%s", out);
    unsetenv("HF_HOME");

    check(hub_repo_dir("/c", "Helsinki-NLP/opus-mt-en-de", out, sizeof out) == 0 &&
              strcmp(out, "/c/models--Helsinki-NLP--opus-mt-en-de") == 0,
          "repo folder models--ORG--NAME (file_download.py:720-728)", "%s", out);
    check(hub_repo_dir("/c", "gpt2", out, sizeof out) == 0 && strcmp(out, "/c/models--gpt2") == 0,
          "repo folder of a bare NAME", "%s", out);
    check(hub_repo_dir("/c", "a/b", out, 10) != 0, "repo folder too long for the buffer", "fit");
}

static void env_flags(void)
{
    char ep[256];
    static const char *yes[] = {"1", "true", "YES", "On", "TRUE"};
    static const char *no[] = {"0", "false", "no", "off", "2"};
    unsetenv("TRANSFORMERS_OFFLINE");
    unsetenv("HF_HUB_OFFLINE");
    check(!hub_offline(), "offline: unset is not", "offline");
    for (size_t i = 0; i < 5; i++) {
        setenv("HF_HUB_OFFLINE", yes[i], 1);
        check(hub_offline(), "offline: _is_true value (constants.py:12, :16)", "%s not", yes[i]);
        setenv("HF_HUB_OFFLINE", no[i], 1);
        check(!hub_offline(), "offline: other values are not", "%s is", no[i]);
    }
    unsetenv("HF_HUB_OFFLINE");
    setenv("TRANSFORMERS_OFFLINE", "1", 1);
    check(hub_offline(), "offline: TRANSFORMERS_OFFLINE (constants.py:192)", "not");
    unsetenv("TRANSFORMERS_OFFLINE");

    unsetenv("HF_ENDPOINT");
    hub_endpoint(ep, sizeof ep);
    check(strcmp(ep, "https://huggingface.co") == 0, "endpoint default (constants.py:67)", "%s",
          ep);
    setenv("HF_ENDPOINT", "http://127.0.0.1:8080//", 1);
    hub_endpoint(ep, sizeof ep);
    check(strcmp(ep, "http://127.0.0.1:8080") == 0, "endpoint rstrip('/') (constants.py:69)",
          "%s", ep);
    unsetenv("HF_ENDPOINT");
}

static void refs_and_links(const char *tmp)
{
    char cache[1024], repo[1200], path[1400], commit[41], out[2048], err[512], tgt[256];
    hub_ref r;
    ssize_t n;
    snprintf(cache, sizeof cache, "%s/cache", tmp);
    setenv("HF_HUB_CACHE", cache, 1);
    hub_repo_dir(cache, "org/m", repo, sizeof repo);

    check(hub_ref_commit(repo, "main", commit, err, sizeof err) == 1, "no refs/main: not found",
          "%s", err);
    check(hub_ref_commit(repo, C40, commit, err, sizeof err) == 0 && strcmp(commit, C40) == 0,
          "a 40-hex revision is the commit, no file read (file_download.py:1072)", "%s", commit);
    check(hub_write_ref(repo, "main", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", err,
                        sizeof err) == 0,
          "refs/main written", "%s", err);
    snprintf(path, sizeof path, "%s/refs/main", repo);
    {
        FILE *f = fopen(path, "r");
        char b[64] = "";
        size_t got = f ? fread(b, 1, sizeof b - 1, f) : 0;
        if (f)
            fclose(f);
        check(got == 40 && strcmp(b, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") == 0,
              "refs/main holds the commit without a newline", "%zu bytes", got);
    }
    check(hub_write_ref(repo, C40, C40, err, sizeof err) == 0 &&
              (snprintf(path, sizeof path, "%s/refs/%s", repo, C40), access(path, F_OK) != 0),
          "no ref written for a commit revision (file_download.py:705)", "written");
    put(path, "");
    snprintf(path, sizeof path, "%s/refs/main", repo);
    put(path, C40 "\n");
    check(hub_ref_commit(repo, "main", commit, err, sizeof err) == 0 && strcmp(commit, C40) == 0,
          "refs/main with a trailing newline", "%s", err);
    snprintf(path, sizeof path, "%s/refs/bad", repo);
    put(path, "not-a-commit");
    check(hub_ref_commit(repo, "bad", commit, err, sizeof err) == -1 &&
              strstr(err, "expected a 40-hex commit"),
          "a malformed ref is an error", "%s", err);
    check(hub_write_ref(repo, "refs/pr/1", C40, err, sizeof err) == 0 &&
              hub_ref_commit(repo, "refs/pr/1", commit, err, sizeof err) == 0,
          "a nested ref (refs/refs/pr/1)", "%s", err);

    /* the symlink targets, by hand: snapshots/C/ is 2 levels below the repo folder */
    check(hub_link_target("config.json", "E", tgt, sizeof tgt) == 0 &&
              strcmp(tgt, "../../blobs/E") == 0,
          "link target of a top-level file", "%s", tgt);
    check(hub_link_target("a/b.json", "E", tgt, sizeof tgt) == 0 &&
              strcmp(tgt, "../../../blobs/E") == 0,
          "link target one folder down", "%s", tgt);
    check(hub_link_target("a/b/c.bin", "E", tgt, sizeof tgt) == 0 &&
              strcmp(tgt, "../../../../blobs/E") == 0,
          "link target two folders down", "%s", tgt);

    /* a cached snapshot: resolved when config.json is there and its blob is */
    hub_ref_parse("org/m", &r, NULL, 0);
    check(hub_resolve_cached(&r, out, sizeof out, err, sizeof err) == 1,
          "snapshot without config.json: not cached", "%s", out);
    check(hub_link(repo, C40, "config.json", "cfgblob", err, sizeof err) == 0, "link made", "%s",
          err);
    check(hub_resolve_cached(&r, out, sizeof out, err, sizeof err) == 1,
          "config.json linked to a missing blob: not cached", "%s", out);
    snprintf(path, sizeof path, "%s/blobs", repo);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/blobs/cfgblob", repo);
    put(path, "{}");
    snprintf(path, sizeof path, "%s/snapshots/%s", repo, C40);
    check(hub_resolve_cached(&r, out, sizeof out, err, sizeof err) == 0 && strcmp(out, path) == 0,
          "cached: the snapshot dir of refs/main's commit", "%s", out);
    hub_ref_parse("org/m@" C40, &r, NULL, 0);
    check(hub_resolve_cached(&r, out, sizeof out, err, sizeof err) == 0 && strcmp(out, path) == 0,
          "cached by commit without a ref", "%s", out);
    hub_ref_parse("org/m@v7", &r, NULL, 0);
    check(hub_resolve_cached(&r, out, sizeof out, err, sizeof err) == 1,
          "an unknown revision: not cached", "%s", out);

    check(hub_link(repo, C40, "sub/dir/w.bin", "wblob", err, sizeof err) == 0, "nested link made",
          "%s", err);
    snprintf(path, sizeof path, "%s/snapshots/%s/sub/dir/w.bin", repo, C40);
    n = readlink(path, tgt, sizeof tgt - 1);
    tgt[n > 0 ? n : 0] = '\0';
    check(strcmp(tgt, "../../../../blobs/wblob") == 0, "nested link is relative", "%s", tgt);
    snprintf(out, sizeof out, "%s/blobs/wblob", repo);
    put(out, "W");
    {
        FILE *f = fopen(path, "r");
        int c = f ? fgetc(f) : -1;
        if (f)
            fclose(f);
        check(c == 'W', "nested link reaches its blob", "got %d", c);
    }
    check(hub_link(repo, C40, "sub/dir/w.bin", "other", err, sizeof err) == 0 &&
              (n = readlink(path, tgt, sizeof tgt - 1)) > 0 &&
              (tgt[n] = '\0', strcmp(tgt, "../../../../blobs/other") == 0),
          "a link is replaced in place", "%s", tgt);
    unsetenv("HF_HUB_CACHE");
}

static void files(const char *tmp)
{
    const char *out[16];
    char err[512], path[1200], **sh = NULL;
    int n, ns = 0;
    char *marian[] = {"README.md", ".gitattributes", "config.json", "generation_config.json",
                      "model.safetensors", "pytorch_model.bin", "tf_model.h5",
                      "flax_model.msgpack", "rust_model.ot", "onnx/encoder_model.onnx",
                      "source.spm", "target.spm", "vocab.json", "tokenizer_config.json"};
    char *nllb[] = {"config.json", "pytorch_model.bin", "sentencepiece.bpe.model",
                    "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"};
    char *sharded[] = {"config.json", "pytorch_model.bin.index.json",
                       "model.safetensors.index.json", "model-00001-of-00002.safetensors",
                       "model-00002-of-00002.safetensors", "source.spm", "target.spm",
                       "vocab.json"};
    char *nocfg[] = {"model.safetensors"}, *noweights[] = {"config.json", "tf_model.h5"};
    const char *want_m[] = {"model.safetensors", "source.spm", "target.spm", "vocab.json",
                            "tokenizer_config.json", "generation_config.json", "config.json"};
    const char *want_n[] = {"pytorch_model.bin", "sentencepiece.bpe.model",
                            "tokenizer_config.json", "special_tokens_map.json", "tokenizer.json",
                            "config.json"};
    int same;

    n = hub_choose_files(marian, 14, out, 16, err, sizeof err);
    same = n == 7;
    for (int i = 0; same && i < n; i++)
        same = strcmp(out[i], want_m[i]) == 0;
    check(same, "MarianMT: safetensors, its tokenizer, configs last; no tf/flax/rust/onnx",
          "n=%d first %s", n, n > 0 ? out[0] : err);
    n = hub_choose_files(nllb, 6, out, 16, err, sizeof err);
    same = n == 6;
    for (int i = 0; same && i < n; i++)
        same = strcmp(out[i], want_n[i]) == 0;
    check(same, "NLLB: pytorch_model.bin when no safetensors, its tokenizer files", "n=%d", n);
    n = hub_choose_files(sharded, 8, out, 16, err, sizeof err);
    check(n > 0 && strcmp(out[0], "model.safetensors.index.json") == 0,
          "sharded: the safetensors index before the pytorch one", "%s", n > 0 ? out[0] : err);
    check(hub_choose_files(nocfg, 1, out, 16, err, sizeof err) < 0 && strstr(err, "config.json"),
          "no config.json: refused", "%s", err);
    check(hub_choose_files(noweights, 2, out, 16, err, sizeof err) < 0 &&
              strstr(err, "no weights"),
          "only tf_model.h5: refused", "%s", err);

    snprintf(path, sizeof path, "%s/idx.json", tmp);
    put(path, "{\"metadata\": {\"total_size\": 10}, \"weight_map\": {\"a\": \"s1.safetensors\", "
              "\"b\": \"s2.safetensors\", \"c\": \"s1.safetensors\"}}");
    check(hub_index_shards(path, &sh, &ns, err, sizeof err) == 0 && ns == 2 &&
              strcmp(sh[0], "s1.safetensors") == 0 && strcmp(sh[1], "s2.safetensors") == 0,
          "index: the distinct shards in order", "%d %s", ns, err);
    for (int i = 0; i < ns; i++)
        free(sh[i]);
    free(sh);
    put(path, "{\"weight_map\": {\"a\": \"../evil\"}}");
    check(hub_index_shards(path, &sh, &ns, err, sizeof err) != 0 && strstr(err, "../evil"),
          "index: a shard outside the repository is refused", "%s", err);
}

int main(void)
{
    char tmpl[] = "/tmp/test_hub.XXXXXX", *tmp = mkdtemp(tmpl);
    if (!tmp || chdir(tmp) != 0) {
        printf("not ok - temp dir: %s\n", strerror(errno));
        return 1;
    }
    names();
    refs_parse();
    is_name();
    cache_dir();
    env_flags();
    refs_and_links(tmp);
    files(tmp);
    {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
        if (system(cmd) != 0)
            printf("# could not remove %s\n", tmp);
    }
    return check_done();
}

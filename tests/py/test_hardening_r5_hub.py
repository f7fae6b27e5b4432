"""Hardening, round 5 (issue 51, items 6-12): the hub client (`xlate pull`, `-m ORG/NAME`,
`xlate models`) against a hostile or broken hub (tests/hub/local_hub.py's faults) and a
damaged or hostile cache. The model is a random MarianMT directory at the smallest shapes
(tools/make_marian.py), served as org/tiny; a second repo's weights index names a shard whose
name holds escape codes. The oracles: the served files (hashlib here), huggingface_hub's cache
layout (test_hub.py's verify_snapshot), the hub's request log, Python's
urllib.parse.quote(revision, safe="") (huggingface_hub's quoting of a revision), the bytes of
files outside the cache (which must not change), and the raw bytes of stdout and stderr (no
ESC, BEL or other control byte from the network or the cache). Checked:
  6. nothing written outside the cache: blobs/ETAG.incomplete a symlink or a hard link to a
     file outside is refused (exit 4, named), the file untouched; a blobs/ETAG that is a
     symlink out of the cache is replaced by a downloaded regular file; blobs/ a symlink to a
     folder outside is refused; a lock file that is a dangling symlink does not create its
     target;
  7. the ETag checked before it names a file: "SHA256.incomplete" (another file's partial
     name), "abc", "../x" refused (exit 2, the ETag quoted), nothing linked, every name under
     blobs/ a 40- or 64-hex one (or its .incomplete);
  8. pull repairs: a truncated or same-size-corrupted LFS blob, a corrupted regular file's
     blob, a truncated blob not linked yet: each found, said ("again") and fetched again, the
     snapshot then huggingface_hub's layout with the served bytes; a translation from a
     damaged cache says `xlate pull org/tiny`;
  9. remote bytes quoted: an X-Error-Code holding an OSC escape (API and resolve), a shard
     name of model.safetensors.index.json with escapes, a refs/main and a ref name holding
     escapes (`xlate models`, `-m`): no raw control byte on stdout or stderr;
 10. a revision percent-encoded as quote(revision, safe=""): org/tiny@%2e%2e asks for
     /revision/%252e%252e; a revision with '/' has it encoded;
 11. a connection cut inside a HEAD's headers is retried (pulled); cut every time: exit 2, the
     message says the connection was cut and not that the server is not a hub; 503 forever:
     http_backoff's 1 + 5 attempts;
 12. no hang on a FIFO: refs/main, a snapshot's config.json / tokenizer_config.json / vocab.json,
     the token file, each a FIFO with no writer: `xlate models`, `xlate pull`, `-m` end by
     themselves.
Every run is bounded by GUARD (TEST_HANG_SECONDS, tests/cli/lib.sh HANG); a FIFO's by 60 s.
Run by tests/run.sh with env XLATE (the binary) and Debian's /usr/bin/python3.
"""
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import test_hub as H  # noqa: E402  (its helpers: runs, hashes, the layout oracle)
from checks import check, done, not_ok, ok  # noqa: E402

REPO = "org/tiny"
SHARDY = "org/shardy"
BAD_SHARD = "\x1b]0;pwned\x07model-00001.safetensors"
FIFO_GUARD = min(H.GUARD, 60)


def ctrl_free(*texts):
    """None when no text holds a control byte but newline (tabs neither), else the first"""
    for t in texts:
        for ch in t:
            if (ord(ch) < 0x20 and ch != "\n") or 0x7f <= ord(ch) < 0xa0:
                return "a raw control byte %r in %r" % (ch, t[-300:])
    return None


def run(args, cache, timeout=None, **env):
    """H.xlate with its own bound (FIFO runs: a hang costs FIFO_GUARD, not GUARD)"""
    try:
        p = subprocess.run([H.XLATE] + args, env=H.base_env(cache, **env), capture_output=True,
                           timeout=timeout or H.GUARD, input=b"")
    except subprocess.TimeoutExpired as e:
        return H.Run("hung", (e.stdout or b"").decode(errors="replace"), (e.stderr or b"").decode(errors="replace"))
    return H.Run(p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"))


def blobs_of(cache, repo=REPO):
    return os.path.join(H.repo_dir(cache, repo), "blobs")


def fresh(name):
    """a cache holding org/tiny pulled from a good hub"""
    c = H.new_cache(name)
    H.HUB.reset()
    r = H.pull(REPO, c)
    if r.rc != 0:
        raise RuntimeError("the first pull failed: %r" % r)
    return c


def snapshot(cache, repo=REPO):
    return os.path.join(H.repo_dir(cache, repo), "snapshots", H.HUB.commit(repo))


def names_hex(cache):
    bad = [b for b in os.listdir(blobs_of(cache)) if os.path.isdir(blobs_of(cache))
           for n in [b[:-len(".incomplete")] if b.endswith(".incomplete") else b]
           if not (len(n) in (40, 64) and all(c in "0123456789abcdef" for c in n))] \
        if os.path.isdir(blobs_of(cache)) else []
    return "blob names that are no 40/64-hex ETag: %s" % bad if bad else None


# ---- 6: nothing written outside the cache ----

def t_outside():
    cfg, st = H.etag_of(REPO, "config.json"), H.etag_of(REPO, "model.safetensors")
    for kind in ("symlink", "hardlink"):
        c = H.new_cache("inc-" + kind)
        os.makedirs(blobs_of(c))
        victim = os.path.join(H.TMP, "victim-" + kind)
        with open(victim, "wb") as f:
            f.write(b"precious\n")
        inc = os.path.join(blobs_of(c), st + ".incomplete")
        (os.symlink if kind == "symlink" else os.link)(victim, inc)
        H.HUB.reset()
        r = H.pull(REPO, c)
        check("blobs/SHA256.incomplete a %s to a file outside the cache: the file untouched" % kind,
              lambda: None if open(victim, "rb").read() == b"precious\n" else "now %r" % open(victim, "rb").read()[:40])
        check("... refused: exit 4, the message names the .incomplete and says it is not a regular file (%s)" % kind,
              lambda: None if r.rc == 4 and st + ".incomplete" in r.err and "regular file" in r.err else repr(r))
        check("... no blob is a link out of the cache (%s)" % kind,
              lambda: None if not os.path.islink(os.path.join(blobs_of(c), st)) else "blobs/%s is a link" % st)
    # a whole blob that is a symlink to a file outside: not taken as the cached blob
    c = H.new_cache("blob-link")
    os.makedirs(blobs_of(c))
    victim = os.path.join(H.TMP, "victim-blob")
    shutil.copy(os.path.join(H.SOURCES[REPO], "config.json"), victim)
    before = open(victim, "rb").read()
    os.symlink(victim, os.path.join(blobs_of(c), cfg))
    H.HUB.reset()
    r = H.pull(REPO, c)
    link = os.path.join(snapshot(c), "config.json")
    check("blobs/ETAG a symlink out of the cache: pulled, the blob now a regular file in the cache",
          lambda: None if r.rc == 0 and not os.path.islink(os.path.join(blobs_of(c), cfg)) and
          os.path.realpath(link).startswith(os.path.realpath(c) + os.sep) else
          "%r; blob is link: %s; config.json -> %s" % (r, os.path.islink(os.path.join(blobs_of(c), cfg)),
                                                        os.path.realpath(link)))
    check("... the file outside untouched", lambda: None if open(victim, "rb").read() == before else "changed")
    # blobs/ itself a link to a folder outside
    c = H.new_cache("blobs-link")
    outside = os.path.join(H.TMP, "outside-blobs")
    os.makedirs(outside, exist_ok=True)
    os.makedirs(H.repo_dir(c, REPO))
    os.symlink(outside, blobs_of(c))
    H.HUB.reset()
    r = H.pull(REPO, c)
    check("blobs/ a symlink to a folder outside the cache: refused (exit 4, named), nothing written there",
          lambda: None if r.rc == 4 and "blobs" in r.err and not os.listdir(outside) else
          "%r; outside holds %s" % (r, os.listdir(outside)))
    # a lock file that is a dangling symlink: its target not created
    c = H.new_cache("lock-link")
    locks = os.path.join(c, ".locks", os.path.basename(H.repo_dir(c, REPO)))
    os.makedirs(locks)
    victim = os.path.join(H.TMP, "victim-lock")
    os.symlink(victim, os.path.join(locks, cfg + ".lock"))
    H.HUB.reset()
    r = H.pull(REPO, c)
    check("a lock file that is a dangling symlink out of the cache: its target not created",
          lambda: None if not os.path.lexists(victim) else "%s created (%r)" % (victim, r))
    check("... refused: exit 4 naming the lock", lambda: None if r.rc == 4 and ".lock" in r.err else repr(r))


# ---- 7: the ETag checked before it names a file ----

def t_etag():
    st = H.etag_of(REPO, "model.safetensors")
    for tag in ('"%s.incomplete"' % st, '"abc"', '"../x"', '"%s"' % ("A" * 40)):
        c = H.new_cache("etag")
        H.HUB.reset()
        H.HUB.fault({"kind": "headers", "repo": REPO, "file": "config.json", "times": -1, "set": {"ETag": tag}})
        r = H.pull(REPO, c)
        check("config.json's ETag %s: exit 2, the message says ETag and expects a 40-hex sha1 or a 64-hex sha256" % tag,
              lambda: None if r.rc == 2 and "ETag" in r.err and "40" in r.err and "64" in r.err else repr(r))
        check("... config.json not linked, every blob name an ETag's (%s)" % tag,
              lambda: names_hex(c) or (None if not os.path.lexists(os.path.join(snapshot(c), "config.json"))
                                       else "config.json linked to %s" % os.readlink(os.path.join(snapshot(c),
                                                                                                  "config.json"))))
    # an LFS file's X-Linked-Etag naming another file's partial download
    c = H.new_cache("etag-lfs")
    H.HUB.reset()
    H.HUB.fault({"kind": "headers", "repo": REPO, "file": "source.spm", "times": -1,
                 "set": {"X-Linked-Etag": '"%s.incomplete"' % st}})
    r = H.pull(REPO, c)
    check("source.spm's X-Linked-Etag SHA256.incomplete: exit 2, nothing linked to a partial file",
          lambda: names_hex(c) or (None if r.rc == 2 and not os.path.lexists(os.path.join(snapshot(c), "source.spm"))
                                   else repr(r)))


# ---- 8: pull repairs ----

def t_repair():
    st, cfg = H.etag_of(REPO, "model.safetensors"), H.etag_of(REPO, "config.json")
    size = H.served(REPO)["model.safetensors"]["size"]
    cases = (("the LFS blob truncated to half", st, lambda p: os.truncate(p, size // 2), "model.safetensors"),
             ("the LFS blob's bytes changed, same size", st, lambda p: flip(p, size // 2), "model.safetensors"),
             ("the regular file's blob changed, same size", cfg, lambda p: flip(p, 3), "config.json"))
    for what, tag, damage, fname in cases:
        c = fresh("repair")
        p = os.path.join(blobs_of(c), tag)
        os.chmod(p, 0o644)
        damage(p)
        H.HUB.reset()
        r = H.pull(REPO, c)
        check("%s: pull exits 0 and says it fetches %s again" % (what, fname),
              lambda: None if r.rc == 0 and fname in r.err and "again" in r.err else repr(r))
        check("... the snapshot is whole again (the served bytes)", lambda: H.verify_snapshot(c, REPO, H.MARIAN_FILES))
    # a blob there but not linked (another snapshot's, a pull cut before its link), truncated
    c = fresh("repair-unlinked")
    os.remove(os.path.join(snapshot(c), "model.safetensors"))
    os.truncate(os.path.join(blobs_of(c), st), 100)
    H.HUB.reset()
    r = H.pull(REPO, c)
    check("a truncated blob not linked yet: fetched again, said, the snapshot whole",
          lambda: (H.verify_snapshot(c, REPO, H.MARIAN_FILES) if r.rc == 0 and "again" in r.err else repr(r)))
    # a translation from a damaged cache names the repair
    c = fresh("repair-hint")
    os.truncate(os.path.join(blobs_of(c), st), size // 2)
    r = H.xlate(["-m", REPO], c, inp="A dog runs.\n", HF_HUB_OFFLINE="1")
    check("a translation from a damaged cache file: exit 2, the message says `xlate pull org/tiny` repairs it",
          lambda: None if r.rc == 2 and "xlate pull org/tiny" in r.err else repr(r))
    # a good cache: nothing fetched again, nothing said
    c = fresh("repair-none")
    H.HUB.reset()
    r = H.pull(REPO, c)
    gets = [e for e in H.HUB.log() if e["method"] == "GET" and (e["port"] == "lfs" or "/resolve/" in e["path"])]
    check("a whole cache: pull exits 0, fetches no file, says nothing",
          lambda: None if r.rc == 0 and not gets and not r.err.strip() else "%r; gets %s" % (r, gets))


def flip(path, at):
    with open(path, "r+b") as f:
        f.seek(at)
        b = f.read(1)
        f.seek(at)
        f.write(bytes([b[0] ^ 0xFF]))


# ---- 9: remote bytes quoted ----

def t_quote():
    esc = "\x1b]0;pwned\x07"
    c = H.new_cache("quote")
    for on, f in (("api", None), ("resolve", "vocab.json")):
        H.HUB.reset()
        fault = {"kind": "status", "code": 404, "error_code": esc, "message": esc + "gone", "repo": REPO,
                 "times": -1, "on": on}
        if f:
            fault["file"] = f
        H.HUB.fault(fault)
        r = H.pull(REPO, c)
        check("a 404 whose X-Error-Code holds an OSC escape (%s): exit 2, no raw control byte on stderr" % on,
              lambda: ctrl_free(r.out, r.err) or (None if r.rc == 2 and "\\x1b" in r.err else repr(r)))
    H.HUB.reset()
    r = H.pull(SHARDY, c)
    check("a weights index naming a shard with escapes: exit 2, no raw control byte, the name quoted",
          lambda: ctrl_free(r.out, r.err) or (None if r.rc == 2 and "\\x1b" in r.err else repr(r)))
    # a ref holding escapes, and a ref whose name holds them
    c = fresh("quote-ref")
    rd = H.repo_dir(c, REPO)
    with open(os.path.join(rd, "refs", "main"), "w") as f:
        f.write(esc + "\x1b[2J")
    with open(os.path.join(rd, "refs", "\x1b[31mred"), "w") as f:
        f.write(H.HUB.commit(REPO))
    r = run(["models"], c)
    check("xlate models, refs/main holding escapes and a ref named with one: exit 0, no raw control byte",
          lambda: ctrl_free(r.out, r.err) or (None if r.rc == 0 else repr(r)))
    r = run(["-m", REPO], c, HF_HUB_OFFLINE="1")
    check("-m org/tiny, refs/main holding escapes: exit 2, no raw control byte",
          lambda: ctrl_free(r.out, r.err) or (None if r.rc == 2 else repr(r)))


# ---- 10: the revision percent-encoded ----

def t_revision():
    c = H.new_cache("rev")
    for rev in ("%2e%2e", "refs/pr/1", "v1+x"):
        H.HUB.reset()
        H.pull("%s@%s" % (REPO, rev), c)
        want = "/api/models/%s/revision/%s" % (REPO, urllib.parse.quote(rev, safe=""))
        paths = [e["path"].split("?")[0] for e in H.HUB.log() if e["path"].startswith("/api/")]
        check("revision %s: the API asked for %s (quote(revision, safe=\"\"))" % (rev, want),
              lambda: None if paths and all(p == want for p in paths) else "asked %s" % paths)


# ---- 11: transient faults retried and named ----

def t_retry():
    for after in (0, 1, 2):
        c = H.new_cache("cuthead")
        H.HUB.reset()
        H.HUB.fault({"kind": "cuthead", "repo": REPO, "file": "config.json", "after": after, "method": "HEAD"})
        r = H.pull(REPO, c)
        check("the connection cut once inside config.json's HEAD answer (after %d header lines): retried, pulled" % after,
              lambda: H.verify_snapshot(c, REPO, H.MARIAN_FILES) if r.rc == 0 else repr(r))
    c = H.new_cache("cuthead-forever")
    H.HUB.reset()
    H.HUB.fault({"kind": "cuthead", "repo": REPO, "file": "config.json", "after": 1, "times": -1})
    r = H.pull(REPO, c)
    heads = [e for e in H.HUB.log() if "config.json" in e["path"] and e["fault"] == "cuthead"]
    check("cut every time: exit 2, the message says the connection was cut, not that the server is not a hub",
          lambda: None if r.rc == 2 and "cut" in r.err and "not a hub" not in r.err else repr(r))
    check("... after http_backoff's 1 + 5 attempts (%d)" % len(heads),
          lambda: None if len(heads) == 6 else "%d attempts" % len(heads))
    c = H.new_cache("503")
    H.HUB.reset()
    H.HUB.fault({"kind": "status", "code": 503, "repo": REPO, "times": -1})
    r = H.pull(REPO, c)
    n = len([e for e in H.HUB.log() if e["path"].startswith("/api/")])
    check("503 forever: exit 2 after 1 + 5 attempts (max_retries=5), the message says 503",
          lambda: None if r.rc == 2 and n == 6 and "503" in r.err else "%r, %d requests" % (r, n))


# ---- 12: no hang on a FIFO ----

def t_fifo():
    c = fresh("fifo-ref")
    ref = os.path.join(H.repo_dir(c, REPO), "refs", "main")
    os.remove(ref)
    os.mkfifo(ref)
    r = run(["models"], c, timeout=FIFO_GUARD)
    check("refs/main a FIFO: xlate models ends by itself (exit 0), the ref named",
          lambda: None if r.rc == 0 and "refs/main" in r.out + r.err else repr(r))
    r = run(["-m", REPO], c, timeout=FIFO_GUARD, HF_HUB_OFFLINE="1")
    check("refs/main a FIFO: -m org/tiny ends by itself (exit 2 naming refs/main)",
          lambda: None if r.rc == 2 and "refs/main" in r.err else repr(r))
    H.HUB.reset()
    r = run(["pull", REPO, "-q"], c, timeout=FIFO_GUARD)
    check("refs/main a FIFO: xlate pull ends by itself (exit 4 naming refs/main, or the FIFO replaced)",
          lambda: None if (r.rc == 4 and "refs/main" in r.err) or
          (r.rc == 0 and stat.S_ISREG(os.lstat(ref).st_mode)) else repr(r))
    for name in ("config.json", "tokenizer_config.json", "vocab.json"):
        c = fresh("fifo-snap")
        p = os.path.join(snapshot(c), name)
        os.remove(p)
        os.mkfifo(p)
        r = run(["models"], c, timeout=FIFO_GUARD)
        check("the snapshot's %s a FIFO: xlate models ends by itself (exit 0)" % name,
              lambda: None if r.rc == 0 else repr(r))
        r = run(["--from", "en", "--to", "de"], c, timeout=FIFO_GUARD)
        check("the snapshot's %s a FIFO: --from en --to de ends by itself" % name,
              lambda: None if r.rc != "hung" else repr(r))
    home = os.path.join(H.TMP, "hf-home-fifo")
    os.makedirs(home, exist_ok=True)
    if not os.path.exists(os.path.join(home, "token")):
        os.mkfifo(os.path.join(home, "token"))
    c = H.new_cache("fifo-token")
    H.HUB.reset()
    r = run(["pull", REPO, "-q"], c, timeout=FIFO_GUARD, HF_HOME=home)
    check("the token file a FIFO: xlate pull ends by itself (pulled without a token)",
          lambda: None if r.rc == 0 else repr(r))


PARTS = (t_outside, t_etag, t_repair, t_quote, t_revision, t_retry, t_fifo)

# ---- the model and the hub ----

def build():
    src = os.path.join(H.TMP, "src", "marian")
    subprocess.run([sys.executable, os.path.join(H.TOP, "tools", "make_marian.py"), src] + H.SMALL,
                   check=True, capture_output=True)
    repos = {}
    d = os.path.join(H.TMP, "repos", "tiny")
    shutil.copytree(src, d)
    repos[REPO] = d
    d = os.path.join(H.TMP, "repos", "shardy")
    shutil.copytree(src, d)
    os.remove(os.path.join(d, "model.safetensors"))
    with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {}, "weight_map": {"a": BAD_SHARD}}, f)
    repos[SHARDY] = d
    return repos


def main():
    if os.environ.get("XLATE_FORCE_ISA") == "generic":
        ok("the hub's hardening: skipped under XLATE_FORCE_ISA=generic (no vector code)")
        return
    H.TMP = tempfile.mkdtemp(prefix="xlate-test-r5hub-")
    if not os.access(H.XLATE, os.X_OK):
        not_ok("xlate binary", "%s is not executable" % H.XLATE)
        return
    H.SOURCES.update(build())
    H.HUB = LocalHubOf(H.SOURCES)
    try:
        for t in PARTS:
            try:
                t()
            except Exception as e:  # noqa: BLE001 (one part's failure must not hide the others')
                import traceback
                traceback.print_exc()
                not_ok(t.__name__[2:], "%s: %s" % (type(e).__name__, e))
    finally:
        H.HUB.stop()


def LocalHubOf(sources):  # noqa: N802
    from local_hub import LocalHub
    return LocalHub(sources)


if __name__ == "__main__":
    try:
        main()
    finally:
        if H.TMP:
            shutil.rmtree(H.TMP, ignore_errors=True)
    sys.exit(done())

"""xlate's hub client (`xlate pull`, `-m ORG/NAME`, src/hub/) against tests/hub/local_hub.py, a
hub on 127.0.0.1 that answers as huggingface.co does (the API, resolve, LFS redirects to a second
port, ETag / X-Linked-Etag / X-Linked-Size, Range, X-Error-Code), with its fault knobs.

The models are random, made here by tools/make_marian.py and tools/make_m2m100.py at the
smallest shapes, in a temporary directory; the served repos also hold what xlate must not fetch
(tf_model.h5, flax_model.msgpack, rust_model.ot, onnx/, pytorch_model.bin beside
model.safetensors). The oracles: the served files themselves (sha256 and git blob sha1 by
hashlib here), huggingface_hub's cache layout (constants.py, file_download.py: refs/REV holds the
commit, snapshots/COMMIT/PATH -> ../../blobs/ETAG, the etag the sha256 of an LFS file or the
git blob sha1 of a regular one), the hub's request log, and `xlate -m DIR` on the served
directory for translations. Checked:
  - pull: exit 0, the snapshot dir printed, refs/main == the commit (no newline), exactly the
    needed files, each a relative symlink to blobs/ETAG holding the served bytes, no
    .incomplete left, lock files only under .locks/models--ORG--NAME; Marian, NLLB (safetensors
    chosen over pytorch_model.bin), a .bin-only NLLB, sharded safetensors through the index;
    @REV writes refs/REV; the cache dir from HF_HOME when HF_HUB_CACHE is unset;
  - only those files requested (the log), never TF/Flax/ONNX/rust or the second weights format;
  - `-m ORG/NAME` offline (HF_HUB_OFFLINE=1) translates as `-m SERVED_DIR` and `-m SNAPSHOT`,
    with no request; `@COMMIT`; XLATE_MODEL; an existing directory named ORG/NAME is a path;
    not cached + offline (1, true, yes, on) -> exit 2 naming `xlate pull ORG/NAME`; not cached
    online -> pulled first, a note on stderr;
  - progress on a terminal (a pty): a line naming each file; none with -q;
  - faults: a cut mid-file resumed within the run by `Range: bytes=CUT-`; a cut then 5xx
    until the run gives up, then a rerun resumes at the .incomplete's size; wrong bytes
    refused (exit 2), no blob named by the sha256, nothing under snapshots/ pointing at bad
    bytes; gated 401 / 403 and private (401 RepoNotFound) -> exit 2 and HF_TOKEN named; the
    token from HF_TOKEN, HF_TOKEN_PATH and HF_HOME/token; the token never on the LFS port and
    never printed; 404 repo, revision and file (X-Error-Code); 5xx twice then success, 5xx forever ->
    exit 2 naming 503 after retries; a hub that never answers and a body that stalls -> exit 2
    (XLATE_HUB_TIMEOUT_S); disk full (a 1 MiB tmpfs, else RLIMIT_FSIZE) -> exit 4 and every
    whole-named blob holds the bytes its name says; SIGINT mid-file -> 130, the .incomplete
    kept, a rerun resumes with Range; two pulls at once -> both 0, one correct blob;
  - peak memory: ru_maxrss (os.wait4) of pulling a 64 MiB file minus that of a 4 MiB file is
    under a quarter of the 60 MiB difference (a download streams to disk).
  - parallel downloads: 1 and 8 workers (XLATE_HUB_WORKERS) give byte-identical caches (refs,
    snapshot links, each blob's sha256), OPUS-MT and sharded; with the weights' body held after
    1 MiB, every other file arrives (the downloads overlap), then the weights resume with Range;
    one file cut for good on 4 workers: the others whole and linked, config.json not linked, no
    ref, exit 2 naming the file; the rerun fetches only the rest, from the .incomplete's size.
  - a regular file's bytes checked against its ETag, the git blob sha1 ("blob LEN\0" + bytes,
    hashlib here): config.json served corrupted (same size) -> exit 2, the message names the
    file, its URL, the sha1 got and the ETag; no blob, .incomplete or link by that name.
A run that outlives GUARD seconds is reported as hung (a guard against a hang, not a speed
limit). Run by tests/run.sh with env XLATE (the binary) and Debian's /usr/bin/python3.
"""
import hashlib
import json
import os
import resource
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tests", "hub"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, done, expect_eq, not_ok, ok  # noqa: E402,F401
from local_hub import LocalHub  # noqa: E402

XLATE = os.path.abspath(os.path.join(TOP, os.environ.get("XLATE", "./xlate")))
GUARD = int(os.environ.get("TEST_HANG_SECONDS", "300"))  # tests/cli/lib.sh HANG
TOKEN = "hf_localTestToken0123456789abcdef"
SMALL = ["--d", "16", "--layers", "1", "--heads", "2", "--ffn", "32"]
MARIAN_FILES = {"config.json", "generation_config.json", "source.spm", "target.spm", "vocab.json",
                "tokenizer_config.json", "model.safetensors"}
NLLB_FILES = {"config.json", "generation_config.json", "sentencepiece.bpe.model", "tokenizer_config.json",
              "special_tokens_map.json", "model.safetensors"}
NEVER = ("tf_model.h5", "flax_model.msgpack", "rust_model.ot", ".onnx", "README.md", ".gitattributes")
LINES = open(os.path.join(TOP, "tests", "data", "multi30k", "test_2016_flickr.en"),
             encoding="utf-8").read().split("\n")[:6]
PRINTED = []  # every run's stdout + stderr: the token must be in none


class Run:
    def __init__(self, rc, out, err):
        self.rc, self.out, self.err = rc, out, err

    def __repr__(self):
        return "exit %s, stderr %r" % (self.rc, self.err.strip()[-600:])


# ---- files and hashes (the oracle) ----

def file_hash(path, kind):
    h = hashlib.sha256() if kind == "sha256" else hashlib.sha1(b"blob %d\0" % os.path.getsize(path))
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def repo_dir(cache, repo):
    return os.path.join(cache, "models--" + repo.replace("/", "--"))


def write_safetensors_blob(path, n, seed):
    """a well-formed safetensors file holding one U8 tensor of n random bytes"""
    head = json.dumps({"pad": {"dtype": "U8", "shape": [n], "data_offsets": [0, n]}}).encode()
    head += b" " * (-len(head) % 8)
    rnd = __import__("random").Random(seed)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(head)) + head)
        left = n
        while left:
            k = min(left, 1 << 20)
            f.write(rnd.randbytes(k))
            left -= k


def shard_safetensors(src, out_dir):
    """model.safetensors -> two shards and model.safetensors.index.json (transformers' names)"""
    with open(src, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        head = json.loads(f.read(n))
        data = f.read()
    names = [k for k in head if k != "__metadata__"]
    parts = [names[: len(names) // 2], names[len(names) // 2:]]
    wmap = {}
    for i, part in enumerate(parts):
        fname = "model-%05d-of-%05d.safetensors" % (i + 1, len(parts))
        h, blob, off = {"__metadata__": {"format": "pt"}}, b"", 0
        for k in part:
            a, b = head[k]["data_offsets"]
            h[k] = dict(head[k], data_offsets=[off, off + b - a])
            blob += data[a:b]
            off += b - a
            wmap[k] = fname
        hb = json.dumps(h).encode()
        hb += b" " * (-len(hb) % 8)
        with open(os.path.join(out_dir, fname), "wb") as f:
            f.write(struct.pack("<Q", len(hb)) + hb + blob)
    with open(os.path.join(out_dir, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": len(data)}, "weight_map": wmap}, f)
    return {"model.safetensors.index.json"} | set(wmap.values())


def add_extras(d):
    """what hub repos hold beside the weights xlate reads"""
    rnd = __import__("random").Random(7)
    for name, n in (("tf_model.h5", 3000), ("flax_model.msgpack", 2500), ("rust_model.ot", 2200)):
        with open(os.path.join(d, name), "wb") as f:
            f.write(rnd.randbytes(n))
    os.makedirs(os.path.join(d, "onnx"), exist_ok=True)
    with open(os.path.join(d, "onnx", "model.onnx"), "wb") as f:
        f.write(rnd.randbytes(1500))
    with open(os.path.join(d, "README.md"), "w") as f:
        f.write("---\nlicense: cc-by-4.0\n---\n# a random test model\n")
    with open(os.path.join(d, ".gitattributes"), "w") as f:
        f.write("*.safetensors filter=lfs diff=lfs merge=lfs -text\n*.bin filter=lfs diff=lfs merge=lfs -text\n")


# ---- xlate runs ----

def base_env(cache, **extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HF_", "HUGGINGFACE_", "TRANSFORMERS_")) and k != "XLATE_MODEL"}
    env.update(HF_ENDPOINT=HUB.endpoint, HF_HOME=os.path.join(TMP, "hf-home-empty"),
               XDG_CACHE_HOME=os.path.join(TMP, "xdg-empty"), XLATE_HUB_RETRY_MS="20",
               XLATE_HUB_TIMEOUT_S="3")
    if cache is not None:
        env["HF_HUB_CACHE"] = cache
    for k, v in extra.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return env


def xlate(args, cache, inp=None, cwd=None, **env):
    try:
        p = subprocess.run([XLATE] + args, env=base_env(cache, **env), capture_output=True, cwd=cwd,
                           input=inp.encode() if inp is not None else None, timeout=GUARD)
    except subprocess.TimeoutExpired as e:
        r = Run("hung", (e.stdout or b"").decode(errors="replace"), (e.stderr or b"").decode(errors="replace"))
    else:
        r = Run(p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"))
    PRINTED.append(r.out + r.err)
    return r


def pull(repo, cache, *more, **env):
    return xlate(["pull", repo, "-q"] + list(more), cache, **env)


def translate(model, cache, extra=(), **env):
    return xlate(["-m", model, "--split", "none"] + list(extra), cache, inp="\n".join(LINES) + "\n", **env)


def served(repo, rev="main"):
    return HUB.files(repo, rev)


def etag_of(repo, path, rev="main"):
    """the blob name huggingface_hub gives the file, from the served bytes (hashlib here)"""
    f = served(repo, rev)[path]
    src = SOURCES[repo if rev == "main" else repo + "@" + rev]
    return file_hash(os.path.join(src, path), "sha256" if f["lfs"] else "git")


def verify_snapshot(cache, repo, want, rev="main"):
    """None when CACHE holds repo@rev as huggingface_hub lays it out with exactly `want`"""
    rd, commit = repo_dir(cache, repo), HUB.commit(repo, rev)
    why = []
    try:
        with open(os.path.join(rd, "refs", rev), "rb") as f:
            ref = f.read()
        if ref != commit.encode():
            why.append("refs/%s holds %r, expected %s" % (rev, ref, commit))
    except OSError as e:
        why.append("refs/%s: %s" % (rev, e))
    snap = os.path.join(rd, "snapshots", commit)
    got = set()
    for root, _, names in os.walk(snap):
        for n in names:
            got.add(os.path.relpath(os.path.join(root, n), snap))
    if got != set(want):
        why.append("snapshot files %s, expected %s" % (sorted(got), sorted(want)))
    src = SOURCES[repo if rev == "main" else repo + "@" + rev]
    for p in sorted(set(want) & got):
        link = os.path.join(snap, p)
        tag = etag_of(repo, p, rev)
        target = "../" * (2 + p.count("/")) + "blobs/" + tag
        if not os.path.islink(link):
            why.append("%s is not a symlink" % p)
        elif os.readlink(link) != target:
            why.append("%s -> %s, expected %s" % (p, os.readlink(link), target))
        elif file_hash(link, "sha256") != file_hash(os.path.join(src, p), "sha256"):
            why.append("%s: the blob's bytes differ from the served file" % p)
    blobs = os.path.join(rd, "blobs")
    inc = [b for b in os.listdir(blobs) if b.endswith(".incomplete")] if os.path.isdir(blobs) else []
    if inc:
        why.append("left in blobs/: %s" % inc)
    locks = os.path.join(cache, ".locks", os.path.basename(rd))
    if os.path.isdir(locks):
        tags = {etag_of(repo, p, rev) for p in want}
        odd = [n for n in os.listdir(locks) if not (n.endswith(".lock") and n[:-5] in tags)]
        if odd:
            why.append("unexpected files in %s: %s" % (locks, odd))
    return "; ".join(why) or None


def resolved(log, repo):
    """the files the log shows resolve requests for"""
    pre = "/%s/resolve/" % repo
    return {e["path"].split("?")[0][len(pre):].split("/", 1)[1] for e in log
            if e["port"] == "hub" and e["path"].startswith(pre)}


def whole_blobs_honest(cache, repo):
    """every blob without .incomplete holds the bytes its name says (sha256 or git sha1)"""
    blobs = os.path.join(repo_dir(cache, repo), "blobs")
    bad = []
    for b in os.listdir(blobs) if os.path.isdir(blobs) else []:
        if b.endswith(".incomplete"):
            continue
        kind = "sha256" if len(b) == 64 else "git"
        if file_hash(os.path.join(blobs, b), kind) != b:
            bad.append(b)
    return "blobs whose bytes are not their name: %s" % bad if bad else None


def snapshot_links_honest(cache, repo):
    """every symlink under snapshots/ points at a blob whose bytes are its name"""
    bad = []
    snaps = os.path.join(repo_dir(cache, repo), "snapshots")
    for root, _, names in os.walk(snaps):
        for n in names:
            p = os.path.join(root, n)
            real = os.path.realpath(p)
            b = os.path.basename(real)
            if not os.path.exists(real) or b.endswith(".incomplete") or \
                    file_hash(real, "sha256" if len(b) == 64 else "git") != b:
                bad.append(os.path.relpath(p, snaps))
    return "snapshot links to bad or missing blobs: %s" % bad if bad else None


def new_cache(name):
    d = os.path.join(TMP, "cache-" + name)
    shutil.rmtree(d, ignore_errors=True)
    return d


def incomplete_of(cache, repo):
    blobs = os.path.join(repo_dir(cache, repo), "blobs")
    return [os.path.join(blobs, b) for b in os.listdir(blobs) if b.endswith(".incomplete")] \
        if os.path.isdir(blobs) else []


def wait_for(cond, what, procs=()):
    """polls cond() until it holds; an exception if one of procs ends first, or after GUARD s"""
    end = time.monotonic() + GUARD
    while time.monotonic() < end:
        if cond():
            return
        for p in procs:
            if p.poll() is not None:
                raise RuntimeError("xlate ended (exit %s) before %s: %s" % (p.returncode, what,
                                                                          p.stderr.read().decode()[-400:]))
        time.sleep(0.05)
    raise RuntimeError("waited %d s for %s" % (GUARD, what))


# ---- the models and the hub ----

def build():
    src = os.path.join(TMP, "src")
    for tool, name, extra in (("make_marian.py", "marian", []),
                              ("make_m2m100.py", "nllb", ["--format", "both"]),
                              ("make_m2m100.py", "nllbbin", ["--format", "bin", "--seed", "2"])):
        subprocess.run([sys.executable, os.path.join(TOP, "tools", tool), os.path.join(src, name)] + SMALL + extra,
                       check=True, capture_output=True)
    repos = {}

    def repo(name, base, extras=True):
        d = os.path.join(TMP, "repos", name.replace("/", "_").replace("@", "_at_"))
        shutil.copytree(os.path.join(src, base), d)
        if extras:
            add_extras(d)
        repos[name] = d
        return d

    d = repo("org/opus-tiny", "marian")
    with open(os.path.join(d, "pytorch_model.bin"), "wb") as f:  # the second format: never fetched
        f.write(os.urandom(4000))
    for rev in ("v1", "refs/pr/1"):  # other revisions: other commits
        d = repo("org/opus-tiny@" + rev, "marian")
        with open(os.path.join(d, "README.md"), "a") as f:
            f.write(rev + "\n")
    repo("org/nllb-tiny", "nllb")
    repo("org/nllb-bin", "nllbbin")
    d = repo("org/opus-sharded", "marian")
    SHARDED.update(shard_safetensors(os.path.join(d, "model.safetensors"), d))
    os.remove(os.path.join(d, "model.safetensors"))
    with open(os.path.join(d, "pytorch_model.bin"), "wb") as f:
        f.write(os.urandom(3000))
    repo("org/gated", "marian", extras=False)
    repo("org/private", "marian", extras=False)
    for name, mib in (("org/big4", 4), ("org/big64", 64)):
        d = repo(name, "marian", extras=False)
        write_safetensors_blob(os.path.join(d, "model.safetensors"), mib << 20, mib)
    return repos


TMP = None  # the test's temporary directory (main)
SHARDED = set()
SOURCES = {}
HUB = None


def main():
    global HUB, TMP
    if os.environ.get("XLATE_FORCE_ISA") == "generic":
        # CI's second run of the suite: what is checked here is the hub's (names, the cache,
        # downloads; its translations compare xlate with itself on the same kernels), none of it
        # vector code, so that run would make the default run's checks again (about 38 s)
        ok("the hub: skipped under XLATE_FORCE_ISA=generic (no vector code: the default run's "
           "checks again)")
        return
    TMP = tempfile.mkdtemp(prefix="xlate-test-hub-")
    if not os.access(XLATE, os.X_OK):
        not_ok("xlate binary", "%s is not executable" % XLATE)
        return
    if "pull" not in subprocess.run([XLATE, "--help"], capture_output=True, text=True).stdout:
        not_ok("xlate pull exists", "%s --help names no pull command" % XLATE)
        return
    SOURCES.update(build())
    HUB = LocalHub(SOURCES, gated=["org/gated"], private=["org/private"], tokens=[TOKEN])
    try:
        tests()
    finally:
        HUB.stop()
    leaked = [i for i, s in enumerate(PRINTED) if TOKEN in s]
    expect_eq("the token is never printed (stdout, stderr of %d runs)" % len(PRINTED), leaked, [])


def tests():
    for t in (t_pull, t_offline, t_progress, t_cut, t_corrupt, t_auth, t_not_found, t_5xx, t_timeouts,
              t_disk_full, t_sigint, t_concurrent, t_memory, t_parallel, t_parallel_cut, t_git_sha1):
        try:
            t()
        except Exception as e:  # noqa: BLE001 (one part's failure must not hide the others')
            import traceback
            traceback.print_exc()
            not_ok(t.__name__[2:], "%s: %s" % (type(e).__name__, e))


def t_pull():
    c = new_cache("main")
    HUB.reset()
    r = pull("org/opus-tiny", c)
    snap = os.path.join(repo_dir(c, "org/opus-tiny"), "snapshots", HUB.commit("org/opus-tiny"))
    check("pull org/opus-tiny: exit 0, the snapshot dir on stdout",
          lambda: None if r.rc == 0 and r.out.strip().split("\n")[-1] == snap else "%r stdout %r" % (r, r.out))
    check("pull org/opus-tiny: huggingface_hub's layout, the served bytes",
          lambda: verify_snapshot(c, "org/opus-tiny", MARIAN_FILES))
    log = HUB.log()
    got = resolved(log, "org/opus-tiny")
    check("pull org/opus-tiny: only the needed files requested (safetensors, not pytorch_model.bin; no TF/Flax/ONNX)",
          lambda: None if got == MARIAN_FILES else "requested %s" % sorted(got))
    check("pull org/opus-tiny: the API asked for main",
          lambda: None if any(e["path"].startswith("/api/models/org/opus-tiny/revision/main") for e in log)
          else "no /api/models/org/opus-tiny/revision/main in %s" % [e["path"] for e in log][:5])
    check("pull: LFS files redirected to the second port and fetched there",
          lambda: None if any(e["port"] == "lfs" and "file=model.safetensors" in e["path"] and e["status"] in (200, 206)
                              for e in log) else "no LFS GET of model.safetensors")
    # a second pull: nothing downloaded again
    HUB.reset()
    r2 = pull("org/opus-tiny", c)
    log = HUB.log()
    check("pull again: exit 0, no file body fetched again",
          lambda: None if r2.rc == 0 and not [e for e in log if (e["port"] == "lfs" and e["method"] == "GET") or
                                              (e["method"] == "GET" and "/resolve/" in e["path"] and e["status"] == 200)]
          else "%r; %s" % (r2, [e["path"] for e in log]))

    HUB.reset()
    r = pull("org/opus-tiny@v1", c)
    check("pull org/opus-tiny@v1: refs/v1 and its snapshot",
          lambda: verify_snapshot(c, "org/opus-tiny", MARIAN_FILES, rev="v1") if r.rc == 0 else repr(r))

    HUB.reset()
    r = pull("org/opus-tiny@refs/pr/1", c)
    api = [e["path"] for e in HUB.log() if e["path"].startswith("/api/")]
    check("pull org/opus-tiny@refs/pr/1: refs/refs/pr/1 and its snapshot",
          lambda: verify_snapshot(c, "org/opus-tiny", MARIAN_FILES, rev="refs/pr/1") if r.rc == 0 else repr(r))
    check("... the revision quoted in the API's URL (refs%2Fpr%2F1, hf_api.py model_info quote(safe=''))",
          lambda: None if api and all(p.startswith("/api/models/org/opus-tiny/revision/refs%2Fpr%2F1") for p in api)
          else "requests %s" % api)
    locks = os.path.join(c, ".locks", "models--org--opus-tiny")
    want_locks = {etag_of("org/opus-tiny", p) + ".lock" for p in MARIAN_FILES}
    check("lock files where huggingface_hub puts them: .locks/models--org--opus-tiny/ETAG.lock",
          lambda: None if os.path.isdir(locks) and want_locks <= set(os.listdir(locks))
          else "%s holds %s" % (locks, sorted(os.listdir(locks)) if os.path.isdir(locks) else "nothing"))

    c2 = new_cache("nllb")
    HUB.reset()
    r = pull("org/nllb-tiny", c2)
    got = resolved(HUB.log(), "org/nllb-tiny")
    check("pull org/nllb-tiny: layout and bytes", lambda: verify_snapshot(c2, "org/nllb-tiny", NLLB_FILES)
          if r.rc == 0 else repr(r))
    check("pull org/nllb-tiny: model.safetensors chosen over pytorch_model.bin, tokenizer files of NLLB",
          lambda: None if got == NLLB_FILES else "requested %s" % sorted(got))
    HUB.reset()
    r = pull("org/nllb-bin", c2)
    want = (NLLB_FILES - {"model.safetensors"}) | {"pytorch_model.bin"}
    check("pull org/nllb-bin: pytorch_model.bin when there is no safetensors",
          lambda: verify_snapshot(c2, "org/nllb-bin", want) if r.rc == 0 else repr(r))
    HUB.reset()
    r = pull("org/opus-sharded", c2)
    want = (MARIAN_FILES - {"model.safetensors"}) | SHARDED
    got = resolved(HUB.log(), "org/opus-sharded")
    check("pull org/opus-sharded: the index and its shards, not pytorch_model.bin",
          lambda: (verify_snapshot(c2, "org/opus-sharded", want) or
                   (None if got == want else "requested %s" % sorted(got))) if r.rc == 0 else repr(r))

    # the cache dir by huggingface_hub's rules: HF_HOME/hub when HF_HUB_CACHE is unset
    home = os.path.join(TMP, "hf-home-pull")
    HUB.reset()
    r = xlate(["pull", "org/opus-tiny", "-q"], None, HF_HOME=home)
    check("pull with HF_HOME and no HF_HUB_CACHE: the cache is HF_HOME/hub",
          lambda: verify_snapshot(os.path.join(home, "hub"), "org/opus-tiny", MARIAN_FILES) if r.rc == 0 else repr(r))
    xdg = os.path.join(TMP, "xdg-pull")
    r = xlate(["pull", "org/opus-tiny", "-q"], None, HF_HOME=None, XDG_CACHE_HOME=xdg)
    check("pull with only XDG_CACHE_HOME: the cache is XDG_CACHE_HOME/huggingface/hub",
          lambda: verify_snapshot(os.path.join(xdg, "huggingface", "hub"), "org/opus-tiny", MARIAN_FILES)
          if r.rc == 0 else repr(r))


def t_offline():
    c, c2 = os.path.join(TMP, "cache-main"), os.path.join(TMP, "cache-nllb")
    want = translate(SOURCES["org/opus-tiny"], None)
    check("oracle: xlate -m SERVED_DIR translates", lambda: None if want.rc == 0 and want.out.strip() else repr(want))
    HUB.reset()
    for label, model, cache, extra, src in (
            ("-m org/opus-tiny", "org/opus-tiny", c, [], "org/opus-tiny"),
            ("-m org/opus-tiny@COMMIT", "org/opus-tiny@" + HUB.commit("org/opus-tiny"), c, [], "org/opus-tiny"),
            ("-m org/opus-sharded", "org/opus-sharded", c2, [], "org/opus-sharded"),
            ("-m org/nllb-tiny", "org/nllb-tiny", c2, ["--target-lang", "deu_Latn"], "org/nllb-tiny"),
            ("-m org/nllb-bin", "org/nllb-bin", c2, ["--target-lang", "deu_Latn"], "org/nllb-bin")):
        w = translate(SOURCES[src], None, extra)
        g = translate(model, cache, extra, HF_HUB_OFFLINE="1")
        check("%s offline translates as -m SERVED_DIR" % label,
              lambda: None if g.rc == 0 and w.rc == 0 and g.out == w.out else "got %r %r, want %r" % (g, g.out, w.out))
    snap = os.path.join(repo_dir(c, "org/opus-tiny"), "snapshots", HUB.commit("org/opus-tiny"))
    g = translate(snap, None)
    check("-m SNAPSHOT_DIR translates as -m SERVED_DIR",
          lambda: None if g.rc == 0 and g.out == want.out else repr(g))
    g = translate("org/opus-tiny", c)
    g2 = xlate(["--split", "none"], c, inp="\n".join(LINES) + "\n", XLATE_MODEL="org/opus-tiny", HF_HUB_OFFLINE="1")
    check("XLATE_MODEL=org/opus-tiny offline translates the same",
          lambda: None if g2.rc == 0 and g2.out == want.out else repr(g2))
    log = HUB.log()
    check("-m ORG/NAME with the model cached: no request to the hub, even online",
          lambda: None if g.rc == 0 and g.out == want.out and not log else "%r; %s" % (g, [e["path"] for e in log]))
    # a directory of that name is a path, whatever the cache holds
    work = os.path.join(TMP, "work")
    shutil.copytree(SOURCES["org/nllb-tiny"], os.path.join(work, "org", "opus-tiny"))
    w = translate(SOURCES["org/nllb-tiny"], None, ["--target-lang", "deu_Latn"])
    p = subprocess.run([XLATE, "-m", "org/opus-tiny", "--split", "none", "--target-lang", "deu_Latn"], cwd=work,
                       env=base_env(c, HF_HUB_OFFLINE="1"), input="\n".join(LINES).encode() + b"\n",
                       capture_output=True, timeout=GUARD)
    check("-m ORG/NAME naming an existing directory is that directory",
          lambda: None if p.returncode == 0 and p.stdout.decode() == w.out else "exit %d %s" % (p.returncode, p.stderr))
    for v in ("1", "true", "YES", "on"):
        r = translate("org/not-cached", c, HF_HUB_OFFLINE=v)
        check("-m org/not-cached with HF_HUB_OFFLINE=%s: exit 2 naming `xlate pull org/not-cached`" % v,
              lambda: None if r.rc == 2 and "xlate pull org/not-cached" in r.err else repr(r))
    HUB.reset()
    c3 = new_cache("first-use")
    r = translate("org/opus-tiny", c3)
    check("-m org/opus-tiny not cached, online: pulled first (a note on stderr), then translated",
          lambda: None if r.rc == 0 and r.out == want.out and r.err.strip() and
          verify_snapshot(c3, "org/opus-tiny", MARIAN_FILES) is None else repr(r))


def lfs_gets(log, fname):
    return [e for e in log if e["port"] == "lfs" and "file=" + fname in e["path"] and e["method"] == "GET"]


def t_progress():
    """on a terminal, a line per file (huggingface-cli's bars); -q and a pipe: none"""
    import pty
    outs = {}
    for label, q in (("tty", []), ("tty -q", ["-q"])):
        c = new_cache("progress" + str(len(q)))
        master, slave = pty.openpty()
        p = subprocess.Popen([XLATE, "pull", "org/opus-tiny"] + q, env=base_env(c), stdout=subprocess.PIPE,
                             stderr=slave)
        os.close(slave)
        chunks = []
        while True:
            try:
                b = os.read(master, 4096)
            except OSError:  # EIO: the child's side closed
                break
            if not b:
                break
            chunks.append(b)
        os.close(master)
        out, _ = p.communicate(timeout=GUARD)
        outs[label] = (p.returncode, b"".join(chunks).decode(errors="replace"))
        PRINTED.append(outs[label][1] + out.decode(errors="replace"))
    rc, text = outs["tty"]
    lines = text.replace("\r", "\n").split("\n")
    missing = [f for f in sorted(MARIAN_FILES) if not any(f in ln and "B/s" in ln for ln in lines)]
    check("progress on a terminal: a line with each file's name and rate (huggingface-cli's bars)",
          lambda: None if rc == 0 and not missing else "exit %s, no line for %s in %r" % (rc, missing, text[-600:]))
    rc, text = outs["tty -q"]
    check("-q on a terminal: no progress", lambda: None if rc == 0 and "model.safetensors" not in text else
          "exit %s, stderr %r" % (rc, text[-400:]))


def t_cut():
    big = "org/big4"
    cut = 1 << 20
    c = new_cache("cut")
    HUB.reset()
    HUB.fault({"kind": "cut", "repo": big, "file": "model.safetensors", "after": cut})
    r = pull(big, c)
    gets = lfs_gets(HUB.log(), "model.safetensors")
    check("a connection cut after 1 MiB: the run resumes by itself and completes",
          lambda: verify_snapshot(c, big, MARIAN_FILES) if r.rc == 0 else repr(r))
    check("... with Range: bytes=%d-" % cut,
          lambda: None if [g["range"] for g in gets if g["range"]] == ["bytes=%d-" % cut]
          else "ranges %s" % [g["range"] for g in gets])
    # a cut, then a server that ignores Range (200, the whole file): the file is started over
    c = new_cache("cut-norange")
    HUB.reset()
    HUB.fault({"kind": "cut", "repo": big, "file": "model.safetensors", "after": cut})
    HUB.fault({"kind": "norange", "repo": big, "file": "model.safetensors"})
    r = pull(big, c)
    gets = lfs_gets(HUB.log(), "model.safetensors")
    check("a cut, then the resume answered 200 with the whole file: the blob is right, not appended to",
          lambda: (verify_snapshot(c, big, MARIAN_FILES) if r.rc == 0 else repr(r)) or
          (None if [g["fault"] for g in gets] == ["cut", "norange"] else "requests %s" % gets))
    # a cut, then 5xx on every later request: the run gives up; a rerun resumes from what it kept
    c = new_cache("cut-rerun")
    HUB.reset()
    HUB.fault({"kind": "cut", "repo": big, "file": "model.safetensors", "after": cut})
    HUB.fault({"kind": "status", "code": 503, "repo": big, "file": "model.safetensors", "on": "lfs",
               "skip": 1, "times": -1})
    r = pull(big, c)
    inc = incomplete_of(c, big)
    size = os.path.getsize(inc[0]) if len(inc) == 1 else None
    check("a cut then 503s: exit 2, the .incomplete kept",
          lambda: None if r.rc == 2 and size and size > 0 else "%r; incomplete %s" % (r, inc))
    check("... and no snapshot link to it", lambda: snapshot_links_honest(c, big))
    HUB.reset()
    r = pull(big, c)
    gets = lfs_gets(HUB.log(), "model.safetensors")
    check("the rerun completes with the right sha256", lambda: verify_snapshot(c, big, MARIAN_FILES)
          if r.rc == 0 else repr(r))
    check("the rerun resumed: Range: bytes=%s- (the .incomplete's size)" % size,
          lambda: None if gets and gets[0]["range"] == "bytes=%s-" % size else "ranges %s" % [g["range"] for g in gets])


def t_corrupt():
    c = new_cache("corrupt")
    HUB.reset()
    HUB.fault({"kind": "corrupt", "repo": "org/opus-tiny", "file": "model.safetensors", "times": -1})
    r = pull("org/opus-tiny", c)
    tag = etag_of("org/opus-tiny", "model.safetensors")
    check("wrong bytes: exit 2, the message names model.safetensors",
          lambda: None if r.rc == 2 and "model.safetensors" in r.err else repr(r))
    blobs = os.path.join(repo_dir(c, "org/opus-tiny"), "blobs")
    check("wrong bytes: no blob named by the sha256, no .incomplete of it",
          lambda: None if not [b for b in (os.listdir(blobs) if os.path.isdir(blobs) else []) if b.startswith(tag)]
          else "blobs/%s* exists" % tag)
    check("wrong bytes: nothing under snapshots/ points at bad bytes", lambda: snapshot_links_honest(c, "org/opus-tiny"))
    HUB.reset()
    r = pull("org/opus-tiny", c)
    check("wrong bytes, then a good hub: the rerun completes",
          lambda: verify_snapshot(c, "org/opus-tiny", MARIAN_FILES) if r.rc == 0 else repr(r))


def t_auth():
    c = new_cache("gated")
    HUB.reset()
    r = pull("org/gated", c)
    check("gated, no token: exit 2, the message says HF_TOKEN",
          lambda: None if r.rc == 2 and "HF_TOKEN" in r.err else repr(r))
    check("gated, no token: the hub answered 401",
          lambda: None if 401 in [e["status"] for e in HUB.log()] else "statuses %s" % [e["status"] for e in HUB.log()])
    HUB.reset()
    r = pull("org/gated", c, HF_TOKEN="hf_wrongToken")
    check("gated, a token not granted: exit 2, the message says HF_TOKEN",
          lambda: None if r.rc == 2 and "HF_TOKEN" in r.err else repr(r))
    check("gated, a token not granted: the hub answered 403",
          lambda: None if 403 in [e["status"] for e in HUB.log()] else "statuses %s" % [e["status"] for e in HUB.log()])
    HUB.reset()
    r = pull("org/gated", c, HF_TOKEN=TOKEN)
    log = HUB.log()
    check("gated, HF_TOKEN: pulled", lambda: verify_snapshot(c, "org/gated", MARIAN_FILES) if r.rc == 0 else repr(r))
    check("the token went with every request to the hub's port",
          lambda: None if all(e["auth"] == "valid" for e in log if e["port"] == "hub")
          else [(e["path"], e["auth"]) for e in log if e["port"] == "hub" and e["auth"] != "valid"])
    lfs = [e for e in log if e["port"] == "lfs"]
    check("the token never went to the redirect's port (%d requests there)" % len(lfs),
          lambda: None if lfs and all(e["auth"] == "none" for e in lfs) else [(e["path"], e["auth"]) for e in lfs])
    tokfile = os.path.join(TMP, "token-file")
    with open(tokfile, "w") as f:
        f.write(TOKEN + "\n")
    c = new_cache("gated-path")
    r = pull("org/gated", c, HF_TOKEN_PATH=tokfile)
    check("gated, the token from HF_TOKEN_PATH: pulled", lambda: None if r.rc == 0 else repr(r))
    home = os.path.join(TMP, "hf-home-token")
    os.makedirs(home, exist_ok=True)
    with open(os.path.join(home, "token"), "w") as f:
        f.write(TOKEN)
    c = new_cache("gated-home")
    r = pull("org/gated", c, HF_HOME=home)
    check("gated, the token from HF_HOME/token: pulled", lambda: None if r.rc == 0 else repr(r))


def t_not_found():
    c = new_cache("404")
    HUB.reset()
    r = pull("org/no-such-model", c, HF_TOKEN=TOKEN)
    check("404 RepoNotFound (with a token): exit 2, names the repo and says not found (or the hub's RepoNotFound)",
          lambda: None if r.rc == 2 and "org/no-such-model" in r.err and
          ("not found" in r.err.lower() or "RepoNotFound" in r.err) else repr(r))
    r = pull("org/no-such-model", c)
    check("401 RepoNotFound (the hub's answer without a token): exit 2, names the repo and HF_TOKEN",
          lambda: None if r.rc == 2 and "org/no-such-model" in r.err and "HF_TOKEN" in r.err else repr(r))
    r = pull("org/private", c)
    check("a private repo without a token (401 RepoNotFound): exit 2, the message says HF_TOKEN",
          lambda: None if r.rc == 2 and "HF_TOKEN" in r.err else repr(r))
    r = pull("org/private", c, HF_TOKEN=TOKEN)
    check("a private repo with HF_TOKEN: pulled",
          lambda: verify_snapshot(c, "org/private", MARIAN_FILES) if r.rc == 0 else repr(r))
    r = pull("org/opus-tiny@no-such-rev", c)
    check("404 RevisionNotFound: exit 2, names the revision",
          lambda: None if r.rc == 2 and "no-such-rev" in r.err else repr(r))
    HUB.fault({"kind": "status", "code": 404, "error_code": "EntryNotFound", "repo": "org/opus-tiny",
               "file": "vocab.json", "times": -1, "message": "vocab.json does not exist"})
    r = pull("org/opus-tiny", c)
    check("404 EntryNotFound for a listed file: exit 2, names the file",
          lambda: None if r.rc == 2 and "vocab.json" in r.err else repr(r))
    check("... and no snapshot link for it",
          lambda: None if not os.path.exists(os.path.join(repo_dir(c, "org/opus-tiny"), "snapshots",
                                                          HUB.commit("org/opus-tiny"), "vocab.json")) else
          "vocab.json linked")


def t_5xx():
    c = new_cache("5xx")
    HUB.reset()
    HUB.fault({"kind": "status", "code": 503, "repo": "org/opus-tiny", "times": 2})
    HUB.fault({"kind": "status", "code": 502, "repo": "org/opus-tiny", "file": "config.json", "times": 2})
    r = pull("org/opus-tiny", c)
    log = HUB.log()
    check("503 twice on the API, 502 twice on a file, then answers: pulled",
          lambda: verify_snapshot(c, "org/opus-tiny", MARIAN_FILES) if r.rc == 0 else repr(r))
    check("... after 3 API requests",
          lambda: None if len([e for e in log if e["path"].startswith("/api/")]) == 3 else
          [e["path"] for e in log if e["path"].startswith("/api/")])
    HUB.reset()
    c = new_cache("5xx-forever")
    HUB.fault({"kind": "status", "code": 503, "repo": "org/opus-tiny", "times": -1})
    r = pull("org/opus-tiny", c)
    n = len([e for e in HUB.log() if e["path"].startswith("/api/")])
    check("503 forever: exit 2 by itself, the message says 503",
          lambda: None if r.rc == 2 and "503" in r.err else repr(r))
    check("503 forever: retried (%d requests) before giving up" % n, lambda: None if n >= 3 else "%d requests" % n)


def t_timeouts():
    c = new_cache("hang")
    HUB.reset()
    HUB.fault({"kind": "hang", "repo": "org/opus-tiny", "times": -1})
    r = pull("org/opus-tiny", c, XLATE_HUB_TIMEOUT_S="1")
    check("a hub that never answers: exit 2 by itself (XLATE_HUB_TIMEOUT_S=1)",
          lambda: None if r.rc == 2 else repr(r))
    HUB.reset()
    # 100 kB, then every later answer stalls before its first byte: no progress after that
    HUB.fault({"kind": "stall", "repo": "org/big4", "file": "model.safetensors", "after": 100000})
    HUB.fault({"kind": "stall", "repo": "org/big4", "file": "model.safetensors", "after": 0, "times": -1})
    r = pull("org/big4", c, XLATE_HUB_TIMEOUT_S="1")
    check("a body that stalls after 100 kB, then at once on every retry: exit 2 by itself",
          lambda: None if r.rc == 2 else repr(r))
    check("... no snapshot link to the partial blob", lambda: snapshot_links_honest(c, "org/big4"))
    HUB.reset()


def t_disk_full():
    mnt = os.path.join(TMP, "small")
    os.makedirs(mnt)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt], capture_output=True).returncode == 0
    try:
        HUB.reset()
        if mounted:
            c = os.path.join(mnt, "cache")
            r = pull("org/big4", c)
            how = "a 1 MiB tmpfs"
        else:
            c = new_cache("fsize")

            def limit():
                signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
                resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))
            p = subprocess.run([XLATE, "pull", "org/big4", "-q"], env=base_env(c), capture_output=True,
                               preexec_fn=limit, timeout=GUARD)
            r = Run(p.returncode, p.stdout.decode(), p.stderr.decode())
            how = "RLIMIT_FSIZE 1 MiB (no tmpfs: %s)" % "mount refused"
        check("disk full (%s): exit 4" % how, lambda: None if r.rc == 4 else repr(r))
        check("disk full: every whole-named blob holds the bytes its name says", lambda: whole_blobs_honest(c, "org/big4"))
        check("disk full: nothing under snapshots/ points at a half blob", lambda: snapshot_links_honest(c, "org/big4"))
    finally:
        if mounted:
            subprocess.run(["umount", mnt], capture_output=True)


def t_sigint():
    c = new_cache("sigint")
    big = "org/big4"
    HUB.reset()
    HUB.fault({"kind": "stall", "repo": big, "file": "model.safetensors", "after": 1 << 20})
    p = subprocess.Popen([XLATE, "pull", big, "-q"], env=base_env(c), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # the weights' .incomplete (other files download beside it and may be cut too: each kept)
    weights = os.path.join(repo_dir(c, big), "blobs", etag_of(big, "model.safetensors") + ".incomplete")
    try:
        wait_for(lambda: os.path.exists(weights) and os.path.getsize(weights) >= 512 * 1024,
                 "half a MiB in the .incomplete", [p])
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=GUARD)
        PRINTED.append((out + err).decode(errors="replace"))
        rc = p.returncode
    except Exception:
        p.kill()
        p.wait()
        raise
    inc = incomplete_of(c, big)
    size = os.path.getsize(weights) if weights in inc else None
    check("SIGINT mid-file: exit 130, the weights' .incomplete kept",
          lambda: None if rc == 130 and size else "exit %s, incomplete %s, stderr %r" % (rc, inc, err[-300:]))
    HUB.reset()
    r = pull(big, c)
    gets = lfs_gets(HUB.log(), "model.safetensors")
    check("after SIGINT, the rerun completes with the right sha256",
          lambda: verify_snapshot(c, big, MARIAN_FILES) if r.rc == 0 else repr(r))
    check("... resuming with Range: bytes=%s-" % size,
          lambda: None if gets and gets[0]["range"] == "bytes=%s-" % size else "ranges %s" % [g["range"] for g in gets])


def t_concurrent():
    c = new_cache("two")
    big = "org/big4"
    HUB.reset()
    HUB.fault({"kind": "stall", "repo": big, "file": "model.safetensors", "after": 512 * 1024})
    env = base_env(c, XLATE_HUB_TIMEOUT_S="60")
    a = subprocess.Popen([XLATE, "pull", big, "-q"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    b = None
    try:
        # A holds model.safetensors' lock and is stalled in its body; then B starts
        wait_for(lambda: lfs_gets(HUB.log(), "model.safetensors"), "the first pull's LFS request", [a])
        b = subprocess.Popen([XLATE, "pull", big, "-q"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        wait_for(lambda: len([e for e in HUB.log() if e["path"].startswith("/api/")]) >= 2, "the second pull's API call",
                 [a, b])
        time.sleep(0.5)
        HUB.release()  # A's connection is dropped; it resumes; B waits for the lock or shares the blob
        outs = [x.communicate(timeout=GUARD) for x in (a, b)]
    except Exception:
        for x in (a, b):
            if x is not None and x.poll() is None:
                x.kill()
                x.wait()
        raise
    for o, e in outs:
        PRINTED.append((o + e).decode(errors="replace"))
    check("two pulls at once: both exit 0",
          lambda: None if a.returncode == 0 and b.returncode == 0 else
          "exits %s %s: %r %r" % (a.returncode, b.returncode, outs[0][1][-300:], outs[1][1][-300:]))
    check("two pulls at once: one correct snapshot and blobs", lambda: verify_snapshot(c, big, MARIAN_FILES)
          or whole_blobs_honest(c, big))


def measure(repo, cache):
    """(exit status, ru_maxrss KiB) of one `xlate pull` in a fresh child, from its own wait4"""
    pid = os.fork()
    if pid == 0:  # the child: exec xlate with its output to /dev/null
        try:
            fd = os.open(os.devnull, os.O_WRONLY)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            env = base_env(cache)
            os.execve(XLATE, [XLATE, "pull", repo, "-q"], env)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    return os.waitstatus_to_exitcode(status), ru.ru_maxrss


def t_memory():
    HUB.reset()
    rc4, rss4 = measure("org/big4", new_cache("rss4"))
    rc64, rss64 = measure("org/big64", new_cache("rss64"))
    check("pull of a 64 MiB and a 4 MiB file: exit 0 both",
          lambda: None if rc4 == 0 and rc64 == 0 else "exits %s %s" % (rc4, rc64))
    check("peak memory does not grow with the file: maxrss %d KiB (4 MiB) vs %d KiB (64 MiB), growth < 15 MiB"
          % (rss4, rss64), lambda: None if rss64 - rss4 < 15 * 1024 else "grew %d KiB" % (rss64 - rss4))
    check("the 64 MiB blob's sha256", lambda: verify_snapshot(os.path.join(TMP, "cache-rss64"), "org/big64",
                                                             MARIAN_FILES))


def cache_tree(cache, repo):
    """refs, every snapshot path with its link target, every blob with its sha256: what two caches
    of the same pull must share byte for byte"""
    rd, out = repo_dir(cache, repo), {}
    for sub in ("refs", "snapshots", "blobs"):
        for root, _, names in os.walk(os.path.join(rd, sub)):
            for n in names:
                p = os.path.join(root, n)
                rel = os.path.relpath(p, rd)
                if os.path.islink(p):
                    out[rel] = "-> " + os.readlink(p)
                else:
                    out[rel] = file_hash(p, "sha256")
    return out


def t_parallel():
    """XLATE_HUB_WORKERS=8 and =1 give the same cache; the files really overlap: while the
    weights' body is held after 1 MiB, every other file arrives; released, the weights resume"""
    for repo, want in (("org/opus-tiny", MARIAN_FILES), ("org/opus-sharded", (MARIAN_FILES - {"model.safetensors"}) | SHARDED)):
        HUB.reset()
        c1, c8 = new_cache("seq-" + repo[4:]), new_cache("par-" + repo[4:])
        r1 = pull(repo, c1, XLATE_HUB_WORKERS="1")
        r8 = pull(repo, c8, XLATE_HUB_WORKERS="8")
        check("%s with 1 and 8 workers: exit 0, huggingface_hub's layout, the served bytes" % repo,
              lambda: (verify_snapshot(c1, repo, want) or verify_snapshot(c8, repo, want))
              if r1.rc == 0 and r8.rc == 0 else "%r %r" % (r1, r8))
        t1, t8 = cache_tree(c1, repo), cache_tree(c8, repo)
        check("%s: 8 workers' cache is byte-identical to 1 worker's (%d entries: refs, snapshot links, blob sha256)"
              % (repo, len(t1)), lambda: None if t1 == t8 and t1 else "differ: %s" %
              sorted(set(t1.items()) ^ set(t8.items()))[:6])
    big = "org/big4"
    c = new_cache("par-held")
    HUB.reset()
    HUB.fault({"kind": "stall", "repo": big, "file": "model.safetensors", "after": 1 << 20})
    p = subprocess.Popen([XLATE, "pull", big, "-q"], env=base_env(c, XLATE_HUB_WORKERS="4", XLATE_HUB_TIMEOUT_S="60"),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    others = sorted(MARIAN_FILES - {"model.safetensors"})
    blobs = os.path.join(repo_dir(c, big), "blobs")
    try:
        wait_for(lambda: all(os.path.exists(os.path.join(blobs, etag_of(big, f))) for f in others),
                 "every other file's blob while the weights are held", [p])
        held = lfs_gets(HUB.log(), "model.safetensors")
        check("4 workers: every other file arrived while the weights' body was held (the downloads overlap)",
              lambda: None if p.poll() is None and len(held) == 1 else "exit %s, weights GETs %s" % (p.poll(), held))
        HUB.release()
        out, err = p.communicate(timeout=GUARD)
    except Exception:
        p.kill()
        p.wait()
        raise
    PRINTED.append((out + err).decode(errors="replace"))
    gets = lfs_gets(HUB.log(), "model.safetensors")
    check("... released: the weights resume with Range: bytes=%d- and the pull completes" % (1 << 20),
          lambda: (verify_snapshot(c, big, MARIAN_FILES) if p.returncode == 0 else "exit %s %r" % (p.returncode, err))
          or (None if [g["range"] for g in gets] == [None, "bytes=%d-" % (1 << 20)] else "ranges %s" % gets))


def t_parallel_cut():
    """one file cut mid-way for good (a cut, then 503 until the run gives up) on 4 workers: the
    others complete and are linked, config.json is not (a snapshot with it reads as whole), the
    run exits 2 naming the file; a rerun fetches the rest only, resuming"""
    big = "org/big4"
    c = new_cache("par-cut")
    HUB.reset()
    HUB.fault({"kind": "cut", "repo": big, "file": "model.safetensors", "after": 1 << 20})
    HUB.fault({"kind": "status", "code": 503, "repo": big, "file": "model.safetensors", "on": "lfs",
               "skip": 1, "times": -1})
    r = pull(big, c, XLATE_HUB_WORKERS="4")
    snap = os.path.join(repo_dir(c, big), "snapshots", HUB.commit(big))
    linked = sorted(os.listdir(snap)) if os.path.isdir(snap) else []
    check("4 workers, the weights cut then 503: exit 2 naming model.safetensors",
          lambda: None if r.rc == 2 and "model.safetensors" in r.err else repr(r))
    check("... every other file linked, config.json not yet",
          lambda: None if linked == sorted(MARIAN_FILES - {"model.safetensors", "config.json"}) else "linked %s" % linked)
    check("... their blobs whole and right, config.json's blob there",
          lambda: whole_blobs_honest(c, big) or snapshot_links_honest(c, big) or
          (None if os.path.exists(os.path.join(repo_dir(c, big), "blobs", etag_of(big, "config.json")))
           else "no blob of config.json"))
    check("... no ref written (the snapshot is not whole)",
          lambda: None if not os.path.exists(os.path.join(repo_dir(c, big), "refs", "main")) else "refs/main exists")
    inc = incomplete_of(c, big)
    size = os.path.getsize(inc[0]) if len(inc) == 1 else None
    HUB.reset()
    r = pull(big, c, XLATE_HUB_WORKERS="4")
    log = HUB.log()
    bodies = [e for e in log if e["method"] == "GET" and (e["port"] == "lfs" or "/resolve/" in e["path"])]
    check("the rerun completes with the right bytes", lambda: verify_snapshot(c, big, MARIAN_FILES) if r.rc == 0 else repr(r))
    check("... fetching only the weights' rest (Range: bytes=%s-)" % size,
          lambda: None if [(e["path"].split("file=")[-1], e["range"]) for e in bodies] ==
          [("model.safetensors", "bytes=%s-" % size)] else "bodies %s" % [(e["path"], e["range"]) for e in bodies])


def t_git_sha1():
    """a regular file whose bytes do not hash to its ETag (the git blob sha1) is refused"""
    repo = "org/opus-tiny"
    c = new_cache("sha1")
    tag = etag_of(repo, "config.json")
    HUB.reset()
    HUB.fault({"kind": "corrupt", "repo": repo, "file": "config.json", "times": -1})
    r = pull(repo, c)
    check("config.json's bytes corrupted (same size): exit 2",
          lambda: None if r.rc == 2 else repr(r))
    check("... the message names config.json, its URL, the git blob sha1 got and the ETag expected",
          lambda: None if "config.json" in r.err and "/resolve/" in r.err and tag in r.err and "sha1" in r.err
          else repr(r))
    blobs = os.path.join(repo_dir(c, repo), "blobs")
    check("... nothing in the cache under its name (no blob, no .incomplete, no snapshot link)",
          lambda: None if not [b for b in (os.listdir(blobs) if os.path.isdir(blobs) else []) if b.startswith(tag)]
          and not os.path.lexists(os.path.join(repo_dir(c, repo), "snapshots", HUB.commit(repo), "config.json"))
          else "blobs %s" % os.listdir(blobs))
    check("... every blob there holds the bytes its name says", lambda: whole_blobs_honest(c, repo))
    HUB.reset()
    r = pull(repo, c)
    check("config.json corrupted, then a good hub: the rerun completes",
          lambda: verify_snapshot(c, repo, MARIAN_FILES) if r.rc == 0 else repr(r))


if __name__ == "__main__":
    try:
        main()
    finally:
        if TMP:
            shutil.rmtree(TMP, ignore_errors=True)
    sys.exit(done())

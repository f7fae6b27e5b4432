"""The hub's cache and wire protocol checked with a client no one here wrote: the official
JavaScript client @huggingface/hub (pinned in tests/hub/package.json and package-lock.json,
installed by `sh tools/setup.sh --test`, i.e. `npm ci --prefix tests/hub`), driven through
tests/hub/js_client.mjs against tests/hub/local_hub.py on 127.0.0.1.

  - the JS client speaks to local_hub.py as to the hub (model info, tree, paths-info, resolve
    with Range: bytes=0-0, the LFS redirect), a gated repo with its token: it sends the token
    to the hub's port only;
  - JS -> xlate: snapshotDownload fills a cache (refs/main, snapshots, blobs); then
    `xlate -m ORG/NAME` with HF_HUB_OFFLINE=1 translates exactly as `xlate -m SERVED_DIR`, with
    no request to the hub; `xlate pull` on that cache fetches no file again;
  - xlate -> JS: after `xlate pull`, scanCacheDir sees one valid, complete repo (no warnings;
    its revision is the commit, refs [main], the needed files with the served sizes, each blob
    named by its etag), and downloadFileToCacheDir at that commit returns the cached paths with
    no request reaching the hub (the hub's log); at `main` it asks paths-info only and fetches
    no file.
Without node or tests/hub/node_modules the test is skipped outside CI; under CI=true a missing
client fails. Run by tests/run.sh with env XLATE and Debian's /usr/bin/python3.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tests", "hub"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, done, not_ok, ok  # noqa: E402
from local_hub import LocalHub  # noqa: E402
import test_hub as H  # noqa: E402  (its helpers: hashes, the layout's oracle, xlate runs)

HUBDIR = os.path.join(TOP, "tests", "hub")
JS = os.path.join(HUBDIR, "js_client.mjs")
REPO = "org/opus-js"
FILES = H.MARIAN_FILES


def js(*args, token=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    if token:
        env["HF_TOKEN"] = token
    p = subprocess.run(["node", JS] + list(args), cwd=HUBDIR, env=env, capture_output=True, timeout=H.GUARD)
    if p.returncode != 0:
        raise RuntimeError("node js_client.mjs %s: exit %d: %s" % (args[0], p.returncode, p.stderr.decode()[-800:]))
    return json.loads(p.stdout.decode().strip().split("\n")[-1])


def client_missing():
    if shutil.which("node") is None:
        return "node is not installed (sh tools/setup.sh --test)"
    if not os.path.isfile(os.path.join(HUBDIR, "node_modules", "@huggingface", "hub", "package.json")):
        return "tests/hub/node_modules lacks @huggingface/hub (npm ci --prefix tests/hub)"
    return None


def main():
    if os.environ.get("XLATE_FORCE_ISA") == "generic":
        # as test_hub.py: the JS client's cache and xlate's, no vector code (about 11 s again)
        ok("the JS client's interop with xlate's cache: skipped under XLATE_FORCE_ISA=generic "
           "(no vector code: the default run's checks again)")
        return done()
    why = client_missing()
    if why:
        if os.environ.get("CI") == "true":
            not_ok("the JS client @huggingface/hub", why)
        else:
            print("ok - the JS client's interop with xlate's cache # SKIP %s" % why)
        return
    H.TMP = tempfile.mkdtemp(prefix="xlate-test-hub-js-")
    try:
        src = os.path.join(H.TMP, "src", "marian")
        subprocess.run([sys.executable, os.path.join(TOP, "tools", "make_marian.py"), src] + H.SMALL,
                       check=True, capture_output=True)
        d = os.path.join(H.TMP, "repos", "opus-js")
        shutil.copytree(src, d)
        H.add_extras(d)  # the JS client fetches them all; xlate reads what it needs
        H.SOURCES[REPO] = d
        H.HUB = LocalHub({REPO: d}, gated=[REPO], tokens=[H.TOKEN])
        try:
            tests(H.HUB)
        finally:
            H.HUB.stop()
    finally:
        shutil.rmtree(H.TMP, ignore_errors=True)


def tests(hub):
    commit = hub.commit(REPO)
    served = hub.files(REPO)
    want = H.translate(H.SOURCES[REPO], None)
    check("oracle: xlate -m SERVED_DIR translates", lambda: None if want.rc == 0 and want.out.strip() else repr(want))

    # JS -> xlate
    c1 = H.new_cache("js")
    hub.reset()
    got = js("snapshot", hub.endpoint, c1, REPO, token=H.TOKEN)
    log = hub.log()
    snap = os.path.join(H.repo_dir(c1, REPO), "snapshots", commit)
    check("JS snapshotDownload from local_hub.py: the snapshot at the hub's commit",
          lambda: None if got["snapshot"] == snap else "got %s, expected %s" % (got["snapshot"], snap))
    check("JS snapshotDownload: every served file, byte for byte, through the LFS redirect",
          lambda: None if all(H.file_hash(os.path.join(snap, p), "sha256") == served[p]["sha256"] for p in served)
          and any(e["port"] == "lfs" for e in log) else "files differ or no LFS request")
    check("JS client: its token went to the hub's port only",
          lambda: None if all(e["auth"] == ("valid" if e["port"] == "hub" else "none") for e in log)
          else [(e["port"], e["path"], e["auth"]) for e in log if e["auth"] != ("valid" if e["port"] == "hub" else "none")])
    check("JS client's cache: huggingface_hub's layout, every served file",
          lambda: H.verify_snapshot(c1, REPO, set(served)))
    hub.reset()
    g = H.translate(REPO, c1, HF_HUB_OFFLINE="1")
    check("xlate -m %s offline on the JS client's cache translates as -m SERVED_DIR" % REPO,
          lambda: None if g.rc == 0 and g.out == want.out else "%r %r, want %r" % (g, g.out, want.out))
    check("... with no request to the hub", lambda: None if not hub.log() else [e["path"] for e in hub.log()])
    hub.reset()
    r = H.pull(REPO, c1, HF_TOKEN=H.TOKEN)
    bodies = [e["path"] for e in hub.log() if e["port"] == "lfs" or
              (e["method"] == "GET" and "/resolve/" in e["path"] and e["status"] in (200, 206))]
    check("xlate pull on the JS client's cache: exit 0, no file fetched again",
          lambda: None if r.rc == 0 and r.out.strip() == snap and not bodies else "%r; fetched %s" % (r, bodies))

    # xlate -> JS
    c2 = H.new_cache("xlate")
    hub.reset()
    r = H.pull(REPO, c2, HF_TOKEN=H.TOKEN)
    check("xlate pull %s" % REPO, lambda: H.verify_snapshot(c2, REPO, FILES) if r.rc == 0 else repr(r))

    def scan_ok():
        scan = js("scan", c2)
        repos = scan["repos"]
        if scan["warnings"]:
            return "warnings: %s" % scan["warnings"]
        if len(repos) != 1 or repos[0]["id"] != {"name": REPO, "type": "model"}:
            return "repos %s" % [x["id"] for x in repos]
        revs = repos[0]["revisions"]
        if len(revs) != 1 or revs[0]["commitOid"] != commit or revs[0]["refs"] != ["main"]:
            return "revisions %s" % [(v["commitOid"], v["refs"]) for v in revs]
        files = {os.path.basename(f["path"]): f for f in revs[0]["files"]}
        if set(files) != FILES:
            return "files %s" % sorted(files)
        for p, f in files.items():
            if f["size"] != served[p]["size"]:
                return "%s: size %d, served %d" % (p, f["size"], served[p]["size"])
            if os.path.basename(f["blobPath"]) != H.etag_of(REPO, p):
                return "%s: blob %s, etag %s" % (p, f["blobPath"], H.etag_of(REPO, p))
        total = sum(served[p]["size"] for p in FILES)
        if repos[0]["size"] != total or revs[0]["size"] != total or repos[0]["filesCount"] != len(FILES):
            return "sizes %d %d, files %d; expected %d, %d" % (repos[0]["size"], revs[0]["size"],
                                                               repos[0]["filesCount"], total, len(FILES))
        return None
    check("JS scanCacheDir of xlate's cache: one valid, complete repo (commit, refs, files, sizes, blobs)", scan_ok)
    names = sorted(FILES)
    snap = os.path.join(H.repo_dir(c2, REPO), "snapshots", commit)

    def cached_at_commit():
        hub.reset()
        got = js("cached", hub.endpoint, c2, REPO, commit, *names, token=H.TOKEN)
        if got["paths"] != [os.path.join(snap, n) for n in names]:
            return "got %s" % got["paths"]
        return "requests reached the hub: %s" % [e["path"] for e in hub.log()] if hub.log() else None
    check("JS downloadFileToCacheDir at the commit: the cached paths, no request reaching the hub", cached_at_commit)

    def cached_at_main():
        hub.reset()
        got = js("cached", hub.endpoint, c2, REPO, "main", "model.safetensors", token=H.TOKEN)
        log = hub.log()
        if got["paths"] != [os.path.join(snap, "model.safetensors")] or \
                not all("/paths-info/" in e["path"] for e in log):
            return "got %s; requests %s" % (got, [e["path"] for e in log])
        return None
    check("JS downloadFileToCacheDir at main: the cached path, paths-info asked, no file fetched", cached_at_main)


if __name__ == "__main__":
    main()
    sys.exit(done())

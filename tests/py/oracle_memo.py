"""oracle_memo.py — the results of the PyTorch and sentencepiece oracles kept on disk between
runs of the suite (CI runs it whole twice, default and make sanitize, and its number tests a
third time under XLATE_FORCE_ISA=generic; the oracle's answers are the same each time, only
xlate's side changes).

    import oracle_memo as OM
    want = OM.cached("what", [inputs, options], lambda: compute(...), files=[model files])
    OM.make_model(d, [sys.executable, "tools/make_marian.py", d, "--seed", "3"])

Only what an oracle computes goes in (PyTorch, sentencepiece, the tools/ that drive them), never
anything xlate printed: a test still runs xlate every time and compares it with the value.

The key of a value is the SHA-256 of: its name and inputs (JSON); the bytes of every file it
names (the model); the source of every tools/*.py, of the calling test and of this file; the
Python version; torch's and sentencepiece's versions with the path, size and mtime of every file
of their packages (an upgrade rewrites them) and of the spm_train binary. A changed reference,
model, input, option or library therefore misses and computes afresh; nothing is ever looked
up by name alone.

Where: $TEST_ORACLE_MEMO, else build/oracle-memo/ in the checkout (git ignores /build/);
TEST_ORACLE_MEMO=off computes everything. Values are JSON files written to a temporary name
and renamed, so tests running side by side never read half a value. Clear it with
`rm -rf build/oracle-memo` (make clean does too)."""
import hashlib
import json
import os
import shutil
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_env = {}


def where():
    """The memo's directory, or None when it is off."""
    d = os.environ.get("TEST_ORACLE_MEMO", os.path.join(TOP, "build", "oracle-memo"))
    return None if d == "off" else d


def _package_stats(mod):
    """(path, size, mtime_ns) of every file of an imported package's directory."""
    base = os.path.dirname(os.path.abspath(mod.__file__))
    out = []
    for root, dirs, files in os.walk(base):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(".pyc"):
                continue
            p = os.path.join(root, f)
            try:
                st = os.stat(p)
            except OSError:
                continue
            out.append((p, st.st_size, st.st_mtime_ns))
    return out


def _environment():
    """The part of every key that names the code: tools/*.py, this file, the libraries."""
    if "h" not in _env:
        import sentencepiece
        import torch
        h = hashlib.sha256()
        tools = os.path.join(TOP, "tools")
        # each file by its name in the checkout, never its absolute path, so that a clone
        # elsewhere shares the memo (CI's first run is a bare clone's: with this file's
        # absolute path in the key, the second run, in the checkout, computed every value again)
        mine = os.path.relpath(os.path.abspath(__file__), TOP)
        for f, p in [(f, os.path.join(tools, f)) for f in sorted(os.listdir(tools))] + \
                [(mine, os.path.abspath(__file__))]:
            if p.endswith(".py") and os.path.isfile(p):
                h.update(f.encode() + b"\0" + open(p, "rb").read() + b"\0")
        spm_train = shutil.which("spm_train")
        st = os.stat(spm_train) if spm_train else None
        h.update(json.dumps([sys.version, torch.__version__,
                             getattr(sentencepiece, "__version__", ""),
                             _package_stats(torch), _package_stats(sentencepiece),
                             [spm_train, st.st_size, st.st_mtime_ns] if st else None]).encode())
        _env["h"] = h.hexdigest()
    return _env["h"]


def _file_hash(p, cache={}):  # noqa: B006 (one process's cache of file digests)
    st = os.stat(p)
    k = (os.path.abspath(p), st.st_size, st.st_mtime_ns)
    if k not in cache:
        h = hashlib.sha256()
        with open(p, "rb") as f:
            for b in iter(lambda: f.read(1 << 20), b""):
                h.update(b)
        cache[k] = h.hexdigest()
    return cache[k]


def dir_files(d):
    """The files of a model directory, for `files`."""
    return [os.path.join(d, f) for f in sorted(os.listdir(d))
            if os.path.isfile(os.path.join(d, f))]


def key(what, inputs, files=(), caller=None):
    h = hashlib.sha256()
    h.update(_environment().encode())
    if caller:
        h.update(open(caller, "rb").read())
    h.update(json.dumps([what, inputs], sort_keys=True).encode())
    for p in files:
        h.update(os.path.basename(p).encode() + b"\0" + _file_hash(p).encode())
    return h.hexdigest()


def _caller():
    # (sys._getframe, not inspect.stack(): that reads the source lines of every frame on the
    # stack, 70 ms a call under torch's frames, 14 s of test_decode_opts's 196 values)
    return os.path.abspath(sys._getframe(2).f_code.co_filename)


def _put(path, write):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = tempfile.mkdtemp(dir=os.path.dirname(path), prefix=".tmp-")
    try:
        final = write(tmp)
        os.replace(final, path)
    except OSError:
        pass  # another test wrote it first, or the disk is full: the value is still returned
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def cached(what, inputs, compute, files=()):
    """compute()'s value (JSON: lists, dicts, str, int, float, bool; tuples come back as
    lists), from the memo when the same key was computed before."""
    d = where()
    if d is None:
        return compute()
    path = os.path.join(d, "values", key(what, inputs, files, _caller()) + ".json")
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)["value"]
    except (OSError, ValueError, KeyError):
        pass
    value = compute()

    def write(tmp):
        p = os.path.join(tmp, "v.json")
        with open(p, "w", encoding="utf-8") as f:
            json.dump({"what": what, "value": value}, f)
        return p
    _put(path, write)
    return json.loads(json.dumps(value))  # what a hit would return (tuples as lists)


def make_model(outdir, cmd, inputs=()):
    """Runs cmd (a tools/make_*.py writing the model directory outdir, outdir one of its
    arguments) unless the memo has its files: copies them into outdir. The key: cmd with outdir
    written as OUT, the files `inputs` (the text its tokenizer is trained on), the code."""
    d = where()
    data = os.path.join(TOP, "tests", "data", "multi30k")
    inputs = list(inputs) or [os.path.join(data, f) for f in ("val.en", "val.de")]
    if d is None:
        import subprocess
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return
    # the command as it reads in any checkout: OUT for outdir, paths in the checkout relative
    k = key("make_model", ["OUT" if c == outdir else os.path.relpath(c, TOP)
                           if c.startswith(TOP + os.sep) else c for c in cmd[1:]],
            inputs, _caller())
    path = os.path.join(d, "models", k)
    if not os.path.isdir(path):
        import subprocess
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def write(tmp):
            p = os.path.join(tmp, "m")
            shutil.copytree(outdir, p)
            return p
        _put(path, write)
        return
    os.makedirs(outdir, exist_ok=True)
    for f in os.listdir(path):
        shutil.copy(os.path.join(path, f), os.path.join(outdir, f))

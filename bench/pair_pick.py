#!/usr/bin/python3
"""pair_pick.py — what choosing a model by language pair costs (issue 35): `xlate --source-lang
S --target-lang T` without -m scans the hub cache and reads each cached model's languages
(src/hub/hub_pair.c, hub_scan.c). This builds a hub cache (huggingface_hub's layout: blobs,
snapshot links, refs/main) holding an NLLB-200-shaped model with a full-size tokenizer
(sentencepiece.bpe.model of 256,000 pieces, 4.6 MB, as facebook/nllb-200-distilled-600M's
4.85 MB; the 202 language codes; tiny weights, which the pick never reads) and four
OPUS-MT-shaped ones (vocab.json of 58,101 entries and 8,000-piece source.spm / target.spm, as
Helsinki-NLP/opus-mt-en-de's 1.3 MB vocab.json), then times, median of --reps runs each:

  empty cache             xlate --source-lang xx --target-lang yy   (process start, the default
                          model's probe: the baseline)
  the cache, no model     the same pair: every model's languages read, none serves it
  the cache, NLLB picked  --source-lang fr --target-lang it: every model read, NLLB chosen
                          (the run then loads and translates; only the message is waited for)

    /usr/bin/python3 bench/pair_pick.py [--xlate ./xlate] [--reps 15] [--keep DIR]

The per-model figure is (cache - empty) / 5. Figures: docs/MODELS.md "Picking a model by
language pair".
"""
import argparse
import hashlib
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tests", "py"))
from protobuf_wire import varint, enc_varint  # noqa: E402
SMALL = ["--d", "16", "--layers", "1", "--heads", "2", "--ffn", "32"]


# ---- a full-size sentencepiece model: the small one's pieces, then made-up ones ----

def top_fields(b):
    """ModelProto's top-level fields as (number, raw bytes of the whole field)"""
    i, out = 0, []
    while i < len(b):
        start = i
        key, i = varint(b, i)
        wt = key & 7
        if wt == 2:
            n, i = varint(b, i)
            i += n
        elif wt == 0:
            _, i = varint(b, i)
        elif wt == 5:
            i += 4
        elif wt == 1:
            i += 8
        else:
            raise ValueError("wire type %d" % wt)
        out.append((key >> 3, b[start:i]))
    return out


def piece_text_score(raw):
    """(text, score) of one serialized `pieces` field"""
    _, i = varint(raw, 0)
    n, i = varint(raw, i)
    sub, j, text, score = raw[i:i + n], 0, b"", 0.0
    while j < len(sub):
        key, j = varint(sub, j)
        if key >> 3 == 1 and key & 7 == 2:
            m, j = varint(sub, j)
            text = sub[j:j + m]
            j += m
        elif key >> 3 == 2 and key & 7 == 5:
            score = struct.unpack("<f", sub[j:j + 4])[0]
            j += 4
        elif key & 7 == 0:
            _, j = varint(sub, j)
        else:
            raise ValueError("piece field %d" % (key >> 3))
    return text, score


def enlarge_spm(path, total):
    b = open(path, "rb").read()
    fields = top_fields(b)
    pieces = [raw for num, raw in fields if num == 1]
    rest = [raw for num, raw in fields if num != 1]
    have = set()
    low = 0.0
    for raw in pieces:
        t, s = piece_text_score(raw)
        have.add(t)
        low = min(low, s)
    letters = "abcdefghijklmnopqrstuvwxyz"
    new = []
    k = 0
    while len(pieces) + len(new) < total:
        n, word = k, ""
        for _ in range(4):
            word += letters[n % 26]
            n //= 26
        k += 1
        t = ("\u2581" + word if k % 2 else word).encode()
        if t in have:
            continue
        have.add(t)
        low -= 1.0
        sub = b"\x0a" + enc_varint(len(t)) + t + b"\x15" + struct.pack("<f", low)
        new.append(b"\x0a" + enc_varint(len(sub)) + sub)
    with open(path, "wb") as f:
        f.write(b"".join(pieces) + b"".join(new) + b"".join(rest))
    return len(pieces) + len(new)


# ---- a hub cache ----

def add_to_cache(cache, repo, src):
    rd = os.path.join(cache, "models--" + repo.replace("/", "--"))
    commit = hashlib.sha1(repo.encode()).hexdigest()
    snap = os.path.join(rd, "snapshots", commit)
    os.makedirs(os.path.join(rd, "blobs"), exist_ok=True)
    os.makedirs(snap, exist_ok=True)
    os.makedirs(os.path.join(rd, "refs"), exist_ok=True)
    for name in sorted(os.listdir(src)):
        data = open(os.path.join(src, name), "rb").read()
        tag = hashlib.sha256(data).hexdigest()
        with open(os.path.join(rd, "blobs", tag), "wb") as f:
            f.write(data)
        os.symlink("../../blobs/" + tag, os.path.join(snap, name))
    with open(os.path.join(rd, "refs", "main"), "w") as f:
        f.write(commit)


def build(d):
    nllb, opus = os.path.join(d, "nllb"), os.path.join(d, "opus")
    subprocess.run([sys.executable, os.path.join(TOP, "tools", "make_m2m100.py"), nllb, "--vocab-size", "256206",
                    "--no-center"] + SMALL, check=True, capture_output=True)
    n = enlarge_spm(os.path.join(nllb, "sentencepiece.bpe.model"), 256000)
    subprocess.run([sys.executable, os.path.join(TOP, "tools", "make_marian.py"), opus, "--vocab-size", "58101",
                    "--spm-vocab", "8000", "--no-center"] + SMALL, check=True, capture_output=True)
    cache = os.path.join(d, "cache")
    add_to_cache(cache, "facebook/nllb-200-distilled-600M", nllb)
    for pair in ("en-de", "en-fr", "de-en", "en-es"):
        add_to_cache(cache, "Helsinki-NLP/opus-mt-" + pair, opus)
    print("NLLB sentencepiece.bpe.model: %d pieces, %.2f MB; OPUS-MT vocab.json %.2f MB, source.spm %.2f MB"
          % (n, os.path.getsize(os.path.join(nllb, "sentencepiece.bpe.model")) / 1e6,
             os.path.getsize(os.path.join(opus, "vocab.json")) / 1e6,
             os.path.getsize(os.path.join(opus, "source.spm")) / 1e6))
    return cache


def timed(xlate, cache, src, tgt, reps, until=None):
    """median seconds of `xlate --source-lang src --target-lang tgt` (to the line `until` on
    stderr, else to the exit)"""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "XLATE_MODEL"))}
    env.update(HF_HUB_CACHE=cache, HF_HUB_OFFLINE="1")
    out = []
    for _ in range(reps):
        t0 = time.monotonic()
        p = subprocess.Popen([xlate, "--source-lang", src, "--target-lang", tgt, "Hello."], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if until:
            line = p.stderr.readline()
            out.append(time.monotonic() - t0)
            if until not in line:
                sys.exit("expected %r on stderr, got %r" % (until, line))
            p.kill()
            p.wait()
        else:
            err = p.stderr.read()
            p.wait()
            out.append(time.monotonic() - t0)
            if p.returncode != 2:
                sys.exit("expected exit 2, got %d: %s" % (p.returncode, err))
    return statistics.median(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--xlate", default=os.path.join(TOP, "xlate"))
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--keep", help="build the cache here and keep it")
    a = ap.parse_args()
    d = a.keep or tempfile.mkdtemp(prefix="xlate-bench-pair-")
    try:
        cache = os.path.join(d, "cache")
        if not os.path.isdir(cache):
            cache = build(d)
        empty = os.path.join(d, "empty")
        os.makedirs(empty, exist_ok=True)
        t0 = timed(a.xlate, empty, "xx", "yy", a.reps)
        t1 = timed(a.xlate, cache, "xx", "yy", a.reps)
        t2 = timed(a.xlate, cache, "fr", "it", a.reps, until="nllb-200")
        print("empty cache, no model:      %.1f ms" % (t0 * 1e3))
        print("5 models, none serves:      %.1f ms  (%.1f ms a model)" % (t1 * 1e3, (t1 - t0) * 1e3 / 5))
        print("5 models, NLLB picked (msg): %.1f ms" % (t2 * 1e3))
    finally:
        if not a.keep:
            shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()

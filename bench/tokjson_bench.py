#!/usr/bin/env python3
"""tokjson_bench.py — loading an NLLB-200 tokenizer whose added tokens come from tokenizer.json
(tokenizer_config.json without added_tokens_decoder: transformers' legacy branch), with a
tokenizer.json of NLLB's real shape and size: the 207 added tokens first (the four specials,
202 language codes, <mask>), then a "model" of a 256,204-entry vocabulary and 250,000 merges
(~17 MB, as facebook/nllb-200-distilled-600M's). The rest of the directory is a small random
NLLB model (tools/make_m2m100.py): what is timed is the tokenizer's load.

Runs `xlate encode -m DIR` on one line, REPS times for each binary given, and prints each one's
median wall time and peak RSS (the child's ru_maxrss), and the ratios to the first binary.

  python3 bench/tokjson_bench.py [--reps N] [--last] XLATE [XLATE2 ...]
  e.g. python3 bench/tokjson_bench.py /work/main/build/xlate build/xlate   (before, after)
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def make_dir(tmp, last):
    d = os.path.join(tmp, "nllb")
    subprocess.run([sys.executable, os.path.join(TOP, "tools", "make_m2m100.py"), d, "--seed",
                    "3"], check=True, stderr=subprocess.DEVNULL)
    cfg = json.load(open(os.path.join(d, "tokenizer_config.json")))
    codes = cfg["additional_special_tokens"]
    vocab_size = json.load(open(os.path.join(d, "config.json")))["vocab_size"]
    added = [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True}
             for i, t in enumerate(["<s>", "<pad>", "</s>", "<unk>"])]
    first = vocab_size - len(codes) - 1
    added += [{"id": first + k, "content": c, "single_word": False, "lstrip": False,
               "rstrip": False, "normalized": False, "special": True}
              for k, c in enumerate(codes)]
    added.append({"id": first + len(codes), "content": "<mask>", "single_word": False,
                  "lstrip": True, "rstrip": False, "normalized": True, "special": True})
    # the model section: NLLB's tokenizer.json is a BPE model of 256,204 pieces and their merges
    vocab = {f"\u2581tok{i:06d}" if i % 3 else f"pc{i:06d}": i for i in range(256204)}
    merges = [f"\u2581tok{i:05d} pc{i:05d}" for i in range(250000)]
    tj = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
          "normalizer": {"type": "Sequence", "normalizers": [
              {"type": "Precompiled", "precompiled_charsmap": "A" * 300000},
              {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]},
          "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581",
                            "add_prefix_space": True},
          "post_processor": None, "decoder": {"type": "Metaspace", "replacement": "\u2581",
                                              "add_prefix_space": True},
          "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>",
                    "continuing_subword_prefix": None, "end_of_word_suffix": None,
                    "fuse_unk": True, "byte_fallback": False, "vocab": vocab, "merges": merges}}
    if last:  # the worst case for the skim: the member after the model, every byte read
        tj["added_tokens"] = tj.pop("added_tokens")
    with open(os.path.join(d, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tj, f, ensure_ascii=False, indent=2)
    return d


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("xlate", nargs="+")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--last", action="store_true",
                    help="added_tokens written after the model (not NLLB's order)")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="xlate_tokjson_")
    try:
        d = make_dir(tmp, a.last)
        size = os.path.getsize(os.path.join(d, "tokenizer.json"))
        print(f"tokenizer.json: {size / 1e6:.1f} MB, added_tokens (207) "
              f"{'after' if a.last else 'before'} a model of 256,204 pieces and 250,000 merges")
        rows, outs = [], []
        for x in a.xlate:
            walls, peaks = [], []
            for _ in range(a.reps):
                # each child's peak RSS: run it under a fresh python so RUSAGE_CHILDREN is its own
                code = ("import resource,subprocess,sys,time;t=time.perf_counter();"
                        "p=subprocess.run([sys.argv[1],'encode','-m',sys.argv[2]],"
                        "input=b'A dog runs eng_Latn.\\n',capture_output=True);"
                        "w=time.perf_counter()-t;"
                        "r=resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss;"
                        "sys.stdout.write('%d %.6f %d\\n'%(p.returncode,w,r));"
                        "sys.stdout.write(p.stdout.decode()+p.stderr.decode())")
                o = subprocess.run([sys.executable, "-c", code, x, d], capture_output=True,
                                   text=True).stdout.split("\n", 1)
                rc, w, r = o[0].split()
                if rc != "0":
                    raise RuntimeError(f"{x}: exit {rc}: {o[1]}")
                walls.append(float(w))
                peaks.append(int(r))
                outs.append((x, o[1]))
            rows.append((x, statistics.median(walls), max(peaks)))
        base = rows[0]
        for x, w, r in rows:
            print(f"{x}: load + encode one line: median {w * 1000:.1f} ms of {a.reps}, "
                  f"peak RSS {r / 1024:.1f} MB; ratio to the first: time {w / base[1]:.3f}, "
                  f"RSS {r / base[2]:.3f}")
        if len({o for _, o in outs}) != 1:
            print("the binaries' ids differ:", {x: o for x, o in outs})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    main()

#!/usr/bin/python3
"""beam_bench.py — beam search at OPUS-MT size, xlate beside CTranslate2 in the same run (issue
25; `make bench` runs it after marian_bench.py's greedy part; see README.md here).

The model: bench/opus_shape.py's random model of opus-mt-en-de's shape (d 512, 8 heads, FFN
2048, 6 + 6 layers, vocabulary 58,101, tied output), f16 file, made once into
build/opus-shape-f16; CTranslate2 gets the same weights (bench/ct2_translate.py converts them).
Input: the first --sentences lines of Multi30k test_2016_flickr.en as ids of models/en-de's
SentencePiece model (all below 58,101). 2 threads, f32 and int8, batch 1 and 32, beam 4 and 5.

Stop rules. "same rule": both engines run exactly --length steps per sentence (xlate --min-length L
--max-length L; CTranslate2 min/max_decoding_length L), so both do the same work, like for like.
"own rule" (--own-rule-beams, default 4): only the bound L is shared, each engine stops by its
own rule. For a model in xlate's own format xlate's rule is "K hypotheses finished", which is
CTranslate2's with its default length_penalty 1 (transformers' early_stopping semantics apply to
Hugging Face directories only); a random model never picks eos, so there both run L steps: the
steps columns show it. Point --dir at a trained model to see the rules differ.

Per row: tokens/s of each engine's own translate time (eos not counted: L a sentence under the
same rule), decoder steps per sentence (xlate: from `-v`'s "decoder: S steps, R rows", a
sentence's first step is one row and each later one K rows, so steps = n + (R - n) / K;
CTranslate2: the longest of its K finished hypotheses, bench/ct2_translate.py), the ratio, and
lines whose best hypothesis is identical in both. Greedy is checked first: ids must be equal
(f32; int8 quantizes differently in each engine, so only counted).

Where a step goes: xlate -v's wall-time split of the same-rule runs above, at their thread
count: the encoder; the decoder layers' attention (-v's "of the decoder layers, attention":
self and cross, the cache's writes, the heads' average) and the rest of the layers (their
products, norms and residuals); the output projection; the search and batching (log-softmax and
top-k of every row, the beam's ranking, the bookkeeping: what is left of the translate time).
These are timers around the parts in xlate itself. (Until 2026-11-27 the attention and the
log-softmax + top-k shares came from `perf record --call-graph dwarf` at 1 thread; its unwinding
stopped one to three frames above the leaf, so the search's leaves (simd.c's max and exp sums,
top_insert) were counted as "the rest" and batch 1's runs ended inside perf's start delay: the
table said 0% and "-" where -v measures 4% and more.)

Distance from the limit: the projection's FLOP/s (2 x rows x 512 x 58,101 over -v's projection
time) against the peak of its instruction on the same threads (bench/peak.c: f32 FMA, int8
vpdpwssd), and the bytes of its weights read per step (58,101 x 512 x the bytes of a packed
weight as -v names the projection's panels: 4 f32, 2 f16, 1 int8) against the rate the cores
read a buffer that size.

    /usr/bin/python3 bench/beam_bench.py [--xlate ./xlate --xlate OTHER] [--sentences 100]
        [--length 24] [--compute-types f32,int8] [--batches 1,32] [--beams 4,5] [--no-ct2]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = "/usr/bin/python3"
CT2 = os.path.join(TOP, "bench", "ct2_translate.py")
D, V = 512, 58101


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def loadavg():
    return open("/proc/loadavg").read().split()[0]


def cpu_model():
    """/proc/cpuinfo's model name, family and model, and the vector extensions that matter."""
    f = {}
    for line in open("/proc/cpuinfo"):
        k, _, v = line.partition(":")
        f.setdefault(k.strip(), v.strip())
    flags = set(f.get("flags", "").split())
    isa = [x for x in ("avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16", "f16c")
           if x in flags]
    return (f"{f.get('model name', 'unknown')} (family {f.get('cpu family', '?')}, model "
            f"{f.get('model', '?')}; {', '.join(isa)}; {os.cpu_count()} cores)")


def ct2_version():
    """(version, None) when `import ctranslate2` works, else (None, the reason)."""
    p = subprocess.run([PY, "-c", "import ctranslate2; print(ctranslate2.__version__)"],
                       capture_output=True, text=True)
    if p.returncode:
        return None, (p.stderr.strip().splitlines() or ["import failed"])[-1]
    return p.stdout.strip(), None


def run_xlate(exe, a, ids, out, ct, B, K, threads, fixed, env=None, prefix=()):
    cmd = list(prefix) + [exe, "-v", "-q", "-m", a.dir, "--threads", str(threads),
                          "--batch-size", str(B), "--beam-size", str(K), "--compute-type", ct,
                          "--max-length", str(a.length), "--input-format", "ids",
                          "--output-format", "ids", "-i", ids, "-o", out]
    if fixed:
        cmd[-6:-6] = ["--min-length", str(a.length)]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode:
        raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()[-400:]}")
    e = p.stderr
    r = {"tokens": int(re.search(r"(\d+) target tokens", e).group(1)),
         "sentences": int(re.search(r"(\d+) sentences translated", e).group(1)),
         "translate": float(re.search(r"translate ([0-9.]+) s, total", e).group(1))}
    m = re.search(r"encoder ([0-9.]+) s, decoder layers ([0-9.]+) s, output projection "
                  r"([0-9.]+) s \(\d+%\), search and batching ([0-9.]+) s", e)
    r["split"] = [float(x) for x in m.groups()] if m else None
    m = re.search(r"of the decoder layers, attention ([0-9.]+) s", e)
    r["attention"] = float(m.group(1)) if m else None
    # the projection's panels: an f16 file stays f16 under f32 arithmetic (2 bytes a weight)
    m = re.search(r"output projection packed, (f32|f16|bf16|int8) ", e)
    r["out_bytes"] = {"f32": 4, "f16": 2, "bf16": 2, "int8": 1}[m.group(1)] if m else None
    m = re.search(r"decoder: (\d+) steps, (\d+) rows", e)
    if m:  # a sentence's first step is one row, each later one K rows (module docstring)
        r["steps"], r["rows"] = int(m.group(1)), int(m.group(2))
        n = r["sentences"]
        r["sent_steps"] = (n + (r["rows"] - n) / K) / n if n else 0.0
    else:
        r["steps"] = r["rows"] = r["sent_steps"] = None
    return r


def run_ct2(a, ids, out, ct, B, K, fixed):
    cmd = [PY, CT2, "--model", a.dir, "--compute-type", ct, "--threads", str(a.threads),
           "--batch-size", str(B), "--beam-size", str(K), "--max-length", str(a.length),
           "-i", ids, "-o", out]
    if fixed:
        cmd += ["--min-length", str(a.length)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()[-400:]}")
    j = json.loads(p.stderr.strip().splitlines()[-1])
    return {"tokens": j["tokens"], "sentences": j["sentences"], "translate": j["translate_s"],
            "sent_steps": j["steps"] / j["sentences"] if j["sentences"] else 0.0,
            "unequal": j.get("unequal_bound_batches", 0)}


def same_lines(p, q):
    with open(p) as f, open(q) as g:
        a, b = f.read().splitlines(), g.read().splitlines()
    return sum(x == y for x, y in zip(a, b)), len(a)


def best(runs):
    return min(runs, key=lambda r: r["translate"])


def useful_macs(cfg, src_lens, L, K):
    """Multiply-adds a same-rule run must do (padding and finished rows not counted): sentence
    i's source has src_lens[i] tokens (eos counted), and it makes exactly L steps, one row at
    the first and K at each later one (the row at position t attends to t + 1 positions of its
    own and to the source). Per source token: each encoder layer's q, k, v, o and FFN (4d^2 +
    2 d F) and its attention over the S tokens (2 S d: q.k and p.v over every head), then every
    decoder layer's cross-attention keys and values (2 d^2). Per decoder row: each layer's
    self q, k, v, o and cross q, o (6 d^2), FFN (2 d F), attention 2 d (t + 1 + S), and the
    output projection d V."""
    d, F, V_ = cfg["d_model"], cfg["ffn_dim"], cfg["tgt_vocab_size"]
    Le, Ld = cfg["encoder_layers"], cfg["decoder_layers"]
    rows = 1 + (L - 1) * K
    total = 0
    for S in src_lens:
        total += S * Le * (4 * d * d + 2 * d * F) + Le * 2 * S * S * d + S * Ld * 2 * d * d
        total += rows * (Ld * (6 * d * d + 2 * d * F) + d * V_)
        positions = (1 + S) + K * sum(t + 1 + S for t in range(1, L))
        total += Ld * 2 * d * positions
    return total, rows * len(src_lens)


def peaks(threads, nbytes):
    exe = os.path.join(TOP, "build", "peak")
    src = os.path.join(TOP, "bench", "peak.c")
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        subprocess.run(["cc", "-O2", "-pthread", "-o", exe, src], check=True)
    p = subprocess.run([exe, str(threads), str(nbytes)], capture_output=True, text=True)
    return json.loads(p.stdout) if p.returncode == 0 else None


def kernels_line(exe, a, ids, ct, tmp):
    """xlate -v's line naming the compute type and the kernels it ran."""
    p = subprocess.run([exe, "-v", "-q", "-m", a.dir, "--threads", str(a.threads),
                        "--compute-type", ct, "--max-length", "2", "--input-format", "ids",
                        "--output-format", "ids", "-i", ids, "-o", os.path.join(tmp, "k.ids")],
                       capture_output=True, text=True)
    m = re.search(r"xlate: (compute type [^\n]*)", p.stderr)
    return m.group(1) if m else f"(xlate -v said nothing about kernels: exit {p.returncode})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--xlate", action="append", default=[],
                    help="an xlate binary (repeat to compare builds; default ./xlate)")
    ap.add_argument("--dir", default=os.path.join(TOP, "build", "opus-shape-f16"))
    ap.add_argument("--sentences", type=int, default=100)
    ap.add_argument("--batch1-sentences", type=int, default=25,
                    help="batch 1 runs translate the first N of them (CTranslate2's batch 1 "
                    "is slow: a rate needs fewer sentences)")
    ap.add_argument("--length", type=int, default=24, help="L: decoder steps per sentence")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--compute-types", default="f32,int8")
    ap.add_argument("--batches", default="1,32")
    ap.add_argument("--beams", default="4,5")
    ap.add_argument("--own-rule-beams", default="4",
                    help="beam sizes that also get the own-rule rows ('' for none)")
    ap.add_argument("--runs", type=int, default=1, help="best of N")
    ap.add_argument("--no-ct2", action="store_true")
    ap.add_argument("--no-profile", action="store_true",
                    help="accepted and ignored: the split comes from -v's timers of every run")
    ap.add_argument("--json", default="", help="also write the raw figures here")
    a = ap.parse_args()
    xlates = [os.path.abspath(x) for x in (a.xlate or [os.path.join(TOP, "xlate")])]
    cts = [x for x in a.compute_types.split(",") if x]
    batches = [int(x) for x in a.batches.split(",") if x]
    beams = [int(x) for x in a.beams.split(",") if x]
    own_beams = {int(x) for x in a.own_rule_beams.split(",") if x}
    for x in xlates:
        if not os.access(x, os.X_OK):
            sys.exit(f"beam_bench: {x}: not an executable (run make)")
    if not os.path.exists(os.path.join(a.dir, "config.json")):
        log(f"beam_bench: making {a.dir} (bench/opus_shape.py --dtype f16)")
        subprocess.run([PY, os.path.join(TOP, "bench", "opus_shape.py"), a.dir, "--dtype",
                        "f16"], check=True, stdout=subprocess.DEVNULL)
    ver, why = (None, "left out (--no-ct2)") if a.no_ct2 else ct2_version()

    tmp = tempfile.mkdtemp(prefix="beam_bench_")
    import sentencepiece
    sp = sentencepiece.SentencePieceProcessor(
        model_file=os.path.join(TOP, "models", "en-de", "spm.model"))
    lines = open(os.path.join(TOP, "tests", "data", "multi30k", "test_2016_flickr.en"),
                 encoding="utf-8").read().split("\n")[: a.sentences]
    ids = os.path.join(tmp, "src.ids")
    with open(ids, "w") as f:
        for x in lines:
            f.write(" ".join(map(str, sp.encode(x))) + "\n")
    n = len(lines)
    n1 = min(n, a.batch1_sentences)
    ids1 = os.path.join(tmp, "src1.ids")
    with open(ids) as f, open(ids1, "w") as g:
        g.writelines(f.readlines()[:n1])
    t_start, la0 = time.time(), loadavg()
    info = {"cpu": cpu_model(), "ct2": ver, "ct2_missing": why, "load_before": la0,
            "kernels": {x: {ct: kernels_line(x, a, ids, ct, tmp) for ct in cts} for x in xlates}}

    # greedy first: the engines must agree (f32)
    greedy = []
    if ver:
        for ct in cts:
            for xi, x in enumerate(xlates):
                xo, co = os.path.join(tmp, f"g{xi}.ids"), os.path.join(tmp, "gc.ids")
                log(f"beam_bench: greedy {ct} batch 32, {x}")
                xr = run_xlate(x, a, ids, xo, ct, 32, 1, a.threads, True)
                if xi == 0:
                    cr = run_ct2(a, ids, co, ct, 32, 1, True)
                greedy.append((ct, x, xr, cr, same_lines(xo, co)[0]))

    rows = []
    for ct in cts:
        for B in batches:
            for K in beams:
                for fixed in ([True, False] if K in own_beams else [True]):
                    rule = "same" if fixed else "own"
                    src = ids1 if B == 1 else ids
                    log(f"beam_bench: {ct} batch {B} beam {K}, {rule} rule "
                        f"(load {loadavg()})")
                    xs = [[] for _ in xlates]
                    cs = []
                    for _ in range(a.runs):
                        for xi, x in enumerate(xlates):
                            xs[xi].append(run_xlate(x, a, src, os.path.join(tmp, f"x{xi}.ids"),
                                                    ct, B, K, a.threads, fixed))
                        if ver:
                            try:
                                cs.append(run_ct2(a, src, os.path.join(tmp, "c.ids"), ct, B,
                                                  K, fixed))
                            except RuntimeError as e:  # the row says "-"; the rest goes on
                                log(f"beam_bench: CTranslate2 failed: {e}")
                    row = {"ct": ct, "B": B, "K": K, "rule": rule, "n": n1 if B == 1 else n,
                           "x": [best(r) for r in xs], "c": best(cs) if cs else None}
                    row["same"] = [same_lines(os.path.join(tmp, f"x{xi}.ids"),
                                              os.path.join(tmp, "c.ids"))[0] if cs else None
                                   for xi in range(len(xlates))]
                    rows.append(row)

    pk = peaks(a.threads, V * D * 4)
    pk8 = peaks(a.threads, V * D)
    pk16 = peaks(a.threads, V * D * 2)
    la1 = loadavg()

    # --- the report ---------------------------------------------------------------------
    P = print
    P("## Beam search at OPUS-MT size, xlate beside CTranslate2 (`bench/beam_bench.py`)\n")
    P(f"- CPU: {info['cpu']}; {a.threads} threads; load average {la0} before, {la1} after "
      f"({time.time() - t_start:.0f} s)")
    P(f"- model: {a.dir} (d 512, 6 + 6 layers, 8 heads, FFN 2048, vocabulary 58,101, tied, "
      f"f16 file); {n} sentences of Multi30k test_2016_flickr.en (batch 1: the first {n1}); "
      f"L = {a.length} steps; best of {a.runs} run(s)")
    for xi, x in enumerate(xlates):
        for ct in cts:
            P(f"- xlate{xi + 1} ({x}) {ct}: {info['kernels'][x][ct]}")
    P(f"- CTranslate2: {ver + ' (bench/ct2_translate.py)' if ver else 'not measured: ' + why}")
    P()
    if greedy:
        P("Greedy check (batch 32, same rule): lines whose ids are equal in both engines")
        P()
        P("| compute | xlate | xlate tok/s | CT2 tok/s | equal ids |")
        P("|---|---|---:|---:|---:|")
        for ct, x, xr, cr, same in greedy:
            P(f"| {ct} | xlate{xlates.index(x) + 1} | {xr['tokens'] / xr['translate']:,.0f} | "
              f"{cr['tokens'] / cr['translate']:,.0f} | {same}/{n} |")
        P()
    P("Tokens/s of each engine's own translate time, eos not counted; steps: decoder steps per "
      "sentence; same: lines whose best hypothesis is identical in both engines.\n")
    hdr = "| compute | batch | beam | stop rule |"
    sep = "|---|---:|---:|---|"
    for xi in range(len(xlates)):
        hdr += f" xlate{xi + 1} tok/s |"
        sep += "---:|"
    hdr += " CT2 tok/s |"
    sep += "---:|"
    for xi in range(len(xlates)):
        hdr += f" xlate{xi + 1} / CT2 |"
        sep += "---:|"
    for xi in range(len(xlates)):
        hdr += f" xlate{xi + 1} steps |"
        sep += "---:|"
    hdr += " CT2 steps |"
    sep += "---:|"
    for xi in range(len(xlates)):
        hdr += f" same (xlate{xi + 1}) |"
        sep += "---:|"
    P(hdr)
    P(sep)
    for r in rows:
        c = r["c"]
        line = f"| {r['ct']} | {r['B']} | {r['K']} | {r['rule']} |"
        for x in r["x"]:
            line += f" {x['tokens'] / x['translate']:,.0f} |"
        line += f" {c['tokens'] / c['translate']:,.0f} |" if c else " - |"
        for x in r["x"]:
            line += (f" **{c['translate'] / x['translate'] * x['tokens'] / c['tokens']:.2f}×** |"
                     if c and c["tokens"] else " - |")
        for x in r["x"]:
            line += f" {x['sent_steps']:.1f} |" if x["sent_steps"] is not None else " ? |"
        line += f" {c['sent_steps']:.1f} |" if c else " - |"
        for s in r["same"]:
            line += f" {s}/{r['n']} |" if s is not None else " - |"
        P(line)
    P()
    P(f"Where a step goes: xlate -v's wall-time split of each same-rule run above ({a.threads} "
      "threads; timers in xlate around the parts), as shares of its translate time: the "
      "encoder; the decoder layers' attention (self and cross, the cache's writes) and the rest "
      "of the layers (products, norms, residuals); the output projection; the search and "
      "batching (log-softmax + top-k of every row, the beam's ranking, the bookkeeping: what "
      "is left).\n")
    P("| xlate | compute | batch | beam | encoder | attention | layers' rest | projection | "
      "log-softmax + top-k, batching |")
    P("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        if r["rule"] != "same":
            continue
        for xi, x in enumerate(r["x"]):
            sp_, t, at = x["split"], x["translate"], x["attention"]
            line = f"| xlate{xi + 1} | {r['ct']} | {r['B']} | {r['K']} |"
            if sp_ and at is not None and t > 0:
                enc, lay, proj, srch = sp_
                line += "".join(f" {100 * v / t:.0f}% |" for v in (enc, at, lay - at, proj, srch))
            elif sp_ and t > 0:  # an xlate before the attention timer (2026-11-27)
                enc, lay, proj, srch = sp_
                line += (f" {100 * enc / t:.0f}% | ? | {100 * lay / t:.0f}% (with attention) |"
                         f" {100 * proj / t:.0f}% | {100 * srch / t:.0f}% |")
            else:
                line += " - | - | - | - | - |"
            P(line)
    P()
    P("Distance from the limit, the output projection of the same-rule runs: its FLOP/s "
      "(2 × rows × 512 × 58,101 over -v's projection time) against the peak of its instruction "
      f"on {a.threads} threads (bench/peak.c: f32 FMA; int8 vpdpwssd), and its weights read "
      "once a step (58,101 × 512 × the bytes of a packed weight, as -v names the "
      "projection's panels: 4 f32, 2 f16 (an f16 file keeps its weights f16 under f32 "
      "arithmetic), 1 int8) against the rate the cores read a buffer that size.\n")
    if pk:
        P(f"Peaks ({a.threads} threads): f32 FMA {pk['fma_gflops']:.0f} GFLOP/s, int8 "
          f"{pk['int8_gops']:.0f} GOP/s, read {pk['read_gbs']:.1f} GB/s over "
          f"{V * D * 4 / 1e6:.0f} MB, {pk16['read_gbs'] if pk16 else float('nan'):.1f} GB/s "
          f"over {V * D * 2 / 1e6:.0f} MB, {pk8['read_gbs'] if pk8 else float('nan'):.1f} GB/s over "
          f"{V * D / 1e6:.0f} MB.\n")
    P("The whole run beside it: every useful multiply-add of the translation (the encoder, "
      "the decoder's layers, attention and projection, counted from config.json, each "
      "sentence's source length and the L steps of K rows; padding not counted), 2 FLOP each, "
      "over the translate time, against the same peak (int8: the products' instruction; the "
      "attention, norms and softmax run in f32). A run whose -v rows differ from the count "
      "says '-'.\n")
    P("| xlate | compute | batch | beam | rows a step | projection GFLOP/s | % of peak | "
      "weights GB/s | % of read rate | whole run GFLOP/s | % of peak |")
    P("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    cfg = json.load(open(os.path.join(a.dir, "config.json")))
    lens = {}
    for f_ in (ids, ids1):
        with open(f_) as f:
            lens[f_] = [len(x.split()) + 1 for x in f.read().splitlines()]
    for r in rows:
        if r["rule"] != "same":
            continue
        macs, want_rows = useful_macs(cfg, lens[ids1 if r["B"] == 1 else ids], a.length, r["K"])
        for xi, x in enumerate(r["x"]):
            if not x["split"] or not x["rows"]:
                continue
            peak = (pk["fma_gflops"] if r["ct"] == "f32" else pk["int8_gops"]) if pk else None
            whole_gf = 2 * macs / x["translate"] / 1e9 if x["rows"] == want_rows else None
            whole = (f" {whole_gf:.0f} |" if whole_gf else " - |") + \
                (f" {100 * whole_gf / peak:.0f}% |" if whole_gf and peak else " - |")
            proj = x["split"][2]
            gf = 2 * x["rows"] * D * V / proj / 1e9
            wb = x["out_bytes"] or (4 if r["ct"] == "f32" else 1)
            gbs = x["steps"] * V * D * wb / proj / 1e9
            rd = ({4: pk, 2: pk16, 1: pk8}.get(wb) or pk)["read_gbs"] if pk else None
            P((f"| xlate{xi + 1} | {r['ct']} | {r['B']} | {r['K']} | "
               f"{x['rows'] / x['steps']:.1f} | {gf:.0f} | "
               f"{100 * gf / peak:.0f}% | {gbs:.1f} | {100 * gbs / rd:.0f}% |"
               if peak and rd else f"| xlate{xi + 1} | {r['ct']} | {r['B']} | {r['K']} | "
               f"{x['rows'] / x['steps']:.1f} | {gf:.0f} | - | {gbs:.1f} | - |") + whole)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"info": info, "rows": rows, "greedy": greedy,
                       "peaks": [pk, pk16, pk8]}, f, indent=1, default=str)
    bad = [g for g in greedy if g[0] == "f32" and g[4] != n]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

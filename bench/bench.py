#!/usr/bin/python3
"""xlate against PyTorch on the default model: the driver of bench/run.sh (read bench/README.md).

Both programs translate the same SentencePiece ids greedily; every output is checked against
the other program's and against PyTorch's reference file. Each measurement is a separate
process under /usr/bin/time (wall, peak RSS, CPU); tokens/s comes from each program's own
translate time (after load), the best of --runs runs, with xlate and PyTorch alternating so
that a noisy neighbour hurts both alike. Start-up is measured with hyperfine.
"""
import argparse
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import tempfile
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
DATA = os.path.join(TOP, "tests", "data")
PY = "/usr/bin/python3"
TORCH = os.path.join(TOP, "bench", "torch_translate.py")
CT2 = os.path.join(TOP, "bench", "ct2_translate.py")
# bytes a weight takes per compute type (int8: the per-row scale is negligible)
WEIGHT_BYTES = {"f32": 4, "bf16": 2, "f16": 2, "int8": 1}


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


# ---------------------------------------------------------------------------- the model's cost
def model_cost(cfg):
    """Multiply-adds, from config.json, as functions of the lengths."""
    d, f, V = cfg["d_model"], cfg["ffn_dim"], cfg["tgt_vocab_size"]
    le, ld = cfg["encoder_layers"], cfg["decoder_layers"]
    c = {}
    # decoder step, one row, without attention: self qkv+o 4d^2, cross q+o 2d^2, ffn 2 d f;
    # output projection d V
    c["step_weights"] = ld * (6 * d * d + 2 * d * f) + d * V
    c["step_bytes"] = 4 * c["step_weights"]  # f32 weights read by one decoder step
    c["out_weights"] = d * V  # the output projection's share of step_weights

    def sentence(src_len, rows):
        """src_len: source tokens with eos; rows: decoder steps this sentence took."""
        enc = src_len * (le * (4 * d * d + 2 * d * f + 2 * src_len * d))  # + QK^T, AV
        enc += src_len * ld * 2 * d * d  # cross-attention K, V of the memory, once
        dec = rows * (c["step_weights"] + ld * 2 * src_len * d)  # + cross QK^T, AV
        dec += ld * 2 * d * rows * (rows + 1) // 2  # self-attention over the prefix 1..rows
        return enc + dec
    c["sentence"] = sentence
    return c


def read_ids(path):
    with open(path) as f:
        return [[int(t) for t in line.split()] for line in f.read().splitlines()]


def max_len_rule(n, forced=0, max_positions=512):
    return min(forced, max_positions) if forced else min(3 * (n + 1) + 10, max_positions)


def work(srcs, outs, cost, batch, forced=0):
    """(multiply-adds, decoder rows, decoder steps) of a greedy run: rows are the sentences'
    steps (tokens + eos where it came); steps are the batched decoder calls when the input is
    sorted by length and cut into batches of `batch` and finished sentences leave."""
    macs = rows = 0
    rows_of = []
    for s, o in zip(srcs, outs):
        if not s:
            rows_of.append(0)
            continue
        r = len(o) + 1 if len(o) < max_len_rule(len(s), forced) else len(o)
        rows_of.append(r)
        rows += r
        macs += cost["sentence"](len(s) + 1, r)
    order = sorted((i for i in range(len(srcs)) if srcs[i]), key=lambda i: -len(srcs[i]))
    steps = sum(max(rows_of[i] for i in order[b:b + batch]) for b in range(0, len(order), batch))
    return macs, rows, steps


# ---------------------------------------------------------------------------- running things
def timed(cmd, env, stdin_path, stdout_path):
    """Runs cmd (a list) under /usr/bin/time. Returns dict wall, rss_mb, cpu, stderr."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        full = ["/usr/bin/time", "-f", "%e %M %U %S", "-o", tf.name] + cmd
        with open(stdin_path) as fi, open(stdout_path, "w") as fo:
            p = subprocess.run(full, stdin=fi, stdout=fo, stderr=subprocess.PIPE, env=env,
                               text=True)
        if p.returncode:
            raise SystemExit(f"bench: failed ({p.returncode}): {shlex.join(cmd)}\n{p.stderr}")
        w, m, u, s = tf.read().split()[-4:]
    return {"wall": float(w), "rss_mb": int(m) / 1024, "cpu": float(u) + float(s),
            "stderr": p.stderr}


def env_xlate():
    """xlate runs as a user runs it: no tuning variables at all."""
    e = dict(os.environ)
    for k in ("OMP_WAIT_POLICY", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS",
              "MKL_NUM_THREADS"):
        e.pop(k, None)
    return e


def env_torch(threads):
    """PyTorch at its best: OpenMP threads sleep when idle (without it they spin and PyTorch is
    about 2x slower on 2 cores), and the OpenBLAS that Debian's torch calls gets the same thread
    count (its own pool would otherwise take every core)."""
    e = env_xlate()
    e.update(OMP_WAIT_POLICY="PASSIVE", OMP_NUM_THREADS=str(threads),
             OPENBLAS_NUM_THREADS=str(threads))
    return e


def env_peer(a, threads):
    """PyTorch's and CTranslate2's environment: env_torch, and OPENBLAS_CORETYPE set to the
    core xlate's OpenBLAS runs with (xlate sets it where OpenBLAS would fall back to generic
    kernels; the peers get the same help) unless the user set it."""
    e = env_torch(threads)
    if a.blas_core and "OPENBLAS_CORETYPE" not in e:
        e["OPENBLAS_CORETYPE"] = a.blas_core
    return e


def run_ct2(a, ids, out, threads, batch, ct, extra=()):
    cmd = [PY, CT2, "--model", a.model, "--compute-type", ct, "--threads", str(threads),
           "--batch-size", str(batch)] + list(extra)
    e = env_peer(a, threads)
    r = timed(cmd, e, ids, out)
    js = [json.loads(x) for x in r["stderr"].splitlines() if x.startswith("{")]
    if not js:
        raise SystemExit(f"bench: no timing line from {shlex.join(cmd)}:\n{r['stderr']}")
    r["translate"] = js[-1]["translate_s"]
    r["load"] = js[-1]["load_s"]
    r["cmd"] = " ".join(f"{k}={e[k]}" for k in ("OMP_WAIT_POLICY", "OMP_NUM_THREADS",
                                                 "OPENBLAS_NUM_THREADS", "OPENBLAS_CORETYPE")
                        if k in e) + " " + shlex.join(cmd)
    return r


def ct2_available():
    """None when `import ctranslate2` works, else the reason (one line)."""
    p = subprocess.run([PY, "-c", "import ctranslate2; print(ctranslate2.__version__)"],
                       capture_output=True, text=True)
    if p.returncode:
        return (p.stderr.strip().splitlines() or ["import failed"])[-1]
    return None


def xlate_kernels(a, ct):
    """xlate -v's line naming the compute type and kernels."""
    p = subprocess.run([a.xlate, "-v", "-m", a.model, "--compute-type", ct, "--input-format",
                        "ids", "--output-format", "ids"], input="", capture_output=True,
                       text=True, env=env_xlate())
    m = re.search(r"compute type (.*)", p.stderr)
    return m.group(1) if m else "?"


def run_xlate(a, ids, out, threads, batch, extra=()):
    cmd = [a.xlate, "-v", "-q", "-m", a.model, "--input-format", "ids", "--output-format", "ids",
           "--batch-size", str(batch), "--threads", str(threads)] + list(extra) + a.xlate_flags
    r = timed(cmd, env_xlate(), ids, out)
    m = re.search(r"translate ([0-9.]+) s", r["stderr"])
    r["translate"] = float(m.group(1)) if m else r["wall"]
    m = re.search(r"load(?:ed in)? ([0-9.]+) s", r["stderr"])
    r["load"] = float(m.group(1)) if m else None
    r["cmd"] = shlex.join(cmd)
    return r


def run_torch(a, ids, out, threads, batch, extra=()):
    cmd = [PY, TORCH, "--checkpoint", a.checkpoint, "--threads", str(threads),
           "--batch-size", str(batch)] + list(extra)
    r = timed(cmd, env_torch(threads), ids, out)
    js = [json.loads(x) for x in r["stderr"].splitlines() if x.startswith("{")]
    if not js:
        raise SystemExit(f"bench: no timing line from {shlex.join(cmd)}:\n{r['stderr']}")
    r["translate"] = js[-1]["translate_s"]
    r["load"] = js[-1]["load_s"]
    r["import"] = js[-1]["import_s"]
    r["cmd"] = "OMP_WAIT_POLICY=PASSIVE OMP_NUM_THREADS=%d OPENBLAS_NUM_THREADS=%d %s" % (
        threads, threads, shlex.join(cmd))
    return r


def best(runs):
    return min(runs, key=lambda r: r["translate"])


def hyperfine(cmds, runs, warmup, env_prefix=""):
    with tempfile.NamedTemporaryFile("r", suffix=".json") as tf:
        args = ["hyperfine", "-S", "sh", "--style", "none", "--warmup", str(warmup), "--runs",
                str(runs), "--export-json", tf.name] + [env_prefix + c for c in cmds]
        p = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if p.returncode:
            raise SystemExit("bench: hyperfine failed:\n" + p.stderr)
        return json.load(open(tf.name))["results"]


# ---------------------------------------------------------------------------- the sections
def calibrate(threads_list, bytes_):
    """What this machine can do: OpenBLAS sgemm GFLOP/s (1024^3), and how fast OpenBLAS sgemv
    streams a matrix the size of the decoder's weights (19 MB, [*, 256] @ x, repeated: the
    batch-1 decoder step is exactly this)."""
    code = r"""
import numpy as np, time, sys
n = 1024
a = np.random.rand(n, n).astype(np.float32); b = np.random.rand(n, n).astype(np.float32)
a @ b
t = min((lambda t0: (a @ b, time.perf_counter() - t0)[1])(time.perf_counter()) for _ in range(7))
w = np.random.rand(int(sys.argv[1]) // 1024, 256).astype(np.float32); x = np.ones(256, np.float32)
w @ x
r = min((lambda t0: (w @ x, time.perf_counter() - t0)[1])(time.perf_counter()) for _ in range(30))
print(2 * n ** 3 / t / 1e9, w.nbytes / r / 1e9)
"""
    out = {}
    for t in threads_list:
        e = env_xlate()
        e["OPENBLAS_NUM_THREADS"] = str(t)
        p = subprocess.run([PY, "-c", code, str(19 * 2 ** 20)], env=e, capture_output=True,
                           text=True)
        if p.returncode:
            log("bench: calibration failed:", p.stderr.strip()[-300:])
            continue
        g, bw = map(float, p.stdout.split())
        out[t] = {"sgemm_gflops": g, "sgemv_gbs": bw}
    # the instructions' own peaks and the cores' read rate over the step's weights (peak.c)
    exe = os.path.join(TOP, "build", "peak")
    src = os.path.join(TOP, "bench", "peak.c")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        subprocess.run(["cc", "-O2", "-pthread", "-o", exe, src], check=True)
    for t in list(out):
        p = subprocess.run([exe, str(t), str(bytes_)], capture_output=True, text=True)
        if p.returncode:
            log("bench: peak.c failed:", p.stderr.strip()[-300:])
            del out[t]
            continue
        out[t].update(json.loads(p.stdout))
    return out


def main_table(a, ids, ref, cost, srcs):
    """One row per (threads, batch, compute type): xlate with --compute-type, PyTorch (f32,
    the same run for every type), CTranslate2 with the same type where it has it."""
    rows = []
    res = {}
    for rep in range(a.runs):
        for t in a.threads:
            for b in a.batches:
                log(f"bench: run {rep + 1}/{a.runs}: threads {t}, batch {b}  (load {loadavg()})")
                po = os.path.join(a.tmp, f"p_{t}_{b}.ids")
                pr = run_torch(a, ids, po, t, b)
                ps = open(po).read()
                q = None
                if b == 1 and a.plain and rep == 0:
                    q = run_torch(a, ids, po + ".plain", t, b, ["--plain-linear"])
                for ct in a.compute_types:
                    key = (t, b, ct)
                    d = res.setdefault(key, {"x": [], "p": [], "c": [], "q": [], "same": True})
                    xo = os.path.join(a.tmp, f"x_{t}_{b}_{ct}.ids")
                    d["x"].append(run_xlate(a, ids, xo, t, b, ["--compute-type", ct]))
                    d["p"].append(pr)
                    if q:
                        d["q"].append(q)
                        d["same"] &= open(po + ".plain").read() == ps
                    if a.ct2 and ct in ("f32", "int8"):
                        co = os.path.join(a.tmp, f"c_{t}_{b}_{ct}.ids")
                        d["c"].append(run_ct2(a, ids, co, t, b, ct))
                        d["c_ref"] = sum(u == v for u, v in zip(open(co).read().splitlines(),
                                                                 ref))
                    xs = open(xo).read()
                    if ct == "f32":
                        d["same"] &= xs == ps
                    d["x_ref"] = sum(u == v for u, v in zip(xs.splitlines(), ref))
                    d["p_ref"] = sum(u == v for u, v in zip(ps.splitlines(), ref))
                    d["outs"] = [[int(v) for v in line.split()] for line in xs.splitlines()]
    for (t, b, ct), d in res.items():
        x, p = best(d["x"]), best(d["p"])
        ntok = sum(len(o) for o in d["outs"])
        nsent = sum(1 for s in srcs if s)
        macs, nrows, steps = work(srcs, d["outs"], cost, b)
        rows.append(dict(threads=t, batch=b, ct=ct, x=x, p=p, q=best(d["q"]) if d["q"] else None,
                         c=best(d["c"]) if d["c"] else None, c_ref=d.get("c_ref"),
                         tokens=ntok, sentences=nsent,
                         macs=macs, rows=nrows, steps=steps, same=d["same"], x_ref=d["x_ref"],
                         p_ref=d["p_ref"], n_ref=len(ref)))
    return rows


def startup(a):
    one = "A dog runs."
    xs = shlex.quote(a.xlate)
    empty_x = f"{xs} -m {shlex.quote(a.model)} --input-format ids --output-format ids </dev/null"
    first_x = f"echo {shlex.quote(one)} | {xs}"
    tp = ("OMP_WAIT_POLICY=PASSIVE OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2 "
          f"{PY} {shlex.quote(TORCH)} --checkpoint {shlex.quote(a.checkpoint)} --threads 2")
    empty_p = f"{tp} </dev/null"
    first_p = f"echo {shlex.quote(one)} | {tp} --text"
    hx = hyperfine([empty_x, first_x], a.hf_runs, 3)
    hp = hyperfine([empty_p, first_p], max(3, a.hf_runs // 4), 1)
    # in-process load times
    rx = run_xlate(a, "/dev/null", os.devnull, 2, 32)
    rp = run_torch(a, "/dev/null", os.devnull, 2, 32)
    text_x = subprocess.run(first_x, shell=True, capture_output=True, text=True).stdout.strip()
    text_p = subprocess.run(first_p, shell=True, capture_output=True, text=True).stdout.strip()
    return dict(one=one, hx=hx, hp=hp, cmds=[empty_x, first_x, empty_p, first_p],
                load_x=rx["load"], load_p=rp["load"], import_p=rp["import"],
                rss_x=rx["rss_mb"], rss_p=rp["rss_mb"], text_x=text_x, text_p=text_p)


def scaling(a, srcs, cost):
    """Sources of exactly L tokens (consecutive test sentences joined), at most L generated
    (exactly L when xlate has --min-length: eos banned before L tokens)."""
    flat = [t for s in srcs for t in s]
    out = []
    for L in a.lengths:
        for b in a.scale_batches:
            n = a.scale_n if b > 1 else a.scale_n1
            lines = [flat[(i * 997) % (len(flat) - L):][:L] for i in range(n)]
            path = os.path.join(a.tmp, f"scale_{L}_{b}.ids")
            with open(path, "w") as f:
                f.write("".join(" ".join(map(str, s)) + "\n" for s in lines))
            t = a.scale_threads
            log(f"bench: scaling: {n} sources of {L} tokens, at most {L} generated, batch {b}, "
                f"threads {t}  (load {loadavg()})")
            xo, po = path + ".x", path + ".p"
            extra = ["--max-length", str(L)] + (["--min-length", str(L)] if a.min_len else [])
            xr, pr = [], []
            for _ in range(a.scale_runs):
                xr.append(run_xlate(a, path, xo, t, b, extra))
                pr.append(run_torch(a, path, po, t, b, extra))
            outs = read_ids(xo)
            same = sum(u == v for u, v in zip(open(xo).read().splitlines(),
                                              open(po).read().splitlines()))
            macs, nrows, steps = work(lines, outs, cost, b, forced=L)
            if a.min_len:
                nrows = sum(len(o) for o in outs)  # no eos: every row wrote a token
                macs = sum(cost["sentence"](len(s) + 1, len(o)) for s, o in zip(lines, outs))
            out.append(dict(L=L, batch=b, n=n, threads=t, x=best(xr), p=best(pr), macs=macs,
                            rows=nrows, steps=steps, tokens=sum(len(o) for o in outs),
                            same=same))
    return out


def step_cost(a, srcs, cfg):
    """Per-step cost against the prefix: sources of 10 tokens, exactly L tokens generated for
    L in a.step_lengths; the cost of steps [L1, L2) is (T(L2) - T(L1)) / (L2 - L1), T the
    program's own translate time (start-up and the encoder cancel out). A least-squares line
    c(t) = c0 + slope * t through those points, t the step's position."""
    flat = [t for s in srcs for t in s]
    out = []
    t = a.scale_threads
    for b in a.step_batches:
        same = True
        n = b if b > 1 else a.step_n1
        lines = [flat[(i * 991) % (len(flat) - 10):][:10] for i in range(n)]
        path = os.path.join(a.tmp, f"steps_{b}.ids")
        with open(path, "w") as f:
            f.write("".join(" ".join(map(str, x)) + "\n" for x in lines))
        T = {"x": [], "p": []}
        for L in a.step_lengths:
            log(f"bench: steps: {n} sources of 10 tokens, exactly {L} generated, batch {b}, "
                f"threads {t}  (load {loadavg()})")
            extra = ["--max-length", str(L), "--min-length", str(L)]
            xr, pr = [], []
            for _ in range(a.step_runs):
                xr.append(run_xlate(a, path, path + ".x", t, b, extra))
                pr.append(run_torch(a, path, path + ".p", t, b, extra))
            same = same and open(path + ".x").read() == open(path + ".p").read()
            T["x"].append(best(xr)["translate"])
            T["p"].append(best(pr)["translate"])
        res = dict(batch=b, n=n, threads=t, same=same)
        Ls = a.step_lengths
        for k in ("x", "p"):
            pts = []
            for i in range(1, len(Ls)):
                mid = (Ls[i - 1] + Ls[i] - 1) / 2
                per = (T[k][i] - T[k][i - 1]) / (Ls[i] - Ls[i - 1]) / n  # s per row-step
                pts.append((mid, per))
            # least squares c0 + slope * t
            m = len(pts)
            sx = sum(p[0] for p in pts); sy = sum(p[1] for p in pts)
            sxx = sum(p[0] ** 2 for p in pts); sxy = sum(p[0] * p[1] for p in pts)
            slope = (m * sxy - sx * sy) / (m * sxx - sx * sx)
            c0 = (sy - slope * sx) / m
            dev = max(abs(p[1] - (c0 + slope * p[0])) / p[1] for p in pts)
            res[k] = dict(T=T[k], pts=pts, c0=c0, slope=slope, dev=dev)
        res["attn_macs"] = 2 * cfg["d_model"] * cfg["decoder_layers"]  # per row per position
        out.append(res)
    return out


# ---------------------------------------------------------------------------- printing
def f0(v):
    return f"{v:,.0f}"


def report(a, info, cal, rows, st, sc, cost, steps=None):
    P = print
    P("## xlate vs PyTorch: greedy translation of Multi30k test_2016_flickr (en→de)\n")
    P(f"- machine: {info['cpu']}, {info['ncpu']} cores; load average at start {info['load0']}, "
      f"at end {loadavg()}")
    for ct, k in info.get("kernels", {}).items():
        P(f"- xlate `--compute-type {ct}`: {k}")
    P(f"- CTranslate2: {info['ct2']}")
    P(f"- xlate {info['rev']}; PyTorch {info['torch']} (Debian), fp32, inference_mode, "
      f"hand-written incremental decoder with KV cache (bench/torch_translate.py), "
      f"`OMP_WAIT_POLICY=PASSIVE`, OMP and OpenBLAS threads = xlate's `--threads`")
    P(f"- input: {info['nsent']} sentences, {info['nsrc']} source tokens; model "
      f"{os.path.relpath(a.model, TOP)}; tokens/s = target tokens written (eos not counted) / "
      f"the program's own translate time (load excluded), best of {a.runs} runs"
      f"{' (PyTorch with `F.linear` at batch 1: 1 run)' if a.plain else ''}, xlate and "
      f"PyTorch alternating; wall = whole process (PyTorch's includes `import torch`); CPU = "
      f"user + system time of that process (steadier than wall on a loaded machine, but it "
      f"counts spinning threads); "
      f"RSS = peak resident set (/usr/bin/time). At batch 1 the PyTorch column sends one row "
      f"through `torch.addmv` (this OpenBLAS runs a 1-row sgemm ~5× slower than sgemv); in "
      f"parentheses, PyTorch with plain `F.linear`, as most code is written")
    P()
    P("| threads | batch | compute type | xlate tok/s | PyTorch tok/s (f32) | xlate/PyTorch | "
      "CTranslate2 tok/s (same type) | xlate/CTranslate2 | xlate sent/s | xlate wall s | "
      "PyTorch wall s | xlate CPU s | xlate peak RSS MB | PyTorch peak RSS MB | "
      "CTranslate2 peak RSS MB | lines as PyTorch's reference (xlate, PyTorch, CTranslate2) |")
    P("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        x, p, c = r["x"], r["p"], r["c"]
        same = (("outputs identical; " if r["same"] else "OUTPUTS DIFFER; ") if r["ct"] == "f32"
                else "") + f"{r['x_ref']}, {r['p_ref']}" + \
            (f", {r['c_ref']}" if r["c_ref"] is not None else "") + f" of {r['n_ref']}"
        q = r["q"]
        plain = (f" ({f0(r['tokens'] / q['translate'])} with F.linear: "
                 f"{q['translate'] / x['translate']:.1f}×)" if q else "")
        ct2 = (f"{f0(r['tokens'] / c['translate'])} | **{c['translate'] / x['translate']:.2f}×**"
               if c else "- | -")
        P(f"| {r['threads']} | {r['batch']} | {r['ct']} | {f0(r['tokens'] / x['translate'])} | "
          f"{f0(r['tokens'] / p['translate'])} | **{p['translate'] / x['translate']:.2f}×**{plain} | "
          f"{ct2} | {r['sentences'] / x['translate']:,.1f} | "
          f"{x['wall']:.2f} | {p['wall']:.2f} | {x['cpu']:.2f} | "
          f"{x['rss_mb']:.0f} | {p['rss_mb']:.0f} | {f0(c['rss_mb']) if c else '-'} | {same} |")
    P()
    P("(tokens/s: target tokens of xlate's output over each program's own translate time; the "
      "peers' outputs are the same length to within a few tokens. CTranslate2 runs as its best: "
      "`OMP_WAIT_POLICY=PASSIVE`, OMP/OpenBLAS threads = `--threads`, OPENBLAS_CORETYPE the "
      "core xlate uses.)")
    P()
    P("### Distance from the limit\n")
    sw, sb = cost["step_weights"], cost["step_bytes"]
    P(f"A decoder step costs {sw / 1e6:.2f}M multiply-adds per row over {sb / 1e6:.1f} MB of f32 "
      f"weights, plus attention over the prefix and the source. Useful work counted from the "
      f"config and each sentence's lengths (padding not counted); weights read per token = "
      f"{sb / 1e6:.1f} MB × decoder steps / decoder rows (the batch shrinks as sentences finish).")
    if cal:
        P("Measured on this machine, in the same run (`bench/peak.c`: independent chains of one "
          "instruction on every thread, and every thread summing its share of a buffer the size "
          "of the step's f32 weights, which stays in the cache that holds it): " + "; ".join(
              f"{t} thread{'s' if t > 1 else ''}: f32 FMA {c['fma_gflops']:.0f} GFLOP/s, int8 "
              f"({'vpdpwssd' if c['int8_gops'] else ''}) {c['int8_gops']:.0f} GOP/s, "
              + (f"bf16 vdpbf16ps {c['bf16_gflops']:.0f} GFLOP/s, " if c.get('bf16_gflops')
                 else "") +
              f"read {c['read_gbs']:.0f} GB/s (for reference: OpenBLAS sgemm 1024³ "
              f"{c['sgemm_gflops']:.0f} GFLOP/s, sgemv over the same bytes "
              f"{c['sgemv_gbs']:.0f} GB/s)"
              for t, c in sorted(cal.items())) + ".")
    P()
    P("The limit of a row is the slower of two bounds: the useful operations at the peak rate of "
      "the instruction the compute type's kernel is made of (f32 and f16: FMA; int8: the integer "
      "multiply-add; bf16: vdpbf16ps where the kernel uses it, else FMA), and the weights read per "
      "token at the read rate (tok/s, target tokens as in the table). Attention, layer norms, "
      "the softmax and the search are not in the useful operations: the bound is not reachable.")
    P()
    P("For int8, bf16 and f16 the weights read are 1, 2 and 2 bytes each. Where xlate's greedy "
      "argmax goes through its int8 screen "
      "(`-v`: \"int8 screen\"; `XLATE_SCREEN=0` turns it off), the output projection "
      f"({cost['out_weights'] / 1e6:.2f}M of the {sw / 1e6:.2f}M weights) is read as int8, 1 "
      "byte a weight, whatever the compute type: the MB column counts that.")
    P()
    P("| threads | batch | compute type | rows/step | MB weights/token | MFLOP/token | "
      "xlate GFLOP/s (GOP/s) | PyTorch GFLOP/s | compute bound tok/s | weight-read bound tok/s | "
      "xlate % of limit |")
    P("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        wbytes = WEIGHT_BYTES.get(r["ct"], 4)
        sb = cost["step_weights"] * wbytes
        if "int8 screen" in info.get("kernels", {}).get(r["ct"], ""):
            sb -= cost["out_weights"] * (wbytes - 1)
        x, p = r["x"], r["p"]
        rps = r["rows"] / r["steps"]
        gx = 2 * r["macs"] / x["translate"] / 1e9
        gp = 2 * r["macs"] / p["translate"] / 1e9
        c = cal.get(r["threads"])
        cb = wb = pct = "-"
        if c:
            kern = info.get("kernels", {}).get(r["ct"], "")
            peak = (c["int8_gops"] if r["ct"] == "int8" else
                    c["bf16_gflops"] if r["ct"] == "bf16" and "avx512bf16 kernels" in kern
                    and c.get("bf16_gflops") else c["fma_gflops"])
            cbv = peak * 1e9 / (2 * r["macs"] / r["tokens"])
            wbv = c["read_gbs"] * 1e9 / (sb / rps) * r["tokens"] / r["rows"]
            cb, wb = f0(cbv), f0(wbv)
            pct = f"{100 * (r['tokens'] / x['translate']) / min(cbv, wbv):.0f}%"
        P(f"| {r['threads']} | {r['batch']} | {r['ct']} | {rps:.1f} | {sb / rps / 1e6:.2f} | "
          f"{2 * r['macs'] / r['tokens'] / 1e6:.1f} | {gx:.1f} | {gp:.1f} | {cb} | {wb} | "
          f"{pct} |")
    P()
    if st:
        P("### Start-up\n")
        hx, hp = st["hx"], st["hp"]

        def hf(h):
            return f"{h['mean'] * 1e3:.1f} ± {h['stddev'] * 1e3:.1f} ms (min {h['min'] * 1e3:.1f})"
        P("| | xlate | PyTorch |")
        P("|---|---:|---:|")
        P(f"| model load, in process | {st['load_x'] * 1e3:.1f} ms | {st['load_p'] * 1e3:.1f} ms "
          f"(+ `import torch` {st['import_p'] * 1e3:.0f} ms) |")
        P(f"| process, empty input (start, load, exit) | {hf(hx[0])} | {hf(hp[0])} |")
        P(f"| process start to first translation: `echo \"{st['one']}\" \\| …` (text in and out)"
          f" | {hf(hx[1])} | {hf(hp[1])} |")
        P(f"| peak RSS, empty input | {st['rss_x']:.0f} MB | {st['rss_p']:.0f} MB |")
        P()
        P(f"(hyperfine, {a.hf_runs} runs for xlate and {max(3, a.hf_runs // 4)} for PyTorch; "
          f"translations: xlate \"{st['text_x']}\", PyTorch \"{st['text_p']}\")")
        P()
    if sc:
        P("### Scaling with length\n")
        P("Sources of exactly L tokens (consecutive test sentences joined), "
          + ("exactly L target tokens (`--min-length L --max-length L`)" if a.min_len else
             "at most L target tokens (`--max-length L`; this xlate has no `--min-length`, so "
             "sentences stop at eos: see the mean target length)")
          + f", {sc[0]['threads']} thread(s); best of {a.scale_runs}. "
          f"MACs/token: useful multiply-adds per decoder row, encoder included.")
        P()
        P("| L | batch | sentences | mean target len | MACs/token | xlate tok/s | xlate µs/token "
          "| PyTorch tok/s | xlate/PyTorch | xlate GFLOP/s | xlate RSS MB | PyTorch RSS MB | "
          "identical |")
        P("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        for s in sc:
            x, p = s["x"], s["p"]
            P(f"| {s['L']} | {s['batch']} | {s['n']} | {s['rows'] / s['n']:.0f} | "
              f"{s['macs'] / s['rows'] / 1e6:.2f}M | {f0(s['rows'] / x['translate'])} | "
              f"{1e6 * x['translate'] / s['rows']:.0f} | {f0(s['rows'] / p['translate'])} | "
              f"{p['translate'] / x['translate']:.2f}× | "
              f"{2 * s['macs'] / x['translate'] / 1e9:.1f} | {x['rss_mb']:.0f} | "
              f"{p['rss_mb']:.0f} | {s['same']}/{s['n']} |")
        P()
        P("(tok/s here counts decoder rows, eos included, so that every step is counted.)")
        P()
    if steps:
        P("### Per-step cost against the prefix\n")
        P(f"Sources of 10 tokens, exactly L tokens generated (`--min-length L --max-length L`) "
          f"for L = {', '.join(map(str, a.step_lengths))}, {steps[0]['threads']} thread(s), "
          f"best of {a.step_runs}; the cost of the steps between two lengths is the difference of "
          f"the translate times over the difference of the lengths (start-up, encoder and "
          f"batch set-up cancel out), per row. Fit: cost(t) = c0 + slope × t, t = the step's "
          f"position; the attention over the prefix adds {steps[0]['attn_macs']:,} multiply-adds "
          f"per row per position ({len(a.step_lengths)} lengths).")
        P()
        P("| batch | program | " + " | ".join(
            f"steps {a.step_lengths[i - 1]}–{a.step_lengths[i]} µs/row"
            for i in range(1, len(a.step_lengths))) + " | c0 µs | slope ns/position | "
            "largest deviation from the line | identical |")
        P("|---:|---|" + "---:|" * (len(a.step_lengths) - 1) + "---:|---:|---:|---|")
        for r in steps:
            for k, name in (("x", "xlate"), ("p", "PyTorch")):
                f = r[k]
                P(f"| {r['batch']} | {name} | " + " | ".join(f"{1e6 * p[1]:.1f}" for p in f["pts"])
                  + f" | {1e6 * f['c0']:.1f} | {1e9 * f['slope']:.1f} | {100 * f['dev']:.0f}% | "
                  + ("yes" if r["same"] else "NO") + " |")
        P()
    P("### Commands\n")
    P("```")
    if rows:
        for r in rows:
            if r["threads"] == rows[-1]["threads"] and r["batch"] == rows[-1]["batch"]:
                P(r["x"]["cmd"] + " < test_2016_flickr.ids")
                if r["c"]:
                    P(r["c"]["cmd"] + " < test_2016_flickr.ids")
        P(rows[-1]["p"]["cmd"] + " < test_2016_flickr.ids")
    if st:
        for c in st["cmds"]:
            P(c)
    P("```")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="about 1 minute: 200 sentences, 1 run")
    ap.add_argument("--xlate", default=os.path.join(TOP, "xlate"))
    ap.add_argument("--model", default=os.path.join(TOP, "models", "en-de"))
    ap.add_argument("--checkpoint",
                    default=os.path.join(TOP, "models", "en-de"),
                    help="what PyTorch runs: a checkpoint .pt or an xlate model directory")
    ap.add_argument("--src", default=os.path.join(DATA, "multi30k", "test_2016_flickr.en"))
    ap.add_argument("--ref", default=os.path.join(DATA, "reference", "test_2016_flickr.ids"))
    ap.add_argument("--sentences", type=int, default=0, help="only the first N (0: all)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--batches", default="1,32,64")
    ap.add_argument("--no-plain", dest="plain", action="store_false",
                    help="skip PyTorch with F.linear for one row at batch 1 (the common code)")
    ap.add_argument("--no-startup", action="store_true")
    ap.add_argument("--no-scaling", action="store_true")
    ap.add_argument("--no-steps", action="store_true", help="skip the per-step cost")
    ap.add_argument("--no-calibration", action="store_true")
    ap.add_argument("--compute-types", default="f32,int8",
                    help="xlate's --compute-type values, one table row each (f32,int8,bf16,f16)")
    ap.add_argument("--no-ct2", action="store_true", help="leave CTranslate2 out")
    ap.add_argument("--json", help="also write the raw measurements here")
    ap.add_argument("--xlate-flags", default="", type=shlex.split,
                    help="extra xlate options for every run, e.g. --xlate-flags=--fast")
    a = ap.parse_args()
    a.threads = [int(x) for x in a.threads.split(",")]
    a.compute_types = a.compute_types.split(",")
    a.batches = [int(x) for x in a.batches.split(",")]
    a.lengths, a.scale_batches, a.scale_threads = [10, 50, 200], [1, 32], max(a.threads)
    a.scale_n, a.scale_n1, a.scale_runs, a.hf_runs = 32, 16, 2, 20
    a.step_lengths, a.step_batches, a.step_n1, a.step_runs = [50, 100, 200, 300, 400, 500], \
        [1, 32], 8, 3
    if a.quick:
        a.sentences = a.sentences or 200
        a.runs = 1
        a.scale_n, a.scale_n1, a.scale_runs, a.hf_runs = 32, 4, 1, 10
        a.step_lengths, a.step_runs = [50, 200, 500], 1
    for p in (a.xlate, a.model, a.checkpoint, a.src, a.ref, "/usr/bin/time", PY):
        if not os.path.exists(p):
            raise SystemExit(f"bench: {p} not found")

    a.min_len = "--min-length" in subprocess.run([a.xlate, "--help"], capture_output=True,
                                                 text=True).stdout
    with tempfile.TemporaryDirectory(prefix="xlate-bench.") as tmp:
        a.tmp = tmp
        ids = os.path.join(tmp, "src.ids")
        # the source ids, from the sentencepiece tool (xlate's own encoder if it is missing)
        enc = ["spm_encode", "--model", os.path.join(a.model, "spm.model"), "--output_format=id"]
        if subprocess.run(["sh", "-c", "command -v spm_encode"], capture_output=True).returncode:
            enc = [a.xlate, "encode", "--spm", os.path.join(a.model, "spm.model")]
        with open(a.src) as fi:
            text = fi.read().splitlines()
        if a.sentences:
            text = text[: a.sentences]
        p = subprocess.run(enc, input="\n".join(text) + "\n", capture_output=True, text=True,
                           check=True)
        with open(ids, "w") as f:
            f.write(p.stdout)
        srcs = read_ids(ids)
        ref = open(a.ref).read().splitlines()[: len(srcs)]
        cfg = json.load(open(os.path.join(a.model, "config.json")))
        cost = model_cost(cfg)
        rev = subprocess.run(["git", "-C", TOP, "describe", "--always", "--dirty"],
                             capture_output=True, text=True).stdout.strip()
        torch_v = subprocess.run([PY, "-c", "import torch; print(torch.__version__)"],
                                 capture_output=True, text=True).stdout.strip()
        cpu = platform.processor()
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        why = "left out (--no-ct2)" if a.no_ct2 else ct2_available()
        a.ct2 = why is None
        info = dict(cpu=cpu, ncpu=os.cpu_count(), load0=loadavg(), rev=rev, torch=torch_v,
                    nsent=len(srcs), nsrc=sum(len(s) for s in srcs),
                    kernels={ct: xlate_kernels(a, ct) for ct in a.compute_types},
                    ct2=(subprocess.run([PY, "-c", "import ctranslate2; print("
                                         "ctranslate2.__version__)"], capture_output=True,
                                        text=True).stdout.strip() + " (bench/ct2_translate.py)")
                    if a.ct2 else f"not measured: {why}")
        m = re.search(r"OpenBLAS (\S+)", info["kernels"].get("f32", ""))
        a.blas_core = m.group(1) if m and m.group(1) != "?" else None
        t0 = time.time()
        cal = {} if a.no_calibration else calibrate(a.threads, cost["step_bytes"])
        rows = main_table(a, ids, ref, cost, srcs)
        st = None if a.no_startup else startup(a)
        sc = None if a.no_scaling else scaling(a, srcs, cost)
        steps = None if a.no_steps or not a.min_len else step_cost(a, srcs, cfg)
        report(a, info, cal, rows, st, sc, cost, steps)
        print(f"\n(bench took {time.time() - t0:.0f} s)")
        if a.json:
            strip = lambda r: {k: v for k, v in r.items() if k != "stderr"}  # noqa: E731
            with open(a.json, "w") as f:
                json.dump(dict(info=info, calibration=cal,
                               main=[dict(r, x=strip(r["x"]), p=strip(r["p"]),
                                          c=strip(r["c"]) if r["c"] else None) for r in rows],
                               scaling=[dict(s, x=strip(s["x"]), p=strip(s["p"]))
                                        for s in (sc or [])], startup=st, steps=steps), f,
                          indent=1,
                          default=str)
        bad = [r for r in rows if r["ct"] == "f32" and (not r["same"] or r["x_ref"] != r["n_ref"]
                                                        or r["p_ref"] != r["n_ref"])]
        if bad:
            log("bench: OUTPUTS DIFFER (see the table)")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""hub_pull.py — `xlate pull` on 1, 2, 4 and 8 workers (XLATE_HUB_WORKERS) from
tests/hub/local_hub.py with a slow link: a round trip added to every answer and every new
connection (--latency-ms), and optionally all bodies together capped (--bandwidth-mbs). The
kernel here has no sch_netem (tc qdisc ... netem: "Specified qdisc kind is unknown"), so the
latency is the hub's own (local_hub.py: setup() and send_response() sleep one round trip).

    /usr/bin/python3 bench/hub_pull.py [--xlate ./xlate] [--latency-ms 100] [--bandwidth-mbs 0]
        [--reps 3] [--shape tiny|opus] [--workers 1,2,4,8]

--shape tiny: the tests' OPUS-MT-shaped model (7 files, 360 kB); opus: OPUS-MT's real shape
(d 512, 6+6 layers, vocabulary 58,101, f16: a 150 MB model.safetensors, as the hub's files).
Each run pulls into a fresh cache; the median wall time of --reps runs is printed per worker
count. Figures: bench/README.md "Parallel pulls".
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tests", "hub"))
from local_hub import LocalHub  # noqa: E402


def make(shape, d):
    args = ["--d", "16", "--layers", "1", "--heads", "2", "--ffn", "32"] if shape == "tiny" else \
        ["--d", "512", "--layers", "6", "--heads", "8", "--ffn", "2048", "--dtype", "f16", "--vocab-size", "58101",
         "--spm-vocab", "8000", "--no-center"]
    subprocess.run([sys.executable, os.path.join(TOP, "tools", "make_marian.py"), d] + args, check=True,
                   capture_output=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--xlate", default=os.path.join(TOP, "xlate"))
    ap.add_argument("--latency-ms", type=float, default=100)
    ap.add_argument("--bandwidth-mbs", type=float, default=0)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--shape", choices=("tiny", "opus"), default="tiny")
    ap.add_argument("--model", help="serve this directory instead of making one")
    ap.add_argument("--workers", default="1,2,4,8")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="xlate-bench-hub-")
    try:
        src = a.model or os.path.join(tmp, "model")
        if not a.model:
            make(a.shape, src)
        files = sorted(os.listdir(src))
        size = sum(os.path.getsize(os.path.join(src, f)) for f in files)
        hub = LocalHub({"org/model": src}, extra=["--latency-ms", str(a.latency_ms),
                                                  "--bandwidth-mbs", str(a.bandwidth_mbs)])
        print("%d files, %.1f MB; round trip %g ms; bandwidth %s" % (
            len(files), size / 1e6, a.latency_ms, "%g MB/s" % a.bandwidth_mbs if a.bandwidth_mbs else "unlimited"))
        try:
            for w in [int(x) for x in a.workers.split(",")]:
                times = []
                for r in range(a.reps):
                    cache = os.path.join(tmp, "cache")
                    shutil.rmtree(cache, ignore_errors=True)
                    env = dict(os.environ, HF_ENDPOINT=hub.endpoint, HF_HUB_CACHE=cache, XLATE_HUB_WORKERS=str(w))
                    for k in ("HF_TOKEN", "HF_HUB_OFFLINE"):
                        env.pop(k, None)
                    t0 = time.monotonic()
                    p = subprocess.run([a.xlate, "pull", "org/model", "-q"], env=env, capture_output=True, text=True)
                    times.append(time.monotonic() - t0)
                    if p.returncode:
                        sys.exit("xlate pull failed: %s" % p.stderr)
                print("workers %d: median %.2f s  (runs %s)" % (w, statistics.median(times),
                                                               ", ".join("%.2f" % t for t in times)), flush=True)
        finally:
            hub.stop()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

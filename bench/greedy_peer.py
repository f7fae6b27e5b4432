"""greedy_peer.py — what bench/marian_bench.py and bench/nllb_bench.py share: xlate run under
/usr/bin/time with its -v timings read back, and the PyTorch peer (a script run by
/usr/bin/python3 -c) that decodes the lines in batches with a reference's greedy_fixed."""
import os
import re
import subprocess

PY = "/usr/bin/python3"

# The peer's timed part, after a head that loads `m`, `tok` and `srcs` (the source ids) and sets
# `load`; argv: 1 tools/, 2 the model, 3 threads, 4 the source file, 5 batch, 6 steps, 7 the ids
# out, then the head's own. STEP is one batch's greedy_fixed call over srcs[i:i + B].
PEER_TAIL = r'''B, L = int(sys.argv[5]), int(sys.argv[6])
t0 = time.perf_counter()
rows = []
for i in range(0, len(srcs), B):
    rows += STEP.tolist()
dt = time.perf_counter() - t0
with open(sys.argv[7], "w") as f:
    for r in rows:
        f.write(" ".join(map(str, r[:-1])) + "\n")
print(load, dt, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
'''


def peer_script(head, step):
    """head: imports (resource, sys, time, torch, the reference as R) and the loading; step:
    the expression that decodes srcs[i:i + B] (a [B, steps] tensor of ids)."""
    return head + PEER_TAIL.replace("STEP", step)


def loadavg():
    return open("/proc/loadavg").read().split()[0]


def run_xlate(cmd, env=None):
    """xlate's command (with -v) under /usr/bin/time: (load s, translate s, peak RSS KiB, its
    stderr)."""
    p = subprocess.run(["/usr/bin/time", "-f", "RSS %M"] + cmd, capture_output=True, text=True,
                       check=True, env=env)
    load, tr = map(float, re.search(r"load ([0-9.]+) s, translate ([0-9.]+) s", p.stderr).groups())
    return load, tr, int(re.search(r"RSS (\d+)", p.stderr).group(1)), p.stderr


def run_peer(script, top, d, threads, src, B, steps, out, *extra):
    """The peer on src in batches of B: (load s, decode s, peak RSS KiB)."""
    p = subprocess.run([PY, "-c", script, os.path.join(top, "tools"), d, str(threads), src,
                        str(B), str(steps), out] + list(extra), capture_output=True, text=True,
                       check=True)
    load, tr, rss = p.stdout.split()
    return float(load), float(tr), int(rss)

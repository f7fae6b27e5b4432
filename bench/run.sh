#!/bin/sh
# run.sh — xlate against PyTorch on the default model (what `make bench` runs; see README.md here).
#   sh bench/run.sh            the full benchmark, about 7 minutes: threads 1 and 2, batches 1,
#                              32, 64, best of 3 runs; start-up; scaling with length; per-step cost
#   sh bench/run.sh --quick    about 1 minute: the first 200 sentences, 1 run
# Other options go to bench/bench.py (--help). Prints a markdown report on stdout, progress on
# stderr; exits 1 if xlate's and PyTorch's outputs differ, 2 if something is missing.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
PY=/usr/bin/python3
missing=""
[ -x "$top/xlate" ] || missing="$missing ./xlate (run make)"
$PY -c "import torch, numpy" 2>/dev/null || missing="$missing python3-torch/python3-numpy"
command -v hyperfine >/dev/null 2>&1 || missing="$missing hyperfine"
[ -x /usr/bin/time ] || missing="$missing /usr/bin/time (apt-get install time)"
if [ -n "$missing" ]; then
  echo "bench: missing:$missing" >&2
  exit 2
fi
exec $PY "$top/bench/bench.py" "$@"

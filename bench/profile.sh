#!/bin/sh
# profile.sh — where xlate's time goes: perf (time samples) and callgrind (instruction counts,
# stable on a noisy machine), at batch 1 and batch 32, one thread, on the first N sentences of
# test_2016_flickr.
#   sh bench/profile.sh [N] [BATCHES] [THREADS]      defaults: 200, "1 32", 1
# Environment: XLATE (default ./xlate), CALLGRIND=0 to skip callgrind, CALLGRIND_N (default 16:
# callgrind runs about 50x slower than native), PERF_FREQ (default 4000).
#
# Debian's OpenBLAS has no symbol table, only the exported symbols: its static kernels (the
# sgemv/sgemm micro-kernels) show up as bare addresses. Each address is named here after the
# exported function that follows it in the library (static helpers are emitted before the
# function of their file), e.g. "sgemv_t_HASWELL (static kernel)".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
XLATE=${XLATE:-$top/xlate}
N=${1:-200}
BATCHES=${2:-1 32}
T=${3:-1}
FREQ=${PERF_FREQ:-4000}
SRC=$top/tests/data/multi30k/test_2016_flickr.en
MODEL=$top/models/en-de
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

head -n "$N" "$SRC" | spm_encode --model "$MODEL/spm.model" --output_format=id >"$tmp/in.ids"
CGN=${CALLGRIND_N:-16}
head -n "$CGN" "$tmp/in.ids" >"$tmp/small.ids"
blas=$(ldd "$XLATE" | awk '/libopenblas/ {print $3}')
blas=$(readlink -f "$blas")
nm -D -S --defined-only "$blas" | awk 'NF == 4 {print $1, $2, $4}' | sort >"$tmp/syms"

# name_addrs: stdin "PERCENT DSO SYMBOL", unnamed OpenBLAS addresses named; sums by name.
name_addrs() {
  /usr/bin/python3 -c '
import bisect, collections, sys
syms = [l.split() for l in open(sys.argv[1])]
starts = [int(a, 16) for a, _, _ in syms]
def name(addr):
    i = bisect.bisect_right(starts, addr) - 1
    if i >= 0 and addr < starts[i] + int(syms[i][1], 16):
        return syms[i][2]
    return (syms[i + 1][2] + " (static kernel)") if i + 1 < len(syms) else hex(addr)
tot = collections.Counter()
for line in sys.stdin:
    f = line.split()
    if len(f) < 3 or not f[0].endswith("%"):
        continue
    pct, dso, sym = float(f[0][:-1]), f[1], f[-1]
    if sym.startswith("0x") and "openblas" in dso:
        sym = name(int(sym, 16))
    tot[(dso, sym)] += pct
for (dso, sym), p in tot.most_common(int(sys.argv[2])):
    print(f"{p:6.2f}%  {dso:28s} {sym}")
' "$tmp/syms" "$1"
}

echo "xlate: $XLATE ($(git -C "$top" describe --always --dirty 2>/dev/null)); OpenBLAS: $blas"
echo "input: first $N sentences of test_2016_flickr ($(wc -w <"$tmp/in.ids") source tokens); threads $T; load average $(cut -d' ' -f1-3 /proc/loadavg)"
for B in $BATCHES; do
  cmd="$XLATE --input-format ids --output-format ids --batch-size $B --threads $T"
  echo
  echo "== perf, batch $B: $cmd < in.ids"
  perf stat -e task-clock,context-switches,cpu-migrations,page-faults -o "$tmp/stat" \
    $cmd <"$tmp/in.ids" >/dev/null
  grep -E "task-clock|context|migrations|faults|elapsed" "$tmp/stat" | sed 's/^ */   /'
  perf record -q -F "$FREQ" -o "$tmp/perf.data" $cmd <"$tmp/in.ids" >/dev/null 2>&1
  perf report -i "$tmp/perf.data" --no-children --sort dso,sym -g none 2>/dev/null |
    grep -v '^#' | name_addrs 18
  if [ "${CALLGRIND:-1}" = 1 ] && command -v valgrind >/dev/null; then
    echo "-- callgrind, batch $B, first $CGN sentences: instructions by function"
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" $cmd <"$tmp/small.ids" \
      >/dev/null 2>"$tmp/cg.err"
    grep -o 'Collected : [0-9]*' "$tmp/cg.err" | sed 's/Collected :/   total instructions:/'
    callgrind_annotate "$tmp/cg.out" 2>/dev/null | grep -E '^ *[0-9,]+ \(' | grep -v TOTALS |
      sed -E 's/^ *[0-9,]+ \( *([0-9.]+)%\) +([^ ]+) \[([^]]*)\].*/\1% \3 \2/' |
      awk '{n = split($3, a, ":"); d = $2; sub(/.*\//, "", d); print $1, d, a[n]}' |
      name_addrs 12
  fi
done

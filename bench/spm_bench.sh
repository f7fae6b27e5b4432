#!/bin/sh
# spm_bench.sh — tokenizer throughput of `xlate encode` / `xlate decode` against sentencepiece's
# spm_encode / spm_decode on the same input, measured in the same run (best of R runs each).
#   sh bench/spm_bench.sh [MODEL] [TEXT] [COPIES] [RUNS]
# Defaults: the default model's spm.model, tests/data/multi30k/val.en concatenated 100 times
# (101,400 lines), 3 runs.
# Environment: XLATE (default ./xlate). Also checks that both programs print the same ids.
# Rows "xlate+spans": `xlate encode/decode --spans`, each token's byte span printed too.
# Extra models: SPM_BENCH_TRAIN=1 also trains a BPE model (vocab 8000) and benchmarks it.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
XLATE=${XLATE:-$top/xlate}
MODEL=${1:-$top/models/en-de/spm.model}
TEXT=${2:-$top/tests/data/multi30k/val.en}
COPIES=${3:-100}
RUNS=${4:-3}

for p in "$XLATE" spm_encode spm_decode; do
  command -v "$p" >/dev/null 2>&1 || { echo "spm_bench: $p not found" >&2; exit 2; }
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
i=0; while [ "$i" -lt "$COPIES" ]; do cat "$TEXT"; i=$((i + 1)); done >"$tmp/in.txt"
lines=$(wc -l <"$tmp/in.txt"); bytes=$(wc -c <"$tmp/in.txt")

# best wall time of RUNS runs of a command line (seconds, 3 decimals)
best() {
  b=""
  r=0
  while [ "$r" -lt "$RUNS" ]; do
    s=$(date +%s.%N); sh -c "$1" || { echo "spm_bench: failed: $1" >&2; exit 1; }
    e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc -l)
    if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
    r=$((r + 1))
  done
  printf '%.3f' "$b"
}

bench_model() {
  m=$1; label=$2
  spm_encode --model "$m" --output_format=id <"$tmp/in.txt" >"$tmp/ref.ids"
  "$XLATE" encode --spm "$m" -i "$tmp/in.txt" -o "$tmp/got.ids"
  if cmp -s "$tmp/ref.ids" "$tmp/got.ids"; then same="ids identical"; else same="IDS DIFFER"; fi
  te_s=$(best "spm_encode --model '$m' --output_format=id <'$tmp/in.txt' >/dev/null")
  te_x=$(best "'$XLATE' encode --spm '$m' -i '$tmp/in.txt' -o /dev/null")
  td_s=$(best "spm_decode --model '$m' --input_format=id <'$tmp/ref.ids' >/dev/null")
  td_x=$(best "'$XLATE' decode --spm '$m' -i '$tmp/ref.ids' -o /dev/null")
  te_sp=$(best "'$XLATE' encode --spans --spm '$m' -i '$tmp/in.txt' -o /dev/null")
  td_sp=$(best "'$XLATE' decode --spans --spm '$m' -i '$tmp/ref.ids' -o /dev/null")
  echo "model: $label ($same)"
  printf '  %-8s %-12s %9s %12s %10s\n' op program seconds lines/s "vs spm"
  for row in "encode spm_encode $te_s $te_s" "encode xlate $te_x $te_s" \
             "encode xlate+spans $te_sp $te_s" \
             "decode spm_decode $td_s $td_s" "decode xlate $td_x $td_s" \
             "decode xlate+spans $td_sp $td_s"; do
    set -- $row
    printf '  %-8s %-12s %9s %12.0f %9.2fx\n' "$1" "$2" "$3" "$(echo "$lines / $3" | bc -l)" \
      "$(echo "$4 / $3" | bc -l)"
  done
}

echo "input: $(basename "$TEXT") x $COPIES = $lines lines, $bytes bytes; best of $RUNS runs"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')"
bench_model "$MODEL" "$(basename "$MODEL")"
if [ "${SPM_BENCH_TRAIN:-0}" = 1 ]; then
  spm_train --input="$TEXT" --model_prefix="$tmp/bpe" --model_type=bpe --vocab_size=8000 \
    --minloglevel=2 >/dev/null 2>&1 && bench_model "$tmp/bpe.model" "bpe 8000 (trained on $(basename "$TEXT"))"
fi

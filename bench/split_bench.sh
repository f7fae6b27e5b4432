#!/bin/sh
# split_bench.sh — what splitting lines into sentences costs (part of `make bench`).
#   sh bench/split_bench.sh [MB]     a file of MB (default 1) MB of paragraphs
# The paragraphs are Multi30k training captions, 2 to 6 to a line. Reports, as markdown on
# stdout: the time xlate spent splitting inside a real translation run (-v's "splitting into
# sentences" line) against that run's translate time; `xlate split` alone (MB/s); peak RSS of
# the translation of 1 MB as 2-6 sentence lines, as one 1 MB line of paragraphs, and of 4x the
# input (memory stays flat). CPU model and the kernels -v names are printed first.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
X="$top/xlate"
MB=${1:-1}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
[ -x "$X" ] || { echo "split_bench: run make first" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "split_bench: /usr/bin/time missing (apt-get install time)" >&2; exit 2; }

bytes=$((MB * 1000000))
gzip -dc "$top/tests/data/multi30k/train.en.gz" | awk -v max="$bytes" '
  BEGIN { srand(22); n = 0 }
  { s = $0; sub(/[ \t\r]+$/, "", s); if (s !~ /[.!?]$/) s = s "."; line = line (k ? " " : "") s; k++
    if (k >= 2 + int(rand() * 5)) { print line; n += length(line) + 1; line = ""; k = 0
      if (n >= max) exit } }' > "$T/para.en"
# the same text as one line (paragraphs joined): lines up to 1 MB work
tr '\n' ' ' < "$T/para.en" | head -c 1000000 > "$T/one.en"; echo >> "$T/one.en"
for i in 1 2 3 4; do cat "$T/para.en"; done > "$T/para4.en"
lines=$(wc -l < "$T/para.en")
size=$(wc -c < "$T/para.en")

echo "## Splitting lines into sentences"
echo
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cores; $(date -u +%Y-%m-%d)"
"$X" -v -i "$T/para.en" -o "$T/out.de" --threads 2 2> "$T/v.err" || { cat "$T/v.err" >&2; exit 1; }
grep -E 'compute type' "$T/v.err" | sed 's/^xlate: /kernels: /'
echo
echo "Input: $size bytes, $lines lines of 2-6 Multi30k training captions."
echo
echo "| measure | value |"
echo "|---|---:|"
grep -E '^xlate: [0-9]+ lines: ' "$T/v.err" | sed -E 's/^xlate: ([0-9]+) lines: ([0-9]+) sentences.*/| lines \/ sentences translated | \1 \/ \2 |/'
tt=$(sed -nE 's/^xlate: load [0-9.]+ s, translate ([0-9.]+) s.*/\1/p' "$T/v.err")
sp=$(sed -nE 's/^xlate: splitting into sentences ([0-9.]+) s \(([0-9.]+)%.*/\1/p' "$T/v.err")
share=$(sed -nE 's/^xlate: splitting into sentences [0-9.]+ s \(([0-9.]+)%.*/\1/p' "$T/v.err")
echo "| translate time (2 threads) | $tt s |"
echo "| splitting inside that run | $sp s |"
echo "| **splitting / translate time** | **$share%** (target < 2%) |"
sed -nE 's/^xlate: ([0-9.]+) sentences\/s.*/| sentences\/s | \1 |/p' "$T/v.err"
# the splitter alone: best of 5
best=""
for i in 1 2 3 4 5; do
  t0=$(date +%s.%N); "$X" split -i "$T/para.en" > /dev/null; t1=$(date +%s.%N)
  best=$(awk -v a="$t0" -v b="$t1" -v best="$best" 'BEGIN { t = b - a; print (best == "" || t < best) ? t : best }')
done
awk -v t="$best" -v n="$size" 'BEGIN { printf "| `xlate split` alone (best of 5, process start included) | %.3f s, %.1f MB/s |\n", t, n / t / 1e6 }'
# memory: every sentence read, split and batched, 2 tokens generated each (the decoder's
# length does not grow with the input, the window's text and ids would)
rss() { /usr/bin/time -f %M "$X" -q --threads 2 --max-length 2 -i "$1" -o /dev/null 2>&1 >/dev/null | tail -1; }
r1=$(rss "$T/para.en"); r4=$(rss "$T/para4.en"); ro=$(rss "$T/one.en")
echo "| peak RSS (--max-length 2): 1 MB as $lines lines / 4 MB / 1 MB as one line | $r1 KB / $r4 KB / $ro KB |"

#!/bin/sh
# doc_bench.sh — documents (--format html, --format markdown) against the same text as plain
# lines (part of `make bench`).
#   sh bench/doc_bench.sh [PARAGRAPHS]     (default 60)
# The document is PARAGRAPHS paragraphs of 2-6 Multi30k training captions, a third of them
# with a word in bold, a link or emphasis, under a heading; the plain text is the same
# paragraphs, one a line. The three inputs run in turn, three rounds, the best of each, 2 threads. Reports, as
# markdown on stdout: documents/s for each format, the overhead over the plain text (parsing,
# alignments, writing back), and the parse time -v names. CPU model and kernels first.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
X="$top/xlate"
N=${1:-60}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
[ -x "$X" ] || { echo "doc_bench: run make first" >&2; exit 2; }

gzip -dc "$top/tests/data/multi30k/train.en.gz" | awk -v n="$N" -v dir="$T" '
  BEGIN { srand(23); p = 0
          html = dir "/doc.html"; md = dir "/doc.md"; plain = dir "/plain.en"
          print "<!DOCTYPE html>\n<html><head><title>A day in the park</title></head><body>\n<h1>A day in the park</h1>" > html
          print "# A day in the park\n" > md
          print "A day in the park" > plain }
  { s = $0; sub(/[ \t\r]+$/, "", s); if (s !~ /[.!?]$/) s = s "."
    line = line (k ? " " : "") s; k++
    if (k < 2 + int(rand() * 5)) next
    # one word of a third of the paragraphs marked up
    h = line; m = line; kind = p % 3; w = split(line, ws, " "); j = 2 + int(rand() * (w - 2))
    if (w > 3 && ws[j] ~ /^[A-Za-z]+$/) {
      hh = ""; mm = ""
      for (i = 1; i <= w; i++) {
        hw = ws[i]; mw = ws[i]
        if (i == j) {
          if (kind == 0) { hw = "<b>" ws[i] "</b>"; mw = "**" ws[i] "**" }
          else if (kind == 1) { hw = "<a href=\"https://example.org/" p "\">" ws[i] "</a>"; mw = "[" ws[i] "](https://example.org/" p ")" }
          else { hw = "<em>" ws[i] "</em>"; mw = "*" ws[i] "*" }
        }
        hh = hh (i > 1 ? " " : "") hw; mm = mm (i > 1 ? " " : "") mw
      }
      h = hh; m = mm
    }
    print "<p>" h "</p>" > html; print m "\n" > md; print line > plain
    line = ""; k = 0; p++
    if (p >= n) { print "</body></html>" > html; exit } }'

# wall seconds of "$@"
secs() {
  t0=$(date +%s.%N); "$@" > /dev/null; t1=$(date +%s.%N)
  awk -v a="$t0" -v c="$t1" 'BEGIN { print c - a }'
}
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }

echo "## Documents: HTML and Markdown against the same text as plain lines"
echo
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cores; $(date -u +%Y-%m-%d)"
"$X" -v --threads 2 -i "$T/plain.en" -o /dev/null 2> "$T/v.err" || { cat "$T/v.err" >&2; exit 1; }
grep -E 'compute type' "$T/v.err" | sed 's/^xlate: /kernels: /'
echo
echo "Input: $N paragraphs ($(wc -c < "$T/plain.en") bytes of text; HTML $(wc -c < "$T/doc.html") bytes, Markdown $(wc -c < "$T/doc.md") bytes), 2 threads, best of 3 runs each, process start and model load included."
echo
for f in html markdown; do
  ext=$([ "$f" = html ] && echo html || echo md)
  "$X" -v --threads 2 --format "$f" -i "$T/doc.$ext" -o "$T/out.$ext" 2> "$T/$f.err" ||
    { echo "doc_bench: --format $f failed: $(tail -1 "$T/$f.err")" >&2; exit 1; }
done
# the three inputs in turn, three rounds, the best of each: a load that comes and goes
# weighs on all three alike
tp=""; th=""; tm=""
for i in 1 2 3; do
  tp=$(min "$tp" "$(secs "$X" -q --threads 2 -i "$T/plain.en")")
  th=$(min "$th" "$(secs "$X" -q --threads 2 --format html -i "$T/doc.html")")
  tm=$(min "$tm" "$(secs "$X" -q --threads 2 --format markdown -i "$T/doc.md")")
done
echo "| input | seconds | documents/s | overhead over plain text | parse (-v) |"
echo "|---|---:|---:|---:|---:|"
awk -v t="$tp" 'BEGIN { printf "| plain lines | %.3f | %.2f | | |\n", t, 1 / t }'
for f in html markdown; do
  t=$([ "$f" = html ] && echo "$th" || echo "$tm")
  parse=$(sed -nE 's/.* parse ([0-9.]+) s.*/\1/p' "$T/$f.err")
  awk -v t="$t" -v p="$tp" -v f="$f" -v ps="$parse" \
    'BEGIN { printf "| %s | %.3f | %.2f | %+.1f%% | %s s |\n", f, t, 1 / t, 100 * (t / p - 1), ps }'
done

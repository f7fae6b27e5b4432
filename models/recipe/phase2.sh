#!/bin/sh
# The software model's second phase mix (README.md here): from a corpus tools/corpus/build.py
# wrote, the program messages once, the documentation paragraphs three times and Multi30k's
# captions six times, without the dictionary's terms; shuffled with a fixed seed.
#   models/recipe/phase2.sh CORPUS_DIR MULTI30K_DIR OUT_DIR
set -eu
corpus=$1 m30k=$2 out=$3
mkdir -p "$out"
{
  paste "$corpus/train.origin" "$corpus/train.en" "$corpus/train.de" |
    awk -F'\t' 'BEGIN { OFS = "\t" }
                $1 == "messages" { print $3, $4 }
                $1 == "docs"     { for (i = 0; i < 3; i++) print $3, $4 }'
  for i in 1 2 3 4 5 6; do paste "$m30k/train.en" "$m30k/train.de"; done
} > "$out/mix.tsv"
# a seeded shuffle: the lines' order by the md5 of "line number:line" (reproducible, no RNG)
awk '{ print NR "\t" $0 }' "$out/mix.tsv" |
  /usr/bin/python3 -c '
import hashlib, sys
rows = sys.stdin.read().split("\n")[:-1]
rows.sort(key=lambda r: hashlib.md5(r.encode("utf-8")).digest())
sys.stdout.write("".join(r.split("\t", 1)[1] + "\n" for r in rows))' > "$out/mix.shuf"
cut -f1 "$out/mix.shuf" > "$out/train.en"
cut -f2 "$out/mix.shuf" > "$out/train.de"
# validation: the corpus's dev set and Multi30k's val, so that best.pt weighs captions too
cat "$corpus/val.en" "$m30k/val.en" > "$out/val.en"
cat "$corpus/val.de" "$m30k/val.de" > "$out/val.de"
rm "$out/mix.tsv" "$out/mix.shuf"
wc -l "$out/train.en"

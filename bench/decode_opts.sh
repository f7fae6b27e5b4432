#!/bin/sh
# bench/decode_opts.sh — what each decoding control costs (docs/DECODING.md "Decoding controls"): CPU
# seconds (user + sys, one thread) of translating IN with the default model, R alternating
# rounds, then the median of each row. OLD: another build to compare greedy and beam 4 with in
# the same run (default: NEW itself).
#   IN=/tmp/in300.en OLD=/path/to/older/xlate R=3 sh bench/decode_opts.sh
IN=${IN:-tests/data/multi30k/test_2016_flickr.en}
NEW=${NEW:-./xlate}
OLD=${OLD:-$NEW}
R=${R:-3}
OUT=$(mktemp)
run() { # label program args...
  label=$1; shift
  t=$( { /usr/bin/time -f "%U %S" "$@" -q -m models/en-de --threads 1 -i "$IN" > /dev/null; } 2>&1 |
      tail -1 | awk '{print $1 + $2}')
  echo "$label $t" | tee -a "$OUT"
}
for i in $(seq "$R"); do
  run old-greedy "$OLD"
  run new-greedy "$NEW"
  run old-beam4 "$OLD" --beam-size 4
  run new-beam4 "$NEW" --beam-size 4
  run ngram3 "$NEW" --no-repeat-ngram-size 3
  run unk+suppress "$NEW" --disable-unk --suppress Mann
  run prefix-column "$NEW" --target-prefix-column
  run rep1.2 "$NEW" --repetition-penalty 1.2
  run greedy-noscreen env XLATE_SCREEN=0 "$NEW"
  run sample-all "$NEW" --sampling-topk 0 --seed 1
  run sample-k50 "$NEW" --sampling-topk 50 --seed 1
  run sample-p0.9 "$NEW" --sampling-topp 0.9 --seed 1
  run alternatives3 "$NEW" --return-alternatives 3
  run beam4-rep1.2 "$NEW" --beam-size 4 --repetition-penalty 1.2
  run beam4-ngram3 "$NEW" --beam-size 4 --no-repeat-ngram-size 3
done
echo "median of $R:"
awk '{v[$1] = v[$1] " " $2; n[$1]++} END {for (k in v) print k, v[k]}' "$OUT" | while read -r k vals; do
  echo "$k $(echo "$vals" | tr ' ' '\n' | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')"
done
rm -f "$OUT"

# workspace.sh — --workspace SIZE (issue 40): a bound on a batch's decoding working memory.
# A batch that would pass it is decoded in slices, and since a translation never depends on its
# batch the output is byte-identical at every bound: beam 4 with --n-best 2 and scores (jsonl)
# and greedy, 40 Multi30k lines in batches of 32, with no bound and bounds from the neediest
# sentence's need to 40 times it. A bound too small for a sentence is a usage error (exit 1) naming the
# bytes that sentence needs; that figure is the threshold itself (the sentence alone runs at the
# next KiB up and fails at the KiB below). -v says what the batches were planned for, never more
# than the bound. Off by default.
. tests/cli/lib.sh
head -n 40 tests/data/multi30k/test_2016_flickr.en > "$T/in"
# the longest line, alone
awk '{ print length($0) "\t" $0 }' "$T/in" | sort -n -r | head -n 1 | cut -f 2- > "$T/long"
M=models/en-de

"$XLATE" -m $M --split none --beam-size 4 --workspace 1K < "$T/long" > "$T/o" 2> "$T/e"
expect_rc "--workspace 1K, beam 4: a usage error" $? 1
expect_grep "its message names the bytes the sentence needs" "$T/e" \
  'xlate: --workspace: a sentence of [0-9]+ source tokens \(4 hypotheses of up to [0-9]+ tokens\) needs [0-9]+ bytes'
NEED=$(sed -n 's/.* needs \([0-9]*\) bytes.*/\1/p' "$T/e")
if [ -z "$NEED" ]; then NEED=1048576; fi
UP=$(( (NEED + 1023) / 1024 ))
DOWN=$(( (NEED - 1) / 1024 ))
"$XLATE" -m $M --split none --beam-size 4 < "$T/long" > "$T/long.free" 2> "$T/e"
"$XLATE" -m $M --split none --beam-size 4 --workspace ${UP}K < "$T/long" > "$T/long.up" 2> "$T/e"
expect_rc "the sentence alone at --workspace ${UP}K (its $NEED bytes rounded up): runs" $? 0
if cmp -s "$T/long.up" "$T/long.free"; then ok "... and translates as without a bound"
else notok "... and translates as without a bound" "$(cat "$T/long.up") vs $(cat "$T/long.free")"; fi
"$XLATE" -m $M --split none --beam-size 4 --workspace ${DOWN}K < "$T/long" > /dev/null 2> "$T/e"
expect_rc "the sentence alone at --workspace ${DOWN}K (below $NEED bytes): a usage error" $? 1

run() { # NAME ARGS...
  name=$1; shift
  "$XLATE" -m $M -v --split none --batch-size 32 "$@" -i "$T/in" -o "$T/out.$name" \
    2> "$T/err.$name"
  rc=$?
  if [ $rc -ne 0 ]; then notok "$name: exit 0" "exit $rc: $(head -c 300 "$T/err.$name")"; fi
}
for k in beam greedy; do
  if [ $k = beam ]; then set -- --beam-size 4 --n-best 2 --output-format jsonl --scores
  else set -- --beam-size 1 --output-format jsonl; fi
  # the bytes the batch's neediest sentence needs (the longest: the pipeline sorts by length)
  "$XLATE" -m $M --split none --batch-size 32 "$@" --workspace 1K -i "$T/in" > /dev/null \
    2> "$T/e"
  N1=$(sed -n 's/.* needs \([0-9]*\) bytes.*/\1/p' "$T/e")
  if [ -z "$N1" ]; then notok "$k: --workspace 1K names the bytes needed" "$(cat "$T/e")"; N1=1048576; fi
  UP=$(( (N1 + 1023) / 1024 ))
  run $k.free "$@"
  expect_grep "$k: -v without --workspace: the planned working memory, no bound" "$T/err.$k.free" \
    'decoding working memory planned: at most [0-9.]+ MiB a batch \([0-9]+ sentences x [0-9]+ hypotheses x [0-9]+ positions\); no --workspace bound'
  for b in ${UP}K $((UP * 2))K $((UP * 5))K $((UP * 40))K; do
    run $k.$b "$@" --workspace $b
    if cmp -s "$T/out.$k.$b" "$T/out.$k.free"; then ok "$k, --workspace $b: byte-identical to no bound"
    else notok "$k, --workspace $b: byte-identical to no bound" "$(diff "$T/out.$k.$b" "$T/out.$k.free" | head -4)"; fi
    planned=$(sed -n 's/.*planned: at most \([0-9.]*\) MiB a batch.*/\1/p' "$T/err.$k.$b")
    bound=$(sed -n 's/.*--workspace \([0-9.]*\) MiB:.*/\1/p' "$T/err.$k.$b")
    if [ -n "$planned" ] && [ -n "$bound" ] && awk -v p="$planned" -v b="$bound" 'BEGIN { exit !(p <= b) }'; then
      ok "$k, --workspace $b: -v's planned batch ($planned MiB) within the bound ($bound MiB)"
    else
      notok "$k, --workspace $b: -v's planned batch within the bound" "$(grep workspace "$T/err.$k.$b")"
    fi
  done
  expect_grep "$k, --workspace ${UP}K: the batch was decoded in slices" "$T/err.$k.${UP}K" \
    '--workspace [0-9.]+ MiB: [1-9][0-9]* batches decoded in slices'
done

printf '# A title\n\nA dog runs in the park.\n' > "$T/doc.md"
"$XLATE" -m $M --format markdown --beam-size 4 --workspace 1K < "$T/doc.md" > /dev/null 2> "$T/e"
rc=$?
if [ $rc -eq 1 ] && grep -q -- '--workspace: a sentence of .* needs [0-9]* bytes' "$T/e"; then
  ok "--format markdown, --workspace 1K: a usage error naming the bytes"
else notok "--format markdown, --workspace 1K: a usage error naming the bytes" "exit $rc: $(cat "$T/e")"; fi
for bad in 0 -3 12X 5T "" 2000G; do
  "$XLATE" -m $M --workspace "$bad" "A dog." > /dev/null 2> "$T/e"
  rc=$?
  if [ $rc -eq 1 ] && grep -q -- '--workspace' "$T/e"; then ok "--workspace \"$bad\": a usage error naming it"
  else notok "--workspace \"$bad\": a usage error naming it" "exit $rc: $(cat "$T/e")"; fi
done
finish

# cli_parallel.sh — sharding with GNU parallel (Debian's `parallel`): `parallel --pipe
# --keep-order` cuts the input into blocks of lines, runs one xlate per block and writes the
# outputs in input order; the result equals a single-process run line for line.
. tests/cli/lib.sh
if ! parallel --version 2> /dev/null | grep -q 'GNU parallel'; then
  ok "GNU parallel sharding # SKIP GNU parallel is not installed (apt-get install parallel)"
  finish
fi
EN=tests/data/multi30k/test_2016_flickr.en
head -n 150 "$EN" | awk '{ print } NR % 40 == 0 { print "" }' > "$T/in"
"$XLATE" -m models/en-de -q --threads 2 < "$T/in" > "$T/single"

# Blocks of 50 lines, two jobs at a time, one thread each.
parallel --will-cite --pipe --keep-order -N 50 -j 2 "$XLATE" -m models/en-de -q --threads 1 \
  < "$T/in" > "$T/sharded" 2> "$T/err"
expect_rc "parallel --pipe --keep-order -N 50: exit 0" $? 0
expect_eq "sharded: as many lines as the input" "$(wc -l < "$T/sharded")" "$(wc -l < "$T/in")"
if cmp -s "$T/single" "$T/sharded"; then ok "sharded (-N 50, -j 2) equals the single-process run line for line"
else notok "sharded equals the single-process run" "$(diff "$T/single" "$T/sharded" | head -4)"; fi

# By size (--block): blocks end at line ends, whatever their size.
parallel --will-cite --pipe --keep-order --block 2k -j 3 "$XLATE" -m models/en-de -q --threads 1 \
  < "$T/in" > "$T/sharded2" 2> "$T/err"
if cmp -s "$T/single" "$T/sharded2"; then ok "sharded by size (--block 2k, -j 3) equals the single-process run"
else notok "sharded by size equals the single-process run" "$(diff "$T/single" "$T/sharded2" | head -4)"; fi

# Many small shards of an id stream (tiny fixture model): 20000 lines in blocks of 1000.
F=tests/fixtures/parity/post_relu_tied
awk 'BEGIN { for (i = 0; i < 20000; i++) { k = 1 + i % 5; s = "";
  for (j = 0; j < k; j++) s = s (j ? " " : "") 4 + (i * 7 + j * 13 + int(i / 5)) % 57; print s } }' > "$T/ids"
"$XLATE" -m "$F" --input-format ids --output-format ids --max-length 8 < "$T/ids" > "$T/ids.single"
parallel --will-cite --pipe --keep-order -N 1000 -j 4 "$XLATE" -m "$F" --input-format ids \
  --output-format ids --max-length 8 --threads 1 < "$T/ids" > "$T/ids.sharded" 2> "$T/err"
if cmp -s "$T/ids.single" "$T/ids.sharded"; then ok "20 id shards (-N 1000, -j 4) equal the single-process run"
else notok "20 id shards equal the single-process run" "$(diff "$T/ids.single" "$T/ids.sharded" | head -4)"; fi

# A failing shard fails the whole run (parallel's exit status is the number of failed jobs).
printf '4 5\nx\n6\n' | parallel --will-cite --pipe --keep-order -N 1 "$XLATE" -m "$F" \
  --input-format ids --output-format ids --max-length 8 --threads 1 > "$T/out" 2> "$T/err"
rc=$?
if [ $rc -ne 0 ]; then ok "a bad shard makes parallel fail (exit $rc)"; else notok "a bad shard makes parallel fail" "exit 0"; fi
expect_grep "a bad shard: xlate's message reaches stderr" "$T/err" 'stdin: line 1: "x" is not a token id'
finish

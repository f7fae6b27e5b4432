# cli_batch.sh — a sentence's translation does not depend on the batch it was in, nor on the
# thread count: the first 200 lines of test_2016_flickr.en with batch sizes 1, 7, 32 and 64,
# 1 and 2 threads, a token cap and a small window all give byte-identical output, equal to
# PyTorch's own greedy translations (one sentence at a time) of the same lines.
. tests/cli/lib.sh
EN=tests/data/multi30k/test_2016_flickr.en
REF=tests/data/reference/test_2016_flickr.de
N=200
head -n $N "$EN" > "$T/in"
head -n $N "$REF" > "$T/ref"
# Shuffle a few empty lines in: they must not shift anything either.
awk '{ print } NR % 37 == 0 { print "" }' "$T/in" > "$T/in_gaps"
awk '{ print } NR % 37 == 0 { print "" }' "$T/ref" > "$T/ref_gaps"

run() { # NAME ARGS...
  name=$1; shift
  "$XLATE" -m models/en-de -q "$@" -i "$T/in_gaps" -o "$T/out.$name" 2> "$T/err.$name"
  rc=$?
  if [ $rc -ne 0 ]; then notok "$name: exit 0" "exit $rc: $(head -c 300 "$T/err.$name")"; fi
}
run b1t1 --batch-size 1 --threads 1
run b7t1 --batch-size 7 --threads 1
run b32t1 --batch-size 32 --threads 1
run b64t1 --batch-size 64 --threads 1
run b1t2 --batch-size 1 --threads 2
run b7t2 --batch-size 7 --threads 2
run b32t2 --batch-size 32 --threads 2
run b64t2 --batch-size 64 --threads 2
run tok --batch-size 64 --batch-tokens 100 --threads 2
run win --batch-size 4 --window 9 --threads 2

for f in "$T"/out.*; do
  name=${f##*.}
  [ "$name" = b1t1 ] && continue
  if cmp -s "$f" "$T/out.b1t1"; then ok "$name: byte-identical to --batch-size 1 --threads 1"
  else notok "$name: byte-identical to --batch-size 1 --threads 1" "$(diff "$f" "$T/out.b1t1" | head -4)"; fi
done
if cmp -s "$T/out.b1t1" "$T/ref_gaps"; then ok "$N lines: PyTorch's greedy translations, empty lines kept in place"
else notok "$N lines: PyTorch's greedy translations" "$(diff "$T/out.b1t1" "$T/ref_gaps" | head -4)"; fi
finish

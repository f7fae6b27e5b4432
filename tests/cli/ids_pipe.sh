# ids_pipe.sh — `xlate --input-format ids --output-format ids` on the PyTorch fixtures, and
# every bad input of the id pipe and the model directory: message, exit status.
. tests/cli/lib.sh
F=${PARITY_DIR:-tests/fixtures/parity} # make parity: fresh fixtures in build/parity

# Greedy outputs through the pipe equal PyTorch's (fixtures from tools/reference.py).
for d in "$F"/*/; do
  v=$(basename "$d")
  "$XLATE" -m "$d" --input-format ids --output-format ids --max-length "$(cat "$d/max_length")" \
    < "$d/src.ids" > "$T/out" 2> "$T/err"
  rc=$?
  if [ $rc -eq 0 ] && cmp -s "$T/out" "$d/greedy.ids"; then ok "$v: ids pipe equals PyTorch greedy"
  else notok "$v: ids pipe equals PyTorch greedy" "rc $rc; $(diff "$T/out" "$d/greedy.ids" | head -5) $(head -c 300 "$T/err")"; fi
done

M=$F/post_relu_tied
V=$(sed -n 's/.*"src_vocab_size": *\([0-9]*\).*/\1/p' "$M/config.json")
ML=$(cat "$M/max_length")

# Empty lines give empty lines; the last line may lack its newline; CRLF is accepted.
first=$(head -n 1 "$M/src.ids"); want=$(head -n 1 "$M/greedy.ids")
printf '%s\n\n   \n%s\r\n%s' "$first" "$first" "$first" | "$XLATE" -m "$M" --input-format ids \
  --output-format ids --max-length "$ML" > "$T/out" 2> "$T/err"
expect_rc "empty, blank, CRLF and unterminated lines: exit 0" $? 0
expect_eq "five lines in, five out" "$(wc -l < "$T/out")" 5
expect_eq "empty and blank lines give empty lines" "$(sed -n 2p "$T/out")|$(sed -n 3p "$T/out")" "|"
expect_eq "CRLF and unterminated lines translate as the plain line" \
  "$(sed -n 1p "$T/out")|$(sed -n 4p "$T/out")|$(sed -n 5p "$T/out")" "$want|$want|$want"

# A non-number names its line; exit 3.
printf '4 5\n6 x7 8\n' | "$XLATE" -m "$M" --input-format ids --output-format ids > "$T/out" 2> "$T/err"
expect_rc "non-number: exit 3" $? 3
expect_grep "non-number: message names line 2 and the token" "$T/err" 'stdin: line 2: "x7" is not a token id'
expect_eq "non-number: the lines before it are still translated" "$(wc -l < "$T/out")" 1

printf '4 -5\n' | "$XLATE" -m "$M" --input-format ids --output-format ids > "$T/out" 2> "$T/err"
expect_rc "negative id: exit 3" $? 3
expect_grep "negative id: message names line 1" "$T/err" 'line 1: "-5" is not a token id'

printf '4\n5\n4 %s\n' "$V" | "$XLATE" -m "$M" --input-format ids --output-format ids > "$T/out" 2> "$T/err"
expect_rc "id outside the vocabulary: exit 3" $? 3
expect_grep "id outside the vocabulary: message names line 3, id and range" "$T/err" "line 3: id $V is outside the source vocabulary \[0, $V\)"

printf '4 99999999999999999999\n' | "$XLATE" -m "$M" --input-format ids --output-format ids > "$T/out" 2> "$T/err"
expect_rc "huge id: exit 3" $? 3
expect_grep "huge id: named" "$T/err" 'line 1: id 99999999999999999999 is outside'

"$XLATE" -i "$T/nonexistent" -m "$M" --input-format ids --output-format ids > "$T/out" 2> "$T/err"
expect_rc "missing input file: exit 3" $? 3
expect_grep "missing input file: named" "$T/err" "nonexistent: cannot open"

# Model directory problems: exit 2, message names the file and what is wrong.
echo 4 | "$XLATE" -m "$T/nomodel" --input-format ids --output-format ids > "$T/out" 2> "$T/err"
expect_rc "missing model directory: exit 2" $? 2
expect_grep "missing model directory: named" "$T/err" "nomodel"

mkdir -p "$T/m1"; cp "$M"/model.safetensors "$T/m1/"
sed 's/"heads": *[0-9]*/"heads": 5/' "$M/config.json" > "$T/m1/config.json"
echo 4 | "$XLATE" -m "$T/m1" --input-format ids --output-format ids > "$T/out" 2> "$T/err"
expect_rc "d_model not divisible by heads: exit 2" $? 2
expect_grep "d_model not divisible by heads: field named" "$T/err" 'config.json: field "heads": d_model [0-9]+ is not divisible by heads 5'

sed 's/"ffn_dim": *[0-9]*/"ffn_dim": "80"/' "$M/config.json" > "$T/m1/config.json"
echo 4 | "$XLATE" -m "$T/m1" --input-format ids --output-format ids > "$T/out" 2> "$T/err"
expect_rc "mistyped field: exit 2" $? 2
expect_grep "mistyped field: named" "$T/err" 'field "ffn_dim": expected an integer, got a string'

"$PYTHON" -c 'import json,sys; c=json.load(open(sys.argv[1])); del c["eos_id"]; json.dump(c, open(sys.argv[2], "w"))' "$M/config.json" "$T/m1/config.json"
echo 4 | "$XLATE" -m "$T/m1" --input-format ids --output-format ids > "$T/out" 2> "$T/err"
expect_rc "missing field: exit 2" $? 2
expect_grep "missing field: named" "$T/err" 'missing field "eos_id"'

sed 's/"d_model": *\([0-9]*\),/"d_model": \1, "dropout": 0.1,/' "$M/config.json" > "$T/m1/config.json"
echo "$first" | "$XLATE" -m "$T/m1" --input-format ids --output-format ids --max-length "$ML" > "$T/out" 2> "$T/err"
expect_rc "unknown field: still runs" $? 0
expect_grep "unknown field: warned" "$T/err" 'warning: .*unknown field "dropout"'

cp "$M/config.json" "$T/m1/config.json"
size=$(wc -c < "$M/model.safetensors")
head -c $((size - 100)) "$M/model.safetensors" > "$T/m1/model.safetensors"
echo 4 | "$XLATE" -m "$T/m1" --input-format ids --output-format ids > "$T/out" 2> "$T/err"
expect_rc "truncated weights: exit 2" $? 2
expect_grep "truncated weights: tensor named" "$T/err" 'model.safetensors: tensor "[a-z_.0-9]+": data_offsets \[[0-9]+, [0-9]+\] run past the end'

rm "$T/m1/model.safetensors"
echo 4 | "$XLATE" -m "$T/m1" --input-format ids --output-format ids > "$T/out" 2> "$T/err"
expect_rc "missing weights: exit 2" $? 2
expect_grep "missing weights: named" "$T/err" 'model.safetensors: cannot open'

echo "A dog." | "$XLATE" -m "$M" > "$T/out" 2> "$T/err"
expect_rc "text mode without a tokenizer: exit 2" $? 2
expect_grep "text mode without a tokenizer: says so" "$T/err" 'no tokenizer'

echo 4 | "$XLATE" -m "$M" --input-format ids --output-format ids --max-length 0 > "$T/out" 2> "$T/err"
expect_rc "--max-length 0: usage error" $? 1
expect_grep "--max-length 0: named" "$T/err" -- '--max-length: expected 1'

echo 4 | "$XLATE" -m "$M" --input-format idz > "$T/out" 2> "$T/err"
expect_rc "unknown input format: usage error" $? 1
expect_grep "unknown input format: named" "$T/err" -- '--input-format: expected text or ids, got "idz"'
finish

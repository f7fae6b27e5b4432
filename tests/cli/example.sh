# example.sh — examples/translate_file.c, a program that uses the library through xlate.h
# alone, translates a file line for line as PyTorch does (its greedy translations of Multi30k
# test_2016_flickr), blank lines included; a bad model directory is a message and exit 1.
. tests/cli/lib.sh
EX=$(dirname "$XLATE")/examples/translate_file
M=models/en-de
D=tests/data
N=60

if [ ! -x "$EX" ]; then notok "make builds examples/translate_file" "no $EX"; finish; fi
# 60 test sentences with a blank line after the 10th and at the end
{ head -n 10 "$D/multi30k/test_2016_flickr.en"; echo; sed -n "11,${N}p" "$D/multi30k/test_2016_flickr.en"; echo; } > "$T/in.en"
{ head -n 10 "$D/reference/test_2016_flickr.de"; echo; sed -n "11,${N}p" "$D/reference/test_2016_flickr.de"; echo; } > "$T/want.de"
OPENBLAS_NUM_THREADS=1 "$EX" "$M" "$T/in.en" > "$T/out.de" 2> "$T/err"
expect_rc "translate_file: exit 0" $? 0
expect_eq "translate_file: one line out per line in" "$(wc -l < "$T/out.de")" "$((N + 2))"
if cmp -s "$T/out.de" "$T/want.de"; then ok "translate_file: $N sentences identical to PyTorch's, blank lines kept"
else notok "translate_file: identical to PyTorch's" "$(diff "$T/out.de" "$T/want.de" | head -4)"; fi

"$EX" "$T/nomodel" "$T/in.en" > "$T/out" 2> "$T/err"
expect_rc "translate_file: a missing model: exit 1" $? 1
expect_grep "translate_file: a missing model: named" "$T/err" "^translate_file: $T/nomodel"
"$EX" "$M" "$T/none.en" > "$T/out" 2> "$T/err"
expect_rc "translate_file: a missing file: exit 1" $? 1
expect_grep "translate_file: a missing file: named" "$T/err" "^translate_file: $T/none.en: cannot open"
finish

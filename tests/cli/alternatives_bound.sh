#!/bin/sh
# alternatives_bound.sh — --return-alternatives N with --beam-size K holds N x K rows of logits
# for a sentence (one per hypothesis, over the target vocabulary, 4 bytes each): more than
# XLATE_MAX_SENTENCE_LOGITS (1 GiB, src/xlate.h) is a usage error before anything is
# translated, naming both options and the bytes. The figures are computed here by hand from
# models/en-de's 8000-token target vocabulary.
. "$(dirname "$0")/lib.sh"
M=models/en-de

# 256 x 256 = 65536 hypotheses x 8000 x 4 = 2,097,152,000 bytes = 2.10 GB; the bound,
# 1,073,741,824 bytes = 1.07 GB, holds 1,073,741,824 / 32,000 = 33554 hypotheses
echo "A dog runs." > "$T/in"
"$XLATE" -m $M --return-alternatives 256 --beam-size 256 -i "$T/in" >"$T/out" 2>"$T/err"
expect_rc "alternatives 256 x beam 256 on an 8000-token vocabulary: usage error" $? 1
expect_grep "the message names --return-alternatives 256 and --beam-size 256" "$T/err" \
  'xlate: --return-alternatives 256 with --beam-size 256: 65536 hypotheses a sentence'
expect_grep "the message says the bytes (2.10 GB) and the bound (1.07 GB, 33554 hypotheses)" \
  "$T/err" '2\.10 GB \(65536 x 8000-token vocabulary x 4 bytes\); at most 1\.07 GB \(33554 hypotheses'
expect_eq "nothing written" "$(wc -c < "$T/out" | tr -d ' ')" 0

# the edge: 256 x 131 = 33536 hypotheses x 32,000 = 1,073,152,000 bytes is within the bound
# (not run here: it would hold that GB); 256 x 132 = 33792 x 32,000 = 1,081,344,000 is over
"$XLATE" -m $M --return-alternatives 256 --beam-size 132 -i "$T/in" >/dev/null 2>"$T/err"
expect_rc "alternatives 256 x beam 132 (1.08 GB): usage error" $? 1
expect_grep "... naming 33792 hypotheses" "$T/err" '33792 hypotheses a sentence, whose logits alone need 1\.08 GB'

# well within: greedy alternatives (beam 1) are N rows, 3 x 8000 x 4 = 96 kB: translated
"$XLATE" -q -m $M --return-alternatives 3 --beam-size 1 -i "$T/in" >"$T/out" 2>"$T/err"
expect_rc "alternatives 3, greedy: translated" $? 0
expect_eq "three hypotheses" "$(wc -l < "$T/out" | tr -d ' ')" 3
finish

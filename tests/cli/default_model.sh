# default_model.sh — the shipped model, end to end, text in and text out, against PyTorch's
# own greedy translations of Multi30k test_2016_flickr (tests/data/reference).
. tests/cli/lib.sh
REF=tests/data/reference
N=150

head -n $N tests/data/multi30k/test_2016_flickr.en > "$T/in.en"
head -n $N "$REF/test_2016_flickr.de" > "$T/want.de"
"$XLATE" -i "$T/in.en" -o "$T/out.de" 2> "$T/err"
expect_rc "default model translates without -m" $? 0
same=$(paste -d '\n' "$T/out.de" "$T/want.de" | awk 'NR % 2 { a = $0; next } a == $0 { n++ } END { print n + 0 }')
expect_eq "first $N sentences: text identical to PyTorch's" "$same" "$N"

head -n $N "$REF/test_2016_flickr.ids" > "$T/want.ids"
"$XLATE" -i "$T/in.en" --output-format ids > "$T/out.ids" 2> "$T/err"
if cmp -s "$T/out.ids" "$T/want.ids"; then ok "first $N sentences: ids identical to PyTorch's"
else notok "first $N sentences: ids identical to PyTorch's" "$(diff "$T/out.ids" "$T/want.ids" | head -4)"; fi

"$XLATE" -i "$T/in.en" --output-format ids --fast --batch-size 64 > "$T/out.ids" 2> "$T/err"
if cmp -s "$T/out.ids" "$T/want.ids"; then ok "first $N sentences with --fast (whole-batch products): ids identical to PyTorch's"
else notok "first $N sentences with --fast: ids identical to PyTorch's" "$(diff "$T/out.ids" "$T/want.ids" | head -4)"; fi

# The model is found beside the executable, through $XLATE_MODEL, and after make install.
cp "$XLATE" "$T/xlate-copy"
echo "A dog." | XLATE_MODEL=$PWD/models/en-de "$T/xlate-copy" > "$T/out" 2> "$T/err"
expect_rc "XLATE_MODEL points at the model" $? 0
echo "A dog." | XLATE_MODEL=$T/none "$T/xlate-copy" > "$T/out" 2> "$T/err"
expect_rc "XLATE_MODEL pointing nowhere: exit 2" $? 2
expect_grep "XLATE_MODEL pointing nowhere: named" "$T/err" "$T/none"
echo "A dog." | "$T/xlate-copy" > "$T/out" 2> "$T/err"
expect_rc "no model beside the executable: exit 2" $? 2
expect_grep "no model: says where it looked" "$T/err" "no model found: pass -m DIR or set XLATE_MODEL"

make -s install PREFIX=/opt/xlate DESTDIR="$T/root" > "$T/install.log" 2>&1
expect_rc "make install into DESTDIR" $? 0
if [ -x "$T/root/opt/xlate/bin/xlate" ] && [ -f "$T/root/opt/xlate/share/xlate/models/en-de/model.safetensors" ]; then
  ok "installed binary and model"; else notok "installed binary and model" "$(find "$T/root" | head)"; fi
printf 'Two dogs are playing in the snow.\n' | "$T/root/opt/xlate/bin/xlate" > "$T/out" 2> "$T/err"
expect_rc "installed xlate finds its model (relocated share dir)" $? 0
expect_eq "installed xlate translates" "$(cat "$T/out")" "Zwei Hunde spielen im Schnee."
finish

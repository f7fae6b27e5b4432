# cli_split.sh — `xlate split`: the text and jsonl formats, one answer per input line, the
# options, and bad input (long lines, many dots, invalid UTF-8, NUL). Oracle: the sentences
# written here by hand for each input; Python's json module for the jsonl syntax.
. tests/cli/lib.sh

printf 'Hello Mr. Smith. How are you?\n\n   \nOne sentence only\n' > "$T/in"
"$XLATE" split --source-lang en -i "$T/in" > "$T/out" 2> "$T/err"
expect_rc "split text: exit 0" $? 0
printf 'Hello Mr. Smith.\nHow are you?\n\n\n\nOne sentence only\n\n' > "$T/want"
if cmp -s "$T/out" "$T/want"; then ok "split text: a sentence a line, an empty line after each input line"
else notok "split text: a sentence a line, an empty line after each input line" "$(od -c "$T/out" | head -5)"; fi

"$XLATE" split --source-lang=de --output-format jsonl "Am 12. Juni regnete es. Dann nicht." "" > "$T/j" 2>&1
expect_rc "split jsonl with TEXT arguments: exit 0" $? 0
expect_eq "split jsonl: German ordinal kept, one object per argument" "$(cat "$T/j")" \
'{"sentences": ["Am 12. Juni regnete es.", "Dann nicht."]}
{"sentences": []}'

printf 'Caf\351 "ok"\\ \001. Ja\000nein. Next\n' > "$T/bad"
"$XLATE" split --output-format jsonl -i "$T/bad" > "$T/bj" 2>&1
expect_rc "split jsonl, invalid UTF-8 and NUL: exit 0" $? 0
"$PYTHON" - "$T/bj" <<'EOF' > "$T/py"
import json, sys
raw = open(sys.argv[1], "rb").read().split(b"\n")
o = json.loads(raw[0].decode("utf-8"))
want = ['Caf\ufffd "ok"\\ \x01.', 'Ja\x00nein.', 'Next']
print("ok" if len(raw) == 2 and o == {"sentences": want} else "bad %r" % raw)
EOF
expect_eq "split jsonl: strict JSON, U+FFFD for bad bytes, NUL and controls escaped" "$(cat "$T/py")" ok

head -c 100000 /dev/zero | tr '\0' '.' > "$T/dots"; echo >> "$T/dots"
"$XLATE" split -i "$T/dots" > "$T/dout" 2> "$T/derr"
expect_rc "split 100,000 dots: exit 0" $? 0
expect_eq "split 100,000 dots: one sentence, every dot kept" "$(tr -d '\n' < "$T/dout" | wc -c)" 100000

"$PYTHON" -c 'import sys; sys.stdout.write("word " * 400000 + "\n")' > "$T/long"
"$XLATE" split --source-lang en -i "$T/long" > "$T/lout" 2> "$T/lerr"
expect_rc "split a 2 MB line without a full stop: exit 0" $? 0
expect_eq "split a 2 MB line without a full stop: one sentence, the whole line" \
  "$(wc -l < "$T/lout") $(head -n 1 "$T/lout" | wc -c)" "2 2000000"

"$PYTHON" -c 'import sys; sys.stdout.write("abcdefg " * (17 << 17) + "\nNext. Line.\n")' > "$T/huge"
"$XLATE" split -i "$T/huge" > "$T/hout" 2> "$T/herr"
expect_rc "split a 17 MiB line: exit 0" $? 0
expect_grep "split a 17 MiB line: a warning names the line and the limit" "$T/herr" "stdin|huge: line 1 is longer than 16777216 bytes: cut there"
expect_eq "split a 17 MiB line: its first 16 MiB, then the next line's sentences" \
  "$(head -c 16777216 "$T/huge" | wc -c) $(sed -n 1p "$T/hout" | wc -c) $(sed -n '3,4p' "$T/hout" | tr '\n' '|')" \
  "16777216 16777216 Next.|Line.|"

printf '?!. ... !!! ---\n' | "$XLATE" split --source-lang en > "$T/pout" 2>&1
expect_rc "split a line of punctuation only: exit 0" $? 0
expect_eq "split a line of punctuation only: nothing dropped" "$(tr -d '\n ' < "$T/pout")" "?!....!!!---"

# streaming: the answer to a line comes before the next line is written (a FIFO, no EOF yet)
# (the writer waits for the first answer, up to the hang guard $HANG, then sends the second line)
mkfifo "$T/fifo"
: > "$T/sout"
(
  printf 'One. Two.\n'
  i=0
  while [ ! -s "$T/sout" ] && [ $i -lt $((HANG * 10)) ]; do sleep 0.1; i=$((i + 1)); done
  [ -s "$T/sout" ] && cp "$T/sout" "$T/early"
  printf 'Three.\n'
) > "$T/fifo" &
"$XLATE" split -i "$T/fifo" > "$T/sout" 2>&1
sleep 0.2
expect_eq "split streams: a line's sentences are out before the next line arrives" \
  "$(cat "$T/early" 2>/dev/null)" "One.
Two."
expect_eq "split streams: then the rest" "$(tr '\n' '|' < "$T/sout")" "One.|Two.||Three.||"

# addresses in running text are never split inside; the punctuation after one ends the sentence
"$XLATE" split --source-lang en 'Mail john.doe@example.com. then see https://example.org/a.b?x=1! ok www.example．com/v2. Done.' > "$T/uout" 2>&1
expect_eq "split: web and e-mail addresses kept whole, the sentence ends after their punctuation" \
  "$(tr '\n' '|' < "$T/uout")" "Mail john.doe@example.com.|then see https://example.org/a.b?x=1!|ok www.example．com/v2.|Done.||"

"$XLATE" split --source-lang english "One. Two." > "$T/wout" 2> "$T/werr"
expect_rc "split --source-lang english: exit 0" $? 0
expect_grep "split --source-lang english: a warning says the neutral rules apply" "$T/werr" "no rules of its own for language 'english'"
expect_eq "split --source-lang english: split by the neutral rules" "$(tr '\n' '|' < "$T/wout")" "One.|Two.||"
"$XLATE" split --source-lang de_AT "Eins. Zwei." > /dev/null 2> "$T/werr"
expect_eq "split --source-lang de_AT: no warning" "$(cat "$T/werr")" ""
"$XLATE" split --source-lang ja "一。" > /dev/null 2> "$T/werr"
expect_eq "split --source-lang ja: no warning" "$(cat "$T/werr")" ""
"$XLATE" split -q --source-lang xx "a" > /dev/null 2> "$T/werr"
expect_eq "split -q --source-lang xx: no warning" "$(cat "$T/werr")" ""

"$XLATE" split --bogus > /dev/null 2> "$T/uerr"
expect_rc "split unknown option: exit 1" $? 1
"$XLATE" split --output-format xml x > /dev/null 2> "$T/uerr"
expect_rc "split bad --output-format: exit 1" $? 1
"$XLATE" split -i "$T/missing" > /dev/null 2> "$T/merr"
expect_rc "split missing input file: exit 3" $? 3
expect_grep "split missing input file: the message names it" "$T/merr" "missing: cannot open"
"$XLATE" split --help > "$T/help"
expect_rc "split --help: exit 0" $? 0
expect_grep "split --help: says the text format" "$T/help" "empty line after each input"
sed 's/\\-/-/g; s/\\f[BIRP]//g' xlate.1 > "$T/man"
for opt in $(grep -o -- '--[a-z][a-z-]*' "$T/help" | sort -u); do
  if grep -q -- "split.*$opt" "$T/man"; then ok "xlate.1 documents split $opt"; else notok "xlate.1 documents split $opt" "not found"; fi
done
finish

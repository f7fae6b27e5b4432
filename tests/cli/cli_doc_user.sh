# cli_doc_user.sh — document mode (--format html|markdown) as a user meets it (issue 36): the
# progress line on a terminal, as line mode's; a warning when the input has no markup at all
# (its lines joined as the format reads them), silent with -q or with markup.
# The terminal is script(1)'s pseudo-terminal.
. tests/cli/lib.sh
M=models/en-de
printf '# A man rides a bike.\n\nTwo dogs play in the snow.\n\nA woman reads a book.\n' > "$T/d.md"

# ---- the progress line ----
if command -v script > /dev/null 2>&1; then
  script -qec "$XLATE -m $M --threads 1 --format markdown -i $T/d.md -o $T/out.md" /dev/null > "$T/tty" 2>&1
  expect_grep "--format markdown: the progress line on a terminal" "$T/tty" \
    'xlate: 3 of 3 text units, 100%, [0-9.]+ sentences/s, [0-9:]+ elapsed'
  script -qec "$XLATE -m $M --threads 1 --format markdown -o $T/out.md < $T/d.md" /dev/null > "$T/tty" 2>&1
  expect_grep "--format markdown: the progress line for stdin too (its units are counted)" "$T/tty" \
    'xlate: 3 of 3 text units, 100%'
  script -qec "$XLATE -q -m $M --threads 1 --format markdown -i $T/d.md -o $T/out.md" /dev/null > "$T/tty" 2>&1
  expect_eq "--format markdown: no progress line with -q" "$(cat "$T/tty")" ""
  script -qec "$XLATE -m $M --threads 1 --format markdown -i $T/d.md" /dev/null > "$T/tty" 2>&1
  if grep -q 'text units' "$T/tty"; then notok "--format: no progress line when the document goes to the terminal too" "$(head -c 300 "$T/tty")"
  else ok "--format: no progress line when the document goes to the terminal too"; fi
  "$XLATE" -m $M --format markdown -i "$T/d.md" -o "$T/out.md" 2> "$T/err"
  expect_eq "--format: no progress line when stderr is not a terminal" "$(cat "$T/err")" ""
else
  ok "progress line: # SKIP no script(1)"
fi

# ---- plain text given with --format ----
printf 'A man rides a bike.\nTwo dogs play.\n' > "$T/plain.txt"
"$XLATE" -m $M --format html < "$T/plain.txt" > "$T/out" 2> "$T/err"
expect_rc "--format html on plain text: exit 0" $? 0
expect_grep "--format html on plain text: warns and says what it did" "$T/err" \
  '^xlate: warning: stdin: no HTML markup found: translated as one HTML document \(its lines joined as a browser shows them\); for plain text, leave out --format$'
expect_eq "--format html on plain text: one line, as a browser shows it" "$(wc -l < "$T/out")" 1
"$XLATE" -m $M --format markdown -i "$T/plain.txt" > "$T/out" 2> "$T/err"
expect_grep "--format markdown on plain text: warns and says what it did" "$T/err" \
  "^xlate: warning: $T/plain.txt: no Markdown markup found: translated as Markdown \\(lines without a blank line between them joined into one paragraph"
"$XLATE" -q -m $M --format html < "$T/plain.txt" > "$T/out" 2> "$T/err"
expect_eq "--format html on plain text with -q: no warning" "$(cat "$T/err")" ""
printf '<p>A man rides\na bike.</p>\n' | "$XLATE" -m $M --format html > "$T/out" 2> "$T/err"
expect_eq "--format html with markup: no warning" "$(cat "$T/err")" ""
printf 'A *man* rides\na bike.\n' | "$XLATE" -m $M --format markdown > "$T/out" 2> "$T/err"
expect_eq "--format markdown with markup: no warning" "$(cat "$T/err")" ""
printf 'A man rides a bike.\n\nTwo dogs play.\n' | "$XLATE" -m $M --format markdown > "$T/out" 2> "$T/err"
expect_eq "--format markdown, one line a paragraph (nothing joined): no warning" "$(cat "$T/err")" ""
finish

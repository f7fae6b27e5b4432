# cli_doc_user.sh — document mode (--format html|markdown) as a user meets it (issue 36): the
# progress line on a terminal, as line mode's; a warning when the input has no markup at all
# (its lines joined as the format reads them), silent with -q or with markup; <html lang> the
# target language; a BOM before a Markdown heading kept, the heading still one.
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

# ---- <html lang> becomes the target language (read back by html5lib, the model's
# target_lang read from its config.json) ----
want=$("$PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))["target_lang"])' "$M/config.json")
printf '<!DOCTYPE html>\n<html lang="en"><head><title>A dog</title></head>\n<body><p>A man rides a bike.</p></body></html>\n' |
  "$XLATE" -m $M -q --format html > "$T/lang.html"
got=$("$PYTHON" -c 'import html5lib, sys
t = html5lib.parse(open(sys.argv[1], "rb").read(), namespaceHTMLElements=False)
print(t.get("lang"))' "$T/lang.html")
expect_eq "--format html: <html lang=\"en\"> becomes the target language ($want)" "$got" "$want"
printf '<html title="A man" LANG=en><p>A man rides a bike.</p>\n' | "$XLATE" -m $M -q --format html > "$T/lang2.html"
got=$("$PYTHON" -c 'import html5lib, sys
t = html5lib.parse(open(sys.argv[1], "rb").read(), namespaceHTMLElements=False)
print(t.get("lang"), t.get("title") != "A man")' "$T/lang2.html")
expect_eq "--format html: LANG=en unquoted, after a translated title: the target language" "$got" "$want True"

# ---- a UTF-8 BOM before "# Title": kept, and the heading stays a heading (read by cmark) ----
printf '\357\273\277# A man rides a bike.\n\nTwo dogs play.\n' > "$T/bom.md"
"$XLATE" -m $M -q --format markdown -i "$T/bom.md" > "$T/bom.out"
expect_eq "--format markdown: the BOM kept" "$(head -c 3 "$T/bom.out" | od -An -tx1 | tr -d ' ')" efbbbf
if command -v cmark > /dev/null 2>&1; then
  expect_eq "--format markdown: after a BOM, the heading is still one heading (cmark)" \
    "$(cmark "$T/bom.out" | grep -c '^<h1>')" 1
  if grep -q '#' "$T/bom.out"; then
    [ "$(cmark "$T/bom.out" | grep -c '#')" -eq 0 ] && ok "--format markdown: the # not translated as a word" ||
      notok "--format markdown: the # not translated as a word" "$(cat "$T/bom.out")"
  else notok "--format markdown: the # not translated as a word" "no # left: $(cat "$T/bom.out")"; fi
else
  ok "BOM heading # SKIP no cmark"
fi
finish

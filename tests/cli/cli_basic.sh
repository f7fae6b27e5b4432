# cli_basic.sh — the translate command's inputs, outputs, awkward lines, messages and exit
# statuses, with the default en-de model. Expected translations come from PyTorch's own greedy
# output (tests/data/reference/test_2016_flickr.de).
. tests/cli/lib.sh
M=models/en-de
EN=tests/data/multi30k/test_2016_flickr.en
REF=tests/data/reference/test_2016_flickr.de
X() { "$XLATE" -m "$M" --threads 1 "$@"; }
head -n 3 "$EN" > "$T/3.en"; head -n 3 "$REF" > "$T/3.de"
s1=$(sed -n 1p "$EN"); s2=$(sed -n 2p "$EN"); s3=$(sed -n 3p "$EN")
d1=$(sed -n 1p "$REF"); d2=$(sed -n 2p "$REF"); d3=$(sed -n 3p "$REF")

# --- input from stdin, -i FILE and arguments; output to stdout and -o FILE
X < "$T/3.en" > "$T/out" 2> "$T/err"
expect_rc "stdin: exit 0" $? 0
if cmp -s "$T/out" "$T/3.de"; then ok "stdin: the PyTorch translations, in order"
else notok "stdin: the PyTorch translations, in order" "$(diff "$T/out" "$T/3.de" | head -5)"; fi
expect_eq "stdin: nothing on stderr" "$(cat "$T/err")" ""
X -i "$T/3.en" -o "$T/out2" 2> "$T/err"
expect_rc "-i FILE -o FILE: exit 0" $? 0
if cmp -s "$T/out2" "$T/3.de"; then ok "-i FILE -o FILE: same lines"; else notok "-i FILE -o FILE: same lines" "$(head -3 "$T/out2")"; fi
X -i - < "$T/3.en" > "$T/out" && cmp -s "$T/out" "$T/3.de"
expect_rc "-i - reads stdin" $? 0
X "$s1" "$s2" "$s3" > "$T/out"
expect_rc "arguments: exit 0" $? 0
if cmp -s "$T/out" "$T/3.de"; then ok "arguments: one line each, in order"; else notok "arguments: one line each, in order" "$(head -3 "$T/out")"; fi
X "$(printf '%s\n%s' "$s1" "$s2")" > "$T/out"
expect_eq "an argument with a newline is one sentence, one line" "$(wc -l < "$T/out")" 1
X -- "-$s1" > "$T/out"
expect_rc "-- ends the options (a text starting with -)" $? 0

# --- awkward lines (text mode)
printf '\n   \n\t \n\302\240\n' | X -v > "$T/out" 2> "$T/err"
expect_rc "empty and blank lines: exit 0" $? 0
expect_eq "empty and blank lines: one empty line each" "$(od -An -c "$T/out" | tr -d ' ')" '\n\n\n\n'
expect_grep "empty and blank lines: the model is not run" "$T/err" 'xlate: 4 lines: 0 sentences translated in 0 batches.*, 4 empty'

printf '%s\r\n\r\n%s\r\n' "$s1" "$s2" | X > "$T/out"
expect_eq "CRLF: the same translations, no CR in the output" "$(cat "$T/out")" "$(printf '%s\n\n%s' "$d1" "$d2")"
expect_eq "CRLF: no CR written" "$(tr -cd '\r' < "$T/out" | wc -c)" 0

printf '%s\n%s' "$s1" "$s2" | X > "$T/out"
expect_eq "last line without newline: translated" "$(cat "$T/out")" "$(printf '%s\n%s' "$d1" "$d2")"
expect_eq "last line without newline: answered with a newline" "$(tail -c 1 "$T/out" | od -An -c | tr -d ' ')" '\n'

printf '%s\n\377\376 bad \303(\n\300\257%s\n%s\n' "$s1" "$s2" "$s3" | X > "$T/out" 2> "$T/err"
expect_rc "invalid UTF-8: exit 0" $? 0
expect_eq "invalid UTF-8: one line out per line in" "$(wc -l < "$T/out")" 4
expect_eq "invalid UTF-8: the lines around it are unaffected" "$(sed -n 1p "$T/out")|$(sed -n 4p "$T/out")" "$d1|$d3"

printf 'A dog\000runs.\n%s\n' "$s1" | X > "$T/out" 2> "$T/err"
expect_rc "NUL byte in a line: exit 0" $? 0
expect_eq "NUL byte in a line: still one line out per line in" "$(wc -l < "$T/out")|$(sed -n 2p "$T/out")" "2|$d1"

# --- too long lines: cut to --max-input-length (default max_positions - 1) with a warning
long=$(awk 'BEGIN { for (i = 0; i < 300; i++) printf "a dog and a cat "; }')
printf '%s\n%s\n' "$s1" "$long" | X --max-length 5 > "$T/out" 2> "$T/err"
expect_rc "line over max_positions: exit 0" $? 0
expect_grep "line over max_positions: warning names line 2 and the limit" "$T/err" '^xlate: warning: stdin: line 2: [0-9]+ source tokens, kept the first 511 \(--max-input-length\)$'
expect_eq "line over max_positions: one line out per line in" "$(wc -l < "$T/out")" 2
printf '%s\n%s\n' "$s1" "$s2" | X --max-input-length 4 > "$T/out" 2> "$T/err"
expect_grep "--max-input-length 4: warning names line 1" "$T/err" 'stdin: line 1: [0-9]+ source tokens, kept the first 4'
expect_grep "--max-input-length 4: warning names line 2" "$T/err" 'stdin: line 2: [0-9]+ source tokens, kept the first 4'
printf '%s\n' "$s1" | X -q --max-input-length 4 > "$T/out" 2> "$T/err"
expect_eq "--quiet: no warning" "$(cat "$T/err")" ""
X --max-input-length 4 "$s1" "$s2" > "$T/out" 2> "$T/err"
expect_grep "arguments: the warning names the argument" "$T/err" 'warning: argument 2: '
ids4=$("$XLATE" encode --spm "$M/spm.model" < "$T/3.en" | head -n 1 | cut -d' ' -f1-4)
expect_eq "--max-input-length 4 translates the first 4 tokens" \
  "$(printf '%s\n' "$s1" | X -q --max-input-length 4)" \
  "$(echo "$ids4" | X --input-format ids --output-format text)"
X --max-input-length 600 "$s1" > "$T/out" 2> "$T/err"
expect_rc "--max-input-length over max_positions - 1: usage error" $? 1
expect_grep "--max-input-length over max_positions - 1: says the range" "$T/err" 'max-input-length: expected 1 to 511'

# --- output formats
X --output-format ids < "$T/3.en" > "$T/ids"
X --input-format ids --output-format text < "$T/ids" > "$T/out" 2> "$T/err"
expect_rc "ids in (target ids of a joint vocabulary), text out: exit 0" $? 0
"$XLATE" decode --spm "$M/spm.model" < "$T/ids" > "$T/dec"
if cmp -s "$T/dec" "$T/3.de"; then ok "--output-format ids: the ids of the translations"; else notok "--output-format ids: the ids of the translations" "$(head -2 "$T/dec")"; fi

# --- errors: message on stderr, exit status
X -i "$T/nonexistent" > "$T/out" 2> "$T/err"
expect_rc "missing input file: exit 3" $? 3
expect_grep "missing input file: named, with the reason" "$T/err" "^xlate: $T/nonexistent: cannot open: No such file or directory$"
X -i "$T" > "$T/out" 2> "$T/err"
expect_rc "a directory as input: exit 3" $? 3
expect_grep "a directory as input: named" "$T/err" "$T: cannot read: is a directory"
if [ "$(id -u)" -ne 0 ]; then
  cp "$T/3.en" "$T/unreadable"; chmod 000 "$T/unreadable"
  X -i "$T/unreadable" > "$T/out" 2> "$T/err"
  expect_rc "unreadable input file: exit 3" $? 3
  expect_grep "unreadable input file: named" "$T/err" 'unreadable: cannot open: Permission denied'
else
  ok "unreadable input file: # SKIP running as root"
fi
X -o "$T/no/such/dir/out" "$s1" > "$T/out" 2> "$T/err"
expect_rc "output file in a missing directory: exit 4" $? 4
expect_grep "output file in a missing directory: named" "$T/err" "$T/no/such/dir/out: cannot open for writing"
if [ -w /dev/full ]; then
  X "$s1" > /dev/full 2> "$T/err"
  expect_rc "stdout on /dev/full: exit 4" $? 4
  expect_grep "stdout on /dev/full: says stdout and why" "$T/err" '^xlate: cannot write to stdout: No space left on device$'
  X -o /dev/full "$s1" 2> "$T/err"
  expect_rc "-o /dev/full: exit 4" $? 4
  expect_grep "-o /dev/full: names the output" "$T/err" '^xlate: cannot write to /dev/full: No space left on device$'
  "$XLATE" --help > /dev/full 2> /dev/null
  expect_rc "--help on /dev/full: exit 4" $? 4
fi

# usage errors: exit 1, one line naming the option
for args in "--batch-size 0" "--batch-size x" "--batch-size 5000" "--threads -1" "--window 0" \
            "--output-format xml" "--input-format jsonl" "--bogus" "-Z" "--n-best 2" "--scores" \
            "--length-penalty nan" "--max-length" "--min-length -1" "--min-length 9 --max-length 8" \
            "--min-length 513"; do
  # shellcheck disable=SC2086
  X $args "$s1" > "$T/out" 2> "$T/err"
  rc=$?
  opt=${args%% *}
  if [ $rc -eq 1 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && grep -q -- "$opt" "$T/err" && [ ! -s "$T/out" ]; then
    ok "usage error $args: exit 1, one line naming $opt"
  else
    notok "usage error $args: exit 1, one line naming $opt" "rc $rc, stderr: $(cat "$T/err")"
  fi
done
# Option numbers parse one way (xlate.1 OPTIONS): a blank before is refused as one after (strtol
# skipped leading blanks, so " 5" passed and "5 " did not), hexadecimal too (strtod read 0x1p1
# as 2); a value past a long or a double is out of range, not "not a number"; a value the
# documented range holds is accepted, even one below the smallest normal double.
tab=$(printf '\t')
for opt in --batch-size --batch-tokens --threads --max-length --min-length --max-input-length \
           --beam-size --n-best --window --length-penalty; do
  kind="an integer"; [ "$opt" = --length-penalty ] && kind="a number"
  for v in " 2" "2 " "${tab}2" "0x2"; do
    shown=$v; [ "$v" = "${tab}2" ] && shown='\x092' # control bytes are shown escaped
    X "$opt" "$v" "$s1" > "$T/out" 2> "$T/err"
    rc=$?
    if [ $rc -eq 1 ] && grep -q -F -- "xlate: $opt: expected $kind, got \"$shown\"" "$T/err" && [ ! -s "$T/out" ]; then
      ok "$opt \"$shown\": refused, exit 1, quoted"
    else notok "$opt \"$shown\": refused, exit 1, quoted" "rc $rc, stderr: $(cat "$T/err")"; fi
  done
done
X --beam-size 99999999999999999999 "$s1" > "$T/out" 2> "$T/err"
expect_rc "--beam-size past a long: exit 1" $? 1
expect_grep "--beam-size past a long: out of range, not \"not an integer\"" "$T/err" '^xlate: --beam-size: expected 1 to 256, got 99999999999999999999$'
X --beam-size 2 --length-penalty 1e999 "$s1" > "$T/out" 2> "$T/err"
expect_grep "--length-penalty 1e999: out of range" "$T/err" '^xlate: --length-penalty: expected 0 to 10, got 1e999$'
# 1e-320 lies in 0..10; as the float the search uses it is 0, so beam 3 ranks as with 0.
X --beam-size 3 --length-penalty 0 -i "$T/3.en" > "$T/lp0" 2> "$T/err"
X --beam-size 3 --length-penalty 1e-320 -i "$T/3.en" > "$T/out" 2> "$T/err"
expect_rc "--length-penalty 1e-320 (in the documented 0 to 10): accepted" $? 0
expect_eq "--length-penalty 1e-320: the translations of --length-penalty 0" "$(cat "$T/out")" "$(cat "$T/lp0")"
X --beam-size 3 --length-penalty +.5e+0 -i "$T/3.en" > "$T/out" 2> "$T/err"
X --beam-size 3 --length-penalty 0.5 -i "$T/3.en" > "$T/lp0" 2> "$T/err"
expect_eq "--length-penalty +.5e+0 reads as 0.5" "$(cat "$T/out")" "$(cat "$T/lp0")"
X -i "$T/3.en" "$s1" > "$T/out" 2> "$T/err"
expect_rc "-i FILE and TEXT: usage error" $? 1
cp "$T/3.en" "$T/same.en"
X -i "$T/same.en" -o "$T/same.en" 2> "$T/err"
expect_rc "-o FILE the same as -i FILE: usage error" $? 1
expect_eq "-o FILE the same as -i FILE: the input is left alone" "$(cat "$T/same.en")" "$(cat "$T/3.en")"
X -o "$T/same.en" < "$T/same.en" 2> "$T/err"
expect_rc "-o FILE the same as stdin: usage error" $? 1
expect_grep "-o FILE the same as the input: says so" "$T/err" "^xlate: -o $T/same.en: is the input file"

# model errors: exit 2
"$XLATE" -m "$T/nomodel" "$s1" > "$T/out" 2> "$T/err"
expect_rc "missing model: exit 2" $? 2
expect_grep "missing model: named" "$T/err" "$T/nomodel: model directory: No such file"
XLATE_MODEL="$T/nomodel" "$XLATE" "$s1" > "$T/out" 2> "$T/err"
expect_rc "bad XLATE_MODEL: exit 2" $? 2
expect_grep "bad XLATE_MODEL: says where it came from" "$T/err" "nomodel: model directory \(from XLATE_MODEL\)"
XLATE_MODEL="$T/nomodel" "$XLATE" -m "$M" "$s1" > "$T/out" 2> "$T/err"
expect_eq "-m wins over XLATE_MODEL" "$(cat "$T/out")" "$d1"
XLATE_MODEL="$M" "$XLATE" "$s1" > "$T/out" 2> "$T/err"
expect_eq "XLATE_MODEL is the default model" "$(cat "$T/out")" "$d1"
# the default lookup: models/en-de beside the executable, then ../share/xlate/models/en-de
mkdir -p "$T/a/models" "$T/p/bin" "$T/p/share/xlate/models"
cp "$XLATE" "$T/a/xlate"; cp "$XLATE" "$T/p/bin/xlate"
ln -s "$(pwd)/$M" "$T/a/models/en-de"; ln -s "$(pwd)/$M" "$T/p/share/xlate/models/en-de"
(unset XLATE_MODEL; "$T/a/xlate" "$s1") > "$T/out" 2> "$T/err"
expect_eq "default model: models/en-de beside the executable" "$(cat "$T/out")" "$d1"
(unset XLATE_MODEL; "$T/p/bin/xlate" "$s1") > "$T/out" 2> "$T/err"
expect_eq "default model: ../share/xlate/models/en-de beside it" "$(cat "$T/out")" "$d1"
# a bare name: a model shipped with xlate, from the same models/ directories
ln -s "$(pwd)/$M" "$T/a/models/other"; ln -s "$(pwd)/$M" "$T/p/share/xlate/models/other"
(cd "$T" && "$T/a/xlate" -m other "$s1") > "$T/out" 2> "$T/err"
expect_eq "-m NAME: models/NAME beside the executable" "$(cat "$T/out")" "$d1"
(cd "$T" && XLATE_MODEL=other "$T/p/bin/xlate" "$s1") > "$T/out" 2> "$T/err"
expect_eq "XLATE_MODEL=NAME: ../share/xlate/models/NAME beside it" "$(cat "$T/out")" "$d1"
(cd "$T" && "$T/a/xlate" -m nosuch "$s1") > "$T/out" 2> "$T/err"
expect_rc "-m NAME shipped nowhere: exit 2" $? 2
expect_grep "-m NAME shipped nowhere: says where it looked" "$T/err" "^xlate: nosuch: no such model directory, nor a model shipped with xlate \\(looked in models/ beside the executable, \\.\\./share/xlate/models beside it and .*/models\\)$"
mkdir -p "$T/cwd/other"
(cd "$T/cwd" && "$T/a/xlate" -m other "$s1") > "$T/out" 2> "$T/err"
expect_grep "-m NAME: a directory of that name here comes first" "$T/err" "other/config.json"

# --- --help, --version
"$XLATE" --help > "$T/help" 2> "$T/err"
expect_rc "--help: exit 0" $? 0
expect_grep "--help: has examples" "$T/help" '^Examples:'
expect_grep "--help: shows the GNU parallel line" "$T/help" 'parallel --pipe --keep-order'
for code in "0  success" "1  usage" "2  model" "3  input" "4  output" "5  internal"; do
  expect_grep "--help: exit status $code" "$T/help" "^  $code"
done
version=$(sed -n 's/^#define XLATE_VERSION "\(.*\)"$/\1/p' src/xlate.h)
expect_eq "--version: xlate.h's version" "$("$XLATE" --version)" "xlate $version"

# --- --verbose: the counts are the output's
X --output-format ids -v < "$T/3.en" > "$T/ids" 2> "$T/err"
expect_grep "--verbose: model and threads" "$T/err" "^xlate: model $M: 7578624 parameters, 3\+3 layers, d_model 256; threads 1,"
expect_grep "--verbose: lines" "$T/err" '^xlate: 3 lines: 3 sentences translated in 1 batches'
src_tok=$("$XLATE" encode --spm "$M/spm.model" < "$T/3.en" | wc -w)
expect_grep "--verbose: source and target tokens counted" "$T/err" "^xlate: $src_tok source tokens, $(wc -w < "$T/ids") target tokens"
expect_grep "--verbose: timings and tokens/s" "$T/err" '^xlate: [0-9.]+ sentences/s, [0-9.]+ source tokens/s, [0-9.]+ target tokens/s$'
# greedy: one row a sentence per step, eos's step included; the batch steps as its longest
rows=$(awk '{r += NF + 1; if (NF + 1 > m) m = NF + 1} END {print m " steps, " r " rows"}' "$T/ids")
expect_grep "--verbose: greedy decoder steps and rows from the output's lengths" "$T/err" "^xlate: decoder: $rows\$"
# beam 3, exactly 4 steps (eos banned before 4 tokens, at most 4): a sentence's first step is
# one row, each later one 3 rows: 3 * (1 + 3 * 3) = 30 rows (bench/beam_bench.py counts on it)
X --output-format ids -v --beam-size 3 --min-length 4 --max-length 4 < "$T/3.en" > /dev/null 2> "$T/err"
expect_grep "--verbose: beam decoder steps and rows, counted by hand" "$T/err" '^xlate: decoder: 4 steps, 30 rows$'
# the attention's time is a part of the decoder layers' (not above it), both from the same
# run's lines (a tiny model's 4 steps may round it to 0.000 s)
split=$(awk '/^xlate: translate time:/ {d = $9} /^xlate: of the decoder layers, attention/ {a = $7}
  END {print (a != "" && d != "" && a + 0 <= d + 0) ? "part" : "attention [" a "] s of decoder layers [" d "] s"}' "$T/err")
expect_eq "--verbose: the attention's time, a part of the decoder layers'" "$split" part

# --- the progress line: only when stderr is a terminal and the input a file
if command -v script > /dev/null 2>&1; then
  head -n 40 "$EN" > "$T/40.en"
  script -qec "$XLATE -m $M --threads 1 --batch-size 8 -i $T/40.en -o $T/out" /dev/null > "$T/tty" 2>&1
  expect_grep "progress: shown on a terminal" "$T/tty" 'xlate: 40 lines, 100%, [0-9.]+ lines/s'
  script -qec "$XLATE -m $M --threads 1 -o $T/out < $T/40.en" /dev/null > "$T/tty" 2>&1
  expect_grep "progress: shown for stdin from a file" "$T/tty" 'xlate: 40 lines, 100%'
  script -qec "cat $T/40.en | $XLATE -m $M --threads 1 -o $T/out" /dev/null > "$T/tty" 2>&1
  expect_eq "progress: not for a pipe" "$(cat "$T/tty")" ""
  script -qec "$XLATE -q -m $M --threads 1 -i $T/40.en -o $T/out" /dev/null > "$T/tty" 2>&1
  expect_eq "progress: not with --quiet" "$(cat "$T/tty")" ""
  X -i "$T/40.en" -o "$T/out" 2> "$T/err"
  expect_eq "progress: not when stderr is not a terminal" "$(cat "$T/err")" ""
  script -qec "$XLATE -m $M --threads 1 -i $T/40.en" /dev/null > "$T/tty" 2>&1
  if grep -q 'lines/s' "$T/tty"; then notok "progress: not when the translations go to the terminal too" "$(head -c 300 "$T/tty")"
  else ok "progress: not when the translations go to the terminal too"; fi
else
  ok "progress line: # SKIP no script(1)"
fi
# --- word options echo a bad value quoted, escaped and cut at 40 bytes (issue 27: --target-lang,
# --compute-type, --input/--output-format and `xlate info`'s argument printed it raw: a newline
# forged a second stderr line, an escape reached the terminal, 10 kB went out whole)
long=$(printf '%10000s' '' | tr ' ' z); forty=$(printf '%40s' '' | tr ' ' z)
for c in "--compute-type" "--input-format" "--output-format"; do
  for v in "$(printf 'f32\nxlate: forged')" "$(printf '\033[2J')" "$long"; do
    "$XLATE" -m "$M" "$c" "$v" < /dev/null > "$T/out" 2> "$T/err"; rc=$?
    case "$v" in f32*) shown='"f32\x0axlate: forged"'; what="a newline" ;;
      z*) shown="\"$forty...\""; what="10 kB" ;; *) shown='"\x1b[2J"'; what="an escape" ;; esac
    if [ "$rc" -eq 1 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && [ "$(wc -c < "$T/err")" -lt 300 ] &&
       grep -qF -- "$shown" "$T/err" && ! LC_ALL=C grep -q '[^ -~]' "$T/err"; then
      ok "$c with $what: exit 1, one line, the value quoted, escaped, cut"
    else notok "$c with $what: exit 1, one line, the value quoted, escaped, cut" "exit $rc: $(head -c 300 "$T/err" | od -c | head -3)"; fi
  done
done
"$XLATE" info "$M" "$(printf '\033[2Jx\ny')" > "$T/out" 2> "$T/err"; rc=$?
if [ "$rc" -eq 1 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && grep -qF '"\x1b[2Jx\x0ay"' "$T/err"; then
  ok "xlate info: an unexpected argument quoted and escaped"
else notok "xlate info: an unexpected argument quoted and escaped" "exit $rc: $(od -c "$T/err" | head -3)"; fi
# --- environment variables (issue 27: a value they do not take was ignored without a word:
# XLATE_FORCE_ISA=avx512x ran the CPU's best, XLATE_SCREEN=yes the screen, XLATE_SPIN_US=abc
# was atol's 0 and -5 a negative spin): exit 1 naming the variable, the value and what it takes
for c in "XLATE_FORCE_ISA avx512x generic, avx2, avx512, avx512vnni or avx512bf16" \
         "XLATE_FORCE_ISA generic2 generic, avx2" "XLATE_SCREEN yes 0 (every logit computed) or 1" \
         "XLATE_SCREEN 00 0 (every logit" "XLATE_SPIN_US abc microseconds, 0 to 1000000" "XLATE_SPIN_US -5 microseconds, 0 to 1000000" \
         "XLATE_SPIN_US 1000001 microseconds, 0 to 1000000" "XLATE_SPIN_US 1e3 microseconds, 0 to 1000000" "XLATE_SPIN_US 5x microseconds, 0 to 1000000"; do
  set -- $c; var=$1; val=$2; shift 2
  env "$var=$val" "$XLATE" -m "$M" "A dog." > "$T/out" 2> "$T/err"; rc=$?
  if [ "$rc" -eq 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" -eq 1 ] &&
     grep -qF "$var=\"$val\": expected $*" "$T/err"; then ok "$var=$val: exit 1 naming the variable and its values"
  else notok "$var=$val: exit 1 naming the variable and its values" "exit $rc: $(head -c 300 "$T/err")"; fi
done
env "XLATE_FORCE_ISA=$(printf 'x\033[2J')" "$XLATE" -m "$M" "A dog." > "$T/out" 2> "$T/err"
expect_grep "XLATE_FORCE_ISA with an escape: quoted and escaped" "$T/err" 'XLATE_FORCE_ISA="x\\x1b\[2J"'
for c in "XLATE_FORCE_ISA AVX2" "XLATE_FORCE_ISA generic" "XLATE_SCREEN 0" "XLATE_SCREEN 1" \
         "XLATE_SPIN_US 0" "XLATE_SPIN_US 1000000" "XLATE_SCREEN ''" "XLATE_SPIN_US ''"; do
  set -- $c; [ "$2" = "''" ] && set -- "$1" ""
  env "$1=$2" "$XLATE" -m "$M" --threads 2 "$s1" > "$T/out" 2> "$T/err"; rc=$?
  if [ "$rc" -eq 0 ] && [ ! -s "$T/err" ] && [ "$(cat "$T/out")" = "$d1" ]; then ok "$1=$2: taken, same translation"
  else notok "$1=$2: taken, same translation" "exit $rc: $(head -c 200 "$T/err") $(head -c 100 "$T/out")"; fi
done
env XLATE_FORCE_IS=generic XLATE_SCRENE=0 "$XLATE" -m "$M" "$s1" > "$T/out" 2> "$T/err"; rc=$?
if [ "$rc" -eq 0 ] && [ "$(cat "$T/out")" = "$d1" ] && [ "$(grep -c 'warning: the environment variable XLATE_\(FORCE_IS\|SCRENE\) is not one xlate reads (it reads XLATE_FORCE_ISA, XLATE_SCREEN, XLATE_SPIN_US, XLATE_MODEL, XLATE_HUB_RETRY_MS, XLATE_HUB_TIMEOUT_S and XLATE_HUB_WORKERS)' "$T/err")" -eq 2 ]; then
  ok "misspelt XLATE_* names: a warning each, naming the ones xlate reads"
else notok "misspelt XLATE_* names: a warning each" "exit $rc: $(head -c 400 "$T/err")"; fi
# What of the output projection a run builds (issue 24; -v's last line): greedy through the
# screen the screen alone (V 8,000 x d 256: 500 panels x 16 x 256 = 2,048,000 bytes of int8
# panels, 2 x 32,000 of scale and comp, 2 x 32,000 of absq and bterm: 2.2 MB), beam the f16
# panels (8,000 x 256 x 2 = 4.1 MB), XLATE_SCREEN=0 the panels alone.
for c in "1 1 output projection not packed (greedy rescores from the file's rows); int8 screen 2.2 MB" \
         "2 1 output projection packed, f16 4.1 MB; no screen built" \
         "1 0 output projection packed, f16 4.1 MB; no screen"; do
  set -- $c; b=$1; sc=$2; shift 2
  env XLATE_SCREEN=$sc "$XLATE" -m "$M" -v -q --compute-type f16 --beam-size $b --threads 2 "$s1" > "$T/out" 2> "$T/err"
  expect_eq "-v, beam $b, XLATE_SCREEN=$sc: $*" "$(grep '^xlate: output projection' "$T/err")" "xlate: $*"
done
finish

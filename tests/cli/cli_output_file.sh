# cli_output_file.sh — -o FILE is replaced whole or not at all (issue 36): the output goes to a
# temporary file beside FILE, renamed over it at the end, in line mode and in document mode. A
# run interrupted (SIGINT, SIGTERM) or failed (a full disk, a bad input line) leaves FILE as it
# was and no temporary file behind; in line mode the interrupt says how many lines were
# written. The oracles: the old file's bytes, ls, stat, and the lines seen in the temporary
# file before the signal.
. tests/cli/lib.sh
F=tests/fixtures/parity/post_relu_tied
M=models/en-de
TO=$HANG
D=$T/d
mkdir -p "$D"
# leftovers DIR: temporary files xlate left in DIR
leftovers() { ls -A "$1" | grep -c 'xlate-' ; }
# fresh: a runner that takes SIGINT (a background job of a script starts with it ignored, and
# xlate leaves an ignored signal ignored, as nohup expects); exec: $! is then the runner's pid
fresh() { exec "$PYTHON" -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"; }
# wait_lines GLOB N: waits until the one file matching GLOB holds N lines (or exists, N=0)
wait_lines() {
  i=0
  while [ $i -lt $((TO * 10)) ]; do
    for f in $1; do
      if [ -f "$f" ] && [ "$(wc -l < "$f")" -ge "$2" ]; then echo "$f"; return 0; fi
    done
    sleep 0.1; i=$((i + 1))
  done
  return 1
}

# ---- a run that succeeds: the file replaced, its mode kept or as a new file's ----
awk 'NR <= 3' "$F/src.ids" > "$T/3.ids"
"$XLATE" -m "$F" --input-format ids --output-format ids --max-length 16 -q < "$T/3.ids" > "$T/want"
printf 'old\n' > "$D/out.ids"; chmod 640 "$D/out.ids"
timeout "$TO" "$XLATE" -m "$F" --input-format ids --output-format ids --max-length 16 -q \
  -o "$D/out.ids" < "$T/3.ids" 2> "$T/err"
expect_rc "-o an existing file: exit 0" $? 0
if cmp -s "$D/out.ids" "$T/want"; then ok "-o an existing file: replaced by the lines stdout gets"
else notok "-o an existing file: replaced by the lines stdout gets" "$(head -c 300 "$D/out.ids")"; fi
expect_eq "-o an existing file: its mode kept" "$(stat -c %a "$D/out.ids")" 640
expect_eq "-o: no temporary file left" "$(leftovers "$D")" 0
(umask 027; timeout "$TO" "$XLATE" -m "$F" --input-format ids --output-format ids --max-length 16 \
  -q -o "$D/new.ids" < "$T/3.ids")
expect_eq "-o a new file: mode 0666 less the umask (027)" "$(stat -c %a "$D/new.ids")" 640
ln -s out.ids "$D/link.ids"
timeout "$TO" "$XLATE" -m "$F" --input-format ids --output-format ids --max-length 16 -q \
  -o "$D/link.ids" < /dev/null
if [ -L "$D/link.ids" ] && [ ! -s "$D/out.ids" ]; then ok "-o a symlink: the file it names is replaced, the link stays"
else notok "-o a symlink: the file it names is replaced, the link stays" "$(ls -l "$D")"; fi
printf 'A man rides a bike.\n' > "$T/s.txt"
printf 'old\n' > "$D/split.txt"
"$XLATE" split -o "$D/split.txt" < "$T/s.txt"
expect_eq "xlate split -o: replaced" "$(cat "$D/split.txt")" "A man rides a bike."

# ---- a failed run: a bad line after good ones ----
printf 'old\n' > "$D/bad.ids"
{ cat "$T/3.ids"; echo 'x y'; cat "$T/3.ids"; } > "$T/bad.in"
timeout "$TO" "$XLATE" -m "$F" --input-format ids --output-format ids --max-length 16 -q \
  -o "$D/bad.ids" < "$T/bad.in" 2> "$T/err"
expect_rc "-o, a bad input line: exit 3" $? 3
expect_eq "-o, a bad input line: the old file as it was" "$(head -c 80 "$D/bad.ids")" old
expect_eq "-o, a bad input line: no temporary file left" "$(leftovers "$D")" 0

# ---- SIGINT in line mode, two lines written, the input still open ----
mkfifo "$T/fifo"
printf 'old\n' > "$D/int.ids"
fresh timeout "$TO" "$XLATE" -m "$F" --input-format ids --output-format ids --max-length 16 -q \
  -o "$D/int.ids" < "$T/fifo" 2> "$T/err.int" &
pid=$!
exec 3> "$T/fifo"
awk 'NR <= 2' "$F/src.ids" >&3
if tmp=$(wait_lines "$D/.int.ids.xlate-*" 2); then
  seen=$(wc -l < "$tmp")
  kill -INT $pid; wait $pid; rc=$?
  exec 3>&-
  expect_rc "SIGINT, line mode: ended by the signal (130)" $rc 130
  expect_eq "SIGINT, line mode: the old file as it was" "$(head -c 80 "$D/int.ids")" old
  expect_eq "SIGINT, line mode: no temporary file left" "$(leftovers "$D")" 0
  expect_grep "SIGINT, line mode: says the $seen lines written and the file left" "$T/err.int" \
    "^xlate: interrupted after $seen lines written to a temporary file, now removed; .*int.ids was left as it was$"
else
  exec 3>&-; kill $pid 2> /dev/null; wait $pid
  notok "SIGINT, line mode" "no temporary file with 2 lines appeared: $(ls -A "$D") $(cat "$T/err.int")"
fi

# ---- SIGINT and SIGTERM in document mode, the document still being read ----
for fmt in markdown html; do
  for sig in INT TERM; do
    rm -f "$T/fifo"; mkfifo "$T/fifo"
    printf 'old\n' > "$D/doc.$fmt"
    fresh timeout "$TO" "$XLATE" -m "$M" -q --format $fmt -o "$D/doc.$fmt" < "$T/fifo" 2> "$T/err.doc" &
    pid=$!
    exec 3> "$T/fifo"
    printf '# A man rides a bike.\n' >&3
    if wait_lines "$D/.doc.$fmt.xlate-*" 0 > /dev/null; then
      kill -$sig $pid; wait $pid; rc=$?
      exec 3>&-
      [ $sig = INT ] && want=130 || want=143
      expect_rc "SIG$sig, --format $fmt: ended by the signal" $rc $want
      expect_eq "SIG$sig, --format $fmt: the old file as it was (not emptied)" "$(head -c 80 "$D/doc.$fmt")" old
      expect_eq "SIG$sig, --format $fmt: no temporary file left" "$(leftovers "$D")" 0
      expect_grep "SIG$sig, --format $fmt: says the file was left" "$T/err.doc" \
        "^xlate: interrupted; the temporary file removed; .*doc.$fmt was left as it was$"
    else
      exec 3>&-; kill $pid 2> /dev/null; wait $pid
      notok "SIG$sig, --format $fmt" "no temporary file appeared: $(ls -A "$D") $(cat "$T/err.doc")"
    fi
  done
done
rm -f "$D/none.md" "$T/fifo"; mkfifo "$T/fifo"
fresh timeout "$TO" "$XLATE" -m "$M" -q --format markdown -o "$D/none.md" < "$T/fifo" 2> "$T/err.doc" &
pid=$!
exec 3> "$T/fifo"
if wait_lines "$D/.none.md.xlate-*" 0 > /dev/null; then
  kill -INT $pid; wait $pid
  exec 3>&-
  if [ -e "$D/none.md" ]; then notok "SIGINT, a new file: not created" "$(ls -l "$D/none.md")"
  else ok "SIGINT, a new file: not created"; fi
  expect_grep "SIGINT, a new file: says it was not created" "$T/err.doc" "none.md was not created$"
else
  exec 3>&-; kill $pid 2> /dev/null; wait $pid
  notok "SIGINT, a new file" "no temporary file appeared"
fi

# ---- a full disk: a 64 KiB tmpfs with 8 KiB free ----
S=$T/small
mkdir -p "$S"
if mount -t tmpfs -o size=64k tmpfs "$S" 2> /dev/null; then
  trap 'umount "$S" 2> /dev/null; rm -rf "$T"' EXIT
  printf 'old\n' > "$S/old.txt"
  dd if=/dev/zero of="$S/spare" bs=1k count=8 2> /dev/null
  dd if=/dev/zero of="$S/fill" bs=1k 2> /dev/null # until the disk is full
  rm -f "$S/spare"
  # line mode: 400 lines of ids, about 20 KB of output
  for i in $(seq 80); do cat "$F/src.ids"; done | awk 'NF' > "$T/many.ids"
  timeout "$TO" "$XLATE" -m "$F" --input-format ids --output-format ids --max-length 16 -q \
    -o "$S/old.txt" < "$T/many.ids" 2> "$T/err"
  expect_rc "full disk, line mode: exit 4" $? 4
  expect_grep "full disk, line mode: says so" "$T/err" "^xlate: cannot write to .*old.txt: No space left on device$"
  expect_eq "full disk, line mode: the old file as it was" "$(head -c 80 "$S/old.txt")" old
  expect_eq "full disk, line mode: no temporary file left" "$(leftovers "$S")" 0
  # document mode: a 20 KB code block is written as it is
  { printf 'A man rides a bike.\n\n```\n'; for i in $(seq 400); do echo "code line $i, kept as it is......."; done; printf '```\n'; } > "$T/big.md"
  { printf '<p>A man rides a bike.</p>\n<pre>\n'; for i in $(seq 400); do echo "code line $i, kept as it is......."; done; printf '</pre>\n'; } > "$T/big.html"
  for fmt in markdown html; do
    ext=$([ $fmt = markdown ] && echo md || echo html)
    timeout "$TO" "$XLATE" -m "$M" -q --format $fmt -o "$S/old.txt" < "$T/big.$ext" 2> "$T/err"
    expect_rc "full disk, --format $fmt: exit 4" $? 4
    expect_eq "full disk, --format $fmt: the old file as it was" "$(head -c 80 "$S/old.txt")" old
    expect_eq "full disk, --format $fmt: no temporary file left" "$(leftovers "$S")" 0
  done
  umount "$S"
else
  ok "full disk # SKIP cannot mount a tmpfs (not root?)"
fi
finish

# cli_stream.sh — streaming: bounded memory on long inputs and long lines, output before the
# input ends, co-process use (one line in, its answer out, before the next is written), and a
# closed stdout (EPIPE) ending xlate quietly. Fast inputs use the tiny fixture model through the
# id pipe; the co-process checks use the en-de model in text mode.
. tests/cli/lib.sh
F=tests/fixtures/parity/post_relu_tied
ML=8
IDS() { "$XLATE" -m "$F" --input-format ids --output-format ids --max-length $ML --threads 1 "$@"; }

# Deterministic lines of 1 to 5 ids in [4, 61).
awk -v n=200000 'BEGIN { for (i = 0; i < n; i++) { k = 1 + i % 5; s = "";
  for (j = 0; j < k; j++) s = s (j ? " " : "") 4 + (i * 7 + j * 13 + int(i / 5)) % 57; print s } }' > "$T/200k"
head -n 20000 "$T/200k" > "$T/20k"

# Peak RSS (KB) of a command reading $1 and writing $2 (stderr to $2.err): the kernel's
# high-water mark VmHWM of the command's own process image, read while it runs (it only grows,
# and xlate's memory is all taken early). getrusage would count the parent's pages copied at
# fork; /usr/bin/time is not always installed.
rss() { # peak resident set (KB) of CMD reading INP into OUT (-1 if it failed), from wait4's
        # rusage: exact, and not fooled by a run shorter than any polling interval
  "$PYTHON" - "$@" <<'EOF'
import os, subprocess, sys
inp, out, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
with open(inp, "rb") as i, open(out, "wb") as o, open(out + ".err", "wb") as e:
    p = subprocess.Popen(cmd, stdin=i, stdout=o, stderr=e)
    _, status, usage = os.wait4(p.pid, 0)
print(usage.ru_maxrss if os.waitstatus_to_exitcode(status) == 0 and usage.ru_maxrss > 0 else -1)
EOF
}
# Under AddressSanitizer (make sanitize) freed memory waits in a quarantine that grows with the
# input; without it the sanitized binary's memory is flat too.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0"; export ASAN_OPTIONS
set -- "$XLATE" -m "$F" --input-format ids --output-format ids --max-length $ML --threads 1
r20=$(rss "$T/20k" "$T/o20" "$@")
r200=$(rss "$T/200k" "$T/o200" "$@")
expect_eq "200k lines: 200k lines out" "$(wc -l < "$T/o200")" 200000
if [ "$r20" -gt 0 ] && [ "$r200" -gt 0 ] && [ "$r200" -le $((r20 + 2048)) ]; then
  ok "200k lines: peak RSS ${r200} KB, flat against 20k lines (${r20} KB)"
else
  notok "200k lines: peak RSS flat" "20k: $r20 KB, 200k: $r200 KB"
fi
if head -n 20000 "$T/o200" | cmp -s - "$T/o20"; then ok "200k lines: the first 20k answers are the 20k run's"
else notok "200k lines: the first 20k answers are the 20k run's" "differ"; fi

# One 8 MB line: cut at the reader (bounded buffer), a warning naming the line, memory flat.
awk 'BEGIN { for (i = 0; i < 1000000; i++) printf "4 5 6 7 "; print ""; print "8 9" }' > "$T/long"
r_long=$(rss "$T/long" "$T/olong" "$@")
expect_eq "8 MB line: two lines out" "$(wc -l < "$T/olong")" 2
expect_grep "8 MB line: warned, naming line 1" "$T/olong.err" '^xlate: warning: stdin: line 1: longer than [0-9]+ bytes; kept the first 511 source tokens'
if [ "$r_long" -gt 0 ] && [ "$r_long" -le $((r20 + 4096)) ]; then ok "8 MB line: peak RSS ${r_long} KB"
else notok "8 MB line: peak RSS bounded" "$r_long KB against ${r20} KB"; fi
expect_eq "8 MB line: the line after it is answered as on its own" "$(sed -n 2p "$T/olong")" "$(echo "8 9" | IDS)"

# Output before the input ends: 5000 lines into a FIFO held open; all 5000 answers must come
# while xlate still waits for more.
mkfifo "$T/in"
timeout "$HANG" "$XLATE" -m "$F" --input-format ids --output-format ids --max-length $ML --threads 1 \
  < "$T/in" > "$T/partial" 2> "$T/err" &
pid=$!
exec 3> "$T/in"
head -n 5000 "$T/200k" >&3
i=0
while [ "$(wc -l < "$T/partial")" -lt 5000 ] && [ $i -lt $((HANG * 20)) ]; do sleep 0.05; i=$((i + 1)); done
got=$(wc -l < "$T/partial")
if kill -0 $pid 2> /dev/null; then alive=1; else alive=0; fi
exec 3>&-
wait $pid
rc=$?
expect_eq "input still open: all 5000 answers written before the input ends (after ~$((i * 50)) ms)" "$got|$alive" "5000|1"
expect_rc "input still open: exit 0 once it ends" $rc 0
if head -n 5000 "$T/o200" | cmp -s - "$T/partial"; then ok "input still open: the same answers"
else notok "input still open: the same answers" "differ"; fi

# Co-process: write one line, read its answer, then write the next. A watchdog ends xlate if it
# hangs (then the read sees end of file and the check fails). Latency in ms via date +%s%N.
coprocess() { # WHAT ARGS...
  what=$1; shift
  rm -f "$T/ci" "$T/co"; mkfifo "$T/ci" "$T/co"
  timeout "$HANG" "$XLATE" -m models/en-de --threads 1 "$@" < "$T/ci" > "$T/co" 2> "$T/cerr" &
  cpid=$!
  exec 3> "$T/ci" 4< "$T/co"
  : > "$T/answers"; worst=0; n=0
  while IFS= read -r line; do
    t0=$(date +%s%N)
    printf '%s\n' "$line" >&3
    if ! IFS= read -r ans <&4; then break; fi
    t1=$(date +%s%N)
    printf '%s\n' "$ans" >> "$T/answers"
    n=$((n + 1)); ms=$(((t1 - t0) / 1000000)); [ $ms -gt $worst ] && worst=$ms
  done < "$T/co.en"
  exec 3>&- 4<&-
  wait $cpid
  crc=$?
  if [ $n -eq 6 ] && cmp -s "$T/answers" "$T/co.want" && [ $crc -eq 0 ]; then
    ok "co-process, $what: each of 6 lines answered before the next was written (worst ${worst} ms)"
  else
    notok "co-process, $what: each line answered before the next" "$n answers, exit $crc: $(head -c 300 "$T/cerr")"
  fi
}
{ head -n 3 tests/data/multi30k/test_2016_flickr.en; echo; echo "   "; sed -n 4p tests/data/multi30k/test_2016_flickr.en; } > "$T/co.en"
"$XLATE" -m models/en-de --threads 1 < "$T/co.en" > "$T/co.want"
coprocess "--batch-size 1" --batch-size 1
coprocess "default batch size" 
coprocess "--batch-size 64 --window 5000" --batch-size 64 --window 5000

# Half a line must not hold back the answer to the whole line before it.
rm -f "$T/ci" "$T/co"; mkfifo "$T/ci" "$T/co"
timeout "$HANG" "$XLATE" -m models/en-de --threads 1 < "$T/ci" > "$T/co" 2> "$T/cerr" &
cpid=$!
exec 3> "$T/ci" 4< "$T/co"
printf 'A dog runs.\nA black ca' >&3
IFS= read -r a1 <&4
printf 't sleeps.\n' >&3
IFS= read -r a2 <&4
exec 3>&- 4<&-
wait $cpid
expect_eq "co-process: a whole line is answered while the next is half written" "$a1|$a2|$?" \
  "$("$XLATE" -m models/en-de --threads 1 "A dog runs.")|$("$XLATE" -m models/en-de --threads 1 "A black cat sleeps.")|0"

# A closed stdout: xlate stops quietly (nothing on stderr) with status 4, and soon: it does not
# translate the rest for nobody.
{ "$XLATE" -m "$F" --input-format ids --output-format ids --max-length $ML --threads 1 -v \
    -i "$T/200k" 2> "$T/err"; echo $? > "$T/rc"; } | head -n 1 > "$T/out"
expect_eq "EPIPE: the first line was written" "$(cat "$T/out")" "$(head -n 1 "$T/o200")"
expect_eq "EPIPE: exit status 4" "$(cat "$T/rc")" 4
n=$(sed -n 's/^xlate: \([0-9]*\) lines: \([0-9]*\) sentences translated.*/\2/p' "$T/err")
if [ -n "$n" ] && [ "$n" -lt 100000 ]; then ok "EPIPE: stopped early ($n of 200000 lines translated)"
else notok "EPIPE: stopped early" "$(cat "$T/err")"; fi
expect_eq "EPIPE: no message but the --verbose report" "$(grep -v '^xlate: [0-9]\|^xlate: load\|^xlate: model\|^xlate: compute type\|^xlate: translate time\|^xlate: decoder: \|^xlate: output projection \|^xlate: of the load, \|^xlate: of the decoder layers, \|^xlate: decoding working memory ' "$T/err")" ""
{ "$XLATE" -m "$F" --input-format ids --output-format ids --max-length $ML --threads 1 \
    -i "$T/200k" 2> "$T/err"; echo $? > "$T/rc"; } | head -n 1 > /dev/null
expect_eq "EPIPE (ids): nothing on stderr, exit 4" "$(cat "$T/err")|$(cat "$T/rc")" "|4"
# A reader that is gone before xlate writes anything (`true` exits at once; xlate loads its
# model first): text and jsonl alike. (With `head -n 1` and a small output, whether a write
# fails at all depends on when head exits.)
head -n 20 tests/data/multi30k/test_2016_flickr.en > "$T/20.en"
{ "$XLATE" -m models/en-de --threads 1 --batch-size 8 -i "$T/20.en" 2> "$T/err"; echo $? > "$T/rc"; } | true
expect_eq "EPIPE (text, reader gone): nothing on stderr, exit 4" "$(cat "$T/err")|$(cat "$T/rc")" "|4"
{ "$XLATE" -m models/en-de --threads 1 --output-format jsonl < "$T/20.en" 2> "$T/err"; echo $? > "$T/rc"; } | true
expect_eq "EPIPE (jsonl, reader gone): nothing on stderr, exit 4" "$(cat "$T/err")|$(cat "$T/rc")" "|4"
finish

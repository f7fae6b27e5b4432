# hardening_invariant.sh — one output line per input line, in order, whatever the input and for
# every batch size and thread count (docs/HARDENING.md). Random inputs from a seeded generator
# ($HARDENING_SEED, default 1): empty and blank lines, junk bytes (NUL, controls), invalid UTF-8,
# very long lines (one over the reader's 1 MiB line limit), CRLF, no final newline.
#   text model (models/en-de): every configuration's output is byte-identical to batch size 1
#     with one thread (DEVELOPERS.md: arithmetic never depends on the batch or threads), and
#     has as many lines as the input;
#   ids (the PyTorch fixture post_relu_tied): random valid id lines and empty lines; line i of
#     every configuration equals translating line i alone (a separate run per line); with
#     --min-length 20 every configuration gives the same lines, none non-empty under 20 ids.
. tests/cli/lib.sh
F=tests/fixtures/parity/post_relu_tied
SEED=${HARDENING_SEED:-1}

"$PYTHON" - "$T" "$SEED" tests/data/multi30k/val.en <<'EOF'
import random, sys
T, seed, en = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rng = random.Random(seed)
sentences = open(en, "rb").read().split(b"\n")[:500]

def junk(n):
    return bytes(rng.choice([rng.randrange(1, 256), 0, 0x0D, 0x09, 0x20]) for _ in range(n)).replace(b"\n", b" ")

def invalid_utf8():
    parts = [b"\xff", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf", b"\x80"]
    return b" ".join(rng.choice(parts) + rng.choice(sentences)[:12] for _ in range(rng.randint(1, 4)))

def text_line(i):
    k = rng.randrange(10)
    if k == 0: return b""
    if k == 1: return rng.choice([b" ", b"   \t ", b"\t", b"\xc2\xa0 \xe3\x80\x80"])
    if k == 2: return junk(rng.randint(1, 80))
    if k == 3: return invalid_utf8()
    if k == 4: return rng.choice(sentences) + b"\r"  # CRLF
    if k == 5: return b" ".join(rng.choice(sentences) for _ in range(rng.randint(5, 40)))  # long
    return rng.choice(sentences)

lines = [text_line(i) for i in range(50)]
lines[rng.randrange(50)] = b"word " * 230000 + b"end"  # 1.15 MB: over the reader's 1 MiB limit
lines[rng.randrange(50)] = b"\x00\x00 NUL \x00 bytes"
with open(T + "/text.in", "wb") as fh:
    fh.write(b"\n".join(lines))  # no final newline
with open(T + "/text.lines", "w") as fh:
    fh.write("%d\n" % len(lines))

ids = []
for i in range(40):
    k = rng.randrange(8)
    if k == 0: ids.append(b"")
    elif k == 1: ids.append(b"  \t ")
    elif k == 2: ids.append(b" ".join(b"%d" % rng.randrange(61) for _ in range(rng.randint(60, 200))))
    else:
        sep = rng.choice([b" ", b"  ", b"\t"])
        ids.append(sep.join(b"%d" % rng.randrange(61) for _ in range(rng.randint(1, 20))) + rng.choice([b"", b"\r", b" "]))
with open(T + "/ids.in", "wb") as fh:
    fh.write(b"\n".join(ids) + b"\n")
for i, l in enumerate(ids):
    with open(T + "/ids.line%d" % i, "wb") as fh:
        fh.write(l + b"\n")
EOF
expect_rc "seeded generator (seed $SEED)" $? 0
NT=$(cat "$T/text.lines")
lines_of() { awk 'END { print NR }' "$1"; } # counts a last line without "\n" too

# ---- text ----
"$XLATE" -m models/en-de -q --batch-size 1 --threads 1 -i "$T/text.in" -o "$T/text.ref" 2> "$T/err"
expect_rc "text, batch 1, 1 thread: exit 0" $? 0
expect_eq "text, batch 1, 1 thread: $NT lines in, as many out" "$(lines_of "$T/text.ref")" "$NT"
for b in 3 32; do
  for th in 1 2; do
    "$XLATE" -m models/en-de -q --batch-size $b --threads $th -i "$T/text.in" -o "$T/text.out" 2> "$T/err"
    rc=$?
    n=$(lines_of "$T/text.out")
    if [ $rc -eq 0 ] && [ "$n" -eq "$NT" ] && cmp -s "$T/text.out" "$T/text.ref"; then
      ok "text, batch $b, $th threads: $NT lines, in order, identical to batch 1"
    else
      notok "text, batch $b, $th threads: $NT lines, in order, identical to batch 1" \
        "exit $rc, $n lines; first difference: $(cmp "$T/text.out" "$T/text.ref" 2>&1 | head -c 120); $(head -c 200 "$T/err")"
    fi
  done
done
# Through stdin (a pipe, so xlate cannot see the size) with the default batch: the same.
cat "$T/text.in" | "$XLATE" -m models/en-de -q > "$T/text.out" 2> "$T/err"
if cmp -s "$T/text.out" "$T/text.ref"; then ok "text through a pipe, defaults: identical"
else notok "text through a pipe, defaults: identical" "$(lines_of "$T/text.out") lines; $(head -c 200 "$T/err")"; fi

# ---- ids: line i equals line i translated alone ----
NI=$(lines_of "$T/ids.in")
: > "$T/ids.alone"
i=0
while [ $i -lt "$NI" ]; do
  "$XLATE" -m "$F" --input-format ids --output-format ids -q --max-length 24 < "$T/ids.line$i" >> "$T/ids.alone" 2> "$T/err" \
    || notok "ids line $i alone" "exit $?: $(head -c 200 "$T/err")"
  i=$((i + 1))
done
expect_eq "ids, each line alone: $NI lines" "$(lines_of "$T/ids.alone")" "$NI"
for b in 1 3 32; do
  for th in 1 2; do
    for k in 1 3; do
      "$XLATE" -m "$F" --input-format ids --output-format ids -q --max-length 24 --batch-size $b \
        --threads $th --beam-size $k -i "$T/ids.in" -o "$T/ids.out" 2> "$T/err"
      rc=$?
      [ $k -eq 1 ] && want="$T/ids.alone" || want="$T/ids.beam.ref"
      if [ $k -ne 1 ] && [ ! -f "$T/ids.beam.ref" ]; then cp "$T/ids.out" "$T/ids.beam.ref"; fi
      n=$(lines_of "$T/ids.out")
      what="ids, batch $b, $th threads, beam $k: $NI lines, line i = line i $( [ $k -eq 1 ] && echo alone || echo "of batch 1")"
      if [ $rc -eq 0 ] && [ "$n" -eq "$NI" ] && cmp -s "$T/ids.out" "$want"; then ok "$what"
      else notok "$what" "exit $rc, $n lines; $(diff "$T/ids.out" "$want" | head -n 3 | tr '\n' ' ') $(head -c 200 "$T/err")"; fi
    done
  done
done
# --min-length: the same lines whatever the batch and threads, none ending before 20 tokens
for b in 1 3 32; do
  for th in 1 2; do
    "$XLATE" -m "$F" --input-format ids --output-format ids -q --max-length 24 --min-length 20 \
      --batch-size $b --threads $th -i "$T/ids.in" -o "$T/ids.out" 2> "$T/err"
    rc=$?
    [ -f "$T/ids.min.ref" ] || cp "$T/ids.out" "$T/ids.min.ref"
    short=$(awk 'NF > 0 && NF < 20' "$T/ids.out" | wc -l)
    what="ids --min-length 20, batch $b, $th threads: $NI lines, as batch 1, none non-empty under 20 ids"
    if [ $rc -eq 0 ] && [ "$(lines_of "$T/ids.out")" -eq "$NI" ] && [ "$short" -eq 0 ] && cmp -s "$T/ids.out" "$T/ids.min.ref"; then
      ok "$what"
    else
      notok "$what" "exit $rc, $short short lines; $(diff "$T/ids.out" "$T/ids.min.ref" | head -n 3 | tr '\n' ' ')"
    fi
  done
done
finish

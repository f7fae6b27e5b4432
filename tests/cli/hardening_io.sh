# hardening_io.sh — I/O faults and out-of-memory end with a clear message and a non-zero exit
# status, never a hang, a crash or a silent partial success (docs/HARDENING.md).
# Not here (tests/cli/cli_basic.sh and cli_stream.sh have them): stdout and -o on /dev/full,
# -o in a missing directory, a missing or directory input, a closed stdout (EPIPE).
# Every run is bounded by `timeout`: status 124 means xlate hung.
. tests/cli/lib.sh
F=tests/fixtures/parity/post_relu_tied
TEXT=models/en-de
TO=${HARDENING_TIMEOUT:-$HANG}

# run OUT ERR CMD...: runs CMD with stdin from $T/stdin (if present), bounded; sets rc.
run() {
  o=$1; e=$2; shift 2
  if [ -f "$T/stdin" ]; then timeout "$TO" "$@" < "$T/stdin" > "$o" 2> "$e"
  else timeout "$TO" "$@" < /dev/null > "$o" 2> "$e"; fi
  rc=$?
}
# fails WHAT STATUS PATTERN: the last run exited with STATUS and printed PATTERN (grep -E).
fails() {
  if [ "$rc" -eq "$2" ] && grep -q -E -- "$3" "$T/err"; then ok "$1: exit $2, message names it"
  elif [ "$rc" -eq 124 ]; then notok "$1" "hung (killed after $TO s), no message"
  else notok "$1" "exit $rc, expected $2 with /$3/; stderr: $(head -c 300 "$T/err")"; fi
}
ids() { d=$1; shift; run "$T/out" "$T/err" "$XLATE" -m "$d" --input-format ids --output-format ids -q "$@"; }

head -n 3 "$F/src.ids" > "$T/stdin"
"$XLATE" -m "$F" --input-format ids --output-format ids --max-length 16 < "$T/stdin" > "$T/want" 2> "$T/err"
expect_rc "the fixture translates (reference for this file)" $? 0

# ---- output that cannot be written ----
run "$T/out" "$T/err" "$XLATE" -m "$F" --input-format ids --output-format ids -o "$T"
fails "-o a directory" 4 "^xlate: $T: cannot open for writing: Is a directory$"
run "$T/out" "$T/err" "$XLATE" -m "$F" --input-format ids --output-format ids -o /proc/version
fails "-o /proc/version (refused even to root)" 4 "/proc/version"
expect_eq "-o /proc/version: nothing on stdout" "$(wc -c < "$T/out")" 0

# ---- input that cannot be read ----
run "$T/out" "$T/err" "$XLATE" -m "$F" --input-format ids --output-format ids -i /proc/self/mem
fails "-i /proc/self/mem (read error at once)" 3 "/proc/self/mem: line 1: read error: Input/output error"

# ---- a bad token id is named whole, its control bytes escaped ----
# The field runs to the next space or tab; "%.*s" stopped at a NUL ("5") and printed VT and FF
# raw (a terminal showed "567").
badid() { # WHAT PRINTF-INPUT WANT (the message's quoted field, fixed string)
  printf "$2" > "$T/badid"
  timeout "$TO" "$XLATE" -m "$F" --input-format ids --output-format ids -q -i "$T/badid" > "$T/out" 2> "$T/err"
  rc=$?
  if [ $rc -eq 3 ] && grep -q -F -- "$T/badid: line 1: \"$3\" is not a token id" "$T/err"; then
    ok "bad token id, $1: exit 3, field quoted whole as \"$3\""
  else notok "bad token id, $1" "exit $rc, stderr: $(cat -v "$T/err")"; fi
}
badid "a NUL inside" '5\0006\n' '5\x006'
badid "vertical tabs inside" '5\0136\0137\n' '5\x0b6\x0b7'
badid "a form feed inside, after good ids" '1 2 5\0146 3\n' '5\x0c6'
badid "a quote and a backslash" '4 x"\\y\n' 'x\"\\y'
badid "non-ASCII bytes" '3 \303\251\n' '\xc3\xa9'

# ---- model files: unreadable, wrong kind, truncated, vanished ----
fixture() { rm -rf "$T/m"; mkdir -p "$T/m"; cp "$F/config.json" "$F/model.safetensors" "$T/m/"; }
fixture; rm "$T/m/config.json"; mkdir "$T/m/config.json"
ids "$T/m"; fails "config.json is a directory" 2 "config.json: (read error: Is a directory|not a regular file)"
fixture; : > "$T/m/config.json"
ids "$T/m"; fails "config.json is empty" 2 "config.json: empty, expected a JSON value"
fixture; rm "$T/m/config.json"; ln -s "$T/nowhere" "$T/m/config.json"
ids "$T/m"; fails "config.json is a dangling link" 2 "config.json: cannot open: No such file"
fixture; rm "$T/m/config.json"; mkfifo "$T/m/config.json"
ids "$T/m"; fails "config.json is a FIFO (no writer)" 2 "config.json"
fixture; rm "$T/m/model.safetensors"; mkdir "$T/m/model.safetensors"
ids "$T/m"; fails "weights are a directory" 2 "model.safetensors: not a regular file"
fixture; rm "$T/m/model.safetensors"; ln -s /dev/zero "$T/m/model.safetensors"
ids "$T/m"; fails "weights are /dev/zero" 2 "model.safetensors: not a regular file"
fixture; rm "$T/m/model.safetensors"; ln -s "$T/nowhere" "$T/m/model.safetensors"
ids "$T/m"; fails "weights are a dangling link" 2 "model.safetensors: cannot open: No such file"
fixture; rm "$T/m/model.safetensors"; mkfifo "$T/m/model.safetensors"
ids "$T/m"; fails "weights are a FIFO (no writer)" 2 "model.safetensors"
fixture; : > "$T/m/model.safetensors"
ids "$T/m"; fails "weights are empty" 2 "model.safetensors: 0 bytes: too short"
fixture; head -c 8 "$F/model.safetensors" > "$T/m/model.safetensors"
ids "$T/m"; fails "weights cut after the header size" 2 "model.safetensors: header size [0-9]+ exceeds the file \(8 bytes\)"
fixture; head -c 1000 "$F/model.safetensors" > "$T/m/model.safetensors"
ids "$T/m"; fails "weights cut inside the header" 2 "model.safetensors: header size [0-9]+ exceeds the file \(1000 bytes\)"

# Finite weights so large that the activations overflow (a valid file: every element is a finite
# f32): the logits become NaN. A translation read off NaN logits is garbage (greedy answered ids
# outside the target vocabulary of 61, beam search all zeros): xlate must stop with a message.
fixture; "$PYTHON" -c '
import json, struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
n = struct.unpack("<Q", b[:8])[0]; h = json.loads(b[8:8 + n])
for name, t in h.items():
    if name.endswith(("fc1.weight", "fc2.weight")):
        s, e = (8 + n + o for o in t["data_offsets"])
        v = struct.unpack("<%df" % ((e - s) // 4), b[s:e])
        b[s:e] = struct.pack("<%df" % len(v), *[x * 3e37 for x in v])
open(sys.argv[1], "wb").write(b)' "$T/m/model.safetensors"
for k in 1 2; do
  ids "$T/m" --max-length 8 --beam-size $k
  bad=$(awk -v V=61 '{ for (i = 1; i <= NF; i++) if ($i >= V) n++ } END { print n + 0 }' "$T/out")
  if [ "$rc" -ne 0 ] && [ "$rc" -lt 124 ] && [ -s "$T/err" ]; then ok "overflowing weights (NaN logits), beam $k: refused with a message"
  else notok "overflowing weights (NaN logits), beam $k: refused with a message" "exit $rc, $bad ids >= 61, output: $(head -c 120 "$T/out")"; fi
done

# A weight finite in f32 but beyond the compute type (issue 27): f16 rounds 65520 and more to
# inf (largest f16 65504), bf16 0x1.ffp127 = 3.3961775e38 and more (largest bf16 0x1.fep127 =
# 3.3895314e38). Was: exit 5 "non-finite logits" naming neither tensor nor cause, and under
# UBSan "negation of -2147483648" in the greedy screen's int8 copy (gemm.c); now refused at load
# (exit 2) naming the tensor, the element, the value and the types that hold it. The fixture's
# output projection is tied to encoder.embed.weight [61, 48]; element [5, 3] is changed.
setw() { # TENSOR ELEMENT VALUE: one f32 element of the fixture copy's weights
  "$PYTHON" -c '
import json, struct, sys
p, name, i, v = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
b = bytearray(open(p, "rb").read()); n = struct.unpack("<Q", b[:8])[0]; h = json.loads(b[8:8 + n])
s = 8 + n + h[name]["data_offsets"][0] + 4 * i
b[s:s + 4] = struct.pack("<f", v)
open(p, "wb").write(b)' "$T/m/model.safetensors" "$@"
}
for c in "encoder.embed.weight 243 70000 f16 \[5, 3\] is 70000.*f16.*65504.*bf16, int8 or f32" \
         "encoder.embed.weight 243 -65520 f16 \[5, 3\] is -65520.*f16" \
         "decoder.layers.0.ffn.fc1.weight 1 3.39617752923046e+38 bf16 \[0, 1\] is 3.39617753e\+38.*bf16.*3.38953139e\+38.*int8 or f32" \
         "encoder.embed.weight 243 3.4e38 bf16 \[5, 3\] is 3.39999995e\+38.*bf16"; do
  set -- $c; tn=$1; el=$2; val=$3; ct=$4; shift 4; pat="$tn\": element $*"
  fixture; setw "$tn" "$el" "$val"
  for k in 1 2; do
    ids "$T/m" --max-length 8 --compute-type "$ct" --beam-size $k
    fails "$tn = $val, compute type $ct, beam $k: refused at load" 2 "$pat"
  done
done
# the largest value f16 holds, and the f32 below its limit, still load and translate
fixture; setw encoder.embed.weight 243 65504; setw decoder.layers.0.ffn.fc1.weight 1 65519
ids "$T/m" --max-length 8 --compute-type f16; expect_rc "weights 65504 and 65519 load under f16" "$rc" 0
# (0x1.fefffep127, the f32 below bf16's limit, loads; it then overflows the activations, which the
# decoder's finite check reports at run time, exit 5, as it would in f32)
fixture; setw decoder.layers.0.ffn.fc1.weight 1 3.396177326406364e+38
ids "$T/m" --max-length 8 --compute-type bf16
if [ "$rc" -eq 5 ] && ! grep -q "cannot hold" "$T/err"; then ok "a weight 0x1.fefffep127 is not refused at load under bf16"
else notok "a weight 0x1.fefffep127 is not refused at load under bf16" "exit $rc: $(head -c 300 "$T/err")"; fi

# A text model whose spm.model is broken (the weights linked, not copied).
textmodel() {
  rm -rf "$T/t"; mkdir -p "$T/t"; cp "$TEXT/config.json" "$TEXT/spm.model" "$T/t/"
  ln -s "$PWD/$TEXT/model.safetensors" "$T/t/model.safetensors"
}
printf 'A dog runs in the snow.\n' > "$T/en"
txt() { run "$T/out" "$T/err" "$XLATE" -m "$T/t" -i "$T/en" "$@"; }
textmodel; txt; expect_rc "text model copy translates" "$rc" 0
textmodel; head -c 190000 "$TEXT/spm.model" > "$T/t/spm.model"
txt; fails "spm.model cut in half" 2 "spm.model: not a valid SentencePiece model"
textmodel; head -c 4096 /dev/urandom > "$T/t/spm.model"
txt; fails "spm.model is random bytes" 2 "spm.model: not a (valid )?SentencePiece model"
textmodel; "$PYTHON" -c '
import random, sys
b = bytearray(open(sys.argv[1], "rb").read()); random.seed(5)
for _ in range(40): b[random.randrange(len(b))] ^= 0xFF
open(sys.argv[1], "wb").write(b)' "$T/t/spm.model"
txt; fails "spm.model with 40 bytes flipped" 2 "spm.model: "
textmodel; : > "$T/t/spm.model"
txt; fails "spm.model is empty" 2 "spm.model: not a SentencePiece model: no pieces"
textmodel; rm "$T/t/spm.model"
txt; fails "spm.model is missing" 2 "spm.model: cannot open: No such file"
textmodel; rm "$T/t/spm.model"; mkdir "$T/t/spm.model"
txt; fails "spm.model is a directory" 2 "spm.model: (read error: Is a directory|not a regular file)"
textmodel; rm "$T/t/spm.model"; mkfifo "$T/t/spm.model"
txt; fails "spm.model is a FIFO (no writer)" 2 "spm.model"
textmodel; cp fuzz/models/bpe_bytes.model "$T/t/spm.model"
txt; fails "spm.model of another vocabulary" 2 "spm.model: 600 pieces, but the config's src_vocab_size is 8000"

# Files read whole (issue 27): a sparse file of 4 GiB was read before it was refused (4.2 GB of
# memory, 28-50 s); now its size is checked first, naming the file and the bound.
textmodel; rm "$T/t/spm.model"; truncate -s 4G "$T/t/spm.model"
txt; fails "spm.model a sparse 4 GiB file: refused from its size" 2 "spm.model: 4294967296 bytes, more than the 256 MB xlate reads"
textmodel; rm "$T/t/config.json"; cp "$TEXT/config.json" "$T/t/config.json"; truncate -s 17M "$T/t/config.json"
txt; fails "config.json of 17 MB (spaces after the object): refused from its size" 2 "config.json: 17825792 bytes, more than the 16 MB"
"$PYTHON" tools/make_marian.py "$T/mm" > /dev/null 2>&1
for f in source.spm vocab.json generation_config.json tokenizer_config.json; do
  rm -rf "$T/mx"; cp -r "$T/mm" "$T/mx"; truncate -s 4G "$T/mx/$f"
  run "$T/out" "$T/err" "$XLATE" -m "$T/mx" -i "$T/en"
  fails "MarianMT $f a sparse 4 GiB file: refused from its size" 2 "$f: 4294967296 bytes, more than the (256|16) MB xlate reads"
done
rm -rf "$T/mx" "$T/mm"

# The model changed while xlate runs: the first line is answered, then the weights file is
# removed, truncated, or overwritten in place (as `cp new old` does), then a second line comes.
# Removing must not matter; truncating or overwriting may be refused, with a message, but must
# not kill xlate or give ids outside the vocabulary.
during() { # WHAT ACTION: runs xlate on a FIFO, does ACTION after the first answer
  fixture; rm -f "$T/fifo" "$T/out" "$T/err"; mkfifo "$T/fifo"
  (timeout "$HANG" "$XLATE" -m "$T/m" --input-format ids --output-format ids --batch-size 1 \
     --threads 1 --max-length 16 < "$T/fifo" > "$T/out" 2> "$T/err"; echo $? > "$T/rc") &
  exec 7> "$T/fifo"
  head -n 1 "$T/stdin" >&7
  i=0; while [ ! -s "$T/out" ] && [ $i -lt $((HANG * 10)) ]; do sleep 0.1; i=$((i + 1)); done
  eval "$2"
  sed -n 2p "$T/stdin" >&7
  exec 7>&-
  wait
  rc=$(cat "$T/rc")
}
during "removed" 'rm -rf "$T/m"'
expect_rc "weights removed after loading: still translates" "$rc" 0
expect_eq "weights removed after loading: both answers right" "$(cat "$T/out")" "$(head -n 2 "$T/want")"
during "truncated" ': > "$T/m/model.safetensors"'
if [ "$rc" -eq 0 ] && [ "$(cat "$T/out")" = "$(head -n 2 "$T/want")" ]; then
  ok "weights truncated after loading: still translates (weights are xlate's own)"
elif [ "$rc" -ne 0 ] && [ "$rc" -lt 124 ] && grep -q -E "model.safetensors|weights file" "$T/err"; then
  ok "weights truncated after loading: refused with a message"
else notok "weights truncated after loading: no crash" "exit $rc$( [ "$rc" -gt 128 ] && echo " (signal $((rc - 128)))"); stderr: $(head -c 200 "$T/err")"; fi
during "overwritten" 'dd if=/dev/urandom of="$T/m/model.safetensors" bs=4096 seek=2 count=40 conv=notrunc 2>/dev/null'
bad=$(awk -v V=61 '{ for (i = 1; i <= NF; i++) if ($i >= V) n++ } END { print n + 0 }' "$T/out")
if [ "$rc" -lt 124 ] && [ "$bad" -eq 0 ] && { [ "$rc" -eq 0 ] || [ -s "$T/err" ]; }; then
  ok "weights overwritten after loading: no id outside the vocabulary, no crash"
else notok "weights overwritten after loading: no id outside the vocabulary, no crash" \
  "exit $rc, $bad ids >= 61 in: $(head -c 200 "$T/out")"; fi

# ---- out of memory: address-space limits from 64 MB up ----
# (64, not 60: below about 61 MB the dynamic loader itself cannot start xlate since the binary
# holds the language identifier's tables (issue 48, 1 MB of text): "cannot allocate TLS data
# structures", exit 127, before main runs; the checks are of what xlate does, from 64 MB)
# At each limit xlate either translates everything (the output is the reference) or stops with
# status 5 and a message saying memory ran out and how much it needed (in MB); it must not hang
# or die on a signal. The thread counts go past the cores: each thread that calls OpenBLAS needs
# a 128 MB work buffer, and OpenBLAS 0.3.21 waits forever for one it cannot map (HARDENING.md
# finding 5; before 8 threads, --threads 4 to 64 hung at 600 MB with no message).
oom() { # WHAT MODEL_ARGS LIMIT_MB THREADS WANT_FILE INPUT [TIMEOUT]
  lim=$(($3 * 1024))
  (ulimit -v "$lim"; exec timeout "${7:-$TO}" "$XLATE" $2 --threads "$4" -q -i "$6" > "$T/out" 2> "$T/err")
  rc=$?
  w="out of memory, $1, ulimit -v $3 MB, --threads $4"
  if [ "$rc" -eq 0 ] && cmp -s "$T/out" "$5"; then ok "$w: translated everything"
  elif [ "$rc" -eq 0 ]; then notok "$w" "exit 0 but the output differs: $(head -c 200 "$T/out")"
  elif [ "$rc" -eq 124 ]; then notok "$w" "hung (killed after ${7:-$TO} s); stderr: $(head -c 200 "$T/err")"
  elif [ "$rc" -gt 128 ]; then notok "$w" "killed by signal $((rc - 128)); stderr: $(head -c 200 "$T/err")"
  elif [ "$rc" -eq 5 ] && grep -q -i -E '(out of memory|cannot allocate memory).*[0-9] MB' "$T/err"; then
    ok "$w: exit 5 with a message saying how much"
  else notok "$w" "exit $rc without an out-of-memory message in MB (expected 5): $(head -c 300 "$T/err")"; fi
}
"$XLATE" -i "$T/en" -m "$TEXT" > "$T/want-text" 2> "$T/err"
# AddressSanitizer reserves terabytes of address space for its shadow: it cannot start under
# ulimit -v at all (make sanitize builds xlate with it).
if ldd "$XLATE" 2>/dev/null | grep -q libasan || grep -q __asan_init "$XLATE"; then
  ok "out of memory checks skipped: $XLATE is built with AddressSanitizer, which cannot run under ulimit -v"
  finish
fi
oom "ids fixture" "-m $F --input-format ids --output-format ids --max-length 16" 64 1 "$T/want" "$T/stdin"
oom "ids fixture" "-m $F --input-format ids --output-format ids --max-length 16" 150 1 "$T/want" "$T/stdin"
oom "text model" "-m $TEXT" 100 1 "$T/want-text" "$T/en"
oom "text model" "-m $TEXT" 200 1 "$T/want-text" "$T/en"
oom "text model" "-m $TEXT" 400 2 "$T/want-text" "$T/en"
oom "text model" "-m $TEXT" 1000 2 "$T/want-text" "$T/en"
# Enough to load, not enough for the decoder state of 64 sentences x 5 beams (~113 MB).
head -n 100 tests/data/multi30k/test_2016_flickr.en > "$T/en100"
"$XLATE" -m "$TEXT" -q --beam-size 5 --batch-size 64 -i "$T/en100" > "$T/want100" 2> "$T/err"
oom "text model, 100 lines, beam 5, batch 64" "-m $TEXT --beam-size 5 --batch-size 64" 400 1 "$T/want100" "$T/en100"
# More threads than cores (the machine's count does not matter: each thread takes its buffer
# before any work). Every run is bounded by the hang guard ($HANG, tests/cli/lib.sh), never
# by a speed limit.
"$XLATE" -m "$TEXT" -q -i "$T/en100" > "$T/want100g" 2> "$T/err"
for t in 4 16 64; do
  oom "text model, 100 lines, beam 5, batch 64" "-m $TEXT --beam-size 5 --batch-size 64" 600 $t "$T/want100" "$T/en100"
  oom "text model, 100 lines, greedy" "-m $TEXT" 600 $t "$T/want100g" "$T/en100"
  oom "text model, 100 lines, greedy" "-m $TEXT" 250 $t "$T/want100g" "$T/en100"
done
oom "text model, 100 lines, greedy" "-m $TEXT" 600 1024 "$T/want100g" "$T/en100"
oom "text model, 100 lines, greedy" "-m $TEXT" 200 64 "$T/want100g" "$T/en100"
oom "text model, 100 lines, beam 5, batch 64" "-m $TEXT --beam-size 5 --batch-size 64" 300 16 "$T/want100" "$T/en100"
# info, encode and decode load the model too: out of memory is status 5 for them as for
# translating (issue 27, round 2's leftover: they said 2, "the model is unusable"). At 64 MB the
# weights' mapping or arena fails; at 100 MB too (info maps the file twice: its index, the load).
printf 'A dog.\n' > "$T/dog"; printf '11 72 4\n' > "$T/dogids"
for lim in 64 100; do
  for c in "info $TEXT" "encode -m $TEXT" "decode -m $TEXT"; do
    set -- $c; inp="$T/dog"; [ "$1" = decode ] && inp="$T/dogids"
    (ulimit -v $((lim * 1024)); exec timeout "$TO" "$XLATE" $c < "$inp" > "$T/out" 2> "$T/err"); rc=$?
    if [ "$rc" -eq 0 ]; then ok "xlate $1, ulimit -v $lim MB: fits (nothing to check)"
    elif [ "$rc" -eq 5 ] && grep -q -i -E "(out of memory|cannot allocate memory).*ulimit -v, is [0-9]+ MB" "$T/err"; then
      ok "xlate $1, ulimit -v $lim MB: exit 5, out of memory with the limit"
    else notok "xlate $1, ulimit -v $lim MB: exit 5, out of memory with the limit" "exit $rc: $(head -c 300 "$T/err")"; fi
  done
done
# The refusals say what would need less: a limit, or fewer threads / a smaller batch or beam.
(ulimit -v 204800; exec timeout "$TO" "$XLATE" -m "$TEXT" --threads 64 -q -i "$T/en100" > /dev/null 2> "$T/err")
expect_grep "out of memory at the start: says the limit one thread needs" "$T/err" 'one thread needs a limit above [0-9]+ MB'
(ulimit -v 307200; exec timeout "$TO" "$XLATE" -m "$TEXT" --threads 16 --beam-size 5 --batch-size 64 -q -i "$T/en100" > /dev/null 2> "$T/err")
expect_grep "out of memory while translating: says what needs less" "$T/err" 'out of memory \([0-9]+ MB .*a smaller --batch-size or --beam-size needs less'
(ulimit -v 614400; exec timeout "$TO" "$XLATE" -m "$TEXT" --threads 16 -i "$T/en100" > /dev/null 2> "$T/err")
expect_grep "fewer threads than asked under a limit: said, unless -q" "$T/err" 'warning: --threads 16: [0-9]+ fits? under the address-space limit'
finish

#!/bin/sh
# fuzz/valgrind.sh — xlate end to end under valgrind's memcheck: zero errors (invalid reads and
# writes, uninitialised values, bad frees) and zero leaks (definitely, indirectly or possibly
# lost), on the success paths (text greedy, ids, beam search with n-best on two threads, jsonl
# with scores, encode, decode, info) and on error paths (a bad id line, a full output device,
# truncated weights, a corrupt spm.model). For CI: a few minutes (the 30 MB text model loads
# slowly under valgrind); prints one "ok"/"not ok" line per run.
#   sh fuzz/valgrind.sh [XLATE]      (default ./xlate; build it first with make)
# No suppressions are needed (checked with valgrind 3.19, OpenBLAS 0.3.21, glibc 2.36); see
# docs/HARDENING.md. Environment for the runs:
#   OPENBLAS_CORETYPE=Haswell  valgrind 3.19 does not decode AVX-512: keep OpenBLAS on its AVX2
#                              kernels whatever the CI machine's CPU;
#   OPENBLAS_NUM_THREADS=1     OpenBLAS starts no threads of its own (xlate calls it
#                              single-threaded anyway), and nothing re-executes the program
#                              outside valgrind.
cd "$(dirname "$0")/.." || exit 2
XLATE=${1:-./xlate}
export OPENBLAS_CORETYPE=Haswell OPENBLAS_NUM_THREADS=1
if ! command -v valgrind >/dev/null 2>&1; then
  echo "not ok - valgrind: not installed (apt-get install valgrind)"
  exit 1
fi
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
F=tests/fixtures/parity/post_relu_tied
M=models/en-de
fails=0
printf 'A dog runs in the snow.\nTwo men are talking.\nA child plays.\n' > "$T/in3"

# vg WHAT STATUS STDIN ARGS...: runs xlate under memcheck; expects xlate's own exit STATUS
# (99 means memcheck found an error or a leak).
vg() {
  what=$1 want=$2 in=$3; shift 3
  valgrind -q --leak-check=full --show-leak-kinds=definite,indirect,possible \
    --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 --track-origins=yes \
    --log-file="$T/vg.log" "$XLATE" "$@" < "$in" > "$T/out" 2> "$T/err"
  rc=$?
  if [ $rc -eq "$want" ] && [ ! -s "$T/vg.log" ]; then
    echo "ok - valgrind: $what: exit $rc, no errors, no leaks"
  else
    echo "not ok - valgrind: $what: exit $rc (expected $want); memcheck: $(grep -E 'ERROR SUMMARY|definitely|indirectly|possibly|Invalid|uninitialised' "$T/vg.log" | head -n 4 | tr '\n' ' ')"
    sed 's/^/    /' "$T/vg.log" | head -n 40
    fails=$((fails + 1))
  fi
}

vg "text, 3 sentences, greedy" 0 "$T/in3" -m "$M"
vg "text, beam 4, n-best 2, 2 threads" 0 "$T/in3" -m "$M" --beam-size 4 --n-best 2 --threads 2
vg "text, jsonl with scores" 0 "$T/in3" -m "$M" --output-format jsonl --scores
vg "ids, the fixture's 6 sources" 0 "$F/src.ids" -m "$F" --input-format ids --output-format ids
vg "ids, beam 3, batch 2" 0 "$F/src.ids" -m "$F" --input-format ids --output-format ids --beam-size 3 --batch-size 2
"$XLATE" encode --spm "$M/spm.model" < "$T/in3" > "$T/ids3"
vg "encode" 0 "$T/in3" encode --spm "$M/spm.model"
vg "decode" 0 "$T/ids3" decode --spm "$M/spm.model"
vg "info" 0 /dev/null info "$M"

printf '4 5\n6 x7\n' > "$T/bad"
vg "error: a bad id line" 3 "$T/bad" -m "$F" --input-format ids --output-format ids
if [ -w /dev/full ]; then
  vg "error: output on /dev/full" 4 "$F/src.ids" -m "$F" --input-format ids --output-format ids -o /dev/full
fi
mkdir -p "$T/cut"; cp "$F/config.json" "$T/cut/"
head -c 100000 "$F/model.safetensors" > "$T/cut/model.safetensors"
vg "error: truncated weights" 2 "$F/src.ids" -m "$T/cut" --input-format ids --output-format ids
mkdir -p "$T/spm"; cp "$M/config.json" "$T/spm/"; ln -s "$PWD/$M/model.safetensors" "$T/spm/"
head -c 190000 "$M/spm.model" > "$T/spm/spm.model"
vg "error: corrupt spm.model" 2 "$T/in3" -m "$T/spm"
exit $((fails > 0))

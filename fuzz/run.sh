#!/bin/sh
# fuzz/run.sh — replays the committed crash inputs, then runs each fuzz target for
# $FUZZ_SECONDS (default 60) from its committed seed corpus fuzz/corpus/<target>/. New inputs go
# to build-fuzz/corpus/<target>/ (the committed seeds are never modified); a crash, a sanitizer
# report, a leak, a timeout (> 25 s on one input) or an out-of-memory (> 2 GB) fails the run
# and leaves the input in build-fuzz/crashes/. Build first: sh fuzz/build.sh.
#   sh fuzz/run.sh                    every target
#   sh fuzz/run.sh config spm_text    only these
# Environment: FUZZ_SECONDS, FUZZ_BUILD (default build-fuzz), FUZZ_ARGS (more libFuzzer flags),
# FUZZ_JOBS (targets run at once, default 1: each fuzzer keeps one core busy; the report comes
# out in the targets' order whatever FUZZ_JOBS is).
cd "$(dirname "$0")/.." || exit 2
SECONDS_EACH=${FUZZ_SECONDS:-60}
JOBS=${FUZZ_JOBS:-1}
case "$JOBS" in ''|*[!0-9]*|0) echo "fuzz/run.sh: FUZZ_JOBS must be a positive integer, got '$JOBS'" >&2; exit 2 ;; esac
OUT=${FUZZ_BUILD:-build-fuzz}
targets=${*:-config safetensors spm_model spm_text ids_cli vocab marian_config split html markdown torch_bin m2m_tok docs}

max_len() {
  case "$1" in
    config) echo 4096 ;;        # seeds are up to 2 KB
    safetensors) echo 16384 ;;  # complete tiny models are 3-6 KB
    spm_model) echo 16384 ;;    # trained seeds are 2-9 KB
    spm_text) echo 4096 ;;      # a long sentence is ~ 300 bytes
    ids_cli) echo 4096 ;;       # ~ 1000 ids, over max_positions: cut and translated
    torch_bin) echo 65536 ;;    # complete tiny models by torch.save are 20-40 KB
    m2m_tok) echo 8192 ;;       # five small JSON files and a text: seeds are 0.1-0.6 KB
    docs) echo 65536 ;;         # packages made by pandoc are 3-30 KB
    *) echo 4096 ;;
  esac
}

mkdir -p "$OUT/crashes" "$OUT/logs"
# run_one TARGET: its regressions, then its fuzzing; prints its report lines; non-zero on failure.
run_one() {
  t=$1
  bin="$OUT/fuzz_$t"
  if [ ! -x "$bin" ]; then
    echo "not ok - fuzz $t: $bin not built (sh fuzz/build.sh)"
    return 1
  fi
  extra=""
  [ -f "fuzz/dict/$t.dict" ] && extra="-dict=fuzz/dict/$t.dict"
  # ids_cli runs the command, which reports bad input on stderr: keep libFuzzer's own output.
  [ "$t" = ids_cli ] && extra="$extra -close_fd_mask=2"
  log="$OUT/logs/$t.log"
  # Regressions first: every input that once crashed must now pass.
  if [ -d "fuzz/crashes/$t" ] && [ -n "$(ls "fuzz/crashes/$t")" ]; then
    # shellcheck disable=SC2086
    if ! "$bin" -runs=0 $extra "fuzz/crashes/$t"/* >"$log" 2>&1; then
      echo "not ok - fuzz $t: a committed crash input fails again (fuzz/crashes/$t/)"
      grep -E 'ERROR|runtime error|property failed|SUMMARY' "$log" | head -n 5 | sed 's/^/    /'
      return 1
    fi
  fi
  mkdir -p "$OUT/corpus/$t"
  start=$(date +%s)
  # shellcheck disable=SC2086
  "$bin" -max_total_time="$SECONDS_EACH" -max_len="$(max_len "$t")" -timeout=25 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$OUT/crashes/$t-" \
    $extra ${FUZZ_ARGS:-} "$OUT/corpus/$t" "fuzz/corpus/$t" >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  corpus=$(ls "$OUT/corpus/$t" | wc -l)
  if [ $rc -ne 0 ]; then
    echo "not ok - fuzz $t: crash after $((${execs:-0})) executions (exit $rc); input in $OUT/crashes/, log $log"
    grep -E 'ERROR|runtime error|property failed|SUMMARY|Test unit written' "$log" | head -n 8 | sed 's/^/    /'
    return 1
  else
    echo "ok - fuzz $t: ${execs:-?} executions in $(($(date +%s) - start)) s, no crash; $corpus inputs in $OUT/corpus/$t"
  fi
}

# FUZZ_JOBS targets at a time, each one's report kept in a file and printed in the targets'
# order once it and every target before it have ended.
fail=0
set -- $targets
while [ $# -gt 0 ]; do
  batch=""
  n=0
  while [ $# -gt 0 ] && [ $n -lt "$JOBS" ]; do
    (run_one "$1" >"$OUT/logs/$1.report" 2>&1; echo $? >"$OUT/logs/$1.rc") &
    batch="$batch $1"
    n=$((n + 1))
    shift
  done
  wait
  for t in $batch; do
    cat "$OUT/logs/$t.report"
    [ "$(cat "$OUT/logs/$t.rc")" = 0 ] || fail=1
  done
done
exit $fail

#!/bin/sh
# Runs every test and prints "N passed, N failed" last.
# Each test (a C program in $TEST_BUILD, a script in tests/cli/ or tests/py/) prints one line per
# check: "ok - what" or "not ok - what: why". A test that exits non-zero without a failing
# check line, or prints no line at all, counts as one failure.
#   sh tests/run.sh            every test but the live PyTorch parity run
#   sh tests/run.sh A B ...    only the tests whose name contains A or B ...
# Environment: XLATE (the binary), TEST_BUILD (the C tests), PYTHON (Debian's python3);
# SLOW=1 adds the slow tier, tests/slow/test_*.py (minutes; `make test-slow`, not run by CI);
# JOBS=N runs N tests at once (default: the number of cores). Each test has its own temporary
# directory, so they do not meet; each test's line is printed as soon as it ends, with its
# seconds and how many have ended, and the failures are listed again before the last line.
XLATE=${XLATE:-./xlate}; TEST_BUILD=${TEST_BUILD:-build/tests}; PYTHON=${PYTHON:-/usr/bin/python3}
export XLATE TEST_BUILD PYTHON
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2

# One test, run by xargs: its stdout, stderr and seconds go to $RUN_LOG/NAME.*; NAME.rc is
# written last, so its presence means the test has ended.
if [ "$1" = "--one" ]; then
  t=$2; name=$(basename "$t"); start=$(date +%s)
  case "$t" in
    *.sh) sh "$t" >"$RUN_LOG/$name.out" 2>"$RUN_LOG/$name.err" ;;
    *.py) "$PYTHON" "$t" >"$RUN_LOG/$name.out" 2>"$RUN_LOG/$name.err" ;;
    *) "$t" >"$RUN_LOG/$name.out" 2>"$RUN_LOG/$name.err" ;;
  esac
  rc=$?
  echo $(($(date +%s) - start)) >"$RUN_LOG/$name.secs"
  echo "$rc" >"$RUN_LOG/$name.tmp" && mv "$RUN_LOG/$name.tmp" "$RUN_LOG/$name.rc"
  exit 0
fi

filter="$*"
jobs=${JOBS:-$(nproc 2>/dev/null || echo 1)}
case "$jobs" in ''|*[!0-9]*|0) echo "tests/run.sh: JOBS must be a positive integer, got '$jobs'" >&2; exit 2 ;; esac
RUN_LOG=$(mktemp -d); export RUN_LOG
xpid=
trap 'rm -rf "$RUN_LOG"' EXIT
trap '[ -n "$xpid" ] && kill "$xpid" 2>/dev/null; exit 130' INT TERM
: >"$RUN_LOG/list"
for t in "$TEST_BUILD"/test_* tests/cli/*.sh tests/py/test_*.py ${SLOW:+tests/slow/test_*.py}; do
  [ -e "$t" ] || continue
  case "$t" in *.d|*.o|*/lib.sh) continue ;; esac
  name=$(basename "$t")
  if [ -n "$filter" ]; then
    keep=0
    for f in $filter; do case "$name" in *"$f"*) keep=1 ;; esac; done
    [ $keep -eq 1 ] || continue
  fi
  echo "$t" >>"$RUN_LOG/list"
done

# The Python tests (PyTorch oracles, the slowest) start first, then the shell tests, then the C
# programs, so that no long test starts last while the other workers sit idle.
{ grep '\.py$' "$RUN_LOG/list"; grep '\.sh$' "$RUN_LOG/list"; grep -v '\.py$' "$RUN_LOG/list" | grep -v '\.sh$'; } |
  xargs -n 1 -P "$jobs" sh "$top/tests/run.sh" --one &
xpid=$!

# Each test's line is printed as soon as it ends (issue 34: in list order, the first long
# Python test held every line back for minutes, and a first-time user stopped a suite that
# looked hung); the failures are listed again just before the last line.
report() { # NAME RC SECS: its counts added, its line printed, its failures kept for the end
  name=$1; rc=$2; secs=$3; out="$RUN_LOG/$name.out"
  p=$(grep -c '^ok ' "$out"); f=$(grep -c '^not ok ' "$out")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    f=1; echo "not ok - $name exited with status $rc" >>"$out"
  fi
  if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
    f=1; echo "not ok - $name printed no result" >>"$out"
  fi
  pass=$((pass + p)); fail=$((fail + f)); ended=$((ended + 1))
  printf '%-28s %4d passed %4d failed  %4ss  [%d/%d]\n' "$name" "$p" "$f" "$secs" "$ended" "$total"
  if [ "$f" -ne 0 ]; then
    { echo "$name:"; grep '^not ok ' "$out" | sed 's/^/    /'
      tail -n 20 "$RUN_LOG/$name.err" | sed 's/^/    stderr: /'; } | tee -a "$RUN_LOG/failures"
  fi
}
pass=0; fail=0; ended=0; total=$(wc -l <"$RUN_LOG/list")
: >"$RUN_LOG/reported"
while [ "$ended" -lt "$total" ]; do
  running=1; kill -0 "$xpid" 2>/dev/null || running=0
  progressed=0
  while read -r t; do
    name=$(basename "$t")
    grep -qxF "$name" "$RUN_LOG/reported" && continue
    if [ -e "$RUN_LOG/$name.rc" ]; then
      report "$name" "$(cat "$RUN_LOG/$name.rc")" "$(cat "$RUN_LOG/$name.secs")"
    elif [ "$running" -eq 0 ]; then
      : >>"$RUN_LOG/$name.out"; echo "the runner ended before this test did" >>"$RUN_LOG/$name.err"
      report "$name" 127 0
    else
      continue
    fi
    echo "$name" >>"$RUN_LOG/reported"; progressed=1
  done <"$RUN_LOG/list"
  [ "$progressed" -eq 1 ] || sleep 0.5
done
wait "$xpid"
if [ -s "$RUN_LOG/failures" ]; then
  echo "failures:"
  cat "$RUN_LOG/failures"
fi
echo "$pass passed, $fail failed (JOBS=$jobs)"
[ "$fail" -eq 0 ]

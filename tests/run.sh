#!/bin/sh
# Runs every test and prints "N passed, N failed" last.
# Each test (a C program in $TEST_BUILD, a script in tests/cli/ or tests/py/) prints one line per
# check: "ok - what" or "not ok - what: why". A test that exits non-zero without a failing
# check line, or prints no line at all, counts as one failure.
#   sh tests/run.sh            every test but the live PyTorch parity run
#   sh tests/run.sh A B ...    only the tests whose name contains A or B ...
# Environment: XLATE (the binary), TEST_BUILD (the C tests), PYTHON (Debian's python3);
# SLOW=1 adds the slow tier, tests/slow/test_*.py (minutes; `make test-slow`, not run by CI).
XLATE=${XLATE:-./xlate}; TEST_BUILD=${TEST_BUILD:-build/tests}; PYTHON=${PYTHON:-/usr/bin/python3}
export XLATE TEST_BUILD PYTHON
filter="$*"
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
log=$(mktemp -d); trap 'rm -rf "$log"' EXIT
pass=0; fail=0
for t in "$TEST_BUILD"/test_* tests/cli/*.sh tests/py/test_*.py ${SLOW:+tests/slow/test_*.py}; do
  [ -e "$t" ] || continue
  case "$t" in *.d|*.o|*/lib.sh) continue ;; esac
  name=$(basename "$t")
  if [ -n "$filter" ]; then
    keep=0
    for f in $filter; do case "$name" in *"$f"*) keep=1 ;; esac; done
    [ $keep -eq 1 ] || continue
  fi
  start=$(date +%s)
  case "$t" in
    *.sh) sh "$t" >"$log/out" 2>"$log/err" ;;
    *.py) "$PYTHON" "$t" >"$log/out" 2>"$log/err" ;;
    *) "$t" >"$log/out" 2>"$log/err" ;;
  esac
  rc=$?
  p=$(grep -c '^ok ' "$log/out"); f=$(grep -c '^not ok ' "$log/out")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    f=1; echo "not ok - $name exited with status $rc" >>"$log/out"
  fi
  if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
    f=1; echo "not ok - $name printed no result" >>"$log/out"
  fi
  pass=$((pass + p)); fail=$((fail + f))
  printf '%-28s %4d passed %4d failed  %ss\n' "$name" "$p" "$f" "$(($(date +%s) - start))"
  if [ "$f" -ne 0 ]; then
    grep '^not ok ' "$log/out" | sed 's/^/    /'
    tail -n 20 "$log/err" | sed 's/^/    stderr: /'
  fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

# lib.sh — helpers for the shell tests (sourced). One "ok"/"not ok" line per check.
XLATE=${XLATE:-./xlate}
PYTHON=${PYTHON:-/usr/bin/python3}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
# A hang guard, never a speed limit (issue 34: no test asserts a time): how long a test waits
# for an answer before it calls xlate hung. Generous enough for a 2-core machine at load 10.
HANG=${TEST_HANG_SECONDS:-300}
fails=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1: $2"; fails=$((fails + 1)); }
# expect_eq WHAT GOT EXPECTED
expect_eq() { if [ "$2" = "$3" ]; then ok "$1"; else notok "$1" "got [$2] expected [$3]"; fi; }
# expect_rc WHAT GOT EXPECTED
expect_rc() { if [ "$2" -eq "$3" ]; then ok "$1"; else notok "$1" "exit status $2, expected $3"; fi; }
# expect_grep WHAT FILE PATTERN (grep -E)
expect_grep() { if grep -q -E -- "$3" "$2"; then ok "$1"; else notok "$1" "no /$3/ in: $(head -c 400 "$2")"; fi; }
finish() { exit $((fails > 0)); }

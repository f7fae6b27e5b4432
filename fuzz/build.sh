#!/bin/sh
# fuzz/build.sh — builds the libFuzzer targets fuzz/fuzz_*.c into build-fuzz/fuzz_* with
# Debian's clang, AddressSanitizer and UndefinedBehaviorSanitizer (every UB report aborts, so
# the fuzzer records it as a crash). The library is every src/*.c and src/*/*.c except cli/main.c (the program's
# entry) and preinit.c (it re-executes the program to set OPENBLAS_NUM_THREADS: not for a
# fuzzer). Objects are rebuilt when their source or any header is newer.
#   sh fuzz/build.sh            all targets
# Environment: FUZZ_CC (default clang), FUZZ_BUILD (default build-fuzz), FUZZ_SAN_EXTRA (more
# sanitizer flags, e.g. -fno-sanitize=pointer-overflow to look past a known finding),
# FUZZ_BUILD_JOBS (compilers at once, default the number of cores).
set -e
cd "$(dirname "$0")/.."
CC=${FUZZ_CC:-clang}
OUT=${FUZZ_BUILD:-build-fuzz}
if ! command -v "$CC" >/dev/null 2>&1; then
  echo "fuzz/build.sh: $CC not found (apt-get install clang)" >&2
  exit 2
fi
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer ${FUZZ_SAN_EXTRA:-}"
# the library's packages as the Makefile names them (PKGS), so that a new one links here too
PKGS=$(sed -n 's/^PKGS *:= *//p' Makefile)
CFLAGS="-std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Isrc -Ifuzz $(pkg-config --cflags $PKGS) -DXLATE_DATADIR=\"/usr/local/share/xlate\""
LIBS="$(pkg-config --libs $PKGS) -lm -lpthread"
mkdir -p "$OUT/obj"

newest_header=$(ls -t src/*.h src/*/*.h fuzz/*.h | head -n 1)
# FUZZ_BUILD_JOBS compilers (default: the number of cores) at a time; a failed one leaves its
# mark in $OUT/obj/.failed (background jobs' statuses are not seen by `wait` with no operand).
jobs_max=${FUZZ_BUILD_JOBS:-$(nproc 2>/dev/null || echo 1)}
rm -f "$OUT/obj/.failed"
running=0
batch_wait() {
  wait
  running=0
  if [ -e "$OUT/obj/.failed" ]; then
    echo "fuzz/build.sh: failed to build: $(tr "\n" " " <"$OUT/obj/.failed")" >&2
    exit 1
  fi
}
objs=""
for src in src/*.c src/*/*.c; do
  case "$src" in src/cli/main.c|src/cli/preinit.c) continue ;; esac
  obj="$OUT/obj/$(echo "${src#src/}" | tr / _ | sed 's/\.c$//').o"
  if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ "$newest_header" -nt "$obj" ] || [ fuzz/build.sh -nt "$obj" ]; then
    echo "  CC $src"
    # shellcheck disable=SC2086
    ($CC $CFLAGS $SAN -fsanitize=fuzzer-no-link -c -o "$obj" "$src" ||
      { rm -f "$obj"; echo "$src" >>"$OUT/obj/.failed"; }) &
    running=$((running + 1))
    [ "$running" -lt "$jobs_max" ] || batch_wait
  fi
  objs="$objs $obj"
done
batch_wait
for t in fuzz/fuzz_*.c; do
  name=$(basename "$t" .c)
  echo "  LD $OUT/$name"
  # shellcheck disable=SC2086
  ($CC $CFLAGS $SAN -fsanitize=fuzzer -o "$OUT/$name" "$t" $objs $LIBS ||
    { rm -f "$OUT/$name"; echo "$t" >>"$OUT/obj/.failed"; }) &
  running=$((running + 1))
  [ "$running" -lt "$jobs_max" ] || batch_wait
done
batch_wait
echo "fuzz/build.sh: targets in $OUT/: $(cd "$OUT" && ls fuzz_* | tr '\n' ' ')"

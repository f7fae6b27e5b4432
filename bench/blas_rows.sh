#!/bin/sh
# blas_rows.sh — builds bench/blas_rows.c and runs it under every OPENBLAS_CORETYPE this CPU can
# execute (OpenBLAS picks one at run time; a user's machine may get any of them).
#   sh bench/blas_rows.sh [CORETYPE ...]     default: the environment's, then a list
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2046
cc -O2 -o "$tmp/blas_rows" "$top/bench/blas_rows.c" $(pkg-config --cflags --libs openblas) || exit 1
[ $# -gt 0 ] || set -- "${OPENBLAS_CORETYPE:-}" Haswell Zen SkylakeX Cooperlake Sandybridge Nehalem
seen=" "
for ct in "$@"; do
  case "$seen" in *" ${ct:-unset} "*) continue ;; esac
  seen="$seen${ct:-unset} "
  echo "== OPENBLAS_CORETYPE=${ct:-(unset)}"
  if [ -n "$ct" ]; then
    OPENBLAS_CORETYPE=$ct OPENBLAS_NUM_THREADS=1 "$tmp/blas_rows" || echo "(cannot run here)"
  else
    env -u OPENBLAS_CORETYPE OPENBLAS_NUM_THREADS=1 "$tmp/blas_rows" || echo "(cannot run here)"
  fi
done

# blas_core.sh — OpenBLAS's kernels: an OPENBLAS_CORETYPE the user set is never overridden
# (even one slower than the CPU could run), and without it, on a CPU with AVX2, OpenBLAS never
# runs its generic pre-AVX2 kernels (OpenBLAS 0.3.21 takes "Prescott" on CPUs it does not know,
# e.g. Sapphire Rapids; xlate then runs itself again with SkylakeX or Haswell). -v names the
# core in use.
. tests/cli/lib.sh
OLD='Prescott|Core2|Penryn|Dunnington|Nehalem|Atom|Katmai|Coppermine|Northwood|Banias|Sandybridge|Opteron|Barcelona|Bobcat|Bulldozer|Piledriver|Steamroller|Unknown'
echo "A dog runs." | OPENBLAS_CORETYPE=Prescott "$XLATE" -m models/en-de -v > "$T/out" 2> "$T/v1"
expect_grep "OPENBLAS_CORETYPE=Prescott set by the user: kept (-v says Prescott)" "$T/v1" "OpenBLAS Prescott"
expect_eq "OPENBLAS_CORETYPE=Prescott: still translates" "$(cat "$T/out")" "Ein Hund rennt."
echo "A dog runs." | env -u OPENBLAS_CORETYPE "$XLATE" -m models/en-de -v > /dev/null 2> "$T/v2"
if grep -q "ISA generic" "$T/v2"; then
  ok "no AVX2 on this CPU: any OpenBLAS core is right # SKIP"
elif grep -Eq "OpenBLAS ($OLD)( |,|$)" "$T/v2"; then
  notok "CPU with AVX2, OPENBLAS_CORETYPE unset: OpenBLAS runs AVX2 kernels or better" "$(grep -o 'OpenBLAS [A-Za-z0-9]*' "$T/v2")"
else
  ok "CPU with AVX2, OPENBLAS_CORETYPE unset: OpenBLAS runs AVX2 kernels or better ($(grep -o 'OpenBLAS [A-Za-z0-9]*' "$T/v2" | head -1))"
fi
finish

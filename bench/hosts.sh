#!/bin/sh
# hosts.sh — lines per second on one host and on three with GNU parallel over SSH, in one run,
# and what the SSH transport costs (issue 41; docs/CLUSTER.md). The hosts are network
# namespaces with an sshd each (tests/hosts/netns.sh; root), sharing this machine's cores: the
# point is the transport's overhead, not a speedup.
#   sh bench/hosts.sh          4,000 lines (Multi30k's held-out ones, then train.en.gz's),
#                              blocks of 1000, best of 3 rounds of the four; about 5 minutes
# BENCH_HOSTS_LINES, BENCH_HOSTS_BLOCK, BENCH_HOSTS_RUNS change those; XLATE the binary
# (default ./xlate, installed with make install PREFIX= into a temporary directory).
# Four ways, each output checked equal to the first byte for byte:
#   one process      xlate -q --threads 2
#   parallel, local  parallel --pipe --keep-order -N BLOCK -j 2 xlate -q --threads 1
#   parallel, 1 host the same two jobs at a time, on one host over SSH (-S 2/HOST): against
#                    "parallel, local" the only difference is the transport
#   parallel, 3 hosts -S 1/HOST1,1/HOST2,1/HOST3: the README's multi-host command
# Prints a markdown table on stdout; exits 1 if an output differs, 2 if something is missing.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
XLATE=${XLATE:-./xlate}
LINES=${BENCH_HOSTS_LINES:-4000}; BLOCK=${BENCH_HOSTS_BLOCK:-1000}; RUNS=${BENCH_HOSTS_RUNS:-3}
NETNS=tests/hosts/netns.sh
miss=$(sh $NETNS check)
parallel --version 2> /dev/null | grep -q 'GNU parallel' || miss="$miss GNU parallel"
[ -x "$XLATE" ] || miss="$miss $XLATE (run make)"
if [ -n "$miss" ]; then echo "bench/hosts.sh: missing: $miss" >&2; exit 2; fi
T=$(mktemp -d)
trap 'sh $NETNS down "$T"; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM HUP
PARALLEL_HOME=$T/parallel; export PARALLEL_HOME
build=$(dirname "$XLATE"); [ "$build" = . ] && build=build
make -s -o "$build/xlate" install BUILD="$build" PREFIX="$T/prefix" > "$T/install.log" 2>&1 ||
  { echo "bench/hosts.sh: make install failed: $(tail -n 3 "$T/install.log")" >&2; exit 2; }
X=$T/prefix/bin/xlate
sh $NETNS up "$T" 3 || exit 2
D=tests/data/multi30k
{ cat $D/test_2016_flickr.en $D/val.en; gzip -dc $D/train.en.gz; } | head -n "$LINES" > "$T/in"
n=$(wc -l < "$T/in"); blocks=$(( (n + BLOCK - 1) / BLOCK ))
load0=$(cut -d' ' -f1-3 /proc/loadavg)

# once NAME CMD...: one timed run (stdin $T/in, stdout $T/NAME.out), the best kept in $T/NAME.best
once() {
  name=$1; shift
  t0=$(date +%s.%N)
  sh $NETNS client "$T" "$@" < "$T/in" > "$T/$name.out" 2> "$T/$name.err" ||
    { echo "bench/hosts.sh: $name failed: $(tail -n 3 "$T/$name.err")" >&2; exit 1; }
  t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
  echo "bench/hosts.sh: $name run $((r + 1)): $t s" >&2
  [ -s "$T/$name.best" ] && ! awk -v a="$(cat "$T/$name.best")" -v t="$t" 'BEGIN { exit !(t < a) }' ||
    echo "$t" > "$T/$name.best"
}
h1=$(sed -n 1p "$T/hosts"); all=$(sed 's|^|1/|' "$T/hosts" | paste -sd, -)
ssh="ssh -F $T/ssh_config"
# the four ways in turn within each round, so that a load that changes during the run (the
# machine is shared) moves all four alike; the best of each over the rounds
r=0
while [ $r -lt "$RUNS" ]; do
  once one "$X" -q --threads 2
  once local parallel --will-cite --pipe --keep-order -N "$BLOCK" -j 2 "$X" -q --threads 1
  once ssh1 parallel --will-cite --ssh "$ssh" --pipe --keep-order -N "$BLOCK" -S "2/$h1" "$X" -q --threads 1
  once ssh3 parallel --will-cite --ssh "$ssh" --pipe --keep-order -N "$BLOCK" -S "$all" "$X" -q --threads 1
  r=$((r + 1))
done
for k in local ssh1 ssh3; do
  cmp -s "$T/one.out" "$T/$k.out" || { echo "bench/hosts.sh: $k's output differs from one process's" >&2; exit 1; }
done

row() { awk -v n="$n" -v t="$(cat "$T/$2.best")" -v w="$1" 'BEGIN { printf "| %s | %.1f | %.0f |\n", w, t, n / t }'; }
echo "## Lines per second: one host and three (bench/hosts.sh)"
echo
echo "$n lines, blocks of $BLOCK ($blocks), best of $RUNS; $(nproc) cores shared by every host;"
echo "load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end; all outputs equal."
echo
echo "| how | seconds | lines/s |"
echo "|---|---|---|"
row "one process, --threads 2" one
row "parallel -j 2, local (--threads 1 a job)" local
row "parallel over SSH to 1 host, 2 jobs at a time" ssh1
row "parallel over SSH to 3 hosts, 1 job each" ssh3
echo
awk -v l="$(cat "$T/local.best")" -v s="$(cat "$T/ssh1.best")" -v b="$blocks" 'BEGIN {
  printf "SSH transport: %.2f s in all, %.3f s a block (%+.1f%% on the local parallel run)\n",
    s - l, (s - l) / b, 100 * (s - l) / l }'

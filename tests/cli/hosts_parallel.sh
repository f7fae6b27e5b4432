# hosts_parallel.sh — the README's GNU parallel command over SSH to three hosts (issue 41), and
# one host lost mid-run. The hosts are network namespaces made by tests/hosts/netns.sh, each
# with its own sshd on 198.18.0.11-13 (RFC 2544), joined by a bridge, no route out; the test's
# own keys and configs, the machine's ssh setup untouched; all torn down at the end (trap).
# They share the machine's filesystem, so xlate is installed once, with `make install
# PREFIX=$T/prefix` as the README says, and every host runs $T/prefix/bin/xlate.
#
# The oracle is one local run of the same binary: every multi-host output must equal it byte
# for byte (every line once, in input order), also after a host's sshd and its xlate are killed
# mid-run: with --retries (one run) and with --results + --resume-failed (a rerun).
#
# Sizes: the default run translates the first 500 held-out lines in blocks of 50 (10 jobs a
# run, 5 runs); the sanitizers and the plain-C kernels 100 in blocks of 10.
# `make test-hosts-full` sets HOSTS_LINES=20000 HOSTS_BLOCK=1000: the README's -N 1000 on the
# 2,014 held-out lines (test_2016_flickr, val), then 17,986 of train.en.gz, as Multi30k holds
# no more held-out lines (docs/CLUSTER.md has its figures).
. tests/cli/lib.sh
NETNS=tests/hosts/netns.sh
LINES=${HOSTS_LINES:-500}; BLOCK=${HOSTS_BLOCK:-50}
if [ -z "${HOSTS_LINES:-}" ] && { [ "${TEST_SANITIZED:-}" = 1 ] || [ "${XLATE_FORCE_ISA:-}" = generic ]; }; then
  LINES=100; BLOCK=10
fi
if ! parallel --version 2> /dev/null | grep -q 'GNU parallel'; then
  notok "GNU parallel over SSH" "GNU parallel is missing (apt-get install parallel; sh tools/setup.sh --test)"
  finish
fi
miss=$(sh $NETNS check)
if [ -n "$miss" ]; then
  notok "test hosts from network namespaces" "missing: $miss (CI runs as root with openssh-server installed)"
  finish
fi
trap 'sh $NETNS down "$T"; rm -rf "$T"' EXIT
# the machine's own ssh files, to show at the end that nothing touched them
# (-A: their entries, not "..", whose mtime moves when anything is installed in /etc)
sshfiles() { ls -lA --time-style=full-iso /etc/ssh "$HOME/.ssh" 2>&1; }
sshfiles > "$T/ssh.before"
trap 'exit 130' INT TERM HUP
PARALLEL_HOME=$T/parallel; export PARALLEL_HOME # parallel's own files in $T, not ~/.parallel
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# The install, as a user makes it: the binary under test (-o: make does not rebuild it).
build=$(dirname "$XLATE"); [ "$build" = . ] && build=build
if make -s -o "$build/xlate" install BUILD="$build" PREFIX="$T/prefix" > "$T/install.log" 2>&1 &&
   [ -x "$T/prefix/bin/xlate" ]; then
  ok "make install PREFIX=\$T/prefix (the hosts share this filesystem)"
else
  notok "make install PREFIX=\$T/prefix" "$(tail -n 5 "$T/install.log")"; finish
fi
X=$T/prefix/bin/xlate
# The plain-C kernels' run (CI's second) on the hosts too: each host gets the variable.
envs=""; [ -n "${XLATE_FORCE_ISA:-}" ] && envs="--env XLATE_FORCE_ISA"

t0=$(now)
if ! sh $NETNS up "$T" 3 2> "$T/up.err"; then
  notok "three hosts up" "$(cat "$T/up.err")"; finish
fi
ok "three hosts up in $(secs "$t0" "$(now)") s: network namespaces, own sshd each, a login answered"
cl() { sh $NETNS client "$T" "$@"; }
ssh_to() { cl ssh -F "$T/ssh_config" "$@"; }
i=1; own=0
for h in $(cat "$T/hosts"); do
  got=$(ssh_to "$h" 'ip -o -4 addr show dev eth0' 2>&1)
  case "$got" in *"inet $h/24"*) own=$((own + 1)) ;; *) echo "# host $i: $got" ;; esac
  i=$((i + 1))
done
expect_eq "each host's sshd runs in its own namespace (ssh to .11-.13 sees its own address)" "$own" 3
if sh $NETNS on "$T" 1 ip route get 1.1.1.1 > "$T/route" 2>&1; then
  notok "no route out of a host" "$(cat "$T/route")"
else ok "no route out of a host (ip route get 1.1.1.1: $(head -c 60 "$T/route"))"; fi
if ip -o addr show | grep -q '198\.18\.0\.'; then
  notok "nothing added to the machine's namespace" "$(ip -o addr show | grep '198\.18\.0\.')"
else ok "nothing added to the machine's own namespace (no 198.18.0.x address there)"; fi

# The input: the held-out lines (test_2016_flickr, val), then the training set's, $LINES in all.
D=tests/data/multi30k
{ cat $D/test_2016_flickr.en $D/val.en; gzip -dc $D/train.en.gz; } | head -n "$LINES" > "$T/in"
n=$(wc -l < "$T/in"); nb=$(( (n + BLOCK - 1) / BLOCK ))
echo "# $n lines, blocks of $BLOCK: $nb jobs a run"

t0=$(now)
"$X" -q --threads 2 < "$T/in" > "$T/local"
t_local=$(secs "$t0" "$(now)")
expect_eq "one local run: one line out per line in ($t_local s)" "$(wc -l < "$T/local")" "$n"

S=$(sed 's|^|1/|' "$T/hosts" | paste -sd, -) # 1/HOST: one job at a time on each
# par ARGS...: the README's command from the client, through the test's ssh config
par() { cl parallel --will-cite --ssh "ssh -F $T/ssh_config" $envs --pipe --keep-order -N "$BLOCK" "$@"; }

t0=$(now)
par -S "$S" --joblog "$T/all.log" "$X" -q --threads 1 < "$T/in" > "$T/multi" 2> "$T/err"
rc=$?; t_multi=$(secs "$t0" "$(now)")
expect_rc "parallel --pipe --keep-order -N $BLOCK -S (3 hosts): exit 0" "$rc" 0
if cmp -s "$T/local" "$T/multi"; then ok "3 hosts ($t_multi s) equal the local run ($t_local s) byte for byte"
else notok "3 hosts equal the local run byte for byte" "$(cmp "$T/local" "$T/multi" 2>&1; head -c 300 "$T/err")"; fi
used=$(tail -n +2 "$T/all.log" | cut -f2 | sort -u | wc -l)
expect_eq "the joblog: $nb jobs, on all 3 hosts" "$(tail -n +2 "$T/all.log" | wc -l) $used" "$nb 3"

# kill_mid_run PID: waits until host 2 runs an xlate that has its block, then kills host 2
# (sshd, sessions, xlate: SIGKILL, as a machine lost). Prints the xlate's pid, or "none" when
# the run (PID) ended first.
kill_mid_run() {
  waited=0
  while kill -0 "$1" 2> /dev/null; do
    p=$(sh $NETNS pids "$T" 2 | awk -v x="$(readlink -f "$X")" '$2 == x { print $1; exit }')
    [ -n "$p" ] && break
    waited=$((waited + 1)); [ $waited -lt $((HANG * 10)) ] || break
    sleep 0.1
  done
  [ -n "$p" ] || { echo none; return 1; }
  sleep 0.5 # into its block: the model loaded, translations under way
  sh $NETNS kill "$T" 2
  echo "$p"
}

# 1. --retries 3 (the README's recommendation): a block whose host dies runs again on another
#    host, its partial output dropped; the one run ends complete, exit 0.
t0=$(now)
par -S "$S" --retries 3 --joblog "$T/r.log" "$X" -q --threads 1 < "$T/in" > "$T/retried" 2> "$T/err" &
bg=$!
victim=$(kill_mid_run $bg)
wait $bg; rc=$?; t_retry=$(secs "$t0" "$(now)")
if [ "$victim" = none ]; then notok "host 2 killed mid-run" "no xlate ever ran on host 2"
else ok "host 2's sshd and its running xlate (pid $victim) killed mid-run (SIGKILL)"; fi
expect_rc "with --retries 3: exit 0, every block done on the two hosts left" "$rc" 0
if cmp -s "$T/local" "$T/retried"; then ok "with --retries 3: every line once, in order (byte for byte the local run)"
else notok "with --retries 3: byte for byte the local run" "$(cmp "$T/local" "$T/retried" 2>&1; head -c 300 "$T/err")"; fi
expect_eq "with --retries 3: the joblog has each of the $nb jobs once, exit 0" \
  "$(tail -n +2 "$T/r.log" | awk -F'\t' '$7 == 0 { print $1 }' | sort -un | wc -l) $(tail -n +2 "$T/r.log" | wc -l)" "$nb $nb"

# 2. no retries, each block's output kept (--results DIR/{#}): the run fails, a rerun with
#    --resume-failed (on the hosts left) runs only the failed blocks; their files, in order,
#    are the whole output.
sh $NETNS down "$T"; sh $NETNS up "$T" 3 2> "$T/up.err" || { notok "three hosts up again" "$(cat "$T/up.err")"; finish; }
t0=$(now)
par -S "$S" --joblog "$T/f.log" --results "$T/out/{#}" "$X" -q --threads 1 < "$T/in" > /dev/null 2> "$T/err" &
bg=$!
victim=$(kill_mid_run $bg)
wait $bg; rc=$?; t_fail=$(secs "$t0" "$(now)")
failed=$(tail -n +2 "$T/f.log" | awk -F'\t' '$7 != 0' | wc -l)
if [ "$victim" != none ] && [ "$rc" -gt 0 ] && [ "$failed" -eq "$rc" ]; then
  ok "without retries: host 2 killed mid-run, $rc of $nb blocks failed (exit status = the joblog's failures)"
else notok "without retries: a failed run" "victim $victim, exit $rc, joblog failures $failed"; fi
before=$(wc -l < "$T/f.log")
S2=$(sed -n '1p;3p' "$T/hosts" | sed 's|^|1/|' | paste -sd, -)
par -S "$S2" --joblog "$T/f.log" --resume-failed --results "$T/out/{#}" "$X" -q --threads 1 < "$T/in" > /dev/null 2> "$T/err"
rc=$?; t_resume=$(secs "$t0" "$(now)")
expect_rc "the rerun with --resume-failed on the two hosts left: exit 0" "$rc" 0
# parallel reruns each seq with no line of exit 0 and signal 0 (its --resume-failed regexp,
# /usr/bin/parallel 20221122 line 3131); compared as sets of seqs, each rerun line a success
first=$(head -n "$before" "$T/f.log" | tail -n +2)
want=$(printf '%s\n' "$first" | awk -F'\t' '$7 == 0 && $8 == 0 { ok[$1] = 1 } { all[$1] = 1 }
  END { for (s in all) if (!(s in ok)) print s }' | sort -n | paste -sd' ' -)
got=$(tail -n +$((before + 1)) "$T/f.log" | awk -F'\t' '{ print $1 }' | sort -n | paste -sd' ' -)
bad=$(tail -n +$((before + 1)) "$T/f.log" | awk -F'\t' '$7 != 0 || $8 != 0' | wc -l)
if [ "$got" = "$want" ] && [ "$bad" -eq 0 ]; then ok "the rerun ran only the failed blocks ($want), each once, each exit 0"
else notok "the rerun ran only the failed blocks" "rerun seqs [$got] ($bad failed) expected [$want]; joblog:
$(cat "$T/f.log")"; fi
# the README's join: blocks 1..(the joblog's last seq) in order
seq -f "$T/out/%g" "$(tail -n +2 "$T/f.log" | cut -f1 | sort -n | tail -n 1)" | xargs cat > "$T/resumed"
if cmp -s "$T/local" "$T/resumed"; then ok "after --resume-failed: the $nb block files in order are the local run byte for byte"
else notok "after --resume-failed: byte for byte the local run" "$(cmp "$T/local" "$T/resumed" 2>&1; head -c 300 "$T/err")"; fi
sshfiles > "$T/ssh.after"
if cmp -s "$T/ssh.before" "$T/ssh.after"; then ok "the machine's /etc/ssh and ~/.ssh untouched (listing with mtimes equal)"
else notok "the machine's ssh files untouched" "$(diff "$T/ssh.before" "$T/ssh.after" | head -5)"; fi
echo "# figures: $n lines; local --threads 2 ${t_local} s; 3 hosts x 1 job --threads 1 ${t_multi} s;"
echo "# host 2 lost: with --retries 3 ${t_retry} s; without, the failed run and the rerun ${t_resume} s (${t_fail} s to the failure)"
finish

#!/bin/sh
# netns.sh — test hosts made of Linux network namespaces (issue 41), each with its own sshd.
#
#   sh tests/hosts/netns.sh up DIR [N]        N hosts (default 3) and a client, state in DIR
#   sh tests/hosts/netns.sh down DIR          every process in them killed, namespaces deleted
#   sh tests/hosts/netns.sh client DIR CMD..  CMD run in the client namespace
#   sh tests/hosts/netns.sh on DIR I CMD..    CMD run on host I (1..N), e.g. a server
#   sh tests/hosts/netns.sh kill DIR I        host I lost: its sshd and every process in it SIGKILLed
#   sh tests/hosts/netns.sh pids DIR I        the processes running on host I, "PID EXECUTABLE" a line
#   sh tests/hosts/netns.sh check             what is missing to run it (root, ip netns, sshd), or nothing
#
# The network: a switch namespace holds a bridge; every host and the client has one veth port on
# it, named eth0 inside, with an address of 198.18.0.0/24 (RFC 2544's range for network tests):
# hosts 198.18.0.11, .12, ..., the client 198.18.0.10. No namespace has a default route, and
# nothing is added to the machine's own namespace (both ends of each veth pair are made inside
# their namespaces), so the hosts reach each other and nothing else.
#
# Each host runs /usr/sbin/sshd -f DIR/hI/sshd_config: a config of the test's own (the machine's
# /etc/ssh/sshd_config and its Include are never read), a host key made for it, one
# AuthorizedKeysFile (DIR/authorized_keys, the test's client key), its PidFile and log in DIR.
# Clients use `ssh -F DIR/ssh_config`: the test's identity, DIR/known_hosts written here from
# the hosts' public keys (StrictHostKeyChecking yes), so ~/.ssh and /etc/ssh are never touched.
# The filesystem is the machine's, shared by all hosts as a network filesystem would be.
#
# Files in DIR after `up`: hosts (one address a line), ssh_config, known_hosts, id_ed25519,
# names (the namespaces: switch, client, host 1..N), hI/ (sshd_config, host key, pid, log).
set -u
SUBNET=198.18.0
NETNS_DIR=/run/netns

die() { echo "netns.sh: $*" >&2; exit 1; }

# What the harness needs, one phrase per missing thing; empty when it can run.
missing() {
  m=""
  [ "$(id -u)" -eq 0 ] || m="$m, root (ip netns and sshd's privilege separation need uid 0)"
  command -v ip > /dev/null 2>&1 || m="$m, ip (iproute2)"
  [ -x /usr/sbin/sshd ] || m="$m, /usr/sbin/sshd (apt-get install openssh-server)"
  command -v ssh-keygen > /dev/null 2>&1 || m="$m, ssh-keygen (openssh-client)"
  if [ -z "$m" ]; then
    probe="xlhprobe$$"
    if ip netns add "$probe" 2> /dev/null; then
      if ! ip netns exec "$probe" ip link add name p0 type veth peer name p1 2> /dev/null; then
        m="$m, veth links in a network namespace"
      fi
      ip netns del "$probe"
    else
      m="$m, network namespaces (ip netns add failed: no CAP_SYS_ADMIN or no netns support)"
    fi
  fi
  printf '%s' "${m#, }"
}

name() { sed -n "$(($1 + 1))p" "$2/names"; } # name INDEX DIR: 0 switch, 1 client, 2.. hosts

# Namespaces this harness left behind when its owner was SIGKILLed (xlh<owner pid>x...): deleted
# when that pid is gone, so a CI rerun starts clean. Others' namespaces are never touched.
reap_stale() {
  for f in "$NETNS_DIR"/xlh*; do
    [ -e "$f" ] || continue
    stale=$(basename "$f"); owner=${stale#xlh}; owner=${owner%%[!0-9]*}
    [ -n "$owner" ] && ! kill -0 "$owner" 2> /dev/null || continue
    kill_ns "$stale"; ip netns del "$stale" 2> /dev/null
  done
}

kill_ns() { # every process in namespace $1, by pid, but this script and its caller
  pids=$(ip netns pids "$1" 2> /dev/null | grep -v -x -e "$$" -e "$PPID")
  [ -n "$pids" ] && kill -9 $pids 2> /dev/null
  return 0
}

up() {
  d=$1; n=${2:-3}
  [ -d "$d" ] || die "up: $d is not a directory"
  m=$(missing); [ -z "$m" ] || die "missing: $m"
  reap_stale
  # /run/sshd: sshd's privilege separation directory (Debian's unit makes it at boot; a
  # container without systemd lacks it). Empty, root-owned, the same as the unit makes.
  [ -d /run/sshd ] || install -d -m 755 /run/sshd || die "cannot make /run/sshd"
  # named after the caller (the test's shell), which lives as long as the hosts do
  pre="xlh${NETNS_OWNER:-$PPID}x"
  { echo "${pre}sw"; echo "${pre}c"; i=1; while [ $i -le "$n" ]; do echo "$pre$i"; i=$((i + 1)); done; } > "$d/names"
  : > "$d/hosts"; : > "$d/known_hosts"
  rm -f "$d/id_ed25519" "$d/id_ed25519.pub" "$d"/h*/host_ed25519 "$d"/h*/host_ed25519.pub # an earlier up's
  ssh-keygen -q -t ed25519 -N '' -C xlate-test-client -f "$d/id_ed25519" || die "ssh-keygen failed"
  cp "$d/id_ed25519.pub" "$d/authorized_keys"
  cat > "$d/ssh_config" << EOF
# the test's own client configuration (netns.sh); nothing under ~/.ssh or /etc/ssh is read
Host *
  User root
  IdentityFile $d/id_ed25519
  IdentitiesOnly yes
  UserKnownHostsFile $d/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  BatchMode yes
  ConnectTimeout 5
  ServerAliveInterval 2
  ServerAliveCountMax 3
  ControlMaster no
  ControlPath none
  LogLevel ERROR
EOF
  sw=$(name 0 "$d")
  ip netns add "$sw" || die "ip netns add $sw failed"
  ip -n "$sw" link add br0 type bridge && ip -n "$sw" link set br0 up || die "bridge in $sw failed"
  i=1
  while [ $i -le $((n + 1)) ]; do # the client (1) and the hosts (2..n+1)
    ns=$(name $i "$d"); addr="$SUBNET.$((9 + i))"
    ip netns add "$ns" || die "ip netns add $ns failed"
    ip -n "$ns" link set lo up
    ip link add name eth0 netns "$ns" type veth peer name "p$i" netns "$sw" || die "veth for $ns failed"
    ip -n "$sw" link set "p$i" master br0 && ip -n "$sw" link set "p$i" up &&
      ip -n "$ns" addr add "$addr/24" dev eth0 && ip -n "$ns" link set eth0 up || die "addressing $ns failed"
    i=$((i + 1))
  done
  i=1
  while [ $i -le "$n" ]; do
    h="$d/h$i"; addr="$SUBNET.$((10 + i))"; mkdir -p "$h"
    ssh-keygen -q -t ed25519 -N '' -C "xlate-test-host$i" -f "$h/host_ed25519" || die "ssh-keygen failed"
    echo "$addr $(cut -d' ' -f1,2 "$h/host_ed25519.pub")" >> "$d/known_hosts"
    cat > "$h/sshd_config" << EOF
# host $i's own sshd configuration (netns.sh): only the test's files
ListenAddress $addr
Port 22
HostKey $h/host_ed25519
AuthorizedKeysFile $d/authorized_keys
PidFile $h/sshd.pid
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PrintMotd no
PrintLastLog no
UseDNS no
MaxStartups 100:30:200
MaxSessions 100
LogLevel INFO
EOF
    # sshd re-executes itself and so needs its absolute path; it daemonizes once it listens
    ip netns exec "$(name $((i + 1)) "$d")" /usr/sbin/sshd -f "$h/sshd_config" -E "$h/sshd.log" ||
      die "sshd on host $i failed: $(tail -n 3 "$h/sshd.log" 2> /dev/null)"
    echo "$addr" >> "$d/hosts"
    i=$((i + 1))
  done
  # every host answers a login before `up` returns
  for addr in $(cat "$d/hosts"); do
    tries=0
    until ip netns exec "$(name 1 "$d")" ssh -F "$d/ssh_config" "$addr" true 2> "$d/login.err"; do
      tries=$((tries + 1)); [ $tries -lt 50 ] || die "no login on $addr: $(cat "$d/login.err")"
      sleep 0.2
    done
  done
}

down() {
  d=$1; [ -f "$d/names" ] || return 0
  # hosts and client first (sshd, its sessions, servers), the switch last
  for ns in $(sed 1d "$d/names") $(sed -n 1p "$d/names"); do
    [ -e "$NETNS_DIR/$ns" ] || continue
    kill_ns "$ns"; ip netns del "$ns" 2> /dev/null
  done
  rm -f "$d/names"
}

cmd=${1:-}; [ $# -gt 0 ] && shift
case "$cmd" in
  check) missing ;;
  up) [ $# -ge 1 ] || die "usage: up DIR [N]"; up "$@" ;;
  down) [ $# -eq 1 ] || die "usage: down DIR"; down "$1" ;;
  client) [ $# -ge 2 ] || die "usage: client DIR CMD..."; d=$1; shift; exec ip netns exec "$(name 1 "$d")" "$@" ;;
  on) [ $# -ge 3 ] || die "usage: on DIR I CMD..."; d=$1; i=$2; shift 2
      exec ip netns exec "$(name $((i + 1)) "$d")" "$@" ;;
  pids) [ $# -eq 2 ] || die "usage: pids DIR I"
        for p in $(ip netns pids "$(name $(($2 + 1)) "$1")"); do echo "$p $(readlink /proc/$p/exe)"; done ;;
  kill) [ $# -eq 2 ] || die "usage: kill DIR I"; kill_ns "$(name $(($2 + 1)) "$1")" ;;
  *) die "usage: netns.sh check | up DIR [N] | down DIR | client DIR CMD.. | on DIR I CMD.. | kill DIR I | pids DIR I" ;;
esac

"""Three `xlate serve` replicas behind HAProxy, one killed and one stopped under load (issue 41).

The hosts are network namespaces made by tests/hosts/netns.sh (198.18.0.11-13, a bridge, no
route out; the client 198.18.0.10). Each host runs `xlate serve --host ITS_ADDRESS --port 5000
--threads 1`; HAProxy (Debian's package) runs in the client namespace with the repository's
examples/haproxy.cfg (its stats socket moved into the test's directory, bound to the client's
own 127.0.0.1:8080), health checks on GET /health. The test's process joins the client
namespace (setns) and sends the load from client threads through HAProxy: requests of 1-4
held-out Multi30k lines (tests/data/multi30k/val.en). The oracle is the command line: each
answer must be `xlate -q`'s lines for the same text.

Mid-load, replica 1 gets SIGKILL; later replica 2 gets SIGTERM (it drains: refuses new
connections, answers what it has begun, exits 0). Every request must end with the CLI's answer;
an error a client sees (a clean HTTP status or a refused connection) is retried by the client,
and counted. HAProxy must mark both replicas DOWN, and send replica 2 nothing after that.
Printed: requests, errors, retries, p99 latency before and after each loss (docs/CLUSTER.md).
300 requests (90 under the sanitizers or XLATE_FORCE_ISA=generic; TEST_HOSTS_REQUESTS=N).
Run by tests/run.sh with env XLATE and Debian's /usr/bin/python3; needs root, ip netns,
openssh-server (the harness's sshd) and haproxy, else one not-ok line naming what is missing.
"""
import ctypes
import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, done, expect_eq, not_ok, ok  # noqa: E402

XLATE = os.path.abspath(os.environ.get("XLATE", os.path.join(TOP, "xlate")))
MODEL = os.path.join(TOP, "models", "en-de")
NETNS = os.path.join(TOP, "tests", "hosts", "netns.sh")
CFG = os.path.join(TOP, "examples", "haproxy.cfg")
VAL = os.path.join(TOP, "tests", "data", "multi30k", "val.en")
GUARD = int(os.environ.get("TEST_HANG_SECONDS", "300"))
SLOW = os.environ.get("TEST_SANITIZED") == "1" or os.environ.get("XLATE_FORCE_ISA") == "generic"
REQUESTS = int(os.environ.get("TEST_HOSTS_REQUESTS", "90" if SLOW else "300"))
CLIENTS = 8
PORT = 8080  # HAProxy's, on the client namespace's own loopback: no other process can hold it
CLONE_NEWNET = 0x40000000


def netns(*args, check_rc=True):
    p = subprocess.run(["sh", NETNS] + list(args), capture_output=True, text=True, timeout=GUARD)
    if check_rc and p.returncode != 0:
        raise RuntimeError("netns.sh %s: %s" % (args[0], p.stderr.strip()))
    return p.stdout


def join_netns(path):
    """This thread, and the threads it starts from here on, live in the network namespace at
    PATH (setns(2) acts on the calling thread)."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(path, os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), "setns " + path)
    finally:
        os.close(fd)


def haproxy_stat(sock_path, backend=None):
    """{server name: (status, requests sent to it)} from the stats socket's `show stat`; the
    backend's own row (retries, redispatches) into the dict BACKEND when given."""
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(10)
        s.connect(sock_path)
        s.sendall(b"show stat\n")
        data = b""
        while True:
            b = s.recv(65536)
            if not b:
                break
            data += b
    lines = data.decode().splitlines()
    head = lines[0].lstrip("# ").split(",")
    out = {}
    for ln in lines[1:]:
        row = dict(zip(head, ln.split(",")))
        if row.get("pxname") == "replicas" and row.get("svname", "").startswith("host"):
            out[row["svname"]] = (row["status"], int(row["stot"] or 0))
        if row.get("pxname") == "replicas" and row.get("svname") == "BACKEND":
            if backend is not None:
                backend.update(row)
    return out


def wait_for(what, fn):
    deadline = time.monotonic() + GUARD
    while time.monotonic() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(0.1)
    raise RuntimeError("waited %d s for %s" % (GUARD, what))


def p99(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(0.99 * len(xs)))] if xs else float("nan")


class Load:
    """REQUESTS requests from CLIENTS threads through HAProxy, each retried by its client until
    it gets a 200 (at most 8 tries); what each attempt got is kept."""

    def __init__(self, texts, want):
        self.todo = queue.Queue()
        self.lock = threading.Lock()
        self.phase = 0
        self.done = 0
        self.results = {}      # request -> (answer, tries, seconds, phase it began in)
        self.errors = []       # (request, phase, what a client saw)
        self.texts, self.want = texts, want
        for r in range(REQUESTS):
            self.todo.put(r)

    def one(self, r):
        body = json.dumps({"q": self.texts[r], "source": "en", "target": "de"}).encode()
        phase, t0 = self.phase, time.monotonic()
        for tries in range(1, 9):
            req = urllib.request.Request("http://127.0.0.1:%d/translate" % PORT, data=body,
                                         headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(req, timeout=GUARD) as resp:
                    answer = json.loads(resp.read())["translatedText"]
                break
            except urllib.error.HTTPError as e:
                seen = "HTTP %d" % e.code
            except (OSError, ValueError) as e:
                seen = "%s: %s" % (type(e).__name__, e)
            with self.lock:
                self.errors.append((r, self.phase, seen))
            time.sleep(0.2)
        else:
            answer = None
        with self.lock:
            self.results.setdefault(r, []).append((answer, tries, time.monotonic() - t0, phase))
            self.done += 1

    def worker(self):
        while True:
            try:
                r = self.todo.get_nowait()
            except queue.Empty:
                return
            self.one(r)

    def run(self, events):
        """Runs the load; events: [(fraction of requests done, action)], each action run once
        when that many requests have ended, the phase then moved on."""
        ts = [threading.Thread(target=self.worker) for _ in range(CLIENTS)]
        for t in ts:
            t.start()
        for frac, action in events:
            while self.done < frac * REQUESTS and any(t.is_alive() for t in ts):
                time.sleep(0.02)
            with self.lock:
                self.phase += 1
            action()
        for t in ts:
            t.join(GUARD)


def run(d):
    names = None
    netns("up", d, "3")
    names = open(os.path.join(d, "names")).read().split()
    hosts = open(os.path.join(d, "hosts")).read().split()
    ok("three hosts up (network namespaces on a bridge, 198.18.0.11-13, no route out)")

    # the oracle: the command line on every line the requests use
    val = open(VAL, encoding="utf-8").read().splitlines()
    p = subprocess.run([XLATE, "-m", MODEL, "-q", "--threads", "2"], input="\n".join(val) + "\n",
                       capture_output=True, text=True, timeout=GUARD)
    cli = p.stdout.splitlines()
    if p.returncode != 0 or len(cli) != len(val):
        not_ok("the command line's translations (the oracle)", p.stderr.strip()[-300:])
        return
    texts, want = [], []
    for r in range(REQUESTS):
        k = 1 + r % 4
        s = (r * 37) % (len(val) - k)
        texts.append(val[s:s + k])
        want.append(cli[s:s + k])

    reps = []
    for i, addr in enumerate(hosts, 1):
        err = open(os.path.join(d, "replica%d.err" % i), "w+")
        # netns.sh `on` execs ip netns exec, which execs xlate: the Popen's pid is the server's
        reps.append((subprocess.Popen(["sh", NETNS, "on", d, str(i), XLATE, "serve", "-m", MODEL,
                                       "--host", addr, "--port", "5000", "--threads", "1"],
                                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=err), err))
    for i, (rp, err) in enumerate(reps, 1):
        line = "listening on http://%s:5000" % hosts[i - 1]
        wait_for("replica %d's listening line" % i,
                 lambda: rp.poll() is not None or line in open(err.name).read())
        if rp.poll() is not None:
            not_ok("replica %d up" % i, open(err.name).read()[-300:])
            return
    ok("3 replicas: xlate serve on each host (%s:5000), each its own process" % ", ".join(hosts))

    cfg = open(CFG).read()
    sock = os.path.join(d, "haproxy.sock")
    cfg = cfg.replace("/run/haproxy-xlate.sock", sock)
    cfg = cfg.replace("bind :8080", "bind 127.0.0.1:%d" % PORT)
    cfg_path = os.path.join(d, "haproxy.cfg")
    open(cfg_path, "w").write(cfg)
    hlog = open(os.path.join(d, "haproxy.log"), "w")
    hap = subprocess.Popen(["sh", NETNS, "client", d, "haproxy", "-db", "-f", cfg_path],
                           stdin=subprocess.DEVNULL, stdout=hlog, stderr=hlog)
    try:
        def all_up():
            s = haproxy_stat(sock) if os.path.exists(sock) else {}
            return s if len(s) == 3 and all(v[0] == "UP" for v in s.values()) else None
        st = wait_for("HAProxy to see 3 replicas UP", all_up)
        ok("HAProxy (examples/haproxy.cfg) up, health checks on /health: %s" %
           ", ".join("%s %s" % (k, v[0]) for k, v in sorted(st.items())))

        join_netns("/run/netns/" + names[1])  # the client namespace, where HAProxy listens
        load = Load(texts, want)
        seen = {}

        def kill1():
            reps[0][0].send_signal(signal.SIGKILL)
            seen["kill_done"] = load.done

        def term2():
            reps[1][0].send_signal(signal.SIGTERM)
            seen["term_done"] = load.done
            # /health asked as HAProxy's check asks it, every 10 ms, until it is not answered 200
            # (the signal is handled a moment after it is sent): was the replica still
            # draining then, its requests in flight answered?
            deadline = time.monotonic() + GUARD
            while time.monotonic() < deadline:
                try:
                    with socket.create_connection((hosts[1], 5000), timeout=5) as s:
                        s.sendall(b"GET /health HTTP/1.0\r\n\r\n")
                        got = s.recv(200).split(b"\r\n")[0].decode(errors="replace")
                except OSError as e:
                    got = type(e).__name__
                if not got.startswith("HTTP/1.1 200"):
                    break
                seen["health_200_after_term"] = seen.get("health_200_after_term", 0) + 1
                time.sleep(0.01)
            seen["drain_health"] = got
            seen["drain_alive"] = reps[1][0].poll() is None

        t0 = time.monotonic()
        load.run([(1 / 3, kill1), (2 / 3, term2)])
        wall = time.monotonic() - t0

        # every request once, with the CLI's answer
        answered = sum(1 for r in range(REQUESTS) if len(load.results.get(r, [])) == 1)
        expect_eq("every request ended once (%d clients, %d requests)" % (CLIENTS, REQUESTS),
                  answered, REQUESTS)
        got = [load.results.get(r, [(None,)])[0][0] for r in range(REQUESTS)]
        wrong = [r for r in range(REQUESTS) if got[r] != want[r]]
        check("every answer is the command line's (none lost, none wrong)",
              lambda: None if not wrong else "%d differ, first request %d: got %r want %r" % (
                  len(wrong), wrong[0], got[wrong[0]], want[wrong[0]]))
        check("replica 1 killed (SIGKILL) mid-load",
              lambda: None if 0 < seen.get("kill_done", 0) < REQUESTS
              and reps[0][0].wait(GUARD) == -signal.SIGKILL
              else "done %s of %d, exit %s" % (seen.get("kill_done"), REQUESTS, reps[0][0].poll()))
        rc2 = reps[1][0].wait(GUARD)
        check("replica 2 stopped with SIGTERM mid-load: drained, exit 0",
              lambda: None if rc2 == 0 and 0 < seen.get("term_done", 0) < REQUESTS
              else "exit %s, done %s" % (rc2, seen.get("term_done")))
        # refused, or reset (a connection that was in the closed listener's backlog), or 503:
        # each fails HAProxy's check; only a 200 would pass it
        check("after SIGTERM, /health is no longer answered 200, so HAProxy's check fails "
              "(%s; the replica %s then)" % (seen.get("drain_health"),
                                              "draining" if seen.get("drain_alive") else "gone"),
              lambda: None if seen.get("drain_health") in (
                  "ConnectionRefusedError", "ConnectionResetError")
              or seen.get("drain_health", "").startswith(("HTTP/1.1 503", "HTTP/1.0 503"))
              else "/health after SIGTERM: %r, alive %s" % (
                  seen.get("drain_health"), seen.get("drain_alive")))
        def both_down():
            s = haproxy_stat(sock)
            return s if all(s[h][0].startswith("DOWN") for h in ("host1", "host2")) else None
        st = wait_for("HAProxy to mark host1 and host2 DOWN", both_down)
        ok("HAProxy marks the killed and the drained replica DOWN (%s)" %
           ", ".join("%s %s %d requests" % (k, v[0], v[1]) for k, v in sorted(st.items())))
        time.sleep(1.5)  # three more check intervals
        be = {}
        st2 = haproxy_stat(sock, be)
        expect_eq("no request sent to the drained replica once it was DOWN",
                  st2["host2"][1], st["host2"][1])

        by_phase = [[] for _ in range(3)]
        for r in range(REQUESTS):
            for (_, tries, secs, ph) in load.results.get(r, []):
                by_phase[ph].append(secs)
        retried = sum(1 for r in range(REQUESTS)
                      for (_, tries, _, _) in load.results.get(r, []) if tries > 1)
        kinds = {}
        for (_, _, what) in load.errors:
            k = what.split(":")[0]
            kinds[k] = kinds.get(k, 0) + 1
        kinds = ", ".join("%s %d" % kv for kv in sorted(kinds.items())) or "none"
        print("# figures: %d requests in %.1f s; errors seen by clients %d (%s), requests retried "
              "by a client %d" % (REQUESTS, wall, len(load.errors), kinds, retried), flush=True)
        print("# p99 latency %.3f s before, %.3f s after the SIGKILL, %.3f s after the SIGTERM; "
              "HAProxy's retries %s, redispatches %s, 5xx answers %s" % (
                  p99(by_phase[0]), p99(by_phase[1]), p99(by_phase[2]),
                  be.get("wretr"), be.get("wredis"), be.get("hrsp_5xx")), flush=True)
        print("# after SIGTERM /health answered 200 %d times (10 ms apart), then %s, the replica "
              "%s" % (seen.get("health_200_after_term", 0), seen.get("drain_health"),
                      "still draining" if seen.get("drain_alive") else "gone"), flush=True)
    finally:
        hap.terminate()
        try:
            hap.wait(10)
        except subprocess.TimeoutExpired:
            hap.kill()
        for rp, _ in reps:
            if rp.poll() is None:
                rp.kill()
                rp.wait()


def main():
    missing = netns("check", check_rc=False).strip()
    if not shutil.which("haproxy"):
        missing = (missing + ", " if missing else "") + "haproxy (apt-get install haproxy)"
    if missing:
        not_ok("xlate serve replicas behind HAProxy on test hosts", "missing: " + missing)
        return done()
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(130))  # the finally below still runs
    d = tempfile.mkdtemp(prefix="xlate-hosts-serve-")
    home = os.open("/proc/self/ns/net", os.O_RDONLY)  # the machine's namespace, to come back to
    try:
        run(d)
    except Exception as e:  # noqa: BLE001
        not_ok("replicas behind HAProxy", "%s: %s" % (type(e).__name__, e))
    finally:
        # back home first: `down` kills every process in the client namespace
        join_netns("/proc/self/fd/%d" % home)
        os.close(home)
        netns("down", d, check_rc=False)
        shutil.rmtree(d, ignore_errors=True)
    return done()


if __name__ == "__main__":
    sys.exit(main())

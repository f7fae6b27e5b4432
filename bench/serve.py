#!/usr/bin/env python3
"""serve.py — `xlate serve` under concurrent clients against the CLI's batch-32 throughput
(part of `make bench`; bench/README.md "xlate serve").

    python3 bench/serve.py [--threads 2] [--clients 1,8,32] [--new-clients 32] [--runs 2]
                           [--probes 200] [--perf FILE]

On the same sentences in one run (held-out Multi30k test_2016_flickr.en: ../shared's copy when
there, else tests/data's), with the same --threads for both:
  1. the CLI: `xlate -v --batch-size 32 --threads T -i FILE`; sentences/s of its translate time
     (-v's "translate" seconds: the model already loaded, as the server's is);
  2. the server, `xlate serve --port 0 --threads T --batch-size 32`: C clients (threads of a
     separate process, each with its own keep-alive connection) take the sentences in turn, one
     sentence a request (POST /translate, JSON), until every sentence is answered; sentences/s of
     the wall time from the first request to the last answer, and its ratio to the CLI's; the
     server's CPU seconds (/proc/PID/stat, every thread) against the CLI's (its run's less a
     one-sentence run's: the load); every answer compared with the CLI's line for that sentence
     (the bench exits 1 if one differs). Then the same with --new-clients clients of the other
     kind: a new connection a request, closed after the answer (Weblate's, Mastodon's clients);
     --perf FILE records `perf record -g` of the server during the last run's 32-client runs
     into FILE.keep and FILE.new;
  3. latency of a one-sentence request (the wall time of the request, client side): P requests
     one after another on an idle server, then P requests while 32 other clients keep the server
     busy with the same sentences (full load); median and p99 of each.
The clients run on the same machine and cost CPU: the report gives the client process's CPU
seconds beside each figure; the CLI at batch 1 (one run) is printed too, what one client
is up against. Prints markdown on stdout, progress on stderr; --json FILE keeps the
raw numbers. Exits 2 when xlate or its serve command is missing.
"""
import argparse
import http.client
import json
import multiprocessing as mp
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def cpu_name():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown CPU"


def data_file():
    shared = os.path.join(os.path.dirname(TOP), "shared", "data", "multi30k", "test_2016_flickr.en")
    if os.path.isfile(shared):
        return shared, "../shared/data/multi30k/test_2016_flickr.en"
    return (os.path.join(TOP, "tests", "data", "multi30k", "test_2016_flickr.en"),
            "tests/data/multi30k/test_2016_flickr.en")


def percentile(xs, q):
    """The q-quantile (0..1) by the nearest-rank method: the smallest value with at least q of
    the values at or below it."""
    s = sorted(xs)
    k = max(0, min(len(s) - 1, int(-(-q * len(s) // 1)) - 1))
    return s[k]


def env():
    return {k: v for k, v in os.environ.items() if k != "XLATE_MODEL"}


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def proc_cpu(pid):
    """CPU seconds (user + system, all threads) a running process has used so far."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_cli(xlate, path, threads, tmp, batch=32):
    """(lines out, translate seconds, -v's kernels line, CPU seconds of the process) of one
    CLI run at batch 32 (or batch)."""
    out = os.path.join(tmp, "cli.de")
    c0 = children_cpu()
    p = subprocess.run([xlate, "-v", "--threads", str(threads), "--batch-size", str(batch), "-i", path,
                        "-o", out], capture_output=True, env=env())
    cpu = children_cpu() - c0
    if p.returncode != 0:
        raise SystemExit("serve bench: xlate failed: %s" % p.stderr.decode()[-500:])
    err = p.stderr.decode()
    m = re.search(r"translate ([0-9.]+) s", err)
    kernels = next((ln[len("xlate: "):] for ln in err.splitlines() if "compute type" in ln), "")
    with open(out, encoding="utf-8") as f:
        return f.read().split("\n")[:-1], float(m.group(1)), kernels, cpu


class Server:
    def __init__(self, xlate, threads):
        self.proc = subprocess.Popen([xlate, "serve", "--port", "0", "--threads", str(threads),
                                      "--batch-size", "32"], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env())
        seen = []
        self.port = None
        while True:
            line = self.proc.stderr.readline()
            if not line:
                break
            text = line.decode(errors="replace").strip()
            seen.append(text)
            m = re.match(r"xlate serve: listening on http://([^:/]+):(\d+)", text)
            if m:
                self.host, self.port = m.group(1), int(m.group(2))
                break
        if self.port is None:
            self.proc.wait()
            raise SystemExit("serve bench: `xlate serve` did not start: %s" % " / ".join(seen[-5:]))
        self.tail = []  # what it says after it listens: the batch count at exit
        self.drain = threading.Thread(target=lambda: [self.tail.append(ln.decode(errors="replace").strip())
                                                      for ln in self.proc.stderr], daemon=True)
        self.drain.start()

    def stop(self):
        self.proc.terminate()
        rc = self.proc.wait()
        self.drain.join(timeout=10)
        return rc


class Client:
    """One keep-alive connection (or, fresh, a new connection a request, closed after the answer,
    as Weblate's and Mastodon's clients do); translate() returns (translation, seconds)."""

    def __init__(self, host, port, source, target, fresh=False):
        self.host, self.port, self.fresh = host, port, fresh
        self.conn = None if fresh else http.client.HTTPConnection(host, port, timeout=300)
        self.source, self.target = source, target

    def translate(self, text):
        body = json.dumps({"q": text, "source": self.source, "target": self.target}).encode()
        t0 = time.perf_counter()
        conn = http.client.HTTPConnection(self.host, self.port, timeout=300) if self.fresh else self.conn
        conn.request("POST", "/translate", body, {"Content-Type": "application/json"})
        r = conn.getresponse()
        raw = r.read()
        if self.fresh:
            conn.close()
        dt = time.perf_counter() - t0
        if r.status != 200:
            raise RuntimeError("POST /translate: %d %s" % (r.status, raw[:200]))
        return json.loads(raw)["translatedText"], dt


def languages(host, port):
    c = http.client.HTTPConnection(host, port, timeout=60)
    c.request("GET", "/languages")
    langs = json.loads(c.getresponse().read())
    src = next(lang for lang in langs if lang.get("targets"))
    return src["code"], src["targets"][0]


def throughput_worker(host, port, source, target, sentences, clients, fresh, conn):
    """In its own process: `clients` threads take the sentences in turn, one a request (fresh: a
    new connection each). Sends back (wall seconds, this process's CPU seconds, answers in
    input order)."""
    answers = [None] * len(sentences)
    nxt = [0]
    lock = threading.Lock()
    errors = []

    def client():
        c = Client(host, port, source, target, fresh)
        while True:
            with lock:
                i = nxt[0]
                nxt[0] += 1
            if i >= len(sentences):
                return
            try:
                answers[i] = c.translate(sentences[i])[0]
            except Exception as e:  # noqa: BLE001
                errors.append(str(e))
                return
    ths = [threading.Thread(target=client) for _ in range(clients)]
    c0 = time.process_time()
    t0 = time.perf_counter()
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    conn.send((time.perf_counter() - t0, time.process_time() - c0, answers, errors[:3]))


def load_worker(host, port, source, target, sentences, clients, stop, conn):
    """In its own process: `clients` threads send the sentences round and round until stop is
    set; sends back how many sentences were answered and in how many seconds."""
    count = [0]
    lock = threading.Lock()

    def client(k):
        c = Client(host, port, source, target)
        i = k
        while not stop.is_set():
            c.translate(sentences[i % len(sentences)])
            i += clients
            with lock:
                count[0] += 1
    ths = [threading.Thread(target=client, args=(k,), daemon=True) for k in range(clients)]
    t0 = time.perf_counter()
    for t in ths:
        t.start()
    stop.wait()
    conn.send((count[0], time.perf_counter() - t0))


def in_process(target, *args):
    here, there = mp.Pipe()
    p = mp.Process(target=target, args=args + (there,))
    p.start()
    return p, here


def probe(host, port, source, target, sentences, n, seed):
    rnd = random.Random(seed)
    c = Client(host, port, source, target)
    lat = []
    for _ in range(n):
        lat.append(c.translate(sentences[rnd.randrange(len(sentences))])[1])
    return lat


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--xlate", default=os.path.join(TOP, "xlate"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--clients", default="1,8,32", help="keep-alive client counts")
    ap.add_argument("--new-clients", default="32",
                    help="client counts of the kind that opens a new connection a request ('' none)")
    ap.add_argument("--perf", metavar="FILE",
                    help="perf record -g the server during the last run's 32-client runs, into FILE.KIND")
    ap.add_argument("--runs", type=int, default=2, help="best of RUNS for each throughput")
    ap.add_argument("--probes", type=int, default=200, help="one-sentence requests per latency figure")
    ap.add_argument("--load-clients", type=int, default=32)
    ap.add_argument("--sentences", type=int, default=0, help="the first N sentences only")
    ap.add_argument("--no-batch1", action="store_true", help="leave out the CLI at batch 1")
    ap.add_argument("--json", help="the raw numbers into this file too")
    a = ap.parse_args()
    if not os.access(a.xlate, os.X_OK):
        log("serve bench: %s missing (run make)" % a.xlate)
        return 2
    h = subprocess.run([a.xlate, "serve", "--help"], capture_output=True)
    if h.returncode != 0:
        log("serve bench: `%s serve --help` failed: no server in this build" % a.xlate)
        return 2
    path, shown = data_file()
    with open(path, encoding="utf-8") as f:
        sentences = f.read().split("\n")[:-1]
    if a.sentences:
        sentences = sentences[:a.sentences]
    tmp = tempfile.mkdtemp(prefix="xlate-bench-serve-")
    inp = os.path.join(tmp, "in.en")
    with open(inp, "w", encoding="utf-8") as f:
        f.write("\n".join(sentences) + "\n")
    one = os.path.join(tmp, "one.en")
    with open(one, "w", encoding="utf-8") as f:
        f.write(sentences[0] + "\n")
    # (kind, clients): keep-alive connections, then a new connection a request
    kinds = [("keep", int(c)) for c in a.clients.split(",") if c] + \
            [("new", int(c)) for c in a.new_clients.split(",") if c]
    res = {"cpu": cpu_name(), "ncpu": os.cpu_count(), "load_start": loadavg(), "threads": a.threads,
           "data": shown, "sentences": len(sentences), "date": time.strftime("%Y-%m-%d", time.gmtime())}

    srv = Server(a.xlate, a.threads)
    differ = 0
    try:
        source, target = languages(srv.host, srv.port)
        probe(srv.host, srv.port, source, target, sentences, 20, 0)  # warm: the screen built, pages in
        # run r of the CLI, then run r of every client count, then run r + 1...: load from
        # other work on the machine falls on all alike; the best run of each is kept
        # CPU seconds: the CLI's translation is its run's CPU less a one-sentence run's (the
        # load, the output projection's screen); the server's, its process's CPU during the run
        best_cli, best, cli_cpu, cli_cpus = None, {}, None, []
        for r in range(a.runs):
            log("serve bench: run %d/%d: the CLI at batch 32 (load %s)" % (r + 1, a.runs, loadavg()))
            want, secs, kernels, cpu_all = run_cli(a.xlate, inp, a.threads, tmp)
            cpu_one = run_cli(a.xlate, one, a.threads, tmp)[3]
            cli_one_cpu = cpu_one
            best_cli = secs if best_cli is None else min(best_cli, secs)
            cli_cpu = cpu_all - cpu_one if cli_cpu is None else min(cli_cpu, cpu_all - cpu_one)
            cli_cpus.append(cpu_all - cpu_one)
            for kc in kinds:
                kind, c = kc
                log("serve bench: run %d/%d: %d clients, %s (load %s)" % (
                    r + 1, a.runs, c, "keep-alive" if kind == "keep" else "a connection a request",
                    loadavg()))
                perf = None
                if a.perf and c == 32 and r == a.runs - 1:
                    perf = subprocess.Popen(["perf", "record", "-g", "-q", "-o", "%s.%s" % (a.perf, kind),
                                             "-p", str(srv.proc.pid)], stdout=subprocess.DEVNULL)
                s0 = proc_cpu(srv.proc.pid)
                p, pipe = in_process(throughput_worker, srv.host, srv.port, source, target, sentences, c,
                                     kind == "new")
                wall, cpu, answers, errors = pipe.recv()
                p.join()
                server_cpu = proc_cpu(srv.proc.pid) - s0
                if perf:
                    perf.send_signal(2)
                    perf.wait()
                if errors:
                    raise SystemExit("serve bench: %d clients, %s: %s" % (c, kind, errors))
                bad = sum(1 for x, y in zip(answers, want) if x != y)
                differ += bad
                if kc not in best or wall < best[kc]["wall_s"]:
                    best[kc] = dict(best.get(kc, {}), clients=c, kind=kind, wall_s=wall, client_cpu_s=cpu,
                                    differ=bad)
                best[kc]["server_cpu_s"] = min(best[kc].get("server_cpu_s", server_cpu), server_cpu)
                best[kc].setdefault("server_cpu_runs", []).append(server_cpu)
        res["cli_s"], res["kernels"], res["cli_cpu_s"] = best_cli, kernels, cli_cpu
        if not a.no_batch1:
            # what one client is up against: the CLI one sentence a batch (one run)
            log("serve bench: the CLI at batch 1 (load %s)" % loadavg())
            out1, secs1, _, cpu1 = run_cli(a.xlate, inp, a.threads, tmp, batch=1)
            differ += sum(1 for x, y in zip(out1, want) if x != y)
            res["cli1_s"], res["cli1_cpu_s"] = secs1, cpu1 - cli_one_cpu
        res["cli_sps"] = len(sentences) / best_cli
        res["throughput"] = []
        res["cli_cpu_runs"] = cli_cpus
        for kc in kinds:
            t = best[kc]
            t["sps"] = len(sentences) / t["wall_s"]
            t["ratio"] = t["sps"] / res["cli_sps"]
            t["cpu_ratio"] = cli_cpu / t["server_cpu_s"]
            res["throughput"].append(t)

        log("serve bench: latency, idle (load %s)" % loadavg())
        c0 = time.process_time()
        idle = probe(srv.host, srv.port, source, target, sentences, a.probes, 1)
        res["idle"] = {"median_ms": 1e3 * statistics.median(idle), "p99_ms": 1e3 * percentile(idle, 0.99),
                       "n": len(idle), "client_cpu_s": time.process_time() - c0}

        log("serve bench: latency under %d clients' load (load %s)" % (a.load_clients, loadavg()))
        stop = mp.Event()
        p, pipe = in_process(load_worker, srv.host, srv.port, source, target, sentences,
                             a.load_clients, stop)
        time.sleep(2.0)  # the load reaches its steady state
        busy = probe(srv.host, srv.port, source, target, sentences, a.probes, 2)
        stop.set()
        count, secs = pipe.recv()
        p.join(timeout=60)
        res["loaded"] = {"median_ms": 1e3 * statistics.median(busy), "p99_ms": 1e3 * percentile(busy, 0.99),
                         "n": len(busy), "load_sps": count / secs, "clients": a.load_clients}
    finally:
        rc = srv.stop()
    res["serve_exit"] = rc
    res["serve_said"] = [ln for ln in srv.tail if "batches" in ln]
    res["differ"] = differ
    res["load_end"] = loadavg()
    report(res)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    subprocess.run(["rm", "-rf", tmp])
    return 1 if differ else 0


def report(r):
    print("## xlate serve: concurrent clients against the CLI")
    print()
    print("CPU: %s, %d cores; %s; load average %s at the start, %s at the end" % (
        r["cpu"], r["ncpu"], r["date"], r["load_start"], r["load_end"]))
    print("kernels: %s" % r["kernels"])
    print()
    print("%d sentences of %s, one a request, %d threads for the CLI and the server, batches of 32; "
          "best of the runs." % (r["sentences"], r["data"], r["threads"]))
    print()
    print("| clients | connections | sentences/s | / CLI batch 32 | wall s | xlate CPU s | CLI CPU / server CPU | each run's server CPU s | client CPU s | answers differing from the CLI |")
    print("|---:|---|---:|---:|---:|---:|---:|---|---:|---:|")
    print("| CLI, batch 32 | | %.1f | 1.00 | %.2f | %.2f | 1.00 | %s | | |" % (
        r["cli_sps"], r["cli_s"], r["cli_cpu_s"], ", ".join("%.2f" % x for x in r["cli_cpu_runs"])))
    if "cli1_s" in r:
        print("| CLI, batch 1 | | %.1f | %.2f | %.2f | %.2f | %.2f | | | |" % (
            r["sentences"] / r["cli1_s"], r["cli_s"] / r["cli1_s"], r["cli1_s"], r["cli1_cpu_s"],
            r["cli_cpu_s"] / r["cli1_cpu_s"]))
    for t in r["throughput"]:
        print("| %d | %s | %.1f | %.2f | %.2f | %.2f | %.2f | %s | %.2f | %d |" % (
            t["clients"], "keep-alive" if t["kind"] == "keep" else "one a request", t["sps"], t["ratio"],
            t["wall_s"], t["server_cpu_s"], t["cpu_ratio"], ", ".join("%.2f" % x for x in t["server_cpu_runs"]),
            t["client_cpu_s"], t["differ"]))
    print()
    print("| one-sentence request | median ms | p99 ms | requests |")
    print("|---|---:|---:|---:|")
    print("| idle server | %.1f | %.1f | %d |" % (r["idle"]["median_ms"], r["idle"]["p99_ms"], r["idle"]["n"]))
    print("| under load (%d clients, %.0f sentences/s) | %.1f | %.1f | %d |" % (
        r["loaded"]["clients"], r["loaded"]["load_sps"], r["loaded"]["median_ms"], r["loaded"]["p99_ms"], r["loaded"]["n"]))
    print()
    print("Server exit status after SIGTERM: %d; it said: %s" % (r["serve_exit"], " / ".join(r["serve_said"])))
    print()


if __name__ == "__main__":
    sys.exit(main())

"""`xlate serve` (issue 38): the LibreTranslate API checked with clients no one here wrote —
Python's urllib, curl, and the `libretranslate` npm package's translate() (pinned in
tests/serve/package.json and package-lock.json, installed by `sh tools/setup.sh --test`) —
each answer against the oracle of the command line: `xlate -m models/en-de` run on the same
text (its lines, joined by "\\n"), `--beam-size N --n-best N` for alternatives, `--format
html|markdown` for documents.

  - every endpoint's shape (app.py of LibreTranslate 39429cb: /languages, /frontend/settings,
    /health, /detect, CORS headers, OPTIONS);
  - JSON and form bodies, q a string or an array, multi-line and multi-sentence texts,
    alternatives, format html, source auto, /translate_file + the download (its name NAME_de.EXT
    as curl -OJ and Python's email parser read Content-Disposition);
  - load: 64 client threads at once, each a few requests of 1-6 held-out Multi30k lines
    (tests/data/multi30k/val.en), every answer the CLI's, none lost or duplicated, the
    server's RSS at the end within 10% of its RSS after the first 100 requests (fewer
    requests under the sanitizers or XLATE_FORCE_ISA=generic);
  - hostile requests: malformed JSON, wrong types, a 10 MB q, 100,000 strings, invalid UTF-8,
    unknown languages, hostile HTML, a slowloris client, 1,000 connections at once, clients
    hanging up mid-answer: each a clear error and the server serving the others after;
  - --api-keys (403), --req-limit (429), --char-limit (400);
  - several models (-m repeated): an NLLB model (made by tools/make_m2m100.py through the oracle
    memo) beside en-de, each pair routed as `xlate --source-lang --target-lang` sets it up;
  - SIGTERM while requests are in flight: every one answered, new ones refused, exit 0.
Without node or tests/serve/node_modules the npm check is skipped outside CI (a failure under
CI=true). Run by tests/run.sh with env XLATE and Debian's /usr/bin/python3.
"""
import json
import os
import random
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, done, not_ok, ok  # noqa: E402

XLATE = os.environ.get("XLATE", os.path.join(TOP, "xlate"))
MODEL = os.path.join(TOP, "models", "en-de")
GUARD = int(os.environ.get("TEST_HANG_SECONDS", "300"))
SLOW = os.environ.get("TEST_SANITIZED") == "1" or os.environ.get("XLATE_FORCE_ISA") == "generic"
VAL = os.path.join(TOP, "tests", "data", "multi30k", "val.en")
SERVE_JS = os.path.join(TOP, "tests", "serve")


class Server:
    """xlate serve on a free port (--port 0: the port read from its stderr line)."""

    def __init__(self, *args, model=MODEL):
        first = ["-m", model] if model else []
        self.p = subprocess.Popen([XLATE, "serve"] + first + ["--port", "0"] + list(args),
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE)
        self.err = []
        self.port = None
        deadline = time.monotonic() + GUARD
        while self.port is None:
            line = self.p.stderr.readline().decode(errors="replace")
            if not line:
                raise RuntimeError("xlate serve ended: exit %s: %s" % (self.p.wait(), "".join(self.err)))
            self.err.append(line)
            m = re.match(r"xlate serve: listening on http://127\.0\.0\.1:(\d+)$", line.strip())
            if m:
                self.port = int(m.group(1))
            if time.monotonic() > deadline:
                raise RuntimeError("xlate serve: no listening line in %d s" % GUARD)
        threading.Thread(target=self._drain, daemon=True).start()
        self.url = "http://127.0.0.1:%d" % self.port

    def _drain(self):
        for line in self.p.stderr:
            self.err.append(line.decode(errors="replace"))

    def rss_kb(self):
        with open("/proc/%d/status" % self.p.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def stop(self, sig=signal.SIGTERM, send=True):
        if send and self.p.poll() is None:
            self.p.send_signal(sig)
        try:
            return self.p.wait(timeout=GUARD)
        except subprocess.TimeoutExpired:
            self.p.kill()
            return "hung"


def http(url, data=None, headers=None, method=None, timeout=GUARD):
    """(status, headers, body bytes) of one request through urllib."""
    req = urllib.request.Request(url, data=data, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def post_json(srv, path, obj, raw=None):
    body = raw if raw is not None else json.dumps(obj).encode()
    st, _, b = http(srv.url + path, body, {"Content-Type": "application/json"})
    try:
        return st, json.loads(b.decode())
    except ValueError:
        return st, b


def cli(lines, *opts):
    """The command line's output lines for input lines (one process)."""
    p = subprocess.run([XLATE, "-m", MODEL, "-q"] + list(opts), input=("\n".join(lines) + "\n").encode(),
                       capture_output=True, timeout=GUARD)
    if p.returncode != 0:
        raise RuntimeError("xlate %s: exit %d: %s" % (opts, p.returncode, p.stderr.decode()[-400:]))
    return p.stdout.decode().split("\n")[:-1]


def cli_texts(texts, *opts):
    """What the CLI prints for each text, its lines joined by "\\n" (the server's contract)."""
    lines, where = [], []
    for t in texts:
        parts = t.split("\n")
        where.append((len(lines), len(parts)))
        lines += [x[:-1] if x.endswith("\r") else x for x in parts]
    out = cli(lines, *opts)
    return ["\n".join(out[a:a + n]) for a, n in where]


def cli_doc(text, fmt):
    p = subprocess.run([XLATE, "-m", MODEL, "-q", "--format", fmt], input=text.encode(),
                       capture_output=True, timeout=GUARD)
    if p.returncode != 0:
        raise RuntimeError("xlate --format %s: exit %d" % (fmt, p.returncode))
    return p.stdout.decode()


def alive(srv):
    """None when /health answers ok, else why not."""
    try:
        st, _, b = http(srv.url + "/health", timeout=60)
    except Exception as e:  # noqa: BLE001
        return "after it: /health failed: %s" % e
    return None if st == 200 and json.loads(b) == {"status": "ok"} else "after it: /health %s %r" % (st, b)


def expect_error(srv, what, status, got, also=None):
    st, body = got
    why = None
    if st != status:
        why = "status %s, expected %s (%r)" % (st, status, body if not isinstance(body, bytes) else body[:200])
    elif not (isinstance(body, dict) and isinstance(body.get("error"), str) and body["error"]):
        why = "no {\"error\": \"...\"} body: %r" % (body[:200] if isinstance(body, bytes) else body)
    elif also and not re.search(also, body["error"]):
        why = "error %r does not say %r" % (body["error"], also)
    check(what, lambda: why or alive(srv))


# ---- the endpoints ----

def endpoints(srv):
    st, h, b = http(srv.url + "/languages")
    langs = json.loads(b)
    check("GET /languages: en with targets [de], de listed (LibreTranslate lists every language)",
          lambda: None if st == 200 and {"code": "en", "name": "English", "targets": ["de"]} in langs
          and any(x["code"] == "de" for x in langs) else "%s %r" % (st, langs))
    check("CORS: Access-Control-Allow-Origin * on every answer (app.py:563-575)",
          lambda: None if h.get("Access-Control-Allow-Origin") == "*" else dict(h))
    st, h, b = http(srv.url + "/translate", method="OPTIONS",
                    headers={"Origin": "http://example.org", "Access-Control-Request-Method": "POST"})
    check("OPTIONS /translate (a CORS preflight): 204 with the Allow-Methods and -Headers",
          lambda: None if st == 204 and "POST" in h.get("Access-Control-Allow-Methods", "")
          and "Content-Type" in h.get("Access-Control-Allow-Headers", "") else "%s %r" % (st, dict(h)))
    st, _, b = http(srv.url + "/frontend/settings")
    s = json.loads(b)
    check("GET /frontend/settings: charLimit, apiKeys, language.source/target (app.py:1206)",
          lambda: None if st == 200 and s["charLimit"] == -1 and s["apiKeys"] is False
          and s["language"]["source"]["code"] == "en" and s["language"]["target"]["code"] == "de"
          and ".txt" in s["supportedFilesFormat"] else repr(s))
    st, _, b = http(srv.url + "/health")
    check("GET /health: {\"status\": \"ok\"}", lambda: None if st == 200 and json.loads(b) == {"status": "ok"} else b)
    st, _, b = http(srv.url + "/")
    check("GET /: the page (text/html)", lambda: None if st == 200 and b"<html" in b.lower() else (st, b[:100]))
    st, body = post_json(srv, "/detect", {"q": "A dog runs."})
    check("POST /detect: the one source language of the model loaded",
          lambda: None if st == 200 and body == [{"confidence": 100.0, "language": "en"}] else (st, body))
    expect_error(srv, "GET /nothing: 404 with an error", 404, (lambda r: (r[0], json.loads(r[2])))(http(srv.url + "/nothing")))
    expect_error(srv, "GET /translate: 405 (takes POST)", 405, (lambda r: (r[0], json.loads(r[2])))(http(srv.url + "/translate")))


def translations(srv, val):
    one = "A man is riding a bike. Two dogs play in the snow."
    texts = [one, "A woman\nwith a red hat.", "", "Three children are playing on the beach!  A dog runs.",
             "A man reads https://example.org/a?b=1 and writes to anna@example.com in the park."]
    want = cli_texts(texts)
    st, body = post_json(srv, "/translate", {"q": one, "source": "en", "target": "de"})
    check("urllib JSON, q a string: translatedText is the CLI's bytes",
          lambda: None if st == 200 and body == {"translatedText": want[0]} else (st, body, want[0]))
    st, body = post_json(srv, "/translate", {"q": texts, "source": "en", "target": "de", "format": "text"})
    check("urllib JSON, q an array (a multi-line text, an empty one, two sentences, a URL and an e-mail "
          "address kept as the CLI keeps them): an array, each the CLI's",
          lambda: None if st == 200 and body == {"translatedText": want} else (st, body, want))
    # curl, form-encoded: a form's q has its line breaks normalized (app.py:755-759)
    p = subprocess.run(["curl", "-s", "-S", "--max-time", str(GUARD), srv.url + "/translate",
                        "--data-urlencode", "q=A woman\r\nwith a red hat.\r\n", "-d", "source=en", "-d", "target=de"],
                       capture_output=True, timeout=GUARD)
    check("curl form-encoded (\\r\\n normalized, the last break dropped as app.py does): the CLI's",
          lambda: None if json.loads(p.stdout) == {"translatedText": want[1]} else (p.stdout, want[1]))
    p = subprocess.run(["curl", "-s", "-S", "--max-time", str(GUARD), srv.url + "/translate",
                        "-F", "q=" + one, "-F", "source=auto", "-F", "target=de"], capture_output=True, timeout=GUARD)
    check("curl multipart form, source auto: detectedLanguage en (the model's one source), the CLI's text",
          lambda: None if json.loads(p.stdout) == {"translatedText": want[0], "detectedLanguage":
                                                   {"confidence": 100, "language": "en"}} else p.stdout)
    # alternatives: --beam-size 3 --n-best 3, the first the translation, the rest without repeats
    alt_src = ["A dog runs through the grass.", "Hello world"]
    nb = cli(alt_src, "--beam-size", "3", "--n-best", "3")
    hyps = [[x.split(" ||| ")[1] for x in nb if x.startswith("%d |||" % i)] for i in range(2)]

    def alts(h):
        out = []
        for t in h[1:]:
            if t != h[0] and t not in out:
                out.append(t)
        return out
    st, body = post_json(srv, "/translate", {"q": alt_src, "source": "en", "target": "de", "alternatives": 2})
    check("alternatives 2: the CLI's --beam-size 3 --n-best 3, best first, the others as filter_unique keeps them",
          lambda: None if st == 200 and body == {"translatedText": [h[0] for h in hyps],
                                                 "alternatives": [alts(h) for h in hyps]} else (st, body, hyps))
    expect_error(srv, "alternatives 4 (past --alternatives-limit 3): 400", 400,
                 post_json(srv, "/translate", {"q": "A dog.", "source": "en", "target": "de", "alternatives": 4}), "<= 3")
    # html: `xlate --format html`
    docs = ["<p>A man is riding a <b>red</b> bike.</p>",
            open(os.path.join(TOP, "tests", "data", "html", "basic.html")).read()]
    st, body = post_json(srv, "/translate", {"q": docs, "source": "en", "target": "de", "format": "html"})
    check("format html: each document as `xlate --format html` writes it",
          lambda: None if st == 200 and body["translatedText"] == [cli_doc(d, "html") for d in docs] else (st, body))
    # the npm client
    if npm_ready("libretranslate npm client"):
        rc, got = npm_translate(srv.url, one, "en", "de")
        check("the libretranslate npm client's translate(): the CLI's bytes",
              lambda: None if rc == 0 and got == want[0] else (rc, got))
    # /translate_file: .txt, .html, .md through curl -F, then the download
    with tempfile.TemporaryDirectory() as d:
        files = {"note.txt": "A man is riding a bike.\nTwo dogs play in the snow.\n",
                 "page.html": docs[0], "read.md": "# A dog\n\nA man is riding a *red* bike.\n"}
        for name, text in files.items():
            path = os.path.join(d, name)
            with open(path, "w") as f:
                f.write(text)
            p = subprocess.run(["curl", "-s", "-S", "--max-time", str(GUARD), srv.url + "/translate_file",
                                "-F", "file=@" + path, "-F", "source=en", "-F", "target=de"],
                               capture_output=True, timeout=GUARD)
            url = json.loads(p.stdout).get("translatedFileUrl", "")
            st, h, got = http(url) if url.startswith(srv.url + "/download_file/") else (0, {}, b"")
            want_f = ("\n".join(cli(text.split("\n")[:-1])) + "\n" if name.endswith(".txt")
                      else cli_doc(text, "html" if name.endswith(".html") else "markdown"))
            check("/translate_file %s: translatedFileUrl, whose download is the CLI's output" % name,
                  lambda: None if st == 200 and got.decode() == want_f else (p.stdout, st, got[:200], want_f))
            # the name: curl's own reading of Content-Disposition (-O -J) saves NAME_de.EXT, as
            # LibreTranslate names a translated file (argos-translate-files get_output_path)
            stem, ext = os.path.splitext(name)
            dl = os.path.join(d, "dl-" + stem)
            os.mkdir(dl)
            c = subprocess.run(["curl", "-s", "-S", "--max-time", str(GUARD), "-O", "-J", url], cwd=dl,
                               capture_output=True, timeout=GUARD)
            saved = os.listdir(dl)
            check("/translate_file %s: curl -OJ saves it as %s_de%s, the CLI's output" % (name, stem, ext),
                  lambda: None if c.returncode == 0 and saved == [stem + "_de" + ext]
                  and open(os.path.join(dl, saved[0]), encoding="utf-8").read() == want_f
                  else (c.returncode, c.stderr[-200:], saved))
        # an uploaded name with a folder, spaces and non-ASCII: the last part, each unsafe byte
        # "_" (secure_filename's spirit), read back by Python's email parser (RFC 2183)
        from email.message import Message
        p = subprocess.run(["curl", "-s", "-S", "--max-time", str(GUARD), srv.url + "/translate_file",
                            "-F", "file=@%s;filename=notes/my winter \u00e9.md" % os.path.join(d, "read.md"),
                            "-F", "source=en", "-F", "target=de"], capture_output=True, timeout=GUARD)
        url = json.loads(p.stdout).get("translatedFileUrl", "")
        st, h, got = http(url) if url.startswith(srv.url + "/download_file/") else (0, {}, b"")
        m = Message()
        m["Content-Disposition"] = h.get("Content-Disposition", "")
        safe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"
        want_n = "".join(chr(b) if chr(b) in safe else "_" for b in "my winter \u00e9".encode()) + "_de.md"
        check("/translate_file 'notes/my winter \u00e9.md': Content-Disposition an attachment named "
              "%s (email.message), the URL's name too" % want_n,
              lambda: None if st == 200 and m.get_content_disposition() == "attachment"
              and m.get_filename() == want_n and url.endswith("." + want_n)
              else (p.stdout, st, h.get("Content-Disposition")))
        expect_error(srv, "/translate_file of a .pdf: 400 file format not supported", 400,
                     (lambda p: (400 if b"error" in p.stdout else 0, json.loads(p.stdout)))(subprocess.run(
                         ["curl", "-s", "--max-time", str(GUARD), srv.url + "/translate_file", "-F",
                          "file=@%s;filename=x.pdf" % os.path.join(d, "note.txt"), "-F", "source=en", "-F", "target=de"],
                         capture_output=True, timeout=GUARD)), "format not supported")


def npm_missing():
    if shutil.which("node") is None:
        return "node is not installed (sh tools/setup.sh --test)"
    if not os.path.isfile(os.path.join(SERVE_JS, "node_modules", "libretranslate", "package.json")):
        return "tests/serve/node_modules lacks libretranslate (npm ci --prefix tests/serve)"
    return None


def npm_ready(what):
    """1 when the npm client can run; else a not-ok line in CI (setup.sh --test installs it),
    a comment line elsewhere, and 0."""
    why = npm_missing()
    if why and os.environ.get("CI") == "true":
        not_ok(what, why)
    elif why:
        print("# skipped the npm client: %s" % why)
    return not why


# ---- load ----

def load(srv, val):
    # TEST_SERVE_REQUESTS=2000 runs issue 38's full load (64 clients, 2,000 requests)
    clients = 8 if SLOW else 64
    n_req = 32 if SLOW else max(1, int(os.environ.get("TEST_SERVE_REQUESTS", "320")))
    rng = random.Random(38)
    reqs = []
    for i in range(n_req):
        k = rng.randint(1, 6)
        lines = rng.sample(val, k)
        reqs.append((i, lines, rng.random() < 0.5))  # q an array of lines, or one text of lines
    pool = sorted({x for _, lines, _ in reqs for x in lines})
    tr = dict(zip(pool, cli(pool)))
    answers, errors, lock = {}, [], threading.Lock()
    rss = {}

    def client(c):
        for i, lines, as_array in reqs[c::clients]:
            q = lines if as_array else "\n".join(lines)
            try:
                st, body = post_json(srv, "/translate", {"q": q, "source": "en", "target": "de"})
            except Exception as e:  # noqa: BLE001
                st, body = 0, str(e)
            with lock:
                if st != 200:
                    errors.append((i, st, body))
                answers.setdefault(i, []).append(body)
                if len(answers) == 100 and "first" not in rss:
                    rss["first"] = srv.rss_kb()
    ts = [threading.Thread(target=client, args=(c,)) for c in range(clients)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(GUARD)
    rss["end"] = srv.rss_kb()
    bad = []
    for i, lines, as_array in reqs:
        want = [tr[x] for x in lines] if as_array else "\n".join(tr[x] for x in lines)
        got = answers.get(i, [])
        if len(got) != 1 or got[0] != {"translatedText": want}:
            bad.append((i, got, want))
    check("load: %d clients at once, %d requests of 1-6 held-out Multi30k lines: every answer the CLI's, "
          "none lost or duplicated" % (clients, len(reqs)),
          lambda: None if not bad and not errors else "%d wrong, %d errors; first: %r" % (len(bad), len(errors), (bad or errors)[0]))
    if not SLOW:
        check("load: the server's RSS at the end within 10%% of its RSS after the first 100 requests (%d -> %d kB)"
              % (rss.get("first", 0), rss["end"]),
              lambda: None if rss.get("first") and rss["end"] <= 1.1 * rss["first"] else rss)
    return sum(len(lines) for _, lines, _ in reqs)


def fairness(srv, val):
    """A small request sent while a huge one runs is answered first (the queue's round-robin:
    it rides in the next batch, docs/SERVE.md), each still the CLI's bytes."""
    huge = (val * 2)[:150 if SLOW else 600]
    small = val[:2]
    tr = dict(zip(val, cli(val)))
    order, res = [], {}

    def post(name, q):
        res[name] = post_json(srv, "/translate", {"q": q, "source": "en", "target": "de"})
        order.append(name)
    t = threading.Thread(target=post, args=("huge", huge))
    t.start()
    time.sleep(0.5)  # not a limit: only so that the huge one is likely under way
    post("small", small)
    t.join(GUARD)
    check("a 2-line request sent while a %d-line one runs is answered first, both the CLI's bytes" % len(huge),
          lambda: None if order == ["small", "huge"] and res["small"] == (200, {"translatedText": [tr[x] for x in small]})
          and res["huge"] == (200, {"translatedText": [tr[x] for x in huge]}) else (order, str(res)[:300]))


# ---- hostile ----

def raw(port, data, read=True, timeout=30):
    """Sends bytes on a socket, returns what comes back (until the server closes)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(data)
        out = b""
        while read:
            b = s.recv(65536)
            if not b:
                break
            out += b
        return out
    finally:
        s.close()


def hostile(srv):
    tr = {"source": "en", "target": "de"}
    expect_error(srv, "malformed JSON: 400 Invalid JSON format", 400,
                 post_json(srv, "/translate", None, raw=b'{"q": "A dog.", "source": '), "Invalid JSON")
    expect_error(srv, "JSON not an object (an array): 400", 400, post_json(srv, "/translate", ["A dog."]))
    expect_error(srv, "q a number: 400 saying q's type", 400, post_json(srv, "/translate", dict(tr, q=5)), "q must be")
    expect_error(srv, "q an array holding a number: 400 naming q[1]", 400,
                 post_json(srv, "/translate", dict(tr, q=["A dog.", 7])), r"q\[1\]")
    expect_error(srv, "source a number: 400", 400, post_json(srv, "/translate", {"q": "A dog.", "source": 1, "target": "de"}))
    expect_error(srv, "q missing: 400 missing q parameter", 400, post_json(srv, "/translate", tr), "missing q")
    expect_error(srv, "alternatives not a number: 400", 400,
                 post_json(srv, "/translate", dict(tr, q="A dog.", alternatives="many")), "not a number")
    with tempfile.TemporaryDirectory() as d:  # curl: it waits for 100 Continue, and gets the 413
        path = os.path.join(d, "big.json")
        with open(path, "w") as f:
            json.dump(dict(tr, q="A dog runs. " * (10 * 1024 * 1024 // 12)), f)
        p = subprocess.run(["curl", "-s", "--max-time", str(GUARD), "-w", "\n%{http_code}", "-H",
                            "Content-Type: application/json", "--data-binary", "@" + path, srv.url + "/translate"],
                           capture_output=True, timeout=GUARD)
        body, _, code = p.stdout.decode().rpartition("\n")
        expect_error(srv, "q of 10 MB (curl): 413 (more than --max-body), answered before the body is read", 413,
                     (int(code or 0), json.loads(body or "null")), "max-body")
    expect_error(srv, "an array of 100,000 strings: 400 (past --batch-limit 1000)", 400,
                 post_json(srv, "/translate", dict(tr, q=["A dog."] * 100000)), "exceeds text limit")
    expect_error(srv, "invalid UTF-8 in the JSON body: 400", 400,
                 post_json(srv, "/translate", None, raw=b'{"q": "A \xff\xfe dog.", "source": "en", "target": "de"}'), "UTF-8")
    expect_error(srv, "a lone surrogate escaped in JSON (\\ud800): 400", 400,
                 post_json(srv, "/translate", None, raw=b'{"q": "A \\ud800 dog.", "source": "en", "target": "de"}'))
    st, _, b = http(srv.url + "/translate", b"q=A%FF%FEdog&source=en&target=de",
                    {"Content-Type": "application/x-www-form-urlencoded"})
    expect_error(srv, "invalid UTF-8 in a form field: 400", 400, (st, json.loads(b)), "UTF-8")
    expect_error(srv, "a NUL escaped in JSON (\\u0000), which a C string cannot hold: 400", 400,
                 post_json(srv, "/translate", dict(tr, q=["A dog.", "\x00<p>A cat.</p>"])), "NUL")
    expect_error(srv, "unknown source language: 400 not supported", 400,
                 post_json(srv, "/translate", {"q": "A dog.", "source": "xx", "target": "de"}), "not supported")
    expect_error(srv, "unknown target language: 400 not supported", 400,
                 post_json(srv, "/translate", {"q": "A dog.", "source": "en", "target": "zz"}), "not supported")
    expect_error(srv, "a target only reached from another source (de -> en): 400", 400,
                 post_json(srv, "/translate", {"q": "Ein Hund.", "source": "de", "target": "en"}))
    expect_error(srv, "format pdf: 400 format is not supported", 400,
                 post_json(srv, "/translate", dict(tr, q="A dog.", format="pdf")), "format is not supported")
    # hostile HTML (the document tests' kinds): answered as `xlate --format html` writes them
    nasty = ["<b>" * 3000 + "A dog." + "</b>" * 3000,
             "<script>alert('A dog.')</script><p>A <i>man</b> runs.</i>",
             "<p title='A \"dog\" runs.'>A <a href=\"javascript:x\">cat</a> &amp; &bogus; &#xD800; sleeps.",
             "<table><td>A man<tr>sits.</table><!-- unclosed", "<p>A dog\x01\x7f.</p><p"]
    st, body = post_json(srv, "/translate", dict(tr, q=nasty, format="html"))
    check("hostile HTML (3,000 nested tags, script, mis-nesting, bad references, control bytes, unclosed comment and tag): "
          "each as `xlate --format html` writes it",
          lambda: (None if st == 200 and body["translatedText"] == [cli_doc(d, "html") for d in nasty]
                   else (st, str(body)[:300])) or alive(srv))
    # a slowloris client: headers a byte at a time, slower than --timeout allows
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=30)
    s.sendall(b"POST /translate HTTP/1.1\r\nHost: x\r\n")
    t0 = time.monotonic()
    closed = False
    st_other = None
    try:
        for i in range(40):
            st_other = st_other or http(srv.url + "/health")[0]
            time.sleep(0.25)
            s.sendall(b"X")
    except OSError:
        closed = True
    if not closed:
        try:
            closed = s.recv(10) == b""
        except OSError:
            closed = True
    s.close()
    check("slowloris (headers a byte every 0.25 s, never finished): closed by --timeout 2, others served meanwhile",
          lambda: None if closed and st_other == 200 else "closed %s after %.1f s, /health %s" % (closed, time.monotonic() - t0, st_other))
    # 1,000 connections at once, each asking /health, all answered
    socks = []
    try:
        for i in range(1000):
            socks.append(socket.create_connection(("127.0.0.1", srv.port), timeout=60))
        for c in socks:
            c.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        got = 0
        for c in socks:
            out = b""
            while True:
                b = c.recv(4096)
                if not b:
                    break
                out += b
            got += out.startswith(b"HTTP/1.1 200") and b'{"status": "ok"}' in out
    finally:
        for c in socks:
            c.close()
    check("1,000 connections at once (--max-connections 1100): every one answered 200",
          lambda: None if got == 1000 else "%d of 1000 answered" % got)
    # clients hanging up mid-answer: a long request, the socket closed at once, many times
    big = json.dumps(dict(tr, q=["A man is riding a bike down a long road. Two dogs play."] * 200)).encode()
    for i in range(20):
        raw(srv.port, b"POST /translate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % len(big) + big, read=False)
    st, body = post_json(srv, "/translate", dict(tr, q="A dog runs."))
    check("20 clients hanging up mid-request (200 sentences each): the server answers the next one right",
          lambda: None if st == 200 and body == {"translatedText": cli(["A dog runs."])[0]} else (st, body))
    check("after the hang-ups: the server up", lambda: alive(srv))


def multilingual(val):
    """Routing by source and target across models: an NLLB model (tools/make_m2m100.py, random
    weights, its 202 language codes; the legacy variant puts the source's token after eos)
    beside models/en-de. Each pair's answer is `xlate -m DIR --source-lang S --target-lang T`'s
    (each source language gives its own output, so a wrong token would show)."""
    import oracle_memo as OM
    with tempfile.TemporaryDirectory() as d:
        dirs = {}
        for name, args in (("nllb", ["--seed", "3"]), ("legacy", ["--legacy", "--seed", "7"])):
            dirs[name] = os.path.join(d, name)
            OM.make_model(dirs[name], [sys.executable, os.path.join(TOP, "tools", "make_m2m100.py"),
                                       dirs[name]] + args)
        for name in ("nllb", "legacy"):
            srv = Server("-m", MODEL, "-m", dirs[name], "-q")
            try:
                st, _, b = http(srv.url + "/languages")
                langs = {x["code"]: x["targets"] for x in json.loads(b)}
                # en-de's en -> de and NLLB's eng_Latn -> each other code, listed as short codes
                check("%s beside en-de: /languages holds en -> 201 targets (de among them), each NLLB "
                      "language once, under its short code where it has one (ace_Arab, fra_Latn as fr)" % name,
                      lambda: None if len(langs.get("en", [])) == 201 and "de" in langs["en"]
                      and "fr" in langs["en"] and "ace_Arab" in langs["en"] and "eng_Latn" not in langs
                      and "fra_Latn" not in langs and len(langs) == 202 else str(langs)[:300])
                texts = val[:3]
                for src, tgt in (("eng_Latn", "fra_Latn"), ("fra_Latn", "deu_Latn")):
                    p = subprocess.run([XLATE, "-m", dirs[name], "-q", "--source-lang", src, "--target-lang", tgt],
                                       input=("\n".join(texts) + "\n").encode(), capture_output=True, timeout=GUARD)
                    want = p.stdout.decode().split("\n")[:-1]
                    st, body = post_json(srv, "/translate", {"q": texts, "source": src, "target": tgt})
                    check("%s: %s -> %s as xlate --source-lang %s --target-lang %s" % (name, src, tgt, src, tgt),
                          lambda: None if st == 200 and body == {"translatedText": want} else (st, body, want))
                st, body = post_json(srv, "/translate", {"q": texts, "source": "en", "target": "de"})
                check("%s beside en-de: en -> de still goes to models/en-de" % name,
                      lambda: None if st == 200 and body == {"translatedText": cli(texts)} else (st, body))
                # "A dog." has 5 letters: too short for the detector (issue 48, test_serve_auto.py)
                expect_error(srv, "%s: source auto with many sources, a text too short to tell: 400 saying so" % name, 400,
                             post_json(srv, "/translate", {"q": "A dog.", "source": "auto", "target": "fra_Latn"}),
                             "cannot be told")
                expect_error(srv, "%s: /detect with many sources, a text too short to tell: 400 saying so" % name, 400,
                             post_json(srv, "/detect", {"q": "A dog."}), "cannot be told")
            finally:
                srv.stop()
        short_codes(dirs["nllb"], val)


def npm_translate(url, q, source, target):
    """The libretranslate npm client's translate(): (returncode, parsed answer or stderr)."""
    js = ("const {translate} = require('libretranslate');"
          "translate({query: JSON.parse(process.argv[1]), source: process.argv[3], target: process.argv[4],"
          " apiurl: process.argv[2]})"
          ".then(t => process.stdout.write(JSON.stringify(t)), e => {console.error(e); process.exit(1);});")
    p = subprocess.run(["node", "-e", js, json.dumps(q), url, source, target], cwd=SERVE_JS,
                       capture_output=True, timeout=GUARD)
    return (0, json.loads(p.stdout)) if p.returncode == 0 else (p.returncode, p.stderr[-300:])


def short_codes(nllb, val):
    """An NLLB model alone, reached with the short codes LibreTranslate's clients send ("en",
    "de"; base/langs.c maps them): each answer `xlate -m DIR --source-lang eng_Latn
    --target-lang deu_Latn`'s; /languages lists the short codes; the model's own codes still
    route; the npm client with short codes."""
    texts = val[3:6]

    def want(src, tgt):
        p = subprocess.run([XLATE, "-m", nllb, "-q", "--source-lang", src, "--target-lang", tgt],
                           input=("\n".join(texts) + "\n").encode(), capture_output=True, timeout=GUARD)
        return p.stdout.decode().split("\n")[:-1]
    srv = Server("-m", nllb, "-q", model=None)
    try:
        st, _, b = http(srv.url + "/languages")
        langs = {x["code"]: x for x in json.loads(b)}
        check("NLLB alone: /languages lists en, de, zh (zho_Hans), zt (zho_Hant), nb (nob_Latn, not no), each "
              "with the 201 others as targets, the unmapped by their own codes (ace_Arab), no eng_Latn",
              lambda: None if st == 200 and len(langs) == 202
              and all(len(langs.get(c, {}).get("targets", [])) == 201 for c in ("en", "de", "zh", "zt", "nb", "ace_Arab"))
              and "de" in langs["en"]["targets"] and not {"no", "eng_Latn", "zho_Hans"} & set(langs)
              and langs["en"]["name"] == "English" else str(list(langs))[:300])
        ende = want("eng_Latn", "deu_Latn")
        for src, tgt, osrc, otgt in (("en", "de", "eng_Latn", "deu_Latn"), ("eng_Latn", "deu_Latn", "eng_Latn", "deu_Latn"),
                                     ("en", "deu_Latn", "eng_Latn", "deu_Latn"), ("de", "en", "deu_Latn", "eng_Latn"),
                                     ("en", "zh", "eng_Latn", "zho_Hans"), ("en", "zt", "eng_Latn", "zho_Hant"),
                                     ("en", "zh-TW", "eng_Latn", "zho_Hant"), ("en", "no", "eng_Latn", "nob_Latn")):
            w = ende if (osrc, otgt) == ("eng_Latn", "deu_Latn") else want(osrc, otgt)
            st, body = post_json(srv, "/translate", {"q": texts, "source": src, "target": tgt})
            check("NLLB alone: %s -> %s is xlate --source-lang %s --target-lang %s" % (src, tgt, osrc, otgt),
                  lambda: None if st == 200 and body == {"translatedText": w} else (st, body, w))
        expect_error(srv, "NLLB alone: an unknown short code (xx) is 400 not supported", 400,
                     post_json(srv, "/translate", {"q": "A dog.", "source": "en", "target": "xx"}), "not supported")
        if npm_ready("libretranslate npm client, short codes"):
            rc, got = npm_translate(srv.url, texts[0], "en", "de")
            check("NLLB alone: the libretranslate npm client's translate() en -> de: the CLI's eng_Latn -> deu_Latn",
                  lambda: None if rc == 0 and got == ende[0] else (rc, got, ende[0]))
    finally:
        srv.stop()


def limits():
    with tempfile.TemporaryDirectory() as d:
        keys = os.path.join(d, "keys")
        with open(keys, "w") as f:
            f.write("# keys\nsecret-1\n  secret-2  \n")
        srv = Server("--api-keys", keys, "--req-limit", "4", "--char-limit", "20", "-q")
        try:
            tr = {"q": "A dog.", "source": "en", "target": "de"}
            expect_error(srv, "--api-keys: no api_key: 403", 403, post_json(srv, "/translate", tr))
            expect_error(srv, "--api-keys: a wrong api_key: 403 Invalid API key", 403,
                         post_json(srv, "/translate", dict(tr, api_key="nope")), "Invalid API key")
            st, body = post_json(srv, "/translate", dict(tr, api_key="secret-2"))
            check("--api-keys: a key of the file (spaces around it trimmed): 200",
                  lambda: None if st == 200 and body == {"translatedText": cli(["A dog."])[0]} else (st, body))
            expect_error(srv, "--char-limit 20: a text of 21 characters (ä one): 400 exceeds text limit", 400,
                         post_json(srv, "/translate", dict(tr, q="ä" * 21, api_key="secret-1")), r"\(21\) exceeds text limit \(20\)")
            expect_error(srv, "--req-limit 4: the fifth request within the minute: 429 Slowdown", 429,
                         post_json(srv, "/translate", dict(tr, api_key="secret-1")), "Slowdown")
            st, _, b = http(srv.url + "/frontend/settings")
            check("/frontend/settings says charLimit 20, apiKeys and keyRequired true",
                  lambda: None if json.loads(b)["charLimit"] == 20 and json.loads(b)["apiKeys"] is True else b)
        finally:
            rc = srv.stop()
        check("SIGTERM on an idle server: exit 0", lambda: None if rc == 0 else "exit %s" % rc)


def sigterm(srv, load_lines):
    texts = ["A man is riding a bike. Two dogs play in the snow. " * 8] * (4 if SLOW else 12)
    want = cli_texts(texts[:1])[0]
    results = []

    def one(i):
        try:
            results.append(post_json(srv, "/translate", {"q": texts[i], "source": "en", "target": "de"}))
        except Exception as e:  # noqa: BLE001
            results.append((0, str(e)))
    ts = [threading.Thread(target=one, args=(i,)) for i in range(len(texts))]
    for t in ts:
        t.start()
    time.sleep(0.3)
    srv.p.send_signal(signal.SIGTERM)
    time.sleep(0.2)
    refused = None
    try:
        st, _, _ = http(srv.url + "/health", timeout=10)
        refused = "a new request answered %s" % st if st == 200 else None
    except Exception:  # noqa: BLE001
        refused = None
    for t in ts:
        t.join(GUARD)
    rc = srv.stop(send=False)
    check("SIGTERM with %d requests in flight: every one answered with the CLI's bytes" % len(texts),
          lambda: None if len(results) == len(texts) and all(r == (200, {"translatedText": want}) for r in results)
          else [r for r in results if r != (200, {"translatedText": want})][:2])
    check("SIGTERM: a new connection refused meanwhile, then exit 0",
          lambda: refused or (None if rc == 0 else "exit %s; %s" % (rc, "".join(srv.err)[-300:])))
    m = re.search(r"(\d+) sentences in (\d+) batches \(([\d.]+) a batch, the largest (\d+); (\d+) shared",
                  "".join(srv.err))
    check("continuous batching: the requests at once shared batches (the server's count at exit: %s)"
          % (m.group(0) if m else None),
          lambda: None if m and int(m.group(5)) > 0 and float(m.group(3)) > 1.5 else "".join(srv.err)[-300:])
    # the 20 clients that hung up sent 200 two-sentence texts each: 8,000 sentences, skipped
    # once the queue saw their sockets closed (the rest of the run: the load's lines, about one
    # sentence each, and about 1,400 more)
    check("hang-ups cost nothing after: the server translated %s sentences in all, fewer than the "
          "8,000 of the 20 requests whose clients hung up and the load's %d lines"
          % (m.group(1) if m else None, load_lines),
          lambda: None if m and int(m.group(1)) < 8000 + load_lines else "".join(srv.err)[-300:])


def main():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
    with open(VAL) as f:
        val = [x.rstrip("\n") for x in f][:400]
    srv = Server("--timeout", "2", "--max-connections", "1100")
    try:
        endpoints(srv)
        translations(srv, val)
        load_lines = load(srv, val)
        fairness(srv, val)
        hostile(srv)
        sigterm(srv, load_lines)
    finally:
        if srv.p.poll() is None:
            srv.stop(signal.SIGKILL)
    limits()
    multilingual(val)
    return done()


if __name__ == "__main__":
    sys.exit(main())

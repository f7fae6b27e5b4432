"""Round 5 of the hardening (issue 51): `xlate serve` under hostile input and LibreTranslate's
own API tests (its tests/test_api/, ported to HTTP from their description: a client asks, the
status and the shape are checked), and the decoding range of --repetition-penalty. The hub
client's items are tests/py/test_hardening_r5_hub.py.

  1. a NUL byte never cuts a text: a raw NUL in a JSON string (invalid JSON, as Python's
     json.loads says) and \\u0000 are refused with 400 naming the NUL; a form's or an upload's
     NUL bytes are kept, the answer the command line's bytes (format html, /translate_file of
     .html and .md); %00 in a URL is refused (it cut /download_file's name);
  2. every request begun is answered: a SIGTERM while a body is uploading, the request served;
  3. JSON as LibreTranslate's json.loads reads it: garbage after the object is 400, a key twice
     is refused (400 naming it);
  4. every known path with a wrong method is 405 with an Allow header; GET /spec is the
     Swagger 2.0 document of what the server serves (flasgger's shape), each path and method
     in it answered by the server, and each served one in it;
  5. //languages and //translate: 308 to the single-slash path (werkzeug's merge_slashes), which
     curl -L follows to the answer;
  13. --repetition-penalty below the documented range refused naming it; inside it, no empty
     translation of a non-empty line.
Run by tests/run.sh with env XLATE and Debian's /usr/bin/python3.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, done  # noqa: E402
import test_serve as TS  # noqa: E402  (its Server, http, cli helpers; its main() does not run)

XLATE, MODEL, GUARD = TS.XLATE, TS.MODEL, TS.GUARD
TR = {"source": "en", "target": "de"}


def raw(port, data, timeout=60):
    """One request's answer on a raw socket: (status, headers dict lower-cased, body bytes)."""
    out = TS.raw(port, data, timeout=timeout)
    return parse(out)


def parse(out):
    head, _, body = out.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    try:
        st = int(lines[0].split()[1])
    except (IndexError, ValueError):
        return 0, {}, out
    h = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        h[k.strip().lower()] = v.strip()
    return st, h, body


def post_raw(port, path, body, ctype="application/json"):
    return raw(port, b"POST %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: %s\r\n"
               b"Content-Length: %d\r\n\r\n" % (path.encode(), ctype.encode(), len(body)) + body)


def err_says(got, status, *words):
    st, _, b = got
    try:
        e = json.loads(b).get("error", "")
    except (ValueError, AttributeError):
        e = None
    if st != status or not isinstance(e, str):
        return "status %s, body %r (expected %s)" % (st, b[:200], status)
    miss = [w for w in words if w.lower() not in e.lower()]
    return "error %r does not say %s" % (e, miss) if miss else None


def curl(*args):
    p = subprocess.run(["curl", "-s", "-S", "--max-time", str(GUARD)] + list(args),
                       capture_output=True, timeout=GUARD)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


# ---- 1. NUL ----

def nul(srv):
    port = srv.port
    want = TS.cli(["A dog runs."])[0]
    check("a raw NUL in a JSON string of q: 400 saying NUL (JSON forbids it raw; it cut the text)",
          lambda: err_says(post_raw(port, "/translate",
                                    b'{"q": "A dog runs.\x00 A man sleeps.", "source": "en", "target": "de"}'),
                           400, "NUL"))
    check("a raw NUL in a JSON key: 400 saying NUL",
          lambda: err_says(post_raw(port, "/translate",
                                    b'{"q": "A dog.", "sou\x00rce": "en", "target": "de"}'), 400, "NUL"))
    check("\\u0000 in q: 400 saying NUL (still)",
          lambda: err_says(post_raw(port, "/translate", json.dumps(dict(TR, q="A dog.\x00 A cat.")).encode()),
                           400, "NUL"))
    # a form keeps its NUL bytes (lengths known): the answer is the command line's bytes
    docs = {"html": "<p>A dog runs.</p><!-- a\x00b --><pre>x\x00y</pre>",
            "markdown": "A dog runs `a\x00b`.\n\n    co\x00de\n"}
    want_html = TS.cli_doc(docs["html"], "html")
    st, _, b = TS.http(srv.url + "/translate", ("q=%s&source=en&target=de&format=html" %
                                                 __import__("urllib.parse").parse.quote(docs["html"])).encode(),
                       {"Content-Type": "application/x-www-form-urlencoded"})
    check("a form's q with NUL bytes, format html: translatedText the CLI's --format html bytes, NULs kept "
          "(it was cut at the first NUL)",
          lambda: None if st == 200 and "\x00" in want_html and json.loads(b) == {"translatedText": want_html}
          else (st, b[:300], want_html))
    st, _, b = TS.http(srv.url + "/translate", b"q=A%20dog%20runs.&source=en&target=de",
                       {"Content-Type": "application/x-www-form-urlencoded"})
    check("a form's q without NUL: the CLI's text (unchanged)",
          lambda: None if st == 200 and json.loads(b) == {"translatedText": want} else (st, b))
    with tempfile.TemporaryDirectory() as d:
        for name, fmt in (("page.html", "html"), ("read.md", "markdown")):
            path = os.path.join(d, name)
            with open(path, "wb") as f:
                f.write(docs[fmt].encode())
            w = TS.cli_doc(docs[fmt], fmt).encode()
            rc, out, e = curl(srv.url + "/translate_file", "-F", "file=@" + path, "-F", "source=en",
                              "-F", "target=de")
            url = json.loads(out).get("translatedFileUrl", "") if rc == 0 else ""
            st, _, got = TS.http(url) if url.startswith(srv.url) else (0, {}, b"")
            check("/translate_file %s holding NULs: the download is the CLI's bytes, NULs kept (it was cut)" % name,
                  lambda: None if st == 200 and b"\x00" in w and got == w else (rc, out[:200], st, got[:200], w))
            if name == "page.html":
                name_url = url.rsplit("/", 1)[-1]
                st2, h2, b2 = raw(port, b"GET /download_file/%s%%00junk HTTP/1.1\r\nHost: x\r\n"
                                  b"Connection: close\r\n\r\n" % name_url.encode())
                check("/download_file/NAME%00junk: 400 saying NUL (it was cut at the %00 and served NAME)",
                      lambda: err_says((st2, h2, b2), 400, "NUL"))
                st3, _, b3 = raw(port, b"GET /download_file/%s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                                 % name_url.encode())
                check("/download_file/NAME: still served", lambda: None if st3 == 200 and b3 == w else (st3, b3[:100]))
    st, h, b = raw(port, b"POST /translate?q=A%20dog.%00%20A%20cat. HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                   b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 19\r\n\r\n"
                   b"source=en&target=de")
    check("a %00 in a URL argument (q=...%00...): 400 saying NUL",
          lambda: err_says((st, h, b), 400, "NUL"))
    check("after them: the server up", lambda: TS.alive(srv))


# ---- 2. SIGTERM while a body is uploading ----

def sigterm_upload():
    srv = TS.Server("-q")
    body = json.dumps(dict(TR, q="A dog runs.")).encode()
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=GUARD)
    try:
        s.sendall(b"POST /translate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: %d\r\n\r\n" % len(body) + body[:10])
        time.sleep(0.5)  # the headers read: the request has begun
        srv.p.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        refused = None
        try:
            c = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
            c.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            refused = parse(c.recv(4096))[0] not in (200,)
            c.close()
        except OSError:
            refused = True
        s.sendall(body[10:])
        out = b""
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
            st, h, rest = parse(out)
            if st and len(rest) >= int(h.get("content-length", "1" * 9)):
                break
    finally:
        s.close()
    rc = srv.stop(send=False)
    st, h, b = parse(out)
    want = TS.cli(["A dog runs."])[0]
    check("SIGTERM while a request's body is still uploading: the request is served (200, the CLI's "
          "bytes), not 503",
          lambda: None if st == 200 and json.loads(rest) == {"translatedText": want} else (st, out[:300]))
    check("... a new connection after the signal refused, and the server exits 0",
          lambda: None if refused and rc == 0 else "refused %s, exit %s" % (refused, rc))


# ---- 3. JSON as json.loads reads it ----

def json_rules(srv):
    port = srv.port
    for tail in (b"garbage", b"}", b" {}", b"\x00", b"[1]"):
        check("JSON with %r after the object: 400 (json.loads: Extra data)" % tail,
              lambda: err_says(post_raw(port, "/translate", b'{"q": "A dog.", "source": "en", "target": "de"}'
                                        + tail), 400, "JSON"))
    check("JSON with blanks after the object: 200 (json.loads takes them)",
          lambda: None if post_raw(port, "/translate", b'{"q": "A dog.", "source": "en", "target": "de"} \r\n\t')[0]
          == 200 else "refused")
    check("a key twice (q): 400 naming the key (Python would take the last: refused, not the first taken)",
          lambda: err_says(post_raw(port, "/translate", b'{"q": "A dog.", "source": "en", "target": "de", '
                                    b'"q": "A cat."}'), 400, '"q"', "twice"))
    check("a key twice (target): 400 naming it",
          lambda: err_says(post_raw(port, "/translate", b'{"q": "A dog.", "source": "en", "target": "fr", '
                                    b'"target": "de"}'), 400, '"target"', "twice"))
    check("a raw tab in a string (json.loads: Invalid control character): 400",
          lambda: err_says(post_raw(port, "/translate", b'{"q": "A\tdog.", "source": "en", "target": "de"}'),
                           400, "JSON"))
    check("/detect with garbage after the object: 400",
          lambda: err_says(post_raw(port, "/detect", b'{"q": "A dog."}x'), 400, "JSON"))
    check("after them: the server up", lambda: TS.alive(srv))


# ---- 4. methods and /spec ----

GETS = ["/languages", "/health", "/spec", "/frontend/settings", "/"]
POSTS = ["/translate", "/translate_file", "/detect"]


def methods(srv):
    port = srv.port

    def ask(method, path, body=b""):
        return raw(port, b"%s %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: %d\r\n\r\n"
                   % (method.encode(), path.encode(), len(body)) + body)
    for path in GETS + ["/download_file/x.y"]:
        for m in ("POST", "PUT", "DELETE"):
            st, h, b = ask(m, path, b"x" if m != "DELETE" else b"")
            allow = {x.strip() for x in h.get("allow", "").split(",") if x.strip()}
            check("%s %s: 405 with Allow: GET, HEAD, OPTIONS (LibreTranslate's test_api)" % (m, path),
                  lambda: None if st == 405 and allow == {"GET", "HEAD", "OPTIONS"} else (st, h.get("allow"), b[:100]))
    for path in POSTS:
        for m in ("GET", "PUT"):
            st, h, b = ask(m, path)
            allow = {x.strip() for x in h.get("allow", "").split(",") if x.strip()}
            check("%s %s: 405 with Allow: POST, OPTIONS" % (m, path),
                  lambda: None if st == 405 and allow == {"POST", "OPTIONS"} else (st, h.get("allow"), b[:100]))
    for m in ("GET", "POST", "DELETE"):
        st, h, b = ask(m, "/nothing")
        check("%s /nothing (no such path): 404, whatever the method" % m,
              lambda: None if st == 404 else (st, b[:100]))
    st, h, b = TS.http(srv.url + "/spec")
    try:
        spec = json.loads(b)
    except ValueError:
        spec = None
    check("GET /spec: 200, JSON, swagger \"2.0\", info with title and version",
          lambda: None if st == 200 and isinstance(spec, dict) and spec.get("swagger") == "2.0"
          and isinstance(spec.get("info", {}).get("title"), str) and isinstance(spec["info"].get("version"), str)
          else (st, b[:200]))
    if not isinstance(spec, dict):
        return
    paths = spec.get("paths", {})
    served = {"/translate": "post", "/translate_file": "post", "/detect": "post", "/languages": "get",
              "/frontend/settings": "get"}
    check("/spec: paths /translate, /translate_file, /detect (post), /languages, /frontend/settings (get), "
          "as LibreTranslate's flasgger document (no /suggest: not served)",
          lambda: None if all(m in paths.get(p, {}) for p, m in served.items()) and "/suggest" not in paths
          else sorted((p, sorted(v)) for p, v in paths.items()))

    def params_of(p, m):
        return {x.get("name"): x for x in paths.get(p, {}).get(m, {}).get("parameters", [])}
    want_params = {"/translate": {"q", "source", "target", "format", "alternatives", "api_key"},
                   "/translate_file": {"file", "source", "target", "api_key"}, "/detect": {"q", "api_key"}}
    check("/spec: each POST's parameters (formData, each with in, type, description; q, source, target required)",
          lambda: None if all(set(params_of(p, "post")) >= names for p, names in want_params.items())
          and all(x.get("in") == "formData" and x.get("type") and x.get("description")
                  for p in want_params for x in params_of(p, "post").values())
          and all(params_of("/translate", "post")[k].get("required") is True for k in ("q", "source", "target"))
          and params_of("/translate_file", "post")["file"]["type"] == "file"
          else {p: params_of(p, "post") for p in want_params})
    codes = {"/translate": {"200", "400", "403", "429", "500"}, "/translate_file": {"200", "400", "403", "429", "500"},
             "/detect": {"200", "400", "403", "429"}, "/languages": {"200"}, "/frontend/settings": {"200"}}
    check("/spec: each operation's responses (200 with a schema; the errors LibreTranslate names, "
          "each with a description)",
          lambda: None if all(set(paths[p][served[p]].get("responses", {})) >= c
                              and "schema" in paths[p][served[p]]["responses"]["200"]
                              and all("description" in r for r in paths[p][served[p]]["responses"].values())
                              for p, c in codes.items()) else {p: paths.get(p) for p in codes})
    # every path and method the document names is answered (not 404/405), and with the document's
    # status for a request it describes
    bad = []
    for p, ops in paths.items():
        for m in ops:
            st, _, _ = ask(m.upper(), p)
            if st in (404, 405):
                bad.append((m, p, st))
    check("/spec: every path and method in it is served (none 404 or 405)", lambda: None if not bad else bad)
    st, h, _ = ask("HEAD", "/spec")
    check("HEAD /spec: 200", lambda: None if st == 200 else st)


# ---- 5. //paths ----

def slashes(srv):
    port = srv.port
    st, h, b = raw(port, b"GET //languages HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    check("GET //languages: 308 to /languages (werkzeug's merge_slashes)",
          lambda: None if st == 308 and h.get("location", "").endswith("/languages")
          and "//languages" not in h.get("location", "") else (st, h))
    st, h, b = post_raw(port, "//translate", json.dumps(dict(TR, q="A dog.")).encode())
    check("POST //translate: 308 to /translate",
          lambda: None if st == 308 and h.get("location", "").endswith("/translate") and
          not h["location"].endswith("//translate") else (st, h))
    st, h, b = raw(port, b"GET ///frontend//settings HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    check("GET ///frontend//settings: 308 to /frontend/settings",
          lambda: None if st == 308 and h.get("location", "").endswith("/frontend/settings")
          and "//" not in h["location"].split("://")[-1] else (st, h))
    st, h, b = raw(port, b"GET //languages?x=1&y=a%20b%C3%A9 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    check("GET //languages?x=1&y=a%20b%C3%A9: 308 to /languages with the query kept",
          lambda: None if st == 308 and h.get("location") == "/languages?x=1&y=a%20b%C3%A9" else (st, h))
    st, h, b = raw(port, b"GET //nothing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    check("GET //nothing: 404 (only a known path is redirected)", lambda: None if st == 404 else (st, h))
    rc, out, e = curl("-L", srv.url + "//languages")
    check("curl -L //languages: the /languages answer",
          lambda: None if rc == 0 and out == TS.http(srv.url + "/languages")[2] else (rc, out[:200], e))
    want = TS.cli(["A dog runs."])[0]
    rc, out, e = curl("-L", srv.url + "//translate", "-H", "Content-Type: application/json",
                      "--data", json.dumps(dict(TR, q="A dog runs.")))
    check("curl -L POST //translate (a Mastodon endpoint set with a trailing slash): the CLI's translation, "
          "the POST kept through the 308",
          lambda: None if rc == 0 and json.loads(out) == {"translatedText": want} else (rc, out[:200], e))


# ---- 13. --repetition-penalty ----

def repetition():
    lines = [x.rstrip("\n") for x in open(TS.VAL)][:40]
    inp = ("\n".join(lines) + "\n").encode()
    for v in ("1e-30", "1e-45", "0.1", "0.5"):
        p = subprocess.run([XLATE, "-m", MODEL, "-q", "--repetition-penalty", v], input=inp,
                           capture_output=True, timeout=GUARD)
        e = p.stderr.decode(errors="replace")
        check("--repetition-penalty %s (gave empty translations, exit 0): exit 1 naming the option, the value "
              "and the range" % v,
              lambda: None if p.returncode == 1 and "--repetition-penalty" in e and v in e and "0.7" in e
              else "exit %d: %r" % (p.returncode, e[-300:]))
    for beam in ("1", "4"):
        p = subprocess.run([XLATE, "-m", MODEL, "-q", "--repetition-penalty", "0.7", "--beam-size", beam,
                            "--output-format", "jsonl"], input=inp, capture_output=True, timeout=GUARD)
        rows = [json.loads(x) for x in p.stdout.decode().split("\n")[:-1]] if p.returncode == 0 else []
        check("--repetition-penalty 0.7 (the smallest) --beam-size %s on 40 lines: exit 0, no empty translation, "
              "logprobs above -1000" % beam,
              lambda: None if len(rows) == 40 and all(r["translation"] and r["logprob"] > -1000 for r in rows)
              else (p.returncode, p.stderr[-200:], [r for r in rows if not r["translation"]][:2]))


def repetition_model():
    """A MarianMT model (tools/make_marian.py through the oracle memo) whose
    generation_config.json says repetition_penalty 0.5: refused naming the file, not an option."""
    import oracle_memo as OM
    with tempfile.TemporaryDirectory() as d:
        mar = os.path.join(d, "mar")
        OM.make_model(mar, [sys.executable, os.path.join(TS.TOP, "tools", "make_marian.py"), mar,
                            "--num-beams", "1"])
        path = os.path.join(mar, "generation_config.json")
        g = json.load(open(path))
        g["repetition_penalty"] = 0.5
        with open(path, "w") as f:
            json.dump(g, f)
        p = subprocess.run([XLATE, "-m", mar, "-q"], input=b"A dog.\n", capture_output=True, timeout=GUARD)
        e = p.stderr.decode(errors="replace")
        check("generation_config.json repetition_penalty 0.5: xlate refuses it naming the file and the key, "
              "no option blamed as given",
              lambda: None if p.returncode != 0 and "generation_config.json" in e and '"repetition_penalty"' in e
              and "0.5" in e else "exit %d: %r" % (p.returncode, e[-300:]))
        p = subprocess.run([XLATE, "-m", mar, "-q", "--repetition-penalty", "1"], input=b"A dog.\n",
                           capture_output=True, timeout=GUARD)
        check("... --repetition-penalty 1 overrides it: exit 0, one line",
              lambda: None if p.returncode == 0 and p.stdout.count(b"\n") == 1 else (p.returncode, p.stderr[-200:]))
        p = subprocess.Popen([XLATE, "serve", "-m", mar, "--port", "0"], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            e = p.communicate(timeout=60)[1].decode(errors="replace")
        except subprocess.TimeoutExpired:  # it served (before: every request then failed)
            p.kill()
            e = p.communicate()[1].decode(errors="replace")
        check("xlate serve with that model: exit 2 at start naming the file and the key (every request "
              "would have failed)",
              lambda: None if p.returncode == 2 and "generation_config.json" in e and '"repetition_penalty"' in e
              else "exit %d: %r" % (p.returncode, e[-300:]))


def main():
    srv = TS.Server("-q")
    try:
        nul(srv)
        json_rules(srv)
        methods(srv)
        slashes(srv)
    finally:
        srv.stop()
    sigterm_upload()
    repetition()
    repetition_model()
    return done()


if __name__ == "__main__":
    sys.exit(main())

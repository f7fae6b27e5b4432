"""`xlate serve`'s web page in a real browser: Debian's headless Chromium, driven over the W3C
WebDriver protocol (chromedriver, spoken with urllib: https://www.w3.org/TR/webdriver2/).

  - the page, its script and style sheet are served byte for byte as src/serve/page/ holds them
    (the embedded copy is not stale), with their MIME types;
  - the page loads the languages: the selects offer exactly what GET /languages says (the source
    select the codes with targets, the target select the chosen source's targets), and the text
    box and translation carry the chosen languages as lang attributes; every control has a label;
  - typed into the text box, "Two dogs are playing in the snow." and a press on Translate give,
    on the page, exactly what `xlate` prints for that line (the CLI is the oracle);
  - an error answer ({"error": ...}, a target the server does not serve) is shown on the page
    with the server's own message, as urllib gets it from the same request;
  - a Markdown document chosen in the file input and sent with "Translate document" comes back
    as a link; the browser downloads it, and the file is exactly `xlate --format markdown`'s
    output for the same document;
  - a screenshot of the page with the translation (PNG, printed path; kept after the run).

Needs /usr/bin/chromium and /usr/bin/chromedriver (`sh tools/setup.sh --test` installs Debian's
chromium and chromium-driver); without them the test says so in a 'not ok' line. Every server
is on 127.0.0.1 at a port the kernel picked; nothing leaves the machine (Chromium's background
networking is off). Run by tests/run.sh with env XLATE and Debian's /usr/bin/python3.
"""
import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, done, expect_eq, not_ok, ok  # noqa: E402

XLATE = os.path.abspath(os.path.join(TOP, os.environ.get("XLATE", "./xlate")))
PAGE = os.path.join(TOP, "src", "serve", "page")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
SENTENCE = "Two dogs are playing in the snow."
DOC_MD = ("# Winter\n\nTwo dogs are playing in the snow. A man in a *red* jacket watches them.\n\n"
          "- A child is running.\n- A woman is [riding a bike](https://example.org/bike).\n")
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"  # the W3C web element identifier's key
WAIT = 30  # seconds any one wait may take before the check fails (a guard, not a measure)


def env():
    # the default model for the server and the oracle alike
    return {k: v for k, v in os.environ.items() if k != "XLATE_MODEL"}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(url, data=None, headers=None, method=None):
    """(status, headers, body bytes) of one request; an HTTP error status is an answer too."""
    req = urllib.request.Request(url, data=data, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(req, timeout=WAIT) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


class Server:
    """`xlate serve --port 0` with the default model; its URL from its one stderr line."""

    def __init__(self, tmp):
        self.log = open(os.path.join(tmp, "serve.err"), "w+b")
        self.proc = subprocess.Popen([XLATE, "serve", "--port", "0"], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env())
        self.url = None
        deadline = time.time() + WAIT
        while time.time() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            self.log.write(line)
            text = line.decode(errors="replace").strip()
            if text.startswith("xlate serve: listening on http://"):
                self.url = text.split("listening on ", 1)[1].rstrip("/") + "/"
                break
        if self.url is None:
            self.stop()
            self.log.seek(0)
            raise RuntimeError("xlate serve did not say it listens: %s"
                               % self.log.read().decode(errors="replace")[-600:])
        # the rest of stderr drained into the log, so the server never blocks on a full pipe
        self.drain = subprocess.Popen(["cat"], stdin=self.proc.stderr, stdout=self.log)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=WAIT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if getattr(self, "drain", None):
            self.drain.wait()
        return self.proc.returncode


class Browser:
    """Headless Chromium through chromedriver: the W3C WebDriver commands this test needs."""

    def __init__(self, tmp):
        self.port = free_port()
        self.driver_log = os.path.join(tmp, "chromedriver.log")
        # a HOME of its own: Chromium writes there (crash reports, caches) whatever the profile
        home = os.path.join(tmp, "home")
        os.makedirs(home)
        self.proc = subprocess.Popen([CHROMEDRIVER, "--port=%d" % self.port,
                                      "--log-path=" + self.driver_log],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     env=dict(os.environ, HOME=home))
        self.base = "http://127.0.0.1:%d" % self.port
        deadline = time.time() + WAIT
        while True:
            try:
                if self.call("GET", "/status").get("ready"):
                    break
            except OSError:
                pass
            if time.time() > deadline or self.proc.poll() is not None:
                raise RuntimeError("chromedriver did not start (log: %s)" % self.driver_log)
            time.sleep(0.05)
        self.downloads = os.path.join(tmp, "downloads")
        os.makedirs(self.downloads)
        args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-features=Translate,OptimizationHints,MediaRouter",
                "--window-size=1200,1000", "--lang=en-US",
                "--user-data-dir=" + os.path.join(tmp, "profile")]
        caps = {"browserName": "chrome", "goog:chromeOptions": {
            "binary": CHROMIUM, "args": args,
            "prefs": {"download.default_directory": self.downloads,
                      "download.prompt_for_download": False,
                      "download.directory_upgrade": True}}}
        value = self.call("POST", "/session", {"capabilities": {"alwaysMatch": caps}})
        self.session = "/session/" + value["sessionId"]

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        status, _, raw = http(self.base + path, data=data, method=method,
                              headers={"Content-Type": "application/json"} if data else {})
        answer = json.loads(raw.decode() or "{}")
        if status != 200:
            v = answer.get("value", {})
            raise RuntimeError("WebDriver %s %s: %s: %s" % (method, path, v.get("error"),
                                                          str(v.get("message", ""))[:300]))
        return answer.get("value")

    def s(self, method, path, body=None):
        return self.call(method, self.session + path, body)

    def go(self, url):
        self.s("POST", "/url", {"url": url})

    def find(self, css):
        return self.s("POST", "/element", {"using": "css selector", "value": css})[ELEMENT]

    def type(self, css, text):
        self.s("POST", "/element/%s/value" % self.find(css), {"text": text})

    def click(self, css):
        self.s("POST", "/element/%s/click" % self.find(css), {})

    def js(self, script, *args):
        return self.s("POST", "/execute/sync", {"script": script, "args": list(args)})

    def wait(self, script, what, *args):
        """Polls a script until it returns something truthy; that value, or an error naming
        what was awaited and the page's error box."""
        deadline = time.time() + WAIT
        while time.time() < deadline:
            v = self.js(script, *args)
            if v:
                return v
            time.sleep(0.05)
        shown = self.js("var e = document.getElementById('error');"
                        "return e && !e.hidden ? e.textContent.trim() : '';")
        raise RuntimeError("waited %d s for %s%s" % (WAIT, what,
                                                       "; the page shows: " + shown if shown else ""))

    def screenshot(self, path):
        with open(path, "wb") as f:
            f.write(base64.b64decode(self.s("GET", "/screenshot")))

    def quit(self):
        try:
            if getattr(self, "session", None):
                self.s("DELETE", "")
        except (OSError, RuntimeError):
            pass
        self.proc.terminate()
        try:
            self.proc.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def cli(args, text):
    p = subprocess.run([XLATE] + args, input=text.encode(), capture_output=True, env=env(),
                       timeout=120)
    if p.returncode != 0:
        raise RuntimeError("xlate %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.decode()[-400:]))
    return p.stdout


def check_embedded(url):
    """Each page file is served as it is in src/serve/page/, with its MIME type."""
    mimes = {".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml"}
    for name in sorted(os.listdir(PAGE)):
        want = open(os.path.join(PAGE, name), "rb").read()
        for path in (["", "index.html"] if name == "index.html" else [name]):
            def one(path=path, name=name, want=want):
                status, headers, body = http(url + path)
                if status != 200:
                    return "status %d" % status
                if body != want:
                    return ("%d bytes served, %s holds %d: the embedded copy is stale "
                            "(make regenerates src/serve/serve_page_data.c)" % (len(body), name, len(want)))
                ctype = headers.get("Content-Type", "")
                ext = os.path.splitext(name)[1]
                if ext in mimes and not ctype.startswith(mimes[ext]):
                    return "Content-Type %r, expected %s" % (ctype, mimes[ext])
                return None
            check("GET /%s serves src/serve/page/%s byte for byte" % (path, name), one)


def check_languages(b, url):
    langs = json.loads(http(url + "languages")[2])
    by = {lang["code"]: lang for lang in langs}
    sources = [lang["code"] for lang in langs if lang.get("targets")]
    got_src = b.js("return Array.from(document.getElementById('source').options).map(o => o.value);")
    expect_eq("the source select offers the codes /languages gives targets", got_src, sources)
    src = b.js("return document.getElementById('source').value;")
    got_tgt = b.js("return Array.from(document.getElementById('target').options).map(o => o.value);")
    expect_eq("the target select offers the source's targets from /languages",
              got_tgt, by.get(src, {}).get("targets"))
    settings = json.loads(http(url + "frontend/settings")[2])
    want_src = settings.get("language", {}).get("source", {}).get("code")
    if want_src in sources:
        expect_eq("the source select starts at /frontend/settings' source language", src, want_src)
    tgt = b.js("return document.getElementById('target').value;")
    langs_attr = b.js("return [document.documentElement.lang, document.getElementById('q').lang,"
                      " document.getElementById('translation').lang];")
    expect_eq("lang attributes: the page en, the text box the source, the translation the target",
              langs_attr, ["en", src.replace("_", "-"), tgt.replace("_", "-")])
    unlabelled = b.js(
        "return Array.from(document.querySelectorAll('select, textarea, input, output'))"
        ".filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-labelledby')"
        " && !e.getAttribute('aria-label')).map(e => e.id);")
    expect_eq("every form control has a label", unlabelled, [])
    return src, tgt


def check_translate(b):
    want = cli([], SENTENCE + "\n").decode().rstrip("\n")
    b.js("document.getElementById('q').value = '';")
    b.type("#q", SENTENCE)
    b.click("#translate")
    got = b.wait("var t = document.getElementById('translation');"
                 "return t.getAttribute('aria-busy') === 'false' && t.textContent;", "a translation")
    expect_eq("typed '%s', Translate pressed: the page shows what `xlate` prints" % SENTENCE, got, want)


def check_error(b, url):
    """A target the server does not serve: the page shows the server's own {"error"}."""
    status, _, body = http(url + "translate", data=json.dumps(
        {"q": SENTENCE, "source": b.js("return document.getElementById('source').value;"),
         "target": "zz", "format": "text"}).encode(), headers={"Content-Type": "application/json"})
    try:
        message = json.loads(body)["error"]
    except (ValueError, KeyError, TypeError):
        not_ok("the server answers an unknown target with {\"error\"}", "status %d, body %r" % (status, body[:200]))
        return
    before = b.js("return document.getElementById('target').value;")
    b.js("var s = document.getElementById('target'); var o = document.createElement('option');"
         "o.value = 'zz'; o.textContent = 'zz'; s.appendChild(o); s.value = 'zz';")
    b.click("#translate")
    shown = b.wait("var e = document.getElementById('error');"
                   "return !e.hidden && document.getElementById('error-text').textContent;", "the error box")
    check("an error answer (%d) is shown on the page with the server's message" % status,
          lambda: None if message in shown and str(status) in shown
          else "the page shows %r; the server said %d %r" % (shown, status, message))
    b.js("var s = document.getElementById('target'); s.removeChild(s.lastChild); s.value = arguments[0];"
         "s.dispatchEvent(new Event('change'));", before)
    b.click("#error-close")
    check("the error box closes",
          lambda: None if b.js("return document.getElementById('error').hidden;") else "still shown")


def check_document(b, tmp):
    doc = os.path.join(tmp, "winter.md")
    with open(doc, "w") as f:
        f.write(DOC_MD)
    want = cli(["--format", "markdown"], DOC_MD)
    b.type("#file", doc)
    b.click("#translate-file")
    href = b.wait("var a = document.getElementById('file-link'); return a && a.href;", "the download link")
    b.click("#file-link")
    deadline = time.time() + WAIT
    got = None
    while time.time() < deadline:
        # Chromium writes NAME.crdownload (or a hidden temporary) and renames it when complete
        done_files = [n for n in os.listdir(b.downloads)
                      if not n.endswith(".crdownload") and not n.startswith(".")]
        if done_files:
            got = open(os.path.join(b.downloads, done_files[0]), "rb").read()
            break
        time.sleep(0.05)
    if got is None:
        not_ok("the translated document downloaded through the page's link", "nothing in %s after %d s (link %s)"
               % (b.downloads, WAIT, href))
        return
    ok("the page's link downloads the translated document (%s)" % done_files[0])
    expect_eq("the downloaded .md is exactly `xlate --format markdown`'s output",
              got.decode(errors="replace"), want.decode(errors="replace"))


def check_screenshot(b, shot):
    b.screenshot(shot)
    with open(shot, "rb") as f:
        head = f.read(24)
    w, h = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    check("a screenshot of the page with its translation and download link: %s (%dx%d)" % (shot, w, h),
          lambda: None if head[:8] == b"\x89PNG\r\n\x1a\n" and w > 0 and h > 0 else "not a PNG: %r" % head)


def main():
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    if missing:
        not_ok("a headless Chromium drives the page", "%s not installed (sh tools/setup.sh --test: "
               "Debian's chromium and chromium-driver)" % " and ".join(missing))
        return
    tmp = tempfile.mkdtemp(prefix="xlate-test-serve-page-")
    # the screenshot is kept after the run, in a directory of its own
    shots = tempfile.mkdtemp(prefix="xlate-serve-page-shot-")
    server = browser = None
    try:
        server = Server(tmp)
        check_embedded(server.url)
        browser = Browser(tmp)
        browser.go(server.url)
        browser.wait("var s = document.getElementById('target');"
                     "return !s.disabled && s.options.length > 0;", "the languages to load")
        ok("the page loads the languages from /languages and /frontend/settings")
        check_languages(browser, server.url)
        check_translate(browser)
        check_error(browser, server.url)
        check_document(browser, tmp)
        check_screenshot(browser, os.path.join(shots, "page.png"))
    except Exception as e:  # noqa: BLE001
        not_ok("the browser test ran to its end", "%s: %s" % (type(e).__name__, e))
    finally:
        if browser:
            browser.quit()
        if server:
            rc = server.stop()
            expect_eq("xlate serve exits 0 on SIGTERM", rc, 0)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
    sys.exit(done())

"""`xlate serve`'s web page in a real browser: Debian's headless Chromium, driven over the W3C
WebDriver protocol (chromedriver, spoken with urllib: https://www.w3.org/TR/webdriver2/).

  - the page, its script and style sheet are served byte for byte as src/serve/page/ holds them
    (the embedded copy is not stale), with their MIME types;
  - every resource the page loads comes from the server itself (no CDN);
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
  - a screenshot of the page with the translation (PNG, printed path; kept after the run);
  - three models (en -> de, and en -> fr, de -> en made from its files with other languages and
    another embedding scale, so each translates differently): the selects follow /languages,
    swap is offered only where the pair goes back, and each pair chosen on the page gives that
    model's CLI translation (en -> fr, en -> de, then swapped, de -> en of the German); that
    server has --api-keys and --char-limit 200: the page shows the key field and the limit,
    the server's 403 without the key, translations with it.

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
KEY = "page-test-key-1"
HTML = '<p>Two dogs are playing in the <b>snow</b>. A man <a href="/x">watches</a> them.</p>'
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

    def __init__(self, tmp, *models, extra=()):
        self.log = open(os.path.join(tmp, "serve%d.err" % len(models)), "w+b")
        margs = [a for m in models for a in ("-m", m)] + list(extra)
        self.proc = subprocess.Popen([XLATE, "serve", "--port", "0"] + margs, stdin=subprocess.DEVNULL,
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
    # "The text is HTML": format html, the answer as `xlate --format html` writes the fragment
    want = cli(["--format", "html"], HTML).decode()
    b.click("#is-html")
    b.js("document.getElementById('q').value = '';")
    b.type("#q", HTML)
    b.js("document.getElementById('translation').textContent = '';")
    b.click("#translate")
    got = b.wait("var t = document.getElementById('translation');"
                 "return t.getAttribute('aria-busy') === 'false' && t.textContent;", "a translation")
    expect_eq("'The text is HTML' checked: the page shows what `xlate --format html` writes", got, want)
    b.click("#is-html")
    b.js("document.getElementById('q').value = '';")
    b.type("#q", SENTENCE)
    b.click("#translate")


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
    link_name = b.js("return document.getElementById('file-link').getAttribute('download');")
    check("the page's link downloads the translated document as winter_de.md, the name the link gives "
          "(the server's Content-Disposition)",
          lambda: None if done_files == ["winter_de.md"] and link_name == "winter_de.md"
          else "saved %s, link download=%r" % (done_files, link_name))
    expect_eq("the downloaded .md is exactly `xlate --format markdown`'s output",
              got.decode(errors="replace"), want.decode(errors="replace"))


def check_document_docx(b, tmp):
    """A Word document through the page (issue 47): chosen, translated, downloaded by Chromium as
    park_de.docx; its members are exactly `xlate -i park.docx -o ...`'s."""
    import io
    import zipfile
    src = os.path.join(TOP, "examples", "documents", "park.docx")
    doc = os.path.join(tmp, "park.docx")
    shutil.copy(src, doc)
    p = subprocess.run([XLATE, "-q", "-i", doc], capture_output=True, env=env(), timeout=120)
    if p.returncode != 0:
        not_ok("xlate -i park.docx", p.stderr.decode()[-300:])
        return
    b.js("document.getElementById('file').value = '';")
    b.type("#file", doc)
    b.click("#translate-file")
    b.wait("var a = document.getElementById('file-link'); return a && a.download === 'park_de.docx' "
           "&& a.href;", "the .docx download link")
    b.click("#file-link")
    deadline = time.time() + WAIT
    got = None
    while time.time() < deadline:
        path = os.path.join(b.downloads, "park_de.docx")
        if os.path.exists(path) and not os.path.exists(path + ".crdownload"):
            got = open(path, "rb").read()
            if got:
                break
        time.sleep(0.05)
    if not got:
        not_ok("the translated .docx downloaded through the page's link", "nothing after %d s" % WAIT)
        return
    try:
        za, zb = zipfile.ZipFile(io.BytesIO(got)), zipfile.ZipFile(io.BytesIO(p.stdout))
        same = za.namelist() == zb.namelist() and all(za.read(n) == zb.read(n) for n in za.namelist())
    except zipfile.BadZipFile as e:
        same = False
        got = repr(e).encode()
    check("a .docx through the page: Chromium downloads park_de.docx, its members exactly "
          "`xlate -i park.docx`'s", lambda: None if same else "differs: %r" % got[:80])


def pair_models(tmp):
    """Two more models beside the default en -> de, from its own files: en -> fr and de -> en
    (config.json's languages changed, and its embedding_scale, so that each pair translates
    differently and a request routed to the wrong model shows)."""
    base_dir = os.path.join(TOP, "models", "en-de")
    with open(os.path.join(base_dir, "config.json")) as f:
        base = json.load(f)
    out = {}
    for name, src, tgt, scale in (("en-fr", "en", "fr", 4.0), ("de-en", "de", "en", 20.0)):
        d = os.path.join(tmp, "models", name)
        os.makedirs(d)
        for fn in os.listdir(base_dir):
            if fn != "config.json":
                os.symlink(os.path.join(base_dir, fn), os.path.join(d, fn))
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(dict(base, source_lang=src, target_lang=tgt, embedding_scale=scale), f)
        out[name] = d
    return base_dir, out


def select(b, which, code):
    b.js("var s = document.getElementById(arguments[0]); s.value = arguments[1];"
         "s.dispatchEvent(new Event('change'));", which, code)


def press_translate(b):
    b.js("document.getElementById('translation').textContent = '';")
    b.click("#translate")
    return b.wait("var t = document.getElementById('translation');"
                  "return t.getAttribute('aria-busy') === 'false' && t.textContent;", "a translation")


def check_key_and_limit(b, url):
    """A server with --api-keys and --char-limit 200: the page shows the key field and the
    limit; without the key the server's 403 is shown, with it the translation comes."""
    expect_eq("keyRequired: the API key field is shown",
              b.js("return document.getElementById('key-field').hidden;"), False)
    expect_eq("--char-limit 200: the text box takes at most 200 characters, and says so",
              b.js("return [document.getElementById('q').maxLength,"
                   " document.getElementById('count').textContent.indexOf('/ 200') >= 0];"), [200, True])
    b.js("document.getElementById('api-key').value = '';")
    b.type("#q", SENTENCE)
    b.click("#translate")
    shown = b.wait("var e = document.getElementById('error');"
                   "return !e.hidden && document.getElementById('error-text').textContent;", "the error box")
    check("no key: the server's 403 is shown", lambda: None if "403" in shown else "the page shows %r" % shown)
    b.click("#error-close")
    b.type("#api-key", KEY)
    b.js("document.getElementById('q').value = '';")


def check_routing(b, url, en_de, models):
    """Three models: the selects follow /languages, swap only where the pair goes back, and
    each pair's translation is its own model's (the CLI with that model)."""
    langs = {lang["code"]: lang.get("targets") for lang in json.loads(http(url + "languages")[2])}
    b.go(url)
    b.wait("var s = document.getElementById('target'); return !s.disabled && s.options.length > 0;",
           "the languages to load")
    check_key_and_limit(b, url)
    options = "return Array.from(document.getElementById(arguments[0]).options).map(o => o.value);"
    expect_eq("three models: the source select offers en and de (fr has no targets)",
              sorted(b.js(options, "source")), sorted(c for c, t in langs.items() if t))
    select(b, "source", "en")
    expect_eq("source en: the target select offers en's targets", b.js(options, "target"), langs["en"])
    select(b, "target", "fr")
    expect_eq("en -> fr: swap disabled (nothing translates fr)", b.js("return document.getElementById('swap').disabled;"), True)
    b.js("document.getElementById('q').value = '';")
    b.type("#q", SENTENCE)
    fr = cli(["-m", models["en-fr"]], SENTENCE + "\n").decode().rstrip("\n")
    de = cli(["-m", en_de], SENTENCE + "\n").decode().rstrip("\n")
    if fr == de:
        not_ok("the en -> fr model translates differently from en -> de", "both give %r" % fr)
    expect_eq("en -> fr chosen: the page shows the en -> fr model's translation", press_translate(b), fr)
    select(b, "target", "de")
    expect_eq("en -> de: swap enabled (de -> en is served)", b.js("return document.getElementById('swap').disabled;"), False)
    expect_eq("en -> de chosen: the page shows the en -> de model's translation", press_translate(b), de)
    b.click("#swap")
    expect_eq("swap: de -> en, the translation moved into the text box",
              b.js("return [document.getElementById('source').value, document.getElementById('target').value,"
                   " document.getElementById('q').value, document.getElementById('q').lang];"), ["de", "en", de, "de"])
    back = cli(["-m", models["de-en"]], de + "\n").decode().rstrip("\n")
    expect_eq("de -> en: the page shows the de -> en model's translation of it", press_translate(b), back)


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
    server = server3 = browser = None
    try:
        server = Server(tmp)
        check_embedded(server.url)
        browser = Browser(tmp)
        browser.go(server.url)
        browser.wait("var s = document.getElementById('target');"
                     "return !s.disabled && s.options.length > 0;", "the languages to load")
        ok("the page loads the languages from /languages and /frontend/settings")
        check("every resource the page loaded came from the server itself (no CDN)", lambda: (
            lambda urls: None if urls and all(u.startswith(server.url) for u in urls) else "loaded: %s" % urls)(
            browser.js("return performance.getEntriesByType('resource').map(e => e.name);")))
        check_languages(browser, server.url)
        check_translate(browser)
        check_error(browser, server.url)
        check_document(browser, tmp)
        check_document_docx(browser, tmp)
        check_screenshot(browser, os.path.join(shots, "page.png"))
        en_de, models = pair_models(tmp)
        keys = os.path.join(tmp, "keys.txt")
        with open(keys, "w") as f:
            f.write(KEY + "\n")
        server3 = Server(tmp, en_de, models["en-fr"], models["de-en"],
                         extra=("--api-keys", keys, "--char-limit", "200"))
        check_routing(browser, server3.url, en_de, models)
    except Exception as e:  # noqa: BLE001
        not_ok("the browser test ran to its end", "%s: %s" % (type(e).__name__, e))
    finally:
        if browser:
            browser.quit()
        for srv, what in ((server, "the default model's"), (server3, "the three models'")):
            if srv:
                expect_eq("%s xlate serve exits 0 on SIGTERM" % what, srv.stop(), 0)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
    sys.exit(done())

"""test_serve_auto.py — xlate serve's source "auto" and /detect with the language detector
(issue 48; serve_api.c, src/lang/langid.c).

The server holds three models: models/en-de, and random MarianMT de -> en and fr -> en
(tools/make_marian.py; their files say those languages), so that a text for English has two
sources to be told apart. Oracles: the command line (`xlate -m DIR` on the text) for the
translation of the language found; the detector's own held-out texts for what it finds; the
libretranslate npm client (source "auto" is its default) and a request shaped as Mastodon
shapes it (an array of HTML strings, format html, source auto) as real clients. Then pairs
through a pivot: a second server with de -> en, en -> fr and fr -> es, its /languages and its
translations against the two-step pipe (`xlate -m de-en | xlate -m en-fr`).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from checks import check, done, expect_eq  # noqa: E402
import test_serve as TS  # noqa: E402  (its Server and http helpers; its main() does not run)
from test_hub_models import make_model, TOP  # noqa: E402

XLATE = TS.XLATE
DE = ["Ein Mann fährt mit dem Fahrrad durch die Stadt.", "Zwei Hunde spielen im Schnee."]
FR = ["Un homme fait du vélo dans la ville.", "Deux chiens jouent dans la neige."]
EN = "A man is riding a bike through the town."


def lang_model(tmp, name, seed, src, tgt):
    d = make_model(tmp, name, "make_marian.py", ["--seed", str(seed)])
    tc = os.path.join(d, "tokenizer_config.json")
    c = json.load(open(tc))
    c.update(source_lang=src, target_lang=tgt)
    json.dump(c, open(tc, "w"))
    return d


def cli(model, lines, *opts):
    p = subprocess.run([XLATE, "-m", model, "-q"] + list(opts),
                       input="".join(l + "\n" for l in lines).encode(), capture_output=True,
                       timeout=TS.GUARD)
    return p.stdout.decode().split("\n")[:-1]


def body(tmp):
    de_en = lang_model(tmp, "de-en", 31, "de", "en")
    fr_en = lang_model(tmp, "fr-en", 32, "fr", "en")
    srv = TS.Server("-m", de_en, "-m", fr_en, "--threads", "1")
    try:
        post = lambda o: TS.post_json(srv, "/translate", o)  # noqa: E731
        st, b = TS.post_json(srv, "/detect", {"q": DE[0]})
        check("/detect German among the served sources (en, de, fr): de first, confidence "
              "0-100, LibreTranslate's shape", lambda: None if st == 200 and b[0]["language"] ==
              "de" and b[0]["confidence"] > 50 and all(set(x) == {"confidence", "language"} and
                                                        x["language"] in ("en", "de", "fr")
                                                        for x in b) else (st, b))
        st, b = TS.post_json(srv, "/detect", {"q": "12345"})
        check("/detect of digits with three sources: 400 saying it cannot be told",
              lambda: None if st == 400 and "cannot be told" in b["error"] else (st, b))
        st, b = post({"q": DE[0], "source": "auto", "target": "en"})
        want = cli(de_en, DE[:1])
        check("/translate auto -> en, German: through de-en, the CLI's bytes, detectedLanguage de",
              lambda: None if st == 200 and b["translatedText"] == want[0] and
              b["detectedLanguage"]["language"] == "de" and
              0 < b["detectedLanguage"]["confidence"] <= 100 else (st, b, want))
        p = subprocess.run([XLATE, "-m", de_en, "-q", "--from", "auto", DE[0]],
                           capture_output=True, timeout=TS.GUARD)
        check("the command line's --from auto on the same text: the server's bytes",
              lambda: None if p.returncode == 0 and p.stdout.decode() == want[0] + "\n"
              else (p.returncode, p.stdout, p.stderr))
        st, b = post({"q": FR, "source": "auto", "target": "en"})
        want = cli(fr_en, FR)
        check("/translate auto, q an array of French: each detected on its own (a list), "
              "through fr-en, the CLI's bytes", lambda: None if st == 200 and
              b["translatedText"] == want and [d["language"] for d in b["detectedLanguage"]] ==
              ["fr", "fr"] else (st, b, want))
        st, b = post({"q": DE + FR, "source": "auto", "target": "en"})
        check("German and French texts in one request: 400 naming both",
              lambda: None if st == 400 and "de" in b["error"] and "fr" in b["error"]
              else (st, b))
        st, b = post({"q": "Esta es una frase escrita en español para la prueba.",
                      "source": "auto", "target": "en"})
        check("Spanish (detected, served by no model into en): 400 naming es and the sources",
              lambda: None if st == 400 and "es" in b["error"] and "de" in b["error"] and
              "fr" in b["error"] else (st, b))
        st, b = post({"q": "12345", "source": "auto", "target": "en"})
        check("digits, auto -> en (two sources): 400, cannot be told, give source",
              lambda: None if st == 400 and "cannot be told" in b["error"] else (st, b))
        st, b = post({"q": EN, "source": "auto", "target": "de"})
        check("English, auto -> de (en direct, fr through en): en, the CLI's bytes",
              lambda: None if st == 200 and b["detectedLanguage"]["language"] == "en" and
              b["translatedText"] == TS.cli([EN])[0] else (st, b))
        # Mastodon: an array of HTML strings, format html, source auto
        html = ["<p>" + DE[0] + "</p>", "<p>" + DE[1] + " <a href=\"https://example.org/\">"
                "https://example.org/</a></p>"]
        st, b = post({"q": html, "source": "auto", "target": "en", "format": "html"})
        st2, b2 = post({"q": html, "source": "de", "target": "en", "format": "html"})
        check("Mastodon's shape (HTML strings, format html, auto): de found in each (markup not "
              "read as text), the answer source de gives", lambda: None if st == 200 and
              st2 == 200 and b["translatedText"] == b2["translatedText"] and
              [d["language"] for d in b["detectedLanguage"]] == ["de", "de"] else (st, b, b2))
        if TS.npm_ready("libretranslate npm client, source auto"):
            rc, got = TS.npm_translate(srv.url, DE[1], "auto", "en")
            expect_eq("the libretranslate npm client's translate() with source auto: the "
                      "CLI's bytes through de-en", (rc, got), (0, cli(de_en, DE[1:])[0]))
    finally:
        srv.stop()

    # pivots (issue 48): de -> fr through en (de-en, en-fr), en -> es through fr (fr-es); de -> es
    # would need two pivots and is not offered
    en_fr = lang_model(tmp, "en-fr", 33, "en", "fr")
    fr_es = lang_model(tmp, "fr-es", 34, "fr", "es")
    srv = TS.Server("-m", de_en, "-m", en_fr, "-m", fr_es, "--threads", "1")
    try:
        st, _, b = TS.http(srv.url + "/languages")
        langs = {l["code"]: l["targets"] for l in json.loads(b)}
        check("/languages: de's targets en and fr (through en), en's de, fr and es (through fr); "
              "not de -> es (two pivots)", lambda: None if st == 200 and
              sorted(langs["de"]) == ["en", "fr"] and sorted(langs["en"]) == ["de", "es", "fr"]
              and sorted(langs["fr"]) == ["es"] else langs)
        a = cli(de_en, DE)
        want = cli(en_fr, a)
        st, b = TS.post_json(srv, "/translate", {"q": DE, "source": "de", "target": "fr"})
        check("/translate de -> fr through en: the two-step pipe's bytes (xlate -m de-en | xlate "
              "-m en-fr)", lambda: None if st == 200 and b == {"translatedText": want}
              else (st, b, want))
        st, b = TS.post_json(srv, "/translate", {"q": DE[0], "source": "auto", "target": "fr"})
        check("/translate auto -> fr, German: de found, through en, the pipe's bytes",
              lambda: None if st == 200 and b["translatedText"] == want[0] and
              b["detectedLanguage"]["language"] == "de" else (st, b))
        st, b = TS.post_json(srv, "/translate", {"q": "12345", "source": "auto", "target": "en"})
        check("digits, auto -> en (one source there, de): falls back to it at confidence 0",
              lambda: None if st == 200 and b["detectedLanguage"] ==
              {"confidence": 0, "language": "de"} else (st, b))
        st, b = TS.post_json(srv, "/translate", {"q": DE[0], "source": "de", "target": "fr",
                                                 "alternatives": 2})
        check("alternatives through a pivot: 400 saying so", lambda: None if st == 400 and
              "pivot" in b["error"] else (st, b))
        st, b = TS.post_json(srv, "/translate", {"q": DE[0], "source": "de", "target": "es"})
        check("de -> es (two pivots): 400, not available", lambda: None if st == 400 else (st, b))
        if TS.npm_ready("libretranslate npm client, a pivot"):
            rc, got = TS.npm_translate(srv.url, DE[1], "de", "fr")
            expect_eq("the libretranslate npm client's translate() de -> fr: the pipe's bytes",
                      (rc, got), (0, want[1]))
    finally:
        srv.stop()


def main():
    tmp = tempfile.mkdtemp(prefix="xlate-serve-auto-")
    try:
        body(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return done()


if __name__ == "__main__":
    sys.exit(main())

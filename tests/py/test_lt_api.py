"""test_lt_api.py — LibreTranslate's own API tests (libretranslate/tests/test_api/, the snapshot
of LibreTranslate/LibreTranslate at 39429cb), ported to HTTP and run against `xlate serve`
(issue 51). Each check names the test it ports, file and line. Their fixture (conftest.py:9-14)
starts LibreTranslate with `--load-only en,es` and talks to Flask's test client; here a server
with the default model (en -> de) is started and the same requests go over HTTP (urllib), with
`de` for their `es` (the language pair the model serves); what they assert is asserted as it is.
Not ported: nothing else is in that directory (the Argos model loading is the fixture's, not a
test)."""
import json
import os
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(__file__))
from checks import check, done  # noqa: E402
import test_serve as TS  # noqa: E402  (its Server and http helpers; its main() does not run)


def form(srv, path, fields):
    body = urllib.parse.urlencode(fields).encode()
    return TS.http(srv.url + path, body, {"Content-Type": "application/x-www-form-urlencoded"})


def as_json(b):
    try:
        return json.loads(b.decode())
    except ValueError:
        return None


def main():
    srv = TS.Server()
    try:
        # test_api_translate.py:4-15
        st, _, b = form(srv, "/translate", {"q": "Hello", "source": "en", "target": "de",
                                            "format": "text"})
        j = as_json(b)
        check("test_api_translate.py:4 test_api_translate: 200 with translatedText",
              lambda: None if st == 200 and isinstance(j, dict) and "translatedText" in j else (st, b))
        # test_api_translate.py:18-32
        st, _, b = TS.http(srv.url + "/translate", json.dumps(
            {"q": ["Hello", "World"], "source": "en", "target": "de", "format": "text"}).encode(),
            {"Content-Type": "application/json"})
        j = as_json(b)
        check("test_api_translate.py:18 test_api_translate_batch: 200, translatedText a list of 2",
              lambda: None if st == 200 and isinstance(j, dict) and isinstance(j.get("translatedText"), list)
              and len(j["translatedText"]) == 2 else (st, b))
        # test_api_translate.py:35-47
        st, _, b = form(srv, "/translate", {"q": "Hello", "source": "en", "target": "zz",
                                            "format": "text"})
        j = as_json(b)
        check("test_api_translate.py:35 test_api_translate_unsupported_language: 400 "
              "\"zz is not supported\"", lambda: None if st == 400 and isinstance(j, dict) and
              j.get("error") == "zz is not supported" else (st, b))
        # test_api_translate.py:50-61
        st, _, b = form(srv, "/translate", {"source": "en", "target": "de", "format": "text"})
        j = as_json(b)
        check("test_api_translate.py:50 test_api_translate_missing_parameter: 400 "
              "\"Invalid request: missing q parameter\"", lambda: None if st == 400 and
              isinstance(j, dict) and j.get("error") == "Invalid request: missing q parameter"
              else (st, b))
        # test_api_detect_language.py:4-12
        st, _, b = form(srv, "/detect", {"q": "Hello"})
        j = as_json(b)
        check("test_api_detect_language.py:4 test_api_detect_language: 200, a list whose first "
              "has confidence and language", lambda: None if st == 200 and isinstance(j, list) and
              len(j) >= 1 and "confidence" in j[0] and "language" in j[0] else (st, b))
        # test_api_detect_language.py:15-20
        st, _, b = TS.http(srv.url + "/detect", b"", {}, method="POST")
        j = as_json(b)
        check("test_api_detect_language.py:15 ..._must_fail_without_parameters: 400 with error",
              lambda: None if st == 400 and isinstance(j, dict) and "error" in j else (st, b))
        # test_api_detect_language.py:23-26
        st, _, b = TS.http(srv.url + "/detect")
        check("test_api_detect_language.py:23 ..._must_fail_bad_request_type: GET 405",
              lambda: None if st == 405 else (st, b))
        # test_api_frontend_settings.py:1-4
        st, _, b = TS.http(srv.url + "/frontend/settings")
        check("test_api_frontend_settings.py:1 test_api_get_frontend_settings: 200",
              lambda: None if st == 200 else (st, b))
        # test_api_get_languages.py:4-10
        st, _, b = TS.http(srv.url + "/languages")
        j = as_json(b)
        check("test_api_get_languages.py:4 test_api_get_languages: 200, a list whose first has "
              "code and name", lambda: None if st == 200 and isinstance(j, list) and len(j) >= 1
              and "code" in j[0] and "name" in j[0] else (st, b))
        # test_api_get_languages.py:13-16
        st, _, b = TS.http(srv.url + "/languages", b"", {}, method="POST")
        check("test_api_get_languages.py:13 ..._must_fail_bad_request_type: POST 405",
              lambda: None if st == 405 else (st, b))
        # test_api_health.py:1-5
        st, _, b = TS.http(srv.url + "/health")
        check("test_api_health.py:1 test_api_get_health: 200 {\"status\": \"ok\"}",
              lambda: None if st == 200 and as_json(b) == {"status": "ok"} else (st, b))
        # test_api_health.py:8-11
        st, _, b = TS.http(srv.url + "/health", b"", {}, method="POST")
        check("test_api_health.py:8 test_api_health_must_fail_bad_request_type: POST 405",
              lambda: None if st == 405 else (st, b))
        # test_api_spec.py:1-4
        st, _, b = TS.http(srv.url + "/spec")
        check("test_api_spec.py:1 test_api_get_spec: 200", lambda: None if st == 200 else (st, b))
        # test_api_spec.py:7-10
        st, _, b = TS.http(srv.url + "/spec", b"", {}, method="POST")
        check("test_api_spec.py:7 test_api_get_spec_must_fail_bad_request_type: POST 405",
              lambda: None if st == 405 else (st, b))
    finally:
        srv.stop()
    return done()


if __name__ == "__main__":
    sys.exit(main())

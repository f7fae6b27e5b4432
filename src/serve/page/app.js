// app.js — the page's behaviour: the languages from GET /languages (which source has which
// targets: the loaded models' pairs), the limits from GET /frontend/settings, text through
// POST /translate, documents through POST /translate_file and a link to the returned URL.
// Every error the server answers ({"error": "..."}, LibreTranslate's shape) is shown as it came,
// with its status. Plain ES2017, no library, nothing fetched from another origin.
"use strict";

(function () {
  var $ = function (id) { return document.getElementById(id); };
  var el = {
    error: $("error"), errorText: $("error-text"), errorClose: $("error-close"),
    status: $("status"), textForm: $("text-form"), source: $("source"), target: $("target"),
    swap: $("swap"), q: $("q"), count: $("count"), translation: $("translation"),
    copy: $("copy"), translate: $("translate"), isHtml: $("is-html"),
    keyField: $("key-field"), key: $("api-key"),
    fileForm: $("file-form"), file: $("file"), fileTypes: $("file-types"),
    translateFile: $("translate-file"), fileResult: $("file-result")
  };
  // the API's root: the directory this page was served from, so that a server behind a path
  // prefix (a reverse proxy's /translate-app/) still reaches its own endpoints
  var base = new URL(".", window.location.href);
  var state = { langs: [], byCode: {}, charLimit: -1, keyRequired: false, busy: false };

  function api(path) { return new URL(path, base).toString(); }

  // a language code as a lang attribute: NLLB's "deu_Latn" is BCP 47's "deu-Latn"
  function bcp47(code) { return (code || "").replace(/_/g, "-"); }

  function showError(message) {
    el.errorText.textContent = message;
    el.error.hidden = false;
  }

  function clearError() {
    el.error.hidden = true;
    el.errorText.textContent = "";
  }

  // a response's JSON, or an Error whose message is the server's {"error"} (else the status)
  function readJson(res, what) {
    return res.text().then(function (body) {
      var data = null;
      try { data = body ? JSON.parse(body) : null; } catch (e) { data = null; }
      if (!res.ok) {
        var why = data && typeof data.error === "string" ? data.error
          : (body && body.length < 300 ? body : res.statusText);
        throw new Error(what + " failed (" + res.status + "): " + why);
      }
      if (data === null) throw new Error(what + ": the server's answer is not JSON");
      return data;
    });
  }

  function request(path, what, init) {
    return fetch(api(path), init).catch(function (e) {
      throw new Error(what + ": could not reach the server (" + e.message + ")");
    }).then(function (res) { return readJson(res, what); });
  }

  function apiKey() {
    var k = el.key.value.trim();
    try { if (k) window.localStorage.setItem("xlate_api_key", k); } catch (e) { /* private mode */ }
    return k;
  }

  function option(code) {
    var o = document.createElement("option");
    var lang = state.byCode[code];
    o.value = code;
    o.textContent = lang && lang.name && lang.name !== code ? lang.name + " (" + code + ")" : code;
    o.lang = bcp47(code);
    return o;
  }

  // the target select holds the chosen source's targets, keeping the current target if it can
  function fillTargets(prefer) {
    var src = state.byCode[el.source.value];
    var targets = src && Array.isArray(src.targets) ? src.targets : [];
    var keep = prefer || el.target.value;
    el.target.textContent = "";
    targets.forEach(function (t) { el.target.appendChild(option(t)); });
    if (targets.indexOf(keep) >= 0) el.target.value = keep;
    syncLangs();
  }

  // lang attributes follow the choice: the text box is in the source language, the
  // translation in the target's (screen readers pick their voice from them)
  function syncLangs() {
    el.q.lang = bcp47(el.source.value);
    el.translation.lang = bcp47(el.target.value);
    var back = state.byCode[el.target.value];
    el.swap.disabled = !(back && Array.isArray(back.targets) && back.targets.indexOf(el.source.value) >= 0);
    var ready = !!(el.source.value && el.target.value) && !state.busy;
    el.translate.disabled = !ready;
    el.translateFile.disabled = !ready || !el.file.files.length;
  }

  function updateCount() {
    var n = el.q.value.length;
    el.count.textContent = state.charLimit > 0 ? n + " / " + state.charLimit + " characters"
      : n + (n === 1 ? " character" : " characters");
    el.count.classList.toggle("over", state.charLimit > 0 && n > state.charLimit);
  }

  function setBusy(busy, what) {
    state.busy = busy;
    el.translation.setAttribute("aria-busy", busy ? "true" : "false");
    el.status.textContent = busy ? what : "";
    syncLangs();
  }

  function translateText() {
    clearError();
    var text = el.q.value;
    if (!text.trim()) { el.translation.textContent = ""; return; }
    if (state.charLimit > 0 && text.length > state.charLimit) {
      showError("The text has " + text.length + " characters; this server takes at most " +
        state.charLimit + " a request.");
      return;
    }
    var body = { q: text, source: el.source.value, target: el.target.value,
                 format: el.isHtml.checked ? "html" : "text" };
    var key = apiKey();
    if (key) body.api_key = key;
    setBusy(true, "Translating…");
    request("translate", "Translate", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body)
    }).then(function (data) {
      if (typeof data.translatedText !== "string") throw new Error("Translate: the answer has no translatedText");
      el.translation.textContent = data.translatedText;
      el.translation.lang = bcp47(body.target);
      el.copy.disabled = !data.translatedText;
    }).catch(function (e) {
      showError(e.message);
    }).then(function () { setBusy(false); });
  }

  function translateDocument() {
    clearError();
    var f = el.file.files[0];
    if (!f) return;
    var form = new FormData();
    form.append("file", f, f.name);
    form.append("source", el.source.value);
    form.append("target", el.target.value);
    var key = apiKey();
    if (key) form.append("api_key", key);
    el.fileResult.textContent = "";
    setBusy(true, "Translating " + f.name + "…");
    request("translate_file", "Translate document", { method: "POST", body: form })
      .then(function (data) {
        if (typeof data.translatedFileUrl !== "string") throw new Error("Translate document: the answer has no translatedFileUrl");
        var url = new URL(data.translatedFileUrl, base);
        // saved as the server's Content-Disposition names it: the uploaded name with the
        // target's code before the extension (winter.md in German: winter_de.md, as
        // LibreTranslate names its files; serve_api.c api_translate_file)
        var dot = f.name.lastIndexOf(".");
        var ext = dot >= 0 ? f.name.slice(dot) : "";
        var code = el.target.value;
        // the stem's bytes, each outside [A-Za-z0-9._-] as "_", at most what the server keeps
        var bytes = new TextEncoder().encode(dot > 0 ? f.name.slice(0, dot) : "");
        var stem = "";
        for (var i = 0; i < bytes.length && i < 126 - code.length - ext.length; i++) {
          var c = String.fromCharCode(bytes[i]);
          stem += /[A-Za-z0-9._-]/.test(c) ? c : "_";
        }
        var name = stem + "_" + code + ext;
        var tgt = el.target.options[el.target.selectedIndex];
        var a = document.createElement("a");
        a.id = "file-link";
        a.href = url.toString();
        a.download = name;
        a.textContent = "Download " + name + (tgt ? " in " + tgt.textContent : "");
        el.fileResult.textContent = "Translated: ";
        el.fileResult.appendChild(a);
      }).catch(function (e) {
        showError(e.message);
      }).then(function () { setBusy(false); });
  }

  function applySettings(s) {
    if (!s || typeof s !== "object") return;
    if (typeof s.charLimit === "number") state.charLimit = s.charLimit;
    state.keyRequired = !!s.keyRequired;
    el.keyField.hidden = !(s.keyRequired || s.apiKeys);
    if (Array.isArray(s.supportedFilesFormat) && s.supportedFilesFormat.length) {
      el.file.accept = s.supportedFilesFormat.join(",");
      el.fileTypes.textContent = s.supportedFilesFormat.join(", ");
    }
    if (s.filesTranslation === false) el.fileForm.hidden = true;
    if (state.charLimit > 0) el.q.maxLength = state.charLimit;
  }

  function applyLanguages(langs, settings) {
    if (!Array.isArray(langs) || !langs.length) throw new Error("The server has no languages: was it started with a model?");
    state.langs = langs;
    langs.forEach(function (l) { state.byCode[l.code] = l; });
    var sources = langs.filter(function (l) { return Array.isArray(l.targets) && l.targets.length; });
    el.source.textContent = "";
    sources.forEach(function (l) { el.source.appendChild(option(l.code)); });
    // the settings' defaults (LibreTranslate's frontend language source/target) where the
    // models serve them, else the first source and its first target
    var want = settings && settings.language ? settings.language : {};
    var ws = want.source && want.source.code, wt = want.target && want.target.code;
    var params = new URLSearchParams(window.location.search);
    ws = params.get("source") || ws;
    wt = params.get("target") || wt;
    if (ws && state.byCode[ws] && sources.indexOf(state.byCode[ws]) >= 0) el.source.value = ws;
    fillTargets(wt);
    el.source.disabled = el.target.disabled = false;
    el.status.textContent = "";
  }

  el.source.addEventListener("change", function () { fillTargets(); });
  el.target.addEventListener("change", syncLangs);
  el.swap.addEventListener("click", function () {
    var s = el.source.value, t = el.target.value;
    el.source.value = t;
    fillTargets(s);
    if (el.translation.textContent) {
      el.q.value = el.translation.textContent;
      el.translation.textContent = "";
      updateCount();
    }
  });
  el.textForm.addEventListener("submit", function (e) { e.preventDefault(); translateText(); });
  el.q.addEventListener("input", updateCount);
  el.q.addEventListener("keydown", function (e) {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      if (!el.translate.disabled) translateText();
    }
  });
  el.copy.addEventListener("click", function () {
    var t = el.translation.textContent;
    if (navigator.clipboard) navigator.clipboard.writeText(t).catch(function () {});
  });
  el.file.addEventListener("change", function () { el.fileResult.textContent = ""; syncLangs(); });
  el.fileForm.addEventListener("submit", function (e) { e.preventDefault(); translateDocument(); });
  el.errorClose.addEventListener("click", clearError);
  try { el.key.value = window.localStorage.getItem("xlate_api_key") || ""; } catch (e) { /* none */ }
  updateCount();

  Promise.all([
    request("frontend/settings", "Loading the settings"),
    request("languages", "Loading the languages")
  ]).then(function (r) {
    applySettings(r[0]);
    applyLanguages(r[1], r[0]);
    updateCount();
  }).catch(function (e) {
    el.status.textContent = "";
    showError(e.message);
  });
})();

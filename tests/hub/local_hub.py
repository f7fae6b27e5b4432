#!/usr/bin/env python3
"""local_hub.py — a local Hugging Face hub for the tests: model repos from directories, served
over 127.0.0.1 as huggingface.co answers its clients, with fault knobs. Also importable: the
tests drive it through `LocalHub` (start, faults, log, stop) at the end of this file.

    local_hub.py --repo ORG/NAME=DIR [--repo ORG/NAME@REV=DIR ...] [--gated ORG/NAME]
                 [--private ORG/NAME] [--token TOKEN ...] [--fault JSON ...] [--verbose]

Two listeners on ports the OS picks: the hub, and a second one standing in for the LFS/CDN
host that LFS files are redirected to. When both listen, one JSON line goes to stdout:
    {"endpoint": "http://127.0.0.1:P", "hub_port": P, "lfs_port": Q, "repos": {...}}
Written from the clients' side (what they send, what they read); the lines cited are those of
huggingface_hub at ee0a451 and @huggingface/hub 2.17.5 (its src/, shipped in the npm package):

The hub port
  GET  /api/models/{repo}[/revision/{rev}]   model info (hf_api.py model_info: revision quoted
       with safe='', `blobs=true` adds size / blobId / lfs {size, sha256, pointerSize} to each
       sibling, hf_api.py:1084-1097; `expand=K` answers only those keys and _id, id, as the hub
       does for model-info.ts's `expand=pipeline_tag&...&expand=sha`).
  GET  /api/models/{repo}/tree/{rev}[/{path}]?recursive=&expand=   (list-files.ts:80, the
       entries of types/api/api-index-tree.ts: type, oid, size, path, lfs {oid, size,
       pointerSize}, lastCommit with expand)
  POST /api/models/{repo}/paths-info/{rev}   JSON {paths, expand} (paths-info.ts:101) or the
       form huggingface_hub posts; the entries of the paths that exist.
  HEAD/GET /{repo}/resolve/{rev}/{path}
       a regular file: 200 (206 with Range) with ETag "git blob sha1", X-Repo-Commit;
       an LFS file: 302 to the LFS port, with X-Linked-Etag "sha256", X-Linked-Size, ETag,
       X-Repo-Commit (file_download.py:1625-1641 get_hf_file_metadata reads exactly these: the
       etag is X-Linked-Etag or ETag, the size X-Linked-Size or, when not a redirect,
       Content-Length; file-download-info.ts:121-135 reads Content-Range's total and
       X-Linked-ETag or ETag after following the redirect with Range: bytes=0-0).
  Errors as utils/_http.py:758 hf_raise_for_status reads them: X-Error-Code (RepoNotFound,
       RevisionNotFound, EntryNotFound, GatedRepo), X-Error-Message, a JSON {"error": ...} body.
       A repo that does not exist: 401 RepoNotFound without a token, 404 with one (the hub hides
       private repos that way; the comment at _http.py:859-862). Gated (--gated): the model info
       is public, a file needs a valid token: 401 GatedRepo without one, 403 GatedRepo with a
       token that is not granted. Private (--private): 401 RepoNotFound without a valid token.
The LFS port
  HEAD/GET /lfs/{sha256}?repo=..&file=..   the bytes, Range as above; a request carrying
       Authorization is refused with 400 as S3 refuses a second auth mechanism (the hub's
       client must never send its token there: file_download.py only follows relative
       redirects with its headers, and fetch drops Authorization on a cross-origin redirect).
Which files are LFS: the extensions the hub's default .gitattributes sends to LFS (weights,
archives, .model/.spm) and anything of --lfs-min-size bytes or more (the hub refuses regular
files over 10 MB). A repo's commit: sha1 over its id and its files' (path, git blob oid), so
the same content always gives the same commit; `main` and any @REV name a directory each.

Control (hub port, never logged): POST /_local_hub/faults (a fault or a list), POST
/_local_hub/reset (faults, holds, log), POST /_local_hub/release (held connections go),
GET /_local_hub/log, GET /_local_hub/repos.
A fault: {"kind": K, "repo": R?, "file": F?, "on": "api"|"resolve"|"lfs"|"body"?, "times": N}
  status  answer `code` (and `error_code`, an X-Error-Code) instead; default on: resolve if
          `file` else api
  hang    read the request, never answer (until release/reset)
  cut     send `after` bytes of the body, then close the connection          (on: body)
  stall   send `after` bytes of the body, then hold the connection           (on: body)
  corrupt every byte of the body inverted at offsets >= `at` (default size // 2)  (on: body)
  norange a GET with Range answered 200 with the whole file, as a server ignoring Range does
          (file_download.py:386-390 starts the file over then)                  (on: body)
  headers the resolve answer's headers `set` ({name: value}) replaced or added, a null value
          removing one (a hostile or broken hub's ETag, X-Linked-Etag, size)    (on: resolve)
  cuthead the status line and the first `after` header lines (default 2) of a resolve answer,
          then the connection closed before the headers end                     (on: resolve)
A slow link (for bench/hub_pull.py, not the tests; --latency-ms, --bandwidth-mbs): every
new connection waits one round trip before its first request is read (the TCP handshake),
every answer one round trip before its status line (the request's way there and the answer's
back), and the bodies of all connections together go at most at the given megabytes a second
(one shared link). Control answers are not delayed.
`body` is the request that carries a file's bytes: a GET on the LFS port for an LFS file, a GET
of resolve for a regular one. times: how many requests it hits (default 1; -1 every one);
skip: how many matching requests it lets through first; method: only GET or HEAD.
The log: one entry a request: port, method, path (with query), range, auth (none | valid |
invalid: the token itself is never kept), status, fault.
"""
import argparse
import hashlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LFS_EXT = (".safetensors", ".bin", ".h5", ".msgpack", ".onnx", ".ot", ".pt", ".pth", ".ckpt",
           ".model", ".spm", ".gz", ".zip", ".tar", ".npz", ".pkl", ".tflite", ".arrow")
CHUNK = 64 * 1024
COMMIT_DATE = "2024-05-01T12:00:00.000Z"


# ---- repos: files, their oids and the commit ----

class RepoFile:
    def __init__(self, path, full, lfs_min):
        self.path, self.full = path, full
        self.size = os.path.getsize(full)
        g = hashlib.sha1(b"blob %d\0" % self.size)
        s = hashlib.sha256()
        with open(full, "rb") as f:
            for b in iter(lambda: f.read(1 << 20), b""):
                g.update(b)
                s.update(b)
        self.git_oid, self.sha256 = g.hexdigest(), s.hexdigest()
        self.lfs = path.endswith(LFS_EXT) or self.size >= lfs_min
        # what git holds for an LFS file: the pointer (git-lfs spec v1)
        ptr = ("version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %d\n"
               % (self.sha256, self.size)).encode()
        self.pointer_size = len(ptr)
        self.pointer_oid = hashlib.sha1(b"blob %d\0" % len(ptr) + ptr).hexdigest()

    def oid(self):
        """the git oid the tree lists: the pointer's for an LFS file"""
        return self.pointer_oid if self.lfs else self.git_oid

    def etag(self):
        """the blob's name in a client's cache: sha256 for LFS, git blob sha1 otherwise"""
        return self.sha256 if self.lfs else self.git_oid


class Revision:
    def __init__(self, repo, d, lfs_min):
        self.dir = d
        self.files = {}
        for root, dirs, names in os.walk(d):
            dirs.sort()
            for n in sorted(names):
                full = os.path.join(root, n)
                rel = os.path.relpath(full, d).replace(os.sep, "/")
                self.files[rel] = RepoFile(rel, full, lfs_min)
        h = hashlib.sha1(b"commit\0" + repo.encode() + b"\0")
        for p in sorted(self.files):
            h.update(p.encode() + b"\0" + self.files[p].oid().encode() + b"\n")
        self.commit = h.hexdigest()

    def dirs(self):
        out = set()
        for p in self.files:
            parts = p.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                out.add("/".join(parts[:i]))
        return out


class Repo:
    def __init__(self, rid):
        self.id, self.revs, self.gated, self.private = rid, {}, False, False

    def revision(self, rev):
        if rev in self.revs:
            return self.revs[rev]
        for r in self.revs.values():
            if r.commit == rev:
                return r
        return None


# ---- shared state: repos, faults, holds, log ----

class HubState:
    def __init__(self, repos, tokens, verbose, latency_ms=0, bandwidth_mbs=0):
        self.repos, self.tokens, self.verbose = repos, set(tokens), verbose
        self.rtt = latency_ms / 1000.0
        self.rate = bandwidth_mbs * 1e6  # bytes a second over all connections; 0: no limit
        self.link_free = 0.0  # when the shared link has sent what it was given
        self.lock = threading.Lock()
        self.faults, self.log = [], []
        self.release = threading.Event()
        self.lfs_port = 0
        self.by_sha = {}
        for repo in repos.values():
            for r in repo.revs.values():
                for f in r.files.values():
                    self.by_sha[f.sha256] = f

    def throttle(self, n):
        """waits until the shared link has room for n more bytes"""
        if not self.rate:
            return
        with self.lock:
            now = time.monotonic()
            self.link_free = max(now, self.link_free) + n / self.rate
            until = self.link_free
        time.sleep(max(0.0, until - time.monotonic()))

    def auth(self, header):
        if not header:
            return "none"
        tok = header[7:] if header.startswith("Bearer ") else header
        return "valid" if tok in self.tokens else "invalid"

    def take_fault(self, kinds, where, method, repo, file):
        """the first fault of `kinds` matching this request (`where`: the places it is, of api,
        resolve, lfs, body), its count taken; None if none"""
        with self.lock:
            for f in self.faults:
                if f["kind"] not in kinds or f.get("times", 1) == 0:
                    continue
                on = f.get("on") or ("body" if f["kind"] in ("cut", "stall", "corrupt", "norange")
                                     else "resolve" if f.get("file") else "api")
                if on not in where:
                    continue
                if f.get("repo") not in (None, repo) or f.get("file") not in (None, file):
                    continue
                if f.get("method") not in (None, method):
                    continue
                if f.get("skip", 0) > 0:  # lets the first `skip` matching requests through
                    f["skip"] -= 1
                    continue
                if f.get("times", 1) > 0:
                    f["times"] = f.get("times", 1) - 1
                return dict(f)
        return None


def quote_etag(v):
    return '"%s"' % v


def parse_range(h, size):
    """(start, end inclusive) of a `bytes=A-B` / `bytes=A-` / `bytes=-N` header; None: the
    whole file; "bad": unsatisfiable (416)"""
    if not h or not h.startswith("bytes=") or "," in h:
        return None
    a, _, b = h[6:].strip().partition("-")
    try:
        if a == "":
            n = int(b)
            return (max(0, size - n), size - 1) if n > 0 and size > 0 else "bad"
        start = int(a)
        end = int(b) if b else size - 1
    except ValueError:
        return None
    if start >= size or end < start:
        return "bad"
    return start, min(end, size - 1)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "local-hub"
    state = None        # set on the subclass per listener
    port_name = "hub"

    def setup(self):
        super().setup()
        if self.state.rtt:  # the handshake of a new connection (--latency-ms)
            time.sleep(self.state.rtt)

    def send_response(self, code, message=None):
        if self.state.rtt and not self.path.startswith("/_local_hub/"):
            time.sleep(self.state.rtt)  # the request's way there and the answer's back
        super().send_response(code, message)

    def log_message(self, fmt, *args):  # noqa: A003 (http.server's name)
        if self.state.verbose:
            sys.stderr.write("local_hub %s: %s\n" % (self.port_name, fmt % args))

    # -- plumbing --
    def _entry(self):
        e = {"port": self.port_name, "method": self.command, "path": self.path,
             "range": self.headers.get("Range"), "auth": self.state.auth(self.headers.get("Authorization")),
             "status": None, "fault": None}
        with self.state.lock:
            self.state.log.append(e)
        return e

    def _status(self, code, headers=(), body=b"", entry=None):
        if entry is not None:
            entry["status"] = code
        self.send_response(code)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD" and body:
            self.wfile.write(body)

    def _json(self, obj, entry, headers=()):
        body = json.dumps(obj).encode()
        self._status(200, [("Content-Type", "application/json; charset=utf-8")] + list(headers), body, entry)

    def _error(self, code, err_code, msg, entry, extra=()):
        h = [("Content-Type", "application/json; charset=utf-8"), ("X-Error-Message", msg)]
        if err_code:
            h.append(("X-Error-Code", err_code))
        self._status(code, h + list(extra), json.dumps({"error": msg}).encode(), entry)

    def _read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def _hold(self):
        """never answer: wait for release/reset (or the process's end), then drop the socket"""
        self.state.release.wait()
        self.close_connection = True

    def _fault_status(self, where, repo, file, entry):
        """applies a status or hang fault; True when it answered (or hung)"""
        f = self.state.take_fault(("status", "hang"), where, self.command, repo, file)
        if not f:
            return False
        entry["fault"] = f["kind"]
        if f["kind"] == "hang":
            self._hold()
            return True
        code = int(f.get("code", 503))
        self._error(code, f.get("error_code"), f.get("message", "local_hub fault: %d" % code), entry)
        return True

    # -- the file bytes, with Range and the body faults --
    def _send_file(self, rf, where, repo, entry, head):
        rng = parse_range(self.headers.get("Range"), rf.size)
        if rng and self.command == "GET" and \
                self.state.take_fault(("norange",), where + ("body",), self.command, repo, rf.path):
            entry["fault"], rng = "norange", None  # the whole file, 200, as a server ignoring Range
        common = [("Accept-Ranges", "bytes"), ("Content-Type", "application/octet-stream")] + head
        if rng == "bad":
            self._status(416, common + [("Content-Range", "bytes */%d" % rf.size)], b"", entry)
            return
        start, end = rng if rng else (0, rf.size - 1)
        n = end - start + 1 if rf.size else 0
        entry["status"] = 206 if rng else 200
        self.send_response(entry["status"])
        for k, v in common:
            self.send_header(k, v)
        if rng:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end, rf.size))
        self.send_header("Content-Length", str(n))
        self.end_headers()
        if self.command == "HEAD":
            return
        f = self.state.take_fault(("cut", "stall", "corrupt"), where + ("body",), self.command, repo, rf.path)
        if f:
            entry["fault"] = f["kind"]
        limit = int(f.get("after", n // 2)) if f and f["kind"] in ("cut", "stall") else None
        bad_at = int(f.get("at", rf.size // 2)) if f and f["kind"] == "corrupt" else None
        sent, off = 0, start
        with open(rf.full, "rb") as fh:
            fh.seek(start)
            while sent < n:
                want = min(CHUNK, n - sent)
                if limit is not None:
                    want = min(want, limit - sent)
                    if want <= 0:
                        break
                b = fh.read(want)
                if not b:
                    break
                self.state.throttle(len(b))
                if bad_at is not None and off + len(b) > bad_at:
                    k = max(0, bad_at - off)
                    b = b[:k] + bytes(x ^ 0xFF for x in b[k:])
                self.wfile.write(b)
                sent += len(b)
                off += len(b)
        if limit is not None and sent < n:
            self.wfile.flush()
            if f["kind"] == "stall":
                self._hold()
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    # -- routes --
    def do_HEAD(self):  # noqa: N802
        self.do_GET()

    def do_POST(self):  # noqa: N802
        body = self._read_body()
        if self.path.startswith("/_local_hub/"):
            return self._control(body)
        self.do_GET(body)

    def do_GET(self, body=None):  # noqa: N802
        if self.path.startswith("/_local_hub/"):
            return self._control(b"")
        entry = self._entry()
        try:
            if self.port_name == "lfs":
                return self._lfs(entry)
            url = urllib.parse.urlsplit(self.path)
            path = url.path
            if path.startswith("/api/models/"):
                return self._api(path[len("/api/models/"):], urllib.parse.parse_qs(url.query), body, entry)
            if "/resolve/" in path:
                return self._resolve(path[1:], entry)
            self._error(404, None, "Sorry, we can't find the page you are looking for.", entry)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _repo_access(self, repo, entry, files):
        """None when the request may see this repo (and its files when `files`), else answers"""
        auth = entry["auth"]
        if repo is None or (repo.private and auth != "valid"):
            if auth == "valid" or (repo is None and auth == "invalid"):
                self._error(404, "RepoNotFound", "Repository not found", entry)
            else:
                self._error(401, "RepoNotFound", "Invalid username or password.", entry)
            return False
        if repo.gated and files and auth != "valid":
            if auth == "none":
                self._error(401, "GatedRepo", "Access to model %s is restricted. You must have access to it "
                            "and be authenticated to access it. Please log in." % repo.id, entry)
            else:
                self._error(403, "GatedRepo", "Access to model %s is restricted and you are not in the "
                            "authorized list. Visit the model's page to ask for access." % repo.id, entry)
            return False
        return True

    def _split_repo(self, rest, markers):
        """(repo id, marker, after) for `ORG/NAME/marker/...`, the marker the first found"""
        for m in markers:
            i = rest.find("/" + m + "/")
            if i > 0:
                return urllib.parse.unquote(rest[:i]), m, rest[i + len(m) + 2:]
            if rest.endswith("/" + m):
                return urllib.parse.unquote(rest[:-len(m) - 1]), m, ""
        return urllib.parse.unquote(rest.rstrip("/")), None, ""

    def _api(self, rest, q, body, entry):
        rid, kind, after = self._split_repo(rest, ("revision", "tree", "paths-info"))
        repo = self.state.repos.get(rid)
        if self._fault_status(("api",), rid, None, entry):
            return
        if not self._repo_access(repo, entry, False):
            return
        if kind in ("tree", "paths-info"):
            rev_q, _, sub = after.partition("/")
        else:
            rev_q, sub = after, ""
        rev_name = urllib.parse.unquote(rev_q) if rev_q else "main"
        if rev_name == "HEAD":
            rev_name = "main"
        rev = repo.revision(rev_name)
        if rev is None:
            return self._error(404, "RevisionNotFound", "Invalid rev id: %s" % rev_name, entry)
        if kind == "tree":
            return self._tree(rev, urllib.parse.unquote(sub).strip("/"), q, entry)
        if kind == "paths-info":
            return self._paths_info(rev, body or b"", entry)
        return self._json(self._model_info(repo, rev, q), entry)

    def _model_info(self, repo, rev, q):
        blobs = q.get("blobs", ["false"])[0].lower() in ("1", "true")
        sib = []
        for p, f in sorted(rev.files.items()):
            s = {"rfilename": p}
            if blobs:
                s.update(size=f.size, blobId=f.oid())
                if f.lfs:
                    s["lfs"] = {"size": f.size, "sha256": f.sha256, "pointerSize": f.pointer_size}
            sib.append(s)
        org = repo.id.split("/")[0] if "/" in repo.id else None
        info = {"_id": hashlib.sha1(repo.id.encode()).hexdigest()[:24], "id": repo.id, "modelId": repo.id,
                "author": org, "sha": rev.commit, "lastModified": COMMIT_DATE, "createdAt": COMMIT_DATE,
                "private": repo.private, "disabled": False, "gated": "manual" if repo.gated else False,
                "downloads": 0, "likes": 0, "tags": ["translation"], "pipeline_tag": "translation",
                "library_name": "transformers", "siblings": sib, "spaces": [],
                "usedStorage": sum(f.size for f in rev.files.values())}
        expand = q.get("expand", []) + q.get("expand[]", [])
        if expand:  # the hub answers the asked keys only (and _id, id)
            info = {k: v for k, v in info.items() if k in expand or k in ("_id", "id")}
        return info

    def _entry_of(self, rev, p, expand):
        f = rev.files.get(p)
        if f is None:
            e = {"type": "directory", "oid": hashlib.sha1(("tree " + p).encode()).hexdigest(), "size": 0, "path": p}
        else:
            e = {"type": "file", "oid": f.oid(), "size": f.size, "path": p}
            if f.lfs:
                e["lfs"] = {"oid": f.sha256, "size": f.size, "pointerSize": f.pointer_size}
        if expand:
            e["lastCommit"] = {"id": rev.commit, "title": "local hub commit", "date": COMMIT_DATE}
            if f is not None:
                e["securityFileStatus"] = {"status": "safe"}
        return e

    def _tree(self, rev, sub, q, entry):
        recursive = q.get("recursive", ["false"])[0].lower() in ("1", "true")
        expand = q.get("expand", ["false"])[0].lower() in ("1", "true")
        dirs = rev.dirs()
        if sub and sub not in dirs:
            return self._error(404, "EntryNotFound", "%s does not exist on %s" % (sub, rev.commit), entry)
        pre = sub + "/" if sub else ""
        out = []
        for p in sorted(dirs | set(rev.files)):
            if not p.startswith(pre):
                continue
            if not recursive and "/" in p[len(pre):]:
                continue
            out.append(self._entry_of(rev, p, expand))
        # the hub lists directories before files at each level; a flat sorted list serves both clients
        self._json(out, entry)

    def _paths_info(self, rev, body, entry):
        ctype = self.headers.get("Content-Type", "")
        if "json" in ctype:
            req = json.loads(body.decode() or "{}")
            paths, expand = req.get("paths", []), bool(req.get("expand"))
        else:  # huggingface_hub's get_paths_info posts a form
            form = urllib.parse.parse_qs(body.decode())
            paths = form.get("paths", [])
            expand = form.get("expand", ["false"])[0].lower() in ("1", "true")
        dirs = rev.dirs()
        out = [self._entry_of(rev, p.strip("/"), expand) for p in paths
               if p.strip("/") in rev.files or p.strip("/") in dirs]
        self._json(out, entry)

    def _resolve(self, rest, entry):
        rid, _, after = self._split_repo(rest, ("resolve",))
        rev_q, _, fpath = after.partition("/")
        fpath = urllib.parse.unquote(fpath)
        repo = self.state.repos.get(rid)
        if self._fault_status(("resolve",), rid, fpath, entry):
            return
        if not self._repo_access(repo, entry, True):
            return
        rev = repo.revision(urllib.parse.unquote(rev_q))
        if rev is None:
            return self._error(404, "RevisionNotFound", "Invalid rev id: %s" % urllib.parse.unquote(rev_q), entry)
        rf = rev.files.get(fpath)
        if rf is None:
            return self._error(404, "EntryNotFound", "%s does not exist on \"%s\"" % (fpath, rev_q), entry,
                               [("X-Repo-Commit", rev.commit)])
        head = [("X-Repo-Commit", rev.commit), ("ETag", quote_etag(rf.etag()))]
        if rf.lfs:
            loc = "http://127.0.0.1:%d/lfs/%s?%s" % (self.state.lfs_port, rf.sha256, urllib.parse.urlencode(
                {"repo": rid, "file": fpath}))
            head += [("X-Linked-Etag", quote_etag(rf.sha256)), ("X-Linked-Size", str(rf.size)), ("Location", loc)]
        f = self.state.take_fault(("headers", "cuthead"), ("resolve",), self.command, rid, fpath)
        if f and f["kind"] == "headers":
            entry["fault"] = "headers"
            for k, v in f.get("set", {}).items():
                head = [(a, b) for a, b in head if a.lower() != k.lower()] + ([(k, v)] if v is not None else [])
        elif f:  # cuthead: the answer cut inside its headers
            entry["fault"], entry["status"] = "cuthead", 302 if rf.lfs else 200
            lines = ["HTTP/1.1 %d %s" % (entry["status"], "Found" if rf.lfs else "OK")]
            lines += ["%s: %s" % hv for hv in head][:max(0, int(f.get("after", 2)))]
            self.wfile.write(("\r\n".join(lines) + "\r\n").encode("latin-1"))
            self.wfile.flush()
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if rf.lfs:
            self._status(302, head, b"", entry)
            return
        self._send_file(rf, ("resolve",), rid, entry, head)

    def _lfs(self, entry):
        url = urllib.parse.urlsplit(self.path)
        q = urllib.parse.parse_qs(url.query)
        rid, fpath = q.get("repo", [None])[0], q.get("file", [None])[0]
        if self._fault_status(("lfs",), rid, fpath, entry):
            return
        if self.headers.get("Authorization"):
            return self._status(400, [("Content-Type", "application/xml")],
                                b"<Error><Code>InvalidArgument</Code><Message>Only one auth mechanism allowed"
                                b"</Message></Error>", entry)
        sha = url.path[len("/lfs/"):] if url.path.startswith("/lfs/") else ""
        rf = self.state.by_sha.get(sha)
        if rf is None:
            return self._status(404, [("Content-Type", "application/xml")], b"<Error><Code>NoSuchKey</Code></Error>",
                                entry)
        self._send_file(rf, ("lfs",), rid, entry, [("ETag", quote_etag(rf.sha256))])

    # -- control --
    def _control(self, body):
        st, what = self.state, self.path[len("/_local_hub/"):].split("?")[0]
        out = {"ok": True}
        if what == "faults" and self.command == "POST":
            new = json.loads(body.decode())
            with st.lock:
                st.faults.extend(new if isinstance(new, list) else [new])
        elif what == "reset" and self.command == "POST":
            with st.lock:
                st.faults.clear()
                st.log.clear()
            st.release.set()
            st.release = threading.Event()
        elif what == "release" and self.command == "POST":
            st.release.set()
            st.release = threading.Event()
        elif what == "log":
            with st.lock:
                out = list(st.log)
        elif what == "repos":
            out = repos_summary(st.repos)
        else:
            return self._status(404, [], b"unknown control", None)
        body = json.dumps(out).encode()
        self._status(200, [("Content-Type", "application/json")], body, None)


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # a client that hangs up (a cut, a SIGINT, a timeout) is what the tests do on purpose
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


def repos_summary(repos):
    return {rid: {"gated": r.gated, "private": r.private,
                  "revisions": {name: {"commit": rev.commit,
                                       "files": {p: {"size": f.size, "git_oid": f.git_oid, "sha256": f.sha256,
                                                     "lfs": f.lfs, "etag": f.etag()}
                                                 for p, f in rev.files.items()}}
                                for name, rev in r.revs.items()}}
            for rid, r in repos.items()}


def serve(argv):
    ap = argparse.ArgumentParser(description="a local Hugging Face hub for tests")
    ap.add_argument("--repo", action="append", default=[], help="ORG/NAME[@REV]=DIR")
    ap.add_argument("--gated", action="append", default=[])
    ap.add_argument("--private", action="append", default=[])
    ap.add_argument("--token", action="append", default=[], help="a token that opens gated/private repos")
    ap.add_argument("--fault", action="append", default=[], help="a fault as JSON (see the docstring)")
    ap.add_argument("--lfs-min-size", type=int, default=10 * 1000 * 1000)
    ap.add_argument("--latency-ms", type=float, default=0, help="round trip added to each answer and connection")
    ap.add_argument("--bandwidth-mbs", type=float, default=0, help="bodies' bytes a second over all connections, MB")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args(argv)
    repos = {}
    for spec in a.repo:
        name, _, d = spec.partition("=")
        rid, _, rev = name.partition("@")
        repos.setdefault(rid, Repo(rid)).revs[rev or "main"] = Revision(rid, d, a.lfs_min_size)
    for rid in a.gated:
        repos[rid].gated = True
    for rid in a.private:
        repos[rid].private = True
    st = HubState(repos, a.token, a.verbose, a.latency_ms, a.bandwidth_mbs)
    st.faults = [json.loads(f) for f in a.fault]
    servers = []
    for name in ("hub", "lfs"):
        h = type("Handler_" + name, (Handler,), {"state": st, "port_name": name})
        srv = QuietServer(("127.0.0.1", 0), h)
        servers.append(srv)
    st.lfs_port = servers[1].server_address[1]
    for srv in servers[1:]:
        threading.Thread(target=srv.serve_forever, daemon=True).start()
    port = servers[0].server_address[1]
    print(json.dumps({"endpoint": "http://127.0.0.1:%d" % port, "hub_port": port, "lfs_port": st.lfs_port,
                      "repos": {rid: {n: r.commit for n, r in repo.revs.items()} for rid, repo in repos.items()}}),
          flush=True)
    try:
        servers[0].serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        st.release.set()


# ---- the tests' side ----

class LocalHub:
    """A local_hub.py process: LocalHub({"org/name": dir, "org/name@v1": dir2}, gated=[...],
    tokens=[...]); .endpoint, .commit(repo, rev), .files(repo, rev), .fault({...}), .log(),
    .reset(), .release(), .stop()."""

    def __init__(self, repos, gated=(), private=(), tokens=(), extra=()):
        cmd = [sys.executable, os.path.abspath(__file__)]
        for k, d in repos.items():
            cmd += ["--repo", "%s=%s" % (k, d)]
        for r in gated:
            cmd += ["--gated", r]
        for r in private:
            cmd += ["--private", r]
        for t in tokens:
            cmd += ["--token", t]
        self.proc = subprocess.Popen(cmd + list(extra), stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("local_hub.py did not start (exit %s)" % self.proc.wait())
        self.ready = json.loads(line)
        self.endpoint, self.lfs_port = self.ready["endpoint"], self.ready["lfs_port"]
        self.summary = self._call("GET", "repos")

    def _call(self, method, what, obj=None):
        data = json.dumps(obj).encode() if obj is not None else (b"" if method == "POST" else None)
        req = urllib.request.Request(self.endpoint + "/_local_hub/" + what, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read().decode())

    def commit(self, repo, rev="main"):
        return self.summary[repo]["revisions"][rev]["commit"]

    def files(self, repo, rev="main"):
        return self.summary[repo]["revisions"][rev]["files"]

    def fault(self, f):
        self._call("POST", "faults", f)

    def log(self):
        return self._call("GET", "log")

    def reset(self):
        self._call("POST", "reset")

    def release(self):
        self._call("POST", "release")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


if __name__ == "__main__":
    serve(sys.argv[1:])

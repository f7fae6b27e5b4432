#!/bin/sh
# setup.sh — installs the Debian packages xlate needs, then builds it.
#   sh tools/setup.sh          what building and translating need
#   sh tools/setup.sh --test   also what the tests need (PyTorch and sentencepiece as oracles)
set -e
cd "$(dirname "$0")/.."
pkgs="build-essential pkg-config libopenblas-dev libcjson-dev libcurl4-openssl-dev libssl-dev libmicrohttpd-dev libzip-dev libexpat1-dev"
if [ "${1:-}" = "--test" ]; then
  pkgs="$pkgs python3 python3-torch python3-numpy python3-sentencepiece sentencepiece parallel openssh-server haproxy valgrind clang groff-base groff man-db python3-html5lib python3-lxml cmark python3-markdown nodejs chromium chromium-driver gettext pandoc libreoffice-writer-nogui libreoffice-impress-nogui epubcheck python3-docx python3-odf python3-polib python3-srt python3-webvtt translate-toolkit"
  # Debian's npm, unless an npm is there already (NodeSource's nodejs carries its own and
  # conflicts with Debian's package)
  command -v npm >/dev/null 2>&1 || pkgs="$pkgs npm"
  # CLD2, the anchor the language detector is measured against (docs/LANGID.md:
  # tools/langid/cld2_eval.cc); no test or build links it
  pkgs="$pkgs libcld2-dev"
fi
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  echo "setup: installing$missing" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
if [ "${1:-}" = "--test" ]; then
  # the official Hugging Face JS client, exactly as pinned in tests/hub/package-lock.json
  # (tests/py/test_hub_js.py: the caches and the wire protocol checked with a client not ours)
  npm ci --prefix tests/hub --no-audit --no-fund --loglevel=error
  # the CommonMark spec's text (tests/py/test_md_spec.py: all its examples through xlate)
  npm ci --prefix tests/markdown --no-audit --no-fund --loglevel=error
  # the libretranslate npm client (tests/py/test_serve.py: xlate serve through a client not ours)
  npm ci --prefix tests/serve --no-audit --no-fund --loglevel=error
fi
make -s

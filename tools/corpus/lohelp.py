#!/usr/bin/env python3
"""lohelp.py — English-German pairs from LibreOffice's help pages, one source of issue 42's
corpus (tools/corpus/build.py imports it).

libreoffice-help-en-us and libreoffice-help-de ship the same pages as HTML under
usr/share/libreoffice/help/{en-US,de}/text/**.html. Every translatable paragraph or heading
keeps the id it has in the .xhp source (par_id3154254, hd_id3152887, N10012, bm_id..., bas_id...),
which is the key LibreOffice's translation tooling (xhp -> .po) uses for that string, so the same
id on the same page path is the same text in both languages. Pages only in one language and ids
only on one side are skipped.

    pairs(debs_dir) -> iterator of dict(src, tgt, unit, origin)
        unit = page path relative to the language root ("text/swriter/guide/autocorr_except.html")

Run as a script for counts and samples:  /usr/bin/python3 tools/corpus/lohelp.py /work/corpus/debs
"""

import functools
import glob
import os
import re
import subprocess
import sys
import tarfile

from lxml import html

PACKAGES = ['libreoffice-help-en-us', 'libreoffice-help-de']

# Elements that hold one translatable string: paragraphs and headings. Ids on <span> are
# switchinline variants inside a paragraph (already part of its text); ids without a digit
# (bm_module, bm_system, bm_HID, DEBUG, Contents, ...) are the page chrome help2.js fills in.
PARA_TAGS = {'p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6'}
HELP_ROOT = 'usr/share/libreoffice/help/'


def clean(text):
    """Whitespace (Unicode too: str.split) collapsed to single spaces, ends stripped."""
    return ' '.join(text.split())


def has_letter(text):
    return any(ch.isalpha() for ch in text)


def ratio_ok(a, b):
    """Both sides non-empty; when the longer is over 20 chars, lengths within a factor of 3."""
    la, lb = len(a), len(b)
    if la < 1 or lb < 1:
        return False
    if max(la, lb) <= 20:
        return True
    return max(la, lb) <= 3 * min(la, lb)


def page_paragraphs(data):
    """HTML bytes -> {id: [text, ...]} in document order (an id can repeat when a page
    embeds a section twice); text is text_content() with whitespace collapsed, inline
    switches reduced to their default variant."""
    doc = html.document_fromstring(data, parser=html.HTMLParser(encoding='utf-8'))
    # An inline switch holds one variant per system or module (<span class="MAC">Command
    # </span><span id="default...">Ctrl</span>), all hidden until help2.js shows one; keep
    # the default where there is one, so the text reads "press Ctrl+Z", not "Command Ctrl+Z".
    for sw in list(doc.iter('span')):
        if sw.get('class') != 'switchinline':
            continue
        kids = [k for k in sw if isinstance(k.tag, str)]
        if any((k.get('id') or '').startswith('default') for k in kids):
            for k in kids:
                if not (k.get('id') or '').startswith('default'):
                    k.drop_tree()                   # drop_tree keeps the element's tail text
    out = {}
    for el in doc.iter(*PARA_TAGS):
        pid = el.get('id')
        if not pid or not re.search(r'\d', pid):
            continue
        out.setdefault(pid, []).append(clean(el.text_content()))
    return out


def deb_field(deb, field):
    return subprocess.run(['dpkg-deb', '-f', deb, field], check=True, capture_output=True,
                          text=True).stdout.strip()


def find_deb(debs_dir, package):
    """The newest debs_dir/<package>_*.deb (by dpkg's version order); FileNotFoundError if none."""
    found = glob.glob(os.path.join(debs_dir, package + '_*.deb'))
    if not found:
        raise FileNotFoundError(f'{debs_dir}: no {package}_*.deb (apt-get download {package})')

    def cmp(a, b):
        va, vb = deb_field(a, 'Version'), deb_field(b, 'Version')
        if va == vb:
            return 0
        lt = subprocess.run(['dpkg', '--compare-versions', va, 'lt', vb]).returncode == 0
        return -1 if lt else 1
    return max(found, key=functools.cmp_to_key(cmp))


def help_pages(deb, lang):
    """Yields (path relative to help/<lang>/, html bytes) for help/<lang>/text/**.html,
    streaming the data tarball (dpkg-deb --fsys-tarfile) without unpacking it to disk."""
    prefix = HELP_ROOT + lang + '/'
    proc = subprocess.Popen(['dpkg-deb', '--fsys-tarfile', deb], stdout=subprocess.PIPE)
    try:
        with tarfile.open(fileobj=proc.stdout, mode='r|*') as tf:
            for m in tf:
                name = m.name[2:] if m.name.startswith('./') else m.name
                if not (m.isfile() and name.startswith(prefix + 'text/')
                        and name.endswith('.html')):
                    continue
                yield name[len(prefix):], tf.extractfile(m).read()
    finally:
        proc.stdout.close()
        if proc.wait() != 0:
            raise RuntimeError(f'{deb}: dpkg-deb --fsys-tarfile exited {proc.returncode}')


def pairs_counted(debs_dir, stats):
    """pairs() with counts added into stats (a dict): pages_en, pages_de, pages_both,
    ids_en_only, ids_de_only, ids_count_mismatch, dropped_empty (empty or no letter),
    dropped_ratio, pairs."""
    en_deb = find_deb(debs_dir, 'libreoffice-help-en-us')
    de_deb = find_deb(debs_dir, 'libreoffice-help-de')
    origin = f"libreoffice-help-de {deb_field(de_deb, 'Version')}"
    for k in ('pages_en', 'pages_de', 'pages_both', 'ids_en_only', 'ids_de_only',
              'ids_count_mismatch', 'dropped_empty', 'dropped_ratio', 'pairs'):
        stats.setdefault(k, 0)
    de = {}
    for path, data in help_pages(de_deb, 'de'):
        de[path] = page_paragraphs(data)
    stats['pages_de'] += len(de)
    for path, data in help_pages(en_deb, 'en-US'):
        stats['pages_en'] += 1
        tgt_page = de.get(path)
        if tgt_page is None:
            continue
        stats['pages_both'] += 1
        src_page = page_paragraphs(data)
        stats['ids_de_only'] += len(tgt_page.keys() - src_page.keys())
        for pid, srcs in src_page.items():
            tgts = tgt_page.get(pid)
            if tgts is None:
                stats['ids_en_only'] += 1
                continue
            if len(tgts) != len(srcs):  # repeated id, repeated differently: no safe pairing
                stats['ids_count_mismatch'] += 1
                continue
            for src, tgt in zip(srcs, tgts):
                if not (has_letter(src) and has_letter(tgt)):
                    stats['dropped_empty'] += 1
                elif not ratio_ok(src, tgt):
                    stats['dropped_ratio'] += 1
                else:
                    stats['pairs'] += 1
                    yield dict(src=src, tgt=tgt, unit=path, origin=origin)


def pairs(debs_dir):
    return pairs_counted(debs_dir, {})


def source_main(argv, pairs_counted):
    """The command line of a source module (this one, fluent.py): DEBS_DIR in, its counts and
    five pairs spread over its output printed."""
    if len(argv) != 2:
        print(f'usage: {argv[0]} DEBS_DIR', file=sys.stderr)
        return 2
    stats = {}
    got = list(pairs_counted(argv[1], stats))
    for k, v in stats.items():
        print(f'{k}: {v}')
    print(f"distinct (src, tgt): {len({(p['src'], p['tgt']) for p in got})}")
    step = max(1, len(got) // 5)
    for p in got[::step][:5]:
        print(f"[{p['unit']}] {p['origin']}\n  en: {p['src']}\n  de: {p['tgt']}")
    return 0


def main(argv):
    return source_main(argv, pairs_counted)


if __name__ == '__main__':
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""tools/corpus/lohelp.py (LibreOffice help pages -> English-German pairs by paragraph id) on two
tiny .deb files built here with dpkg-deb --build, in a temporary directory. The pages are written
below by hand in the shape of the real help (an <h1 id="hd_id...">, <p id="par_id...">, page
chrome with ids, switchinline spans); the expected pairs are written out by hand from them.
Checked: ids paired within the same page path; nested markup flattened, whitespace collapsed;
an inline switch (MAC / default variants) reduced to its default;
an id on one side only skipped; a page in one language only skipped; page chrome ids ignored;
a no-letter pair and a pair outside the 1/3..3 length ratio dropped and counted; unit and origin;
the newest of two versions of a package read.
Run from the repository root: /usr/bin/python3 tests/py/test_corpus_lohelp.py
"""

import os
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(TOP, 'tools', 'corpus'))

from checks import done, expect_eq, ok, not_ok  # noqa: E402

try:
    import lohelp
except Exception as e:  # noqa: BLE001 - report any import failure as a check
    not_ok('import tools/corpus/lohelp.py', repr(e))
    sys.exit(1)
ok('import tools/corpus/lohelp.py')

CHROME = ('<header id="TopLeftHeader"><p dir="auto">{title}</p></header>'
          '<div id="DEBUG"><p id="bm_module">CALC</p><p id="bm_HID">HID</p></div>')

EN_PAGE = '''<!DOCTYPE html>
<html lang="en-US"><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8">
<title>Adding Exceptions</title></head><body>''' + CHROME.format(title='LibreOffice Help') + '''
<div id="DisplayArea">
<h1 id="hd_id3152887" dir="auto">
<a name="autocorr_except"></a>Adding   <b>Exceptions</b>
 to the List
</h1>
<p id="par_id3155576" class="listitem">Choose <span class="menuitem">Tools - <em>AutoCorrect</em></span>, then click <span class="emph">New</span>.</p>
<p id="par_id1000001">Only in English.</p>
<p id="par_id1000003">2024</p>
<p id="par_id1000004">Click here to open the dialog box.</p>
<p id="par_id1000005">Press\u00a0Enter.</p>
<p id="par_id1000006">Press <span id="swlnsys1" class="switchinline"><span hidden="true" id="MACtext1" class="MAC">Command
</span><span hidden="true" id="defaulttext1">Ctrl</span></span>+Z to undo.</p>
<p>No id, not paired.</p>
</div></body></html>
'''

DE_PAGE = '''<!DOCTYPE html>
<html lang="de"><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8">
<title>Ausnahmen</title></head><body>''' + CHROME.format(title='Hilfe für LibreOffice') + '''
<div id="DisplayArea">
<h1 id="hd_id3152887" dir="auto">
<a name="autocorr_except"></a>Hinzufügen von <b>Ausnahmen</b> zur Liste</h1>
<p id="par_id3155576" class="listitem">Wählen Sie <span class="menuitem">Extras - <em>AutoKorrektur</em></span> und klicken Sie auf <span class="emph">Neu</span>.</p>
<p id="par_id1000002">Nur auf Deutsch.</p>
<p id="par_id1000003">2024</p>
<p id="par_id1000004">Klicken Sie hier, um den Dialog zu öffnen, und lesen Sie dann die ausführliche Beschreibung jeder einzelnen Option, die der Dialog Ihnen anbietet, bevor Sie fortfahren.</p>
<p id="par_id1000005">Drücken Sie die Eingabetaste.</p>
<p id="par_id1000006">Drücken Sie <span id="swlnsys1" class="switchinline"><span hidden="true" id="MACtext1" class="MAC">Befehl
</span><span hidden="true" id="defaulttext1">Strg</span></span>+Z zum Rückgängigmachen.</p>
<p>Ohne Kennung.</p>
</div></body></html>
'''

ONLY_EN = '<html><body><p id="par_id9">Page only in English.</p></body></html>'


def build_deb(root, debs, package, lang, pages, version='4:7.4.7-1+deb12u14'):
    tree = os.path.join(root, package + version)
    os.makedirs(os.path.join(tree, 'DEBIAN'))
    with open(os.path.join(tree, 'DEBIAN', 'control'), 'w') as f:
        f.write(f'Package: {package}\nVersion: {version}\nArchitecture: all\n'
                'Maintainer: Test <test@example.org>\nDescription: test help pages\n')
    for rel, text in pages.items():
        path = os.path.join(tree, 'usr/share/libreoffice/help', lang, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w', encoding='utf-8') as f:
            f.write(text)
    out = os.path.join(debs, f"{package}_{version.replace(':', '%3a')}_all.deb")
    subprocess.run(['dpkg-deb', '--root-owner-group', '--build', tree, out], check=True,
                   stdout=subprocess.DEVNULL)


with tempfile.TemporaryDirectory() as tmp:
    debs = os.path.join(tmp, 'debs')
    os.makedirs(debs)
    build_deb(tmp, debs, 'libreoffice-help-en-us', 'en-US',
              {'text/swriter/guide/autocorr_except.html': EN_PAGE,
               'text/swriter/guide/only_en.html': ONLY_EN,
               'index.html': '<html><body><p id="par_id1">Not under text/</p></body></html>'})
    build_deb(tmp, debs, 'libreoffice-help-de', 'de',
              {'text/swriter/guide/autocorr_except.html': DE_PAGE,
               'index.html': '<html><body><p id="par_id1">Nicht unter text/</p></body></html>'})
    # An older German package beside it (its name sorts after the newer one's as a string:
    # deb12u9 > deb12u14); the newer is read, by dpkg's version order.
    build_deb(tmp, debs, 'libreoffice-help-de', 'de',
              {'text/swriter/guide/autocorr_except.html': DE_PAGE.replace('Liste', 'ALT')},
              version='4:7.4.7-1+deb12u9')
    ok('two .deb files built with dpkg-deb --build')

    stats = {}
    got = list(lohelp.pairs_counted(debs, stats))
    unit = 'text/swriter/guide/autocorr_except.html'
    origin = 'libreoffice-help-de 4:7.4.7-1+deb12u14'
    want = [
        dict(src='Adding Exceptions to the List', tgt='Hinzufügen von Ausnahmen zur Liste',
             unit=unit, origin=origin),
        dict(src='Choose Tools - AutoCorrect, then click New.',
             tgt='Wählen Sie Extras - AutoKorrektur und klicken Sie auf Neu.',
             unit=unit, origin=origin),
        # 'Press\u00a0Enter.' : the no-break space collapses like any other whitespace.
        dict(src='Press Enter.', tgt='Drücken Sie die Eingabetaste.', unit=unit, origin=origin),
        # The inline switch keeps its default variant only (not "Command Ctrl").
        dict(src='Press Ctrl+Z to undo.', tgt='Drücken Sie Strg+Z zum Rückgängigmachen.',
             unit=unit, origin=origin),
    ]
    expect_eq('pairs: ids matched, markup flattened, whitespace collapsed', got, want)
    expect_eq('pages: en 2, de 1, both 1', (stats['pages_en'], stats['pages_de'],
                                           stats['pages_both']), (2, 1, 1))
    expect_eq('one id only in English, one only in German',
              (stats['ids_en_only'], stats['ids_de_only']), (1, 1))
    # '2024' has no letter on either side.
    expect_eq('no-letter pair dropped', stats['dropped_empty'], 1)
    # 34 chars against 168: over 3 times longer, the longer side over 20 chars.
    expect_eq('length-ratio pair dropped', stats['dropped_ratio'], 1)
    expect_eq('pairs counted', stats['pairs'], 4)
    expect_eq('pairs() yields what pairs_counted() does', list(lohelp.pairs(debs)), want)

expect_eq('ratio: 21 vs 7 chars kept (exactly 3)', lohelp.ratio_ok('a' * 21, 'b' * 7), True)
expect_eq('ratio: 22 vs 7 chars dropped', lohelp.ratio_ok('a' * 22, 'b' * 7), False)
expect_eq('ratio: 20 vs 1 chars kept (longer side not over 20)',
          lohelp.ratio_ok('a' * 20, 'b'), True)
expect_eq('ratio: empty side dropped', lohelp.ratio_ok('', 'b'), False)

sys.exit(done())

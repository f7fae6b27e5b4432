#!/usr/bin/env python3
"""tools/corpus/fluent.py (Firefox ESR / Thunderbird Fluent strings -> English-German pairs) on
four tiny .deb files built here with dpkg-deb --build, in a temporary directory: omni.ja and
langpack .xpi zip archives written with zipfile, holding .ftl text written below by hand, laid
out as the real packages are (localization/en-US/ in omni.ja, browser/omni.ja, and
localization/de/ + browser/localization/de/ in the .xpi; Thunderbird's usr/lib omni.ja a link
to usr/share). The expected pairs are written out by hand from the Fluent syntax spec
(projectfluent/fluent spec/fluent.ebnf): multiline values joined, attributes, comments of the
three kinds, terms resolved (a German term's case variant chosen by a call argument), string
literals and a \\u escape, a message reference, Junk skipped to the next entry, CRLF, markup
and entities; dropped and counted: a select, a function, an unknown term, a variable mismatch,
a no-letter value, keys (accesskey attribute, -key message); units on one side only.
Run from the repository root: /usr/bin/python3 tests/py/test_corpus_fluent.py
"""

import io
import os
import subprocess
import sys
import tempfile
import zipfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(TOP, 'tools', 'corpus'))

from checks import done, expect_eq, ok, not_ok  # noqa: E402

try:
    import fluent
except Exception as e:  # noqa: BLE001 - report any import failure as a check
    not_ok('import tools/corpus/fluent.py', repr(e))
    sys.exit(1)
ok('import tools/corpus/fluent.py')

FF_VERSION = '153.8.0esr-1~deb12u1'
TB_VERSION = '1:153.8.0esr-1~deb12u1'

EN_BRAND = '-brand-short-name = Firefox\ntrademark = { -brand-short-name } is a trademark.\n'
DE_BRAND = '''-brand-short-name = { $case ->
   *[nominative] Feuerfuchs
    [genitive] Feuerfuchses
}
trademark = { -brand-short-name } ist eine Marke.
'''

EN_APP = '''### Resource comment

## Group comment

# Message comment
-brand-thing = Widget
    .gender = neuter
about-title = About { -brand-short-name }
multi-line =
    First line of a long
    message that continues
       with deeper indent.

    And a second paragraph.
dialog-button =
    .label = Save { -brand-short-name }
    .accesskey = S
    .tooltiptext = Saves the <strong>current</strong> page &amp; its images
welcome = Welcome, { $user }! You have new mail.
tabs-count = { $count ->
    [one] One tab
   *[other] { $count } tabs
}
menu-copy-key = C
literal = Press { "{" } and { "}" }
arrow = Next { "\\u2192" }
ref-message = { about-title } now
update-of = Update of { -brand-short-name }
numbers = 1234
broken = this has a } stray brace
  and junk goes on
after-junk = Still parsed
only-en = English only
var-mismatch = Hello { $name }
func = Downloaded { NUMBER($n) } files
missing-term = Use { -no-such-term }
'''

DE_APP = '''# Kommentar
about-title = Über { -brand-short-name }
multi-line =
    Erste Zeile einer langen
    Nachricht, die weitergeht.

    Und ein zweiter Absatz.
dialog-button =
    .label = { -brand-short-name } speichern
    .accesskey = p
    .tooltiptext = Speichert die <strong>aktuelle</strong> Seite &amp; ihre Bilder
welcome = Willkommen, { $user }! Sie haben neue Nachrichten.
tabs-count = { $count ->
    [one] Ein Tab
   *[other] { $count } Tabs
}
menu-copy-key = K
literal = Drücken Sie { "{" } und { "}" }
arrow = Weiter { "\\u2192" }
ref-message = { about-title } jetzt
update-of = Update des { -brand-short-name(case: "genitive") }
numbers = 1.234
broken = Dies hat eine } Klammer
after-junk = Weiterhin gelesen
only-de = Nur Deutsch
var-mismatch = Hallo { $user }
func = { NUMBER($n) } Dateien heruntergeladen
missing-term = Nutze { -no-such-term }
'''

EN_TEST = 'crlf-msg = Line one\r\n    line two\r\n'
DE_TEST = 'crlf-msg = Zeile eins\r\n    Zeile zwei\r\n'

TB_EN_BRAND = '-brand-short-name = Thunderbird\n'
TB_EN_MAIL = 'about = About { -brand-short-name }\nget-mail = Get Messages\n'
TB_DE_MAIL = 'about = Über { -brand-short-name }\nget-mail = Nachrichten abrufen\n'


def zip_bytes(files):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w', zipfile.ZIP_DEFLATED) as z:
        for name, text in files.items():
            z.writestr(name, text.encode('utf-8'))
    return buf.getvalue()


def build_deb(root, debs, package, version, files, links=None):
    """files: {path in the package: bytes}; links: {path: symlink target}."""
    tree = os.path.join(root, package)
    os.makedirs(os.path.join(tree, 'DEBIAN'))
    with open(os.path.join(tree, 'DEBIAN', 'control'), 'w') as f:
        f.write(f'Package: {package}\nVersion: {version}\nArchitecture: all\n'
                'Maintainer: Test <test@example.org>\nDescription: test Fluent files\n')
    for rel, data in files.items():
        path = os.path.join(tree, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'wb') as f:
            f.write(data)
    for rel, target in (links or {}).items():
        path = os.path.join(tree, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.symlink(target, path)
    out = os.path.join(debs, f"{package}_{version.replace(':', '%3a')}_all.deb")
    subprocess.run(['dpkg-deb', '--root-owner-group', '--build', tree, out], check=True,
                   stdout=subprocess.DEVNULL)


with tempfile.TemporaryDirectory() as tmp:
    debs = os.path.join(tmp, 'debs')
    os.makedirs(debs)
    build_deb(tmp, debs, 'firefox-esr', FF_VERSION, {
        'usr/lib/firefox-esr/omni.ja': zip_bytes({
            'localization/en-US/toolkit/test.ftl': EN_TEST,
            'chrome/en-US/locale/x.properties': 'x=y\n'}),
        'usr/lib/firefox-esr/browser/omni.ja': zip_bytes({
            'localization/en-US/branding/brand.ftl': EN_BRAND,
            'localization/en-US/browser/app.ftl': EN_APP})})
    build_deb(tmp, debs, 'firefox-esr-l10n-de', FF_VERSION, {
        'usr/lib/firefox-esr/browser/extensions/langpack-de@firefox-esr.mozilla.org.xpi':
            zip_bytes({'localization/de/toolkit/test.ftl': DE_TEST,
                       'browser/localization/de/branding/brand.ftl': DE_BRAND,
                       'browser/localization/de/browser/app.ftl': DE_APP})})
    build_deb(tmp, debs, 'thunderbird', TB_VERSION, {
        'usr/share/thunderbird/omni.ja': zip_bytes({
            'localization/en-US/branding/brand.ftl': TB_EN_BRAND,
            'localization/en-US/messenger/mail.ftl': TB_EN_MAIL})},
        links={'usr/lib/thunderbird/omni.ja': '../../share/thunderbird/omni.ja'})
    build_deb(tmp, debs, 'thunderbird-l10n-de', TB_VERSION, {
        'usr/lib/thunderbird/extensions/langpack-de@thunderbird.mozilla.org.xpi':
            zip_bytes({'localization/de/branding/brand.ftl': TB_EN_BRAND,
                       'localization/de/messenger/mail.ftl': TB_DE_MAIL})})
    ok('four .deb files built with dpkg-deb --build')

    stats = {}
    got = list(fluent.pairs_counted(debs, stats))
    ff = f'firefox-esr-l10n-de {FF_VERSION}'
    tb = f'thunderbird-l10n-de {TB_VERSION}'
    app = 'browser/app.ftl'
    want = [
        dict(src='Firefox is a trademark.', tgt='Feuerfuchs ist eine Marke.',
             unit='branding/brand.ftl', origin=ff),
        dict(src='About Firefox', tgt='Über Feuerfuchs', unit=app, origin=ff),
        dict(src='Still parsed', tgt='Weiterhin gelesen', unit=app, origin=ff),
        dict(src='Next \u2192', tgt='Weiter \u2192', unit=app, origin=ff),
        dict(src='Save Firefox', tgt='Feuerfuchs speichern', unit=app, origin=ff),
        dict(src='Saves the current page & its images',
             tgt='Speichert die aktuelle Seite & ihre Bilder', unit=app, origin=ff),
        dict(src='Press { and }', tgt='Drücken Sie { und }', unit=app, origin=ff),
        dict(src='First line of a long message that continues with deeper indent. '
                 'And a second paragraph.',
             tgt='Erste Zeile einer langen Nachricht, die weitergeht. Und ein zweiter Absatz.',
             unit=app, origin=ff),
        dict(src='About Firefox now', tgt='Über Feuerfuchs jetzt', unit=app, origin=ff),
        dict(src='Update of Firefox', tgt='Update des Feuerfuchses', unit=app, origin=ff),
        dict(src='Welcome, { $user }! You have new mail.',
             tgt='Willkommen, { $user }! Sie haben neue Nachrichten.', unit=app, origin=ff),
        dict(src='Line one line two', tgt='Zeile eins Zeile zwei', unit='toolkit/test.ftl',
             origin=ff),
        dict(src='About Thunderbird', tgt='Über Thunderbird', unit='messenger/mail.ftl',
             origin=tb),
        dict(src='Get Messages', tgt='Nachrichten abrufen', unit='messenger/mail.ftl',
             origin=tb),
    ]
    if got == want:
        ok('pairs: the 14 hand-written pairs, in order')
    else:
        not_ok('pairs: the 14 hand-written pairs, in order',
               f'missing {[w for w in want if w not in got]} extra '
               f'{[g for g in got if g not in want]}')
    expect_eq('counts', stats, {
        'files_en': 5, 'files_de': 5, 'files_both': 5,
        'skipped_keys': 2,          # dialog-button.accesskey, menu-copy-key
        'units_en_only': 1, 'units_de_only': 1,     # only-en, only-de
        'dropped_select': 1,        # tabs-count
        'dropped_function': 1,      # func
        'dropped_unresolved': 1,    # missing-term
        'dropped_variables': 1,     # var-mismatch: $name against $user
        'dropped_no_letter': 1,     # numbers
        'pairs': 14})
    expect_eq('pairs() yields what pairs_counted() does', list(fluent.pairs(debs)), want)

# The parser alone: an entry broken by a stray "}" is Junk up to the next line that starts
# with a letter; the indented line after it belongs to the Junk; a message of attributes only.
messages, terms = fluent.parse('a = x } y\n  more junk\nb = fine\nc =\n    .title = T\n')
expect_eq('Junk skipped, b and c parsed', sorted(messages), ['b', 'c'])
expect_eq('attribute-only message: no value, one attribute',
          (messages['c'][0], messages['c'][1]), (None, {'title': ['T']}))

sys.exit(done())

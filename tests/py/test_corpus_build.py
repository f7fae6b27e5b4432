#!/usr/bin/env python3
"""tools/corpus/build.py (issue 42: an English-German corpus from Debian's translations) and its
readers tools/corpus/gettext_mo.py (GNU .mo catalogs) and tools/corpus/ding.py (the Ding
dictionary), each against an oracle of its own:
  - gettext_mo.read_mo on catalogs compiled here by GNU msgfmt (little- and big-endian, UTF-8 and
    ISO-8859-1) from a .po written below, against the triples written out by hand and against
    Python's gettext.GNUTranslations (gettext / pgettext / ngettext); truncated files and a bad
    magic raise MoError naming the file;
  - ding.line_pairs on lines in the real format of trans-de-en (usr/share/trans/de-en), the
    pairs written out by hand;
  - build.strip_accelerators / build.clean_pair on hand-made pairs, the output or the reason
    counted written out by hand;
  - build.split_of against the rule (md5 of the unit name as a number, mod 100; below test_pct
    test, below test_pct + dev_pct dev) with the md5 values of RFC 1321's test suite (A.5) and
    coreutils md5sum, and in a second interpreter with another hash seed;
  - build.read_package_uncached on a .deb built here with dpkg-deb --build (a German catalog,
    a French one that is not read, a broken one, a DEP-5 copyright file).
Needs msgfmt (Debian package gettext) and dpkg-deb; a check is skipped with a note without them.
Run from the repository root: /usr/bin/python3 tests/py/test_corpus_build.py
"""

import collections
import gettext
import io
import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(TOP, 'tools', 'corpus'))

from checks import check, done, expect_eq, ok, not_ok  # noqa: E402

try:
    import build
    import ding
    import gettext_mo
except Exception as e:  # noqa: BLE001 - report any import failure as a check
    not_ok('import tools/corpus/build.py, ding.py, gettext_mo.py', repr(e))
    sys.exit(1)
ok('import tools/corpus/build.py, ding.py, gettext_mo.py')

HAVE_MSGFMT = shutil.which('msgfmt') is not None
HAVE_DPKG = shutil.which('dpkg-deb') is not None


def by_key(triples):
    return sorted(triples, key=lambda t: (t[0] or '', t[1], t[2]))


# ---- 1. gettext_mo.read_mo against msgfmt and GNUTranslations --------------------------------

PO = r'''# A catalog written by hand for this test.
msgid ""
msgstr ""
"Project-Id-Version: x 1.0\n"
"Language: de\n"
"MIME-Version: 1.0\n"
"Content-Type: text/plain; charset=UTF-8\n"
"Content-Transfer-Encoding: 8bit\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"

msgid "Open file"
msgstr "Datei öffnen"

msgctxt "menu"
msgid "Open"
msgstr "Öffnen"

msgid "Open"
msgstr "Offen"

msgid "%d file"
msgid_plural "%d files"
msgstr[0] "%d Datei"
msgstr[1] "%d Dateien"

msgctxt "trash"
msgid "%d item"
msgid_plural "%d items"
msgstr[0] "%d Element"
msgstr[1] "%d Elemente"

msgid "Café “quoted” – size"
msgstr "Café „zitiert“ – Größe €"

msgid "Not translated yet"
msgstr ""

#, fuzzy
msgid "A guess"
msgstr "Eine Vermutung"

msgid ""
"Usage: x [OPTION]\n"
"  -h  show this help\n"
msgstr ""
"Aufruf: x [OPTION]\n"
"  -h  diese Hilfe anzeigen\n"
'''

# What the catalog holds, by hand: the header, the empty translation and the fuzzy entry are not
# in it; a plural entry gives its singular with form 0 and its plural with form 1.
PO_WANT = [
    (None, 'Open file', 'Datei öffnen'),
    ('menu', 'Open', 'Öffnen'),
    (None, 'Open', 'Offen'),
    (None, '%d file', '%d Datei'),
    (None, '%d files', '%d Dateien'),
    ('trash', '%d item', '%d Element'),
    ('trash', '%d items', '%d Elemente'),
    (None, 'Café “quoted” – size', 'Café „zitiert“ – Größe €'),
    (None, 'Usage: x [OPTION]\n  -h  show this help\n',
     'Aufruf: x [OPTION]\n  -h  diese Hilfe anzeigen\n'),
]

# ISO-8859-1: msgfmt keeps the catalog's bytes in its charset.
PO_LATIN1 = '''msgid ""
msgstr ""
"Content-Type: text/plain; charset=ISO-8859-1\\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\\n"

msgid "Size"
msgstr "Größe"

msgid "Crème brûlée"
msgstr "Crème brûlée (Süßspeise)"
'''
LATIN1_WANT = [(None, 'Size', 'Größe'), (None, 'Crème brûlée', 'Crème brûlée (Süßspeise)')]


def msgfmt(tmp, po_text, stem, *flags, encoding='utf-8'):
    po = os.path.join(tmp, stem + '.po')
    mo = os.path.join(tmp, stem + '.mo')
    with open(po, 'w', encoding=encoding) as f:
        f.write(po_text)
    subprocess.run(['msgfmt', *flags, '-o', mo, po], check=True)
    with open(mo, 'rb') as f:
        return f.read()


PLURALS = {(None, '%d file'): '%d files', ('trash', '%d item'): '%d items'}


def agrees_with_gnu(data, triples):
    """None when Python's GNUTranslations gives every triple's msgstr (a plural entry's two
    forms through ngettext / npgettext with n = 1 and n = 2), else the first difference."""
    t = gettext.GNUTranslations(io.BytesIO(data))
    by = {(c, s): v for c, s, v in triples}
    for (c, s), v in by.items():
        if (c, s) in PLURALS:
            p = PLURALS[(c, s)]
            got = tuple(t.npgettext(c, s, p, n) if c else t.ngettext(s, p, n) for n in (1, 2))
            if got != (v, by.get((c, p))):
                return f'{c!r} {s!r}: GNUTranslations {got}, read_mo ({v!r}, {by.get((c, p))!r})'
        elif (c, s) not in {(c2, p) for (c2, _), p in PLURALS.items()}:
            got = t.pgettext(c, s) if c else t.gettext(s)
            if got != v:
                return f'{c!r} {s!r}: GNUTranslations {got!r}, read_mo {v!r}'
    return None


def mo_checks(tmp):
    little = msgfmt(tmp, PO, 'x')
    big = msgfmt(tmp, PO, 'x_big', '--endianness=big')
    expect_eq('msgfmt --endianness=big writes the magic big-endian', big[:4].hex(), '950412de')
    for what, data in (('little-endian', little), ('big-endian', big)):
        got = gettext_mo.read_mo(data, 'x.mo')
        expect_eq(f'read_mo ({what}): the hand-expected triples, no header, empty or fuzzy entry',
                  by_key(got), by_key(PO_WANT))
        expect_eq(f'read_mo ({what}): one triple per entry and plural form', len(got),
                  len(PO_WANT))
        check(f'read_mo ({what}) agrees with gettext.GNUTranslations',
              lambda data=data, got=got: agrees_with_gnu(data, got))
    fuzzy = gettext_mo.read_mo(msgfmt(tmp, PO, 'x_fuzzy', '--use-fuzzy'), 'x_fuzzy.mo')
    expect_eq('msgfmt --use-fuzzy: the fuzzy entry is read too', by_key(fuzzy),
              by_key(PO_WANT + [(None, 'A guess', 'Eine Vermutung')]))

    latin = msgfmt(tmp, PO_LATIN1, 'latin1', encoding='iso-8859-1')
    expect_eq('msgfmt kept the ISO-8859-1 bytes (the oracle holds)', b'Gr\xf6\xdfe' in latin,
              True)
    got = gettext_mo.read_mo(latin, 'latin1.mo')
    expect_eq('read_mo: an ISO-8859-1 catalog decoded by its charset', by_key(got),
              by_key(LATIN1_WANT))
    check('read_mo (ISO-8859-1) agrees with gettext.GNUTranslations',
          lambda: agrees_with_gnu(latin, got))

    # Every cut of the file short of its last byte (the NUL after the last string, which no
    # length counts) loses a header word, a table or a string: MoError naming the file.
    name = 'usr/share/locale/de/LC_MESSAGES/x.mo'
    bad = []
    for n in range(len(little) - 1):
        try:
            gettext_mo.read_mo(little[:n], name)
            bad.append(f'{n} bytes: no error')
        except gettext_mo.MoError as e:
            if name not in str(e):
                bad.append(f'{n} bytes: message {str(e)!r} does not name the file')
        except Exception as e:  # noqa: BLE001
            bad.append(f'{n} bytes: {type(e).__name__}: {e}')
    expect_eq(f'read_mo: each of the {len(little) - 1} truncations raises MoError naming '
              'the file', bad[:3], [])

    def bad_magic():
        try:
            gettext_mo.read_mo(b'\x12\x34\x56\x78' + little[4:], name)
        except gettext_mo.MoError as e:
            return None if name in str(e) else f'message {str(e)!r} does not name the file'
        return 'no error'
    check('read_mo: a bad magic raises MoError naming the file', bad_magic)


# ---- 2. ding.line_pairs -----------------------------------------------------------------------

DING = [
    ('senses pair one by one',
     'Aalbestand {m} | Aalbestände {pl} :: eel stock | eel stocks',
     [('eel stock', 'Aalbestand'), ('eel stocks', 'Aalbestände')]),
    ('as many synonyms on both sides: paired one by one',
     'Aasfliege {f}; Schmeißfliege {f} [zool.] :: carrion fly; blowfly',
     [('carrion fly', 'Aasfliege'), ('blowfly', 'Schmeißfliege')]),
    ('unequal synonym counts: the first with the first',
     'Aasfresser {m}; Aasvertilger {m} [zool.] | Aasfresser {pl} :: '
     'scavenger; carrion eater; carrion feeder | scavengers',
     [('scavenger', 'Aasfresser'), ('scavengers', 'Aasfresser')]),
    ('notes {m} [Br.] and nested (a (b) c) removed',
     'Abänderung {f}; (teilweise) Änderung {f} (an etw. (z. B. Plan)) :: '
     'modification (to sth.); alteration [Br.]',
     [('modification', 'Abänderung'), ('alteration', 'Änderung')]),
    ('unequal sense counts: the first senses only',
     'Aalsuppe {f} [cook.] | Aalsuppen {pl} :: eel soup',
     [('eel soup', 'Aalsuppe')]),
    ('a comment line gives nothing', '# Version :: devel 2023-01-30', []),
    ('a line without " :: " gives nothing', 'Aal {m} : eel', []),
    ('identical sides dropped, the others kept',
     'Start {m}; Anfang {m} | Starts {pl}; Anfänge {pl} :: Start; beginning | starts; beginnings',
     [('beginning', 'Anfang'), ('starts', 'Starts'), ('beginnings', 'Anfänge')]),
    ('a sense that is only notes gives nothing', 'A {n} [mus.] :: A', []),
    # The real file marks alternative spellings and search words in angle brackets
    # ("Aalmolche {pl}; Fischmolche {pl} (Amphiuma) ... [zool.] <Aalmolch> :: ...",
    # "eel smokery; eel-smoking business <eelsmoking business> | ..."): notes, not text.
    ('angle-bracket notes <...> removed',
     'Aalmolch {m}; Fischmolch {m} [zool.] <Aalmolche> :: amphiuma; congo eel <congo eels>',
     [('amphiuma', 'Aalmolch'), ('congo eel', 'Fischmolch')]),
]


def ding_checks():
    for what, line, want in DING:
        expect_eq(f'ding: {what}', ding.line_pairs(line + '\n'), want)


# ---- 3. build.strip_accelerators / clean_pair ------------------------------------------------

def clean_checks():
    S = build.strip_accelerators
    expect_eq('accelerator: GTK "_" (Save _As... / _Speichern unter...)',
              S('Save _As...', '_Speichern unter...'), ('Save As...', 'Speichern unter...'))
    expect_eq('accelerator: GTK "_" inside a word (Pr_eferences)',
              S('Pr_eferences', '_Einstellungen'), ('Preferences', 'Einstellungen'))
    # Real GTK strings mark the letter after a capital (gedit 'C_lose All', 'Find in F_iles...',
    # German 'Ä_ndern'): one accelerator in the English, as the docstring says.
    expect_eq('accelerator: GTK "_" after a capital (E_xit / _Beenden)',
              S('E_xit', '_Beenden'), ('Exit', 'Beenden'))
    expect_eq('an identifier between capitals is not an accelerator (MAX_SIZE)',
              S('MAX_SIZE too big', 'MAX_SIZE zu groß'), ('MAX_SIZE too big', 'MAX_SIZE zu groß'))
    expect_eq('accelerator: Qt "&" (&Open / Ö&ffnen)', S('&Open', 'Ö&ffnen'), ('Open', 'Öffnen'))
    expect_eq('accelerator: LibreOffice "~" (~Save / ~Speichern)',
              S('~Save', '~Speichern'), ('Save', 'Speichern'))
    expect_eq('accelerator: "&amp;" and "&#38;" entities not touched',
              S('Tom &amp; Jerry &#38; Co', 'Tom &amp; Jerry &#38; Co.'),
              ('Tom &amp; Jerry &#38; Co', 'Tom &amp; Jerry &#38; Co.'))
    expect_eq('accelerator: two "_" in the English: left alone',
              S('Use snake_case_names', 'Nutze snake_case_names'),
              ('Use snake_case_names', 'Nutze snake_case_names'))
    expect_eq('accelerator: two "&" in the English: left alone',
              S('&Save &As', 'Speichern &unter'), ('&Save &As', 'Speichern &unter'))
    expect_eq('accelerator: "~/" (a home path) not touched',
              S('Files in ~/.config', 'Dateien in ~/.config'),
              ('Files in ~/.config', 'Dateien in ~/.config'))

    def clean(src, tgt):
        why = collections.Counter()
        return build.clean_pair(src, tgt, why), dict(why)

    cases = [
        ('whitespace collapsed', (' Hello,\n  new\tworld ', 'Hallo,  neue\n Welt'),
         (('Hello, new world', 'Hallo, neue Welt'), {})),
        ('accelerators stripped on the way', ('Open &Recent', 'Zuletzt &geöffnet'),
         (('Open Recent', 'Zuletzt geöffnet'), {})),
        ('untranslated dropped', ('Cancel', 'Cancel'), (None, {'untranslated': 1})),
        ('untranslated after stripping dropped', ('_Mode', 'Mo_de'), (None, {'untranslated': 1})),
        ('empty dropped', ('Yes', '  '), (None, {'empty': 1})),
        ('translator-credits dropped', ('translator-credits', 'Max Mustermann'),
         (None, {'credits': 1})),
        ('format only "%s: %d" dropped', ('%s: %d', '%s – %d'), (None, {'format only': 1})),
        ('format only "{0}" dropped', ('{0}', '({0})'), (None, {'format only': 1})),
        ('format only "<b>%s</b>" dropped', ('<b>%s</b>', '<i>%s</i>'),
         (None, {'format only': 1})),
        ('format only "%1$s (%2$d%%)" dropped', ('%1$s (%2$d%%)', '%1$s [%2$d %%]'),
         (None, {'format only': 1})),
        ('letters with formats kept', ('%d files in %s', '%d Dateien in %s'),
         (('%d files in %s', '%d Dateien in %s'), {})),
        ('300 chars kept', ('a' * 100 + ' ' + 'b' * 199, 'c' * 150 + ' ' + 'd' * 149),
         (('a' * 100 + ' ' + 'b' * 199, 'c' * 150 + ' ' + 'd' * 149), {})),
        ('301 chars dropped', ('a' * 301, 'c' * 150), (None, {'over 300 chars': 1})),
        ('ratio: 21 vs 7 chars kept (exactly 3x)', ('a' * 21, 'b' * 7), (('a' * 21, 'b' * 7), {})),
        ('ratio: 22 vs 7 chars dropped', ('a' * 22, 'b' * 7), (None, {'length ratio': 1})),
        ('ratio: 7 vs 22 chars dropped (either side)', ('a' * 7, 'b' * 22),
         (None, {'length ratio': 1})),
        ('ratio: 20 vs 1 chars kept (longer side not over 20)', ('a' * 20, 'b'),
         (('a' * 20, 'b'), {})),
    ]
    for what, args, want in cases:
        expect_eq(f'clean_pair: {what}', clean(*args), want)


# ---- 4. build.split_of --------------------------------------------------------------------------

# md5 of RFC 1321 A.5's test strings, as written there; the bucket is that number mod 100.
RFC1321 = {'': 'd41d8cd98f00b204e9800998ecf8427e',
           'a': '0cc175b9c0f1b6a831c399e269772661',
           'abc': '900150983cd24fb0d6963f7d28e17f72',
           'message digest': 'f96b697d7cb7938d525a2f31aaf161d0',
           'abcdefghijklmnopqrstuvwxyz': 'c3fcd3d76192e4007dfb496cca67e13b'}


def rule(hexdigest, test_pct, dev_pct):
    b = int(hexdigest, 16) % 100
    return 'test' if b < test_pct else 'dev' if b < test_pct + dev_pct else 'train'


def split_checks():
    units = dict(RFC1321)
    if shutil.which('md5sum'):
        for u in ('libreoffice-help-de', 'text/swriter/guide/autocorr_except.html',
                  'thunderbird/de/mail/messenger/ü.ftl'):
            out = subprocess.run(['md5sum'], input=u.encode('utf-8'), capture_output=True,
                                 check=True).stdout
            units[u] = out.split()[0].decode('ascii')
    bad = []
    for u, hx in units.items():
        for tp, dp in ((2, 1), (3, 1), (30, 30), (0, 0), (100, 0)):
            if build.split_of(u, tp, dp) != rule(hx, tp, dp):
                bad.append(f'{u!r} {tp}/{dp}: {build.split_of(u, tp, dp)} not {rule(hx, tp, dp)}')
    expect_eq(f'split_of: md5 mod 100 against test/dev percentages ({len(units)} names)',
              bad, [])
    # buckets of RFC 1321's strings, by hand from the digests (bc: ibase=16; D41D...427E % 64):
    # '' -> 66, 'abc' -> 70
    expect_eq("split_of: '' (bucket 66) is dev at 60/10, train at 60/6, test at 67/0",
              [build.split_of('', 60, 10), build.split_of('', 60, 6), build.split_of('', 67, 0)],
              ['dev', 'train', 'test'])
    expect_eq("split_of: 'abc' (bucket 70) is train at 70/0, test at 71/0",
              [build.split_of('abc', 70, 0), build.split_of('abc', 71, 0)], ['train', 'test'])
    names = list(units)
    code = ('import sys; sys.path.insert(0, sys.argv[1]); import build\n'
            'for u in sys.argv[2:]: print(build.split_of(u, 30, 30))')
    other = subprocess.run([sys.executable, '-c', code, os.path.join(TOP, 'tools', 'corpus'),
                            *names], capture_output=True, text=True,
                           env=dict(os.environ, PYTHONHASHSEED='12345'))
    expect_eq('split_of: the same in another interpreter with another hash seed',
              other.stdout.split(), [build.split_of(u, 30, 30) for u in names])


# ---- 5. build.read_package_uncached on a .deb built here ---------------------------------------

PKG_PO = r'''msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"

msgid "_Save"
msgstr "_Speichern"

msgid "%d file"
msgid_plural "%d files"
msgstr[0] "%d Datei"
msgstr[1] "%d Dateien"

msgid "OK"
msgstr "OK"

msgid "%s: %d"
msgstr "%s – %d"

msgid "translator-credits"
msgstr "Erika Mustermann"

msgctxt "button"
msgid "Close"
msgstr "Schließen"

msgid ""
"Usage: x [OPTION]...\n"
"  -h, --help     show this help\n"
"\n"
"  -v, --version  show the version\n"
msgstr ""
"Aufruf: x [OPTION]...\n"
"  -h, --help     diese Hilfe anzeigen\n"
"\n"
"  -v, --version  die Version anzeigen\n"

msgid ""
"Line one\n"
"line two"
msgstr "Zeile eins   und zwei"
'''

PKG_WANT = [
    ('Save', 'Speichern'),
    ('%d file', '%d Datei'),
    ('%d files', '%d Dateien'),
    ('Close', 'Schließen'),
    # equal non-blank line counts (3 and 3): line by line, each line's whitespace collapsed
    ('Usage: x [OPTION]...', 'Aufruf: x [OPTION]...'),
    ('-h, --help show this help', '-h, --help diese Hilfe anzeigen'),
    ('-v, --version show the version', '-v, --version die Version anzeigen'),
    # 2 lines against 1: one sentence, collapsed
    ('Line one line two', 'Zeile eins und zwei'),
]

COPYRIGHT = '''Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: x
Source: https://example.org/x

Files: *
Copyright: 2020 Erika Mustermann <erika@example.org>
License: GPL-2+

Files: debian/*
Copyright: 2021 Max Mustermann
License: MIT
'''


def deb_checks(tmp):
    name, version = 'xlate-testpkg', '1:2.3-4+deb12u1'
    tree = os.path.join(tmp, 'tree')
    files = {
        'DEBIAN/control': f'Package: {name}\nVersion: {version}\nArchitecture: all\n'
                          'Maintainer: Test <test@example.org>\nDescription: a test package\n',
        f'usr/share/doc/{name}/copyright': COPYRIGHT,
    }
    for rel, text in files.items():
        os.makedirs(os.path.join(tree, os.path.dirname(rel)), exist_ok=True)
        with open(os.path.join(tree, rel), 'w', encoding='utf-8') as f:
            f.write(text)
    mo = msgfmt(tmp, PKG_PO, 'pkg')
    for lang, data in (('de', mo), ('fr', mo)):
        d = os.path.join(tree, 'usr/share/locale', lang, 'LC_MESSAGES')
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, 'x.mo'), 'wb') as f:
            f.write(data)
    with open(os.path.join(tree, 'usr/share/locale/de/LC_MESSAGES/broken.mo'), 'wb') as f:
        f.write(b'\xde\x12\x04\x95' + b'\0' * 8)
    deb = os.path.join(tmp, f'{name}_2.3-4+deb12u1_all.deb')
    subprocess.run(['dpkg-deb', '--root-owner-group', '--build', tree, deb], check=True,
                   stdout=subprocess.DEVNULL)
    ok('a .deb built with dpkg-deb --build')

    got_name, got_version, licence, pairs, why = build.read_package_uncached(name, deb)
    expect_eq('read_package_uncached: name and version (with epoch)', (got_name, got_version),
              (name, version))
    expect_eq('read_package_uncached: the first DEP-5 License of the copyright file', licence,
              'GPL-2+')
    expect_eq('read_package_uncached: the German catalog\'s pairs, cleaned, multi-line split '
              'when the line counts match (the French catalog not read)',
              sorted(pairs), sorted(PKG_WANT))
    # entries: 9 triples of the German catalog (the plural entry gives two);
    # dropped: OK (untranslated), '%s: %d' (format only), translator-credits.
    expect_eq('read_package_uncached: reasons counted',
              dict(why), {'entries': 9, 'untranslated': 1, 'format only': 1, 'credits': 1,
                          'unreadable catalog': 1})

    expect_eq('licence_of: a copyright file that is not DEP-5',
              build.licence_of('This package was debianized by someone.\nIt is GPL.\n'),
              'see copyright')
    # a License: line with no name, its text on the next lines (the first DEP-5 'Files: *'
    # paragraph of some packages): not the text's first line; the next named licence
    expect_eq('licence_of: an unnamed License: line is skipped for the next named one',
              build.licence_of('Files: *\nLicense:\n This package is free software; you can\n'
                               '\nFiles: debian/*\nLicense: GPL-2+\n'), 'GPL-2+')


def main():
    with tempfile.TemporaryDirectory() as tmp:
        if HAVE_MSGFMT:
            mo_checks(tmp)
        else:
            ok('# SKIP read_mo against msgfmt: msgfmt not installed (apt-get install gettext)')
        ding_checks()
        clean_checks()
        split_checks()
        if HAVE_MSGFMT and HAVE_DPKG:
            deb_checks(tmp)
        else:
            ok('# SKIP read_package_uncached: needs msgfmt and dpkg-deb')
    return done()


if __name__ == '__main__':
    sys.exit(main())

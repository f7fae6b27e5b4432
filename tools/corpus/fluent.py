#!/usr/bin/env python3
"""fluent.py — English-German pairs from the Fluent (.ftl) UI strings of Firefox ESR and
Thunderbird, one source of issue 42's corpus (tools/corpus/build.py imports it).

English: the en-US .ftl files inside the omni.ja zip archives of firefox-esr
(usr/lib/firefox-esr/omni.ja and browser/omni.ja) and thunderbird (usr/share/thunderbird/omni.ja,
which usr/lib/thunderbird/omni.ja links to). German: the langpack .xpi (zip) of
firefox-esr-l10n-de / thunderbird-l10n-de. Files live under a locale root, "localization/en-US/",
"localization/de/" or "browser/localization/de/"; the path after it (browser/aboutDialog.ftl) is
the same in both languages. A pair is keyed by (that path, message id, attribute name or None).

The reader is a small recursive-descent parser written from the Fluent syntax spec,
projectfluent/fluent spec/fluent.ebnf (rule names are quoted in the comments below), resolving
just enough to produce plain text:
  - term references ({ -brand-short-name }, with call arguments and attributes as selectors)
    are replaced by the term's value in the same locale (terms are global across a locale's
    files, as in a FluentBundle); terms are never units themselves;
  - message references ({ other-message }, { other.attr }) resolve within the same file;
  - a variable placeable stays as "{ $name }", and the pair is kept only when both sides hold
    the same multiset of variables;
  - a select expression ({ $n -> ... }) or a function call ({ NUMBER($n) }) in a unit drops it;
  - attributes that are no prose (accesskey, commandkey, key, style, ...) are skipped;
  - markup (<a data-l10n-name="x">, <strong>) is removed and its entities unescaped; whitespace
    is collapsed; pairs with no letter on a side are dropped.

    pairs(debs_dir) -> iterator of dict(src, tgt, unit, origin); unit = the .ftl path

Run as a script for counts and samples:  /usr/bin/python3 tools/corpus/fluent.py /work/corpus/debs
"""

import html
import io
import os
import re
import subprocess
import sys
import tarfile
import zipfile

# The same rule for which .deb to read (the newest by dpkg's version order) as lohelp.py.
from lohelp import deb_field, find_deb, source_main

PACKAGES = ['firefox-esr', 'firefox-esr-l10n-de', 'thunderbird', 'thunderbird-l10n-de']

# (English package, German package): the apps read.
APPS = [('firefox-esr', 'firefox-esr-l10n-de'), ('thunderbird', 'thunderbird-l10n-de')]

# Attributes that hold keys, shortcuts, CSS or sizes rather than text (by name, lower-cased;
# plus any name containing "accesskey": buttonaccesskeyaccept, secondarybuttonaccesskey...).
SKIP_ATTRS = {'commandkey', 'key', 'keycode', 'acceltext', 'modifiers', 'style', 'width',
              'height', 'size'}


def skip_attr(name):
    low = name.lower()
    return low in SKIP_ATTRS or 'accesskey' in low


def skip_id(mid):
    """Messages that are a key, not text: menu-x-accesskey, screenshots-copy-key,
    devtools-commandkey-inspector."""
    low = mid.lower()
    return low.endswith(('-accesskey', '-key', '-keycode')) or 'commandkey' in low

LOCALE_ROOT = re.compile(r'^(?:browser/)?localization/([A-Za-z-]+)/(.+\.ftl)$')
IDENT = re.compile(r'[a-zA-Z][a-zA-Z0-9_-]*')       # Identifier ::= [a-zA-Z] [a-zA-Z0-9_-]*
NUMBER = re.compile(r'-?[0-9]+(?:\.[0-9]+)?')      # NumberLiteral ::= "-"? digits ("." digits)?
TAG = re.compile(r'</?[a-zA-Z][^<>]*>')
VARIABLE = re.compile(r'\{ \$[a-zA-Z][a-zA-Z0-9_-]* \}')   # how resolve() writes a variable


class FluentError(Exception):
    """A syntax error: the entry it is in becomes Junk."""


class Drop(Exception):
    """A unit that cannot become plain text; reason is 'select', 'function' or 'unresolved'."""

    def __init__(self, reason, detail=''):
        super().__init__(f'{reason}: {detail}' if detail else reason)
        self.reason = reason


# ---------------------------------------------------------------------------------------------
# Parser. AST: a Pattern is a list of str and ('placeable', expr); expressions are tuples
# ('str', s) ('num', s) ('var', name) ('term', name, attr, named_args) ('msg', name, attr)
# ('func', name) ('select', selector_expr, [(key, pattern, is_default)]).
# ---------------------------------------------------------------------------------------------

class Parser:
    def __init__(self, text):
        self.s = text.replace('\r\n', '\n')
        self.i = 0

    def peek(self, k=0):
        j = self.i + k
        return self.s[j] if j < len(self.s) else ''

    def expect(self, ch):
        if self.peek() != ch:
            raise FluentError(f'offset {self.i}: expected {ch!r}, got {self.peek()!r}')
        self.i += 1

    def blank_inline(self):                         # blank_inline ::= "\u0020"+
        j = self.i
        while self.peek() == ' ':
            self.i += 1
        return self.i - j

    def blank(self):                                # blank ::= (blank_inline | line_end)+
        while self.peek() in (' ', '\n'):
            self.i += 1

    def identifier(self):
        m = IDENT.match(self.s, self.i)
        if not m:
            raise FluentError(f'offset {self.i}: expected an identifier')
        self.i = m.end()
        return m.group()

    def line_end(self):                             # line_end ::= "\n" | EOF
        if self.peek() == '\n':
            self.i += 1
        elif self.peek():
            raise FluentError(f'offset {self.i}: expected end of line, got {self.peek()!r}')

    def resource(self):
        """Resource ::= (Entry | blank_block | Junk)* -> (messages, terms), each
        {id: (pattern or None, {attr: pattern})}. Junk: from a failed entry, skip to the next
        line starting with "#", "-" or [a-zA-Z] (the spec's junk_line rule)."""
        messages, terms = {}, {}
        while self.i < len(self.s):
            ch = self.peek()
            if ch in ('\n', ' '):                   # blank_block
                self.i += 1
                continue
            start = self.i
            try:
                if ch == '#':                       # CommentLine: skipped to line_end
                    self.skip_line()
                elif ch == '-':                     # Term ::= "-" Identifier ... Pattern Attribute*
                    self.i += 1
                    name = self.identifier()
                    value, attrs = self.entry_body(term=True)
                    terms[name] = (value, attrs)
                else:
                    # Message ::= Identifier ... ((Pattern Attribute*) | Attribute+)
                    name = self.identifier()
                    value, attrs = self.entry_body(term=False)
                    messages[name] = (value, attrs)
            except FluentError:
                self.i = start
                self.skip_line()
                while self.i < len(self.s) and not (self.peek() in ('#', '-')
                                                    or self.peek().isascii()
                                                    and self.peek().isalpha()):
                    self.skip_line()
        return messages, terms

    def skip_line(self):
        j = self.s.find('\n', self.i)
        self.i = len(self.s) if j < 0 else j + 1

    def entry_body(self, term):
        self.blank_inline()
        self.expect('=')
        self.blank_inline()
        value = self.pattern()
        attrs = {}
        while True:
            a = self.attribute()
            if a is None:
                break
            attrs[a[0]] = a[1]
        if value is None and (term or not attrs):
            raise FluentError(f'offset {self.i}: entry without a value')
        self.line_end()
        return value, attrs

    def attribute(self):
        """Attribute ::= line_end blank? "." Identifier blank_inline? "=" blank_inline? Pattern;
        None (position kept) when the next line holds no attribute."""
        if self.peek() != '\n':
            return None
        j = self.i
        self.blank()
        if self.peek() != '.':
            self.i = j
            return None
        self.i += 1
        name = self.identifier()
        self.blank_inline()
        self.expect('=')
        self.blank_inline()
        value = self.pattern()
        if value is None:
            raise FluentError(f'offset {self.i}: attribute .{name} without a value')
        return name, value

    def pattern(self):
        """Pattern ::= PatternElement+ (inline_text | block_text | inline_placeable |
        block_placeable); None when empty. A block continues on a line after blank_block only
        if it is indented and starts with indented_char (not "[", "*", "."), or holds a
        placeable "{" (block_placeable: indentation optional)."""
        out = []
        while True:
            ch = self.peek()
            if ch == '{':
                out.append(self.placeable())
            elif ch == '}':
                raise FluentError(f'offset {self.i}: unbalanced "}}"')
            elif ch and ch != '\n':                 # inline_text ::= text_char+
                j = self.i
                while self.peek() not in ('', '\n', '{', '}'):
                    self.i += 1
                out.append(self.s[j:self.i])
            elif ch == '\n':
                j = self.i
                while True:                         # blank_block ::= (blank_inline? line_end)+
                    k = self.i
                    self.blank_inline()
                    if self.peek() == '\n':
                        self.i += 1
                        continue
                    self.i = k
                    break
                indent = self.blank_inline()
                nxt = self.peek()
                if nxt == '{' or (indent and nxt and nxt not in ('[', '*', '.', '\n', '}')):
                    out.append('\n')
                    continue
                self.i = j                          # the pattern ends before this line_end
                break
            else:
                break
        return out or None

    def placeable(self):
        """inline_placeable ::= "{" blank? (SelectExpression | InlineExpression) blank? "}"."""
        self.expect('{')
        self.blank()
        expr = self.inline_expression()
        self.blank()
        if self.peek() == '-' and self.peek(1) == '>':
            # SelectExpression ::= InlineExpression blank? "->" blank_inline? variant_list
            self.i += 2
            self.blank_inline()
            variants = []
            # Variant, DefaultVariant ::= line_end blank? "*"? VariantKey blank_inline? Pattern
            while True:
                j = self.i
                if self.peek() != '\n':
                    break
                self.blank()
                default = self.peek() == '*'
                if default:
                    self.i += 1
                if self.peek() != '[':
                    self.i = j
                    break
                self.i += 1
                self.blank()
                m = NUMBER.match(self.s, self.i) or IDENT.match(self.s, self.i)
                if not m:
                    raise FluentError(f'offset {self.i}: expected a variant key')
                self.i = m.end()
                self.blank()
                self.expect(']')
                self.blank_inline()
                variants.append((m.group(), self.pattern() or [], default))
            if sum(v[2] for v in variants) != 1:
                raise FluentError(f'offset {self.i}: a select needs exactly one default variant')
            self.line_end()
            self.blank()
            expr = ('select', expr, variants)
        self.expect('}')
        return ('placeable', expr)

    def inline_expression(self):
        ch = self.peek()
        if ch == '"':                               # StringLiteral ::= "\"" quoted_char* "\""
            self.i += 1
            buf = []
            while True:
                c = self.peek()
                if c in ('', '\n'):
                    raise FluentError(f'offset {self.i}: unterminated string literal')
                self.i += 1
                if c == '"':
                    break
                if c == '\\':                       # special_escape | unicode_escape
                    e = self.peek()
                    if e in ('"', '\\'):
                        buf.append(e)
                        self.i += 1
                    elif e in ('u', 'U'):
                        n = 4 if e == 'u' else 6
                        hexs = self.s[self.i + 1:self.i + 1 + n]
                        if not re.fullmatch(r'[0-9a-fA-F]{%d}' % n, hexs):
                            raise FluentError(f'offset {self.i}: bad unicode escape')
                        buf.append(chr(int(hexs, 16)))
                        self.i += 1 + n
                    else:
                        raise FluentError(f'offset {self.i}: unknown escape \\{e}')
                else:
                    buf.append(c)
            return ('str', ''.join(buf))
        m = NUMBER.match(self.s, self.i)
        if m:
            self.i = m.end()
            return ('num', m.group())
        # TermReference ::= "-" Identifier AttributeAccessor? CallArguments?
        if ch == '-':
            self.i += 1
            name = self.identifier()
            attr = self.accessor()
            args = self.call_arguments() if self.before_paren() else {}
            return ('term', name, attr, args)
        if ch == '$':                               # VariableReference ::= "$" Identifier
            self.i += 1
            return ('var', self.identifier())
        if ch == '{':
            return self.placeable()[1]
        name = self.identifier()
        if self.before_paren():                     # FunctionReference ::= Identifier CallArguments
            self.call_arguments()
            return ('func', name)
        # MessageReference ::= Identifier AttributeAccessor?
        return ('msg', name, self.accessor())

    def accessor(self):
        if self.peek() == '.':
            self.i += 1
            return self.identifier()
        return None

    def before_paren(self):
        j = self.i
        self.blank()
        if self.peek() == '(':
            return True
        self.i = j
        return False

    def call_arguments(self):
        """CallArguments ::= blank? "(" blank? argument_list blank? ")"; returns the named
        arguments {name: literal} (positional ones are only parsed)."""
        self.expect('(')
        named = {}
        while True:
            self.blank()
            if self.peek() == ')':
                self.i += 1
                return named
            expr = self.inline_expression()
            self.blank()
            if self.peek() == ':' and expr[0] == 'msg' and expr[2] is None:
                # NamedArgument ::= Identifier blank? ":" blank? (StringLiteral | NumberLiteral)
                self.i += 1
                self.blank()
                val = self.inline_expression()
                if val[0] not in ('str', 'num'):
                    raise FluentError(f'offset {self.i}: a named argument takes a literal')
                named[expr[1]] = val[1]
                self.blank()
            if self.peek() == ',':
                self.i += 1
            elif self.peek() != ')':
                raise FluentError(f'offset {self.i}: expected "," or ")"')


def parse(text):
    """FTL text -> (messages, terms), each {id: (pattern or None, {attr: pattern})}."""
    return Parser(text).resource()


# ---------------------------------------------------------------------------------------------
# Resolution to plain text.
# ---------------------------------------------------------------------------------------------

def resolve(pattern, terms, messages, args=None, in_term=False, depth=0):
    """Pattern -> text with "{ $name }" for variables of a unit. terms / messages: the tables
    references resolve in; args: a term call's named arguments (in_term: resolving a term's
    own value, where select expressions choose by args or their default)."""
    if depth > 20:
        raise Drop('unresolved', 'reference cycle')
    out = []
    for el in pattern:
        if isinstance(el, str):
            out.append(el)
        else:
            out.append(expression(el[1], terms, messages, args, in_term, depth))
    return ''.join(out)


def expression(expr, terms, messages, args, in_term, depth):
    kind = expr[0]
    if kind in ('str', 'num'):
        return expr[1]
    if kind == 'var':
        if in_term:
            if expr[1] in args:
                return args[expr[1]]
            raise Drop('unresolved', f'term variable ${expr[1]} without an argument')
        return '{ $' + expr[1] + ' }'
    if kind == 'term':
        _, name, attr, targs = expr
        if name not in terms:
            raise Drop('unresolved', f'unknown term -{name}')
        value, attrs = terms[name]
        pat = value if attr is None else attrs.get(attr)
        if attr is not None and not in_term:
            raise Drop('unresolved', 'term attribute outside a selector')
        if pat is None:
            raise Drop('unresolved', f'unknown term attribute -{name}.{attr}')
        return resolve(pat, terms, messages, targs, True, depth + 1)
    if kind == 'msg':
        _, name, attr = expr
        if name not in messages:
            raise Drop('unresolved', f'unknown message {name}')
        value, attrs = messages[name]
        pat = value if attr is None else attrs.get(attr)
        if pat is None:
            raise Drop('unresolved', f'message {name}.{attr} has no such value')
        return resolve(pat, terms, messages, None, False, depth + 1)
    if kind == 'func':
        raise Drop('function')
    if kind == 'select':
        if not in_term:
            raise Drop('select')
        try:
            key = expression(expr[1], terms, messages, args, True, depth)
        except Drop:
            key = None
        chosen = next((v for v in expr[2] if v[0] == key), None) or \
            next(v for v in expr[2] if v[2])
        return resolve(chosen[1], terms, messages, args, True, depth + 1)
    raise Drop('unresolved', f'unknown expression {kind}')


def plain(text):
    """Markup removed (entities unescaped where there was markup), whitespace collapsed."""
    if TAG.search(text):
        text = html.unescape(TAG.sub('', text))
    # U+FEFF (a stray byte-order mark, inside some Thunderbird values) is no str.split() space.
    return ' '.join(text.replace('\ufeff', ' ').split())


def has_letter(text):
    """A letter outside the "{ $name }" placeholders."""
    return any(ch.isalpha() for ch in VARIABLE.sub('', text))


# ---------------------------------------------------------------------------------------------
# Reading the packages.
# ---------------------------------------------------------------------------------------------

def archives(deb):
    """Yields (member path, bytes) for every regular omni.ja and langpack-*.xpi in the .deb's
    data tarball, streamed (dpkg-deb --fsys-tarfile | tarfile 'r|*'); links are skipped, so
    Thunderbird's usr/lib/thunderbird/omni.ja -> ../../share/thunderbird/omni.ja counts once."""
    proc = subprocess.Popen(['dpkg-deb', '--fsys-tarfile', deb], stdout=subprocess.PIPE)
    try:
        with tarfile.open(fileobj=proc.stdout, mode='r|*') as tf:
            for m in tf:
                base = os.path.basename(m.name)
                if m.isfile() and (base == 'omni.ja' or
                                   base.startswith('langpack-') and base.endswith('.xpi')):
                    yield m.name, tf.extractfile(m).read()
    finally:
        proc.stdout.close()
        if proc.wait() != 0:
            raise RuntimeError(f'{deb}: dpkg-deb --fsys-tarfile exited {proc.returncode}')


def locale_files(blobs, locale):
    """[(archive name, bytes)] -> {relative .ftl path: text} for files under <locale>'s root."""
    files = {}
    for name, blob in blobs:
        with zipfile.ZipFile(io.BytesIO(blob)) as z:
            for member in z.namelist():
                m = LOCALE_ROOT.match(member)
                if m and m.group(1) == locale:
                    files[m.group(2)] = z.read(member).decode('utf-8-sig')
    return files


def units(parsed, terms, stats):
    """{path: (messages, terms)} -> {(path, id, attr): text or Drop}; counts the key-like
    messages and attributes it skips into stats['skipped_keys']."""
    out = {}
    for path, (messages, _) in parsed.items():
        for mid, (value, attrs) in messages.items():
            if skip_id(mid):
                stats['skipped_keys'] += 1 + len(attrs)
                continue
            entries = [(None, value)] + sorted(attrs.items())
            for attr, pat in entries:
                if pat is None:
                    continue
                if attr is not None and skip_attr(attr):
                    stats['skipped_keys'] += 1
                    continue
                try:
                    out[(path, mid, attr)] = plain(resolve(pat, terms, messages))
                except Drop as e:
                    out[(path, mid, attr)] = e
    return out


def catalog_pairs(en_files, de_files, origin, stats):
    """{path: ftl text} per language -> pairs; counts added into stats."""
    en = {p: parse(t) for p, t in en_files.items()}
    de = {p: parse(t) for p, t in de_files.items()}
    en_terms = {}
    for _, terms in en.values():
        en_terms.update(terms)
    de_terms = dict(en_terms)                       # a term missing in German falls back to en-US
    for _, terms in de.values():
        de_terms.update(terms)
    stats['files_en'] += len(en)
    stats['files_de'] += len(de)
    stats['files_both'] += len(en.keys() & de.keys())
    src_units = units({p: en[p] for p in en.keys() & de.keys()}, en_terms, stats)
    tgt_units = units({p: de[p] for p in en.keys() & de.keys()}, de_terms, {'skipped_keys': 0})
    stats['units_en_only'] += len(src_units.keys() - tgt_units.keys())
    stats['units_de_only'] += len(tgt_units.keys() - src_units.keys())
    for key in sorted(src_units.keys() & tgt_units.keys(), key=lambda k: (k[0], k[1], k[2] or '')):
        src, tgt = src_units[key], tgt_units[key]
        bad = src if isinstance(src, Drop) else tgt if isinstance(tgt, Drop) else None
        if bad is not None:
            stats['dropped_' + bad.reason] += 1
        elif sorted(VARIABLE.findall(src)) != sorted(VARIABLE.findall(tgt)):
            stats['dropped_variables'] += 1
        elif not (has_letter(src) and has_letter(tgt)):
            stats['dropped_no_letter'] += 1
        else:
            stats['pairs'] += 1
            yield dict(src=src, tgt=tgt, unit=key[0], origin=origin)


def pairs_counted(debs_dir, stats):
    """pairs() with counts added into stats (a dict)."""
    for k in ('files_en', 'files_de', 'files_both', 'skipped_keys', 'units_en_only',
              'units_de_only', 'dropped_select',
              'dropped_function', 'dropped_unresolved', 'dropped_variables',
              'dropped_no_letter', 'pairs'):
        stats.setdefault(k, 0)
    for en_pkg, de_pkg in APPS:
        en_deb, de_deb = find_deb(debs_dir, en_pkg), find_deb(debs_dir, de_pkg)
        en_files = locale_files(archives(en_deb), 'en-US')
        de_files = locale_files(archives(de_deb), 'de')
        origin = f"{de_pkg} {deb_field(de_deb, 'Version')}"
        yield from catalog_pairs(en_files, de_files, origin, stats)


def pairs(debs_dir):
    return pairs_counted(debs_dir, {})


def main(argv):
    return source_main(argv, pairs_counted)


if __name__ == '__main__':
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""Checks tools/bleu.py against hand-computed corpus BLEU (sacreBLEU 2.x defaults).

Every expected number below is derived in the comments by counting n-grams by hand; the
decimals quoted were worked out on paper from those fractions, not by running the tool.
Run from the repository root: /usr/bin/python3 tests/py/test_bleu.py
"""

import math
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(TOP, 'tools'))
BLEU_PY = os.path.join(TOP, 'tools', 'bleu.py')

from checks import done, expect_close, expect_eq, ok, not_ok as notok  # noqa: E402,F401


try:
    import bleu
except Exception as e:  # noqa: BLE001 - report any import failure as a check
    notok('import tools/bleu.py', repr(e))
    sys.exit(1)
ok('import tools/bleu.py')

# ---------------------------------------------------------------------------------------------
# 13a tokenization
# ---------------------------------------------------------------------------------------------
tok = bleu.tokenize_13a
# '!' and ',' are split off; ',' after a letter gets spaces on both sides.
expect_eq('13a: punctuation split', tok('Hello, world!'), 'Hello , world !')
# '3.5': the '.' has digits on both sides, so rules 2 and 3 leave it; the final '.' follows a
# letter (rule 2) and is followed by the padding space (rule 3).
expect_eq('13a: 3.5 kept, final period split', tok('It costs 3.5 dollars.'),
          'It costs 3.5 dollars .')
# '1,000': ',' between digits stays.
expect_eq('13a: 1,000 kept', tok('1,000 people'), '1,000 people')
# '2020.': '.' after a digit is not split by rule 2, but rule 3 splits it because the padding
# space follows it.
expect_eq('13a: period after a number at the end', tok('in 2020.'), 'in 2020 .')
# ',' after a digit but before a letter: rule 3 splits it.
expect_eq('13a: comma between digit and letter', tok('5,a'), '5 , a')
# '-' after a digit is split; '-' between letters is not.
expect_eq('13a: hyphen after digit', tok('1990-2000 well-known'), '1990 - 2000 well-known')
# &quot; -> '"' and &amp; -> '&', both then split off by rule 1.
expect_eq('13a: &quot; &amp; unescape', tok('&quot;Hi&quot; &amp; bye'), '" Hi " & bye')
# &lt; &gt; unescape, then '<' '>' split.
expect_eq('13a: &lt; &gt; unescape', tok('a&lt;b&gt;c'), 'a < b > c')
# Unescaping happens once, &quot; before &amp;: '&amp;quot;' -> '&quot;' (kept), and rule 1
# then splits '&' and ';' (';' is in the ':'-'@' range).
expect_eq('13a: &amp;quot; unescaped once', tok('&amp;quot;'), '& quot ;')
# Brackets, symbols; the apostrophe is not in rule 1's set.
expect_eq('13a: symbols split, apostrophe kept', tok("(a) [b] {c} $5 don't"),
          "( a ) [ b ] { c } $ 5 don't")
# 'x@y.com': '@' split by rule 1, then 'y.' has a letter before the '.', so rule 2 splits it.
expect_eq('13a: e-mail address', tok('e-mail: x@y.com'), 'e-mail : x @ y . com')
# '<skipped>' is removed; runs of spaces collapse.
expect_eq('13a: <skipped> removed, spaces collapsed', tok('a  <skipped>   b'), 'a b')

# ---------------------------------------------------------------------------------------------
# Scores through the API
# ---------------------------------------------------------------------------------------------

# Perfect match: 6 tokens, precisions 6/6, 5/5, 4/4, 3/3, c = r = 6, BP = 1 -> BLEU 100.
r = bleu.corpus_bleu(['the cat sat on the mat'], [['the cat sat on the mat']])
expect_close('perfect match score is 100', r.score, 100.0)
expect_eq('perfect match line', str(r),
          'BLEU = 100.00 100.0/100.0/100.0/100.0 (BP = 1.000 ratio = 1.000 '
          'hyp_len = 6 ref_len = 6)')

# Short case with a brevity penalty.
#   hyp: the cat sat on a mat           (c = 6)
#   ref: the cat sat on the red mat     (r = 7)
#   1-grams: the cat sat on a mat; ref has the x2, cat, sat, on, red, mat -> 5 of 6 ('a' misses)
#   2-grams: the-cat cat-sat sat-on on-a a-mat; ref: the-cat cat-sat sat-on on-the the-red
#            red-mat -> 3 of 5
#   3-grams: the-cat-sat cat-sat-on sat-on-a on-a-mat -> the-cat-sat, cat-sat-on: 2 of 4
#   4-grams: the-cat-sat-on cat-sat-on-a sat-on-a-mat -> the-cat-sat-on: 1 of 3
#   BP = exp(1 - 7/6) = exp(-1/6) = 0.846482
#   BLEU = 100 * exp(-1/6) * (5/6 * 3/5 * 2/4 * 1/3)^(1/4) = 100 * exp(-1/6) * (1/12)^(1/4)
#        (1/12)^(1/4) = exp(-ln(12)/4) = exp(-2.4849066/4) = exp(-0.6212267) = 0.537285
#        -> 100 * 0.846482 * 0.537285 = 45.4802
#   ratio = 6/7 = 0.857
r = bleu.corpus_bleu(['the cat sat on a mat'], [['the cat sat on the red mat']])
expect_eq('short case counts', (r.counts, r.totals), ([5, 3, 2, 1], [6, 5, 4, 3]))
expect_close('short case BP = exp(-1/6)', r.bp, math.exp(-1 / 6))
expect_close('short case score = 100 exp(-1/6) (1/12)^(1/4)', r.score,
             100 * math.exp(-1 / 6) * (1 / 12) ** 0.25)
expect_eq('short case line', str(r),
          'BLEU = 45.48 83.3/60.0/50.0/33.3 (BP = 0.846 ratio = 0.857 hyp_len = 6 ref_len = 7)')

# 'exp' smoothing, 3- and 4-gram matches 0.
#   hyp: a b c d e     ref: a b x d e      (c = r = 5, BP = 1)
#   1-grams: a b d e match -> 4/5 = 80%
#   2-grams: ab bc cd de vs ab bx xd de -> ab, de: 2/4 = 50%
#   3-grams: abc bcd cde vs abx bxd xde -> 0 of 3: first zero order, 2^1 -> 100/(2*3) = 16.667%
#   4-grams: abcd bcde vs abxd bxde -> 0 of 2: second zero order, 2^2 -> 100/(4*2) = 12.5%
#   BLEU = 100 * (4/5 * 1/2 * 1/6 * 1/8)^(1/4) = 100 * (1/120)^(1/4)
#        = 100 * exp(-ln(120)/4) = 100 * exp(-4.7874917/4) = 100 * exp(-1.1968729) = 30.2138
r = bleu.corpus_bleu(['a b c d e'], [['a b x d e']])
expect_close('exp smoothing: p3 = 100/(2*3)', r.precisions[2], 100 / 6)
expect_close('exp smoothing: p4 = 100/(4*2)', r.precisions[3], 12.5)
expect_close('exp smoothing score = 100 (1/120)^(1/4)', r.score, 100 * (1 / 120) ** 0.25)
expect_eq('exp smoothing line', str(r),
          'BLEU = 30.21 80.0/50.0/16.7/12.5 (BP = 1.000 ratio = 1.000 hyp_len = 5 ref_len = 5)')

# No match at all: sacreBLEU stops early, score 0 and all precisions shown as 0.
r = bleu.corpus_bleu(['x y'], [['a b']])
expect_eq('no matches line', str(r),
          'BLEU = 0.00 0.0/0.0/0.0/0.0 (BP = 1.000 ratio = 1.000 hyp_len = 2 ref_len = 2)')

# A 3-token corpus has no 4-grams (total 0): the walk stops, p4 stays 0, log(0) is floored
# to -9999999999, so the score is 0 even though 1-3-gram precisions are 100%.
r = bleu.corpus_bleu(['a b c'], [['a b c']])
expect_eq('no 4-grams at all line', str(r),
          'BLEU = 0.00 100.0/100.0/100.0/0.0 (BP = 1.000 ratio = 1.000 hyp_len = 3 ref_len = 3)')

# Empty hypothesis: c = 0 < r = 2, BP = 0, no matches -> 0; ratio 0/2.
r = bleu.corpus_bleu([''], [['a b']])
expect_eq('empty hypothesis line', str(r),
          'BLEU = 0.00 0.0/0.0/0.0/0.0 (BP = 0.000 ratio = 0.000 hyp_len = 0 ref_len = 2)')

# Two references, closest length with a tie going to the shorter one.
#   hyp:  a cat sat on the mat                  (6 tokens)
#   ref1: a cat sat down                        (4 tokens, |6-4| = 2)
#   ref2: there is a cat on the mat .           (8 tokens after splitting '.', |6-8| = 2)
#   tie -> r = 4 (shorter); c = 6 >= 4 so BP = 1; ratio = 6/4 = 1.5
#   1-grams: a cat sat(ref1) on the mat(ref2) -> 6/6
#   2-grams: a-cat cat-sat(ref1) sat-on(no) on-the the-mat(ref2) -> 4/5
#   3-grams: a-cat-sat(ref1) cat-sat-on(no) sat-on-the(no) on-the-mat(ref2) -> 2/4
#   4-grams: a-cat-sat-on cat-sat-on-the sat-on-the-mat -> 0/3 -> 100/(2*3) = 16.667%
#   BLEU = 100 * (1 * 4/5 * 1/2 * 1/6)^(1/4) = 100 * (1/15)^(1/4)
#        = 100 * exp(-ln(15)/4) = 100 * exp(-2.7080502/4) = 100 * exp(-0.6770126) = 50.8132
r = bleu.corpus_bleu(['a cat sat on the mat'],
                     [['a cat sat down'], ['there is a cat on the mat.']])
expect_eq('two refs: tie picks the shorter length', r.ref_len, 4)
expect_close('two refs score = 100 (1/15)^(1/4)', r.score, 100 * (1 / 15) ** 0.25)
expect_eq('two refs line', str(r),
          'BLEU = 50.81 100.0/80.0/50.0/16.7 (BP = 1.000 ratio = 1.500 hyp_len = 6 ref_len = 4)')
# Same refs in the other order: same result (the tie rule does not depend on order).
r2 = bleu.corpus_bleu(['a cat sat on the mat'],
                      [['there is a cat on the mat.'], ['a cat sat down']])
expect_eq('two refs, swapped order, same line', str(r2), str(r))
# No tie: hyp of 7 tokens vs refs of 4 and 8 -> |7-4| = 3, |7-8| = 1 -> r = 8.
r = bleu.corpus_bleu(['a cat sat on the mat today'],
                     [['a cat sat down'], ['there is a cat on the mat.']])
expect_eq('two refs: nearest length without a tie', r.ref_len, 8)

# Clipping by the largest count over the references (not the last or the first one).
#   hyp: the the the    ref1: the the a    ref2: the b c
#   'the': 3 in hyp, max(2, 1) = 2 -> 1-grams 2/3
#   'the the': 2 in hyp, max(1, 0) = 1 -> 2-grams 1/2
#   'the the the': 0 in either -> 3-grams 0/1; no 4-grams (total 0)
r = bleu.corpus_bleu(['the the the'], [['the the a'], ['the b c']])
expect_eq('clip by max count over refs', (r.counts, r.totals), ([2, 1, 0, 0], [3, 2, 1, 0]))

# Corpus-level sums and clipping.
#   sentence 1: hyp 'the the the the' (4), ref 'the cat is here' (4)
#     1-grams: 'the' x4 clipped to the ref's 1 -> 1/4; 2-grams the-the x3 -> 0/3;
#     3-grams 0/2; 4-grams 0/1
#   sentence 2: hyp = ref = 'a b c d e f' (6) -> 6/6, 5/5, 4/4, 3/3
#   corpus: 7/10, 5/8, 4/6, 3/4; c = r = 10, BP = 1
#   BLEU = 100 * (7/10 * 5/8 * 4/6 * 3/4)^(1/4) = 100 * (420/1920)^(1/4) = 100 * (7/32)^(1/4)
#        = 100 * exp(ln(0.21875)/4) = 100 * exp(-1.5198257/4) = 100 * exp(-0.3799564) = 68.3891
r = bleu.corpus_bleu(['the the the the', 'a b c d e f'],
                     [['the cat is here', 'a b c d e f']])
expect_eq('corpus sums with clipping: counts', (r.counts, r.totals),
          ([7, 5, 4, 3], [10, 8, 6, 4]))
expect_close('corpus score = 100 (7/32)^(1/4)', r.score, 100 * (7 / 32) ** 0.25)
expect_eq('corpus line', str(r),
          'BLEU = 68.39 70.0/62.5/66.7/75.0 (BP = 1.000 ratio = 1.000 hyp_len = 10 ref_len = 10)')

# Case matters: 'The' vs 'the' is a miss. hyp 'The cat sat on' vs ref 'the cat sat on':
#   1-grams 3/4, 2-grams 2/3, 3-grams 1/2, 4-grams 0/1 -> 100/(2*1) = 50%
#   BLEU = 100 * (3/4 * 2/3 * 1/2 * 1/2)^(1/4) = 100 * (1/8)^(1/4) = 100 / 2^(3/4) = 59.4604
r = bleu.corpus_bleu(['The cat sat on'], [['the cat sat on']])
expect_close('case-sensitive score = 100 (1/8)^(1/4)', r.score, 100 * (1 / 8) ** 0.25)

# Tokenization feeds the counts: 'Hello, world!' vs 'Hello , world !' are the same 4 tokens.
r = bleu.corpus_bleu(['Hello, world!'], [['Hello , world !']])
expect_close('tokenized punctuation matches', r.score, 100.0)

# Trailing whitespace is stripped; API length mismatch raises.
r = bleu.corpus_bleu(['a b c d  \t'], [['a b c d']])
expect_close('trailing whitespace ignored', r.score, 100.0)
try:
    bleu.corpus_bleu(['a', 'b'], [['a']])
    notok('API: line count mismatch raises', 'no exception')
except ValueError:
    ok('API: line count mismatch raises')

# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------


def run(args, stdin=None):
    return subprocess.run([sys.executable, BLEU_PY] + args, input=stdin, capture_output=True,
                          text=True, timeout=60)


with tempfile.TemporaryDirectory() as d:
    def write(name, text):
        path = os.path.join(d, name)
        with open(path, 'w', encoding='utf-8') as f:
            f.write(text)
        return path

    # The corpus case above, as files (refs with CRLF endings, which rstrip removes).
    hyp = write('hyp.txt', 'the the the the\na b c d e f\n')
    ref = write('ref.txt', 'the cat is here\r\na b c d e f\r\n')
    want = 'BLEU = 68.39 70.0/62.5/66.7/75.0 (BP = 1.000 ratio = 1.000 hyp_len = 10 ref_len = 10)'
    p = run([hyp, ref])
    expect_eq('cli: corpus line', (p.returncode, p.stdout.strip()), (0, want))
    p = run(['--score-only', hyp, ref])
    expect_eq('cli: --score-only', (p.returncode, p.stdout.strip()), (0, '68.39'))
    p = run(['-', ref], stdin='the the the the\na b c d e f')
    expect_eq('cli: hypothesis from stdin (no final newline)',
              (p.returncode, p.stdout.strip()), (0, want))

    # Two reference files: the tie case above.
    h2 = write('h2.txt', 'a cat sat on the mat\n')
    ra = write('ra.txt', 'a cat sat down\n')
    rb = write('rb.txt', 'there is a cat on the mat.\n')
    p = run([h2, ra, rb])
    expect_eq('cli: two reference files',
              (p.returncode, p.stdout.strip()),
              (0, 'BLEU = 50.81 100.0/80.0/50.0/16.7 (BP = 1.000 ratio = 1.500 '
                  'hyp_len = 6 ref_len = 4)'))

    # Line counts differ: 2 hypothesis lines, 3 reference lines.
    short = write('ref3.txt', 'x\ny\nz\n')
    p = run([hyp, short])
    msg = p.stderr
    if (p.returncode != 0 and p.stdout == '' and 'hyp.txt' in msg and 'ref3.txt' in msg
            and re.search(r'\b2 lines', msg) and re.search(r'\b3 lines', msg)):
        ok('cli: line count mismatch is an error naming both files and counts')
    else:
        notok('cli: line count mismatch is an error naming both files and counts',
              f'rc={p.returncode} stdout={p.stdout!r} stderr={msg!r}')

    p = run([hyp, os.path.join(d, 'missing.txt')])
    if p.returncode != 0 and 'missing.txt' in p.stderr:
        ok('cli: missing reference file is an error')
    else:
        notok('cli: missing reference file is an error', f'rc={p.returncode} {p.stderr!r}')

sys.exit(done())

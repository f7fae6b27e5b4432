#!/usr/bin/env python3
"""Checks tools/chrf.py against hand-computed corpus chrF (sacreBLEU 2.x defaults).

Every expected number below is derived in the comments by counting character n-grams by hand
(whitespace removed first); the fractions are the hand results, the decimals were worked out on
paper from them, not by running the tool.
Notation per order n: (hyp, ref, match) = hypothesis n-grams, reference n-grams, clipped
matches; P = match/hyp, R = match/ref. An order counts in the average only when hyp > 0 and
ref > 0; and hyp is taken as 0 when the reference has no n-gram of that order.
F2 = (1 + 4) P R / (4 P + R) of the averaged P and R, times 100.
Run from the repository root: /usr/bin/python3 tests/py/test_chrf.py
"""

import os
import re
import subprocess
import sys
import tempfile
from fractions import Fraction as Fr

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(TOP, 'tools'))
CHRF_PY = os.path.join(TOP, 'tools', 'chrf.py')

from checks import done, expect_close, expect_eq, ok, not_ok as notok  # noqa: E402


try:
    import chrf
except Exception as e:  # noqa: BLE001 - report any import failure as a check
    notok('import tools/chrf.py', repr(e))
    sys.exit(1)
ok('import tools/chrf.py')


def f2(p, r):
    """F-beta (beta 2) of exact fractions, as a float percentage."""
    return float(100 * 5 * p * r / (4 * p + r))


def score(hyps, refs_list, **kw):
    return chrf.corpus_chrf(hyps, refs_list, **kw)


# ---------------------------------------------------------------------------------------------
# Case B: one sentence, P = R.
#   hyp 'the cat' -> 'thecat'    ref 'the hat' -> 'thehat'
#   n=1: hyp t t h e c a (6), ref t t h h e a (6); t 2/2, h 1 of 2, e, a, c misses -> 5: 5/6 5/6
#   n=2: th he ec ca at (5) vs th he eh ha at (5): th he at -> 3: 3/5 3/5
#   n=3: the hec eca cat (4) vs the heh eha hat (4): the -> 1: 1/4 1/4
#   n=4: thec heca ecat (3) vs theh heha ehat (3): 0;  n=5: (2, 2, 0);  n=6: (1, 1, 0)
#   six effective orders: P = R = (5/6 + 3/5 + 1/4) / 6 = (50 + 36 + 15)/60/6 = 101/360
#   F2 with P = R is P itself: 100 * 101/360 = 28.0556 -> 'chrF2 = 28.06'
# ---------------------------------------------------------------------------------------------
r = score(['the cat'], [['the hat']])
expect_eq('one sentence: stats per order', r.stats,
          [(6, 6, 5), (5, 5, 3), (4, 4, 1), (3, 3, 0), (2, 2, 0), (1, 1, 0)])
expect_close('one sentence: score = 100 * 101/360', r.score, 100 * 101 / 360)
expect_eq('one sentence: line', str(r), 'chrF2 = 28.06')

# ---------------------------------------------------------------------------------------------
# Case C: P != R, a sentence shorter than 6 characters.
#   hyp 'ab'    ref 'abc'
#   n=1: (2, 3, 2): P 1, R 2/3      n=2: ab vs ab bc: (1, 2, 1): P 1, R 1/2
#   n=3: the hypothesis has no 3-gram, the reference has 'abc': (0, 1, 0), not effective
#   n=4..6: the reference has none either: (0, 0, 0)
#   P = (1 + 1)/2 = 1, R = (2/3 + 1/2)/2 = 7/12
#   F2 = 5 * 7/12 / (4 + 7/12) = (35/12)/(55/12) = 7/11 = 63.6364 -> 'chrF2 = 63.64'
# ---------------------------------------------------------------------------------------------
r = score(['ab'], [['abc']])
expect_eq('short sentence: stats per order', r.stats,
          [(2, 3, 2), (1, 2, 1), (0, 1, 0), (0, 0, 0), (0, 0, 0), (0, 0, 0)])
expect_close('short sentence: F2 with P=1, R=7/12 is 7/11', r.score, 100 * 7 / 11)
expect_close('short sentence: F2 helper agrees', r.score, f2(Fr(1), Fr(7, 12)))
expect_eq('short sentence: line', str(r), 'chrF2 = 63.64')

# The reference shorter than the hypothesis: hyp 'abcd', ref 'ab'.
#   n=1: (4, 2, 2): P 1/2, R 1    n=2: ab bc cd vs ab: (3, 1, 1): P 1/3, R 1
#   n=3..6: the reference has no n-gram, so the hypothesis' 2, 1, 0, 0 are not counted
#   P = (1/2 + 1/3)/2 = 5/12, R = 1; F2 = 5 * 5/12 / (20/12 + 1) = (25/12)/(32/12) = 25/32
#   = 78.125
r = score(['abcd'], [['ab']])
expect_eq('short reference: hypothesis orders past it dropped', r.stats,
          [(4, 2, 2), (3, 1, 1), (0, 0, 0), (0, 0, 0), (0, 0, 0), (0, 0, 0)])
expect_close('short reference: score = 100 * 25/32', r.score, 78.125)

# A perfect match of 3 characters: orders 1..3 are (3,2,1 each), 4..6 are (0,0,0), so only
# three orders are averaged: P = R = 1 -> 100 (not pulled down by the missing 4..6-grams).
r = score(['abc'], [['abc']])
expect_close('3-char perfect match scores 100', r.score, 100.0)

# ---------------------------------------------------------------------------------------------
# Case D: corpus = cases B and C together; the statistics are summed, then one F.
#   n=1: (6+2, 6+3, 5+2) = (8, 9, 7)   n=2: (5+1, 5+2, 3+1) = (6, 7, 4)
#   n=3: (4+0, 4+1, 1+0) = (4, 5, 1)   n=4: (3, 3, 0)   n=5: (2, 2, 0)   n=6: (1, 1, 0)
#   all six effective:
#   P = (7/8 + 4/6 + 1/4)/6 = (21 + 16 + 6)/24/6 = 43/144
#   R = (7/9 + 4/7 + 1/5)/6 = (245 + 180 + 63)/315/6 = 488/1890 = 244/945
#   4P + R = 18060/15120 + 3904/15120 = 21964/15120;  P R = 10492/136080 = 10492/(9 * 15120)
#   F2 = 5 * 10492 / (9 * 21964) = 52460/197676 = 13115/49419 = 0.265384 -> 'chrF2 = 26.54'
#   (not the mean of the two sentence scores, (28.06 + 63.64)/2 = 45.85)
# ---------------------------------------------------------------------------------------------
r = score(['the cat', 'ab'], [['the hat', 'abc']])
expect_eq('corpus: summed stats', r.stats,
          [(8, 9, 7), (6, 7, 4), (4, 5, 1), (3, 3, 0), (2, 2, 0), (1, 1, 0)])
expect_close('corpus: score = 100 * 13115/49419', r.score, 100 * 13115 / 49419)
expect_close('corpus: F2 helper agrees', r.score, f2(Fr(43, 144), Fr(244, 945)))
expect_eq('corpus: line', str(r), 'chrF2 = 26.54')

# ---------------------------------------------------------------------------------------------
# Case E: empty hypothesis.
#   alone, hyp '' vs ref 'abc': (0,3,0) (0,2,0) (0,1,0) (0,0,0)x3: no effective order -> 0
#   with case C in the corpus: n=1 (2, 6, 2): P 1, R 1/3; n=2 (1, 4, 1): P 1, R 1/4;
#   n=3 (0, 2, 0) not effective. P = 1, R = (1/3 + 1/4)/2 = 7/24
#   F2 = 5 * 7/24 / (4 + 7/24) = 35/103 = 33.9806 -> 'chrF2 = 33.98' (its reference lowers R)
# ---------------------------------------------------------------------------------------------
r = score([''], [['abc']])
expect_eq('empty hypothesis alone: line', str(r), 'chrF2 = 0.00')
r = score(['ab', ''], [['abc', 'abc']])
expect_eq('empty hypothesis in a corpus: its reference counted', r.stats[:3],
          [(2, 6, 2), (1, 4, 1), (0, 2, 0)])
expect_close('empty hypothesis in a corpus: score = 100 * 35/103', r.score, 100 * 35 / 103)
# An empty reference adds nothing at all (its hypothesis counts are dropped): case C alone.
r = score(['ab', 'xyz'], [['abc', '']])
expect_close('empty reference adds nothing: score = 100 * 7/11', r.score, 100 * 7 / 11)

# ---------------------------------------------------------------------------------------------
# Whitespace and case.
# ---------------------------------------------------------------------------------------------
# 'a bc' and 'ab c' are both 'abc' once whitespace is gone: case of the perfect 3-char match.
expect_close('whitespace differences ignored', score(['a bc'], [['ab c']]).score, 100.0)
# Tabs, runs of spaces, no-break space (U+00A0) and ideographic space (U+3000) are whitespace.
expect_close('tabs and Unicode spaces removed',
              score([' the\tcat\u00a0sat  on\u3000the mat '], [['thecat sat on the mat']]).score,
              100.0)
# Case matters: 'Abc' vs 'abc': n=1 (3,3,2), n=2 (2,2,1), n=3 (1,1,0):
#   P = R = (2/3 + 1/2 + 0)/3 = 7/18 -> 38.8889
expect_close('case-sensitive: score = 100 * 7/18', score(['Abc'], [['abc']]).score,
             100 * 7 / 18)

# ---------------------------------------------------------------------------------------------
# Case F: two references; the one with the higher segment F gives the statistics.
#   hyp 'the cat' -> 'thecat'
#   ref1 'the hat': case B, F = 28.06
#   ref2 'a cat' -> 'acat':
#     n=1: hyp t2 h e c a (6), ref a2 c t (4): t min(2,1) + c + a min(1,2) = 3: P 1/2, R 3/4
#     n=2: th he ec ca at (5) vs ac ca at (3): ca at -> 2: P 2/5, R 2/3
#     n=3: the hec eca cat (4) vs aca cat (2): cat -> 1: P 1/4, R 1/2
#     n=4: thec heca ecat (3) vs acat (1): 0;  n=5, 6: ref has none -> (0, 0, 0)
#     four effective: P = (1/2 + 2/5 + 1/4 + 0)/4 = (23/20)/4 = 23/80
#                     R = (3/4 + 2/3 + 1/2 + 0)/4 = (23/12)/4 = 23/48
#     4P + R = 23/20 + 23/48 = 23 * 17/240; 5 P R = 2645/3840
#     F2 = (2645/3840) / (391/240) = 2645/6256 = 0.422794 -> 42.28 > 28.06: ref2 is taken
# ---------------------------------------------------------------------------------------------
r = score(['the cat'], [['the hat'], ['a cat']])
expect_eq('two refs: the better reference gives the stats', r.stats,
          [(6, 4, 3), (5, 3, 2), (4, 2, 1), (3, 1, 0), (0, 0, 0), (0, 0, 0)])
expect_close('two refs: score = 100 * 2645/6256', r.score, 100 * 2645 / 6256)
expect_close('two refs: F2 helper agrees', r.score, f2(Fr(23, 80), Fr(23, 48)))
expect_eq('two refs: line', str(r), 'chrF2 = 42.28')
r2 = score(['the cat'], [['a cat'], ['the hat']])
expect_eq('two refs, swapped order: same stats', r2.stats, r.stats)
# A None reference is no reference: the segment uses the other stream's.
r3 = score(['the cat', 'ab'], [['the hat', None], [None, 'abc']])
expect_close('None references skipped: case D again', r3.score, 100 * 13115 / 49419)
# A tie goes to the first reference: the empty hypothesis scores 0 against both, so the first
# reference's counts are kept. Corpus ['ab', ''] with refs for '' = 'abc' first: case E,
# 35/103. With 'a' first instead: n=1 (2, 4, 2): P 1, R 1/2; n=2 (1, 2, 1): P 1, R 1/2;
# n=3 (0, 1, 0). P = 1, R = 1/2: F2 = 2.5/4.5 = 5/9 = 55.5556.
r = score(['ab', ''], [['abc', 'abc'], ['abc', 'a']])
expect_close('tie: the first reference wins (abc)', r.score, 100 * 35 / 103)
r = score(['ab', ''], [['abc', 'a'], ['abc', 'abc']])
expect_close('tie: the first reference wins (a)', r.score, 100 * 5 / 9)

# ---------------------------------------------------------------------------------------------
# eps smoothing (sacreBLEU's --chrf-eps-smoothing, not the default): per-order F2 averaged over
# all six orders; P or R is eps = 1e-16 where its denominator is 0.
#   'abc' vs 'abc': orders 1..3 F = 1; orders 4..6 P = R = eps, F = 5 eps^2 / 5 eps = eps
#     -> 100 * (3 + 3 eps)/6 = 50.0
#   'ab' vs 'abc' (case C): n=1 5*(2/3)/(4 + 2/3) = 5/7; n=2 5*(1/2)/(4 + 1/2) = 5/9;
#     n=3 P = eps, R = 0/1 = 0 -> 0; n=4..6 eps -> 100 * (5/7 + 5/9)/6 = 100 * 40/189 = 21.164
# ---------------------------------------------------------------------------------------------
expect_close('eps smoothing: 3-char match is 50', score(['abc'], [['abc']],
                                                         eps_smoothing=True).score, 50.0)
expect_close('eps smoothing: case C = 100 * 40/189', score(['ab'], [['abc']],
                                                            eps_smoothing=True).score,
             100 * 40 / 189)

# API errors.
try:
    chrf.corpus_chrf(['a', 'b'], [['a']])
    notok('API: line count mismatch raises', 'no exception')
except ValueError:
    ok('API: line count mismatch raises')

# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------


def run(args, stdin=None):
    return subprocess.run([sys.executable, CHRF_PY] + args, input=stdin, capture_output=True,
                          text=True, timeout=60)


with tempfile.TemporaryDirectory() as d:
    def write(name, text):
        path = os.path.join(d, name)
        with open(path, 'w', encoding='utf-8', newline='') as f:
            f.write(text)
        return path

    # Case D as files (the reference with CRLF endings).
    hyp = write('hyp.txt', 'the cat\nab\n')
    ref = write('ref.txt', 'the hat\r\nabc\r\n')
    p = run([hyp, ref])
    expect_eq('cli: corpus line', (p.returncode, p.stdout.strip()), (0, 'chrF2 = 26.54'))
    p = run(['-b', hyp, ref])
    expect_eq('cli: --score-only', (p.returncode, p.stdout.strip()), (0, '26.54'))
    p = run(['-w', '4', hyp, ref])
    expect_eq('cli: --width 4', (p.returncode, p.stdout.strip()), (0, 'chrF2 = 26.5384'))
    p = run(['-', ref], stdin='the cat\nab')
    expect_eq('cli: hypothesis from stdin (no final newline)',
              (p.returncode, p.stdout.strip()), (0, 'chrF2 = 26.54'))

    # Two reference files: case F.
    h2 = write('h2.txt', 'the cat\n')
    ra = write('ra.txt', 'the hat\n')
    rb = write('rb.txt', 'a cat\n')
    p = run([h2, ra, rb])
    expect_eq('cli: two reference files', (p.returncode, p.stdout.strip()),
              (0, 'chrF2 = 42.28'))

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

#!/usr/bin/env python3
"""Corpus BLEU computed the way sacreBLEU 2.x does with its defaults.

    tools/bleu.py HYP_FILE REF_FILE [REF_FILE...]      (HYP_FILE may be '-' for stdin)
    tools/bleu.py --score-only HYP_FILE REF_FILE

prints, like sacreBLEU's plain score line,

    BLEU = 35.12 66.1/42.0/28.9/20.0 (BP = 0.987 ratio = 0.987 hyp_len = 12345 ref_len = 12500)

Defaults reproduced (sacreBLEU 2.x `BLEU()`):
  * tokenizer '13a' (mteval-v13a), case-sensitive, n-gram orders 1..4;
  * each line is right-stripped before tokenizing; files are split on '\\n' only (stdin uses
    Python's universal newlines, as sacreBLEU's stdin reader does);
  * per sentence, each hypothesis n-gram count is clipped by the largest count of that n-gram in
    any one reference of the sentence; matches and totals are summed over the corpus;
  * the reference length of a sentence is the reference length closest to the hypothesis
    length, the shorter one on a tie; lengths are summed over the corpus;
  * BP = exp(1 - r/c) when c < r (0 when c == 0), else 1;
  * 'exp' smoothing: walking n = 1..4, an order with 0 matches gets precision
    100 / (2^k * total_n), k counting the zero-match orders seen so far (1, 2, ...);
  * an order with total 0 stops the walk: it and the later orders keep precision 0 and the
    score is 0 (sacreBLEU floors log(0) to -9999999999); no matches at all: score 0 and every
    precision reported as 0;
  * score = BP * exp(mean of log(precision_n)), the precisions being percentages.

Importable: corpus_bleu(hyps, refs_list) where refs_list is a list of reference streams, each
a list of strings parallel to hyps (sacreBLEU's layout); tokenize_13a(line).
"""

import argparse
import io
import math
import re
import sys
from collections import Counter

MAX_ORDER = 4

# mteval-v13a rules, applied in order to the line padded with one space on each side.
# 1: split off the ASCII symbols { | } ~ [ \ ] ^ _ ` space ! " # $ % & ( ) * + : ; < = > ? @ /
#    (not '-', '.', ',' or the apostrophe);
# 2: '.' and ',' get spaces around them unless a digit comes before,
# 3: ... or unless a digit comes after;
# 4: a '-' that follows a digit is split off.
_RULES = (
    (re.compile(r'([\{-\~\[-\` -\&\(-\+\:-\@\/])'), r' \1 '),
    (re.compile(r'([^0-9])([\.,])'), r'\1 \2 '),
    (re.compile(r'([\.,])([^0-9])'), r' \1 \2'),
    (re.compile(r'([0-9])(-)'), r'\1 \2 '),
)


def tokenize_13a(line):
    """The 13a tokenization of one segment, tokens joined by single spaces."""
    for old, new in (('<skipped>', ''), ('-\n', ''), ('\n', ' ')):
        line = line.replace(old, new)
    if '&' in line:
        # This order matters: '&amp;quot;' becomes '&quot;' and stays so.
        for old, new in (('&quot;', '"'), ('&amp;', '&'), ('&lt;', '<'), ('&gt;', '>')):
            line = line.replace(old, new)
    line = ' ' + line + ' '
    for pattern, repl in _RULES:
        line = pattern.sub(repl, line)
    return ' '.join(line.split())


def _ngrams(tokens):
    """Counter of every n-gram (as a tuple), 1 <= n <= MAX_ORDER."""
    counts = Counter()
    length = len(tokens)
    for n in range(1, MAX_ORDER + 1):
        for i in range(length - n + 1):
            counts[tuple(tokens[i:i + n])] += 1
    return counts


def _closest_length(hyp_len, ref_lens):
    """The reference length nearest hyp_len; the shorter one on a tie."""
    return min(ref_lens, key=lambda r: (abs(r - hyp_len), r))


class BLEUResult:
    """A corpus BLEU score with the statistics it came from."""

    def __init__(self, score, counts, totals, precisions, bp, sys_len, ref_len):
        self.name = 'BLEU'
        self.score = score              # 0..100
        self.counts = counts            # clipped matches per order, [MAX_ORDER]
        self.totals = totals            # hypothesis n-grams per order, [MAX_ORDER]
        self.precisions = precisions    # percentages after smoothing, [MAX_ORDER]
        self.bp = bp
        self.sys_len = sys_len
        self.ref_len = ref_len
        self.ratio = sys_len / ref_len if ref_len else 0

    def format(self, width=2, score_only=False):
        if score_only:
            return f'{self.score:.{width}f}'
        precs = '/'.join(f'{p:.1f}' for p in self.precisions)
        return (f'{self.name} = {self.score:.{width}f} {precs} (BP = {self.bp:.3f} '
                f'ratio = {self.ratio:.3f} hyp_len = {self.sys_len:d} '
                f'ref_len = {self.ref_len:d})')

    def __str__(self):
        return self.format()

    def __repr__(self):
        return f'BLEUResult({self.format()!r})'


def _log_floored(x):
    # sacreBLEU's floor for log(0); makes the score exp(-huge) == 0.0.
    return math.log(x) if x != 0.0 else -9999999999


def bleu_from_stats(counts, totals, sys_len, ref_len):
    """Score from summed statistics with 'exp' smoothing (the default)."""
    counts = list(counts)
    totals = list(totals)
    if sys_len < ref_len:
        bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    else:
        bp = 1.0
    precisions = [0.0] * MAX_ORDER
    if not any(counts):
        return BLEUResult(0.0, counts, totals, precisions, bp, sys_len, ref_len)
    halvings = 1.0
    for i in range(MAX_ORDER):
        if totals[i] == 0:
            break
        if counts[i] == 0:
            halvings *= 2
            precisions[i] = 100. / (halvings * totals[i])
        else:
            precisions[i] = 100. * counts[i] / totals[i]
    mean_log = sum(_log_floored(p) for p in precisions) / MAX_ORDER
    return BLEUResult(bp * math.exp(mean_log), counts, totals, precisions, bp,
                      sys_len, ref_len)


def corpus_bleu(hyps, refs_list):
    """Corpus BLEU of hyps (list of str) against refs_list (list of reference streams, each a
    list of str as long as hyps; a None entry means 'no reference here')."""
    hyps = list(hyps)
    refs_list = [list(stream) for stream in refs_list]
    if not refs_list:
        raise ValueError('corpus_bleu: no reference stream given')
    for k, stream in enumerate(refs_list):
        if len(stream) != len(hyps):
            raise ValueError(f'corpus_bleu: {len(hyps)} hypotheses but reference stream {k} '
                             f'has {len(stream)} lines')
    counts = [0] * MAX_ORDER
    totals = [0] * MAX_ORDER
    sys_len = 0
    ref_len = 0
    for i, hyp in enumerate(hyps):
        refs = [stream[i] for stream in refs_list if stream[i] is not None]
        if not refs:
            raise ValueError(f'corpus_bleu: segment {i + 1} has no reference')
        best = Counter()
        ref_lens = []
        for ref in refs:
            toks = tokenize_13a(ref.rstrip()).split()
            ref_lens.append(len(toks))
            for gram, c in _ngrams(toks).items():
                if c > best[gram]:
                    best[gram] = c
        htoks = tokenize_13a(hyp.rstrip()).split()
        sys_len += len(htoks)
        ref_len += _closest_length(len(htoks), ref_lens)
        for gram, c in _ngrams(htoks).items():
            n = len(gram) - 1
            totals[n] += c
            m = best.get(gram)
            if m:
                counts[n] += min(c, m)
    return bleu_from_stats(counts, totals, sys_len, ref_len)


class _UsageError(Exception):
    pass


def _read_lines(path):
    """Lines of a UTF-8 file split on '\\n' only (or stdin for '-'), line ends kept off."""
    try:
        if path == '-':
            text = io.TextIOWrapper(sys.stdin.buffer, encoding='utf-8').read()
        else:
            with open(path, 'rb') as f:
                text = f.read().decode('utf-8')
    except OSError as e:
        raise _UsageError(f'cannot read {path}: {e.strerror or e}') from None
    except UnicodeDecodeError as e:
        raise _UsageError(f'{path}: not UTF-8 (byte offset {e.start})') from None
    lines = text.split('\n')
    if lines[-1] == '':
        lines.pop()
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog='bleu.py',
        description="Corpus BLEU as sacreBLEU 2.x computes it by default "
                    "(13a tokenizer, case-sensitive, exp smoothing).")
    ap.add_argument('hyp', metavar='HYP_FILE', help="hypothesis file, one segment a line "
                                                    "('-' for stdin)")
    ap.add_argument('refs', metavar='REF_FILE', nargs='+',
                    help='reference file(s), each parallel to HYP_FILE')
    ap.add_argument('-b', '--score-only', action='store_true', help='print only the score')
    ap.add_argument('-w', '--width', type=int, default=2,
                    help='decimals of the score (default 2)')
    args = ap.parse_args(argv)
    hyp_name = '<stdin>' if args.hyp == '-' else args.hyp
    try:
        hyps = _read_lines(args.hyp)
        refs_list = []
        for path in args.refs:
            lines = _read_lines(path)
            if len(lines) != len(hyps):
                raise _UsageError(f'line counts differ: hypothesis {hyp_name} has {len(hyps)} '
                                  f'lines, reference {path} has {len(lines)} lines')
            refs_list.append(lines)
        if not hyps:
            raise _UsageError(f'hypothesis {hyp_name} has no lines')
    except _UsageError as e:
        print(f'bleu.py: {e}', file=sys.stderr)
        return 1
    print(corpus_bleu(hyps, refs_list).format(args.width, args.score_only))
    return 0


if __name__ == '__main__':
    sys.exit(main())

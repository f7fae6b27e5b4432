#!/usr/bin/env python3
"""Corpus chrF computed the way sacreBLEU 2.x's CHRF() does with its defaults.

    tools/chrf.py HYP_FILE REF_FILE [REF_FILE...]      (HYP_FILE may be '-' for stdin)
    tools/chrf.py --score-only HYP_FILE REF_FILE

prints, like sacreBLEU's plain score line (Score.format without a signature),

    chrF2 = 57.43

Line numbers below are those of sacreBLEU 2.6.0 (mjpost/sacrebleu commit f615c72):
sacrebleu/metrics/chrf.py (chrf.py:N), sacrebleu/metrics/helpers.py (helpers.py:N),
sacrebleu/metrics/base.py (base.py:N), sacrebleu/sacrebleu.py (cli:N).

Defaults reproduced (`CHRF()`, chrf.py:72-102):
  * character n-grams of orders 1..6, no word n-grams (chrF, not chrF++), beta 2,
    case-sensitive, whitespace removed: the segment's str.split() pieces joined with nothing
    before the n-grams are cut (helpers.py:62-63), so any Unicode whitespace goes;
  * per order, per segment: hypothesis n-grams, reference n-grams, and matches (each
    hypothesis n-gram's count clipped by its count in the reference), but the hypothesis count
    is 0 when the reference has no n-gram of that order (chrf.py:118-129): a segment whose
    reference is shorter than n characters says nothing about order n;
  * several references: each is scored against the hypothesis alone with the same F formula and
    the first one with the highest segment score gives the segment's statistics (chrf.py:272-284,
    strict '>'); a reference given as None is no reference (base.py:339-340);
  * the statistics are summed over the corpus (chrf.py:215-221) and the score is computed once:
    per order precision = matches / hyp and recall = matches / ref; only the orders with both
    counts > 0 are averaged ('effective order', chrf.py:183-196: eps_smoothing is False by
    default, which is sacreBLEU < 2.0's averaging); then
    F = (1 + beta^2) P R / (beta^2 P + R), times 100, or 0 when P + R == 0 (chrf.py:198-203);
  * with --eps-smoothing (sacreBLEU's --chrf-eps-smoothing), chrF++.py's rule instead: per
    order precision / recall are eps = 1e-16 where their denominator is 0, the order's F-beta
    (eps where its denominator is 0) is averaged over all 6 orders (chrf.py:167-190).
Lines are right-stripped as sacreBLEU's command line reads them (cli:418-419; whitespace is
removed anyway). The score is printed with 2 decimals, as tools/bleu.py does (sacreBLEU's
Score.format default width, base.py:38-89; its command line's default is 1).

Importable: corpus_chrf(hyps, refs_list) where refs_list is a list of reference streams, each
a list of strings parallel to hyps (sacreBLEU's layout); segment_stats, chrf_from_stats.
"""

import argparse
import os
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bleu import _read_lines, _UsageError  # noqa: E402  one reader for both scorers

CHAR_ORDER = 6
BETA = 2
EPS = 1e-16     # chrf.py:167


def char_ngrams(line, max_order=CHAR_ORDER):
    """[Counter of the n-grams of order n for n = 1..max_order] of line without its whitespace."""
    text = ''.join(line.split())
    return [Counter(text[i:i + n] for i in range(len(text) - n + 1))
            for n in range(1, max_order + 1)]


def _order_stats(hyp_grams, ref_grams):
    """(hyp, ref, match) counts of one order; hyp counts only where ref has n-grams."""
    hyp_total = sum(hyp_grams.values())
    match = sum(min(c, ref_grams[g]) for g, c in hyp_grams.items() if g in ref_grams)
    ref_total = sum(ref_grams.values())
    return (hyp_total if ref_total else 0, ref_total, match)


def f_score(stats, beta=BETA, eps_smoothing=False):
    """chrF (0..100) of flat stats [hyp_1, ref_1, match_1, hyp_2, ...], 3 per order.
    The sums run in sacreBLEU's order (orders ascending) so the float bits agree."""
    order = len(stats) // 3
    factor = beta ** 2
    avg_prec = avg_rec = 0.0
    eps_sum = 0.0
    effective = 0
    for i in range(order):
        n_hyp, n_ref, n_match = stats[3 * i:3 * i + 3]
        prec = n_match / n_hyp if n_hyp > 0 else EPS
        rec = n_match / n_ref if n_ref > 0 else EPS
        if eps_smoothing:
            denom = factor * prec + rec
            eps_sum += (1 + factor) * prec * rec / denom if denom > 0 else EPS
        elif n_hyp > 0 and n_ref > 0:
            avg_prec += prec
            avg_rec += rec
            effective += 1
    if eps_smoothing:
        return 100 * eps_sum / order
    if effective == 0:
        return 0.0
    avg_prec /= effective
    avg_rec /= effective
    if avg_prec + avg_rec == 0:
        return 0.0
    score = (1 + factor) * avg_prec * avg_rec
    score /= factor * avg_prec + avg_rec
    return 100 * score


def segment_stats(hyp, refs, eps_smoothing=False):
    """Flat stats (3 per order) of one hypothesis against its best reference (see above)."""
    hyp_grams = char_ngrams(hyp)
    best, best_f = None, -1.0
    for ref in refs:
        stats = []
        for h, r in zip(hyp_grams, char_ngrams(ref)):
            stats.extend(_order_stats(h, r))
        f = f_score(stats, eps_smoothing=eps_smoothing)
        if f > best_f:      # strict: the first of equal references wins
            best, best_f = stats, f
    return best


class CHRFResult:
    """A corpus chrF score with the summed statistics it came from."""

    def __init__(self, score, stats, beta=BETA):
        self.name = f'chrF{beta}'
        self.score = score      # 0..100
        self.stats = stats      # [(hyp, ref, match)] per order, orders 1..CHAR_ORDER

    def format(self, width=2, score_only=False):
        if score_only:
            return f'{self.score:.{width}f}'
        return f'{self.name} = {self.score:.{width}f}'

    def __str__(self):
        return self.format()

    def __repr__(self):
        return f'CHRFResult({self.format()!r})'


def chrf_from_stats(stats, eps_smoothing=False):
    """The score of flat stats summed over a corpus."""
    stats = list(stats)
    triples = [tuple(stats[i:i + 3]) for i in range(0, len(stats), 3)]
    return CHRFResult(f_score(stats, eps_smoothing=eps_smoothing), triples)


def corpus_chrf(hyps, refs_list, eps_smoothing=False):
    """Corpus chrF of hyps (list of str) against refs_list (list of reference streams, each a
    list of str as long as hyps; a None entry means 'no reference here')."""
    hyps = list(hyps)
    refs_list = [list(stream) for stream in refs_list]
    if not refs_list:
        raise ValueError('corpus_chrf: no reference stream given')
    if not hyps:
        raise ValueError('corpus_chrf: no hypotheses')
    for k, stream in enumerate(refs_list):
        if len(stream) != len(hyps):
            raise ValueError(f'corpus_chrf: {len(hyps)} hypotheses but reference stream {k} '
                             f'has {len(stream)} lines')
    total = [0] * (3 * CHAR_ORDER)
    for i, hyp in enumerate(hyps):
        refs = [stream[i] for stream in refs_list if stream[i] is not None]
        if not refs:
            raise ValueError(f'corpus_chrf: segment {i + 1} has no reference')
        for j, v in enumerate(segment_stats(hyp, refs, eps_smoothing)):
            total[j] += v
    return chrf_from_stats(total, eps_smoothing)


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog='chrf.py',
        description="Corpus chrF as sacreBLEU 2.x computes it by default "
                    "(character 6-grams, beta 2, whitespace removed, effective-order averaging).")
    ap.add_argument('hyp', metavar='HYP_FILE', help="hypothesis file, one segment a line "
                                                    "('-' for stdin)")
    ap.add_argument('refs', metavar='REF_FILE', nargs='+',
                    help='reference file(s), each parallel to HYP_FILE')
    ap.add_argument('-b', '--score-only', action='store_true', help='print only the score')
    ap.add_argument('-w', '--width', type=int, default=2,
                    help='decimals of the score (default 2)')
    ap.add_argument('--eps-smoothing', action='store_true',
                    help="chrF++.py's eps smoothing over all orders (sacreBLEU's "
                         "--chrf-eps-smoothing) instead of the effective-order average")
    args = ap.parse_args(argv)
    hyp_name = '<stdin>' if args.hyp == '-' else args.hyp
    try:
        hyps = [line.rstrip() for line in _read_lines(args.hyp)]
        refs_list = []
        for path in args.refs:
            lines = _read_lines(path)
            if len(lines) != len(hyps):
                raise _UsageError(f'line counts differ: hypothesis {hyp_name} has {len(hyps)} '
                                  f'lines, reference {path} has {len(lines)} lines')
            refs_list.append([line.rstrip() for line in lines])
        if not hyps:
            raise _UsageError(f'hypothesis {hyp_name} has no lines')
    except _UsageError as e:
        print(f'chrf.py: {e}', file=sys.stderr)
        return 1
    print(corpus_chrf(hyps, refs_list, args.eps_smoothing).format(args.width, args.score_only))
    return 0


if __name__ == '__main__':
    sys.exit(main())

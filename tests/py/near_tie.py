"""near_tie.py — xlate's tokens against a PyTorch oracle, telling a near-tie from a difference
(issue 34).

xlate's kernels give the same bits on every CPU; PyTorch's f32 kernels do not (their sums are
blocked and ordered per CPU family). Where the reference's own best and second-best candidates
lie closer than the two implementations' rounding differences, a line may come out either way,
and which way depends on the CPU the reference ran on. Such a line is a near-tie, not a bug;
any other difference is one.

--return-alternatives' choice of tokens goes through favored_order the same way (xlate's
tokens taken where they differ from the reference's ranking by near-ties alone).

So a line that differs is searched again by the reference with each decision broken towards
xlate's path wherever xlate's candidate is within TOL of the reference's own choice (the
references' `favor`/`tol`: tools/marian_reference.py's greedy and beam, tools/reference_beam.py's
search), recording the reference's margin at every swap it made: greedy, best minus xlate's
token's processed score at the step; beam, the score of the candidate or finished hypothesis
that xlate's overtook minus xlate's. The line passes only when that search gives xlate's output
exactly and every swap's margin is below TOL. The near-ties are counted and printed.

TOL = 1e-4, on processed log-prob scores (or logits, for greedy on raw logits), because:
  - f32's unit roundoff is u = 2^-24 = 6.0e-8. A dot product of n terms summed in two different
    orders differs by up to about 2 n u sum|a_i b_i| (Higham, "Accuracy and Stability of
    Numerical Algorithms", 3.1, the bound gamma_n); typically by sqrt(n) u sum|a_i b_i|.
  - The test models have d = 16..64 and logits of magnitude 1..10, sum|h_i w_i| up to ~20:
    one output product alone may differ by up to 2 * 64 * 6e-8 * 20 = 1.5e-4 between the
    two implementations, about 1e-5 typically; a few layers before it (each a product of the
    same size, with LayerNorm renormalizing) add differences of the same order, and a beam's
    score sums up to ~40 steps of them.
  - Measured: tests/py/test_beam.py holds xlate's per-token log-probs within 1e-4 of PyTorch's
    on every step of its fixtures (2e-3 on its one post-norm GELU model), and the swaps this
    module has met are at most a few 1e-6 (printed by each check).
  A margin of 1e-4 or more is a decision no f32 rounding difference on these models flips: a
  real difference.
"""
import contextlib
import sys

from checks import not_ok, ok

TOL = 1e-4


@contextlib.contextmanager
def favoring(m, ids):
    """The reference m (tools/marian_reference.py's Marian, or M2M100) searches with its ties
    within TOL broken towards ids (xlate's, without eos); yields the list of swaps' margins."""
    m.favor, m.tol, m.swaps = list(ids), TOL, []
    try:
        yield m.swaps
    finally:
        m.favor, m.tol, m.swaps = None, 0.0, []


def compare(what, got, want, refit):
    """One check over lines: got[i] is xlate's output of line i, want[i] the reference's (ids,
    a text, or a list of them: any value ==-comparable); refit(i) returns (output, margins):
    the reference's output of line i searched again favoring got[i], and its swaps' margins.
    A line passes when equal, or when refit gives got[i] with every margin < TOL (a near-tie)."""
    if len(got) != len(want):
        not_ok(what, f"{len(got)} lines from xlate, {len(want)} from the reference")
        return
    same, ties, bad = 0, [], []
    for i, (g, w) in enumerate(zip(got, want)):
        if g == w:
            same += 1
            continue
        out, margins = refit(i)
        worst = max(margins) if margins else None
        if out == g and worst is not None and worst < TOL:
            ties.append((i, worst))
        else:
            why = "the reference favoring xlate's path still differs" + \
                (f" (its margin where it left xlate's path: {margins[-1]:.3g})"
                 if margins and margins[-1] >= TOL else "")
            bad.append(f"line {i + 1}: {why} (xlate {short(g)}, reference {short(w)})")
    tie_note = ", ".join(f"line {i + 1} by {m:.1e}" for i, m in ties)
    if bad:
        not_ok(what, f"{len(bad)} of {len(got)} lines differ beyond a near-tie: "
               + "; ".join(bad[:3]) + (f"; {len(ties)} near-ties ({tie_note})" if ties else ""))
    else:
        ok(f"{what}: {same}/{len(got)} identical, {len(ties)} near-tie"
           f"{'' if len(ties) == 1 else 's'} (margin < {TOL:g})"
           + (f": {tie_note}" if ties else ""))
    if ties:
        print(f"# near-ties: {what}: {tie_note}", file=sys.stderr)


def favored_order(scores, allowed, favor_first, A):
    """The A best tokens of `allowed` by scores (ties to the lower id), as --return-alternatives
    picks them, or favor_first (xlate's A tokens, in its order) when that order differs from
    the reference's by near-ties alone. Returns (order, margins): each margin is how much a
    token the reference ranks higher (its score, then its lower id) lost to one favor_first
    puts first (a pair inside favor_first in the other order, or a token left out)."""
    s = {v: float(scores[v]) for v in allowed}
    ref = sorted(s, key=lambda v: (-s[v], v))[:A]
    F = list(favor_first)
    if F == ref:
        return ref, []
    if len(set(F)) != len(F) or any(v not in s for v in F) or len(F) != len(ref):
        return ref, [float("inf")]

    def above(b, a):  # the reference ranks b before a
        return (-s[b], b) < (-s[a], a)
    margins = [s[F[j]] - s[F[i]] for i in range(len(F)) for j in range(i + 1, len(F))
               if above(F[j], F[i])]
    out = [v for v in s if v not in F]
    for f in F:
        higher = [s[c] - s[f] for c in out if above(c, f)]
        if higher:
            margins.append(max(higher))
    if margins and max(margins) < TOL:
        return F, margins
    return ref, margins


def short(x, n=60):
    s = repr(x)
    return s if len(s) <= n else s[: n - 3] + "..."

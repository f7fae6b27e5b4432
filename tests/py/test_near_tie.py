"""The near-tie machinery the PyTorch comparisons rely on (tests/py/near_tie.py, the references'
favor/tol/swaps), checked on exact ties made by hand, so that it is known to pass a tie and to
fail a difference on every machine, not only where PyTorch happens to meet a near-tie.

A tie is made by giving token b exactly token a's weights (its embedding row, output row and
bias; reference_beam.tie_tokens' construction): after either, the states are identical, and
their logits equal but for the rounding of PyTorch's f32 product, which computes the two
output columns in different lanes or blocks (measured here: 1e-6 to 4e-5 apart, a near-tie
made on purpose). On the path the reference's own search takes, the first a replaced by b is
a path of the same score. For greedy and beam 2, on tools/reference_beam.py's own models and
on tools/marian_reference.py's MarianMT, short searches (12 steps):
  - favoring that twin path, the search takes it, each swap's margin below TOL;
  - near_tie.compare passes that line, counting one near-tie;
  - favoring a path through a token c whose score is below a's by more than 10 TOL, the
    search keeps its own path, and near_tie.compare fails the line.
And near_tie.favored_order (--return-alternatives' choice of tokens) on scores set by hand.
Run by tests/run.sh with env XLATE and Debian's /usr/bin/python3.
"""
import os
import shutil
import subprocess
import sys
import tempfile

import torch

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import marian_reference as R  # noqa: E402
import reference_beam as RB  # noqa: E402
import near_tie  # noqa: E402
from checks import check, done, expect_eq  # noqa: E402

PY = os.environ.get("PYTHON", "/usr/bin/python3")
SRC = [11, 23, 7, 30, 5]


def compare_says(got, want, refit):
    """What near_tie.compare reports for one line: ("ok", text) or ("not ok", text)."""
    said = []
    saved = near_tie.ok, near_tie.not_ok
    near_tie.ok = lambda what: said.append(("ok", what))
    near_tie.not_ok = lambda what, why: said.append(("not ok", why))
    try:
        near_tie.compare("line", [got], [want], lambda i: refit(got))
    finally:
        near_tie.ok, near_tie.not_ok = saved
    return said[0]


def below(scores, a, exclude):
    """A token whose score is below a's by more than TOL (the highest such one)."""
    order = sorted(range(len(scores)), key=lambda v: -float(scores[v]))
    for v in order:
        if v not in exclude and float(scores[a] - scores[v]) > 10 * near_tie.TOL:
            return v
    raise RuntimeError("no token below")


ML = 12  # short searches: the twins' noise below adds up over the steps of a beam's score


def twin_path(plain, a, b):
    """plain's path with its first a replaced by b (None when a is not on it): a path of the
    same score, since b's weights are a's."""
    return plain[: plain.index(a)] + [b] + plain[plain.index(a) + 1:] if a in plain else None


def tie_checks(who, K, plain, a, b, refit, scores):
    """The checks of one reference and K: plain = its search's output with b a twin of a,
    refit(got) = (its output favoring got, margins), scores = the first step's scores."""
    fav = twin_path(plain, a, b)
    if fav is None:
        check(f"{who}, K={K}: a = {a} is on the plain path", lambda: f"not on {plain}")
        return
    out, margins = refit(fav)
    check(f"{who}, K={K}: favoring the twin path through b = {b} instead of a = {a}, the "
          f"search takes it, each swap's margin below {near_tie.TOL:g} (largest "
          f"{max(margins or [0]):.2g})", lambda: None if out == fav and margins and
          max(margins) < near_tie.TOL else f"took {out}, margins {margins}")
    said = compare_says(fav, plain, refit)
    check(f"{who}, K={K}: near_tie.compare passes the twin line as a near-tie",
          lambda: None if said[0] == "ok" and "1 near-tie" in said[1] else said)
    c = below(scores, a, set(plain + SRC + [b]))
    worse = plain[: plain.index(a)] + [c] + plain[plain.index(a) + 1:]
    out, margins = refit(worse)
    check(f"{who}, K={K}: favoring a path through c = {c} (below a by "
          f"{float(scores[a] - scores[c]):.3g} at the first step), the search keeps its own",
          lambda: None if out != worse else f"took {out}")
    said = compare_says(worse, plain, refit)
    check(f"{who}, K={K}: near_tie.compare fails that line, naming the margin",
          lambda: None if said[0] == "not ok" and "differ beyond a near-tie" in said[1]
          else said)


def rb_checks():
    model, _ = RB.load_model(os.path.join(TOP, "tests", "fixtures", "parity", "post_relu_tied"))
    for K in (1, 2):
        base = RB.n_best(RB.search(model, SRC, K, ML), 1, 1.0, greedy=K == 1)[0][0].ids
        a = base[0]
        b = max(v for v in range(model.emb.weight.shape[0]) if v not in base + SRC)
        tied = RB.tie_tokens(model, [(a, b)])
        plain = RB.n_best(RB.search(tied, SRC, K, ML), 1, 1.0, greedy=K == 1)[0][0].ids

        def refit(got, K=K, tied=tied):
            swaps = []
            kw = dict(favor=got, tol=near_tie.TOL, swaps=swaps)
            fin = RB.search(tied, SRC, K, ML, **kw)
            return RB.n_best(fin, 1, 1.0, greedy=K == 1, **kw)[0][0].ids, swaps
        mem, mask = encoded(tied, SRC)
        tie_checks("reference_beam", K, plain, a, b, refit,
                   RB.step_log_probs(tied, mem, mask, [[RB.tm.BOS]], False)[0])


def encoded(model, src):
    s = torch.tensor([list(src) + [RB.tm.EOS]], dtype=torch.long)
    mask = torch.zeros_like(s, dtype=torch.bool)
    return RB.tm.encode(model, s, mask, False), mask


def marian_checks(tmp):
    d = os.path.join(tmp, "marian")
    subprocess.run([PY, os.path.join(TOP, "tools", "make_marian.py"), "--seed", "11", d],
                   check=True, capture_output=True)
    m = R.Marian(d)
    for K in (1, 2):
        def search(got=None, K=K):
            if got is None:
                return R.strip_eos(m.greedy(SRC, ML) if K == 1 else m.beam(SRC, K, ML)[0][1],
                                   m.eos)
            with near_tie.favoring(m, got) as margins:
                return search(None, K), list(margins)
        base = search()
        a = base[0]
        b = max(v for v in range(m.lm_head.shape[0]) if v not in base + SRC + [m.pad, m.eos])
        saved = (m.lm_head[b].clone(), m.bias[0][b].clone(), m.tgt_emb[b].clone())
        with torch.no_grad():
            m.lm_head[b] = m.lm_head[a]
            m.tgt_emb[b] = m.tgt_emb[a]
            m.bias[0][b] = m.bias[0][a]
        try:
            mem = m.encode(SRC + [m.eos])
            lg = m.logits(mem, [[m.start]])
            scores = m.process([[m.start]], lg if K == 1 else torch.log_softmax(lg, -1), ML)[0]
            tie_checks("marian_reference", K, search(), a, b, search, scores)
        finally:
            with torch.no_grad():
                m.lm_head[b], m.bias[0][b], m.tgt_emb[b] = saved


def order_checks():
    """near_tie.favored_order (--return-alternatives' tokens) on scores computed by hand."""
    sc = {0: 5.0, 1: 4.99995, 2: 3.0, 3: 2.99999, 4: 1.0, 5: 4.0}
    allowed = [0, 1, 2, 3, 4, 5]
    expect_eq("favored_order: no favor, the 3 best by score", near_tie.favored_order(
        sc, allowed, [], 3), ([0, 1, 5], [float("inf")]))
    expect_eq("favored_order: xlate's order equal to the reference's: no margin",
              near_tie.favored_order(sc, allowed, [0, 1, 5], 3), ([0, 1, 5], []))
    order, m = near_tie.favored_order(sc, allowed, [1, 0, 5], 3)
    check("favored_order: 0 and 1 swapped (5e-5 apart): xlate's order, margin 5e-5",
          lambda: None if order == [1, 0, 5] and len(m) == 1 and abs(m[0] - 5e-5) < 1e-9
          else (order, m))
    order, m = near_tie.favored_order(sc, allowed, [0, 5, 1], 3)
    check("favored_order: 5 before 1 (0.99995 apart): the reference's order",
          lambda: None if order == [0, 1, 5] and max(m) > near_tie.TOL else (order, m))
    sc2 = {0: 5.0, 1: 4.0, 2: 3.0, 3: 2.99999}
    order, m = near_tie.favored_order(sc2, [0, 1, 2, 3], [0, 1, 3], 3)
    check("favored_order: 3 taken instead of 2 (1e-5 lower): xlate's, margin 1e-5",
          lambda: None if order == [0, 1, 3] and len(m) == 1 and abs(m[0] - 1e-5) < 1e-9
          else (order, m))
    sc3 = {7: 1.0, 4: 1.0}
    expect_eq("favored_order: an exact tie taken by the higher id: margin 0",
              near_tie.favored_order(sc3, [7, 4], [7], 1), ([7], [0.0]))


def main():
    order_checks()
    tmp = tempfile.mkdtemp()
    try:
        rb_checks()
        marian_checks(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return done()


if __name__ == "__main__":
    sys.exit(main())

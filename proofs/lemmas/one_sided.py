"""L-one-sided (theory.md §4, exact rows and the decision's side): errors that cannot cross the threshold.

Statement.  An average head with exact value dims, at a row whose hard maxima sit on one level carrying one
value v: the row sees keys of that level and of lower levels only, so its soft output, whatever the scores'
error, lies in the hull of v and the lower levels' values — equal to v when they all carry v, ≤ v when they
carry at most v, ≥ v when at least v.  A function f non-decreasing on [soft lower end, v] keeps soft ≤ hard
(f(x) ≤ f(v) for x ≤ v); non-increasing turns it into soft ≥ hard.  At the output, with the decision y > θ, a
row with soft ≤ hard = y ≤ θ decides False in soft as in hard, and one with soft ≥ hard = y > θ decides True,
whatever the size of the error: such rows need no margin.  A row uniform in hard whose one noisy query dim sits
at an end of its soft hull has soft scores δ·g(class) with δ's sign known: weights grow with g (δ ≥ 0), so a
value that falls as g rises averages at most the uniform (hard) mean.

Human proof (≤ 5 lines).
(a) Visible keys score at most the maximum, so they sit on the maximal level or lower; weights are positive, sum 1.
(b) So soft = Σ_j w_j·x_j with every visible x_j ≤ v is ≤ v (equal to v when every x_j = v).
(c) x ≤ v and f non-decreasing on [x, v] give f(x) ≤ f(v).
(d) soft ≤ y ≤ θ makes soft > θ false, as y > θ is; soft ≥ y > θ makes both true.
(e) Chebyshev's sum inequality: weights and values ordered oppositely give Σ w·v ≤ (Σ w)·(mean of v).

Discharge.  QF_NRA for (b) with three keys and normalised positive weights; QF_LRA for (c) with one rounding
unit ReLU(4x − 1) (the kernel checks each FFN's slopes piece by piece, exactly) and for (d) as stated; QF_NRA
for (e) with two keys (the pairwise exchange argument that sums over any number).  Controls: (b) with one lower key above v, (d) with the side reversed, (e) with the orders alike.
The kernel (``structure._noisy_outputs``, ``_tilt``, ``_ffn_spans``, ``span_margin``) records ``noisy_spans``,
which ``certify check --audit`` tests at every row of every word it runs.
"""
from __future__ import annotations

from proofs.lemmas.base import Control, Lemma
from proofs.smt import Query

HULL = ("w1", "w2", "w3", "x2", "x3", "v")
RAMP = ("x", "v", "rx", "rv")
SIDE = ("soft", "y", "theta")
TILT = ("w1", "w2", "v1", "v2")


def soft_in_hull(B, k, one_above=False):
    """Weights w1..w3 > 0 summing to 1 on v (the maximal level) and x2, x3 (lower keys, ≤ v): the mean is ≤ v."""
    w1, w2, w3, x2, x3, v = (k[n] for n in HULL)
    hyps = [B.gt(w1, 0), B.gt(w2, 0), B.gt(w3, 0), B.eq(w1 + w2 + w3, 1), B.le(x2, v)] + \
        ([] if one_above else [B.le(x3, v)])
    return hyps, B.le(w1 * v + w2 * x2 + w3 * x3, v)


def one_lower_key_above(B, k):
    return soft_in_hull(B, k, one_above=True)


def _relu(B, r, z):
    """r = max(z, 0), linearly: r ≥ 0, r ≥ z, and r is one of them."""
    return [B.ge(r, 0), B.ge(r, z), B.or_(B.eq(r, 0), B.eq(r, z))]


def monotone_keeps_side(B, k):
    """A rounding unit ReLU(4x − 1) (slope ≥ 0 everywhere): x ≤ v gives ReLU(4x − 1) ≤ ReLU(4v − 1)."""
    x, v, rx, rv = (k[n] for n in RAMP)
    return [B.le(x, v)] + _relu(B, rx, 4 * x - 1) + _relu(B, rv, 4 * v - 1), B.le(rx, rv)


def side_decides_as_hard(B, k, reversed_side=False):
    soft, y, theta = (k[n] for n in SIDE)
    hyps = [B.ge(soft, y), B.le(y, theta)] if reversed_side else [B.le(soft, y), B.le(y, theta)]
    return hyps, B.not_(B.gt(soft, theta))


def side_reversed(B, k):
    return side_decides_as_hard(B, k, reversed_side=True)


def tilt_lowers_the_mean(B, k, same_order=False):
    """Weights w1 ≥ w2 > 0 summing to 1 (the key with the larger g weighs more) and values v1 ≤ v2 (the value
    falls as g rises; the control orders them alike): the weighted mean is at most the uniform one."""
    w1, w2, v1, v2 = (k[n] for n in TILT)
    hyps = [B.gt(w2, 0), B.ge(w1, w2), B.eq(w1 + w2, 1), B.ge(v1, v2) if same_order else B.le(v1, v2)]
    return hyps, B.le(2 * (w1 * v1 + w2 * v2), v1 + v2)


def tilt_same_order(B, k):
    return tilt_lowers_the_mean(B, k, same_order=True)


LEMMA = Lemma(
    name="L-one-sided",
    statement="a row whose maximal level carries one value v sees only that level and lower ones, so its soft output "
              "lies in the hull of v and their values (≤ v when they carry at most v); monotone FFNs keep the side, "
              "a row with soft ≤ hard ≤ θ (or soft ≥ hard > θ) decides as hard whatever the error; a uniform row tilted by a "
              "query error of known sign toward keys of lower values averages below its hard mean",
    queries=(Query("soft-in-hull", HULL, soft_in_hull), Query("monotone-keeps-side", RAMP, monotone_keeps_side),
             Query("side-decides-as-hard", SIDE, side_decides_as_hard), Query("tilt-lowers-the-mean", TILT, tilt_lowers_the_mean)),
    controls=(Control("L-one-sided/one-lower-key-above", Query("one-lower-key-above", HULL, one_lower_key_above)),
              Control("L-one-sided/side-reversed", Query("side-reversed", SIDE, side_reversed)),
              Control("L-one-sided/tilt-same-order", Query("tilt-same-order", TILT, tilt_same_order))),
)

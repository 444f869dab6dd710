"""L-value-classes (theory.md §4, the general gap principle read on values): keys apart by what they carry.

Statement.  Partition a head's keys into classes, each carrying one value vector; class A's scores at a row
lie in [lo_A, hi_A].  If any two classes that carry different values have disjoint intervals, at least g > 0
apart, then (a) at every row the maximal keys carry one value (the top class present), and every key valued
otherwise lies ≥ g below them; (b) over a box of query values on which each class's interval ends move
affinely term by term, the separation lo_A − hi_B is least at a corner of the box (lo_A is a sum of minima
of affine functions: concave; hi_B convex), so corners decide the order and g; (c) with every score moved by
at most η, the soft weight on the keys valued unlike the maxima is ≤ e^{2η/τ}·r/(1 + r), r ≤ (N − 1)e^{−g/τ}
(the algebra of L-fp-gap with "the maxima" read as "the keys carrying the maxima's value", which include a
maximal key), so a head output errs by at most ν + D·min(1, e^{2η/τ}·r/(1 + r)): no 1/τ amplification.
(d) The ranges the classes need: an affine function on [a, b] lies between its values at a and b (so a
piecewise-linear FFN output is bounded by its values at the ends and breakpoints; a ReLU is monotone); a
position embedding P/Q whose numerator and denominator, in a = i − first and b = n − i, have coefficients of
one sign is ≥ 0 at every row.

Human proof (≤ 5 lines).
(a) Let the maximal key lie in class A and a key j in class B carry another value.  If B were above A,
    s_j ≥ lo_B ≥ hi_A + g > s_max; so A is above B and s_max − s_j ≥ lo_A − hi_B ≥ g.
(b) lo_A − hi_B is a minimum of affine functions of the query values, each least at a vertex of the box.
(c) L-fp-gap's proof with M the keys carrying the maximal value (their weight W' ≥ e^{−η/τ}).
(d) Linear interpolation; polynomials with non-negative coefficients are ≥ 0 on the orthant.

Discharge.  (a) QF_LRA; (b) QF_NRA over one query coordinate (the box is a product: apply it coordinate by
coordinate) for a minimum of two affine pieces (more by induction); (d) QF_NRA.  (c) is L-fp-gap.  Controls: (a) with only the
lower ends apart, (b) claiming the separation is largest at the ends.  The kernel
(``structure.value_classes``) evaluates (b) at every corner of the query hulls per joint query value and
records the class gap as ``class_gap``; ``certify check --audit`` tests it on every row.
"""
from __future__ import annotations

from proofs.lemmas.base import Control, Lemma
from proofs.smt import Query

SEPARATION = ("sA", "sB", "loA", "hiA", "loB", "hiB", "g")
CORNER = ("x", "lo", "hi", "p1", "q1", "p2", "q2")
AFFINE = ("x", "a", "b", "c0", "c1")


def _separated(B, v, lower_ends_only=False):
    sA, sB, loA, hiA, loB, hiB, g = (v[k] for k in SEPARATION)
    apart = B.or_(B.ge(loA - loB, g), B.ge(loB - loA, g)) if lower_ends_only else \
        B.or_(B.ge(loA - hiB, g), B.ge(loB - hiA, g))
    hyps = [B.le(loA, sA), B.le(sA, hiA), B.le(loB, sB), B.le(sB, hiB), B.gt(g, 0), apart, B.ge(sA, sB)]
    return hyps, B.ge(sA - sB, g)


def maximal_class_is_the_top_one(B, v):
    return _separated(B, v)


def lower_ends_apart_only(B, v):
    return _separated(B, v, lower_ends_only=True)


def _min(B, a, b):
    return -B.max(-a, -b)


def _separation_at(B, v, x):
    """lo_A(x) − hi_B(x) = min over pairs of affine pieces (lo_A a min of affine terms, hi_B a max): a
    minimum of affine functions of x, written with two pieces (more follow by induction)."""
    return _min(B, v["p1"] + v["q1"] * x, v["p2"] + v["q2"] * x)


def least_at_a_corner(B, v, largest=False):
    x, lo, hi = v["x"], v["lo"], v["hi"]
    ends = (_separation_at(B, v, lo), _separation_at(B, v, hi))
    bound = B.max(*ends) if largest else _min(B, *ends)
    return [B.le(lo, x), B.le(x, hi)], B.ge(_separation_at(B, v, x), bound)


def largest_at_a_corner(B, v):
    return least_at_a_corner(B, v, largest=True)


def affine_between_its_ends(B, v):
    x, a, b, c0, c1 = (v[k] for k in AFFINE)
    f = lambda t: c0 + c1 * t  # noqa: E731
    return [B.le(a, x), B.le(x, b)], B.and_(B.ge(f(x), _min(B, f(a), f(b))), B.le(f(x), B.max(f(a), f(b))))


LEMMA = Lemma(
    name="L-value-classes",
    statement="classes carrying different values with score intervals ≥ g apart: the maxima carry one value, "
              "keys valued otherwise lie ≥ g below; the separation is least at a corner of the query box; "
              "the weight on those keys is ≤ e^{2η/τ}·r/(1 + r) (L-fp-gap), r ≤ (N − 1)e^{−g/τ}",
    queries=(Query("maximal-class-is-the-top-one", SEPARATION, maximal_class_is_the_top_one),
             Query("least-at-a-corner", CORNER, least_at_a_corner),
             Query("affine-between-its-ends", AFFINE, affine_between_its_ends)),
    controls=(Control("L-value-classes/lower-ends-only", Query("lower-ends-only", SEPARATION, lower_ends_apart_only)),
              Control("L-value-classes/largest-at-a-corner", Query("largest-at-a-corner", CORNER, largest_at_a_corner))),
)

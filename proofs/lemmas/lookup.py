"""L-lookup (theory.md §3; paper's Lemma 7): a quadratic score is a ziggurat with g = β, c = 2.

Statement.  Scores s_j = β(2a j − j²) (β > 0, a and j integers) equal β(a² − (j−a)²); the
unique max is at j = a, every other j is ≥ β(j−a)² ≥ β below it, and for every k ≥ 1
at most two positions have (j−a)² ∈ [k, k+1), so L-ziggurat applies with g = β, c = 2:
leakage ≤ 2 Σ_{d≥1} q^{d²} ≤ 2q/(1−q), q = e^{−β/τ}.

Human proof (≤ 5 lines).
1. Expand: a² − (j−a)² = a² − j² + 2aj − a² = 2aj − j².
2. So s_a − s_j = β(j−a)², which is ≥ β when j ≠ a are integers (|j − a| ≥ 1).
3. (j−a)² is an integer in [k, k+1), so it equals k; (j−a)² = k has at most the two roots a ± √k.
4. Hence ≤ 2 positions per band, and q^{d²} ≤ q^d gives the ziggurat series 2q/(1−q).

Discharge.  Steps 1–2: QF_NRA; step 3: QF_NIA on offsets d = j − a (three distinct
integer offsets in one band is unsat); step 4: ball check of Σ 2q^{d²} against 2q/(1−q) at sample q.
A vertex off the integers (2a = m/K, m ≢ K mod 2K, e.g. a = (2n + 1)/4): QF_NIA for the spacing β/K of
distinct scores (a control keeps the ties), an exact residue check that a tie at the top needs a ∈ Z.
"""
from __future__ import annotations

from fractions import Fraction

from flint import arb

from proofs.lemmas.base import Check, Control, Lemma
from proofs.smt import Query

BAND3 = ("k", "d1", "d2", "d3")
BAND2 = ("k", "d1", "d2")


def identity_and_gap(B, v):
    beta, a, j = v["beta"], v["a"], v["j"]
    score = lambda x: beta * (2 * a * x - x * x)  # noqa: E731
    hyps = [B.gt(beta, 0), B.ge(B.abs(j - a), 1)]
    return hyps, B.and_(B.eq(score(j), beta * (a * a - (j - a) * (j - a))),
                        B.ge(score(a) - score(j), beta * (j - a) * (j - a)),
                        B.ge(score(a) - score(j), beta))


def gap_two_beta(B, v):
    beta, a, j = v["beta"], v["a"], v["j"]
    score = lambda x: beta * (2 * a * x - x * x)  # noqa: E731
    return [B.gt(beta, 0), B.ge(B.abs(j - a), 1)], B.ge(score(a) - score(j), 2 * beta)


def _in_band(B, k, d):
    """Offset d = j − a (integer) puts j in band k: (j−a)² ∈ [k, k+1)."""
    return B.and_(B.le(k, d * d), B.lt(d * d, k + 1))


def at_most_two_per_band(B, v):
    k, ds = v["k"], [v["d1"], v["d2"], v["d3"]]
    hyps = [B.ge(k, 1), B.lt(ds[0], ds[1]), B.lt(ds[1], ds[2])] + [_in_band(B, k, d) for d in ds]
    return hyps, B.false  # no three distinct positions share a band


def at_most_one_per_band(B, v):
    k, ds = v["k"], [v["d1"], v["d2"]]
    hyps = [B.ge(k, 1), B.lt(ds[0], ds[1])] + [_in_band(B, k, d) for d in ds]
    return hyps, B.false


def _quadratic_series_check(terms: int = 40) -> bool:
    """Σ_{d=1}^{K} 2q^{d²} + (tail ≤ 2q^{K+1}/(1−q)) stays below 2q/(1−q) at sample q."""
    for q in (Fraction(1, 9), Fraction(1, 2), Fraction(9, 10)):
        qb = arb(q.numerator) / arb(q.denominator)
        partial = sum((2 * qb ** (d * d) for d in range(1, terms + 1)), arb(0))
        if not partial + 2 * qb ** (terms + 1) / (1 - qb) < 2 * qb / (1 - qb):
            return False
    return True


FRACTION = ("x", "y")


def fractional_vertex_spacing(B, v, excluded=True):
    """2a = m/K: two scores β(2aj − j²) differ by (β/K)·x·y with the integers x = j1 − j2 ≠ 0 and
    y = K(j1 + j2) − m, so by ≥ β/K unless they tie (y = 0)."""
    x, y = (v[k] for k in FRACTION)
    hyps = [B.not_(B.eq(x, 0))] + ([B.not_(B.eq(y, 0))] if excluded else [])
    return hyps, B.or_(B.ge(x * y, 1), B.le(x * y, -1))


def fractional_vertex_with_ties(B, v):
    return fractional_vertex_spacing(B, v, excluded=False)


def _vertex_residues_check() -> bool:
    """A tie j1 + j2 = 2a = m/K needs K | m; with m ≢ K (mod 2K) that makes 2K | m, a = m/(2K) an integer: the
    maximum at j = a is unique (a half-integer vertex, the only tie at the top, is excluded)."""
    return all(m % (2 * K) == 0 for K in range(1, 17) for m in range(2 * K) if m % K == 0 and m != K)


LEMMA = Lemma(
    name="L-lookup",
    statement="β(2aj − j²) has unique max at j = a, gaps β(j−a)² ≥ β, ≤ 2 positions per band: ziggurat g=β, c=2; "
              "a vertex 2a = m/K with m ≢ K (mod 2K): unique max, distinct scores ≥ β/K apart: g = β/K, c = 2",
    queries=(
        Query("identity-and-gap", ("beta", "a", "j"), identity_and_gap),
        Query("at-most-two-per-band", BAND3, at_most_two_per_band, ints=BAND3),
        Query("fractional-vertex-spacing", FRACTION, fractional_vertex_spacing, ints=FRACTION),
    ),
    checks=(Check("quadratic-series", _quadratic_series_check, "closed form + arb"),
            Check("vertex-residues", _vertex_residues_check, "exact")),
    controls=(
        Control("L-lookup/one-per-band", Query("one-per-band", BAND2, at_most_one_per_band, ints=BAND2)),
        Control("L-lookup/gap-2beta", Query("gap-2beta", ("beta", "a", "j"), gap_two_beta)),
        Control("L-lookup/fractional-vertex-ties", Query("fractional-vertex-ties", FRACTION, fractional_vertex_with_ties,
                                                         ints=FRACTION)),
    ),
)

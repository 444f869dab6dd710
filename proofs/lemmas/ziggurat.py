"""L-ziggurat (theory.md §3; paper's Lemma 6): leakage bounded independently of n.

Statement.  Unique max s* at j*; for every k ≥ 1 at most c positions have
s* − s_j ∈ [kg, (k+1)g); q = e^{−g/τ} ∈ (0,1).  Then the leakage
R = Σ_{j≠j*} e^{−(s*−s_j)/τ} ≤ Σ_k c q^k = cq/(1−q), the weight on j* is
1/(1+R) ≥ 1 − cq/(1−q), and the error is ≤ 1/4 iff q ≤ 1/(4c+1)
(c = 1: g/τ ≥ ln 5; c = 2: g/τ ≥ ln 9).

Human proof (≤ 5 lines).
1. A position in band k contributes ≤ e^{−kg/τ} = q^k, and band k holds ≤ c positions.
2. So R ≤ c Σ_{k≥1} q^k = cq/(1−q) (geometric series; the K-term remainder is cq^{K+1}/(1−q)).
3. The weight on j* is e^0/(e^0 + R) = 1/(1+R) ≥ 1 − R by 1/(1+R)(1+R) = 1 ≤ (1+R)(1 − R) + R².
4. cq/(1−q) ≤ 1/4 ⇔ 4cq ≤ 1 − q ⇔ q ≤ 1/(4c+1), since 1 − q > 0.

Discharge.  Steps 3–4: QF_NRA queries in (c, q, R).  Step 2: an exact polynomial identity
(Fractions, every K ≤ 12) and an arb ball check of the series against the closed form.
"""
from __future__ import annotations

from fractions import Fraction

from flint import arb, ctx

from proofs.lemmas.base import Check, Control, Lemma
from proofs.smt import Query

VARS = ("c", "q", "R")


def ziggurat_bound(c: int, q_upper: Fraction) -> Fraction:
    """The certified leakage bound c·q/(1−q) (exact), for q ≤ q_upper < 1; increasing in q."""
    q = Fraction(q_upper)
    if c < 0 or not 0 <= q < 1:
        raise ValueError(f"ziggurat_bound needs c ≥ 0 and 0 ≤ q < 1, got c={c}, q={q}")
    return c * q / (1 - q)


def _hyps(B, v):
    c, q, R = v["c"], v["q"], v["R"]
    return [B.ge(c, 1), B.gt(q, 0), B.lt(q, 1), B.ge(R, 0), B.le(R, c * q / (1 - q))]


def weight(B, v):
    c, q, R = v["c"], v["q"], v["R"]
    return _hyps(B, v), B.ge(1 / (1 + R), 1 - c * q / (1 - q))


def weight_ignoring_c(B, v):
    c, q, R = v["c"], v["q"], v["R"]
    return _hyps(B, v), B.ge(1 / (1 + R), 1 - q / (1 - q))


def weight_without_band_hypothesis(B, v):
    c, q, R = v["c"], v["q"], v["R"]
    return _hyps(B, v)[:-1], B.ge(1 / (1 + R), 1 - c * q / (1 - q))


def threshold(B, v):
    c, q = v["c"], v["q"]
    quarter = B.num(Fraction(1, 4))
    return [B.ge(c, 1), B.gt(q, 0), B.lt(q, 1)], B.eq(B.le(c * q / (1 - q), quarter), B.le(q, 1 / (4 * c + 1)))


def threshold_4c(B, v):
    c, q = v["c"], v["q"]
    hyps = [B.ge(c, 1), B.gt(q, 0), B.lt(q, 1), B.le(q, 1 / (4 * c))]
    return hyps, B.le(c * q / (1 - q), B.num(Fraction(1, 4)))


def _geometric_remainder_identity(max_terms: int = 12) -> bool:
    """(1−q)·(q/(1−q) − Σ_{k=1}^K q^k) = q^{K+1}, as polynomials with Fraction coefficients."""
    for K in range(1, max_terms + 1):
        partial = [Fraction(0)] + [Fraction(1)] * K             # Σ_{k=1}^K q^k, coefficient list
        times_one_minus_q = [a - b for a, b in zip(partial + [0], [0] + partial)]
        lhs = [Fraction(int(i == 1)) - t for i, t in enumerate(times_one_minus_q)]  # q − (1−q)·partial
        if lhs != [Fraction(int(i == K + 1)) for i in range(K + 2)]:
            return False
    return True


def _series_ball_check(terms: int = 20) -> bool:
    """For sample (c, q): every partial sum lies strictly below the closed form, and partial
    sum plus the K-term remainder reproduces it (balls, 256-bit)."""
    old = ctx.prec
    ctx.prec = 256
    try:
        return all(_series_matches(c, q, terms) for c, q in ((1, Fraction(1, 5)), (2, Fraction(1, 9)),
                                                              (2, Fraction(9, 10))))
    finally:
        ctx.prec = old


def _series_matches(c: int, q: Fraction, terms: int) -> bool:
    qb = arb(q.numerator) / arb(q.denominator)
    closed = c * qb / (1 - qb)
    partial = arb(0)
    for k in range(1, terms + 1):
        partial += c * qb ** k
        if not partial < closed:
            return False
    remainder = c * qb ** (terms + 1) / (1 - qb)
    return abs(partial + remainder - closed) < arb(2) ** -200


LEMMA = Lemma(
    name="L-ziggurat",
    statement="weight on the unique max ≥ 1 − c·q/(1−q), q = e^{−g/τ}; error ≤ 1/4 iff q ≤ 1/(4c+1)",
    queries=(Query("weight", VARS, weight), Query("threshold", ("c", "q"), threshold)),
    checks=(Check("geometric-remainder", _geometric_remainder_identity, "exact identity"),
            Check("series-vs-closed-form", _series_ball_check, "closed form + arb")),
    controls=(
        Control("L-ziggurat/c-ignored", Query("c-ignored", VARS, weight_ignoring_c)),
        Control("L-ziggurat/band-hypothesis-dropped",
                Query("band-hypothesis-dropped", VARS, weight_without_band_hypothesis)),
        Control("L-ziggurat/threshold-1-over-4c", Query("threshold-1-over-4c", ("c", "q"), threshold_4c)),
    ),
)

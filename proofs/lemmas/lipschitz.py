"""L-lipschitz (theory.md §3; paper's Lemma 29 plausibly): softmax is 1/(2τ)-Lipschitz in range.

Statement.  For score vectors s, s' and δ = s' − s:
‖softmax_τ(s') − softmax_τ(s)‖₁ ≤ range(δ)/(2τ) ≤ ‖δ‖_∞/τ.

Human proof (≤ 5 lines).
1. On the path s + tδ, dp/dt = (diag(p) − ppᵀ)δ/τ, whose L1 norm is Σ_j p_j|δ_j − μ|, μ = p·δ.
2. That mean absolute deviation is convex in δ, so on the box [lo, hi]^N it peaks at a vertex.
3. At a vertex δ takes two values; with w the weight on hi it equals 2w(1−w)(hi−lo) ≤ (hi−lo)/2.
4. Integrating t over [0, 1] gives range(δ)/(2τ); and hi − lo ≤ 2 max(|hi|, |lo|) = 2‖δ‖_∞.

Discharge.  Step 3 and the last inequality are QF_NRA queries; step 1–2's conclusion is
cross-checked without the convexity argument on three atoms (``mad-3``, normalised
to min 0 and max 1), and the whole
statement end-to-end, with exp abstracted by certified Taylor bounds, on two positions
(``two-positions``: σ moves by at most range/(2τ) between logits u and u + x).
"""
from __future__ import annotations

from fractions import Fraction

from proofs.lemmas.base import Control, Lemma
from proofs.smt import Query

VERTEX = ("w", "lo", "hi")
MAD3 = ("p1", "p2", "d")
TWO = ("E", "x")


def _vertex_mad(B, v):
    w, lo, hi = v["w"], v["lo"], v["hi"]
    mu = w * hi + (1 - w) * lo
    return [B.ge(w, 0), B.le(w, 1), B.le(lo, hi)], w * B.abs(hi - mu) + (1 - w) * B.abs(lo - mu)


def vertex(B, v):
    hyps, mad = _vertex_mad(B, v)
    lo, hi = v["lo"], v["hi"]
    return hyps, B.and_(B.le(mad, (hi - lo) / 2), B.le(hi - lo, 2 * B.max(B.abs(hi), B.abs(lo))))


def vertex_quarter(B, v):
    hyps, mad = _vertex_mad(B, v)
    return hyps, B.le(mad, (v["hi"] - v["lo"]) / 4)


def mad3(B, v):
    """Three atoms, normalised by shift and scale (both leave MAD/range unchanged):
    the smallest δ is 0, the largest 1, the middle one d ∈ [0, 1]."""
    p1, p2, d = v["p1"], v["p2"], v["d"]
    p = [p1, p2, 1 - p1 - p2]
    hyps = [B.ge(pj, 0) for pj in p] + [B.ge(d, 0), B.le(d, 1)]
    mu = p2 * d + p[2]
    mad = p[0] * B.abs(0 - mu) + p[1] * B.abs(d - mu) + p[2] * B.abs(1 - mu)
    return hyps, B.le(mad, B.num(Fraction(1, 2)))


def _two_positions(B, v):
    """Logit u (E = e^{−u} ∈ (0,1], u ≥ 0 w.l.o.g. by symmetry) moves to u + x, x ≥ 0:
    the L1 change of the 2-point softmax is 2(σ(u+x) − σ(u)), with σ(u) = 1/(1+E)."""
    E, x = v["E"], v["x"]
    F = B.exp_neg(x)
    hyps = [B.gt(E, 0), B.le(E, 1), B.ge(x, 0)]
    return hyps, 2 * (1 / (1 + E * F) - 1 / (1 + E))


def two_positions(B, v):
    hyps, change = _two_positions(B, v)
    return hyps, B.le(change, v["x"] / 2)


def two_positions_quarter(B, v):
    hyps, change = _two_positions(B, v)
    return hyps, B.le(change, v["x"] / 4)


LEMMA = Lemma(
    name="L-lipschitz",
    statement="‖softmax_τ(s') − softmax_τ(s)‖₁ ≤ range(s'−s)/(2τ) ≤ ‖s'−s‖_∞/τ",
    queries=(
        Query("vertex-mad", VERTEX, vertex),
        Query("mad-3", MAD3, mad3),
        Query("two-positions", TWO, two_positions, uses_exp=True),
    ),
    controls=(
        Control("L-lipschitz/quarter-range", Query("quarter-range", VERTEX, vertex_quarter)),
        Control("L-lipschitz/two-positions-quarter",
                Query("two-positions-quarter", TWO, two_positions_quarter, uses_exp=True)),
    ),
)

"""L-gap (theory.md §3; paper's Lemma 32): softmax is 2r/(m+r)-close to average-hard.

Statement.  Scores s_1..s_N (N ≤ n), argmax set M with m = |M| ≥ 1, every j ∉ M at
least γ below the max, temperature τ > 0, q = e^{−γ/τ} ∈ (0,1), leakage
r = Σ_{j∉M} e^{−(s*−s_j)/τ}.  Then ‖softmax_τ(s) − ahardmax(s)‖₁ = 2r/(m+r)
≤ 2(N−m)q/m ≤ 2nq.

Human proof (≤ 5 lines).
1. Divide numerator and denominator by e^{s*/τ}: each k ∈ M gets 1/(m+r), the rest r/(m+r) in all.
2. ahardmax gives 1/m on M, so the L1 distance is m(1/m − 1/(m+r)) + r/(m+r) = 2r/(m+r).
3. Each leakage term is ≤ q because s* − s_j ≥ γ, so 0 ≤ r ≤ (N−m)q.
4. 2r/(m+r) ≤ 2r/m ≤ 2(N−m)q/m, and (N−m)/m ≤ N ≤ n since m ≥ 1.

Discharge.  Step 1 is the definition; steps 2–4 are one QF_NRA query in (m, N, n, r, q),
with q = e^{−γ/τ} reparametrised by its exact range (0, 1) (γ/τ > 0 ranges over all of it),
so no exp abstraction is needed.
"""
from __future__ import annotations

from proofs.lemmas.base import Control, Lemma
from proofs.smt import Query

VARS = ("m", "N", "n", "r", "q")


def _hyps(B, v, with_leak_bound=True):
    m, N, n, r, q = (v[k] for k in VARS)
    hyps = [B.ge(m, 1), B.ge(N, m), B.le(N, n), B.gt(q, 0), B.lt(q, 1), B.ge(r, 0)]
    if with_leak_bound:
        hyps.append(B.le(r, (N - m) * q))
    return hyps


def _l1(B, m, r):
    """‖softmax − ahardmax‖₁ from step 1's weights: inside M 1/(m+r) each, outside r/(m+r)."""
    return m * B.abs(1 / m - 1 / (m + r)) + r / (m + r)


def statement(B, v):
    m, N, n, r, q = (v[k] for k in VARS)
    d = _l1(B, m, r)
    return _hyps(B, v), B.and_(B.eq(d, 2 * r / (m + r)),
                               B.le(2 * r / (m + r), 2 * (N - m) * q / m),
                               B.le(2 * (N - m) * q / m, 2 * n * q))


def no_factor_two(B, v):
    m, N, n, r, q = (v[k] for k in VARS)
    return _hyps(B, v), B.le(_l1(B, m, r), (N - m) * q / m)


def no_length_factor(B, v):
    m, N, n, r, q = (v[k] for k in VARS)
    return _hyps(B, v), B.le(_l1(B, m, r), 2 * q)


def gap_dropped(B, v):
    m, N, n, r, q = (v[k] for k in VARS)
    return _hyps(B, v, with_leak_bound=False), B.le(_l1(B, m, r), 2 * n * q)


LEMMA = Lemma(
    name="L-gap",
    statement="‖softmax_τ(s) − ahardmax(s)‖₁ = 2r/(m+r) ≤ 2(N−m)/m·e^{−γ/τ} ≤ 2n·e^{−γ/τ}",
    queries=(Query("identity-and-bound", VARS, statement),),
    controls=(
        Control("L-gap/no-factor-2", Query("no-factor-2", VARS, no_factor_two)),
        Control("L-gap/no-length-factor", Query("no-length-factor", VARS, no_length_factor)),
        Control("L-gap/gap-hypothesis-dropped", Query("gap-hypothesis-dropped", VARS, gap_dropped)),
    ),
)

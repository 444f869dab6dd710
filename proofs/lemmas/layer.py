"""L-layer (theory.md §3; paper's Lemma 25): one layer's error, the paper's coarse form.

Statement.  Inputs within ε ≤ 1 of the hard model's, |activations| ≤ x_max (≥ 1),
τ ≤ 1, n ≥ 1, q = e^{−γ/τ}.  For an attention head with entrywise-ℓ1 norms ‖S‖, ‖V‖
the layer's output (residual included) is within K·x_max·(n q + x_max ε/τ),
K = 1 + ‖V‖(2 + 3‖S‖).  The hypothesis ε ≤ 1 bounds the score perturbation by
|x̂ᵀSŷ − xᵀSy| ≤ 3‖S‖ x_max ε.  (FFN layers: Lipschitz with ‖W₂‖‖W₁‖, no 1/τ.)

Human proof (≤ 5 lines).
1. x̂ŷ − xy = x(ŷ−y) + (x̂−x)y + (x̂−x)(ŷ−y): ≤ 2x_max ε + ε² ≤ 3x_max ε since ε ≤ 1 ≤ x_max.
2. Soft minus hard output = Σp̂(v̂ − v) + Σ(p̂ − h)v: ≤ ‖V‖ε + ‖p̂ − h‖₁‖V‖x_max.
3. ‖p̂ − h‖₁ ≤ ‖p̂ − p‖₁ + ‖p − h‖₁ ≤ η/τ + 2nq (L-lipschitz with η = 3‖S‖x_max ε; L-gap).
4. Add the residual ε; with τ ≤ 1 ≤ x_max every term is ≤ its share of K·x_max(nq + x_max ε/τ).

Discharge.  Step 1 is a QF_NRA query on one score entry (entrywise norms sum it); steps
2–4 are a QF_NRA query over the scalar quantities, citing L-lipschitz and L-gap as
hypotheses (t = 1/τ).
"""
from __future__ import annotations

from fractions import Fraction

from proofs.lemmas.base import Control, Lemma
from proofs.smt import Query

SCORE = ("x", "y", "xh", "yh", "S", "X", "eps")
CHAIN = ("nS", "nV", "X", "eps", "n", "q", "t", "eta", "L1", "G", "nu", "err")


def coarse_layer_bound(norm_S: Fraction, norm_V: Fraction, x_max: Fraction, n: int,
                       q: Fraction, eps: Fraction, inv_tau: Fraction) -> Fraction:
    """The paper-form bound K·x_max·(n q + x_max ε/τ), K = 1 + ‖V‖(2 + 3‖S‖), for a
    certified upper bound q ≥ e^{−γ/τ} (exact)."""
    K = 1 + norm_V * (2 + 3 * norm_S)
    return K * x_max * (n * q + x_max * eps * inv_tau)


def score_perturbation(B, v, need_small_eps=True):
    x, y, xh, yh, S, X, eps = (v[k] for k in SCORE)
    hyps = [B.ge(X, 1), B.ge(eps, 0), B.le(B.abs(x), X), B.le(B.abs(y), X),
            B.le(B.abs(xh - x), eps), B.le(B.abs(yh - y), eps)]
    if need_small_eps:
        hyps.append(B.le(eps, 1))
    return hyps, B.le(B.abs(S * xh * yh - S * x * y), 3 * B.abs(S) * X * eps)


def score_perturbation_any_eps(B, v):
    return score_perturbation(B, v, need_small_eps=False)


def chain(B, v, K=None):
    nS, nV, X, eps, n, q, t, eta, L1, G, nu, err = (v[k] for k in CHAIN)
    hyps = [B.ge(nS, 0), B.ge(nV, 0), B.ge(X, 1), B.ge(eps, 0), B.le(eps, 1), B.ge(n, 1),
            B.gt(q, 0), B.lt(q, 1), B.ge(t, 1),
            B.ge(eta, 0), B.le(eta, 3 * nS * X * eps),          # step 1
            B.ge(L1, 0), B.le(L1, eta * t),                     # L-lipschitz
            B.ge(G, 0), B.le(G, 2 * n * q),                     # L-gap
            B.ge(nu, 0), B.le(nu, nV * eps),
            B.le(err, eps + nu + (L1 + G) * nV * X)]            # step 2 + residual
    k = 1 + nV * (2 + 3 * nS) if K is None else K(nS, nV)
    return hyps, B.le(err, k * X * (n * q + X * eps * t))


def chain_small_K(B, v):
    return chain(B, v, K=lambda nS, nV: nV * (1 + 3 * nS))


LEMMA = Lemma(
    name="L-layer",
    statement="inputs within ε ≤ 1 ⇒ outputs within K·x_max·(n e^{−γ/τ} + x_max ε/τ), K = 1 + ‖V‖(2 + 3‖S‖)",
    queries=(Query("score-perturbation", SCORE, score_perturbation), Query("chain", CHAIN, chain)),
    controls=(
        Control("L-layer/epsilon-unbounded", Query("epsilon-unbounded", SCORE, score_perturbation_any_eps)),
        Control("L-layer/K-too-small", Query("K-too-small", CHAIN, chain_small_K)),
    ),
)

"""L-layer-refined (theory.md §4 [ours]): head error without 1/τ when η = 0 or D_M = 0.

Statement.  Hard head: uniform weight 1/m on its argmax set M, output o = mean_M v.
Soft head: p̂ = softmax_τ(ŝ) with |ŝ_j − s_j| ≤ η, values v̂ with |v̂_j − v_j| ≤ ν.  Then
|ô − o| ≤ ν + Λ·D_out + Δ_M·D_M, with Λ = Σ_{j∉M} p̂_j ≤ x/(1 + x) ≤ x, x = e^{2η/τ} r/m (r: hard leakage),
Δ_M = Σ_{k∈M} |p̂_k − 1/m| ≤ Λ + 2η/τ, D_out = max_{j∉M}|v_j − o|, D_M = max_{k∈M}|v_k − o|.
So η = 0 leaves no 1/τ term at all, and |M| = 1 or equal tied values (D_M = 0) removes it.

Human proof (≤ 5 lines).
1. ô − o = Σp̂(v̂ − v) + Σ_{j∉M}p̂_j(v_j − o) + Σ_{k∈M}(p̂_k − 1/m)(v_k − o): ≤ ν + Λ·D_out + Δ_M·D_M.
2. Λ = R̂/(Ŵ + R̂), Ŵ ≥ m e^{−η/τ}, R̂ ≤ e^{η/τ} r; up in R̂, down in Ŵ: Λ ≤ x/(1 + x) ≤ x (``leak-share``).
3. p̂ on M is (1−Λ)·softmax over M, whose distance to uniform is ≤ η/τ (L-lipschitz: tied
   hard scores, range of the perturbation ≤ 2η); hence Δ_M ≤ (1−Λ)η/τ + Λ ≤ Λ + 2η/τ.

Discharge.  Step 1 on three positions (M = {1, 2}: an identity, the value error,
and |P·a| ≤ |P|·A per weight term, joined by the triangle inequality) and step 2 symbolically in m: QF_NRA.
Step 3 symbolically from L-lipschitz's conclusion, and end-to-end for m = 2 with exp
abstracted by Taylor bounds (``inside-m2``).
"""
from __future__ import annotations

from fractions import Fraction

from proofs.lemmas.base import Control, Lemma
from proofs.lemmas.expbounds import exp_neg_lower
from proofs.smt import Query

CENTER = ("p1", "p2", "v1", "v2", "v3", "e1", "e2", "e3")
VALUE = ("p1", "p2", "e1", "e2", "e3", "nu")
WEIGHT = ("p1", "p2", "a", "b", "c", "Dout", "DM")
LEAK = ("m", "r", "H", "W", "R")
INSIDE = ("Lam", "T", "u", "Delta")
INSIDE2 = ("R", "x")


def refined_head_bound(nu: Fraction, eta: Fraction, inv_tau: Fraction, r: Fraction, m: int,
                       d_out: Fraction, d_m: Fraction) -> Fraction:
    """ν + Λ·D_out + Δ_M·D_M with Λ ≤ e^{2η/τ} r/m (certified rational upper bound for the
    exp) and Δ_M ≤ Λ + 2η/τ; the 2η/τ term is dropped only when it is multiplied by D_M = 0."""
    growth = Fraction(1) if eta == 0 else 1 / exp_neg_lower(2 * eta * inv_tau)  # ≥ e^{2η/τ}
    lam = growth * r / (m + growth * r)  # x/(1 + x), x = e^{2η/τ} r/m (leak-share)
    delta_m = lam + 2 * eta * inv_tau if d_m != 0 else Fraction(0)
    return nu + lam * d_out + delta_m * d_m


def _weights(v):
    p1, p2 = v["p1"], v["p2"]
    return p1, p2, 1 - p1 - p2


def centering(B, v):
    """Step 1 as an identity: ô − o = Σp̂(v̂ − v) + p̂₃(v₃ − o) + Σ_{k∈M}(p̂_k − ½)(v_k − o)."""
    p1, p2, p3 = _weights(v)
    v1, v2, v3, e1, e2, e3 = (v[k] for k in ("v1", "v2", "v3", "e1", "e2", "e3"))
    half = B.num(Fraction(1, 2))
    o = (v1 + v2) / 2
    o_hat = p1 * (v1 + e1) + p2 * (v2 + e2) + p3 * (v3 + e3)
    split = p1 * e1 + p2 * e2 + p3 * e3 + p3 * (v3 - o) + (p1 - half) * (v1 - o) + (p2 - half) * (v2 - o)
    return [], B.eq(o_hat - o, split)


def value_error(B, v):
    p1, p2, p3 = _weights(v)
    e1, e2, e3, nu = (v[k] for k in ("e1", "e2", "e3", "nu"))
    hyps = [B.ge(p1, 0), B.ge(p2, 0), B.ge(p3, 0)] + [B.le(B.abs(e), nu) for e in (e1, e2, e3)]
    return hyps, B.le(B.abs(p1 * e1 + p2 * e2 + p3 * e3), nu)


def product_bound(B, v):
    """Step 2, each weight term: |P·a| ≤ |P|·A when |a| ≤ A."""
    P, a, A = v["P"], v["a"], v["A"]
    return [B.le(B.abs(a), A)], B.le(B.abs(P * a), B.abs(P) * A)


def triangle(B, v):
    """Step 2, joining the terms: |x + y + z| ≤ |x| + |y| + |z|."""
    x, y, z = v["x"], v["y"], v["z"]
    return [], B.le(B.abs(x + y + z), B.abs(x) + B.abs(y) + B.abs(z))


def weight_terms(B, v, with_dm=True):
    """Step 2 for the weight sums at once (a = v₃ − o, b = v₁ − o, c = v₂ − o); the
    proof uses :func:`product_bound` and :func:`triangle`, the control this form."""
    p1, p2, p3 = _weights(v)
    a, b, c, Dout, DM = (v[k] for k in ("a", "b", "c", "Dout", "DM"))
    half = B.num(Fraction(1, 2))
    hyps = [B.ge(p1, 0), B.ge(p2, 0), B.ge(p3, 0), B.le(B.abs(a), Dout), B.le(B.abs(b), DM), B.le(B.abs(c), DM)]
    bound = p3 * Dout + ((B.abs(p1 - half) + B.abs(p2 - half)) * DM if with_dm else 0)
    return hyps, B.le(B.abs(p3 * a + (p1 - half) * b + (p2 - half) * c), bound)


def weight_terms_without_dm(B, v):
    return weight_terms(B, v, with_dm=False)


def leak(B, v, growth=None):
    m, r, H, W, R = (v[k] for k in LEAK)
    hyps = [B.ge(m, 1), B.ge(r, 0), B.ge(H, 1), B.ge(W * H, m), B.ge(R, 0), B.le(R, H * r)]
    g = H * H if growth is None else growth(H)
    return hyps, B.le(R / (W + R), g * r / m)


def leak_without_growth(B, v):
    return leak(B, v, growth=lambda H: 1)


def leak_share(B, v, growth=None):
    """Step 3 saturating: Λ ≤ x/(1 + x) with x = e^{2η/τ} r/m — the kernel's Λ for every head rule."""
    m, r, H, W, R = (v[k] for k in LEAK)
    hyps = [B.ge(m, 1), B.ge(r, 0), B.ge(H, 1), B.ge(W * H, m), B.ge(R, 0), B.le(R, H * r)]
    g = H * H if growth is None else growth(H)
    return hyps, B.le(R / (W + R), g * r / (m + g * r))


def leak_share_without_growth(B, v):
    return leak_share(B, v, growth=lambda H: 1)


def inside(B, v):
    lam, T, u, delta = (v[k] for k in INSIDE)
    hyps = [B.ge(lam, 0), B.le(lam, 1), B.ge(u, 0), B.ge(T, 0), B.le(T, u),  # T ≤ η/τ: L-lipschitz
            B.le(delta, (1 - lam) * T + lam)]
    return hyps, B.le(delta, lam + 2 * u)


def inside_m2(B, v):
    """M = {1, 2}, weights (scaled) 1 and F = e^{−x} (x ≤ 2η/τ the score spread), leakage R."""
    R, x = v["R"], v["x"]
    F = B.exp_neg(x)
    half = B.num(Fraction(1, 2))
    Z = 1 + F + R
    delta = B.abs(1 / Z - half) + B.abs(F / Z - half)
    return [B.ge(R, 0), B.ge(x, 0)], B.le(delta, R / Z + x)


LEMMA = Lemma(
    name="L-layer-refined",
    statement="|ô − o| ≤ ν + Λ·D_out + Δ_M·D_M, Λ ≤ x/(1 + x) ≤ x with x = e^{2η/τ} r/m, Δ_M ≤ Λ + 2η/τ",
    queries=(
        Query("centering", CENTER, centering),
        Query("value-error", VALUE, value_error),
        Query("product-bound", ("P", "a", "A"), product_bound),
        Query("triangle", ("x", "y", "z"), triangle),
        Query("leak", LEAK, leak),
        Query("leak-share", LEAK, leak_share),
        Query("inside", INSIDE, inside),
        Query("inside-m2", INSIDE2, inside_m2, uses_exp=True),
    ),
    controls=(
        Control("L-layer-refined/no-DM-term", Query("no-DM-term", WEIGHT, weight_terms_without_dm)),
        Control("L-layer-refined/no-exp-growth", Query("no-exp-growth", LEAK, leak_without_growth)),
        Control("L-layer-refined/share-no-exp-growth", Query("share-no-exp-growth", LEAK, leak_share_without_growth)),
    ),
)

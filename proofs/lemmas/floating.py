"""The floating-point lemmas (docs/floating-point.md): what certify/kernel/rounding_error.py adds.

These are not in theory.md (which is exact arithmetic); their model is docs/floating-point.md.

Statement.  Every stored result is fl(x) = x(1 + δ) with |δ| ≤ u (a flush to zero adds an absolute
error below the smallest normal λ, kept apart as an additive term); sums run in any order;
γ_k = k·u/(1 − k·u) (k·u < 1).  The five lemmas, each with its own discharge:

* L-fp-dot (Higham, Lemma 3.1 and 3.3): a term that passes through k roundings (products, sums
  in any order, quotients) is t·(1 + θ_k) with |θ_k| ≤ γ_k, so a k-term dot product is off by
  ≤ γ_k·Σ|a_i b_i|.  Discharge: the induction step (1 + θ_j)(1 + δ)^{±1} = 1 + θ_{j+1} as one
  QF_NRA query over real j, u (so it holds for every k); the dot-product bound is then the
  triangle inequality over the terms.
* L-fp-stored: a k-term sum with constants rounded to F, accumulated in A and stored in F is off
  by ≤ ρ_k·Σ|terms|, ρ_k = (1 + u)²(1 + γ^A_k) − 1.
* L-fp-softmax: with z = fl(s/fl(τ)) and y = fl(z − max z), τ·y differs from s − s_max by at most
  (2γ₂ + 2u(1 + γ₂))·max|s|, and exp's relative error ε (|ε| ≤ e < 1) is a logit shift of at most
  e/(1 − e): both are score perturbations (η, in score units), which L-lipschitz / L-fp-gap turn
  into output error.  Discharge (scores scaled by max|s|): an exact identity splits τ·y − (s − s_max)
  into sθ₁ − mθ₂ (≤ 2γ₂) and the subtraction's rounding, an operand ≤ 2(1 + γ₂) times δ
  (product-box); τ's rounding and the division compose to θ₂ (tau-division); exp-shift with the
  certified Taylor bounds of e^{−x}.
* L-fp-values: Σ_j w_j v_j(1 + θ_j) / (Σ_j w_j (1 + θ_S)), then two stored roundings, differs from
  Σ_j α_j v_j by ≤ ((1 + γ_N)(1 + u_A)(1 + u)/(1 − γ_{N−1}) − 1)·max|v| (weights w ≥ 0).  Discharge:
  the two roundings K = (1+δ₁)(1+δ₂) within k₁ = (1+u_A)(1+u) − 1 of 1; an identity splits the error
  into two products (product-box); the sum of their bounds is at most the claim (final).
* L-fp-gap: when the hard maxima share one value and every score moves by at most η, the weight
  left on the other keys is ≤ e^{2η/τ}·Λ (Λ: the exact leak bound of L-ziggurat / L-lookup).

Human proof (≤ 5 lines).
1. Rounding errors compose multiplicatively: (1 + θ_j)(1 + δ)^{±1} = 1 + θ_{j+1} (Higham 3.1).
2. Every error term is a product of an operand bounded by the magnitudes and a bounded θ or δ.
3. Softmax weights depend on logit differences only; a relative error of w is a logit shift.
4. Scores shifted by ≤ η change each off-maximum weight ratio by at most e^{2η/τ}.

Discharge.  z3 + cvc5 (QF_NRA) for every step above as the queries listed per lemma, with the
certified Taylor bounds of e^{−x} for exp-shift; each lemma has two false variants as controls.
"""
from __future__ import annotations

from fractions import Fraction

from proofs.lemmas.base import Control, Lemma
from proofs.smt import Query

STEP = ("j", "u", "t", "d")
STORED = ("u", "g", "d1", "d2", "t")
SHIFT = ("u", "s", "m", "G", "t1", "t2", "d")
TAU = ("u", "a", "b")
EXPSHIFT = ("e", "x")
GAP = ("a", "b", "F")
BOX = ("x", "X", "y", "Y")
KRANGE = ("d1", "d2", "uA", "u")
COMBINE = ("A", "a", "K", "ts")
FINAL = ("gA", "gS", "k1", "ts")


def _gamma(B, k, u):
    return k * u / (1 - k * u)


def _step_hyps(B, v):
    j, u, t, d = v["j"], v["u"], v["t"], v["d"]
    return [B.ge(j, 1), B.gt(u, 0), B.lt((j + 1) * u, 1), B.le(B.abs(t), _gamma(B, j, u)), B.le(B.abs(d), u)]


def step_mul(B, v):
    """(1 + θ_j)(1 + δ) = 1 + θ_{j+1}."""
    t, d = v["t"], v["d"]
    return _step_hyps(B, v), B.le(B.abs((1 + t) * (1 + d) - 1), _gamma(B, v["j"] + 1, v["u"]))


def step_div(B, v):
    """(1 + θ_j)/(1 + δ) = 1 + θ_{j+1} (as |(1 + θ) − (1 + δ)| ≤ γ_{j+1}(1 + δ), 1 + δ > 0)."""
    t, d = v["t"], v["d"]
    return _step_hyps(B, v), B.le(B.abs(t - d), _gamma(B, v["j"] + 1, v["u"]) * (1 + d))


def step_mul_ku(B, v):
    """False variant: k·u instead of γ_k (first-order only)."""
    t, d, j, u = v["t"], v["d"], v["j"], v["u"]
    hyps = [B.ge(j, 1), B.gt(u, 0), B.lt((j + 1) * u, 1), B.le(B.abs(t), j * u), B.le(B.abs(d), u)]
    return hyps, B.le(B.abs((1 + t) * (1 + d) - 1), (j + 1) * u)


def step_div_ku(B, v):
    """False variant: the quotient with k·u instead of γ_k."""
    t, d, j, u = v["t"], v["d"], v["j"], v["u"]
    hyps = [B.ge(j, 1), B.gt(u, 0), B.lt((j + 1) * u, 1), B.le(B.abs(t), j * u), B.le(B.abs(d), u)]
    return hyps, B.le(B.abs(t - d), (j + 1) * u * (1 + d))


def _stored(B, v, rho_of):
    """Scaled so that x = c·X = 1 (the statement is homogeneous in x)."""
    u, g, d1, d2, t = (v[k] for k in STORED if k != "x")
    hyps = [B.gt(u, 0), B.lt(u, 1), B.ge(g, 0)] + _box(B, d1, -u, u) + _box(B, d2, -u, u) + _box(B, t, -g, g)
    e, r = (1 + d1) * (1 + t) * (1 + d2) - 1, rho_of(u, g)
    return hyps, B.and_(B.le(e, r), B.ge(e, -r))


def stored_one_rounding(B, v):
    """False variant: forgetting the constant's rounding."""
    return _stored(B, v, lambda u, g: (1 + u) * (1 + g) - 1)


def stored_first_order(B, v):
    """False variant: 2u + g, the first-order terms only."""
    return _stored(B, v, lambda u, g: 2 * u + g)


def stored(B, v):
    """c·(1 + δ₁) rounded constant, the accumulation (1 + θ), |θ| ≤ g, the store (1 + δ₂); x = c·X."""
    return _stored(B, v, lambda u, g: (1 + u) * (1 + u) * (1 + g) - 1)


def _box(B, x, lo, hi):
    return [B.le(lo, x), B.le(x, hi)]


def shift_first(B, v):
    """|s·θ₁ − m·θ₂| ≤ 2G for |s|, |m| ≤ 1 (scores scaled by max|s|), |θ| ≤ G = γ₂."""
    s, m, t1, t2, G = v["s"], v["m"], v["t1"], v["t2"], v["G"]
    hyps = [B.ge(G, 0)] + _box(B, s, -1, 1) + _box(B, m, -1, 1) + _box(B, t1, -G, G) + _box(B, t2, -G, G)
    e = s * t1 - m * t2
    return hyps, B.and_(B.le(e, 2 * G), B.ge(e, -2 * G))


def shift_magnitude(B, v):
    """|s(1 + θ₁) − m(1 + θ₂)| ≤ 2(1 + G): the operand of the subtraction's rounding δ."""
    s, m, t1, t2, G = v["s"], v["m"], v["t1"], v["t2"], v["G"]
    hyps = [B.ge(G, 0)] + _box(B, s, -1, 1) + _box(B, m, -1, 1) + _box(B, t1, -G, G) + _box(B, t2, -G, G)
    e = s * (1 + t1) - m * (1 + t2)
    return hyps, B.and_(B.le(e, 2 * (1 + G)), B.ge(e, -2 * (1 + G)))


def product_box(B, v):
    """x ∈ [−X, X], y ∈ [−Y, Y] ⇒ x·y ∈ [−XY, XY] (each rounding term of size |operand|·u)."""
    x, X, y, Y = v["x"], v["X"], v["y"], v["Y"]
    hyps = [B.ge(X, 0), B.ge(Y, 0)] + _box(B, x, -X, X) + _box(B, y, -Y, Y)
    return hyps, B.and_(B.le(x * y, X * Y), B.ge(x * y, -X * Y))


def shift_identity(B, v):
    """τ·y − (s − m) = (sθ₁ − mθ₂) + (s(1+θ₁) − m(1+θ₂))δ for y = fl(z − m): the two parts above."""
    s, m, t1, t2, d = v["s"], v["m"], v["t1"], v["t2"], v["d"]
    y = (s * (1 + t1) - m * (1 + t2)) * (1 + d)
    return [], B.eq(y - (s - m), (s * t1 - m * t2) + (s * (1 + t1) - m * (1 + t2)) * d)


def shift_first_order(B, v):
    """False variant: |s·θ₁ − m·θ₂| ≤ G."""
    s, m, t1, t2, G = v["s"], v["m"], v["t1"], v["t2"], v["G"]
    hyps = [B.ge(G, 0)] + _box(B, s, -1, 1) + _box(B, m, -1, 1) + _box(B, t1, -G, G) + _box(B, t2, -G, G)
    return hyps, B.le(s * t1 - m * t2, G)


def tau_division(B, v):
    """fl(s/fl(τ)) = (s/τ)(1 + θ₂): |(1 + a)/(1 + b) − 1| ≤ γ₂ (the step from θ₁ = a)."""
    u, a, b = v["u"], v["a"], v["b"]
    hyps = [B.gt(u, 0), B.lt(4 * u, 1), B.le(B.abs(a), u), B.le(B.abs(b), u)]
    return hyps, B.le(B.abs(a - b), _gamma(B, 2, u) * (1 + b))


def exp_shift(B, v):
    """1 − e ≥ e^{−x} and (1 + e)·e^{−x} ≤ 1 for x = e/(1 − e): |log(1 + ε)| ≤ e/(1 − e)."""
    e, x = v["e"], v["x"]
    F = B.exp_neg(x)
    hyps = [B.ge(e, 0), B.lt(e, Fraction(1, 2)), B.eq(x * (1 - e), e)]
    return hyps, B.and_(B.le(F, 1 - e), B.le((1 + e) * F, 1))


def exp_shift_too_small(B, v):
    """False variant: a shift of e/2 would not cover ε = −e."""
    e, x = v["e"], v["x"]
    F = B.exp_neg(x)
    return [B.gt(e, 0), B.lt(e, Fraction(1, 2)), B.eq(2 * x, e)], B.le(F, 1 - e)


def values_rounding(B, v):
    """K = (1 + δ₁)(1 + δ₂) (the quotient rounded in A, then stored in F): |K − 1| ≤ k₁ = (1+u_A)(1+u) − 1."""
    d1, d2, uA, u = (v[k] for k in KRANGE)
    hyps = [B.ge(uA, 0), B.ge(u, 0), B.lt(u, 1), B.lt(uA, 1)] + _box(B, d1, -uA, uA) + _box(B, d2, -u, u)
    k1 = (1 + uA) * (1 + u) - 1
    K = (1 + d1) * (1 + d2)
    return hyps, B.and_(B.le(K - 1, k1), B.ge(K - 1, -k1), B.ge(K, 0))


def values_rounding_first_order(B, v):
    """False variant: k₁ = u_A + u."""
    d1, d2, uA, u = (v[k] for k in KRANGE)
    hyps = [B.ge(uA, 0), B.ge(u, 0), B.lt(u, 1), B.lt(uA, 1)] + _box(B, d1, -uA, uA) + _box(B, d2, -u, u)
    return hyps, B.le((1 + d1) * (1 + d2) - 1, uA + u)


def values_identity(B, v):
    """Scaled so that Σw = 1 and max|v| = 1: A = Σ α v ∈ [−1, 1], the accumulated value sum A + a with
    |a| ≤ γ_N (L-fp-dot, Σ w|v| ≤ 1), the normaliser 1 + θ_S (|θ_S| ≤ γ_{N−1}):
    (out − A)(1 + θ_S) = (A + a)K − A(1 + θ_S) = A·(K − 1 − θ_S) + a·K, two products (product-box)
    of size ≤ k₁ + γ_{N−1} and ≤ γ_N(1 + k₁)."""
    A, a, K, ts = v["A"], v["a"], v["K"], v["ts"]
    return [], B.eq((A + a) * K - A * (1 + ts), A * (K - 1 - ts) + a * K)


def _final(B, v, bound):
    """k₁ + γ_{N−1} + γ_N(1 + k₁) ≤ bound·(1 + θ_S) for every |θ_S| ≤ γ_{N−1} < 1."""
    gA, gS, k1, ts = v["gA"], v["gS"], v["k1"], v["ts"]
    hyps = [B.ge(gA, 0), B.ge(gS, 0), B.lt(gS, 1), B.ge(k1, 0)] + _box(B, ts, -gS, gS)
    return hyps, B.le(k1 + gS + gA * (1 + k1), bound(gA, gS, k1) * (1 + ts))


def values(B, v):
    return _final(B, v, lambda gA, gS, k1: (1 + gA) * (1 + k1) / (1 - gS) - 1)


def values_without_normaliser(B, v):
    return _final(B, v, lambda gA, gS, k1: (1 + gA) * (1 + k1) - 1)


def gap(B, v):
    """Leaked weight b/(a + b) ≤ b/a·… with a ≥ F (the max key, its mass ≥ e^{−2η/τ} = F relative to
    the exact scale) and b ≤ Λ (the other keys' exact-scale mass): b/(a + b) ≤ Λ/F."""
    a, b, F = v["a"], v["b"], v["F"]
    hyps = [B.gt(F, 0), B.le(F, 1), B.ge(a, F), B.ge(b, 0)]
    return hyps, B.le(b * F, b * (a + b))


def gap_unbounded_below(B, v):
    """False variant: without the max key's mass a ≥ F."""
    a, b, F = v["a"], v["b"], v["F"]
    return [B.gt(F, 0), B.le(F, 1), B.ge(a, 0), B.ge(b, 0)], B.le(b * F, b * (a + b))


def gap_no_factor(B, v):
    a, b, F = v["a"], v["b"], v["F"]
    return [B.gt(F, 0), B.le(F, 1), B.ge(a, F), B.ge(b, 0)], B.le(b, b * (a + b))


LEMMAS = (
    Lemma("L-fp-dot", "a term through k roundings is t(1+θ_k), |θ_k| ≤ γ_k = ku/(1−ku); a k-term dot product "
          "in any order is off by ≤ γ_k·Σ|a_i b_i|",
          (Query("step-mul", STEP, step_mul), Query("step-div", STEP, step_div) ),
          controls=(Control("L-fp-dot/first-order", Query("step-mul-ku", STEP, step_mul_ku)),
                    Control("L-fp-dot/first-order-quotient", Query("step-div-ku", STEP, step_div_ku)))),
    Lemma("L-fp-stored", "a k-term sum (constants rounded, accumulated in A, stored in F) is off by "
          "≤ ((1+u)²(1+γ^A_k) − 1)·Σ|terms|", (Query("stored", STORED, stored),),
          controls=(Control("L-fp-stored/one-rounding", Query("stored-one", STORED, stored_one_rounding)),
                    Control("L-fp-stored/first-order", Query("stored-first", STORED, stored_first_order)))),
    Lemma("L-fp-softmax", "τ·fl(fl(s/fl(τ)) − max) is within (2γ₂ + 2u(1+γ₂))·max|s| of s − s_max, and exp's "
          "relative error e is a logit shift ≤ e/(1−e)",
          (Query("shift-identity", SHIFT, shift_identity), Query("shift-first", SHIFT, shift_first),
           Query("shift-magnitude", SHIFT, shift_magnitude), Query("product-box", BOX, product_box),
           Query("tau-division", TAU, tau_division),
           Query("exp-shift", EXPSHIFT, exp_shift, uses_exp=True)),
          controls=(Control("L-fp-softmax/first-order", Query("shift-4u", SHIFT, shift_first_order)),
                    Control("L-fp-softmax/half-shift", Query("exp-half", EXPSHIFT, exp_shift_too_small,
                                                              uses_exp=True)))),
    Lemma("L-fp-values", "Σ w v(1+θ)/(Σ w (1+θ_S)), stored twice, is within ((1+γ_N)(1+u_A)(1+u)/(1−γ_{N−1}) − 1)·"
          "max|v| of Σ α v", (Query("rounding", KRANGE, values_rounding), Query("identity", COMBINE, values_identity),
           Query("product-box", BOX, product_box), Query("final", FINAL, values)),
          controls=(Control("L-fp-values/no-normaliser", Query("final-no-den", FINAL, values_without_normaliser)),
                    Control("L-fp-values/first-order", Query("rounding-first", KRANGE, values_rounding_first_order)))),
    Lemma("L-fp-gap", "scores moved by ≤ η leave weight ≤ e^{2η/τ}·Λ off hard maxima that share one value",
          (Query("gap", GAP, gap),), controls=(Control("L-fp-gap/no-factor", Query("gap-no-factor", GAP, gap_no_factor)),
                                                Control("L-fp-gap/no-max-key", Query("gap-no-max", GAP, gap_unbounded_below)))),
)

"""L-bos-level (theory.md §4, value sets of average heads): the BOS key on a level of one other value.

Statement.  (a) If the maximal keys of a row are the BOS key, carrying b, and m ≥ 0 keys all carrying v,
the average-hard output y is v + d/k with d = b − v and k = m + 1 ≥ 1 (a selector-width head: BOS
valued 1, the others 0, gives 1/(m + 1)).  (b) k ↦ v + d/k is monotone: for 1 ≤ k₁ < k₂ the value at
k₂ lies strictly between v and the value at k₁.  So inf_k |v + d/k − θ| is attained at k = 1, at the
integers next to k* = d/(θ − v), or in the limit |v − θ| — what the kernel's margin takes
(``structure.harmonic_distance``).  (c) Along x = v + d·s, s = 1/k ∈ (0, 1], a pre-activation
h(s) = h₀ + a·s keeps the sign it has as s → 0⁺ for every s < s* = −h₀/a (when s* > 0): an FFN
maps a family to a family for k > 1/s*, and the finitely many k ≤ 1/s* are evaluated exactly.

Human proof (≤ 5 lines).
(a) y·(m + 1) = b + m·v, so (y − v)·(m + 1) = b − v.
(b) d/k₁ − d/k₂ = d·(k₂ − k₁)/(k₁k₂) has d's sign and d/k₂ has d's sign: v + d/k₂ lies between v and v + d/k₁.
(c) h(s) − h₀ = a·s with s > 0: if h₀ ≠ 0, |a·s| < |h₀| for s < |h₀/a| keeps h₀'s sign; if h₀ = 0, a's sign.

Discharge.  Three QF_NRA queries over the reals with m, k₁, k₂ integers.
"""
from __future__ import annotations

from proofs.lemmas.base import Control, Lemma
from proofs.smt import Query

A_VARS = ("b", "v", "m", "y")
B_VARS = ("v", "d", "k1", "k2", "x1", "x2")
C_VARS = ("h0", "a", "s")


def bos_level_mean(B, v, bos_present=True):
    b, w, m, y = (v[k] for k in A_VARS)
    mean = B.eq(y * (m + 1), b + m * w) if bos_present else B.eq(y * m, m * w + b)
    return [B.ge(m, 0 if bos_present else 1), mean], B.eq((y - w) * (m + 1), b - w)


def bos_level_mean_without_bos(B, v):
    return bos_level_mean(B, v, bos_present=False)


def monotone(B, v, k_at_least_one=True):
    w, d, k1, k2, x1, x2 = (v[k] for k in B_VARS)
    hyps = [B.lt(k1, k2), B.eq(x1 * k1, w * k1 + d), B.eq(x2 * k2, w * k2 + d), B.not_(B.eq(d, 0))]
    hyps += [B.ge(k1, 1)] if k_at_least_one else [B.not_(B.eq(k1, 0)), B.not_(B.eq(k2, 0))]
    between = B.or_(B.and_(B.gt(d, 0), B.lt(w, x2), B.lt(x2, x1)), B.and_(B.lt(d, 0), B.gt(w, x2), B.gt(x2, x1)))
    return hyps, between


def monotone_any_k(B, v):
    return monotone(B, v, k_at_least_one=False)


def sign_kept(B, v, below_star=True):
    h0, a, s = (v[k] for k in C_VARS)
    hyps = [B.gt(s, 0), B.not_(B.eq(h0, 0))]
    if below_star:
        hyps.append(B.lt(B.abs(a) * s, B.abs(h0)))
    return hyps, B.or_(B.and_(B.gt(h0, 0), B.gt(h0 + a * s, 0)), B.and_(B.lt(h0, 0), B.lt(h0 + a * s, 0)))


def sign_kept_past_the_star(B, v):
    return sign_kept(B, v, below_star=False)


LEMMA = Lemma(
    name="L-bos-level",
    statement="BOS (value b) and m keys of value v on the top level: output v + (b − v)/(m + 1); k ↦ v + d/k is "
              "monotone (the margin's minimiser is next to k* = d/(θ − v)); an FFN keeps a family's "
              "pattern for k > 1/s*",
    queries=(Query("bos-level-mean", A_VARS, bos_level_mean, ints=("m",)),
             Query("monotone", B_VARS, monotone, ints=("k1", "k2")),
             Query("sign-kept", C_VARS, sign_kept)),
    controls=(
        Control("L-bos-level/without-bos", Query("without-bos", A_VARS, bos_level_mean_without_bos, ints=("m",))),
        Control("L-bos-level/any-k", Query("any-k", B_VARS, monotone_any_k, ints=("k1", "k2"))),
        Control("L-bos-level/past-the-star", Query("past-the-star", C_VARS, sign_kept_past_the_star)),
    ),
)

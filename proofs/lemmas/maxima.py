"""L-maxima-classes (theory.md §4, value sets of average heads): which keys can share the maximum.

Statement.  Key scores s_j = F(c_j) + P(j), c_j the key's class (its finite values), P a function of
the position.  (a) If P(j1) ≠ P(j2) for j1 ≠ j2, two keys with F(c1) = F(c2) never tie: the maxima
hold at most one key per value of F — in particular at most one key per class, whatever F is (a query known
only by its range), so the output is the mean of the values of a non-empty set of classes, each once.  (b) If P(j) = σ·j + β and |δ/σ| > D ≥ |j1 − j2|, then
P(j1) − P(j2) ≠ δ.  (c) If x = P(j1), y = P(j2) have one strict sign and |δ| ≥ max(|x|, |y|), δ ≠ 0,
then x − y ≠ δ (levels of F that far apart never tie).  (d) If P(j) = σ·j + β with σ ≠ 0 and r = δ/σ lies
strictly between two consecutive integers, then P(j1) − P(j2) ≠ δ for integer positions j1, j2.  (e) If
P(j1) − P(j2) = (j1 − j2)·q with |q| > |δ| (a difference quotient bounded away from δ, shown by the kernel
coefficient-wise on q's numerator and denominator over key offsets a, b ≥ 0, a ≠ b), then P(j1) − P(j2) ≠ δ.

Human proof (≤ 5 lines).
(a) s1 − s2 = F(c1) − F(c2) + P(j1) − P(j2) = P(j1) − P(j2) ≠ 0.
(b) |P(j1) − P(j2)| = |σ|·|j1 − j2| ≤ |σ|·D < |δ|.  (c) Same strict sign: |x − y| < max(|x|, |y|) ≤ |δ|.
(d) σ·(j1 − j2) = δ would make the integer j1 − j2 equal r, which no integer is.
(e) |j1 − j2| ≥ 1 for distinct integers, so |(j1 − j2)·q| ≥ |q| > |δ|.
So an average head's output is a mean of one value per level from a set of pairwise tying levels.

Discharge.  Four QF_NRA queries and one over integers (d: after dividing by σ ≠ 0 a tie is
j1 − j2 = r, and no integer j1 − j2 lies strictly between k and k + 1); position inequality j1 ≠ j2 enters only
through P(j1) ≠ P(j2) (a) and |j1 − j2| ≤ D (b).
"""
from __future__ import annotations

from proofs.lemmas.base import Control, Lemma
from proofs.smt import Query

A_VARS = ("F1", "F2", "P1", "P2")
B_VARS = ("sigma", "beta", "j1", "j2", "D", "delta")
C_VARS = ("x", "y", "delta")


def same_level(B, v, injective=True):
    F1, F2, P1, P2 = (v[k] for k in A_VARS)
    hyps = [B.eq(F1, F2)] + ([B.not_(B.eq(P1, P2))] if injective else [])
    return hyps, B.not_(B.eq(F1 + P1, F2 + P2))


def same_level_not_injective(B, v):
    return same_level(B, v, injective=False)


def affine_apart(B, v, strict=True):
    sigma, beta, j1, j2, D, delta = (v[k] for k in B_VARS)
    far = B.gt(B.abs(delta), B.abs(sigma) * D) if strict else B.ge(B.abs(delta), B.abs(sigma) * D)
    hyps = [B.ge(D, 0), B.le(B.abs(j1 - j2), D), far]
    return hyps, B.not_(B.eq((sigma * j1 + beta) - (sigma * j2 + beta), delta))


def affine_apart_not_strict(B, v):
    return affine_apart(B, v, strict=False)


def one_sign_apart(B, v, one_sign=True):
    x, y, delta = (v[k] for k in C_VARS)
    hyps = [B.not_(B.eq(delta, 0)), B.ge(B.abs(delta), B.max(B.abs(x), B.abs(y)))]
    if one_sign:
        hyps.append(B.or_(B.and_(B.gt(x, 0), B.gt(y, 0)), B.and_(B.lt(x, 0), B.lt(y, 0))))
    return hyps, B.not_(B.eq(x - y, delta))


def one_sign_dropped(B, v):
    return one_sign_apart(B, v, one_sign=False)


D_VARS = ("j1", "j2", "k")
E_VARS = ("j1", "j2", "q", "delta")


def quotient_apart(B, v, strict=True):
    """(e): keys at least one position apart whose difference quotient exceeds |δ| are never δ apart."""
    j1, j2, q, delta = (v[x] for x in E_VARS)
    far = B.gt(B.abs(q), B.abs(delta)) if strict else B.ge(B.abs(q), B.abs(delta))
    return [B.ge(B.abs(j1 - j2), 1), far], B.not_(B.eq((j1 - j2) * q, delta))


def quotient_not_strict(B, v):
    return quotient_apart(B, v, strict=False)


def off_the_step(B, v, strict=True):
    """A tie needs r = j1 − j2 (after dividing by σ ≠ 0): no integer difference lies strictly between k and k + 1."""
    j1, j2, k = (v[x] for x in D_VARS)
    between = B.and_(B.gt(j1 - j2, k), B.lt(j1 - j2, k + 1)) if strict else \
        B.and_(B.ge(j1 - j2, k), B.le(j1 - j2, k + 1))
    return [], B.not_(between)


def on_the_step(B, v):
    return off_the_step(B, v, strict=False)


LEMMA = Lemma(
    name="L-maxima-classes",
    statement="scores F(class) + P(j), P injective: ≤ 1 maximal key per level of F; levels δ apart never tie "
              "when |δ/σ| > key distance or δ/σ ∉ Z (P affine, σ constant) or |δ| ≥ max|P| (P of one strict sign) "
              "or every difference quotient of P exceeds |δ|",
    queries=(Query("same-level", A_VARS, same_level), Query("affine-apart", B_VARS, affine_apart),
             Query("one-sign-apart", C_VARS, one_sign_apart),
             Query("off-the-step", D_VARS, off_the_step, ints=D_VARS),
             Query("quotient-apart", E_VARS, quotient_apart)),
    controls=(
        Control("L-maxima-classes/not-injective", Query("not-injective", A_VARS, same_level_not_injective)),
        Control("L-maxima-classes/distance-not-strict", Query("distance-not-strict", B_VARS, affine_apart_not_strict)),
        Control("L-maxima-classes/one-sign-dropped", Query("one-sign-dropped", C_VARS, one_sign_dropped)),
        Control("L-maxima-classes/on-the-step", Query("on-the-step", D_VARS, on_the_step, ints=D_VARS)),
        Control("L-maxima-classes/quotient-not-strict", Query("quotient-not-strict", E_VARS, quotient_not_strict)),
    ),
)

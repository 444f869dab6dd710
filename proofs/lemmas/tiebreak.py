"""L-tiebreak (theory.md §3; paper's Lemma 8): make the wanted position the unique max.

Statement.  (a) Positions 1 ≤ j ≤ i (masks j<i, j<=i), Boolean P(j).  With score
i·P(j) + j the max is the rightmost j with P(j) (the rightmost j if none), and any two
positions' scores differ by ≥ 1 (distinct integers, so ≤ 1 per band: ziggurat with
g = 1, c = 2 holds a fortiori); score i·P(j) − j picks the leftmost.  (b) An average-hard
head with gap γ, scores s_j, positions 0 ≤ j ≤ n: t_j = s_j + (γ/2)(j/n) keeps the order
of unequal scores and separates every pair by ≥ γ/(2n); the max is the rightmost of M.

Human proof (≤ 5 lines).
(a) P(j₂) ≥ P(j₁), j₂ ≥ j₁ + 1: the score difference i(P₂ − P₁) + (j₂ − j₁) ≥ 1.
    P(j₁) = 1 > P(j₂) = 0: difference i + j₁ − j₂ ≥ i + 1 − i = 1 since j₂ ≤ i. Mirror for −j.
(b) Ties (s₁ = s₂) get (γ/2)|j₁ − j₂|/n ≥ γ/(2n). Unequal scores differ by ≥ γ, and the
    bonus moves them by at most γ/2 < γ, so the order stays with margin ≥ γ/2 ≥ γ/(2n).

Discharge.  Four QF_NRA queries (rightmost, leftmost, general); integers enter only
through |j₁ − j₂| ≥ 1.
"""
from __future__ import annotations

from proofs.lemmas.base import Control, Lemma
from proofs.smt import Query

BOOL_VARS = ("i", "j1", "j2", "P1", "P2")
GENERAL_VARS = ("s1", "s2", "j1", "j2", "n", "gamma")


def _bool_hyps(B, v):
    i, j1, j2, P1, P2 = (v[k] for k in BOOL_VARS)
    return [B.ge(j1, 1), B.ge(j2, j1 + 1), B.le(j2, i), B.eq(P1 * (P1 - 1), 0), B.eq(P2 * (P2 - 1), 0)]


def rightmost(B, v, weight=None):
    i, j1, j2, P1, P2 = (v[k] for k in BOOL_VARS)
    w = i if weight is None else weight
    s1, s2 = w * P1 + j1, w * P2 + j2
    return _bool_hyps(B, v), B.and_(B.implies(B.ge(P2, P1), B.ge(s2 - s1, 1)),
                                    B.implies(B.gt(P1, P2), B.ge(s1 - s2, 1)))


def leftmost(B, v):
    i, j1, j2, P1, P2 = (v[k] for k in BOOL_VARS)
    s1, s2 = i * P1 - j1, i * P2 - j2
    return _bool_hyps(B, v), B.and_(B.implies(B.ge(P1, P2), B.ge(s1 - s2, 1)),
                                    B.implies(B.gt(P2, P1), B.ge(s2 - s1, 1)))


def rightmost_weight_one(B, v):
    return rightmost(B, v, weight=1)


def general(B, v, bonus_fraction=None):
    s1, s2, j1, j2, n, gamma = (v[k] for k in GENERAL_VARS)
    half = gamma / 2 if bonus_fraction is None else gamma * bonus_fraction
    t1, t2 = s1 + half * j1 / n, s2 + half * j2 / n
    hyps = [B.gt(gamma, 0), B.ge(n, 1), B.ge(j1, 0), B.ge(j2, 0), B.le(j1, n), B.le(j2, n),
            B.ge(B.abs(j1 - j2), 1), B.or_(B.eq(s1, s2), B.ge(B.abs(s1 - s2), gamma))]
    return hyps, B.and_(B.ge(B.abs(t1 - t2), gamma / (2 * n)), B.implies(B.gt(s1, s2), B.gt(t1, t2)))


def general_full_bonus(B, v):
    return general(B, v, bonus_fraction=1)


LEMMA = Lemma(
    name="L-tiebreak",
    statement="i·P(j) ± j selects the rightmost/leftmost P-position with integer gaps; "
              "s + (γ/2)(j/n) makes an AHAT head unique-max with gap ≥ γ/(2n)",
    queries=(
        Query("rightmost", BOOL_VARS, rightmost),
        Query("leftmost", BOOL_VARS, leftmost),
        Query("general", GENERAL_VARS, general),
    ),
    controls=(
        Control("L-tiebreak/weight-1-not-i", Query("weight-1-not-i", BOOL_VARS, rightmost_weight_one)),
        Control("L-tiebreak/full-gamma-bonus", Query("full-gamma-bonus", GENERAL_VARS, general_full_bonus)),
    ),
)

"""L-bos-apart (theory.md §3–4, an instance of L-ziggurat's bands): the BOS key off the lattice.

Statement.  Input keys score o_c + A·j (A ≠ 0, key positions 1 ≤ j ≤ D, class offsets on the lattice
A·Z); the BOS key, at position 0, scores o_z with R_c = (o_z − o_c)/A not an integer.  If for every
class R_c ≤ 0 or R_c ≥ D + 1, then (a) BOS and every input key are at least |A| apart, so every
deficit below the maximum is ≥ |A| whichever key is on top; (b) the input keys' deficits below any
maximum are δ₀ + t·|A| for integers t (one offset δ₀), so a band [x, x + |A|) holds one lattice level
— ≤ c input keys (L-ziggurat) — and BOS adds at most one: L-ziggurat with c + 1, q = e^{−|A|/τ}.

Human proof (≤ 5 lines).
1. Divide scores by |A|: A = ±1.  BOS − key = ±(R_c − j).
2. R_c ≤ 0 < 1 ≤ j gives j − R_c ≥ 1; R_c ≥ D + 1 > D ≥ j gives R_c − j ≥ 1: (a).
3. Two deficits δ₀ + t₁, δ₀ + t₂ in [x, x + 1) differ by < 1, and t₁ − t₂ ∈ Z: t₁ = t₂, one level: (b).

Discharge.  Two QF_LIRA queries (j, t₁, t₂ integers), each with a false variant refuted: R ≥ D in
place of R ≥ D + 1 (BOS can tie the key at j = D) and bands of width 2.  The kernel
(``structure._bos_apart``) proves R_c ≤ 0 or R_c − D − 1 ≥ 0 for every n at both end rows.
"""
from __future__ import annotations

from proofs.lemmas.base import Control, Lemma
from proofs.smt import Query

STEP_VARS = ("R", "D", "j")
BAND_VARS = ("x", "d0", "t1", "t2", "w")


def a_step_away(B, v, past_the_end=1):
    R, D, j = v["R"], v["D"], v["j"]
    hyps = [B.ge(j, 1), B.le(j, D), B.or_(B.le(R, 0), B.ge(R, D + past_the_end))]
    return hyps, B.ge(B.abs(R - j), 1)


def a_step_away_at_the_end(B, v):
    return a_step_away(B, v, past_the_end=0)


def one_level_a_band(B, v, width=1):
    x, d0, t1, t2, w = (v[k] for k in BAND_VARS)
    in_band = [B.le(x, d0 + t1), B.lt(d0 + t1, x + w), B.le(x, d0 + t2), B.lt(d0 + t2, x + w)]
    return [B.eq(w, width)] + in_band, B.eq(t1, t2)


def one_level_a_wider_band(B, v):
    return one_level_a_band(B, v, width=2)


LEMMA = Lemma(
    name="L-bos-apart",
    statement="lattice keys o_c + A·j and a BOS key with R_c = (o_z − o_c)/A ≤ 0 or ≥ D + 1: every deficit ≥ |A|, "
              "a band of width |A| holds one lattice level plus at most BOS (L-ziggurat with c + 1)",
    queries=(Query("a-step-away", STEP_VARS, a_step_away, ints=("j",)),
             Query("one-level-a-band", BAND_VARS, one_level_a_band, ints=("t1", "t2"))),
    controls=(
        Control("L-bos-apart/at-the-end", Query("at-the-end", STEP_VARS, a_step_away_at_the_end, ints=("j",))),
        Control("L-bos-apart/wider-band", Query("wider-band", BAND_VARS, one_level_a_wider_band, ints=("t1", "t2"))),
    ),
)

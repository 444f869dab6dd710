"""L-bos-apart (theory.md §3–4, an instance of L-ziggurat's bands): the BOS key off the lattice.

Statement.  Input keys score o_c + A·j (A ≠ 0, key positions 1 ≤ j ≤ D, class offsets on the lattice
A·Z); the BOS key, at position 0, scores o_z with R_c = (o_z − o_c)/A not an integer.  If for some
0 < ρ ≤ 1 and every class R_c ≤ 1 − ρ or R_c ≥ D + ρ, then (a) BOS and every input key are at least
ρ|A| apart, so every deficit below the maximum is ≥ ρ|A| whichever key is on top; (b) the input keys'
deficits below any maximum are δ₀ + t·|A| for integers t (one offset δ₀), so a band [x, x + ρ|A|)
holds one lattice level — ≤ c input keys (L-ziggurat) — and BOS adds at most one: L-ziggurat with
width ρ|A| and c + 1, q = e^{−ρ|A|/τ}.

Human proof (≤ 5 lines).
1. Divide scores by |A|: A = ±1.  BOS − key = ±(R_c − j).
2. R_c ≤ 1 − ρ and j ≥ 1 give j − R_c ≥ ρ; R_c ≥ D + ρ and j ≤ D give R_c − j ≥ ρ: (a).
3. Two deficits δ₀ + t₁, δ₀ + t₂ in [x, x + ρ) differ by < ρ ≤ 1, and t₁ − t₂ ∈ Z: t₁ = t₂, one level: (b).

Discharge.  Two QF_LIRA queries (j, t₁, t₂ integers), each with a false variant refuted: R ≥ D in
place of R ≥ D + ρ (BOS can tie the key at j = D) and bands wider than a step.  The kernel
(``structure._bos_apart``) proves 1 − R_c ≥ ρ or R_c − D ≥ ρ for every n at both end rows.
"""
from __future__ import annotations

from proofs.lemmas.base import Control, Lemma
from proofs.smt import Query

STEP_VARS = ("R", "D", "j", "rho")
BAND_VARS = ("x", "d0", "t1", "t2", "w")


def a_share_away(B, v, past_the_end=True):
    R, D, j, rho = v["R"], v["D"], v["j"], v["rho"]
    hyps = [B.gt(rho, 0), B.le(rho, 1), B.ge(j, 1), B.le(j, D),
            B.or_(B.le(R, 1 - rho), B.ge(R, D + rho) if past_the_end else B.ge(R, D))]
    return hyps, B.ge(B.abs(R - j), rho)


def a_share_away_at_the_end(B, v):
    return a_share_away(B, v, past_the_end=False)


def one_level_a_band(B, v, at_most_a_step=True):
    x, d0, t1, t2, w = (v[k] for k in BAND_VARS)
    in_band = [B.le(x, d0 + t1), B.lt(d0 + t1, x + w), B.le(x, d0 + t2), B.lt(d0 + t2, x + w)]
    return [B.gt(w, 0), B.le(w, 1) if at_most_a_step else B.le(w, 2)] + in_band, B.eq(t1, t2)


def one_level_a_wider_band(B, v):
    return one_level_a_band(B, v, at_most_a_step=False)


LEMMA = Lemma(
    name="L-bos-apart",
    statement="lattice keys o_c + A·j and a BOS key with R_c = (o_z − o_c)/A ≤ 1 − ρ or ≥ D + ρ: every deficit ≥ ρ|A|, "
              "a band of width ρ|A| holds one lattice level plus at most BOS (L-ziggurat with c + 1)",
    queries=(Query("a-share-away", STEP_VARS, a_share_away, ints=("j",)),
             Query("one-level-a-band", BAND_VARS, one_level_a_band, ints=("t1", "t2"))),
    controls=(
        Control("L-bos-apart/at-the-end", Query("at-the-end", STEP_VARS, a_share_away_at_the_end, ints=("j",))),
        Control("L-bos-apart/wider-band", Query("wider-band", BAND_VARS, one_level_a_wider_band, ints=("t1", "t2"))),
    ),
)

"""L-two-keys (theory.md §4, the rational gap bound across two heads): a sum of two selected keys' values.

Statement.  Two heads each output one visible key's value, V_h(j) = T_h(ρ_j) + P_h(j) with ρ_j the
row (symbol-determined values) at position j, and P₁(j) + P₂(j) free of j, so y − θ = σ·(j₁ − j₂) + C with
σ ≠ 0 and C a function of (ρ_{j₁}, ρ_{j₂}, n).  (a) C = 0 and ρ_{j₁} ≠ ρ_{j₂}: y ≠ θ (one position carries one
row, so j₁ ≠ j₂).  (b) C ≠ 0 with |C/σ| > D ≥ |j₁ − j₂| (the key distance), or C/σ strictly between two
consecutive integers: y ≠ θ (L-maxima-classes (b), (d)).  (c) With y·G ∈ Z and p·G ∈ Z for θ = p/q
(q ≥ 1, G ≥ 1 integers), y ≠ θ gives |y − θ| ≥ 1/(q·G).

Human proof (≤ 5 lines).
(a) y = θ needs σ·(j₁ − j₂) = 0, so j₁ = j₂, and then ρ_{j₁} = ρ_{j₂}: a contradiction.
(b) σ·(j₁ − j₂) = −C needs |j₁ − j₂| = |C/σ| > D, or an integer j₁ − j₂ equal to a non-integer.
(c) (y − θ)·q·G = q·(yG) − pG is a non-zero integer, so at least 1 in size.

Discharge.  Two queries, over integers where positions and grids are (QF_NIRA / QF_NIA): (a) with
the row a function of the position stated as j₁ = j₂ ⇒ ρ₁ = ρ₂; (c) with m = y·G.  Controls: (a) without
that functionality (two rows at one position tie), (c) claiming 2/(q·G).  (b) is L-maxima-classes (b), (d).
The kernel (``structure._two_keys_avoid``) requires exactly two writers, each an extreme head or an
average head whose maxima carry one value, never an empty row, a constant x₀, P₁ affine with slope σ
proved ≠ 0 and P₁ + P₂ free of j; ``bounds._hard_margin`` applies (c) with the output's grid.  The two
values may reach y through an FFN right above the heads that is linear in them (``_two_keys_through``:
units pairing as c·ReLU(h) − c·ReLU(−h) = c·h, so y = x₀ + a₁V₁ + a₂V₂ exactly, each V in its own dim,
constant before the heads); (a) and (b) then range over the rows each head can select
(``_selectable``: a row whose best score, F(row) plus the largest position term over the hulls, is below
the BOS key's exact score when BOS is visible from every row is never selected, L-maxima-classes).
"""
from __future__ import annotations

from proofs.lemmas.base import Control, Lemma
from proofs.smt import Query

ROW_VARS = ("sigma", "C", "j1", "j2", "r1", "r2")
GRID_VARS = ("m", "p", "q", "G")


def one_position_one_row(B, v, functional=True):
    sigma, C, j1, j2, r1, r2 = (v[k] for k in ROW_VARS)
    hyps = [B.not_(B.eq(sigma, 0)), B.eq(C, 0), B.not_(B.eq(r1, r2))]
    if functional:
        hyps.append(B.or_(B.not_(B.eq(j1, j2)), B.eq(r1, r2)))
    return hyps, B.not_(B.eq(sigma * (j1 - j2) + C, 0))


def two_rows_at_one_position(B, v):
    return one_position_one_row(B, v, functional=False)


def grid_margin(B, v, claimed=1):
    m, p, q, G = (v[k] for k in GRID_VARS)
    hyps = [B.ge(q, 1), B.ge(G, 1), B.not_(B.eq(m * q, p * G))]  # y = m/G ≠ θ = p/q
    return hyps, B.ge(B.abs(m * q - p * G), claimed)  # |y − θ|·q·G ≥ claimed


def grid_margin_doubled(B, v):
    return grid_margin(B, v, claimed=2)


LEMMA = Lemma(
    name="L-two-keys",
    statement="two heads' selected keys j₁, j₂ with y − θ = σ(j₁ − j₂) + C: C = 0 with different rows needs one "
              "position with two rows; C ≠ 0 is L-maxima-classes (b), (d); y on the grid Z/G, θ = p/q, pG ∈ Z: "
              "y ≠ θ is at least 1/(qG) away",
    queries=(Query("one-position-one-row", ROW_VARS, one_position_one_row, ints=("j1", "j2")),
             Query("grid-margin", GRID_VARS, grid_margin, ints=GRID_VARS)),
    controls=(
        Control("L-two-keys/two-rows-at-one-position", Query("two-rows-at-one-position", ROW_VARS,
                                                             two_rows_at_one_position, ints=("j1", "j2"))),
        Control("L-two-keys/doubled-margin", Query("doubled-margin", GRID_VARS, grid_margin_doubled, ints=GRID_VARS)),
    ),
)

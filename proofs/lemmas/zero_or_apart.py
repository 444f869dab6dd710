"""L-zero-or-apart (theory.md §4, the rational gap bound carried through an FFN): "0 or at least L".

Statement.  (a) A value z with z·G ∈ Z + o (G an integer ≠ 0, 0 ≤ o < 1) is 0 or |z| ≥ min(o, 1 − o)/|G|
(1/|G| when o = 0; never 0 when o ≠ 0); a value p/q with integers p and 1 ≤ q ≤ B is 0 or |p/q| ≥ 1/B.
(b) If z is 0 or |z| ≥ L (L > 0), then ReLU(a·z) is 0 or ≥ |a|·L.  (c) Terms x_u ≥ 0, each 0 or
≥ L_u, sum to 0 or to ≥ min L_u; so y = c + s·Σ|c_u|·ReLU(a_u z_u) (every coefficient c_u of sign s)
is c or s·(y − c) ≥ min |c_u a_u| L_u; a unit whose input k has s·k ≤ 0 with a weight of sign s is
off — a head scoring a·k(j) and outputting w·k, with the BOS key visible from every row, has
a·k ≥ a·k(BOS), so w·k ≥ w·k(BOS) when a·w > 0, else ≤.  (d) For such y and a threshold θ with t = s·(θ − c):
t < 0 gives |y − θ| ≥ −t, and 0 < t < L gives |y − θ| ≥ min(t, L − t).

Human proof (≤ 5 lines).
1. (a) z·G = k + o with k an integer: |k + o| ≥ min(o, 1 − o) unless k + o = 0 (o = 0, z = 0); p ≠ 0 gives |p| ≥ 1, q ≤ B.
2. (b) a·z ≤ 0 gives ReLU 0; a·z > 0 gives z ≠ 0, so |a·z| = |a|·|z| ≥ |a|·L.
3. (c) Non-negative terms: if any is non-zero the sum is at least it, ≥ its L_u ≥ min L_u; w·(k − k_B) has the sign of a·(k − k_B)·(a·w).
4. (d) y = c sits s·t away from θ in distance |t|; y beyond c by ≥ L on side s: s·(y − θ) ≥ L − t > 0,
   and when t < 0 also s·(y − θ) ≥ L − t > −t.

Discharge.  Eight QF_NRA/QF_NIA queries and five false variants, refuted: terms of mixed signs
(x ≥ 0, y ≤ 0: the sum can be 0 with non-zero terms), a bias inside the ReLU (ReLU(z − b) can be
small and non-zero), a threshold at the far end (t = L: y = c + s·L sits on θ), a grid offset 0
claimed non-zero, and an extreme without the BOS key among its keys.  The kernel (``structure._relu_apart``) requires every unit to read one input,
no bias, one sign of c_u, and an exact c; ``bounds._margin`` evaluates c and the L's in balls, and (d)
row by row when both vary with the row: t and |L_k| − t as one simplified expression each (c = 1/(2i), L = 1/i).
"""
from __future__ import annotations

from proofs.lemmas.base import Control, Lemma
from proofs.smt import Query

GRID_VARS = ("z", "G", "k", "o")
DEN_VARS = ("p", "q", "bound")
RELU_VARS = ("z", "a", "L", "b")
SUM_VARS = ("x", "y", "L1", "L2")
MARGIN_VARS = ("c", "y", "L", "s", "theta")
EXTREME_VARS = ("a", "w", "k", "kb")


def grid_zero_or_apart(B, v):
    z, G, k, o = (v[x] for x in GRID_VARS)
    hyps = [B.ge(G, 1), B.eq(z * G, k + o), B.ge(o, 0), B.lt(o, 1)]
    on_grid = B.and_(B.eq(o, 0), B.or_(B.eq(z, 0), B.ge(B.abs(z * G), 1)))
    off_grid = B.and_(B.gt(o, 0), B.or_(B.ge(B.abs(z * G), o), B.ge(B.abs(z * G), 1 - o)))  # ≥ min(o, 1 − o)
    return hyps, B.or_(on_grid, off_grid)


def grid_offset_zero_claimed_nonzero(B, v):
    z, G, k, o = (v[x] for x in GRID_VARS)
    return [B.ge(G, 1), B.eq(z * G, k + o), B.eq(o, 0)], B.not_(B.eq(z, 0))


def denominator_zero_or_apart(B, v):
    p, q, bound = (v[x] for x in DEN_VARS)
    return [B.ge(q, 1), B.le(q, bound)], B.or_(B.eq(p, 0), B.ge(B.abs(p) * bound, q))  # |p/q| ≥ 1/B, multiplied out


def relu_keeps_apart(B, v, with_bias=False):
    z, a, L, b = (v[x] for x in RELU_VARS)
    hyps = [B.gt(L, 0), B.not_(B.eq(a, 0)), B.or_(B.eq(z, 0), B.ge(B.abs(z), L))]
    hyps.append(B.gt(b, 0) if with_bias else B.eq(b, 0))
    r = B.relu(a * z - b)
    return hyps, B.or_(B.eq(r, 0), B.ge(r, B.abs(a) * L))


def relu_with_a_bias(B, v):
    return relu_keeps_apart(B, v, with_bias=True)


def same_sign_sum(B, v, mixed=False):
    x, y, L1, L2 = (v[k] for k in SUM_VARS)
    hyps = [B.gt(L1, 0), B.gt(L2, 0), B.ge(x, 0), B.or_(B.eq(x, 0), B.ge(x, L1))]
    if mixed:
        hyps += [B.le(y, 0), B.or_(B.eq(y, 0), B.le(y, -L2))]
    else:
        hyps += [B.ge(y, 0), B.or_(B.eq(y, 0), B.ge(y, L2))]
    at_least_min = B.or_(B.and_(B.le(L1, L2), B.ge(B.abs(x + y), L1)), B.and_(B.le(L2, L1), B.ge(B.abs(x + y), L2)))
    return hyps, B.or_(B.eq(x + y, 0), at_least_min)


def mixed_signs(B, v):
    return same_sign_sum(B, v, mixed=True)


def margin(B, v, far_end_allowed=False):
    c, y, L, s, theta = (v[k] for k in MARGIN_VARS)
    t = s * (theta - c)
    hyps = [B.gt(L, 0), B.or_(B.eq(s, 1), B.eq(s, -1)), B.or_(B.eq(y, c), B.ge(s * (y - c), L)),
            B.gt(t, 0), B.le(t, L) if far_end_allowed else B.lt(t, L)]
    at_least_min = B.or_(B.and_(B.le(t, L - t), B.ge(B.abs(y - theta), t)),
                         B.and_(B.le(L - t, t), B.ge(B.abs(y - theta), L - t)))
    return hyps, B.and_(at_least_min, B.gt(B.abs(y - theta), 0))


def margin_at_the_far_end(B, v):
    return margin(B, v, far_end_allowed=True)


def margin_below_the_centre(B, v):
    c, y, L, s, theta = (v[k] for k in MARGIN_VARS)
    t = s * (theta - c)
    hyps = [B.gt(L, 0), B.or_(B.eq(s, 1), B.eq(s, -1)), B.or_(B.eq(y, c), B.ge(s * (y - c), L)), B.lt(t, 0)]
    return hyps, B.ge(B.abs(y - theta), -t)


def extreme_against_bos(B, v, bos_visible=True):
    a, w, k, kb = (v[x] for x in EXTREME_VARS)
    hyps = [B.not_(B.eq(a, 0)), B.not_(B.eq(w, 0))] + ([B.ge(a * k, a * kb)] if bos_visible else [])
    return hyps, B.or_(B.and_(B.gt(a * w, 0), B.ge(w * k, w * kb)), B.and_(B.lt(a * w, 0), B.le(w * k, w * kb)))


def extreme_without_bos(B, v):
    return extreme_against_bos(B, v, bos_visible=False)


def bound_keeps_unit_off(B, v):
    a, w, k, kb = (v[x] for x in EXTREME_VARS)  # k ≤ 0 read by a weight a > 0 (or k ≥ 0 by a < 0)
    return [B.or_(B.and_(B.le(k, 0), B.gt(a, 0)), B.and_(B.ge(k, 0), B.lt(a, 0)))], B.eq(B.relu(a * k), 0)


LEMMA = Lemma(
    name="L-zero-or-apart",
    statement="a grid value or a bounded-denominator value is 0 or at least L in size; ReLU(a·z) of such a z is 0 "
              "or ≥ |a|·L; same-sign sums of such terms are 0 or ≥ min L; y = c or s·(y − c) ≥ L keeps y at least "
              "min(t, L − t) from θ (t = s·(θ − c) ∈ (0, L)), or −t when t < 0",
    queries=(Query("grid-zero-or-apart", GRID_VARS, grid_zero_or_apart, ints=("G", "k")),
             Query("denominator-zero-or-apart", DEN_VARS, denominator_zero_or_apart, ints=("p", "q")),
             Query("relu-keeps-apart", RELU_VARS, relu_keeps_apart),
             Query("same-sign-sum", SUM_VARS, same_sign_sum),
             Query("margin", MARGIN_VARS, margin),
             Query("margin-below-the-centre", MARGIN_VARS, margin_below_the_centre),
             Query("extreme-against-bos", EXTREME_VARS, extreme_against_bos),
             Query("bound-keeps-unit-off", EXTREME_VARS, bound_keeps_unit_off)),
    controls=(
        Control("L-zero-or-apart/offset-zero", Query("offset-zero", GRID_VARS, grid_offset_zero_claimed_nonzero,
                                                     ints=("G", "k"))),
        Control("L-zero-or-apart/bias", Query("bias", RELU_VARS, relu_with_a_bias)),
        Control("L-zero-or-apart/mixed-signs", Query("mixed-signs", SUM_VARS, mixed_signs)),
        Control("L-zero-or-apart/far-end", Query("far-end", MARGIN_VARS, margin_at_the_far_end)),
        Control("L-zero-or-apart/without-bos", Query("without-bos", EXTREME_VARS, extreme_without_bos)),
    ),
)

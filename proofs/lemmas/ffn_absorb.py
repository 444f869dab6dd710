"""L-ffn-absorb (theory.md §4, the FFN that rounds an error away): a flat FFN makes a noisy input exact.

Statement.  Let y(x) = [o = x]·x + Σ_u c_u·ReLU(a_u·x + b_u) (plus o's own value when o ≠ x, exact), and let
the hard input v and the soft input x = v + δ both lie in a soft hull [lo, hi] (a softmax average is a convex
combination of its keys' values, so the hull of the value dims bounds it at every τ).  With h_u = a_u·v + b_u:
(a) a unit with h_u ≠ 0 keeps its regime while |a_u·δ| ≤ |h_u|: ReLU(h_u + a_u·δ) = ReLU(h_u) + [h_u > 0]·a_u·δ;
(b) a unit with h_u = 0 gives ReLU(a_u·δ) = a_u·δ when a_u·δ ≥ 0 and 0 when a_u·δ ≤ 0.  Hence for
|δ| ≤ r = min |h_u/a_u| (h_u ≠ 0) on a side σ ∈ {+1, −1} that the hull allows (v + σ·ε ∈ [lo, hi]),
y(v + δ) − y(v) = s_σ·δ with the one-sided slope s_σ = [o = x] + Σ c_u·a_u over units with h_u > 0 or
(h_u = 0 and σ·a_u > 0).  When s_σ = 0 on every allowed side at every value v the input may take
inexactly, an input error ≤ r leaves y exactly hard: the rows downstream are exact (``exact_unless`` = ∅).

Human proof (≤ 5 lines).
(a) h > 0 and |aδ| ≤ h give h + aδ ≥ 0, so ReLU = h + aδ; h < 0 and |aδ| ≤ −h give h + aδ ≤ 0, so ReLU = 0.
(b) ReLU(t) = t for t ≥ 0 and 0 for t ≤ 0, with t = aδ.
Summing (a) and (b) over the units, y(v + δ) − y(v) = ([o = x] + Σ_active c_u a_u)·δ = s_σ·δ = 0.

Discharge.  Three QF_LRA queries ((a) on, (a) off, (b) both sides) and two false variants refuted: a radius
beyond |h/a| (the unit changes regime) and the kink read on the side the hull forbids (ReLU(aδ) = aδ claimed
for aδ < 0).  The kernel (``structure._absorbs``) requires the units writing o to read one dim x, o exact or
o = x, a known soft hull of x (``Coord.soft``: embeddings' hulls, Σ c·[lo, hi] over a head's value terms with
0 for an empty row, FFN hulls through breakpoints); it computes s_σ exactly per noisy value and r in rationals.
``bounds`` (every box) and ``tail`` (on [N₀, ∞)) require x's error bound ≤ r, else the box fails, and set o's
error to 0.  The certifier asks for the rule only when the plain analysis does not certify (a box at a hot τ
may have an error above r, where the plain analysis would still pass).
"""
from __future__ import annotations

from proofs.lemmas.base import Control, Lemma
from proofs.smt import Query

VARS = ("h", "a", "d")


def unit_on_near(B, v):
    h, a, d = (v[k] for k in VARS)
    return [B.gt(h, 0), B.le(B.abs(a * d), h)], B.eq(B.relu(h + a * d), h + a * d)


def unit_off_near(B, v):
    h, a, d = (v[k] for k in VARS)
    return [B.lt(h, 0), B.le(B.abs(a * d), -h)], B.eq(B.relu(h + a * d), 0)


def kink_one_sided(B, v):
    h, a, d = (v[k] for k in VARS)
    on = B.eq(B.relu(a * d), a * d)
    off = B.eq(B.relu(a * d), 0)
    return [B.eq(h, 0)], B.and_(B.implies(B.ge(a * d, 0), on), B.implies(B.le(a * d, 0), off))


def beyond_the_radius(B, v):
    h, a, d = (v[k] for k in VARS)
    return [B.gt(h, 0), B.le(B.abs(a * d), 2 * h)], B.eq(B.relu(h + a * d), h + a * d)


def kink_on_the_forbidden_side(B, v):
    h, a, d = (v[k] for k in VARS)
    return [B.eq(h, 0), B.lt(a * d, 0)], B.eq(B.relu(a * d), a * d)


LEMMA = Lemma(
    name="L-ffn-absorb",
    statement="a ReLU unit keeps its regime while |a·δ| ≤ |h| (h ≠ 0), and one at its kink (h = 0) is linear "
              "on the side a·δ ≥ 0 and off on the other; so an FFN whose one-sided slopes at a noisy input value "
              "are 0 on the sides the input's soft hull allows outputs exactly the hard value for errors ≤ min |h/a|",
    queries=(Query("unit-on-near", VARS, unit_on_near),
             Query("unit-off-near", VARS, unit_off_near),
             Query("kink-one-sided", VARS, kink_one_sided)),
    controls=(
        Control("L-ffn-absorb/beyond-the-radius", Query("beyond-the-radius", VARS, beyond_the_radius)),
        Control("L-ffn-absorb/kink-on-the-forbidden-side", Query("kink-on-the-forbidden-side", VARS,
                                                                kink_on_the_forbidden_side)),
    ),
)

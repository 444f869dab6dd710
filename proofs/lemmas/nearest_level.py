"""L-nearest-level (theory.md §4, exact rows and the decision's side): the nearest lower key that is always there
decides the side of the leak once τ is small enough.

Statement.  An average head with exact inputs, at a row whose hard maxima are the m ≥ 1 keys of one level with
mean μ ≥ c.  The BOS key, visible from every non-empty row, lies g₁ below them and carries b < c.  Every other key
carrying a value above c lies at least g₂ > g₁ below the maxima; at most N keys are visible, each carrying at most
V.  Then e^{(g₂ − g₁)/τ} ≥ N·(V − c)/(c − b) gives soft ≤ hard = μ at that row.  (Mirror: b > c ≥ μ and the keys
below c at least g₂ below, each at least V: e^{(g₂ − g₁)/τ} ≥ N·(c − V)/(b − c) gives soft ≥ hard.)  The side
then goes through monotone FFNs and decides on θ as L-one-sided's does; only the condition on τ is new, and
every box checks it for its τ(n) and n (``bounds._analyse_box``).

Human proof (≤ 5 lines).
(a) Weigh key j by e^{−d_j/τ} (d_j its deficit): the maxima weigh 1 each, BOS e₁ = e^{−g₁/τ}, and every key
    above c weighs at most e₂ = e^{−g₂/τ}, so their weights sum to W₂ ≤ N·e₂.
(b) soft − μ has the sign of e₁(b − μ) + Σ_{x_j ≤ c} w_j(x_j − μ) + Σ_{x_j > c} w_j(x_j − μ): the middle sum is ≤ 0
    (x_j ≤ c ≤ μ), the last ≤ W₂(V − μ).
(c) μ ≥ c gives μ − b ≥ c − b > 0 and V − μ ≤ V − c, so e₁(μ − b) ≥ e₁(c − b) ≥ N·e₂(V − c) ≥ W₂(V − μ).

Discharge.  Two QF_NRA queries, (c) and then (a, b), with the weights as positive reals (e₁, e₂ and the
exponential condition as e₁·(c − b) ≥ r·(V − c) with r = N·e₂: Z3 has no exp), the lower keys summed into (W, S)
pairs with S ≤ c·W (at most c) and S ≤ V·W, W ≤ r (above c).  Controls: μ below the split c (a row the span
leaves undecided), and the keys above c weighing more than r (one of them nearer than g₂).
"""
from __future__ import annotations

from proofs.lemmas.base import Control, Lemma
from proofs.smt import Query

NEAR = ("mu", "c", "b", "e1", "r", "v", "w2")
SUM = ("m", "mu", "c", "b", "e1", "v", "w1", "s1", "w2", "s2")


def bos_outweighs(B, k, mu_below=False, bad_unbounded=False):
    """(c) BOS weight e1 with value b < c, the keys above c weighing w2 ≤ r = N·e₂ in all, the box's condition
    e1·(c − b) ≥ r·(v − c) and μ ≥ c: e1·(μ − b) ≥ w2·(v − μ)."""
    mu, c, b, e1, r, v, w2 = (k[x] for x in NEAR)
    hyps = [B.gt(e1, 0), B.gt(r, 0), B.ge(w2, 0), B.ge(v, c), B.gt(c, b), B.ge(e1 * (c - b), r * (v - c)),
            B.lt(mu, c) if mu_below else B.ge(mu, c)] + ([] if bad_unbounded else [B.le(w2, r)])
    return hyps, B.ge(e1 * (mu - b), w2 * (v - mu))


def soft_at_most_hard(B, k):
    """(a, b) m maxima of mean μ, BOS (e1, b), keys at most c (weight w1, weighted sum s1 ≤ c·w1), keys above c
    (w2, s2 ≤ v·w2) with (c)'s conclusion: the weighted mean is at most μ."""
    m, mu, c, b, e1, v, w1, s1, w2, s2 = (k[x] for x in SUM)
    hyps = [B.ge(m, 1), B.gt(e1, 0), B.ge(w1, 0), B.le(s1, c * w1), B.ge(w2, 0), B.le(s2, v * w2), B.ge(mu, c),
            B.ge(e1 * (mu - b), w2 * (v - mu))]
    return hyps, B.le(m * mu + e1 * b + s1 + s2, mu * (m + e1 + w1 + w2))


def mu_below_the_split(B, k):
    return bos_outweighs(B, k, mu_below=True)


def a_key_above_c_weighs_more(B, k):
    return bos_outweighs(B, k, bad_unbounded=True)


LEMMA = Lemma(
    name="L-nearest-level",
    statement="maxima of mean μ ≥ c, the always-visible BOS key g₁ below carrying b < c, every key above c at least "
              "g₂ > g₁ below: e^{(g₂ − g₁)/τ} ≥ N·(V − c)/(c − b) gives soft ≤ hard (mirrored: soft ≥ hard)",
    queries=(Query("bos-outweighs", NEAR, bos_outweighs), Query("soft-at-most-hard", SUM, soft_at_most_hard)),
    controls=(
        Control("L-nearest-level/mu-below-the-split", Query("mu-below-the-split", NEAR, mu_below_the_split)),
        Control("L-nearest-level/a-key-above-c-weighs-more", Query("a-key-above-c-weighs-more", NEAR,
                                                                   a_key_above_c_weighs_more)),
    ),
)

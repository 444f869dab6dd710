"""L-extreme-exact (theory.md §4, exact rows): an average head's output that sits at an end of its values.

Statement.  An average head, value dims exact (soft = hard at every key), key classes with carried values
c(K).  Let v* be the least (or greatest) carried value, and suppose that under every hard query value each
class K with c(K) ≠ v* scores at least as high as each class L with c(L) = v*.  At a row whose hard output
is v*, every key the row sees carries v*, so the soft output is v* for every τ — whatever error the query
carries.  (A row that sees no key outputs 0 in hard and soft alike.)

Human proof (≤ 5 lines).
(a) The hard output is the mean of the maximal keys' values, each ≥ v*; it equals v* only if each is v*.
(b) A visible key K with c(K) ≠ v* scores ≥ every visible v*-key; the maxima all carry v*, so K scores ≥
    the maximum and is maximal itself, carrying ≠ v*: impossible.  So every visible key carries v*.
(c) The soft output is Σ_j w_j·v* with Σ_j w_j = 1, w_j > 0: that is v*.

Discharge.  QF_LRA for (a) with three maximal values and (b) with two keys; QF_NRA for (c) with three keys
and positive unnormalised weights.  Controls: (a) with one value allowed below v*, (b) without the
ordering hypothesis.  The kernel (``structure._exact_extremes``) checks the ordering over the query's
joint values times the corners of its hull (the score difference is linear in the query) and records
``exact_at``, which ``certify check --audit`` tests at every row of every word it runs.
"""
from __future__ import annotations

from proofs.lemmas.base import Control, Lemma
from proofs.smt import Query

MEAN = ("x1", "x2", "x3", "m")
KEYS = ("s_other", "s_own", "top")
SOFT = ("e1", "e2", "e3", "m")


def mean_at_extreme(B, v, one_below=False):
    """Three maximal values, each ≥ m (one of them free under the control), averaging to m: each is m."""
    x1, x2, x3, m = (v[k] for k in MEAN)
    hyps = [B.ge(x2, m), B.ge(x3, m), B.eq(x1 + x2 + x3, 3 * m)] + ([] if one_below else [B.ge(x1, m)])
    return hyps, B.and_(B.eq(x1, m), B.eq(x2, m), B.eq(x3, m))


def one_value_below(B, v):
    return mean_at_extreme(B, v, one_below=True)


def other_keys_invisible(B, v, unordered=False):
    """A key carrying another value scores ≥ a maximal v*-key (score = the row maximum ``top``) and ≤ the
    maximum: it is maximal too (so the maxima would not all carry v*)."""
    s_other, s_own, top = (v[k] for k in KEYS)
    hyps = [B.eq(s_own, top), B.le(s_other, top)] + ([] if unordered else [B.ge(s_other, s_own)])
    return hyps, B.eq(s_other, top)


def without_order(B, v):
    return other_keys_invisible(B, v, unordered=True)


def soft_mean_of_equal_values(B, v):
    e1, e2, e3, m = (v[k] for k in SOFT)
    return [B.gt(e1, 0), B.gt(e2, 0), B.gt(e3, 0)], B.eq(e1 * m + e2 * m + e3 * m, m * (e1 + e2 + e3))


LEMMA = Lemma(
    name="L-extreme-exact",
    statement="an average head whose hard output is the least (greatest) value any key class carries, when every "
              "class carrying another value scores at least as high as every class carrying that value under "
              "every hard query, sees only keys carrying it: the soft output equals it for every τ",
    queries=(Query("mean-at-extreme", MEAN, mean_at_extreme), Query("other-keys-invisible", KEYS, other_keys_invisible),
             Query("soft-mean-of-equal-values", SOFT, soft_mean_of_equal_values)),
    controls=(Control("L-extreme-exact/one-value-below", Query("one-value-below", MEAN, one_value_below)),
              Control("L-extreme-exact/without-order", Query("without-order", KEYS, without_order))),
)

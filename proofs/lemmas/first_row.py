"""L-first-row-exact (theory.md §4, exact rows): the output read at the first row of a model whose heads are causal.

Statement.  Every head of the model sees j ≤ i or j < i, and the output is read at the first row f (the BOS row,
or position 1 without BOS).  Then for every τ > 0 and every n the soft stream at row f equals the hard one, so
the soft decision there is the hard decision, a hard output on θ included.

Human proof (≤ 5 lines).
(a) A key j of row f has j ≥ f and j ≤ f (j ≤ i) or j < f (j < i): the row sees key f alone, or no key.
(b) With one key of score s the softmax weight is e^{s/τ}/e^{s/τ} = 1, the hard rule's weight too (any of
    average, leftmost, rightmost); with no key both add 0.
(c) By induction over the layers the row's inputs are hard's, so each head adds hard's value and each FFN
    maps equal inputs to equal outputs: the stream at row f is hard's, for every τ.

Discharge.  QF_LIA for (a) (one key under j ≤ i, none under j < i), QF_NRA for (b) (a weight w with
w·e = e, e > 0).  Controls: (a) for a head that sees every key (a second key j = f + 1 exists), (b) with two
keys of positive weight.  The certifier (``certifier.certify_first_row``) decides the hypothesis
syntactically (``structure.first_row_exact``); the checker re-decides it, and ``certify check --audit``
compares the soft stream at the first row with the hard one on every word it runs.
"""
from __future__ import annotations

from proofs.lemmas.base import Control, Lemma
from proofs.smt import Query

VISIBLE = ("f", "i", "j", "n")
WEIGHT = ("e", "e2", "w")


def one_key(B, v, every_key=False):
    """Row i = f, key f ≤ j ≤ n; causal: j ≤ i gives j = f (the control sees every key: j ≤ n only)."""
    f, i, j, n = (v[k] for k in VISIBLE)
    hyps = [B.eq(i, f), B.ge(j, f), B.le(j, n), B.ge(f, 0), B.ge(n, f + 1)] + ([] if every_key else [B.le(j, i)])
    return hyps, B.eq(j, f)


def sees_every_key(B, v):
    return one_key(B, v, every_key=True)


def no_key_before_the_first(B, v):
    """Under j < i the first row sees no key: j ≥ f and j < f is impossible."""
    f, i, j, n = (v[k] for k in VISIBLE)
    return [B.eq(i, f), B.ge(j, f), B.lt(j, i)], B.lt(j, f)


def lone_weight_is_one(B, v, second=False):
    """w = e/(e [+ e2]) with e, e2 > 0: one key's weight is 1 (the control adds a second key)."""
    e, e2, w = (v[k] for k in WEIGHT)
    hyps = [B.gt(e, 0), B.gt(e2, 0), B.eq(w * (e + e2), e) if second else B.eq(w * e, e)]
    return hyps, B.eq(w, 1)


def two_keys(B, v):
    return lone_weight_is_one(B, v, second=True)


LEMMA = Lemma(
    name="L-first-row-exact",
    statement="when every head sees j ≤ i or j < i and the output is read at the first row, that row sees at most "
              "its own key under every head, whose softmax weight is 1: soft = hard there for every τ and n",
    queries=(Query("one-key", VISIBLE, one_key, ints=VISIBLE),
             Query("no-key-before-the-first", VISIBLE, no_key_before_the_first, ints=VISIBLE),
             Query("lone-weight-is-one", WEIGHT, lone_weight_is_one)),
    controls=(Control("L-first-row-exact/sees-every-key", Query("sees-every-key", VISIBLE, sees_every_key, ints=VISIBLE)),
              Control("L-first-row-exact/two-keys", Query("two-keys", WEIGHT, two_keys))),
)

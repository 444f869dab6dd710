"""L-word-constant (theory.md §4, the general gap principle read across rows): values one word shares.

Statement.  (a) A head that sees every key from every row, whose score F_q(class) orders the key classes
alike under every query value q (for each pair of classes A, B the sign of F_q(A) − F_q(B) is the same for
all q), has one set of maximal keys at every row of a word, so one hard output there (a function of the
maximal keys' values and positions, which do not depend on the row).  (b) An FFN whose inputs, and the dim
it adds to, hold one value at every row of a word writes one value at every row.  (c) A score term q_i·K_j
whose key K holds one value at every key of a row, in soft as in hard, adds q_i·K to every score of row i:
softmax weights e^{s_j + c}/Σ_k e^{s_k + c} = e^{s_j}/Σ_k e^{s_k} and the hard maxima do not change, so the
kernel drops the term before any rule (the query's soft error moves nothing).  (e) A head that sees the first
key from every row (j ≤ i, or every key), whose position part falls from it faster than the class scores can
make up — P_q(j) − P_q(first) = (j − first)·r with r < −s, s ≥ F_q(c_j) − F_q(c_first) for all classes — has
that key alone as the maximum at every row, so one hard output (its value) at every row of a word.

Human proof (≤ 5 lines).
(a) Key j is maximal under q iff F_q(class j) − F_q(class k) ≥ 0 for every visible k; each sign is the same
    under every q, and every row sees the same keys: the maximal set is the same at every row.
(b) The FFN is a function applied row by row to equal arguments.
(c) Multiply numerator and denominator by e^{c} > 0; a common shift keeps every comparison.
(e) For j > first: P(j) − P(first) = (j − first)·r ≤ r < −s ≤ F(first) − F(j), so key j scores below it.

Discharge.  (a) QF_LRA with three classes (a maximum over more keys follows pair by pair); (c) QF_NRA with
three keys and e^{c} as a positive unknown E; (e) QF_NRA over one other key.  (b) needs no solver.  Controls:
(a) with one pair's sign left free, (c) with the shift on one key only, (e) with r ≤ −s.  The kernel (``structure._same_maxima_everywhere``,
``ffn_coords``) marks such dims ``same_in_word`` and records ``same_at_every_row``, which
``certify check --audit`` tests on every word; ``structure._row_shift`` drops a term only when its key dim is
also exact (soft = hard at every row), so its soft value is the same at every key too.
"""
from __future__ import annotations

from proofs.lemmas.base import Control, Lemma
from proofs.smt import Query

ORDER = ("ab", "ac", "ab2", "ac2")
SHIFT = ("e1", "e2", "e3", "E")


def _same_sign(B, x, y):
    return B.and_(B.implies(B.gt(x, 0), B.gt(y, 0)), B.implies(B.gt(y, 0), B.gt(x, 0)),
                  B.implies(B.lt(x, 0), B.lt(y, 0)), B.implies(B.lt(y, 0), B.lt(x, 0)))


def same_maxima(B, v, free_pair=False):
    """F_q(A) − F_q(B) = ab, F_q(A) − F_q(C) = ac under q; ab2, ac2 under q′: A maximal under q iff under q′."""
    ab, ac, ab2, ac2 = (v[k] for k in ORDER)
    hyps = [_same_sign(B, ab, ab2)] + ([] if free_pair else [_same_sign(B, ac, ac2)])
    top, top2 = B.and_(B.ge(ab, 0), B.ge(ac, 0)), B.and_(B.ge(ab2, 0), B.ge(ac2, 0))
    return hyps, B.and_(B.implies(top, top2), B.implies(top2, top))


def one_pair_free(B, v):
    return same_maxima(B, v, free_pair=True)


def shift_keeps_weights(B, v, one_key=False):
    e1, e2, e3, E = (v[k] for k in SHIFT)
    hyps = [B.gt(e1, 0), B.gt(e2, 0), B.gt(e3, 0), B.gt(E, 0)]
    shifted = e1 * E + e2 + e3 if one_key else e1 * E + e2 * E + e3 * E
    return hyps, B.eq(e1 * E * (e1 + e2 + e3), e1 * shifted)


def shift_on_one_key(B, v):
    return shift_keeps_weights(B, v, one_key=True)


FIRST = ("F1", "Fj", "P1", "Pj", "r", "d", "s")


def first_key_alone(B, v, strict=True):
    """Key j, d ≥ 1 positions after the first key, scores below it when P falls by r·d, r < −s."""
    F1, Fj, P1, Pj, r, d, s = (v[k] for k in FIRST)
    fall = B.lt(r, -s) if strict else B.le(r, -s)
    hyps = [B.ge(d, 1), B.ge(s, 0), B.eq(Pj - P1, d * r), fall, B.le(Fj - F1, s)]
    return hyps, B.gt(F1 + P1, Fj + Pj)


def fall_not_strict(B, v):
    return first_key_alone(B, v, strict=False)


LEMMA = Lemma(
    name="L-word-constant",
    statement="a head seeing every key whose score orders the key classes alike under every query value has one "
              "set of maxima, so one output, at every row of a word; an FFN of such values is one too; a score "
              "term whose key is one exact value at every key shifts a row alike and is dropped; a head seeing every "
              "key whose query dims are one soft and one hard value in a word has one soft and one hard output at "
              "every row; a head whose first key outscores every other under every query value outputs its value at "
              "every row",
    queries=(Query("same-maxima", ORDER, same_maxima), Query("shift-keeps-weights", SHIFT, shift_keeps_weights),
             Query("first-key-alone", FIRST, first_key_alone)),
    controls=(Control("L-word-constant/one-pair-free", Query("one-pair-free", ORDER, one_pair_free)),
              Control("L-word-constant/shift-on-one-key", Query("shift-on-one-key", SHIFT, shift_on_one_key)),
              Control("L-word-constant/fall-not-strict", Query("fall-not-strict", FIRST, fall_not_strict))),
)

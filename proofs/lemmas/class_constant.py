"""L-class-constant (theory.md §4, the general gap principle read across rows of one class): values a class shares.

Statement.  Let C be dims whose value at a row is a function of the row's symbol.  (a) A head that sees every key
from every row, whose query dims are C and dims holding one value in the word (terms whose key holds one value at
every key of a row aside: they shift the row's scores alike), gives two rows of a word that agree on C one score
vector over one set of keys, so one set of maxima and one hard output: the output holds one value x_c per value c of
C in the word, BOS row included, and x_c lies in the hull of what L-maxima-classes proves at the rows with C = c.
(b) An FFN whose inputs, and the dim it adds to, each hold one value per class of C (or one value in the word)
writes one value per class, within the FFN's image of the inputs' per-class hulls.  (c) In a later head, a key
dim known per class holds x_{d,c} at every key (and the query) of class c, so a key class refined by C scores a
polynomial in the unknowns x, the finite values, and the other dims' hull values; a difference of two classes
cancels every shared x_{d,c} exactly, and interval arithmetic bounds what is left (a product of unknowns in boxes
lies between the least and greatest products of their ends; a square is ≥ 0).  (d) A class whose keys score
≥ g_B > 0 below the BOS key, which every row sees, is never maximal, and its keys lie ≥ g_B below the maximum;
with L-value-classes (a) for the other classes, every key valued unlike the maxima lies ≥ min g below them.
(e) Ranges per class without (a): at rows whose symbol-determined dims C take the values c, a head's output lies in
the hull of what L-maxima-classes proves at those symbol rows (0 added where a row may see no key); (b) and (c)
then hold with the hulls alone — one unknown per key and per query, each in its class's range, nothing cancelled.

Human proof (≤ 5 lines).
(a) Equal query vectors give equal scores s_j = Σ c·q·k_j at every key; a row-constant term adds one amount.
(b) The FFN is a function applied row by row to equal arguments; interval arithmetic is monotone (ReLU too).
(c) x·y for x ∈ [a, b], y ∈ [c, d] is bilinear, so extreme at a corner; x² ≥ 0.
(d) s_max ≥ s_B ≥ s_j + g_B.  (e) Each row's value is one L-maxima-classes proves there; (c) with distinct unknowns.

Discharge.  (a) QF_NRA with one query dim and two keys; (c) QF_NRA; (d) QF_LRA.  (b) needs no solver.  Controls:
(a) with the two rows' queries free, (c) bounding a product by its lower ends only, (d) with the dominated key
compared to a key other than BOS.  The kernel (``structure._output_classes``, ``_ffn_classes``,
``class_separation``) records ``same_in_class`` (``in_class_range`` for (e)) per coordinate, which ``certify check --audit`` tests on every
word, and the consequent ``class_gap``, tested on every row.
"""
from __future__ import annotations

from proofs.lemmas.base import Control, Lemma
from proofs.smt import Query

ROWS = ("q1", "q2", "k1", "k2", "c", "r1", "r2")
PRODUCT = ("x", "y", "a", "b", "c", "d")
BELOW = ("sB", "sj", "sm", "so", "g")


def same_scores(B, v, free=False):
    """Rows 1 and 2 agree on the query: each key scores c·q·k plus a row shift r; the order of keys 1, 2 agrees."""
    q1, q2, k1, k2, c, r1, r2 = (v[k] for k in ROWS)
    hyps = [] if free else [B.eq(q1, q2)]
    d1, d2 = c * q1 * k1 + r1 - (c * q1 * k2 + r1), c * q2 * k1 + r2 - (c * q2 * k2 + r2)
    return hyps, B.eq(d1, d2)


def rows_free(B, v):
    return same_scores(B, v, free=True)


def _min4(B, a, b, c, d):
    return -B.max(B.max(-a, -b), B.max(-c, -d))


def product_between_corners(B, v, lower_only=False):
    x, y, a, b, c, d = (v[k] for k in PRODUCT)
    hyps = [B.le(a, x), B.le(x, b), B.le(c, y), B.le(y, d)]
    if lower_only:
        return hyps, B.ge(x * y, a * c)
    return hyps, B.and_(B.ge(x * y, _min4(B, a * c, a * d, b * c, b * d)), B.le(x * y, B.max(B.max(a * c, a * d), B.max(b * c, b * d))))


def lower_ends_only(B, v):
    return product_between_corners(B, v, lower_only=True)


def below_bos(B, v, other=False):
    """s_m the maximum of the row, s_B the BOS key's score (visible), s_o another key's."""
    sB, sj, sm, so, g = (v[k] for k in BELOW)
    ref = so if other else sB
    hyps = [B.gt(g, 0), B.ge(sm, sB), B.ge(sm, so), B.ge(sm, sj), B.ge(ref - sj, g)]
    return hyps, B.ge(sm - sj, g)


def other_key(B, v):
    """False: a key ≥ g below some other key is ≥ g below the BOS key too."""
    sB, sj, sm, so, g = (v[k] for k in BELOW)
    return [B.gt(g, 0), B.ge(sm, sB), B.ge(sm, so), B.ge(sm, sj), B.ge(so - sj, g)], B.ge(sB - sj, g)


LEMMA = Lemma(
    name="L-class-constant",
    statement="a head seeing every key whose query dims are symbol-determined dims C and word constants outputs one "
              "value per class of C in a word (an FFN of such values too); later heads cancel a shared class "
              "value exactly and bound the rest by interval arithmetic; a class ≥ g below the BOS key is never maximal",
    queries=(Query("same-scores", ROWS, same_scores), Query("product-between-corners", PRODUCT, product_between_corners),
             Query("below-bos", BELOW, below_bos)),
    controls=(Control("L-class-constant/rows-free", Query("rows-free", ROWS, rows_free)),
              Control("L-class-constant/lower-ends-only", Query("lower-ends-only", PRODUCT, lower_ends_only)),
              Control("L-class-constant/other-key", Query("other-key", BELOW, other_key))),
)

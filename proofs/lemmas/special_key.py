"""L-special-key (theory.md §3–4: an instance of L-gap's bands, c = 2): one special key beside a ladder.

Statement.  Keys j = 1, 2, … score A·j with A < 0 (a ladder, one key a level, its top at j = 1) and
a special key (BOS, j = 0) scores U with |U| ≥ L > |A|.  Then the maximum is unique (BOS when U > 0,
the top rung when U < 0), every other key lies at least γ = min(|A|, L − |A|) below it, and a band
[x, x + γ) of deficits holds at most 2 keys — so L-ziggurat with g = γ, c = 2 bounds the leakage by
2q/(1−q), q = e^{−γ/τ}, independently of the number of keys.  This is how the counting comparison
of the bounded scheme reaches τ = Θ(1/n): the plain sign gadget ties every input key at 0 and pays
N·e^{−γ/τ}, hence a log factor.

Human proof (≤ 5 lines).
1. Dividing every score, L and γ by |A| > 0 keeps every claim: take A = −1, L > 1, 0 < γ ≤ min(1, L − 1).
2. U ≥ L > 0 > −j: BOS is the unique maximum; rung j lies U + j ≥ L + 1 > γ below it.
3. U ≤ −L < −1: rung 1 is the unique maximum; BOS lies −1 − U ≥ L − 1 ≥ γ below, rung j ≥ 2 lies j − 1 ≥ γ below.
4. Rungs j₁ < j₂ lie M + j₁, M + j₂ below the maximum M: j₂ − j₁ ≥ 1 ≥ γ apart, one rung a band, with BOS ≤ 2.

Discharge.  Steps 2–3: one QF_LIRA query in (U, L, g, j); step 4: QF_LIRA in (x, g, M, j₁, j₂).
The series 2q/(1−q) is L-ziggurat's (c = 2).  The kernel (certify/kernel/structure.py,
``_special_key``) proves the hypotheses for every n: A(n) < 0 and L(n) + A(n) > 0 at both end rows.
"""
from __future__ import annotations

from proofs.lemmas.base import Control, Lemma
from proofs.smt import Query

DEFICIT_VARS = ("U", "L", "g", "j")
BAND_VARS = ("x", "g", "M", "j1", "j2")


def _setting(B, v, bos_bound: bool = True):
    U, L, g, j = v["U"], v["L"], v["g"], v["j"]
    hyps = [B.gt(L, 1), B.gt(g, 0), B.le(g, 1), B.le(g, L - 1), B.ge(j, 1)]
    return hyps + ([B.ge(B.abs(U), L)] if bos_bound else [])


def _deficits(B, v):
    U, j = v["U"], v["j"]
    g = v["g"]
    bos_wins = B.and_(B.gt(U, -j), B.ge(U + j, g))  # BOS above rung j by ≥ γ
    top_wins = B.and_(B.ge(-1 - U, g), B.or_(B.eq(j, 1), B.ge(j - 1, g)))  # rung 1 above BOS and rung j ≥ 2
    return B.and_(B.or_(B.lt(U, 0), bos_wins), B.or_(B.gt(U, 0), top_wins))


def unique_maximum_and_deficits(B, v):
    return _setting(B, v), _deficits(B, v)


def deficits_without_the_bos_bound(B, v):
    return _setting(B, v, bos_bound=False), _deficits(B, v)


def _in_band(B, x, g, d):
    return B.and_(B.le(x, d), B.lt(d, x + g))


def one_rung_per_band(B, v):
    x, g, M, j1, j2 = v["x"], v["g"], v["M"], v["j1"], v["j2"]
    hyps = [B.gt(g, 0), B.le(g, 1), B.ge(j1, 1), B.lt(j1, j2), _in_band(B, x, g, M + j1), _in_band(B, x, g, M + j2)]
    return hyps, B.false  # two rungs never share a band of width γ ≤ 1


def bos_and_rung_never_share_a_band(B, v):
    U, L, g, j = v["U"], v["L"], v["g"], v["j"]
    hyps = _setting(B, v) + [B.lt(U, 0), B.ge(j, 2)]
    # deficits from the top rung (score −1): BOS −1 − U, rung j: j − 1; claim (false): never within γ
    return hyps, B.ge(B.abs((-1 - U) - (j - 1)), g)


LEMMA = Lemma(
    name="L-special-key",
    statement="ladder A·j (A < 0) plus a special key at U with |U| ≥ L > |A|: unique maximum, deficits ≥ "
              "min(|A|, L − |A|), ≤ 2 keys a band: L-ziggurat with c = 2",
    queries=(
        Query("unique-maximum-and-deficits", DEFICIT_VARS, unique_maximum_and_deficits, ints=("j",)),
        Query("one-rung-per-band", BAND_VARS, one_rung_per_band, ints=("j1", "j2")),
    ),
    controls=(
        Control("L-special-key/no-bos-bound", Query("no-bos-bound", DEFICIT_VARS, deficits_without_the_bos_bound,
                                                    ints=("j",))),
        Control("L-special-key/one-key-per-band", Query("one-key-per-band", DEFICIT_VARS,
                                                        bos_and_rung_never_share_a_band, ints=("j",))),
    ),
)

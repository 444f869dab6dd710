"""The lemma library (theory.md §3–4): every lemma stated once and discharged mechanically.

``LEMMAS`` maps each name used by ``certify prove`` and by certificates to its
:class:`~proofs.lemmas.base.Lemma` (``.name``, ``.prove()``, ``.controls``).  The
obligation builders that the certifier calls are re-exported here.
"""
from proofs.lemmas import (bos_apart, bos_level, class_constant, extreme_exact, ffn_absorb, first_row, floating, gap, layer, layer_refined, lipschitz, lookup, maxima, nearest_level, one_sided, rounding, special_key, tiebreak,
                           two_keys, value_classes, word_constant, zero_or_apart, ziggurat)
from proofs.lemmas.base import Check, Control, Lemma, Result
from proofs.lemmas.expbounds import exp_neg_lower, exp_neg_upper
from proofs.lemmas.layer import coarse_layer_bound
from proofs.lemmas.layer_refined import refined_head_bound
from proofs.lemmas.rounding import RoundingObligation, rounding_obligation
from proofs.lemmas.ziggurat import ziggurat_bound

LEMMAS: dict[str, Lemma] = {
    m.LEMMA.name: m.LEMMA
    for m in (gap, lipschitz, ziggurat, lookup, special_key, tiebreak, rounding, layer, layer_refined)
} | {lemma.name: lemma for lemma in floating.LEMMAS} | {m.LEMMA.name: m.LEMMA for m in (maxima, bos_level, bos_apart, zero_or_apart, two_keys, value_classes, ffn_absorb, word_constant, extreme_exact, one_sided, first_row, nearest_level, class_constant)}  # docs/floating-point.md

__all__ = [
    "LEMMAS", "Lemma", "Control", "Check", "Result", "exp_neg_lower", "exp_neg_upper", "ziggurat_bound",
    "rounding_obligation", "RoundingObligation", "coarse_layer_bound", "refined_head_bound",
]

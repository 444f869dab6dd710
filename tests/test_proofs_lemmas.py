"""proofs/lemmas: every lemma proved, every negative control refuted by a checked counterexample,
and every emitted SMT-LIB2 file replays to the same verdict in z3 and cvc5."""
import re
from functools import lru_cache

import pytest

from proofs.lemmas import LEMMAS
from proofs.smt import run_cvc5, run_z3

NAMES = ["L-gap", "L-lipschitz", "L-ziggurat", "L-lookup", "L-special-key", "L-tiebreak", "L-round", "L-layer", "L-layer-refined",
         "L-fp-dot", "L-fp-stored", "L-fp-softmax", "L-fp-values", "L-fp-gap", "L-maxima-classes", "L-bos-level", "L-bos-apart",
         "L-zero-or-apart", "L-two-keys", "L-value-classes", "L-ffn-absorb", "L-word-constant", "L-extreme-exact", "L-one-sided", "L-first-row-exact", "L-nearest-level", "L-class-constant"]


@lru_cache(maxsize=None)
def proved(name):
    return LEMMAS[name].prove()


@lru_cache(maxsize=None)
def refuted(name):
    return tuple(c.refute() for c in LEMMAS[name].controls)


def test_registry_has_exactly_the_issue_names_in_order():
    assert list(LEMMAS) == NAMES
    for name, lemma in LEMMAS.items():
        assert lemma.name == name and callable(lemma.prove)


@pytest.mark.parametrize("name", NAMES)
def test_lemma_is_proved(name):
    result = proved(name)
    assert result.verdict == "proved", result.detail
    assert result.control is False and result.lemma == name


@pytest.mark.parametrize("name", NAMES)
def test_controls_are_refuted_by_a_counterexample_that_substitution_confirms(name):
    lemma = LEMMAS[name]
    assert len(lemma.controls) >= 2
    for control, result in zip(lemma.controls, refuted(name)):
        assert control.name.startswith(name + "/")
        assert result.verdict == "refuted", (control.name, result.detail)
        assert result.control is True
        # independent re-check: the point breaks the false statement ...
        assert control.query.holds_at(result.counterexample) is False
    # ... and the lemma's own statements are not refuted anywhere a control was
    for q in lemma.queries:
        for result in refuted(name):
            point = {k: result.counterexample.get(k) for k in q.variables}
            if None not in point.values():
                assert q.holds_at(point) is not False


@pytest.mark.parametrize("name", NAMES)
def test_docstring_states_a_proof_of_at_most_five_lines(name):
    import importlib
    module = {"L-gap": "gap", "L-lipschitz": "lipschitz", "L-ziggurat": "ziggurat", "L-lookup": "lookup",
              "L-special-key": "special_key", "L-tiebreak": "tiebreak", "L-round": "rounding", "L-layer": "layer",
              "L-layer-refined": "layer_refined", **dict.fromkeys((n for n in NAMES if n.startswith("L-fp-")), "floating"),
              "L-maxima-classes": "maxima", "L-bos-level": "bos_level", "L-bos-apart": "bos_apart",
              "L-zero-or-apart": "zero_or_apart", "L-two-keys": "two_keys", "L-value-classes": "value_classes",
              "L-ffn-absorb": "ffn_absorb", "L-word-constant": "word_constant",
              "L-extreme-exact": "extreme_exact", "L-one-sided": "one_sided", "L-first-row-exact": "first_row",
              "L-nearest-level": "nearest_level", "L-class-constant": "class_constant"}[name]
    doc = importlib.import_module(f"proofs.lemmas.{module}").__doc__
    assert "Statement." in doc and "Discharge." in doc
    proof = doc.split("Human proof")[1].split("Discharge.")[0].strip().splitlines()[1:]
    lines = [ln for ln in proof if ln.strip()]
    assert 1 <= len(lines) <= 5
    assert module and re.search(r"theory\.md", doc)


def _all_smt_files():
    files = {}
    for lemma in LEMMAS.values():
        files.update(lemma.smt_files())
    return files


def test_smt_files_replay_to_the_same_verdict_in_z3_and_cvc5():
    files = _all_smt_files()
    controls = {c.name.replace("/", "__") + ".smt2" for lem in LEMMAS.values() for c in lem.controls}
    assert len(controls) >= 16 and len(files) > len(controls)
    for name, text in files.items():
        assert "(check-sat)" in text and "(set-logic " in text
        expected = "sat" if name in controls else "unsat"
        assert run_z3(text)[0] == expected, name
        assert run_cvc5(text) == expected, name


def test_refined_layer_proof_uses_no_1_over_tau_when_eta_is_zero():
    """The refined bound's only 1/τ-carrying terms are e^{2η/τ} and 2η/τ: at η = 0 both vanish."""
    from proofs.lemmas.layer_refined import inside, leak
    from proofs.smt import ExactValues as E
    from fractions import Fraction as F
    hyps, concl = leak(E, {"m": F(1), "r": F(1, 10), "H": F(1), "W": F(1), "R": F(1, 10)})
    assert all(hyps) and concl  # H = e^{0} = 1: Λ ≤ r/m
    hyps, concl = inside(E, {"Lam": F(1, 11), "T": F(0), "u": F(0), "Delta": F(1, 11)})
    assert all(hyps) and concl  # Δ_M ≤ Λ


def test_every_lemma_a_head_rule_cites_is_in_the_library():
    """The kernel's head facts name the lemmas they apply (``lemma``, e.g. "L-gap (...); L-value-classes"):
    each key must be a lemma of the library that ``certify prove`` discharges (issue 12, one rule per lemma)."""
    from pathlib import Path

    from certify.kernel.structure import Unsupported, analyse
    from certify.model import load_model

    root = Path(__file__).resolve().parent
    paths = [p for p in (root.parent / "models").rglob("*.json") if "srasp" not in p.parts]
    paths += sorted((root / "fixtures").glob("outside/*.json")) + sorted((root / "fixtures").glob("literature*/*.json"))
    cited = set()
    for path in paths:
        try:
            st = analyse(load_model(path))
        except Unsupported:
            continue
        cited |= {key for layer in st.facts if isinstance(layer, tuple) for f in layer
                  for key in re.findall(r"L-[a-z]+(?:-[a-z]+)*", f.lemma)}
    assert {"L-gap", "L-ziggurat", "L-value-classes", "L-maxima-classes"} <= cited
    assert cited <= set(LEMMAS), cited - set(LEMMAS)

"""Issue 12: L-class-constant — a head seeing every key whose query reads only symbol-determined dims C (and word
constants) outputs one value per class of C in a word; a later head's keys reading that output share it within a
class, so class differences cancel exactly and a BOS key can be proved on top.  Each certificate is checked,
audited and brute-forced; each hypothesis has a control where it fails.  Last, ranges per class: a head that sees a
prefix bounds its output per symbol row (L-maxima-classes), and a later head separates its key classes by them."""
from __future__ import annotations

import copy
import json
from fractions import Fraction
from pathlib import Path

import pytest

from certify.audit import AuditConfig, audit
from certify.certifier import CertifyConfig, certify
from certify.kernel.checker import check
from certify.kernel.structure import analyse, class_separation
from certify.model import load_model, model_from_dict
from soundness import assert_certificate_holds, rule_sweep, words_up_to

OUTSIDE = Path(__file__).parent / "fixtures" / "outside"
F = Fraction


def _data(name: str) -> dict:
    return json.loads((OUTSIDE / f"{name}.json").read_text())


def _certified_checked_audited(model, n_max: int = 10 ** 6):
    outcome = certify(model, 1, n_max, cfg=CertifyConfig(refute=False))
    assert outcome.verdict == "certified", outcome.blockers
    check(outcome.certificate, model)
    longest = max(n for n in range(1, 9) if len(model.alphabet) ** n <= 100)
    result = audit(outcome.certificate, model, max_len=longest, cfg=AuditConfig(random_words=20, soft_words=100))
    assert result.ok, result.failure
    words = words_up_to(model.alphabet, 1, longest + 1, budget=300, random_words=8, random_max=60, seed=3)
    assert assert_certificate_holds(model, outcome.certificate["claim"], words) > 0
    return outcome


def test_a_head_reading_the_query_symbol_outputs_one_value_per_class_and_bos_is_proved_on_top():
    model = load_model(OUTSIDE / "class-constant-bos-above.json")
    st = analyse(model)
    assert st.coords[1]["w0"].classes == (("t_b",), (((F(0),), F(0), F(1)), ((F(1),), F(0), F(0))), True)
    head = st.facts[3][0]
    assert head.class_gap == F(1, 2) and head.homogeneous and "L-class-constant" in head.lemma
    assert st.coords[4]["w2"].fin == {0}  # only the BOS class may hold the maxima
    outcome = _certified_checked_audited(model)
    coords = {(c["after_layers"], c["dim"]): c for c in outcome.certificate["facts"]["coords"]}
    assert coords[(1, "w0")]["same_in_class"] == {"dims": ["t_b"], "lemma": "L-class-constant",
                                                   "classes": [[["0"], "0", "1"], [["1"], "0", "0"]]}
    assert "log" in outcome.certificate["claim"]["tau"] and "n^" not in outcome.certificate["claim"]["tau"]


def test_a_causal_consumer_sees_bos_from_every_row_that_sees_a_key():
    model = load_model(OUTSIDE / "class-constant-causal.json")
    st = analyse(model)
    assert st.coords[1]["w0"].classes[0] == ("t_c",)
    assert st.facts[1][0].class_gap == F(1, 2) and st.coords[2]["w1"].fin == {0}
    _certified_checked_audited(model)


def test_a_head_seeing_a_prefix_is_not_one_value_per_class():
    """Control: under j<=i rows of one class see different keys (the a count of a prefix): ranges per class at
    most, not one value per class."""
    data = _data("class-constant-bos-above")
    data["layers"][0]["heads"][0]["visible"] = "j<=i"
    st = analyse(model_from_dict(data))
    assert st.coords[1]["w0"].classes is None or not st.coords[1]["w0"].classes[2]


def test_a_query_reading_a_dim_that_varies_within_a_class_is_not_classed():
    """Control: a query reading the position (not symbol-determined) gives rows of one class different scores."""
    data = _data("class-constant-bos-above")
    data["layers"][0]["heads"][0]["score"].append(["p", "t_a", 1])
    st = analyse(model_from_dict(data))
    assert st.coords[1]["w0"].classes is None


def test_rewriting_a_class_dim_drops_the_claim():
    """Control: an FFN adding to t_b after h0 changes which rows agree on t_b."""
    data = _data("class-constant-bos-above")
    data["layers"].insert(1, {"type": "ffn", "hidden": [{"in": {"t_a": 1}, "out": {"t_b": 1}}]})
    st = analyse(model_from_dict(data))
    assert st.coords[1]["w0"].classes is not None and st.coords[2]["w0"].classes is None


@pytest.mark.parametrize("fixture, term", [("class-constant-bos-above", 1), ("class-ranges-prefix", 3)])
def test_without_the_bos_bonus_the_classes_are_not_apart(fixture, term):
    """Control: with t_bos(j)·0 the BOS key ties the a keys (bos-above: and a b key ties them when no a is
    present, w0 = 0; ranges-prefix: an a key scores w0 = 0 too): no class gap is claimed."""
    data = _data(fixture)
    data["layers"][3]["heads"][0]["score"][term][2] = 0
    model = model_from_dict(data)
    st = analyse(model)
    assert class_separation(model.layers[3].heads[0], st.coords[3], st.joint[3]) is None


@pytest.mark.parametrize("fixture, key, row", [
    ("class-constant-bos-above", "same_in_class", 0),  # #a/(n+1) reaches 1/2 at 'a' (and beyond)
    ("class-ranges-prefix", "in_class_range", 1)])  # the b count of 'bb' is 1
def test_a_forged_class_range_is_caught_by_the_checker_and_the_audit(fixture, key, row):
    model = load_model(OUTSIDE / f"{fixture}.json")
    outcome = certify(model, 1, 200, cfg=CertifyConfig(refute=False))
    forged = copy.deepcopy(outcome.certificate)
    entry = next(c for c in forged["facts"]["coords"] if c["dim"] == "w0" and c["after_layers"] == 1)
    entry[key]["classes"][row][2] = "1/2"
    failure = audit(forged, model, max_len=4, cfg=AuditConfig(random_words=0)).failure
    assert failure is not None and key in failure.fact
    with pytest.raises(Exception):
        check(forged, model)


def test_the_audit_catches_rows_of_one_class_holding_two_values():
    """A claim of one value per class on a dim that varies within the class (p = i/n) fails on a concrete word."""
    model = load_model(OUTSIDE / "class-constant-bos-above.json")
    outcome = certify(model, 1, 200, cfg=CertifyConfig(refute=False))
    forged = copy.deepcopy(outcome.certificate)
    forged["facts"]["coords"].append({"after_layers": 1, "dim": "p", "same_in_class": {
        "dims": ["t_b"], "lemma": "L-class-constant", "classes": [[["0"], "0", "1"], [["1"], "0", "1"]]}})
    failure = audit(forged, model, max_len=3, cfg=AuditConfig(random_words=0)).failure
    assert failure is not None and "same_in_class" in failure.fact


def _classed_model(rng, k: int) -> dict:
    """Aimed at L-class-constant: a head (mostly seeing every key; j<=i as a control) whose query reads token dims
    (a position as a control), its output rounded or not, then a head whose keys (and maybe query) read that
    output next to a BOS bonus and token terms, under any visibility; an output ramp."""
    alphabet = ["a", "b", "c"][:rng.choice([2, 3])]
    bos = rng.random() < 0.8
    tokens = [f"t_{s}" for s in alphabet]
    token = {s: {f"t_{s}": 1} for s in alphabet} | ({"$": {"t_bos": 1}} if bos else {})
    queries = tokens + (["p"] if rng.random() < 0.15 else [])
    first = {"name": "h0", "hard": "average", "visible": "all" if rng.random() < 0.8 else "j<=i",
             "score": [[rng.choice(queries), rng.choice(tokens), rng.choice(["1", "-1", "1/2"])]
                       for _ in range(rng.choice([1, 2]))] + ([["one", "p", "-1"]] if rng.random() < 0.2 else []),
             "value": [["w0", rng.choice(tokens), 1]]}
    layers = [{"type": "attention", "heads": [first]}]
    if rng.random() < 0.5:
        layers.append({"type": "ffn", "hidden": [{"in": {"w0": 4}, "bias": "-1", "out": {"w0": 1}},
                                                 {"in": {"w0": 4}, "bias": "-2", "out": {"w0": -1}},
                                                 {"in": {"w0": 1}, "out": {"w0": -1}}]})
    score = [[rng.choice(["w0", "one"] + tokens), "w0", rng.choice(["1/2", "1", "2", "-1"])]]
    score += [["one", t, rng.choice(["1/2", "-1/2", "1"])] for t in tokens if rng.random() < 0.3]
    if bos and rng.random() < 0.7:
        score.append(["one", "t_bos", rng.choice(["1/2", "1", "-1"])])
    layers.append({"type": "attention", "heads": [{"name": "h1", "hard": "average", "visible": rng.choice(["all", "j<=i", "j<i"]),
                                                   "score": score, "value": [["w1", rng.choice(tokens), 1]]}]})
    layers.append({"type": "ffn", "hidden": [{"in": {"w1": 2}, "bias": "-1/2", "out": {"out": 1}},
                                             {"in": {"w1": 2}, "bias": "-3/2", "out": {"out": -1}}]})
    return {"format": "hardsoft.model/1", "name": f"classed-{k}", "alphabet": alphabet, "bos": "$" if bos else None,
            "dims": ["one", "p"] + tokens + (["t_bos"] if bos else []) + ["w0", "w1", "out"],
            "embed": {"token": token, "position": {"one": "1", "p": rng.choice(["i/n", "1/(i+1)", "(-1)^i"])}},
            "layers": layers, "output": {"dim": "out", "position": rng.choice(["last", "all"]), "threshold": "1/2"}}


def _classed_sweep(seed: int, count: int, n_max: int = 200, make=None, mark: str = "L-class-constant") -> tuple[int, int]:
    """(certificates, of them citing ``mark``) over models drawn by ``make`` (:func:`_classed_model`): every class
    claim of every drawn model checked on words ≤ 5 by the exact evaluator, every certificate audited and
    brute-forced."""
    import random

    from test_generality import _rows_within_value_sets

    make, rng = make or _classed_model, random.Random(seed)
    for k in range(count):
        _rows_within_value_sets(make(rng, k))
    return rule_sweep(make, seed, count, n_max, lambda c: mark in json.dumps(c["analysis"]),
                      audit_len=4, audit_cfg=AuditConfig(random_words=4, soft_words=40), budget=120, random_words=3,
                      random_max=60)


def test_class_constant_sweep_holds_by_brute_force():
    certified, hits = _classed_sweep(1, 30)
    assert hits >= 3, (certified, hits)


@pytest.mark.slow
def test_class_constant_sweep_large():
    certified, hits = _classed_sweep(2, 300, n_max=300)
    assert hits >= 30, (certified, hits)


def test_a_class_gap_shapes_the_derived_schedule_and_the_heads_gaps_remain_the_fallback():
    """The class gap 1/2 bounds h1's output error whatever its keys' smaller gaps (1/(2n²)), so the schedule is
    proposed from it (hotter by a factor n); the shape from the gaps alone is what the certifier falls back to."""
    from flint import arb

    from certify.expr import eval_ball, parse_expr

    model = load_model(OUTSIDE / "value-classes-mean-key.json")
    taus = []
    for shapes in (True, False):
        outcome = certify(model, 1, 10 ** 6, cfg=CertifyConfig(refute=False, class_gap_shapes=shapes))
        assert outcome.verdict == "certified", outcome.blockers
        tau = parse_expr(outcome.certificate["claim"]["tau"], variables=("n",), allow_log=True)
        taus.append(float(eval_ball(tau, {"n": arb(1000), "i": arb(1000)}).mid()))
    assert taus[0] > 100 * taus[1]


# Ranges per class (L-maxima-classes per symbol row): a head seeing a prefix outputs values that vary within a class,
# but L-maxima-classes bounds them per symbol row; a later head's key classes refined by those rows get one unknown
# per key (nothing cancels) bounded by its class's range.


def test_a_prefix_head_bounds_its_output_per_symbol_row_and_a_later_head_separates_by_it():
    """h0 (j<=i): an a row's maxima are its a keys (value 0), a b row's the whole prefix (the b count, in [0, 1]);
    h1's maxima are a keys or BOS (value 0 at both: its output is 0, L-maxima-classes though the head is
    homogeneous); h2 under an a query scores a key w0(j), so a keys (value 1, w0 = 0) lie 1/2 below BOS."""
    model = load_model(OUTSIDE / "class-ranges-prefix.json")
    st = analyse(model)
    assert st.coords[1]["w0"].classes == (("t_a", "t_b", "t_bos"), (((0, 0, 1), F(0), F(0)), ((0, 1, 0), F(0), F(1)),
                                                                     ((1, 0, 0), F(0), F(0))), False)
    assert st.coords[3]["w1"].fin == {0}
    h2 = st.facts[3][0]
    assert h2.class_gap == F(1, 2) and "ranges per class" in h2.lemma
    outcome = _certified_checked_audited(model)
    entry = next(c for c in outcome.certificate["facts"]["coords"] if c["dim"] == "w0" and c["after_layers"] == 1)
    assert entry["in_class_range"]["lemma"] == "L-maxima-classes" and "same_in_class" not in entry


def test_when_an_a_row_sees_b_keys_on_top_its_range_is_not_narrowed():
    """Control: without the a keys' bonus in h0 an a row's maxima are its b keys and BOS (the b share of a prefix),
    so the a rows' range is the hull and h2's a keys may be maximal: no separation."""
    data = _data("class-ranges-prefix")
    data["layers"][0]["heads"][0]["score"][2][2] = 0
    model = model_from_dict(data)
    st = analyse(model)
    assert st.coords[1]["w0"].classes is None or ((1, 0, 0), F(0), F(0)) not in st.coords[1]["w0"].classes[1]
    assert class_separation(model.layers[3].heads[0], st.coords[3], st.joint[3]) is None


def _ranged_model(rng, k: int) -> dict:
    """:func:`_classed_model` with its first head seeing a prefix (j<=i, j<i): ranges per class, never one value."""
    data = _classed_model(rng, k)
    data["layers"][0]["heads"][0]["visible"] = rng.choice(["j<=i", "j<i"])
    return data


def test_class_range_sweep_holds_by_brute_force():
    certified, hits = _classed_sweep(3, 30, make=_ranged_model, mark="ranges per class")
    assert hits >= 1, (certified, hits)


@pytest.mark.slow
def test_class_range_sweep_large():
    certified, hits = _classed_sweep(4, 300, n_max=300, make=_ranged_model, mark="ranges per class")
    assert hits >= 10, (certified, hits)

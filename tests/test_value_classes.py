"""Issue 12: L-value-classes (keys whose score intervals are apart by the value they carry) and the own-key
floor of an average head's maxima — each certificate checked, audited and brute-forced, each rule with a
control where its hypothesis fails."""
from __future__ import annotations

import copy
import json
import random
from fractions import Fraction
from pathlib import Path

import pytest

from certify.audit import AuditConfig, audit
from certify.certifier import CertifyConfig, certify
from certify.kernel.checker import check
from certify.kernel.structure import analyse, maxima_outputs, value_classes, value_hull
from certify.model import load_model, model_from_dict
from soundness import assert_certificate_holds, rule_sweep, words_up_to

OUTSIDE = Path(__file__).parent / "fixtures" / "outside"


def _certified_checked_audited(model, n_max: int = 10 ** 6):
    outcome = certify(model, 1, n_max, cfg=CertifyConfig(refute=False))
    assert outcome.verdict == "certified", outcome.blockers
    check(outcome.certificate, model)
    assert audit(outcome.certificate, model, max_len=6, cfg=AuditConfig(random_words=20, soft_words=200)).ok
    words = words_up_to(model.alphabet, 1, 7, budget=300, random_words=8, random_max=80, seed=2)
    assert assert_certificate_holds(model, outcome.certificate["claim"], words) > 0
    return outcome


def test_a_key_read_from_a_prefix_mean_is_bounded_and_its_value_classes_are_apart():
    """w0 ∈ [0, 1] (a rounded mean: its hull through the FFN); h1's a keys score in [−1/2, 1/2], b keys in
    [−2, −1]: the maxima carry one value and the b keys lie ≥ 1/2 below (the lattice rule alone only gave
    gaps ≥ 1/(2n²) and no value set, so the output ramp had margin 0)."""
    model = load_model(OUTSIDE / "value-classes-mean-key.json")
    st = analyse(model)
    assert value_hull(st.coords[2]["w0"]) == (0, 1)
    head = st.facts[2][0]
    assert head.class_gap == Fraction(1, 2) and head.homogeneous
    assert st.coords[3]["w1"].fin == {0, 1}
    outcome = _certified_checked_audited(model)
    records = {h["head"]: h for h in outcome.certificate["analysis"]["heads"]}
    assert records["h1"]["class_gap"] == "1/2"
    statements = {s["kind"] for h in outcome.certificate["facts"]["heads"] if h["head"] == "h1" for s in h["statements"]}
    assert {"class_gap", "maxima_same_value"} <= statements
    assert any("range" in c for c in outcome.certificate["facts"]["coords"])


def test_a_head_no_gap_rule_covers_is_certified_by_its_value_classes_alone():
    """Kind `classes`: no bound on the gaps among keys of one value (w0 is a BOS-level family), but every b key
    scores ≥ 1 above every a key and BOS, so the value set {0, 1} and the leak onto other values hold."""
    model = load_model(OUTSIDE / "value-classes-only.json")
    st = analyse(model)
    head = st.facts[1][0]
    assert head.kind == "classes" and head.class_gap == 1
    outcome = _certified_checked_audited(model)
    assert [h["kind"] for h in outcome.certificate["analysis"]["heads"]] == ["gap", "classes"]


def test_value_classes_that_overlap_are_not_claimed_apart():
    """Control: with t_a(j)·(−1) the a keys score in [−2, −1] like the b keys — a tie across values is
    possible, and no class gap is stated."""
    data = json.loads((OUTSIDE / "value-classes-mean-key.json").read_text())
    data["layers"][2]["heads"][0]["score"][2][2] = -1
    model = model_from_dict(data)
    st = analyse(model)
    head = model.layers[2].heads[0]
    assert value_classes(head, st.coords[2], st.joint[2]) is None
    assert st.facts[2][0].class_gap is None


def test_a_forged_class_gap_is_caught_by_the_checker_and_the_audit():
    model = load_model(OUTSIDE / "value-classes-mean-key.json")
    outcome = certify(model, 1, 200, cfg=CertifyConfig(refute=False))
    forged = copy.deepcopy(outcome.certificate)
    for h in forged["facts"]["heads"]:
        for s in h["statements"]:
            if s["kind"] == "class_gap":
                s["gamma"] = "2"  # an a key at w0 = 1 (after "ba") scores −1/2, a b key −2: only 3/2 apart
    failure = audit(forged, model, max_len=4, cfg=AuditConfig(random_words=0)).failure
    assert failure is not None and "class_gap" in failure.fact
    with pytest.raises(Exception):
        check(forged, model)


def test_the_row_sees_its_own_key_so_levels_below_it_are_never_maximal():
    """h0 (j<=i): an a row's own key is on the top level (score 1), a b row's maximum is at least BOS's 1/2
    (above its own −1/2), the BOS row sees only itself: h0 outputs 0 everywhere.  Without the own key (j<i)
    a b row may see only b keys and BOS, tied at 1/2: the BOS level family comes back."""
    model = load_model(OUTSIDE / "own-key-floor.json")
    st = analyse(model)
    means, families = maxima_outputs(model.layers[0].heads[0], st.coords[0], st.joint[0], st.first)
    assert means == {"w0": frozenset({Fraction(0)})} and not families
    _certified_checked_audited(model)
    data = json.loads((OUTSIDE / "own-key-floor.json").read_text())
    data["layers"][0]["heads"][0]["visible"] = "j<i"
    strict = model_from_dict(data)
    st = analyse(strict)
    means, families = maxima_outputs(strict.layers[0].heads[0], st.coords[0], st.joint[0], st.first)
    assert families


def _class_model(rng: random.Random, k: int) -> dict:
    """Aimed at L-value-classes: a first head averaging a token into w0 (rounded or not), then a head whose
    keys read w0 (one·w0(j) or t_x(i)·w0(j), coefficient ±1/2, ±1) next to token terms of size 1/2 … 3 that
    sometimes separate the value classes and sometimes do not, the value a token; an output ramp."""
    alphabet = ["a", "b", "c"][:rng.choice([2, 3])]
    bos = rng.random() < 0.4
    tokens = [f"t_{s}" for s in alphabet]
    token = {s: {f"t_{s}": 1} for s in alphabet} | ({"$": {"t_bos": 1}} if bos else {})
    first = {"name": "h0", "hard": "average", "visible": rng.choice(["j<=i", "all", "j<i"]),
             "score": [["one", rng.choice(tokens), rng.choice([1, -1, 2])]] + ([["one", "p", 1]] if rng.random() < 0.3 else []),
             "value": [["w0", rng.choice(tokens), 1]]}
    layers = [{"type": "attention", "heads": [first]}]
    if rng.random() < 0.6:
        layers.append({"type": "ffn", "hidden": [{"in": {"w0": 4}, "bias": "-1", "out": {"w0": 1}},
                                                 {"in": {"w0": 4}, "bias": "-2", "out": {"w0": -1}},
                                                 {"in": {"w0": 1}, "out": {"w0": -1}}]})
    reader = rng.choice(["one", rng.choice(tokens)])
    score = [[reader, "w0", rng.choice(["1/2", "-1/2", "1", "-1"])]]
    score += [["one", t, rng.choice(["1/2", "1", "2", "3", "-1", "-2"])] for t in tokens if rng.random() < 0.7]
    if bos and rng.random() < 0.5:
        score.append(["one", "t_bos", rng.choice(["1/2", "-1"])])
    layers.append({"type": "attention", "heads": [{"name": "h1", "hard": rng.choice(["average", "average", "rightmost"]),
                                                   "visible": rng.choice(["j<=i", "all", "j<i"]), "score": score,
                                                   "value": [["w1", rng.choice(tokens), 1]]}]})
    layers.append({"type": "ffn", "hidden": [{"in": {"w1": 2}, "bias": "-1/2", "out": {"out": 1}},
                                             {"in": {"w1": 2}, "bias": "-3/2", "out": {"out": -1}}]})
    return {"format": "hardsoft.model/1", "name": f"classes-{k}", "alphabet": alphabet, "bos": "$" if bos else None,
            "dims": ["one", "p"] + tokens + (["t_bos"] if bos else []) + ["w0", "w1", "out"],
            "embed": {"token": token, "position": {"one": "1", "p": rng.choice(["i/n", "1/(i+1)", "i/(n+1)"])}},
            "layers": layers, "output": {"dim": "out", "position": rng.choice(["last", "all", "first"]), "threshold": "1/2"}}


def _class_sweep(seed: int, count: int, n_max: int = 200, budget: int = 120) -> tuple[int, int]:
    """(certificates, of them with a class gap); each audited and brute-forced."""
    return rule_sweep(_class_model, seed, count, n_max, lambda c: any("class_gap" in h for h in c["analysis"]["heads"]),
                      audit_len=4, audit_cfg=AuditConfig(random_words=4, soft_words=40), budget=budget, random_words=3,
                      random_max=60)


def test_value_classes_sweep_holds_by_brute_force():
    certified, hits = _class_sweep(1, 20)
    assert hits >= 3, (certified, hits)


@pytest.mark.slow
def test_value_classes_sweep_large():
    certified, hits = _class_sweep(2, 300, n_max=300, budget=300)
    assert hits >= 40, (certified, hits)


@pytest.mark.parametrize("name", ["value-classes-mean-key", "value-classes-only"])
def test_value_classes_certify_every_length(name):
    """The all-n tail applies the class gap and the homogeneous head's L-fp-gap bound too: certified with
    n_max = ∞, checked, and held by brute force on long random words (the tail starts past 10^12, so these
    exercise its schedule, not its proof)."""
    model = load_model(OUTSIDE / f"{name}.json")
    outcome = certify(model, 1, "inf", cfg=CertifyConfig(refute=False))
    assert outcome.verdict == "certified", outcome.blockers
    assert outcome.certificate["claim"]["n_max"] == "inf"
    assert any(h.get("class_gap") for h in outcome.certificate["analysis"]["heads"])
    check(outcome.certificate, model)
    words = words_up_to(model.alphabet, 1, 5, budget=60, random_words=6, random_max=300, seed=5)
    assert assert_certificate_holds(model, outcome.certificate["claim"], words) > 0


def test_an_injective_position_term_puts_at_most_one_key_of_each_class_among_the_maxima():
    """h1 scores ½·p(j) + 2·w0(i)·t_a(j) + ½·t_b(i)·t_b(j) + ½·t_bos(j), p = 1/(j + 1): w0(i) is a rounded prefix
    ratio known only by its range, so no level of the class scores is known — but p is injective, two keys of
    one class never tie, and h1 outputs the mean of one key per class (a, b, BOS): {0, 1/3, 1/2, 1}
    (L-maxima-classes (a)); the output ramp keeps every value ≥ 1/3 off θ.  Control: with the position term
    weighed by t_b(i), P ≡ 0 at a rows, where keys of one class tie, and no set is claimed."""
    model = load_model(OUTSIDE / "one-key-per-class.json")
    st = analyse(model)
    assert st.coords[3]["w1"].fin == {0, Fraction(1, 3), Fraction(1, 2), 1}
    assert "L-maxima-classes" in st.facts[2][0].lemma
    _certified_checked_audited(model, n_max=1000)
    data = json.loads((OUTSIDE / "one-key-per-class.json").read_text())
    data["layers"][2]["heads"][0]["score"][0][0] = "t_b"
    assert analyse(model_from_dict(data)).coords[3]["w1"].fin is None

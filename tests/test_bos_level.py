"""L-bos-level (issue 12): an average head whose top level is the BOS key plus m keys of one other value
outputs v + (b − v)/(m + 1) — a selector-width head — and the kernel keeps that family through FFNs
to the output margin.  Every certificate is brute-forced, checked and audited; the generator aims at the
rule's hypotheses (BOS values, other values, thresholds on and off the family, masks)."""
from __future__ import annotations

import copy
import json
import random
from fractions import Fraction
from pathlib import Path

import pytest

from certify.audit import audit
from certify.certifier import CertifyConfig, certify
from certify.kernel.checker import check
from certify.kernel.structure import analyse, harmonic_distance, maxima_outputs
from certify.model import load_model, model_from_dict
from soundness import assert_certificate_holds, words_up_to

FIXTURES = sorted((Path(__file__).parent / "fixtures" / "literature").glob("selwidth-*.json"))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_selector_width_constructions_certify_check_audit_and_hold(path):
    model = load_model(path)
    outcome = certify(model, 1, 10**6, cfg=CertifyConfig(refute=False))
    assert outcome.verdict == "certified", outcome.reason
    assert any("L-bos-level" in h["lemma"] for h in outcome.certificate["analysis"]["heads"])
    check(outcome.certificate, model)  # raises on any mismatch
    assert audit(outcome.certificate, model, max_len=4).ok
    assert assert_certificate_holds(model, outcome.certificate["claim"],
                                    words_up_to(model.alphabet, 1, 6, budget=400, random_words=8, random_max=200, seed=2))


def test_the_mlp_maps_the_family_to_a_finite_set():
    model = load_model(next(p for p in FIXTURES if p.stem.endswith("mlp")))
    st = analyse(model)
    assert st.coords[1]["w"].harmonic == (frozenset({Fraction(1)}), frozenset({(Fraction(0), Fraction(1))}))
    assert st.coords[2]["u"].fin == {Fraction(0), Fraction(1)}


@pytest.mark.parametrize("seed", range(6))
def test_harmonic_distance_is_the_infimum(seed):
    rng = random.Random(seed)
    for _ in range(200):
        v, d = Fraction(rng.randint(-6, 6), rng.randint(1, 4)), Fraction(rng.choice([-1, 1]) * rng.randint(1, 9), rng.randint(1, 4))
        theta = Fraction(rng.randint(-40, 40), rng.randint(1, 12))
        points = frozenset(Fraction(rng.randint(-8, 8), rng.randint(1, 3)) for _ in range(rng.randint(0, 2)))
        found = harmonic_distance((points, frozenset({(v, d)})), theta)
        enumerated = min([abs(v + d / k - theta) for k in range(1, 3000)] + [abs(p - theta) for p in points])
        assert found <= enumerated and (found == enumerated or found == abs(v - theta))


def _selector(b: int, v: int, theta: str, visible: str = "all", mixed: bool = False, bos: bool = True) -> dict:
    """Query a/b/c attends to BOS and to keys with its own symbol (score 1), others 0; values: the BOS
    key carries b, the symbol's keys v (``mixed``: query a also selects the b's, which carry v + 1 —
    two values beside BOS on one level)."""
    value = [["w", "is_bos", b], ["w", "t_a", v], ["w", "t_b", v + (1 if mixed else 0)], ["w", "t_c", v]]
    return {"format": "hardsoft.model/1", "name": "selector", "alphabet": ["a", "b", "c"], "bos": "$" if bos else None,
            "dims": ["one", "t_a", "t_b", "t_c", "is_bos", "w"],
            "embed": {"token": {"a": {"t_a": 1}, "b": {"t_b": 1}, "c": {"t_c": 1}, **({"$": {"is_bos": 1}} if bos else {})},
                      "position": {"one": "1"}},
            "layers": [{"type": "attention", "heads": [{"name": "width", "hard": "average", "visible": visible,
                        "score": [["t_a", "t_a", 1], ["t_b", "t_b", 1], ["t_c", "t_c", 1], ["one", "is_bos", 1]]
                        + ([["t_a", "t_b", 1]] if mixed else []),
                        "value": [t for t in value if t[2] != 0]}]}],
            "output": {"dim": "w", "position": "all", "threshold": theta}}


def test_a_threshold_on_the_family_or_its_limit_is_not_certified():
    for theta in ("1/3", "0"):  # 1/(m + 1) = 1/3 at m = 2; the family tends to 0
        assert certify(model_from_dict(_selector(1, 0, theta)), 1, 200, cfg=CertifyConfig(refute=False)).verdict != "certified"


def test_two_values_beside_bos_on_a_level_are_not_a_family():
    d = _selector(1, 0, "5/12", mixed=True)
    model = model_from_dict(d)
    st = analyse(model)
    assert st.coords[1]["w"].harmonic is None
    assert certify(model, 1, 200, cfg=CertifyConfig(refute=False)).verdict != "certified"


def test_without_bos_there_is_no_family():
    model = model_from_dict(_selector(1, 0, "5/12", bos=False))
    head = model.layers[0].heads[0]
    assert maxima_outputs(head, analyse(model).coords[0], None, 1)[1] == {}


@pytest.mark.parametrize("seed", range(8))
def test_drawn_selector_heads_are_never_unsound(seed):
    """BOS and symbol values, thresholds near the family's values, masks, an FFN after it or not."""
    rng = random.Random(seed)
    certified = 0
    for k in range(4):
        b, v = rng.choice([(1, 0), (2, 0), (0, 1), (1, -1), (3, 1)])
        theta = str(Fraction(v) + Fraction(b - v) / rng.choice([Fraction(5, 2), Fraction(7, 2), 2, 3, Fraction(3, 2), 1]))
        d = _selector(b, v, theta, visible=rng.choice(["all", "j<=i", "j<i"]))
        if rng.random() < 0.5:  # a rounding FFN reading the family, threshold 1/2 on its output
            d["dims"].append("u")
            lo = Fraction(theta)
            d["layers"].append({"type": "ffn", "hidden": [{"in": {"w": 8}, "bias": str(-8 * lo), "out": {"u": 1}},
                                                          {"in": {"w": 8}, "bias": str(-8 * lo - 1), "out": {"u": -1}}]})
            d["output"] = {"dim": "u", "position": "all", "threshold": "1/2"}
        model = model_from_dict(d)
        outcome = certify(model, 1, 120, cfg=CertifyConfig(refute=False))
        if outcome.verdict == "certified":
            certified += 1
            assert_certificate_holds(model, outcome.certificate["claim"],
                                     words_up_to(model.alphabet, 1, 5, budget=400, random_words=12, random_max=120, seed=k))
    assert certified >= 1


def test_the_audit_rejects_a_wrong_family():
    model = load_model(FIXTURES[0])
    outcome = certify(model, 1, 50, cfg=CertifyConfig(refute=False))
    bad = copy.deepcopy(outcome.certificate)
    for c in bad["facts"]["coords"]:
        if "harmonic" in c:
            c["harmonic"]["families"] = [["0", "1/2"]]  # 1/(2k): misses 1 = 1/(0 + 1), 1/3, …
    assert not audit(bad, model, max_len=5).ok


@pytest.mark.slow
@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_selector_width_certificates_hold_on_longer_words(path):
    """The default run's checks at a larger budget: the audit on every word ≤ 6, brute force on words
    ≤ 6 and 40 random words up to 600."""
    model = load_model(path)
    outcome = certify(model, 1, 10**6, cfg=CertifyConfig(refute=False))
    assert audit(outcome.certificate, model, max_len=6).ok
    assert assert_certificate_holds(model, outcome.certificate["claim"],
                                    words_up_to(model.alphabet, 1, 6, budget=1200, random_words=40, random_max=600, seed=5))

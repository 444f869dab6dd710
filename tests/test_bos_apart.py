"""L-bos-apart (issue 12): a leftmost/rightmost ladder with a BOS default off the lattice — "the first
a, else BOS" — is an L-ziggurat with one more key a band when the BOS key is a step or more from every
input key by a constant share ρ of a step (bands of width ρ·|A|).  Certificates are checked, audited and
brute-forced; defaults inside the ladder are refused; the generator aims at the boundaries R = 1 − ρ, D + ρ."""
from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import pytest

from certify.audit import audit
from certify.certifier import CertifyConfig, certify
from certify.kernel.checker import check
from certify.kernel.structure import Unsupported, classify_head, embed_coords
from certify.expr import eval_exact
from certify.model import load_model, model_from_dict
from soundness import assert_certificate_holds, words_up_to

FIRST_A = Path(__file__).parent / "fixtures" / "literature" / "a-before-last-bos-leftmost.json"


@pytest.mark.parametrize("n_max", [10**6, "inf"])
def test_first_a_with_a_bos_default_certifies_checks_audits_and_holds(n_max):
    model = load_model(FIRST_A)
    outcome = certify(model, 1, n_max, cfg=CertifyConfig(refute=False))
    assert outcome.verdict == "certified", outcome.blockers
    assert "L-bos-apart" in outcome.certificate["analysis"]["heads"][0]["lemma"]
    check(outcome.certificate, model)
    assert audit(outcome.certificate, model, max_len=4).ok
    assert assert_certificate_holds(model, outcome.certificate["claim"],
                                    words_up_to(model.alphabet, 1, 7, budget=300, random_words=6, random_max=300, seed=4))


def _first_a(default: str, slope: str = "-1/2", hard: str = "leftmost", visible: str = "j<i", pe: str = "i/(n+1)") -> dict:
    return {"format": "hardsoft.model/1", "name": "first-a-default", "alphabet": ["a", "b"], "bos": "$",
            "dims": ["one", "is_a", "is_bos", "pos", "out"],
            "embed": {"token": {"a": {"is_a": 1}, "b": {}, "$": {"is_bos": 1}}, "position": {"one": "1", "pos": pe}},
            "layers": [{"type": "attention", "heads": [{"name": "first-a", "hard": hard, "visible": visible,
                        "score": [["one", "is_a", 1], ["one", "pos", slope], ["one", "is_bos", default]],
                        "value": [["out", "is_a", 1]]}]}],
            "output": {"dim": "out", "position": "last", "threshold": "1/2"}}


@pytest.mark.parametrize("hard", ["leftmost", "rightmost"])
def test_a_default_half_a_step_from_the_last_key_narrows_the_bands(hard):
    """With pos = i/n and every key visible, the a keys reach 1 − n/(2n) = 1/2 and the default 1/4 is
    R − D = n/2 steps past the last one — half a step at n = 1: ρ = 1/2, bands of width |A|/2."""
    model = model_from_dict(_first_a("1/4", pe="i/n", visible="all", hard=hard))
    fact = classify_head(0, model.layers[0].heads[0], embed_coords(model), 0)
    assert fact.bos_off_lattice and eval_exact(fact.step, {"n": 1}) == Fraction(-1, 4)  # ρ·A(1) = ½·(−½)
    outcome = certify(model, 1, 10**6, cfg=CertifyConfig(refute=False))
    assert outcome.verdict == "certified", outcome.blockers
    assert audit(outcome.certificate, model, max_len=4).ok
    assert_certificate_holds(model, outcome.certificate["claim"],
                             words_up_to(model.alphabet, 1, 8, budget=300, random_words=6, random_max=200, seed=9))


@pytest.mark.parametrize("default", ["3/4", "7/8"])
def test_a_default_inside_the_ladder_is_refused(default):
    """a keys score 1 − j/(2(n+1)) ∈ (1/2, 1) and b keys −j/(2(n+1)) ∈ (−1/2, 0): a default inside
    the a range comes arbitrarily close to (and ties) an a key as n grows, and BOS carries another value
    than the a keys — not L-bos-apart, and not certified."""
    model = model_from_dict(_first_a(default))
    with pytest.raises(Unsupported, match="L-bos-apart"):
        classify_head(0, model.layers[0].heads[0], embed_coords(model), 0)
    assert certify(model, 1, 100, cfg=CertifyConfig(refute=False)).verdict != "certified"


def test_a_default_inside_the_range_of_its_own_value_ties_harmlessly():
    """The default −1/4 sits inside the b range, so BOS can tie a b key — but both carry is_a = 0: the
    leftmost head's tied maxima carry one value (L-maxima-classes), soft averaging them changes nothing,
    and the lattice of step 1/(4(n + 1)) bounds the gaps: certified, and it holds by brute force."""
    model = model_from_dict(_first_a("-1/4"))
    fact = classify_head(0, model.layers[0].heads[0], embed_coords(model), 0)
    assert fact.kind == "gap" and fact.homogeneous and not fact.bos_off_lattice
    outcome = certify(model, 1, 150, cfg=CertifyConfig(refute=False))
    assert outcome.verdict == "certified", outcome.blockers
    assert audit(outcome.certificate, model, max_len=5).ok
    assert_certificate_holds(model, outcome.certificate["claim"],
                             words_up_to(model.alphabet, 1, 8, budget=400, random_words=8, random_max=150, seed=4))


def test_drawn_bos_defaults_are_never_unsound():
    """Defaults on both sides of both ranges, at and near R = 0 and R = D + 1, slopes of both signs,
    every mask and tie-break: each certificate holds on every word ≤ 7 (a budget) and long random words."""
    certified = off_lattice = 0
    for seed in range(6):
        rng = random.Random(seed)
        for k in range(5):
            default = str(rng.choice([Fraction(1, 4), Fraction(1, 3), Fraction(1, 8), Fraction(-3, 4), Fraction(3, 2),
                                      Fraction(1, 2), Fraction(0), Fraction(1), Fraction(-1, 2), Fraction(5, 8)]))
            d = _first_a(default, slope=rng.choice(["-1/2", "1/2", "-1/4", "-1"]), hard=rng.choice(["leftmost", "rightmost"]),
                         visible=rng.choice(["j<i", "j<=i", "all"]), pe=rng.choice(["i/(n+1)", "i/n", "i/(2*n+2)"]))
            model = model_from_dict(d)
            outcome = certify(model, 1, 150, cfg=CertifyConfig(refute=False))
            if outcome.verdict == "certified":
                certified += 1
                off_lattice += "L-bos-apart" in outcome.certificate["analysis"]["heads"][0]["lemma"]
                assert_certificate_holds(model, outcome.certificate["claim"],
                                         words_up_to(model.alphabet, 1, 7, budget=300, random_words=10, random_max=150, seed=k))
    assert certified >= 5 and off_lattice >= 3  # measured 15 and 5 (ρ = 1: before the bands narrowed)


@pytest.mark.slow
@pytest.mark.parametrize("default", ["1/4", "1/8", "-3/4"])
def test_bos_default_certificates_hold_on_longer_words(default):
    """The default run's checks at a larger budget, for narrowed (i/n, every key visible) and full bands."""
    for pe, visible in (("i/n", "all"), ("i/(n+1)", "j<i")):
        model = model_from_dict(_first_a(default, pe=pe, visible=visible))
        outcome = certify(model, 1, 10**6, cfg=CertifyConfig(refute=False))
        if outcome.verdict == "certified":
            assert audit(outcome.certificate, model, max_len=6).ok
            assert_certificate_holds(model, outcome.certificate["claim"],
                                     words_up_to(model.alphabet, 1, 9, budget=1500, random_words=30, random_max=600, seed=7))

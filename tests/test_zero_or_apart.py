"""The grid margin and L-zero-or-apart (issue 12): outputs that are never on the threshold only because
a count is 0 or at least 1/n.  aⁿbⁿ and balance checks write 1/(2n) − |c| with c ∈ Z/n (a grid with
offset ½: never 0); Dyck-1 by the minimum prefix mean writes 1/(2n) − ReLU(−min) − ReLU(d_n) with
min some d_j ∈ Z/j (a denominator ≤ n: 0 or ≥ 1/n in size).  Every certificate is brute-forced,
checked and audited; the generator aims at the rule's hypotheses (centres at and inside 1/n, unit
signs, biases, min and max heads, masks)."""
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
from certify.kernel.structure import analyse
from certify.model import load_model, model_from_dict
from soundness import assert_certificate_holds, words_up_to

LITERATURE = Path(__file__).parent / "fixtures" / "literature"


def _balance(centre: str, units=((-1, 1), (-1, -1))) -> dict:
    """c = (#a − #b)/n (uniform over every position, no BOS); out = centre + Σ coef·ReLU(a·c)."""
    return {"format": "hardsoft.model/1", "name": "balance", "alphabet": ["a", "b"], "bos": None,
            "dims": ["s", "c", "out"],
            "embed": {"token": {"a": {"s": 1}, "b": {"s": -1}}, "position": {"out": centre}},
            "layers": [{"type": "attention", "heads": [{"name": "count", "hard": "average", "visible": "all",
                                                        "score": [], "value": [["c", "s", 1]]}]},
                       {"type": "ffn", "hidden": [{"in": {"c": a}, "out": {"out": coef}} for coef, a in units]}],
            "output": {"dim": "out", "position": "last", "threshold": 0}}


def _dyck(centre: str, coefs=(-1, -1), bias: str = "0", visible: str = "j<=i", score: int = -1,
          threshold: str = "0") -> dict:
    """d_i = (#( − #))/i; a head with score score·d_j keeps the min (score −1) or max prefix mean;
    out = centre + coefs[0]·ReLU(score·m + bias) + coefs[1]·ReLU(d)."""
    return {"format": "hardsoft.model/1", "name": "dyck", "alphabet": ["(", ")"], "bos": None,
            "dims": ["one", "s", "d", "m", "out"],
            "embed": {"token": {"(": {"s": 1}, ")": {"s": -1}}, "position": {"one": 1, "out": centre}},
            "layers": [{"type": "attention", "heads": [{"name": "prefix-mean", "hard": "average", "visible": "j<=i",
                                                        "score": [], "value": [["d", "s", 1]]}]},
                       {"type": "attention", "heads": [{"name": "extreme", "hard": "average", "visible": visible,
                                                        "score": [["one", "d", score]], "value": [["m", "d", 1]]}]},
                       {"type": "ffn", "hidden": [{"in": {"m": score}, "bias": bias, "out": {"out": coefs[0]}},
                                                  {"in": {"d": 1}, "out": {"out": coefs[1]}}]}],
            "output": {"dim": "out", "position": "last", "threshold": threshold}}


def _dyck_words(rng: random.Random, lengths=(2, 4, 7, 12, 30, 80)) -> list[tuple]:
    """Balanced words and their near misses (one symbol flipped, rotated, one close too many)."""
    words = []
    for n in lengths:
        for _ in range(3):
            w, h = [], 0
            for _ in range(n // 2 * 2):
                close = h > 0 and (rng.random() < 0.5 or h >= n - len(w))
                w.append(")" if close else "(")
                h += -1 if close else 1
            w += [")"] * h
            flipped = list(w)
            flipped[rng.randrange(len(w))] = "(" if flipped[0] == ")" else ")"
            words += [tuple(w), tuple(flipped), tuple(w[1:] + w[:1]), tuple(w + [")"]), tuple([")"] + w[:-1])]
    return [w for w in words if w]


def _holds(model, outcome, extra=()) -> int:
    words = list(words_up_to(model.alphabet, 1, 6, budget=300, random_words=6, random_max=120, seed=3)) + list(extra)
    return assert_certificate_holds(model, outcome.certificate["claim"], words)


def test_a_balance_check_certifies_by_its_grid_offset():
    model = model_from_dict(_balance("1/(2*n)"))
    outcome = certify(model, 1, 10**6, cfg=CertifyConfig(refute=False))
    assert outcome.verdict == "certified", outcome.blockers
    out = analyse(model).coords[-1]["out"]
    assert out.offset == Fraction(1, 2) and out.grid is not None  # out·n ∈ Z + ½
    check(outcome.certificate, model)
    assert audit(outcome.certificate, model, max_len=6).ok
    balanced = [("a",) * k + ("b",) * k for k in (1, 5, 40)] + [("a",) * k + ("b",) * (k + 1) for k in (1, 5, 40)]
    assert _holds(model, outcome, balanced) > 0


def test_a_centre_on_the_grid_claims_no_offset():
    """1/n − |c| is 0 at |c| = 1/n (n odd): the grid n keeps offset 0, so it proves nothing non-zero."""
    out = analyse(model_from_dict(_balance("1/n"))).coords[-1]["out"]
    assert out.grid is not None and out.offset == 0


def test_dyck1_by_the_minimum_prefix_mean_certifies_with_its_zero_or_apart_fact():
    model = load_model(LITERATURE / "dyck1-min.json")
    st = analyse(model)
    assert st.coords[2]["mn"].den_bound is not None  # the min is some d_j ∈ Z/j, j ≤ i
    centre, least, side = st.coords[-1]["out"].apart
    assert side == -1 and len(least) == 2
    outcome = certify(model, 1, 10**6, cfg=CertifyConfig(refute=False))
    assert outcome.verdict == "certified", outcome.blockers
    records = [c for c in outcome.certificate["facts"]["coords"] if "zero_or_apart" in c]
    assert records and records[0]["zero_or_apart"]["lemma"] == "L-zero-or-apart"
    check(outcome.certificate, model)
    assert audit(outcome.certificate, model, max_len=6).ok
    assert _holds(model, outcome, _dyck_words(random.Random(0))) > 0


@pytest.mark.parametrize("change", ["mixed signs", "bias", "centre on the step", "max head"])
def test_outside_the_rule_there_is_no_zero_or_apart_fact(change):
    d = {"mixed signs": _dyck("1/(2*n)", coefs=(1, -1)), "bias": _dyck("1/(2*n)", bias="-1/4"),
         "centre on the step": _dyck("1/n"), "max head": _dyck("1/(2*n)", score=1)}[change]
    model = model_from_dict(d)
    apart = analyse(model).coords[-1]["out"].apart
    if change == "centre on the step":  # the fact holds, but θ = 0 sits L = 1/n below the centre: a real tie
        assert apart is not None
    elif change == "max head":  # max prefix mean: the unit reads ReLU(m) ≥ 0 — the fact holds, the language differs
        assert apart is not None
    else:
        assert apart is None
    outcome = certify(model, 1, 200, cfg=CertifyConfig(refute=False))
    if change in ("mixed signs", "bias", "centre on the step"):
        assert outcome.verdict == "not proved"
    if outcome.verdict == "certified":
        assert _holds(model, outcome, _dyck_words(random.Random(1), lengths=(2, 5, 9, 20))) > 0


@pytest.mark.parametrize("seed", range(3))
def test_drawn_prefix_extremes_are_never_unsound(seed):
    """Centres inside and on 1/n, unit magnitudes and signs, biases, min and max heads and masks:
    every certificate is checked, audited and brute-forced."""
    rng = random.Random(seed)
    certified = 0
    for k in range(4):
        centre = rng.choice(["1/(2*n)", "1/(3*n)", "3/(4*n)", "1/n", "1/(2*n+2)", "1/(4*n)"])
        coefs = rng.choice([(-1, -1), (-2, -1), (-1, -3), (-1, -1), (1, 1), (1, -1)])
        d = _dyck(centre, coefs=coefs, bias=rng.choice(["0", "0", "0", "-1/8"]), visible=rng.choice(["j<=i", "all"]),
                  score=rng.choice([-1, -1, 1]))
        model = model_from_dict(d)
        outcome = certify(model, 1, 120, cfg=CertifyConfig(refute=False))
        if outcome.verdict == "certified":
            certified += 1
            check(outcome.certificate, model)
            assert audit(outcome.certificate, model, max_len=5).ok
            _holds(model, outcome, _dyck_words(rng, lengths=(2, 3, 6, 11, 24)))
    assert certified >= 1


def test_the_audit_rejects_a_wrong_zero_or_apart_fact():
    model = load_model(LITERATURE / "dyck1-min.json")
    outcome = certify(model, 1, 50, cfg=CertifyConfig(refute=False))
    bad = copy.deepcopy(outcome.certificate)
    for c in bad["facts"]["coords"]:
        if "zero_or_apart" in c:
            c["zero_or_apart"]["at_least"] = ["2/n"]  # a balanced-but-for-one word sits 1/n below the centre
    assert not audit(bad, model, max_len=5).ok


def test_dyck1_with_bos_skips_the_unit_its_bound_keeps_off():
    """min over prefix means with BOS (valued 0) visible is ≤ 0: ReLU(min) is 0, the other units agree in sign."""
    model = load_model(LITERATURE / "dyck1-bos.json")
    st = analyse(model)
    assert st.coords[2]["mn"].bound == (1, Fraction(0)) and st.coords[2]["en"].bound is None
    assert st.coords[-1]["out"].apart is not None
    outcome = certify(model, 1, 10**6, cfg=CertifyConfig(refute=False))
    assert outcome.verdict == "certified", outcome.blockers
    check(outcome.certificate, model)
    assert audit(outcome.certificate, model, max_len=6).ok
    bad = copy.deepcopy(outcome.certificate)
    for c in bad["facts"]["coords"]:
        if "bound" in c:
            c["bound"]["side"] = -1  # "min ≥ 0": every word that dips below 0 refutes it
    assert not audit(bad, model, max_len=4).ok
    assert _holds(model, outcome, _dyck_words(random.Random(2))) > 0


def test_without_an_always_visible_bos_key_there_is_no_bound():
    raw = json.loads((LITERATURE / "dyck1-bos.json").read_text())
    raw["layers"][1]["heads"][0]["visible"] = "j>=i"  # BOS (row 0) is visible from row 0 only
    assert analyse(model_from_dict(raw)).coords[2]["mn"].bound is None

"""L-special-key (issue 15): a ladder A(n)·j over the input keys and one BOS key shifted by U_i.

The kernel's rule must fire exactly when |U_i| ≥ L(i, n) > |A(n)| is proved for every n, give the
counting comparison a Θ(1/n) schedule (no log factor), and every certificate it yields must hold on
concrete words (exact hard against 40-digit soft, the conftest fact audit on top).  Models that break
a hypothesis (the step reaching the BOS bound, a rising ladder, a shift that can vanish) must not be
classified by it.
"""
from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

from certify.certifier import CertifyConfig, certify
from certify.kernel.checker import check
from certify.kernel.structure import Unsupported, _special_key, analyse
from certify.model import load_model, model_from_dict
from soundness import assert_certificate_holds, words_up_to

ROOT = Path(__file__).resolve().parent.parent
LADDERS = ("counting-majority-bounded", "counting-mon-bounded")
LEMMA = "L-special-key"


def _amplifier(st):
    for layer, facts in enumerate(st.facts):
        if isinstance(facts, tuple):
            for f in facts:
                if f.head.name.endswith("amplify"):
                    return layer, f
    raise AssertionError("no amplifier")


def _base() -> dict:
    return json.loads((ROOT / "models" / "compiled" / "counting-majority-bounded.json").read_text())


def _with_ladder(coef: str, pe: str = "i/(n+1)", shift_share: str | None = "-1/2") -> dict:
    """The compiled counting comparison with its ladder term and BOS share replaced."""
    model = _base()
    model.pop("temperature", None)
    model["embed"]["position"]["ladder"] = pe
    for layer in model["layers"]:
        for head in layer.get("heads", []):
            if head["name"].endswith("amplify"):
                head["score"] = [t for t in head["score"] if t[1] != "ladder"] + [["one", "ladder", coef]]
            if head["name"].endswith("count"):
                head["value"] = [v for v in head["value"] if v[1] != "bos"] + \
                    ([[head["value"][0][0], "bos", shift_share]] if shift_share is not None else [])
    return model


def _long_words(alphabet, seed: int):
    """Adversarial long words for a count comparison: balanced blocks, near-ties, one-off leaders."""
    rng = random.Random(seed)
    a, b = alphabet[0], alphabet[1]
    out = [a * k + b * k for k in (5, 17, 40)] + [b * k + a * (k + 1) for k in (6, 25)] + [(a + b) * 20 + a]
    out += ["".join(rng.choice(alphabet) for _ in range(rng.randint(20, 60))) for _ in range(4)]
    return [tuple(w) for w in out]


@pytest.mark.parametrize("name", LADDERS)
def test_compiled_ladders_are_special_key_heads_certified_in_theta_one_over_n(name):
    model = load_model(ROOT / "models" / "compiled" / f"{name}.json")
    _, fact = _amplifier(analyse(model))
    assert fact.lemma.startswith(LEMMA) and fact.level_size == 2 and fact.homogeneous
    outcome = certify(model, 1, 10**6, derive=True)
    assert outcome.verdict == "certified"
    tau = outcome.certificate["claim"]["tau"]
    assert "log" not in tau and "n" in tau  # κ/(n + 1): the paper's Θ(1/n), no log factor
    check(outcome.certificate, model)
    words = list(words_up_to(model.alphabet, 1, 6, budget=1200, random_words=0, random_max=1)) + \
        _long_words(model.alphabet, seed=1)
    assert assert_certificate_holds(model, outcome.certificate["claim"], words) == len(words)


@pytest.mark.parametrize("name", LADDERS)
def test_the_proposed_ladder_schedule_certifies_for_every_length(name):
    model = load_model(ROOT / "models" / "compiled" / f"{name}.json")
    outcome = certify(model, 1, "inf")
    assert outcome.verdict == "certified" and outcome.certificate["claim"]["tau"] == "1/(8*(n + 1))"


@pytest.mark.parametrize("coef, pe, share, why", [
    ("-1/2", "i/(n+1)", "-1/2", "does not clear"),  # |A| = 1/(2(n+1)) = L at row n: BOS may tie the top rung
    ("1/4", "i/(n+1)", "-1/2", "not negative"),  # a rising ladder: its top is not beside BOS
    ("-1/4", "i/(n+1)", None, "no lower bound"),  # no BOS share: U_i = 0 when the counts balance
    ("-1/4", "i^2/(n+1)^2", "-1/2", "neither"),  # rungs not affine in the position
])
def test_a_broken_hypothesis_is_not_a_special_key(coef, pe, share, why):
    model = model_from_dict(_with_ladder(coef, pe, share))
    st = analyse(model)
    layer, fact = _amplifier(st)
    assert not fact.lemma.startswith(LEMMA)
    with pytest.raises(Unsupported, match=why):
        _special_key(layer, fact.head, st.coords[layer], st.first)


@pytest.mark.parametrize("coef, pe, share", [
    ("-1/2", "i/(n+1)", "-1/2"), ("1/4", "i/(n+1)", "-1/2"), ("-1/4", "i/(n+1)", None),
    ("-1/8", "i/n", "-1/2"), ("-3/8", "i/(n+2)", "-1/2"), ("-1/4", "i/(n+1)", "-3/2"),
])
def test_every_ladder_variant_certified_by_any_rule_holds_on_words(coef, pe, share):
    """Whatever rule certifies a variant (or none), no certificate is unsound on exhaustive and long words."""
    model = model_from_dict(_with_ladder(coef, pe, share))
    outcome = certify(model, 1, 1000, cfg=CertifyConfig(refute=False), derive=True)
    if outcome.verdict != "certified":
        return
    check(outcome.certificate, model)
    words = list(words_up_to(model.alphabet, 1, 6, budget=1200, random_words=0, random_max=1)) + \
        _long_words(model.alphabet, seed=2)
    assert assert_certificate_holds(model, outcome.certificate["claim"], words) == len(words)


def test_the_clearing_variants_are_special_keys():
    """Steps strictly below the BOS bound at every n (1/(8n) and 3/(8(n+2)) against 1/(2(n+1))): the rule fires."""
    for coef, pe in (("-1/8", "i/n"), ("-3/8", "i/(n+2)")):
        _, fact = _amplifier(analyse(model_from_dict(_with_ladder(coef, pe))))
        assert fact.lemma.startswith(LEMMA), (coef, pe)


def test_a_tampered_special_key_record_fails_the_check():
    model = load_model(ROOT / "models" / "compiled" / "counting-majority-bounded.json")
    cert = certify(model, 1, 1000).certificate
    bad = copy.deepcopy(cert)
    head = next(h for h in bad["analysis"]["heads"] if h["head"].endswith("amplify"))
    head["level_size"] = 1
    with pytest.raises(Exception):
        check(bad, model)
    check(cert, model)


@pytest.mark.parametrize("name", LADDERS)
def test_derived_ladder_schedule_is_within_two_of_the_critical_temperature(name):
    """Issue 15: the kernel's case-split leakage (the rungs carry one value, so only BOS's weight moves the
    output when a rung is on top) is exact on the worst word, so the derived τ is ≥ τ*/2 — and never above it."""
    from certify.critical import critical_point
    from certify.evaluate import tau_value_exact
    from certify.expr import parse_expr

    model = load_model(ROOT / "models" / "compiled" / f"{name}.json")
    tau = parse_expr(certify(model, 1, 10**6, derive=True).certificate["claim"]["tau"], variables=("n",))
    for n in (10, 100):
        point = critical_point(model, n)
        assert point.status == "bracketed", point
        ratio = float(tau_value_exact(tau, n)) / point.tau_star
        assert 0.5 <= ratio <= 1, (n, ratio)


def test_the_audit_flags_a_leak_bound_below_the_weight_on_other_values():
    """leak_other_values: the audit counts the weight on keys valued unlike the maxima; a box whose
    leak_upper is below it (the checker bypassed) fails, and the untouched certificate passes."""
    from certify.audit import AuditConfig, audit

    model = load_model(ROOT / "models" / "compiled" / "counting-majority-bounded.json")
    cert = certify(model, 1, 8, derive=True).certificate
    amp = next(h for h in cert["facts"]["heads"] if h["head"].endswith("amplify"))
    assert {"kind": "leak_other_values"} in amp["statements"]
    cfg = AuditConfig(exhaustive_budget=200, random_words=0)
    assert audit(cert, model, max_len=5, cfg=cfg).ok
    bad = copy.deepcopy(cert)
    for box in bad["boxes"]:
        box["leak_upper"]["h2.amplify"] = "1e-300"
    result = audit(bad, model, max_len=5, cfg=cfg)
    assert not result.ok and "leak_upper" in result.failure.fact


def _drawn_ladder(rng: random.Random, valid: bool = False) -> dict:
    """A counting comparison aimed at L-special-key's hypotheses: steps near the BOS bound (|A| → L),
    several PE shapes, BOS shares with offsets 1/2 or 1/3, count coefficients and visibilities
    (``valid``: a step and share that clear the bound, the rest drawn)."""
    coef = rng.choice(("-1/4", "-3/8", "-7/16") if valid else ("-1/4", "-3/8", "-7/16", "-15/32", "-1/2", "-1/8", "1/8"))
    pe = rng.choice(("i/(n+1)", "i/(n+2)") if valid else ("i/(n+1)", "i/n", "i/(n+2)", "(i+1)/(n+1)"))
    share = rng.choice(("-1/2", "1/2", "-3/2") if valid else ("-1/2", "1/2", "-3/2", "-1/3", "2/3"))
    model = _with_ladder(coef, pe, share)
    for layer in model["layers"]:
        for head in layer.get("heads", []):
            if head["name"].endswith("count"):
                head["value"] = [[o, d, str(rng.choice((1, 2, -1))) if d != "bos" else c] for o, d, c in head["value"]]
            if head["name"].endswith("amplify"):
                head["visible"] = rng.choice(("j<=i", "all", "j<i"))
    model["name"] = f"ladder-{rng.randrange(10**6)}"
    return model


@pytest.mark.parametrize("seed", range(6))
def test_drawn_ladders_are_sound_and_some_are_special_keys(seed):
    """Every certificate of a drawn ladder holds on every word up to length 6 and on long adversarial words."""
    rng = random.Random(seed)
    special = 0
    for k in range(4):
        model = model_from_dict(_drawn_ladder(rng, valid=k == 0))
        _, fact = _amplifier(analyse(model))
        special += fact.lemma.startswith(LEMMA)
        outcome = certify(model, 1, 1000, cfg=CertifyConfig(refute=False), derive=True)
        if outcome.verdict != "certified":
            continue
        words = list(words_up_to(model.alphabet, 1, 6, budget=1200, random_words=0, random_max=1)) + \
            _long_words(model.alphabet, seed=seed)
        assert assert_certificate_holds(model, outcome.certificate["claim"], words) == len(words), model.name
    assert special >= 1  # the draw reaches the rule (a sweep that certifies nothing by it would prove nothing)

"""Soundness of the certifier: every certified claim survives brute force by the exact evaluators.

A certificate that claims a τ at which some input's soft decision differs from its
hard one is the worst bug this project can have, so these tests compare the
certified τ(n) with exhaustive short words, random longer ones and adversarial
long ones, on shipped models, hand-made ones and hypothesis-generated ones.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from certify.certifier import certify
from certify.expr import parse_expr
from certify.kernel.checker import check
from certify.model import load_model

from soundness import assert_certificate_holds, words_up_to

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted(p for p in (ROOT / "models").rglob("*.json") if "srasp" not in p.parts)  # S-RASP programs: tests/test_srasp.py
NEGATIVE = sorted((ROOT / "tests" / "negative_models").glob("*.json"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_shipped_model_certifies_and_survives_brute_force(path):
    model = load_model(path)
    outcome = certify(model, 1, 10**6)
    assert outcome.verdict == "certified", outcome.reason
    assert check(outcome.certificate, model).boxes == len(outcome.certificate["boxes"])
    words = words_up_to(model.alphabet, 1, 6, budget=300, random_words=10, random_max=14)
    assert assert_certificate_holds(model, outcome.certificate["claim"], words) > 0


@pytest.mark.parametrize("path", NEGATIVE, ids=lambda p: p.stem)
def test_negative_model_is_refuted_with_a_checked_word(path):
    model = load_model(path)
    outcome = certify(model, 1, 100)
    assert outcome.verdict == "refuted"
    cex = outcome.counterexample
    from certify.evaluate import hard_run, soft_run
    from certify.model import parse_word

    word = parse_word(model, cex.word)
    tau = parse_expr(cex.tau, variables=("n",), allow_log=True)
    assert hard_run(model, word).decisions != soft_run(model, word, tau).decisions


def test_too_hot_schedule_is_refuted_not_certified():
    model = load_model(ROOT / "models" / "since-a-b.json")
    outcome = certify(model, 1, 1000, tau=parse_expr("1/n", variables=("n",)))
    assert outcome.verdict == "refuted"
    assert outcome.counterexample.tau == "1/n"


def test_since_adversarial_long_words():
    """Many candidate positions just before the end maximise the leaked weight."""
    model = load_model(ROOT / "models" / "since-a-b.json")
    claim = certify(model, 1, 10**6).certificate["claim"]
    words = [tuple("c" * 60 + "b" + "a" * 3), tuple("b" * 63 + "a"), tuple("bc" * 40 + "a"), tuple("cb" * 40)]
    assert assert_certificate_holds(model, claim, words) == len(words)


def test_ziggurat_schedule_is_theta_one_over_n():
    """TL construction in the bounded scheme: τ(n)·n is a constant (the derived schedule is κ/n)."""
    model = load_model(ROOT / "models" / "since-a-b.json")
    tau = parse_expr(certify(model, 1, 10**6).certificate["claim"]["tau"], variables=("n",))
    from certify.expr import eval_exact

    values = {eval_exact(tau, {"n": n}) * n for n in (1, 10, 1000, 10**6)}
    assert len(values) == 1 and values.pop() > 0


def test_boolean_scores_with_equal_tied_values_need_only_log_n():
    """exists-b: Boolean scores, gap 1, tied maxima with equal values ⇒ τ(n) = κ/log(n + 2), so 1/τ = O(log n)."""
    model = load_model(ROOT / "models" / "exists-b.json")
    claim = certify(model, 1, 10**12).certificate["claim"]
    tau = parse_expr(claim["tau"], variables=("n",), allow_log=True)
    from flint import arb

    from certify.expr import eval_ball

    products = [eval_ball(tau, {"n": arb(n)}) * arb(n + 2).log() for n in (1, 10**3, 10**9)]
    assert all(abs(p - products[0]) < arb(10) ** -12 for p in products) and products[0] > 0


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_shipped_model_certifies_up_to_10_to_the_12(path):
    model = load_model(path)
    outcome = certify(model, 1, 10**12)
    assert outcome.verdict == "certified", outcome.reason
    assert outcome.certificate["boxes"][-1]["n"][1] == 10**12

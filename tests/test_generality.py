"""Issue 12: the general gap principle — rules that certify the models users bring.

Every rule is a row gap lower bound plus a count of keys per gap level: joint finite values,
score lattices (with denominators bounded for means), row-constant terms dropped, (-1)^i as a
two-valued embedding, average heads with a unique maximum.  Whatever they certify is brute-forced
here and audited (conftest), and what they cannot prove is reported head by head.
"""
from __future__ import annotations

import json
from fractions import Fraction
import random
import subprocess
import sys
from pathlib import Path

import pytest

from certify.audit import AuditConfig, audit
from certify.certifier import CertifyConfig, certify
from certify.kernel.checker import check
from certify.evaluate import hard_run, soft_run
from certify.expr import parse_expr
from certify.kernel.structure import analyse
from certify.model import load_model, model_from_dict
from outside_models import edited_model, random_model, simulable
from soundness import assert_certificate_holds, words_up_to

ROOT = Path(__file__).resolve().parent.parent
COVERAGE = sorted((ROOT / "tests" / "fixtures" / "coverage").glob("*.json"))


@pytest.mark.parametrize("path", COVERAGE, ids=lambda p: p.stem)
def test_coverage_example_certifies_checks_and_survives_brute_force(path):
    model = load_model(path)
    outcome = certify(model, 1, 10**6)
    assert outcome.verdict == "certified", outcome.blockers
    check(outcome.certificate, model)
    assert audit(outcome.certificate, model, max_len=6, cfg=AuditConfig(random_words=10)).ok
    words = words_up_to(model.alphabet, 1, 6, budget=300, random_words=6, random_max=30, seed=3)
    assert assert_certificate_holds(model, outcome.certificate["claim"], words) > 0


def test_row_constant_terms_are_dropped_before_anything_else():
    plain = certify(load_model(ROOT / "models" / "exists-b.json"), 1, 1000)
    shifted = certify(load_model(ROOT / "tests" / "fixtures" / "coverage" / "ex2-exists-b-plus-row-constant.json"), 1, 1000)
    assert shifted.verdict == "certified" and shifted.certificate["claim"]["tau"] == plain.certificate["claim"]["tau"]


def _two_blockers() -> dict:
    model = json.loads((ROOT / "tests" / "fixtures" / "coverage" / "crash-alt-query.json").read_text())
    bad = {"name": "tie", "hard": "rightmost", "visible": "all", "score": [["t_a", "t_a", 1]], "value": [["v", "alt", 1]]}
    model["layers"][0]["heads"] = [dict(bad, name="tie1"), dict(bad, name="tie2")]
    return model


def test_not_proved_lists_every_blocker():
    outcome = certify(model_from_dict(_two_blockers()), 1, 100, cfg=CertifyConfig(refute=False))
    assert outcome.verdict == "not proved"
    assert [b.split(":")[0] for b in outcome.blockers] == ["head 'tie1'", "head 'tie2'"]


def test_cli_json_not_proved_has_the_blocker_list(tmp_path):
    path = tmp_path / "m.json"
    path.write_text(json.dumps(_two_blockers()))
    run = subprocess.run([sys.executable, "-m", "certify.cli", str(path), "--nmax", "20", "--json"],
                         capture_output=True, text=True, timeout=120)
    result = json.loads(run.stdout)
    if result["verdict"] == "not proved":
        assert run.returncode == 2 and len(result["blockers"]) == 2
    else:  # the refuter may find that the unique-hard ties really break soft = hard
        assert result["verdict"] == "refuted" and run.returncode == 1


def test_unique_hard_ties_with_different_values_are_not_certified():
    """The joint rule must not accept tied maxima carrying different values under rightmost attention."""
    outcome = certify(model_from_dict(_two_blockers()), 1, 50, cfg=CertifyConfig(refute=False))
    assert outcome.verdict != "certified"


def _exact_rows_model(hard: str = "average", visible: str = "j<=i", position: str = "all") -> dict:
    """ex5's pattern, reduced: query b averages t_b over the keys when no 'a' is visible (a uniform
    row: soft = hard exactly) and sees the a's value 0 otherwise; 1/2 is hit only on uniform rows."""
    return {"format": "hardsoft.model/1", "name": "exact-rows", "alphabet": ["a", "b"], "bos": "$",
            "dims": ["one", "t_a", "t_b", "t_bos", "w", "out"],
            "embed": {"token": {"a": {"t_a": 1}, "b": {"t_b": 1}, "$": {"t_bos": 1}}, "position": {"one": "1"}},
            "layers": [{"type": "attention", "heads": [{"name": "h", "hard": hard, "visible": visible,
                                                       "score": [["t_b", "t_a", "1/2"]], "value": [["w", "t_b", 1]]}]},
                       {"type": "ffn", "hidden": [{"in": {"w": 2}, "bias": "-1/2", "out": {"out": 1}},
                                                  {"in": {"w": 2}, "bias": "-3/2", "out": {"out": -1}}]}],
            "output": {"dim": "out", "position": position, "threshold": "1/2"}}


def test_uniform_rows_are_exact_and_a_tie_on_the_threshold_is_not_certified():
    """The structure says w is exact off {0}; brute force agrees (soft = hard to 40 digits there).
    The output then sits on θ = 1/2 on exact rows, which only rounding decides: not certified."""
    model = model_from_dict(_exact_rows_model())
    w = analyse(model).coords[1]["w"]
    assert w.exact_unless == {Fraction(0)}
    col = model.dims.index("w")
    for word in words_up_to(model.alphabet, 1, 7, budget=400, random_words=10, random_max=30, seed=5):
        hard, soft = hard_run(model, word), soft_run(model, word, parse_expr("1/n", variables=("n",)), dps=60)
        for h, sft in zip(hard.streams[1], soft.streams[1]):
            if h[col] != 0:
                m, e = sft[col].man_exp
                assert abs(Fraction(int(m)) * Fraction(2) ** int(e) - h[col]) < Fraction(1, 10**40), word
    assert certify(model, 1, 200, cfg=CertifyConfig(refute=False)).verdict != "certified"


@pytest.mark.parametrize("change", [{"hard": "rightmost"}, {"visible": "all", "position": "first"}])
def test_exact_rows_are_not_claimed_where_soft_differs(change):
    """Under rightmost-hard attention soft averages a uniform row (no exact rows); a non-causal head
    lets the first row see every key (no exact first row): neither may be certified."""
    outcome = certify(model_from_dict(_exact_rows_model(**change)), 1, 200, cfg=CertifyConfig(refute=False))
    assert outcome.verdict != "certified"


def _outside_sweep(seed: int, count: int, n_max: int):
    rng, certified, simulable_count = random.Random(seed), 0, 0
    for k in range(count):
        family = k % 3
        d = edited_model(rng, k) if family == 2 else random_model(rng, k, unbounded=family == 1)
        model = model_from_dict(d)
        outcome = certify(model, 1, n_max, cfg=CertifyConfig(refute=False))
        simulable_count += simulable(model, 3) is not None
        if outcome.verdict == "certified":
            certified += 1
            words = words_up_to(model.alphabet, 1, 5, budget=300, random_words=3, random_max=n_max, seed=k)
            assert_certificate_holds(model, outcome.certificate["claim"], words)
    return certified, simulable_count


def test_outside_style_models_certified_claims_hold():
    certified, simulable_count = _outside_sweep(seed=5, count=24, n_max=20)
    assert certified >= 8, (certified, simulable_count)


@pytest.mark.slow
def test_outside_style_models_large():
    certified, simulable_count = _outside_sweep(seed=6, count=300, n_max=100)
    assert certified >= 90, (certified, simulable_count)

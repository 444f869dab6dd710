"""One grid on both sides of a score term (found by an adversarial sweep, 2026-12-03): L-gap on a lattice
collected the fixed query and key grids in one set, so q = 1/1000 against k = (j² + j)/1000 counted the grid
1000 once instead of 1000², claimed a least gap of 1 where it is 0.002, and certified τ = 125/128/log(n + 2),
at which soft and hard decide differently on ``abb``.  The grids of the two sides are now kept apart (the lcm
of Gq·Gk divides lcm Gq · lcm Gk).  Also here: a position embedding i + (-1)^i, which stopped ``certify`` with
an expression error instead of a verdict."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from certify.certifier import CertifyConfig, certify
from certify.evaluate import hard_run, soft_run
from certify.expr import parse_expr
from certify.kernel.checker import check
from certify.model import load_model, model_from_dict
from soundness import assert_certificate_holds, words_up_to

HERE = Path(__file__).resolve().parent / "negative_models" / "shared-grid"
OLD_TAU = parse_expr("125/128/log(n + 2)", variables=("n",), allow_log=True)
CASES = {"lattice-shared-grid": ("a", "b", "b"), "lattice-shared-grid-bos-leftmost": ("b", "b")}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_old_claim_was_false_and_the_new_certificate_holds(name):
    model, word = load_model(HERE / f"{name}.json"), CASES[name]
    hard = hard_run(model, word).decisions
    assert soft_run(model, word, OLD_TAU, dps=60).decisions != hard  # the old kernel's τ really fails here
    outcome = certify(model, 1, 200, cfg=CertifyConfig(refute=False))
    assert outcome.verdict == "certified"
    check(outcome.certificate, model)
    tau = parse_expr(outcome.certificate["claim"]["tau"], variables=("n",), allow_log=True)
    assert soft_run(model, word, tau, dps=60).decisions == hard
    words = words_up_to(model.alphabet, 1, 7, budget=600, random_words=8, random_max=200, seed=1)
    assert assert_certificate_holds(model, outcome.certificate["claim"], [*words, ("a",) + ("b",) * 199]) > 0


def test_an_alternating_sign_beside_the_position_is_not_proved_rather_than_an_error():
    outcome = certify(load_model(HERE / "altsign-next-to-i.json"), 1, 200, cfg=CertifyConfig(refute=False))
    assert outcome.verdict == "not proved" and any("(-1)" in b for b in outcome.blockers)


def _shared_grid_model(rng: random.Random, k: int) -> dict:
    """One head whose score reads one grid G on both sides (q = a/G, k = P(j)/G, P an integer polynomial)."""
    g = rng.choice([7, 10, 100, 1000])
    poly = rng.choice(["i^2+i", "i^2", "2*i", "i^2+3*i", "i"])
    return {"format": "hardsoft.model/1", "name": f"shared-grid-{k}", "alphabet": ["a", "b"],
            "bos": rng.choice([None, "$"]), "dims": ["one", "q", "k", "t_a", "t_b", "w"],
            "embed": {"token": {"a": {"t_a": 1}, "b": {"t_b": 1}, "$": {}},
                      "position": {"one": "1", "q": f"{rng.choice([1, 3, -1])}/{g}", "k": f"({poly})/{g}"}},
            "layers": [{"type": "attention", "heads": [{
                "name": "h", "hard": rng.choice(["average", "leftmost", "rightmost"]), "visible": rng.choice(["all", "j<=i"]),
                "score": [["q", "k", str(rng.choice([-g, g, -g // 2 or -1]))]] + ([["one", "t_b", "1/2"]] if rng.random() < 0.5 else []),
                "value": [["w", "t_b", 1]]}]}],
            "output": {"dim": "w", "position": rng.choice(["last", "all"]), "threshold": "1/2"}}


def test_shared_grid_sweep_holds_by_brute_force():
    rng, certified = random.Random(11), 0
    for k in range(24):
        data = _shared_grid_model(rng, k)
        if data["bos"] is None:
            del data["embed"]["token"]["$"]
        model = model_from_dict(data)
        outcome = certify(model, 1, 120, cfg=CertifyConfig(refute=False))
        if outcome.verdict != "certified":
            continue
        certified += 1
        words = words_up_to(model.alphabet, 1, 6, budget=200, random_words=4, random_max=120, seed=k)
        assert_certificate_holds(model, outcome.certificate["claim"], words)
    assert certified >= 6, certified

"""certify.hard_batch: the batched float-screened hard evaluator decides as the exact hard_run.

It is the instrument of the large agreement sweeps (S-RASP, outside models), so it is tested
against the exact evaluator on every shipped model and on random models (hypothesis), and its
grey-zone counter is tested to fire on scores that are close but not equal.
"""
from __future__ import annotations

import itertools
import random
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from certify.evaluate import hard_run
from certify.hard_batch import hard_batch
from certify.model import load_model, model_from_dict

import model_strategies as ms

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted((ROOT / "models").rglob("*.json"))


def _words(alphabet, n: int, cap: int, seed: int = 0) -> list[tuple]:
    every = list(itertools.product(alphabet, repeat=n))
    return every if len(every) <= cap else random.Random(seed).sample(every, cap)


def test_every_shipped_model_agrees_with_hard_run():
    for path in SHIPPED:
        model = load_model(path)
        for n in (1, 2, 5):
            words = _words(model.alphabet, n, 12, seed=n)
            batch = hard_batch(model, words)
            assert batch.unclear == 0, path
            for w, got in zip(words, batch.decisions):
                assert tuple(got) == tuple(hard_run(model, w).decisions), (path.name, w)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_random_models_agree_with_hard_run(data):
    raw = data.draw(ms.models())
    model = model_from_dict(raw)
    n = data.draw(st.integers(1, 5))
    words = _words(model.alphabet, n, 6, seed=data.draw(st.integers(0, 99)))
    batch = hard_batch(model, words)
    if batch.unclear == 0:  # random rational weights can put scores 1e-7 apart: then it must say so
        for w, got in zip(words, batch.decisions):
            assert tuple(got) == tuple(hard_run(model, w).decisions), w


def _close_model(score: list) -> dict:
    return {"format": "hardsoft.model/1", "name": "close", "alphabet": ["a", "b"], "bos": "<s>",
            "dims": ["one", "bos", "isb", "out"],
            "embed": {"token": {"<s>": {"bos": 1}, "a": {}, "b": {"isb": "1/10000000"}}, "position": {"one": "1"}},
            "layers": [{"type": "attention", "heads": [
                {"name": "h", "hard": "average", "visible": "j<=i", "score": score, "value": [["out", "bos", 1]]}]}],
            "output": {"dim": "out", "position": "last", "threshold": "1/4"}}


def test_close_but_unequal_scores_are_reported_unclear():
    """Keys 10^-7 apart are neither a tie nor clearly apart for float screening: counted, not guessed."""
    assert hard_batch(model_from_dict(_close_model([["one", "isb", 1]])), [("b",)]).unclear >= 1
    clear = hard_batch(model_from_dict(_close_model([["one", "isb", 10**7]])), [("b",), ("a",)])
    assert clear.unclear == 0 and [tuple(d) for d in clear.decisions] == [(False,), (True,)]

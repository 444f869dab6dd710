"""Issue 11: the dropped-grid-offset family is never certified, and its old claims were really false.

``tests/negative_models/offsets/`` holds the three reproducers and variants of them (BOS,
leftmost carriers, 1/(n+1) scales, an FFN between the heads, copies of copies, other
constants).  The kernel of 32aa02c certified each one that has a ``.expect`` file at the τ
recorded there, and soft and hard decisions differ at that τ on the recorded word.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from certify.certifier import CertifyConfig, certify
from certify.evaluate import hard_run, soft_run
from certify.expr import parse_expr
from certify.model import load_model

OFFSETS = Path(__file__).resolve().parent / "negative_models" / "offsets"
MODELS = sorted(OFFSETS.glob("*.json"))
ORIGINALS = ("offset-drop", "distinct-offset2", "mean-offset2")


def _expectation(path: Path):
    expect = path.with_suffix(".expect")
    if not expect.exists():
        return None
    data = json.loads(expect.read_text())
    return tuple(data["word"]), parse_expr(data["old_tau"], variables=("n",), allow_log=True)


def test_the_family_is_all_there():
    assert len(MODELS) >= 19 and {p.stem for p in MODELS} >= set(ORIGINALS)
    assert sum(_expectation(p) is not None for p in MODELS) >= 15


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.stem)
def test_offset_family_is_never_certified(path):
    model = load_model(path)
    for n_max in (100, 10**6):
        outcome = certify(model, 1, n_max, cfg=CertifyConfig(refute=False))
        assert outcome.verdict != "certified", (n_max, outcome.certificate and outcome.certificate["claim"])


@pytest.mark.parametrize("path", [p for p in MODELS if p.with_suffix(".expect").exists()], ids=lambda p: p.stem)
def test_the_old_claim_was_false(path):
    """The variant exercises the bug: at the old kernel's τ, soft and hard decisions differ."""
    model = load_model(path)
    word, tau = _expectation(path)
    assert hard_run(model, word).decisions != soft_run(model, word, tau).decisions


@pytest.mark.parametrize("name", ORIGINALS)
def test_the_old_claim_is_refuted_with_a_checked_word(name):
    model = load_model(OFFSETS / f"{name}.json")
    word, tau = _expectation(OFFSETS / f"{name}.json")
    outcome = certify(model, 1, 100, tau=tau)
    assert outcome.verdict == "refuted"
    cex = tuple(outcome.counterexample.word)
    assert hard_run(model, cex).decisions != soft_run(model, cex, tau).decisions

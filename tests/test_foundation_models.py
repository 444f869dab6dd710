"""The shipped example models (models/*.json) mean what their descriptions say.

For every word up to length 5 the hard run (exact) must equal the intended language
or transduction, the soft run at the model's own ``temperature`` must make the same
decisions (the descriptions argue this from L-ziggurat and L-round), and the
independent reading of the spec (tests/independent_spec.py) must agree with both.
"""
from __future__ import annotations

import contextlib
import io
import itertools
import json
import sys
from pathlib import Path

import mpmath
import pytest

from certify.cli import main as certify_main
from certify.evaluate import hard_run, soft_run
from certify.expr import parse_expr
from certify.model import load_model

sys.path.insert(0, str(Path(__file__).parent))
import independent_spec as spec  # noqa: E402

MODELS = Path(__file__).parents[1] / "models"


def since_a_b(w):
    """a S b at the last position: some j < n has b, and every k in (j, n) is a."""
    n = len(w)
    return [any(w[j] == "b" and all(w[k] == "a" for k in range(j + 1, n - 1)) for j in range(n - 1))]


INTENDED = {
    "since-a-b": since_a_b,
    "unbounded-since-a-b": since_a_b,
    "bos-first-a": lambda w: [w[0] == "a"],
    "transduction-prev-a": lambda w: [i > 0 and w[i - 1] == "a" for i in range(len(w))],
    "majority-a-b": lambda w: [w[:i + 1].count("a") > w[:i + 1].count("b") for i in range(len(w))],
}


def all_words(alphabet, max_len):
    for n in range(1, max_len + 1):
        yield from itertools.product(alphabet, repeat=n)


def test_every_shipped_model_is_covered_and_valid():
    shipped = {p.stem for p in MODELS.glob("*.json")}
    assert set(INTENDED) <= shipped
    for stem in shipped:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert certify_main(["validate-model", str(MODELS / f"{stem}.json")]) == 0
        assert out.getvalue().startswith(f"valid: {stem}:")


@pytest.mark.parametrize("name", sorted(INTENDED))
def test_model_computes_its_language_hard_and_soft(name):
    model = load_model(MODELS / f"{name}.json")
    raw = spec.loads((MODELS / f"{name}.json").read_text())
    tau_text = raw.get("temperature") or "1/(4*n)"  # the spec's example ships without a schedule
    tau = parse_expr(tau_text, variables=("n",), allow_log=True)
    for word in all_words(model.alphabet, 5):
        want = INTENDED[name](word)
        hard = hard_run(model, word)
        assert list(hard.decisions) == want, word
        if name != "majority-a-b":  # the others end with an L-round FFN: Boolean outputs, exactly
            assert list(hard.outputs) == [int(b) for b in want], word
        soft = soft_run(model, word, tau)
        assert list(soft.decisions) == want, word
    with mpmath.workdps(60):
        for word in all_words(model.alphabet, 3):
            assert list(spec.run(raw, word).outputs) == list(hard_run(model, word).outputs)
            ref = spec.run(raw, word, tau_text, dps=60)
            for r, s in zip(ref.outputs, soft_run(model, word, tau).outputs):
                assert abs(r - s) < mpmath.mpf("1e-40")


def test_majority_is_exact_in_soft_mode_at_any_temperature():
    """Uniform attention: the soft model outputs (#a - #b)/i exactly, at tau = 1/1000 as at 1000."""
    model = load_model(MODELS / "majority-a-b.json")
    for t in ("1/1000", "1", "1000"):
        soft = soft_run(model, "abbab", parse_expr(t, variables=("n",)))
        with mpmath.workdps(60):
            want = [mpmath.mpf(p) / q for p, q in ((1, 1), (0, 2), (-1, 3), (0, 4), (-1, 5))]
            assert all(abs(s - w) < mpmath.mpf("1e-45") for s, w in zip(soft.outputs, want))


def test_bos_model_outputs_at_bos_when_asked_first(tmp_path):
    """Output position "first" with a BOS symbol is the BOS position 0 (model-format.md, Output)."""
    raw = json.loads((MODELS / "bos-first-a.json").read_text())
    raw["output"] = {"dim": "sym", "position": "first", "threshold": "1/2"}
    path = tmp_path / "bos-first.json"
    path.write_text(json.dumps(raw))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert certify_main(["run", str(path), "ab", "--json"]) == 0
    got = json.loads(out.getvalue())
    assert got["positions"] == [0]  # the BOS position
    assert (got["n"], got["outputs"], got["decisions"]) == (2, ["0"], [False])  # BOS has no 'sym' flag; position 1 would say 1

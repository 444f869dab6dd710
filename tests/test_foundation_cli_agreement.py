"""Done-when 1: ``certify run`` agrees with an independent implementation of the spec.

Random valid models (tests/model_strategies.py) are written to files and evaluated by
the CLI (``certify.cli.main``, the console script's entry point) and by
tests/independent_spec.py.  Hard outputs must be equal as exact rationals; mpmath soft
outputs within 1e-30 relative.  The soft comparison adds an absolute floor of 1e-40
times the largest stream entry: a value produced by cancellation (e.g. 1 - 1 + leakage)
is only known to the working precision times the size of what cancelled, and the
CLI prints 40 significant digits of a 60-digit computation.
"""
from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
import tempfile
from fractions import Fraction
from pathlib import Path

import mpmath
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from certify.cli import main as certify_main

sys.path.insert(0, str(Path(__file__).parent))
import independent_spec as spec  # noqa: E402
from model_strategies import models, temperatures, word_text, words  # noqa: E402

RATIONAL = re.compile(r"-?\d+(/\d+)?\Z")
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example])


def cli_json(model: dict, word, *options) -> dict:
    """Run ``certify run MODEL WORD --json OPTIONS`` in-process; the parsed JSON it prints."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.json"
        path.write_text(json.dumps(model))
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = certify_main(["run", str(path), word_text(model, word), "--json", *options])
    assert rc == 0, out.getvalue()
    return json.loads(out.getvalue())


def reference(model: dict, word, tau=None):
    """The independent evaluator on the model as a file would be read (exact decimals)."""
    return spec.run(spec.loads(json.dumps(model)), word, tau)


@settings(max_examples=50, **SETTINGS)
@given(st.data())
def test_hard_outputs_equal_the_independent_spec_exactly(data):
    model = data.draw(models())
    word = data.draw(words(model))
    got = cli_json(model, word)
    want = reference(model, word)
    assert got["n"] == len(word)
    assert all(RATIONAL.match(s) for s in got["outputs"]), got["outputs"]
    assert [Fraction(s) for s in got["outputs"]] == list(want.outputs)
    assert got["decisions"] == list(want.decisions)


def close(a, b, rel, floor) -> bool:
    return abs(a - b) <= rel * max(abs(a), abs(b)) + floor


@settings(max_examples=35, **SETTINGS)
@given(st.data())
def test_mpmath_soft_outputs_agree_with_the_independent_spec_to_1e_30(data):
    model = data.draw(models())
    word = data.draw(words(model))
    tau = data.draw(temperatures())
    got = cli_json(model, word, "--tau", tau)
    with mpmath.workdps(100):
        want = reference(model, word, tau)
        floor = mpmath.mpf("1e-40") * max(1, want.scale)
        values = [mpmath.mpf(s) for s in got["outputs"]]
        assert got["n"] == len(word)
        assert len(values) == len(want.outputs)
        for v, w in zip(values, want.outputs):
            assert close(v, w, mpmath.mpf("1e-30"), floor), (v, w)
        theta = spec.number(spec.loads(json.dumps(model))["output"]["threshold"])
        for v, d_got, d_want in zip(want.outputs, got["decisions"], want.decisions):
            if abs(v - mpmath.mpf(theta.numerator) / theta.denominator) > floor:
                assert d_got == d_want


def test_soft_output_strings_carry_40_significant_digits():
    """1/3 from a uniform average must print as a decimal good to 40 digits, not a float repr."""
    model = {"format": "hardsoft.model/1", "name": "third", "alphabet": ["a", "b"], "bos": None,
             "dims": ["a", "v"], "embed": {"token": {"a": {"a": 1}, "b": {}}},
             "layers": [{"type": "attention", "heads": [
                 {"name": "avg", "hard": "average", "visible": "j<=i", "score": [], "value": [["v", "a", 1]]}]}],
             "output": {"dim": "v", "position": "last", "threshold": "1/2"}}
    got = cli_json(model, "abb", "--tau", "1")
    assert abs(mpmath.mpf(got["outputs"][0]) - mpmath.mpf(1) / 3) < mpmath.mpf("1e-39")
    assert got["decisions"] == [False]
    assert cli_json(model, "abb")["outputs"] == ["1/3"]


def test_a_fresh_process_prints_the_same_json_as_the_in_process_cli():
    """``python -m certify.cli`` (what the console script calls) matches the in-process runs."""
    root = Path(__file__).parents[1]
    model = json.loads((root / "models" / "since-a-b.json").read_text())
    proc = subprocess.run([sys.executable, "-m", "certify.cli", "run", str(root / "models" / "since-a-b.json"),
                           "bac", "--tau", "1/(4*n)", "--json"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == cli_json(model, "bac", "--tau", "1/(4*n)")


@settings(max_examples=20, **SETTINGS)
@given(st.data())
def test_cli_float64_agrees_with_the_independent_spec_to_1e_9(data):
    model = data.draw(models(bounded=True, max_layers=2, coef_bound=2))
    word = data.draw(words(model))
    got = cli_json(model, word, "--tau", "1", "--precision", "float64")
    want = reference(model, word, "1")
    for s, w in zip(got["outputs"], want.outputs):
        assert abs(float(s) - float(w)) <= 1e-9 * max(1.0, float(want.scale)), (s, w)

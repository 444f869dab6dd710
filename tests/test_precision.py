"""Finite precision (issue 17): the format evaluator, the rounding-error kernel terms, certify --precision.

The soundness test runs every shipped model in float32 and bfloat16 on adversarial words at every
length its certified range reaches (capped by the test budget) and asserts that the format decides
as the exact hard model; benchmarks/precision_sweep.py is the full sweep.
"""
from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import ml_dtypes
import mpmath
import numpy as np
import pytest

from certify.expr import parse_expr, to_text
from hypothesis import given, settings, strategies as st

from certify.api import check_certificate, load_model
from certify.certifier import certify
from certify.cli import main
from certify.evaluate import float_run, hard_run, round_exact
from certify.kernel.checker import CheckFailure, check
from certify.kernel.rounding_error import FORMATS
from certify.precision import adversarial_words, certify_in_format, fmt_named

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted((ROOT / "models").glob("*.json")) + sorted((ROOT / "models/compiled").glob("*.json")) + \
    sorted((ROOT / "models/srasp").glob("*.json"))
# the default run takes the models that derive in seconds; the slow variant below takes all 24
SRASP = {p for p in SHIPPED if p.parent.name == "srasp"}
LIGHT = [p for p in SHIPPED if p not in SRASP and not any(w in p.stem for w in ("dyck", "induction", "ahat"))]
STORE = {"float64": np.float64, "float32": np.float32, "bfloat16": ml_dtypes.bfloat16, "float16": np.float16}


@settings(max_examples=60, deadline=None)
@given(st.fractions(min_value=-1000, max_value=1000, max_denominator=10**12), st.sampled_from(sorted(STORE)))
def test_constants_are_rounded_to_nearest(v, fmt):
    """|fl(v) − v| ≤ u|v| + λ, and no representable neighbour is nearer (round to nearest)."""
    r = round_exact([v], STORE[fmt])[0]
    err = abs(Fraction(float(r)) - v)
    u = Fraction(1, 2 ** FORMATS[fmt].bits)
    assert err <= u * abs(v) + Fraction(2) ** FORMATS[fmt].emin
    for side in (np.inf, -np.inf):
        other = np.nextafter(r, np.asarray(side, dtype=STORE[fmt]))
        if np.isfinite(other):
            assert abs(Fraction(float(other)) - v) >= err


@pytest.mark.parametrize("fmt", ["float64", "float32", "bfloat16", "float16"])
def test_exp_is_within_the_assumed_ulps(fmt):
    """Assumption 4 of docs/floating-point.md, measured on this numpy: exp within 4 ulps on y ≤ 0."""
    ys = np.linspace(-80 if fmt != "float16" else -9, 0, 2001).astype(STORE[fmt])
    if fmt in ("float64", "float32"):
        got = np.exp(ys)
    else:  # the evaluator's route: exp in float64, rounded to the format
        got = np.exp(ys.astype(np.float64)).astype(STORE[fmt])
    u = 2.0 ** -FORMATS[fmt].bits
    with mpmath.workdps(40):
        for y, g in zip(ys, got):
            exact = mpmath.exp(mpmath.mpf(float(y)))
            assert abs(mpmath.mpf(float(g)) - exact) <= 8 * u * exact + mpmath.mpf(2) ** FORMATS[fmt].emin


@pytest.mark.parametrize("fmt", ["float32", "bfloat16", "float16"])
def test_format_run_is_close_to_float64_on_small_words(fmt):
    model = load_model(ROOT / "models/since-a-b.json")
    for word in adversarial_words(model, 12):
        a, b = float_run(model, word, Fraction(1, 48), fmt), float_run(model, word, Fraction(1, 48), "float64")
        assert np.allclose(a.outputs, b.outputs, atol=0.05)


def test_float32_prefix_certificate_checks_and_a_tampered_precision_fails():
    """since-a-b at 79/(256n) (a cooler schedule than its derived one, whose float32 prefix is empty):
    float32 certifies a prefix of 1..10^5 (measured 18496), and names the failure."""
    model = load_model(ROOT / "models/since-a-b.json")
    p = certify_in_format(model, 1, 10**5, fmt_named("float32"), tau=parse_expr("79/(256*n)", variables=("n",)))
    assert p.n_certified is not None and p.failure is not None and p.n_certified < 10**5
    assert p.failure.n == p.n_certified + 1 and p.certificate["claim"]["n_max"] == p.n_certified
    assert "first head with a large error" in p.failure.obligation
    check(p.certificate, model)
    tampered = json.loads(json.dumps(p.certificate))
    tampered["claim"]["precision"]["format"] = "float64"
    with pytest.raises(CheckFailure):
        check(tampered, model)
    tampered = json.loads(json.dumps(p.certificate))
    tampered["claim"]["precision"]["significand_bits"] = 30
    with pytest.raises(CheckFailure):
        check(tampered, model)
    dropped = json.loads(json.dumps(p.certificate))  # the exact boxes differ from the format's
    del dropped["claim"]["precision"]
    with pytest.raises(CheckFailure):
        check(dropped, model)


def test_derive_in_a_format_goes_colder_than_the_exact_schedule(capsys):
    """since-a-b's derived exact τ = 23/(32n) leaves no margin for float32 (nothing certified); --derive in
    the format halves it until the whole range passes, and that certificate checks and is audited by runs."""
    model = load_model(ROOT / "models/since-a-b.json")
    exact = certify_in_format(model, 1, 1000, fmt_named("float32"), tau=parse_expr("23/(32*n)", variables=("n",)))
    assert exact.n_certified is None and exact.failure.n == 1
    p = certify_in_format(model, 1, 1000, fmt_named("float32"), derive=True)
    assert p.failure is None and p.n_certified == 1000 and p.certificate["claim"]["n_max"] == 1000
    assert p.tau != p.exact.tau and p.certificate["claim"]["tau"] == to_text(p.tau)
    check(p.certificate, model)
    for n in (1, 2, 5, 16):
        for word in adversarial_words(model, n):
            assert float_run(model, word, p.tau, "float32").decisions == hard_run(model, word).decisions
    rc = main(["models/since-a-b.json", "--nmax", "1000", "--derive", "--precision", "float32", "--json", "--quiet"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["tau"] == to_text(p.tau) and out["precision"]["n_max_certified"] == 1000


def test_cli_precision_json_and_exit_codes(capsys, tmp_path):
    rc = main(["models/since-a-b.json", "--nmax", "300", "--precision", "float64", "--json", "--quiet",
               "--tau", "1/(4*n)"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["verdict"] == "certified" and out["precision"]["n_max_certified"] == 300
    assert out["claim"]["precision"]["format"] == "float64"
    assert check_certificate(out["certificate"], ROOT / "models/since-a-b.json").valid
    plot = tmp_path / "bits.svg"
    rc = main(["precision", "models/since-a-b.json", "--n", "10,1e3", "--tau", "1/(4*n)", "--plot", str(plot),
               "--json", "--quiet"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and [r["n"] for r in out["lengths"]] == [10, 1000] and plot.stat().st_size > 0
    assert all(r["bits"] is not None and r["bits"] <= 53 for r in out["lengths"])
    assert out["lengths"][0]["bits"] <= out["lengths"][1]["bits"]
    assert main(["precision", "models/since-a-b.json", "--n", "0"]) == 3


def _no_flip(path, formats, lengths):
    model = load_model(path)
    if model.max_length is not None:
        pytest.skip("bounded (v2) models: --precision not available yet")
    exact = certify(model, 1, max(lengths))
    assert exact.verdict == "certified"
    for fmt in formats:
        # the S-RASP programs at their own τ: their halving search takes tens of minutes (README)
        p = certify_in_format(model, 1, max(lengths), fmt_named(fmt), exact.tau, derive=path not in SRASP)
        for n in (n for n in lengths if n <= (p.n_certified or 0)):
            for word in adversarial_words(model, n):
                assert float_run(model, word, p.tau, fmt).decisions == hard_run(model, word).decisions, \
                    (fmt, n, word)


@pytest.mark.parametrize("path", LIGHT, ids=lambda p: p.stem)
def test_no_flip_inside_a_certified_range(path):
    """Measured flips never occur inside a certified range: every shipped model, float32, n ≤ 4."""
    _no_flip(path, ("float32",), (1, 2, 4))


@pytest.mark.slow
@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_no_flip_inside_a_certified_range_longer(path):
    """The same for float64, float32, bfloat16 and float16 up to n = 32 (benchmarks/precision_sweep.py: all)."""
    _no_flip(path, ("float64", "float32", "bfloat16", "float16"), (1, 2, 3, 4, 5, 8, 12, 16, 24, 32))

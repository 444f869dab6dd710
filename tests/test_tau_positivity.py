"""τ(n) must be defined and positive at every length of a claim (issue 11): decided exactly."""
from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certify.errors import ExprError
from certify.expr import eval_exact, parse_expr
from certify.kernel.checker import CheckFailure, check
from certify.kernel.positivity import check_tau
from certify.certifier import certify
from certify.model import load_model

ROOT = Path(__file__).resolve().parent.parent
MAJORITY = ROOT / "models" / "majority-a-b.json"


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "certify.cli", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("tau, n, why", [("0", 1, "not positive"), ("-1", 1, "not positive"),
                                         ("0-n", 1, "not positive"), ("1/(n-5)", 1, "not positive"),
                                         ("(n-5)/(n-5)", 5, "undefined"), ("1/log(n)", 1, "undefined"),
                                         ("(n-3)^2", 3, "not positive")])
def test_bad_schedule_for_all_n_is_invalid_input_naming_n(tau, n, why):
    run = _cli(str(MAJORITY), "--nmax", "inf", "--tau", tau)
    assert run.returncode == 3, run.stdout + run.stderr
    assert run.stderr.count("\n") == 1 and "--tau" in run.stderr and f"{why} at n = {n}" in run.stderr


def test_bad_schedule_in_a_finite_range_is_invalid_input_too():
    run = _cli(str(MAJORITY), "--nmax", "100", "--tau", "1/(n-50)")
    assert run.returncode == 3 and "at n = 1" in run.stderr


def test_schedule_positive_from_n_min_on_certifies_and_checks():
    model = load_model(MAJORITY)
    outcome = certify(model, 6, "inf", tau=parse_expr("1/(n-5)", variables=("n",)))
    assert outcome.verdict == "certified"
    assert any(o["id"] == "tau" for o in outcome.certificate["obligations"])
    check(outcome.certificate, model)


def test_checker_rejects_an_unbounded_claim_whose_tau_fails():
    model = load_model(MAJORITY)
    cert = certify(model, 6, "inf", tau=parse_expr("1/(n-5)", variables=("n",))).certificate
    for bad in ("1/(n-7)", "0", "1/(n-5)*(n-9)/(n-9)"):
        cert["claim"]["tau"] = bad
        with pytest.raises(CheckFailure) as info:
            check(cert, model)
        assert info.value.item == "claim.tau"


def _brute(tau, lo: int, hi: int):
    """The first n in [lo, hi] where τ is undefined or ≤ 0, by exact evaluation (log-free τ)."""
    for n in range(lo, hi + 1):
        try:
            if not eval_exact(tau, {"n": n}) > 0:
                return n
        except ExprError:
            return n
    return None


coefficient = st.integers(-6, 6)
poly = st.lists(coefficient, min_size=1, max_size=4).map(
    lambda cs: " + ".join(f"({c})*n^{k}" for k, c in enumerate(cs)))


@settings(max_examples=150, deadline=None)
@given(num=poly, den=poly, lo=st.integers(1, 8))
def test_decision_matches_exact_evaluation(num, den, lo):
    tau = parse_expr(f"({num})/({den})", variables=("n",))
    finite = check_tau(tau, lo, 80)
    first = _brute(tau, lo, 80)
    assert finite.ok == (first is None) and finite.n == first
    unbounded = check_tau(tau, lo, "inf")
    if unbounded.ok:
        assert _brute(tau, lo, 400) is None
    else:
        assert unbounded.n is not None and _brute(tau, lo, unbounded.n) == unbounded.n


def test_log_schedules_of_the_shipped_shapes_are_decided():
    for text in ("1/(4*n)/log(n+2)", "41/(256*n^2*(n+1)*log(n+2))", "(n+1)^2/log(n+2)", "3/log(n+2)", "7"):
        assert check_tau(parse_expr(text, variables=("n",), allow_log=True), 1, "inf").ok, text
    assert check_tau(parse_expr("1/log(n+1)", variables=("n",), allow_log=True), 1, "inf").ok
    assert check_tau(parse_expr("1/log(n)", variables=("n",), allow_log=True), 2, "inf").ok
    assert check_tau(parse_expr("log(n-1)", variables=("n",), allow_log=True), 1, "inf").n == 1

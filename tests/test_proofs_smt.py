"""proofs/smt.py: the solver plumbing, the three backends and the second opinion."""
from fractions import Fraction

import pytest
import z3
from flint import arb
from hypothesis import given, settings
from hypothesis import strategies as st

from proofs import smt
from proofs.smt import BallValues, ExactValues, Query, SolverDisagreement, Z3Terms, second_opinion

UNSAT = "(set-logic QF_NRA)\n(declare-fun x () Real)\n(assert (< (* x x) 0.0))\n(check-sat)\n"
SAT = "(set-logic QF_NRA)\n(declare-fun x () Real)\n(assert (= (* x x) 2.0))\n(check-sat)\n"


def test_second_opinion_agrees_on_definite_answers():
    assert second_opinion(UNSAT) == "unsat"
    assert second_opinion(SAT) == "sat"


def test_second_opinion_accepts_linear_logic_without_set_logic():
    text = "(declare-const y Real)\n(assert (> y 1.0))\n(assert (< y 1.0))\n(check-sat)\n"
    assert second_opinion(text) == "unsat"


def test_disagreement_is_an_error_and_unknown_is_not(monkeypatch):
    monkeypatch.setattr(smt, "run_cvc5", lambda text, rlimit=0: "sat")
    with pytest.raises(SolverDisagreement):
        second_opinion(UNSAT)
    monkeypatch.setattr(smt, "run_cvc5", lambda text, rlimit=0: "unknown")
    assert second_opinion(UNSAT) == "unknown"


def test_rlimit_is_deterministic_and_yields_unknown():
    from proofs.lemmas import LEMMAS
    text = LEMMAS["L-layer"].queries[1].smt2()
    assert smt.run_z3(text, rlimit=1)[0] == smt.run_z3(text, rlimit=1)[0] == "unknown"
    assert smt.run_z3(text)[0] == "unsat"


def test_z3_never_receives_a_float():
    with pytest.raises(TypeError):
        Z3Terms.num(0.1)
    assert Z3Terms.num(Fraction(1, 10)).as_fraction() == Fraction(1, 10)


def test_ball_comparisons_are_three_valued():
    third = BallValues.num(Fraction(1, 3))
    assert BallValues.lt(third, Fraction(1, 2)) is True
    assert BallValues.lt(Fraction(1, 2), third) is False
    assert BallValues.eq(third, third) is None  # overlapping balls decide nothing
    assert BallValues.and_(True, None) is None and BallValues.and_(False, None) is False
    assert BallValues.implies(False, None) is True


@settings(max_examples=40, deadline=None)
@given(st.fractions(min_value=0, max_value=30, max_denominator=1000))
def test_taylor_exp_bounds_bracket_exp(x):
    e = (-(arb(x.numerator) / arb(x.denominator))).exp()
    lower, upper = smt.taylor_exp_neg(x, 7), smt.taylor_exp_neg(x, 8)
    assert BallValues.le(lower, e) is not False and BallValues.le(e, upper) is not False
    assert lower <= upper


def test_exp_abstraction_is_sound_in_z3():
    """The abstract e^{-x} can never be pushed outside the true value's certified bounds."""
    terms = Z3Terms()
    x = z3.Real("x")
    e = terms.exp_neg(x)
    s = z3.Solver()
    s.add(x == 1, *terms.side, z3.Or(e < z3.Q(367, 1000), e > z3.Q(368, 1000)))
    assert s.check() == z3.unsat  # e^{-1} = 0.36787...


def test_counterexample_needs_substitution_not_just_sat():
    """A statement whose Z3 abstraction admits a spurious model must not count as refuted."""
    spurious = Query("spurious", ("x",),
                     lambda B, v: ([B.eq(v["x"], 1)], B.ge(B.exp_neg(v["x"]), B.num(Fraction(36787, 100000)))),
                     uses_exp=True)
    out = smt.prove_query(spurious)
    assert out.verdict != "refuted"
    assert spurious.holds_at({"x": Fraction(1)}) is True
    assert ExactValues.relu(Fraction(-2)) == 0

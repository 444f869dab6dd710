"""Obligation builders the certifier calls: rounding instances, ziggurat and exp bounds,
and the refined vs coarse layer bound on a concrete head."""
from fractions import Fraction as F

import pytest
from flint import arb, ctx
from hypothesis import given, settings
from hypothesis import strategies as st

from certify.model import model_from_dict
from proofs.lemmas import (coarse_layer_bound, exp_neg_lower, exp_neg_upper, refined_head_bound,
                           rounding_obligation, ziggurat_bound)

SPEC_EXAMPLE = {
    "format": "hardsoft.model/1", "name": "since-a-b", "alphabet": ["a", "b", "c"], "bos": None,
    "dims": ["one", "a", "b", "p", "pos", "v", "out"],
    "embed": {"token": {"a": {"a": 1}, "b": {"b": 1, "p": 1}, "c": {"p": 1}},
              "position": {"one": "1", "pos": "i/n"}},
    "layers": [
        {"type": "attention", "heads": [
            {"name": "rightmost-p", "hard": "rightmost", "visible": "j<i",
             "score": [["one", "p", 1], ["one", "pos", "1/2"]], "value": [["v", "b", 1]]}]},
        {"type": "ffn", "hidden": [
            {"in": {"v": 2, "one": "-1/2"}, "out": {"out": 1}},
            {"in": {"v": 2, "one": "-3/2"}, "out": {"out": -1}}]}],
    "output": {"dim": "out", "position": "last", "threshold": "1/2"},
}


def _ffn(units):
    spec = dict(SPEC_EXAMPLE, layers=[{"type": "ffn", "hidden": units}])
    return model_from_dict(spec).layers[0]


def test_rounding_obligation_for_the_spec_example_holds_exactly_and_in_both_solvers():
    ffn = model_from_dict(SPEC_EXAMPLE).layers[1]
    ob = rounding_obligation(ffn, "v", "out", F(1, 4), F(3, 4))
    assert ob.check_exact() and ob.counterexample() is None
    assert ob.value(F(1, 4)) == 0 and ob.value(F(3, 4)) == 1 and ob.value(F(1, 2)) == F(1, 2)
    assert "(check-sat)" in ob.smt2 and ob.prove() == "unsat"


def test_rounding_obligation_refutes_a_too_weak_ffn_with_a_concrete_point():
    weak = _ffn([{"in": {"v": 1, "one": "-1/4"}, "out": {"out": 1}},
                 {"in": {"v": 1, "one": "-3/4"}, "out": {"out": -1}}])
    ob = rounding_obligation(weak, "v", "out", F(1, 4), F(3, 4))
    x = ob.counterexample()
    assert x is not None and x >= F(3, 4) and ob.value(x) != 1
    assert not ob.check_exact() and ob.prove() == "sat"


def test_rounding_obligation_catches_nonzero_slope_beyond_the_last_breakpoint():
    leaky = _ffn([{"in": {"v": 2, "one": "-1/2"}, "out": {"out": 1}},
                  {"in": {"v": 2, "one": "-3/2"}, "out": {"out": -1}},
                  {"in": {"v": -1}, "bias": -5, "out": {"out": 1}}])   # wakes up at v < -5
    ob = rounding_obligation(leaky, "v", "out", F(1, 4), F(3, 4))
    assert ob.counterexample() is not None and ob.counterexample() < -5
    assert ob.prove() == "sat"


def test_rounding_obligation_needs_context_for_other_dims():
    ffn = model_from_dict(SPEC_EXAMPLE).layers[1]
    with pytest.raises(ValueError):
        rounding_obligation(ffn, "v", "out", F(1, 4), F(3, 4), context={})
    general = rounding_obligation(ffn.units, "v", "out", F(1, 4), F(3, 4), context={"one": 1})
    assert general.check_exact()


def test_ziggurat_bound_is_the_exact_closed_form():
    assert ziggurat_bound(1, F(1, 5)) == F(1, 4)
    assert ziggurat_bound(2, F(1, 9)) == F(1, 4)
    assert ziggurat_bound(2, F(1, 2)) == 2
    with pytest.raises(ValueError):
        ziggurat_bound(1, F(1))


@settings(max_examples=50, deadline=None)
@given(st.fractions(min_value=-20, max_value=200, max_denominator=10**6))
def test_exp_neg_bounds_are_certified_by_disjoint_balls(x):
    lo, hi = exp_neg_lower(x), exp_neg_upper(x)
    assert isinstance(lo, F) and isinstance(hi, F) and lo < hi
    old, ctx.prec = ctx.prec, 300
    try:
        e = (-(arb(x.numerator) / arb(x.denominator))).exp()
        assert arb(lo.numerator) / arb(lo.denominator) < e < arb(hi.numerator) / arb(hi.denominator)
    finally:
        ctx.prec = old
    assert hi - lo <= hi * F(1, 2 ** 100)


def _ball(q):
    return arb(q.numerator) / arb(q.denominator)


def _soft_head_error_below(bound, scores, values, value_errors, inv_tau):
    """|ô − o| for a unique-max head with arb balls (4000 bits), and whether it is below ``bound``."""
    old, ctx.prec = ctx.prec, 4000
    try:
        s_max = max(scores)
        w = [(_ball(s - s_max) * _ball(inv_tau)).exp() for s in scores]
        z = sum(w, arb(0))
        o_hat = sum((wj * (_ball(v) + _ball(e)) for wj, v, e in zip(w, values, value_errors)), arb(0)) / z
        err = abs(o_hat - _ball(values[scores.index(s_max)]))
        return err, err < _ball(bound)
    finally:
        ctx.prec = old


def test_refined_bound_has_no_temperature_amplification_where_the_paper_form_does():
    """A head whose score reads only exact coordinates (position-type scores s_j = j, η = 0),
    unique max (D_M = 0), values carried with error ε = 1/100.  The refined bound stays put as
    1/τ grows; the paper's K·x_max·(n q + x_max ε/τ) grows linearly in 1/τ."""
    n, eps = 8, F(1, 100)
    scores = [F(j) for j in range(1, n + 1)]
    values = [F(j % 2) for j in range(1, n + 1)]
    errors = [eps * (-1) ** j for j in range(1, n + 1)]
    refined, coarse = [], []
    for inv_tau in (F(10), F(100), F(1000)):
        q = exp_neg_upper(inv_tau)                       # e^{-γ/τ}, γ = 1
        r = ziggurat_bound(1, q)                         # distinct integer scores: c = 1
        bound = refined_head_bound(nu=eps, eta=F(0), inv_tau=inv_tau, r=r, m=1, d_out=F(1), d_m=F(0))
        truth, below = _soft_head_error_below(bound, scores, values, errors, inv_tau)
        assert below and truth > _ball(eps / 2)      # the bound covers the truth, which is not trivial
        refined.append(bound)
        coarse.append(coarse_layer_bound(norm_S=F(1), norm_V=F(1), x_max=F(n), n=n, q=q, eps=eps, inv_tau=inv_tau))
    assert refined[2] <= refined[1] <= refined[0] <= eps + F(1, 10 ** 4)
    assert coarse[2] > 9 * coarse[1] > 81 * coarse[0]    # grows linearly with 1/τ
    assert all(c > 100 * r for c, r in zip(coarse[1:], refined[1:]))


def test_refined_bound_keeps_the_1_over_tau_term_when_it_is_needed():
    """η > 0 with unequal tied values (D_M > 0): the 2η/τ term must survive (no free lunch)."""
    small = refined_head_bound(nu=F(0), eta=F(1, 1000), inv_tau=F(10), r=F(0), m=2, d_out=F(1), d_m=F(1))
    large = refined_head_bound(nu=F(0), eta=F(1, 1000), inv_tau=F(1000), r=F(0), m=2, d_out=F(1), d_m=F(1))
    assert small == F(2, 100) and large == 2

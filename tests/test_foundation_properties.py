"""Done-when 3: hypothesis properties of the three evaluators (certify.evaluate).

* soft → hard as τ shrinks, on models whose every row has a unique maximum
  (theory.md L-gap: ‖softmax_τ − hardmax‖₁ ≤ 2n e^{−γ/τ}; γ ≥ 1/400 here, so at
  τ ≤ 1e-6 the leakage is below e^{−2500} and soft equals hard to the working precision);
* the float64 path is within 1e-9 of mpmath at τ = 1 with bounded scores;
* a uniform-score head (empty score list, average) is exact in soft mode at every τ
  (theory.md §1: all visible scores equal ⇒ softmax_τ = ahardmax).
Each property is also checked against tests/independent_spec.py where it is cheap.
"""
from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path

import mpmath
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from certify.evaluate import float_run, hard_run, soft_run
from certify.expr import parse_expr
from certify.model import model_from_dict

sys.path.insert(0, str(Path(__file__).parent))
import independent_spec as spec  # noqa: E402
from model_strategies import models, words  # noqa: E402

SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck))
WORKING = 100  # digits for the test's own comparisons: far beyond the evaluators' 60


def tau(text: str):
    return parse_expr(text, variables=("n",), allow_log=True)


def mpf(q):
    return mpmath.mpf(q.numerator) / q.denominator if hasattr(q, "denominator") else mpmath.mpf(q)


@settings(max_examples=30, **SETTINGS)
@given(st.data())
def test_soft_converges_to_hard_on_unique_maxima(data):
    with mpmath.workdps(WORKING):
        d = data.draw(models(heads="unique_max"))
        word = data.draw(words(d))
        model = model_from_dict(d)
        hard = hard_run(model, word)
        assert list(hard.outputs) == list(spec.run(spec.loads(json.dumps(d)), word).outputs)
        scale = max(1, max(abs(v) for v in hard.outputs))
        for t in ("1/1000000", "1/1000000000", "1/1000000000000"):
            soft = soft_run(model, word, tau(t))
            err = max(abs(mpf(s) - mpf(h)) for s, h in zip(soft.outputs, hard.outputs))
            assert err <= mpmath.mpf("1e-40") * scale, (t, err)
            assert list(soft.decisions) == list(hard.decisions) or any(
                abs(mpf(h) - mpf(model.output.threshold)) < mpmath.mpf("1e-30") for h in hard.outputs)


def test_soft_does_not_converge_to_unique_hard_on_ties():
    """Negative control: on a tie softmax → ahardmax, never to leftmost/rightmost (theory.md §1)."""
    with mpmath.workdps(WORKING):
        d = {"format": "hardsoft.model/1", "name": "tie", "alphabet": ["a", "b"], "bos": None, "dims": ["a", "v"],
             "embed": {"token": {"a": {"a": 1}, "b": {}}},
             "layers": [{"type": "attention", "heads": [
                 {"name": "left", "hard": "leftmost", "visible": "all", "score": [], "value": [["v", "a", 1]]}]}],
             "output": {"dim": "v", "position": "last", "threshold": "1/2"}}
        model = model_from_dict(d)
        assert hard_run(model, "ab").outputs == (1,)
        soft = soft_run(model, "ab", tau("1/1000000000000"))
        assert abs(mpf(soft.outputs[0]) - mpmath.mpf(1) / 2) < mpmath.mpf("1e-40")


@settings(max_examples=30, **SETTINGS)
@given(st.data())
def test_float64_within_1e_9_of_mpmath_at_tau_1(data):
    d = data.draw(models(bounded=True, max_layers=3, coef_bound=2))
    word = data.draw(words(d, max_size=12))
    model = model_from_dict(d)
    exact = soft_run(model, word, tau("1"))
    fast = float_run(model, word, tau("1"), "float64")
    scale = max([1.0] + [abs(float(v)) for v in exact.outputs])
    for f, m in zip(fast.outputs, exact.outputs):
        assert abs(float(f) - float(m)) <= 1e-9 * scale, (f, m)
    # the float32 path is the same computation with a coarser unit roundoff
    single = float_run(model, word, tau("1"), "float32")
    for f, m in zip(single.outputs, exact.outputs):
        assert abs(float(f) - float(m)) <= 1e-3 * scale, (f, m)


@settings(max_examples=25, **SETTINGS)
@given(st.data(), st.sampled_from(("1/1000", "1", "1000")))
def test_uniform_heads_are_exact_in_soft_mode_at_every_tau(data, t):
    with mpmath.workdps(WORKING):
        d = data.draw(models(heads="uniform"))
        word = data.draw(words(d))
        model = model_from_dict(d)
        hard = hard_run(model, word)
        soft = soft_run(model, word, tau(t))
        floor = mpmath.mpf("1e-40") * max(1, max(abs(v) for v in hard.outputs))
        for s, h in zip(soft.outputs, hard.outputs):
            assert abs(mpf(s) - mpf(h)) <= floor, (s, h)
        # a hard output exactly on the threshold is decided by the last digit mpmath rounds to
        # (6·(−7/3)/7 = −2 = θ comes out −1.99…9): decisions are compared off the threshold
        assert all(s == h for s, h, y in zip(soft.decisions, hard.decisions, hard.outputs)
                   if y != model.output.threshold)
        # and the independent reading agrees that soft == hard here
        ref = spec.run(spec.loads(json.dumps(d)), word, t)
        for r, h in zip(ref.outputs, hard.outputs):
            assert abs(r - mpf(h)) <= floor


def test_a_uniform_row_averages_as_its_exact_mean():
    """Softmax of equal scores is the uniform average at every τ; the soft evaluator divides the row by its
    total once, so 9 ones among 18 keys average to exactly 1/2 in mpmath (rounding each weight 1/18 first
    gave 1/2 + 1.6·10⁻⁶¹, deciding a hard output on θ = 1/2 by the last digit)."""
    d = {"format": "hardsoft.model/1", "name": "uniform-half", "alphabet": ["a", "b"], "bos": None,
         "dims": ["t_a", "t_b", "w"], "embed": {"token": {"a": {"t_a": 1}, "b": {"t_b": 1}}, "position": {}},
         "layers": [{"type": "attention", "heads": [{"name": "h", "hard": "average", "visible": "all",
                                                    "score": [], "value": [["w", "t_b", 1]]}]}],
         "output": {"dim": "w", "position": "last", "threshold": "1/2"}}
    model = model_from_dict(d)
    for word in ("b" * 9 + "a" * 9, "ab" * 9, "b" * 27 + "a" * 27):
        run = soft_run(model, tuple(word), Fraction(1, 1000), dps=60)
        assert run.outputs[-1] == mpmath.mpf(1) / 2 and run.decisions[-1] is False

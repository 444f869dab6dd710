"""The counterexample search's tie step (certify/refute.py): a word whose hard output sits exactly on θ refutes a
schedule only when soft really leaks it across, shown by an independent high-precision soft run; an exact tie
(soft = θ = hard in real arithmetic) never does, whatever the precision."""
from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest

from certify.certifier import CertifyConfig, certify
from certify.evaluate import hard_run, soft_run
from certify.expr import parse_expr
from certify.model import load_model
from certify.refute import RefuteConfig, _screened_short_words, threshold_refutation, tie_words

ROOT = Path(__file__).resolve().parent.parent
TIE = ROOT / "tests" / "fixtures" / "outside" / "tie-leaks-across.json"


def test_a_tie_that_leaks_across_is_refuted_by_a_word_an_independent_run_confirms():
    """Query c reads the c share of the odd keys; 3/8 rounds onto θ = 1/2.  The first such word has 16 symbols
    (eight odd keys), beyond the plain search's short words; its even keys, all c, leak upward at every τ."""
    model = load_model(TIE)
    outcome = certify(model, 1, 1000, cfg=CertifyConfig())
    assert outcome.verdict == "refuted", (outcome.verdict, outcome.reason)
    cex = outcome.counterexample
    word = tuple(cex.word)
    assert len(word) == cex.n >= 8
    hard = hard_run(model, word)
    row = cex.position - hard.first_position
    assert hard.outputs[hard.output_rows.index(row)] == model.output.threshold
    soft = soft_run(model, word, parse_expr(cex.tau, ("n",)), dps=1000)
    y = soft.outputs[hard.output_rows.index(row)]
    with mpmath.workdps(1000):
        gap = y - mpmath.mpf(1) / 2
        assert abs(gap) > mpmath.mpf(10) ** -400 and (gap > 0) != hard.decisions[hard.output_rows.index(row)]


def test_every_tie_word_has_its_hard_output_on_the_threshold():
    model = load_model(TIE)
    found = list(tie_words(model, 1, 40, RefuteConfig()))
    assert found
    for word, run, row in found:
        assert run.outputs[run.output_rows.index(row)] == model.output.threshold == hard_run(model, word).outputs[-1]


def test_an_exact_tie_is_never_refuted():
    """majority-a-b: every head uniform, #a = #b puts the output exactly on θ and soft = θ in real arithmetic;
    raising the precision only shrinks the rounding noise, which the noise guard 10^(−dps/2) never counts."""
    model = load_model(ROOT / "models" / "majority-a-b.json")
    cex, first = threshold_refutation(model, None, 1, 30, RefuteConfig(tie_work=50_000))
    assert cex is None and first is not None and "sits on the threshold" in first


def test_a_leaking_tie_among_exact_ties_is_found_at_the_lowest_precision():
    """A drawn model (seed 7 unbounded, 33rd): its first words on θ ('aaaabbb') are exact rows, which no precision
    resolves, and 'aaacbbb' leaks upward by ≈ 10⁻¹⁴ at τ = 1/(10n).  Every word is tried at the lowest precision
    before any is raised, and every word of length 7 is enumerated, so the leak is found."""
    model = load_model(ROOT / "tests" / "fixtures" / "outside" / "tie-among-exact-ties.json")
    exact = hard_run(model, tuple("aaaabbb"))
    assert exact.outputs[-1] == model.output.threshold
    with mpmath.workdps(80):
        assert abs(soft_run(model, tuple("aaaabbb"), Fraction(1, 70), dps=80).outputs[-1] - mpmath.mpf(1) / 2) < mpmath.mpf(10) ** -60
    outcome = certify(model, 1, 1000, cfg=CertifyConfig())
    assert outcome.verdict == "refuted", (outcome.verdict, outcome.reason)
    word = tuple(outcome.counterexample.word)
    soft = soft_run(model, word, parse_expr(outcome.counterexample.tau, ("n",)), dps=200)
    with mpmath.workdps(200):
        assert soft.outputs[-1] - mpmath.mpf(1) / 2 > mpmath.mpf(10) ** -50
    assert hard_run(model, word).outputs[-1] == model.output.threshold and not hard_run(model, word).decisions[-1]


@pytest.mark.parametrize("path", [TIE, ROOT / "tests" / "fixtures" / "outside" / "tie-among-exact-ties.json",
                                  ROOT / "models" / "majority-a-b.json"])
def test_the_float_screen_keeps_every_short_word_on_the_threshold(path):
    """The tie search runs the exact evaluator only on the short words the numpy screen keeps; every word whose
    exact hard output is on θ must be among them (the screen proposes, the exact run decides)."""
    model = load_model(path)
    words = [w for n in range(1, 8) for w in itertools.product(model.alphabet, repeat=n)]
    kept = set(_screened_short_words(model, 1, 24, RefuteConfig(tie_exhaustive=len(words))))
    on_theta = {w for w in words if model.output.threshold in hard_run(model, w).outputs}
    assert on_theta and on_theta <= kept
    assert len(kept) < len(words)  # it screens: the clear words are dropped

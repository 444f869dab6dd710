"""Position expressions mean the same to certify and to the independent reading of the grammar.

Texts are drawn without redundant parentheses (``-i^2``, ``2*n-i/3``, ``(-1)^i*i``), so
precedence and associativity are exercised: ``^`` binds tighter than unary minus, which
binds tighter than ``* /``, which bind tighter than ``+ -``; all binary operators are
left-associative.  Values are compared exactly, through a model whose output is the PE
itself at every position.
"""
from __future__ import annotations

import re
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certify.errors import UserError
from certify.evaluate import hard_run
from certify.model import model_from_dict

sys.path.insert(0, str(Path(__file__).parent))
import independent_spec as spec  # noqa: E402


def pe_model(text: str, bos: bool) -> dict:
    return {"format": "hardsoft.model/1", "name": "pe", "alphabet": ["a"], "bos": "B" if bos else None,
            "dims": ["p"], "embed": {"token": {"a": {}, "B": {}} if bos else {"a": {}}, "position": {"p": text}},
            "layers": [], "output": {"dim": "p", "position": "all", "threshold": 0}}


ATOMS = st.sampled_from(["i", "n", "1", "2", "3", "0.5", "1.25", "(-1)^i", "7"])


def flat_expressions():
    """Grammar texts with only the parentheses the grammar needs."""
    power = st.builds(lambda a, k: f"{a}^{k}", st.sampled_from(["i", "n", "2", "(i+1)", "(n-i)"]),
                      st.integers(0, 4))
    unary = st.one_of(ATOMS, power, power.map(lambda p: "-" + p), ATOMS.map(lambda a: "-" + a))
    return st.recursive(unary, lambda inner: st.one_of(
        st.builds(lambda a, op, b: f"{a}{op}{b}", inner, st.sampled_from(["+", "-", "*", "/"]), inner),
        inner.map(lambda e: f"({e})")), max_leaves=6)


def certify_values(text: str, n: int, bos: bool):
    """The PE at every input position of a word of length n, "undefined" where certify says so — or
    ("rejected", i, m): the loader refuses a PE undefined at some row i of another length m."""
    try:
        model = model_from_dict(pe_model(text, bos))
    except UserError as exc:
        where = re.search(r"undefined at i=(\d+), n=(\d+)", str(exc))
        return ("rejected", int(where[1]), int(where[2])) if where else "undefined"
    try:
        return list(hard_run(model, "a" * n).outputs)
    except UserError:
        return "undefined"


def spec_values(text: str, n: int, bos: bool):
    e = spec.parse(text)
    try:
        return [spec.evaluate(e, {"i": i, "n": n}) for i in range(0 if bos else 1, n + 1)][1 if bos else 0:]
    except ZeroDivisionError:
        return "undefined"


@settings(max_examples=150, deadline=None)
@given(flat_expressions(), st.integers(1, 5), st.booleans())
def test_expression_values_agree_exactly(text, n, bos):
    ours = certify_values(text, n, bos)
    if isinstance(ours, tuple):  # rejected at load: the spec must find the PE undefined where certify says
        with pytest.raises((ZeroDivisionError, ValueError)):
            spec.evaluate(spec.parse(text), {"i": ours[1], "n": ours[2]})
        return
    assert ours == spec_values(text, n, bos), text


def test_a_position_embedding_undefined_at_another_length_is_rejected_where_it_is_undefined():
    """i/(i−2) is −1 at n = 1 but undefined at row 2 of every longer word: the loader names that row."""
    assert certify_values("i/(i-2)", 1, False) == ("rejected", 2, 2)


@pytest.mark.parametrize("text, values", [
    ("-i^2", [-1, -4, -9]),
    ("2-i^2", [1, -2, -7]),
    ("-(-1)^i", [1, -1, 1]),
    ("12/i/2", [6, 3, 2]),
    ("10-i-1", [8, 7, 6]),
    ("(2^3)^2", [64, 64, 64]),
    ("0.1*i", [Fraction(1, 10), Fraction(2, 10), Fraction(3, 10)]),
])
def test_precedence_and_associativity(text, values):
    assert certify_values(text, 3, False) == values
    assert spec_values(text, 3, False) == values

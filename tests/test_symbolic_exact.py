"""The exact re-checker of sympy identities (symbolic/exact.py) and the AST converter."""
from fractions import Fraction

import pytest
import sympy as sp

from certify.errors import UserError
from certify.expr import parse_expr
from symbolic.convert import rational, to_sympy
from symbolic.exact import from_ast, from_sympy, identical, monomial_form
from symbolic.recursion import a, b, derive_recursion, ell


def test_closed_form_passes_induction_and_a_wrong_one_fails():
    rec = derive_recursion(4)
    assert all(s.ok for s in rec.steps)
    closed = rec.closed
    assert identical(closed.subs(ell, ell + 1), a + b * closed)
    wrong = a * b**ell / (b + 1) - a / (b + 1)          # negative control
    assert not identical(wrong.subs(ell, ell + 1), a + b * wrong)
    assert identical(rec.increment, a * b**ell)
    assert not identical(rec.increment, a * b ** (ell + 1))


def test_float_is_refused_and_atoms_are_opaque():
    x = sp.Symbol("x")
    with pytest.raises(ValueError):
        from_sympy(sp.Float(0.1) * x)
    assert identical(sp.exp(x) * 2 - sp.exp(x), sp.exp(x))
    assert not identical(sp.exp(x), sp.exp(2 * x) / sp.exp(x) + 1)


def test_ast_conversion_is_exact():
    e = parse_expr("(n+1)^2/n - 1/2", ("n",))
    r = from_ast(e)
    for n in (1, 2, 7):
        assert r.num.evaluate({"n": n}) / r.den.evaluate({"n": n}) == Fraction((n + 1) ** 2, n) - Fraction(1, 2)
    n = sp.Symbol("n")
    assert sp.simplify(to_sympy(e, {"n": n}) - ((n + 1) ** 2 / n - sp.Rational(1, 2))) == 0
    assert monomial_form(from_ast(parse_expr("3/n^2", ("n",)))) == (Fraction(3), -2)
    assert monomial_form(from_ast(parse_expr("1/(n+1)", ("n",)))) is None


def test_rational_arguments():
    assert rational("1/4", "delta") == Fraction(1, 4)
    assert rational("0.1", "K") == Fraction(1, 10)
    with pytest.raises(UserError):
        rational("abc", "K")

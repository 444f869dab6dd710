"""Exact facts about expressions: substitution, degree bounds, identity tests.

An expression built from rationals, variables, ``+ - * /`` and integer powers is
a rational function.  If the numerator has degree at most d in each variable,
it is identically zero as soon as it vanishes on a grid of (d+1)^k points where
every denominator is non-zero (a polynomial of degree ≤ d in each of k variables
that vanishes on S_1×…×S_k with |S_v| > d is zero).  So identities are decided
by exact ``Fraction`` evaluation at finitely many points — no sympy, no floats.
"""
from __future__ import annotations

import itertools
from fractions import Fraction

from ..errors import ExprError
from ..expr import AltSign, BinOp, Expr, Log, Neg, Num, Pow, Var, eval_exact


def substitute(e: Expr, name: str, value: Expr) -> Expr:
    if isinstance(e, Var):
        return value if e.name == name else e
    if isinstance(e, BinOp):
        return BinOp(e.op, substitute(e.left, name, value), substitute(e.right, name, value))
    if isinstance(e, Neg):
        return Neg(substitute(e.arg, name, value))
    if isinstance(e, Pow):
        return Pow(substitute(e.base, name, value), e.exponent)
    if isinstance(e, Log):
        return Log(substitute(e.arg, name, value))
    if isinstance(e, AltSign) and e.var == name:
        raise ExprError("cannot substitute into (-1)^var")
    return e


def degrees(e: Expr, var: str) -> tuple[int, int] | None:
    """(numerator, denominator) degree bounds in ``var``; None if not rational."""
    if isinstance(e, Num):
        return 0, 0
    if isinstance(e, Var):
        return (1, 0) if e.name == var else (0, 0)
    if isinstance(e, (AltSign, Log)):
        return None
    if isinstance(e, Neg):
        return degrees(e.arg, var)
    if isinstance(e, Pow):
        d = degrees(e.base, var)
        return None if d is None else (d[0] * e.exponent, d[1] * e.exponent)
    a, b = degrees(e.left, var), degrees(e.right, var)
    if a is None or b is None:
        return None
    if e.op in "+-":
        return max(a[0] + b[1], b[0] + a[1]), a[1] + b[1]
    if e.op == "*":
        return a[0] + b[0], a[1] + b[1]
    return a[0] + b[1], a[1] + b[0]


def is_zero(e: Expr, names: tuple[str, ...] = ("n",), start: int = 1000) -> bool:
    """True iff ``e`` is identically zero as a rational function of ``names``."""
    bounds = []
    for v in names:
        d = degrees(e, v)
        if d is None:
            return False
        bounds.append(d[0])
    for shift in range(0, 50 * 7919, 7919):  # retry on a grid that avoids poles
        grids = [range(start + shift, start + shift + d + 1) for d in bounds]
        try:
            return all(eval_exact(e, dict(zip(names, point))) == 0 for point in itertools.product(*grids))
        except ExprError:
            continue
    return False


def integer_polynomial_degree(e: Expr, var: str = "n") -> int | None:
    """If ``e`` is an integer-valued polynomial in ``var`` (for integer ``var``), its degree bound.

    Proof: interpolate through d+1 consecutive integers; the difference with the
    interpolant is zero (``is_zero``); integer values at d+1 consecutive integers
    make a degree-d polynomial integer-valued everywhere (binomial basis).
    """
    d = degrees(e, var)
    if d is None:
        return None
    deg = d[0]
    points = list(range(1, deg + 2))
    try:
        values = [eval_exact(e, {var: k}) for k in points]
    except ExprError:
        return None
    if any(v.denominator != 1 for v in values):
        return None
    if not is_zero(BinOp("-", e, _interpolant(points, values, var)), (var,)):
        return None
    return deg


def _interpolant(points: list[int], values: list[Fraction], var: str) -> Expr:
    """Lagrange form of the interpolating polynomial, as an expression."""
    total: Expr = Num(Fraction(0))
    for k, (xk, yk) in enumerate(zip(points, values)):
        term: Expr = Num(yk)
        for m, xm in enumerate(points):
            if m != k:
                term = BinOp("*", term, BinOp("/", BinOp("-", Var(var), Num(Fraction(xm))), Num(Fraction(xk - xm))))
        total = BinOp("+", total, term)
    return total


def affine_in(e: Expr, var: str) -> tuple[Expr, Expr] | None:
    """Write ``e`` as ``slope*var + offset`` with slope, offset free of ``var``; None if not affine."""
    d = degrees(e, var)
    if d is None or "i" in _altsign_vars(e):
        return None
    at0 = substitute(e, var, Num(Fraction(0)))
    at1 = substitute(e, var, Num(Fraction(1)))
    slope = BinOp("-", at1, at0)
    line = BinOp("+", BinOp("*", slope, Var(var)), at0)
    others = tuple(sorted({"i", "n"} - {var}))
    if not is_zero(BinOp("-", e, line), (var,) + others):
        return None
    return slope, at0


def _altsign_vars(e: Expr) -> set[str]:
    if isinstance(e, AltSign):
        return {e.var}
    if isinstance(e, BinOp):
        return _altsign_vars(e.left) | _altsign_vars(e.right)
    if isinstance(e, (Neg, Log)):
        return _altsign_vars(e.arg)
    if isinstance(e, Pow):
        return _altsign_vars(e.base)
    return set()

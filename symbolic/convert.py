"""Our expression AST (certify.expr) to sympy, and back for the schedule.

User text is never handed to ``sympify``: it is parsed by certify.expr and the
tree is rebuilt here node by node, so sympy sees exactly the expression the
grammar allows (model-format.md, "Expressions").
"""
from __future__ import annotations

from fractions import Fraction

import sympy

from certify.errors import UserError
from certify.expr import AltSign, Expr, Log, Neg, Num, Pow, Var, parse_expr


def parse_in_n(text: str, what: str) -> Expr:
    """Parse a --gamma/--xmax value: a rational expression in n (no log)."""
    try:
        return parse_expr(text, variables=("n",))
    except UserError as e:
        raise UserError(f"--{what}: {e}") from None


def to_sympy(e: Expr, symbols: dict[str, sympy.Symbol]):
    if isinstance(e, Num):
        return sympy.Rational(e.value.numerator, e.value.denominator)
    if isinstance(e, Var):
        return symbols[e.name]
    if isinstance(e, Neg):
        return -to_sympy(e.arg, symbols)
    if isinstance(e, Pow):
        return to_sympy(e.base, symbols) ** e.exponent
    if isinstance(e, Log):
        return sympy.log(to_sympy(e.arg, symbols))
    if isinstance(e, AltSign):
        return sympy.Integer(-1) ** symbols[e.var]
    left, right = to_sympy(e.left, symbols), to_sympy(e.right, symbols)
    return {"+": lambda: left + right, "-": lambda: left - right,
            "*": lambda: left * right, "/": lambda: left / right}[e.op]()


def rational(text: str, what: str) -> Fraction:
    """An exact rational from the command line ("1/4", "3", "0.25" = 1/4 exactly)."""
    try:
        return Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise UserError(f"--{what}: expected an exact rational like 1/4, got {text!r}") from None

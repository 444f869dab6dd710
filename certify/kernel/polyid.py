"""Exact facts about expressions: substitution, normal forms, identity tests, ball values.

An expression built from rationals, variables, ``+ - * /`` and integer powers is
a rational function.  python-flint's exact multivariate polynomials over Q put it
in lowest terms P/Q (gcd cancelled), so an identity is P = 0 and degrees are
exact — no sympy, no floats, no sampling.
"""
from __future__ import annotations

import itertools
from functools import lru_cache
from fractions import Fraction

from flint import arb, fmpq, fmpq_mpoly_ctx

from ..errors import ExprError
from ..expr import AltSign, BinOp, Expr, Log, Neg, Num, Pow, Var

Poly = tuple  # coefficients of a polynomial in n, lowest degree first (Fractions)


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
        if isinstance(value, Num) and value.value.denominator == 1:  # (-1)^k at an integer k: ±1
            return Num(Fraction(-1 if value.value.numerator % 2 else 1))
        raise ExprError("cannot substitute into (-1)^var")
    return e


def normal_form(e: Expr, names: tuple[str, ...]):
    """(P, Q) in lowest terms (python-flint multivariate polynomials over Q, Q ≠ 0) with e = P/Q as
    rational functions of ``names``; None for log, (-1)^i, other variables or a zero divisor."""
    ctx = fmpq_mpoly_ctx.get(tuple(names), "lex")
    return _normal(e, ctx, tuple(names))


def _normal(e: Expr, ctx, names: tuple[str, ...]):
    if isinstance(e, Num):
        return ctx.constant(fmpq(e.value.numerator, e.value.denominator)), ctx.constant(1)
    if isinstance(e, Var):
        return (ctx.gens()[names.index(e.name)], ctx.constant(1)) if e.name in names else None
    if isinstance(e, Neg):
        r = _normal(e.arg, ctx, names)
        return None if r is None else (-r[0], r[1])
    if isinstance(e, Pow):
        r = _normal(e.base, ctx, names)
        return None if r is None else (r[0] ** e.exponent, r[1] ** e.exponent)
    if not isinstance(e, BinOp):
        return None
    a, b = _normal(e.left, ctx, names), _normal(e.right, ctx, names)
    if a is None or b is None:
        return None
    if e.op in "+-":
        num = a[0] * b[1] + b[0] * a[1] if e.op == "+" else a[0] * b[1] - b[0] * a[1]
        return _lowest(num, a[1] * b[1])
    if e.op == "*":
        return _lowest(a[0] * b[0], a[1] * b[1])
    if b[0].is_zero():
        return None
    return _lowest(a[0] * b[1], a[1] * b[0])


def simplified(e: Expr, names: tuple[str, ...] = ("i", "n")) -> Expr:
    """``e`` rewritten as P/Q in lowest terms (the same rational function), or ``e`` itself."""
    normal = normal_form(e, names)
    if normal is None:
        return e
    lead = normal[1].leading_coefficient()
    num, den = (_poly_expr(p / lead, names) for p in normal)  # a monic denominator
    return num if (normal[1] / lead).is_one() else BinOp("/", num, den)


def _poly_expr(p, names: tuple[str, ...]) -> Expr:
    total: Expr | None = None
    for monomial, coef in zip(p.monoms(), p.coeffs()):
        factors = [Var(name) if k == 1 else Pow(Var(name), int(k)) for name, k in zip(names, monomial) if k]
        c = Fraction(int(coef.p), int(coef.q))
        term: Expr = Num(c) if not factors or c not in (1, -1) else factors.pop(0)
        for factor in factors:
            term = BinOp("*", term, factor)
        if c == -1 and monomial != (0,) * len(names):
            term = Neg(term)
        total = term if total is None else BinOp("+", total, term)
    return total if total is not None else Num(Fraction(0))


def _lowest(num, den):
    g = num.gcd(den)
    if not g.is_zero() and not g.is_one():
        num, den = num / g, den / g
    return num, den


def is_zero(e: Expr, names: tuple[str, ...] = ("n",)) -> bool:
    """True iff ``e`` is identically zero as a rational function of ``names``."""
    normal = normal_form(e, names)
    return normal is not None and normal[0].is_zero()


def degree(e: Expr, var: str, names: tuple[str, ...]) -> tuple[int, int] | None:
    """Exact (numerator, denominator) degrees in ``var`` of e in lowest terms; None if not rational."""
    normal = normal_form(e, names)
    if normal is None:
        return None
    k = names.index(var)
    return tuple(max(p.degrees()[k], 0) for p in normal)


def integer_polynomial(e: Expr, names: tuple[str, ...] = ("n",)) -> bool:
    """True iff ``e`` is a polynomial taking integer values at all integer points.

    P/Q with Q constant has exact degree d_v in each variable; integer values on the grid of
    d_v + 1 consecutive integers per variable make every coefficient in the tensor binomial
    basis an integer: integer-valued everywhere."""
    normal = normal_form(e, names)
    if normal is None or not normal[1].is_constant():
        return False
    num, scale = normal[0], normal[1].leading_coefficient()
    axes = [range(1, d + 2) for d in num.degrees()]
    return all((num(*map(fmpq, point)) / scale).denominator == 1 for point in itertools.product(*axes))


def affine_in(e: Expr, var: str) -> tuple[Expr, Expr] | None:
    """Write ``e`` as ``slope*var + offset`` with slope, offset free of ``var``; None if not affine."""
    deg = degree(e, var, ("i", "n"))
    if deg is None or deg[0] > 1 or deg[1] > 0:
        return None
    at0 = substitute(e, var, Num(Fraction(0)))
    return BinOp("-", substitute(e, var, Num(Fraction(1))), at0), at0


def univariate(e: Expr, var: str = "n") -> tuple[Poly, Poly] | None:
    """(P, Q) coefficient lists with e = P/Q in lowest terms, Q monic; None if not rational in ``var``."""
    normal = normal_form(e, (var,))
    if normal is None:
        return None
    lead = normal[1].leading_coefficient()
    return tuple(_coefficients(p / lead) for p in normal)


def _coefficients(p) -> Poly:
    out = [Fraction(0)] * (max(p.degrees()[0], -1) + 1)
    for (k,), c in zip(p.monoms(), p.coeffs()):
        out[int(k)] = Fraction(int(c.p), int(c.q))
    return tuple(out)


@lru_cache(maxsize=65536)
def _cached_form(e: Expr):
    return univariate(e, "n")


def ball_of(e: Expr, n):
    """Ball value at n (a ball): through P/Q in lowest terms when rational, which avoids
    most interval dependency (n − (n − 1) is 1, not a wide ball)."""
    r = _cached_form(e)
    if r is None:
        from ..expr import eval_ball

        return eval_ball(e, {"n": n})
    return _horner(r[0], n) / _horner(r[1], n)


def _horner(p: Poly, n):
    """P(n) in balls; for n > 0 as P₊(n) − P₋(n) with both parts increasing, evaluated at the box's
    ends (on wide boxes of n the derivative bound of plain Horner loses the sign of n³ + n², say)."""
    if not n > 0:
        return _plain_horner(p, n)
    plus = tuple(max(c, Fraction(0)) for c in p)
    minus = tuple(max(-c, Fraction(0)) for c in p)
    lo, hi = n.lower(), n.upper()
    split = (_plain_horner(plus, lo) - _plain_horner(minus, hi)).union(_plain_horner(plus, hi) - _plain_horner(minus, lo))
    plain = _plain_horner(p, n)
    return split if split.rad() < plain.rad() else plain  # both enclose P(n); keep the tighter


def _plain_horner(p: Poly, n):
    acc = arb(0)
    for c in reversed(p):
        acc = acc * n + arb(fmpq(c.numerator, c.denominator))
    return acc

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
from functools import lru_cache
from fractions import Fraction

from flint import fmpq, fmpq_mpoly_ctx

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
        factors = [Var(name) if k == 1 else Pow(Var(name), k) for name, k in zip(names, monomial) if k]
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


def is_zero(e: Expr, names: tuple[str, ...] = ("n",), start: int = 1000) -> bool:
    """True iff ``e`` is identically zero as a rational function of ``names``."""
    normal = normal_form(e, names)
    if normal is not None:
        return normal[0].is_zero()
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


def integer_polynomial(e: Expr, names: tuple[str, ...] = ("n",)) -> bool:
    """True iff ``e`` is a polynomial taking integer values at all integer points.

    With the exact normal form P/Q (Q constant): P has degree d_v in each variable, so integer values
    on the grid of d_v + 1 consecutive integers per variable make every coefficient in the tensor
    binomial basis an integer: integer-valued everywhere.  Otherwise, with degree bounds d_v, interpolate on the tensor grid of
    d_v + 1 consecutive integers per variable; ``e`` minus the interpolant is zero
    (``is_zero``) and the grid values are integers, so in the tensor binomial basis
    every coefficient is an integer: integer-valued everywhere.
    """
    normal = normal_form(e, names)
    if normal is not None:  # exact degrees: integer values on the grid suffice
        num, den = normal
        if not den.is_constant():
            return False
        axes = [range(1, d + 2) for d in num.degrees()]
        scale = den.leading_coefficient()
        return all((num(*map(fmpq, point)) / scale).denominator == 1 for point in itertools.product(*axes))
    bounds = [degrees(e, v) for v in names]
    if any(d is None for d in bounds):
        return False
    axes = [list(range(1, d[0] + 2)) for d in bounds]
    interp: Expr = Num(Fraction(0))
    for point in itertools.product(*axes):
        try:
            value = eval_exact(e, dict(zip(names, point)))
        except ExprError:
            return False
        if value.denominator != 1:
            return False
        term: Expr = Num(value)
        for v, x, axis in zip(names, point, axes):
            for y in axis:
                if y != x:
                    term = BinOp("*", term, BinOp("/", BinOp("-", Var(v), Num(Fraction(y))), Num(Fraction(x - y))))
        interp = BinOp("+", interp, term)
    return is_zero(BinOp("-", e, interp), names)


def affine_in(e: Expr, var: str) -> tuple[Expr, Expr] | None:
    """Write ``e`` as ``slope*var + offset`` with slope, offset free of ``var``; None if not affine."""
    d = degrees(e, var)
    if d is None:  # not a rational function (log or (-1)^i inside)
        return None
    at0 = substitute(e, var, Num(Fraction(0)))
    at1 = substitute(e, var, Num(Fraction(1)))
    slope = BinOp("-", at1, at0)
    line = BinOp("+", BinOp("*", slope, Var(var)), at0)
    others = tuple(sorted({"i", "n"} - {var}))
    if not is_zero(BinOp("-", e, line), (var,) + others):
        return None
    return slope, at0


# ---------------------------------------------------------------- rational functions of n

Poly = tuple  # coefficients, lowest degree first, Fractions, no trailing zeros


def _trim(p: list) -> Poly:
    while p and p[-1] == 0:
        p.pop()
    return tuple(p)


def _padd(a: Poly, b: Poly, sign: int = 1) -> Poly:
    return _trim([x + sign * y for x, y in itertools.zip_longest(a, b, fillvalue=Fraction(0))])


def _pmul(a: Poly, b: Poly) -> Poly:
    if not a or not b:
        return ()
    out = [Fraction(0)] * (len(a) + len(b) - 1)
    for j, x in enumerate(a):
        for k, y in enumerate(b):
            out[j + k] += x * y
    return _trim(out)


def _pdivmod(a: Poly, b: Poly) -> tuple[Poly, Poly]:
    rem, quo = list(a), [Fraction(0)] * max(1, len(a) - len(b) + 1)
    while len(rem) >= len(b) and rem:
        shift, factor = len(rem) - len(b), rem[-1] / b[-1]
        quo[shift] = factor
        for k, c in enumerate(b):
            rem[k + shift] -= factor * c
        rem = list(_trim(rem))
    return _trim(quo), tuple(rem)


def _pgcd(a: Poly, b: Poly) -> Poly:
    while b:
        a, b = b, _pdivmod(a, b)[1]
    return tuple(c / a[-1] for c in a) if a else (Fraction(1),)


def rational_form(e: Expr, var: str = "n") -> tuple[Poly, Poly] | None:
    """(P, Q) with e = P/Q in lowest terms and Q monic, for log-free expressions in one variable."""
    if isinstance(e, Num):
        return ((e.value,) if e.value else ()), (Fraction(1),)
    if isinstance(e, Var):
        return ((Fraction(0), Fraction(1)), (Fraction(1),)) if e.name == var else None
    if isinstance(e, (AltSign, Log)):
        return None
    if isinstance(e, Neg):
        r = rational_form(e.arg, var)
        return None if r is None else (tuple(-c for c in r[0]), r[1])
    if isinstance(e, Pow):
        r = rational_form(e.base, var)
        p, q = (Fraction(1),), (Fraction(1),)
        for _ in range(e.exponent if r is not None else 0):
            p, q = _pmul(p, r[0]), _pmul(q, r[1])
        return None if r is None else _reduce(p, q)
    a, b = rational_form(e.left, var), rational_form(e.right, var)
    if a is None or b is None:
        return None
    if e.op in "+-":
        return _reduce(_padd(_pmul(a[0], b[1]), _pmul(b[0], a[1]), 1 if e.op == "+" else -1), _pmul(a[1], b[1]))
    if e.op == "*":
        return _reduce(_pmul(a[0], b[0]), _pmul(a[1], b[1]))
    if not b[0]:
        return None
    return _reduce(_pmul(a[0], b[1]), _pmul(a[1], b[0]))


def _reduce(p: Poly, q: Poly) -> tuple[Poly, Poly]:
    if not p:
        return (), (Fraction(1),)
    g = _pgcd(p, q)
    p, q = _pdivmod(p, g)[0], _pdivmod(q, g)[0]
    lead = q[-1]
    return tuple(c / lead for c in p), tuple(c / lead for c in q)


@lru_cache(maxsize=65536)
def _cached_form(e: Expr):
    return rational_form(e, "n")


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
    from flint import arb, fmpq

    acc = arb(0)
    for c in reversed(p):
        acc = acc * n + arb(fmpq(c.numerator, c.denominator))
    return acc

"""Readable forms of expressions in n: rational functions in lowest terms.

Used only to make certificates and schedules readable.  Nothing here is trusted:
the kernel accepts a simplified expression only after an exact identity test
(:func:`certify.kernel.polyid.is_zero`) against the one it derived.
"""
from __future__ import annotations

from fractions import Fraction

from .expr import AltSign, BinOp, Expr, Log, Neg, Num, Pow, Var
from .kernel.polyid import degrees, is_zero
from .expr import variables_of

Poly = tuple  # coefficients, lowest degree first, Fractions, no trailing zeros


def _trim(p: list) -> Poly:
    while p and p[-1] == 0:
        p.pop()
    return tuple(p)


def _padd(a: Poly, b: Poly, sign: int = 1) -> Poly:
    out = [Fraction(0)] * max(len(a), len(b))
    for k, c in enumerate(a):
        out[k] += c
    for k, c in enumerate(b):
        out[k] += sign * c
    return _trim(out)


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
        if r is None:
            return None
        p, q = (Fraction(1),), (Fraction(1),)
        for _ in range(e.exponent):
            p, q = _pmul(p, r[0]), _pmul(q, r[1])
        return _reduce(p, q)
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


def simplify(e: Expr, var: str = "n") -> Expr:
    """An equal, readable expression: rational parts in lowest terms, integer coefficients."""
    r = rational_form(e, var)
    if r is None:
        if isinstance(e, BinOp):
            return BinOp(e.op, simplify(e.left, var), simplify(e.right, var))
        if isinstance(e, Log):
            return Log(simplify(e.arg, var))
        return e
    p, q = r
    scale = Fraction(_lcm_den(p + q))
    content = _gcd_num([c * scale for c in p + q])
    p = tuple(c * scale / content for c in p)
    q = tuple(c * scale / content for c in q)
    num, den = _poly_expr(p, var), _poly_expr(q, var)
    if q == (Fraction(1),):
        return num
    return BinOp("/", num, den)


def _lcm_den(cs) -> int:
    from math import lcm

    return lcm(*(c.denominator for c in cs)) if cs else 1


def _gcd_num(cs) -> Fraction:
    from math import gcd

    g = 0
    for c in cs:
        g = gcd(g, c.numerator)
    return Fraction(g or 1)


def _poly_expr(p: Poly, var: str) -> Expr:
    if not p:
        return Num(Fraction(0))
    terms = []
    for k in range(len(p) - 1, -1, -1):
        c = p[k]
        if c == 0:
            continue
        mono: Expr | None = None if k == 0 else Var(var) if k == 1 else Pow(Var(var), k)
        if mono is None:
            terms.append(Num(c))
        elif c == 1:
            terms.append(mono)
        else:
            terms.append(BinOp("*", Num(c), mono))
    out = terms[0]
    for t in terms[1:]:
        if isinstance(t, Num) and t.value < 0:
            out = BinOp("-", out, Num(-t.value))
        elif isinstance(t, BinOp) and isinstance(t.left, Num) and t.left.value < 0:
            out = BinOp("-", out, BinOp("*", Num(-t.left.value), t.right) if t.left.value != -1 else t.right)
        else:
            out = BinOp("+", out, t)
    return out


def readable(e: Expr) -> Expr:
    """``simplify`` where an identity test confirms it; the original elsewhere."""
    if degrees(e, "n") is not None and "i" not in variables_of(e):
        s = simplify(e)
        return s if is_zero(BinOp("-", e, s), ("n",)) else e
    if isinstance(e, BinOp):
        return BinOp(e.op, readable(e.left), readable(e.right))
    if isinstance(e, Log):
        return Log(readable(e.arg))
    return e

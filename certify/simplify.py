"""Readable forms of expressions in n: rational functions in lowest terms.

Used only to make certificates and schedules readable.  Nothing here is trusted:
the kernel accepts a simplified expression only after an exact identity test
(:func:`certify.kernel.polyid.is_zero`) against the one it derived.
"""
from __future__ import annotations

from fractions import Fraction

from .expr import BinOp, Expr, Log, Num, Pow, Var
from .kernel.polyid import Poly, is_zero, univariate
from .expr import variables_of

def simplify(e: Expr, var: str = "n") -> Expr:
    """An equal, readable expression: rational parts in lowest terms, integer coefficients."""
    r = univariate(e, var)
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
    if "i" not in variables_of(e) and univariate(e) is not None:
        s = simplify(e)
        return s if is_zero(BinOp("-", e, s), ("n",)) else e
    if isinstance(e, BinOp):
        return BinOp(e.op, readable(e.left), readable(e.right))
    if isinstance(e, Log):
        return Log(readable(e.arg))
    return e

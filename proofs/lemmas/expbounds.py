"""Certified rational bounds for e^{−x}, for obligations that need a number, not a formula.

Why: certificates compare exact rationals, so every exp must be replaced by a rational
that is provably on the right side.  The bound is read off an arb enclosure of e^{−x}
(python-flint, outward-rounded) and then re-verified: the returned Fraction, turned
back into a ball, must be disjoint from and on the correct side of the enclosure.
"""
from __future__ import annotations

from fractions import Fraction

from flint import arb, ctx

PRECISION = 128  # bits; the bounds are within about 2^-120 (relative) of e^{-x}


def _enclosure(x: Fraction):
    return (-(arb(x.numerator) / arb(x.denominator))).exp()


def _dyadic(value: arb) -> Fraction:
    mantissa, exponent = value.mid().man_exp()
    return Fraction(int(mantissa)) * Fraction(2) ** int(exponent)


def _bound(x: Fraction, upper: bool) -> Fraction:
    x = Fraction(x)
    old = ctx.prec
    ctx.prec = PRECISION
    try:
        e = _enclosure(x)
        edge = e.upper() if upper else e.lower()
        candidate = _dyadic(arb(edge))
        slack = Fraction(1, 2 ** (PRECISION - 8)) * candidate
        candidate = candidate + slack if upper else candidate - slack
        ball = arb(candidate.numerator) / arb(candidate.denominator)
        ok = (ball > e) if upper else (ball < e)
    finally:
        ctx.prec = old
    if not ok:  # pragma: no cover - arb enclosures are outward-rounded
        raise ArithmeticError(f"could not certify an exp bound at x = {x}")
    return candidate


def exp_neg_upper(x: Fraction) -> Fraction:
    """A rational U with e^{−x} < U, certified by disjoint arb balls."""
    return _bound(x, upper=True)


def exp_neg_lower(x: Fraction) -> Fraction:
    """A rational L with L < e^{−x} (L may be ≤ 0 only if e^{−x} underflows 2^-120 scale)."""
    return _bound(x, upper=False)

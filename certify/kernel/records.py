"""Canonical rendering of kernel results, shared by the certifier and the checker.

The checker recomputes every recorded number and compares the *rendering*, so a
certificate in which any number was nudged no longer matches.  Upper bounds are
rounded up and lower bounds down, so a recorded number is always on the safe side
of the ball it renders.
"""
from __future__ import annotations

from fractions import Fraction

from flint import arb

from ..expr import to_text
from .bounds import BoxReport
from .structure import HeadFact

DIGITS = 12


def _exact(x: arb) -> Fraction:
    mantissa, exponent = x.man_exp()
    return Fraction(int(mantissa)) * (Fraction(2) ** int(exponent))


TINY = arb(10) ** -300  # magnitudes below this are recorded as 1e-300 (upper) or 0 (lower)


def upper(x: arb) -> str:
    """A decimal ≥ every point of the ball (the ball's upper end rounded up)."""
    end = x.upper()
    if abs(end) < TINY:
        return "1e-300" if end > 0 else "0"
    return _decimal(_exact(end), up=True)


def lower(x: arb) -> str:
    """A decimal ≤ every point of the ball."""
    end = x.lower()
    if abs(end) < TINY:
        return "0" if end >= 0 else "-1e-300"
    return _decimal(_exact(end), up=False)


def _decimal(v: Fraction, up: bool) -> str:
    """DIGITS significant digits, rounded outward; plain for moderate magnitudes, else ``…e±k``."""
    if v == 0:
        return "0"
    mag = abs(v)
    exp10 = (mag.numerator.bit_length() - mag.denominator.bit_length()) * 30103 // 100000
    while Fraction(10) ** exp10 > mag:
        exp10 -= 1
    while Fraction(10) ** (exp10 + 1) <= mag:
        exp10 += 1
    shift = exp10 - DIGITS + 1
    scaled = mag / Fraction(10) ** shift
    q, r = divmod(scaled.numerator, scaled.denominator)
    if r and up == (v > 0):
        q += 1
    q = q if v > 0 else -q
    if -20 <= exp10 <= 20:
        return _plain(Fraction(q) * Fraction(10) ** shift)
    return f"{q}e{shift}"


def _plain(v: Fraction) -> str:
    """An exact decimal string for a Fraction whose denominator divides a power of 10."""
    sign = "-" if v < 0 else ""
    v = abs(v)
    k = 0
    while (v * 10**k).denominator != 1:
        k += 1
    digits = str((v * 10**k).numerator).rjust(k + 1, "0")
    text = digits if k == 0 else f"{digits[:-k]}.{digits[-k:]}"
    return sign + text


def head_record(fact: HeadFact, render=to_text) -> dict:
    """The certificate's entry for a head; ``render`` may rewrite expressions into equal readable ones."""
    record = {"layer": fact.layer, "head": fact.head.name, "kind": fact.kind, "lemma": fact.lemma}
    if fact.kind == "ziggurat":
        record.update({"step": render(fact.step), "offsets": [render(b) for b in fact.offsets],
                       "ties_excluded": len(fact.ties_apart)})
    if fact.kind == "gap":
        if fact.score_grid is not None:
            record.update({"score_grid": render(fact.score_grid)})
        else:
            record.update({"delta_key": render(fact.delta_key), "homogeneous": fact.homogeneous,
                           "query": "constant" if fact.query_coord is None else "grid-or-finite"})
    return record


def box_record(report: BoxReport) -> dict:
    return {
        "n": [report.lo, report.hi],
        "tau_lower": lower(report.tau),
        "leak_upper": {h.name: upper(h.leak) for h in report.heads},
        "error_upper": upper(report.err),
        "margin_lower": lower(report.margin),
        "exact": bool(report.err.is_zero()),
    }


def structural_margin(model, st) -> str:
    """min |y − θ| over the output's finite value set, or 0 when it is not finite."""
    coord = st.coords[-1][model.output.dim]
    if coord.fin is None:
        return "0"
    return _plain_fraction(min(abs(v - model.output.threshold) for v in coord.fin))


def _plain_fraction(v: Fraction) -> str:
    return _decimal(v, up=False)

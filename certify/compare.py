"""Soft versus hard on one word at one temperature: do their decisions agree, and by how much do
the outputs differ?

Why a float64 path with an mpmath fallback: the critical-temperature search evaluates
thousands of (word, τ) pairs at n up to a few thousand, where mpmath costs minutes per word.
float64 decides a pair only when every output's *clearance* (its distance from changing the
decision: |y − θ|, or top − runner-up for an argmax output) exceeds ``float_noise`` — far
above float64's rounding of these models' outputs — and otherwise the pair is re-evaluated in
mpmath at ``dps`` digits.  In mpmath a soft output within ``mp_noise`` of the boundary counts
as *not agreeing* (the soft model does not decide it reliably) unless the hard output lies
exactly on the boundary too.  Hard outputs are always exact.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .evaluate import Run, float_run, format_value, soft_run
from .model import Model

PRECISIONS = ("float64", "mp")


@dataclass(frozen=True)
class CompareConfig:
    dps: int = 50
    float_noise: float = 1e-7
    mp_noise: Fraction = Fraction(1, 10**30)


@dataclass(frozen=True)
class Comparison:
    """One word at one τ: the first output position where the decisions differ (None: all agree)."""

    agree: bool
    precision: str  # the number system that decided: "float64", or "mp" (asked for, or float64 was too close)
    error: float  # max over output positions (and argmax dims) of |soft − hard|
    position: int | None = None
    hard: str | None = None
    soft: str | None = None


def clearance(model: Model, y) -> float | object:
    """How far an output is from changing its decision (0 on an argmax tie)."""
    if model.output.argmax:
        top, second = sorted(y, reverse=True)[:2]
        return top - second
    theta = model.output.threshold
    return abs(y - (theta if isinstance(y, Fraction) else _num(y, theta)))


def _num(y, v: Fraction):
    """``v`` in the number type of ``y`` (mpmath or float)."""
    if isinstance(y, float):
        return float(v)
    import mpmath

    return mpmath.mpf(v.numerator) / v.denominator


def _difference(h, s) -> float:
    if isinstance(h, tuple):
        return max(_difference(a, b) for a, b in zip(h, s))
    return float(abs(s - _num(s, h)))


def compare(model: Model, word, hard: Run, tau, precision: str = "float64",
            cfg: CompareConfig = CompareConfig()) -> Comparison:
    """Compare the soft run at ``tau`` with the given exact hard run of ``word``."""
    if precision == "float64":
        soft = float_run(model, word, tau, "float64")
        if all(clearance(model, y) > cfg.float_noise for y in soft.outputs):
            return _verdict(model, hard, soft, "float64", lambda y: True)
    import mpmath

    soft = soft_run(model, word, tau, dps=cfg.dps)  # a float or an mpf, converted exactly
    with mpmath.workdps(cfg.dps):
        noise = _num(mpmath.mpf(0), cfg.mp_noise)
        return _verdict(model, hard, soft, "mp", lambda y: clearance(model, y) > noise)


def _verdict(model: Model, hard: Run, soft: Run, precision: str, decided) -> Comparison:
    error = max(_difference(h, s) for h, s in zip(hard.outputs, soft.outputs))
    for row, h, s, hd, sd in zip(hard.output_rows, hard.outputs, soft.outputs, hard.decisions, soft.decisions):
        # a soft output within rounding noise of the boundary agrees only with a hard output exactly on it
        # (e.g. uniform heads, whose soft output equals the hard one and differs only by rounding)
        differs = hd != sd if decided(s) else clearance(model, h) != 0
        if differs:
            return Comparison(False, precision, error, row + hard.first_position, format_value(h), _text(s))
    return Comparison(True, precision, error)


def _text(y) -> str:
    if isinstance(y, tuple):
        return "[" + ", ".join(_text(v) for v in y) + "]"
    import mpmath

    return mpmath.nstr(y, 15) if isinstance(y, mpmath.mpf) else repr(float(y))

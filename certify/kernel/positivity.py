"""τ(n) is defined and positive at every integer length n of a range — decided exactly.

A claim "soft = hard at τ(n) for n ≤ n_max" is void where τ(n) ≤ 0 or τ(n) is undefined
(a pole, a log of a non-positive number), and for n_max = ∞ no box of the cover ever
evaluates τ.  So the kernel proves positivity itself (issue 11): τ is written as
R(n)·Π log(X_k(n))^p_k with R, X_k rational, and every division, every log argument and
every factor's sign becomes a polynomial condition — "P(n) ≠ 0" or "P(n) > 0" for every
integer n in [lo, hi].  Such a condition can first fail only at lo or at the integer just
above a real root of P, and python-flint encloses every complex root rigorously, so
finitely many exact evaluations decide it.  A condition that fails names a length n where
τ itself is then evaluated to say whether it is undefined or not positive there.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import lcm

from flint import arb, fmpz_poly

from ..errors import ExprError
from ..expr import BinOp, Expr, Log, Neg, Num, Pow, Var, eval_ball, eval_exact, has_log
from .polyid import univariate

MAX_CANDIDATES = 10_000  # integers tried near one root enclosure before giving up (undecided)


@dataclass(frozen=True)
class TauVerdict:
    ok: bool  # proved: defined and > 0 at every integer n of the range
    n: int | None = None  # when not ok: a length where τ is undefined or not positive (None: undecided)
    why: str = ""


@dataclass(frozen=True)
class _Factors:
    rational: Expr  # R(n)
    logs: tuple[tuple[Expr, int], ...]  # (X(n), p): a factor log(X)^p


def check_tau(tau: Expr, n_min: int, n_max) -> TauVerdict:
    """Decide τ(n) > 0 (and defined) for every integer n in [n_min, n_max] (n_max may be "inf")."""
    hi = None if n_max == "inf" else int(n_max)
    conditions: list[tuple[Expr, str]] = []
    form = _factor(tau, conditions)
    if form is None:
        return TauVerdict(False, why="τ(n) is not of the form R(n)·Π log(X(n))^p with R, X rational in n")
    conditions.append((form.rational, "positive"))
    for x, p in _merged(form.logs):
        if p % 2:
            conditions.append((BinOp("-", x, Num(Fraction(1))), "positive"))  # log X > 0
        elif p:
            conditions.append((BinOp("-", x, Num(Fraction(1))), "nonzero"))  # log X ≠ 0
    failures = [_first_failure(expr, kind, n_min, hi) for expr, kind in conditions]
    found = [n for n in failures if isinstance(n, int)]
    if found:  # a real witness, even when another condition is undecided (e.g. R = P/0 after a 0 divisor)
        return TauVerdict(False, min(found), _describe(tau, min(found)))
    if "undecided" in failures:
        return TauVerdict(False, why="cannot decide the sign of τ(n) on the integers of the range")
    return TauVerdict(True)


def _describe(tau: Expr, n: int) -> str:
    try:
        value = eval_exact(tau, {"n": n}) if not has_log(tau) else eval_ball(tau, {"n": arb(n)})
    except ExprError:
        return "undefined"
    return "not positive" if not value > 0 else "not positive (a factor changes sign)"


def _factor(e: Expr, conditions: list) -> _Factors | None:
    """The factor form of ``e``, appending the conditions under which ``e`` is defined."""
    if isinstance(e, Num) or isinstance(e, Var) and e.name == "n":
        return _Factors(e, ())
    if isinstance(e, Neg):
        f = _factor(e.arg, conditions)
        return None if f is None else _Factors(Neg(f.rational), f.logs)
    if isinstance(e, Pow):
        f = _factor(e.base, conditions)
        if f is None:
            return None
        if e.exponent < 0:
            _nonzero(f, conditions)
        return _Factors(Pow(f.rational, e.exponent), tuple((x, p * e.exponent) for x, p in f.logs))
    if isinstance(e, Log):
        f = _factor(e.arg, conditions)
        if f is None or f.logs:
            return None
        conditions.append((f.rational, "positive"))
        return _Factors(Num(Fraction(1)), ((f.rational, 1),))
    if not isinstance(e, BinOp):
        return None
    a, b = _factor(e.left, conditions), _factor(e.right, conditions)
    if a is None or b is None:
        return None
    if e.op in "+-":
        return None if a.logs or b.logs else _Factors(BinOp(e.op, a.rational, b.rational), ())
    if e.op == "*":
        return _Factors(BinOp("*", a.rational, b.rational), a.logs + b.logs)
    _nonzero(b, conditions)
    return _Factors(BinOp("/", a.rational, b.rational), a.logs + tuple((x, -p) for x, p in b.logs))


def _nonzero(f: _Factors, conditions: list) -> None:
    conditions.append((f.rational, "nonzero"))
    conditions.extend((BinOp("-", x, Num(Fraction(1))), "nonzero") for x, _ in f.logs)


def _merged(logs) -> list[tuple[Expr, int]]:
    """Equal log arguments (same rational function) collected, exponents added."""
    out: list[tuple[Expr, int, tuple]] = []
    for x, p in logs:
        key = univariate(x)
        for k, (y, q, ykey) in enumerate(out):
            if ykey == key:
                out[k] = (y, q + p, ykey)
                break
        else:
            out.append((x, p, key))
    return [(x, p) for x, p, _ in out]


def _first_failure(e: Expr, kind: str, lo: int, hi: int | None):
    """The least integer n in [lo, hi] where R(n) = P/Q violates ``kind`` (Q ≠ 0 is required too),
    None if there is none, or "undecided".  If the least failure n* is above lo, some root r of
    Q or of the condition's polynomial lies in (n* − 1, n*]: n* is within 1 of r's enclosure."""
    form = univariate(e)
    if form is None:
        return "undecided"
    num, den = (_integer_poly(p) for p in form)
    polys = [den] + ([num * den] if kind == "positive" else [num])
    candidates = {lo}
    for p in polys:
        if p.degree() <= 0:
            continue
        for root, _mult in p.complex_roots():
            if not root.imag.contains(0):
                continue
            a = int(root.real.lower().floor().unique_fmpz()) - 1
            b = int(root.real.upper().ceil().unique_fmpz()) + 1
            if b - a > MAX_CANDIDATES:
                return "undecided"
            candidates.update(range(max(a, lo), b + 1))
    for n in sorted(c for c in candidates if c >= lo and (hi is None or c <= hi)):
        if den(n) == 0 or (num(n) * den(n) <= 0 if kind == "positive" else num(n) == 0):
            return n
    return None


def _integer_poly(coeffs) -> fmpz_poly:
    scale = lcm(*(Fraction(c).denominator for c in coeffs)) if coeffs else 1
    return fmpz_poly([int(Fraction(c) * scale) for c in coeffs])


def positive_from(e: Expr, lo: int) -> bool:
    """R(n) > 0 (and defined) at every integer n ≥ lo, for rational R — decided exactly (the tail's facts)."""
    return _first_failure(e, "positive", lo, None) is None


def nonzero_from(e: Expr, lo: int) -> bool:
    """R(n) ≠ 0 (and defined) at every integer n ≥ lo."""
    return _first_failure(e, "nonzero", lo, None) is None

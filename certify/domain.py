"""Where a position embedding is defined, decided exactly for every length n ≥ 1.

Why this exists: a PE such as ``1/(i-1)`` loads, evaluates fine on many words and
then fails (or, in floats, silently yields ``inf``) at i = 1.  A model is a claim
about every n, so ``validate-model`` must find such a point before any work — and
sampling or floats can miss it (``1/(i - 1000)`` is fine for n < 1000).

An expression is undefined at (i, n) exactly when one of its divisors is zero there
(or is itself undefined, which again means an inner divisor is zero).  Written as
P/Q without cancelling, a divisor is zero or undefined exactly where P = 0, so the
question is: does some P have an integer zero with first ≤ i ≤ n, n ≥ 1 (first = 0
with BOS, else 1)?  ``(-1)^i`` is replaced by +1 (i even) and −1 (i odd) in turn.
Each irreducible factor F of P (python-flint, exact over Z) is decided by:

* F univariate of degree ≥ 2: irreducible over Q, so no rational (hence no integer) root;
* F of degree 1 in one variable x, F = A(y)·x + B(y), gcd(A, B) = 1: x = −B(y)/A(y).
  If A is not constant, A(y) divides the resultant Res(A, B) ≠ 0, which bounds |y|;
  if A = a is constant, the wedge conditions are polynomial inequalities in y whose
  signs are constant beyond a Cauchy root bound, and integrality and parity of x
  repeat with period 2|a| — so in both cases a finite range of y decides it;
* F with all coefficients of one sign and a monomial free of i: non-zero for i ≥ 0, n ≥ 1.

A factor outside these classes (degree ≥ 2 in both variables and of mixed sign) is
scanned exactly for n ≤ ``SCAN_N`` only; so is a factor whose finite range above
exceeds ``MAX_RANGE`` lengths.  Beyond those, such a PE is undefined only where the
evaluators and the kernel's balls say so at run time (their errors name i and n).
"""
from __future__ import annotations

import itertools
from fractions import Fraction
from functools import lru_cache
from math import ceil

from flint import fmpz_mpoly_ctx

from .errors import ExprError
from .expr import AltSign, BinOp, Expr, Neg, Num, Pow, Var, eval_exact

SCAN_N = 64
MAX_RANGE = 200_000
UNDECIDED = "undecided"  # a factor none of the rules above decides (then the exact scan to SCAN_N runs)
_CTX = fmpz_mpoly_ctx.get(("i", "n"), "lex")


def first_undefined(e: Expr, first: int) -> tuple[int, int] | None:
    """An (i, n) with first ≤ i ≤ n, n ≥ 1 where ``e`` is undefined (the smallest n the
    factor analysis meets), or None when it is defined everywhere it was decided."""
    return _first_undefined(e, first)


@lru_cache(maxsize=4096)
def _first_undefined(e: Expr, first: int) -> tuple[int, int] | None:
    divisors = list(_divisors(e))
    if not divisors:
        return None
    cases = ((1, 0), (-1, 1)) if _has_altsign(e) else ((None, None),)
    found, undecided = [], False
    for sign, parity in cases:
        for d in divisors:
            numerator = _numerator(d, sign)
            if numerator.is_zero():  # identically zero divisor: undefined at the first position
                found.append(_first_point(first, parity))
                continue
            for factor, _multiplicity in numerator.factor()[1]:
                point = _factor_zero(factor, first, parity)
                undecided |= point is UNDECIDED
                if point not in (None, UNDECIDED):
                    found.append(point)
    if undecided:
        found.append(_scan(e, first))
    witnesses = [p for p in found if p is not None and _undefined_at(e, *p)]
    return min(witnesses, key=lambda p: (p[1], p[0])) if witnesses else None


def _first_point(first: int, parity: int | None) -> tuple[int, int] | None:
    i = first if parity is None or first % 2 == parity else first + 1
    return (i, max(i, 1))


def _undefined_at(e: Expr, i: int, n: int) -> bool:
    try:
        eval_exact(e, {"i": i, "n": n})
    except ExprError:
        return True
    return False


def _divisors(e: Expr):
    if isinstance(e, BinOp):
        yield from _divisors(e.left)
        yield from _divisors(e.right)
        if e.op == "/":
            yield e.right
    elif isinstance(e, (Neg, Pow)):
        yield from _divisors(e.arg if isinstance(e, Neg) else e.base)


def _has_altsign(e: Expr) -> bool:
    if isinstance(e, AltSign):
        return True
    if isinstance(e, BinOp):
        return _has_altsign(e.left) or _has_altsign(e.right)
    if isinstance(e, (Neg, Pow)):
        return _has_altsign(e.arg if isinstance(e, Neg) else e.base)
    return False


def _numerator(e: Expr, sign: int | None):
    """P of e = P/Q with nothing cancelled, as an integer polynomial in (i, n)."""
    return _fraction(e, sign)[0]


def _fraction(e: Expr, sign: int | None):
    if isinstance(e, Num):
        return _CTX.constant(e.value.numerator), _CTX.constant(e.value.denominator)
    if isinstance(e, Var):
        return _CTX.gens()[("i", "n").index(e.name)], _CTX.constant(1)
    if isinstance(e, AltSign):
        return _CTX.constant(sign), _CTX.constant(1)
    if isinstance(e, Neg):
        p, q = _fraction(e.arg, sign)
        return -p, q
    if isinstance(e, Pow):
        p, q = _fraction(e.base, sign)
        return p ** e.exponent, q ** e.exponent
    (a, b), (c, d) = _fraction(e.left, sign), _fraction(e.right, sign)
    if e.op == "+":
        return a * d + c * b, b * d
    if e.op == "-":
        return a * d - c * b, b * d
    if e.op == "*":
        return a * c, b * d
    return a * d, b * c


def _factor_zero(factor, first: int, parity: int | None):
    """A zero of the factor in the wedge, None when it has none, or UNDECIDED."""
    terms = {tuple(int(k) for k in m): int(c) for m, c in factor.to_dict().items()}
    deg_i = max(m[0] for m in terms)
    deg_n = max(m[1] for m in terms)
    if deg_i == 0 and deg_n == 0:
        return None
    if (deg_i == 0 and deg_n >= 2) or (deg_n == 0 and deg_i >= 2):
        return None  # irreducible of degree >= 2 over Q: no rational root
    if deg_i == 1:
        return _solve_linear(terms, 0, first, parity)
    if deg_n == 1:
        return _solve_linear(terms, 1, first, parity)
    return None if _one_signed(terms) else UNDECIDED


def _one_signed(terms: dict) -> bool:
    signs = {c > 0 for c in terms.values()}
    return len(signs) == 1 and any(m[0] == 0 for m in terms)


def _scan(e: Expr, first: int) -> tuple[int, int] | None:
    """The first undefined point with n <= SCAN_N, by exact evaluation (for factors not decided above)."""
    for n in range(1, SCAN_N + 1):
        for i in range(first, n + 1):
            if _undefined_at(e, i, n):
                return (i, n)
    return None


def _solve_linear(terms: dict, x: int, first: int, parity: int | None):
    """Integer zeros of A(y)·x + B(y) in the wedge; x is the variable of index ``x`` (0 = i, 1 = n)."""
    y = 1 - x
    A = _poly({m[y]: c for m, c in terms.items() if m[x] == 1})
    B = _poly({m[y]: c for m, c in terms.items() if m[x] == 0})
    y_min = 1 if y == 1 else first
    ranges = [range(y_min, _divisor_bound(A, B) + 1)] if len(A) > 1 else _constant_a_ranges(A[0], B, x, first, y_min)
    if sum(max(0, r.stop - r.start) for r in ranges) > MAX_RANGE:  # len() overflows past 2^63
        return UNDECIDED
    for v in itertools.chain(*ranges):
        a = _value(A, v)
        if a == 0:
            continue
        xv = Fraction(-_value(B, v), a)
        if xv.denominator != 1:
            continue
        i, n = (int(xv), v) if x == 0 else (v, int(xv))
        if first <= i <= n and n >= 1 and (parity is None or i % 2 == parity):
            return (i, n)
    return None


def _poly(coeffs: dict) -> list[int]:
    degree = max(coeffs, default=0)
    return [coeffs.get(k, 0) for k in range(degree + 1)]


def _value(p: list, v: int) -> int:
    acc = 0
    for c in reversed(p):
        acc = acc * v + c
    return acc


def _divisor_bound(A: list, B: list) -> int:
    """|y| beyond which |A(y)| > |Res(A, B)|, so A(y) cannot divide B(y)."""
    from flint import fmpz_poly

    res = abs(int(fmpz_poly(A).resultant(fmpz_poly(B)))) if len(B) > 1 or B[0] else 1
    lead, rest = abs(A[-1]), sum(abs(c) for c in A[:-1])
    return ceil(Fraction(rest + res + 1, lead))


def _constant_a_ranges(a: int, B: list, x: int, first: int, y_min: int) -> list[range]:
    """x = −B(y)/a: the wedge as polynomial inequalities h(y) ≥ 0 in y (exact, scaled by |a|)."""
    s = 1 if a > 0 else -1
    minus_b = [-s * c for c in B]  # |a|·x
    if x == 0:  # x = i, y = n: first <= i <= n
        ineqs = [_sub(minus_b, [abs(a) * first]), _sub([0, abs(a)], minus_b)]
    else:  # x = n, y = i: n >= i and n >= 1
        ineqs = [_sub(minus_b, [0, abs(a)]), _sub(minus_b, [abs(a)])]
    bound = max(y_min, *(_cauchy(h) for h in ineqs))
    if not all(_trim(h)[-1] > 0 for h in ineqs if any(h)):
        return [range(y_min, bound + 1)]  # the wedge holds for finitely many y only
    # beyond the bound the wedge always holds and integrality and parity of x repeat with period
    # 2|a|: a zero anywhere recurs in the window (bound, bound + 2|a|]; small y first, for a small witness
    return [range(y_min, min(bound, y_min + SCAN_N) + 1), range(bound + 1, bound + 2 * abs(a) + 1)]


def _sub(p: list, q: list) -> list:
    size = max(len(p), len(q))
    return [(p[k] if k < len(p) else 0) - (q[k] if k < len(q) else 0) for k in range(size)]


def _trim(p: list) -> list:
    while len(p) > 1 and p[-1] == 0:
        p = p[:-1]
    return p


def _cauchy(p: list) -> int:
    """Every real root of p is below this (Cauchy's bound); 0 for a constant."""
    p = _trim(p)
    if len(p) == 1:
        return 0
    return 1 + ceil(max(Fraction(abs(c), abs(p[-1])) for c in p[:-1]))

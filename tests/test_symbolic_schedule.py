"""Theorem 26 schedules (symbolic/schedule.py), re-checked here independently.

The printed τ(n) is re-parsed from its text and substituted into the recursion
ε_{ℓ+1} = a + b ε_ℓ with python-flint balls at integer n up to 10^9.
"""
from fractions import Fraction

import pytest
from flint import arb, fmpq

from certify.errors import UserError
from certify.expr import eval_ball, parse_expr, to_text
from symbolic.schedule import (Problem, elementary_schedule, elementary_u, exact_bracket, lambert_point,
                               theorem26_exact_tau, theorem26_schedule)

GRID = sorted({*range(1, 40), 50, 64, 99, 128, 1000, 4097, 10**4, 31623, 10**5, 777777, 10**6, 10**7,
               123456789, 10**8, 999999937, 10**9})


def q(v):
    v = Fraction(v)
    return arb(fmpq(v.numerator, v.denominator))


def chain(K, gamma, xmax, L, tau, n):
    g, x = eval_ball(gamma, {"n": n}), eval_ball(xmax, {"n": n})
    a = q(K) * x * n * (-g / tau).exp()
    b = q(K) * x * x / tau
    eps = [arb(0)]
    for _ in range(L):
        eps.append(a + b * eps[-1])
    return eps


CASES = [
    (4, Fraction(3), "1/n^2", "n", Fraction(1, 4)),
    (1, Fraction(1, 8), "1", "1", Fraction(1, 4)),
    (8, Fraction(10), "1/(n+1)^3", "n^2+1", Fraction(1)),
]


@pytest.fixture(scope="module", params=CASES, ids=lambda c: f"L{c[0]}")
def case(request):
    L, K, gtext, xtext, delta = request.param
    gamma, xmax = parse_expr(gtext, ("n",)), parse_expr(xtext, ("n",))
    tau = theorem26_schedule(L, K, gamma, xmax, delta)
    return L, K, gamma, xmax, delta, tau


def test_printed_tau_meets_the_recursion_on_the_grid(case):
    L, K, gamma, xmax, delta, tau = case
    reparsed = parse_expr(to_text(tau), variables=("n",), allow_log=True)
    assert reparsed == tau
    for n in GRID:
        eps = chain(K, gamma, xmax, L, eval_ball(reparsed, {"n": n}), n)
        assert eps[-1] <= q(delta), n
        assert all(e <= 1 for e in eps), n


def test_hotter_schedule_is_refuted(case):
    """Negative control: doubling τ breaks ε_L ≤ δ somewhere on the grid."""
    L, K, gamma, xmax, delta, tau = case
    assert any(chain(K, gamma, xmax, L, 2 * eval_ball(tau, {"n": n}), n)[-1] > q(delta) for n in GRID)


def test_exact_tau_is_an_enclosure_and_the_elementary_form_is_within_4():
    gamma, xmax = parse_expr("1/n^2", ("n",)), parse_expr("n", ("n",))
    n = 10**6
    lo, hi = theorem26_exact_tau(4, Fraction(3), gamma, xmax, Fraction(1, 4), n)
    assert 0 < lo <= hi and (hi - lo) / hi < Fraction(1, 10**9)
    assert chain(3, gamma, xmax, 4, q(lo * Fraction(999, 1000)), n)[-1] <= q(Fraction(1, 4))
    assert chain(3, gamma, xmax, 4, q(hi * Fraction(1001, 1000)), n)[-1] > q(Fraction(1, 4))
    tau = theorem26_schedule(4, Fraction(3), gamma, xmax, Fraction(1, 4))
    t = eval_ball(tau, {"n": n})
    assert t <= q(lo) and q(hi) / t < 4
    # asymptotic class: (1/τ) / (n^2 ln n) stays between two positive constants
    ratios = [(1 / eval_ball(tau, {"n": m})) / (q(m) ** 2 * q(m).log()) for m in (10**3, 10**6, 10**9)]
    assert all(r > 1 for r in ratios) and all(r < 30 for r in ratios)
    assert ratios[0] > ratios[1] > ratios[2]  # approaching the limit C·4 from above


def test_lambert_form_substitutes_back_and_sits_between():
    p = Problem(4, Fraction(3), parse_expr("1/n^2", ("n",)), parse_expr("n", ("n",)), Fraction(1, 4))
    for n in (10, 10**6):
        lam = lambert_point(p, n)
        br = exact_bracket(p, n)
        assert lam.substituted and lam.sufficient
        assert lam.u >= q(br.u_hi)  # u_W is sufficient, so it is at least the exact threshold


def test_cover_failure_is_reported_not_hidden():
    p = Problem(4, Fraction(3), parse_expr("1/n^2", ("n",)), parse_expr("n", ("n",)), Fraction(1, 4))
    el = elementary_schedule(p)
    assert el.cover.ok and el.cover.intervals > 100
    from symbolic.schedule import _elementary_ok, interval
    assert not _elementary_ok(p, el.C / 2, el.A, interval(Fraction(10**6), Fraction(10**6 + 1)))
    assert elementary_u(p, el, 10**6) > 0


def test_invalid_problems():
    g, x = parse_expr("1/n^2", ("n",)), parse_expr("n", ("n",))
    with pytest.raises(UserError):
        Problem(4, Fraction(3), g, x, Fraction(2))
    with pytest.raises(UserError):
        Problem(0, Fraction(3), g, x, Fraction(1, 4))
    with pytest.raises(UserError):
        theorem26_exact_tau(2, Fraction(3), parse_expr("n-5", ("n",)), x, Fraction(1, 4), 3)

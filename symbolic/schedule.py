"""Theorem 26's temperature τ(n) three ways, every inequality decided in arb balls.

Notation (theory.md §3, Theorem 26).  With t = 1/τ, per layer
``a = K·x·n·e^{−γt}`` and ``b = K·x²·t`` (x = x_max(n), γ = γ(n)); ε_0 = 0 and
ε_{ℓ+1} = a + b·ε_ℓ, so ε_L = a·Σ_{k<L} b^k.  Writing u = γt and ρ = K·x²/γ,

    f(u) := ε_L = K·x·n·e^{−u}·Σ_{k<L} (ρu)^k.

The derivation needs ε_L ≤ δ (δ ≤ 1 then gives every ε_ℓ ≤ 1, see recursion.py).

(i)   exact: the largest τ such that every colder τ' ≤ τ satisfies ε_L ≤ δ,
      i.e. u* = sup{u : f(u) > δ}, bracketed by bisection; f ≤ δ beyond the
      upper end is certified by the exact monotonicity test :func:`decreasing_from`
      (or by a ball cover), f > δ at the lower end by a ball comparison.
(ii)  Lambert W: Σ_{k<L} y^k ≤ L·y^{L−1} for y = ρu ≥ 1 turns ε_L ≤ δ into
      u^{m} e^{−u} ≤ 1/B, B = K x n L ρ^m/δ, m = L−1, solved by
      u_W = −m·W_{−1}(−1/(m·B^{1/m})) and substituted back in balls.
(iii) elementary: u = C·ln(A·n·x/γ), i.e. 1/τ = (C/γ)·ln(A·n·x_max/γ), with C and
      A proposed from samples of (i) and then *proved* for every real n in
      [1, n_max] by ball arithmetic over an adaptive cover.
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, ctx, fmpq

from certify.errors import ExprError, UserError
from certify.expr import BinOp, Expr, Log, Num, Var, eval_ball, eval_exact

from .config import CONFIG, DeriveConfig


@dataclass(frozen=True)
class Problem:
    """The inputs of Theorem 26: L layers, Lemma-25 constant K, gap γ(n), x_max(n), δ."""

    L: int
    K: Fraction
    gamma: Expr
    xmax: Expr
    delta: Fraction

    def __post_init__(self):
        if not 1 <= self.L <= CONFIG.max_L:
            raise UserError(f"--L must be an integer in 1..{CONFIG.max_L}, got {self.L}")
        if self.K <= 0:
            raise UserError(f"--K must be positive, got {self.K}")
        if not 0 < self.delta <= 1:
            raise UserError(f"--delta must lie in (0, 1] (the ε ≤ 1 invariant needs δ ≤ 1), got {self.delta}")


@contextmanager
def precision(bits: int):
    old = ctx.prec
    ctx.prec = bits
    try:
        yield
    finally:
        ctx.prec = old


def ball(q) -> arb:
    q = Fraction(q)
    return arb(fmpq(q.numerator, q.denominator))


def interval(lo: Fraction, hi: Fraction) -> arb:
    """A ball containing the real interval [lo, hi]."""
    mid, rad = (lo + hi) / 2, (hi - lo) / 2
    return arb(fmpq(mid.numerator, mid.denominator), fmpq(rad.numerator, rad.denominator))


def eps_chain(a, b, L: int) -> list:
    """ε_0..ε_L of ε_{ℓ+1} = a + b ε_ℓ, ε_0 = 0 (works for Fractions and arb balls)."""
    eps = [a * 0]
    for _ in range(L):
        eps.append(a + b * eps[-1])
    return eps


def at_n(p: Problem, n: int) -> tuple[Fraction, Fraction]:
    """(x_max(n), γ(n)) exactly; both must be positive (Theorem 26's standing hypothesis)."""
    try:
        x, g = eval_exact(p.xmax, {"n": n}), eval_exact(p.gamma, {"n": n})
    except ExprError as e:
        raise UserError(f"at n={n}: {e}") from None
    if g <= 0 or x <= 0:
        raise UserError(f"at n={n}: need γ(n) > 0 and x_max(n) > 0, got γ={g}, x_max={x}")
    return x, g


# ------------------------------------------------------------------ (i) exact

def f_ball(p: Problem, x: Fraction, n: int, rho: Fraction, u: arb) -> arb:
    """ε_L as a function of u = γ/τ at a fixed n (arb ball in, arb ball out)."""
    a = ball(p.K * x * n) * (-u).exp()
    return eps_chain(a, ball(rho) * u, p.L)[-1]


def decreasing_from(p: Problem, rho: Fraction, u: Fraction) -> bool:
    """Exact sufficient test that f is decreasing on [u, ∞).

    f'(u) = e^{−u}(P' − P) with P(u) = Σ_{k<L} (ρu)^k, and P' − P < 0 iff
    Σ_{j≤L−2} ((j+1)ρ − 1)(ρu)^{j−L+1} < 1.  Dropping negative terms gives a
    sum that is non-increasing in u, so its value < 1 at u holds on all of [u, ∞).
    """
    if u <= 0:
        return False
    y = rho * u
    return sum((max(Fraction(0), (j + 1) * rho - 1) * y ** (j - p.L + 1) for j in range(p.L - 1)), Fraction(0)) < 1


def _le_delta_on(p, x, n, rho, u1: Fraction, u2: Fraction, depth: int) -> bool:
    """f ≤ δ on [u1, u2], by a ball cover bisected up to ``depth`` times."""
    if f_ball(p, x, n, rho, interval(u1, u2)) <= ball(p.delta):
        return True
    if depth == 0:
        return False
    mid = (u1 + u2) / 2
    return _le_delta_on(p, x, n, rho, u1, mid, depth - 1) and _le_delta_on(p, x, n, rho, mid, u2, depth - 1)


@dataclass(frozen=True)
class Bracket:
    """u* = γ(n)/τ*(n) lies in [u_lo, u_hi]; f(u_lo) > δ and f ≤ δ on [u_hi, ∞) are certified."""

    n: int
    gamma: Fraction
    u_lo: Fraction
    u_hi: Fraction

    @property
    def unbounded(self) -> bool:
        """u* = 0: ε_L ≤ δ holds at every temperature (possible only if K·x_max·n ≤ δ)."""
        return self.u_hi == 0

    @property
    def tau(self) -> tuple[Fraction, Fraction]:
        if self.u_lo <= 0:
            raise UserError(f"at n={self.n}: the exact largest τ is unbounded")
        return self.gamma / self.u_hi, self.gamma / self.u_lo


def exact_bracket(p: Problem, n: int, cfg: DeriveConfig = CONFIG) -> Bracket:
    x, g = at_n(p, n)
    rho = p.K * x * x / g
    d = ball(p.delta)
    with precision(cfg.prec_bits):
        hi = Fraction(1)
        while not (decreasing_from(p, rho, hi) and f_ball(p, x, n, rho, ball(hi)) <= d):
            hi *= 2
            if hi > 2**60:
                raise UserError(f"at n={n}: could not certify a cold enough temperature")
        lo = Fraction(0)
        if not p.K * x * n > p.delta:
            grid = [hi * k / 256 for k in range(1, 256)]
            above = [u for u in grid if f_ball(p, x, n, rho, ball(u)) > d]
            if not above:
                # f(0) = K x n ≤ δ and, if every coefficient of P' − P is ≤ 0, f is non-increasing on [0, ∞).
                never_rises = all((j + 1) * rho <= 1 for j in range(p.L - 1))
                if never_rises or _le_delta_on(p, x, n, rho, Fraction(0), hi, cfg.ucover_depth + 4):
                    return Bracket(n, g, Fraction(0), Fraction(0))  # every temperature works: τ* = ∞
                raise UserError(f"at n={n}: could not isolate the temperature threshold")
            lo = max(above)
        for _ in range(cfg.bisect_steps):
            mid = (lo + hi) / 2
            fm = f_ball(p, x, n, rho, ball(mid))
            if fm > d:
                lo = mid
            elif fm <= d and (decreasing_from(p, rho, mid) or _le_delta_on(p, x, n, rho, mid, hi, cfg.ucover_depth)):
                hi = mid
            else:
                break
    return Bracket(n, g, lo, hi)


# ------------------------------------------------------------- (ii) Lambert W

@dataclass(frozen=True)
class LambertPoint:
    n: int
    u: arb          # u_W(n) as a ball
    tau: arb        # γ(n)/u_W(n)
    substituted: bool  # u^m e^{−u} B contains 1 (the closed form solves its equation)
    sufficient: bool   # ρu ≥ 1, u ≥ m and ε_L(u_W) ≤ δ, all certain


def lambert_point(p: Problem, n: int, cfg: DeriveConfig = CONFIG) -> LambertPoint | None:
    """u_W(n) = −m W_{−1}(−1/(m B^{1/m})) (m = L−1 ≥ 1) or ln B (L = 1); None if B is too small."""
    x, g = at_n(p, n)
    rho = p.K * x * x / g
    m = p.L - 1
    B = p.K * x * n * p.L * rho**m / p.delta
    with precision(cfg.prec_bits):
        if m == 0:
            if B <= 1:
                return None
            u = ball(B).log()
            substituted = ((-u).exp() * ball(B)).contains(1)
        else:
            z = -1 / (m * (ball(B).log() / m).exp())
            if not z > -(arb(-1).exp()):
                return None
            u = -m * z.lambertw(branch=-1)
            substituted = (u**m * (-u).exp() * ball(B)).contains(1)
        sufficient = bool(ball(rho) * u >= 1 and u >= m and f_ball(p, x, n, rho, u) <= ball(p.delta))
        return LambertPoint(n, u, ball(g) / u, bool(substituted), sufficient)


# ---------------------------------------------------------- (iii) elementary

def elementary_tau_ast(p: Problem, C: Fraction, A: int) -> Expr:
    """τ(n) = γ / (C·log(A·n·x_max/γ)) in the model-format grammar."""
    inner = BinOp("/", BinOp("*", BinOp("*", Num(Fraction(A)), Var("n")), p.xmax), p.gamma)
    return BinOp("/", p.gamma, BinOp("*", Num(Fraction(C)), Log(inner)))


def _elementary_ok(p: Problem, C: Fraction, A: int, nb: arb) -> bool:
    """ε_L ≤ δ for u = C·ln(A n x/γ), for every n in the ball ``nb`` (certain)."""
    try:
        g, x = eval_ball(p.gamma, {"n": nb}), eval_ball(p.xmax, {"n": nb})
    except ExprError:
        return False
    if not (g > 0 and x > 0):
        return False
    N = ball(A) * nb * x / g
    if not N > 1:
        return False
    u = ball(C) * N.log()
    a = ball(p.K) * x * nb * (-u).exp()
    b = ball(p.K) * x * x * u / g
    return bool(eps_chain(a, b, p.L)[-1] <= ball(p.delta))


def _cold_ok(p: Problem, C: Fraction, A: int, nb: arb) -> bool:
    """τ(n) ≤ 1 on the ball (needed only when K comes from weights via L-layer)."""
    try:
        g, x = eval_ball(p.gamma, {"n": nb}), eval_ball(p.xmax, {"n": nb})
        N = ball(A) * nb * x / g
        return bool(N > 1 and ball(C) * N.log() >= g)
    except ExprError:
        return False


@dataclass(frozen=True)
class Cover:
    ok: bool
    intervals: int                 # balls evaluated
    failed: tuple[Fraction, Fraction] | None


def _pieces(n_max: int, k: int) -> list[Fraction]:
    ends = [Fraction(1)]
    for i in range(1, k):
        e = Fraction(round(n_max ** (i / k) * 1000), 1000)
        if ends[-1] < e < n_max:
            ends.append(e)
    ends.append(Fraction(n_max))
    return ends


def cover(pred, n_max: int, cfg: DeriveConfig = CONFIG) -> Cover:
    """``pred(ball)`` for balls covering every real n in [1, n_max], bisecting where undecided."""
    ends = _pieces(n_max, cfg.cover_pieces)
    stack = [(lo, hi, 0) for lo, hi in zip(ends, ends[1:])]
    count = 0
    with precision(cfg.prec_bits):
        while stack:
            lo, hi, depth = stack.pop()
            count += 1
            if pred(interval(lo, hi)):
                continue
            if depth >= cfg.cover_depth:
                return Cover(False, count, (lo, hi))
            mid = (lo + hi) / 2
            stack += [(lo, mid, depth + 1), (mid, hi, depth + 1)]
    return Cover(True, count, None)


def _log_fraction(q: Fraction) -> float:
    return math.log(q.numerator) - math.log(q.denominator)


def fit_points(p: Problem, cfg: DeriveConfig = CONFIG) -> list[tuple[int, float, float]]:
    """(n, s = ln(n x/γ), u*) samples: the oracle data C and A are proposed from."""
    decades = math.log10(cfg.n_max)
    ns = {1, 2, 3, 5, 7, cfg.n_max, min(cfg.ratio_n, cfg.n_max)}
    ns |= {round(10 ** (k / cfg.fit_points_per_decade)) for k in range(int(decades * cfg.fit_points_per_decade) + 1)}
    out = []
    for n in sorted(v for v in ns if 1 <= v <= cfg.n_max):
        x, g = at_n(p, n)
        br = exact_bracket(p, n, cfg)
        out.append((n, _log_fraction(n * x / g), float(br.u_hi)))
    return out


def _propose(points, pivot_n: int, margin: float, den: int) -> tuple[Fraction, int] | None:
    """A line u = C·s + C·ln A above every sample, touching near the pivot (floats: a proposal only)."""
    pivot = min(points, key=lambda t: abs(math.log(t[0]) - math.log(pivot_n)))
    _, sp, up = pivot
    right = [(u - up) / (s - sp) for _, s, u in points if s > sp]
    left = [(up - u) / (sp - s) for _, s, u in points if s < sp]
    slope = max(right) if right else (min(left) if left else 1.0)
    if not slope > 0:
        slope = max(u / s for _, s, u in points if s > 0) if any(s > 0 for _, s, _ in points) else 1.0
    C = Fraction(math.ceil(slope * (1 + margin) * den), den)
    D = max(u * (1 + margin) - float(C) * s for _, s, u in points)
    if D / float(C) > 700:
        return None
    A = max(2, math.ceil(math.exp(D / float(C))))  # A ≥ 2 keeps ln(A·n·x/γ) > 0 at n = 1 when x ≥ γ
    return C, A


@dataclass(frozen=True)
class Elementary:
    C: Fraction
    A: int
    tau: Expr
    cover: Cover          # ε_L ≤ δ for all real n in [1, n_max]
    cold: Cover           # τ(n) ≤ 1 on the same range
    margin: float
    samples: int


def elementary_schedule(p: Problem, cfg: DeriveConfig = CONFIG) -> Elementary:
    points = fit_points(p, cfg)
    last = None
    for margin in cfg.fit_margins:
        proposal = _propose(points, cfg.ratio_n, margin, cfg.c_denominator)
        if proposal is None:
            continue
        C, A = proposal
        cov = cover(lambda nb: _elementary_ok(p, C, A, nb), cfg.n_max, cfg)
        last = (C, A, cov, margin)
        if cov.ok:
            cold = cover(lambda nb: _cold_ok(p, C, A, nb), cfg.n_max, cfg)
            return Elementary(C, A, elementary_tau_ast(p, C, A), cov, cold, margin, len(points))
    if last is None:
        raise UserError("could not propose an elementary schedule (ln A would exceed 700·C)")
    C, A, cov, margin = last
    return Elementary(C, A, elementary_tau_ast(p, C, A), cov, Cover(False, 0, None), margin, len(points))


def elementary_u(p: Problem, el: Elementary, n: int) -> arb:
    x, g = at_n(p, n)
    return ball(el.C) * (ball(el.A * n * x / g)).log()


# ------------------------------------------------------------------ public API

def theorem26_schedule(L: int, K: Fraction, gamma: Expr, xmax: Expr, delta: Fraction) -> Expr:
    """τ(n) = γ/(C·ln(A·n·x_max/γ)), proved (ε_L ≤ δ, every ε_ℓ ≤ 1) for all real n in [1, 10^9].

    Raises UserError if the ball cover cannot prove it (then no schedule is claimed).
    """
    p = Problem(L, Fraction(K), gamma, xmax, Fraction(delta))
    el = elementary_schedule(p)
    if not el.cover.ok:
        raise UserError(f"could not prove the elementary schedule on [1, {CONFIG.n_max}] (failed near n ∈ "
                        f"[{float(el.cover.failed[0]):g}, {float(el.cover.failed[1]):g}])")
    return el.tau


def theorem26_exact_tau(L: int, K: Fraction, gamma: Expr, xmax: Expr, delta: Fraction, n: int) -> tuple[Fraction, Fraction]:
    """Certified enclosure [lo, hi] of the largest τ with ε_L ≤ δ at every τ' ≤ τ, at length n."""
    p = Problem(L, Fraction(K), gamma, xmax, Fraction(delta))
    return exact_bracket(p, n).tau

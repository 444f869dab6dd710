"""Error bounds for every length n ≥ N₀ at once: the tail of an all-n certificate (issue 16).

The finite cover proves [n_min, N₀ − 1] box by box; this module proves [N₀, ∞) in one walk of
the same error recursion (refined L-layer, theory.md §4).  Every quantity q(n) of the recursion is
carried as a *monomial enclosure* ``Mono(C, a, b)``: for every integer n ≥ N₀,

    q(n) ∈ C · n^a · (log n)^b        (C a python-flint ball, a ∈ Q, b ∈ Z, exact exponents).

Products multiply C and add exponents.  Sums and maxima bring both terms to the larger scale:
the ratio n^α·(log n)^β of the smaller one is bounded on [N₀, ∞) by :func:`scale_sup`, which
decides the sign of d/dn log(n^α L^β) = (αL + β)/(nL) exactly (a linear function of L = log n
with rational coefficients) and evaluates the extremum at N₀ or at L* = −β/α with balls.  So
every bound is a closed form whose supremum over the whole tail is proved, never sampled.

Where the expressions come from:

* rational functions of n (steps, gaps, τ's rational part): the exact normal form P/Q with
  t = 1/n ∈ [0, 1/N₀] gives P/Q = n^(deg P − deg Q) · P̃(t)/Q̃(t), both balls over the interval;
* log X(n) for rational X of degree d: d·log n + log(X̃(t)), i.e. L·(d + log X̃(t)·[0, 1/log N₀]);
* leakage: L-ziggurat c·q/(1−q) with q = e^(−x), x = |A(n)|/τ ≥ c·n^a·L^b: a constant x gives a
  constant; a growing one x ≥ K·log n on the tail (K from the infimum of x/L), so q ≤ n^(−K);
  L-gap N·e^(−x) with N ≤ n + 1 likewise; a shrinking x only the trivial bound;
* position embeddings: |P(i, n)|/|Q(i, n)| with 0 ≤ i ≤ n, (−1)^i a sign s with |s| = 1, Q with
  coefficients of one sign: |Q| ≥ its largest i-free monomial;
* facts that hold for all n (tie exclusions, curvature signs, key steps): exact sign conditions
  on [N₀, ∞) decided at root enclosures (:mod:`positivity`).

The claim on the tail is sup_{n ≥ N₀} error(n) < margin (or error = 0 exactly).  A quantity that
grows without limit (leakage N·e^(−γ/τ) with γ/τ ≤ log n, an unbounded value range, …) makes the
output bound infinite or ≥ the margin, and :class:`TailFailure` names the first one that did.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import floor

from flint import arb, ctx, fmpq

from ..errors import ExprError
from ..expr import AltSign, BinOp, Expr, Log, Neg, Num, Pow, Var
from ..model import AttentionLayer, Model
from .bounds import (PRECISION_BITS, _hull, _margin, _one_noisy_input, _split_log, _token_hull, all_uniform,
                     exact_fraction, first_row_margin, gap_lower_bounds, q_ball, special_leak)
from .polyid import normal_form, univariate
from .positivity import nonzero_from, positive_from
from .records import lower, upper
from .structure import HeadFact, Structure, argmax_gap, first_row_soft_exact, span_margin

MAX_EXPONENT = 64  # q ≤ n^(−K) with K at most this (any smaller K is also sound; keeps numbers readable)


class TailFailure(Exception):
    """A quantity of the recursion has no bound that settles on [N₀, ∞) (names it)."""


@dataclass(frozen=True)
class Mono:
    """For every integer n ≥ N₀ the quantity lies in c · n^a · (log n)^b."""

    c: object  # arb
    a: Fraction = Fraction(0)
    b: int = 0

    def is_zero(self) -> bool:
        return self.c.is_zero()

    def text(self) -> str:
        """An upper bound, rendered (used in certificates and messages)."""
        out = upper(self.c.abs_upper())
        if self.is_zero():
            return "0"
        if self.a:
            out += f"*n^({self.a})" if self.a.denominator != 1 or self.a < 0 else f"*n^{self.a}"
        if self.b:
            out += f"*log(n)^({self.b})" if self.b < 0 else f"*log(n)^{self.b}"
        return out


ZERO = Mono(arb(0))


def const(x) -> Mono:
    return Mono(x if isinstance(x, arb) else q_ball(Fraction(x)))


def _log0(n0: int):
    return arb(n0).log()


def _at(alpha: Fraction, beta: int, log_n):
    return (q_ball(alpha) * log_n).exp() * log_n ** beta


def scale_sup(alpha: Fraction, beta: int, n0: int):
    """sup over n ≥ N₀ of n^α·(log n)^β (a ball's upper end), or None when unbounded.
    d/dn log f = (αL + β)/(nL): for α < 0, f rises while L < −β/α and falls after; for α = 0 it is L^β."""
    return _extremum(alpha, beta, n0, top=True)


def scale_inf(alpha: Fraction, beta: int, n0: int):
    """inf over n ≥ N₀ of n^α·(log n)^β (≥ 0): for α > 0, f falls while L < −β/α and rises after."""
    return _extremum(alpha, beta, n0, top=False)


def _extremum(alpha: Fraction, beta: int, n0: int, top: bool):
    l0 = _log0(n0)
    if alpha == 0:
        return l0 ** beta if beta == 0 or (beta < 0) == top else None if top else arb(0)
    if (alpha > 0) == top:
        return None if top else arb(0)  # the side where f is unbounded (sup) or tends to 0 (inf)
    peak = Fraction(-beta) / alpha  # L* (≤ 0: f is monotone on the whole tail)
    if peak <= 0 or l0 > q_ball(peak):
        return _at(alpha, beta, l0)
    return _at(alpha, beta, q_ball(peak))  # the global extremum, at L = L*


def _factor(x: Mono, scale: tuple, n0: int):
    """A ball holding x(n)/(n^a'·L^b') for the larger scale (a', b') ≥ x's (lexicographically)."""
    alpha, beta = x.a - scale[0], x.b - scale[1]
    if (alpha, beta) == (0, 0):
        return x.c
    return x.c * arb(0).union(scale_sup(alpha, beta, n0))


def add(x: Mono, y: Mono, n0: int) -> Mono:
    return _combine(x, y, n0, lambda u, v: u + v)


def total(terms, n0: int) -> Mono:
    out = ZERO
    for t in terms:
        out = add(out, t, n0)
    return out


def maximum(x: Mono, y: Mono, n0: int) -> Mono:
    """An enclosure of max(x, y) for non-negative x, y."""
    return _combine(x, y, n0, lambda u, v: u.max(v))


def _combine(x: Mono, y: Mono, n0: int, join) -> Mono:
    """x ∘ y at the larger of the two scales (a zero term has no scale)."""
    if x.is_zero():
        return y
    if y.is_zero():
        return x
    scale = max((x.a, x.b), (y.a, y.b))
    return Mono(join(_factor(x, scale, n0), _factor(y, scale, n0)), *scale)


def mul(x: Mono, y: Mono) -> Mono:
    if x.is_zero() or y.is_zero():
        return ZERO
    return Mono(x.c * y.c, x.a + y.a, x.b + y.b)


def power(x: Mono, k: int) -> Mono:
    if k < 0 and x.c.contains(0):
        raise TailFailure("a power with negative exponent of a quantity that may vanish")
    return Mono(x.c ** k, x.a * k, x.b * k)


def absolute(x: Mono) -> Mono:
    return Mono(abs(x.c), x.a, x.b)


def sup(x: Mono, n0: int):
    """An upper bound (ball) on sup_{n ≥ N₀} |x(n)|, or arb(+inf)-like None when unbounded."""
    if x.is_zero():
        return arb(0)
    s = scale_sup(x.a, x.b, n0)
    return None if s is None else abs(x.c).abs_upper() * s


def rational(e: Expr, n0: int) -> Mono:
    """e(n) = P/Q = n^(deg P − deg Q)·P̃(t)/Q̃(t) with t = 1/n ∈ [0, 1/N₀], from the exact normal form."""
    form = univariate(e)
    if form is None:
        raise TailFailure("not a rational function of n")
    p, q = form
    if not p:
        return ZERO
    t = arb(0).union(1 / arb(n0))
    den = _reversed_horner(q, t)
    if den.contains(0):
        raise TailFailure("a denominator that may vanish beyond N₀")
    return Mono(_reversed_horner(p, t) / den, Fraction(len(p) - len(q)))


def _reversed_horner(coeffs, t):
    """Σ_k c_k·t^(deg − k): the polynomial t^deg·P(1/t)."""
    acc = arb(0)
    for c in coeffs:
        acc = acc * t + q_ball(c)
    return acc


def log_of(x: Expr, n0: int) -> Mono:
    """log X(n) for rational X = n^d·X̃(t): L·(d + log X̃(t)/L) with 1/L ∈ (0, 1/log N₀]."""
    m = rational(x, n0)
    if not m.c > 0:
        raise TailFailure(f"log of a quantity not certainly positive beyond N₀")
    if m.a.denominator != 1:
        raise TailFailure("log of a fractional power")
    if m.a == 0:
        return Mono(m.c.log())
    shrink = arb(0).union(1 / _log0(n0))
    return Mono(q_ball(m.a) + m.c.log() * shrink, Fraction(0), 1)


def with_logs(num: Expr, tau_expr: Expr, n0: int) -> Mono:
    """num(n)/τ(n) for τ = R·(log X)^p, as (num/R in lowest terms)·(log X)^−p (bounds._over_tau's split)."""
    split = _split_log(tau_expr)
    if split is None:
        raise TailFailure("τ(n) is not of the form R(n)·log(X(n))^p")
    r, x, p = split
    base = rational(BinOp("/", num, r), n0)
    return mul(base, power(log_of(x, n0), -p)) if p else base


@dataclass(frozen=True)
class TailRange:
    """What is known of a coordinate's hard values on the tail: a constant ball (or None) and a
    bound on |value| (or None: unbounded or unknown)."""

    hull: object = None
    mag: Mono | None = None


def _from_hull(h) -> TailRange:
    return TailRange(h, Mono(arb(0).union(h.abs_upper())))


def _range_add(x: TailRange, y: TailRange, n0: int) -> TailRange:
    hull = x.hull + y.hull if x.hull is not None and y.hull is not None else None
    mag = add(x.mag, y.mag, n0) if x.mag is not None and y.mag is not None else None
    return TailRange(hull, mag)


def _range_scale(c: Fraction, x: TailRange) -> TailRange:
    return TailRange(None if x.hull is None else q_ball(c) * x.hull,
                     None if x.mag is None else mul(const(abs(c)), x.mag))


def _magnitude(x: TailRange, what: str) -> Mono:
    if x.mag is None:
        raise TailFailure(f"the hard values of {what} have no bound beyond N₀")
    return x.mag


def _spread(x: TailRange, what: str) -> Mono:
    if x.hull is not None:
        return const(2 * x.hull.rad())
    return mul(const(2), _magnitude(x, what))


def pe_range(e: Expr, n0: int) -> TailRange:
    """|e(i, n)| ≤ Σ|p|·n^deg P / (q·n^K) for first ≤ i ≤ n (i ≥ 0), (−1)^i replaced by s, |s| = 1,
    when Q's coefficients have one sign and q·n^K is its largest i-free monomial (the rest is ≥ 0)."""
    mag = _pe_magnitude(e, n0)
    if mag is None:
        return TailRange()
    s = scale_sup(mag.a, mag.b, n0)
    return TailRange(None if s is None else arb(0).union(mag.c.upper() * s).union(-mag.c.upper() * s), mag)


def _pe_magnitude(e: Expr, n0: int) -> Mono | None:
    try:
        normal = normal_form(_signs_as_var(e), ("i", "n", "s"))
    except ExprError:
        return None
    if normal is None:
        return None
    p, q = normal
    if p.is_zero():
        return ZERO
    coeffs = [Fraction(int(c.p), int(c.q)) for c in q.coeffs()]
    if not (all(c > 0 for c in coeffs) or all(c < 0 for c in coeffs)):
        return None
    free = [(int(m[1]), abs(c)) for m, c in zip(q.monoms(), coeffs) if m[0] == 0 and m[2] == 0]
    if not free or any(m[2] for m in q.monoms()):
        return None
    k, lead = max(free)
    top = max(int(m[0]) + int(m[1]) for m in p.monoms())
    size = sum(abs(Fraction(int(c.p), int(c.q))) for c in p.coeffs())
    return Mono(arb(0).union(q_ball(size / lead)), Fraction(top - k))


def _signs_as_var(e: Expr) -> Expr:
    """(−1)^i as a variable s (the magnitude bound only uses |s| = 1)."""
    if isinstance(e, AltSign):
        if e.var != "i":
            raise ExprError("a sign (-1)^n")
        return Var("s")
    if isinstance(e, BinOp):
        return BinOp(e.op, _signs_as_var(e.left), _signs_as_var(e.right))
    if isinstance(e, Neg):
        return Neg(_signs_as_var(e.arg))
    if isinstance(e, Pow):
        return Pow(_signs_as_var(e.base), e.exponent)
    if isinstance(e, Log):
        raise ExprError("a log in a position embedding")
    return e


@dataclass(frozen=True)
class TailHead:
    name: str
    leak: Mono
    level_size: int | None = None


@dataclass(frozen=True)
class TailReport:
    n0: int
    heads: tuple[TailHead, ...]
    err: Mono  # error bound at the output
    err_sup: object  # its supremum over [N₀, ∞) (a ball), +inf when unbounded
    margin: object
    ok: bool


def analyse_tail(model: Model, st: Structure, tau_expr: Expr, n0: int) -> TailReport:
    """The error recursion for every n ≥ N₀ at once; raises :class:`TailFailure` naming what grows."""
    if not model.output.argmax and st.coords[-1][model.output.dim].needs:
        raise TailFailure("the sides of the output's noisy spans need e^(g/τ) ≥ (n + 1)·r (L-nearest-level), which "
                          "only boxes check")
    with ctx.workprec(PRECISION_BITS):
        try:
            return _walk(model, st, tau_expr, n0)
        except (ExprError, ZeroDivisionError, ValueError) as exc:  # a pole, a log of ≤ 0, an infinite ball
            raise TailFailure(f"for n ≥ {n0}: {exc}") from None


def _walk(model: Model, st: Structure, tau_expr: Expr, n0: int) -> TailReport:
    rng = {d: _embedding(model, d, n0) for d in model.dims}
    err = {d: ZERO for d in model.dims}
    heads = []
    for k, layer in enumerate(model.layers):
        facts = st.facts[k]
        if isinstance(layer, AttentionLayer):
            new_rng, new_err = dict(rng), dict(err)
            for fact in facts:
                th, added = _head(fact, rng, err, tau_expr, n0, st.first)
                heads.append(th)
                for o, e in added.items():
                    new_err[o] = add(new_err[o], e, n0)
                for o, contrib in _contrib(fact, rng, n0).items():
                    new_rng[o] = _range_add(new_rng[o], contrib, n0)
            rng, err = new_rng, new_err
        else:
            for o, x, r in facts.absorbs:  # L-ffn-absorb, as in the boxes: x's error within r on all of [N₀, ∞)
                if (top := sup(err[x], n0)) is None or not top <= q_ball(r):
                    raise TailFailure(f"the error of {x!r} may exceed {r}, within which the FFN keeps {o!r} exact")
            err = {**_ffn_err(layer, facts, rng, err, n0), **{o: ZERO for o, _, _ in facts.absorbs}}
            rng = _ffn_range(layer, rng, n0)
        rng = {d: _coord_range(c, n0) if c.fin is not None or c.pe is not None else rng[d]
               for d, c in st.coords[k + 1].items()}
    if model.output.argmax:
        e = ZERO
        for d in model.output.argmax:
            e = maximum(e, err[d], n0)
        margin = q_ball(argmax_gap(model, st) / 2)
    else:
        o = model.output.dim
        unknown = arb(0, float("inf"))  # no constant hull: margin 0 unless the output is finite-valued
        e, margin = err[o], _margin(st.coords[-1][o], rng[o].hull if rng[o].hull is not None else unknown,
                                    model.output.threshold, model.output.position == "first" and st.first == 0,
                                    exact_rows=True)
        if st.coords[-1][o].exact_unless == frozenset():  # every row exact: soft = hard, on θ too
            e = ZERO
    first_exact = first_row_soft_exact(model, st)
    if first_exact:  # the output row: soft = hard there
        e, margin = ZERO, first_row_margin(model, margin)
    every_row_exact = not model.output.argmax and st.coords[-1][model.output.dim].exact_unless == frozenset()
    # every row that may leak leaks to the side of its hard decision (L-one-sided): no margin needed
    out = None if model.output.argmax else st.coords[-1][model.output.dim]
    sided = out is not None and not every_row_exact and span_margin(out, model.output.threshold) == (None, False)
    top = sup(e, n0)
    ok = bool(sided or e.is_zero() and (margin > 0 or all_uniform(st) or every_row_exact or first_exact)
              or (top is not None and top < margin))
    return TailReport(n0, tuple(heads), e, top if top is not None else arb("inf"), margin, ok)


def _embedding(model: Model, d: str, n0: int) -> TailRange:
    token = _from_hull(_token_hull(model, d))
    pe, table = dict(model.position_embed), dict(model.position_table)
    if d in pe:
        return _range_add(token, pe_range(pe[d], n0), n0)
    if d in table:
        return _range_add(token, _from_hull(_hull(frozenset(table[d]))), n0)
    return token


def _coord_range(c, n0: int) -> TailRange:
    return _from_hull(_hull(c.fin)) if c.fin is not None else pe_range(c.pe, n0)


def _contrib(fact: HeadFact, rng: dict, n0: int) -> dict:
    out = {}
    for o, v, c in fact.head.value:
        term = _range_scale(c, rng[v])
        out[o] = _range_add(out[o], term, n0) if o in out else term
    return {o: TailRange(None if r.hull is None else r.hull.union(arb(0)), r.mag) for o, r in out.items()}


def _head(fact: HeadFact, rng: dict, err: dict, tau_expr: Expr, n0: int, first: int):
    head = fact.head
    eta = ZERO
    for q, k, c in head.score:
        if not (err[q].is_zero() and err[k].is_zero()) and (q, k, c) not in fact.shifts:  # L-word-constant (c)
            rq, rk = _magnitude(rng[q], f"dim {q!r}"), _magnitude(rng[k], f"dim {k!r}")
            term = total([mul(rq, err[k]), mul(rk, err[q]), mul(err[q], err[k])], n0)
            eta = add(eta, mul(const(abs(c)), term), n0)
    level = None
    if fact.kind == "uniform":
        leak = ZERO
    elif fact.kind == "ziggurat":
        _require(all(_apart(ends, n0) for ends in fact.ties_apart), head, "tied maxima with different values "
                 "are not excluded")
        level = 1 + max(_collisions(fact, n0), default=0) + fact.bos_off_lattice  # L-bos-apart
        leak = _lattice_leak(head, _ratio([fact.step], tau_expr, n0, head), level, n0)
    elif fact.kind == "lookup":
        _require(all(positive_from(e, n0) for e in fact.step_ends), head, "the curvature α is not positive")
        level = 2
        leak = _lattice_leak(head, _ratio(fact.step_ends, tau_expr, n0, head), level, n0)
    elif fact.kind == "distinct":
        _require(_apart(fact.modulus_ends, n0), head, "the modulus M(n) is not above the key distance")
        level = 1
        leak = _lattice_leak(head, _ratio([fact.step], tau_expr, n0, head), level, n0)
    else:
        _require(nonzero_from(fact.delta_key, n0), head, "the key score step may vanish")
        bounds = gap_lower_bounds(fact)
        _require(bool(bounds), head, "the query grid is not affine in i")
        ratio = _ratio(bounds, tau_expr, n0, head)
        leak = _gap_leak(ratio, n0, first)
        if fact.level_size is not None:  # bands of width γ with ≤ c keys (L-ziggurat): either bound holds
            level = fact.level_size
            leak = min((leak, _lattice_leak(head, ratio, level, n0)), key=lambda m: _sup_or_inf(m, n0))
        if fact.special:  # L-special-key case by case, where both ratios are constants on the tail
            x_a, x_0 = _ratio(bounds[:1], tau_expr, n0, head), _ratio(bounds[1:], tau_expr, n0, head)
            if x_a[1:] == x_0[1:] == (0, 0):
                cases = special_leak(fact, [q_ball(x_a[0]), q_ball(x_0[0])],
                                     other_values=fact.rungs_agree and eta.is_zero())
                leak = min((leak, Mono(cases)), key=lambda m: _sup_or_inf(m, n0))
        if fact.class_gap is not None:  # L-value-classes: keys valued unlike the maxima lie ≥ g below them
            leak = min((leak, _gap_leak(_ratio([Num(fact.class_gap)], tau_expr, n0, head), n0, first)),
                       key=lambda m: _sup_or_inf(m, n0))
    lam = _capped(leak, n0)
    inv_tau = None
    added = {}
    for o, v, c in head.value:
        nu = mul(const(abs(c)), err[v])
        spread = mul(const(abs(c)), _spread(rng[v], f"the value dim {v!r} of head {head.name!r}"))
        if eta.is_zero():
            e = add(nu, mul(lam, spread), n0)
        else:
            inv_tau = inv_tau or with_logs(Num(Fraction(1)), tau_expr, n0)
            drift = mul(eta, inv_tau)
            e = add(nu, mul(spread, drift if fact.kind == "uniform" else add(drift, mul(const(2), lam), n0)), n0)
            top = sup(drift, n0) if fact.homogeneous else None
            if top is not None and top.is_finite():  # L-fp-gap: the maxima share a value, leak ≤ e^{2η/τ}·Λ
                shared = add(nu, mul(spread, mul(const((2 * top).exp()), lam)), n0)
                e = min((e, shared), key=lambda m: _sup_or_inf(m, n0))
        added[o] = add(added[o], e, n0) if o in added else e
    return TailHead(head.name, leak, level), added


def _require(ok: bool, head, what: str) -> None:
    if not ok:
        raise TailFailure(f"head {head.name!r}: {what} for every n beyond N₀")


def _apart(ends, n0: int) -> bool:
    return any(positive_from(lo, n0) and positive_from(hi, n0) for lo, hi in ends)


def _collisions(fact: HeadFact, n0: int) -> list[int]:
    degree = [0] * len(fact.offsets)
    for a, b, ends in fact.pairs:
        if not _apart(ends, n0):
            degree[a] += 1
            degree[b] += 1
    return degree


def _ratio(nums, tau_expr: Expr, n0: int, head) -> tuple[Fraction, Fraction, int]:
    """(c, a, b) with min_k |num_k(n)/τ(n)| ≥ c·n^a·(log n)^b > 0 on the tail (the smallest scale wins)."""
    try:
        parts = [absolute(with_logs(e, tau_expr, n0)) for e in nums]
    except TailFailure as exc:
        raise TailFailure(f"head {head.name!r}: {exc}") from None
    scale = min((m.a, m.b) for m in parts)
    low = None
    for m in parts:
        v = m.c.lower() * scale_inf(m.a - scale[0], m.b - scale[1], n0)
        low = v if low is None else low.min(v)
    if not low > 0:
        raise TailFailure(f"head {head.name!r}: its score gap over τ is not certainly positive beyond N₀")
    return _rational_below(low), *scale


def _rational_below(x) -> Fraction:
    """A rational in (0, x] with a small denominator (x a positive ball)."""
    v = exact_fraction(x.lower())
    small = Fraction(floor(v * 1024), 1024)
    return small if small > 0 else v


def _exponent(c: Fraction, a: Fraction, b: int, n0: int) -> Fraction | None:
    """K > 0 with c·n^a·L^b ≥ K·L for every n ≥ N₀ (the scale grows: (a, b) > (0, 0)), capped."""
    low = q_ball(c) * scale_inf(a, b - 1, n0)
    if not low > 0:
        return None
    return min(_rational_below(low), Fraction(MAX_EXPONENT))


def _lattice_leak(head, x: tuple, level: int, n0: int) -> Mono:
    """L-ziggurat c·q/(1−q) = c/(e^x − 1): constant for constant x; ≤ c·n^−K/(1 − N₀^−K) when x ≥ K·log n;
    ≤ c/x (e^x − 1 ≥ x) when x shrinks."""
    c, a, b = x
    if (a, b) == (0, 0):
        return Mono(q_ball(level) / ((q_ball(c)).exp() - 1))
    if (a, b) > (0, 0):
        k = _exponent(c, a, b, n0)
        if k is not None:
            return Mono(q_ball(level) / (1 - arb(n0) ** (-q_ball(k))), -k)
    return Mono(q_ball(Fraction(level) / c), -a, -b)


def _gap_leak(x: tuple, n0: int, first: int) -> Mono:
    """L-gap N·e^(−x) with N = n + 1 − first ≤ n·(1 + 1/N₀): n^(1−K) when x ≥ K·log n, else e^(−c)·n."""
    c, a, b = x
    keys = q_ball(1 + Fraction(max(1 - first, 0), n0))
    if (a, b) > (0, 0):
        k = _exponent(c, a, b, n0)
        if k is not None:
            return Mono(keys, 1 - k)
    return Mono(keys * (-q_ball(c)).exp() if (a, b) == (0, 0) else keys, Fraction(1))


def _sup_or_inf(leak: Mono, n0: int) -> float:
    """An order for choosing between two valid bounds (the choice needs no proof: both hold)."""
    top = sup(leak, n0)
    return float("inf") if top is None or not top.is_finite() else float(top.upper())


def _capped(leak: Mono, n0: int) -> Mono:
    """Λ ≤ r/(1 + r) (L-layer-refined, leak-share: the maxima weigh ≥ 1 against r), as in the boxes:
    for a constant r ≤ R that is the constant R/(1 + R) (x/(1 + x) increases); a decaying r keeps
    Λ ≤ r; a growing one is capped at 1."""
    top = sup(leak, n0)
    if top is None:
        return const(1)
    if leak.a == 0 and leak.b == 0:
        return const(top / (1 + top))
    return leak if top < 1 else const(1)


def _ffn_err(layer, fact, rng: dict, err: dict, n0: int) -> dict:
    """bounds._ffn_err on the tail: regimes from the supremum of each unit's input error."""
    e_h = [total([mul(const(abs(c)), err[d]) for d, c in u.inputs], n0) for u in layer.units]
    tops = [sup(e, n0) for e in e_h]
    outs = sorted({d for u in layer.units for d, _ in u.outputs})
    exact, writer_pre = {}, dict(fact.writer_pre)
    for o in outs if fact.combos is not None else ():  # one erroneous input: its exact error, at the supremum
        read = {d for u in layer.units if any(e == o for e, _ in u.outputs) for d, _ in u.inputs} | {o}
        balls = {d: sup(err[d], n0) for d in read}
        if all(b is not None for b in balls.values()) and (got := _one_noisy_input(layer, writer_pre[o], o, balls)) is not None:
            exact[o] = Mono(got)
    outs = [o for o in outs if o not in exact]
    if not outs:
        return {**err, **exact}
    if fact.combos is None:
        hs = [_pre_hull(u, rng) for u in layer.units]
        patterns = {tuple(_regime(h, e) for h, e in zip(hs, tops))}
    else:
        patterns = {tuple(_regime(q_ball(h), e) for h, e in zip(pre, tops)) for pre in fact.pre}
    worst = {o: ZERO for o in outs}
    for regimes in patterns:
        for o in outs:
            slope = {o: Fraction(1)}
            parts = []
            for u, e, reg in zip(layer.units, e_h, regimes):
                co = sum((c for d, c in u.outputs if d == o), Fraction(0))
                if co == 0 or reg == "off":
                    continue
                if reg == "cross":
                    parts.append(mul(const(abs(co)), e))
                    continue
                for d, c in u.inputs:
                    slope[d] = slope.get(d, Fraction(0)) + co * c
            parts += [mul(const(abs(s)), err[d]) for d, s in slope.items() if s != 0]
            worst[o] = maximum(worst[o], total(parts, n0), n0)
    return {**err, **worst, **exact}


def _regime(h, e) -> str:
    if e is None or h is None:
        return "cross"
    return "off" if h + e <= 0 else "on" if h - e >= 0 else "cross"


def _pre_hull(u, rng: dict):
    if any(rng[d].hull is None for d, _ in u.inputs):
        return None
    return q_ball(u.bias) + sum((q_ball(c) * rng[d].hull for d, c in u.inputs), arb(0))


def _ffn_range(layer, rng: dict, n0: int) -> dict:
    new = dict(rng)
    for u in layer.units:
        h = _pre_hull(u, rng)
        relu_hull = None if h is None else h if h > 0 else arb(0) if h <= 0 else arb(0).union(h.upper())
        mags = [rng[d].mag for d, _ in u.inputs]
        relu_mag = None if any(m is None for m in mags) else total(
            [const(abs(u.bias))] + [mul(const(abs(c)), m) for (_, c), m in zip(u.inputs, mags)], n0)
        relu = TailRange(relu_hull, relu_mag) if relu_hull is None else _from_hull(relu_hull)
        for d, c in u.outputs:
            new[d] = _range_add(new[d], _range_scale(c, relu), n0)
    return new


def tail_record(report: TailReport) -> dict:
    """The certificate's ``tail`` entry (the checker recomputes it and compares)."""
    return {
        "n": [report.n0, "inf"],
        "leak_upper": {h.name: h.leak.text() for h in report.heads},
        "level_size": {h.name: h.level_size for h in report.heads if h.level_size is not None},
        "error_bound": report.err.text(),
        "error_upper": upper(report.err_sup) if report.err_sup.is_finite() else "inf",
        "margin_lower": lower(report.margin),
        "exact": bool(report.err.is_zero()),
    }


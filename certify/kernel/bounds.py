"""Rigorous error bounds for one box of lengths n ∈ [lo, hi] (refined L-layer, theory.md §4).

Given the structural facts of :mod:`structure` and a schedule τ(n), this walks
the layers once with python-flint balls in which n ranges over the whole box:

* every coordinate carries a ball enclosing its hard value at every position
  (``rng``) and an upper bound on |soft − hard| (``err``);
* an attention head adds ``ν + Λ·D`` to its output dims when its score inputs are
  exact (η = 0), and ``ν + D·(η/τ + 2Λ)`` otherwise (L-lipschitz + L-gap), where
  ν is the value error, D the value spread and Λ ≤ r/(1 + r) the leaked weight,
  with r from L-ziggurat (c·q/(1−q), q = e^{−|A(n)|/τ}) or L-gap (N·e^{−γ/τ}, or c·q/(1−q) with
  q = e^{−γ/τ} when the gap head's bands of width γ hold ≤ c keys);
* an FFN unit is inactive / linear / crossing over the error box of each joint
  hard input; linear units cancel exactly when their slopes do (L-round), so
  rounded Booleans become exact again.

Every comparison that decides anything is a certain ball comparison.  The
result is a :class:`BoxReport`; certification needs ``err < margin`` (or
``err = 0`` exactly) on every box of a cover of the n-range.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from flint import arb, ctx, fmpq

from ..errors import ExprError
from ..expr import BinOp, Expr, Log, Num, eval_ball
from ..model import AttentionLayer, Model
from .polyid import ball_of, integer_polynomial, simplified, univariate
from .rounding_error import FloatFormat, RoundingFailure
from .structure import (HeadFact, Structure, argmax_gap, bos_values, first_row_outputs, first_row_soft_exact,
                        first_row_values, harmonic_distance, span_margin)

PRECISION_BITS = 128
GAP_HALVINGS = 6  # a wide box's γ/τ is re-bounded on at most 2^6 pieces (:func:`_gap_over_tau`)
ZERO = arb(0)


class BoxFailure(Exception):
    """A fact needed on this box could not be established (names the head/dim)."""


@lru_cache(maxsize=65536)
def q_ball(v: Fraction):
    return arb(fmpq(v.numerator, v.denominator))


@dataclass(frozen=True)
class HeadBound:
    name: str
    leak: object  # upper bound on r (ball)
    err: dict  # out dim -> added error
    level_size: int | None = None  # c of L-ziggurat on this box (lattice heads), recorded for the audit


@dataclass(frozen=True)
class BoxReport:
    lo: int
    hi: int
    tau: object
    heads: tuple[HeadBound, ...]
    err: object  # error bound at the output dim
    margin: object
    ok: bool
    ffn_inputs: tuple = ()  # (layer, {dim: error bound} before, after) per FFN layer, for second-opinion obligations


def box_ball(lo: Fraction | int, hi: Fraction | int):
    """The ball [lo, hi]."""
    return q_ball(Fraction(lo)).union(q_ball(Fraction(hi)))


@lru_cache(maxsize=4096)
def _hull(values: frozenset) -> object:
    return box_ball(min(values), max(values))


def analyse_box(model: Model, st: Structure, tau: Expr, lo: int, hi: int, fp: FloatFormat | None = None) -> BoxReport:
    """Error bounds of every layer on the box n ∈ [lo, hi]; raises :class:`BoxFailure`.  With ``fp`` the
    soft model is evaluated in that floating-point format (rounding_error.py adds each stage's rounding)."""
    with ctx.workprec(PRECISION_BITS):
        try:
            return _analyse_box(model, st, tau, lo, hi, fp)
        except (ExprError, RoundingFailure) as exc:  # a pole, a log of ≤ 0, a rounding precondition
            raise BoxFailure(f"for n in [{lo}, {hi}]: {exc}") from None


def _analyse_box(model: Model, st: Structure, tau_expr: Expr, lo: int, hi: int, fp=None) -> BoxReport:
    n = box_ball(lo, hi)
    env = {"i": _position_pieces(st.first, hi), "n": n}
    tau = ball_of(tau_expr, n)
    if not tau > 0:
        raise BoxFailure(f"τ(n) is not certainly positive for n in [{lo}, {hi}]")
    rng = _embedding_ranges(model, env)
    err = {d: ZERO for d in model.dims} if fp is None else fp.embedding_error(
        {d: _token_hull(model, d).abs_upper() for d in model.dims}, _pe_abs(model, env))
    head_bounds = []
    ffn_inputs = []
    for k, layer in enumerate(model.layers):
        facts = st.facts[k]
        coords_after = st.coords[k + 1]
        if isinstance(layer, AttentionLayer):
            new_rng, new_err = dict(rng), dict(err)
            for fact in facts:
                hb = _head(fact, rng, err, (tau, tau_expr), n, env, st.first, hi, fp)
                head_bounds.append(hb)
                for o, e in hb.err.items():
                    new_err[o] = new_err[o] + e
                for o, contrib in _contrib(fact, rng).items():
                    new_rng[o] = new_rng[o] + contrib
            if fp is not None:  # the residual sum x + Σ heads, stored once per layer
                new_err.update({o: new_err[o] + fp.residual_error(layer, o, rng, err, hi + 1 - st.first)
                                for o in {o for h in layer.heads for o, _, _ in h.value}})
            rng, err = new_rng, new_err
        else:
            before, err = {d: err[d] for d in facts.dims}, _ffn_err(layer, facts, rng, err, fp)
            for o, x, r in facts.absorbs if fp is None else ():  # L-ffn-absorb: flat within r of every noisy value
                if not before[x] <= q_ball(r):
                    raise BoxFailure(f"layer {k}: the error of {x!r} may exceed {r}, within which the FFN keeps {o!r} exact")
                err[o] = ZERO
            ffn_inputs.append((k, before, {d: err[d] for d in facts.dims}))
            rng = _ffn_range(layer, rng)
        rng = {d: _range(c, env) if c.fin is not None or c.pe is not None else rng[d] for d, c in coords_after.items()}
    sided = False
    if model.output.argmax:
        e, margin = _argmax_error(model, err), q_ball(argmax_gap(model, st) / 2)
    else:
        o = model.output.dim
        coord = st.coords[-1][o]
        e = err[o] if fp is None else err[o] + fp.threshold_error(model.output.threshold)
        every_row_exact = fp is None and coord.exact_unless == frozenset()  # in exact arithmetic only
        if every_row_exact:
            e = ZERO
        margin = _margin(coord, rng[o], model.output.threshold, model.output.position == "first" and st.first == 0,
                         _output_facts(coord, model.output.position, st.first, model.output.threshold, env),
                         exact_rows=fp is None)
        sided = fp is None and not every_row_exact and span_margin(coord, model.output.threshold) == (None, False)
        for gap, ratio in coord.needs if fp is None else ():  # L-nearest-level: the sides of the spans need τ small
            if not q_ball(gap) / tau - ((n + 1) * q_ball(ratio)).log() >= 0:
                raise BoxFailure(f"for n in [{lo}, {hi}]: e^({gap}/τ) ≥ (n + 1)·{ratio} is not certain, which the "
                                 f"sides of {o!r}'s noisy spans need (L-nearest-level)")
    first_exact = fp is None and first_row_soft_exact(model, st)
    if first_exact:
        e, margin = ZERO, first_row_margin(model, margin, n)
    # error 0 with margin 0 (a hard output on θ) is accepted where soft is hard at every output row: every
    # head uniform (symmetry), every row exact (exact_unless = ∅), or the first row, the output's, exact
    # every row that may leak leaks to the side of its hard decision (L-one-sided): no margin needed
    ok = bool(sided or e < margin or e.is_zero() and (
        margin > 0 or all_uniform(st) or first_exact or (not model.output.argmax and every_row_exact)))
    return BoxReport(lo, hi, tau, tuple(head_bounds), e, margin, ok, tuple(ffn_inputs))


def first_row_margin(model: Model, otherwise, n=None):
    """min |y − θ| over the hard outputs at the first row (:func:`first_row_values`; on a box ``n`` of
    lengths, balls when the embedding there moves with n, as i/n at i = 1), else ``otherwise``."""
    values = first_row_values(model)
    if values is not None:
        return q_ball(min(abs(v - model.output.threshold) for v in values))
    balls = None if n is None else first_row_outputs(
        model, lambda v: q_ball(Fraction(v)), lambda h: h if h > 0 else ZERO if h <= 0 else ZERO.union(h.upper()),
        lambda e, first: eval_ball(e, {"i": q_ball(Fraction(first)), "n": n}))
    if balls is None:
        return otherwise
    t = q_ball(model.output.threshold)
    return _least(y.lower() - t if y > t else t - y.upper() if y < t else ZERO for y in balls)


def all_uniform(st: Structure) -> bool:
    return all(f.kind == "uniform" for layer in st.facts if isinstance(layer, tuple) for f in layer)


def _position_pieces(first: int, hi: int) -> tuple:
    """Balls covering the positions i ∈ [first, hi], each [a, b] with b ≤ 2^20·max(a, 1): a ball's
    radius is rounded up to 30 bits, so one ball [0, 10^12] would reach i ≈ −1000 (and 1/(i+1) a pole)."""
    pieces, a = [], first
    while True:
        b = min(hi, max(a, 1) * 2**20)
        pieces.append(box_ball(a, b))
        if b == hi:
            return tuple(pieces)
        a = b


def _pe_ball(e: Expr, env) -> object:
    """Hull of the PE's values over every piece of the position range."""
    balls = [eval_ball(e, {"i": piece, "n": env["n"]}) for piece in env["i"]]
    out = balls[0]
    for b in balls[1:]:
        out = out.union(b)
    return out


def _range(c, env) -> object:
    return _hull(c.fin) if c.fin is not None else _pe_ball(c.pe, env)


def _embedding_ranges(model: Model, env) -> dict:
    """Token values' hull plus the position embedding's ball, per dim."""
    pe = dict(model.position_embed)
    table = dict(model.position_table)
    return {d: _token_hull(model, d) + _pe_ball(pe[d], env) if d in pe
            else _token_hull(model, d) + _hull(frozenset(table[d])) if d in table
            else _token_hull(model, d) for d in model.dims}


def _pe_abs(model: Model, env) -> dict:
    """|position embedding| per dim (expressions and tables), for the rounding of the embedding."""
    balls = {**{d: _hull(frozenset(v)) for d, v in model.position_table},
             **{d: _pe_ball(e, env) for d, e in model.position_embed}}
    return {d: b.abs_upper() for d, b in balls.items()}


@lru_cache(maxsize=4096)
def _token_hull(model: Model, dim: str) -> object:
    symbols = list(model.alphabet) + ([model.bos] if model.bos else [])
    return _hull(frozenset(dict(model.token_embed[s]).get(dim, Fraction(0)) for s in symbols))


def _contrib(fact: HeadFact, rng: dict) -> dict:
    out = {}
    for o, v, c in fact.head.value:
        term = q_ball(c) * rng[v]
        out[o] = out[o] + term if o in out else term
    return {o: r.union(ZERO) for o, r in out.items()}  # hull of the values, and 0 for an empty row


def _head(fact: HeadFact, rng: dict, err: dict, taus, n, env, first: int, hi: int, fp=None) -> HeadBound:
    head = fact.head
    tau, tau_expr = taus
    eta, level = ZERO, None
    for q, k, c in head.score:
        if not (err[q].is_zero() and err[k].is_zero()) and (fp is not None or (q, k, c) not in fact.shifts):
            # L-word-constant (c) in exact soft arithmetic; rounding may differ between rows
            eta += abs(q_ball(c)) * (rng[q].abs_upper() * err[k] + rng[k].abs_upper() * err[q] + err[q] * err[k])
    if fp is not None:
        eta += fp.score_error(head, rng, err, tau, hi + 1 - first)
    if fact.kind == "uniform":
        leak = ZERO
    elif fact.kind == "ziggurat":
        step = abs(ball_of(fact.step, n))
        if not step > 0:
            raise BoxFailure(f"head {head.name!r}: lattice step {step} not certainly positive")
        for ends in fact.ties_apart:
            if not _apart(ends, n):
                raise BoxFailure(f"head {head.name!r}: tied maxima with different values are not excluded "
                                 f"for n in [{n.lower()}, {n.upper()}]")
        level = _level_size(fact, n)
        leak = _lattice_leak(fact, abs(_over_tau(fact.step, tau_expr, n)), level)
    elif fact.kind == "lookup":
        ends = [ball_of(e, n) for e in fact.step_ends]
        if not all(e > 0 for e in ends):
            raise BoxFailure(f"head {head.name!r}: the curvature α of the lookup score is not certainly positive")
        ratios = [_over_tau(e, tau_expr, n) for e in fact.step_ends]
        level = 2
        leak = _lattice_leak(fact, ratios[0].min(ratios[1]), level)
    elif fact.kind == "distinct":
        if not _apart(fact.modulus_ends, n):
            raise BoxFailure(f"head {head.name!r}: the modulus M(n) is not certainly above the key distance")
        level = 1
        leak = _lattice_leak(fact, abs(_over_tau(fact.step, tau_expr, n)), level)
    else:
        ratio, level = _gap_over_tau(fact, env, tau, tau_expr), fact.level_size
        leak = (hi + 1 - first) * (-ratio).exp()
        if level is not None and (-ratio).exp() < 1:  # bands of width γ with ≤ c keys: L-ziggurat
            leak = leak.min(_lattice_leak(fact, ratio, level))
        if fact.special:
            leak = leak.min(special_leak(fact, [_over_tau(g, tau_expr, n) for g in fact.gammas],
                                         other_values=fact.rungs_agree and eta.is_zero() and fp is None))
        if fact.class_gap is not None:  # L-value-classes: keys valued unlike the maxima lie ≥ g below them
            leak = leak.min((hi + 1 - first) * (-abs(_over_tau(Num(fact.class_gap), tau_expr, n))).exp())
    lam = leak / (1 + leak)  # Λ = R/(W + R) ≤ r/(1 + r): the maxima weigh W ≥ 1 (L-layer-refined, leak-share)
    added = {}
    for o, v, c in head.value:
        nu = abs(q_ball(c)) * err[v]
        spread = abs(q_ball(c)) * 2 * rng[v].rad()
        if eta.is_zero():
            e = nu + lam * spread
        elif fact.kind == "uniform":
            e = nu + spread * eta / tau
        else:
            e = nu + spread * (eta / tau + 2 * lam)
            shared = (2 * eta / tau).exp() * lam if tau > 0 else None  # L-fp-gap: the maxima share a value;
            if (fact.homogeneous or fp is not None and level is not None) and shared is not None and shared.is_finite():
                e = e.min(nu + spread * arb(shared.upper()).min(arb(1)))  # leak ≤ e^{2η/τ}·Λ ≤ 1 (upper ends)
        added[o] = added[o] + e if o in added else e
    if fp is not None:
        added = {o: e + fp.head_output_error(head, o, rng, err, hi + 1 - first) for o, e in added.items()}
    return HeadBound(head.name, lam, added, level)


def _lattice_leak(fact: HeadFact, step_over_tau, level_size: int):
    """L-ziggurat: c·q/(1−q) with q = e^{−g/τ} for levels of width g holding ≤ c keys each."""
    q = (-step_over_tau).exp()
    if not q < 1:
        raise BoxFailure(f"head {fact.head.name!r}: e^(-step/τ) not certainly below 1")
    return level_size * q / (1 - q)


def special_leak(fact: HeadFact, ratios: list, other_values: bool):
    """L-special-key, case by case (ratios: the gammas (|A|, L − |A| at both end rows) over τ).  BOS on
    top (U ≥ L): rung j lies ≥ L + |A|·j below, r ≤ e^{−(x₀ + 2x_A)}/(1 − q); the top rung on top
    (U ≤ −L): BOS lies ≥ L − |A| below, the other rungs |A|·(j − 1), r ≤ e^{−x₀} + q/(1 − q), with
    q = e^{−x_A}.  ``other_values`` (the rungs carry one value, exact scores): the weight that moves the
    output is on keys whose value differs from the maximum's, and there the rungs leak nothing."""
    x_a = abs(ratios[0])
    x_0 = abs(ratios[1])
    for r in ratios[2:]:
        x_0 = x_0.min(abs(r))
    q = (-x_a).exp()
    if not q < 1:
        raise BoxFailure(f"head {fact.head.name!r}: e^(-|A|/τ) not certainly below 1")
    bos_top = (-(x_0 + 2 * x_a)).exp() / (1 - q)
    rung_top = (-x_0).exp() + (0 if other_values else q / (1 - q))
    return bos_top.max(rung_top)


def _apart(ends, n) -> bool:
    return any(ball_of(lo, n) > 0 and ball_of(hi, n) > 0 for lo, hi in ends)


def _level_size(fact: HeadFact, n) -> int:
    """c of L-ziggurat: keys of two classes share a lattice level only when their offsets are not
    apart (|R| > key distance); a level holds pairwise-colliding classes, so c ≤ 1 + max degree."""
    degree = [0] * len(fact.offsets)
    for a, b, ends in fact.pairs:
        if not _apart(ends, n):
            degree[a] += 1
            degree[b] += 1
    return 1 + max(degree, default=0) + fact.bos_off_lattice  # the BOS key joins at most one band (L-bos-apart)


def _split_log(e: Expr):
    """(R, X, p) with e = R·(log X)^p, R rational in n, p ∈ Z; None for other shapes."""
    if isinstance(e, Log):
        return Num(Fraction(1)), e.arg, 1
    if isinstance(e, BinOp) and e.op in "*/":
        a, b = _split_log(e.left), _split_log(e.right)
        if a is None or b is None or a[2] and b[2] and a[1] != b[1]:
            return None
        return BinOp(e.op, a[0], b[0]), a[1] if a[2] else b[1], a[2] + (b[2] if e.op == "*" else -b[2])
    return (e, None, 0) if univariate(e) is not None else None


def _over_tau(num: Expr, tau_expr: Expr, n):
    """num(n)/τ(n) as tightly as balls allow: for τ = R·(log X)^p as (num/R)·(log X)^−p with num/R in
    lowest terms, so a wide box of n loses nothing to n/n-style dependency."""
    split = _split_log(tau_expr)
    if split is None:
        return ball_of(BinOp("/", num, tau_expr), n)
    r, x, p = split
    return ball_of(BinOp("/", num, r), n) * (ball_of(x, n).log() ** -p if p else 1)


def _gap_over_tau(fact: HeadFact, env, tau, tau_expr: Expr) -> object:
    """γ/τ for the smallest non-zero gap γ = min over :func:`gap_lower_bounds` (in |·|)."""
    n = env["n"]
    if not abs(ball_of(fact.delta_key, n)) > 0:
        raise BoxFailure(f"head {fact.head.name!r}: key score step not certainly non-zero")
    bounds = gap_lower_bounds(fact)
    if not bounds:
        raise BoxFailure(f"head {fact.head.name!r}: the query grid is not affine in i or not certainly non-zero")
    return _least_over_tau(fact, bounds, tau_expr, n, 0)


def _least_over_tau(fact: HeadFact, bounds: tuple, tau_expr: Expr, n, halvings: int) -> object:
    """min |γ_k/τ| over a box of n.  One ball over a wide box can lose γ/τ > 0 to the dependency of a
    high-degree ratio; the box is then halved (up to 2^GAP_HALVINGS pieces) and the least lower end kept
    — the leak needs γ/τ only from below."""
    ratios = [abs(_over_tau(g, tau_expr, n)) for g in bounds]
    if not all(r.is_finite() for r in ratios):
        raise BoxFailure(f"head {fact.head.name!r}: the query grid is not affine in i or not certainly non-zero")
    least = ratios[0]
    for r in ratios[1:]:
        least = least.min(r)
    lo, hi = exact_fraction(n.lower()), exact_fraction(n.upper())
    if least.lower() > 0 or halvings == GAP_HALVINGS or hi - lo < 2:
        return least
    mid = (lo + hi) // 2
    halves = [_least_over_tau(fact, bounds, tau_expr, box_ball(a, b), halvings + 1) for a, b in ((lo, mid), (mid, hi))]
    return halves[0].lower().min(halves[1].lower())


def gap_lower_bounds(fact: HeadFact) -> tuple[Expr, ...]:
    """Expressions in n whose least |value| bounds every non-zero score gap of an L-gap head
    (rational gap bound, theory.md §4): γ = min|w_i| · min ΔK, where min|w| is the least non-zero
    finite query value, or o/|G| for a query on a grid G with offset o (1 when o = 0) — and an affine
    G is largest in |·| at the end rows, so the two end rows give the bound.  Empty: no bound."""
    if fact.gammas:
        return fact.gammas
    c = fact.query_coord
    if c is None or c.fin is not None:
        least = min((abs(v) for v in c.fin if v != 0), default=Fraction(1)) if c is not None else Fraction(1)
        return (BinOp("*", Num(least), fact.delta_key),)
    if len(fact.grid_ends) != 2:
        return ()
    share = Num(min(c.offset, 1 - c.offset) if c.offset else Fraction(1))
    return tuple(BinOp("/", BinOp("*", share, fact.delta_key), g) for g in fact.grid_ends)


def _ffn_err(layer, fact, rng: dict, err: dict, fp=None) -> dict:
    """Per output dim: max over joint hard inputs of the linear-part error plus crossing units.

    A unit is off (ReLU = 0) when h + e ≤ 0, linear when h − e ≥ 0, crossing otherwise,
    where h is its exact hard pre-activation and e ≥ its input error; linear units add
    their slopes (which may cancel, as in L-round), crossing units add |c|·e.  Output dims whose
    units read one erroneous dim get their exact error instead (:func:`_one_noisy_input`); in a float
    format (``fp``) every row rounds, so neither that nor the exact rows off ``noisy`` apply."""
    pre = [ZERO if fp is None else fp.preactivation_error(u, rng, err) for u in layer.units]
    outs = sorted({d for u in layer.units for d, _ in u.outputs})
    exact_rows = fp is None and fact.noisy is not None
    pres = fact.noisy_pre if exact_rows else fact.pre  # rows off ``noisy`` have exact inputs
    writer_pre = dict(fact.writer_noisy_pre if exact_rows else fact.writer_pre)
    finite = exact_rows or fact.combos is not None
    exact = {o: e for o in outs if fp is None and finite and
             (e := _one_noisy_input(layer, writer_pre[o], o, err)) is not None}
    outs = [o for o in outs if o not in exact]
    if not outs:
        return {**err, **exact}
    e_h = [sum((abs(q_ball(c)) * err[d] for d, c in u.inputs), ZERO) + p for u, p in zip(layer.units, pre)]
    if not finite:
        hs = [q_ball(u.bias) + sum((q_ball(c) * rng[d] for d, c in u.inputs), ZERO) for u in layer.units]
        patterns = {tuple("off" if h + e <= 0 else "on" if h - e >= 0 else "cross" for h, e in zip(hs, e_h))}
    else:
        bound = [_fraction_above(e) for e in e_h]
        patterns = {tuple("off" if h + e <= 0 else "on" if h - e >= 0 else "cross" for h, e in zip(pre, bound))
                    for pre in pres}
    worst = {o: ZERO for o in outs}
    for regimes in patterns:
        for o in outs:
            slope = {o: Fraction(1)}
            cross = ZERO
            for u, e, reg in zip(layer.units, e_h, regimes):
                co = sum((c for d, c in u.outputs if d == o), Fraction(0))
                if co == 0 or reg == "off":
                    continue
                if reg == "cross":
                    cross += abs(q_ball(co)) * e
                    continue
                for d, c in u.inputs:
                    slope[d] = slope.get(d, Fraction(0)) + co * c
            total = cross + sum((abs(q_ball(s)) * err[d] for d, s in slope.items() if s != 0), ZERO)
            worst[o] = worst[o].max(total)
    if fp is not None:
        worst = {o: w + fp.ffn_output_error(layer, o, rng, err, pre) for o, w in worst.items()}
    return {**err, **worst, **exact}


def ffn_error(layer, fact, err: dict) -> dict:
    """The output error bounds of an FFN with finite joint inputs (``fact.combos``) at input errors ``err``."""
    return _ffn_err(layer, fact, {}, err)


def _one_noisy_input(layer, pres, o: str, err: dict):
    """The exact error of output dim o when the units writing it read at most one erroneous dim d
    (|δ| ≤ E), ``pres`` the distinct pre-activation vectors of those units (FFNFact.writer_pre): per joint
    hard input o moves by g(δ) = [o = d]·δ + Σ_u c_u (ReLU(h_u + a_u δ) − ReLU(h_u)), piecewise linear in δ,
    so max |g| over [−E, E] is attained at ±E or at a breakpoint −h_u/a_u; a different d or none adds err[o].
    A crossing unit costs only what it really moves (a clipped ramp 2ReLU(x − 1/4) − 2ReLU(x − 3/4) stays
    2-Lipschitz, not the 4 that |c|·e per unit charges); None when two erroneous dims feed o."""
    writers = [u for u in layer.units if any(e == o for e, _ in u.outputs)]
    noisy = {d for u in writers for d, _ in u.inputs if not err[d].is_zero()}
    if len(noisy) != 1:
        return err[o] if not noisy else None
    d, = noisy
    if not err[d] < HUGE:  # no ramp is exact under such an error: skip the exact walk (huge Fractions)
        return None
    bound = _fraction_above(err[d])
    slopes = [(sum((c for e, c in u.inputs if e == d), Fraction(0)), sum((c for e, c in u.outputs if e == o), Fraction(0)))
              for u in writers]
    top = Fraction(0)
    for pre in pres:
        for x in {-bound, bound} | {-h / a for h, (a, _) in zip(pre, slopes) if abs(h) < abs(a) * bound}:
            g = sum((c * (max(h + a * x, 0) - max(h, 0)) for h, (a, c) in zip(pre, slopes)), Fraction(0))
            top = max(top, abs(g + (x if o == d else 0)))
    return q_ball(top) + (ZERO if o == d else err[o])


def _fraction_above(x) -> Fraction:
    """A rational ≥ every point of the ball; 2^-1000 for anything smaller (keeps Fractions small)."""
    return FLOOR if x.upper() < FLOOR_BALL else exact_fraction(x.upper())


FLOOR = Fraction(1, 2**1000)
FLOOR_BALL = arb(2) ** -1000
HUGE = arb(2) ** 64


def exact_fraction(x) -> Fraction:
    """The exact value of an exact ball (a ball's endpoint)."""
    mantissa, exponent = x.man_exp()
    return Fraction(int(mantissa)) * Fraction(2) ** int(exponent)


def _ffn_range(layer, rng: dict) -> dict:
    new = dict(rng)
    for u in layer.units:
        h = q_ball(u.bias) + sum((q_ball(c) * rng[d] for d, c in u.inputs), ZERO)
        relu = h if h > 0 else ZERO if h <= 0 else ZERO.union(h.upper())
        for d, c in u.outputs:
            new[d] = new[d] + q_ball(c) * relu
    return new


def _argmax_error(model: Model, err: dict) -> object:
    """A ball whose upper end bounds |soft − hard| on every argmax dim: the decision is unchanged
    when that is below half of the smallest top − runner-up gap (:func:`argmax_gap`)."""
    out = ZERO
    for d in model.output.argmax:
        out = out.union(err[d])
    return out


def _at_output(e: Expr, position: str, first: int, env) -> object:
    """A ball holding e(i, n) at the output rows (i = n, i = first, or every row)."""
    if position == "all":
        return _pe_ball(e, env)
    return eval_ball(e, {"i": env["n"] if position == "last" else q_ball(Fraction(first)), "n": env["n"]})


def _output_facts(coord, position: str, first: int, threshold: Fraction, env) -> dict:
    """The output's grid |G| (when p·G is integer-valued, θ = p/q) and L-zero-or-apart (c, min |L_k|, s)
    as balls at the output rows."""
    facts = {}
    if coord.grid is not None and integer_polynomial(BinOp("*", Num(Fraction(threshold.numerator)), coord.grid),
                                                     ("i", "n")):
        facts["grid"] = abs(_at_output(coord.grid, position, first, env))
    if coord.den_bound is not None:
        facts["den"] = abs(_at_output(coord.den_bound, position, first, env))
    if coord.apart is not None:
        centre, least, side = coord.apart
        facts["apart"] = (_at_output(centre, position, first, env),
                          _least(abs(_at_output(e, position, first, env)) for e in least), side)
        facts["apart_rows"] = _apart_rows(coord.apart, position, first, threshold, env)
    return facts


def _apart_rows(apart: tuple, position: str, first: int, threshold: Fraction, env) -> tuple | None:
    """L-zero-or-apart row by row: balls of t = s·(θ − c) and of |L_k| − t as one simplified expression
    each (so that c and L_k, which may both vary with the row, are compared at the same row: c = 1/(2i),
    L = 1/i leaves 1/(2i) at every row, while separate hulls over the rows do not), or None when some
    L_k has no sign proved on the rows."""
    centre, least, side = apart
    t = simplified(BinOp("*", Num(Fraction(side)), BinOp("-", Num(threshold), centre)), ("i", "n"))
    rest = []
    for e in least:
        ball = _at_output(e, position, first, env)
        sign = 1 if ball > 0 else -1 if ball < 0 else 0
        if not sign:
            return None
        rest.append(_at_output(simplified(BinOp("-", BinOp("*", Num(Fraction(sign)), e), t), ("i", "n")),
                               position, first, env))
    return _at_output(t, position, first, env), _least(rest)


def _margin(coord, rng, threshold: Fraction, at_bos: bool = False, facts: dict | None = None,
            exact_rows: bool = False) -> object:
    """min |y − θ| over possible hard outputs (0 when y can sit on θ).  ``exact_rows`` (exact arithmetic):
    a row off ``coord.exact_unless`` has soft = hard exactly, hence the hard decision — on θ too (soft =
    θ = hard, not above it) — so only the rows that may be inexact need the margin: min |v − θ| over
    exact_unless (0 when θ is listed); with spans, only over the rows their side does not decide (L-one-sided).  ``at_bos``: the output is read at the BOS row only, whose hard
    value is ``coord.at_bos`` when known."""
    if at_bos and (values := bos_values(coord)):  # the BOS row's value, or its finitely many values
        return q_ball(min(abs(v - threshold) for v in values))
    every = _hard_margin(coord, rng, threshold, facts or {})
    spans = span_margin(coord, threshold) if exact_rows else None
    if spans is not None:  # only rows not decided by their side need it (L-one-sided)
        least, near = spans
        apart = _separation(threshold, facts or {}) if near else None
        parts = ([q_ball(least)] if least is not None else []) + ([apart] if near else [])
        return every if not parts or near and apart is None else every.max(_least(parts))
    noisy = coord.exact_unless if exact_rows else None
    if noisy:
        return every.max(q_ball(min(abs(v - threshold) for v in noisy)))
    return every


def _separation(threshold: Fraction, facts: dict):
    """A lower bound on |y − θ| for y ≠ θ at the output rows (θ = p/q): 1/(q·|G|) when y·G ∈ Z, 1/(q·B) when
    y's denominator is at most B; None when neither is known."""
    q = threshold.denominator
    for key in ("grid", "den"):
        if key in facts and facts[key] > 0:
            return q_ball(Fraction(1)) / (q * facts[key].upper())
    return None


def _hard_margin(coord, rng, threshold: Fraction, facts: dict) -> object:
    """min |y − θ| over every possible hard output y (0 when y can sit on θ); ``facts`` (balls at the output
    rows, :func:`_output_facts`): a grid |G| for y·G ∈ Z + o — with θ = p/q, (y − θ)·qG ∈ Z + (q·o mod 1)
    as pG is an integer, so a non-zero o' = q·o mod 1 keeps y at least min(o', 1 − o')/(q|G|) from θ
    (1/(2n) + Z/n is never 0), and 1/(q|G|) when y never equals θ (L-two-keys); L-zero-or-apart (c, L, s): y = c or s·(y − c) ≥ L, so with t = s·(θ − c)
    the distance is −t when t < 0 and min(t, L − t) when 0 < t < L."""
    if coord.fin is not None:
        return q_ball(min(abs(v - threshold) for v in coord.fin))
    if coord.harmonic is not None:
        return q_ball(harmonic_distance(coord.harmonic, threshold))
    t = q_ball(threshold)
    if rng > t:
        return rng.lower() - t
    if rng < t:
        return t - rng.upper()
    share = (threshold.denominator * coord.offset) % 1
    if "grid" in facts and share and facts["grid"] > 0:
        return q_ball(min(share, 1 - share)) / (threshold.denominator * facts["grid"].upper())
    if "grid" in facts and coord.avoids == threshold and facts["grid"] > 0:  # (y − θ)·qG: a non-zero integer
        return q_ball(Fraction(1)) / (threshold.denominator * facts["grid"].upper())
    if "apart" in facts:
        centre, least, side = facts["apart"]
        beyond = side * (t - centre)
        if beyond < 0:
            return -beyond
        if beyond > 0 and least - beyond > 0:
            return _least((beyond, least - beyond))
        rows = facts.get("apart_rows")
        if rows is not None and rows[0] > 0 and rows[1] > 0:
            return _least(rows)
    return ZERO


def _least(balls) -> object:
    """A ball at the least lower end of these balls (their union's lower end): below every point of each."""
    hull = None
    for b in balls:
        hull = b if hull is None else hull.union(b)
    return hull.lower()

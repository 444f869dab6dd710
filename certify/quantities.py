"""A model's Theorem 26 quantities — gap γ(n), activation bound x_max(n), K, L — from the kernel's facts.

Why here and not in the certificate: the appendix compares the certified τ(n) with the
paper's generic schedule *for the same model*, which needs the inputs of Theorem 26
(theory.md §2–3): the smallest non-zero score gap γ(n), the largest activation x_max(n),
the Lemma 25 constant K of the worst layer and the depth L.  The certifier never needs
them (its refined bounds, theory.md §4, are per head and per coordinate), so they are
computed on demand from the same structural analysis (:func:`certify.kernel.structure.analyse`):

* γ(n): the least of the per-head gap lower bounds the kernel proves — the lattice step |A(n)|
  of an L-ziggurat / L-tiebreak head, the curvature α of an L-lookup head (gaps α·d²), the
  rational gap bounds of an L-gap head (:func:`certify.kernel.bounds.gap_lower_bounds`).
  Uniform heads have no gap (softmax = ahardmax exactly), so a model of uniform heads only has
  γ = ∞ and its generic τ is unbounded.
* x_max(n): the largest |hard activation| over every layer, enclosed in balls exactly as the
  kernel's box analysis does (token hull + PE over every position, head contributions, FFN
  ranges), and at least 1 (theory.md §2, "w.l.o.g.").
* K: :func:`symbolic.layer_bound.model_constant` (the coarse L-layer constant from weights).

Nothing here decides a proof; values are exact Fractions (γ exactly, x_max an exact upper end of a
ball) so that the generic recursion (:mod:`symbolic.schedule`) is evaluated on exact inputs.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from flint import ctx

from .errors import ExprError
from .expr import BinOp, Expr, Num, Var, eval_exact, to_text
from .kernel.bounds import (PRECISION_BITS, _contrib, _embedding_ranges, _ffn_range, _fraction_above,
                            _position_pieces, _range, box_ball, gap_lower_bounds)
from .kernel.polyid import substitute
from .kernel.structure import Structure, analyse
from .model import AttentionLayer, Model
from .simplify import simplify


@dataclass(frozen=True)
class Quantities:
    """Theorem 26's inputs for one model: γ(n) = min over ``gaps`` (empty: no gap), x_max(n) by balls."""

    model: Model
    structure: Structure
    L: int
    K: Fraction
    gaps: tuple[Expr, ...]  # every head's bound, in n; γ(n) is the least non-zero |value| (empty: all uniform)
    shown: tuple[Expr, ...]  # the bounds that are the least at some probe length (γ's closed form)
    xmax_forms: tuple[Expr, ...]  # x_max(n) = max of these (empty: no closed form matched the balls)

    @property
    def gamma_text(self) -> str:
        """γ(n) as text: the one bound, or ``min(…)`` of those that are least somewhere."""
        if not self.shown:
            return "∞ (uniform heads only)"
        return to_text(self.shown[0]) if len(self.shown) == 1 else "min(" + ", ".join(map(to_text, self.shown)) + ")"

    @property
    def xmax_text(self) -> str:
        if not self.xmax_forms:
            return "(balls only)"
        forms = self.xmax_forms
        return to_text(forms[0]) if len(forms) == 1 else "max(" + ", ".join(map(to_text, forms)) + ")"

    def gamma(self, n: int) -> Fraction | None:
        """γ(n) exactly (None: no head has a gap)."""
        values = [abs(_exact(g, n)) for g in self.gaps]
        values = [v for v in values if v > 0]
        return min(values) if values else None

    def xmax(self, n: int) -> Fraction:
        """An exact upper bound on every |hard activation| at length n (≥ 1)."""
        return max(Fraction(1), activation_bound(self.model, self.structure, n))


def _exact(e: Expr, n: int) -> Fraction:
    try:
        return eval_exact(e, {"n": n})
    except (ExprError, ZeroDivisionError):
        return Fraction(0)


def head_gaps(st: Structure) -> list[Expr]:
    """Every head's lower bound(s) on its non-zero score gaps, as expressions in n."""
    out: list[Expr] = []
    for facts in st.facts:
        if not isinstance(facts, tuple):
            continue
        for fact in facts:
            if fact.kind in ("ziggurat", "distinct"):
                out.append(fact.step)
            elif fact.kind == "lookup":
                out.extend(fact.step_ends)
            elif fact.kind in ("gap", "classes"):
                out.extend(gap_lower_bounds(fact))
    return out


def _readable(gaps: list[Expr], probes: tuple[int, ...]) -> dict[str, Expr]:
    """The distinct bounds, simplified and made positive at the largest probe, by their text."""
    forms: dict[str, Expr] = {}
    for g in gaps:
        s = simplify(g)
        if all(_exact(s, n) == 0 for n in probes):
            continue
        s = s if _exact(s, probes[-1]) > 0 else simplify(BinOp("*", Num(Fraction(-1)), s))
        forms.setdefault(to_text(s), s)
    return forms


def _extremal(forms: dict[str, Expr], probes: tuple[int, ...], pick=min) -> tuple[Expr, ...]:
    """The forms that are the least (``pick=min``) or largest at some probe length, ordered by value at
    the largest probe: a closed form ``min(…)``/``max(…)``.  Values (:meth:`Quantities.gamma`) use all."""
    keep = {to_text(pick(forms.values(), key=lambda e: abs(_exact(e, n)) or float("inf"))) for n in probes}
    return tuple(sorted((forms[k] for k in keep), key=lambda e: abs(_exact(e, probes[-1]))))


def _xmax_forms(model: Model, st: Structure, probes: tuple[int, ...]) -> tuple[Expr, ...]:
    """A closed form for x_max(n), proposed from the finite values and the PEs at the end positions and
    kept only if it matches the ball values at every probe (to 1e-6): display, not proof."""
    consts = {abs(v) for coords in st.coords for c in coords.values() if c.fin is not None for v in c.fin}
    first, last = (activation_bound(model, st, n) for n in (probes[0], probes[-1]))
    if abs(last - first) <= last / 10**6:  # constant (a head output's hull): its nearest simple fraction
        consts.add(last.limit_denominator(64))
    top = Num(max(consts | {Fraction(1)}))
    forms: dict[str, Expr] = {to_text(top): top}
    for coords in st.coords:
        for c in coords.values():
            if c.fin is None and c.pe is not None:
                for at in (Var("n"), Num(Fraction(st.first))):
                    forms.update(_readable([substitute(c.pe, "i", at)], probes))
    shown = _extremal(forms, probes, max)
    for n in probes:
        closed, balls = max(abs(_exact(e, n)) for e in shown), max(Fraction(1), activation_bound(model, st, n))
        if not closed <= balls <= closed * (1 + Fraction(1, 10**6)):
            return ()
    return shown


def activation_bound(model: Model, st: Structure, n: int) -> Fraction:
    """max |hard activation| at length n over every layer, by the kernel's range walk (balls)."""
    with ctx.workprec(PRECISION_BITS):
        env = {"i": _position_pieces(st.first, n), "n": box_ball(n, n)}
        rng = _embedding_ranges(model, env)
        top = max(_fraction_above(abs(r)) for r in rng.values())
        for k, layer in enumerate(model.layers):
            if isinstance(layer, AttentionLayer):
                new = dict(rng)
                for fact in st.facts[k]:
                    for o, contrib in _contrib(fact, rng).items():
                        new[o] = new[o] + contrib
                rng = new
            else:
                rng = _ffn_range(layer, rng)
            rng = {d: _range(c, env) if c.fin is not None or c.pe is not None else rng[d]
                   for d, c in st.coords[k + 1].items()}
            top = max(top, max(_fraction_above(abs(r)) for r in rng.values()))
    return top


def quantities(model: Model, probes: tuple[int, ...] = (1, 2, 10, 10**3, 10**6, 10**9)) -> Quantities:
    """γ(n), x_max(n), K and L of ``model`` (structural analysis only; no certification)."""
    from symbolic.layer_bound import model_constant

    st = analyse(model)
    forms = _readable(head_gaps(st), probes)
    return Quantities(model, st, len(model.layers), model_constant(model), tuple(forms.values()),
                      _extremal(forms, probes) if forms else (), _xmax_forms(model, st, probes))

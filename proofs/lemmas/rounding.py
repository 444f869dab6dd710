"""L-round (theory.md §3; paper's Lemma 9): a two-ReLU FFN snaps near-Booleans to Booleans.

Statement.  f(x) = 2ReLU(x − 1/4) − 2ReLU(x − 3/4) is 0 on (−∞, 1/4] and 1 on [3/4, ∞);
for 0 < δ < 1/2, f_δ(x) = (ReLU(x − δ) − ReLU(x − 1 + δ))/(1 − 2δ) is 0 on (−∞, δ] and 1 on
[1 − δ, ∞); −ReLU(x) + ReLU(−x) = −x (overwrite in residual form).  Consequence: if the hard
value b ∈ {0, 1} and the soft value x̂ has |x̂ − b| ≤ δ, then f_δ(x̂) = b exactly.

Human proof (≤ 5 lines).
1. x ≤ δ: both ReLU arguments are ≤ 0, so f_δ = 0.
2. x ≥ 1 − δ: both are ≥ 0, the difference is (x − δ) − (x − 1 + δ) = 1 − 2δ, so f_δ = 1.
3. ReLU(x) − ReLU(−x) = x for every x, hence the overwrite.
4. |x̂ − b| ≤ δ puts x̂ in the interval of step 1 (b = 0) or step 2 (b = 1).

Discharge.  QF_NRA queries with ReLU as if-then-else (δ symbolic).  For concrete FFNs of a
model, :func:`rounding_obligation` builds the instance and checks it exactly.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable, Mapping

from certify.model import FFNLayer, Unit
from proofs.lemmas.base import Control, Lemma
from proofs.smt import Query, second_opinion


def _f_delta(B, x, delta, normalise=True):
    raw = B.relu(x - delta) - B.relu(x - 1 + delta)
    return raw / (1 - 2 * delta) if normalise else raw


def quarter(B, v, scale=2):
    x = v["x"]
    f = scale * B.relu(x - B.num(Fraction(1, 4))) - scale * B.relu(x - B.num(Fraction(3, 4)))
    return [], B.and_(B.implies(B.le(x, B.num(Fraction(1, 4))), B.eq(f, 0)),
                      B.implies(B.ge(x, B.num(Fraction(3, 4))), B.eq(f, 1)))


def quarter_scale_one(B, v):
    return quarter(B, v, scale=1)


def general_delta(B, v):
    x, d = v["x"], v["delta"]
    f = _f_delta(B, x, d)
    return [B.gt(d, 0), B.lt(d, B.num(Fraction(1, 2)))], B.and_(B.implies(B.le(x, d), B.eq(f, 0)),
                                                               B.implies(B.ge(x, 1 - d), B.eq(f, 1)))


def delta_half(B, v):
    """δ = 1/2: the normaliser 1 − 2δ vanishes; the unnormalised difference is identically 0."""
    x = v["x"]
    half = B.num(Fraction(1, 2))
    return [], B.implies(B.ge(x, 1 - half), B.eq(_f_delta(B, x, half, normalise=False), 1))


def overwrite(B, v):
    x = v["x"]
    return [], B.eq(x + (-B.relu(x) + B.relu(-x)), 0)


def reround(B, v, slack=None):
    xh, b, d = v["xhat"], v["b"], v["delta"]
    allowed = d if slack is None else slack
    hyps = [B.gt(d, 0), B.lt(d, B.num(Fraction(1, 2))), B.eq(b * (b - 1), 0), B.le(B.abs(xh - b), allowed)]
    return hyps, B.eq(_f_delta(B, xh, d), b)


def reround_error_half(B, v):
    return reround(B, v, slack=B.num(Fraction(1, 2)))


# ------------------------------------------------------------------ obligation builder

@dataclass(frozen=True)
class RoundingObligation:
    """"The FFN maps x[in_dim] ≤ low to Δx[out_dim] = 0 and x[in_dim] ≥ high to 1", other
    coordinates read by the units fixed by ``context`` (e.g. ``{"one": 1}``)."""
    pieces: tuple[tuple[Fraction, Fraction, Fraction], ...]  # (w, c, a): a·ReLU(w·x + c)
    low: Fraction
    high: Fraction

    def value(self, x: Fraction) -> Fraction:
        return sum((a * max(w * x + c, Fraction(0)) for w, c, a in self.pieces), Fraction(0))

    def counterexample(self) -> Fraction | None:
        """An x violating the claim, or None.  Exact: f is piecewise linear, so it is constant
        on a ray iff it has the right value at the ray's end, at every breakpoint on the ray,
        and slope 0 beyond the last breakpoint."""
        breaks = sorted({-c / w for w, c, _ in self.pieces if w != 0})
        for end, target, sign in ((self.low, 0, -1), (self.high, 1, 1)):
            points = [end] + [b for b in breaks if (b - end) * sign > 0]
            far = (max(points) if sign > 0 else min(points)) + sign
            for x in points + [far]:
                if self.value(x) != target:
                    return x
        return None

    def check_exact(self) -> bool:
        return self.counterexample() is None

    @property
    def smt2(self) -> str:
        return Query("rounding-instance", ("x",), self._statement).smt2()

    def _statement(self, B, v):
        x = v["x"]
        f = sum((B.num(a) * B.relu(B.num(w) * x + B.num(c)) for w, c, a in self.pieces), B.num(Fraction(0)))
        return [], B.and_(B.implies(B.le(x, B.num(self.low)), B.eq(f, 0)),
                          B.implies(B.ge(x, B.num(self.high)), B.eq(f, 1)))

    def prove(self) -> str:
        """Both solvers on :attr:`smt2` ("unsat" = the obligation holds), for a second opinion."""
        return second_opinion(self.smt2)


def rounding_obligation(units: FFNLayer | Iterable[Unit], in_dim: str, out_dim: str,
                        low: Fraction, high: Fraction,
                        context: Mapping[str, Fraction] | None = None) -> RoundingObligation:
    """The L-round instance a concrete FFN needs.  Units that read dims other than ``in_dim``
    need their values in ``context`` (default ``{"one": 1}``); a missing one is a ValueError."""
    fixed = {"one": Fraction(1)} if context is None else {k: Fraction(v) for k, v in context.items()}
    unit_list = units.units if isinstance(units, FFNLayer) else tuple(units)
    pieces = []
    for unit in unit_list:
        a = sum((coef for dim, coef in unit.outputs if dim == out_dim), Fraction(0))
        if a == 0:
            continue
        w = sum((coef for dim, coef in unit.inputs if dim == in_dim), Fraction(0))
        c = Fraction(unit.bias)
        for dim, coef in unit.inputs:
            if dim == in_dim:
                continue
            if dim not in fixed:
                raise ValueError(f"unit reads {dim!r}; give its value in context")
            c += coef * fixed[dim]
        pieces.append((w, c, a))
    return RoundingObligation(tuple(pieces), Fraction(low), Fraction(high))


LEMMA = Lemma(
    name="L-round",
    statement="2ReLU(x−1/4) − 2ReLU(x−3/4) maps (−∞,1/4] to 0 and [3/4,∞) to 1; general δ < 1/2; "
              "re-rounding a δ-close Boolean is exact",
    queries=(
        Query("quarter", ("x",), quarter),
        Query("general-delta", ("x", "delta"), general_delta),
        Query("overwrite", ("x",), overwrite),
        Query("reround", ("xhat", "b", "delta"), reround),
    ),
    controls=(
        Control("L-round/delta-half", Query("delta-half", ("x",), delta_half)),
        Control("L-round/scale-1-not-2", Query("scale-1-not-2", ("x",), quarter_scale_one)),
        Control("L-round/error-half", Query("error-half", ("xhat", "b", "delta"), reround_error_half)),
    ),
)

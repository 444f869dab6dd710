"""The asymptotic class Θ(n^a (log n)^b) of a schedule τ(n), read off its expression.

Why: the appendix states, per row of the paper's simulation table (theory.md §5), whether the
certified τ(n) is in the paper's class or a hotter one.  Schedules are explicit expressions
(rational functions of n times powers of log), so their class is structural: a rational
function's class is its degree difference (exact, python-flint normal forms), a product adds
exponents, a quotient subtracts them, log of anything that grows like a power of n is log n.
Display and classification only — nothing a proof depends on.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .expr import AltSign, BinOp, Expr, Log, Neg, Num, Pow, Var
from .kernel.polyid import univariate

SUPERSCRIPT = str.maketrans("0123456789-/", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻ᐟ")


@dataclass(frozen=True, order=True)
class Growth:
    """τ(n) ∈ Θ(n^power (log n)^logs); the order is "hotter": a larger Growth means a larger τ for large n."""

    power: Fraction
    logs: int

    def _parts(self, power, log: str):
        up, down = [], []
        for k, base in ((self.power, "n"), (Fraction(self.logs), log)):
            if k:
                (up if k > 0 else down).append(power(base, abs(k)))
        return up, down

    def text(self) -> str:
        up, down = self._parts(lambda b, k: b if k == 1 else b + str(k).translate(SUPERSCRIPT), "log n")
        return _theta(up, down, " ", "Θ({})")

    def latex(self) -> str:
        up, down = self._parts(lambda b, k: b if k == 1 else f"{b}^{{{k}}}", "\\log n")
        return _theta(up, down, "\\,", "$\\Theta({})$")


def _theta(up: list[str], down: list[str], space: str, outer: str) -> str:
    top = space.join(up) or "1"
    if not down:
        return outer.format(top)
    bottom = space.join(down)
    return outer.format(f"{top}/({bottom})" if len(down) > 1 else f"{top}/{bottom}")


def growth(e: Expr) -> Growth | None:
    """The class of a positive expression in n (None: it reads i, or has a shape this does not know)."""
    rational = univariate(e, "n")
    if rational is not None:
        p, q = rational
        return Growth(Fraction(len(p) - len(q)), 0) if p else None
    if isinstance(e, (Num, AltSign)):
        return Growth(Fraction(0), 0)
    if isinstance(e, Var):
        return Growth(Fraction(1), 0) if e.name == "n" else None
    if isinstance(e, Neg):
        return growth(e.arg)
    if isinstance(e, Pow):
        g = growth(e.base)
        return None if g is None else Growth(g.power * e.exponent, g.logs * e.exponent)
    if isinstance(e, Log):
        g = growth(e.arg)
        return None if g is None else Growth(Fraction(0), 1 if g.power else 0)
    if isinstance(e, BinOp):
        a, b = growth(e.left), growth(e.right)
        if a is None or b is None:
            return None
        if e.op == "+" or e.op == "-":  # positive schedules: the leading term (no cancellation of classes)
            return max(a, b)
        sign = 1 if e.op == "*" else -1
        return Growth(a.power + sign * b.power, a.logs + sign * b.logs)
    return None

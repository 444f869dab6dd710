"""Exact rational functions over ``Fraction``: the independent re-check of sympy.

sympy only *derives* (issue #3, "Trust"): every identity it hands us is turned
into a pair of rational functions by the code below, which knows nothing but
``Fraction`` addition and multiplication, and the identity is accepted only if
``p1*q2 - p2*q1`` is the zero polynomial coefficient by coefficient.  Anything
that is not a rational operation (``exp(...)``, ``b**l`` with a symbolic
exponent) becomes an opaque atom, so a check proves the identity for *every*
value of the atoms, which is stronger than what is needed.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from certify.errors import UserError
from certify.expr import Expr, Ops, fold

Monomial = tuple[tuple[str, int], ...]  # sorted (variable, exponent>0) pairs


def _mono_mul(m1: Monomial, m2: Monomial) -> Monomial:
    d = dict(m1)
    for v, k in m2:
        d[v] = d.get(v, 0) + k
    return tuple(sorted(d.items()))


@dataclass(frozen=True)
class Poly:
    """A multivariate polynomial: monomial -> non-zero Fraction coefficient."""

    terms: tuple[tuple[Monomial, Fraction], ...]

    @staticmethod
    def make(d: dict) -> "Poly":
        return Poly(tuple(sorted((m, c) for m, c in d.items() if c != 0)))

    @staticmethod
    def const(c) -> "Poly":
        return Poly.make({(): Fraction(c)})

    @staticmethod
    def var(name: str) -> "Poly":
        return Poly.make({((name, 1),): Fraction(1)})

    def __add__(self, other: "Poly") -> "Poly":
        d = dict(self.terms)
        for m, c in other.terms:
            d[m] = d.get(m, 0) + c
        return Poly.make(d)

    def __neg__(self) -> "Poly":
        return Poly(tuple((m, -c) for m, c in self.terms))

    def __sub__(self, other: "Poly") -> "Poly":
        return self + (-other)

    def __mul__(self, other: "Poly") -> "Poly":
        d: dict = {}
        for m1, c1 in self.terms:
            for m2, c2 in other.terms:
                m = _mono_mul(m1, m2)
                d[m] = d.get(m, 0) + c1 * c2
        return Poly.make(d)

    def power(self, k: int) -> "Poly":
        out = Poly.const(1)
        for _ in range(k):
            out = out * self
        return out

    def is_zero(self) -> bool:
        return not self.terms

    def variables(self) -> frozenset[str]:
        return frozenset(v for m, _ in self.terms for v, _ in m)

    def is_monomial(self) -> bool:
        return len(self.terms) == 1

    def evaluate(self, env: dict) -> Fraction:
        total = Fraction(0)
        for m, c in self.terms:
            term = c
            for v, k in m:
                term *= Fraction(env[v]) ** k
            total += term
        return total


@dataclass(frozen=True)
class RatFun:
    num: Poly
    den: Poly

    @staticmethod
    def of(p: Poly) -> "RatFun":
        return RatFun(p, Poly.const(1))

    def __add__(self, o: "RatFun") -> "RatFun":
        return RatFun(self.num * o.den + o.num * self.den, self.den * o.den)

    def __neg__(self) -> "RatFun":
        return RatFun(-self.num, self.den)

    def __sub__(self, o: "RatFun") -> "RatFun":
        return self + (-o)

    def __mul__(self, o: "RatFun") -> "RatFun":
        return RatFun(self.num * o.num, self.den * o.den)

    def __truediv__(self, o: "RatFun") -> "RatFun":
        if o.num.is_zero():
            raise ZeroDivisionError("division by the zero rational function")
        return RatFun(self.num * o.den, self.den * o.num)

    def power(self, k: int) -> "RatFun":
        if k >= 0:
            return RatFun(self.num.power(k), self.den.power(k))
        return RatFun(self.den.power(-k), self.num.power(-k))

    __pow__ = power

    def equals(self, o: "RatFun") -> bool:
        """Exact identity of rational functions (cross-multiplication, no cancellation)."""
        return (self.num * o.den - o.num * self.den).is_zero()

    def variables(self) -> frozenset[str]:
        return self.num.variables() | self.den.variables()


def identical(lhs, rhs) -> bool:
    """True iff two sympy expressions are the same rational function of their atoms."""
    return from_sympy(lhs).equals(from_sympy(rhs))


def from_sympy(e) -> RatFun:
    """Read a sympy tree as a rational function; non-rational parts become atoms.

    Floats are refused: an identity with a rounded constant proves nothing.
    """
    import sympy

    if isinstance(e, sympy.Rational):  # Integer, Rational, and the singletons 0, 1, -1, 1/2
        return RatFun.of(Poly.const(Fraction(int(e.p), int(e.q))))
    if isinstance(e, sympy.Float):
        raise ValueError(f"refusing a float in an identity: {e}")
    if isinstance(e, sympy.Symbol):
        return RatFun.of(Poly.var(e.name))
    if isinstance(e, sympy.Add):
        out = RatFun.of(Poly.const(0))
        for arg in e.args:
            out = out + from_sympy(arg)
        return out
    if isinstance(e, sympy.Mul):
        out = RatFun.of(Poly.const(1))
        for arg in e.args:
            out = out * from_sympy(arg)
        return out
    if isinstance(e, sympy.Pow):
        base, exp = e.args
        if isinstance(exp, sympy.Integer):
            return from_sympy(base).power(int(exp))
        # b**(c + rest): the atom b**rest times b**c, so that b**(l+1) = b * b**l.
        c, rest = exp.as_coeff_Add()
        atom = RatFun.of(Poly.var("@" + sympy.srepr(sympy.Pow(base, rest, evaluate=False))))
        if isinstance(c, sympy.Integer) and c != 0:
            return atom * from_sympy(base).power(int(c))
        if c == 0:
            return atom
        return RatFun.of(Poly.var("@" + sympy.srepr(e)))
    if isinstance(e, sympy.exp):
        # exp(c + rest) = e^c exp(rest) is not rational in general; keep the whole atom.
        return RatFun.of(Poly.var("@" + sympy.srepr(e)))
    if e.is_Atom or isinstance(e, sympy.Function):
        return RatFun.of(Poly.var("@" + sympy.srepr(e)))
    raise ValueError(f"cannot read {type(e).__name__} as a rational function")


def _ratfun_div(a: RatFun, b: RatFun) -> RatFun:
    if b.num.is_zero():
        raise UserError("expression divides by zero identically")
    return a / b


def _not_rational(_x):
    raise UserError("gamma and xmax must be rational expressions in n (no log, no (-1)^n)")


_RATFUN_OPS = Ops(_ratfun_div, _not_rational, _not_rational)


def from_ast(e: Expr) -> RatFun:
    """A log-free expression of the model grammar as an exact rational function of ``n``
    (the grammar's one evaluator, :func:`certify.expr.fold`, in the number system RatFun)."""
    return fold(e, lambda v: RatFun.of(Poly.const(v)), lambda name: RatFun.of(Poly.var(name)), _RATFUN_OPS)


def monomial_form(r: RatFun, var: str = "n") -> tuple[Fraction, int] | None:
    """``(c, p)`` with ``r == c * var**p`` exactly, or None if ``r`` is not a monomial."""
    if not (r.num.is_monomial() and r.den.is_monomial()):
        return None
    (mn, cn), = r.num.terms
    (md, cd), = r.den.terms
    if set(dict(mn)) - {var} or set(dict(md)) - {var}:
        return None
    p = dict(mn).get(var, 0) - dict(md).get(var, 0)
    c = cn / cd
    check = RatFun.of(Poly.const(c)) * (RatFun.of(Poly.var(var)).power(p))
    return (c, p) if check.equals(r) else None

"""Lemma statements written once, read three ways: Z3 terms, exact Fractions, arb balls.

A statement is a Python function ``statement(B, v) -> (hypotheses, conclusion)``
over a *backend* ``B`` and a dict ``v`` of variables.  The same function

* becomes an SMT-LIB2 query "hypotheses ∧ ¬conclusion" (``Z3Terms``): ``unsat`` proves
  the statement; the text is replayed by Z3 (``qfnra-nlsat``, deterministic ``rlimit``)
  and by cvc5 from the exported text (:func:`second_opinion`), and a disagreement is
  an error (:class:`SolverDisagreement`);
* checks a counterexample exactly (``ExactValues``, Fractions) or, when the statement
  uses ``exp``, with python-flint balls (``BallValues``; a comparison is decided only
  when the balls are disjoint).

Solvers are oracles: a ``sat`` answer only *proposes* a counterexample, which counts
only after substitution into the statement says hypotheses true and conclusion false.
``exp`` never reaches a solver: ``B.exp_neg(x)`` (x ≥ 0) becomes a fresh variable
between certified Taylor bounds (alternating series, so every even truncation is an
upper and every odd one a lower bound for x ≥ 0; plus ``1/(1+x+x²/2) ≥ e^{-x}``).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from math import factorial
from typing import Callable

import cvc5
import z3
from flint import arb, ctx

from certify.errors import UserError


@dataclass(frozen=True)
class SmtConfig:
    """Every constant of the discharge machinery, in one place."""
    rlimit: int = 20_000_000          # deterministic resource limit per solver call
    taylor_degree: int = 7            # exp abstraction: Taylor bounds up to this degree
    ball_precision: int = 256         # bits for arb counterexample checks
    model_digits: int = 40            # decimals when a solver model is an algebraic number


CONFIG = SmtConfig()


class SolverDisagreement(Exception):
    """Z3 and cvc5 gave opposite definite answers on the same SMT-LIB2 text."""


class NeedsBalls(Exception):
    """A statement with ``exp`` cannot be evaluated exactly over Fractions."""


# ------------------------------------------------------------------ backends

class Z3Terms:
    """Builds Z3 terms; ``exp_neg`` introduces a bounded fresh variable (``side``)."""

    def __init__(self, taylor_degree: int = CONFIG.taylor_degree):
        self.side: list = []
        self._fresh = 0
        self._degree = taylor_degree

    @staticmethod
    def num(q) -> z3.ArithRef:
        if not isinstance(q, (int, Fraction)) or isinstance(q, bool):
            raise TypeError(f"only exact numbers reach Z3, got {type(q).__name__}")
        q = Fraction(q)
        return z3.RatVal(q.numerator, q.denominator)

    le = staticmethod(lambda a, b: a <= b)
    lt = staticmethod(lambda a, b: a < b)
    ge = staticmethod(lambda a, b: a >= b)
    gt = staticmethod(lambda a, b: a > b)
    eq = staticmethod(lambda a, b: a == b)

    false = z3.BoolVal(False)

    @staticmethod
    def and_(*xs):
        return z3.And(*xs)

    @staticmethod
    def or_(*xs):
        return z3.Or(*xs)

    @staticmethod
    def not_(a):
        return z3.Not(a)

    @staticmethod
    def implies(a, b):
        return z3.Implies(a, b)

    @staticmethod
    def relu(x):
        return z3.If(x > 0, x, 0)

    @staticmethod
    def abs(x):
        return z3.If(x >= 0, x, -x)

    @staticmethod
    def max(a, b):
        return z3.If(a >= b, a, b)

    def exp_neg(self, x):
        """e^{-x} for x ≥ 0 as a fresh variable with certified polynomial/rational bounds."""
        self._fresh += 1
        e = z3.Real(f"exp_neg_{self._fresh}")
        odd = self._degree if self._degree % 2 else self._degree - 1
        lower = taylor_exp_neg(x, odd, self.num)
        upper = taylor_exp_neg(x, odd + 1, self.num)
        self.side += [e > 0, e <= 1, e >= lower, e <= upper, e * (1 + x + x * x / 2) <= 1]
        return e


def taylor_exp_neg(x, degree: int, num=Fraction):
    """Σ_{k≤degree} (-x)^k/k!: ≥ e^{-x} for even degree, ≤ e^{-x} for odd degree (x ≥ 0),
    because the Taylor series of e^{-x} alternates with decreasing-magnitude remainders."""
    term, total = 1, 1
    for k in range(1, degree + 1):
        term = term * x
        total = total + num(Fraction((-1) ** k, factorial(k))) * term
    return total


class ExactValues:
    """Evaluates a statement at a rational point; comparisons are plain booleans."""

    @staticmethod
    def num(q):
        return Fraction(q)

    le = staticmethod(lambda a, b: a <= b)
    lt = staticmethod(lambda a, b: a < b)
    ge = staticmethod(lambda a, b: a >= b)
    gt = staticmethod(lambda a, b: a > b)
    eq = staticmethod(lambda a, b: a == b)
    false = False
    and_ = staticmethod(lambda *xs: all(xs))
    or_ = staticmethod(lambda *xs: any(xs))
    not_ = staticmethod(lambda a: not a)
    implies = staticmethod(lambda a, b: (not a) or b)
    relu = staticmethod(lambda x: max(x, Fraction(0)))
    abs = staticmethod(lambda x: abs(x))
    max = staticmethod(lambda a, b: max(a, b))

    @staticmethod
    def exp_neg(x):
        raise NeedsBalls("exp needs ball arithmetic")


def _tri_and(*xs):
    if any(x is False for x in xs):
        return False
    return True if all(x is True for x in xs) else None


def _tri_not(a):
    return None if a is None else (not a)


class BallValues:
    """Evaluates with arb balls; a comparison is True/False only when decided, else None."""

    @staticmethod
    def num(q):
        q = Fraction(q)
        return arb(q.numerator) / arb(q.denominator)

    @staticmethod
    def le(a, b):
        a, b = _ball(a), _ball(b)
        return True if a <= b else (False if a > b else None)

    @staticmethod
    def lt(a, b):
        a, b = _ball(a), _ball(b)
        return True if a < b else (False if a >= b else None)

    @classmethod
    def ge(cls, a, b):
        return cls.le(b, a)

    @classmethod
    def gt(cls, a, b):
        return cls.lt(b, a)

    @classmethod
    def eq(cls, a, b):
        return _tri_and(cls.le(a, b), cls.le(b, a))

    false = False
    and_ = staticmethod(_tri_and)

    @staticmethod
    def or_(*xs):
        return _tri_not(_tri_and(*(_tri_not(x) for x in xs)))

    not_ = staticmethod(_tri_not)

    @classmethod
    def implies(cls, a, b):
        return cls.or_(_tri_not(a), b)

    @staticmethod
    def relu(x):
        x = _ball(x)
        if x >= 0:
            return x
        if x <= 0:
            return arb(0)
        return x.union(arb(0))

    @staticmethod
    def abs(x):
        return abs(_ball(x))

    @staticmethod
    def max(a, b):
        return _ball(a).max(_ball(b))

    @staticmethod
    def exp_neg(x):
        return (-_ball(x)).exp()


def _ball(x):
    return x if isinstance(x, arb) else BallValues.num(x)


# ------------------------------------------------------------------ queries

Statement = Callable[[object, dict], tuple[list, object]]


@dataclass(frozen=True)
class Query:
    """One SMT obligation: ∀ vars. hypotheses ⇒ conclusion (``ints`` are integer-valued)."""
    name: str
    variables: tuple[str, ...]
    statement: Statement
    ints: tuple[str, ...] = ()
    uses_exp: bool = False

    @property
    def logic(self) -> str:
        if not self.ints:
            return "QF_NRA"
        return "QF_NIA" if set(self.ints) == set(self.variables) else "QF_NIRA"

    def smt2(self) -> str:
        """The negated statement as replayable SMT-LIB2 (``(check-sat)`` included)."""
        terms = Z3Terms()
        v = {name: (z3.Int(name) if name in self.ints else z3.Real(name)) for name in self.variables}
        hyps, concl = self.statement(terms, v)
        s = z3.Solver()
        s.add(*hyps, *terms.side, z3.Not(concl))
        body = s.to_smt2().replace("(set-info :status unknown)\n", "")
        return f"; {self.name}: unsat proves the statement\n(set-logic {self.logic})\n{body}"

    def holds_at(self, point: dict[str, Fraction]):
        """Substitute a point: True if the statement holds there, False if it is refuted,
        None if balls could not decide.  Exact Fractions unless the statement uses exp."""
        if any(name in self.ints and point[name].denominator != 1 for name in self.variables):
            return None
        try:
            try:
                hyps, concl = self.statement(ExactValues, dict(point))
                return (not all(hyps)) or bool(concl)
            except NeedsBalls:
                old = ctx.prec
                ctx.prec = CONFIG.ball_precision
                try:
                    hyps, concl = self.statement(BallValues, {k: BallValues.num(q) for k, q in point.items()})
                finally:
                    ctx.prec = old
                return BallValues.implies(_tri_and(*hyps), concl)
        except ZeroDivisionError:
            return None


@dataclass(frozen=True)
class Outcome:
    """What one query came to: ``proved`` (both solvers unsat), ``refuted`` (a checked
    counterexample), or ``unknown``."""
    verdict: str
    seconds: float
    counterexample: dict | None = None
    detail: str = ""


def prove_query(query: Query, rlimit: int = CONFIG.rlimit) -> Outcome:
    """Z3 then cvc5 on the query's SMT-LIB2 text; a counterexample is verified by substitution."""
    t0 = time.perf_counter()
    text = query.smt2()
    z3_answer, model = run_z3(text, rlimit)
    cvc5_answer = run_cvc5(text, rlimit)
    _reconcile(z3_answer, cvc5_answer)
    verdict, point, detail = "unknown", None, f"z3 {z3_answer}, cvc5 {cvc5_answer}"
    if z3_answer == "unsat" and cvc5_answer == "unsat":
        verdict = "proved"
    elif z3_answer == "sat":
        point = {name: model.get(name, Fraction(0)) for name in query.variables}
        if query.holds_at(point) is False:
            verdict, detail = "refuted", detail + ", counterexample checked by substitution"
        else:
            detail += ", solver model did not survive substitution"
    return Outcome(verdict, time.perf_counter() - t0, point, detail)


# ------------------------------------------------------------------ solvers

def _z3_solver(logic: str, rlimit: int) -> z3.Solver:
    if logic == "QF_NRA":
        tactic = z3.Then("simplify", "purify-arith", "elim-term-ite", "qfnra-nlsat")
        s = tactic.solver()
    else:
        s = z3.SolverFor(logic)
    s.set("rlimit", rlimit)
    return s


def _logic_of(text: str) -> str:
    marker = "(set-logic "
    at = text.find(marker)
    return text[at + len(marker):text.index(")", at)].strip() if at >= 0 else "ALL"


def run_z3(smt2_text: str, rlimit: int = CONFIG.rlimit) -> tuple[str, dict[str, Fraction]]:
    """Z3's answer on SMT-LIB2 text and, if sat, its model's constants as Fractions."""
    s = _z3_solver(_logic_of(smt2_text), rlimit)
    s.from_string(smt2_text)
    answer = str(s.check())
    if answer != "sat":
        return answer, {}
    model = s.model()
    values = {}
    for d in model.decls():
        if d.arity() != 0:
            continue
        val = model[d]
        if z3.is_algebraic_value(val):
            val = val.approx(CONFIG.model_digits)
        if z3.is_rational_value(val) or z3.is_int_value(val):
            values[d.name()] = Fraction(val.as_fraction()) if z3.is_rational_value(val) else Fraction(val.as_long())
    return answer, values


def run_cvc5(smt2_text: str, rlimit: int = CONFIG.rlimit) -> str:
    """cvc5's answer ("sat"/"unsat"/"unknown") on SMT-LIB2 text, via its own parser."""
    tm = cvc5.TermManager()
    solver = cvc5.Solver(tm)
    solver.setOption("rlimit", str(rlimit))
    symbols = cvc5.SymbolManager(tm)
    parser = cvc5.InputParser(solver, symbols)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, smt2_text, "query")
    answer = "unknown"
    while True:
        cmd = parser.nextCommand()
        if cmd.isNull():
            break
        out = cmd.invoke(solver, symbols).strip()
        if out in ("sat", "unsat", "unknown"):
            answer = out
    return answer


def _reconcile(a: str, b: str) -> str:
    if {a, b} == {"sat", "unsat"}:
        raise SolverDisagreement(f"z3 says {a}, cvc5 says {b}")
    return a if a == b else "unknown"


def second_opinion(smt2_text: str, rlimit: int = CONFIG.rlimit) -> str:
    """Run both Z3 and cvc5 on SMT-LIB2 text: their common answer, "unknown" if either
    is unknown; :class:`SolverDisagreement` if one says sat and the other unsat."""
    try:
        z3_answer, _ = run_z3(smt2_text, rlimit)
        cvc5_answer = run_cvc5(smt2_text, rlimit)
    except (z3.Z3Exception, RuntimeError) as exc:
        raise UserError(f"invalid SMT-LIB2 text: {exc}") from None
    return _reconcile(z3_answer, cvc5_answer)


__all__ = [
    "CONFIG", "SmtConfig", "SolverDisagreement", "Query", "Outcome", "prove_query", "second_opinion",
    "run_z3", "run_cvc5", "Z3Terms", "ExactValues", "BallValues", "taylor_exp_neg", "NeedsBalls",
]

"""Expressions in ``i`` and ``n`` (model-format.md, "Expressions").

Position embeddings and temperature schedules are user text, so they are parsed
here by a small recursive-descent parser of our own: never ``eval``, never
``sympify``.  The AST is made of frozen dataclasses so that it can be hashed,
compared and walked by the analysis, the symbolic layer and the checker.

Grammar (tightest last)::

    expr    := term (('+' | '-') term)*
    term    := unary (('*' | '/') unary)*
    unary   := '-' unary | power
    power   := atom ('^' INT)?            -- INT literal, 0 <= INT <= 8
             | '(' '-' '1' ')' '^' 'i'    -- the alternating sign (-1)^i
    atom    := NUMBER | 'i' | 'n' | 'log' '(' expr ')' | '(' expr ')'

Evaluation is exact (``Fraction``) where the expression is rational; ``log``
is only ever evaluated in ball arithmetic (python-flint) or, for the soft
evaluator, in mpmath.
"""
from __future__ import annotations

import operator

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Mapping, Union

from .errors import ExprError

MAX_LENGTH = 200
MAX_EXPONENT = 8


@dataclass(frozen=True)
class Num:
    value: Fraction


@dataclass(frozen=True)
class Var:
    name: str  # "i" or "n"


@dataclass(frozen=True)
class Neg:
    arg: "Expr"


@dataclass(frozen=True)
class BinOp:
    op: str  # one of + - * /
    left: "Expr"
    right: "Expr"


@dataclass(frozen=True)
class Pow:
    base: "Expr"
    exponent: int  # 0..MAX_EXPONENT


@dataclass(frozen=True)
class AltSign:
    """``(-1)^var``: +1 at even positions, -1 at odd ones."""

    var: str


@dataclass(frozen=True)
class Log:
    arg: "Expr"


Expr = Union[Num, Var, Neg, BinOp, Pow, AltSign, Log]

_TOKEN = re.compile(r"\s*(?:(\d+\.\d+|\d+)|([A-Za-z_]+)|(\S))")


def _tokenize(text: str) -> list[tuple[str, str, int]]:
    tokens = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:  # only trailing whitespace is left
            break
        number, word, sym = m.groups()
        column = m.start(m.lastindex)
        if number is not None:
            tokens.append(("num", number, column))
        elif word is not None:
            tokens.append(("word", word, column))
        else:
            tokens.append(("sym", sym, column))
        pos = m.end()
    tokens.append(("end", "", len(text)))
    return tokens


def _binop(op: str, left: Expr, right: Expr) -> Expr:
    """Build ``left op right``, folding constants so that ``to_text`` round-trips."""
    if isinstance(left, Num) and isinstance(right, Num) and not (op == "/" and right.value == 0):
        a, b = left.value, right.value
        return Num({"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else a}[op])
    return BinOp(op, left, right)


def _neg(arg: Expr) -> Expr:
    return Num(-arg.value) if isinstance(arg, Num) else Neg(arg)


class _Parser:
    def __init__(self, text: str, variables: frozenset[str], allow_log: bool):
        self.text = text
        self.tokens = _tokenize(text)
        self.k = 0
        self.variables = variables
        self.allow_log = allow_log

    def error(self, message: str) -> ExprError:
        column = self.tokens[self.k][2]
        return ExprError(f"expression {self.text!r}: {message} at column {column + 1}")

    def peek(self) -> tuple[str, str, int]:
        return self.tokens[self.k]

    def accept(self, value: str) -> bool:
        kind, text, _ = self.tokens[self.k]
        if kind in ("sym", "word") and text == value:
            self.k += 1
            return True
        return False

    def expect(self, value: str) -> None:
        if not self.accept(value):
            raise self.error(f"expected {value!r}")

    def parse(self) -> Expr:
        e = self.expr()
        if self.peek()[0] != "end":
            raise self.error(f"unexpected {self.peek()[1]!r}")
        return e

    def expr(self) -> Expr:
        e = self.term()
        while True:
            if self.accept("+"):
                e = _binop("+", e, self.term())
            elif self.accept("-"):
                e = _binop("-", e, self.term())
            else:
                return e

    def term(self) -> Expr:
        e = self.unary()
        while True:
            if self.accept("*"):
                e = _binop("*", e, self.unary())
            elif self.accept("/"):
                e = _binop("/", e, self.unary())
            else:
                return e

    def unary(self) -> Expr:
        if self.accept("-"):
            return _neg(self.unary())
        return self.power()

    def power(self) -> Expr:
        start = self.k
        base = self.atom()
        if not self.accept("^"):
            return base
        kind, text, _ = self.peek()
        if kind == "num" and "." not in text:
            k = int(text)
            if k > MAX_EXPONENT:
                raise self.error(f"exponent {k} exceeds {MAX_EXPONENT}")
            self.k += 1
            return Pow(base, k)
        if kind == "word" and text == "i" and "i" in self.variables and self._is_minus_one(start):
            self.k += 1
            return AltSign(text)
        raise self.error("exponent must be an integer literal 0..8 (or (-1)^i)")

    def _is_minus_one(self, start: int) -> bool:
        toks = [t[1] for t in self.tokens[start:start + 4]]
        return toks == ["(", "-", "1", ")"]

    def atom(self) -> Expr:
        kind, text, _ = self.peek()
        if kind == "num":
            self.k += 1
            return Num(Fraction(text))
        if kind == "word":
            if text in self.variables:
                self.k += 1
                return Var(text)
            if text == "log":
                if not self.allow_log:
                    raise self.error("log is only allowed in temperature expressions")
                self.k += 1
                self.expect("(")
                e = self.expr()
                self.expect(")")
                return Log(e)
            raise self.error(f"unknown name {text!r}")
        if self.accept("("):
            e = self.expr()
            self.expect(")")
            return e
        if kind == "end":
            raise self.error("unexpected end of expression")
        raise self.error(f"unexpected {text!r}")


def parse_expr(text: str, variables: tuple[str, ...] = ("i", "n"), allow_log: bool = False) -> Expr:
    """Parse ``text`` with the model-format grammar; raise :class:`ExprError`."""
    if not isinstance(text, str):
        raise ExprError(f"expression must be a string, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise ExprError(f"expression longer than {MAX_LENGTH} characters")
    if not text.strip():
        raise ExprError("empty expression")
    return _Parser(text, frozenset(variables), allow_log).parse()


def variables_of(e: Expr) -> frozenset[str]:
    """The variables an expression reads."""
    if isinstance(e, Var):
        return frozenset({e.name})
    if isinstance(e, AltSign):
        return frozenset({e.var})
    if isinstance(e, Num):
        return frozenset()
    if isinstance(e, BinOp):
        return variables_of(e.left) | variables_of(e.right)
    if isinstance(e, (Neg, Log)):
        return variables_of(e.arg)
    return variables_of(e.base)


def has_log(e: Expr) -> bool:
    if isinstance(e, Log):
        return True
    if isinstance(e, BinOp):
        return has_log(e.left) or has_log(e.right)
    if isinstance(e, Neg):
        return has_log(e.arg)
    if isinstance(e, Pow):
        return has_log(e.base)
    return False


_PREC = {"+": 1, "-": 1, "*": 2, "/": 2}


def _prec(e: Expr) -> int:
    if isinstance(e, BinOp):
        return _PREC[e.op]
    if isinstance(e, Neg):
        return 3
    if isinstance(e, Num):
        return 3 if e.value < 0 else 2 if e.value.denominator != 1 else 5
    if isinstance(e, Pow):
        return 4
    return 5


def to_text(e: Expr) -> str:
    """Render in the grammar with the fewest parentheses; re-parses to ``e``."""
    if isinstance(e, Num):
        v = e.value
        return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
    if isinstance(e, Var):
        return e.name
    if isinstance(e, AltSign):
        return f"(-1)^{e.var}"
    if isinstance(e, Log):
        return f"log({to_text(e.arg)})"
    if isinstance(e, Neg):
        return "-" + _wrap(e.arg, 4)
    if isinstance(e, Pow):
        return f"{_wrap(e.base, 5)}^{e.exponent}"
    p = _PREC[e.op]
    left = _wrap(e.left, p)
    right = _wrap(e.right, p + 1)
    return f"{left} {e.op} {right}" if p == 1 else f"{left}*{right}" if e.op == "*" else f"{left}/{right}"


def _wrap(e: Expr, need: int) -> str:
    text = to_text(e)
    return f"({text})" if _prec(e) < need else text


def fold(e: Expr, num: Callable, var: Callable, ops: "Ops"):
    """Evaluate ``e`` in any number system described by ``ops``."""
    if isinstance(e, Num):
        return num(e.value)
    if isinstance(e, Var):
        return var(e.name)
    if isinstance(e, AltSign):
        return ops.altsign(var(e.var))
    if isinstance(e, Neg):
        return -fold(e.arg, num, var, ops)
    if isinstance(e, Pow):
        return ops.pow(fold(e.base, num, var, ops), e.exponent)
    if isinstance(e, Log):
        return ops.log(fold(e.arg, num, var, ops))
    a = fold(e.left, num, var, ops)
    b = fold(e.right, num, var, ops)
    if e.op == "+":
        return a + b
    if e.op == "-":
        return a - b
    if e.op == "*":
        return ops.mul(a, b)
    return ops.div(a, b)


@dataclass(frozen=True)
class Ops:
    div: Callable
    log: Callable
    altsign: Callable
    pow: Callable = operator.pow
    mul: Callable = operator.mul


def _exact_div(a: Fraction, b: Fraction) -> Fraction:
    if b == 0:
        raise ExprError("division by zero")
    return a / b


def _exact_log(_a):
    raise ExprError("log cannot be evaluated exactly")


def _exact_altsign(v: Fraction) -> Fraction:
    if v.denominator != 1:
        raise ExprError("(-1)^x needs an integer x")
    return Fraction(1 if v.numerator % 2 == 0 else -1)


EXACT_OPS = Ops(_exact_div, _exact_log, _exact_altsign)


def eval_exact(e: Expr, env: Mapping[str, int | Fraction]) -> Fraction:
    """Exact value of a log-free expression; :class:`ExprError` where undefined."""
    return fold(e, Fraction, lambda name: Fraction(env[name]), EXACT_OPS)


def _ball_div(a, b):
    if b.contains(0):
        raise ExprError("division by zero (or by a ball containing zero)")
    return _ball_mul(a, (1 / b.lower()).union(1 / b.upper()))  # 1/x is monotone on one sign


def _one_sign(a) -> bool:
    return a > 0 or a < 0


def _ball_mul(a, b):
    """For balls of one sign each, the hull of the corner products (midpoint-radius products of wide
    balls, such as a box of lengths n, can straddle 0 although both factors are positive)."""
    if _one_sign(a) and _one_sign(b):
        x, y = (a.lower(), a.upper()), (b.lower(), b.upper())
        return (x[0] * y[0]).union(x[0] * y[1]).union(x[1] * y[0]).union(x[1] * y[1])
    return a * b


def _ball_log(a):
    if not a > 0:
        raise ExprError("log of a non-positive number (or of a ball reaching 0)")
    return a.log()


def _ball_altsign(v):
    """±1 when the ball holds one integer; the enclosure [−1, 1] when it ranges over several."""
    k = v.unique_fmpz()
    if k is None:
        return v.__class__(0, 1)
    return v.__class__(1 if int(k) % 2 == 0 else -1)


def _ball_pow(a, k: int):
    """x^k is monotone on each sign: a ball of one sign maps to the hull of its endpoints' powers
    (much tighter than the derivative bound on wide balls such as a box of lengths n)."""
    if k > 1 and (a > 0 or a < 0):
        return (a.lower() ** k).union(a.upper() ** k)
    return a ** k


def eval_ball(e: Expr, env: Mapping[str, object]):
    """Rigorous value as a python-flint ``arb`` ball (env values: ints, Fractions or arbs).

    Used by every numeric proof step: a comparison of two balls is decided only
    when the balls are disjoint.
    """
    from flint import arb, fmpq

    def num(v: Fraction):
        return arb(fmpq(v.numerator, v.denominator))

    def var(name: str):
        v = env[name]
        if isinstance(v, Fraction):
            return num(v)
        if isinstance(v, int):
            return arb(v)
        return v

    return fold(e, num, var, Ops(_ball_div, _ball_log, _ball_altsign, _ball_pow, _ball_mul))


def _mp_div(a, b):
    if b == 0:
        raise ExprError("division by zero")
    return a / b


def _mp_log(a):
    import mpmath

    if a <= 0:
        raise ExprError("log of a non-positive number")
    return mpmath.log(a)


def _mp_altsign(v):
    return 1 if int(v) % 2 == 0 else -1


def eval_mp(e: Expr, env: Mapping[str, int | Fraction]):
    """Value in mpmath at the current working precision (soft evaluator only)."""
    import mpmath

    def num(v: Fraction):
        return mpmath.mpf(v.numerator) / v.denominator

    return fold(e, num, lambda name: mpmath.mpf(Fraction(env[name]).numerator) / Fraction(env[name]).denominator,
                Ops(_mp_div, _mp_log, _mp_altsign))


def eval_numpy(e: Expr, env: Mapping[str, object], dtype):
    """Vectorised float value (the fast evaluator); env values may be numpy arrays."""
    import numpy as np

    def div(a, b):
        if np.any(np.asarray(b) == 0):
            raise ExprError("division by zero")
        return a / b

    def log(a):
        if np.any(np.asarray(a) <= 0):
            raise ExprError("log of a non-positive number")
        return np.log(a)

    def altsign(v):
        return np.where(np.asarray(v).astype(np.int64) % 2 == 0, 1.0, -1.0).astype(dtype)

    return fold(e, lambda v: dtype(float(v)), lambda name: np.asarray(env[name], dtype=dtype),
                Ops(div, log, altsign))

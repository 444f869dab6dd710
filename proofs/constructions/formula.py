"""The formula language of issue 5: syntax, parser and reference evaluator.

Formulas of TL[⊖,⊕], TL[S,U] and the counting logic with +, Mon (theory.md §5)
are parsed from the text users type on the command line into frozen-dataclass
ASTs (hashable, so the compiler can share equal subformulas).  The reference
evaluator :func:`evaluate` is the specification every compiled model must meet:
it gives the truth value of a formula at every position 1..n of a word.

Concrete syntax (precedence, tightest first): ``not``/``prev``/``next``;
``since``/``until`` (left-associative); ``and``; ``or``.  Atoms: ``'a'``,
``true``, ``false``, ``first``, ``last``, ``even``, ``odd``, ``( φ )`` and
comparisons ``t1 OP t2`` with OP in ``< <= = >= >`` between counting terms
``#past[φ]``, ``#future[φ]``, integers, ``+``, ``-``, ``k*t``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence, Union

from certify.errors import UserError


class FormulaError(UserError):
    """A formula that does not parse; the message names the column."""


# ---------------------------------------------------------------- AST

@dataclass(frozen=True)
class Sym:
    symbol: str


@dataclass(frozen=True)
class Const:
    value: bool


@dataclass(frozen=True)
class Mon:
    """A monadic numerical predicate of the position: first, last, even, odd."""

    name: str


@dataclass(frozen=True)
class Not:
    arg: "Formula"


@dataclass(frozen=True)
class Prev:
    arg: "Formula"


@dataclass(frozen=True)
class Next:
    arg: "Formula"


@dataclass(frozen=True)
class And:
    left: "Formula"
    right: "Formula"


@dataclass(frozen=True)
class Or:
    left: "Formula"
    right: "Formula"


@dataclass(frozen=True)
class Since:
    """``left since right``: ∃ j < i with right(j) and left(k) for all j < k < i."""

    left: "Formula"
    right: "Formula"


@dataclass(frozen=True)
class Until:
    """``left until right``: ∃ j > i with right(j) and left(k) for all i < k < j."""

    left: "Formula"
    right: "Formula"


@dataclass(frozen=True)
class Count:
    direction: str  # "past" (j <= i) or "future" (j >= i)
    arg: "Formula"


@dataclass(frozen=True)
class Int:
    value: int


@dataclass(frozen=True)
class Add:
    left: "Term"
    right: "Term"


@dataclass(frozen=True)
class Scale:
    factor: int
    arg: "Term"


@dataclass(frozen=True)
class Compare:
    op: str  # < <= = >= >
    left: "Term"
    right: "Term"


Formula = Union[Sym, Const, Mon, Not, Prev, Next, And, Or, Since, Until, Compare]
Term = Union[Count, Int, Add, Scale]
MON_NAMES = ("first", "last", "even", "odd")
COMPARISONS = ("<", "<=", "=", ">=", ">")
KEYWORDS = frozenset({"true", "false", "not", "and", "or", "prev", "next", "since", "until", *MON_NAMES})


# ---------------------------------------------------------------- parser

_TOKEN = re.compile(r"\s*(?:('[^']*')|(#past|#future)|(\d+)|([A-Za-z_][A-Za-z_0-9]*)|(<=|>=|[<>=()\[\]+\-*])|(\S))")


@dataclass(frozen=True)
class _Tok:
    kind: str  # sym count int word op bad end
    text: str
    column: int  # 1-based


def _tokenize(text: str) -> list[_Tok]:
    tokens = []
    pos = 0
    while True:
        m = _TOKEN.match(text, pos)
        if m is None:
            break
        kind = ("sym", "count", "int", "word", "op", "bad")[m.lastindex - 1]
        start = m.start(m.lastindex)
        value = m.group(m.lastindex)
        if kind == "bad":
            if value == "'":
                raise FormulaError(f"column {start + 1}: unterminated symbol quote")
            raise FormulaError(f"column {start + 1}: unexpected character {value!r}")
        if kind == "sym" and len(value) == 2:
            raise FormulaError(f"column {start + 1}: empty symbol ''")
        tokens.append(_Tok(kind, value, start + 1))
        pos = m.end()
    tokens.append(_Tok("end", "", len(text.rstrip()) + 1))
    return tokens


class _Backtrack(Exception):
    pass


class _Parser:
    """Recursive descent; comparisons are tried before parenthesised formulas
    (a ``(`` may open either), and the error reported is the one that got
    furthest into the text."""

    def __init__(self, text: str):
        self.text = text
        self.tokens = _tokenize(text)
        self.k = 0
        self.best: tuple[int, str] | None = None

    # -- helpers
    def peek(self) -> _Tok:
        return self.tokens[self.k]

    def fail(self, message: str):
        tok = self.peek()
        if self.best is None or tok.column > self.best[0]:
            self.best = (tok.column, message)
        raise _Backtrack()

    def accept(self, text: str) -> bool:
        tok = self.peek()
        if tok.kind in ("word", "op", "count") and tok.text == text:
            self.k += 1
            return True
        return False

    def expect(self, text: str) -> None:
        if not self.accept(text):
            tok = self.peek()
            found = "end of formula" if tok.kind == "end" else repr(tok.text)
            self.fail(f"expected {text!r}, found {found}")

    # -- formulas
    def parse(self) -> Formula:
        try:
            f = self.disjunction()
            if self.peek().kind != "end":
                self.fail(f"unexpected {self.peek().text!r}")
            return f
        except _Backtrack:
            column, message = self.best
            raise FormulaError(f"column {column}: {message}") from None

    def disjunction(self) -> Formula:
        f = self.conjunction()
        while self.accept("or"):
            f = Or(f, self.conjunction())
        return f

    def conjunction(self) -> Formula:
        f = self.temporal()
        while self.accept("and"):
            f = And(f, self.temporal())
        return f

    def temporal(self) -> Formula:
        f = self.unary()
        while True:
            if self.accept("since"):
                f = Since(f, self.unary())
            elif self.accept("until"):
                f = Until(f, self.unary())
            else:
                return f

    def unary(self) -> Formula:
        for word, node in (("not", Not), ("prev", Prev), ("next", Next)):
            if self.accept(word):
                return node(self.unary())
        return self.atom()

    def atom(self) -> Formula:
        tok = self.peek()
        if tok.kind == "sym":
            self.k += 1
            return Sym(tok.text[1:-1])
        if tok.kind == "word":
            if tok.text in ("true", "false"):
                self.k += 1
                return Const(tok.text == "true")
            if tok.text in MON_NAMES:
                self.k += 1
                return Mon(tok.text)
            if tok.text in KEYWORDS:
                self.fail(f"expected a formula, found {tok.text!r}")
            self.fail(f"unknown word {tok.text!r} (symbols are quoted: '{tok.text}')")
        if tok.kind in ("count", "int") or tok.text == "-":
            return self.comparison()
        if tok.text == "(":
            start = self.k
            try:
                return self.comparison()
            except _Backtrack:
                self.k = start
            self.expect("(")
            f = self.disjunction()
            self.expect(")")
            return f
        if tok.kind == "end":
            self.fail("unexpected end of formula")
        self.fail(f"unexpected {tok.text!r}")

    # -- terms
    def comparison(self) -> Compare:
        left = self.term()
        tok = self.peek()
        if tok.kind == "op" and tok.text in COMPARISONS:
            self.k += 1
            return Compare(tok.text, left, self.term())
        self.fail("expected a comparison (< <= = >= >) after a counting term")

    def term(self) -> Term:
        t = self.product()
        while True:
            if self.accept("+"):
                t = Add(t, self.product())
            elif self.accept("-"):
                t = Add(t, Scale(-1, self.product()))
            else:
                return t

    def product(self) -> Term:
        tok, after, third = (self.tokens[min(self.k + d, len(self.tokens) - 1)] for d in range(3))
        if tok.kind == "int" and after.text == "*":
            self.k += 2
            return Scale(int(tok.text), self.product())
        if tok.text == "-" and after.kind == "int" and third.text == "*":
            self.k += 3
            return Scale(-int(after.text), self.product())
        t = self.term_atom()
        while self.accept("*"):
            tok = self.peek()
            if tok.kind != "int":
                self.fail("a term may only be multiplied by an integer constant")
            self.k += 1
            t = Scale(int(tok.text), t)
        return t

    def term_atom(self) -> Term:
        tok = self.peek()
        if tok.kind == "int":
            self.k += 1
            return Int(int(tok.text))
        if self.accept("-"):
            return Scale(-1, self.term_atom())
        if tok.kind == "count":
            self.k += 1
            self.expect("[")
            f = self.disjunction()
            self.expect("]")
            return Count(tok.text[1:], f)
        if self.accept("("):
            t = self.term()
            self.expect(")")
            return t
        self.fail("expected a counting term (#past[...], #future[...] or an integer)")


def parse_formula(text: str) -> Formula:
    """Parse the concrete syntax; :class:`FormulaError` names the column."""
    if not isinstance(text, str) or not text.strip():
        raise FormulaError("column 1: empty formula")
    if len(text) > 10_000:
        raise FormulaError("formula longer than 10000 characters")
    return _Parser(text).parse()


# ---------------------------------------------------------------- queries

def symbols_of(f) -> frozenset[str]:
    """The quoted symbols a formula mentions."""
    if isinstance(f, Sym):
        return frozenset({f.symbol})
    out: frozenset[str] = frozenset()
    for child in children(f):
        out |= symbols_of(child)
    return out


def children(node) -> tuple:
    if isinstance(node, (Not, Prev, Next, Count)):
        return (node.arg,)
    if isinstance(node, Scale):
        return (node.arg,)
    if isinstance(node, (And, Or, Since, Until, Compare, Add)):
        return (node.left, node.right)
    return ()


def size(node) -> int:
    """Number of AST nodes (formula and term nodes): the measure of linear model size."""
    return 1 + sum(size(c) for c in children(node))


def to_text(f) -> str:
    """Fully parenthesised concrete syntax; re-parses to the same AST."""
    if isinstance(f, Sym):
        return f"'{f.symbol}'"
    if isinstance(f, Const):
        return "true" if f.value else "false"
    if isinstance(f, Mon):
        return f.name
    if isinstance(f, Not):
        return f"not {_wrap(f.arg)}"
    if isinstance(f, Prev):
        return f"prev {_wrap(f.arg)}"
    if isinstance(f, Next):
        return f"next {_wrap(f.arg)}"
    if isinstance(f, (And, Or, Since, Until)):
        op = {And: "and", Or: "or", Since: "since", Until: "until"}[type(f)]
        return f"({to_text(f.left)} {op} {to_text(f.right)})"
    if isinstance(f, Compare):
        return f"({term_text(f.left)} {f.op} {term_text(f.right)})"
    raise TypeError(f)


def _wrap(f) -> str:
    text = to_text(f)
    return text if text.startswith("(") or isinstance(f, (Sym, Const, Mon)) else f"({text})"


def term_text(t) -> str:
    if isinstance(t, Int):
        return str(t.value)
    if isinstance(t, Count):
        return f"#{t.direction}[{to_text(t.arg)}]"
    if isinstance(t, Add):
        return f"({term_text(t.left)} + {term_text(t.right)})"
    if isinstance(t, Scale):
        return f"({t.factor}*{term_text(t.arg)})"
    raise TypeError(t)


# ---------------------------------------------------------------- reference semantics

def evaluate(f: Formula, word: Sequence[str]) -> list[bool]:
    """Truth value of ``f`` at positions 1..n (list index 0..n-1): the specification."""
    return _Evaluator(word).formula(f)


class _Evaluator:
    def __init__(self, word: Sequence[str]):
        self.word = tuple(word)
        self.n = len(word)
        self.memo: dict = {}

    def formula(self, f) -> list[bool]:
        if f not in self.memo:
            self.memo[f] = self._formula(f)
        return self.memo[f]

    def _formula(self, f) -> list[bool]:
        n, w = self.n, self.word
        if isinstance(f, Sym):
            return [s == f.symbol for s in w]
        if isinstance(f, Const):
            return [f.value] * n
        if isinstance(f, Mon):
            test = {"first": lambda i: i == 1, "last": lambda i: i == n,
                    "even": lambda i: i % 2 == 0, "odd": lambda i: i % 2 == 1}[f.name]
            return [test(i) for i in range(1, n + 1)]
        if isinstance(f, Not):
            return [not v for v in self.formula(f.arg)]
        if isinstance(f, Prev):
            a = self.formula(f.arg)
            return [k > 0 and a[k - 1] for k in range(n)]
        if isinstance(f, Next):
            a = self.formula(f.arg)
            return [k < n - 1 and a[k + 1] for k in range(n)]
        if isinstance(f, And):
            return [x and y for x, y in zip(self.formula(f.left), self.formula(f.right))]
        if isinstance(f, Or):
            return [x or y for x, y in zip(self.formula(f.left), self.formula(f.right))]
        if isinstance(f, Since):
            phi, psi = self.formula(f.left), self.formula(f.right)
            out, holds = [], False
            for k in range(n):  # holds = (phi S psi) at k, by the recurrence S(k+1) = psi(k) or (phi(k) and S(k))
                out.append(holds)
                holds = psi[k] or (phi[k] and holds)
            return out
        if isinstance(f, Until):
            phi, psi = self.formula(f.left), self.formula(f.right)
            out, holds = [False] * n, False
            for k in range(n - 1, -1, -1):
                out[k] = holds
                holds = psi[k] or (phi[k] and holds)
            return out
        if isinstance(f, Compare):
            a, b = self.term(f.left), self.term(f.right)
            op = {"<": int.__lt__, "<=": int.__le__, "=": int.__eq__, ">=": int.__ge__, ">": int.__gt__}[f.op]
            return [op(x, y) for x, y in zip(a, b)]
        raise TypeError(f)

    def term(self, t) -> list[int]:
        n = self.n
        if isinstance(t, Int):
            return [t.value] * n
        if isinstance(t, Add):
            return [x + y for x, y in zip(self.term(t.left), self.term(t.right))]
        if isinstance(t, Scale):
            return [t.factor * x for x in self.term(t.arg)]
        if isinstance(t, Count):
            a = self.formula(t.arg)
            if t.direction == "past":
                return [sum(a[:k + 1]) for k in range(n)]
            return [sum(a[k:]) for k in range(n)]
        raise TypeError(t)

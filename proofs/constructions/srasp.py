"""S-RASP programs (issue 18): syntax, parser, checks, reference interpreter and a builder API.

S-RASP (Strobl et al., *Transformers as Transducers*) is B-RASP — Boolean sequences,
position-wise operations, leftmost/rightmost attention with a default — plus integer
sequences, arithmetic on them and prefix sums.  This module is the language's
specification: :func:`run` (the interpreter) gives every named sequence's value at every
position 1..n, and every compiled model must decide as :func:`decisions` says.  The
language is documented in docs/srasp.md; the compiler is :mod:`.srasp_compile`.

A program is a list of lines: ``alphabet "a" "b"``, definitions ``NAME = EXPR``, and one
``output last|all NAME`` or ``output last|all argmax NAME, NAME, ...``.  Parse and type
errors are :class:`SraspError` (a :class:`UserError`: one line naming line and column,
exit status 3).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence, Union

from certify.errors import UserError


class SraspError(UserError):
    """A program that does not parse or type-check; the message names line and column."""


# ---------------------------------------------------------------- AST

@dataclass(frozen=True)
class Tok:
    """``tok == "a"``: the symbol at the position is ``symbol``."""

    symbol: str


@dataclass(frozen=True)
class Lit:
    """A constant: bool, int or (only as a comparison operand of an average) a fraction."""

    value: Union[bool, int, Fraction]


@dataclass(frozen=True)
class Var:
    """``i`` (the query position), ``j`` (the key position, inside a selection), ``n`` (the length)."""

    name: str


@dataclass(frozen=True)
class Ref:
    """A defined name, at the query position, or at the key position when ``key`` (``x[j]``)."""

    name: str
    key: bool = False


@dataclass(frozen=True)
class Unary:
    op: str  # not, neg
    arg: "Expr"


@dataclass(frozen=True)
class Binary:
    op: str  # and or + - * < <= == != >= > min max
    left: "Expr"
    right: "Expr"


@dataclass(frozen=True)
class If:
    cond: "Expr"
    then: "Expr"
    other: "Expr"


@dataclass(frozen=True)
class Sum:
    """``psum(x)`` (Σ_{j ≤ i} x_j) or ``total(x)`` (Σ_j x_j)."""

    kind: str  # psum | total
    arg: "Expr"


@dataclass(frozen=True)
class Select:
    """``leftmost|rightmost(VIS, PRED, VALUE, DEFAULT)``: VALUE at the leftmost/rightmost visible j
    where PRED holds, else DEFAULT (at the query position)."""

    mode: str  # leftmost | rightmost
    visible: str  # all j<i j<=i j>i j>=i
    pred: "Expr"
    value: "Expr"
    default: "Expr"


@dataclass(frozen=True)
class Average:
    """``average(VIS, PRED, VALUE, DEFAULT)``: the mean of the Boolean VALUE over the visible j where
    PRED holds (a fraction), DEFAULT (a constant) when there is none."""

    visible: str
    pred: "Expr"
    value: "Expr"
    default: Fraction


Expr = Union[Tok, Lit, Var, Ref, Unary, Binary, If, Sum, Select, Average]
VISIBLE = ("all", "j<i", "j<=i", "j>i", "j>=i")
COMPARE = ("<", "<=", "==", "!=", ">=", ">")
ARITH = ("+", "-", "*")


@dataclass(frozen=True)
class Output:
    position: str  # last | all
    names: tuple[str, ...]  # one Boolean, or the argmax list
    argmax: bool = False


@dataclass(frozen=True)
class Program:
    alphabet: tuple[str, ...]
    defs: tuple[tuple[str, Expr], ...]
    output: Output
    types: tuple[tuple[str, str], ...] = ()  # filled by :func:`checked`

    def type_of(self, name: str) -> str:
        return dict(self.types)[name]

    def definition(self, name: str) -> Expr:
        return dict(self.defs)[name]


# ---------------------------------------------------------------- type checking

RESERVED = frozenset({"alphabet", "output", "last", "all", "argmax", "tok", "true", "false", "not", "and", "or",
                      "if", "then", "else", "psum", "total", "min", "max", "leftmost", "rightmost", "average",
                      "i", "j", "n"})


class _Types:
    """Types (bool, int, frac, rat) and sides (query, key, none) of expressions; the rules of docs/srasp.md."""

    def __init__(self, alphabet: tuple[str, ...], env: dict[str, str], where: str):
        self.alphabet, self.env, self.where = alphabet, env, where

    def fail(self, message: str):
        raise SraspError(f"{self.where}: {message}")

    def of(self, e: Expr, in_select: bool = False) -> str:
        if isinstance(e, Tok):
            if e.symbol not in self.alphabet:
                self.fail(f"symbol {e.symbol!r} is not in the alphabet {list(self.alphabet)}")
            return "bool"
        if isinstance(e, Lit):
            if isinstance(e.value, bool):
                return "bool"
            return "int" if isinstance(e.value, int) else "rat"
        if isinstance(e, Var):
            if e.name == "j" and not in_select:
                self.fail("j (the key position) is only meaningful inside a selection")
            return "int"
        if isinstance(e, Ref):
            if e.name not in self.env:
                self.fail(f"unknown name {e.name!r} (names must be defined before they are used)")
            if e.key and not in_select:
                self.fail(f"{e.name}[j] is only meaningful inside a selection")
            return self.env[e.name]
        if isinstance(e, Unary):
            t = self.of(e.arg, in_select)
            want = "bool" if e.op == "not" else "int"
            if t != want:
                self.fail(f"{'not' if e.op == 'not' else 'unary -'} needs a {want}, got a {t}")
            return want
        if isinstance(e, Binary):
            return self._binary(e, in_select)
        if isinstance(e, If):
            if self.of(e.cond, in_select) != "bool":
                self.fail("the condition of if must be a bool")
            a, b = self.of(e.then, in_select), self.of(e.other, in_select)
            if a != b or a not in ("bool", "int"):
                self.fail(f"the branches of if must both be bool or both int, got {a} and {b}")
            return a
        if isinstance(e, Sum):
            if in_select:
                self.fail(f"{e.kind} inside a selection: define it as a name first")
            t = self.of(e.arg)
            if t not in ("bool", "int"):
                self.fail(f"{e.kind} needs a bool or int, got a {t}")
            if _has(e.arg, (Sum, Select, Average)):
                self.fail(f"the argument of {e.kind} must be position-wise (no psum, total or selection in it)")
            return "int"
        if isinstance(e, (Select, Average)):
            return self._selection(e, in_select)
        raise TypeError(e)

    def _binary(self, e: Binary, in_select: bool) -> str:
        a, b = self.of(e.left, in_select), self.of(e.right, in_select)
        if e.op in ("and", "or"):
            if a != "bool" or b != "bool":
                self.fail(f"{e.op} needs two bools, got {a} and {b}")
            return "bool"
        if e.op in COMPARE:
            if {a, b} <= {"int"} or (a, b) == ("bool", "bool") and e.op in ("==", "!="):
                return "bool"
            other = e.right if a == "frac" else e.left
            if "frac" in (a, b) and (a == "frac") != (b == "frac") and _number(other):
                return "bool"
            self.fail(f"{e.op} compares two ints, two bools (== and != only) or an average with a constant; "
                      f"got {a} and {b}")
        if e.op == "*":
            if (a, b) != ("int", "int") or not (_constant(e.left) or _constant(e.right)):
                self.fail("* multiplies an int by an integer constant")
            return "int"
        if a != "int" or b != "int":
            self.fail(f"{e.op} needs two ints, got {a} and {b}")
        return "int"

    def _selection(self, e, in_select: bool) -> str:
        if in_select:
            self.fail("a selection inside a selection: define the inner one as a name first")
        if e.visible not in VISIBLE:
            self.fail(f"visibility must be one of {', '.join(VISIBLE)}")
        conjuncts = _conjuncts(e.pred)
        mixed = 0
        for c in conjuncts:
            side = _side(c)
            if side == "mixed":
                if not (isinstance(c, Binary) and c.op == "==" and _side(c.left) != _side(c.right)
                        and "mixed" not in (_side(c.left), _side(c.right))):
                    self.fail("a selection predicate is a conjunction of key conditions (x[j], j), query "
                              "conditions and at most one equality key-int == query-int")
                if self.of(c.left, True) != "int":
                    self.fail("a key/query equality compares two ints")
                mixed += 1
            if self.of(c, True) != "bool":
                self.fail("a selection predicate must be a bool")
        if mixed > 1:
            self.fail("a selection predicate may hold at most one key/query equality")
        if isinstance(e, Average) and (mixed or any(_side(c) == "query" for c in conjuncts)):
            self.fail("an average's predicate may read the key position only")
        if self.of(e.value, True) != "bool" or _side(e.value) == "mixed" or _side(e.value) == "query":
            self.fail("a selection's value must be a bool of the key position (x[j])")
        if isinstance(e, Average):
            if not 0 <= e.default <= 1:
                self.fail("an average's default must be a constant between 0 and 1")
            return "frac"
        if self.of(e.default, True) != "bool" or _side(e.default) in ("key", "mixed"):
            self.fail("a selection's default must be a bool of the query position")
        return "bool"


def _constant(e: Expr) -> bool:
    return isinstance(e, Lit) and isinstance(e.value, int) and not isinstance(e.value, bool) or \
        isinstance(e, Unary) and e.op == "neg" and _constant(e.arg)


def _number(e: Expr) -> bool:
    """An integer or fraction literal, possibly negated."""
    return isinstance(e, Lit) and not isinstance(e.value, bool) or \
        isinstance(e, Unary) and e.op == "neg" and _number(e.arg)


def constant_value(e: Expr) -> int:
    return e.value if isinstance(e, Lit) else -constant_value(e.arg)


def _has(e: Expr, kinds) -> bool:
    if isinstance(e, kinds):
        return True
    return any(_has(c, kinds) for c in _children(e))


def _children(e: Expr) -> tuple:
    if isinstance(e, Unary):
        return (e.arg,)
    if isinstance(e, Binary):
        return (e.left, e.right)
    if isinstance(e, If):
        return (e.cond, e.then, e.other)
    if isinstance(e, Sum):
        return (e.arg,)
    if isinstance(e, Select):
        return (e.pred, e.value, e.default)
    if isinstance(e, Average):
        return (e.pred, e.value)
    return ()


def _conjuncts(e: Expr) -> list:
    if isinstance(e, Binary) and e.op == "and":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _side(e: Expr) -> str:
    """key (reads only x[j] and j), query (reads only the query position), none (a constant), mixed."""
    if isinstance(e, Ref):
        return "key" if e.key else "query"
    if isinstance(e, Var):
        return {"j": "key", "i": "query"}.get(e.name, "none")
    if isinstance(e, Tok):
        return "query"
    sides = {_side(c) for c in _children(e)} - {"none"}
    if not sides:
        return "none"
    return sides.pop() if len(sides) == 1 else "mixed"


def conjuncts(e: Expr) -> list:
    return _conjuncts(e)


def side(e: Expr) -> str:
    return _side(e)


def checked(alphabet: Sequence[str], defs: Sequence[tuple[str, Expr]], output: Output,
            where: Sequence[str] | None = None) -> Program:
    """The program with its types, or :class:`SraspError` at the first rule it breaks (``where``: a place
    name per definition, e.g. "line 3, column 1", and one more for the output line)."""
    alphabet = tuple(alphabet)
    if not alphabet or len(set(alphabet)) != len(alphabet) or any(not s for s in alphabet):
        raise SraspError("the alphabet must be non-empty, with distinct non-empty symbols")
    places = list(where) if where is not None else [f"definition {k + 1}" for k in range(len(defs))] + ["output"]
    env: dict[str, str] = {}
    for (name, e), place in zip(defs, places):
        if name in env:
            raise SraspError(f"{place}: {name!r} is defined twice")
        if name in RESERVED or not re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", name):
            raise SraspError(f"{place}: {name!r} cannot be a name")
        t = _Types(alphabet, env, place).of(e)
        if t in ("frac", "rat"):
            raise SraspError(f"{place}: {'an average' if t == 'frac' else 'a fraction'} is only a comparison "
                             "operand (average(...) >= 1/2); it cannot be named")
        env[name] = t
    place = places[len(defs)]
    for name in output.names:
        if name not in env:
            raise SraspError(f"{place}: unknown name {name!r}")
        if env[name] != "bool":
            raise SraspError(f"{place}: output {name!r} must be a bool (compare an int to get one)")
    if output.argmax and len(output.names) < 2:
        raise SraspError(f"{place}: argmax needs at least two names")
    if not output.argmax and len(output.names) != 1:
        raise SraspError(f"{place}: output one bool, or argmax over several")
    if output.position not in ("last", "all"):
        raise SraspError(f"{place}: output position must be last or all")
    return Program(alphabet, tuple(defs), output, tuple(env.items()))


# ---------------------------------------------------------------- parser

_TOKEN = re.compile(r'[ \t]*(?:(#.*)|("(?:[^"\\]|\\.)*")|(\d+)|([A-Za-z_][A-Za-z_0-9]*)|'
                    r'(<=|>=|==|!=|[<>()\[\],=+\-*/])|(\S))')


@dataclass(frozen=True)
class _T:
    kind: str  # comment str int word op bad end
    text: str
    column: int


def _tokens(line: str, number: int) -> list[_T]:
    out, pos = [], 0
    while pos < len(line):
        m = _TOKEN.match(line, pos)
        if m is None or m.lastindex is None:
            break
        kind = ("comment", "str", "int", "word", "op", "bad")[m.lastindex - 1]
        start = m.start(m.lastindex)
        if kind == "bad":
            what = "unterminated string" if m.group(m.lastindex) == '"' else f"unexpected character {m.group(6)!r}"
            raise SraspError(f"line {number}, column {start + 1}: {what}")
        if kind != "comment":
            out.append(_T(kind, m.group(m.lastindex), start + 1))
        pos = m.end()
    out.append(_T("end", "", len(line.rstrip()) + 1))
    return out


class _Line:
    """Recursive descent over one line's tokens (precedence, loosest first: if/then/else, or, and,
    not, comparison, + and -, *, unary -)."""

    def __init__(self, tokens: list[_T], number: int):
        self.t, self.k, self.number = tokens, 0, number

    def peek(self) -> _T:
        return self.t[self.k]

    def fail(self, message: str, tok: _T | None = None):
        tok = tok or self.peek()
        raise SraspError(f"line {self.number}, column {tok.column}: {message}")

    def accept(self, text: str) -> bool:
        tok = self.peek()
        if tok.kind in ("word", "op") and tok.text == text:
            self.k += 1
            return True
        return False

    def expect(self, text: str) -> None:
        if not self.accept(text):
            tok = self.peek()
            self.fail(f"expected {text!r}, found {'end of line' if tok.kind == 'end' else repr(tok.text)}")

    def name(self) -> str:
        tok = self.peek()
        if tok.kind != "word" or tok.text in RESERVED:
            self.fail(f"expected a name, found {repr(tok.text) if tok.text else 'end of line'}")
        self.k += 1
        return tok.text

    def end(self) -> None:
        if self.peek().kind != "end":
            self.fail(f"unexpected {self.peek().text!r}")

    def string(self) -> str:
        tok = self.peek()
        if tok.kind != "str":
            self.fail('expected a quoted symbol ("a")')
        self.k += 1
        text = re.sub(r"\\(.)", r"\1", tok.text[1:-1])
        if not text:
            self.fail("empty symbol", tok)
        return text

    # -- expressions
    def expr(self) -> Expr:
        if self.accept("if"):
            c = self.expr()
            self.expect("then")
            a = self.expr()
            self.expect("else")
            return If(c, a, self.expr())
        return self.disjunction()

    def disjunction(self) -> Expr:
        e = self.conjunction()
        while self.accept("or"):
            e = Binary("or", e, self.conjunction())
        return e

    def conjunction(self) -> Expr:
        e = self.negation()
        while self.accept("and"):
            e = Binary("and", e, self.negation())
        return e

    def negation(self) -> Expr:
        if self.accept("not"):
            return Unary("not", self.negation())
        return self.comparison()

    def comparison(self) -> Expr:
        tok = self.peek()
        if tok.kind == "word" and tok.text == "tok":
            self.k += 1
            op = self.peek()
            if not (self.accept("==") or self.accept("!=")):
                self.fail("tok is compared with a symbol: tok == \"a\"")
            e = Tok(self.string())
            return e if op.text == "==" else Unary("not", e)
        e = self.additive()
        tok = self.peek()
        if tok.kind == "op" and tok.text in COMPARE:
            self.k += 1
            return Binary(tok.text, e, self.additive())
        return e

    def additive(self) -> Expr:
        e = self.product()
        while True:
            tok = self.peek()
            if tok.kind == "op" and tok.text in "+-":
                self.k += 1
                e = Binary(tok.text, e, self.product())
            else:
                return e

    def product(self) -> Expr:
        e = self.unary()
        while self.accept("*"):
            e = Binary("*", e, self.unary())
        return e

    def unary(self) -> Expr:
        if self.accept("-"):
            return Unary("neg", self.unary())
        return self.atom()

    def atom(self) -> Expr:
        tok = self.peek()
        if tok.kind == "int":
            self.k += 1
            if self.accept("/"):
                den = self.peek()
                if den.kind != "int" or int(den.text) == 0:
                    self.fail("expected a non-zero integer denominator")
                self.k += 1
                return Lit(Fraction(int(tok.text), int(den.text)))
            return Lit(int(tok.text))
        if self.accept("("):
            e = self.expr()
            self.expect(")")
            return e
        if tok.kind != "word":
            self.fail("expected an expression, found " + ("end of line" if tok.kind == "end" else repr(tok.text)))
        self.k += 1
        word = tok.text
        if word in ("true", "false"):
            return Lit(word == "true")
        if word in ("i", "j", "n"):
            return Var(word)
        if word in ("psum", "total"):
            self.expect("(")
            e = self.expr()
            self.expect(")")
            return Sum(word, e)
        if word in ("min", "max"):
            self.expect("(")
            a = self.expr()
            self.expect(",")
            b = self.expr()
            self.expect(")")
            return Binary(word, a, b)
        if word in ("leftmost", "rightmost", "average"):
            return self.selection(word)
        if word in RESERVED:
            self.fail(f"unexpected {word!r}", tok)
        if self.accept("["):
            if not self.accept("j"):
                self.fail("only x[j] (the key position) may index a name")
            self.expect("]")
            return Ref(word, key=True)
        return Ref(word)

    def selection(self, mode: str) -> Expr:
        self.expect("(")
        visible = self.visibility()
        self.expect(",")
        pred = self.expr()
        self.expect(",")
        value = self.expr()
        self.expect(",")
        if mode == "average":
            tok = self.peek()
            d = self.atom()
            if not isinstance(d, Lit) or isinstance(d.value, bool):
                self.fail("an average's default is a number (0, 1/2, 1, ...)", tok)
            self.expect(")")
            return Average(visible, pred, value, Fraction(d.value))
        default = self.expr()
        self.expect(")")
        return Select(mode, visible, pred, value, default)

    def visibility(self) -> str:
        if self.accept("all"):
            return "all"
        self.expect("j")
        tok = self.peek()
        if tok.kind != "op" or tok.text not in ("<", "<=", ">", ">="):
            self.fail("visibility is all, j < i, j <= i, j > i or j >= i")
        self.k += 1
        self.expect("i")
        return f"j{tok.text}i"


def parse_program(text: str) -> Program:
    """Parse and type-check; :class:`SraspError` names the line and column."""
    alphabet: list[str] | None = None
    defs, places, output = [], [], None
    for number, raw in enumerate(text.splitlines(), 1):
        tokens = _tokens(raw, number)
        if tokens[0].kind == "end":
            continue
        p = _Line(tokens, number)
        head = tokens[0]
        if output is not None:
            p.fail("nothing may follow the output line")
        if head.kind == "word" and head.text == "alphabet":
            p.k = 1
            if alphabet is not None:
                p.fail("the alphabet is given twice", head)
            alphabet = []
            while p.peek().kind != "end":
                alphabet.append(p.string())
            if not alphabet:
                p.fail("alphabet lists at least one quoted symbol")
            continue
        if alphabet is None:
            p.fail('the first line must give the alphabet (alphabet "a" "b")', head)
        if head.kind == "word" and head.text == "output":
            p.k = 1
            position = p.peek()
            if not (p.accept("last") or p.accept("all")):
                p.fail("expected last or all")
            argmax = p.accept("argmax")
            names = [p.name()]
            while argmax and p.accept(","):
                names.append(p.name())
            p.end()
            output = Output(position.text, tuple(names), argmax)
            places.append(f"line {number}, column {head.column}")
            continue
        name = p.name()
        p.expect("=")
        start = p.peek()
        e = p.expr()
        p.end()
        defs.append((name, e))
        places.append(f"line {number}, column {start.column}")
    if alphabet is None:
        raise SraspError("line 1, column 1: empty program (it needs an alphabet, definitions and an output line)")
    if output is None:
        raise SraspError(f"line {len(text.splitlines()) + 1}, column 1: the program has no output line")
    return checked(alphabet, defs, output, places)


# ---------------------------------------------------------------- reference semantics

def run(program: Program, word: Sequence[str]) -> dict[str, list]:
    """Every defined name's value at the positions 1..n (list index 0..n−1): the specification."""
    word = tuple(word)
    if not word:
        raise SraspError("words have length at least 1")
    bad = [s for s in word if s not in program.alphabet]
    if bad:
        raise SraspError(f"symbol {bad[0]!r} is not in the alphabet {list(program.alphabet)}")
    return _Interpreter(program, word).values


def decisions(program: Program, word: Sequence[str]) -> tuple:
    """The output: Booleans (one, or one per position), or argmax indices — the index of the first
    true name, 0 when none is (numpy's argmax of the 0/1 vector)."""
    values = run(program, word)
    out = program.output
    positions = range(len(word)) if out.position == "all" else [len(word) - 1]
    if out.argmax:
        return tuple(next((k for k, name in enumerate(out.names) if values[name][p]), 0) for p in positions)
    return tuple(values[out.names[0]][p] for p in positions)


COMPARISONS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, "==": lambda a, b: a == b,
        "!=": lambda a, b: a != b, ">=": lambda a, b: a >= b, ">": lambda a, b: a > b}


class _Interpreter:
    def __init__(self, program: Program, word: tuple):
        self.word, self.n = word, len(word)
        self.values: dict[str, list] = {}
        self.sequences: dict = {}  # psum/total/selection node -> its value at every position
        for name, e in program.defs:
            self.values[name] = [self.at(e, i, None) for i in range(1, self.n + 1)]

    def sequence(self, e: Expr) -> list:
        """A node's values at every query position (computed once: they do not depend on j)."""
        if e not in self.sequences:
            if isinstance(e, Sum):
                acc, out = 0, []
                for p in range(1, self.n + 1):
                    acc += int(self.at(e.arg, p, None))
                    out.append(acc)
                self.sequences[e] = out if e.kind == "psum" else [acc] * self.n
            else:
                self.sequences[e] = [self._selection(e, i) for i in range(1, self.n + 1)]
        return self.sequences[e]

    def at(self, e: Expr, i: int, j: int | None):
        """The value of ``e`` at query position i (and key position j inside a selection), 1-based."""
        if isinstance(e, Tok):
            return self.word[i - 1] == e.symbol
        if isinstance(e, Lit):
            return e.value
        if isinstance(e, Var):
            return {"i": i, "j": j, "n": self.n}[e.name]
        if isinstance(e, Ref):
            return self.values[e.name][(j if e.key else i) - 1]
        if isinstance(e, Unary):
            v = self.at(e.arg, i, j)
            return (not v) if e.op == "not" else -v
        if isinstance(e, Binary):
            return self._binary(e, i, j)
        if isinstance(e, If):
            return self.at(e.then, i, j) if self.at(e.cond, i, j) else self.at(e.other, i, j)
        if isinstance(e, (Sum, Select, Average)):
            return self.sequence(e)[i - 1]
        raise TypeError(e)

    def _selection(self, e, i: int):
        if isinstance(e, Select):
            keys = [p for p in _visible(e.visible, i, self.n) if self._pred(e.pred, i, p)]
            if not keys:
                return self.at(e.default, i, None)
            return self.at(e.value, i, min(keys) if e.mode == "leftmost" else max(keys))
        keys = [p for p in _visible(e.visible, i, self.n) if self.at(e.pred, i, p)]
        if not keys:
            return e.default
        return Fraction(sum(bool(self.at(e.value, i, p)) for p in keys), len(keys))

    def _pred(self, pred: Expr, i: int, j: int) -> bool:
        """A conjunction; the key/query equality holds for equal values in 0..n only (docs/srasp.md)."""
        for c in _conjuncts(pred):
            if _side(c) == "mixed":
                a, b = self.at(c.left, i, j), self.at(c.right, i, j)
                if not (a == b and 0 <= a <= self.n):
                    return False
            elif not self.at(c, i, j):
                return False
        return True

    def _binary(self, e: Binary, i: int, j: int | None):
        a, b = self.at(e.left, i, j), self.at(e.right, i, j)
        if e.op == "and":
            return a and b
        if e.op == "or":
            return a or b
        if e.op in COMPARISONS:
            return COMPARISONS[e.op](a, b)
        return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
                "min": lambda: min(a, b), "max": lambda: max(a, b)}[e.op]()


def _visible(visible: str, i: int, n: int) -> range:
    return {"all": range(1, n + 1), "j<i": range(1, i), "j<=i": range(1, i + 1),
            "j>i": range(i + 1, n + 1), "j>=i": range(i, n + 1)}[visible]


# ---------------------------------------------------------------- builder API

class E:
    """A builder-API expression: Python operators build the AST (``&`` and, ``|`` or, ``~`` not,
    ``+ - *``, ``< <= > >=``; equality is ``.eq()`` / ``.ne()`` so that E stays hashable)."""

    __slots__ = ("node",)

    def __init__(self, node: Expr):
        self.node = node

    def __and__(self, other):
        return E(Binary("and", self.node, _node(other)))

    def __or__(self, other):
        return E(Binary("or", self.node, _node(other)))

    def __invert__(self):
        return E(Unary("not", self.node))

    def __neg__(self):
        return E(Unary("neg", self.node))

    def __add__(self, other):
        return E(Binary("+", self.node, _node(other)))

    def __radd__(self, other):
        return E(Binary("+", _node(other), self.node))

    def __sub__(self, other):
        return E(Binary("-", self.node, _node(other)))

    def __rsub__(self, other):
        return E(Binary("-", _node(other), self.node))

    def __mul__(self, other):
        return E(Binary("*", self.node, _node(other)))

    def __rmul__(self, other):
        return E(Binary("*", _node(other), self.node))

    def __lt__(self, other):
        return E(Binary("<", self.node, _node(other)))

    def __le__(self, other):
        return E(Binary("<=", self.node, _node(other)))

    def __gt__(self, other):
        return E(Binary(">", self.node, _node(other)))

    def __ge__(self, other):
        return E(Binary(">=", self.node, _node(other)))

    def eq(self, other):
        return E(Binary("==", self.node, _node(other)))

    def ne(self, other):
        return E(Binary("!=", self.node, _node(other)))

    def at_key(self):
        """``x[j]`` for a name reference ``x``."""
        if not isinstance(self.node, Ref):
            raise SraspError("only a name can be read at the key position")
        return E(Ref(self.node.name, key=True))


def _node(v) -> Expr:
    if isinstance(v, E):
        return v.node
    if isinstance(v, (bool, int, Fraction)):
        return Lit(v)
    raise SraspError(f"not an S-RASP expression: {v!r}")


def tok(symbol: str) -> E:
    return E(Tok(symbol))


def const(v) -> E:
    return E(Lit(v))


I, J, N = E(Var("i")), E(Var("j")), E(Var("n"))


def psum(x) -> E:
    return E(Sum("psum", _node(x)))


def total(x) -> E:
    return E(Sum("total", _node(x)))


def if_(c, a, b) -> E:
    return E(If(_node(c), _node(a), _node(b)))


def min_(a, b) -> E:
    return E(Binary("min", _node(a), _node(b)))


def max_(a, b) -> E:
    return E(Binary("max", _node(a), _node(b)))


def leftmost(visible: str, pred, value, default) -> E:
    return E(Select("leftmost", visible, _node(pred), _node(value), _node(default)))


def rightmost(visible: str, pred, value, default) -> E:
    return E(Select("rightmost", visible, _node(pred), _node(value), _node(default)))


def average(visible: str, pred, value, default) -> E:
    return E(Average(visible, _node(pred), _node(value), Fraction(default)))


class ProgramBuilder:
    """``b = ProgramBuilder(["a", "b"]); x = b.let("x", psum(tok("a"))); b.output("all", b.let("y", x > 1))``
    then ``b.program()``: the same checks as the parser (types, names defined before use)."""

    def __init__(self, alphabet: Sequence[str]):
        self.alphabet = tuple(alphabet)
        self.defs: list[tuple[str, Expr]] = []
        self.out: Output | None = None

    def let(self, name: str, e) -> E:
        self.defs.append((name, _node(e)))
        return E(Ref(name))

    def output(self, position: str, *names, argmax: bool = False) -> None:
        self.out = Output(position, tuple(n.node.name if isinstance(n, E) else n for n in names), argmax)

    def program(self) -> Program:
        if self.out is None:
            raise SraspError("output: the program has no output (call .output)")
        return checked(self.alphabet, self.defs, self.out)

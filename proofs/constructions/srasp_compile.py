"""S-RASP programs -> average-hard models (model.json v1, v2 for argmax outputs).

Every gadget is a pattern the certifier's head rules prove (certify/kernel/structure.py), the
same patterns as the formula and Dyck compilers (:mod:`.compiler`, :mod:`.tasks`):

* Booleans are formulas of :mod:`.formula` (exactly 0/1 in the hard model, 0 at BOS), compiled
  by :class:`.compiler.FormulaCompiler`: exact FFN connectives, L-round after every head.
* Integers are kept symbolically as *piecewise-linear* forms: pieces (guard, Σ c·count + c₀)
  whose guards partition the positions, where a count is #past[φ] (j ≤ i) or #future[φ]
  (j ≥ i).  psum/total/i/n are such forms, + − k· ite min max stay in the class, and a
  comparison becomes an OR over pairs of pieces of the counting comparisons of theory.md §5:
  a uniform head puts the (half-integer) difference into u = L'/|U| exactly and the sign
  amplifier (L-gap, gap ≥ 1/(2(n+1)) with past counts, 1/(2(n+1)²) with future ones) reads
  its sign — the integer never exists as a number in the stream.
* ``average`` over Booleans compared with a constant p/q is q·#(pred∧value) − p·#pred vs 0.
* A selection with a key-only predicate K: one unique-hard head, score 2K(j) ± j/n
  (L-ziggurat, gap 1/n, c = 2), values v(j) and K(j), both rounded; the default applies when
  the selected key has K = 0.
* A selection with a key/query equality x[j] == y: x and y (linear in past counts) are looked
  up as positions (L-lookup, the Dyck construction: D = x/n, E = (x/n)², gap ≥ 1/((n+1)n²));
  one match head scores 8K'(j) + (2y·x_j − x_j²)/n² ± j/(2n³) (L-tiebreak/distinct, gap ≥
  1/(2n³): the nearest x_j to y among the K' keys, leftmost/rightmost on ties), and two sign
  amplifiers on ±(x_sel − y)/n + 1/(2n) (L-gap, gap ≥ 1/(2n)) decide x_sel = y.  K' adds
  the range guards 0 ≤ x ≤ n that the lookup needs (dropped when they hold statically).

The proposed temperature is the coldest gadget's: 1/(16n²(n+1)log(n+2)) with a match head
(the S-RASP class Θ(1/(n³ log n)) of the paper; half the direct Dyck construction's, because the
match head here also carries the range guards K', and the kernel proves κ ≈ 0.096, not 1/8), else
the formula compiler's schedule.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from certify.errors import UserError
from certify.model import FORMAT_V2

from .builder import Builder, unit
from .compiler import FormulaCompiler, Given, _bos_symbol, finish
from .formula import Add, And, Compare, Const, Count, Int, Not, Or, Scale, Sym
from .srasp import (COMPARISONS, Average, Binary, If, Lit, Program, Ref, Select, Sum, Tok, Unary, Var, conjuncts,
                    constant_value, side)
MATCH_TEMPERATURE = "1/(16*n^2*(n+1)*log(n+2))"  # proved for every n (the kernel's κ ≈ 49/512 > 1/16)

TRUE, FALSE = Const(True), Const(False)
TIEBREAK = Fraction(1, 2)
_RATIOS = frozenset({"u", "total", "total_bos", "g", "int", "int_sq", "match.int"})  # dims without finite value sets  # the match head's j/n³ coefficient: below the 1/n² spacing of its quadratic term


# ---------------------------------------------------------------- formulas and linear forms

def _literals(f) -> list:
    return _literals(f.left) + _literals(f.right) if isinstance(f, And) else [f]


def f_and(a, b):
    """a ∧ b, FALSE when it is a contradiction of its conjuncts (x and not x; two different symbols)."""
    if a == FALSE or b == FALSE:
        return FALSE
    if a == TRUE:
        return b
    if b == TRUE or a == b:
        return a
    lits = _literals(a) + _literals(b)
    if any(Not(x) in lits for x in lits) or len({x.symbol for x in lits if isinstance(x, Sym)}) > 1:
        return FALSE
    return And(a, b)


def f_or(a, b):
    if a == TRUE or b == TRUE:
        return TRUE
    if a == FALSE:
        return b
    if b == FALSE or a == b:
        return a
    return Or(a, b)


def f_not(a):
    if isinstance(a, Const):
        return Const(not a.value)
    if isinstance(a, Not):
        return a.arg
    return Not(a)


@dataclass(frozen=True)
class Lin:
    """Σ coef·count + const, counts keyed (direction, formula)."""

    terms: tuple = ()
    const: int = 0

    def plus(self, other: "Lin", k: int = 1) -> "Lin":
        acc = dict(self.terms)
        for key, c in other.terms:
            acc[key] = acc.get(key, 0) + k * c
        return Lin(tuple((key, c) for key, c in acc.items() if c), self.const + k * other.const)

    def scaled(self, k: int) -> "Lin":
        return Lin(tuple((key, k * c) for key, c in self.terms if k * c), k * self.const)

    def term(self):
        t = Int(self.const)
        for (direction, phi), c in self.terms:
            count = Count(direction, phi)
            t = Add(t, count if c == 1 else Scale(c, count))
        return t


ZERO = Lin()


def count(direction: str, phi) -> Lin:
    return Lin((((direction, phi), 1),)) if phi != FALSE else ZERO


def pw_const(k: int) -> tuple:
    return ((TRUE, Lin((), k)),)


def pw_combine(a: tuple, b: tuple, k: int = 1) -> tuple:
    """a + k·b, piece by piece (guards intersected; empty intersections dropped)."""
    out = []
    for ga, la in a:
        for gb, lb in b:
            g = f_and(ga, gb)
            if g != FALSE:
                out.append((g, la.plus(lb, k)))
    return tuple(out)


def pw_scale(a: tuple, k: int) -> tuple:
    return tuple((g, lin.scaled(k)) for g, lin in a)


def pw_if(c, a: tuple, b: tuple) -> tuple:
    out = [(f_and(c, g), lin) for g, lin in a] + [(f_and(f_not(c), g), lin) for g, lin in b]
    return tuple((g, lin) for g, lin in out if g != FALSE)


def pw_count(visible: str, phi) -> tuple:
    """#{visible j : φ(j)} as pieces (j < i and j > i subtract φ(i); all = past + future − φ(i))."""
    if visible == "j<=i":
        return ((TRUE, count("past", phi)),)
    if visible == "j>=i":
        return ((TRUE, count("future", phi)),)
    base = {"j<i": count("past", phi), "j>i": count("future", phi),
            "all": count("past", phi).plus(count("future", phi))}[visible]
    if phi == FALSE:
        return ((TRUE, ZERO),)
    return pw_if(phi, ((TRUE, base.plus(Lin((), -1))),), ((TRUE, base),))


def compare_lin(op: str, lin: Lin):
    """lin OP 0 as a formula (a constant when lin has no counts)."""
    if not lin.terms:
        return Const(COMPARISONS[op](lin.const, 0))
    if op == "!=":
        return f_not(Compare("=", lin.term(), Int(0)))
    return Compare("=" if op == "==" else op, lin.term(), Int(0))


def pw_compare(op: str, a: tuple, b: tuple):
    out = FALSE
    for g, lin in pw_combine(a, b, -1):
        out = f_or(out, f_and(g, compare_lin(op, lin)))
    return out


# ---------------------------------------------------------------- the compiler

class _Counting(FormulaCompiler):
    """The formula compiler with one change for S-RASP's nested counts (psum of a comparison): the
    constant of a past-count comparison enters the amplifier's query through the PE 1/(i+1)
    (u = Σc·#φ/(i+1) + c₀/(i+1)), not as a BOS share of the uniform head.  The kernel proves the
    grid offset (u ≠ 0) from the PE; a BOS share proves it only for embedded Booleans, whose BOS-row
    value it tracks, while a Boolean written by an FFN (a rounded comparison) has no BOS-row record."""

    def _sign(self, counts: dict, const: Fraction) -> tuple[str, int]:
        if not counts or not all(d == "past" for d, _ in counts):
            return super()._sign(counts, const)
        u, values, ready = self.b.fresh("u"), [], -1
        for (_, phi), c in counts.items():
            dim, r = self.compile(phi)
            values.append((u, dim, Fraction(c)))
            ready = max(ready, r)
        k = self.b.attention({"name": self._name("count"), "hard": "average", "visible": "j<=i", "score": [],
                              "value": values}, ready)
        w = self.b.pe("inv_i1", "1/(i+1)")
        return self._amplify(u, k, mixed=False, lattice="1/(2(i+1))", shift=(w, const))


class SraspCompiler:
    def __init__(self, program: Program):
        self.p = program
        self.b = Builder(program.alphabet, _bos_symbol(program.alphabet))
        self.fc = _Counting(self.b, "bounded", ladder=False)
        self.bools: dict = {}
        self.ints: dict = {}
        self.lookups: dict = {}
        self.selects: dict = {}
        self.matches: dict = {}  # (mode, visible, key, x, y) -> (match head, its slot, found)
        self.where = ""
        self.matched = False

    def fail(self, message: str):
        raise UserError(f"{self.where}: {message}")

    # -- Booleans
    def bool_(self, e):
        if isinstance(e, Ref):
            if e.name not in self.bools:
                where, self.where = self.where, f"definition of {e.name!r}"
                self.bools[e.name] = self.bool_(self.p.definition(e.name))
                self.where = where
            return self.bools[e.name]
        if isinstance(e, Tok):
            return Sym(e.symbol)
        if isinstance(e, Lit):
            return Const(bool(e.value))
        if isinstance(e, Unary):
            return f_not(self.bool_(e.arg))
        if isinstance(e, If):
            c = self.bool_(e.cond)
            return f_or(f_and(c, self.bool_(e.then)), f_and(f_not(c), self.bool_(e.other)))
        if isinstance(e, Select):
            if e not in self.selects:
                self.selects[e] = self._select(e)
            return self.selects[e]
        if isinstance(e, Binary):
            if e.op in ("and", "or"):
                a, b = self.bool_(e.left), self.bool_(e.right)
                return f_and(a, b) if e.op == "and" else f_or(a, b)
            kinds = {self._type(e.left), self._type(e.right)}
            if "frac" in kinds:
                return self._average_compare(e)
            if kinds == {"bool"}:
                a, b = self.bool_(e.left), self.bool_(e.right)
                same = f_or(f_and(a, b), f_and(f_not(a), f_not(b)))
                return same if e.op == "==" else f_not(same)
            return pw_compare(e.op, self.int_(e.left), self.int_(e.right))
        raise TypeError(e)

    def _type(self, e) -> str:
        if isinstance(e, Average):
            return "frac"
        if isinstance(e, Ref):
            return self.p.type_of(e.name)
        if isinstance(e, Lit):
            return "bool" if isinstance(e.value, bool) else "int" if isinstance(e.value, int) else "rat"
        if isinstance(e, (Tok, Select)) or isinstance(e, Unary) and e.op == "not":
            return "bool"
        if isinstance(e, Binary) and e.op in ("and", "or", "<", "<=", "==", "!=", ">=", ">"):
            return "bool"
        if isinstance(e, If):
            return self._type(e.then)
        return "int"

    # -- integers
    def int_(self, e) -> tuple:
        if isinstance(e, Ref):
            if self.p.type_of(e.name) == "bool":
                return self._bool_as_int(self.bool_(e))
            if e.name not in self.ints:
                where, self.where = self.where, f"definition of {e.name!r}"
                self.ints[e.name] = self.int_(self.p.definition(e.name))
                self.where = where
            return self.ints[e.name]
        if isinstance(e, Lit):
            return pw_const(int(e.value))
        if isinstance(e, Var):  # i (or j at the key): #past[true]; n = #past[true] + #future[true] − 1
            if e.name == "n":
                return ((TRUE, count("past", TRUE).plus(count("future", TRUE)).plus(Lin((), -1))),)
            return ((TRUE, count("past", TRUE)),)
        if isinstance(e, Unary) and e.op == "neg":
            return pw_scale(self.int_(e.arg), -1)
        if isinstance(e, If):
            if self._type(e.then) == "bool":
                return self._bool_as_int(self.bool_(e))
            return pw_if(self.bool_(e.cond), self.int_(e.then), self.int_(e.other))
        if isinstance(e, Sum):
            return self._sum(e)
        if isinstance(e, Binary):
            if e.op in ("+", "-"):
                return pw_combine(self.int_(e.left), self.int_(e.right), 1 if e.op == "+" else -1)
            if e.op == "*":
                k, other = (e.left, e.right) if _is_const(e.left) else (e.right, e.left)
                return pw_scale(self.int_(other), constant_value(k))
            if e.op in ("min", "max"):
                a, b = self.int_(e.left), self.int_(e.right)
                return pw_if(pw_compare("<=" if e.op == "min" else ">=", a, b), a, b)
            return self._bool_as_int(self.bool_(e))
        return self._bool_as_int(self.bool_(e))

    def _bool_as_int(self, f) -> tuple:
        if isinstance(f, Const):
            return pw_const(int(f.value))
        return ((f, Lin((), 1)), (f_not(f), ZERO))

    def _sum(self, e: Sum) -> tuple:
        """psum(x) = Σ over x's pieces of const·#past[guard] (x is position-wise: its pieces hold no counts)."""
        visible = "j<=i" if e.kind == "psum" else "all"
        out = pw_const(0)
        for g, lin in self.int_(e.arg):
            if lin.terms:
                self.fail(f"the argument of {e.kind} must be position-wise in Booleans")
            if lin.const:
                out = pw_combine(out, pw_count(visible, g), lin.const)
        return out

    # -- average
    def _average_compare(self, e: Binary):
        op, avg, theta = e.op, e.left, e.right
        if not isinstance(avg, Average):
            flip = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
            op, avg, theta = flip[op], e.right, e.left
        theta = Fraction(constant_value(theta))
        k = self.bool_(avg.pred)
        num = pw_count(avg.visible, f_and(k, self.bool_(avg.value)))
        den = pw_count(avg.visible, k)
        nonempty = pw_compare(">", den, pw_const(0))
        main = pw_compare(op, pw_combine(pw_scale(num, theta.denominator), den, -theta.numerator), pw_const(0))
        empty = Const(COMPARISONS[op](avg.default, theta))
        return f_or(f_and(nonempty, main), f_and(f_not(nonempty), empty))

    # -- selections
    def _select(self, e: Select):
        keyc, queryc, mixed = [], [], None
        for c in conjuncts(e.pred):
            s = side(c)
            if s == "mixed":
                mixed = c
            elif s == "query":
                queryc.append(c)
            else:
                keyc.append(c)
        key, query = TRUE, TRUE
        for c in keyc:
            key = f_and(key, self.bool_(c))
        for c in queryc:
            query = f_and(query, self.bool_(c))
        value, default = self.bool_(e.value), self.bool_(e.default)
        if mixed is None:
            found, got = self._select_key(e, key, value)
        else:
            found, got = self._select_equal(e, key, value, mixed)
        found = f_and(query, found)
        return f_or(f_and(found, got), f_and(f_not(found), default))

    def _select_key(self, e: Select, key, value) -> tuple:
        """One unique-hard head, score 2K(j) ± j/n (L-ziggurat): the rightmost/leftmost K key if any."""
        b, fc = self.b, self.fc
        (dk, rk), (dv, rv) = fc.compile(key), fc.compile(value)
        pos = b.pe("pos", "i/n")
        raw_v, raw_k = b.fresh("sel.raw"), b.fresh("sel.found.raw")
        name = fc._name("select")
        head = {"name": name, "hard": e.mode, "visible": e.visible,
                "score": [(fc.one, dk, Fraction(2)), (fc.one, pos, Fraction(1 if e.mode == "rightmost" else -1))],
                "value": [(raw_v, dv, Fraction(1)), (raw_k, dk, Fraction(1))]}
        k = b.attention(head, max(rk, rv))
        b.notes.append(f"{name}: key-only scores 2K ± j/n, gap >= 1/n (L-ziggurat)")
        (v, kv), (f, kf) = fc.round(raw_v, k, gate=True, hint="sel"), fc.round(raw_k, k, gate=True, hint="found")
        return Given(f, kf), Given(v, kv)

    def _linear(self, e, what: str) -> Lin:
        pieces = self.int_(e)
        if len(pieces) != 1 or pieces[0][0] != TRUE or any(d != "past" for (d, _), _ in pieces[0][1].terms):
            self.fail(f"the {what} side of a key/query equality must be a sum of prefix sums, i/j and constants "
                      "(no total, n, if, min or max)")
        return pieces[0][1]

    def _in_range(self, lin: Lin):
        """0 <= x <= n, with each half dropped when it holds for every word (x ≥ 0 from non-negative
        coefficients; x ≤ position ≤ n when the positive coefficients sum to ≤ 1 and c₀ ≤ 0)."""
        guard, x = TRUE, ((TRUE, lin),)
        positive = sum(c for _, c in lin.terms if c > 0)
        if any(c < 0 for _, c in lin.terms) or lin.const < 0:
            guard = f_and(guard, pw_compare(">=", x, pw_const(0)))
        if not (positive <= 1 and lin.const <= 0 or positive == 0 and lin.const <= 1):
            guard = f_and(guard, pw_compare("<=", x, self.int_(Var("n"))))
        return guard

    def _lookup(self, lin: Lin) -> tuple[str, str, int]:
        """(D = x/n, E = (x/n)², ready) for x clamped to [0, n]: the Dyck depth lookup (L-lookup)."""
        if lin in self.lookups:
            return self.lookups[lin]
        b, fc = self.b, self.fc
        counts = {key: Fraction(c) for key, c in lin.terms}
        if counts:
            a, ka = fc._past_ratio(counts, Fraction(lin.const))
        else:  # a constant: its ratio c/(i+1) is c·bos averaged, one uniform head
            a = b.fresh("u")
            ka = b.attention({"name": fc._name("count"), "hard": "average", "visible": "j<=i", "score": [],
                              "value": [(a, fc.bos_dim, Fraction(lin.const))]}, -1)
        q1, q2 = b.pe("p_n2", "i/n^2"), b.pe("pos2", "(i/n)^2")
        r, pos = b.pe("inv_i1", "1/(i+1)"), b.pe("pos", "i/n")
        d, e2 = b.fresh("int"), b.fresh("int_sq")
        name = fc._name("lookup")
        k = b.attention({"name": name, "hard": "average", "visible": "all",
                         "score": [(a, q1, Fraction(2)), (r, q2, Fraction(-1))],
                         "value": [(d, pos, Fraction(1)), (e2, q2, Fraction(1))]}, ka)
        b.notes.append(f"{name}: gap >= 1/((n+1)n^2) (L-lookup)")
        self.lookups[lin] = (d, e2, k)
        return self.lookups[lin]

    def _select_equal(self, e: Select, key, value, eq: Binary) -> tuple:
        b, fc = self.b, self.fc
        kx, qy = (eq.left, eq.right) if side(eq.left) == "key" else (eq.right, eq.left)
        x, y = self._linear(kx, "key"), self._linear(qy, "query")
        key = f_and(key, self._in_range(x))
        guard_y = self._in_range(y)
        dx, ex, kdx = self._lookup(x)
        dy, _, kdy = self._lookup(y)
        (dk, rk), (dv, rv) = fc.compile(key), fc.compile(value)
        core = (e.mode, e.visible, key, x, y)
        if core in self.matches and rv < self.matches[core][1]:  # same selection, one more value on its head
            head, k, found = self.matches[core]
            raw_v = b.fresh("match.raw")
            head["value"].append((raw_v, dv, Fraction(1)))
            v, kv = fc.round(raw_v, k, gate=True, hint="match")
            return found, Given(v, kv)
        tb = b.pe("p_n3", "i/n^3")
        raw_v, raw_k, raw_d = b.fresh("match.raw"), b.fresh("match.found.raw"), b.fresh("match.int")
        name = fc._name("match")
        head = {"name": name, "hard": "average", "visible": e.visible,
                "score": [(dy, dx, Fraction(2)), (fc.one, ex, Fraction(-1)), (fc.one, dk, Fraction(8)),
                          (fc.one, tb, TIEBREAK if e.mode == "rightmost" else -TIEBREAK)],
                "value": [(raw_v, dv, Fraction(1)), (raw_k, dk, Fraction(1)), (raw_d, dx, Fraction(1))]}
        k = b.attention(head, max(kdx, kdy, rk, rv))
        b.notes.append(f"{name}: gap >= 1/(2n^3) (L-tiebreak, distinct scores)")
        self.matched = True
        inv_n = b.pe("inv_n", "1/n")
        same = TRUE
        for sign in (1, -1):  # x_sel − y ≥ 0 and y − x_sel ≥ 0: sign of ±(x_sel − y)/n + 1/(2n), never 0
            raw = b.fresh("eq.raw")
            amp = fc._name("eq")
            ka = b.attention({"name": amp, "hard": "average", "visible": "j<=i",
                              "score": [(raw_d, fc.bos_dim, Fraction(sign)), (dy, fc.bos_dim, Fraction(-sign)),
                                        (inv_n, fc.bos_dim, Fraction(1, 2))],
                              "value": [(raw, fc.bos_dim, Fraction(1))]}, max(k, kdy))
            b.notes.append(f"{amp}: |query| >= 1/(2n), maxima all BOS or all non-BOS, gap >= 1/(2n) (L-gap)")
            d, kr = fc.round(raw, ka, gate=True, hint="eq")
            same = f_and(same, Given(d, kr))
        (v, kv), (f, kf) = fc.round(raw_v, k, gate=True, hint="match"), fc.round(raw_k, k, gate=True, hint="found")
        found = f_and(f_and(guard_y, Given(f, kf)), same)
        self.matches[core] = (head, k, found)
        return found, Given(v, kv)

    # -- the model
    def compile(self, name: str) -> dict:
        out = self.p.output
        self.where = "output"
        dims = [self.fc.compile(self.bool_(Ref(x)))[0] for x in out.names] if not out.argmax else []
        if out.argmax:
            code, ready = self._argmax_code([self.bool_(Ref(x)) for x in out.names])
            outs, ready = self._one_hot(code, ready, len(out.names))
        b, fc = self.b, self.fc
        b.notes.append("count heads: uniform (exact at every temperature)")
        model = finish(b, fc, dims[0] if dims else outs[0], name,
                       f"S-RASP program (output {out.position}{' argmax' if out.argmax else ''} "
                       f"{', '.join(out.names)})", out.position == "all")
        if self.matched:
            model["temperature"] = MATCH_TEMPERATURE
            model["description"] = model["description"].replace(f"proposed temperature {fc.temperature()}",
                                                                f"proposed temperature {MATCH_TEMPERATURE}")
        if out.argmax:
            model["format"] = FORMAT_V2
            model["output"] = {"argmax": outs, "position": out.position}
        model["layers"] = [part for layer in model["layers"] for part in self._split(layer)]
        return model

    def _split(self, layer: dict) -> list[dict]:
        """An FFN layer as consecutive FFN layers of the same units (equal meaning: no unit reads a dim
        written in its own slot), so that the kernel's joint analysis of each keeps exact value sets.
        The kernel enumerates the joint values of every dim a layer touches (at most 4096 combinations)
        and one unit reading a non-finite dim (a count ratio, a position embedding) costs the whole
        layer its combinations: rounding units go in blocks of ≤ 12 binary dims, the others apart.
        Units writing the same dims stay together."""
        if layer["type"] != "ffn":
            return [layer]
        blocks: dict = {}
        for u in layer["hidden"]:
            blocks.setdefault(tuple(sorted(u["out"])), []).append(u)
        finite, other = [], []
        for units in blocks.values():
            dims = {d for u in units for d in list(u["in"]) + list(u["out"])}
            (finite if all(self._finite(d) for d in dims) else other).append((dims, units))
        parts, dims_now, units_now = [], set(), []
        for dims, units in finite:
            reads = {d for u in units for d in u["in"]}
            if units_now and sum(_bits(d) for d in dims_now | reads) > 12:
                parts.append(units_now)
                dims_now, units_now = set(), []
            dims_now |= reads
            units_now = units_now + units
        if units_now:
            parts.append(units_now)
        if other:
            parts.append([u for _, units in other for u in units])
        return [{"type": "ffn", "hidden": units} for units in parts]

    def _finite(self, dim: str) -> bool:
        if dim in self.b.position:
            return self.b.position[dim] == "1"
        return dim.split(".", 1)[-1] not in _RATIOS

    def _argmax_code(self, flags: list) -> tuple[str, int]:
        """c = Σ k·e_k with e_k = b_k ∧ no earlier b: the index of the first true flag, 0 if none."""
        b, fc = self.b, self.fc
        code, units, ready, none_before = b.fresh("argmax.code"), [], -1, TRUE
        for k, flag in enumerate(flags):
            first = f_and(flag, none_before)
            none_before = f_and(none_before, f_not(flag))
            if k and first != FALSE:
                d, r = fc.compile(first)
                units.append(unit({d: 1}, {code: k}))
                ready = max(ready, r)
        if units:
            return code, b.ffn(units, ready)
        return code, ready

    def _one_hot(self, code: str, ready: int, size: int) -> tuple[list[str], int]:
        """out_k = 1 iff c = k (the last one for c ≥ size − 1): tents ReLU(c−k+1) − 2ReLU(c−k) + ReLU(c−k−1)
        on the integers c ≥ 0, so every hard output vector is one-hot (argmax margin 1/2)."""
        b = self.b
        outs = [b.fresh(f"out{k}") for k in range(size)]
        units = [unit({code: -1}, {outs[0]: 1}, 1)]
        for k in range(1, size):
            units.append(unit({code: 1}, {outs[k]: 1}, -(k - 1)))
            units.append(unit({code: 1}, {outs[k]: -1 if k == size - 1 else -2}, -k))
            if k < size - 1:
                units.append(unit({code: 1}, {outs[k]: 1}, -(k + 1)))
        return outs, b.ffn(units, ready)


def _bits(dim: str) -> int:
    """log2 of the size of a read dim's value set, bounded: a 0/1 Boolean 1, the argmax code 3."""
    return 3 if dim.endswith("argmax.code") else 1


def _is_const(e) -> bool:
    return isinstance(e, Lit) and isinstance(e.value, int) and not isinstance(e.value, bool) or \
        isinstance(e, Unary) and e.op == "neg" and _is_const(e.arg)


def compile_program(program: Program, name: str) -> dict:
    """The model.json dict of ``program`` (v2 when its output is an argmax)."""
    return SraspCompiler(program).compile(name)

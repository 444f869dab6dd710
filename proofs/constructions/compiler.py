"""Formulas -> hard-attention models (model.json v1), in two sharpening schemes.

Every gadget is one of the shapes the certifier recognises (theory.md §5):

* Booleans hold exactly 0/1 in the hard model; connectives are exact FFNs on 0/1
  (not = ReLU(T − a), and = ReLU(a + b − 1), or = ReLU(a + b) − ReLU(a + b − 1)),
  T = ``one`` (or ``nb``, "not BOS", when the model has a BOS position).
* prev/next/since/until: one unique-hard head with KEY-ONLY scores (L-tiebreak):
  bounded ``2·P(j) ± j/n`` (query dim ``one``), unbounded ``3·(n·P(j) ± j)``
  (query dims ``n``/``one``); distinct keys get distinct scores, spaced by 1/n
  (bounded) or by multiples of 3 (unbounded), at most two per gap (L-ziggurat,
  c = 2); then an L-round FFN into a fresh dim.
* counts: AVERAGE heads with an empty score (uniform, exact at every τ).
* comparisons of counts: the count difference L' (a non-zero half-integer) is
  put, exactly, into a coordinate u = L'/|U| by uniform heads, and an
  amplifying AVERAGE head over ``j<=i`` turns its sign into a Boolean (see
  :meth:`FormulaCompiler._amplify`), then L-round.

Hard and soft models differ only inside attention; after every approximate
step the value is re-rounded (L-round), so soft errors do not accumulate.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from certify.errors import UserError

from .builder import EMBEDDED, Builder, unit
from .formula import (And, Compare, Const, Count, Formula, Int, Mon, Next, Not, Or, Prev, Scale, Since, Sym,
                      Until, Add, symbols_of, to_text)

SCHEMES = ("bounded", "unbounded")
HALF = Fraction(1, 2)


@dataclass(frozen=True)
class Given:
    """A Boolean already compiled into ``dim`` (ready after slot ``ready``): lets task
    compilers (Dyck-k) feed their own gadgets into the formula compiler."""

    dim: str
    ready: int


@dataclass(frozen=True)
class Schedule:
    """Proposed temperatures (bounded scheme) per kind of hard step, coldest wins.

    unique: key-only unique-hard heads, gaps 1/n, c = 2 -> q = e^{-4} at 1/(4n).
    past:   sign amplifier over past counts with a ladder (L-special-key): unique maximum, deficits
            >= 1/(4(n+1)), <= 2 keys a band -> leakage 2q/(1-q) with q = e^{-2}, Λ < 1/4 at 1/(8(n+1)).
    plain:  the same without the ladder, every non-zero gap >= 1/(2(n+1)), at most n+1
            competitors (L-gap) -> leakage <= (n+1)/(n+2)^2 < 1/4 at 1/(4(n+1)log(n+2)).
    mixed:  sign amplifier with future counts, every non-zero gap >= 1/(2(n+1)^2), at most n+1
            competitors -> leakage <= (n+1)/(n+2)^2 < 1/4 at 1/(4(n+1)^2 log(n+2)).
    """

    unique: str = "1/(4*n)"
    past: str = "1/(8*(n+1))"
    plain: str = "1/(4*(n+1)*log(n+2))"
    mixed: str = "1/(4*(n+1)^2*log(n+2))"
    unbounded: str = "1"


SCHEDULE = Schedule()
_RANK = {"unique": 0, "past": 1, "plain": 2, "mixed": 3}


class FormulaCompiler:
    """Compile Boolean formulas into dims of one :class:`Builder`."""

    def __init__(self, builder: Builder, scheme: str, ladder: bool = True):
        """``ladder``: past-count comparisons of the bounded scheme use the ladder amplifier (τ = Θ(1/n));
        without it the plain sign gadget, whose gap is twice the ladder's — the better choice where a
        colder head sets the schedule anyway (Dyck-k's match head, S-RASP's nested counts)."""
        if scheme not in SCHEMES:
            raise UserError(f"--scheme must be one of {', '.join(SCHEMES)}, got {scheme!r}")
        self.b = builder
        self.scheme = scheme
        self.bounded = scheme == "bounded"
        self.ladder = ladder and self.bounded
        self.memo: dict = {}
        self.totals: dict[str, tuple[str, int]] = {}  # Boolean dim -> (its total·bos dim, ready slot)
        self.heads = 0
        self.coldest = "unique"
        b = builder
        self.one = b.pe("one", "1")
        if b.bos:
            self.bos_dim = b.token_feature("bos", {b.bos: 1})
            self.true = b.token_feature("nb", {s: 1 for s in b.alphabet})
        else:
            self.bos_dim = None
            self.true = self.one

    # -- helpers
    def _gate(self, weight) -> dict:
        """Extra FFN input that forces a unit off at the BOS row (Booleans are 0 there)."""
        return {self.bos_dim: Fraction(weight)} if self.bos_dim else {}

    def _name(self, kind: str) -> str:
        self.heads += 1
        return f"h{self.heads}.{kind}"

    def _note(self, text: str) -> None:
        self.b.notes.append(text)

    def _need(self, kind: str) -> None:
        if _RANK[kind] > _RANK[self.coldest]:
            self.coldest = kind

    def temperature(self) -> str:
        return getattr(SCHEDULE, self.coldest) if self.bounded else SCHEDULE.unbounded

    def round(self, raw: str, ready: int, gate: bool, hint: str) -> tuple[str, int]:
        """L-round 2ReLU(x−1/4) − 2ReLU(x−3/4) into a fresh dim.  With ``gate`` the units
        also read −bos: heads that see keys j > 0 from the BOS row get 0 there."""
        out = self.b.fresh(hint)
        extra = self._gate(-1) if gate else {}
        k = self.b.ffn([unit({raw: 1, **extra}, {out: 2}, Fraction(-1, 4)),
                        unit({raw: 1, **extra}, {out: -2}, Fraction(-3, 4))], ready)
        return out, k

    # -- formulas
    def compile(self, f) -> tuple[str, int]:
        """Dim holding ``f`` (exactly 0/1 in the hard model, 0 at BOS) and its ready slot."""
        if isinstance(f, Given):
            return f.dim, f.ready
        if f not in self.memo:
            self.memo[f] = self._compile(f)
        return self.memo[f]

    def _compile(self, f) -> tuple[str, int]:
        b = self.b
        if isinstance(f, Sym):
            if f.symbol not in b.alphabet:
                raise UserError(f"symbol {f.symbol!r} is not in the alphabet {list(b.alphabet)}")
            return b.token_feature(f"is:{f.symbol}", {f.symbol: 1}), EMBEDDED
        if isinstance(f, Const):
            if f.value:
                return self.true, EMBEDDED
            return b.named("zero"), EMBEDDED
        if isinstance(f, Mon):
            return self._mon(f.name)
        if isinstance(f, Not):
            a, ra = self.compile(f.arg)
            out = b.fresh("not")
            return out, b.ffn([unit({self.true: 1, a: -1}, {out: 1})], ra)
        if isinstance(f, And):
            (a, ra), (c, rc) = self.compile(f.left), self.compile(f.right)
            out = b.fresh("and")
            return out, b.ffn([unit({a: 1, c: 1}, {out: 1}, -1)], max(ra, rc))
        if isinstance(f, Or):
            return self._or(f.left, f.right)
        if isinstance(f, (Prev, Next)):
            return self._shift(f)
        if isinstance(f, (Since, Until)):
            return self._since_until(f)
        if isinstance(f, Compare):
            return self._compare(f)
        raise TypeError(f)

    def _or(self, left, right) -> tuple[str, int]:
        (a, ra), (c, rc) = self.compile(left), self.compile(right)
        out = self.b.fresh("or")
        return out, self.b.ffn([unit({a: 1, c: 1}, {out: 1}), unit({a: 1, c: 1}, {out: -1}, -1)], max(ra, rc))

    def _mon(self, name: str) -> tuple[str, int]:
        """Mon predicates from bounded PEs, each by one exact ReLU unit."""
        b = self.b
        out = b.fresh(name)
        if name == "first":  # 1/(i+1): 1 at BOS, 1/2 at i = 1, <= 1/3 after
            e = b.pe("inv_i1", "1/(i+1)")
            u = unit({e: 6, **self._gate(-4)}, {out: 1}, -2)
        elif name == "last":  # 1/(n-i+1): 1 at i = n, <= 1/2 before
            e = b.pe("inv_ni1", "1/(n-i+1)")
            u = unit({e: 2}, {out: 1}, -1)
        else:
            e = b.pe("alt", "(-1)^i")
            u = unit({e: 1, **self._gate(-1)}, {out: 1}) if name == "even" else unit({e: -1}, {out: 1})
        return out, b.ffn([u], EMBEDDED)

    def _positions(self) -> tuple[str, Fraction]:
        """(key position dim, coefficient) so that one unit of position is 1/n or 3."""
        if self.bounded:
            return self.b.pe("pos", "i/n"), Fraction(1)
        return self.b.pe("i", "i"), Fraction(3)

    def _shift(self, f) -> tuple[str, int]:
        """prev: rightmost over j<i by position; next: leftmost over j>i (L-tiebreak)."""
        a, ra = self.compile(f.arg)
        pos, g = self._positions()
        backward = isinstance(f, Prev)
        kind = "prev" if backward else "next"
        raw = self.b.fresh(f"{kind}.raw")
        head = {"name": self._name(kind), "hard": "rightmost" if backward else "leftmost",
                "visible": "j<i" if backward else "j>i",
                "score": [(self.one, pos, g if backward else -g)], "value": [(raw, a, 1)]}
        k = self.b.attention(head, ra)
        return self.round(raw, k, gate=not backward, hint=kind)

    def _since_until(self, f) -> tuple[str, int]:
        """φ S ψ = ψ(j*) for j* = max{j<i : P(j)}, P = ψ ∨ ¬φ (theory.md §5); until mirrored.
        Score 2P(j) ± j/n (bounded) or 3(n·P(j) ± j) (unbounded): P dominates."""
        psi, rpsi = self.compile(f.right)
        p, rp = self.compile(Or(f.right, Not(f.left)))
        pos, g = self._positions()
        backward = isinstance(f, Since)
        kind = "since" if backward else "until"
        sign = 1 if backward else -1
        if self.bounded:
            score = [(self.one, p, Fraction(2)), (self.one, pos, sign * g)]
        else:
            score = [(self.b.pe("n", "n"), p, g), (self.one, pos, sign * g)]
        raw = self.b.fresh(f"{kind}.raw")
        head = {"name": self._name(kind), "hard": "rightmost" if backward else "leftmost",
                "visible": "j<i" if backward else "j>i", "score": score, "value": [(raw, psi, 1)]}
        k = self.b.attention(head, max(rpsi, rp))
        return self.round(raw, k, gate=not backward, hint=kind)

    # -- counting
    def _compare(self, f: Compare) -> tuple[str, int]:
        counts, const = _linear(f.left)
        rc, rconst = _linear(f.right)
        for key, c in rc.items():
            counts[key] = counts.get(key, 0) + -c
        const -= rconst
        counts = {k: c for k, c in counts.items() if c}
        if f.op == "=":
            return self._and_dims(self._sign(counts, const + HALF), self._sign(_neg(counts), -const + HALF))
        shift = {">": (1, -HALF), ">=": (1, HALF), "<": (-1, -HALF), "<=": (-1, HALF)}[f.op]
        s, h = shift
        return self._sign(counts if s > 0 else _neg(counts), s * const + h)

    def _and_dims(self, x: tuple[str, int], y: tuple[str, int]) -> tuple[str, int]:
        out = self.b.fresh("and")
        return out, self.b.ffn([unit({x[0]: 1, y[0]: 1}, {out: 1}, -1)], max(x[1], y[1]))

    def _sign(self, counts: dict, const: Fraction) -> tuple[str, int]:
        """Boolean of L' = Σ c·count + const > 0, where L' is a non-zero half-integer."""
        if not counts:
            return self.compile(Const(const > 0))
        if self.bos_dim is None:
            raise AssertionError("comparisons need a BOS position")
        if all(d == "past" for d, _ in counts):
            u, ready = self._past_ratio(counts, const)
            return self._amplify(u, ready, mixed=False, lattice="1/(2(i+1))")
        u, ready, w = self._mixed_ratio(counts)
        return self._amplify(u, ready, mixed=True, lattice="1/(2(i+1)(n+1))", shift=(w, const))

    def _past_ratio(self, counts: dict, const: Fraction) -> tuple[str, int]:
        """u = L'/(i+1) by one uniform head over j<=i (BOS included, Booleans 0 there)."""
        b = self.b
        u = b.fresh("u")
        values, ready = [], EMBEDDED
        for (_, phi), c in counts.items():
            dim, r = self.compile(phi)
            values.append((u, dim, Fraction(c)))
            ready = max(ready, r)
        values.append((u, self.bos_dim, const))
        head = {"name": self._name("count"), "hard": "average", "visible": "j<=i", "score": [], "value": values}
        return u, b.attention(head, ready)

    def _mixed_ratio(self, counts: dict) -> tuple[str, int, str]:
        """u = (L' − const)/((i+1)(n+1)) exactly, and the PE w = 1/((i+1)(n+1)), when future counts occur.

        #future[φ](i) = T − #past[φ](i) + φ(i) with T the total; with r = 1/(n+1):
        g = φ·r (exact gating ReLU(φ + r − 1) of a Boolean φ), Tavg = T/(n+1) (uniform
        over all), TB = Tavg·bos, then one uniform head over j<=i sums g and TB into u,
        and an FFN adds the φ(i)·w terms (gating again).  Every step keeps u on the grid
        (i+1)(n+1); the amplifier adds const·w, which puts u + const·w half-way between
        grid points (so it is never 0)."""
        b = self.b
        r = b.pe("inv_n1", "1/(n+1)")
        w = b.pe("inv_i1_n1", "1/((i+1)*(n+1))")
        gates, coef_g, future, ready = [], {}, [], EMBEDDED
        g_of: dict[str, str] = {}
        for (direction, phi), c in counts.items():
            dim, rd = self.compile(phi)
            ready = max(ready, rd)
            if dim not in g_of:
                g_of[dim] = b.fresh("g")
                gates.append(unit({dim: 1, r: 1}, {g_of[dim]: 1}, -1))
            if direction == "past":
                coef_g[dim] = coef_g.get(dim, 0) + c
            else:
                coef_g[dim] = coef_g.get(dim, 0) - c
                future.append((dim, rd, Fraction(c)))
        k_gate = b.ffn(gates, ready)
        u = b.fresh("u")
        values = [(u, g_of[d], Fraction(c)) for d, c in coef_g.items() if c]
        ready_d = k_gate
        for dim, rd, c in future:
            if dim not in self.totals:  # one total head per Boolean, shared by every comparison reading it
                tavg, tb = b.fresh("total"), b.fresh("total_bos")
                head = {"name": self._name("total"), "hard": "average", "visible": "all", "score": [],
                        "value": [(tavg, dim, Fraction(1))]}
                kt = b.attention(head, rd)
                self.totals[dim] = (tb, b.ffn([unit({tavg: 1, self.bos_dim: 1}, {tb: 1}, -1)], kt))
            tb, kt = self.totals[dim]
            ready_d = max(ready_d, kt)
            values.append((u, tb, c))
        head = {"name": self._name("count"), "hard": "average", "visible": "j<=i", "score": [], "value": values}
        kd = b.attention(head, ready_d)
        units = [unit({w: 1, dim: 1}, {u: c}, -1) for dim, _, c in future]
        return u, b.ffn(units, kd), w

    def _amplify(self, u: str, ready: int, mixed: bool, lattice: str, shift: tuple = ()) -> tuple[str, int]:
        """Sign of the query Q = u (+ c·w with ``shift`` = (w, c)), |Q| >= ``lattice``, as a Boolean,
        by an AVERAGE head over j<=i.

        bounded, future counts (the sign gadget): score Q_i·bos_j, value bos: BOS is the unique
        maximum iff Q > 0, else every other key ties at 0 with value 0; every non-zero gap is
        |Q| >= ``lattice`` and the maxima carry one value (L-gap): τ = Θ(1/(n² log n)), the log
        paying for the i tied keys that BOS must outweigh.
        bounded, past counts (the ladder, L-special-key): the same score plus −(1/4)·j/(n+1), so the
        input keys stand on a ladder of step 1/(4(n+1)) below BOS's 0 + Q_i; |Q| >= 1/(2(i+1)) keeps
        BOS at least 1/(4(n+1)) away from the ladder's top: one maximum (BOS iff Q > 0), every other
        key at least 1/(4(n+1)) below it, ≤ 2 keys a band: τ = Θ(1/n), the paper's class.
        unbounded: score 8·Q_i·K_j with K = i(n+1)^2 (resp. i(n+1)^3), value nb: key i wins
        iff Q > 0, BOS (score 0) otherwise; all gaps are >= 4(n+1)."""
        b = self.b
        raw = b.fresh("cmp.raw")
        name = self._name("amplify")
        if self.bounded:
            ladder = self.ladder and not mixed
            self._need("mixed" if mixed else "past" if ladder else "plain")
            key, scale, value = self.bos_dim, Fraction(1), self.bos_dim
            self._note(f"{name}: |u| >= {lattice}, " + ("ladder -j/(4(n+1)) below BOS: unique maximum, gap >= "
                       "1/(4(n+1))" if ladder else f"maxima all BOS or all non-BOS, gap >= {lattice}"))
        else:
            key = b.pe("K3", "i*(n+1)^3") if mixed else b.pe("K2", "i*(n+1)^2")
            scale, value = Fraction(8), self.true
            self._note(f"{name}: |u| >= {lattice}, unique maximum, gap >= 4(n+1)")
        score = [(u, key, scale)] + ([(shift[0], key, scale * shift[1])] if shift else [])
        if self.ladder and not mixed:
            score.append((self.one, b.pe("ladder", "i/(n+1)"), -Fraction(1, 4)))
        head = {"name": name, "hard": "average", "visible": "j<=i", "score": score, "value": [(raw, value, Fraction(1))]}
        k = b.attention(head, ready)
        return self.round(raw, k, gate=self.bounded, hint="cmp")


def _neg(counts: dict) -> dict:
    return {k: -c for k, c in counts.items()}


def _linear(t) -> tuple[dict, Fraction]:
    """A counting term as ({(direction, φ): coefficient}, constant)."""
    if isinstance(t, Int):
        return {}, Fraction(t.value)
    if isinstance(t, Count):
        return {(t.direction, t.arg): 1}, Fraction(0)
    if isinstance(t, Scale):
        counts, const = _linear(t.arg)
        return {k: t.factor * c for k, c in counts.items()}, t.factor * const
    if isinstance(t, Add):
        a, ca = _linear(t.left)
        c, cc = _linear(t.right)
        for k, v in c.items():
            a[k] = a.get(k, 0) + v
        return a, ca + cc
    raise TypeError(t)


def has_comparison(f) -> bool:
    from .formula import children

    return isinstance(f, Compare) or any(has_comparison(c) for c in children(f))


def slug(text: str) -> str:
    import hashlib

    return "formula-" + hashlib.sha256(text.encode()).hexdigest()[:12]


def compile_formula(f: Formula, alphabet, scheme: str, transduction: bool = False, name: str | None = None,
                    source: str | None = None) -> dict:
    """The model.json v1 dict of ``f``: output at the last position, or everywhere."""
    alphabet = tuple(alphabet)
    missing = sorted(symbols_of(f) - set(alphabet))
    if missing:
        raise UserError(f"symbol {missing[0]!r} is not in the alphabet {list(alphabet)}")
    bos = _bos_symbol(alphabet) if has_comparison(f) else None
    b = Builder(alphabet, bos)
    fc = FormulaCompiler(b, scheme)
    dim, _ = fc.compile(f)
    text = source if source is not None else to_text(f)
    return finish(b, fc, dim, name or slug(f"{scheme}:{transduction}:{text}"),
                  f"formula {text}; scheme {scheme}", transduction)


def finish(b: Builder, fc: FormulaCompiler, dim: str, name: str, what: str, transduction: bool) -> dict:
    tau = fc.temperature()
    notes = "; ".join(b.notes)
    description = (f"{what}; compiled by proofs.constructions ({'transduction' if transduction else 'last position'});"
                   f" proposed temperature {tau}" + (f"; {notes}" if notes else ""))
    output = {"dim": dim, "position": "all" if transduction else "last", "threshold": "1/2"}
    return b.to_dict(name, description, output, tau)


def _bos_symbol(alphabet) -> str:
    for cand in ("<s>", "BOS", "^", "$", "#"):
        if cand not in alphabet:
            return cand
    return "<bos>" + "_" * max(len(s) for s in alphabet)

"""Structural facts about the hard model, valid for every input and every n.

An abstract interpretation over the residual coordinates (theory.md §2, §4):
each coordinate after each layer is described by what is known of its hard
value at every position of every input —

* ``fin``: a finite set of rationals it always lies in (tokens, rounded Booleans);
* ``pe``: an exact expression in (i, n) (a position embedding never written to);
* ``grid``: an expression G(i, n) with value·G(i, n) ∈ Z (counts #φ/|U_i|).

From these, each attention head gets a *score structure* that selects the lemma
bounding its leakage:

* ``uniform``  all visible scores equal in every row ⇒ softmax = ahardmax exactly;
* ``ziggurat`` key-only scores A(n)·j + B(key values) on a lattice of step |A(n)|,
  at most c positions a level (L-ziggurat, L-tiebreak) ⇒ leakage ≤ c·q/(1−q);
* ``lookup``   scores α(i, n)·(2b·j − j²) + (row terms) with b an integer (L-lookup):
  unique maximum, a level of width α holds ≤ 2 keys ⇒ leakage ≤ 2q/(1−q);
* ``distinct`` scores whose lattice units are ≡ ±j modulo M(n) > key distance
  (L-tiebreak with query-dependent or approximate terms): all scores differ ⇒
  unique maximum, leakage ≤ q/(1−q);
* ``gap``      scores w_i·K(j) with finitely many K values: any non-zero gap is at
  least min|w|·min ΔK (rational gap bound, §4) ⇒ leakage ≤ N·e^{−γ/τ} (L-gap).

Grids make the last three possible: ``value·G ∈ Z + offset`` for an integer-valued
G(i, n), known for counts, finite sets, position embeddings (their denominators,
checked) and a unique-maximum head's output (some key's value).

Anything else is reported as unsupported, naming the head and the missing fact.
This module is part of the trusted kernel: exact ``Fraction`` arithmetic only.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from fractions import Fraction
from math import gcd, lcm, prod

from flint import fmpq

from ..errors import ExprError
from ..expr import AltSign, BinOp, Expr, Neg, Num, Pow, Var, eval_exact, to_text, variables_of
from ..model import AttentionLayer, FFNLayer, Head, Model, dims_written
from .polyid import affine_in, degree, integer_polynomial, is_zero, normal_form, simplified, substitute
from .positivity import positive_from

MAX_COMBOS = 4096
MAX_FIN = 4096
MAX_TILT_CLASSES = 256  # key classes compared pairwise by L-one-sided's tilt
MAX_MOVERS = 3  # distinct position-varying key grids of one lattice head (its gammas number 2^(2·movers + …))
MAX_VERTEX_DEN = 8  # L-lookup: a vertex b with 2b = m/K is tried for K up to this
EVENTUAL_SIGN_FROM = 64  # a ReLU input that is a function of n alone must keep one sign from some n below this
MAX_VERTICES = 64  # L-value-classes: corners of the box of query dims known only by their hull
MAX_MEANS = 256  # a bounded model's mean values are enumerated only up to this many (downstream products grow with it)
NEAREST_SPLIT = 16  # L-nearest-level: a span from BOS's value b splits at b + (hi − b)/this (τ pays log(this))


class Unsupported(Exception):
    """The analysis cannot establish a fact it needs (not a refutation); ``blockers`` names each one."""

    def __init__(self, message: str, blockers: list[str] | None = None):
        super().__init__(message)
        self.blockers = blockers if blockers is not None else [message]


@dataclass(frozen=True)
class Coord:
    fin: frozenset | None = None
    pe: Expr | None = None
    grid: Expr | None = None
    offset: Fraction = Fraction(0)  # value·grid ∈ Z + offset; a non-zero offset proves value ≠ 0
    rest: frozenset | None = None  # finite values at the input positions (BOS row excluded)
    at_bos: Fraction | None = None  # the exact value at the BOS row
    bos_fin: frozenset | None = None  # the values the BOS row may hold, when at_bos is unknown (L-maxima-classes there)
    den_bound: Expr | None = None  # the value's denominator is at most B(i, n) (a mean over ≤ |U_i| maxima)
    # soft = hard exactly (every τ) at each row whose hard value is outside this set; None: no claim
    exact_unless: frozenset | None = None
    # soft = hard exactly (every τ) at each row whose hard value is in this set, whatever exact_unless says
    # (L-extreme-exact: every key the row sees carries that value); kept only while exact_unless is None
    exact_at: frozenset = frozenset()
    # (lo, hi, side) spans holding the hard value of every row where soft may differ (L-one-sided): at a row whose
    # value lies in spans, soft ≤ hard when each of them has side −1, soft ≥ hard when each has +1; () unknown
    spans: frozenset | tuple = ()
    # (g, r): the sides of spans hold only where e^{g/τ} ≥ (n + 1)·r, checked in every box (L-nearest-level)
    needs: tuple = ()
    # the value lies in points ∪ {v + d/k : k = 1, 2, …} for a family (v, d) (L-bos-level); fin is then None
    harmonic: tuple[frozenset, frozenset] | None = None
    # (c, (L₁, …), s): the value is c(i, n) or s·(value − c) ≥ min |L_k(i, n)| > 0 (L-zero-or-apart); s = ±1
    apart: tuple[Expr, tuple[Expr, ...], int] | None = None
    # (s, b): s·(value − b) ≤ 0 — an extreme head's output against an always-visible BOS key (L-zero-or-apart)
    bound: tuple[int, Fraction] | None = None
    avoids: Fraction | None = None  # the hard value never equals this (L-two-keys: two heads' selected keys)
    hull: tuple[Fraction, Fraction] | None = None  # lo ≤ value ≤ hi at every row, BOS included (L-value-classes)
    soft: tuple[Fraction, Fraction] | None = None  # lo ≤ soft value ≤ hi at every row and every τ (L-ffn-absorb)
    same_in_word: bool = False  # one hard value at every row of a word, BOS included (L-word-constant)
    # one soft value, for every τ, at every row of a word, BOS included (L-word-constant (d)); with same_in_word
    soft_same: bool = False
    # (C, ((c, lo, hi), …), same): rows whose symbol-determined dims C take the values c hold hard values
    # lo ≤ value ≤ hi, BOS included (L-maxima-classes), and with ``same`` one value per c in a word
    # (L-class-constant); every value c of C at a row is listed
    classes: tuple | None = None


@dataclass(frozen=True)
class HeadFact:
    layer: int
    head: Head
    kind: str  # uniform | ziggurat | lookup | distinct | gap
    step: Expr | None = None  # ziggurat, distinct: lattice step A(n) (sign unknown; |A| used); lookup: α(i, n) > 0
    step_ends: tuple = ()  # lookup: α at rows i = first and i = n (1/α is affine in i, so α is smallest at an end)
    modulus: Expr | None = None  # distinct: M(n) with score/A ≡ ±j (mod M)
    modulus_ends: tuple = ()  # distinct: apart_ends showing |M| > key distance on every row
    offsets: tuple[Expr, ...] = ()  # ziggurat: the distinct score offsets B (one per class of key values)
    pairs: tuple = ()  # ziggurat: (class a, class b, apart_ends) for every pair of classes
    ties_apart: tuple = ()  # ziggurat, unique-hard: for keys with different values, |R| > key distance
    delta_key: Expr | None = None  # gap: min non-zero difference of key scores K(j), an expression in n
    query_coord: Coord | None = None  # gap: what is known of the query factor w_i (None: w is constant)
    homogeneous: bool = False  # the maxima always carry one value (so the hard output is a key's value)
    grid_ends: tuple = ()  # gap: the query grid at rows i = first and i = n when it is affine in i
    gammas: tuple = ()  # gap: expressions in n whose least |value| bounds every non-zero gap (when given)
    level_size: int | None = None  # gap: ≤ c keys in each band of width γ below the maximum, when proved
    special: bool = False  # L-special-key: gammas = (|A|, L(first) − |A|, L(n) − |A|), case-split leakage
    rungs_agree: bool = False  # L-special-key: every input key carries one value vector (only BOS may differ)
    bos_off_lattice: bool = False  # ziggurat: the BOS key is off the lattice, ≥ one step from every key (L-bos-apart)
    # L-value-classes: every key whose value differs from the maxima's scores ≥ this below the maximum
    class_gap: Fraction | None = None
    # L-class-constant (d): the value vectors ((out, value), …) the maxima may carry (classes not below BOS); () any
    top_values: frozenset | tuple = ()
    # score terms whose key holds one soft and one hard value at every key of a row (L-word-constant (c)): they
    # shift a row's scores alike in soft as in hard, so the bounds charge no error for them
    shifts: tuple = ()
    lemma: str = ""


@dataclass(frozen=True)
class FFNFact:
    layer: int
    dims: tuple[str, ...]  # the coordinates the units read or write
    combos: tuple[tuple[Fraction, ...], ...] | None  # every joint hard value of ``dims``, if finite
    pre: tuple = ()  # per combo: each unit's exact pre-activation
    noisy: tuple | None = None  # the joint values at rows where some input may carry soft error, if finite
    noisy_pre: tuple = ()  # per noisy combo: each unit's exact pre-activation
    absorbs: tuple = ()  # (out dim, input dim x, r): out is exact at every row when x's error is ≤ r (L-ffn-absorb)
    # per out dim o, the distinct pre-activation vectors of the units writing o over ``pre`` / ``noisy_pre``
    # (what bounds' one-noisy-input walk reads in every box: worked out once)
    writer_pre: tuple = ()
    writer_noisy_pre: tuple = ()


@dataclass(frozen=True)
class Joint:
    """Dims whose values at a row are a function of that row's symbol alone (token embeddings, constant
    PEs, FFNs of them): the possible value vectors jointly, one per symbol (BOS included).  Keeps the
    correlation that per-dim value sets lose (a one-hot token is never 1 in two of its dims)."""

    dims: tuple[str, ...]
    rows: frozenset  # tuples of values, aligned with dims
    inputs: frozenset = frozenset()  # the rows of the input symbols (rows less a BOS-only row)

    def project(self, dims: list[str], rows: frozenset | None = None) -> list[tuple] | None:
        """The possible joint values of ``dims`` at one row, or None when some dim is not tracked."""
        if not set(dims) <= set(self.dims):
            return None
        at = [self.dims.index(d) for d in dims]
        return sorted({tuple(row[k] for k in at) for row in (self.rows if rows is None else rows)})

    def bos_only(self, dims: list[str]) -> set:
        """The joint values of ``dims`` that only the BOS row takes (no input symbol does)."""
        every = self.project(dims)
        return set() if every is None else set(every) - set(self.project(dims, self.inputs))


@dataclass(frozen=True)
class Structure:
    first: int
    coords: tuple[dict, ...]  # coords[k][dim]: Coord after k layers
    facts: tuple  # one HeadFact tuple or FFNFact per layer
    joint: tuple[Joint, ...] = ()  # joint[k]: the symbol-determined dims after k layers


def _den_lcm(values) -> int:
    return lcm(*(Fraction(v).denominator for v in values)) if values else 1


def _times(a: Expr | None, b: Expr | None) -> Expr | None:
    if a is None or b is None:
        return None
    return BinOp("*", a, b)


def visible_count(visible: str, first: int) -> Expr:
    """|U_i| as an expression in (i, n)."""
    i, n = Var("i"), Var("n")
    one = Num(Fraction(1))
    return {
        "all": BinOp("+", n, Num(Fraction(1 - first))),
        "j<=i": BinOp("+", i, Num(Fraction(1 - first))),
        "j<i": BinOp("-", i, Num(Fraction(first))),
        "j>=i": BinOp("+", BinOp("-", n, i), one),
        "j>i": BinOp("-", n, i),
    }[visible]


def may_be_empty(visible: str) -> bool:
    return visible in ("j<i", "j>i")


def _finite(values, bos_value) -> Coord:
    rest = frozenset(values)
    fin = rest | {bos_value} if bos_value is not None else rest
    return Coord(fin=fin, grid=Num(Fraction(_den_lcm(fin))), rest=rest, at_bos=bos_value)


def _table_coord(values: tuple, word: list, at_bos: Fraction | None) -> Coord:
    """A v2 position-table dim: finitely many values, exactly, because the model is only defined
    for n ≤ max_length (token value + table value at a position 1..N; the BOS row is position 0)."""
    rest = [t + v for t in word for v in values[1:]]
    return _finite(rest, None if at_bos is None else at_bos + values[0])


def embed_coords(model: Model) -> dict:
    symbols = list(model.alphabet) + ([model.bos] if model.bos else [])
    first = 0 if model.bos else 1
    pe = dict(model.position_embed)
    table = dict(model.position_table)
    out = {}
    for d in model.dims:
        tokens = frozenset(dict(model.token_embed[s]).get(d, Fraction(0)) for s in symbols)
        word = [dict(model.token_embed[s]).get(d, Fraction(0)) for s in model.alphabet]
        at_bos = dict(model.token_embed[model.bos]).get(d, Fraction(0)) if model.bos else None
        if d in table:
            out[d] = _table_coord(table[d], word, at_bos)
        elif d not in pe:
            out[d] = _finite(word, at_bos)
        elif not variables_of(pe[d]):
            const = eval_exact(pe[d], {})
            out[d] = _finite([t + const for t in word], None if at_bos is None else at_bos + const)
        elif not _reads_position(pe[d]) and "n" not in variables_of(pe[d]):  # a function of (-1)^i only
            even, odd = (eval_exact(pe[d], {"i": p}) for p in (2, 1))
            c = _finite([t + v for t in word for v in (even, odd)], None if at_bos is None else at_bos + even)
            out[d] = replace(c, pe=pe[d]) if tokens == {Fraction(0)} else c
        elif tokens == {Fraction(0)}:
            out[d] = Coord(pe=pe[d], grid=pe_grid(pe[d]), hull=_pe_hull(pe[d], first))
        else:
            out[d] = Coord(hull=_hull_sum((min(tokens), max(tokens)), _pe_hull(pe[d], first)))
    return {d: replace(c, exact_unless=frozenset()) for d, c in out.items()}


def _reads_position(e: Expr) -> bool:
    """Whether ``e`` depends on i other than through (-1)^i (which takes two values)."""
    if isinstance(e, Var):
        return e.name == "i"
    if isinstance(e, BinOp):
        return _reads_position(e.left) or _reads_position(e.right)
    if isinstance(e, (Neg, Pow)):
        return _reads_position(e.arg if isinstance(e, Neg) else e.base)
    return False


def _sums(a: frozenset | None, b: frozenset | None) -> frozenset | None:
    if a is None or b is None or len(a) * len(b) > MAX_FIN:
        return None
    return frozenset(x + y for x in a for y in b)


def pe_grid(e: Expr) -> Expr | None:
    """An integer-valued G(i, n) with e·G an integer-valued polynomial (both checked), built from
    e's denominators; None when there is none of that shape (then the PE has no grid)."""
    g = _denominator(e)
    if g is None or not integer_polynomial(g, ("i", "n")) or not integer_polynomial(BinOp("*", e, g), ("i", "n")):
        return None
    return simplified(g)


def _denominator(e: Expr) -> Expr | None:
    if isinstance(e, Num):
        return Num(Fraction(e.value.denominator))
    if isinstance(e, (Var, AltSign)):
        return Num(Fraction(1))
    if isinstance(e, Neg):
        return _denominator(e.arg)
    if isinstance(e, Pow):
        d = _denominator(e.base)
        return None if d is None else Pow(d, e.exponent)
    if isinstance(e, BinOp):
        a, b = _denominator(e.left), _denominator(e.right)
        if a is None or b is None:
            return None
        return BinOp("*", a, BinOp("*", e.right, b) if e.op == "/" else b)
    return None


def integral_grid(c: Coord) -> Expr | None:
    """A grid G' with value·G' ∈ Z (the offset absorbed), or None."""
    if c.grid is None:
        return None
    return c.grid if not c.offset else BinOp("*", c.grid, Num(Fraction(c.offset.denominator)))


def _sum_grid(a: Coord, b: Coord) -> tuple[Expr | None, Fraction]:
    """(G, o) with (a + b)·G ∈ Z + o: y's grid when x is a position embedding constant on it (so
    1/(2n) + Z/n keeps its offset ½), the coarser grid when it is an integer multiple of the other
    (whose offset must then be 0), else the product of the offset-free grids (offset 0)."""
    if a.grid is None or b.grid is None:
        return None, Fraction(0)
    for x, y in ((a, b), (b, a)):  # a position embedding p with p·G_y a constant k: (p + y)·G_y ∈ Z + o_y + k
        units = None if x.pe is None else simplified(BinOp("*", x.pe, y.grid))
        if isinstance(units, Num):
            return y.grid, (y.offset + units.value) % 1
    for x, y in ((a, b), (b, a)):
        ratio = simplified(BinOp("/", x.grid, y.grid))
        if isinstance(ratio, Num) and ratio.value.denominator == 1:  # y·G_x = k·(y·G_y) ∈ Z + k·o_y
            return x.grid, (x.offset + ratio.value * y.offset) % 1
        if not y.offset and integer_polynomial(ratio, ("i", "n")):
            return x.grid, x.offset
    return BinOp("*", integral_grid(a), integral_grid(b)), Fraction(0)


def _add(a: Coord, b: Coord) -> Coord:
    """Abstract sum of two coordinates (no correlation assumed).  Adding a hard 0 keeps the other's facts, but one
    soft value in a word only when the 0 is one soft value too (a leaking 0 moves the soft sum row by row)."""
    soft_same = _soft_shift(a) and _soft_shift(b)
    if b.fin == {Fraction(0)}:
        return replace(a, soft_same=soft_same)
    if a.fin == {Fraction(0)}:
        return replace(b, soft_same=soft_same)
    fin = _sums(a.fin, b.fin)
    at_bos, bos_fin = _bos_value_or_set(_sums(bos_values(a), bos_values(b)))
    if fin is None and (shifted := _harmonic_shift(a, b) or _harmonic_shift(b, a)) is not None:
        return Coord(harmonic=shifted, rest=_sums(a.rest, b.rest), at_bos=at_bos, bos_fin=bos_fin,
                     same_in_word=_same_in_word(a) and _same_in_word(b), soft_same=soft_same)
    grid, offset = (Num(Fraction(_den_lcm(fin))), Fraction(0)) if fin is not None else _sum_grid(a, b)
    return Coord(fin=fin, grid=grid, offset=offset, rest=_sums(a.rest, b.rest), at_bos=at_bos, bos_fin=bos_fin,
                 hull=None if fin is not None else _hull_sum(value_hull(a), value_hull(b)),
                 same_in_word=_same_in_word(a) and _same_in_word(b), soft_same=soft_same)


def _harmonic_shift(a: Coord, b: Coord) -> tuple | None:
    """b's harmonic description shifted by each of a's finitely many values (x + v + d/k)."""
    if a.fin is None or b.harmonic is None or len(a.fin) * (len(b.harmonic[0]) + len(b.harmonic[1])) > MAX_FIN:
        return None
    points, families = b.harmonic
    return frozenset(x + p for x in a.fin for p in points), frozenset((x + v, d) for x in a.fin for v, d in families)


def _row_constant(c: Coord) -> Expr | None:
    """The value as an expression in n if it is the same at every position, else None."""
    if c.pe is not None and "i" not in variables_of(c.pe):
        return c.pe
    if c.fin is not None and len(c.fin) == 1:
        return Num(next(iter(c.fin)))
    return None


def _same_in_word(c: Coord) -> bool:
    """The hard value is one value at every row of a word (a row constant, or L-word-constant)."""
    return c.same_in_word or _row_constant(c) is not None


def _soft_shift(c: Coord) -> bool:
    """A dim that holds one hard value and one soft value (for every τ) at every row of a word: as a key it adds
    one amount to every score of a row in soft as in hard, so the term leaves the weights, the maxima and the
    query's error without effect (L-word-constant (c)); soft = hard at every row, or L-word-constant (d)."""
    return _same_in_word(c) and (c.soft_same or c.exact_unless == frozenset())


def _row_shift(c: Coord) -> bool:
    """A key dim whose hard value is one value at every key of a row: a score term reading it adds one amount to
    every hard score of the row, so the head rules drop it (L-word-constant (c)); in soft it does too when
    :func:`_soft_shift` holds, else the bounds charge its error and exact rows need it exact."""
    return _row_constant(c) is not None or _soft_shift(c)


def _nonzero_row_constant(c: Coord) -> bool:
    """A value w(n), the same at every row of a length, proved ≠ 0 for every n ≥ 1 (w > 0 or w < 0): a
    query factor that scales a row's scores without reordering their maxima (L-gap's homogeneity)."""
    w = _row_constant(c)
    return w is not None and (_holds(w) or _holds(BinOp("-", Num(Fraction(0)), w)))


def _scale(values: frozenset | None, coef: Fraction) -> frozenset | None:
    return None if values is None else frozenset(coef * v for v in values)


def _scaled(src: Coord, coef: Fraction) -> Coord:
    """coef·x: finite values scale; a grid G becomes G·den(coef) (a·(x·G) ∈ Z) — except for a
    position embedding with x·G a constant k, where coef·x·G = coef·k exactly: grid G, offset coef·k."""
    grid, offset = integral_grid(src), Fraction(0)
    if grid is not None:
        grid = BinOp("*", grid, Num(Fraction(coef.denominator)))
    if src.pe is not None and src.grid is not None:
        units = simplified(BinOp("*", src.pe, src.grid))
        if isinstance(units, Num):
            grid, offset = src.grid, (coef * units.value) % 1
    harmonic = None if src.harmonic is None else (_scale(src.harmonic[0], coef),
                                                  frozenset((coef * v, coef * d) for v, d in src.harmonic[1]))
    return Coord(fin=_scale(src.fin, coef), rest=_scale(src.rest, coef),
                 at_bos=None if src.at_bos is None else coef * src.at_bos, grid=grid, offset=offset,
                 harmonic=harmonic, hull=None if src.fin is not None else _hull_scaled(value_hull(src), coef))


def _combination(terms, coords: dict, start: Coord | None = None) -> Coord:
    """Σ coef·x[dim] over (dim, coef) terms, added to ``start``."""
    acc = start
    for dim, coef in terms:
        part = _scaled(coords[dim], coef)
        acc = part if acc is None else _add(acc, part)
    return acc


def _value_table(head: Head, coords: dict) -> dict:
    """out dim → combined value coordinate Σ coef·x[in] of one key."""
    outs = dict.fromkeys(out for out, _, _ in head.value)
    return {o: _combination([(d, c) for out, d, c in head.value if out == o], coords) for o in outs}


def _exact(c: Coord) -> Expr | None:
    """The value as an expression in (i, n) when it is known exactly at every position."""
    if c.pe is not None:
        return c.pe
    if c.fin is not None and len(c.fin) == 1:
        return Num(next(iter(c.fin)))
    return None


def value_hull(c: Coord) -> tuple[Fraction, Fraction] | None:
    """[lo, hi] holding the hard value at every row: from the finite set, a BOS-level family (v + d/k lies
    between v and v + d) or the recorded hull; None when nothing bounds it."""
    if c.fin is not None:
        return min(c.fin), max(c.fin)
    if c.harmonic is not None:
        points, families = c.harmonic
        ends = set(points) | {v for v, _ in families} | {v + d for v, d in families}
        return (min(ends), max(ends)) if ends else None
    return c.hull


def _hull_sum(a: tuple | None, b: tuple | None) -> tuple | None:
    return None if a is None or b is None else (a[0] + b[0], a[1] + b[1])


def _hull_scaled(a: tuple | None, coef: Fraction) -> tuple | None:
    return None if a is None else (min(coef * a[0], coef * a[1]), max(coef * a[0], coef * a[1]))


def _nonneg_on_rows(e: Expr, first: int) -> bool:
    """e(i, n) ≥ 0 at every row first ≤ i ≤ n of every length n ≥ 1, proved by substituting i = first + a,
    n = i + b (a, b ≥ 0): in lowest terms P/Q with every coefficient of P and of Q of one sign, P/Q ≥ 0
    wherever it is defined (a position embedding is defined at every row: the loader checks it)."""
    try:
        moved = substitute(substitute(e, "n", BinOp("+", Var("i"), Var("b"))), "i", BinOp("+", Num(Fraction(first)), Var("a")))
        normal = normal_form(moved, ("a", "b"))
    except ExprError:  # (-1)^i does not substitute
        return False
    if normal is None:
        return False
    if normal[0].is_zero():
        return True
    signs = [{c > 0 for c in p.coeffs()} for p in normal]
    return len(signs[0]) == 1 and signs[0] == signs[1]


def _pe_hull(e: Expr, first: int) -> tuple[Fraction, Fraction] | None:
    """Constant bounds on a position embedding over every row of every length: proposed from its values at
    n ≤ 6 (the least and largest, or the integers around them) and proved by :func:`_nonneg_on_rows`."""
    try:
        seen = [eval_exact(e, {"i": i, "n": n}) for n in range(1, 7) for i in range(first, n + 1)]
    except (ExprError, ZeroDivisionError):
        return None
    low, high = min(seen), max(seen)
    lo = next((v for v in (low, Fraction(low.numerator // low.denominator))
               if _nonneg_on_rows(BinOp("-", e, Num(v)), first)), None)
    hi = next((v for v in (high, Fraction(-(-high.numerator // high.denominator)))
               if _nonneg_on_rows(BinOp("-", Num(v), e), first)), None)
    return None if lo is None or hi is None else (lo, hi)


def classify_head(layer: int, head: Head, coords: dict, first: int, joint: Joint | None = None,
                  strict: bool = False) -> HeadFact:
    """Try the head rules in turn (each a row gap lower bound plus a count of keys per gap level);
    terms whose key is constant over the row (or whose query is always 0) shift every score of the
    row alike and are dropped first (the bounds still charge their soft errors, except for a key that is one value
    at every key in soft too: ``shifts``); a dropped key that is one value in a word without being a row constant
    cites L-word-constant."""
    fact = replace(_classify_shadow(layer, head, coords, first, joint, strict),
                   shifts=tuple(t for t in head.score if _soft_shift(coords[t[1]])))
    if any(_row_shift(coords[k]) and _row_constant(coords[k]) is None for _, k, _ in head.score):
        fact = replace(fact, lemma=f"{fact.lemma}; L-word-constant")
    return fact


def _classify_shadow(layer: int, head: Head, coords: dict, first: int, joint: Joint | None, strict: bool) -> HeadFact:
    shadow = replace(head, score=tuple(t for t in head.score if not _row_shift(coords[t[1]])
                                       and coords[t[0]].fin != {Fraction(0)}))  # a query always 0 adds 0
    keys = [coords[k] for _, k, _ in shadow.score]
    queries = [coords[q] for q, _, _ in shadow.score]
    if not shadow.score:
        if head.hard != "average":
            raise Unsupported(f"head {head.name!r}: uniform scores under {head.hard}-hard attention "
                              "(soft attention averages the tied maxima)")
        return HeadFact(layer, head, "uniform", lemma="exact: equal scores give softmax = ahardmax")
    qexact = [_exact(q) for q in queries]
    if all(q is not None for q in qexact) and any(k.fin is None for k in keys):
        rules = [lambda: _ziggurat(layer, shadow, coords, qexact, first), lambda: _special_key(layer, shadow, coords, first),
                 lambda: _distinct(layer, shadow, coords, first, strict),
                 lambda: _lookup(layer, shadow, coords, first),
                 lambda: _gap(layer, shadow, coords, queries, [_row_constant(q) for q in queries], first)]
    else:
        rules = [lambda: _special_key(layer, shadow, coords, first), lambda: _lookup(layer, shadow, coords, first),
                 lambda: _distinct(layer, shadow, coords, first, strict),
                 lambda: _gap(layer, shadow, coords, queries, [_row_constant(q) for q in queries], first)]
    rules += [lambda: _joint(layer, shadow, coords, joint), lambda: _lattice(layer, shadow, coords, first, joint)]
    reasons = []
    for rule in rules:
        try:
            fact = rule()
        except (Unsupported, ExprError) as exc:
            reasons.append(str(exc).removeprefix(f"head {head.name!r}: "))
            continue
        if fact is not None:
            if fact.kind == "gap" and not fact.homogeneous and (found := _separation(shadow, coords, joint)):
                fact = replace(fact, homogeneous=True, class_gap=found[0], top_values=found[2],
                               lemma=f"{fact.lemma}; {found[1]}")
            return replace(fact, head=head)
    if (found := _separation(shadow, coords, joint)) is not None:
        return HeadFact(layer, head, "classes", delta_key=Num(found[0]), gammas=(Num(found[0]),), homogeneous=True,
                        class_gap=found[0], top_values=found[2],
                        lemma=f"{found[1]} (keys valued unlike the maxima score ≥ g below them)")
    raise Unsupported(f"head {head.name!r}: " + "; ".join(dict.fromkeys(reasons + (
        ["value classes: keys with different values may tie (or a dim has no known range)"]))))


def _separation(head: Head, coords: dict, joint: Joint | None) -> tuple[Fraction, str, frozenset] | None:
    """(g, lemmas, the maxima's possible value vectors or ()) from L-value-classes, keys of a class known by hulls,
    else with keys one value per class."""
    if (g := value_classes(head, coords, joint)) is not None:
        return g, "L-value-classes", frozenset()
    if (found := class_separation(head, coords, joint)) is not None:
        return found[0], f"L-value-classes; {'L-class-constant' if found[2] else 'L-maxima-classes (ranges per class)'}", found[1]
    return None


def value_classes(head: Head, coords: dict, joint: Joint | None) -> Fraction | None:
    """L-value-classes: the least score separation g > 0 between keys that carry different values, or None.

    A key's *class* is the joint value of the finite key dims its score and value read (so it fixes the
    value the key carries); the other key dims, and query dims that are not finite, are known by their
    hulls.  For each joint value of the finite query dims and each corner of the query hulls, a class's
    scores lie in an interval (each term's weight times its key dim's hull).  When any two classes with
    different values have disjoint intervals, ordered alike at every corner, g apart at least, then at
    every row the maximal keys lie in the top class present and share its value, and every key valued
    otherwise lies ≥ g below them: a class's lower end is concave and its upper end convex in the query
    values, so the separation is least at a corner."""
    terms = head.score
    fdims = sorted({k for _, k, _ in terms if coords[k].fin is not None} | {v for _, v, _ in head.value})
    kbox = sorted({k for _, k, _ in terms if coords[k].fin is None})
    qfin = sorted({q for q, _, _ in terms if coords[q].fin is not None})
    qbox = sorted({q for q, _, _ in terms if coords[q].fin is None})
    hulls = {d: value_hull(coords[d]) for d in kbox + qbox}
    if any(h is None for h in hulls.values()) or 2 ** len(qbox) > MAX_VERTICES:
        return None
    qrows, krows = _joint_values(qfin, coords, joint), _joint_values(fdims, coords, joint)
    if qrows is None or krows is None or len(qrows) * len(krows) ** 2 * 2 ** len(qbox) > MAX_COMBOS * 16:
        return None
    classes = [dict(zip(fdims, row)) for row in krows]
    carried = [tuple(sorted((o, c * k[v]) for o, v, c in head.value)) for k in classes]
    pairs = [(a, b) for a, b in itertools.combinations(range(len(classes)), 2) if carried[a] != carried[b]]
    if not pairs:
        return None
    gap = None
    for qc in qrows:
        order: dict = {}
        for corner in itertools.product(*(hulls[q] for q in qbox)):
            q = {**dict(zip(qfin, qc)), **dict(zip(qbox, corner))}
            weight: dict = {}
            for a, b, c in terms:
                weight[b] = weight.get(b, Fraction(0)) + c * q[a]
            spans = []
            for k in classes:
                fixed = sum((w * k[d] for d, w in weight.items() if d not in hulls), Fraction(0))
                spans.append((fixed + sum((min(w * hulls[d][0], w * hulls[d][1]) for d, w in weight.items() if d in hulls), Fraction(0)),
                              fixed + sum((max(w * hulls[d][0], w * hulls[d][1]) for d, w in weight.items() if d in hulls), Fraction(0))))
            for a, b in pairs:
                above = spans[a][0] - spans[b][1] > 0
                apart = spans[a][0] - spans[b][1] if above else spans[b][0] - spans[a][1]
                if apart <= 0 or order.setdefault((a, b), above) != above:
                    return None
                gap = apart if gap is None else min(gap, apart)
    return gap


def class_separation(head: Head, coords: dict, joint: Joint | None) -> tuple[Fraction, frozenset, bool] | None:
    """(g, the value vectors of the classes that may hold a maximum, whether some classed dim is one value per
    class) by L-value-classes (a) with keys one value per class (L-class-constant (c), (d)), or None.

    A key dim d known per class C_d (``classes``) holds one unknown x_{d,c} at every row of the word with
    C_d = c, the query's row included (one per row when only its range per class is known, L-maxima-classes);
    so each key class (finite key and value dims, refined by every C_d) scores a polynomial in those
    unknowns, the query's values and the independent hull values of the other dims.  Two classes' difference is
    expanded — a shared x_{d,c} cancels exactly — and bounded by interval arithmetic over the unknowns'
    per-class hulls; each pair carrying different values must be ≥ g apart, one side, per joint query value."""
    terms = head.score
    classed = {d for q, k, _ in terms for d in (q, k) if coords[d].fin is None and coords[d].classes is not None}
    kcls = {k for _, k, _ in terms if k in classed}
    if not kcls:
        return None
    cdims = {d: coords[d].classes[0] for d in classed}
    fdims = sorted({k for _, k, _ in terms if coords[k].fin is not None} | {v for _, v, _ in head.value}
                   | {c for d in kcls for c in cdims[d]})
    qfin = sorted({q for q, _, _ in terms if coords[q].fin is not None}
                  | {c for q, _, _ in terms if q in classed for c in cdims[q]})
    hulls = {d: value_hull(coords[d]) for q, k, _ in terms for d in (q, k) if coords[d].fin is None and d not in classed}
    if any(h is None for h in hulls.values()):
        return None
    qrows, krows = _joint_values(qfin, coords, joint), _joint_values(fdims, coords, joint)
    if qrows is None or krows is None or len(qrows) * len(krows) ** 2 > MAX_COMBOS * 16:
        return None
    classes = [dict(zip(fdims, row)) for row in krows]
    outs = tuple(dict.fromkeys(o for o, _, _ in head.value))
    carried = [tuple(zip(outs, _carried(head, outs, k))) for k in classes]
    pairs = [(a, b) for a, b in itertools.combinations(range(len(classes)), 2) if carried[a] != carried[b]]
    ranges = {d: dict(((c, (lo, hi)) for c, lo, hi in coords[d].classes[1])) for d in classed}

    def unknown(d: str, row: dict, side: str) -> tuple:  # a value known per class only: one unknown per row
        if d in classed:
            return ("x", d, tuple(row[c] for c in cdims[d])) + (() if coords[d].classes[2] else (side,))
        return ("h", d, side)

    def score(q: dict, k: dict, side: str) -> dict:  # monomial (sorted unknowns) → coefficient
        poly: dict = {}
        for a, b, c in terms:
            factors, coef = [], c
            for d, row, who in ((a, q, "q"), (b, k, side)):
                if coords[d].fin is not None:
                    coef *= row[d]
                else:
                    factors.append(unknown(d, row, who))
            mono = tuple(sorted(factors))
            poly[mono] = poly.get(mono, Fraction(0)) + coef
        return poly

    def interval(v: tuple) -> tuple | None:
        return ranges[v[1]].get(v[2]) if v[0] == "x" else hulls[v[1]]

    def bounds(q: dict, a: int, b: int) -> tuple | None:  # lo ≤ S_a − S_b ≤ hi over every unknown
        diff = score(q, classes[a], "a")
        for mono, c in score(q, classes[b], "b").items():
            diff[mono] = diff.get(mono, Fraction(0)) - c
        lo = hi = Fraction(0)
        for mono, c in diff.items():
            box = _monomial_interval([interval(v) for v in mono], mono) if c else (Fraction(0), Fraction(0))
            if box is None:
                return None
            lo, hi = lo + min(c * box[0], c * box[1]), hi + max(c * box[0], c * box[1])
        return lo, hi

    bos = _bos_class(head, fdims, classes, joint)
    seps, tops = [], set()  # every separation that bounds a key valued unlike the maxima below them
    for qc in qrows:
        q = dict(zip(qfin, qc))
        below = {}  # a class whose keys all score > 0 below the BOS key's (visible from every row) is never maximal
        for b in range(len(classes)):
            if bos is not None and b != bos and (found := bounds(q, bos, b)) is not None and found[0] > 0:
                below[b] = found[0]
        tops.update(carried[k] for k in range(len(classes)) if k not in below)
        for a, b in pairs:
            if a in below or b in below:
                seps.extend(below[k] for k in (a, b) if k in below)
                continue
            found = bounds(q, a, b)
            apart = None if found is None else found[0] if found[0] > 0 else -found[1]
            if apart is None or apart <= 0:
                return None
            seps.append(apart)
    return (min(seps), frozenset(tops), any(coords[d].classes[2] for d in classed)) if seps else None


def _bos_class(head: Head, fdims: list, classes: list, joint: Joint | None) -> int | None:
    """The class of the BOS key, which every row that sees a key sees (j ≤ i, j < i, or every key), when the joint
    tracks the class dims."""
    if joint is None or head.visible not in ("all", "j<=i", "j<i") or not set(fdims) <= set(joint.dims):
        return None
    rows = {tuple(row) for row in joint.project(fdims, joint.rows - joint.inputs)}
    if len(rows) != 1:
        return None
    (row,) = rows
    return next((k for k, c in enumerate(classes) if tuple(c[d] for d in fdims) == row), None)


def _monomial_interval(boxes: list, mono: tuple) -> tuple | None:
    """Bounds on a product of unknowns, each in its box; an unknown twice is a square (≥ 0)."""
    if any(b is None for b in boxes):
        return None
    lo = hi = Fraction(1)
    for v in dict.fromkeys(mono):
        (a, b), power = boxes[mono.index(v)], mono.count(v)
        ends = [a ** power, b ** power]
        box = (min(ends), max(ends)) if power % 2 or a >= 0 or b <= 0 else (Fraction(0), max(ends))
        corners = [x * y for x in (lo, hi) for y in box]
        lo, hi = min(corners), max(corners)
    return lo, hi


def _symbolic(c: Coord, name: str) -> Expr | None:
    """The value at its row as an expression: exact, or m/G with a fresh integer symbol m."""
    exact = _exact(c)
    if exact is not None:
        return exact
    grid = integral_grid(c)
    return None if grid is None else BinOp("/", Var(name), grid)


def _lookup(layer: int, head: Head, coords: dict, first: int) -> HeadFact | None:
    """L-lookup: with position-embedded keys, the score is α(i, n)·(2b·j − j²) plus terms free of j,
    where α > 0 does not depend on the query values and b is an integer (polynomial identities in the
    query symbols, i, j, n).  Then j = b (clamped to the visible interval) is the unique maximum and
    every level [kα, (k+1)α) below it holds at most 2 keys."""
    if not head.score or any(coords[k].pe is None for _, k, _ in head.score):
        return None
    score: Expr = Num(Fraction(0))
    symbols = []
    for t, (q, k, coef) in enumerate(head.score):
        query = _symbolic(coords[q], f"m{t}")
        if query is None:
            return None
        if f"m{t}" in variables_of(query):
            symbols.append(f"m{t}")
        score = BinOp("+", score, BinOp("*", Num(coef), BinOp("*", query, substitute(coords[k].pe, "i", Var("j")))))
    names = tuple(symbols) + ("i", "n")
    deg = degree(score, "j", names + ("j",))
    if deg is None or deg[1] != 0 or deg[0] > 2:
        return None
    s0, s1, s2 = (substitute(score, "j", Num(Fraction(v))) for v in (0, 1, 2))
    alpha = BinOp("/", BinOp("+", BinOp("-", s0, BinOp("*", Num(Fraction(2)), s1)), s2), Num(Fraction(-2)))
    if is_zero(alpha, names) or any(not is_zero(BinOp("-", alpha, substitute(alpha, m, Num(Fraction(0)))), names)
                                    for m in symbols):
        return None
    vertex = BinOp("/", BinOp("+", BinOp("/", BinOp("-", s1, s0), alpha), Num(Fraction(1))), Num(Fraction(2)))
    j = Var("j")
    shape = BinOp("-", BinOp("*", BinOp("*", Num(Fraction(2)), vertex), j), BinOp("*", j, j))
    den = _vertex_denominator(vertex, names)
    if den is None or not is_zero(BinOp("-", score, BinOp("+", s0, BinOp("*", alpha, shape))), names + ("j",)):
        return None
    for m in symbols:  # α is free of the symbols (checked above)
        alpha = substitute(alpha, m, Num(Fraction(0)))
    alpha = simplified(BinOp("/", alpha, Num(Fraction(den))))  # distinct scores are ≥ α/K apart
    if affine_in(BinOp("/", Num(Fraction(1)), alpha), "i") is None:
        return None
    ends = tuple(simplified(substitute(alpha, "i", row)) for row in (Num(Fraction(first)), Var("n")))
    if not all(_holds(e) for e in ends):  # 1/α affine in i: α > 0 at both end rows is α > 0 on every row
        return None  # a convex score (α < 0, e.g. +j²) has no vertex maximum: not a lookup
    return HeadFact(layer, head, "lookup", step=alpha, step_ends=ends, homogeneous=True,
                    lemma="L-lookup (score α·(2b·j − j²), b an integer: unique maximum, ≤ 2 keys a level of "
                          "width α; L-ziggurat with c = 2)" if den == 1 else
                    f"L-lookup (score α·(2b·j − j²), 2b = m/{den} with m ≢ {den} mod {2 * den}: unique maximum, "
                    f"distinct scores ≥ α/{den} apart, ≤ 2 keys a level of that width; L-ziggurat with c = 2)")


def _vertex_denominator(vertex: Expr, names: tuple) -> int | None:
    """K with 2b = m/K, m an integer polynomial with m ≢ K (mod 2K) at every integer point (1 when b itself is
    an integer polynomial): then a tie at the top needs b ∈ Z, and distinct scores are ≥ α/K apart (L-lookup).
    The residues of m mod 2K repeat with period 2K in each variable (integer coefficients), so they are enumerated."""
    if integer_polynomial(vertex, names):
        return 1
    twice = BinOp("*", Num(Fraction(2)), vertex)
    for k in range(2, MAX_VERTEX_DEN + 1):
        normal = normal_form(BinOp("*", Num(Fraction(k)), twice), names)
        if normal is None or not normal[1].is_constant():
            continue
        m = normal[0] / normal[1].leading_coefficient()
        if any(c.denominator != 1 for c in m.coeffs()):
            continue
        moving = [v for v, d in zip(names, m.degrees()) if d]
        if (2 * k) ** len(moving) > MAX_COMBOS:
            return None
        at = {v: 0 for v in names}
        for point in itertools.product(range(2 * k), repeat=len(moving)):
            at.update(zip(moving, point))
            if int(m(*(fmpq(at[v]) for v in names))) % (2 * k) == k:
                return None
        return k
    return None


def _distinct(layer: int, head: Head, coords: dict, first: int, strict: bool = False) -> HeadFact | None:
    """L-tiebreak with arbitrary other terms: the exact-query, affine-key terms give the lattice step
    A(n); every other term is c·(m/G_q)·(z/G_k) with integers m, z, so it moves score/A by an integer
    multiple of U = c/(A·G_q·G_k).  If every U is a multiple of one integer M(n) > key distance,
    score/A ≡ ±j (mod M): all visible scores differ by non-zero multiples of |A| (a unique maximum,
    c = 1).  (A fractional M would let two keys sit |A|/2 apart.)  Each box checks |M| > key distance; ``strict``
    proposes the rule only when that is proved for every n, leaving the head to the lattice rule otherwise (a
    query whose own position step differs from A's: M = 2), which the certifier tries when the boxes fail."""
    step: Expr = Num(Fraction(0))
    units = []
    for q, k, coef in head.score:
        query, key = coords[q], coords[k]
        line = affine_in(key.pe, "i") if key.pe is not None else None
        exact = _exact(query)
        if exact is not None and line is not None:
            step = BinOp("+", step, BinOp("*", BinOp("*", Num(coef), exact), line[0]))
            continue
        gq, gk = integral_grid(query), integral_grid(key)
        if gq is None or gk is None or "i" in variables_of(gk):
            return None
        units.append((coef, gq, gk))
    row_free = simplified(substitute(step, "i", Num(Fraction(first))))
    if is_zero(row_free, ("n",)) or not is_zero(BinOp("-", step, row_free), ("i", "n")) or not units:
        return None
    units = [simplified(BinOp("/", Num(c), BinOp("*", row_free, BinOp("*", gq, gk)))) for c, gq, gk in units]
    for modulus in units:  # M itself must be an integer: then score/A − (±j) is a multiple of M
        if integer_polynomial(modulus, ("i", "n")) and all(
                integer_polynomial(BinOp("/", u, modulus), ("i", "n")) for u in units):
            ends = apart_ends(modulus, head.visible, first)
            if ends and (not strict or any(_holds(lo) and _holds(hi) for lo, hi in ends)):
                return HeadFact(layer, head, "distinct", step=row_free, modulus=modulus, modulus_ends=ends,
                                homogeneous=True,
                                lemma="L-tiebreak (score/|A(n)| ≡ ±j modulo M(n) > key distance: all scores "
                                      "differ, unique maximum; L-ziggurat with c = 1)")
    return None


def key_distance(visible: str, first: int) -> Expr:
    """The largest |j − j'| between two keys visible from row i, as an expression in (i, n)."""
    return BinOp("-", visible_count(visible, first), Num(Fraction(1)))


def apart_ends(ratio: Expr, visible: str, first: int) -> tuple[tuple[Expr, Expr], ...]:
    """Ways to show |R(i, n)| > key distance on every row: for a sign s with s·R − D affine in i,
    its values at the extreme rows i = first and i = n (an affine function is smallest at an end)."""
    ends = []
    for sign in (1, -1):
        e = BinOp("-", BinOp("*", Num(Fraction(sign)), ratio), key_distance(visible, first))
        if affine_in(e, "i") is not None:
            ends.append((substitute(e, "i", Num(Fraction(first))), substitute(e, "i", Var("n"))))
    return tuple(ends)


def always_apart(ratio: Expr, visible: str, first: int) -> bool:
    """|R(i, n)| > the key distance on every row at every n ≥ 1, proved exactly (:func:`apart_ends`)."""
    return any(_holds(lo) and _holds(hi) for lo, hi in apart_ends(ratio, visible, first))


def _ziggurat(layer: int, head: Head, coords: dict, qexact: list, first: int) -> HeadFact:
    step: Expr = Num(Fraction(0))
    fin_terms = []
    for (q, k, coef), qv in zip(head.score, qexact):
        key = coords[k]
        weight = BinOp("*", Num(coef), qv)
        if key.fin is not None:
            fin_terms.append((k, weight, sorted(key.fin)))
            continue
        line = affine_in(key.pe, "i") if key.pe is not None else None
        if line is None:
            raise Unsupported(f"head {head.name!r}: key dim {k!r} is neither finite-valued nor affine in the position")
        step = BinOp("+", step, BinOp("*", weight, line[0]))
    row_free = substitute(step, "i", Num(Fraction(first)))
    if not is_zero(BinOp("-", step, row_free), ("i", "n")):
        raise Unsupported(f"head {head.name!r}: the position step of the score depends on the query position")
    step = row_free
    if is_zero(step, ("n",)):
        raise Unsupported(f"head {head.name!r}: position terms of the score cancel (no tie-break)")
    names = [k for k, _, _ in fin_terms]
    if not _product_fits(vals for _, _, vals in fin_terms):
        raise Unsupported(f"head {head.name!r}: too many key value combinations")
    combos = list(itertools.product(*(vals for _, _, vals in fin_terms)))
    offsets = []
    for combo in combos:
        off: Expr = Num(Fraction(0))
        for (_, weight, _), v in zip(fin_terms, combo):
            off = BinOp("+", off, BinOp("*", weight, Num(v)))
        offsets.append(off)
    values = _values_by_combo(head, coords, names, combos)
    bos = _bos_only([dict(zip(names, c)) for c in combos], names, coords) if first == 0 else set()
    off_lattice = False
    ties = []
    finer, never_level = 1, set()  # offsets a constant fraction r of the step apart: the lattice of step A/den(r)
    for a, b in itertools.combinations(range(len(combos)), 2):
        ratio = BinOp("/", BinOp("-", offsets[a], offsets[b]), step)
        if not integer_polynomial(ratio, ("i", "n")):
            if len({a, b} & bos) != 1:
                r = simplified(ratio)
                if not isinstance(r, Num):
                    raise Unsupported(f"head {head.name!r}: score offsets are not on the lattice of step A(n) = "
                                      f"{to_text(step)} (L-ziggurat needs integer or constant multiples)")
                finer = lcm(finer, r.value.denominator)
                never_level.add((a, b))  # a tie needs j − j' = r ∉ Z: these keys never share a level
                continue
            off_lattice = True
            continue  # the BOS key: a step or more from every key (checked below), so it never ties
        # keys a ratio apart carry different values: they must never tie — proved here for every n when it can be
        # for an average head (then its maxima never mix values); a unique-hard head checks it box by box
        if (values is None or values[a] != values[b]) and not is_zero(ratio, ("i", "n")) and not (
                head.hard == "average" and always_apart(ratio, head.visible, first)):
            ties.append(ratio)
    rho = Fraction(1)  # the BOS key is ≥ ρ·|A| from every key: bands of width ρ·|A| (L-bos-apart)
    for z, c in itertools.product(bos if off_lattice else (), set(range(len(combos))) - bos):
        apart = _bos_apart(BinOp("/", BinOp("-", offsets[z], offsets[c]), step), head.visible, first)
        if apart is None:
            raise Unsupported(f"head {head.name!r}: the BOS key is off the lattice of step A(n) = {to_text(step)} "
                              f"and not apart from every key by a constant share of it (L-bos-apart)")
        rho = min(rho, apart)
    if finer > 1 and off_lattice:
        raise Unsupported(f"head {head.name!r}: offsets off the lattice of step A(n) = {to_text(step)} both between "
                          "input keys and at the BOS key (L-bos-apart takes the lattice as it is)")
    classes: list[int] = []
    for a in range(len(combos)):
        if not any(is_zero(BinOp("-", offsets[a], offsets[b]), ("i", "n")) for b in classes):
            classes.append(a)
    pairs = tuple((a, b, apart_ends(BinOp("/", BinOp("-", offsets[classes[a]], offsets[classes[b]]), step),
                                    head.visible, first))
                  for a, b in itertools.combinations(range(len(classes)), 2)
                  if (classes[a], classes[b]) not in never_level)
    step = step if finer == 1 else BinOp("/", step, Num(Fraction(finer)))
    # unique-hard heads must exclude those ties on every box; an average head without any is homogeneous
    # (its maxima carry one value, so its output is a key's value — e.g. a unique maximum)
    homogeneous = head.hard == "average" and not ties
    return HeadFact(layer, head, "ziggurat", step=step if rho == 1 else BinOp("*", Num(rho), step),
                    offsets=tuple(offsets[a] for a in classes),
                    pairs=pairs, homogeneous=homogeneous, bos_off_lattice=off_lattice,
                    ties_apart=tuple(apart_ends(r, head.visible, first) for r in ties) if head.hard != "average" else (),
                    lemma="L-ziggurat (lattice of step |A(n)|" + (f"/{finer}: offsets a constant fraction of A apart"
                                                                   if finer > 1 else "") + ", c positions a level; L-tiebreak)"
                    + ("; BOS off the lattice: L-bos-apart" if off_lattice else ""))


def _bos_apart(ratio: Expr, visible: str, first: int) -> Fraction | None:
    """ρ ∈ (0, 1] with |R − j| ≥ ρ for every input key position 1 ≤ j ≤ D (D the key distance, BOS at 0),
    every n ≥ 1 and row i: 1 − R ≥ ρ (R below the first key) or R − D ≥ ρ (above the last), with ρ the
    least end value at n = 1 (capped at 1), proved ≥ ρ for every n at both end rows (affine in i)."""
    found = []
    for e in (BinOp("-", Num(Fraction(1)), ratio), BinOp("-", ratio, key_distance(visible, first))):
        if affine_in(e, "i") is None:
            continue
        ends = [substitute(e, "i", row) for row in (Num(Fraction(first)), Var("n"))]
        try:
            rho = min([Fraction(1)] + [eval_exact(end, {"i": 0, "n": 1}) for end in ends])
        except (ExprError, ZeroDivisionError):
            continue
        if rho > 0 and all(_holds(BinOp("-", end, Num(rho)), strict=False) for end in ends):
            found.append(rho)
    return max(found, default=None)


def _values_by_combo(head: Head, coords: dict, names: list[str], combos: list) -> list | None:
    """The value vector each key combination carries, when the values are read from key dims only."""
    if not all(v in names for _, v, _ in head.value):
        return None
    return [tuple(sorted((o, c * combo[names.index(v)]) for o, v, c in head.value)) for combo in combos]


def _gap(layer: int, head: Head, coords: dict, queries: list, qconst: list, first: int) -> HeadFact:
    """Average heads with query-dependent scores: a lower bound on every non-zero gap (L-gap)."""
    if head.hard != "average":
        raise Unsupported(f"head {head.name!r}: query-dependent scores under {head.hard}-hard attention "
                          "(tied maxima cannot be excluded)")
    qdims = {q for q, _, _ in head.score}
    kdims = {k for _, k, _ in head.score}
    constant = all(isinstance(q, Num) for q in qconst)
    terms = [(k, coef) for _, k, coef in head.score]
    if constant:
        terms = [(k, coef * q.value) for (_, k, coef), q in zip(head.score, qconst)]
        query, nonzero = None, any(w for _, w in terms)
    else:
        query = coords[next(iter(qdims))] if len(qdims) == 1 else None
        if query is None and len(kdims) == 1:  # g·(Σ (coef/g)·q)_i · K(j): one combined query factor
            g = head.score[0][2]
            query = _combination([(q, coef / g) for q, _, coef in head.score], coords)
            terms = [(next(iter(kdims)), g)]
        nonzero = query is not None and (query.offset != 0 or query.fin is not None and 0 not in query.fin
                                         or _nonzero_row_constant(query))
    keyed = _key_delta(head, coords, terms)
    bound = None if query is None else query_bound(query)
    if keyed is not None and query is not None and query.fin is None and bound is None and query.harmonic is not None:
        # a query factor v + d/k (a mean over a BOS level, L-bos-level): its least non-zero |w| is exact
        least = harmonic_distance(query.harmonic, Fraction(0), off=True)
        if least > 0:
            delta, same_values = keyed
            # with least > 0 every limit |v| is > 0, so an infimum of 0 is a value w = 0 (a uniform row)
            zero = harmonic_distance(query.harmonic, Fraction(0)) == 0
            return HeadFact(layer, head, "gap", delta_key=delta, query_coord=query,
                            homogeneous=not zero and same_values, gammas=(simplified(BinOp("*", Num(least), delta)),),
                            lemma="L-gap (non-zero gaps ≥ min|w_i|·min ΔK; L-bos-level (b): the least non-zero |w| "
                                  "over the family v + d/k)")
    if keyed is not None and (constant or query is not None and (query.fin is not None or bound is not None)):
        delta, same_values = keyed
        ends = ()
        if query is not None and query.fin is None and affine_in(bound, "i") is not None:
            ends = tuple(substitute(bound, "i", row) for row in (Num(Fraction(first)), Var("n")))
        line = any(coords[k].fin is None for k, _ in terms)  # K affine in j: a row is w_i·(a·j + b), a key a level
        return HeadFact(layer, head, "gap", delta_key=delta, query_coord=query, homogeneous=nonzero and same_values,
                        grid_ends=ends, level_size=1 if line else None, lemma="L-gap (non-zero gaps ≥ min|w_i|·min ΔK" +
                        ("; K affine in j: L-ziggurat with c = 1)" if line else ")"))
    raise Unsupported(f"head {head.name!r}: no lower bound on its non-zero score gaps (needs one query factor "
                      "with a known grid and keys that are finite-valued or affine in the position)")


def _special_key(layer: int, head: Head, coords: dict, first: int) -> HeadFact | None:
    """L-special-key: a ladder A(n)·j with A < 0 over the input keys and one special key, BOS at j = 0,
    shifted by U_i (terms q_i·x_j whose key dim x is 0 off the BOS row).  With |U_i| ≥ L(i, n) > |A(n)|
    the maximum is unique (BOS when U_i > 0, the ladder's top j = 1 when U_i < 0), every other key lies
    ≥ γ = min(|A|, L − |A|) below it, and a band of width γ holds ≤ 2 keys (one rung and BOS): L-gap's
    bands with c = 2 (L-ziggurat), so τ ∝ γ(n) needs no log factor — the paper's Θ(1/n) counting
    comparison with bounded PEs, where the plain sign gadget (all other keys tied at 0) pays N·e^{−γ/τ}.

    Proved here for every n ≥ 1 and recorded as an L-gap fact (gammas, level_size 2, unique maximum):
    A(n) < 0 and L(end, n) + A(n) > 0 at both end rows (L = share/|G(i, n)| for U on a grid G affine
    in i, whose |G| is largest at an end; or the least non-zero |U| of a finite set without 0)."""
    name = f"head {head.name!r}: special key"
    if not any(coords[k].rest == {Fraction(0)} and coords[k].at_bos for _, k, _ in head.score):
        return None  # no term reads a BOS indicator: the rule does not apply (and says nothing)
    if first != 0 or head.visible not in ("all", "j<=i", "j<i"):
        raise Unsupported(f"{name}: needs a BOS key visible from every non-empty row")
    slope: Expr = Num(Fraction(0))
    special, rungs = [], 0
    for q, k, c in head.score:
        key = coords[k]
        if key.rest == {Fraction(0)} and key.at_bos:  # x_j = 0 off the BOS row
            special.append((q, c * key.at_bos))
            continue
        w = _row_constant(coords[q])
        line = affine_in(key.pe, "i") if key.pe is not None else None
        if w is None or line is None:
            raise Unsupported(f"{name}: term ({q!r}, {k!r}) is neither a BOS term nor a row-constant query "
                              "against a key affine in the position")
        slope = BinOp("+", slope, BinOp("*", BinOp("*", Num(c), w), line[0]))
        rungs += 1
    if not special or not rungs:
        raise Unsupported(f"{name}: needs both a BOS term and a ladder term")
    slope = simplified(slope, ("n",))
    if "i" in variables_of(slope) or not positive_from(Neg(slope), 1):
        raise Unsupported(f"{name}: the ladder step A(n) is not negative for every n")
    # U = scale·x for one query dim x (a scaled grid keeps no offset), else the abstract sum of the terms
    u, scale = (coords[special[0][0]], abs(special[0][1])) if len(special) == 1 else (_combination(special, coords), 1)
    if u.fin is not None:
        if Fraction(0) in u.fin:
            raise Unsupported(f"{name}: the BOS shift U_i may be 0")
        least = [Num(scale * min(abs(v) for v in u.fin))]
    elif u.grid is not None and u.offset and affine_in(u.grid, "i") is not None:
        share = Num(scale * min(u.offset, 1 - u.offset))
        ends = [substitute(u.grid, "i", row) for row in (Num(Fraction(first)), Var("n"))]
        signs = [s for s in (1, -1) if all(positive_from(BinOp("*", Num(Fraction(s)), g), 1) for g in ends)]
        if not signs:
            raise Unsupported(f"{name}: the grid of the BOS shift changes sign")
        least = [BinOp("/", share, BinOp("*", Num(Fraction(signs[0])), g)) for g in ends]
    else:
        raise Unsupported(f"{name}: no lower bound on |U_i| (needs a grid with a non-zero offset or a finite set without 0)")
    gammas = (simplified(Neg(slope), ("n",)),) + tuple(simplified(BinOp("+", low, slope), ("n",)) for low in least)
    if not all(positive_from(g, 1) for g in gammas[1:]):
        raise Unsupported(f"{name}: |U_i| ≥ L(n) does not clear the ladder step |A(n)| for every n")
    agree = all(coords[v].rest is not None and len(coords[v].rest) == 1 for _, v, _ in head.value)
    return HeadFact(layer, head, "gap", delta_key=slope, query_coord=u, homogeneous=True, gammas=gammas,
                    level_size=2, special=True, rungs_agree=agree, lemma="L-special-key (unique maximum; deficits ≥ min(|A|, L − |A|), ≤ 2 keys a band: "
                    "L-gap with L-ziggurat's c = 2)")


def query_bound(c: Coord) -> Expr | None:
    """B with |value| ≥ o/|B| whenever value ≠ 0 (o the grid offset share, 1 without one): the grid,
    or a bound on the value's denominator."""
    return c.grid if c.grid is not None else c.den_bound


def _key_delta(head: Head, coords: dict, terms: list) -> tuple[Expr, bool] | None:
    """(min non-zero |K(j) − K(j')|, whether equal K means equal values) for K(j) = Σ w_t·k_t(j)
    over terms (k_t, w_t): keys with finite values, or keys affine in j (then K is injective and
    maxima are single keys)."""
    keys = [coords[k] for k, _ in terms]
    weights = [w for _, w in terms]
    if all(k.fin is not None for k in keys):
        names = [k for k, _ in terms]
        if not _product_fits(k.fin for k in keys):
            return None
        combos = list(itertools.product(*(sorted(k.fin) for k in keys)))
        score = [sum((w * v for w, v in zip(weights, c)), Fraction(0)) for c in combos]
        values = _values_by_combo(head, coords, names, combos)
        same = values is not None and all(values[a] == values[b] for a, b in itertools.combinations(range(len(combos)), 2)
                                          if score[a] == score[b])
        ordered = sorted(set(score))
        return Num(min((b - a for a, b in zip(ordered, ordered[1:])), default=Fraction(1))), same
    slope: Expr = Num(Fraction(0))
    for w, k in zip(weights, keys):
        line = affine_in(k.pe, "i") if k.pe is not None else None
        if line is None:
            return None
        slope = BinOp("+", slope, BinOp("*", Num(w), line[0]))
    return slope, True


def _joint(layer: int, head: Head, coords: dict, joint: Joint | None) -> HeadFact:
    """L-gap from joint values: every score input finite-valued, so for each combination of query
    values the key scores Σ c·q·k take finitely many values (a superset of the true ones: any two
    distinct true scores are at least the superset's smallest spacing apart).  The least spacing over
    all query combinations bounds every non-zero gap; maxima carry one value when equal key scores
    always mean equal value vectors."""
    qdims = sorted({q for q, _, _ in head.score})
    kdims = sorted({k for _, k, _ in head.score} | {v for _, v, _ in head.value})
    qrows, krows = (_joint_values(ds, coords, joint) for ds in (qdims, kdims))
    if qrows is None or krows is None:
        raise Unsupported("joint values: a score or value input is not finite-valued")
    if len(qrows) * len(krows) > MAX_COMBOS:
        raise Unsupported("joint values: too many query/key value combinations")
    kcombos = [dict(zip(kdims, c)) for c in krows]
    carried = [tuple(sorted((o, c * kc[v]) for o, v, c in head.value)) for kc in kcombos]
    gamma, same = None, True
    for qc in qrows:
        q = dict(zip(qdims, qc))
        scores = [sum((c * q[a] * kc[b] for a, b, c in head.score), Fraction(0)) for kc in kcombos]
        ordered = sorted(set(scores))
        spacing = min((y - x for x, y in zip(ordered, ordered[1:])), default=None)
        if spacing is not None:
            gamma = spacing if gamma is None else min(gamma, spacing)
        seen = {}
        same = same and all(seen.setdefault(s, v) == v for s, v in zip(scores, carried))
    if gamma is None:
        raise Unsupported("joint values: scores never differ, yet the keys are not row-constant")
    if head.hard != "average" and not same:
        raise Unsupported(f"joint values: tied maxima may carry different values under {head.hard}-hard attention")
    return HeadFact(layer, head, "gap", delta_key=Num(gamma), homogeneous=same,
                    lemma="L-gap (joint finite values: non-zero gaps ≥ the least score spacing)")


def _joint_values(dims: list[str], coords: dict, joint: Joint | None) -> list[tuple] | None:
    """The possible joint values of ``dims`` at one row: the symbol table's rows for the dims it
    tracks times the per-dim value sets of the others (a superset; size checked before it is built)."""
    tracked = joint.project(dims) if joint is not None else None
    if tracked is not None:
        return tracked
    known = [d for d in dims if joint is not None and d in joint.dims]
    rows = joint.project(known) if known else [()]
    free = [d for d in dims if d not in known]
    sets = [coords[d].fin for d in free]
    if any(v is None for v in sets) or len(rows) * prod(map(len, sets)) > MAX_COMBOS:
        return None
    at = {d: (0, known.index(d)) if d in known else (1, free.index(d)) for d in dims}
    return [tuple((r, f)[at[d][0]][at[d][1]] for d in dims) for r in rows for f in itertools.product(*(sorted(v) for v in sets))]


def _lattice(layer: int, head: Head, coords: dict, first: int, joint: Joint | None = None) -> HeadFact:
    """L-gap on a lattice.  A term c·q·k with q = a/G_q (G_q the query's integral grid, or an unknown
    integer ≤ B when only the denominator bound B is known) and k·G_k ∈ Z moves a row's scores by
    multiples of c/(G_q·G_k); with g the gcd of the c's, every score difference is a multiple of
    g/Π G over the distinct grids, so non-zero gaps are ≥ g/(Π exact grids · Π bounds).  A key grid
    G(j, n) that varies with the key position (affine in j) puts a difference of two keys on
    Z/(G(j)·G(j')), and several distinct ones on Z/Π_m G_m(j)·G_m(j') (s_j·Π_m G_m(j) is on the
    lattice term by term; terms with a fixed key grid scale that lattice, like query grids; a key known
    by a denominator bound d(j) ≤ B(j) acts as such a G with |G| ≤ B);
    |G| (and an affine bound B(i)) is largest at an end row."""
    exact, bounds, kgrids, coefs = {}, {}, [], []  # exact: the distinct fixed query grids
    for q, k, c in head.score:
        gq, gk = integral_grid(coords[q]), integral_grid(coords[k])
        if gk is None and coords[k].den_bound is not None:  # k(j)·d(j) ∈ Z, d(j) an unknown integer ≤ B(j)
            gk = DenBound(k, coords[k].den_bound)
        if gk is None or gq is None and coords[q].den_bound is None:
            raise Unsupported(f"lattice: no grid for query dim {q!r} or key dim {k!r}")
        if gq is not None and "i" not in variables_of(gq):
            exact.setdefault(to_text(simplified(gq, ("n",))), gq)
        elif affine_in(gq if gq is not None else coords[q].den_bound, "i") is not None:
            bounds[q] = gq if gq is not None else coords[q].den_bound
        else:
            raise Unsupported(f"lattice: the grid of query dim {q!r} is not affine in the position")
        kgrids.append(gk)
        coefs.append(c)
    movers: list = []  # the distinct key grids that vary with the key position
    for g in kgrids:
        if (isinstance(g, DenBound) or "i" in variables_of(g)) and not any(_same_mover(g, m) for m in movers):
            movers.append(g)
    if len(movers) > MAX_MOVERS or any(affine_in(_bound(m), "i") is None for m in movers):
        raise Unsupported(f"lattice: more than {MAX_MOVERS} key grids vary with the position, or one is not affine in it")
    fixed_keys: dict = {}  # kept apart from the query grids: a term with G on both sides needs G² (lcm of Gq·Gk ≤ lcm Gq · lcm Gk)
    for g in kgrids:  # a fixed key grid multiplies the lattice's denominator like a query grid
        if not isinstance(g, DenBound) and "i" not in variables_of(g):
            fixed_keys.setdefault(to_text(simplified(g, ("n",))), g)
    if len(bounds) > 2:
        raise Unsupported("lattice: more than two query dims known only by denominator bounds")
    base: Expr = Num(_rational_gcd(coefs))
    for g in [*exact.values(), *fixed_keys.values()]:
        base = BinOp("/", base, g)
    ends = lambda e: [substitute(e, "i", row) for row in (Num(Fraction(first)), Var("n"))]  # noqa: E731
    factors = [ends(b) for b in bounds.values()]
    for m in movers:  # each key grid d_m(j) ≤ B_m(j): s_j − s_j' ∈ base·Z/Π_m d_m(j)·d_m(j')
        factors += [ends(_bound(m))] * 2
    gammas = tuple(simplified(_divided(base, pick), ("n",)) for pick in itertools.product(*factors))
    unique = _injective(head, coords)
    homogeneous = unique or _value_is_score(head, coords) or head.hard != "average" and _maxima_one_value(
        head, coords, joint, first)
    if head.hard != "average" and not homogeneous:
        raise Unsupported(f"lattice: tied maxima with different values cannot be excluded under {head.hard}-hard "
                          "attention")
    return HeadFact(layer, head, "gap", delta_key=simplified(base, ("n",)), gammas=gammas,
                    homogeneous=homogeneous,
                    lemma="L-gap (score differences on a lattice of step |U(n)|)")


@dataclass(frozen=True)
class DenBound:
    """A key dim whose value at key j is m/d(j) with d(j) an unknown integer ≤ bound(j, n): the same
    d(j) for every term reading that dim, so it acts as a key grid varying with the position."""

    dim: str
    bound: Expr


def _same_mover(a, b) -> bool:
    if isinstance(a, DenBound) or isinstance(b, DenBound):
        return a == b
    return is_zero(BinOp("-", a, b), ("i", "n"))


def _bound(g) -> Expr:
    return g.bound if isinstance(g, DenBound) else g


def _divided(e: Expr, divisors) -> Expr:
    for d in divisors:
        e = BinOp("/", e, d)
    return e


def _injective(head: Head, coords: dict) -> bool:
    """Row-constant queries and position-embedded keys whose score P(j) takes a different value at every
    two key positions (:func:`_injective_in_position`, e.g. a·j or j²): no two keys tie, so the maximum
    is unique."""
    terms = []
    for q, k, c in head.score:
        w, pe = _row_constant(coords[q]), coords[k].pe
        if w is None or pe is None or not isinstance(w, Num):
            return False
        terms.append((c * w.value, pe))
    return _injective_in_position(terms)


def _value_is_score(head: Head, coords: dict) -> bool:
    """One score term w·k(j) with w a non-zero constant and a value that reads k alone: tied maxima
    share k(j), hence the value (a min or max of prefix means is some key's mean)."""
    if len(head.score) != 1:
        return False
    q, k, c = head.score[0]
    w = _row_constant(coords[q])
    return isinstance(w, Num) and w.value * c != 0 and all(d == k for _, d, _ in head.value)


def _bos_bound(head: Head, coords: dict, first: int) -> tuple[int, Fraction] | None:
    """(s, b) with s·(output − b) ≤ 0 at every row: a head scoring a·k(j) whose value is v·k picks keys
    with a·k ≥ a·k(BOS) when the BOS key is visible from every row, so v·k is ≥ v·k(BOS) when a·v > 0,
    else ≤ (a min over prefix means with BOS valued 0 is ≤ 0)."""
    if first != 0 or head.visible not in ("all", "j<=i") or not _value_is_score(head, coords):
        return None
    q, k, c = head.score[0]
    at_bos = coords[k].at_bos
    if at_bos is None:
        return None
    a, v = c * _row_constant(coords[q]).value, sum((coef for _, _, coef in head.value), Fraction(0))
    return None if not v else (-1 if a * v > 0 else 1, v * at_bos)


def _rational_gcd(values) -> Fraction:
    den = lcm(*(v.denominator for v in values))
    return Fraction(gcd(*(int(v * den) for v in values)), den)


def _twins_merged(facts: list) -> list:
    """Heads of one layer with the same visibility, hard rule and score (coefficients summed per term)
    put the same weights on every key, hard and soft, at every τ: their outputs are one head's with the
    value terms of both (a head split in two writes ½v + ½v = v, which separate value sets would
    widen to {0, ½, 1}).  Each group becomes one fact; its maxima carry one value when each twin's do."""
    groups: dict = {}
    for fact in facts:
        terms: dict = {}
        for q, k, c in fact.head.score:
            terms[(q, k)] = terms.get((q, k), Fraction(0)) + c
        key = (fact.head.visible, fact.head.hard, frozenset((t, c) for t, c in terms.items() if c))
        groups.setdefault(key, []).append(fact)
    out = []
    for group in groups.values():
        if len(group) == 1:
            out.append(group[0])
            continue
        value: dict = {}  # one term per (out dim, key dim): ½·b + ½·b is b, not the sum of two unrelated halves
        for f in group:
            for o, v, c in f.head.value:
                value[(o, v)] = value.get((o, v), Fraction(0)) + c
        out.append(replace(group[0], head=replace(group[0].head, value=tuple((o, v, c) for (o, v), c in value.items())),
                           homogeneous=all(f.homogeneous for f in group), rungs_agree=all(f.rungs_agree for f in group)))
    return out


def attention_coords(layer: AttentionLayer, coords: dict, first: int, facts: list,
                     max_length: int | None = None, joint: Joint | None = None, nearest: bool = False) -> dict:
    new = dict(coords)
    for fact in _twins_merged(facts):
        noisy, spans, needs = _noisy_outputs(fact, coords, joint, first, nearest)
        extremes = _exact_extremes(fact, coords, joint)
        # L-word-constant (d): every row sees every key with one score vector (its query dims one soft and one hard
        # value in the word), so one softmax row and one set of maxima: one soft and one hard output at every row
        alike = fact.head.visible == "all" and all(_soft_shift(coords[q]) for q, _, _ in fact.head.score)
        same = alike or _same_maxima_everywhere(fact.head, coords, joint) or \
            _first_key_alone(fact.head, coords, joint, first)
        maxima = fact.kind != "uniform" and fact.head.hard == "average"
        # the head's query table, built once: for its maxima's means and for the classes of its fresh outputs
        table = _query_table(fact.head, coords, joint) if maxima or not same else None
        means, spreads = maxima_outputs(fact.head, coords, joint, first, table) if maxima else ({}, {})
        bos_row = _bos_row_means(fact.head, coords, joint, first) if fact.kind != "uniform" else {}
        table = None if same else table
        for out, val in _value_table(fact.head, coords).items():
            if val.grid is not None and "i" in variables_of(val.grid):  # the key's grid varies with the key position
                val = Coord(fin=val.fin, den_bound=_key_den_bound(val, fact.head.visible, first))
            if fact.kind == "uniform" and val.fin is not None and len(val.fin) == 1:
                contrib = Coord(fin=val.fin, grid=val.grid, offset=val.offset)  # the average of equal values
            elif fact.kind == "uniform" and not may_be_empty(fact.head.visible):
                contrib = _mean(val, fact.head.visible, first)
            elif fact.head.hard != "average" or fact.homogeneous:
                # some key's value (which row's is unknown): every fact about one key's value holds,
                # its grid offset included — dropping the offset claimed value·G ∈ Z (issue 11)
                tops = {dict(v).get(out, Fraction(0)) for v in fact.top_values}  # L-class-constant (d)
                # else every set proved to hold the output: the selectable keys' values, the maxima's means
                # per query row (L-maxima-classes), the values of all keys
                known = [f for f in (_selected_values(fact.head, out, coords, joint, first), means.get(out), val.fin)
                         if f is not None]
                contrib = Coord(fin=frozenset(tops) if tops and (val.fin is None or tops <= val.fin) else
                                frozenset.intersection(*known) if known else None, grid=val.grid,
                                offset=val.offset, den_bound=val.den_bound)
            elif out in means:
                contrib = Coord(fin=means[out], grid=Num(Fraction(_den_lcm(means[out]))))  # L-maxima-classes
            elif out in spreads:
                contrib = Coord(harmonic=spreads[out])  # L-bos-level
            elif max_length is not None and val.fin is not None and \
                    (means := _mean_values(val.fin, max_length + 1 - first)) is not None:
                contrib = Coord(fin=means, grid=Num(Fraction(_den_lcm(means))))  # a bounded model's means
            elif integral_grid(val) is not None:
                # the mean of m ≤ |U_i| maxima, each value·L ∈ Z: mean·(m·L) ∈ Z, a denominator ≤ L·|U_i|
                count = visible_count(fact.head.visible, first)  # an empty row (count 0) adds 0: denominator 1
                contrib = Coord(den_bound=BinOp("*", integral_grid(val), BinOp("+", count, Num(Fraction(1))) if
                                                may_be_empty(fact.head.visible) else count))
            else:
                contrib = Coord()
            if may_be_empty(fact.head.visible):  # an empty row adds 0, which is on the integral grid only
                contrib = Coord(fin=None if contrib.fin is None else contrib.fin | {Fraction(0)},
                                grid=integral_grid(contrib), den_bound=contrib.den_bound,
                                harmonic=None if contrib.harmonic is None else
                                (contrib.harmonic[0] | {Fraction(0)}, contrib.harmonic[1]))
            at_bos = _bos_row_output(fact.head.visible, first, val)
            at_bos, bos_fin = (at_bos, None) if at_bos is not None else _bos_value_or_set(bos_row.get(out))
            contrib = replace(contrib, at_bos=at_bos, bos_fin=bos_fin,
                              bound=_bos_bound(fact.head, coords, first),
                              hull=_mean_hull(value_hull(val), may_be_empty(fact.head.visible)),
                              same_in_word=same, soft_same=alike)
            summed, unless = _add(new[out], contrib), _noisy_sum(new[out], contrib, noisy.get(out))
            # a head writing a dim that is 0 and exact: the head's exact values and spans are the dim's
            fresh = new[out].fin == {Fraction(0)} and new[out].exact_unless == frozenset()
            at = extremes.get(out, frozenset()) if fresh else frozenset()
            if at and (unless is not None or summed.fin is not None):
                unless, at = (summed.fin if unless is None else unless) - at, frozenset()
            new[out] = replace(summed, exact_unless=unless, exact_at=at, spans=spans.get(out, ()) if fresh else (),
                               needs=needs.get(out, ()) if fresh else (),
                               classes=_output_classes(fact.head, out, coords, joint, first, table, contrib.hull, contrib.fin)
                               if new[out].fin == {Fraction(0)} and not same else None)
    return new


def _query_classes(head: Head, coords: dict, joint: Joint | None) -> tuple[str, ...] | None:
    """L-class-constant (a): the symbol-determined dims C that, with dims one word shares, make up every query dim
    a head seeing every key reads (a term whose key is one value at every key of a row moves the row's scores
    alike, so its query does not matter); rows agreeing on C see one score vector, so one set of maxima and one
    hard output.  None when some query dim is neither, or when C is empty (L-word-constant covers that)."""
    if head.visible != "all" or joint is None:
        return None
    qdims = {q for q, k, _ in head.score if not _row_shift(coords[k])}
    cdims = tuple(sorted(d for d in qdims if not _same_in_word(coords[d])))
    return cdims if cdims and set(cdims) <= set(joint.dims) else None


def _output_classes(head: Head, out: str, coords: dict, joint: Joint | None, first: int, table: tuple | None,
                    hull: tuple | None, fin: frozenset | None) -> tuple | None:
    """The ``classes`` (C, per value c of C (c, lo, hi), one value per class in a word) of a head's fresh output
    dim: per value c of the query classes C, the hull of the outputs :func:`_query_means` proves at the symbol
    rows with C = c (L-maxima-classes), else the output's hull.  C is the query classes of L-class-constant (a)
    (one value per class in a word), else the query and key class dims the joint tracks (ranges only; an
    empty row's 0 joins every class), and None when no class's range is known.  ``table``: the head's
    :func:`_query_table`."""
    cdims, same = _query_classes(head, coords, joint), True
    if cdims is None and table is not None and joint is not None and fin is None:  # finite: the joint tracks it
        cdims, same = tuple(sorted(d for d in set(table[0]) | set(table[3]) if not _same_in_word(coords[d]))), False
    if not cdims or hull is None or not set(cdims) <= set(joint.dims):
        return None
    at = [joint.dims.index(d) for d in cdims]
    found: dict = {tuple(row[a] for a in at): [] for row in joint.rows}
    if table is not None and out in table[8] and set(table[0]) | set(table[3]) <= set(joint.dims):
        m = table[8].index(out)
        for row, means in _row_means(head, coords, first, table, joint):
            c = tuple(row[a] for a in at)
            if means is None or means[1] or found[c] is None:
                found[c] = None
            else:
                found[c].extend(v[m] for v in means[0] | ({(Fraction(0),) * len(table[8])} if
                                                          may_be_empty(head.visible) else set()))
    elif not same:
        return None
    if not same and all(not v or (min(v), max(v)) == hull for v in found.values()):
        return None  # no class narrower than the hull
    return cdims, tuple(sorted((c, min(v), max(v)) if v else (c, *hull) for c, v in found.items())), same


def class_hull(c: Coord, at: dict) -> tuple | None:
    """The hull of c's value at rows whose symbol-determined dims take the values ``at`` (L-class-constant)."""
    if c.classes is not None and set(c.classes[0]) <= set(at):
        key = tuple(at[d] for d in c.classes[0])
        return next(((lo, hi) for v, lo, hi in c.classes[1] if v == key), None)
    return value_hull(c)


def _exact_extremes(fact: HeadFact, coords: dict, joint: Joint | None) -> dict:
    """out dim → the hard values at which the head's output is exact (L-extreme-exact).  Under an average head a
    hard output v* that is the least (or greatest) value any key class carries means every maximal key carries
    v*; when, under every hard query value, each class carrying another value scores at least as high as each
    class carrying v*, no key carrying another value is visible at such a row (it would be maximal), so every
    visible key carries v* and the soft average, whatever its weights, is v* too — the query may be noisy.
    Needs the score's key dims and the value dims finite (classes), the value dims exact, and the query dims
    finite or bounded (the score difference is linear in the query: its least value over the query's joint
    values times the hull's corners is its least value over every query)."""
    head = fact.head
    if head.hard != "average" or fact.kind == "unsupported":
        return {}
    shadow = [t for t in head.score if not _row_shift(coords[t[1]])]
    values = sorted({v for _, v, _ in head.value})
    kdims = sorted({k for _, k, _ in shadow} | set(values))
    if any(coords[v].exact_unless != frozenset() for v in values):
        return {}
    krows = _joint_values(kdims, coords, joint)
    queries = _query_corners(sorted({q for q, _, _ in shadow}), coords, joint)
    if krows is None or queries is None or len(queries) * len(krows) ** 2 > MAX_COMBOS * 16:
        return {}
    outs = tuple(dict.fromkeys(o for o, _, _ in head.value))
    classes = [dict(zip(kdims, row)) for row in krows]
    carried = [_carried(head, outs, k) for k in classes]
    scores = [[sum((c * q[a] * k[b] for a, b, c in shadow), Fraction(0)) for k in classes] for q in queries]
    exact: dict = {}
    for m, o in enumerate(outs):
        seen = {v[m] for v in carried}
        for target in {min(seen), max(seen)}:
            own = [k for k, v in enumerate(carried) if v[m] == target]
            other = [k for k, v in enumerate(carried) if v[m] != target]
            if all(s[a] >= s[b] for s in scores for a in other for b in own):
                exact.setdefault(o, set()).add(target)
    return {o: frozenset(v) for o, v in exact.items()}


def _query_corners(qdims: list[str], coords: dict, joint: Joint | None) -> list[dict] | None:
    """Query values whose convex hull holds every hard query: the joint values of the finite dims times the
    ends of the others' hulls; None when some dim has neither."""
    free = [d for d in qdims if coords[d].fin is None and (joint is None or d not in joint.dims)]
    ends = [value_hull(coords[d]) for d in free]
    rows = _joint_values([d for d in qdims if d not in free], coords, joint)
    if rows is None or any(e is None for e in ends) or len(rows) * 2 ** len(free) > MAX_COMBOS:
        return None
    fixed = [d for d in qdims if d not in free]
    return [{**dict(zip(fixed, row)), **dict(zip(free, corner))} for row in rows for corner in itertools.product(*ends)]


def _same_maxima_everywhere(head: Head, coords: dict, joint: Joint | None) -> bool:
    """L-word-constant (a): a head that sees every key from every row, whose score orders the key classes
    alike under every query value (each pair's difference keeps its sign), has one set of maxima at every
    row of a word, so one output (a function of that set's values; ties at one position broken alike)."""
    if head.visible != "all":
        return False
    split = _class_and_position_dims(head, coords)
    if split is None or split[3] or split[4]:
        return False
    shadow, _, fdims, _, _ = split
    qdims = sorted({q for q, _, _ in shadow})
    qrows, krows = _joint_values(qdims, coords, joint), _joint_values(fdims, coords, joint)
    if qrows is None or krows is None or len(qrows) * len(krows) ** 2 > MAX_COMBOS * 16:
        return False
    classes = [dict(zip(fdims, row)) for row in krows]
    orders = set()
    for qc in qrows:
        scores = _class_scores(shadow, fdims, classes, dict(zip(qdims, qc)))[1]
        orders.add(tuple((a > b) - (a < b) for a, b in itertools.combinations(scores, 2)))
    return len(orders) <= 1


def _first_key_alone(head: Head, coords: dict, joint: Joint | None, first: int) -> bool:
    """L-word-constant (e): a head that sees the first key from every row (j ≤ i, or every key), where under every
    query value P_q falls from that key by more than the spread s of the class scores F_q (every difference
    quotient of P_q below −s, :func:`_quotient_signs`), has that key alone as the maximum at every row of a word:
    one hard output there (the key's value)."""
    if head.visible not in ("all", "j<=i"):
        return False
    table = _query_table(head, coords, joint)
    if table is None or table[9]:
        return False
    qdims, qrows, shadow, fdims, pdims, classes = table[:6]
    for qc in qrows:
        weight, scores = _class_scores(shadow, fdims, classes, dict(zip(qdims, qc)))
        position = [(weight[d], coords[d].pe) for d in pdims if weight[d]]
        if not position or -1 not in _quotient_signs(max(scores) - min(scores), _position_sum(position), first):
            return False
    return True


def _mean_hull(values: tuple | None, empty: bool) -> tuple | None:
    """A head's output is a mean of visible keys' values (in their hull), or 0 on a row that sees no key."""
    if values is None or not empty:
        return values
    return min(values[0], Fraction(0)), max(values[1], Fraction(0))


def _key_den_bound(val: Coord, visible: str, first: int) -> Expr | None:
    """A bound on the denominator of any visible key's value when its grid G(j, n) varies with the key
    position (prefix means d_j ∈ Z/j): G affine in j with a positive constant slope and G(first, n) > 0
    for every n is positive and largest at the last visible key, so value·G(j) ∈ Z gives a denominator
    ≤ G(i, n) (causal rows) or G(n, n)."""
    g = integral_grid(val)
    parts = None if g is None else affine_in(g, "i")
    if parts is None:
        return None
    slope = simplified(parts[0], ("n",))
    if not (isinstance(slope, Num) and slope.value > 0 and _holds(substitute(g, "i", Num(Fraction(first))))):
        return None
    return simplified(substitute(g, "i", Var("i" if visible in ("j<=i", "j<i") else "n")))


def maxima_outputs(head: Head, coords: dict, joint: Joint | None, first: int,
                   table: tuple | None = None) -> tuple[dict, dict]:
    """(out dim → every value an average-hard head can output, when finitely many (L-maxima-classes);
    out dim → (points, families) when some level of maxima mixes the BOS key with keys of one other
    value (L-bos-level: the mean of b and m copies of v is v + (b − v)/(m + 1))).

    Per joint query value q the score of key j is F_q(class of j) + P_q(j): F_q reads the key's
    finite-valued dims (its *class*, which also fixes the value the key carries), P_q the
    position-embedded ones.  With P_q ≡ 0 the maximal keys form one level of F_q (never one below the
    BOS key's when BOS is visible from every non-empty row); when every class on that level carries
    one value, that value is the output.  With P_q injective in the key position,
    two keys with equal F_q never tie (their P_q differ), so the maxima hold at most one key per value
    f of F_q, carrying one of the values V(f) of the classes with F_q = f: the output is the mean of
    one value from V(f) for each f of a non-empty set of levels that may tie pairwise
    (:func:`never_tie`).  Anything else (a query or key dim
    neither finite nor position-embedded, P_q not injective, a level with mixed values): {}.
    ``table`` is the head's :func:`_query_table` when the caller has built it (built here otherwise)."""
    return _split(_maxima_values(head, coords, joint, first,
                                 _query_table(head, coords, joint) if table is None else table))


def _split(found: tuple | None) -> tuple[dict, dict]:
    """(out dim → finite value set, out dim → harmonic description) from :func:`_maxima_values`: the
    first when no level mixes BOS with one other value, the second when one does; both {} when unknown."""
    if found is None:
        return {}, {}
    points, families, outs = found
    if not families:
        return {o: frozenset(v[t] for v in points) for t, o in enumerate(outs)}, {}
    return {}, {o: (frozenset(p[t] for p in points), frozenset((v[t], d[t]) for v, d in families))
                for t, o in enumerate(outs)}


def _maxima_values(head: Head, coords: dict, joint: Joint | None, first: int, table: tuple | None) -> tuple | None:
    """(point value vectors, families (v, d) of vectors, out dims) over every query, or None; when the
    query values are not known (no ``table``, the head's :func:`_query_table`), :func:`_one_key_per_class`."""
    if table is None:
        return _one_key_per_class(head, coords, joint)
    points: set = set()
    families: set = set()
    for _, means in _row_means(head, coords, first, table, joint):
        if means is None:
            return _one_key_per_class(head, coords, joint)
        points.update(means[0])
        families.update(means[1])
    if not points | families or len(points) + len(families) > MAX_FIN:
        return None
    return points, families, table[8]


def _one_key_per_class(head: Head, coords: dict, joint: Joint | None) -> tuple | None:
    """L-maxima-classes (a) without the class scores: when the position part P_q of every row's score is
    injective in the key position (its query weights finite-valued and never all 0), two keys of one class
    never tie, whatever the class scores F_q are (a query known only by its range, say), so the maxima hold
    at most one key per class and the output is the mean of the values of a non-empty set of classes, each
    counted once."""
    split = _class_and_position_dims(head, coords)
    if split is None or not split[3] or split[4]:
        return None
    shadow, outs, fdims, pdims, _ = split
    pq = sorted({q for q, k, _ in shadow if k in pdims})
    prows, krows = _joint_values(pq, coords, joint), _joint_values(fdims, coords, joint)
    if prows is None or krows is None:
        return None
    for qc in prows:
        weight = _class_scores([t for t in shadow if t[1] in pdims], [], [], dict(zip(pq, qc)))[0]
        position = [(weight[d], coords[d].pe) for d in pdims if weight[d]]
        if not position or not _injective_in_position(position):
            return None
    counts: dict = {}
    for row in krows:
        v = _carried(head, outs, dict(zip(fdims, row)))
        counts[v] = counts.get(v, 0) + 1
    values = sorted(counts.items())
    if prod(m + 1 for _, m in values) > MAX_FIN:
        return None
    points = {tuple(sum((p * v[t] for p, (v, _) in zip(picks, values)), Fraction(0)) / sum(picks) for t in range(len(outs)))
              for picks in itertools.product(*(range(m + 1) for _, m in values)) if any(picks)}
    return points, set(), outs


def _query_rows(head: Head, table: tuple, joint: Joint | None):
    """(the symbol row or None, query values, the class of the row's own key or None, whether the row sees that
    key alone) for every kind of row: per symbol row of the joint when it tracks the query and class dims (the
    own key known when the row sees it, so the maximum is at least that key's score; the BOS row under j<=i
    sees only itself), else per joint query value with the own class unknown."""
    qdims, qrows, fdims, classes = table[0], table[1], table[3], table[5]
    if joint is None or not set(qdims) | set(fdims) <= set(joint.dims):
        yield from ((None, dict(zip(qdims, qc)), None, False) for qc in qrows)
        return
    at = {d: joint.dims.index(d) for d in set(qdims) | set(fdims)}
    sees = head.visible in ("all", "j<=i", "j>=i")
    for row in sorted(joint.rows):
        mine = [k for k, c in enumerate(classes) if all(c[d] == row[at[d]] for d in fdims)]
        own = mine[0] if len(mine) == 1 and sees else None
        bos_row = row not in joint.inputs
        yield row, {d: row[at[d]] for d in qdims}, own, bos_row and head.visible == "j<=i" and own is not None


def _row_means(head: Head, coords: dict, first: int, table: tuple, joint: Joint | None):
    """(the symbol row or None, what :func:`_query_means` proves there) for every row of :func:`_query_rows`; rows
    alike in query values, own class and whether they see it alone (a j<i head's rows repeat them) are worked out
    once."""
    seen: dict = {}
    for row, q, own, alone in _query_rows(head, table, joint):
        key = (tuple(q.values()), own, alone)
        if key not in seen:
            seen[key] = ({table[6][own]}, set()) if alone else _query_means(head, coords, first, table, q, own)
        yield row, seen[key]


def _class_and_position_dims(head: Head, coords: dict) -> tuple | None:
    """(score terms left after row constants, out dims, finite key dims (a key's class, with the value dims),
    position key dims, key dims known by their hulls only) of an average head, or None when a key dim is
    neither finite, nor a position embedding, nor of a known hull."""
    shadow = [t for t in head.score if not _row_shift(coords[t[1]])]
    outs = tuple(dict.fromkeys(o for o, _, _ in head.value))
    fdims = sorted({k for _, k, _ in shadow if coords[k].fin is not None} | {v for _, v, _ in head.value})
    pdims = sorted({k for _, k, _ in shadow if coords[k].fin is None and coords[k].pe is not None})
    hdims = sorted({k for _, k, _ in shadow if coords[k].fin is None and coords[k].pe is None})
    if head.hard != "average" or any(value_hull(coords[k]) is None for k in hdims) or set(pdims + hdims) & set(fdims):
        return None
    return shadow, outs, fdims, pdims, hdims


def _key_pairs(head: Head, outs: tuple, kdims: list, krows, scored: list) -> tuple:
    """All a key row brings to a query's levels, each distinct one once: (D, the distinct carried value vectors,
    the distinct (D·values of the scored key dims ``scored`` — 0 where a row lacks one —, index of its carried
    vector)) over the joint key rows ``krows`` of ``kdims``, D the least common denominator of those values."""
    found = set()
    for kc in krows:
        k = dict(zip(kdims, kc))
        found.add((tuple(k.get(b, Fraction(0)) for b in scored), _carried(head, outs, k)))
    den = lcm(*(x.denominator for k, _ in found for x in k))
    vectors = sorted({c for _, c in found})
    index = {c: m for m, c in enumerate(vectors)}
    return den, vectors, {(tuple(x.numerator * (den // x.denominator) for x in k), index[c]) for k, c in found}


def _levels(keys: tuple, weights: list) -> dict:
    """Score level → the carried vectors of the keys on it, the score Σ w·k[t] over ``weights`` (t, w) of each key
    of :func:`_key_pairs`, worked out in integers over one common denominator (exact; a tracr head brings
    thousands of keys to each of a thousand queries, issue 13's speed)."""
    den, vectors, pairs = keys
    wden = lcm(*(w.denominator for _, w in weights))
    ints = [(t, w.numerator * (wden // w.denominator)) for t, w in weights]
    levels: dict = {}
    for k, c in pairs:
        levels.setdefault(sum(w * k[t] for t, w in ints), set()).add(c)
    return {Fraction(s, den * wden): {vectors[c] for c in cs} for s, cs in levels.items()}


def _carried(head: Head, outs: tuple, key: dict) -> tuple:
    """The value vector a key of these finite values adds: per out dim, the sum of the head's value terms."""
    return tuple(sum((c * key[v] for o2, v, c in head.value if o2 == o), Fraction(0)) for o in outs)


def _query_table(head: Head, coords: dict, joint: Joint | None, one_query: bool = False) -> tuple | None:
    """What :func:`_query_means` needs, shared by every query: (query dims, their joint values,
    score terms left after row constants, finite key dims, position key dims, key classes, the value
    each class carries, (the classes only the BOS key has, the query values only the BOS row has), out
    dims, key dims known by their hulls), or None when a dim is neither finite, position-embedded nor of a
    known hull.  ``one_query``: the caller knows the one query it asks about (the BOS row's), so the query dims
    need no finite joint values (they are then None)."""
    split = _class_and_position_dims(head, coords)
    if split is None:
        return None
    shadow, outs, fdims, pdims, hdims = split
    qdims = sorted({q for q, _, _ in shadow})
    qrows, krows = _joint_values(qdims, coords, joint), _joint_values(fdims, coords, joint)
    if qrows is None and not one_query or krows is None or len(qrows or (None,)) * len(krows) > MAX_COMBOS:
        return None
    classes = [dict(zip(fdims, row)) for row in krows]
    carried = [_carried(head, outs, k) for k in classes]
    only = joint.bos_only(fdims) if joint is not None else set()
    bos = _bos_only(classes, fdims, coords) | {k for k, row in enumerate(krows) if tuple(row) in only}
    bos_queries = joint.bos_only(qdims) if joint is not None else set()
    return qdims, qrows, shadow, fdims, pdims, classes, carried, (bos, bos_queries), outs, hdims


def _query_means(head: Head, coords: dict, first: int, table: tuple, q: dict, own: int | None = None) -> tuple | None:
    """(points, families) holding the output values of the head at rows whose query dims take the
    values ``q`` (see :func:`maxima_outputs`), or None when not known; ``own``: the class of the row's
    own key, when known."""
    qdims, _, shadow, fdims, pdims, classes, carried, (bos_classes, bos_queries), outs, hdims = table
    if first == 0 and head.visible == "j<i" and tuple(q[d] for d in qdims) in bos_queries:
        return {(Fraction(0),) * len(outs)}, set()  # the BOS row alone has these query values: it sees no key
    weight, scores = _class_scores(shadow, fdims, classes, q)
    if any(weight[d] for d in hdims):
        return _bos_above_hulls(head, coords, first, weight, fdims, pdims, hdims, scores, carried, bos_classes)
    position = [(weight[d], coords[d].pe) for d in pdims if weight[d]]
    levels: dict = {}
    if not position:  # the maxima are one level of F_q: one value there, or nothing is known
        floor = _bos_score(weight, fdims, coords, head.visible, first)
        bos = bos_classes if floor is not None else set()
        if own is not None and head.visible in ("all", "j<=i", "j>=i"):  # the row sees its own key
            floor = scores[own] if floor is None else max(floor, scores[own])
        for k, (s, v) in enumerate(zip(scores, carried)):
            if floor is None or s >= floor:  # a level below the ever-visible BOS key is never maximal
                levels.setdefault(s, {})[k] = v
        points, families = set(), set()
        for level in levels.values():
            values, others = set(level.values()), {v for k, v in level.items() if k not in bos}
            if len(values) == 1:
                points.update(values)
            elif len(others) == 1 and len(values) == 2:  # the BOS key (always visible) and m keys valued v
                (v,), (b,) = others, values - others
                families.add((v, tuple(x - y for x, y in zip(b, v))))
            else:
                return None
        return points, families
    if not _injective_in_position(position):
        return None
    floor = _bos_score(weight, fdims, coords, head.visible, first)
    falls = _monotone(position, at_zero=True) if floor is not None else None
    rises = _monotone(position, at_zero=False) if own is not None and head.visible == "j<=i" else None
    hulls = [(weight[d], value_hull(coords[d])) for d in pdims if weight[d]]
    width = None if own is None or head.visible not in ("all", "j<=i", "j>=i") or any(h is None for _, h in hulls) \
        else sum((abs(w) * (h[1] - h[0]) for w, h in hulls), Fraction(0))
    pe = _position_sum(position)
    for k, (s, v) in enumerate(zip(scores, carried)):
        if width is not None and s < scores[own] - width:
            continue  # below the row's own (visible) key wherever the keys sit: F_k + max P < F_own + min P
        if falls is not None and falls[0] < 0 and (s < floor or s == floor and falls[1] and not _may_be_bos(
                classes[k], coords)):
            continue  # every key j ≥ 1 of this class scores below the ever-visible BOS key: P(j) ≤ P(0)
        if rises is not None and rises[0] > 0 and (s < scores[own] or s == scores[own] and rises[1] and k != own):
            continue  # every other key j < i of this class scores below the row's own key: P(j) ≤ P(i)
        if own is not None and head.visible in ("all", "j<=i", "j>=i") and s < scores[own] and \
                spread_below(scores[own] - s, pe, head.visible, first):
            continue  # the position term never makes up F_own − F_k between two keys the row sees
        levels.setdefault(s, set()).add(v)
    apart = {(f, g) for f, g in itertools.combinations(sorted(levels), 2) if never_tie(g - f, pe, head.visible, first)}
    means = _one_per_level_means(levels, apart, len(outs))
    return None if means is None else (set(means), set())


def _bos_above_hulls(head: Head, coords: dict, first: int, weight: dict, fdims: list, pdims: list, hdims: list,
                     scores: list, carried: list, bos_classes: set) -> tuple | None:
    """L-value-classes (a) with keys known by their hulls: the BOS key (visible from every non-empty row, its
    values known) scores f_B exactly; a key of class c scores at most F_q(c) + Σ max(w·lo, w·hi) over the hull
    dims.  When every class but those only the BOS key has stays below f_B, the BOS key is the maximum alone:
    its value, or None."""
    floor = _bos_score(weight, fdims + hdims, coords, head.visible, first)
    if floor is None or any(weight[d] for d in pdims):
        return None
    reach = sum((max(weight[d] * x for x in value_hull(coords[d])) for d in hdims), Fraction(0))
    top = {k for k, s in enumerate(scores) if s + reach >= floor}
    return ({carried[k] for k in top}, set()) if top <= bos_classes else None


def _class_scores(shadow, fdims: list, classes: list, q: dict) -> tuple[dict, list]:
    """(each key dim's weight at the query values q, F_q of every key class)."""
    weight: dict = {}
    for a, b, c in shadow:
        weight[b] = weight.get(b, Fraction(0)) + c * q[a]
    return weight, [sum((weight[d] * k[d] for d in fdims if d in weight), Fraction(0)) for k in classes]


def _maxima_one_value(head: Head, coords: dict, joint: Joint | None, first: int) -> bool:
    """L-maxima-classes for a leftmost/rightmost head: at every query value the maximal keys carry one value
    (so soft attention, which averages them, agrees with the one the hard rule picks).  Scores F_q(class) +
    P_q(j): with P_q ≡ 0 every level of F_q carries one value; with P_q injective a level holds at most one
    maximal key, so every pair of levels that may tie (:func:`never_tie`) must carry one common value."""
    table = _query_table(replace(head, hard="average"), coords, joint)
    if table is None:
        return False
    qdims, qrows, shadow, fdims, pdims, classes, carried = table[:7]
    if table[9]:
        return False
    for qc in qrows:
        weight, scores = _class_scores(shadow, fdims, classes, dict(zip(qdims, qc)))
        levels: dict = {}
        for f, v in zip(scores, carried):
            levels.setdefault(f, set()).add(v)
        position = [(weight[d], coords[d].pe) for d in pdims if weight[d]]
        if not position:
            if any(len(vs) > 1 for vs in levels.values()):
                return False
            continue
        pe = _position_sum(position)
        if not _injective_in_position(position) or any(
                not (levels[f] == levels[g] and len(levels[f]) == 1) and not never_tie(g - f, pe, head.visible, first)
                for f, g in itertools.combinations(sorted(levels), 2)):
            return False
    return True


def harmonic_distance(spread: tuple, threshold: Fraction, off: bool = False) -> Fraction:
    """inf |y − θ| over y ∈ points ∪ {v + d/k : k ≥ 1} (``off``: over the y ≠ θ only): k ↦ v + d/k is monotone
    (L-bos-level (b)), so per family the infimum is at k = 1, at the integers next to the crossing
    k* = d/(θ − v) (k* ± 1 when y = θ there and ``off``), or the limit |v − θ|."""
    points, families = spread
    best = [abs(p - threshold) for p in points if not (off and p == threshold)]
    for v, d in families:
        best.append(abs(v - threshold))
        ks = {1}
        if threshold != v and d / (threshold - v) >= 1:
            star = d / (threshold - v)
            low, high = star.numerator // star.denominator, -(-star.numerator // star.denominator)
            ks |= {low, high} | ({low - 1, high + 1} if off else set())
        best.extend(y for y in (abs(v + d / k - threshold) for k in ks if k >= 1) if not (off and y == 0))
    return min(best, default=Fraction(0))


def _bos_only(classes: list, fdims: list, coords: dict) -> set:
    """Indices of the key classes only the BOS key has: some dim's BOS value is none of its values
    at input rows."""
    marks = [(d, coords[d].at_bos) for d in fdims
             if coords[d].rest is not None and coords[d].at_bos is not None and coords[d].at_bos not in coords[d].rest]
    return {k for k, c in enumerate(classes) if any(c[d] == b for d, b in marks)}


def _means_known(fact: HeadFact, coords: dict, first: int, joint: Joint | None) -> str:
    """The lemma by which :func:`attention_coords` knows this head's output values, if it does: a finite
    set or a BOS level's family (:func:`maxima_outputs`)."""
    if fact.kind in ("uniform", "unsupported") or fact.head.hard != "average":
        return ""
    found = _maxima_values(fact.head, coords, joint, first, _query_table(fact.head, coords, joint))
    return "" if found is None else "L-bos-level" if found[1] else "L-maxima-classes"


def _injective_in_position(terms) -> bool:
    """Whether P(j) = Σ w·pe(j) takes a different value at every two key positions j ≠ k ≥ 0:
    (P(j) − P(k))/(j − k) = N/D in lowest terms with N a non-zero constant, or N's coefficients all
    of one sign with a monomial n^c alone or both a monomial in (j, n) and one in (k, n) — then N ≠ 0
    at j ≠ k ≥ 0, n ≥ 1, and D ≠ 0 wherever the embedding is defined."""
    quotient = _difference_quotient(terms)
    if quotient is None or quotient[0].is_zero():
        return False
    num = quotient[0]
    if num.is_constant():
        return True
    terms = list(num.terms())
    signs = {c > 0 for _, c in terms}
    only_n = any(e[0] == 0 and e[1] == 0 for e, _ in terms)
    pure_j = any(e[0] > 0 and e[1] == 0 for e, _ in terms)
    pure_k = any(e[1] > 0 and e[0] == 0 for e, _ in terms)
    return len(signs) == 1 and (only_n or pure_j and pure_k)


def _difference_quotient(terms):
    """(P(j) − P(k))/(j − k) = N/D in lowest terms over (j, k, n) for P = Σ w·pe, or None (also for
    (-1)^i next to i: not a rational function of the position)."""
    score = _position_sum(terms)
    try:
        return normal_form(BinOp("/", BinOp("-", score, substitute(score, "i", Var("k"))),
                                 BinOp("-", Var("i"), Var("k"))), ("i", "k", "n"))
    except ExprError:
        return None


def _may_be_bos(values: dict, coords: dict) -> bool:
    """Whether the BOS key may have these values (none differs from a known BOS value)."""
    return all(coords[d].at_bos is None or coords[d].at_bos == v for d, v in values.items())


def _monotone(terms, at_zero: bool) -> tuple[int, bool] | None:
    """(sign, strict) with sign·(P(j) − P(k)) ≥ 0 for every key positions j > k ≥ 0 (every n ≥ 1), or None;
    ``at_zero``: for k = 0 only.  Proved from (P(j) − P(k))/(j − k) = N/D with N's coefficients of one sign
    and D's of one sign (each variable is ≥ 0), D ≠ 0 by a monomial in n alone (k-free at k = 0); strict
    when N has such a monomial too."""
    quotient = _difference_quotient(terms)
    if quotient is None or quotient[0].is_zero():
        return None
    signs = [{c > 0 for _, c in p.terms()} for p in quotient]
    nonzero = [any(e[1] == 0 and (at_zero or e[0] == 0) for e, _ in p.terms()) for p in quotient]
    if any(len(s) != 1 for s in signs) or not nonzero[1]:
        return None
    return (1 if signs[0] == signs[1] else -1), nonzero[0]


def _bos_score(weight: dict, fdims: list, coords: dict, visible: str, first: int) -> Fraction | None:
    """F_q of the BOS key when it is visible from every non-empty row and its values are known."""
    if first != 0 or visible not in ("all", "j<=i", "j<i"):
        return None
    read = [d for d in fdims if weight.get(d)]
    if any(coords[d].at_bos is None for d in read):
        return None
    return sum((weight[d] * coords[d].at_bos for d in read), Fraction(0))


def _position_sum(terms) -> Expr:
    score: Expr = Num(Fraction(0))
    for w, pe in terms:
        score = BinOp("+", score, BinOp("*", Num(w), pe))
    return score


def _holds(e: Expr, strict: bool = True) -> bool:
    """e > 0 (or e ≥ 0) at every n ≥ 1, proved exactly (e free of i)."""
    e = simplified(e, ("n",))
    if "i" in variables_of(e):
        return False
    if strict:
        return positive_from(e, 1)
    try:  # ≥ 0: identically 0, or ≥ 0 at n = 1 and > 0 beyond
        return is_zero(e, ("n",)) or positive_from(e, 2) and eval_exact(e, {"n": 1}) >= 0
    except (ExprError, ZeroDivisionError):
        return False


def never_tie(delta: Fraction, pe: Expr, visible: str, first: int) -> bool:
    """Whether two visible keys j, j' can never have P(j') − P(j) = delta ≠ 0 (for every n ≥ 1), proved
    exactly: P affine in the position with a constant slope s and delta/s not an integer (L-maxima-classes (d):
    a step of s between keys never makes delta); or every |P(j) − P(j')| below |delta| (:func:`spread_below`,
    (b), (c)); or difference quotients all larger than |delta| (:func:`_quotient_signs`, (e): P = j² at first = 1
    moves by j + k ≥ 3 per key)."""
    line = affine_in(pe, "i")
    if line is not None:
        steps = simplified(BinOp("/", Num(delta), line[0]))
        if isinstance(steps, Num) and steps.value.denominator != 1:
            return True  # P(j) − P(j') = σ·(j − j') with σ free of n: δ/σ must be an integer j − j'
    return spread_below(delta, pe, visible, first) or bool(_quotient_signs(delta, pe, first))


def spread_below(delta: Fraction, pe: Expr, visible: str, first: int) -> bool:
    """|P(j) − P(j')| < |delta| for every two keys one row sees (every n ≥ 1), proved exactly: P affine in the
    position with slope s(n) and |delta/s| > the key distance at both end rows (:func:`apart_ends`, each end
    positive for every n; L-maxima-classes (b)), or 1/P affine with one strict sign at both ends, so that
    |P(j) − P(j')| < max |P| = |P| at an end row ≤ |delta| ((c))."""
    line = affine_in(pe, "i")
    if line is not None:
        return always_apart(BinOp("/", Num(delta), line[0]), visible, first)
    inverse = affine_in(BinOp("/", Num(Fraction(1)), pe), "i")
    if inverse is None:
        return False
    ends = [substitute(BinOp("/", Num(Fraction(1)), pe), "i", row) for row in (Num(Fraction(first)), Var("n"))]
    for sign in (1, -1):
        if all(_holds(BinOp("*", Num(Fraction(sign)), e)) for e in ends):
            return all(_holds(BinOp("-", BinOp("*", Num(abs(delta) * sign), e), Num(Fraction(1))), strict=False)
                       for e in ends)
    return False


def _quotient_signs(delta: Fraction, pe: Expr, first: int) -> set:
    """The signs s with s·(P(j) − P(k))/(j − k) > |delta| at every two key positions j ≠ k ≥ ``first``, n ≥ 1.
    Proved on the quotient N/D at offsets a = j − first, b = k − first (:func:`_off_diagonal_positive`):
    s_D·D > 0 and s·s_D·N − |delta|·s_D·D > 0."""
    try:
        shifted = substitute(pe, "i", BinOp("+", Var("i"), Num(Fraction(first))))
    except ExprError:  # (-1)^i: not a rational function of the position
        return set()
    quotient = _difference_quotient([(Fraction(1), shifted)])
    if quotient is None:
        return set()
    num, den = quotient
    far = fmpq(abs(delta).numerator, abs(delta).denominator)
    return {sn for sd in (1, -1) if _off_diagonal_positive(sd * den) for sn in (1, -1)
            if _off_diagonal_positive(sn * sd * num - far * sd * den)}


def _off_diagonal_positive(p) -> bool:
    """p(a, b, n) > 0 at all integers a, b ≥ 0 with a ≠ b and n ≥ 1, shown coefficient-wise: every coefficient but
    the constant is ≥ 0, so with a ≥ 1 each monomial free of b is ≥ its coefficient and the others ≥ 0 (b ≥ 1 alike);
    the sums of the coefficients of the b-free and of the a-free monomials are > 0."""
    terms = list(p.terms())
    if any(c < 0 for e, c in terms if any(e)):
        return False
    return all(sum((c for e, c in terms if e[other] == 0), fmpq(0)) > 0 for other in (0, 1))


def _one_per_level_means(levels: dict, apart: set, width: int) -> frozenset | None:
    """Every mean over a non-empty set of pairwise not-``apart`` levels of one value vector from
    each level's set."""
    order = sorted(levels)
    states = {((Fraction(0),) * width, 0, ())}
    for f in order:
        states |= {(tuple(a + b for a, b in zip(total, v)), count + 1, chosen + (f,))
                   for total, count, chosen in states if not any((g, f) in apart for g in chosen) for v in levels[f]}
        if len(states) > MAX_FIN:
            return None
    return frozenset(tuple(x / count for x in total) for total, count, _ in states if count)


def _bos_value_or_set(values: frozenset | None) -> tuple:
    """(at_bos, bos_fin): one BOS-row value as at_bos, several as the set bos_fin."""
    if not values:
        return None, None
    return (next(iter(values)), None) if len(values) == 1 else (None, values)


def bos_values(c: Coord) -> frozenset | None:
    """The values a coordinate may hold at the BOS row (None: not known)."""
    return frozenset({c.at_bos}) if c.at_bos is not None else c.bos_fin


def _bos_row_output(visible: str, first: int, val: Coord) -> Fraction | None:
    """The head's hard output at the BOS row: it sees no key under j<i (adds 0) and only itself under j<=i."""
    if first != 0:
        return None
    return Fraction(0) if visible == "j<i" else val.at_bos if visible == "j<=i" else None


def _bos_row_means(head: Head, coords: dict, joint: Joint | None, first: int) -> dict:
    """out dim → the hard outputs an average head seeing every key may have at the BOS row (a finite set): the
    means of the levels that may be maximal there, L-maxima-classes at the BOS row's own query values, its own
    key (the BOS key, of a known class) visible (:func:`_query_means`); {} when not known."""
    if first != 0 or head.visible not in ("all", "j>=i") or head.hard != "average":
        return {}
    table = _query_table(head, coords, joint, one_query=True)
    if table is None:
        return {}
    qdims, fdims, classes, outs = table[0], table[3], table[5], table[8]
    q, bos = {d: coords[d].at_bos for d in qdims}, {d: coords[d].at_bos for d in fdims}
    own = [k for k, c in enumerate(classes) if c == bos]
    if None in q.values() or len(own) != 1:
        return {}
    found = _query_means(head, coords, first, table, q, own[0])
    if found is None or found[1] or not found[0]:
        return {}
    return {o: frozenset(v[t] for v in found[0]) for t, o in enumerate(outs)}


def _noisy_outputs(fact: HeadFact, coords: dict, joint: Joint | None, first: int, nearest: bool = False) -> tuple:
    """(out dim → the values the head adds at rows where its soft output may differ from the hard one (None:
    not finitely many), out dim → spans (lo, hi, side) holding every such row's value, side −1: soft ≤ hard
    there, +1: soft ≥ hard, 0: unknown, out dim → the conditions on τ those sides need (L-nearest-level)).

    With every score and value input exact, a row whose visible scores are all equal is exact
    under an average head (softmax of equal scores is the uniform average, for every τ). So, per
    joint query value: a score that ignores the key is exact on its rows; otherwise the rows whose
    maximum is the lowest level are exact too (every visible key sits on it), and a non-exact row
    carries the value of its maximal level — one value when that level's keys agree — or, when the
    score reads a position-embedded key dim, one of the maxima's means (:func:`_query_means`).  A key dim
    that may be inexact (and no query or value dim) makes inexact only the rows of queries that weigh it;
    there too the soft average stays in the hull of the values the row's levels carry (L-one-sided)."""
    head = fact.head
    outs = _value_table(head, coords)
    # a term whose key is one value at every key in hard shifts the whole row alike; when it is one in soft too
    # (exact, or L-word-constant (d)) neither its query nor its key matters, else its key must be exact
    reads = {d for q, k, _ in head.score for d in (() if _soft_shift(coords[k]) else (k,) if _row_shift(coords[k])
                                                  else (q, k))} | {v for _, v, _ in head.value}
    shadow = [t for t in head.score if not _row_shift(coords[t[1]])]
    # a query dim exact off its exact_unless values leaves the rows with other query values as they were
    loose = [d for d in reads if coords[d].exact_unless != frozenset()]
    only_query = {q for q, _, _ in shadow} - {k for _, k, _ in shadow} - {v for _, v, _ in head.value}
    # a noisy key dim (read by no query nor value) moves a row's soft weights only where the query weighs it
    only_key = {k for _, k, _ in shadow} - {q for q, _, _ in shadow} - {v for _, v, _ in head.value}
    noisy_keys = [d for d in loose if d in only_key]
    loose = [d for d in loose if d not in only_key]
    if fact.kind == "unsupported" or any(d not in only_query or coords[d].exact_unless is None and not coords[d].exact_at
                                         for d in loose) or (loose or noisy_keys) and head.hard != "average":
        return {}, {}, {}
    if head.hard != "average":  # the hard output is one key's value; soft averages ties: no exact rows
        return {o: c.fin for o, c in outs.items()}, {}, {}
    if fact.kind == "uniform":  # equal hard scores; with a noisy query (a factor always 0, say) soft may differ
        return ({}, {}, {}) if loose else ({o: frozenset() for o in outs}, {}, {})
    qdims = sorted({q for q, _, _ in shadow})
    kdims = sorted({k for _, k, _ in shadow} | {v for _, v, _ in head.value})
    qrows = _joint_values(qdims, coords, joint)
    krows = _joint_values(kdims, coords, joint)
    fallback = {o: c.fin if fact.homogeneous else None for o, c in outs.items()}
    if qrows is None:
        queries = _query_regions(qdims, shadow, kdims, krows, coords, joint)
        if queries is None:
            return (_scaled_position(shadow, outs, coords) if all(_exact_at(coords[d], Fraction(0)) for d in loose)
                    else None) or fallback, {}, {}
    else:
        queries = [(dict(zip(qdims, qc)), None) for qc in qrows]
    table = _query_table(head, coords, joint) if krows is None else None
    noisy = {o: set() for o in outs}
    spans = {o: set() for o in outs}
    needs: dict = {o: set() for o in outs}
    # L-nearest-level: the BOS key, seen from every non-empty row, when every key dim's value there is known
    bos_key = {d: coords[d].at_bos for d in kdims} if nearest and first == 0 and not (loose or noisy_keys) else {}
    bos_key = {} if None in bos_key.values() else bos_key
    mixed: set = set()  # out dims some level of several values writes: no finite noisy set
    scored = sorted({k for _, k, _ in shadow})
    # each distinct (scored key values, carried values) once: a key's level and value depend on nothing else
    keys = None if krows is None else _key_pairs(head, outs, kdims, krows, scored)
    for q, region in queries:
        # a noisy query: any output of q may be noisy; a region's representative stands for an open interval
        shaky = any(not _exact_at(coords[d], q[d]) if region is None or region[0] != d
                    else coords[d].exact_unless is None or any(region[1] < x < region[2] for x in coords[d].exact_unless)
                    for d in loose)
        coef: dict = {}
        for a, b, c in shadow:
            coef[b] = coef.get(b, Fraction(0)) + c * q[a]
        shaky = shaky or any(coef[d] for d in noisy_keys)  # the keys' errors reach the scores of these rows
        if not any(coef.values()):
            if not shaky:
                continue  # the score ignores the key: every such row is uniform, hence exact
            tilt = _tilt(head, outs, q, region, shadow, loose, coords, kdims, krows)
            if tilt is None:
                return fallback, {}, {}
            for o, span in tilt.items():  # the rows carry uniform means: no finite set
                spans[o].add(span)
                mixed.add(o)
            continue
        kr = keys
        if kr is None:  # a key dim this query weighs by 0 (a position, say) does not move its scores
            kd = sorted({b for b, w in coef.items() if w} | {v for _, v, _ in head.value})
            kr = None if (rows := _joint_values(kd, coords, joint)) is None else _key_pairs(head, outs, kd, rows, scored)
        if kr is None:  # a position-embedded key dim: the rows carry the maxima's means for q
            means = _query_means(head, coords, first, table, q) if table is not None else None
            if means is None or means[1]:
                return fallback, {}, {}
            for v in means[0]:
                for o, x in zip(outs, v):
                    noisy[o].add(x)
                    spans[o].add((x, x, 0))
            continue
        levels = _levels(kr, [(t, coef[b]) for t, b in enumerate(scored) if coef.get(b)])
        under: set = set()  # what the levels below s carry, gathered bottom up
        for step, s in enumerate(sorted(levels)):
            carried = levels[s]
            below, under = under, under | carried
            if step == 0 and not shaky:
                continue
            if len(carried) != 1 and shaky:  # the maxima's weights among themselves move with the query's error
                return fallback, {}, {}
            for m, o in enumerate(outs):
                top, lower = {c[m] for c in carried}, {c[m] for c in below}
                if len(top | lower) == 1:
                    continue  # every key the row may see carries one value: exact (L-one-sided)
                lo, hi = min(top), max(top)
                side = -1 if all(x <= lo for x in lower) else 1 if all(x >= hi for x in lower) else 0
                pulled = None if side or shaky or not bos_key else \
                    _nearest_level(s, lo, hi, {t: {c[m] for c in cs} for t, cs in levels.items() if t < s},
                                   sum((w * bos_key[b] for b, w in coef.items() if w), Fraction(0)),
                                   _carried(head, outs, bos_key)[m])
                if pulled is None:
                    spans[o].add((lo, hi, side))
                else:
                    spans[o].update(pulled[0])
                    needs[o].update(pulled[1])
                if len(top) > 1:
                    mixed.add(o)
                noisy[o].add(lo)
    return ({o: None if o in mixed else frozenset(v) for o, v in noisy.items()}, {o: frozenset(v) for o, v in spans.items()},
            {o: tuple(sorted(v)) for o, v in needs.items()})


def _nearest_level(s: Fraction, lo: Fraction, hi: Fraction, below: dict, bos_score: Fraction, b: Fraction) -> tuple | None:
    """L-nearest-level at a row whose maxima (score s) carry values in [lo, hi] and whose lower levels (score →
    values) hold mixed sides: the BOS key (score bos_score < s, value b ≤ lo) pulls the mean down once every key
    above the split c lies further below than BOS, (spans, needs) with needs (g₂ − g₁, r): e^{(g₂ − g₁)/τ} ≥
    (n + 1)·r, checked in every box.  c = lo when b < lo, else b + (hi − b)/NEAREST_SPLIT and [lo, c] stays
    undecided.  Mirrored for b ≥ hi (pulled up).  None when BOS is not below the maxima, b lies inside (lo, hi),
    or a key across the split is not further below than BOS."""
    if not bos_score < s or lo < b < hi or lo == hi == b:
        return None
    sign = -1 if b <= lo else 1  # −1: BOS below the maxima's values pulls down
    c = (lo if b < lo else b + (hi - b) / NEAREST_SPLIT) if sign < 0 else (hi if b > hi else b - (b - lo) / NEAREST_SPLIT)
    across = [(t, x) for t, xs in below.items() for x in xs if sign * (x - c) < 0]  # keys on the wrong side of c
    near = max((t for t, _ in across), default=None)  # the highest level holding one: g₂ = s − near
    if near is not None and near >= bos_score:
        return None
    decided = (c, hi, -1) if sign < 0 else (lo, c, 1)
    spans = {decided} | ({(lo, c, 0)} if sign < 0 and c > lo else {(c, hi, 0)} if sign > 0 and c < hi else set())
    if near is None:
        return spans, set()
    return spans, {(bos_score - near, max(abs(x - c) for _, x in across) / abs(c - b))}


def _tilt(head: Head, outs: tuple, q: dict, region, shadow: list, loose: list, coords: dict, kdims: list,
          krows: list | None) -> dict | None:
    """out dim → (lo, hi, side) for rows that are uniform in hard (the hard query weighs every key by 0) while one
    query dim d is noisy (L-one-sided): when d's hard value is the lower (upper) end of its soft hull, its error δ
    is ≥ 0 (≤ 0), so soft scores are δ·g(class) and the weights grow (shrink) with g; a value that falls as g
    rises then averages at most the uniform mean (Chebyshev's sum inequality), one that rises at least it.
    None when more than one dim is noisy, δ's sign or the key classes are unknown."""
    noisy = [d for d in loose if not _exact_at(coords[d], q[d]) or region is not None and region[0] == d]
    if len(noisy) != 1 or krows is None or len(krows) > MAX_TILT_CLASSES or (region is not None and region[0] == noisy[0]) \
            or coords[noisy[0]].soft is None:
        return None
    d, (lo, hi) = noisy[0], coords[noisy[0]].soft
    sign = 1 if q[d] == lo else -1 if q[d] == hi else 0
    if not sign:
        return None
    keys = [dict(zip(kdims, row)) for row in krows]
    g = [sum((c * k[b] for a, b, c in shadow if a == d), Fraction(0)) for k in keys]
    out = {}
    for m, o in enumerate(outs):
        v = [_carried(head, outs, k)[m] for k in keys]
        if len(set(v)) == 1 or len(set(g)) == 1:
            continue  # every key carries one value, or the error moves every score alike: exact
        pairs = [(v[a] - v[b]) * (g[a] - g[b]) for a in range(len(keys)) for b in range(a)]
        trend = -1 if all(p <= 0 for p in pairs) else 1 if all(p >= 0 for p in pairs) else 0
        out[o] = (min(v), max(v), trend * sign)
    return out


def _exact_at(c: Coord, x: Fraction) -> bool:
    """Soft = hard at every row whose hard value is x."""
    return x in c.exact_at or c.exact_unless is not None and x not in c.exact_unless


def _query_regions(qdims: list[str], shadow: list, kdims: list[str], krows: list | None, coords: dict,
                   joint: Joint | None) -> list | None:
    """Representative query values when one query dim h is known only by its hull [lo, hi] (the others
    finite): each class's score is α + β·h, so between consecutive cuts — the hull's ends, h's exact and
    non-exact values, and each h where two classes' scores cross — the order of the classes, their
    levels and the values the levels carry are those at the midpoint.  Returns (query, region) pairs:
    region None for a cut (the query exactly that value), (h, a, b) for the open interval (a, b)."""
    free = [d for d in qdims if coords[d].fin is None and (joint is None or d not in joint.dims)]
    if len(free) != 1 or krows is None or (hull := value_hull(coords[free[0]])) is None:
        return None
    h, (lo, hi) = free[0], hull
    fixed = [d for d in qdims if d != h]
    rows = _joint_values(fixed, coords, joint)
    if rows is None or len(rows) * len(krows) ** 2 > MAX_COMBOS * 16:
        return None
    keys = [dict(zip(kdims, row)) for row in krows]
    out = []
    for row in rows:
        q = dict(zip(fixed, row))
        lines = {(sum((c * q[a] * k[b] for a, b, c in shadow if a != h), Fraction(0)),
                  sum((c * k[b] for a, b, c in shadow if a == h), Fraction(0))) for k in keys}
        cuts = {lo, hi} | {x for x in coords[h].exact_at | (coords[h].exact_unless or frozenset()) if lo <= x <= hi}
        cuts |= {x for (a1, b1), (a2, b2) in itertools.combinations(lines, 2) if b1 != b2
                 for x in ((a2 - a1) / (b1 - b2),) if lo < x < hi}
        cuts = sorted(cuts)
        out += [({**q, h: x}, None) for x in cuts]
        out += [({**q, h: (x + y) / 2}, (h, x, y)) for x, y in zip(cuts, cuts[1:])]
    return out


def _scaled_position(shadow: list, outs: dict, coords: dict) -> dict | None:
    """The noisy values of a score w(i)·P(j), one query factor w known only by its value set (exact, or exact
    at least where it is 0) and P injective in the key position (L-maxima-classes (a)): a row with w = 0 scores
    every key 0 (uniform, exact), any other row has one maximal key, so it carries one key's value; None when
    the score is not of that form."""
    if len({q for q, _, _ in shadow}) != 1 or any(coords[k].pe is None or coords[k].fin is not None for _, k, _ in shadow) \
            or any(c.fin is None for c in outs.values()):
        return None
    if not _injective_in_position([(c, coords[k].pe) for _, k, c in shadow]):
        return None
    return {o: c.fin for o, c in outs.items()}


def _noisy_sum(old: Coord, contrib: Coord, noisy: frozenset | None) -> frozenset | None:
    """exact_unless of old + contrib: a sum is exact where both parts are, so its non-exact values
    are those with a non-exact part (the other part ranging over its value set)."""
    if old.exact_unless is None or noisy is None:
        return None
    parts = []
    if noisy:
        parts.append(_sums(old.fin, noisy))
    if old.exact_unless:
        parts.append(_sums(old.exact_unless, contrib.fin | {Fraction(0)} if contrib.fin is not None else None))
    if any(p is None for p in parts):
        return None
    return frozenset().union(*parts)


def _mean_values(values: frozenset, top: int) -> frozenset | None:
    """Every mean of m ≤ top values from ``values`` (repetition allowed): the output set of an
    average head over at most ``top`` keys (a bounded, v2 model), or None past MAX_MEANS."""
    out, sums = set(), {Fraction(0)}
    for m in range(1, top + 1):
        if len(sums) * len(values) > MAX_FIN:
            return None
        sums = {s + v for s in sums for v in values}
        out.update(s / m for s in sums)
        if len(out) > MAX_MEANS:
            return None
    return frozenset(out)


def _mean(val: Coord, visible: str, first: int) -> Coord:
    """Uniform average over U_i: value·|U_i|·L ∈ Z, shifted by the BOS key's share when BOS is
    always visible and its value alone is off the grid of the other keys (then the mean is ≠ 0)."""
    count = visible_count(visible, first)
    if first == 0 and visible in ("all", "j<=i") and val.rest is not None and val.at_bos is not None:
        lcm_rest = _den_lcm(val.rest)
        shift = val.at_bos * lcm_rest
        return Coord(grid=BinOp("*", Num(Fraction(lcm_rest)), count), offset=shift - (shift.numerator // shift.denominator))
    return Coord(grid=_times(integral_grid(val), count))  # Σ of |U| values each in (Z + o)/G: only integral


def _product_fits(sets) -> bool:
    """Whether the product of these value sets has at most MAX_COMBOS elements, decided from the
    sizes before anything is built: 46 binary key dims would otherwise ask for 2^46 tuples."""
    size = 1
    for s in sets:
        size *= len(s)
        if size > MAX_COMBOS:
            return False
    return True


def ffn_fact(layer_index: int, layer: FFNLayer, coords: dict, absorb: bool = False) -> FFNFact:
    dims = sorted({d for u in layer.units for d, _ in u.inputs + u.outputs})
    sets = [coords[d].fin for d in dims]
    combos = None
    if all(s is not None for s in sets) and _product_fits(sets):
        combos = tuple(itertools.product(*(sorted(s) for s in sets)))
    noisy = _noisy_combos(dims, coords)
    outs = sorted({d for u in layer.units for d, _ in u.outputs})
    absorbs = tuple(a for o in outs if absorb and (a := _absorbs(layer, o, coords)) is not None)
    pre, noisy_pre = _pre(layer, dims, combos), _pre(layer, dims, noisy)
    return FFNFact(layer_index, tuple(dims), combos, pre, noisy, noisy_pre, absorbs,
                   _writer_pre(layer, outs, pre), _writer_pre(layer, outs, noisy_pre))


def _writer_pre(layer: FFNLayer, outs: list, pres: tuple) -> tuple:
    """(out dim o, the distinct vectors of the pre-activations of the units writing o, in layer order) per o."""
    writers = {o: [k for k, u in enumerate(layer.units) if any(e == o for e, _ in u.outputs)] for o in outs}
    return tuple((o, frozenset(tuple(p[k] for k in ks) for p in pres)) for o, ks in writers.items())


def _soft_after_heads(layer: AttentionLayer, before: dict, after: dict, live: frozenset, k: int) -> dict:
    """Soft hulls after an attention layer: a head's soft output is a convex combination of its keys' value
    vectors (0 on an empty row), so each out dim lies in Σ c·[lo_x, hi_x] over its value terms, whatever τ."""
    add: dict = {}
    for h in layer.heads:
        for o in dict.fromkeys(o for o, _, _ in h.value):
            part = (Fraction(0), Fraction(0))
            for x, c in ((x, c) for o2, x, c in h.value if o2 == o):
                part = _hull_sum(part, _hull_scaled(before[x].soft, c))
            if part is not None and may_be_empty(h.visible):
                part = (min(part[0], Fraction(0)), max(part[1], Fraction(0)))
            add[o] = _hull_sum(add.get(o, before[o].soft), part if (k, h.name) in live else None)
    return {o: replace(after[o], soft=hull) for o, hull in add.items()}


def _absorbs(layer: FFNLayer, o: str, coords: dict) -> tuple | None:
    """L-ffn-absorb: (o, x, r) when the units writing o read one dim x, o itself is exact (or is x), and at each
    value v that x may take inexactly the output is flat on the sides of v that x's soft hull allows — the
    one-sided slope [o = x] + Σ c·a over units on (h > 0, or h = 0 opening that way) is 0 — up to the nearest
    other breakpoint, r = min |h/a| over units with h ≠ 0: an input error ≤ r then leaves o exactly hard."""
    units = [(u, c) for u in layer.units if (c := sum((c for e, c in u.outputs if e == o), Fraction(0)))]
    reads = {x for u, _ in units for x, _ in u.inputs}
    if len(reads) != 1 or not units:
        return None
    (x,) = reads
    noisy, hull = coords[x].exact_unless, coords[x].soft
    if not noisy or hull is None or (o != x and coords[o].exact_unless != frozenset()):
        return None
    r = hull[1] - hull[0]
    lines = [(sum((a for _, a in u.inputs), Fraction(0)), u.bias, c) for u, c in units]
    for v in noisy:
        for side, room in ((1, hull[1] - v), (-1, v - hull[0])):
            slope = Fraction(int(o == x)) + sum((c * a for a, b, c in lines if a * v + b > 0 or a * v + b == 0 and a * side > 0),
                                                Fraction(0))
            if room > 0 and slope != 0:
                return None
        r = min([r] + [abs((a * v + b) / a) for a, b, _ in lines if a and a * v + b])
    return (o, x, r) if r > 0 else None


def _one_input(layer: FFNLayer, o: str, coords: dict) -> tuple | None:
    """(x, f, slopes) when the units writing o read one dim x and o itself is exact (a constant, or x): o = f(x)
    row by row, and slopes(lo, hi) lists f's slope on each piece of [lo, hi]; None otherwise."""
    units = [(u, c) for u in layer.units if (c := sum((c for e, c in u.outputs if e == o), Fraction(0)))]
    reads = {x for u, _ in units for x, _ in u.inputs}
    if len(reads) != 1:
        return None
    (x,) = reads
    if o != x and (coords[o].exact_unless != frozenset() or coords[o].fin is None or len(coords[o].fin) != 1):
        return None
    base = Fraction(0) if o == x else next(iter(coords[o].fin))
    lines = [(sum((a for _, a in u.inputs), Fraction(0)), u.bias, c) for u, c in units]

    def f(v):
        return (v if o == x else base) + sum((c * max(a * v + b, Fraction(0)) for a, b, c in lines), Fraction(0))

    def cuts(lo, hi):
        return sorted({lo, hi} | {-b / a for a, b, _ in lines if a and lo < -b / a < hi})

    def slopes(lo, hi):
        points = cuts(lo, hi)
        return [Fraction(int(o == x)) + sum((c * a for a, b, c in lines if a * (p + q) / 2 + b > 0), Fraction(0))
                for p, q in zip(points, points[1:])]
    return x, f, slopes, cuts


def _kept_side(side: int, lo: Fraction, hi: Fraction, soft: tuple, slopes) -> int:
    """The side of f(x) against f(v) at rows with v in [lo, hi] and x on ``side`` of v within the soft hull:
    kept when f is non-decreasing over where x and v may lie, flipped when non-increasing, else 0."""
    if not side:
        return 0
    where = slopes(min(soft[0], lo), hi) if side < 0 else slopes(lo, max(soft[1], hi))
    return side if all(m >= 0 for m in where) else -side if all(m <= 0 for m in where) else 0


def _ffn_spans(layer: FFNLayer, o: str, coords: dict) -> tuple[tuple, tuple]:
    """An FFN o = f(x) (:func:`_one_input`) maps each span [lo, hi] of x onto f's range there (ends and
    breakpoints), keeping, flipping or losing its side (:func:`_kept_side`), with the conditions on τ the sides
    need (L-nearest-level); ((), ()) when x has no spans."""
    view = _one_input(layer, o, coords)
    if view is None or not coords[view[0]].spans or coords[view[0]].soft is None:
        return (), ()
    x, f, slopes, cuts = view
    out = set()
    for lo, hi, side in coords[x].spans:
        values = [f(p) for p in cuts(lo, hi)]
        out.add((min(values), max(values), _kept_side(side, lo, hi, coords[x].soft, slopes)))
    return frozenset(out), coords[x].needs


def span_margin(coord: Coord, threshold: Fraction) -> tuple[Fraction | None, bool] | None:
    """For an output known by spans: (least |y − θ| over the values of undecided rows that
    stay away from θ, or None when there are none; whether undecided rows may come arbitrarily close to θ
    from above, θ excluded — those need a separation such as a grid or a denominator bound).  Decided rows
    (L-one-sided): side −1 with y ≤ θ, side +1 with y > θ.  None when the output has no spans."""
    if not coord.spans:
        return None
    least, near = None, False
    for lo, hi, side in coord.spans:
        if side < 0:  # undecided: y in (θ, hi]
            if hi <= threshold:
                continue
            if lo <= threshold:
                near = True
                continue
            d = lo - threshold
        elif side > 0:  # undecided: y in [lo, θ]
            if lo > threshold:
                continue
            d = threshold - hi if hi < threshold else Fraction(0)
        else:
            d = Fraction(0) if lo <= threshold <= hi else min(abs(lo - threshold), abs(hi - threshold))
        least = d if least is None else min(least, d)
    return least, near


def _pre(layer: FFNLayer, dims: list[str], combos) -> tuple:
    """Each unit's exact pre-activation at every combination of input values."""
    return () if combos is None else tuple(
        tuple(sum((c * dict(zip(dims, combo))[d] for d, c in u.inputs), Fraction(0)) + u.bias for u in layer.units)
        for combo in combos)


def _noisy_combos(dims: list[str], coords: dict) -> tuple | None:
    """The joint input values at rows where some input may differ from hard (one input among its
    non-exact values, the others anywhere in their value sets); elsewhere every input, hence the
    FFN, is exact.  None when a set is unknown or the product too large."""
    if any(coords[d].exact_unless is None for d in dims):
        return None
    combos = set()
    for k, d in enumerate(dims):
        if not coords[d].exact_unless:
            continue
        parts = [coords[d].exact_unless if j == k else coords[e].fin for j, e in enumerate(dims)]
        if any(p is None for p in parts) or not _product_fits(parts):
            return None
        combos.update(itertools.product(*(sorted(p) for p in parts)))
    return tuple(sorted(combos))


def ffn_coords(layer: FFNLayer, coords: dict, fact: FFNFact, first: int) -> dict:
    new = dict(coords)
    outs = sorted({d for u in layer.units for d, _ in u.outputs})
    for d in outs:
        new[d] = _relu_grid(layer, coords, d, first)
        if (values := _length_flag(layer, coords, d)) is not None:
            new[d] = Coord(fin=values, grid=Num(Fraction(_den_lcm(values))))
    if fact.combos is not None:
        results = _ffn_values(layer, fact.dims, fact.combos, fact.pre, outs)
        for d in outs:
            if len(results[d]) <= MAX_FIN:
                new[d] = Coord(fin=frozenset(results[d]), grid=Num(Fraction(_den_lcm(results[d]))))
    elif (spread := _ffn_harmonic(layer, list(fact.dims), coords, outs)) is not None:
        for d in outs:
            new[d] = Coord(fin=spread[d][0], grid=Num(Fraction(_den_lcm(spread[d][0])))) if not spread[d][1] \
                else Coord(harmonic=spread[d])
    parts = [bos_values(coords[d]) for d in fact.dims]
    if None not in parts and _product_fits(parts):  # the BOS row's inputs are known (finitely): so is its output
        bos = tuple(itertools.product(*(sorted(p) for p in parts)))
        at_bos = _ffn_values(layer, fact.dims, bos, _pre(layer, list(fact.dims), bos), outs)
        for d in outs:
            value, values = _bos_value_or_set(frozenset(at_bos[d]))
            new[d] = replace(new[d], at_bos=value, bos_fin=values)
    for d in outs:
        if new[d].fin is None and new[d].harmonic is None and (apart := _relu_apart(layer, coords, d)) is not None:
            new[d] = replace(new[d], apart=apart)
        if new[d].fin is None and new[d].harmonic is None:
            new[d] = replace(new[d], hull=_ffn_hull(layer, coords, d))
    for d in outs:
        new[d] = replace(new[d], soft=_ffn_hull(layer, coords, d, hull=lambda c: c.soft))
    if fact.noisy is not None:
        noisy = _ffn_values(layer, fact.dims, fact.noisy, fact.noisy_pre, outs)
        for d in outs:
            new[d] = replace(new[d], exact_unless=frozenset(noisy[d]) if len(noisy[d]) <= MAX_FIN else None)
    for d in outs:
        if new[d].exact_unless != frozenset():
            spans, needs = _ffn_spans(layer, d, coords)
            new[d] = replace(new[d], spans=spans, needs=needs)
    for d, _, _ in fact.absorbs:  # exact at every row once the bounds show x's error ≤ r (bounds, tail)
        new[d] = replace(new[d], exact_unless=frozenset(), spans=(), needs=())
    for d in outs:  # a function of values that are one value in a word is one value there (L-word-constant (b))
        reads = {x for u in layer.units if any(e == d for e, _ in u.outputs) for x, _ in u.inputs} | {d}
        if all(_same_in_word(coords[x]) for x in reads):
            new[d] = replace(new[d], same_in_word=True, soft_same=all(_soft_shift(coords[x]) for x in reads))
        new[d] = replace(new[d], classes=None if new[d].same_in_word or new[d].fin is not None and not any(
            coords[x].classes and coords[x].classes[2] for x in reads) else _ffn_classes(layer, coords, d, reads))
    return new


def _ffn_classes(layer: FFNLayer, coords: dict, d: str, reads: set) -> tuple | None:
    """Per class c of C, :func:`_ffn_hull` of the inputs' class hulls (their hulls when not known per class) bounds
    the FFN's output at rows with C = c; L-class-constant (b): when every input (and the dim it adds to) is one
    value per class of a word, or one value in the word, so is the output."""
    cdims = {coords[x].classes[0] for x in reads if coords[x].classes is not None}
    if len(cdims) != 1:
        return None
    (cdims,) = cdims
    same = all(coords[x].classes[2] if coords[x].classes is not None else _same_in_word(coords[x]) for x in reads)
    listed = next(coords[x].classes[1] for x in reads if coords[x].classes is not None)
    per = []
    for c, _, _ in listed:
        hull = _ffn_hull(layer, coords, d, hull=lambda x: class_hull(x, dict(zip(cdims, c))))
        if hull is None:
            return None
        per.append((c, *hull))
    whole = None if same else _ffn_hull(layer, coords, d)
    if not same and all((lo, hi) == whole for _, lo, hi in per):
        return None  # no class narrower than the hull
    return cdims, tuple(per), same


def _ffn_hull(layer: FFNLayer, coords: dict, d: str, hull=value_hull) -> tuple | None:
    """Bounds on x_d + Σ c·ReLU(a·x + b) over the units writing d.  When they read one dim x, the output is
    piecewise linear in x alone (plus x_d when d ≠ x): its extremes over x's hull are at the ends or at a
    breakpoint −b/a inside.  Otherwise each unit's pre-activation is bounded term by term (interval
    arithmetic, monotone ReLU)."""
    units = [(u, sum((c for e, c in u.outputs if e == d), Fraction(0))) for u in layer.units]
    units = [(u, c) for u, c in units if c]
    reads = {x for u, _ in units for x, _ in u.inputs}
    base = hull(coords[d])
    hulls = {x: hull(coords[x]) for x in reads}
    if base is None or any(h is None for h in hulls.values()):
        return None
    if len(reads) == 1:
        (x,) = reads
        lo, hi = hulls[x]
        lines = [(sum((a for _, a in u.inputs), Fraction(0)), u.bias, c) for u, c in units]
        points = {lo, hi} | {-b / a for a, b, _ in lines if a and lo < -b / a < hi}
        values = [(t if x == d else Fraction(0)) + sum((c * max(Fraction(0), a * t + b) for a, b, c in lines), Fraction(0))
                  for t in points]
        return (min(values), max(values)) if x == d else (base[0] + min(values), base[1] + max(values))
    lo, hi = base
    for u, c in units:
        pre = (u.bias, u.bias)
        for x, a in u.inputs:
            pre = _hull_sum(pre, _hull_scaled(hulls[x], a))
        lo, hi = _hull_sum((lo, hi), _hull_scaled((max(pre[0], Fraction(0)), max(pre[1], Fraction(0))), c))
    return lo, hi


def _ffn_harmonic(layer: FFNLayer, dims: list[str], coords: dict, outs: list[str]) -> dict | None:
    """out dim → (points, families) when one input x is harmonic and the others finite (L-bos-level).
    Along a family x = v + d·s, s = 1/k ∈ (0, 1], each pre-activation is affine in s and changes sign
    at most once, at s*; for k ≥ K (every s < each s*) the units' on/off pattern is that of s → 0⁺, so
    each output is affine in s there — a family again — and k < K are evaluated exactly as points."""
    spread = [d for d in dims if coords[d].fin is None]
    if len(spread) != 1 or coords[spread[0]].harmonic is None:
        return None
    x, (xpoints, families) = spread[0], coords[spread[0]].harmonic
    others = [d for d in dims if d != x]
    if not _product_fits([coords[d].fin for d in others] + [xpoints | {Fraction(0)}]):
        return None
    out = {d: (set(), set()) for d in outs}
    for combo in itertools.product(*(sorted(coords[d].fin) for d in others)):
        row = dict(zip(others, combo))
        xs = set(xpoints)
        tails = []
        for v, d in families:
            at = lambda u, s: u.bias + sum((c * (v + d * s if e == x else row[e]) for e, c in u.inputs), Fraction(0))
            stars = [-at(u, 0) / (at(u, 1) - at(u, 0)) for u in layer.units if at(u, 1) != at(u, 0)]
            last = max((int(1 / s) + 1 for s in stars if s > 0), default=1)
            if last > MAX_FIN:
                return None
            xs.update(v + d / k for k in range(1, last))
            on = [u for u in layer.units if at(u, 0) > 0 or at(u, 0) == 0 and at(u, 1) > at(u, 0)]
            for o in outs:
                base = v if o == x else row[o]
                slope = (d if o == x else 0) + sum((c * (at(u, 1) - at(u, 0)) for u in on for e, c in u.outputs if e == o), 0)
                value = base + sum((c * at(u, 0) for u in on for e, c in u.outputs if e == o), Fraction(0))
                (out[o][1].add((value, slope)) if slope else out[o][0].add(value))
        points = [tuple(p if e == x else row[e] for e in dims) for p in xs]
        for o, values in _ffn_values(layer, dims, points, _pre(layer, dims, points), outs).items():
            out[o][0].update(values)
    return {o: (frozenset(p), frozenset(f)) for o, (p, f) in out.items()}


def _ffn_values(layer: FFNLayer, dims, combos, pres, outs) -> dict:
    """The exact FFN at each input combination: old value plus c·ReLU(h) over the units writing d."""
    results = {d: set() for d in outs}
    for combo, pre in zip(combos, pres):
        row = dict(zip(dims, combo))
        for d in outs:
            results[d].add(row[d] + sum((c * h for u, h in zip(layer.units, pre) if h > 0
                                         for e, c in u.outputs if e == d), Fraction(0)))
    return results


def _relu_grid(layer: FFNLayer, coords: dict, d: str, first: int) -> Coord:
    """x_d + Σ c·ReLU(h) in any regime: ReLU(h) is 0 or h, both on h's grid when its offset is 0 (and h
    itself, offset included, when h reads position embeddings alone and is ≥ 0 on every row).
    Units whose inputs are all finite-valued are enumerated jointly (−ReLU(2v − ½) + ReLU(2v − 3/2)
    is {0, −1}, not a grid ½), and x_d is added last, so that a position embedding constant on the
    units' grid keeps its offset (1/(2n) + Z/n: never 0)."""
    units = [(u, sum((coef for e, coef in u.outputs if e == d), Fraction(0))) for u in layer.units]
    units = [(u, c) for u, c in units if c]
    finite = [(u, c) for u, c in units if all(coords[x].fin is not None for x, _ in u.inputs)]
    reads = sorted({x for u, _ in finite for x, _ in u.inputs})
    if not _product_fits([coords[x].fin for x in reads]):
        finite = []
    acc = Coord(fin=frozenset({Fraction(0)}), grid=Num(Fraction(1)))
    if finite:
        combos = list(itertools.product(*(sorted(coords[x].fin) for x in reads)))
        pres = _pre(FFNLayer(tuple(u for u, _ in finite)), reads, combos)
        values = frozenset(sum((c * h for (_, c), h in zip(finite, pre) if h > 0), Fraction(0)) for pre in pres)
        acc = Coord(fin=values, grid=Num(Fraction(_den_lcm(values))))
    linear: Expr = Num(Fraction(0))  # Σ c·h over units reading position embeddings alone with h ≥ 0 on every row
    for u, c in (uc for uc in units if uc not in finite):
        pe = _position_preactivation(u, coords)
        sign = 0 if pe is None else _sign_on_rows(pe, first)
        if sign:  # ReLU(h) is h or 0 at every row
            linear = BinOp("+", linear, BinOp("*", Num(c), pe)) if sign > 0 else linear
            continue
        h = _combination(u.inputs, coords, start=_finite([u.bias], u.bias))
        if h.grid is None:
            return _relu_den_bound(layer, coords, d)
        acc = _add(acc, _scaled(Coord(grid=integral_grid(h)), c))
    x = coords[d]
    if not is_zero(linear, ("i", "n")):  # x_d plus the linear units: one position embedding, added last
        if x.pe is None and x.fin != {Fraction(0)}:
            return Coord()
        total = simplified(linear if x.pe is None else BinOp("+", linear, x.pe))
        x = Coord(pe=total, grid=pe_grid(total))
    acc = _add(acc, x)
    # every unit finite: the value set from the inputs' sets (ffn_coords prefers the joint combos when known)
    return Coord(grid=acc.grid, offset=acc.offset) if acc.fin is None else Coord(fin=acc.fin, grid=acc.grid)


def _zero_or_at_least(c: Coord) -> Expr | None:
    """L(i, n) with the value 0 or |value| ≥ |L|: a grid (k/G, or (k + o)/G never 0), a denominator
    bound B (a non-zero p/q with q ≤ B is ≥ 1/B in size), or a finite set's least non-zero size."""
    if c.fin is not None:
        return Num(min((abs(v) for v in c.fin if v), default=Fraction(1)))
    if c.grid is not None:
        return BinOp("/", Num(min(c.offset, 1 - c.offset) if c.offset else Fraction(1)), c.grid)
    return None if c.den_bound is None else BinOp("/", Num(Fraction(1)), c.den_bound)


def _never_on(z: Coord, a: Fraction) -> bool:
    """ReLU(a·z) = 0 at every row: z's bound s·z ≤ 0 with a of sign s."""
    return z.bound is not None and z.bound[1] == 0 and a * z.bound[0] > 0


def _relu_apart(layer: FFNLayer, coords: dict, d: str) -> tuple | None:
    """L-zero-or-apart: x_d + Σ c_u·ReLU(a_u·z_u) with x_d exact, no biases and every c_u of one sign s,
    each z_u 0 or ≥ L_u in size: each ReLU is 0 or ≥ |a_u|·L_u, so the sum is x_d or s·(y − x_d) ≥
    min |c_u·a_u·L_u| (1/(2n) − ReLU(−min prefix) − ReLU(d_n): never 0, Dyck-1)."""
    centre = _exact(coords[d])
    terms, signs = [], set()
    for u in layer.units:
        c = sum((coef for e, coef in u.outputs if e == d), Fraction(0))
        if not c or not u.bias and len(u.inputs) == 1 and _never_on(coords[u.inputs[0][0]], u.inputs[0][1]):
            continue
        if u.bias or len(u.inputs) != 1 or (least := _zero_or_at_least(coords[u.inputs[0][0]])) is None:
            return None
        terms.append(BinOp("*", Num(abs(c * u.inputs[0][1])), least))
        signs.add(1 if c > 0 else -1)
    if centre is None or len(signs) != 1:
        return None
    return centre, tuple(terms), signs.pop()


def _length_flag(layer: FFNLayer, coords: dict, d: str) -> frozenset | None:
    """x_d (one constant) + Σ c·ReLU(h_u(n)) with every h_u a function of n alone (position embeddings free of
    i): past the first N from which each h_u keeps one sign (> 0 or < 0 for every n ≥ N, or ≡ 0), the sum is
    x_d + Σ over the positive units of c·h_u, a constant when it simplifies to one; below N it is evaluated
    exactly at each n.  So [n ≥ 2] = ReLU(n − 1) − ReLU(n − 2) takes the values {0, 1}; None otherwise."""
    units = [(u, c) for u in layer.units if (c := sum((v for e, v in u.outputs if e == d), Fraction(0)))]
    x = coords[d]
    hs = [_position_preactivation(u, coords) for u, _ in units]
    if not units or x.fin is None or len(x.fin) != 1 or any(h is None or "i" in variables_of(h) for h in hs):
        return None
    start, tail = 1, Num(next(iter(x.fin)))
    for (_, c), h in zip(units, hs):
        if is_zero(h, ("n",)):
            continue
        sign = next(((n, s) for n in range(1, EVENTUAL_SIGN_FROM) for s in (1, -1)
                     if positive_from(BinOp("*", Num(Fraction(s)), h), n)), None)
        if sign is None:
            return None
        start = max(start, sign[0])
        tail = BinOp("+", tail, BinOp("*", Num(c), h)) if sign[1] > 0 else tail
    tail = simplified(tail, ("n",))
    if not isinstance(tail, Num):
        return None
    try:
        early = {next(iter(x.fin)) + sum((c * max(eval_exact(h, {"n": n}), Fraction(0)) for (_, c), h in zip(units, hs)),
                                          Fraction(0)) for n in range(1, start)}
    except (ExprError, ZeroDivisionError):
        return None
    return frozenset(early | {tail.value})


def _position_preactivation(u, coords: dict) -> Expr | None:
    """A unit's pre-activation as an expression in (i, n) when every input is a position embedding."""
    h: Expr = Num(u.bias)
    for x, a in u.inputs:
        if coords[x].pe is None:
            return None
        h = BinOp("+", h, BinOp("*", Num(a), coords[x].pe))
    return h


def _sign_on_rows(h: Expr, first: int) -> int:
    """1 when h(i, n) ≥ 0 at every row first ≤ i ≤ n of every n ≥ 1, −1 when ≤ 0, 0 when neither is
    proved: h free of i, or affine in i (then extreme at an end row)."""
    if "i" in variables_of(h) and affine_in(h, "i") is None:
        return 0
    ends = [substitute(h, "i", row) for row in (Num(Fraction(first)), Var("n"))]
    for sign in (1, -1):
        if all(_holds(BinOp("*", Num(Fraction(sign)), e), strict=False) for e in ends):
            return sign
    return 0


def _relu_den_bound(layer: FFNLayer, coords: dict, d: str) -> Coord:
    """x_d + Σ c·ReLU(h) when one input z is known only by a denominator bound B (a mean) and the
    others by fixed grids: in every regime the output is a rational combination of the inputs, so
    its denominator divides M·den(z) with M the lcm of the denominators of c·a, c·b and the grids."""
    units = [u for u in layer.units if any(e == d for e, _ in u.outputs)]
    reads = {x for u in units for x, _ in u.inputs} | {d}
    bounded = [x for x in reads if integral_grid(coords[x]) is None]
    if len(bounded) != 1 or coords[bounded[0]].den_bound is None:
        return Coord()
    grids = {bounded[0]: 1}
    for x in reads - set(bounded):
        g = simplified(integral_grid(coords[x]))
        if not isinstance(g, Num) or g.value.denominator != 1:
            return Coord()
        grids[x] = abs(int(g.value))
    m = grids[d]
    for u in units:  # a term c·a·x with x·G ∈ Z has a denominator dividing den(c·a)·G
        c = sum((coef for e, coef in u.outputs if e == d), Fraction(0))
        m = lcm(m, (c * u.bias).denominator, *((c * a).denominator * grids[x] for x, a in u.inputs))
    return Coord(den_bound=BinOp("*", Num(Fraction(m)), coords[bounded[0]].den_bound))


def embed_joint(model: Model) -> Joint:
    pe, table = dict(model.position_embed), dict(model.position_table)
    dims = tuple(d for d in model.dims if d not in table and (d not in pe or not variables_of(pe[d])))
    shift = {d: eval_exact(pe[d], {}) if d in pe else Fraction(0) for d in dims}
    def row(s):
        return tuple(dict(model.token_embed[s]).get(d, Fraction(0)) + shift[d] for d in dims)
    inputs = frozenset(row(s) for s in model.alphabet)
    return Joint(dims, inputs | ({row(model.bos)} if model.bos else set()), inputs)


def _without(joint: Joint, written: set) -> Joint:
    keep = [d for d in joint.dims if d not in written]
    return Joint(tuple(keep), *(frozenset(tuple(row[joint.dims.index(d)] for d in keep) for row in rows)
                                for rows in (joint.rows, joint.inputs)))


@dataclass(frozen=True)
class Family:
    """A joint entry that is one of v + d/k, k = 1, 2, … (L-bos-level): kept from a head to the FFN right
    above it, which may map the family onto finitely many values (:func:`ffn_joint`), else dropped."""
    v: Fraction
    d: Fraction


def _family(x: Fraction, v: Fraction, d: Fraction):
    return x + v if d == 0 else Family(x + v, d)


def finite_joint(joint: Joint) -> Joint:
    """The joint less every dim that holds a :class:`Family` entry at some row."""
    rows = joint.rows | joint.inputs
    return _without(joint, {d for k, d in enumerate(joint.dims) if any(isinstance(r[k], Family) for r in rows)})


def attention_joint(layer: AttentionLayer, joint: Joint, coords: dict, first: int) -> Joint:
    """The symbol-determined dims after an attention layer: a head's output at a row depends on the row's
    query values only through which values its maxima can carry (L-maxima-classes, per query value), so
    when every query dim is tracked, each row extends by each possible output (0 too on a row that may see
    no key; a :class:`Family` where the maxima are the BOS key and m keys of one value) — a relation, kept
    as possible joint values.  Other written dims leave the joint."""
    written = [o for h in layer.heads for o, _, _ in h.value]
    layer_writes = set(written)
    rows, inputs = joint.rows, joint.inputs
    for head in layer.heads:
        table = _query_table(head, coords, joint)
        outs = table[8] if table is not None else ()
        if table is None or not set(table[0]) | set(outs) <= set(joint.dims) or any(written.count(o) > 1 for o in outs) \
                or (set(table[0]) | set(table[3])) & layer_writes:
            continue  # (a head reads the layer's input: no dim another head of the layer writes)
        cache: dict = {}
        at = [joint.dims.index(o) for o in outs]
        def extend(row, table=table, outs=outs, head=head, at=at):
            q = tuple(row[joint.dims.index(d)] for d in table[0])
            own = tuple(row[joint.dims.index(d)] if d in joint.dims else None for d in table[3])
            classes = [k for k, c in enumerate(table[5]) if tuple(c[d] for d in table[3]) == own]
            q = q, (classes[0] if len(classes) == 1 and row not in joint.rows - joint.inputs else None)
            if q not in cache:
                found = _query_means(head, coords, first, table, dict(zip(table[0], q[0])), q[1])
                cache[q] = None if found is None else (found[0] | (
                    {(Fraction(0),) * len(outs)} if may_be_empty(head.visible) else set()), found[1])
            if cache[q] is None:
                return None
            points, families = cache[q]
            return {tuple(x + dict(zip(at, v)).get(k, 0) for k, x in enumerate(row)) for v in points} | \
                {tuple(_family(x, dict(zip(at, v)).get(k, 0), dict(zip(at, d)).get(k, 0)) for k, x in enumerate(row))
                 for v, d in families}
        new = [{r2 for r in part for r2 in (extend(r) or {None})} for part in (rows, inputs)]
        if None in new[0] | new[1] or len(new[0]) > MAX_COMBOS:
            continue
        rows, inputs = frozenset(new[0]), frozenset(new[1])
        written = [o for o in written if o not in outs]
    return _without(Joint(joint.dims, rows, inputs), set(written))


def ffn_joint(layer: FFNLayer, joint: Joint) -> Joint:
    """An FFN of tracked dims is a function of the symbol too: its rows are computed exactly."""
    reads = {d for u in layer.units for d, _ in u.inputs}
    writes = {d for u in layer.units for d, _ in u.outputs}
    if not (reads | writes) <= set(joint.dims):
        return _without(joint, writes)
    def spread(row):  # one Family among the dims the units touch: L-bos-level through the FFN (_ffn_harmonic)
        x = dict(zip(joint.dims, row))
        dims = sorted(reads | writes)
        if not any(isinstance(x[d], Family) for d in dims):
            return {_ffn_row(layer, x, joint.dims)}
        fake = {d: Coord(harmonic=(frozenset(), frozenset({(x[d].v, x[d].d)}))) if isinstance(x[d], Family)
                else Coord(fin=frozenset({x[d]})) for d in dims}
        found = _ffn_harmonic(layer, dims, fake, sorted(writes))
        if found is None:
            return None
        choices = [({x[d]} if d not in writes else set(found[d][0]) | {Family(v, e) for v, e in found[d][1]})
                   for d in joint.dims]
        return set(itertools.product(*choices)) if prod(len(c) for c in choices) <= MAX_COMBOS else None
    mapped = [set().union(*parts) if None not in (parts := [spread(r) for r in rows]) else None
              for rows in (joint.rows, joint.inputs)]
    if None in mapped or len(mapped[0]) > MAX_COMBOS:
        return finite_joint(_without(joint, writes))
    return Joint(joint.dims, frozenset(mapped[0]), frozenset(mapped[1]))


def _ffn_row(layer: FFNLayer, x: dict, dims: tuple) -> tuple:
    """The exact FFN on one row (a :class:`Family` entry it neither reads nor writes passes through)."""
    new = dict(x)
    for u in layer.units:
        h = sum((c * x[d] for d, c in u.inputs), Fraction(0)) + u.bias
        for d, c in u.outputs:
            new[d] += c * h if h > 0 else Fraction(0)
    return tuple(new[d] for d in dims)


def analyse(model: Model, absorb: bool = False, nearest: bool = False, strict: bool = False) -> Structure:
    """Run the abstract interpretation through every layer; :class:`Unsupported` naming every head
    that no rule covers (the analysis goes on past one, with nothing known of its outputs).  ``absorb``:
    FFNs flat around their noisy inputs claim exact outputs (L-ffn-absorb), which every box must then
    confirm (input error ≤ r), so the certifier asks for it only when the plain analysis fails; so is ``nearest``
    (L-nearest-level: sides of noisy spans that hold only for τ small enough, which every box must confirm), and
    ``strict`` (L-tiebreak only where its modulus is proved apart for every n, :func:`_distinct`)."""
    first = 0 if model.bos else 1
    coords, joint = {d: replace(c, soft=value_hull(c)) for d, c in embed_coords(model).items()}, embed_joint(model)
    history, joints = [coords], [joint]
    pending = None  # the joint with Family entries, right after an attention layer
    facts: list = []
    blockers: list[str] = []
    live = live_heads(model)
    for k, layer in enumerate(model.layers):
        if isinstance(layer, AttentionLayer):
            heads = []
            for h in layer.heads:
                if (k, h.name) not in live:
                    continue
                try:
                    heads.append(classify_head(k, h, coords, first, joint, strict))
                except Unsupported as exc:
                    blockers.append(str(exc))
                    heads.append(HeadFact(k, h, "unsupported"))
            heads = [replace(f, lemma=f"{f.lemma}; output values: {known}") if (known := _means_known(f, coords, first, joint))
                     else f for f in heads]
            facts.append(tuple(heads))
            coords_before = coords
            coords = attention_coords(layer, coords, first, heads, model.max_length, joint, nearest)
            o = model.output.dim
            writers = [(f, o, Fraction(1)) for f in heads if any(d == o for d, _, _ in f.head.value)]
            if not model.output.argmax and coords_before[o].fin is not None and len(coords_before[o].fin) == 1 and \
                    _two_keys_avoid(writers, next(iter(coords_before[o].fin)), model.output.threshold, coords_before, joint, first):
                coords[o] = replace(coords[o], avoids=model.output.threshold)
            coords.update({o: Coord() for h in layer.heads if (k, h.name) not in live for o, _, _ in h.value})
            coords.update(_soft_after_heads(layer, coords_before, coords, live, k))
            pending = attention_joint(layer, joint, coords_before, first)  # Family entries for the FFN above
            joint = finite_joint(pending)
        else:
            fact = ffn_fact(k, layer, coords, absorb)
            facts.append(fact)
            before = coords
            coords = ffn_coords(layer, coords, fact, first)
            if not model.output.argmax and k and isinstance(model.layers[k - 1], AttentionLayer) and \
                    _two_keys_through(layer, model.output.dim, model.output.threshold, facts[k - 1], history[k - 1],
                                      before, joints[k - 1], first):
                coords[model.output.dim] = replace(coords[model.output.dim], avoids=model.output.threshold)
            joint = finite_joint(ffn_joint(layer, pending if pending is not None else joint))
            pending = None
        written = dims_written(layer)  # C rewritten: rows agreeing on C no longer name the classes (L-class-constant)
        coords = {d: replace(c, classes=None) if c.classes is not None and set(c.classes[0]) & written else c
                  for d, c in coords.items()}
        history.append(coords)
        joints.append(joint)
    if blockers:
        raise Unsupported("; ".join(blockers), blockers)
    return Structure(first, tuple(history), tuple(facts), tuple(joints))


def _key_value(head: Head, out: str, coords: dict, joint: Joint) -> tuple[dict, Expr] | None:
    """The value a head writes to ``out`` from key j as (weights of symbol-determined dims, P(j)): the
    P part from position-embedded dims, or None when a value dim is neither."""
    weights, pe = {}, Num(Fraction(0))
    for o, x, c in head.value:
        if o != out:
            continue
        if x in joint.dims:
            weights[x] = weights.get(x, Fraction(0)) + c
        elif coords[x].pe is not None and coords[x].fin is None:
            pe = BinOp("+", pe, BinOp("*", Num(c), coords[x].pe))
        else:
            return None
    return weights, pe


def _linear_ffn(layer: FFNLayer, out: str) -> tuple[dict, Fraction] | None:
    """out after the layer = out + Σ a_d·x_d + c when the units writing ``out`` pair up as c·ReLU(h) −
    c·ReLU(−h) = c·h (inputs and bias negated, coefficient negated): ({d: a_d}, c), else None."""
    writers = [(u, c) for u in layer.units if (c := sum((c for e, c in u.outputs if e == out), Fraction(0)))]
    left = list(writers)
    coefs, const = {}, Fraction(0)
    while left:
        u, c = left.pop()
        twin = next((k for k, (v, b) in enumerate(left) if b == -c and v.bias == -u.bias and
                     dict(v.inputs) == {d: -a for d, a in u.inputs}), None)
        if twin is None:
            return None
        left.pop(twin)
        for d, a in u.inputs:
            coefs[d] = coefs.get(d, Fraction(0)) + c * a
        const += c * u.bias
    return {d: a for d, a in coefs.items() if a}, const


def _two_keys_through(layer: FFNLayer, out: str, theta: Fraction, facts: tuple, coords: dict, ffn_in: dict, joint: Joint,
                      first: int) -> bool:
    """L-two-keys through a linear FFN (c·ReLU(h) − c·ReLU(−h) = c·h): y = out + Σ a_d·x_d + c, each x_d
    (a known constant before the attention layer just below) written there by exactly one head, and out
    a known constant before the FFN (sortedness: out = ReLU(fb − la) − ReLU(la − fb) = first b − last a)."""
    lin = _linear_ffn(layer, out)
    if lin is None or out in lin[0] or ffn_in[out].fin is None or len(ffn_in[out].fin) != 1:
        return False
    x0 = next(iter(ffn_in[out].fin)) + lin[1]
    writers = []
    for d, a in lin[0].items():
        heads = [f for f in facts if any(o == d for o, _, _ in f.head.value)]
        if len(heads) != 1 or coords[d].fin is None or len(coords[d].fin) != 1:
            return False
        writers.append((heads[0], d, a))
        x0 += a * next(iter(coords[d].fin))
    return len({id(f) for f, _, _ in writers}) == len(writers) and _two_keys_avoid(writers, x0, theta, coords, joint, first)


def _selected_values(head: Head, out: str, coords: dict, joint: Joint | None, first: int) -> frozenset | None:
    """The values a head that outputs one key's value can write to ``out``: those of the keys it can select
    (:func:`_selectable`), when its value reads symbol-determined dims only; None when nothing is excluded."""
    if joint is None or not joint.dims:
        return None
    part = _key_value(head, out, coords, joint)
    if part is None or part[1] != Num(Fraction(0)):
        return None
    rows = _selectable(head, coords, joint, first)
    if rows == set(joint.rows):
        return None
    return frozenset(sum((w * r[joint.dims.index(x)] for x, w in part[0].items()), Fraction(0)) for r in rows)


def _selectable(head: Head, coords: dict, joint: Joint, first: int) -> set:
    """The joint rows whose key the head can select: all of them, less (query factors row constants, BOS
    visible from every row that sees a key) a row whose best score F(row) + max P, P over the hulls of the
    position-embedded key dims, is below the BOS key's exact score (L-maxima-classes: never a level below the
    BOS key).  Under j < i the BOS row sees no key (its output is the empty row's 0, kept apart).  A term whose
    key is a row constant shifts every key of the row alike (the BOS key too), so it is left out first."""
    rows = set(joint.rows)
    bos = rows - set(joint.inputs)
    score = [t for t in head.score if not _row_shift(coords[t[1]])]
    if first or head.visible not in ("all", "j<=i", "j<i") or len(bos) != 1 or \
            any(coords[q].fin is None or len(coords[q].fin) != 1 for q, _, _ in score):
        return rows
    f_part, p_top, p_bos = [], Fraction(0), Fraction(0)
    for q, k, c in score:
        w = c * next(iter(coords[q].fin))
        if k in joint.dims:
            f_part.append((joint.dims.index(k), w))
            continue
        hull, at0 = value_hull(coords[k]), coords[k].pe and simplified(substitute(coords[k].pe, "i", Num(Fraction(0))), ("n",))
        if hull is None or not isinstance(at0, Num):
            return rows
        p_top, p_bos = p_top + max(w * hull[0], w * hull[1]), p_bos + w * at0.value
    top = sum((w * next(iter(bos))[x] for x, w in f_part), p_bos)
    return {r for r in rows if r in bos or sum((w * r[x] for x, w in f_part), p_top) >= top}


def _two_keys_avoid(writers: list, x0: Fraction, theta: Fraction, coords: dict, joint: Joint, first: int) -> bool:
    """L-two-keys: y = x₀ + a₁·V₁ + a₂·V₂, two heads (``writers``: (fact, dim, a)) each of which outputs one
    visible key's value (an extreme head, or an average head whose maxima carry one value) to its dim,
    a·V_h(j) = T_h(row_j) + P_h(j) with P₁(j) + P₂(j) free of j: y − θ = σ·(j₁ − j₂) + C(rows) is
    never 0 — C = 0 needs j₁ = j₂ with two different rows at one position; C ≠ 0 needs j₁ − j₂ = −C/σ,
    beyond the key distance or (σ constant) not an integer (sortedness: first b − last a ≠ 0)."""
    if len(writers) != 2 or not joint.dims:
        return False
    if any(f.kind in ("uniform", "unsupported") or f.head.hard == "average" and not f.homogeneous
           or may_be_empty(f.head.visible) for f, _, _ in writers):
        return False
    parts = [_key_value(f.head, d, coords, joint) for f, d, _ in writers]
    if any(p is None for p in parts):
        return False
    (w1, p1), (w2, p2) = [({x: a * c for x, c in w.items()}, BinOp("*", Num(a), p)) for (w, p), (_, _, a) in zip(parts, writers)]
    line, rest = affine_in(p1, "i"), affine_in(BinOp("+", p1, p2), "i")
    if line is None or rest is None or not is_zero(rest[0], ("i", "n")) or \
            not (_holds(line[0]) or _holds(BinOp("-", Num(Fraction(0)), line[0]))):  # σ ≠ 0 at every n
        return False
    visible = writers[0][0].head.visible if writers[0][0].head.visible == writers[1][0].head.visible else "all"
    base = BinOp("-", BinOp("+", rest[1], Num(x0)), Num(theta))  # P₁ + P₂ + x₀ − θ
    for r1, r2 in itertools.product(*(sorted(_selectable(f.head, coords, joint, first)) for f, _, _ in writers)):
        const = sum((c * r1[joint.dims.index(d)] for d, c in w1.items()), Fraction(0)) + \
            sum((c * r2[joint.dims.index(d)] for d, c in w2.items()), Fraction(0))
        offset = simplified(BinOp("+", base, Num(const)), ("n",))
        if is_zero(offset, ("n",)):
            if r1 == r2:  # one position: y = θ
                return False
            continue
        ratio = simplified(BinOp("/", offset, line[0]), ("n",))  # a tie needs j₂ − j₁ = C/σ
        if not (isinstance(ratio, Num) and ratio.value.denominator != 1 or always_apart(ratio, visible, first)):
            return False
    return True


def first_row_exact(model: Model) -> bool:
    """The output is read at the first row and every head is causal: that row sees only itself,
    so each head there has one visible key (softmax weight exactly 1) or none, and by induction over
    the layers its soft stream equals the hard one for every τ."""
    return model.output.position == "first" and all(
        h.visible in ("j<=i", "j<i") for layer in model.layers if isinstance(layer, AttentionLayer) for h in layer.heads)


def first_row_soft_exact(model: Model, st: Structure) -> bool:
    """Soft = hard at the first row, for every τ, when the output is read there: :func:`first_row_exact`, or,
    layer by layer, a causal head there sees only itself, and a head that sees every key has equal scores
    there — each term's query exact at that row and 0 at the BOS row (or always 0), or its key one soft value
    at every key (:func:`_soft_shift`; one hard value is not enough: soft keys may differ, outside-78 of the
    absorb sweep) —
    over values exact at every row (softmax of equal scores is the uniform average); an FFN of exact inputs
    is exact."""
    if model.output.position != "first" or model.output.argmax:
        return False
    if first_row_exact(model):
        return True
    exact = set(model.dims)
    for k, layer in enumerate(model.layers):
        coords = st.coords[k]
        if isinstance(layer, FFNLayer):
            for u in layer.units:
                if not {d for d, _ in u.inputs} <= exact:
                    exact -= {d for d, _ in u.outputs}
            continue
        for h in layer.heads:
            if h.visible == "j<=i":
                ok = {v for _, v, _ in h.value} <= exact
            elif h.visible == "j<i":
                ok = True
            else:
                ok = h.hard == "average" and all(coords[v].exact_unless == frozenset() for _, v, _ in h.value) and all(
                    _soft_shift(coords[key]) or q in exact and (coords[q].fin == {Fraction(0)} or
                                                               st.first == 0 and coords[q].at_bos == 0)
                    for q, key, _ in h.score)
            if not ok:
                exact -= {o for o, _, _ in h.value}
    return model.output.dim in exact


def first_row_values(model: Model) -> frozenset | None:
    """The hard outputs at the first row, exactly, when its position embedding there is free of n
    (:func:`first_row_outputs`)."""
    found = first_row_outputs(model, lambda v: v, lambda h: max(h, Fraction(0)), _at_first_row)
    return None if found is None else frozenset(found)


def first_row_outputs(model: Model, const, relu, pe_at) -> list | None:
    """The hard output at the first row for each symbol it may hold, when :func:`first_row_exact` holds:
    that row sees only itself (a head adds nothing under j<i and its own value under j<=i, whatever its
    hard rule), so the output is a function of the row's symbol and of n.  The arithmetic is the
    caller's: ``const`` lifts a rational, ``relu`` is ReLU, ``pe_at(e, first)`` an embedding's value
    there (None: unknown)."""
    first = 0 if model.bos else 1
    if not first_row_exact(model) or model.output.argmax or model.position_table:
        return None
    pe = {d: pe_at(e, first) for d, e in model.position_embed}
    if any(v is None for v in pe.values()):
        return None
    out = []
    for symbol in [model.bos] if model.bos else model.alphabet:
        x = {d: const(dict(model.token_embed[symbol]).get(d, Fraction(0))) + pe.get(d, const(Fraction(0)))
             for d in model.dims}
        for layer in model.layers:
            new = dict(x)
            if isinstance(layer, AttentionLayer):
                for o, v, c in (t for h in layer.heads if h.visible == "j<=i" for t in h.value):
                    new[o] = new[o] + const(c) * x[v]
            else:
                for u in layer.units:
                    h = const(u.bias)
                    for d, c in u.inputs:
                        h = h + const(c) * x[d]
                    for d, c in u.outputs:
                        new[d] = new[d] + const(c) * relu(h)
            x = new
        out.append(x[model.output.dim])
    return out


def _at_first_row(e: Expr, first: int) -> Fraction | None:
    """The embedding's value at row ``first`` when it is the same for every n (i/n at i = 0), else None."""
    if "n" not in variables_of(e):
        return eval_exact(e, {"i": first})
    try:
        at = simplified(substitute(e, "i", Num(Fraction(first))), ("n",))
    except ExprError:  # (-1)^i with n elsewhere
        return None
    return None if variables_of(at) else eval_exact(at, {})


def argmax_gap(model: Model, st: Structure) -> Fraction:
    """For a v2 argmax output: a lower bound on top − runner-up over every possible hard output
    vector of the argmax dims (0 when a tie cannot be excluded).

    Joint values come from the last layer writing those dims when it is an FFN whose inputs have
    a finite joint set (FFNFact.combos, exact for one input dim, a superset otherwise), times the
    finite sets of argmax dims that layer does not touch; otherwise from the product of the final
    per-dim sets.  Supersets only add vectors, so the minimum can only get smaller: sound.
    """
    dims = model.output.argmax
    last = max((k for k, layer in enumerate(model.layers) if dims_written(layer) & set(dims)), default=None)
    fact = None if last is None else st.facts[last]
    if isinstance(fact, FFNFact):
        layer = model.layers[last]
        read = sorted(set(fact.dims) | set(dims))
        untouched = not any(dims_written(model.layers[k]) & set(read) for k in range(last))
        joint = _embedding_joint(model, read) if untouched else None
        if joint is None:
            if fact.combos is None:
                return Fraction(0)
            others = [d for d in dims if d not in fact.dims]
            sets = [st.coords[last][d].fin for d in others]
            if any(s is None for s in sets) or not _product_fits([fact.combos] + sets):
                return Fraction(0)
            joint = {tuple(combo) + rest for combo in fact.combos for rest in itertools.product(*map(sorted, sets))}
            read = list(fact.dims) + others
        vectors = set()
        for vector in joint:
            value = dict(zip(read, vector))
            pre = [sum((c * value[d] for d, c in u.inputs), Fraction(0)) + u.bias for u in layer.units]
            for u, h in zip(layer.units, pre):
                if h > 0:
                    for d, c in u.outputs:
                        value[d] += c * h
            vectors.add(tuple(value[d] for d in dims))
    else:
        sets = [st.coords[-1][d].fin for d in dims]
        if any(s is None for s in sets) or not _product_fits(sets):
            return Fraction(0)
        vectors = set(itertools.product(*(sorted(s) for s in sets)))
    return min(_top_gap(v) for v in vectors)


def _embedding_joint(model: Model, dims: list[str]) -> set | None:
    """Every joint value of ``dims`` at an input (non-BOS) row of the embedding, exactly: token
    vector plus position-table vector, over symbols × positions 1..max_length (None for a dim
    with a position expression, or when the product is too large)."""
    pe = dict(model.position_embed)
    if any(d in pe for d in dims):
        return None
    table = dict(model.position_table)
    places = range(1, model.max_length + 1) if table and model.max_length is not None else (None,)
    if len(model.alphabet) * len(places) > MAX_COMBOS:
        return None
    out = set()
    for s in model.alphabet:
        token = dict(model.token_embed[s])
        for p in places:
            out.add(tuple(token.get(d, Fraction(0)) + (table[d][p] if d in table else 0) for d in dims))
    return out


def _top_gap(vector: tuple) -> Fraction:
    top, second = sorted(vector, reverse=True)[:2]
    return top - second


def live_heads(model: Model) -> frozenset:
    """(layer, name) of every head whose output can reach the model's output.  Layers add to the residual
    stream, so a dim read later (by a live head's score or value, by a live FFN unit, or as the output)
    is live before every earlier layer, and a head is live when it writes a live dim.  A dead head changes
    neither the hard nor the soft output: it needs no fact, and one that no rule covers blocks nothing
    (its dims are then known to nothing: the analysis claims no value for them)."""
    live = {model.output.dim} | set(model.output.argmax)
    heads: set = set()
    for k in range(len(model.layers) - 1, -1, -1):
        layer = model.layers[k]
        if isinstance(layer, AttentionLayer):
            alive = [h for h in layer.heads if any(o in live for o, _, _ in h.value)]
            heads.update((k, h.name) for h in alive)
            live |= {d for h in alive for q, key, _ in h.score for d in (q, key)} | {v for h in alive for _, v, _ in h.value}
        else:
            live |= {d for u in layer.units if any(o in live for o, _ in u.outputs) for d, _ in u.inputs}
    return frozenset(heads)


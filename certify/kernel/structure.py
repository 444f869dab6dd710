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
* ``gap``      scores w_i·K(j) with finitely many K values: any non-zero gap is at
  least min|w|·min ΔK (rational gap bound, §4) ⇒ leakage ≤ N·e^{−γ/τ} (L-gap).

Anything else is reported as unsupported, naming the head and the missing fact.
This module is part of the trusted kernel: exact ``Fraction`` arithmetic only.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from math import lcm

from ..expr import BinOp, Expr, Num, Var, eval_exact, variables_of
from ..model import AttentionLayer, FFNLayer, Head, Model
from .polyid import affine_in, integer_polynomial_degree, is_zero

MAX_COMBOS = 4096
MAX_FIN = 4096


class Unsupported(Exception):
    """The analysis cannot establish a fact it needs (not a refutation)."""


@dataclass(frozen=True)
class Coord:
    fin: frozenset | None = None
    pe: Expr | None = None
    grid: Expr | None = None


@dataclass(frozen=True)
class HeadFact:
    layer: int
    head: Head
    kind: str  # uniform | ziggurat | gap
    step: Expr | None = None  # ziggurat: lattice step A(n) (sign unknown; |A| used)
    classes: int = 0  # ziggurat: c, the number of score offsets a lattice level can hold
    tie_gaps: tuple[Expr, ...] = ()  # ziggurat, unique-hard: offsets R(n); need |R(n)| > n - first
    delta_key: Fraction | None = None  # gap: min positive difference of key scores K(j)
    query_coord: Coord | None = None  # gap: what is known of the query factor w_i (None: w is constant)
    lemma: str = ""


@dataclass(frozen=True)
class FFNFact:
    layer: int
    dims: tuple[str, ...]  # the coordinates the units read or write
    combos: tuple[tuple[Fraction, ...], ...] | None  # every joint hard value of ``dims``, if finite


@dataclass(frozen=True)
class Structure:
    first: int
    coords: tuple[dict, ...]  # coords[k][dim]: Coord after k layers
    facts: tuple  # one HeadFact tuple or FFNFact per layer


def _den_lcm(values) -> int:
    return lcm(*(Fraction(v).denominator for v in values)) if values else 1


def _times(a: Expr | None, b: Expr | None) -> Expr | None:
    if a is None or b is None:
        return None
    return BinOp("*", a, b)


def grid_of(e: Expr) -> Expr | None:
    """G with e·G integer-valued for integer i, n: rationals, +, −, ·, ^, and division by an integer polynomial."""
    if isinstance(e, Num):
        return Num(Fraction(e.value.denominator))
    if isinstance(e, Var):
        return Num(Fraction(1))
    kind = type(e).__name__
    if kind == "AltSign":
        return Num(Fraction(1))
    if kind == "Neg":
        return grid_of(e.arg)
    if kind == "Pow":
        g = grid_of(e.base)
        return None if g is None else _power(g, e.exponent)
    if kind == "Log":
        return None
    left, right = grid_of(e.left), grid_of(e.right)
    if e.op in "+-*":
        return _times(left, right)
    if integer_polynomial_degree(e.right, "n") is None or not _integer_valued(e.right):
        return None
    return _times(left, e.right)


def _power(g: Expr, k: int) -> Expr:
    out: Expr = Num(Fraction(1))
    for _ in range(k):
        out = BinOp("*", out, g)
    return out


def _integer_valued(e: Expr) -> bool:
    """Syntactically integer-valued: integers, i, n, +, −, ·, non-negative powers."""
    if isinstance(e, Num):
        return e.value.denominator == 1
    if isinstance(e, Var):
        return True
    kind = type(e).__name__
    if kind in ("Neg",):
        return _integer_valued(e.arg)
    if kind == "Pow":
        return _integer_valued(e.base)
    if kind == "BinOp" and e.op in "+-*":
        return _integer_valued(e.left) and _integer_valued(e.right)
    return kind == "AltSign"


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


def embed_coords(model: Model) -> dict:
    symbols = list(model.alphabet) + ([model.bos] if model.bos else [])
    pe = dict(model.position_embed)
    out = {}
    for d in model.dims:
        tokens = frozenset(dict(model.token_embed[s]).get(d, Fraction(0)) for s in symbols)
        if d not in pe:
            out[d] = Coord(fin=tokens, grid=Num(Fraction(_den_lcm(tokens))))
        elif not variables_of(pe[d]):
            const = eval_exact(pe[d], {})
            out[d] = Coord(fin=frozenset(t + const for t in tokens), grid=Num(Fraction(_den_lcm([t + const for t in tokens]))))
        elif tokens == {Fraction(0)}:
            out[d] = Coord(pe=pe[d], grid=grid_of(pe[d]))
        else:
            out[d] = Coord(grid=_times(Num(Fraction(_den_lcm(tokens))), grid_of(pe[d])))
    return out


def _add(a: Coord, b: Coord) -> Coord:
    """Abstract sum of two coordinates (no correlation assumed)."""
    fin = None
    if a.fin is not None and b.fin is not None and len(a.fin) * len(b.fin) <= MAX_FIN:
        fin = frozenset(x + y for x in a.fin for y in b.fin)
    if b.fin == {Fraction(0)}:
        return a
    if a.fin == {Fraction(0)}:
        return b
    return Coord(fin=fin, grid=_times(a.grid, b.grid) if fin is None else Num(Fraction(_den_lcm(fin))))


def _row_constant(c: Coord) -> Expr | None:
    """The value as an expression in n if it is the same at every position, else None."""
    if c.pe is not None and "i" not in variables_of(c.pe):
        return c.pe
    if c.fin is not None and len(c.fin) == 1:
        return Num(next(iter(c.fin)))
    return None


def _value_table(head: Head, coords: dict) -> dict:
    """out dim → combined value coordinate Σ coef·x[in] of one key."""
    table: dict = {}
    for out, dim, coef in head.value:
        src = coords[dim]
        scaled = Coord(fin=None if src.fin is None else frozenset(coef * v for v in src.fin),
                       grid=None if src.grid is None else BinOp("*", src.grid, Num(Fraction(coef.denominator))))
        table[out] = _add(table[out], scaled) if out in table else scaled
    return table


def classify_head(layer: int, head: Head, coords: dict, first: int) -> HeadFact:
    keys = [coords[k] for _, k, _ in head.score]
    queries = [coords[q] for q, _, _ in head.score]
    if all(_row_constant(k) is not None for k in keys):
        if head.hard != "average":
            raise Unsupported(f"head {head.name!r}: uniform scores under {head.hard}-hard attention "
                              "(soft attention averages the tied maxima)")
        return HeadFact(layer, head, "uniform", lemma="exact: equal scores give softmax = ahardmax")
    qconst = [_row_constant(q) for q in queries]
    if all(q is not None for q in qconst) and any(k.fin is None for k in keys):
        return _ziggurat(layer, head, coords, qconst, first)
    return _gap(layer, head, coords, queries, qconst)


def _ziggurat(layer: int, head: Head, coords: dict, qconst: list, first: int) -> HeadFact:
    step: Expr = Num(Fraction(0))
    fin_terms = []
    for (q, k, coef), qv in zip(head.score, qconst):
        key = coords[k]
        weight = BinOp("*", Num(coef), qv)
        if key.fin is not None:
            fin_terms.append((k, weight, sorted(key.fin)))
            continue
        line = affine_in(key.pe, "i") if key.pe is not None else None
        if line is None:
            raise Unsupported(f"head {head.name!r}: key dim {k!r} is neither finite-valued nor affine in the position")
        step = BinOp("+", step, BinOp("*", weight, line[0]))
    if is_zero(step, ("n",)):
        raise Unsupported(f"head {head.name!r}: position terms of the score cancel (no tie-break)")
    names = [k for k, _, _ in fin_terms]
    combos = list(itertools.product(*(vals for _, _, vals in fin_terms)))
    if len(combos) > MAX_COMBOS:
        raise Unsupported(f"head {head.name!r}: too many key value combinations")
    offsets = []
    for combo in combos:
        off: Expr = Num(Fraction(0))
        for (_, weight, _), v in zip(fin_terms, combo):
            off = BinOp("+", off, BinOp("*", weight, Num(v)))
        offsets.append(off)
    values = _values_by_combo(head, coords, names, combos)
    classes: list[int] = []
    ties = []
    for a, b in itertools.combinations(range(len(combos)), 2):
        ratio = BinOp("/", BinOp("-", offsets[a], offsets[b]), step)
        if integer_polynomial_degree(ratio, "n") is None:
            raise Unsupported(f"head {head.name!r}: score offsets are not on the lattice of step A(n) = "
                              f"{_txt(step)} (L-ziggurat needs integer multiples)")
        if is_zero(ratio, ("n",)):
            continue
        if head.hard != "average" and (values is None or values[a] != values[b]):
            ties.append(ratio)
    for a in range(len(combos)):
        if not any(is_zero(BinOp("-", offsets[a], offsets[b]), ("n",)) for b in classes):
            classes.append(a)
    return HeadFact(layer, head, "ziggurat", step=step, classes=max(1, len(classes)), tie_gaps=tuple(ties),
                    lemma="L-ziggurat (lattice of step |A(n)|, c positions a level; L-tiebreak)")


def _values_by_combo(head: Head, coords: dict, names: list[str], combos: list) -> list | None:
    """The value vector each key combination carries, when the values are read from key dims only."""
    if not all(v in names for _, v, _ in head.value):
        return None
    return [tuple(sorted((o, c * combo[names.index(v)]) for o, v, c in head.value)) for combo in combos]


def _gap(layer: int, head: Head, coords: dict, queries: list, qconst: list) -> HeadFact:
    if head.hard != "average":
        raise Unsupported(f"head {head.name!r}: query-dependent scores under {head.hard}-hard attention "
                          "(tied maxima cannot be excluded)")
    qdims = {q for q, _, _ in head.score}
    if all(q is not None and isinstance(q, Num) for q in qconst):
        qdim, weights = None, [coef * q.value for (_, _, coef), q in zip(head.score, qconst)]
    elif len(qdims) == 1:
        qdim, weights = next(iter(qdims)), [coef for _, _, coef in head.score]
        if coords[qdim].fin is None and coords[qdim].grid is None:
            raise Unsupported(f"head {head.name!r}: no lower bound on non-zero values of query dim {qdim!r}")
    else:
        raise Unsupported(f"head {head.name!r}: scores mix several position-dependent query dims")
    keyvals = [sorted(coords[k].fin) if coords[k].fin is not None else None for _, k, _ in head.score]
    if any(v is None for v in keyvals):
        raise Unsupported(f"head {head.name!r}: query-dependent score with a position-dependent key")
    sums = set()
    for combo in itertools.product(*keyvals):
        sums.add(sum((w * v for w, v in zip(weights, combo)), Fraction(0)))
        if len(sums) > MAX_FIN:
            raise Unsupported(f"head {head.name!r}: too many key score values")
    ordered = sorted(sums)
    diffs = [b - a for a, b in zip(ordered, ordered[1:])]
    return HeadFact(layer, head, "gap", delta_key=min(diffs) if diffs else Fraction(1),
                    query_coord=None if qdim is None else coords[qdim],
                    lemma="L-gap (rational gap bound: non-zero gaps ≥ min|w|·min ΔK)")


def _txt(e: Expr) -> str:
    from ..expr import to_text

    return to_text(e)


def attention_coords(layer: AttentionLayer, coords: dict, first: int, facts: list) -> dict:
    new = dict(coords)
    for fact in facts:
        for out, val in _value_table(fact.head, coords).items():
            if val.grid is not None and "i" in variables_of(val.grid):
                val = Coord(fin=val.fin)  # the key's grid varies with the key position
            if fact.kind == "uniform" and val.fin is not None and len(val.fin) == 1:
                contrib = Coord(fin=val.fin, grid=val.grid)  # the average of equal values
            elif fact.kind == "uniform" and not may_be_empty(fact.head.visible):
                contrib = Coord(grid=_times(val.grid, visible_count(fact.head.visible, first)))
            elif fact.head.hard != "average":
                contrib = val
            else:
                contrib = Coord()
            if may_be_empty(fact.head.visible) and contrib.fin is not None:
                contrib = Coord(fin=contrib.fin | {Fraction(0)}, grid=contrib.grid)
            new[out] = _add(new[out], contrib)
    return new


def ffn_fact(layer_index: int, layer: FFNLayer, coords: dict) -> FFNFact:
    dims = sorted({d for u in layer.units for d, _ in u.inputs + u.outputs})
    sets = [coords[d].fin for d in dims]
    combos = None
    if all(s is not None for s in sets):
        size = 1
        for s in sets:
            size *= len(s)
        if size <= MAX_COMBOS:
            combos = tuple(itertools.product(*(sorted(s) for s in sets)))
    return FFNFact(layer_index, tuple(dims), combos)


def ffn_coords(layer: FFNLayer, coords: dict, fact: FFNFact) -> dict:
    new = dict(coords)
    outs = sorted({d for u in layer.units for d, _ in u.outputs})
    for d in outs:
        new[d] = Coord()
    if fact.combos is None:
        return new
    results = {d: set() for d in outs}
    for combo in fact.combos:
        row = dict(zip(fact.dims, combo))
        after = apply_ffn(layer, row)
        for d in outs:
            results[d].add(after[d])
    for d in outs:
        if len(results[d]) <= MAX_FIN:
            new[d] = Coord(fin=frozenset(results[d]), grid=Num(Fraction(_den_lcm(results[d]))))
    return new


def apply_ffn(layer: FFNLayer, row: dict) -> dict:
    """Exact FFN on one row given as {dim: value} (dims not listed are 0)."""
    after = dict(row)
    for u in layer.units:
        h = sum((c * row.get(d, Fraction(0)) for d, c in u.inputs), Fraction(0)) + u.bias
        if h > 0:
            for d, c in u.outputs:
                after[d] = after.get(d, Fraction(0)) + c * h
    return after


def analyse(model: Model) -> Structure:
    """Run the abstract interpretation through every layer; :class:`Unsupported` on a gap."""
    first = 0 if model.bos else 1
    coords = embed_coords(model)
    history = [coords]
    facts: list = []
    for k, layer in enumerate(model.layers):
        if isinstance(layer, AttentionLayer):
            heads = tuple(classify_head(k, h, coords, first) for h in layer.heads)
            facts.append(heads)
            coords = attention_coords(layer, coords, first, heads)
        else:
            fact = ffn_fact(k, layer, coords)
            facts.append(fact)
            coords = ffn_coords(layer, coords, fact)
        history.append(coords)
    return Structure(first, tuple(history), tuple(facts))

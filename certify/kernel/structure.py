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
from math import lcm, prod

from ..expr import BinOp, Expr, Num, Var, eval_exact, to_text, variables_of
from ..model import AttentionLayer, FFNLayer, Head, Model
from .polyid import affine_in, integer_polynomial, is_zero, substitute

MAX_COMBOS = 4096
MAX_FIN = 4096


class Unsupported(Exception):
    """The analysis cannot establish a fact it needs (not a refutation)."""


@dataclass(frozen=True)
class Coord:
    fin: frozenset | None = None
    pe: Expr | None = None
    grid: Expr | None = None
    offset: Fraction = Fraction(0)  # value·grid ∈ Z + offset; a non-zero offset proves value ≠ 0
    rest: frozenset | None = None  # finite values at the input positions (BOS row excluded)
    at_bos: Fraction | None = None  # the exact value at the BOS row


@dataclass(frozen=True)
class HeadFact:
    layer: int
    head: Head
    kind: str  # uniform | ziggurat | gap
    step: Expr | None = None  # ziggurat: lattice step A(n) (sign unknown; |A| used)
    offsets: tuple[Expr, ...] = ()  # ziggurat: the distinct score offsets B (one per class of key values)
    pairs: tuple = ()  # ziggurat: (class a, class b, apart_ends) for every pair of classes
    ties_apart: tuple = ()  # ziggurat, unique-hard: for keys with different values, |R| > key distance
    delta_key: Expr | None = None  # gap: min non-zero difference of key scores K(j), an expression in n
    query_coord: Coord | None = None  # gap: what is known of the query factor w_i (None: w is constant)
    homogeneous: bool = False  # gap: the maxima always carry one value (so the hard output is a key's value)
    grid_ends: tuple = ()  # gap: the query grid at rows i = first and i = n when it is affine in i
    lemma: str = ""


@dataclass(frozen=True)
class FFNFact:
    layer: int
    dims: tuple[str, ...]  # the coordinates the units read or write
    combos: tuple[tuple[Fraction, ...], ...] | None  # every joint hard value of ``dims``, if finite
    pre: tuple = ()  # per combo: each unit's exact pre-activation


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


def embed_coords(model: Model) -> dict:
    symbols = list(model.alphabet) + ([model.bos] if model.bos else [])
    pe = dict(model.position_embed)
    out = {}
    for d in model.dims:
        tokens = frozenset(dict(model.token_embed[s]).get(d, Fraction(0)) for s in symbols)
        word = [dict(model.token_embed[s]).get(d, Fraction(0)) for s in model.alphabet]
        at_bos = dict(model.token_embed[model.bos]).get(d, Fraction(0)) if model.bos else None
        if d not in pe:
            out[d] = _finite(word, at_bos)
        elif not variables_of(pe[d]):
            const = eval_exact(pe[d], {})
            out[d] = _finite([t + const for t in word], None if at_bos is None else at_bos + const)
        elif tokens == {Fraction(0)}:
            out[d] = Coord(pe=pe[d])
        else:
            out[d] = Coord()
    return out


def _sums(a: frozenset | None, b: frozenset | None) -> frozenset | None:
    if a is None or b is None or len(a) * len(b) > MAX_FIN:
        return None
    return frozenset(x + y for x in a for y in b)


def _add(a: Coord, b: Coord) -> Coord:
    """Abstract sum of two coordinates (no correlation assumed)."""
    if b.fin == {Fraction(0)}:
        return a
    if a.fin == {Fraction(0)}:
        return b
    fin = _sums(a.fin, b.fin)
    at_bos = None if a.at_bos is None or b.at_bos is None else a.at_bos + b.at_bos
    grid = _times(a.grid, b.grid) if fin is None else Num(Fraction(_den_lcm(fin)))
    return Coord(fin=fin, grid=grid, rest=_sums(a.rest, b.rest), at_bos=at_bos)


def _row_constant(c: Coord) -> Expr | None:
    """The value as an expression in n if it is the same at every position, else None."""
    if c.pe is not None and "i" not in variables_of(c.pe):
        return c.pe
    if c.fin is not None and len(c.fin) == 1:
        return Num(next(iter(c.fin)))
    return None


def _scale(values: frozenset | None, coef: Fraction) -> frozenset | None:
    return None if values is None else frozenset(coef * v for v in values)


def _value_table(head: Head, coords: dict) -> dict:
    """out dim → combined value coordinate Σ coef·x[in] of one key."""
    table: dict = {}
    for out, dim, coef in head.value:
        src = coords[dim]
        scaled = Coord(fin=_scale(src.fin, coef), rest=_scale(src.rest, coef),
                       at_bos=None if src.at_bos is None else coef * src.at_bos,
                       grid=None if src.grid is None else BinOp("*", src.grid, Num(Fraction(coef.denominator))))
        table[out] = _add(table[out], scaled) if out in table else scaled
    return table


def _exact(c: Coord) -> Expr | None:
    """The value as an expression in (i, n) when it is known exactly at every position."""
    if c.pe is not None:
        return c.pe
    if c.fin is not None and len(c.fin) == 1:
        return Num(next(iter(c.fin)))
    return None


def classify_head(layer: int, head: Head, coords: dict, first: int) -> HeadFact:
    keys = [coords[k] for _, k, _ in head.score]
    queries = [coords[q] for q, _, _ in head.score]
    if all(_row_constant(k) is not None for k in keys):
        if head.hard != "average":
            raise Unsupported(f"head {head.name!r}: uniform scores under {head.hard}-hard attention "
                              "(soft attention averages the tied maxima)")
        return HeadFact(layer, head, "uniform", lemma="exact: equal scores give softmax = ahardmax")
    qexact = [_exact(q) for q in queries]
    if all(q is not None for q in qexact) and any(k.fin is None for k in keys):
        return _ziggurat(layer, head, coords, qexact, first)
    return _gap(layer, head, coords, queries, [_row_constant(q) for q in queries], first)


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
    ties = []
    for a, b in itertools.combinations(range(len(combos)), 2):
        ratio = BinOp("/", BinOp("-", offsets[a], offsets[b]), step)
        if not integer_polynomial(ratio, ("i", "n")):
            raise Unsupported(f"head {head.name!r}: score offsets are not on the lattice of step A(n) = "
                              f"{to_text(step)} (L-ziggurat needs integer multiples)")
        if head.hard != "average" and (values is None or values[a] != values[b]) and not is_zero(ratio, ("i", "n")):
            ties.append(ratio)
    classes: list[int] = []
    for a in range(len(combos)):
        if not any(is_zero(BinOp("-", offsets[a], offsets[b]), ("i", "n")) for b in classes):
            classes.append(a)
    pairs = tuple((a, b, apart_ends(BinOp("/", BinOp("-", offsets[classes[a]], offsets[classes[b]]), step),
                                    head.visible, first))
                  for a, b in itertools.combinations(range(len(classes)), 2))
    return HeadFact(layer, head, "ziggurat", step=step, offsets=tuple(offsets[a] for a in classes),
                    pairs=pairs,
                    ties_apart=tuple(apart_ends(r, head.visible, first) for r in ties),
                    lemma="L-ziggurat (lattice of step |A(n)|, c positions a level; L-tiebreak)")


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
    constant = all(isinstance(q, Num) for q in qconst)
    if constant:
        weights = [coef * q.value for (_, _, coef), q in zip(head.score, qconst)]
        query, nonzero = None, any(weights)
    else:
        weights = [coef for _, _, coef in head.score]
        query = coords[next(iter(qdims))] if len(qdims) == 1 else None
        nonzero = query is not None and (query.offset != 0 or query.fin is not None and 0 not in query.fin)
    keyed = _key_delta(head, coords, weights)
    if keyed is not None and (constant or query is not None and (query.fin is not None or query.grid is not None)):
        delta, same_values = keyed
        ends = ()
        if query is not None and query.fin is None and affine_in(query.grid, "i") is not None:
            ends = tuple(substitute(query.grid, "i", row) for row in (Num(Fraction(first)), Var("n")))
        return HeadFact(layer, head, "gap", delta_key=delta, query_coord=query, homogeneous=nonzero and same_values,
                        grid_ends=ends,
                        lemma="L-gap (non-zero gaps ≥ min|w_i|·min ΔK)")
    raise Unsupported(f"head {head.name!r}: no lower bound on its non-zero score gaps (needs one query factor "
                      "with a known grid and keys that are finite-valued or affine in the position)")


def _key_delta(head: Head, coords: dict, weights: list) -> tuple[Expr, bool] | None:
    """(min non-zero |K(j) − K(j')|, whether equal K means equal values) for K(j) = Σ w_t·k_t(j):
    keys with finite values, or keys affine in j (then K is injective and maxima are single keys)."""
    keys = [coords[k] for _, k, _ in head.score]
    if all(k.fin is not None for k in keys):
        names = [k for _, k, _ in head.score]
        combos = list(itertools.product(*(sorted(k.fin) for k in keys)))
        if len(combos) > MAX_COMBOS:
            return None
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


def attention_coords(layer: AttentionLayer, coords: dict, first: int, facts: list) -> dict:
    new = dict(coords)
    for fact in facts:
        for out, val in _value_table(fact.head, coords).items():
            if val.grid is not None and "i" in variables_of(val.grid):
                val = Coord(fin=val.fin)  # the key's grid varies with the key position
            if fact.kind == "uniform" and val.fin is not None and len(val.fin) == 1:
                contrib = Coord(fin=val.fin, grid=val.grid)  # the average of equal values
            elif fact.kind == "uniform" and not may_be_empty(fact.head.visible):
                contrib = _mean(val, fact.head.visible, first)
            elif fact.head.hard != "average" or fact.homogeneous:
                contrib = Coord(fin=val.fin, grid=val.grid)  # some key's value; which row's is unknown
            else:
                contrib = Coord()
            if may_be_empty(fact.head.visible) and contrib.fin is not None:
                contrib = Coord(fin=contrib.fin | {Fraction(0)}, grid=contrib.grid)
            new[out] = _add(new[out], contrib)
    return new


def _mean(val: Coord, visible: str, first: int) -> Coord:
    """Uniform average over U_i: value·|U_i|·L ∈ Z, shifted by the BOS key's share when BOS is
    always visible and its value alone is off the grid of the other keys (then the mean is ≠ 0)."""
    count = visible_count(visible, first)
    if first == 0 and visible in ("all", "j<=i") and val.rest is not None and val.at_bos is not None:
        lcm_rest = _den_lcm(val.rest)
        shift = val.at_bos * lcm_rest
        return Coord(grid=BinOp("*", Num(Fraction(lcm_rest)), count), offset=shift - (shift.numerator // shift.denominator))
    return Coord(grid=_times(val.grid, count))


def ffn_fact(layer_index: int, layer: FFNLayer, coords: dict) -> FFNFact:
    dims = sorted({d for u in layer.units for d, _ in u.inputs + u.outputs})
    sets = [coords[d].fin for d in dims]
    combos = None
    if all(s is not None for s in sets) and prod(len(s) for s in sets) <= MAX_COMBOS:
        combos = tuple(itertools.product(*(sorted(s) for s in sets)))
    pre = () if combos is None else tuple(
        tuple(sum((c * dict(zip(dims, combo))[d] for d, c in u.inputs), Fraction(0)) + u.bias for u in layer.units)
        for combo in combos)
    return FFNFact(layer_index, tuple(dims), combos, pre)


def ffn_coords(layer: FFNLayer, coords: dict, fact: FFNFact) -> dict:
    new = dict(coords)
    outs = sorted({d for u in layer.units for d, _ in u.outputs})
    for d in outs:
        new[d] = Coord()
    if fact.combos is None:
        return new
    results = {d: set() for d in outs}
    for combo, pre in zip(fact.combos, fact.pre):
        row = dict(zip(fact.dims, combo))
        for d in outs:  # the exact FFN: old value plus c·ReLU(h) over the units writing d
            results[d].add(row[d] + sum((c * h for u, h in zip(layer.units, pre) if h > 0
                                         for e, c in u.outputs if e == d), Fraction(0)))
    for d in outs:
        if len(results[d]) <= MAX_FIN:
            new[d] = Coord(fin=frozenset(results[d]), grid=Num(Fraction(_den_lcm(results[d]))))
    return new


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

"""S-RASP on many words of one length at once: the interpreter's semantics as numpy array algebra.

Why: issue 18 asks that compiled programs agree with the interpreter on *every* word up to length 8,
and :func:`.srasp.run` costs ~1 ms a word — half an hour for Dyck-3's 6⁸ = 1.7·10⁶ words.  Here a
block of B words is evaluated at once: a value at the query position is an array of shape (B, n, 1),
a value at the key position (``x[j]``, ``j``) one of shape (B, 1, n), so an expression inside a
selection broadcasts to the (B, n, n) grid of (query i, key j) pairs and a selection is a reduction
along the key axis.  The semantics is :mod:`.srasp`'s (docs/srasp.md), which stays the reference;
tests/test_srasp.py checks the two agree word for word.

Exact, never floats: ints are int64 and every operation checks that its result stays below
``LIMIT`` in magnitude (else :class:`OverflowError`: use :func:`.srasp.run`, whose ints are
unbounded); an average is a pair (numerator, denominator) of int64 arrays and is compared with a
constant by cross-multiplication.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np

from .srasp import (Average, Binary, If, Lit, Program, Ref, Select, SraspError, Sum, Tok, Unary, Var, conjuncts,
                    side)

LIMIT = 2 ** 62  # |int| below this: a sum or difference of two such values cannot wrap int64


@dataclass(frozen=True)
class BatchConfig:
    """Words per block: at most ``cells`` (word, query, key) cells, so memory stays bounded (~8 bytes each)."""

    cells: int = 1 << 23


@dataclass(frozen=True)
class _Ratio:
    """An average: num/den elementwise, den > 0 (the default's when no key is selected)."""

    num: np.ndarray
    den: np.ndarray


def encode(program: Program, words: Sequence[Sequence[str]]) -> np.ndarray:
    """Symbol indices into the alphabet, shape (words, n); :class:`SraspError` as :func:`.srasp.run` gives it."""
    if not words:
        return np.zeros((0, 0), dtype=np.int64)
    n = len(words[0])
    if n == 0:
        raise SraspError("words have length at least 1")
    code = {s: k for k, s in enumerate(program.alphabet)}
    rows = []
    for w in words:
        if len(w) != n:
            raise SraspError("a batch holds words of one length")
        try:
            rows.append([code[s] for s in w])
        except KeyError as missing:
            raise SraspError(f"symbol {missing.args[0]!r} is not in the alphabet {list(program.alphabet)}") from None
    return np.array(rows, dtype=np.int64).reshape(len(words), n)


def run_batch(program: Program, words: Sequence[Sequence[str]], cfg: BatchConfig = BatchConfig()) -> dict:
    """Every defined name's values, an array (words, n) of bool or int64: row b is ``run(program, words[b])``."""
    ids = encode(program, words)
    if ids.shape[0] == 0:
        return {name: np.zeros((0, 0), dtype=_dtype(program, name)) for name, _ in program.defs}
    n = ids.shape[1]
    step = max(1, cfg.cells // (n * n))
    blocks = [_Block(program, ids[s:s + step]).values for s in range(0, len(ids), step)]
    return {name: np.concatenate([b[name] for b in blocks]) for name, _ in program.defs}


def decisions_batch(program: Program, words: Sequence[Sequence[str]], cfg: BatchConfig = BatchConfig()) -> np.ndarray:
    """The outputs, an array (words, output positions): row b is ``decisions(program, words[b])`` — bools,
    or argmax indices (the first true name, 0 when none is)."""
    values = run_batch(program, words, cfg)
    out = program.output
    flags = np.stack([values[name] for name in out.names], axis=-1)  # (words, n, names)
    if out.position == "last":
        flags = flags[:, -1:]
    return np.argmax(flags, axis=-1) if out.argmax else flags[..., 0]


def _dtype(program: Program, name: str):
    return bool if program.type_of(name) == "bool" else np.int64


def _bound(x) -> int:
    """The largest magnitude in x, as a Python int (no wrap-around)."""
    a = np.asarray(x)
    return int(np.abs(a).max()) if a.size else 0


def _fits(bound: int, what: str) -> None:
    if bound >= LIMIT:
        raise OverflowError(f"S-RASP batch: {what} may exceed 2^62 in magnitude; use srasp.run (unbounded ints)")


_VISIBLE = {"all": lambda i, j: np.ones_like(i == j), "j<i": lambda i, j: j < i, "j<=i": lambda i, j: j <= i,
            "j>i": lambda i, j: j > i, "j>=i": lambda i, j: j >= i}
_COMPARE = {"<": np.less, "<=": np.less_equal, "==": np.equal, "!=": np.not_equal, ">=": np.greater_equal,
            ">": np.greater}


class _Block:
    """One block of words of length n; ``values[name]`` has shape (B, n)."""

    def __init__(self, program: Program, ids: np.ndarray):
        self.ids, self.n = ids, ids.shape[1]
        self.alphabet = program.alphabet
        self.query = np.arange(1, self.n + 1, dtype=np.int64)[None, :, None]  # i along axis 1
        self.key = self.query.transpose(0, 2, 1)  # j along axis 2
        self.values: dict[str, np.ndarray] = {}
        self.memo: dict = {}  # Sum/selection nodes and selection key sets: the same node is computed once
        for name, e in program.defs:
            v = np.broadcast_to(self.eval(e), (len(ids), self.n, 1))[..., 0]
            self.values[name] = v.astype(_dtype(program, name))

    def eval(self, e):
        """e's value, broadcastable to (B, n, n): a _Ratio for an average, else a bool or int64 array/scalar."""
        if isinstance(e, Tok):
            return (self.ids == self.alphabet.index(e.symbol))[:, :, None]
        if isinstance(e, Lit):
            return _literal(e.value)
        if isinstance(e, Var):
            return {"i": self.query, "j": self.key, "n": np.int64(self.n)}[e.name]
        if isinstance(e, Ref):
            v = self.values[e.name]
            return v[:, None, :] if e.key else v[:, :, None]
        if isinstance(e, Unary):
            v = self.eval(e.arg)
            return ~v if e.op == "not" else -v
        if isinstance(e, Binary):
            return self._binary(e.op, self.eval(e.left), self.eval(e.right))
        if isinstance(e, If):
            return np.where(self.eval(e.cond), self.eval(e.then), self.eval(e.other))
        if isinstance(e, (Sum, Select, Average)):
            if e not in self.memo:
                self.memo[e] = self._aggregate(e)
            return self.memo[e]
        raise TypeError(e)

    def _binary(self, op: str, a, b):
        if op == "and":
            return a & b
        if op == "or":
            return a | b
        if op in _COMPARE:
            if isinstance(a, _Ratio) or isinstance(b, _Ratio):  # p/q op r/s  ⟺  p·s op r·q (q, s > 0)
                a, b = _as_ratio(a), _as_ratio(b)
                _fits(max(_bound(a.num) * _bound(b.den), _bound(b.num) * _bound(a.den)), "a cross-multiplication")
                return _COMPARE[op](a.num * b.den, b.num * a.den)
            return _COMPARE[op](a, b)
        if op == "min":
            return np.minimum(a, b)
        if op == "max":
            return np.maximum(a, b)
        _fits(_bound(a) * _bound(b) if op == "*" else _bound(a) + _bound(b), f"x {op} y")
        return {"+": np.add, "-": np.subtract, "*": np.multiply}[op](a, b)

    def _aggregate(self, e):
        if isinstance(e, Sum):
            x = np.broadcast_to(self.eval(e.arg), (len(self.ids), self.n, 1)).astype(np.int64)
            _fits(self.n * _bound(x), e.kind)
            return np.cumsum(x, axis=1) if e.kind == "psum" else x.sum(axis=1, keepdims=True)
        keys = self._keys(e.visible, e.pred)  # (B, n, n)
        found = keys.any(axis=2, keepdims=True)
        value = np.broadcast_to(self.eval(e.value), keys.shape)
        if isinstance(e, Average):
            count = keys.sum(axis=2, keepdims=True)
            hits = (keys & value).sum(axis=2, keepdims=True)
            d = e.default
            return _Ratio(np.where(found, hits, d.numerator), np.where(found, count, d.denominator))
        if e.mode == "leftmost":
            at = np.argmax(keys, axis=2)
        else:
            at = self.n - 1 - np.argmax(keys[:, :, ::-1], axis=2)
        chosen = np.take_along_axis(value, at[:, :, None], axis=2)
        return np.where(found, chosen, self.eval(e.default))

    def _keys(self, visible: str, pred):
        """The visible key positions j where the predicate holds, for every query i: (B, n, n) bool.  A
        key/query equality holds for equal values in 0..n only (docs/srasp.md)."""
        if (visible, pred) not in self.memo:
            keys = _VISIBLE[visible](self.query, self.key)
            for c in conjuncts(pred):
                if side(c) == "mixed":
                    x, y = self.eval(c.left), self.eval(c.right)
                    keys = keys & (x == y) & (x >= 0) & (x <= self.n)
                else:
                    keys = keys & self.eval(c)
            self.memo[visible, pred] = np.broadcast_to(keys, (len(self.ids), self.n, self.n))
        return self.memo[visible, pred]


def _literal(v):
    if isinstance(v, bool):
        return np.bool_(v)
    if isinstance(v, Fraction):
        return _Ratio(np.int64(v.numerator), np.int64(v.denominator))
    _fits(abs(v), f"the constant {v}")
    return np.int64(v)


def _as_ratio(x) -> _Ratio:
    return x if isinstance(x, _Ratio) else _Ratio(np.asarray(x, dtype=np.int64), np.int64(1))

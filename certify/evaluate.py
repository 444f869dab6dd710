"""Evaluators: one semantics (model-format.md), three number systems.

* :func:`hard_run`  — exact rationals, ahardmax / lhardmax / rhardmax: the reference.
* :func:`soft_run`  — softmax at temperature τ in mpmath (max-shifted, so no overflow).
* :func:`float_run` — numpy float64/float32 softmax, streaming over key blocks with an
  online (running-max) softmax so that n = 16384 fits in memory.

All three share the embedding, the head/FFN wiring and the output rule; only the
attention weights and the number type differ.  This module imports only the model
format from the rest of hardsoft.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

from .errors import ExprError, UserError
from .expr import Expr, eval_exact, eval_mp, eval_numpy
from .model import AttentionLayer, FFNLayer, Head, Model, position_embedding

DEFAULT_DPS = 60


@dataclass(frozen=True)
class Run:
    """One evaluation: the residual stream after the embedding and after each layer."""

    n: int
    streams: tuple  # streams[k][p][d]: after k layers, stream row p (row 0 = first position), dim index d
    first_position: int  # 0 with BOS, else 1
    output_rows: tuple[int, ...]
    outputs: tuple  # output values at the output positions (argmax outputs: the tuple of the argmax dims)
    decisions: tuple  # bool (threshold outputs) or int: index of the first largest dim (argmax outputs)


def visible_keys(visible: str, i: int, first: int, last: int) -> range:
    """Key positions j that query i sees, as a range of positions."""
    if visible == "all":
        return range(first, last + 1)
    if visible == "j<=i":
        return range(first, i + 1)
    if visible == "j<i":
        return range(first, i)
    if visible == "j>=i":
        return range(i, last + 1)
    if visible == "j>i":
        return range(i + 1, last + 1)
    raise ValueError(visible)


def output_positions(model: Model, n: int) -> tuple[int, ...]:
    first = 0 if model.bos else 1
    if model.output.position == "last":
        return (n,)
    if model.output.position == "first":
        return (first,)
    return tuple(range(1, n + 1))


def check_word(model: Model, word: Sequence[str]) -> None:
    if len(word) == 0:
        raise UserError("the word is empty; inputs have length n >= 1")
    if model.max_length is not None and len(word) > model.max_length:
        raise UserError(f"the word has length {len(word)}, above the model's max_length {model.max_length}")
    for k, s in enumerate(word):
        if s not in model.alphabet:
            raise UserError(f"word position {k + 1}: {s!r} is not in the alphabet")


def embed(model: Model, word: Sequence[str], convert) -> list[list]:
    """Initial stream rows (BOS row first if any), numbers made by ``convert(Fraction)``."""
    n = len(word)
    index = {d: k for k, d in enumerate(model.dims)}
    pe = position_embedding(model, n)
    symbols = ([model.bos] if model.bos else []) + list(word)
    rows = []
    for r, sym in enumerate(symbols):
        row = [Fraction(0)] * len(model.dims)
        for d, c in model.token_embed[sym]:
            row[index[d]] += c
        for d, col in pe.items():
            row[index[d]] += col[r]
        rows.append([convert(v) for v in row])
    return rows


def _ffn(model: Model, layer: FFNLayer, rows: list[list], zero) -> list[list]:
    index = {d: k for k, d in enumerate(model.dims)}
    new = [list(r) for r in rows]
    for unit in layer.units:
        ins = [(index[d], c) for d, c in unit.inputs]
        outs = [(index[d], c) for d, c in unit.outputs]
        for p, row in enumerate(rows):
            h = sum((c * row[k] for k, c in ins), zero) + unit.bias
            if h > 0:
                for k, c in outs:
                    new[p][k] += c * h
    return new


def _attention(model: Model, layer: AttentionLayer, rows: list[list], weights, zero) -> list[list]:
    """Apply every head of the layer; ``weights(head, scores)`` gives the attention row."""
    index = {d: k for k, d in enumerate(model.dims)}
    first = 0 if model.bos else 1
    last = first + len(rows) - 1
    new = [list(r) for r in rows]
    for head in layer.heads:
        score = [(index[q], index[k], c) for q, k, c in head.score]
        value = [(index[o], index[v], c) for o, v, c in head.value]
        for i in range(first, last + 1):
            keys = visible_keys(head.visible, i, first, last)
            if len(keys) == 0:
                continue
            xi = rows[i - first]
            # the query's weight on each key dim first (Σ_q c·x_i[q]), so a key costs one term per key dim
            weights_k: dict = {}
            for q, k, c in score:
                if xi[q]:
                    weights_k[k] = weights_k.get(k, zero) + c * xi[q]
            scores = [sum((w * rows[j - first][k] for k, w in weights_k.items()), zero) for j in keys]
            alpha = weights(head, scores)
            for (o, v, c) in value:
                acc = zero
                for a, j in zip(alpha, keys):
                    if a:
                        acc += a * rows[j - first][v]
                new[i - first][o] += c * acc
    return new


def hard_weights(head: Head, scores: list[Fraction]) -> list[Fraction]:
    """ahardmax / lhardmax / rhardmax of one row of scores (theory.md §1)."""
    top = max(scores)
    winners = [k for k, s in enumerate(scores) if s == top]
    alpha = [Fraction(0)] * len(scores)
    if head.hard == "average":
        share = Fraction(1, len(winners))
        for k in winners:
            alpha[k] = share
    elif head.hard == "leftmost":
        alpha[winners[0]] = Fraction(1)
    else:
        alpha[winners[-1]] = Fraction(1)
    return alpha


def _run(model: Model, word: Sequence[str], convert, weights, zero) -> Run:
    check_word(model, word)
    n = len(word)
    rows = embed(model, word, convert)
    streams = [rows]
    for layer in model.layers:
        if isinstance(layer, FFNLayer):
            rows = _ffn(model, layer, rows, zero)
        else:
            rows = _attention(model, layer, rows, weights, zero)
        streams.append(rows)
    return read_outputs(model, n, streams, convert)


def read_outputs(model: Model, n: int, streams: list, convert) -> Run:
    """The Run of these streams: outputs and decisions read off the last one (the output rule)."""
    rows = streams[-1]
    first = 0 if model.bos else 1
    out_rows = tuple(p - first for p in output_positions(model, n))
    if model.output.argmax:
        cols = [model.dims.index(d) for d in model.output.argmax]
        vectors = tuple(tuple(rows[r][c] for c in cols) for r in out_rows)
        return Run(n, tuple(streams), first, out_rows, vectors, tuple(first_argmax(v) for v in vectors))
    od = model.dims.index(model.output.dim)
    outputs = tuple(rows[r][od] for r in out_rows)
    threshold = convert(model.output.threshold)
    return Run(n, tuple(streams), first, out_rows, outputs, tuple(bool(y > threshold) for y in outputs))


def first_argmax(values) -> int:
    """Index of the largest value, the first one on exact ties (numpy's and tracr's argmax)."""
    best = 0
    for k, v in enumerate(values):
        if v > values[best]:
            best = k
    return best


def hard_run(model: Model, word: Sequence[str]) -> Run:
    """The reference semantics, exactly."""
    return _run(model, word, Fraction, hard_weights, Fraction(0))


def tau_value_exact(tau: Expr | Fraction | int, n: int) -> Fraction:
    if isinstance(tau, (Fraction, int)):
        return Fraction(tau)
    return eval_exact(tau, {"n": n})


def soft_run(model: Model, word: Sequence[str], tau, dps: int = DEFAULT_DPS) -> Run:
    """Softmax at temperature ``tau`` (a number or an expression in n) in mpmath."""
    import mpmath

    n = len(word)
    with mpmath.workdps(dps):
        t = _tau_mp(tau, n)
        if not t > 0:
            raise UserError(f"temperature must be positive, got {mpmath.nstr(t, 10)} at n={n}")

        def convert(v: Fraction):
            return mpmath.mpf(v.numerator) / v.denominator

        def weights(_head: Head, scores: list) -> list:
            top = max(scores)
            e = [mpmath.exp((s - top) / t) for s in scores]
            total = mpmath.fsum(e)
            return [x / total for x in e]

        return _run(model, word, convert, weights, mpmath.mpf(0))


def _tau_mp(tau, n: int):
    import mpmath

    if isinstance(tau, Fraction):
        return mpmath.mpf(tau.numerator) / tau.denominator
    if isinstance(tau, (int, float, str)):
        return mpmath.mpf(tau)
    if isinstance(tau, mpmath.mpf):
        return tau
    try:
        return eval_mp(tau, {"n": n})
    except ExprError as exc:
        raise UserError(f"temperature undefined at n={n}: {exc}") from None


# ---------------------------------------------------------------- fast float path

def float_run(model: Model, word: Sequence[str], tau, dtype="float64", block: int = 1024) -> Run:
    """Vectorised softmax evaluation in float64 or float32.

    Scores are computed one key block at a time and folded into a running
    (max, normaliser, weighted value sum) triple per query, so memory is
    O(n·block) instead of O(n²).
    """
    import numpy as np

    check_word(model, word)
    dt = np.dtype(dtype).type
    n = len(word)
    first = 0 if model.bos else 1
    idx = np.arange(first, n + 1)
    index = {d: k for k, d in enumerate(model.dims)}
    x = np.zeros((len(idx), len(model.dims)), dtype=dt)
    symbols = ([model.bos] if model.bos else []) + list(word)
    for sym in set(symbols):
        rows = np.array([r for r, s in enumerate(symbols) if s == sym])
        for d, c in model.token_embed[sym]:
            x[rows, index[d]] += dt(float(c))
    for d, values in model.position_table:
        x[:, index[d]] += np.array([float(values[p]) for p in idx], dtype=dt)
    for d, e in model.position_embed:
        try:
            x[:, index[d]] += np.broadcast_to(eval_numpy(e, {"i": idx, "n": n}, dt), (len(idx),))
        except ExprError as exc:
            position_embedding(model, n)  # exact re-evaluation names the dim and the first bad position
            raise UserError(f"embed.position.{d}: undefined for n={n}: {exc}") from None
    t = dt(float(_tau_mp(tau, n)))
    if not t > 0:
        raise UserError(f"temperature must be positive at n={n}")
    streams = [x.copy()]
    for layer in model.layers:
        if isinstance(layer, FFNLayer):
            new = x.copy()
            for unit in layer.units:
                h = np.full(len(idx), dt(float(unit.bias)), dtype=dt)
                for d, c in unit.inputs:
                    h += dt(float(c)) * x[:, index[d]]
                h = np.maximum(h, 0)
                for d, c in unit.outputs:
                    new[:, index[d]] += dt(float(c)) * h
        else:
            new = x.copy()
            for head in layer.heads:
                new += _float_head(head, x, idx, t, index, dt, block)
        x = new
        streams.append(x.copy())
    out_rows = tuple(p - first for p in output_positions(model, n))
    if model.output.argmax:
        vectors = tuple(tuple(v) for v in x[list(out_rows)][:, [index[d] for d in model.output.argmax]].tolist())
        return Run(n, tuple(streams), first, out_rows, vectors, tuple(first_argmax(v) for v in vectors))
    y = x[list(out_rows), index[model.output.dim]]
    thr = dt(float(model.output.threshold))
    return Run(n, tuple(streams), first, out_rows, tuple(y.tolist()), tuple(bool(v > thr) for v in y))


def _float_head(head: Head, x, idx, t, index, dt, block: int):
    import numpy as np

    d = x.shape[1]
    S = np.zeros((d, d), dtype=dt)
    for q, k, c in head.score:
        S[index[q], index[k]] += dt(float(c))
    V = np.zeros((d, d), dtype=dt)
    for o, v, c in head.value:
        V[index[v], index[o]] += dt(float(c))
    q = x @ S  # s_ij = q_i . x_j
    vals = x @ V  # row j: the value vector written by key j
    m = len(idx)
    run_max = np.full(m, -np.inf, dtype=dt)
    run_sum = np.zeros(m, dtype=dt)
    run_val = np.zeros((m, d), dtype=dt)
    qi = idx[:, None]
    for start in range(0, m, block):
        kj = idx[None, start:start + block]
        s = (q @ x[start:start + block].T) / t
        mask = _mask(head.visible, qi, kj)
        s = np.where(mask, s, -np.inf)
        new_max = np.maximum(run_max, s.max(axis=1))
        safe = np.where(np.isfinite(new_max), new_max, 0)
        scale = np.where(np.isfinite(run_max), np.exp(run_max - safe), 0).astype(dt)
        w = np.where(mask, np.exp(s - safe[:, None]), 0).astype(dt)
        run_sum = run_sum * scale + w.sum(axis=1)
        run_val = run_val * scale[:, None] + w @ vals[start:start + block]
        run_max = new_max
    out = np.zeros((m, d), dtype=dt)
    ok = run_sum > 0
    out[ok] = run_val[ok] / run_sum[ok, None]
    return out


def _mask(visible: str, qi, kj):
    import numpy as np

    if visible == "all":
        return np.ones((qi.shape[0], kj.shape[1]), dtype=bool)
    if visible == "j<=i":
        return kj <= qi
    if visible == "j<i":
        return kj < qi
    if visible == "j>=i":
        return kj >= qi
    return kj > qi


def format_value(v) -> str:
    """Exact values as "p/q" (or an integer); others as decimal strings; argmax vectors as lists."""
    if isinstance(v, tuple):
        return "[" + ", ".join(format_value(x) for x in v) + "]"
    if isinstance(v, Fraction):
        return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
    try:
        import mpmath

        if isinstance(v, mpmath.mpf):
            return mpmath.nstr(v, 40, min_fixed=-5, max_fixed=40)
    except ImportError:  # pragma: no cover
        pass
    return repr(float(v))

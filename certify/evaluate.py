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
    """Apply every head of the layer; ``weights(head, scores)`` gives the attention row up to a positive
    factor, divided out once per row: a row of equal scores averages as (Σ v)/m in mpmath, as in real
    arithmetic (weights 1/m rounded first moved an exact mean such as 9/18 off 1/2)."""
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
            total = sum(alpha, zero)
            for (o, v, c) in value:
                acc = zero
                for a, j in zip(alpha, keys):
                    if a:
                        acc += a * rows[j - first][v]
                new[i - first][o] += c * (acc / total)
    return new


def hard_weights(head: Head, scores: list[Fraction]) -> list[Fraction]:
    """ahardmax / lhardmax / rhardmax of one row of scores (theory.md §1), up to the factor
    :func:`_attention` divides out (1 on each of the m maxima: 1/m each)."""
    top = max(scores)
    winners = [k for k, s in enumerate(scores) if s == top]
    alpha = [Fraction(0)] * len(scores)
    if head.hard == "average":
        for k in winners:
            alpha[k] = Fraction(1)
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
            return [mpmath.exp((s - top) / t) for s in scores]

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


# ---------------------------------------------------------------- floating-point path

FLOAT_FORMATS = ("float64", "float32", "bfloat16", "float16")
QUERY_CHUNK = 1 << 22  # query rows × key block entries held at once


@dataclass(frozen=True)
class FloatArith:
    """A storage format F and its accumulation format A (docs/floating-point.md): float64 and float32
    accumulate in themselves, bfloat16 and float16 in float32 (exact products, as tensor cores do)."""

    store: object  # numpy scalar type of F
    acc: object  # numpy scalar type of A

    @property
    def native(self) -> bool:
        """float64 and float32: numpy's own operations are the format's (correctly rounded; exp within
        the assumed ulps); bfloat16 and float16 go through float64, see :meth:`op`."""
        import numpy as np

        return np.dtype(self.store) in (np.float64, np.float32)

    def op(self, values):
        """One elementwise operation's result, computed in float64 and stored in F: correctly rounded
        for float32, bfloat16 and float16 (53 ≥ 2p + 2, so the double rounding is innocuous)."""
        import numpy as np

        return np.asarray(values, dtype=np.float64).astype(self.store, copy=False)

    def sum_stored(self, values_acc):
        """An accumulated (A) result stored in F."""
        import numpy as np

        return np.asarray(values_acc, dtype=self.acc).astype(self.store, copy=False)

    def a(self, values):
        return values.astype(self.acc, copy=False)


def float_arith(dtype: str) -> FloatArith:
    import numpy as np

    if dtype not in FLOAT_FORMATS:
        raise UserError(f"--precision: {dtype!r} is not one of mp, {', '.join(FLOAT_FORMATS)}")
    if dtype in ("bfloat16", "float16"):
        import ml_dtypes

        return FloatArith(ml_dtypes.bfloat16 if dtype == "bfloat16" else np.float16, np.float32)
    t = np.dtype(dtype).type
    return FloatArith(t, t)


def round_exact(values, store):
    """Exact numbers (Fractions, or mpmath reals) rounded to nearest in F: via float64 (correctly
    rounded), then to F, re-deciding exactly the values that float64 put on a midpoint of F."""
    import numpy as np

    values = list(values)
    wide = np.array([float(v) for v in values], dtype=np.float64)
    out = wide.astype(store)
    if np.dtype(store) == np.float64:
        return out
    near = out.astype(np.float64)
    toward = np.where(wide > near, np.inf, -np.inf).astype(store)
    other = np.nextafter(out, toward).astype(np.float64)  # the F neighbour on the other side of the value
    for k in np.nonzero((wide != near) & ((wide - near) == (other - wide)))[0]:  # a float64 tie: decide exactly
        v = values[k] if isinstance(values[k], Fraction) else Fraction(str(values[k]))
        mid = Fraction(float(wide[k]))
        if v != mid and (v > mid) == (other[k] > near[k]):
            out[k] = np.asarray(other[k]).astype(store)
    return out


def float_run(model: Model, word: Sequence[str], tau, dtype="float64", block: int = 1024) -> Run:
    """The soft model computed in a floating-point format with the rounding points of
    docs/floating-point.md: weights, embeddings, τ(n) and the threshold rounded to F; every dot
    product and sum accumulated in A and stored in F; softmax max-shifted, y = fl(fl(s/τ̂) − max),
    w = fl(exp y).  Attention runs over query chunks × key blocks of ``block`` keys in two passes
    (the row maximum, then weights and sums), so memory is O(block·chunk), and n = 2^16 fits."""

    import numpy as np

    with np.errstate(all="ignore"):  # an overflow to inf or nan is an outcome of the format, not an error
        return _float_run(model, word, tau, float_arith(dtype), block)


def _float_run(model: Model, word: Sequence[str], tau, ar: "FloatArith", block: int) -> Run:
    import numpy as np

    check_word(model, word)
    n = len(word)
    first = 0 if model.bos else 1
    idx = np.arange(first, n + 1)
    index = {d: k for k, d in enumerate(model.dims)}
    try:
        pe = position_embedding(model, n)
    except ExprError as exc:  # pragma: no cover - position_embedding names the dim itself
        raise UserError(str(exc)) from None
    symbols = ([model.bos] if model.bos else []) + list(word)
    tok = np.zeros((len(idx), len(model.dims)), dtype=ar.store)
    for sym in set(symbols):
        row = [Fraction(0)] * len(model.dims)
        for d, c in model.token_embed[sym]:
            row[index[d]] += c
        tok[np.array([r for r, s in enumerate(symbols) if s == sym])] = round_exact(row, ar.store)
    pos = np.zeros_like(tok)
    for d, col in pe.items():
        pos[:, index[d]] = round_exact(col, ar.store)
    x = ar.sum_stored(ar.a(tok) + ar.a(pos))
    t_exact = _tau_mp(tau, n)
    if not t_exact > 0:
        raise UserError(f"temperature must be positive at n={n}")
    t = round_exact([t_exact], ar.store)[0]
    streams = [x.copy()]
    for layer in model.layers:
        if isinstance(layer, FFNLayer):
            w_in = _matrix(ar, len(model.dims), len(layer.units), [(index[d], k, c) for k, u in enumerate(layer.units)
                                                                    for d, c in u.inputs])
            bias = round_exact([u.bias for u in layer.units], ar.store)
            w_out = _matrix(ar, len(layer.units), len(model.dims), [(k, index[d], c) for k, u in enumerate(layer.units)
                                                                     for d, c in u.outputs])
            h = ar.sum_stored(ar.a(x) @ ar.a(w_in) + ar.a(bias))
            h = np.maximum(h, ar.store(0))
            x = ar.sum_stored(ar.a(x) + ar.a(h) @ ar.a(w_out))
        else:
            total = ar.a(x)
            for head in layer.heads:
                total = total + ar.a(_float_head(head, x, idx, t, index, ar, block))
            x = ar.sum_stored(total)
        streams.append(x.copy())
    out_rows = tuple(p - first for p in output_positions(model, n))
    if model.output.argmax:
        vectors = tuple(tuple(float(v) for v in row) for row in x[list(out_rows)][:, [index[d] for d in model.output.argmax]])
        return Run(n, tuple(streams), first, out_rows, vectors, tuple(first_argmax(v) for v in vectors))
    y = x[list(out_rows), index[model.output.dim]]
    thr = round_exact([model.output.threshold], ar.store)[0]
    return Run(n, tuple(streams), first, out_rows, tuple(float(v) for v in y), tuple(bool(v > thr) for v in y))


def _matrix(ar: FloatArith, rows: int, cols: int, entries) -> object:
    """A weight matrix from exact (row, col, c) entries (summed exactly), rounded to F."""
    import numpy as np

    exact: dict = {}
    for r, c, v in entries:
        exact[(r, c)] = exact.get((r, c), Fraction(0)) + v
    m = np.zeros((rows, cols), dtype=ar.store)
    if exact:
        keys = list(exact)
        m[tuple(np.array(keys).T)] = round_exact([exact[k] for k in keys], ar.store)
    return m


def _float_head(head: Head, x, idx, t, index, ar: FloatArith, block: int):
    """One head's output rows in F (see :func:`float_run`); a head without score terms has every
    logit exactly 0 and every weight exp(0) = 1, so its sums are prefix sums (a valid order)."""
    import numpy as np

    m, d = x.shape
    out_dims = sorted({index[o] for o, _, _ in head.value})
    out = np.zeros((m, d), dtype=ar.store)
    V = _matrix(ar, d, d, [(index[v], index[o], c) for o, v, c in head.value])[:, out_dims]
    vals = ar.sum_stored(ar.a(x) @ ar.a(V))  # row j: the value vector of key j (the dims it writes)
    if not head.score:
        out[:, out_dims] = _uniform_head(head.visible, vals, ar)
        return out
    q, keys = _query_key(head, x, x, index, ar)
    groups, inverse = np.unique(keys.astype(np.float64), axis=0, return_inverse=True)
    if len(groups) <= 2:
        out[:, out_dims] = _grouped_head(head, q, keys, vals, idx, t, ar, groups, inverse.reshape(-1))
        return out
    chunk = max(1, QUERY_CHUNK // block)
    for r0 in range(0, m, chunk):
        rows = slice(r0, min(m, r0 + chunk))
        qi = idx[rows][:, None]
        ssum = np.zeros(qi.shape[0], dtype=ar.acc)
        vsum = np.zeros((qi.shape[0], len(out_dims)), dtype=ar.acc)
        for c0, c1, w in _weight_blocks(head, q[rows], keys, idx, qi, t, ar, block):  # accumulated in A
            ssum = ssum + ar.a(w).sum(axis=1)
            vsum = vsum + ar.a(w) @ ar.a(vals[c0:c1])
        ok = ssum > 0
        part = np.zeros((qi.shape[0], len(out_dims)), dtype=ar.acc)
        part[ok] = vsum[ok] / ssum[ok, None]
        out[rows.start:rows.stop, out_dims] = ar.sum_stored(part)
    return out


def _query_key(head: Head, x_query, x, index, ar: FloatArith):
    """q_i = fl(Σ_q c·x_i[q]) per key dim, and the key dims of every row: zero columns dropped (adding
    exact zeros changes no rounded sum)."""
    d = x.shape[1]
    key_dims = sorted({index[k] for _, k, _ in head.score})
    S = _matrix(ar, d, d, [(index[q], index[k], c) for q, k, c in head.score])[:, key_dims]
    return ar.sum_stored(ar.a(x_query) @ ar.a(S)), x[:, key_dims]


def _weight_blocks(head: Head, q, x, idx, qi, t, ar: FloatArith, block: int):
    """(c0, c1, w) per key block: w = fl(exp(fl(z − max z))) over the visible keys, 0 elsewhere, with the
    row maximum taken over every block first (pass 1) so that no block is rescaled afterwards."""
    import numpy as np

    lo, hi = _key_range(head.visible, qi[:, 0], int(idx[0]), len(idx))
    blocks = [(c, min(hi, c + block)) for c in range(lo, hi, block)]
    top = np.full(qi.shape[0], -np.inf, dtype=ar.store if ar.native else np.float64)
    kept = []  # a single block's logits are kept for pass 2 instead of recomputed
    for c0, c1 in blocks:
        z, mask = _logits(head, q, x, idx, qi, c0, c1, t, ar)
        top = np.maximum(top, np.where(mask, z, -np.inf).max(axis=1))
        if len(blocks) == 1:
            kept.append((z, mask))
    top = np.where(np.isfinite(top), top, 0).astype(ar.store)
    for k, (c0, c1) in enumerate(blocks):
        z, mask = kept[k] if kept else _logits(head, q, x, idx, qi, c0, c1, t, ar)
        if ar.native:
            w = np.exp(z - top[:, None])
        else:
            y = ar.op(z.astype(np.float64) - top.astype(np.float64)[:, None])
            w = ar.op(np.exp(y.astype(np.float64)))
        w[~mask] = 0
        yield c0, c1, w


def attention_weights(model: Model, run: Run, layer: int, head_name: str, position: int, tau, dtype: str):
    """The normalised weights (float64 view of the F values' quotient in A) of one head at one query
    position, over every key position first..n, from the stream that enters ``layer`` in ``run``."""
    import numpy as np

    ar = float_arith(dtype)
    head = next(h for h in model.layers[layer].heads if h.name == head_name)
    index = {d: k for k, d in enumerate(model.dims)}
    x = run.streams[layer]
    idx = np.arange(run.first_position, run.n + 1)
    q, x = _query_key(head, x[[position - run.first_position]], x, index, ar)
    t = round_exact([_tau_mp(tau, run.n)], ar.store)[0]
    w = np.zeros(len(idx), dtype=ar.acc)
    with np.errstate(all="ignore"):
        for c0, c1, blk in _weight_blocks(head, q, x, idx, np.array([[position]]), t, ar, 1 << 16):
            w[c0:c1] = ar.a(blk[0])
        return (w / w.sum(dtype=ar.acc)).astype(np.float64)


def _logits(head: Head, q, x, idx, qi, c0: int, c1: int, t, ar: FloatArith):
    """z = fl(fl(q_i · x_j) / τ̂) for keys c0..c1 − 1 (row indices), and the visibility mask."""
    import numpy as np

    s = ar.sum_stored(ar.a(q) @ ar.a(x[c0:c1]).T)
    z = s / t if ar.native else ar.op(s.astype(np.float64) / np.float64(t))
    return z, _mask(head.visible, qi, idx[None, c0:c1])


def _key_range(visible: str, queries, first: int, m: int) -> tuple[int, int]:
    """Row indices [lo, hi) of the keys some query of the chunk sees (the others are all masked)."""
    if visible in ("j<=i", "j<i"):
        return 0, min(m, int(queries[-1]) - first + 1)
    if visible in ("j>=i", "j>i"):
        return max(0, int(queries[0]) - first), m
    return 0, m


def _visible_sums(visible: str, values, ar: FloatArith):
    """Per query row, Σ of ``values`` rows over its visible keys, as prefix sums in A (a valid order)."""
    import numpy as np

    m = values.shape[0]
    va = ar.a(values)
    zero = np.zeros((1,) + va.shape[1:], dtype=ar.acc)
    ahead = np.concatenate([zero, np.cumsum(va, axis=0, dtype=ar.acc)])  # ahead[k] = Σ_{rows < k}
    behind = np.concatenate([np.cumsum(va[::-1], axis=0, dtype=ar.acc)[::-1], zero])  # behind[k] = Σ_{rows ≥ k}
    return {"all": np.broadcast_to(ahead[m], va.shape), "j<=i": ahead[1:], "j<i": ahead[:-1],
            "j>=i": behind[:-1], "j>i": behind[1:]}[visible]


def _grouped_head(head: Head, q, x, vals, idx, t, ar: FloatArith, groups, inverse):
    """Keys in at most two classes of equal key vectors (e.g. BOS and the rest) get equal logits and
    weights: Σ_j w_j v_j = Σ_g w_g·(Σ_{j∈g} v_j), each term still through at most N + 1 roundings."""
    import numpy as np

    ones = np.ones((len(idx), 1), dtype=ar.store)
    z_all, counts, sums = [], [], []
    for g in range(len(groups)):
        member = (inverse == g)[:, None]
        rep = int(np.argmax(member[:, 0]))
        z_all.append(_logits(head, q, x, idx, idx[:, None], rep, rep + 1, t, ar)[0][:, 0])
        counts.append(_visible_sums(head.visible, np.where(member, ones, ar.store(0)), ar)[:, 0])
        sums.append(_visible_sums(head.visible, np.where(member, vals, ar.store(0)), ar))
    seen = [c > 0 for c in counts]
    top = np.max([np.where(v, z.astype(np.float64), -np.inf) for z, v in zip(z_all, seen)], axis=0)
    top = np.where(np.isfinite(top), top, 0).astype(ar.store).astype(np.float64)
    ssum = np.zeros(len(idx), dtype=ar.acc)
    vsum = np.zeros(vals.shape, dtype=ar.acc)
    for z, c, sm, v in zip(z_all, counts, sums, seen):
        y = z - top.astype(ar.store) if ar.native else ar.op(z.astype(np.float64) - top)
        w = ar.a(np.where(v, np.exp(y) if ar.native else ar.op(np.exp(y.astype(np.float64))), ar.store(0)))
        ssum = ssum + w * c
        vsum = vsum + w[:, None] * sm
    out = np.zeros(vals.shape, dtype=ar.acc)
    ok = ssum > 0
    out[ok] = vsum[ok] / ssum[ok, None]
    return ar.sum_stored(out)


def _uniform_head(visible: str, vals, ar: FloatArith):
    """Every visible weight is exp(0) = 1: the value sum and the count as prefix sums in A."""
    import numpy as np

    total = _visible_sums(visible, vals, ar)
    count = _visible_sums(visible, np.ones((vals.shape[0], 1), dtype=ar.store), ar)[:, 0]
    out = np.zeros(total.shape, dtype=ar.acc)
    ok = count > 0
    out[ok] = total[ok] / count[ok, None]
    return ar.sum_stored(out)


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

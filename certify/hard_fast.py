"""The exact hard semantics at long lengths: float-screened maxima, exact decisions.

Why: :func:`certify.evaluate.hard_run` scores every (query, key) pair in Fractions, which
costs minutes per word for the deep compiled models at n = 1000, and the critical-temperature
search (:mod:`certify.critical`) needs the hard reference of hundreds of such words.  The
result here is *identical* to ``hard_run`` (same Fractions, same decisions; tested on every
shipped model and on random models): only the search for each row's maxima is accelerated.

How the maxima stay exact: float64 scores F_ij come with an error bound B_ij = 1e-9·Σ|terms|
(the rounding of a dot product of d terms is below d·2⁻⁵³·Σ|terms|, about 10⁻¹⁴·Σ|terms| for
the models' widths, so the bound has a 10⁵ margin).  A key whose float score is more than
2·max B below the row's float maximum is strictly below the exact maximum, so only the
remaining candidates are scored in Fractions (once per distinct key vector), and the winners
are those exactly equal to the largest of them.  Values are averaged exactly (prefix sums
when the winners are the whole visible range, else counts of distinct value vectors).  The float
scores are formed a block of query rows at a time (:data:`BLOCK_ENTRIES`), so memory stays O(n) per
block instead of n × n — the finite-precision runs compare against this reference at n = 2^16.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from .evaluate import Run, _ffn, check_word, embed, read_outputs, visible_keys
from .model import AttentionLayer, Head, Model

RELATIVE_SCORE_ERROR = 1e-9  # bound on |float score − exact score| / Σ|terms| (see the module docstring)
BLOCK_ENTRIES = 2 ** 24  # float scores held at once (query rows × keys): 128 MiB a matrix, so n = 2^16 fits


def hard_run_fast(model: Model, word: Sequence[str]) -> Run:
    """:func:`certify.evaluate.hard_run`, with the rows' maxima found by float screening."""
    check_word(model, word)
    n = len(word)
    rows = embed(model, word, Fraction)
    streams = [rows]
    for layer in model.layers:
        rows = _attention(model, layer, rows) if isinstance(layer, AttentionLayer) else _ffn(model, layer, rows, Fraction(0))
        streams.append(rows)
    return read_outputs(model, n, streams, Fraction)


def _ids(vectors: list[tuple]) -> tuple[list[int], list[tuple]]:
    """Each row's id among the distinct vectors, and the distinct vectors by id."""
    seen: dict[tuple, int] = {}
    ids = [seen.setdefault(v, len(seen)) for v in vectors]
    return ids, list(seen)


def _attention(model: Model, layer: AttentionLayer, rows: list[list]) -> list[list]:
    import numpy as np

    index = {d: k for k, d in enumerate(model.dims)}
    first = 0 if model.bos else 1
    last = first + len(rows) - 1
    X = np.array([[float(v) for v in r] for r in rows], dtype=np.float64)
    A = np.abs(X)
    new = [list(r) for r in rows]
    for head in layer.heads:
        for r, contribution in _head(head, rows, X, A, index, first, last, np):
            for o, v in contribution:
                new[r][o] += v
    return new


def _head(head: Head, rows: list[list], X, A, index: dict, first: int, last: int, np):
    """(row, [(dim, exact increment)]) for every query row that sees a key."""
    d = X.shape[1]
    S = np.zeros((d, d))
    for q, k, c in head.score:
        S[index[q], index[k]] += float(c)
    key_dims = sorted({index[k] for _, k, _ in head.score})
    value_dims = sorted({index[v] for _, v, _ in head.value})
    key_ids, key_vectors = _ids([tuple(row[k] for k in key_dims) for row in rows])
    key_ids = np.array(key_ids)
    value_ids, value_vectors = _ids([tuple(row[v] for v in value_dims) for row in rows])
    value_ids = np.array(value_ids)
    prefix = [[Fraction(0)] for _ in value_dims]
    for row in rows:
        for p, v in zip(prefix, value_dims):
            p.append(p[-1] + row[v])
    XS, AS = X @ S, A @ np.abs(S)
    per_block = max(1, BLOCK_ENTRIES // len(rows))
    start = None
    position_of = {k: p for p, k in enumerate(key_dims)}
    for i in range(first, last + 1):
        keys = visible_keys(head.visible, i, first, last)
        if len(keys) == 0:
            continue
        r, lo, hi = i - first, keys.start - first, keys.stop - first
        if start is None or not start <= r < start + per_block:  # float scores of the next block of rows
            start = r
            F = XS[start:start + per_block] @ X.T
            B = RELATIVE_SCORE_ERROR * (AS[start:start + per_block] @ A.T)
            if not (np.isfinite(F).all() and np.isfinite(B).all()):
                raise OverflowError("scores overflow float64; use certify.evaluate.hard_run")
        xi = rows[r]
        weights: dict[int, Fraction] = {}
        for q, k, c in head.score:
            if xi[index[q]]:
                weights[index[k]] = weights.get(index[k], Fraction(0)) + c * xi[index[q]]
        if not any(weights.values()):  # every visible key scores 0: all tie
            winners = np.arange(lo, hi)
        else:
            f = F[r - start, lo:hi]
            candidates = np.nonzero(f >= f.max() - 2 * B[r - start, lo:hi].max())[0] + lo
            ids = np.unique(key_ids[candidates])
            scores = {int(u): sum((w * key_vectors[u][position_of[k]] for k, w in weights.items()), Fraction(0))
                      for u in ids}
            top = max(scores.values())
            best = np.array([u for u, s in scores.items() if s == top])
            winners = candidates[np.isin(key_ids[candidates], best)]
        if head.hard == "leftmost":
            winners = winners[:1]
        elif head.hard == "rightmost":
            winners = winners[-1:]
        mean = _mean(winners, lo, hi, prefix, value_ids, value_vectors, len(value_dims), np)
        at = {v: p for p, v in enumerate(value_dims)}
        yield r, [(index[o], c * mean[at[index[v]]]) for o, v, c in head.value]


def _mean(winners, lo: int, hi: int, prefix, value_ids, value_vectors, width: int, np) -> list[Fraction]:
    count = len(winners)
    if count == hi - lo:  # the whole visible range
        return [(p[hi] - p[lo]) / count for p in prefix]
    if count == 1:
        return list(value_vectors[value_ids[winners[0]]])
    tally = np.bincount(value_ids[winners])
    total = [Fraction(0)] * width
    for u in np.nonzero(tally)[0]:
        for p, v in enumerate(value_vectors[u]):
            total[p] += int(tally[u]) * v
    return [t / count for t in total]

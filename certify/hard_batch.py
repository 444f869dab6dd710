"""Hard decisions of many words of one length at once: numpy float64, ties screened by a margin.

Why: compiled-versus-reference sweeps ("every word up to length 8", issue 18) and brute-force
simulability checks need the hard model on 10^5–10^6 words, and the exact evaluator
(:func:`certify.evaluate.hard_run`) costs 0.1–1 s a word on the deep compiled models.  This
evaluator is a *test instrument*, not a proof: it decides exactly as ``hard_run`` whenever every
comparison it makes is clear — two scores of a row are either within ``tie`` of each other
(treated as equal: the models' rational scores then are equal, their float rounding is ≈ 10⁻¹⁵)
or at least ``apart`` apart, and likewise outputs against their threshold and argmax dims against
each other.  Any comparison in the grey zone between ``tie`` and ``apart`` is counted in
:attr:`Batch.unclear`; a caller that needs ``hard_run``'s answers must require it to be 0 (and
re-run unclear words exactly).  The kernel proves non-zero score gaps of γ(n) ≫ ``apart`` at the
lengths such sweeps reach (e.g. 1/(2n³) ≈ 10⁻³ at n = 8).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .evaluate import check_word
from .model import AttentionLayer, Model, position_embedding


@dataclass(frozen=True)
class BatchConfig:
    """Screening margins (absolute, on scores and outputs of size ≲ 10^3) and the chunk size."""

    tie: float = 1e-9
    apart: float = 1e-6
    chunk: int = 20000  # words per numpy block (memory: chunk·(n+1)·dims floats)


@dataclass(frozen=True)
class Batch:
    decisions: np.ndarray  # words × output positions: bool (threshold) or int (argmax index)
    unclear: int  # comparisons that fell between the tie and apart margins (0: decisions are hard_run's)


def hard_batch(model: Model, words: Sequence[Sequence[str]], cfg: BatchConfig = BatchConfig()) -> Batch:
    """Hard decisions of ``words`` (all of one length) and the count of unclear comparisons."""
    if not words:
        return Batch(np.zeros((0, 0), dtype=bool), 0)
    n = len(words[0])
    for w in words:
        if len(w) != n:
            raise ValueError("hard_batch: every word must have the same length")
        check_word(model, w)
    outs, unclear = [], 0
    for start in range(0, len(words), cfg.chunk):
        d, u = _chunk(model, words[start:start + cfg.chunk], n, cfg)
        outs.append(d)
        unclear += u
    return Batch(np.concatenate(outs), unclear)


def _embed(model: Model, words, n: int) -> np.ndarray:
    index = {d: k for k, d in enumerate(model.dims)}
    first = 0 if model.bos else 1
    symbols = ([model.bos] if model.bos else []) + list(model.alphabet)
    table = np.zeros((len(symbols), len(model.dims)))
    for s, sym in enumerate(symbols):
        for d, c in model.token_embed[sym]:
            table[s, index[d]] += float(c)
    code = {sym: s for s, sym in enumerate(symbols)}
    ids = np.array([([0] if model.bos else []) + [code[a] for a in w] for w in words], dtype=np.int64)
    X = table[ids]
    for d, col in position_embedding(model, n).items():
        X[:, :, index[d]] += np.array([float(v) for v in col])
    assert X.shape[1] == n + 1 - first
    return X


def _mask(visible: str, rows: int) -> np.ndarray:
    i, j = np.indices((rows, rows))
    return {"all": np.ones((rows, rows), dtype=bool), "j<=i": j <= i, "j<i": j < i, "j>=i": j >= i,
            "j>i": j > i}[visible]


def _sparse(pairs, index: dict) -> tuple[list[int], list[int], np.ndarray]:
    """(row dims, column dims, matrix) of Σ c over (row dim, column dim, c): only the dims used."""
    rows = sorted({index[r] for r, _, _ in pairs})
    cols = sorted({index[c] for _, c, _ in pairs})
    at_r, at_c = {d: k for k, d in enumerate(rows)}, {d: k for k, d in enumerate(cols)}
    M = np.zeros((len(rows), len(cols)))
    for r, c, v in pairs:
        M[at_r[index[r]], at_c[index[c]]] += float(v)
    return rows, cols, M


def _ffn(layer, X: np.ndarray, index: dict) -> np.ndarray:
    ins, _, w_in = _sparse([(d, k, c) for k, u in enumerate(layer.units) for d, c in u.inputs],
                           {**index, **{k: k for k in range(len(layer.units))}})
    bias = np.array([float(u.bias) for u in layer.units])
    h = np.full(X.shape[:2] + (len(layer.units),), bias)
    used = sorted({k for k, u in enumerate(layer.units) if u.inputs})
    if ins:
        h[:, :, used] += X[:, :, ins] @ w_in
    h = np.maximum(h, 0.0)
    _, outs, w_out = _sparse([(k, d, c) for k, u in enumerate(layer.units) for d, c in u.outputs],
                             {**index, **{k: k for k in range(len(layer.units))}})
    producing = sorted({k for k, u in enumerate(layer.units) if u.outputs})
    if outs:
        X[:, :, outs] += h[:, :, producing] @ w_out  # in place: h was read off X before
    return X


def clearances(model: Model, words: Sequence[Sequence[str]], cfg: BatchConfig = BatchConfig()) -> np.ndarray:
    """For each word (all of one length), the float distance of its closest output row to changing its decision:
    |y − θ|, or top − runner-up for an argmax output.  Why: the search for hard outputs exactly on θ
    (:func:`certify.refute.tie_words`) screens every short word at once and runs the exact evaluator only where
    this is below ``apart`` -- a screen, never a proof (the exact run decides)."""
    if not words:
        return np.zeros(0)
    n = len(words[0])
    out = []
    for start in range(0, len(words), cfg.chunk):
        X, index, out_rows, _ = _forward(model, words[start:start + cfg.chunk], n, cfg)
        if model.output.argmax:
            V = np.sort(X[:, out_rows][:, :, [index[d] for d in model.output.argmax]], axis=2)
            gap = V[:, :, -1] - V[:, :, -2] if V.shape[2] > 1 else np.full(V.shape[:2], np.inf)
        else:
            gap = np.abs(X[:, out_rows, index[model.output.dim]] - float(model.output.threshold))
        out.append(gap.min(axis=1))
    return np.concatenate(out)


def _forward(model: Model, words, n: int, cfg: BatchConfig) -> tuple[np.ndarray, dict, list[int], int]:
    """The residual stream after the last layer, the dims' indices, the output rows and the unclear count."""
    index = {d: k for k, d in enumerate(model.dims)}
    X = _embed(model, words, n)
    rows = X.shape[1]
    unclear = 0
    for layer in model.layers:
        if isinstance(layer, AttentionLayer):
            updates = []  # every head reads the layer's input: add the outputs after all heads ran
            for head in layer.heads:
                dims, delta, u = _head(head, X, index, rows, cfg)
                updates.append((dims, delta))
                unclear += u
            for dims, delta in updates:
                X[:, :, dims] += delta
        else:
            X = _ffn(layer, X, index)
    first = 0 if model.bos else 1
    pos = model.output.position
    out_rows = [n - first] if pos == "last" else [0] if pos == "first" else list(range(1 - first, n + 1 - first))
    return X, index, out_rows, unclear


def _chunk(model: Model, words, n: int, cfg: BatchConfig) -> tuple[np.ndarray, int]:
    X, index, out_rows, unclear = _forward(model, words, n, cfg)
    if model.output.argmax:
        V = X[:, out_rows][:, :, [index[d] for d in model.output.argmax]]
        near = V.max(axis=2, keepdims=True) - V
        unclear += int(((near > cfg.tie) & (near < cfg.apart)).sum())
        return np.argmax(near <= cfg.tie, axis=2), unclear  # the first dim tied with the top (first_argmax)
    y = X[:, out_rows, index[model.output.dim]] - float(model.output.threshold)
    unclear += int(((np.abs(y) > cfg.tie) & (np.abs(y) < cfg.apart)).sum())
    return y > cfg.tie, unclear  # on the threshold (|y| ≤ tie) the hard output is not above it


def _head(head, X: np.ndarray, index: dict, rows: int, cfg: BatchConfig) -> tuple[list[int], np.ndarray, int]:
    if head.score:
        qs, ks, C = _sparse(head.score, index)
        S = (X[:, :, qs] @ C) @ X[:, :, ks].transpose(0, 2, 1)  # S[b, i, j] = Σ c·x_i[q]·x_j[k]
    else:
        S = np.zeros((X.shape[0], rows, rows))
    mask = _mask(head.visible, rows)
    seen = mask.any(axis=1)  # query rows with at least one key
    S = np.where(mask, S, -np.inf)
    with np.errstate(invalid="ignore"):  # rows without keys: −∞ − (−∞)
        gap = np.where(mask, S.max(axis=2, keepdims=True) - S, np.inf)
    unclear = int(((gap > cfg.tie) & (gap < cfg.apart))[:, seen].sum())
    winners = gap <= cfg.tie
    if head.hard == "average":
        A = winners / np.maximum(winners.sum(axis=2, keepdims=True), 1)
    else:
        keys = np.arange(rows)
        pick = np.where(winners, keys, -1 if head.hard == "rightmost" else rows)
        chosen = pick.max(axis=2) if head.hard == "rightmost" else pick.min(axis=2)
        A = (keys[None, None, :] == chosen[:, :, None]).astype(float)
    A = A * seen[None, :, None]
    vs, os, W = _sparse([(v, o, c) for o, v, c in head.value], index)
    return os, A @ (X[:, :, vs] @ W), unclear

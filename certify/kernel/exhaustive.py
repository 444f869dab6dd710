"""L-exhaustive: soft = hard on every word of one length n, by enumeration with per-word bounds.

Why: on bounded (v2) models the box analysis carries value *sets* through the heads (every mean
of any values), so categorical outputs appear to tie and nothing is proved.  When |Σ|^n is small
the words themselves can be enumerated: for each word the exact hard run is computed (rationals,
memoised by distinct row vector, since compiled models' rows take few distinct values), and a
rigorous bound r ≥ |soft − hard| on every coordinate of every row, valid for every τ in
[τ_lo, τ_hi], is carried along the same run.  A length is accepted only if every word's soft
output makes the hard decision with a positive margin.

The per-word bounds, by induction over layers (an embedding is exact, r = 0):

* FFN unit z = w·x + b: |z̃ − z| ≤ δ = |w|·r; the unit's error is 0 when z + δ ≤ 0 (both ReLUs
  are off), else ≤ δ; the layer adds Σ |out|·error (ReLU is 1-Lipschitz).
* head, query i, visible keys j, hard maxima W (score m), deficits d_j = m − s_j > 0 off W:
  |s̃_ij − s_ij| ≤ σ_ij = (|x_i| + r_i)ᵀ|A| r_j + r_iᵀ|A||x_j|.  With x = σ/τ_lo ≤ 1 off W and
  2x ≤ 0.69 on W: the weight off W is ≤ λ = Σ_{j∉W} e^{−d_j/τ_hi}(1 + 2x_j) / (|W|(1 − x_W))
  (e^x ≤ 1 + 2x on [0, 1] and e^y − 1 ≤ 2y on [0, ln 2], the convex function below its chords
  1 + (e − 1)x and 1 + y/ln 2; e^{−x} ≥ 1 − x), and ‖w̃ − h‖₁ ≤ 2λ + (e^{2x_W} − 1) ≤ 2λ + 4x_W
  (L-gap's 2r/(m + r), plus the spread of weights inside W, L-lipschitz); ‖w̃ − h‖₁ ≤ 2 always
  (the only bound used for a tie under leftmost/rightmost).  Then |õ − o| ≤ max_j ρ_j +
  ‖w̃ − h‖₁·(max_j y_j − min_j y_j)/2 for the head's output o = mean of y over W, with
  ρ_j = |C|·r_j the value map's error (Σ(w̃ − h) = 0, so any centre c may be subtracted).
* output: an argmax row is decided as hard when top − y_k > r_top + r_k for every other dim k
  (or both errors are exactly 0 on an exact tie); a threshold row when |y − θ| > r (or r = 0).

Rigour of the float arithmetic: every bound is a float ≥ the real quantity.  Exact rationals
enter rounded outward (the next float away from round-to-nearest); each elementwise +, ×, / of
non-negative floats is followed by one step up (``nextafter``), which covers round-to-nearest in
every range, underflow included; a matrix product or sum of k ≤ 2^20 non-negative terms is
scaled by 1 + 2^-31 ≥ 1/(1 − γ_k) after adding k·2^-1074 for subnormal products; a result is
kept exactly 0 only when every term has an exact zero factor.  e^{−d/τ_hi} is an arb enclosure's
upper end, rounded up.  A word with a non-finite bound or a violated side condition fails.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, ctx

from ..model import AttentionLayer, Model, position_embedding

LEMMAS = ("L-gap", "L-lipschitz")
CHUNK = 1024  # words per vectorised batch
TINY = 2.0 ** -1074
GAMMA = 1 + 2.0 ** -31  # ≥ 1/(1 − γ_k) for every contraction length k ≤ MAX_INNER
MAX_INNER = 2 ** 20
SPREAD_LIMIT = 0.69  # 2x_W ≤ this < ln 2, so e^{2x_W} − 1 ≤ 4x_W


@dataclass(frozen=True)
class LengthCheck:
    """The rule's outcome at one length: ``ok`` when every one of ``words`` words is decided as hard;
    ``margin`` a lower bound on min (clearance − error bound) over every word and output row."""

    n: int
    words: int
    ok: bool
    margin: Fraction | None  # None: every output row is exact (error 0) on an exact tie or threshold
    error: Fraction = Fraction(0)  # an upper bound on |soft − hard| over every output coordinate decided
    word: tuple | None = None  # not ok: the first word whose bounds do not decide it
    reason: str = ""


class _Table:
    """Distinct exact row vectors of one stage, by id."""

    def __init__(self):
        self.vectors: list[tuple] = []
        self.index: dict[tuple, int] = {}

    def id(self, vector: tuple) -> int:
        k = self.index.get(vector)
        if k is None:
            k = self.index[vector] = len(self.vectors)
            self.vectors.append(vector)
        return k


def _f_up(q: Fraction) -> float:
    if q == 0:
        return 0.0
    try:
        return math.nextafter(float(q), math.inf)
    except OverflowError:
        return math.inf if q > 0 else -1.7976931348623157e308


def _f_dn(q: Fraction) -> float:
    return -_f_up(-q)


def _exp_up(d: Fraction, tau: Fraction) -> float:
    """A float ≥ e^{−d/τ}."""
    old = ctx.prec
    ctx.prec = 64
    try:
        e = (-(arb(d.numerator) * arb(tau.denominator)) / (arb(d.denominator) * arb(tau.numerator))).exp()
        return math.nextafter(float(e.upper()), math.inf)
    finally:
        ctx.prec = old


class _Up:
    """Upward-rounded operations on non-negative float arrays (see the module docstring)."""

    def __init__(self, np):
        self.np = np

    def step(self, x, zero):
        """One step up from a fresh result ``x``, exact zeros (``zero``) kept."""
        np = self.np
        x = np.nextafter(x, np.inf, out=x)
        np.putmask(x, zero, 0.0)
        return x

    def mul(self, a, b):
        return self.step(a * b, (a == 0) | (b == 0))

    def add(self, a, b):
        s = a + b
        return self.step(s, s == 0)

    def div(self, a, b):  # b: a positive lower bound
        return self.step(a / b, a == 0)

    def dot(self, a, b):
        np = self.np
        k = a.shape[-1]
        assert k <= MAX_INNER
        z = a @ b
        if _least_positive(a, np) * _least_positive(b, np) >= 2.0 ** -1000:
            zero = z == 0  # no product of non-zeros underflows: a zero sum has only zero terms
        else:
            zero = ((a != 0).astype(np.float64) @ (b != 0).astype(np.float64)) == 0
        z += k * TINY
        z = np.nextafter(z, np.inf, out=z)
        z *= GAMMA
        return self.step(z, zero)

    def total(self, a, axis):
        np = self.np
        return self.step(a.sum(axis=axis) * GAMMA, ~(a != 0).any(axis=axis))


def _least_positive(a, np) -> float:
    """The least non-zero |entry| (inf when there is none; entries are ≥ 0 or nan)."""
    nz = a[a != 0]
    return float(np.abs(nz).min()) if nz.size else math.inf


def _visible(visible: str, m: int, first: int, np):
    p = np.arange(first, first + m)
    i, j = p[:, None], p[None, :]
    return {"all": np.ones((m, m), dtype=bool), "j<=i": j <= i, "j<i": j < i, "j>=i": j >= i, "j>i": j > i}[visible]


class _Engine:
    """Exact hard runs and per-word bounds of one model at one length, batch by batch."""

    def __init__(self, model: Model, n: int, tau_lo: Fraction, tau_hi: Fraction):
        import numpy as np

        self.np, self.up, self.model, self.n = np, _Up(np), model, n
        self.dims = model.dims
        self.index = {d: k for k, d in enumerate(model.dims)}
        self.first = 0 if model.bos else 1
        self.m = n + 1 - self.first
        self.tau_hi = tau_hi
        self.inv_tau = math.nextafter(1 / math.nextafter(float(tau_lo), 0.0), math.inf)
        self.exp_cache: dict[Fraction, float] = {}
        self.tables = [_Table() for _ in range(len(model.layers) + 1)]
        self.caches: list[dict] = [{} for _ in model.layers]
        self.noisy = _noisy_dims(model, self.index)
        self.col = np.full(len(self.dims), len(self.noisy), dtype=np.int64)  # dims never noisy: the zero column
        self.col[self.noisy] = np.arange(len(self.noisy))
        self.layers = [self._prepare(layer) for layer in model.layers]
        pe = position_embedding(model, n)
        symbols = list(model.alphabet) + ([model.bos] if model.bos else [])
        self.embed = np.zeros((len(symbols), self.m), dtype=np.int64)
        for s, sym in enumerate(symbols):
            for r in range(self.m):
                row = [Fraction(0)] * len(self.dims)
                for d, c in model.token_embed[sym]:
                    row[self.index[d]] += c
                for d, col in pe.items():
                    row[self.index[d]] += col[r]
                self.embed[s, r] = self.tables[0].id(tuple(row))
        self.out_cache: dict[int, tuple] = {}
        self.linear_cache: dict = {}

    # ------------------------------------------------------------ per-model preparation
    def _prepare(self, layer):
        np, ix = self.np, self.index
        if not isinstance(layer, AttentionLayer):
            w_in = np.zeros((len(self.dims), len(layer.units)))
            w_out = np.zeros((len(layer.units), len(self.dims)))
            for u, unit in enumerate(layer.units):
                for d, c in unit.inputs:  # a unit's dims are distinct (an object's keys)
                    w_in[ix[d], u] = _f_up(abs(c))
                for d, c in unit.outputs:
                    w_out[u, ix[d]] = _f_up(abs(c))
            zero = np.zeros((len(layer.units), 1))
            return ("ffn", layer, w_in[self.noisy], np.concatenate([w_out[:, self.noisy], zero], axis=1))
        heads = []
        for head in layer.heads:
            qd = sorted({ix[q] for q, _, _ in head.score})
            kd = sorted({ix[k] for _, k, _ in head.score})
            coef: dict = {}
            for q, k, c in head.score:
                coef[ix[q], ix[k]] = coef.get((ix[q], ix[k]), Fraction(0)) + c
            a_abs = np.zeros((len(qd), len(kd)))
            for (q, k), c in coef.items():
                a_abs[qd.index(q), kd.index(k)] = _f_up(abs(c))
            od = sorted({ix[o] for o, _, _ in head.value})
            vd = sorted({ix[v] for _, v, _ in head.value})
            value: dict = {}
            for o, v, c in head.value:
                value[ix[o], ix[v]] = value.get((ix[o], ix[v]), Fraction(0)) + c
            c_abs = np.zeros((len(vd), len(od)))
            for (o, v), c in value.items():
                c_abs[vd.index(v), od.index(o)] = _f_up(abs(c))
            heads.append({"head": head, "qd": qd, "kd": kd, "coef": coef, "a_abs": a_abs, "od": od, "vd": vd,
                          "value": value, "c_abs": c_abs, "vis": _visible(head.visible, self.m, self.first, np),
                          "q": {}, "k": {}, "y": {}, "scores": {}, "values": _Table(), "queries": _Table(),
                          "keys": _Table(), "yf": {}, "xf": {}})
        return ("attention", layer, heads)

    # ------------------------------------------------------------ one batch of words
    def run(self, tokens):
        """(ids, r, failed) after every layer for the words ``tokens`` (B × n alphabet indices)."""
        np = self.np
        b = tokens.shape[0]
        rows = tokens if not self.model.bos else np.concatenate(
            [np.full((b, 1), len(self.model.alphabet)), tokens], axis=1)
        ids = self.embed[rows, np.arange(self.m)[None, :]]
        r = np.zeros((b, self.m, len(self.noisy) + 1))  # |soft − hard| ≤ r on the noisy dims, last column 0
        failed = np.zeros(b, dtype=bool)
        for k, prepared in enumerate(self.layers):
            if prepared[0] == "ffn":
                ids, r = self._ffn(k, prepared, ids, r)
            else:
                ids, r, failed = self._attention(k, prepared[2], ids, r, failed)
            failed |= ~np.isfinite(r).all(axis=(1, 2))
        return ids, r, failed

    def _ffn(self, k: int, prepared, ids, r):
        np, up = self.np, self.up
        _, layer, w_in, w_out = prepared
        uniq, inv = np.unique(ids, return_inverse=True)
        cache, src, dst = self.caches[k], self.tables[k].vectors, self.tables[k + 1]
        for u in uniq.tolist():
            if u not in cache:
                x = src[u]
                new = list(x)
                z = []
                for unit in layer.units:
                    h = sum((c * x[self.index[d]] for d, c in unit.inputs), unit.bias)
                    z.append(h)
                    if h > 0:
                        for d, c in unit.outputs:
                            new[self.index[d]] += c * h
                cache[u] = (dst.id(tuple(new)), np.array([_f_up(h) for h in z]), np.array([_f_dn(h) for h in z]),
                            np.array([h > 0 for h in z]))
        uniq = uniq.tolist()
        new_ids = np.array([cache[u][0] for u in uniq])[inv].reshape(ids.shape)
        active = np.append((r[:, :, :-1] != 0).any(axis=(0, 1)), False)  # noisy columns that are non-zero
        if not active.any():
            return new_ids, r
        units = (w_in[active[:-1]] != 0).any(axis=0)
        if not units.any():  # no unit reads a noisy dim: the layer is exact on top of the noise
            return new_ids, r
        flat = inv.reshape(-1)
        z_up, z_dn, on = (np.stack([cache[u][t] for u in uniq])[:, units] for t in (1, 2, 3))  # per distinct id
        w = w_in[active[:-1]][:, units]
        rows = r.reshape(-1, r.shape[2])
        noise = rows[:, active[:-1].nonzero()[0]]
        # κ per id: an L∞ radius of r within which no unit changes side (r_∞·Σ|w_u| ≤ |z_u|)
        reach = up.total(w, axis=0)
        margin = np.where(on, z_dn, -z_up)
        kappa = np.where(reach > 0, np.nextafter(margin / np.where(reach > 0, reach, 1.0), -np.inf), np.inf).min(axis=1)
        linear = noise.max(axis=1) <= kappa[flat]
        chosen = [layer.units[u] for u in np.nonzero(units)[0].tolist()]
        written = sorted({int(self.col[self.index[d]]) for unit in chosen for d, c in unit.outputs if c})
        out = np.zeros((len(rows), len(written)))
        if linear.any():  # soft − hard = M_A·(x̃ − x) there, M_A = Σ_{u on} out_u w_uᵀ: paired ramps cancel
            out[linear] = self._linear_error(chosen, written, active, on, flat[linear], noise[linear])
        rest = ~linear
        if rest.any():  # unit by unit: an off unit with z + δ ≤ 0 adds nothing, any other unit ≤ |out|·δ
            delta = up.dot(noise[rest], w)
            zu, zd, o = z_up[flat[rest]], z_dn[flat[rest]], on[flat[rest]]
            dead = zu <= -delta
            unit_bound = up.dot(np.where(dead, 0.0, delta), w_out[units][:, written])
            sure = ((dead & ~o) | ((zd >= delta) & o)).all(axis=1)
            if sure.any():
                unit_bound[sure] = self._linear_error(chosen, written, active, on, flat[rest][sure], noise[rest][sure])
            out[rest] = unit_bound
        rows[:, written] = up.add(rows[:, written], out)
        return new_ids, rows.reshape(r.shape)

    def _linear_error(self, chosen, written, active, on, which, noise):
        """|M_A|·r for each row (``which``: its distinct-id index; ``noise``: r on the active columns),
        M_A = Σ_{u on} out_u w_uᵀ over the units on at the row's hard input, on the written columns."""
        np, up = self.np, self.up
        cols = np.nonzero(active)[0].tolist()  # columns of r, i.e. positions in self.noisy
        out = np.zeros((len(noise), len(written)))
        ids, per_row = np.unique(which, return_inverse=True)  # the on-pattern is a function of the distinct id
        seen: dict = {}
        group_of_id = np.array([seen.setdefault(on[u].tobytes(), len(seen)) for u in ids.tolist()])
        patterns = [np.frombuffer(b, dtype=bool) for b in seen]
        group = group_of_id[per_row.reshape(-1)]
        order = np.argsort(group, kind="stable")
        bounds = np.searchsorted(group[order], np.arange(len(patterns) + 1))
        for g, pattern in enumerate(patterns):
            key = (id(chosen[0]), pattern.tobytes(), tuple(cols), tuple(written), len(chosen))
            if key not in self.linear_cache:
                total: dict = {}
                for unit, is_on in zip(chosen, pattern.tolist()):
                    if is_on:
                        for d_in, c_in in unit.inputs:
                            for d_out, c_out in unit.outputs:
                                at = (int(self.col[self.index[d_in]]), int(self.col[self.index[d_out]]))
                                total[at] = total.get(at, Fraction(0)) + c_out * c_in
                mat = np.zeros((len(cols), len(written)))
                for (i, o), c in total.items():
                    if c and i in cols:
                        mat[cols.index(i), written.index(o)] = _f_up(abs(c))
                self.linear_cache[key] = mat
            mine = order[bounds[g]:bounds[g + 1]]
            out[mine] = up.dot(noise[mine], self.linear_cache[key])
        return out

    def _head_tables(self, h: dict, k: int, uniq):
        """Per distinct id of the batch: query weights, key vector and value vector ids (exact)."""
        src = self.tables[k].vectors
        qs, ks, ys = [], [], []
        for u in uniq.tolist():
            x = src[u]
            if u not in h["q"]:
                w: dict = {}
                for (q, kk), c in h["coef"].items():
                    if x[q]:
                        w[kk] = w.get(kk, Fraction(0)) + c * x[q]
                h["q"][u] = h["queries"].id(tuple(sorted(w.items())))
                h["k"][u] = h["keys"].id(tuple(x[kk] for kk in h["kd"]))
                h["y"][u] = h["values"].id(tuple(
                    sum((c * x[v] for (o2, v), c in h["value"].items() if o2 == o), Fraction(0)) for o in h["od"]))
            qs.append(h["q"][u])
            ks.append(h["k"][u])
            ys.append(h["y"][u])
        return qs, ks, ys

    def _attention(self, k: int, heads: list, ids, r, failed):
        np, up = self.np, self.up
        b, m = ids.shape
        uniq, inv = np.unique(ids, return_inverse=True)
        inv = inv.reshape(ids.shape)
        updates = []  # every head reads the layer's input bounds: apply the heads' errors afterwards
        keys = [inv]
        parts = []
        for h in heads:
            qs, ks, ys = self._head_tables(h, k, uniq)
            qid, q_global = _dedup(qs)
            kid, k_global = _dedup(ks)
            yid, y_global = _dedup(ys)
            y_vectors = [h["values"].vectors[g] for g in y_global]
            table = [[self._score(h, qg, kg) for kg in k_global] for qg in q_global]
            values = sorted({v for line in table for v in line})
            rank_of = {v: t for t, v in enumerate(values)}
            rank = np.array([[rank_of[v] for v in line] for line in table])
            qi, kj = np.array(qid)[inv], np.array(kid)[inv]
            vis = h["vis"]
            s = rank[qi[:, :, None], kj[:, None, :]]
            s = np.where(vis[None], s, -1)
            top = s.max(axis=2)
            win = (s == top[:, :, None]) & vis[None]
            count = win.sum(axis=2)
            if h["head"].hard != "average":  # the first (leftmost) or last (rightmost) maximum only
                pick = win.argmax(axis=2) if h["head"].hard == "leftmost" else m - 1 - win[:, :, ::-1].argmax(axis=2)
                chosen = np.zeros_like(win)
                np.put_along_axis(chosen, pick[:, :, None], True, axis=2)
                chosen &= win
            else:
                chosen = win
            # ---- bounds
            etab = np.zeros((len(values), len(values)))
            for a in range(len(values)):
                for c in range(a):
                    d = values[a] - values[c]
                    if d not in self.exp_cache:
                        self.exp_cache[d] = _exp_up(d, self.tau_hi)
                    etab[a, c] = self.exp_cache[d]
            off = vis[None] & ~win
            e = np.where(off, etab[np.maximum(top, 0)[:, :, None], np.maximum(s, 0)], 0.0)
            sigma = self._sigma(h, k, uniq, inv, r)
            x = up.mul(sigma, self.inv_tau)
            x_win = np.where(win, x, 0.0).max(axis=2)
            bad = ((x > 1) & vis[None]).any(axis=(1, 2)) | (2 * x_win > SPREAD_LIMIT).any(axis=1)
            failed = failed | bad
            x = np.where(bad[:, None, None], 0.0, x)
            x_win = np.where(bad[:, None], 0.0, x_win)
            num = up.total(up.mul(e, up.add(1.0, 2 * x)), axis=2)
            den = np.nextafter(np.maximum(count, 1) * np.nextafter(1 - x_win, -np.inf), -np.inf)
            lam = up.div(num, den)
            dev = np.minimum(up.add(2 * lam, up.mul(4.0, x_win)), 2.0)
            if h["head"].hard != "average":
                dev = np.where(count > 1, 2.0, dev)
            rho = up.dot(r[:, :, self.col[h["vd"]]], h["c_abs"]) if h["vd"] else np.zeros((b, m, len(h["od"])))
            ysrc = np.array(yid)[inv]
            for g, yv in zip(y_global, y_vectors):
                if g not in h["yf"]:
                    h["yf"][g] = ([_f_up(v) for v in yv], [_f_dn(v) for v in yv])
            yup = np.array([h["yf"][g][0] for g in y_global]).reshape(len(y_vectors), -1)[ysrc]
            ydn = np.array([h["yf"][g][1] for g in y_global]).reshape(len(y_vectors), -1)[ysrc]
            same = _value_ranks(y_vectors, np)[ysrc]
            err = np.zeros((b, m, len(h["od"])))
            for i in range(m):
                if not vis[i].any():
                    continue
                cols = vis[i]
                hi = yup[:, cols].max(axis=1)
                lo = ydn[:, cols].min(axis=1)
                equal = same[:, cols].max(axis=1) == same[:, cols].min(axis=1)  # every value exactly equal
                half = np.where(equal, 0.0, up.mul(np.nextafter(hi - lo, np.inf), 0.5))
                err[:, i] = up.add(rho[:, cols].max(axis=1), up.mul(dev[:, i, None], half))
            updates.append((self.col[h["od"]], err))
            onehot = (ysrc[:, :, None] == np.arange(len(y_vectors))[None, None, :]).astype(np.int64)
            keys.append(np.einsum("bij,bjv->biv", chosen.astype(np.int64), onehot))
            parts.append((h, y_global))
        for at, err in updates:
            r[:, :, at] = up.add(r[:, :, at], err)
        return self._combine(k, uniq, keys, parts, ids.shape), r, failed

    def _score(self, h: dict, qg: int, kg: int) -> Fraction:
        """The exact score of query-weight vector ``qg`` against key vector ``kg`` (ids in the head's tables)."""
        cache = h["scores"]
        if (qg, kg) not in cache:
            kv = h["keys"].vectors[kg]
            kpos = {d: p for p, d in enumerate(h["kd"])}
            cache[qg, kg] = sum((w * kv[kpos[kk]] for kk, w in h["queries"].vectors[qg]), Fraction(0))
        return cache[qg, kg]

    def _sigma(self, h: dict, k: int, uniq, inv, r):
        """σ_ij ≥ |s̃_ij − s_ij| (zero when the score inputs are exact)."""
        np, up = self.np, self.up
        rq, rk = r[:, :, self.col[h["qd"]]], r[:, :, self.col[h["kd"]]]
        b, m = inv.shape
        if not (rq.any() or rk.any()):
            return np.zeros((b, m, m))
        src = self.tables[k].vectors
        for u in uniq.tolist():
            if u not in h["xf"]:
                h["xf"][u] = ([_f_up(abs(src[u][d])) for d in h["qd"]], [_f_up(abs(src[u][d])) for d in h["kd"]])
        xq = np.array([h["xf"][u][0] for u in uniq.tolist()]).reshape(len(uniq), -1)[inv]
        xk = np.array([h["xf"][u][1] for u in uniq.tolist()]).reshape(len(uniq), -1)[inv]
        left = up.dot(up.add(xq, rq), h["a_abs"])
        first = up.dot(left, np.swapaxes(rk, 1, 2))
        second = up.dot(up.dot(rq, h["a_abs"]), np.swapaxes(xk, 1, 2))
        return up.add(first, second)

    def _combine(self, k: int, uniq, keys: list, parts: list, shape):
        """New exact row ids: the row's id plus, per head, the counts of each value vector among its maxima."""
        np = self.np
        b, m = shape
        flat = np.concatenate([uniq[keys[0]].reshape(b, m, 1)] + keys[1:], axis=2).reshape(b * m, -1)
        rows, inv = _unique_rows(flat, np)
        cache, src, dst = self.caches[k], self.tables[k].vectors, self.tables[k + 1]
        out = np.empty(len(rows), dtype=np.int64)
        for t, row in enumerate(rows.tolist()):
            key, at = [row[0]], 1
            for _, y_global in parts:  # the maxima's value vectors, by their ids in the head's table
                key.append(tuple((g, c) for g, c in zip(y_global, row[at:at + len(y_global)]) if c))
                at += len(y_global)
            key = tuple(key)
            got = cache.get(key)
            if got is None:
                new = list(src[row[0]])
                for (h, _), counted in zip(parts, key[1:]):
                    total = sum(c for _, c in counted)
                    for p, o in enumerate(h["od"]):
                        if total:
                            new[o] += sum((c * h["values"].vectors[g][p] for g, c in counted), Fraction(0)) / total
                got = cache[key] = dst.id(tuple(new))
            out[t] = got
        return out[inv.reshape(-1)].reshape(b, m)

    # ------------------------------------------------------------ the decision
    def decide(self, ids, r, failed):
        """(ok per word, least margin over the decided words or None)."""
        np, model = self.np, self.model
        last = self.tables[-1].vectors
        rows = _output_rows(model, self.n, self.first)
        ids, r = ids[:, rows], r[:, rows]
        if model.output.argmax:
            cols = [self.index[d] for d in model.output.argmax]
            uniq, inv = np.unique(ids, return_inverse=True)
            info = [self._argmax_info(u, cols, last) for u in uniq.tolist()]
            top = np.array([t for t, _, _ in info])[inv].reshape(ids.shape)
            glo = np.array([g for _, g, _ in info])[inv].reshape(ids.shape + (len(cols),))
            tie = np.array([z for _, _, z in info])[inv].reshape(ids.shape + (len(cols),))
            ra = r[:, :, self.col[cols]]
            rt = np.take_along_axis(ra, top[:, :, None], axis=2)
            need = self.up.add(rt, ra)
            exact = tie & (rt == 0) & (ra == 0)
            is_top = np.arange(len(cols))[None, None, :] == top[:, :, None]
            ok = (need < glo) | exact | is_top
            slack = np.where(exact | is_top, np.inf, np.nextafter(glo - need, -np.inf))
        else:
            d = self.index[model.output.dim]
            theta = model.output.threshold
            uniq, inv = np.unique(ids, return_inverse=True)
            glo = np.array([_f_dn(abs(last[u][d] - theta)) for u in uniq.tolist()])[inv].reshape(ids.shape)
            ra = r[:, :, self.col[d]]
            exact = ra == 0
            ok = (ra < glo) | exact
            slack = np.where(exact & (glo == 0), np.inf, np.nextafter(glo - ra, -np.inf))
        good = ok.reshape(len(ids), -1).all(axis=1) & ~failed
        least = slack.reshape(len(ids), -1).min(axis=1)[good]
        worst = ra.reshape(len(ids), -1).max(axis=1)[good]
        return good, (float(least.min()) if len(least) else None), (float(worst.max()) if len(worst) else 0.0)

    def _argmax_info(self, u: int, cols: list, last: list):
        if u not in self.out_cache:
            y = [last[u][c] for c in cols]
            t = max(range(len(y)), key=lambda j: (y[j], -j))
            self.out_cache[u] = (t, [_f_dn(y[t] - v) for v in y], [v == y[t] for v in y])
        return self.out_cache[u]


def _noisy_dims(model: Model, index: dict) -> list[int]:
    """Dims whose soft value may differ from the hard one: written by a head, or by a unit reading such a dim."""
    noisy: set[int] = set()
    for layer in model.layers:
        if isinstance(layer, AttentionLayer):
            noisy |= {index[o] for h in layer.heads for o, _, _ in h.value}
        else:
            noisy |= {index[d] for u in layer.units if any(index[i] in noisy for i, _ in u.inputs) for d, _ in u.outputs}
    return sorted(noisy)


def _unique_rows(a, np):
    """(distinct rows, index of each row's distinct row) of a non-negative integer matrix: columns are packed
    into int64 keys a few at a time (exactly: a key times the column's range stays below 2^62), each step a 1D
    np.unique (np.unique on wide rows sorts them as bytes, far slower)."""
    key = np.zeros(len(a), dtype=np.int64)
    for c in range(a.shape[1]):
        span = int(a[:, c].max()) + 1 if len(a) else 1
        if (int(key.max()) + 1 if len(a) else 1) * span >= 2 ** 62:
            key = np.unique(key, return_inverse=True)[1].reshape(-1).astype(np.int64)
        key = key * span + a[:, c]
    _, first, inv = np.unique(key, return_index=True, return_inverse=True)
    return a[first], inv.reshape(-1)


def _dedup(items: list) -> tuple[list[int], list]:
    seen: dict = {}
    ids = [seen.setdefault(v, len(seen)) for v in items]
    return ids, list(seen)


def _value_ranks(y_vectors: list, np):
    """Per value vector and coordinate, the rank of its exact value: equal ranks, equal values."""
    width = len(y_vectors[0]) if y_vectors else 0
    ranks = np.zeros((len(y_vectors), width), dtype=np.int64)
    for p in range(width):
        order = {v: t for t, v in enumerate(sorted({y[p] for y in y_vectors}))}
        ranks[:, p] = [order[y[p]] for y in y_vectors]
    return ranks


def _output_rows(model: Model, n: int, first: int) -> list[int]:
    if model.output.position == "last":
        return [n - first]
    if model.output.position == "first":
        return [0]
    return [p - first for p in range(1, n + 1)]


def check_length(model: Model, n: int, tau_lo: Fraction, tau_hi: Fraction) -> LengthCheck:
    """L-exhaustive at length n for every τ in [tau_lo, tau_hi] (0 < tau_lo ≤ tau_hi)."""
    import numpy as np

    if not 0 < tau_lo <= tau_hi:
        raise ValueError("expected 0 < tau_lo <= tau_hi")
    engine = _Engine(model, n, Fraction(tau_lo), Fraction(tau_hi))
    s = len(model.alphabet)
    total = s ** n
    least, worst = math.inf, 0.0
    constant = np.repeat(np.arange(s, dtype=np.int64)[:, None], n, axis=1)  # s^n first: counts peak there
    powers = s ** np.arange(n - 1, -1, -1, dtype=np.int64)
    batches = itertools.chain([constant], ((np.arange(start, min(total, start + CHUNK), dtype=np.int64)[:, None]
                                            // powers[None, :]) % s for start in range(0, total, CHUNK)))
    for tokens in batches:
        good, margin, error = engine.decide(*engine.run(tokens))
        if not good.all():
            bad = int(np.argmin(good))
            word = tuple(model.alphabet[t] for t in tokens[bad])
            return LengthCheck(n, total, False, None, word=word, reason="the per-word bound does not decide this word")
        least = min(least, margin if margin is not None else math.inf)
        worst = max(worst, error)
    return LengthCheck(n, total, True, Fraction(least) if math.isfinite(least) else None, Fraction(worst))

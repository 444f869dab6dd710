"""Export a model at one input length N as plain arrays (npz) or an ONNX graph.

Other tools (onnxruntime, a plain numpy script, a visualiser) cannot read model.json:
its position embeddings are expressions in ``i`` and ``n`` and its temperature is a
schedule τ(n).  Fixing N turns both into numbers, and then the model is a few matrices
per layer.  :func:`export_weights` makes those matrices once (float64, named by the
model's dims); :func:`save_npz` writes them and :func:`to_onnx` builds a graph from
them, so the npz file holds everything the graph is made of (``to_onnx(load_npz(p))``
is the graph that ``certify export --format onnx`` writes).

The semantics are exactly those of :mod:`certify.evaluate` (``float_run`` for the soft
model, ``hard_run`` for the hard one): BOS row first when the model has one, token plus
position embedding, per head a score bilinear form, a visibility mask (a query that sees
no key adds nothing), a max-shifted softmax at τ(N) or the hard average / leftmost /
rightmost of the maximal scores, FFN ReLU units added to the residual stream, and the
output dim at the output positions compared with the threshold (y > threshold).  Hard
ties are decided by float64 equality, which agrees with the exact evaluator whenever the
float64 scores of tied keys are equal (they are on the shipped models).
"""
from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from .errors import ExprError, UserError
from .evaluate import output_positions
from .expr import Expr, eval_mp, to_text
from .model import AttentionLayer, Model, position_embedding, positions

EXPORT_FORMAT = "hardsoft.export/1"
OPSET = 18
IR_VERSION = 9
MAX_TABLE_BYTES = 2**30  # the position table must fit in one protobuf (2 GiB) with room to spare


@dataclass(frozen=True)
class Weights:
    """One model at one length: float64 arrays by name, and the structure as JSON-able metadata.

    Array names (``k`` is the layer index, ``h`` the head index within its layer)::

        token_embed          [symbols, dims]   row s: the embedding of metadata["symbols"][s]
        position_embed       [rows, dims]      row r: position positions[r] at n = N, each entry the
                                               float64 nearest to the exact value
        positions            [rows]            the stream positions (int64): 0 = BOS, 1..N the word
        layer{k}.head{h}.score   [dims, dims]  s_ij = x_i · S · x_j
        layer{k}.head{h}.value   [dims, dims]  the head adds (Σ_j α_ij x_j) · V to row i
        layer{k}.ffn.w_in    [dims, units]     pre-activation x · W_in + b
        layer{k}.ffn.bias    [units]
        layer{k}.ffn.w_out   [units, dims]     adds ReLU(pre-activation) · W_out
        output.rows          [outputs]         stream rows (int64) read by the output
        output.threshold     []                decision: stream[row, output dim] > threshold
        tau                  []                τ(N) (soft) or 0 (hard)
    """

    arrays: dict
    metadata: dict


def export_weights(model: Model, n: int, tau: Expr | None, tau_source: str = "--tau") -> Weights:
    """The arrays of ``model`` at input length ``n``; soft at ``tau`` (evaluated at n), hard if None.

    ``tau_source`` names where τ came from in error messages (the flag, or the model's key)."""
    if n < 1:
        raise UserError(f"n must be a positive integer, got {n}")
    if model.output.argmax:  # the graph decides y > threshold on one dim; an argmax output is another rule
        raise UserError("export: argmax outputs (model.json v2) are not supported; the decision would be wrong")
    if model.max_length is not None and n > model.max_length:
        raise UserError(f"n = {n} is above the model's max_length {model.max_length}")
    dims = model.dims
    index = {d: k for k, d in enumerate(dims)}
    rows = len(positions(model, n))
    if rows * len(dims) * 8 > MAX_TABLE_BYTES:
        raise UserError(f"n = {n}: the position table would take {rows * len(dims) * 8 // 2**20} MiB "
                        f"(at most {MAX_TABLE_BYTES // 2**20} MiB)")
    tau_value = 0.0 if tau is None else _tau_at(tau, n, tau_source)
    symbols = model.alphabet + ((model.bos,) if model.bos else ())
    arrays = {"token_embed": np.array([_vector(model.token_embed[s], index) for s in symbols], dtype=np.float64)}
    pe = np.zeros((rows, len(dims)), dtype=np.float64)
    for d, column in position_embedding(model, n).items():
        pe[:, index[d]] = [float(v) for v in column]
    arrays["position_embed"] = pe
    arrays["positions"] = np.array(list(positions(model, n)), dtype=np.int64)
    layers = []
    for k, layer in enumerate(model.layers):
        if isinstance(layer, AttentionLayer):
            heads = []
            for h, head in enumerate(layer.heads):
                arrays[f"layer{k}.head{h}.score"] = _matrix(head.score, index)
                arrays[f"layer{k}.head{h}.value"] = _matrix(((v, o, c) for o, v, c in head.value), index)
                heads.append({"name": head.name, "hard": head.hard, "visible": head.visible})
            layers.append({"type": "attention", "heads": heads})
        else:
            units = layer.units
            w_in = np.zeros((len(dims), len(units)))
            w_out = np.zeros((len(units), len(dims)))
            for u, unit in enumerate(units):
                w_in[:, u] = _vector(unit.inputs, index)
                w_out[u, :] = _vector(unit.outputs, index)
            arrays[f"layer{k}.ffn.w_in"] = w_in
            arrays[f"layer{k}.ffn.bias"] = np.array([float(unit.bias) for unit in units], dtype=np.float64)
            arrays[f"layer{k}.ffn.w_out"] = w_out
            layers.append({"type": "ffn", "units": len(units)})
    first = 0 if model.bos else 1
    arrays["output.rows"] = np.array([p - first for p in output_positions(model, n)], dtype=np.int64)
    arrays["output.threshold"] = np.array(float(model.output.threshold))
    arrays["tau"] = np.array(tau_value)
    metadata = {
        "format": EXPORT_FORMAT,
        "model": model.name,
        "model_sha256": model.sha256,
        "n": n,
        "semantics": "hard" if tau is None else "soft",
        "tau": None if tau is None else to_text(tau),
        "tau_value": None if tau is None else tau_value,
        "dims": list(dims),
        "symbols": list(symbols),
        "bos": model.bos,
        "first_position": first,
        "layers": layers,
        "output": {"dim": model.output.dim, "dim_index": index[model.output.dim],
                   "position": model.output.position, "threshold": _text(model.output.threshold)},
    }
    return Weights(arrays, metadata)


def _tau_at(tau: Expr, n: int, source: str) -> float:
    """τ(n) rounded to float64 from a 60-digit mpmath value (``float_run`` evaluates τ at mpmath's
    working precision, so the two may differ in the last bit; measured effect on outputs ≤ 4e-15)."""
    import mpmath

    with mpmath.workdps(60):
        try:
            value = eval_mp(tau, {"n": n})
        except ExprError as exc:
            raise UserError(f"{source} {to_text(tau)}: undefined at n={n}: {exc}") from None
        if not value > 0:
            raise UserError(f"{source} {to_text(tau)}: temperature must be positive, got "
                            f"{mpmath.nstr(value, 10)} at n={n}")
        return float(value)


def _vector(pairs, index: dict) -> np.ndarray:
    """Dense float64 vector of (dim, coefficient) pairs; repeated dims add up exactly, then round once."""
    exact = [Fraction(0)] * len(index)
    for d, c in pairs:
        exact[index[d]] += c
    return np.array([float(v) for v in exact], dtype=np.float64)


def _matrix(triples, index: dict) -> np.ndarray:
    """Dense float64 matrix M[row dim, column dim] of (row, column, coefficient) triples."""
    exact = {}
    for r, c, v in triples:
        exact[index[r], index[c]] = exact.get((index[r], index[c]), Fraction(0)) + v
    m = np.zeros((len(index), len(index)), dtype=np.float64)
    for (r, c), v in exact.items():
        m[r, c] = float(v)
    return m


def _text(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


# ---------------------------------------------------------------- npz

def save_npz(weights: Weights, path: str | Path) -> None:
    """Write the arrays and the metadata (a JSON string under the key ``metadata``)."""
    np.savez(path, metadata=np.array(json.dumps(weights.metadata)), **weights.arrays)


def load_npz(path: str | Path) -> Weights:
    """Read what :func:`save_npz` wrote; :class:`UserError` if it is not such a file."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        raise UserError(f"{path}: not an npz file: {exc}") from None
    try:
        metadata = json.loads(str(arrays.pop("metadata")))
    except (KeyError, ValueError):
        raise UserError(f"{path}: no hardsoft metadata") from None
    if not isinstance(metadata, dict) or metadata.get("format") != EXPORT_FORMAT:
        raise UserError(f"{path}: not a {EXPORT_FORMAT} file")
    return Weights(arrays, metadata)


# ---------------------------------------------------------------- onnx

class _Graph:
    """Nodes and constant initializers of the graph under construction, with fresh node names.

    A constant is added on first use only, so a graph holds no unused initializer (a hard
    graph has no ``tau``; onnxruntime warns about unused ones)."""

    def __init__(self):
        self.nodes = []
        self.initializers = {}
        self.count = 0

    def const(self, name: str, value) -> str:
        from onnx import numpy_helper

        if name not in self.initializers:
            self.initializers[name] = numpy_helper.from_array(np.asarray(value), name)
        return name

    def op(self, op_type: str, *inputs: str, name: str | None = None, **attrs) -> str:
        from onnx import helper

        self.count += 1
        out = name or f"{op_type.lower()}_{self.count}"
        self.nodes.append(helper.make_node(op_type, list(inputs), [out], name=f"n{self.count}_{op_type}", **attrs))
        return out


def to_onnx(weights: Weights):
    """The model of ``weights`` as an ``onnx.ModelProto`` (float64, opset 18).

    Input ``tokens``: int64 [batch, N], indices into metadata["symbols"] (the alphabet in
    order; the BOS symbol, when there is one, is prepended by the graph).  Outputs ``y``
    float64 [batch, outputs] (the output dim at the output positions), ``decision`` bool
    (y > threshold) and ``stream`` float64 [batch, rows, dims] (the residual stream after
    the last layer).
    """
    import onnx
    from onnx import TensorProto, helper

    meta, a = weights.metadata, weights.arrays
    n, d = meta["n"], len(meta["dims"])
    rows = len(a["positions"])
    g = _Graph()
    x = g.op("Gather", g.const("token_embed", a["token_embed"]), "tokens", axis=0)  # [batch, N, d]
    if meta["bos"] is not None:
        shape = g.op("Concat", g.op("Shape", "tokens", end=1), g.const("one_by_d", np.array([1, d], dtype=np.int64)),
                     axis=0)
        bos = g.op("Expand", g.const("bos_row", a["token_embed"][-1:][None]), shape)  # [batch, 1, d]
        x = g.op("Concat", bos, x, axis=1)
    x = g.op("Add", x, g.const("position_embed", a["position_embed"]), name="stream_0")
    pos = a["positions"]
    masks = {}
    for k, layer in enumerate(meta["layers"]):
        new = x
        if layer["type"] == "ffn":
            pre = g.op("Add", g.op("MatMul", x, g.const(f"layer{k}.ffn.w_in", a[f"layer{k}.ffn.w_in"])),
                       g.const(f"layer{k}.ffn.bias", a[f"layer{k}.ffn.bias"]))
            new = g.op("Add", x, g.op("MatMul", g.op("Relu", pre),
                                      g.const(f"layer{k}.ffn.w_out", a[f"layer{k}.ffn.w_out"])))
        else:
            for h, head in enumerate(layer["heads"]):
                if head["visible"] not in masks:
                    masks[head["visible"]] = _mask(g, head["visible"], pos)
                new = g.op("Add", new, _head(g, x, f"layer{k}.head{h}", head, masks[head["visible"]], weights))
        x = g.op("Identity", new, name=f"stream_{k + 1}")
    g.op("Identity", x, name="stream")
    y = g.op("Gather", g.op("Gather", x, g.const("output.dim", np.array(meta["output"]["dim_index"])), axis=2),
             g.const("output.rows", a["output.rows"]), axis=1, name="y")
    g.op("Greater", y, g.const("output.threshold", a["output.threshold"]), name="decision")
    outputs = len(a["output.rows"])
    graph = helper.make_graph(
        g.nodes, f"{meta['model']}-n{n}-{meta['semantics']}",
        [helper.make_tensor_value_info("tokens", TensorProto.INT64, ["batch", n])],
        [helper.make_tensor_value_info("y", TensorProto.DOUBLE, ["batch", outputs]),
         helper.make_tensor_value_info("decision", TensorProto.BOOL, ["batch", outputs]),
         helper.make_tensor_value_info("stream", TensorProto.DOUBLE, ["batch", rows, d])],
        list(g.initializers.values()))
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="hardsoft",
                              doc_string=f"{meta['model']} at n = {n}, {meta['semantics']} attention"
                              + (f", tau = {meta['tau']} = {meta['tau_value']!r}" if meta["tau"] else ""))
    proto.ir_version = IR_VERSION
    helper.set_model_props(proto, {"hardsoft.metadata": json.dumps(weights.metadata)})
    onnx.checker.check_model(proto)
    return proto


def _head(g: _Graph, x: str, name: str, head: dict, mask_and_sees: tuple[str, str], weights: Weights) -> str:
    """What one head adds to the stream: Σ_j α_ij (x_j · V), with α soft at τ or hard."""
    from onnx import TensorProto

    mask, sees = mask_and_sees
    a = weights.arrays
    last_axis = g.const("last_axis", np.array([-1], dtype=np.int64))
    q = g.op("MatMul", x, g.const(f"{name}.score", a[f"{name}.score"]))
    # Einsum, not MatMul(q, Transpose(x)): onnxruntime fuses the latter into a FusedMatMul
    # whose float64 result was off by 3e-9 on counting-majority-bounded (Einsum: 2e-16).
    s = g.op("Einsum", q, x, equation="bik,bjk->bij")  # [batch, rows, rows]
    hard = weights.metadata["semantics"] == "hard"
    if not hard:
        s = g.op("Div", s, g.const("tau", a["tau"]))
    s = g.op("Where", mask, s, g.const("neg_inf", np.array(-np.inf)))
    top = g.op("Where", sees, g.op("ReduceMax", s, last_axis, keepdims=1), g.const("zero", np.array(0.0)))
    if not hard:
        w = g.op("Exp", g.op("Sub", s, top))
    elif head["hard"] == "average":
        w = g.op("Cast", g.op("And", g.op("Equal", s, top), mask), to=TensorProto.DOUBLE)
    else:
        pick = g.op("ArgMax", s, axis=-1, keepdims=1, select_last_index=int(head["hard"] == "rightmost"))
        keys = g.const("key_index", np.arange(len(a["positions"])))
        w = g.op("Cast", g.op("And", g.op("Equal", pick, keys), mask), to=TensorProto.DOUBLE)
    total = g.op("Where", sees, g.op("ReduceSum", w, last_axis, keepdims=1), g.const("one", np.array(1.0)))
    values = g.op("MatMul", x, g.const(f"{name}.value", a[f"{name}.value"]))
    return g.op("Div", g.op("MatMul", w, values), total)


def _mask(g: _Graph, visible: str, pos: np.ndarray) -> tuple[str, str]:
    """The [rows, rows] mask of keys each query sees, and the [rows, 1] flag "sees some key".

    Built from the position vector in the graph, so the file stays O(N·dims), not O(N²)."""
    if visible == "all":
        mask = g.op("Expand", g.const("true", np.array([[True]])), g.const("square", np.array([len(pos)] * 2)))
    else:
        op = {"j<=i": "LessOrEqual", "j<i": "Less", "j>=i": "GreaterOrEqual", "j>i": "Greater"}[visible]
        mask = g.op(op, g.const("key_positions", pos[None, :]), g.const("query_positions", pos[:, None]))
    first, last = pos[0], pos[-1]
    sees = {"all": pos >= first, "j<=i": pos >= first, "j<i": pos > first,
            "j>=i": pos <= last, "j>i": pos < last}[visible]
    return mask, g.const(f"sees_{_slug(visible)}", sees[:, None])


def _slug(visible: str) -> str:
    return {"all": "all", "j<=i": "le", "j<i": "lt", "j>=i": "ge", "j>i": "gt"}[visible]

"""Convert a tracr-compiled transformer into a hardsoft model (model.json v2).

tracr (github:google-deepmind/tracr) compiles a RASP program into weights whose
attention is a softmax at inverse temperature coldness/sqrt(K) over scores in
{0, 1/2, 1}.  The hard model that the RASP program means is the same network with
the softmax replaced by average-hard attention on those scores, so the import writes

* scores ``(W_Q W_Kᵀ)/coldness`` and values ``W_V W_O`` as bilinear maps over the
  residual basis (tracr's weights are exact rationals rounded to float; we recover
  the rationals deliberately, see :func:`exact_rational`);
* the tracr temperature τ = sqrt(K)/coldness as a v2 ``temperature_interval``;
* the position table as a v2 ``embed.position_table`` valid up to ``max_seq_len``.

The input is the ``tracr-export/1`` intermediate form (a dict plus two parameter
maps, float64 and float32), read from a directory by :func:`load_export`; a live
tracr model can produce the same form with :func:`export_from_assembled`.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from .errors import UserError

EXPORT_FORMAT = "tracr-export/1"
INTERVAL_DIGITS = 30  # the temperature interval has width 10^-30


@dataclass(frozen=True)
class Export:
    """One compiled tracr model: the export's description and its parameters."""

    spec: dict
    params64: dict  # name -> float64 ndarray (tracr's craft-stage values)
    params32: dict  # name -> float32 ndarray (what tracr runs); may be empty for a live model


def load_export(directory: str | Path) -> Export:
    """Read ``model.json``, ``params_f64.npz`` and ``params.npz`` of an export directory."""
    import numpy as np

    d = Path(directory)
    try:
        spec = json.loads((d / "model.json").read_text())
        params64 = dict(np.load(d / "params_f64.npz"))
        params32 = dict(np.load(d / "params.npz"))
    except FileNotFoundError as exc:
        raise UserError(f"DIR: {directory} is not a tracr export ({Path(exc.filename).name} missing)") from None
    except (OSError, ValueError) as exc:
        raise UserError(f"DIR: cannot read the tracr export in {directory}: {exc}") from None
    if spec.get("format") != EXPORT_FORMAT:
        raise UserError(f"DIR: model.json format is {str(spec.get('format'))[:40]!r}, expected {EXPORT_FORMAT!r}")
    return Export(spec, params64, params32)


# ---------------------------------------------------------------- exact numbers

def exact_rational(x: float) -> Fraction:
    """The simplest rational (smallest denominator) that rounds to the float64 ``x``.

    tracr computes its weights in float64 from rationals such as 1/3 or 100/7;
    ``Fraction(x)`` would be the binary approximation 6004799503160661/2^54, so we
    take the simplest rational strictly inside x's rounding interval and check
    that it rounds back to x exactly.
    """
    if not math.isfinite(x):
        raise ValueError(f"weight {x!r} is not finite")
    if x == 0:
        return Fraction(0)
    if x < 0:
        return -exact_rational(-x)
    v = Fraction(x)
    lo = (v + Fraction(math.nextafter(x, 0.0))) / 2
    hi = (v + Fraction(math.nextafter(x, math.inf))) / 2
    r = _simplest_between(lo, hi)
    if float(r) != x:  # pragma: no cover - the open interval rounds to x by construction
        raise ValueError(f"no rational found for {x!r}")
    return r


def _simplest_between(lo: Fraction, hi: Fraction) -> Fraction:
    """The rational with the smallest denominator in the open interval (lo, hi), 0 < lo < hi
    (continued fractions / Stern–Brocot descent)."""
    fl = math.floor(lo)
    if fl + 1 < hi:
        return Fraction(fl + 1)
    if fl == lo:
        # lo is an integer and hi < lo + 1: descend into (0, hi - lo) from the integer lo
        return fl + 1 / _simplest_above(1 / (hi - fl))
    return fl + 1 / _simplest_between(1 / (hi - fl), 1 / (lo - fl))


def _simplest_above(x: Fraction) -> Fraction:
    """Simplest rational strictly above ``x`` (x > 0): the next integer."""
    return Fraction(math.floor(x) + 1)


def _rationals(name: str, export: Export) -> list:
    """The float64 array ``name`` as nested lists of exact rationals, checked to round to the
    float32 array tracr runs bit for bit."""
    import numpy as np

    a64 = export.params64[name]
    if export.params32:
        a32 = export.params32.get(name)
        if a32 is None or a32.shape != a64.shape or not np.array_equal(a64.astype(np.float32).view(np.uint32),
                                                                        a32.view(np.uint32)):
            raise UserError(f"DIR: params_f64.npz {name} does not round to params.npz bit for bit")
    cache: dict[float, Fraction] = {}

    def conv(x: float) -> Fraction:
        if x not in cache:
            cache[x] = exact_rational(x)
        return cache[x]

    return [[conv(float(x)) for x in row] for row in np.atleast_2d(a64).tolist()] if a64.ndim == 2 \
        else [conv(float(x)) for x in a64.tolist()]


# ---------------------------------------------------------------- conversion

_DIM_CHARS = re.compile(r"[^A-Za-z0-9._:()\[\],+=-]")


def dim_names(residual: list[dict]) -> list[str]:
    """Valid, unique dim names from tracr's basis labels (``name`` or ``name:value``)."""
    names, seen = [], set()
    for r in residual:
        base = _DIM_CHARS.sub("_", str(r["label"]))[:60] or f"dim{r['index']}"
        name, k = base, 1
        while name in seen:
            name, k = f"{base}#{k}", k + 1
        seen.add(name)
        names.append(name)
    return names


def _fraction_text(v: Fraction) -> str | int:
    return v.numerator if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


def _nonzero_bias(name: str, export: Export) -> None:
    import numpy as np

    if name in export.params64 and np.any(export.params64[name] != 0):
        raise UserError(f"DIR: {name} is non-zero; tracr writes zero biases and the import relies on it")


def tracr_temperature(spec: dict):
    """tracr's actual temperature sqrt(K)/coldness as an mpmath number at 50 digits."""
    import mpmath

    with mpmath.workdps(50):
        return mpmath.sqrt(spec["architecture"]["key_size"]) / spec["compiler"]["softmax_coldness"]


def temperature_interval(spec: dict) -> tuple[Fraction, Fraction]:
    """[lo, hi] of width 10^-30 around sqrt(K)/coldness, with lo < τ < hi (τ is irrational for
    K not a perfect square; for a square K the interval still contains it)."""
    import mpmath

    with mpmath.workdps(60):
        scaled = tracr_temperature(spec) * mpmath.mpf(10) ** INTERVAL_DIGITS
        lo = int(mpmath.floor(scaled))
    den = 10**INTERVAL_DIGITS
    return Fraction(lo, den), Fraction(lo + 1, den)


def convert(export: Export) -> dict:
    """The model.json v2 dict of a tracr export (see the module docstring)."""
    spec = export.spec
    arch, comp, inp = spec["architecture"], spec["compiler"], spec["input"]
    if arch.get("layer_norm") or arch.get("causal_mask") or arch.get("activation") != "relu":
        raise UserError("DIR: only tracr models without layer norm or causal mask, with ReLU MLPs, are supported")
    dims = dim_names(spec["residual"])
    d = len(dims)
    H, K = arch["num_heads"], arch["key_size"]
    coldness = Fraction(comp["softmax_coldness"])
    N = comp["max_seq_len"]
    bos, pad = inp["bos_token"], inp["pad_token"]
    alphabet = [t for t in inp["token_ids"] if t not in (bos, pad)]
    emb = spec["embedding"]
    tok = _rationals(emb["token_embed_param"], export)
    pos = _rationals(emb["pos_embed_param"], export)
    token = {sym: {dims[c]: _fraction_text(v) for c, v in enumerate(tok[inp["token_ids"][sym]]) if v}
             for sym in alphabet + [bos]}
    table = {dims[c]: [_fraction_text(pos[p][c]) for p in range(N + 1)]
             for c in range(d) if any(pos[p][c] for p in range(N + 1))}
    layers = []
    for l in range(arch["num_layers"]):
        a = f"transformer/layer_{l}/attn"
        for part in ("query", "key", "value", "linear"):
            _nonzero_bias(f"{a}/{part}/b", export)
        wq, wk, wv, wo = (_rationals(f"{a}/{p}/w", export) for p in ("query", "key", "value", "linear"))
        heads = []
        for h in range(H):
            cols = range(h * K, (h + 1) * K)
            score = _bilinear(wq, wk, cols, d, coldness)
            value = _product(wv, wo, cols, d)
            if score or value:
                heads.append({"name": f"L{l}H{h}", "hard": "average", "visible": "all",
                              "score": [[dims[q], dims[k], _fraction_text(c)] for (q, k), c in score],
                              "value": [[dims[o], dims[i], _fraction_text(c)] for (i, o), c in value]})
        if heads:
            layers.append({"type": "attention", "heads": heads})
        m = f"transformer/layer_{l}/mlp"
        _nonzero_bias(f"{m}/linear_2/b", export)
        w1, b1, w2 = _rationals(f"{m}/linear_1/w", export), _rationals(f"{m}/linear_1/b", export), \
            _rationals(f"{m}/linear_2/w", export)
        units = []
        for u in range(len(b1)):
            ins = {dims[c]: _fraction_text(w1[c][u]) for c in range(d) if w1[c][u]}
            outs = {dims[c]: _fraction_text(w2[u][c]) for c in range(d) if w2[u][c]}
            if outs and (ins or b1[u] > 0):
                unit = {"in": ins, "out": outs}
                if b1[u]:
                    unit["bias"] = _fraction_text(b1[u])
                units.append(unit)
        if units:
            layers.append({"type": "ffn", "hidden": units})
    out = spec["output"]
    space = [dims[s["residual_index"]] for s in out["space"]]
    if out["encoding"] == "categorical":
        output = {"argmax": space, "position": "all"}
    else:
        q = spec["question"]
        output = {"dim": space[0], "position": q["position"], "threshold": str(q["value"])}
    lo, hi = temperature_interval(spec)
    return {
        "format": "hardsoft.model/2",
        "name": re.sub(r"[^A-Za-z0-9._-]", "_", spec["name"])[:64],
        "description": (f"tracr {spec['program']} (vocab {comp['vocab']}, max_seq_len {N}), imported from "
                        f"{EXPORT_FORMAT}; tracr runs softmax at τ = sqrt({K})/{comp['softmax_coldness']}"),
        "alphabet": alphabet,
        "bos": bos,
        "dims": dims,
        "max_length": N,
        "embed": {"token": token, "position_table": table},
        "layers": layers,
        "output": output,
        "temperature_interval": [_frac_str(lo), _frac_str(hi)],
    }


def _frac_str(v: Fraction) -> str:
    return f"{v.numerator}/{v.denominator}"


def _bilinear(wq: list, wk: list, cols: range, d: int, coldness: Fraction) -> list:
    """((q, k), c) with c = (W_Q W_Kᵀ)[q, k]/coldness ≠ 0, over the head's columns."""
    qrows = [(r, [(c, wq[r][c]) for c in cols if wq[r][c]]) for r in range(d)]
    krows = {r: {c: wk[r][c] for c in cols if wk[r][c]} for r in range(d)}
    out = []
    for q, qs in qrows:
        if not qs:
            continue
        for k in range(d):
            ks = krows[k]
            if ks:
                s = sum((v * ks[c] for c, v in qs if c in ks), Fraction(0))
                if s:
                    out.append(((q, k), s / coldness))
    return out


def _product(wv: list, wo: list, cols: range, d: int) -> list:
    """((in, out), c) with c = (W_V W_O)[in, out] ≠ 0 for the head's columns."""
    out = []
    for i in range(d):
        vs = [(c, wv[i][c]) for c in cols if wv[i][c]]
        if not vs:
            continue
        for o in range(d):
            s = sum((v * wo[c][o] for c, v in vs if wo[c][o]), Fraction(0))
            if s:
                out.append(((i, o), s))
    return out


# ---------------------------------------------------------------- a live tracr model

def export_from_assembled(assembled, output_label: str, vocab, max_seq_len: int, question: dict | None = None,
                          name: str = "tracr", softmax_coldness: int = 100) -> Export:
    """The export form of a live tracr ``AssembledTransformerModel``, for :func:`convert`.

    Needs tracr's object only through ``params`` ({module: {param: array}}),
    ``residual_labels``, ``model_config`` and ``input_encoder`` (``encoding_map``,
    ``bos_token``, ``pad_token``).  Only the float32 parameters tracr holds exist here,
    so rationals are recovered from them (a float32 is a float64 exactly, but its
    rounding interval is coarser than the export's float64 arrays give: prefer an
    export where one exists).  ``output_label`` is the RASP program's label (the output
    space is every basis direction named by it); numerical outputs need ``question``
    ({"value": threshold, "position": "all"|"last"}).
    """
    import numpy as np

    params = {f"{m}/{p}": np.asarray(v, dtype=np.float64) for m, ps in assembled.params.items() for p, v in ps.items()}
    labels = [str(lab) for lab in assembled.residual_labels]
    residual = [{"index": k, "label": lab} for k, lab in enumerate(labels)]
    enc = assembled.input_encoder
    cfg = assembled.model_config
    space = [{"label": lab, "residual_index": k} for k, lab in enumerate(labels)
             if lab == output_label or lab.startswith(output_label + ":")]
    categorical = any(lab.startswith(output_label + ":") for lab in labels)
    spec = {
        "format": EXPORT_FORMAT, "name": name, "program": name, "residual": residual,
        "compiler": {"vocab": list(vocab), "max_seq_len": max_seq_len, "softmax_coldness": softmax_coldness},
        "input": {"token_ids": {str(t): int(i) for t, i in enc.encoding_map.items()},
                  "bos_token": str(enc.bos_token), "pad_token": str(enc.pad_token)},
        "embedding": {"token_embed_param": "token_embed/embeddings", "pos_embed_param": "pos_embed/embeddings"},
        "architecture": {"num_layers": cfg.num_layers, "num_heads": cfg.num_heads, "key_size": cfg.key_size,
                         "layer_norm": cfg.layer_norm, "causal_mask": cfg.causal, "activation": "relu"},
        "output": {"encoding": "categorical" if categorical else "numerical", "space": space},
        "question": question or {},
    }
    return Export(spec, params, {})


# ---------------------------------------------------------------- the hard model versus the program

@dataclass(frozen=True)
class CheckReport:
    """Disagreements on the export's reference inputs, counted per input (first few kept)."""

    inputs: int
    hard_vs_rasp: int  # inputs where the exact hard model's decoded output differs from the RASP program's
    hard_vs_rasp_examples: tuple
    undefined_positions: int  # positions where the RASP program outputs None (no model output can match)
    soft_vs_hard: int  # inputs where float64 softmax at tracr's τ decides differently from the hard model
    soft_vs_hard_examples: tuple


def decode_value(e: dict):
    """A typed export value ({"t": …, "v": …}) as the JSON value the RASP evaluator records."""
    if e["t"] == "none":
        return None
    if e["t"] == "tuple":
        return [decode_value(z) for z in e["v"]]
    return e["v"]


def hard_decoded(model, spec: dict, word) -> list:
    """The exact hard model's output at positions 1..n, decoded as tracr decodes (argmax → value)."""
    from .evaluate import hard_run

    run = hard_run(model, word)
    if model.output.argmax:
        values = [decode_value(s["value"]) for s in spec["output"]["space"]]
        return [values[k] for k in run.decisions]
    return list(run.outputs)


def _same(hard, rasp) -> bool:
    if isinstance(hard, Fraction):
        return rasp is not None and abs(float(hard) - float(rasp)) <= 1e-9
    return hard == rasp


def check_against_reference(model, export: Export, reference: dict, examples: int = 5) -> CheckReport:
    """Compare the imported hard model with the RASP outputs of ``reference.json`` (every input), and,
    separately, float64 softmax at tracr's temperature with the hard model (decisions)."""
    from .evaluate import float_run, hard_run

    tau = float(tracr_temperature(export.spec))
    bad, bad_ex, undefined, soft_bad, soft_ex = 0, [], 0, 0, []
    rows = reference["rows"]
    for row in rows:
        word = tuple(str(t) for t in row["input"])
        got = hard_decoded(model, export.spec, word)
        undefined += sum(r is None for r in row["rasp"])
        if not all(_same(g, r) for g, r in zip(got, row["rasp"])):
            bad += 1
            if len(bad_ex) < examples:
                bad_ex.append({"input": list(word), "hard": [_jsonable(g) for g in got], "rasp": row["rasp"]})
        hard = hard_run(model, word)
        soft = float_run(model, word, tau)
        if hard.decisions != soft.decisions:
            soft_bad += 1
            if len(soft_ex) < examples:
                soft_ex.append({"input": list(word), "hard": list(hard.decisions), "soft": list(soft.decisions)})
    return CheckReport(len(rows), bad, tuple(bad_ex), undefined, soft_bad, tuple(soft_ex))


def _jsonable(v):
    return f"{v.numerator}/{v.denominator}" if isinstance(v, Fraction) else v

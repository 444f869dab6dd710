"""``certify export MODEL.json --n N -o FILE``: the model at length N as an ONNX graph or npz arrays.

    certify export MODEL.json --n 64 -o model.onnx                 # soft, at the model's temperature
    certify export MODEL.json --n 64 --tau "1/n" -o model.onnx     # soft, at τ(n) = 1/n
    certify export MODEL.json --n 64 --hard -o model.onnx          # hard attention
    certify export MODEL.json --n 64 --format npz -o model.npz     # the weights, named by dims

A model without a temperature needs ``--tau`` or ``--hard``: the export is a concrete
network and a silent choice of τ (or of hard attention) would be a guess.
"""
from __future__ import annotations

import json
from pathlib import Path

from ..errors import ExprError, UserError
from ..expr import parse_expr, to_text
from ..model import load_model

FORMATS = ("onnx", "npz")


def register(sub) -> None:
    p = sub.add_parser("export", help="write the model at one input length as ONNX or npz")
    p.add_argument("model", help="model.json v1 file")
    p.add_argument("--format", default="onnx", help="onnx (a graph onnxruntime runs) or npz (the arrays); "
                                                   "default onnx")
    p.add_argument("--n", required=True, help="input length N the graph is built for (a positive integer)")
    p.add_argument("--tau", help="temperature τ(n) (default: the model's); the graph uses τ(N)")
    p.add_argument("--hard", action="store_true", help="hard attention (average/leftmost/rightmost) instead")
    p.add_argument("-o", "--output", required=True, help="file to write")
    p.add_argument("--json", action="store_true", help="describe what was written as one JSON object")
    p.set_defaults(func=main)


def parse_length(text: str) -> int:
    try:
        n = int(text.strip())
    except ValueError:
        n = 0
    if n < 1:
        raise UserError(f"--n: {text!r} is not a positive integer")
    return n


def main(args) -> int:
    from ..export import export_weights, save_npz, to_onnx

    if args.format not in FORMATS:
        raise UserError(f"--format: {args.format!r} is not one of {', '.join(FORMATS)}")
    n = parse_length(args.n)
    if args.hard and args.tau is not None:
        raise UserError("--hard and --tau exclude each other")
    model = load_model(args.model)
    source = "--tau"
    if args.hard:
        tau = None
    elif args.tau is not None:
        try:
            tau = parse_expr(args.tau, variables=("n",), allow_log=True)
        except ExprError as exc:
            raise UserError(f"--tau: {exc}") from None
    elif model.temperature is not None:
        tau, source = model.temperature, "the model's temperature"
    else:
        raise UserError(f"--tau: {model.name} has no temperature; give --tau EXPR (soft) or --hard")
    weights = export_weights(model, n, tau, source)
    path = Path(args.output)
    try:
        if args.format == "npz":
            with path.open("wb") as f:  # a file object: np.savez would append ".npz" to a bare name
                save_npz(weights, f)
        else:
            path.write_bytes(to_onnx(weights).SerializeToString())
    except OSError as exc:
        raise UserError(f"--output: cannot write {args.output}: {exc.strerror}") from None
    meta = weights.metadata
    if args.json:
        print(json.dumps(_description(args.format, path, weights)))
    else:
        temperature = f"τ = {to_text(tau)} = {meta['tau_value']!r} at n = {n}" if tau is not None else "hard attention"
        symbols = ", ".join(f"{s}={k}" for k, s in enumerate(model.alphabet))
        print(f"wrote {path}: {model.name}, {temperature}; input tokens int64 [batch, {n}] ({symbols})")
    return 0


def _description(fmt: str, path: Path, weights) -> dict:
    meta = weights.metadata
    result = {"path": str(path), "format": fmt, "bytes": path.stat().st_size, "model": meta["model"],
              "model_sha256": meta["model_sha256"], "n": meta["n"], "semantics": meta["semantics"],
              "tau": meta["tau"], "tau_value": meta["tau_value"], "symbols": meta["symbols"], "bos": meta["bos"]}
    if fmt == "onnx":
        rows, outputs, dims = len(weights.arrays["positions"]), len(weights.arrays["output.rows"]), len(meta["dims"])
        result["inputs"] = [{"name": "tokens", "dtype": "int64", "shape": ["batch", meta["n"]]}]
        result["outputs"] = [{"name": "y", "dtype": "float64", "shape": ["batch", outputs]},
                             {"name": "decision", "dtype": "bool", "shape": ["batch", outputs]},
                             {"name": "stream", "dtype": "float64", "shape": ["batch", rows, dims]}]
    else:
        result["arrays"] = {name: list(a.shape) for name, a in weights.arrays.items()}
    return result

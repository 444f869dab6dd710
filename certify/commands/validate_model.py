"""``certify validate-model MODEL.json``: check a model against the v1 contract."""
from __future__ import annotations

import json

from ..api import load_model
from ..expr import to_text


def register(sub) -> None:
    p = sub.add_parser("validate-model", help="check a model file against model.json v1 (exit 0 valid, 3 invalid)")
    p.add_argument("model")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout (certify/schemas/validate-model.json)")
    p.set_defaults(func=main)


def main(args) -> int:
    m = load_model(args.model)
    summary = {"valid": True, "model": m.name, "model_sha256": m.sha256, "symbols": len(m.alphabet),
               "dims": len(m.dims), "layers": len(m.layers), "heads": len(m.heads),
               "output": {"dim": m.output.dim, "position": m.output.position},
               "temperature": None if m.temperature is None else to_text(m.temperature)}
    if args.json:
        print(json.dumps(summary))
        return 0
    print(f"valid: {m.name}: {len(m.alphabet)} symbols, {len(m.dims)} dims, {len(m.layers)} layers, "
          f"{len(m.heads)} heads, output {m.output.dim} at {m.output.position}"
          + (f", temperature {summary['temperature']}" if m.temperature else ""))
    return 0


"""``certify validate-model MODEL.json``: check a model against the v1 contract."""
from __future__ import annotations

from ..model import AttentionLayer, load_model


def register(sub) -> None:
    p = sub.add_parser("validate-model", help="check a model file against model.json v1")
    p.add_argument("model")
    p.set_defaults(func=main)


def main(args) -> int:
    m = load_model(args.model)
    heads = sum(len(layer.heads) for layer in m.layers if isinstance(layer, AttentionLayer))
    print(f"valid: {m.name}: {len(m.alphabet)} symbols, {len(m.dims)} dims, {len(m.layers)} layers, "
          f"{heads} heads, output {m.output.dim} at {m.output.position}"
          + (", temperature given" if m.temperature else ""))
    return 0

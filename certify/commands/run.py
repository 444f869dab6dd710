"""``certify run MODEL.json WORD [--tau T]``: evaluate one input — hard (exact) always, soft at τ when given."""
from __future__ import annotations

import json

from ..api import PRECISIONS, evaluate, load_model
from .progress import Progress

LONG_WORD = 2000  # symbols; shorter words evaluate in well under a second, so they show no progress


def register(sub) -> None:
    p = sub.add_parser("run", help="evaluate a model on one word (hard; and soft at --tau, side by side)")
    p.add_argument("model", help="model.json v1 file")
    p.add_argument("word", help="symbols concatenated (one-character alphabets) or space-separated")
    p.add_argument("--tau", help="temperature: a number or an expression in n; shows the soft outputs next to the hard")
    p.add_argument("--precision", choices=PRECISIONS, default="mp",
                   help="number system of the soft evaluation (default mp: mpmath, 60 digits)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout (certify/schemas/run.json)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=main)


def main(args) -> int:
    model = load_model(args.model)
    with Progress(not args.quiet and len(args.word) > LONG_WORD) as progress:
        result = evaluate(model, args.word, args.tau, args.precision, progress)
    if args.json:
        print(json.dumps(result.to_json()))
        return 0
    dim = model.output.dim
    for k, p in enumerate(result.positions):
        hard = f"{result.hard.values[k]} -> {str(result.hard.decisions[k]).lower()}"
        if result.soft is None:
            print(f"position {p}: {dim} = {hard}")
        else:
            soft = f"{result.soft.values[k]} -> {str(result.soft.decisions[k]).lower()}"
            print(f"position {p}: {dim}: hard {hard}; soft (τ = {result.tau}, {result.precision}) {soft}")
    if result.soft is not None:
        print("soft and hard decide the same at every output position" if result.agree
              else "soft and hard DISAGREE at some output position")
    return 0

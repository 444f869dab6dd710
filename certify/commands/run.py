"""``certify run MODEL.json WORD``: evaluate one input, hard (exact) or soft at a temperature."""
from __future__ import annotations

import json

from ..errors import ExprError, UserError
from ..evaluate import float_run, format_value, hard_run, soft_run
from ..expr import parse_expr
from ..model import load_model, parse_word


def register(sub) -> None:
    p = sub.add_parser("run", help="evaluate a model on one word")
    p.add_argument("model", help="model.json v1 file")
    p.add_argument("word", help="symbols concatenated (one-character alphabets) or space-separated")
    p.add_argument("--tau", help="temperature: a number or an expression in n (soft semantics); omit for hard")
    p.add_argument("--precision", choices=("mp", "float64", "float32"), default="mp",
                   help="number system of the soft evaluation (default mp: mpmath, 60 digits)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=main)


def main(args) -> int:
    model = load_model(args.model)
    word = parse_word(model, args.word)
    if not word:
        raise UserError("the word is empty; inputs have length n >= 1")
    if args.tau is None:
        if args.precision != "mp":
            raise UserError("--precision applies to soft evaluation; give --tau")
        result = hard_run(model, word)
    else:
        try:
            tau = parse_expr(args.tau, variables=("n",), allow_log=True)
        except ExprError as exc:
            raise UserError(f"--tau: {exc}") from None
        result = soft_run(model, word, tau) if args.precision == "mp" else float_run(model, word, tau, args.precision)
    outputs = [format_value(v) for v in result.outputs]
    if args.json:
        print(json.dumps({"n": result.n, "outputs": outputs, "decisions": list(result.decisions)}))
    else:
        first = result.first_position
        for row, value, decision in zip(result.output_rows, outputs, result.decisions):
            print(f"position {row + first}: {model.output.dim} = {value} -> {str(decision).lower()}")
    return 0

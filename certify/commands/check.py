"""``certify check CERT.json --model MODEL.json``: re-verify a certificate independently."""
from __future__ import annotations

import json
from pathlib import Path

from ..errors import UserError
from ..kernel.checker import CheckFailure, check
from ..model import load_model
from ..second_opinion import recheck_smt_obligations


def register(sub) -> None:
    p = sub.add_parser("check", help="re-verify a certificate against its model")
    p.add_argument("certificate", help="certificate JSON written by `certify MODEL.json --out`")
    p.add_argument("--model", required=True, help="the model.json the certificate is about")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(func=main)


def main(args) -> int:
    model = load_model(args.model)
    try:
        cert = json.loads(Path(args.certificate).read_text())
    except OSError as exc:
        raise UserError(f"cannot read {args.certificate}: {exc.strerror}") from None
    except ValueError as exc:
        raise UserError(f"{args.certificate}: invalid JSON: {exc}") from None
    try:
        result = check(cert, model)
        opinions = recheck_smt_obligations(cert, model, result)
    except CheckFailure as exc:
        if args.json:
            print(json.dumps({"valid": False, "item": exc.item, "expected": str(exc.expected),
                              "found": str(exc.found)}))
        else:
            print(f"invalid: {exc.item}: expected {exc.expected}, found {exc.found}")
        return 1
    if args.json:
        print(json.dumps({"valid": True, "kernel_checked": result.kernel_items, "boxes": result.boxes,
                          "second_opinion": opinions}))
    else:
        extra = f"; {len(opinions)} SMT obligations agreed in z3 and cvc5 (second opinion)" if opinions else ""
        print(f"valid: {result.kernel_items} items checked by the kernel ({result.boxes} boxes){extra}")
    return 0

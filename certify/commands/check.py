"""``certify check CERT.json --model MODEL.json``: re-verify a certificate independently, and say what it proves."""
from __future__ import annotations

import json

from ..api import check_certificate
from .progress import Progress


def register(sub) -> None:
    p = sub.add_parser("check", help="re-verify a certificate against its model (exit 0 valid, 1 invalid)")
    p.add_argument("certificate", help="certificate JSON written by `certify MODEL.json --out`")
    p.add_argument("--model", required=True, help="the model.json the certificate is about")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout (certify/schemas/check.json)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=main)


def main(args) -> int:
    with Progress(not args.quiet) as progress:
        report = check_certificate(args.certificate, args.model, progress=progress)
    if args.json:
        print(json.dumps(report.to_json()))
    elif report.valid:
        extra = (f"; {len(report.second_opinions)} SMT obligations agreed in z3 and cvc5 (second opinion)"
                 if report.second_opinions else "")
        print(f"valid: {report.claim.sentence()}\n"
              f"  {report.kernel_items} items checked by the kernel ({report.boxes} boxes){extra}")
    else:
        f = report.failure
        print(f"invalid: {f.item}: expected {f.expected}, found {f.found}")
    return report.exit_code

"""``certify check CERT.json --model MODEL.json``: re-verify a certificate independently, and say what it proves."""
from __future__ import annotations

import argparse
import dataclasses
import json

from ..api import audit_certificate, check_certificate
from .progress import Progress


def register(sub) -> None:
    p = sub.add_parser("check", help="re-verify a certificate against its model (exit 0 valid, 1 invalid)")
    p.add_argument("certificate", help="certificate JSON written by `certify MODEL.json --out`")
    p.add_argument("--model", required=True, help="the model.json the certificate is about")
    p.add_argument("--audit", action="store_true",
                   help="also test the certificate's recorded facts on concrete words with the exact evaluator")
    p.add_argument("--max-len", type=_positive_int, help="--audit: every word up to this length "
                   "(default: every word while |alphabet|^n <= 50000)")
    p.add_argument("--random", type=_non_negative_int, default=200,
                   help="--audit: seeded random words up to length 64 on top (default 200)")
    p.add_argument("--seed", type=int, default=0, help="--audit: seed of the random words (default 0)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout (certify/schemas/check.json)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=main)


def _positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive integer")
    return int(text)


def _non_negative_int(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a non-negative integer")
    return int(text)


def main(args) -> int:
    with Progress(not args.quiet) as progress:
        report = check_certificate(args.certificate, args.model, progress=progress)
        if args.audit:  # independent of the kernel check's outcome
            report = dataclasses.replace(report, audit=audit_certificate(
                args.certificate, args.model, args.max_len, args.random, args.seed, progress))
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
    if report.audit is not None and not args.json:
        a = report.audit
        print(f"audit: passed: {a.statements} statements held on {a.words} words ({a.checks} checks)" if a.ok
              else f"audit: FAILED: {a.failure}")
    return report.exit_code

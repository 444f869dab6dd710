"""``certify check CERT.json --model MODEL.json``: re-verify a certificate independently."""
from __future__ import annotations

import json
from pathlib import Path

from ..audit import AuditConfig, audit
from ..errors import UserError
from ..kernel.checker import CheckFailure, check
from ..model import load_model
from ..second_opinion import recheck_smt_obligations


def register(sub) -> None:
    p = sub.add_parser("check", help="re-verify a certificate against its model")
    p.add_argument("certificate", help="certificate JSON written by `certify MODEL.json --out`")
    p.add_argument("--model", required=True, help="the model.json the certificate is about")
    p.add_argument("--audit", action="store_true",
                   help="also test the certificate's recorded facts on concrete words with the exact evaluator")
    p.add_argument("--max-len", type=_positive_int, help="--audit: every word up to this length "
                   "(default: every word while |alphabet|^n <= 50000)")
    p.add_argument("--random", type=_non_negative_int, default=200,
                   help="--audit: seeded random words up to length 64 on top (default 200)")
    p.add_argument("--seed", type=int, default=0, help="--audit: seed of the random words (default 0)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(func=main)


def _positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise ValueError(text)
    return int(text)


def _non_negative_int(text: str) -> int:
    if not text.isdigit():
        raise ValueError(text)
    return int(text)


def main(args) -> int:
    model = load_model(args.model)
    try:
        cert = json.loads(Path(args.certificate).read_text())
    except OSError as exc:
        raise UserError(f"cannot read {args.certificate}: {exc.strerror}") from None
    except ValueError as exc:
        raise UserError(f"{args.certificate}: invalid JSON: {exc}") from None
    report: dict = {}
    try:
        result = check(cert, model)
        opinions = recheck_smt_obligations(cert, model, result)
    except CheckFailure as exc:
        report.update({"valid": False, "item": exc.item, "expected": str(exc.expected), "found": str(exc.found)})
        line = f"invalid: {exc.item}: expected {exc.expected}, found {exc.found}"
    else:
        report.update({"valid": True, "kernel_checked": result.kernel_items, "boxes": result.boxes,
                       "second_opinion": opinions})
        extra = f"; {len(opinions)} SMT obligations agreed in z3 and cvc5 (second opinion)" if opinions else ""
        line = f"valid: {result.kernel_items} items checked by the kernel ({result.boxes} boxes){extra}"
    if not args.json:
        print(line)
    if args.audit:
        report["audit"] = _audit(cert, model, args)
    if args.json:
        print(json.dumps(report))
    ok = report["valid"] and report.get("audit", {"passed": True})["passed"]
    return 0 if ok else 1


def _audit(cert: dict, model, args) -> dict:
    """Run the fact audit (independent of the kernel check's outcome) and print its verdict."""
    cfg = AuditConfig(random_words=args.random, seed=args.seed)
    try:
        result = audit(cert, model, max_len=args.max_len, cfg=cfg)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        out = {"passed": False, "failure": {"fact": "certificate", "detail": f"not auditable: {exc!r}"}}
        if not args.json:
            print(f"audit: FAILED: the certificate is not auditable ({exc!r})")
        return out
    out = {"passed": result.ok, "words": result.words, "statements": result.statements, "checks": result.checks}
    if result.failure is not None:
        f = result.failure
        out["failure"] = {"fact": f.fact, "word": f.word, "n": f.n, "position": f.position, "detail": f.detail}
    if not args.json:
        print(f"audit: passed: {result.statements} statements held on {result.words} words ({result.checks} checks)"
              if result.ok else f"audit: FAILED: {result.failure}")
    return out

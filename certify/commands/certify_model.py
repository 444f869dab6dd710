"""``certify MODEL.json --nmax N``: prove soft = hard for every input up to length N, or say why not."""
from __future__ import annotations

import json
from pathlib import Path

from ..api import certify_model, load_model, parse_schedule
from ..certifier import parse_nmax
from ..errors import UserError
from ..expr import to_text
from .progress import Progress


def add_arguments(p) -> None:
    p.add_argument("model", metavar="MODEL.json", help="model.json v1 file")
    p.add_argument("--nmax", default="1e6", metavar="N", help="largest input length: 1e6, 1000000, 2^20 or inf (default 1e6)")
    p.add_argument("--nmin", default="1", metavar="N", help="smallest input length (default 1)")
    p.add_argument("--tau", metavar="EXPR", help="temperature schedule τ(n) to check (default: the model's, else derived)")
    p.add_argument("--derive", action="store_true",
                   help="derive the schedule even if the model proposes a temperature (conflicts with --tau)")
    p.add_argument("--precision", choices=("float64", "float32", "bfloat16", "float16"),
                   help="certify the soft model evaluated in this floating-point format (docs/floating-point.md): "
                        "the largest length it allows, and the obligation that fails beyond")
    p.add_argument("--out", metavar="CERT.json", help="write the certificate (JSON) to this file")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout (certify/schemas/certify.json)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")


def main(args) -> int:
    n_max = parse_nmax(args.nmax, "--nmax")
    n_min = parse_nmax(args.nmin, "--nmin")
    if n_min == "inf":
        raise UserError("--nmin: must be finite")
    model = load_model(args.model)
    if model.max_length is not None and args.precision:
        raise UserError("--precision: not available for bounded (v2) models yet")
    if model.max_length is not None:  # a bounded (v2) model: one verdict per length
        if args.derive and args.tau:
            raise UserError("--derive: conflicts with --tau (derive a schedule, or check the given one)")
        return _per_length(model, n_min, n_max, args, args.json)
    with Progress(not args.quiet) as progress:
        result = certify_model(model, n_max, n_min, args.tau, args.derive, progress, args.precision)
    if result.certificate is not None and args.out:
        result.write(args.out)
    if args.json:
        print(json.dumps(result.to_json(args.out if result.certificate is not None else None)))
    elif result.certified:
        saved = f"; certificate written to {args.out}" if args.out else " (use --out FILE to save the certificate)"
        print(f"certified: {result.claim.sentence()}{saved}")
    else:
        print(f"{result.verdict}: {result.model}: {result.reason}")
        for blocker in (b for b in result.blockers if b not in result.reason):  # each missing fact not yet said
            print(f"  - {blocker}")
    return result.exit_code


def _per_length(model, n_min: int, n_max, args, as_json: bool) -> int:
    """--tau, else (without --derive) the model's temperature_interval or temperature, else a derived schedule."""
    from ..certifier import certificate_text, merge_exhaustive
    from ..length_report import length_report, summary

    if n_min > model.max_length:
        raise UserError(f"--nmin {n_min} is above the model's max_length {model.max_length}")
    top = model.max_length if n_max == "inf" else min(n_max, model.max_length)
    tau = parse_schedule(args.tau) if args.tau else None if args.derive else model.temperature
    interval = model.temperature_interval if tau is None and not args.derive else None
    verdicts = length_report(model, n_min, top, tau, interval=interval)
    overall = "refuted" if any(v.verdict == "refuted" for v in verdicts) else \
        "certified" if all(v.verdict == "certified" for v in verdicts) else "not proved"
    cert = merge_exhaustive(model, [v.certificate for v in verdicts]) if overall == "certified" else None
    if args.out:  # one certificate: every length certified by L-exhaustive on one τ interval
        if cert is None:
            raise UserError("--out: a bounded model's certificate needs every length certified by L-exhaustive at "
                            "one temperature (run with --tau, or without --derive)")
        try:
            Path(args.out).write_text(certificate_text(cert))
        except OSError as exc:
            raise UserError(f"--out: cannot write {args.out}: {exc.strerror}") from None
    if as_json:
        shown = to_text(tau) if tau is not None else None if interval is None else verdicts[0].tau
        print(json.dumps({"verdict": overall, "model": model.name, "n_min": n_min, "n_max": top,
                          "tau": shown, "max_length": model.max_length,
                          "lengths": [v.as_json() for v in verdicts],
                          **({"claim": cert["claim"], "certificate": cert} if cert is not None else {}),
                          **({"certificate_path": args.out} if cert is not None and args.out else {}),
                          **({} if overall == "certified" else {"reason": summary(verdicts)})}))
    else:
        print(f"{overall}: {model.name}: {summary(verdicts)}")
    return {"certified": 0, "refuted": 1, "not proved": 2}[overall]

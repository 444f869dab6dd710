"""``certify MODEL.json --nmax N``: prove soft = hard for every input up to length N, or say why not."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from ..certifier import certificate_text, certify, parse_nmax, parse_tau
from ..errors import UserError
from ..model import load_model

EXIT = {"certified": 0, "refuted": 1, "not proved": 2}


def add_arguments(p) -> None:
    p.add_argument("model", help="model.json v1 file")
    p.add_argument("--nmax", default="1e6", help="largest input length: 1e6, 1000000, 2^20 or inf (default 1e6)")
    p.add_argument("--nmin", default="1", help="smallest input length (default 1)")
    p.add_argument("--tau", help="temperature schedule τ(n) to check (default: the model's, else derived)")
    p.add_argument("--out", help="write the certificate (JSON) to this file")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")


def main(args) -> int:
    model = load_model(args.model)
    n_max = parse_nmax(args.nmax)
    n_min = parse_nmax(args.nmin)
    if n_min == "inf":
        raise UserError("--nmin must be finite")
    if n_max != "inf" and n_max < n_min:
        raise UserError(f"--nmax {n_max} is below --nmin {n_min}")
    tau = parse_tau(args.tau) if args.tau else None
    if model.max_length is not None:  # a bounded (v2) model: one verdict per length
        return _per_length(model, n_min, n_max, tau, args.json)
    with _progress(enabled=sys.stderr.isatty() and not args.json) as progress:
        outcome = certify(model, n_min, n_max, tau, progress=progress)
    if outcome.certificate is not None and args.out:
        try:
            Path(args.out).write_text(certificate_text(outcome.certificate))
        except OSError as exc:
            raise UserError(f"--out: cannot write {args.out}: {exc.strerror}") from None
    if args.json:
        print(json.dumps(_json(outcome, args.out)))
    else:
        print(_summary(model.name, outcome, n_min, n_max, args.out))
    return EXIT[outcome.verdict]


def _json(outcome, out: str | None) -> dict:
    result = {"verdict": outcome.verdict}
    if outcome.certificate is not None:
        result["claim"] = outcome.certificate["claim"]
        result["certificate"] = out if out else outcome.certificate
    if outcome.counterexample is not None:
        c = outcome.counterexample
        result["counterexample"] = {"word": c.word, "n": c.n, "tau": c.tau, "position": c.position,
                                    "hard_output": c.hard, "soft_output": c.soft}
    if outcome.reason:
        result["reason"] = outcome.reason
    return result


def _summary(name: str, outcome, n_min, n_max, out: str | None) -> str:
    if outcome.verdict == "certified":
        claim = outcome.certificate["claim"]
        saved = f"; certificate written to {out}" if out else " (use --out FILE to save the certificate)"
        bound = ("the soft output equals the hard output exactly" if claim["error_bound"] == "0"
                 else f"output error ≤ {claim['error_bound']} < margin {claim['margin']}")
        return (f"certified: {name}: soft = hard for every input of length {n_min}..{n_max} at τ(n) = {claim['tau']}"
                f" ({bound}){saved}")
    if outcome.verdict == "refuted":
        return f"refuted: {name}: {outcome.reason}"
    return f"not proved: {name}: {outcome.reason}"


def _per_length(model, n_min: int, n_max, tau, as_json: bool) -> int:
    from ..length_report import length_report, summary

    if n_min > model.max_length:
        raise UserError(f"--nmin {n_min} is above the model's max_length {model.max_length}")
    top = model.max_length if n_max == "inf" else min(n_max, model.max_length)
    verdicts = length_report(model, n_min, top, tau)
    overall = "refuted" if any(v.verdict == "refuted" for v in verdicts) else \
        "certified" if all(v.verdict == "certified" for v in verdicts) else "not proved"
    if as_json:
        print(json.dumps({"verdict": overall, "max_length": model.max_length,
                          "lengths": [v.as_json() for v in verdicts]}))
    else:
        print(f"{overall}: {model.name}: {summary(verdicts)}")
    return EXIT[overall]


class _progress:
    """A rich progress bar on stderr for long runs; silent when not on a terminal."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.bar = None
        self.task = None

    def __enter__(self):
        if self.enabled:
            from rich.progress import Progress

            self.bar = Progress(transient=True, console=None)
            self.bar.start()
        return self.update

    def update(self, stage: str, done: int, total: int) -> None:
        if self.bar is None:
            return
        if self.task is None:
            self.task = self.bar.add_task(stage, total=total)
        self.bar.update(self.task, description=stage, completed=done, total=total)

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.stop()
        return False

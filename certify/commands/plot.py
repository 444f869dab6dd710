"""``certify plot MODEL.json … [--kind tau|error]``: τ(n) log-log, or soft-versus-hard error against τ.

The series come from :mod:`certify.plot`; this module reads the command line, draws the figure
(PNG or PDF, by the suffix of ``-o``) and prints where it went (``--json``: the plotted numbers too,
certify/schemas/plot.json).  Exit 0 when every model's schedule was certified, 2 otherwise (the figure
is still drawn, without that model's certified curve).
"""
from __future__ import annotations

import json

from ..errors import UserError
from .progress import Progress
from .table import parse_lengths


def register(sub) -> None:
    p = sub.add_parser("plot", help="τ(n) log-log (certified, paper generic, critical) or soft-vs-hard error vs τ")
    p.add_argument("models", nargs="+", metavar="MODEL.json")
    p.add_argument("--kind", choices=("tau", "error"), default="tau",
                   help="tau: τ(n) over --n-range (default); error: max |soft − hard| against τ at --n")
    p.add_argument("--n-range", default="10:1e6", metavar="LO:HI", help="lengths of the tau plot (default 10:1e6)")
    p.add_argument("--n", default=None, metavar="N", help="length of the error plot (default 32)")
    p.add_argument("--critical", metavar="FILE.json",
                   help='measured τ*(n): a JSON list of {"model": PATH|SHA256|NAME, "n": INT, "tau_star": "DECIMAL"}')
    p.add_argument("-o", "--out", default=None, metavar="FILE.png|FILE.pdf",
                   help="the figure (default tau.png or error.png)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout (certify/schemas/plot.json)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=main)


def parse_range(text: str) -> tuple[int, int]:
    if text.count(":") != 1:
        raise UserError(f"--n-range: {text!r} is not LO:HI (e.g. 10:1e6)")
    lo, hi = (parse_lengths(part, "--n-range")[0] for part in text.split(":"))
    if not lo < hi:
        raise UserError(f"--n-range: {text!r} needs LO < HI")
    return lo, hi


def main(args) -> int:
    from ..plot import CONFIG, error_series, figure_path, render, tau_series
    from ..table import read_critical

    critical = read_critical(args.critical) if args.critical else ()
    out = figure_path(args.out or f"{args.kind}.png")
    with Progress(not args.quiet) as progress:
        if args.kind == "tau":
            if args.n is not None:
                raise UserError("--n: applies to --kind error (the tau plot uses --n-range)")
            lo, hi = parse_range(args.n_range)
            series = []
            for k, m in enumerate(args.models):
                progress("models", k, len(args.models))
                series.append(tau_series(m, lo, hi, critical))
            certified = all(s.certified_tau is not None for s in series)
        else:
            n = parse_lengths(args.n, "--n")[0] if args.n is not None else CONFIG.error_n
            series = [error_series(m, n, critical, progress=progress) for m in args.models]
            certified = all(any(label.startswith("certified") for label, _ in s.marks) for s in series)
        path = render(series, args.kind, out)
    if args.json:
        print(json.dumps({"kind": args.kind, "out": str(path), "certified": certified,
                          "series": [s.to_json() for s in series]}))
    else:
        print(f"{args.kind} plot of {len(series)} model(s) written to {path}")
    return 0 if certified else 2

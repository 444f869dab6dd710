"""``certify appendix --out DIR``: every table (Markdown, LaTeX, CSV), plot (PNG, PDF) and certificate of the
appendix in one run (:mod:`certify.appendix`).  Exit 0 when every row is certified, checked and in the
paper's class or hotter; 1 if a certificate was rejected by ``certify check``; 2 otherwise (everything is
still written, and ``appendix.json`` says which rows fall short)."""
from __future__ import annotations

import json

from .progress import Progress
from .table import parse_lengths


def register(sub) -> None:
    p = sub.add_parser("appendix", help="the whole appendix: tables (md, tex, csv), plots (png, pdf), certificates")
    p.add_argument("--out", required=True, metavar="DIR", help="folder to write (created if missing)")
    p.add_argument("--n", default="10,1e3,1e6", metavar="N,N,…", help="lengths of the value columns (default 10,1e3,1e6)")
    p.add_argument("--critical", metavar="FILE.json",
                   help='measured τ*(n): a JSON list of {"model": PATH|SHA256|NAME, "n": INT, "tau_star": "DECIMAL"}')
    p.add_argument("--json", action="store_true", help="one JSON object on stdout (certify/schemas/appendix.json)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=main)


def main(args) -> int:
    from .. import appendix as library
    from ..table import read_critical

    ns = parse_lengths(args.n)
    critical = read_critical(args.critical) if args.critical else ()
    with Progress(not args.quiet) as progress:
        appendix = library.build_appendix(args.out, ns, critical, library.CONFIG, progress)
    summary = appendix.to_json()
    if args.json:
        print(json.dumps({**summary, "files": list(appendix.files)}))
    else:
        outside = summary["paper"]["outside_class"]
        print(f"appendix written to {appendix.out}: {len(appendix.files)} files in {summary['total_seconds']} s; "
              f"{summary['paper']['rows']} paper rows certified and checked: "
              f"{summary['paper']['all_certified'] and summary['paper']['all_checked']}; "
              f"outside the paper's class: {', '.join(outside) if outside else 'none'}")
    return appendix.exit_code

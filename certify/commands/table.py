"""``certify table [MODEL.json …|--paper]``: the appendix table (certified, generic and critical τ(n)).

The rows are built by :mod:`certify.table`; this module reads the command line, prints the table in
Markdown, LaTeX or CSV (or writes it with ``--out``) and maps the outcome to the exit code:
0 every row certified (and, with ``--paper``, in the paper's class or hotter), 1 a certificate that
``certify check`` rejected, 2 a row not certified or (``--paper``) colder than the paper's class.
"""
from __future__ import annotations

import json
from pathlib import Path

from ..errors import UserError
from .progress import Progress


def register(sub) -> None:
    p = sub.add_parser("table", help="one row per model: certified τ(n) vs the paper's generic τ(n) and τ*(n); "
                                     "--paper: the simulation table")
    p.add_argument("models", nargs="*", metavar="MODEL.json", help="models, one row each (or --paper)")
    p.add_argument("--paper", action="store_true",
                   help="the paper's simulation table (TL, counting, induction, AHAT, Dyck), each row certified and checked")
    add_common(p)
    p.add_argument("--format", choices=("markdown", "latex", "csv"), default="markdown")
    p.add_argument("--certs", metavar="DIR", help="write each row's certificate to DIR and re-check it (certify check)")
    p.add_argument("--precision", metavar="F,F", default="",
                   help="a column per floating-point format (float64,float32,bfloat16,float16): the lengths certified "
                        "with the soft model evaluated in it")
    p.add_argument("--out", metavar="FILE", help="write the table to FILE instead of stdout")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout (certify/schemas/table.json)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=main)


def add_common(p) -> None:
    """The options `table` and `plot` share: the lengths and the measured critical temperatures."""
    p.add_argument("--n", default="10,1e3,1e6", metavar="N,N,…",
                   help="lengths of the value columns, comma-separated (default 10,1e3,1e6)")
    p.add_argument("--critical", metavar="FILE.json",
                   help='measured τ*(n): a JSON list of {"model": PATH|SHA256|NAME, "n": INT, "tau_star": "DECIMAL"}')


def parse_lengths(text: str, flag: str = "--n") -> tuple[int, ...]:
    from ..certifier import parse_nmax

    parts = [t for t in text.split(",") if t.strip()]
    if not parts:
        raise UserError(f"{flag}: give at least one length (e.g. 10,1e3,1e6)")
    values = [parse_nmax(t, flag) for t in parts]
    if "inf" in values:
        raise UserError(f"{flag}: lengths must be finite")
    if max(values) > 10**12:
        raise UserError(f"{flag}: lengths up to 10^12 (the certifier's range)")
    return tuple(sorted(set(values)))


def parse_formats(text: str) -> tuple[str, ...]:
    from ..precision import FORMAT_NAMES

    names = tuple(dict.fromkeys(t.strip() for t in text.split(",") if t.strip()))
    for name in names:
        if name not in FORMAT_NAMES:
            raise UserError(f"--precision: {name!r} is not one of {', '.join(FORMAT_NAMES)}")
    return names


def main(args) -> int:
    from ..table import RENDER, build_table, read_critical

    ns = parse_lengths(args.n)
    formats = parse_formats(args.precision)
    critical = read_critical(args.critical) if args.critical else ()
    with Progress(not args.quiet) as progress:
        table = build_table(args.models, ns, args.paper, critical, Path(args.certs) if args.certs else None,
                            progress=progress, formats=formats)
    text = RENDER[args.format](table)
    if args.out:
        try:
            Path(args.out).write_text(text)
        except OSError as exc:
            raise UserError(f"--out: cannot write {args.out}: {exc.strerror}") from None
    if args.json:
        print(json.dumps({**table.to_json(), "format": args.format, "text": text, "out": args.out}))
    elif args.out:
        print(f"table ({len(table.rows)} rows, {args.format}) written to {args.out}")
    else:
        print(text, end="")
    return table.exit_code

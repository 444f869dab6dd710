"""``certify prove``: discharge the lemma library and its negative controls.

Exit 0 only when every selected lemma is proved *and* every one of its negative
controls is refuted (a machinery that proves false variants is broken); 1 otherwise;
3 for an unknown lemma name.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from certify.errors import UserError

from .progress import Progress


def register(subparsers) -> None:
    p = subparsers.add_parser("prove", help="prove the lemma library (and refute its negative controls)")
    p.add_argument("lemmas", nargs="*", metavar="LEMMA", help="lemma names (default: all)")
    p.add_argument("--all", action="store_true", help="every lemma")
    p.add_argument("--json", action="store_true", help="a JSON list of results on stdout (certify/schemas/prove.json)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--emit-smt", metavar="DIR", help="write every query as a .smt2 file into DIR")
    p.set_defaults(func=main)


def _select(names: list[str], everything: bool):
    from proofs.lemmas import LEMMAS
    if everything or not names:
        return list(LEMMAS.values())
    unknown = [n for n in names if n not in LEMMAS]
    if unknown:
        raise UserError(f"unknown lemma {unknown[0]!r} (known: {', '.join(LEMMAS)})")
    return [LEMMAS[n] for n in dict.fromkeys(names)]


def _emit(lemmas, directory: str) -> None:
    out = Path(directory)
    try:
        out.mkdir(parents=True, exist_ok=True)
        for lemma in lemmas:
            for name, text in lemma.smt_files().items():
                (out / name).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write to {directory}: {exc.strerror}") from None


def _ok(row) -> bool:
    return row.verdict == ("refuted" if row.control else "proved")


def _print_table(rows) -> None:
    header = ("lemma", "method", "verdict", "seconds")
    cells = [(r.lemma, r.method, r.verdict + ("" if _ok(r) else "  ✗"), f"{r.seconds:.2f}") for r in rows]
    if sys.stdout.isatty():
        from rich.console import Console
        from rich.table import Table
        table = Table(*header)
        for c in cells:
            table.add_row(*c)
        Console().print(table)
        return
    widths = [max(len(h), *(len(c[k]) for c in cells)) for k, h in enumerate(header)]
    for line in [header] + cells:
        print("  ".join(v.ljust(w) for v, w in zip(line, widths)).rstrip())


def main(args) -> int:
    lemmas = _select(args.lemmas, args.all)
    if args.emit_smt:
        _emit(lemmas, args.emit_smt)
    rows = []
    with Progress(not args.quiet) as progress:
        for k, lemma in enumerate(lemmas):
            progress("lemmas", k, len(lemmas))
            rows.append(lemma.prove())
            rows += [control.refute() for control in lemma.controls]
        progress("lemmas", len(lemmas), len(lemmas))
    if args.json:
        print(json.dumps([r.as_json() for r in rows], indent=1))
    else:
        _print_table(rows)
    return 0 if all(_ok(r) for r in rows) else 1

"""``certify precision MODEL.json --n 10,100,1000``: significand bits needed per length (a certified bound).

For each length n the kernel's floating-point bounds (docs/floating-point.md) are evaluated on the
single box [n, n] in hypothetical formats with p significand bits (no over- or underflow,
accumulating in themselves); the fewest p that certify n is printed — an upper bound on the bits
the soft model needs at that length, at the schedule the exact certification checked (the given
one, the model's, or derived).  ``--plot FILE.svg`` draws bits against n with the float64/float32/
float16/bfloat16 significands for reference.
"""
from __future__ import annotations

import json

from ..api import load_model, parse_schedule
from ..certifier import certify, parse_nmax
from ..errors import UserError
from ..expr import to_text
from .progress import Progress

REFERENCE = {"float64": 53, "float32": 24, "float16": 11, "bfloat16": 8}


def register(sub) -> None:
    p = sub.add_parser("precision", help="significand bits the soft model needs at each length (certified bound)")
    p.add_argument("model", metavar="MODEL.json", help="model.json file")
    p.add_argument("--n", required=True, metavar="N,N,…", help="lengths, comma-separated (1e3, 2^10 allowed)")
    p.add_argument("--tau", metavar="EXPR", help="schedule τ(n) (default: the model's, else derived)")
    p.add_argument("--derive", action="store_true", help="derive the schedule even if the model proposes one")
    p.add_argument("--plot", metavar="FILE.svg", help="plot bits against n (an SVG chart)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout (certify/schemas/precision.json)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=main)


def main(args) -> int:
    from ..kernel.structure import analyse
    from ..precision import bits_needed

    lengths = sorted({_length(t) for t in args.n.split(",") if t.strip()})
    if not lengths:
        raise UserError("--n: give at least one length")
    if args.tau and args.derive:
        raise UserError("--derive: conflicts with --tau (derive a schedule, or check the given one)")
    model = load_model(args.model)
    if model.max_length is not None and lengths[-1] > model.max_length:
        raise UserError(f"--n: {lengths[-1]} is above the model's max_length {model.max_length}")
    with Progress(not args.quiet) as progress:
        exact = certify(model, 1, lengths[-1], parse_schedule(args.tau) if args.tau else None,
                        progress=progress, derive=args.derive)
        if exact.verdict != "certified":
            failed = {"model": model.name, "verdict": exact.verdict, "reason": exact.reason}
            print(json.dumps(failed) if args.json else f"{exact.verdict}: {model.name}: {exact.reason}")
            return 2 if exact.verdict == "not proved" else 1
        st = analyse(model)
        rows = []
        for k, n in enumerate(lengths):
            progress("lengths", k, len(lengths))
            rows.append({"n": n, "bits": bits_needed(model, st, exact.tau, n)})
    out = {"model": model.name, "tau": to_text(exact.tau), "lengths": rows,
           "meaning": "fewest significand bits p for which the kernel certifies length n in a p-bit format "
                      "(no over- or underflow, accumulation in the format itself); null: more than 113"}
    if args.plot:
        _plot(out, args.plot)
        out["plot"] = args.plot
    if args.json:
        print(json.dumps(out))
    else:
        print(f"{model.name} at τ(n) = {out['tau']}: significand bits that certify each length")
        for r in rows:
            fits = [f for f, p in REFERENCE.items() if r["bits"] is not None and r["bits"] <= p]
            print(f"  n = {r['n']}: {r['bits'] if r['bits'] is not None else '> 113'} bits"
                  + (f" (within {', '.join(fits)}'s significand)" if fits else ""))
    return 0


def _length(text: str) -> int:
    n = parse_nmax(text, "--n")
    if n == "inf":
        raise UserError("--n: lengths must be finite")
    return n


def _plot(out: dict, path: str) -> None:
    """An SVG line chart (log n against bits), written by hand: the project takes no plotting dependency
    (tests/test_user_cli.py)."""
    import math
    from html import escape

    pts = [(r["n"], r["bits"]) for r in out["lengths"] if r["bits"] is not None]
    w, h, pad = 560, 360, 50
    xs = [math.log10(n) for n, _ in pts] or [0.0]
    x0, x1 = min(xs), max(max(xs), min(xs) + 1)
    top = max([b for _, b in pts] + list(REFERENCE.values())) + 5

    def px(n):
        return pad + (math.log10(n) - x0) / (x1 - x0) * (w - 2 * pad)

    def py(b):
        return h - pad - b / top * (h - 2 * pad)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">',
             f'<text x="{w / 2}" y="18" text-anchor="middle">{escape(out["model"])} at τ(n) = {escape(out["tau"])}</text>',
             f'<text x="{w / 2}" y="{h - 10}" text-anchor="middle">input length n (log scale)</text>',
             f'<text x="12" y="{h / 2}" transform="rotate(-90 12 {h / 2})" text-anchor="middle">significand bits</text>',
             f'<line x1="{pad}" y1="{h - pad}" x2="{w - pad}" y2="{h - pad}" stroke="black"/>',
             f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{h - pad}" stroke="black"/>']
    for name, p in REFERENCE.items():
        parts.append(f'<line x1="{pad}" y1="{py(p):.1f}" x2="{w - pad}" y2="{py(p):.1f}" stroke="grey" '
                     f'stroke-dasharray="3,3"/><text x="{w - pad + 3}" y="{py(p) + 4:.1f}" fill="grey">{name}</text>')
    for k in range(math.floor(x0), math.ceil(x1) + 1):
        if x0 <= k <= x1:
            parts.append(f'<text x="{px(10 ** k):.1f}" y="{h - pad + 15}" text-anchor="middle">1e{k}</text>')
    if pts:
        parts.append('<polyline fill="none" stroke="steelblue" stroke-width="2" points="'
                     + " ".join(f"{px(n):.1f},{py(b):.1f}" for n, b in pts) + '"/>')
        parts += [f'<circle cx="{px(n):.1f}" cy="{py(b):.1f}" r="3" fill="steelblue"><title>n = {n}: {b} bits'
                  f'</title></circle>' for n, b in pts]
    parts.append("</svg>\n")
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(parts))
    except OSError as exc:
        raise UserError(f"--plot: cannot write {path}: {exc.strerror}") from None

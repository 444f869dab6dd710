"""Finite precision per shipped model: certified length ranges next to the first measured flip.

For every model of models/*.json and models/compiled/*.json and every format it certifies the soft
model evaluated in the format (``certify MODEL --nmax N --precision FORMAT``: the largest certified
n and the obligation failing beyond it) at the exact certificate's schedule — or, where the format
fails inside the range, at the colder halving of it that certifies the most lengths (``--derive`` in
the format) — then runs the model in the format (``float_run``) at that schedule on the adversarial
words of ``certify.precision.adversarial_words`` at n = 1, 2, 3, 4, 8, 16, …, up to --flip-max and
reports the first n whose decision differs from the exact hard model.  A flip inside a certified
range would be a soundness bug: the script exits 1.

    python3 benchmarks/precision_sweep.py --out benchmarks/precision.md    # float64 and float32
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from certify.certifier import certify  # noqa: E402
from certify.expr import to_text  # noqa: E402
from certify.model import load_model  # noqa: E402
from certify.precision import certify_in_format, first_flip, fmt_named  # noqa: E402

FORMATS = ("float64", "float32", "bfloat16", "float16")


def lengths(top: int) -> list[int]:
    out, n = [1, 2, 3], 4
    while n <= top:
        out.append(n)
        n *= 2
    return [n for n in out if n <= top]


def sweep(paths, n_max: int, flip_max: int, formats) -> tuple[list[str], bool]:
    rows = ["| model | schedule | " + " | ".join(f"{f}: certified n ≤ / first flip" for f in formats) + " |",
            "|---|---|" + "---|" * len(formats)]
    sound = True
    for path in paths:
        model = load_model(path)
        top = n_max if model.max_length is None else model.max_length
        t0 = time.perf_counter()
        exact = certify(model, 1, top)
        if exact.verdict != "certified":
            rows.append(f"| {path.relative_to(ROOT / 'models')} | exact: {exact.verdict} |" + " – |" * len(formats))
            continue
        cells = []
        for f in formats:
            if model.max_length is not None:
                cells.append("(bounded model: not yet)")
                continue
            p = certify_in_format(model, 1, top, fmt_named(f), exact.tau, derive=True)
            tau = p.tau if p.n_certified else exact.tau
            flip = first_flip(model, tau, f, lengths(min(flip_max, top)))
            cert = p.n_certified or 0
            if flip is not None and flip[0] <= cert:
                sound = False
            at = "" if not cert or to_text(tau) == to_text(exact.tau) else f" at `{to_text(tau)}`"
            cells.append(f"{cert if cert else 'none'}{at} / {flip[0] if flip else f'none ≤ {flip_max}'}")
        rows.append(f"| {path.relative_to(ROOT / 'models')} | {to_text(exact.tau)} | " + " | ".join(cells) + " |")
        print(rows[-1], f"({time.perf_counter() - t0:.0f} s)", flush=True)
    return rows, sound


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path)
    ap.add_argument("--nmax", type=int, default=10**6)
    ap.add_argument("--flip-max", type=int, default=256)
    ap.add_argument("--formats", nargs="*", default=["float64", "float32"], choices=FORMATS)
    ap.add_argument("models", nargs="*", type=Path, help="model files (default: models/*.json, models/compiled/*.json)")
    args = ap.parse_args()
    paths = [p.resolve() for p in args.models] or \
        sorted((ROOT / "models").glob("*.json")) + sorted((ROOT / "models/compiled").glob("*.json"))
    rows, sound = sweep(paths, args.nmax, args.flip_max, args.formats)
    text = ("# Finite precision per shipped model\n\n`python3 benchmarks/precision_sweep.py --out "
            "benchmarks/precision.md`: per format, the largest n certified by `certify MODEL --nmax "
            f"{args.nmax} --precision FORMAT` at the exact certificate's schedule (or, marked \"at\", the colder "
            "halving of it that certifies the most lengths), and the first n ≤ "
            f"{args.flip_max} (n = 1, 2, 3, 4, 8, …) at which an adversarial word "
            "(`certify.precision.adversarial_words`) decides differently in the format than the exact hard "
            "model.  A flip never lies inside a certified range" + ("" if sound else " — VIOLATED") + ".\n\n"
            + "\n".join(rows) + "\n")
    if args.out:
        args.out.write_text(text)
    print(text)
    sys.exit(0 if sound else 1)


if __name__ == "__main__":
    main()

"""Critical temperatures τ*(n) of every shipped model, and how much the certified τ gives away.

Run:  python3 benchmarks/critical_temperatures.py [--n 10,100,1000] [--scheduler local|ADDRESS]
          [--cache DIR] [--out benchmarks/critical_temperatures.md]

For each model and n: τ*(n) from `certify critical MODEL --n N` (default word set: adversarial
families, 32 seeded random words, every word when there are ≤ 1024; float64 screening, the
bracket confirmed in mpmath), its witness, and the ratios τ(n) / τ*(n) of the model's proposed
temperature and of the derived schedule (`certify MODEL --derive --nmax 1e3 --json` and
`--nmax 1e6`).  A ratio above 1 would be an unsound certificate.  The table is rewritten after
every length, so a partial run still leaves the lengths it finished; results are cached
(default ~/.cache/hardsoft/critical), so a rerun only measures what is missing.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from certify.api import certify_model, load_model, parse_lengths  # noqa: E402
from certify.critical import CriticalJob, default_cache_dir, sweep  # noqa: E402
from certify.expr import eval_mp  # noqa: E402
from certify.words import WordSet, parse_word_set  # noqa: E402

DERIVE_NMAX = (10**3, 10**6)
LARGE = 1000  # from this length on, the word set of --large


def models() -> list[Path]:
    return sorted((ROOT / "models").glob("*.json")) + sorted((ROOT / "models" / "compiled").glob("*.json"))


def derived(model, cache: Path) -> dict[int, str | None]:
    """The derived schedules (cached next to the τ* results, by model content hash)."""
    path = cache / f"derived-{model.sha256}.json"
    if path.exists():
        return {int(k): v for k, v in json.loads(path.read_text()).items()}
    out = {}
    for n_max in DERIVE_NMAX:
        result = certify_model(model, n_max=n_max, derive=True)
        out[n_max] = result.tau if result.certified else None
    cache.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out))
    return out


def value(tau_text: str | None, n: int) -> float | None:
    if tau_text is None:
        return None
    from certify.api import parse_schedule

    return float(eval_mp(parse_schedule(tau_text), {"n": n}))


def fmt(x: float | None, digits: int = 4) -> str:
    return "—" if x is None else f"{x:.{digits}g}"


def render(points: dict, lengths: list[int], schedules: dict, command: str, seconds: dict, large_words: str) -> str:
    top = max(lengths)
    large = f"; at n ≥ {LARGE} the word set of `--large` ({large_words})" if top >= LARGE else ""
    lines = [
        "# Critical temperatures τ*(n) of the shipped models",
        "",
        f"Produced by `{command}` ({time.strftime('%Y-%m-%d', time.gmtime())}, 2 shared cores).",
        "",
        "τ*(n): the largest τ at which every tried word of length n has soft decisions equal to hard ones",
        "(adversarial families, 32 seeded random words, every word when |Σ|^n ≤ 1024; bisection on log τ",
        "to a bracket of relative width 10⁻³; float64 screening, the bracket re-confirmed in mpmath at 50",
        f"digits: the witness agrees at τ* and disagrees at τ*·1.001{large}). Ratios are τ(n)/τ*(n) at",
        f"n = {top}: the model's proposed `temperature`, and the schedule `certify MODEL --derive` proves",
        "with `--nmax 1e3` and with `--nmax 1e6`. A ratio above 1 would be an unsound certificate;",
        "the issue-15 goal is a derived ratio ≥ 1/2.",
        "",
        "| model | " + " | ".join(f"τ*({n})" for n in lengths) + f" | witness at n = {top} (first 24 symbols) | "
        f"proposed / τ* | derived (1e3) / τ* | derived (1e6) / τ* | seconds ({', '.join(map(str, lengths))}) |",
        "|---|" + "---|" * (len(lengths) + 5),
    ]
    for path in models():
        name = str(path.relative_to(ROOT / "models"))
        row = [points.get((name, n)) for n in lengths]
        p = points.get((name, top))
        cells = []
        for q in row:
            if q is None:
                cells.append("—")
            elif q.status == "bracketed":
                cells.append(fmt(q.tau_star) + ("" if q.confirmed else " (unconfirmed)"))
            elif q.status == "agrees up to tau_max":
                cells.append(f"∞ (agrees up to {q.tau_star:.0e})")
            else:
                cells.append(q.status)
        ratios = []
        proposed, (d3, d6) = schedules[name]
        for tau in (proposed, d3, d6):
            t = value(tau, top)
            bracketed = p is not None and p.status == "bracketed"
            ratios.append(fmt(t / p.tau_star, 3) if (t is not None and bracketed) else "—")
        witness = "—" if p is None or p.witness is None else f"`{p.witness[:24]}`"
        times = ", ".join(fmt(seconds.get((name, n)), 3) for n in lengths)
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {witness} | " + " | ".join(ratios) + f" | {times} |")
    lines += ["", "Schedules (τ(n) as text):", ""]
    for path in models():
        name = str(path.relative_to(ROOT / "models"))
        proposed, (d3, d6) = schedules[name]
        lines.append(f"* {name}: proposed `{proposed}`; derived `{d3}` (nmax 1e3), `{d6}` (nmax 1e6)")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--n", default="10,100,1000")
    ap.add_argument("--scheduler", default=None, help="local (a dask LocalCluster) or a scheduler address; default in-process")
    ap.add_argument("--large", default="adversarial", metavar="SPEC",
                    help="word set at n >= 1000 (default adversarial: random words there cost minutes each in this "
                         "search and never set τ* at n ≤ 100)")
    ap.add_argument("--cache", default=str(default_cache_dir()))
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "critical_temperatures.md"))
    args = ap.parse_args()
    lengths = parse_lengths([args.n])
    command = "python3 benchmarks/critical_temperatures.py" + (f" --n {args.n}" if args.n != "10,100,1000" else "") \
        + (f" --large {args.large}" if args.large != "adversarial" else "") \
        + (f" --scheduler {args.scheduler}" if args.scheduler else "")
    loaded = {str(p.relative_to(ROOT / "models")): load_model(p) for p in models()}
    schedules = {}
    for name, m in loaded.items():
        d = derived(m, Path(args.cache))
        schedules[name] = (None if m.temperature is None else _text(m.temperature), (d[10**3], d[10**6]))
        print(f"{name}: derived {schedules[name][1]}", flush=True)
    points: dict = {}
    seconds: dict = {}
    for n in lengths:
        names = list(loaded)
        words = parse_word_set(args.large) if n >= LARGE else WordSet()
        results = sweep([CriticalJob(loaded[name], n, words) for name in names], args.scheduler, Path(args.cache))
        for name, p in zip(names, results):
            points[(name, n)] = p
            seconds[(name, n)] = p.seconds
            print(f"{name} n={n}: {p.status} τ*={p.tau_star} witness={p.witness and p.witness[:24]} "
                  f"confirmed={p.confirmed} {p.seconds:.1f}s", flush=True)
        Path(args.out).write_text(render(points, [m for m in lengths if m <= n], schedules, command, seconds, args.large))
    return 0


def _text(e) -> str:
    from certify.expr import to_text

    return to_text(e)


if __name__ == "__main__":
    sys.exit(main())

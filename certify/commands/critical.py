"""``certify critical MODEL.json --n 10,100,1000``: the critical temperature τ*(n) of each model at each length."""
from __future__ import annotations

import json
from pathlib import Path

from ..api import critical_temperatures, load_model, parse_lengths
from ..critical import default_cache_dir
from .progress import Progress

DEFAULT_WORDS = "adversarial,random:32,exhaustive:1024"


def register(sub) -> None:
    p = sub.add_parser("critical", help="τ*(n): the largest τ at which every tried word still agrees (bisection on log τ)")
    p.add_argument("model", nargs="+", metavar="MODEL.json")
    p.add_argument("--n", nargs="+", required=True, metavar="N", help="lengths: 10,100,1000 or 10 100 1000")
    p.add_argument("--words", default=DEFAULT_WORDS, metavar="SPEC",
                   help=f"word families per length: adversarial, random:N, exhaustive:LIMIT (default {DEFAULT_WORDS})")
    p.add_argument("--seed", type=int, default=0, help="seed of the random words (default 0)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="dask scheduler address, 'local' (a LocalCluster) or 'inprocess' "
                        "(default: in-process for one model × length, else a LocalCluster)")
    p.add_argument("--cache", metavar="DIR", help=f"result cache (default {default_cache_dir()})")
    p.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout (certify/schemas/critical.json)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=main)


def main(args) -> int:
    models = [load_model(m) for m in args.model]
    lengths = parse_lengths(args.n)
    scheduler = args.scheduler or ("local" if len(models) * len(lengths) > 1 else "inprocess")
    cache = None if args.no_cache else Path(args.cache) if args.cache else default_cache_dir()
    with Progress(not args.quiet) as progress:
        points = critical_temperatures(models, lengths, args.words, args.seed,
                                       None if scheduler == "inprocess" else scheduler, cache, progress)
    if args.json:
        print(json.dumps({"words": points[0].words if points else args.words, "scheduler": scheduler,
                          "results": [p.to_json() for p in points]}))
        return 0
    for p in points:
        if p.status == "bracketed":
            print(f"{p.model} n={p.n}: τ* = {p.tau_star:.6g} (every one of {p.tried} words agrees; "
                  f"{p.witness!r} disagrees at {p.tau_above:.6g}: hard {p.hard}, soft {p.soft}"
                  + ("" if p.confirmed else "; NOT confirmed in mpmath") + ")")
        elif p.status == "agrees up to tau_max":
            print(f"{p.model} n={p.n}: every one of {p.tried} words agrees up to τ = {p.tau_star:.3g}")
        elif p.status == "disagrees at tau_min":
            print(f"{p.model} n={p.n}: {p.witness!r} disagrees even at τ = {p.tau_above:.3g} (τ* = 0)")
        else:
            print(f"{p.model} n={p.n}: above the model's max_length")
    return 0

"""``certify validate MODEL.json [--tau EXPR]``: soft versus hard on many words — exhaustive, random, adversarial."""
from __future__ import annotations

import json

from ..api import load_model, parse_lengths, validate_agreement
from .progress import Progress


def register(sub) -> None:
    p = sub.add_parser("validate", help="compare soft (at τ) with hard on exhaustive, random and adversarial words "
                                        "(exit 0 all agree, 1 a disagreement)")
    p.add_argument("model", metavar="MODEL.json")
    p.add_argument("--tau", metavar="EXPR", help="temperature τ(n) (default: the model's temperature)")
    p.add_argument("--n", nargs="+", metavar="N", help="lengths of the adversarial words: 10,100 or 10 100 (default 16; "
                                                       "implies --adversarial)")
    p.add_argument("--exhaustive", type=int, metavar="K", help="every word of length 1..K")
    p.add_argument("--random", type=int, metavar="N", help="N seeded random words of length 1..--max-len")
    p.add_argument("--max-len", type=int, metavar="M", help="longest random word (default 20)")
    p.add_argument("--adversarial", action="store_true", help="the adversarial families at each length of --n")
    p.add_argument("--precision", choices=("mp", "float64"), default="mp",
                   help="soft number system (float64 re-evaluates in mpmath near a decision boundary; default mp)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random words (default 0)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout (certify/schemas/validate.json)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=main)


def main(args) -> int:
    model = load_model(args.model)
    lengths = parse_lengths(args.n) if args.n else (16,)
    chosen = args.n is not None or args.adversarial or args.exhaustive is not None or args.random is not None
    exhaustive = args.exhaustive if args.exhaustive is not None or not chosen else 0
    random_count = args.random if args.random is not None else (0 if chosen else 100)
    adversarial = args.adversarial or args.n is not None or not chosen
    with Progress(not args.quiet) as progress:
        report = validate_agreement(model, args.tau, exhaustive, random_count, args.max_len, lengths, adversarial,
                                    args.precision, args.seed, progress)
    if args.json:
        print(json.dumps(report.to_json()))
        return report.exit_code
    total = sum(report.words.values())
    families = ", ".join(f"{v} {k}" for k, v in report.words.items() if v)
    print(f"{report.model}: soft (τ(n) = {report.tau}, {report.precision}) vs hard on {total} words ({families}): "
          f"worst |soft − hard| = {report.worst_error:.3g} on {report.worst_word!r}")
    for d in report.disagreements:
        print(f"DISAGREE on {d.word!r} (n={d.n}, {d.family}) at τ = {d.tau:.6g}, position {d.position}: "
              f"hard {d.hard}, soft {d.soft}")
    print("every word agrees" if report.agree else f"{len(report.disagreements)} word(s) disagree")
    return report.exit_code

"""``certify derive theorem26``: print Theorem 26's derivation with explicit constants.

The math lives in :mod:`symbolic`; this module only reads the command line
(γ and x_max through the model-format parser, K and δ as exact rationals) and
maps the verdict to the exit code: 0 every step checked, 2 some step not proved.
"""
from __future__ import annotations

import dataclasses

from certify.errors import UserError


def register(subparsers) -> None:
    p = subparsers.add_parser("derive", help="derive a theorem mechanically (theorem26: the temperature schedule)")
    p.add_argument("what", choices=["theorem26"], help="what to derive")
    p.add_argument("--L", type=int, default=4, help="number of layers (default 4)")
    p.add_argument("--K", default="3", help="Lemma 25 constant, exact rational (default 3)")
    p.add_argument("--model", help="take K from this model.json's weights (overrides --K; L defaults to its depth)")
    p.add_argument("--gamma", default="1/n^2", help="score gap gamma(n), expression in n (default 1/n^2)")
    p.add_argument("--xmax", default="n", help="activation bound x_max(n), expression in n (default n)")
    p.add_argument("--delta", default="1/4", help="target error delta <= 1, exact rational (default 1/4)")
    p.add_argument("--nmax", type=int, default=None, help="prove the schedule for n in [1, NMAX] (default 10^9)")
    p.add_argument("--format", choices=["markdown", "latex", "json"], default=None,
                   help="markdown (default), latex (a standalone article) or json")
    p.add_argument("--json", action="store_true", help="same as --format json (certify/schemas/derive.json)")
    p.set_defaults(func=main)


def main(args) -> int:
    from symbolic.config import CONFIG
    from symbolic.convert import parse_in_n, rational
    from symbolic.derivation import derive_theorem26
    from symbolic.render import RENDERERS
    from symbolic.schedule import Problem

    if args.json and args.format not in (None, "json"):
        raise UserError(f"--json: conflicts with --format {args.format}")
    fmt = "json" if args.json else args.format or "markdown"
    K = rational(args.K, "K")
    L = args.L
    if args.model:
        from certify.model import load_model
        from symbolic.layer_bound import model_constant

        model = load_model(args.model)
        K = model_constant(model)
    cfg = CONFIG
    if args.nmax is not None:
        if not 10 <= args.nmax <= 10**12:
            raise UserError(f"--nmax must lie in 10..10^12, got {args.nmax}")
        cfg = dataclasses.replace(CONFIG, n_max=args.nmax, ratio_n=min(CONFIG.ratio_n, args.nmax))
    problem = Problem(L, K, parse_in_n(args.gamma, "gamma"), parse_in_n(args.xmax, "xmax"), rational(args.delta, "delta"))
    derivation = derive_theorem26(problem, {"gamma": args.gamma, "xmax": args.xmax}, cfg)
    print(RENDERERS[fmt](derivation))
    return 0 if derivation.proved else 2

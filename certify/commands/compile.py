"""``certify compile``: formulas and tasks -> model.json v1, optionally checked.

    certify compile FORMULA --alphabet abc --scheme bounded|unbounded [--transduction] -o MODEL.json
    certify compile induction-head --alphabet abc --target a [--scheme ...] -o MODEL.json
    certify compile dyck --k 2 -o MODEL.json
    certify compile PROGRAM.srasp -o MODEL.json          (an S-RASP program, docs/srasp.md)
    ... --check [--exhaustive 8 --random 500 --max-len 64 --seed 0 --soft 10]

``--json`` prints one object (certify/schemas/compile.json): the model itself under
``model`` and, when written, its path under ``model_path``; the check's result under
``check``.  Progress of ``--check`` goes to stderr (``--quiet`` turns it off).

Exit status: 0 compiled (and, with --check, the check passed); 1 the check found
a counterexample; 3 invalid input (a formula that does not parse, a symbol not in
the alphabet, an S-RASP program that does not parse, naming line and column, ...).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from ..errors import UserError
from ..model import dumps_model, model_from_dict
from .progress import Progress

TASKS = ("induction-head", "dyck")


def register(sub) -> None:
    p = sub.add_parser("compile", help="compile a formula (or induction-head, dyck, an S-RASP program) into a model.json")
    p.add_argument("formula", help="a formula, e.g. \"'a' since 'b'\", a task name: induction-head, dyck, "
                                   "or an S-RASP program file PROGRAM.srasp")
    p.add_argument("--alphabet", help="input symbols: one-character symbols concatenated (abc) or comma-separated")
    p.add_argument("--scheme", choices=("bounded", "unbounded"), default="bounded",
                   help="bounded PEs with temperature scaling, or unbounded PEs with tau = 1 (default bounded)")
    p.add_argument("--transduction", action="store_true", help="output at every position (default: last)")
    p.add_argument("--target", help="induction-head: the target symbol")
    p.add_argument("--k", type=int, default=None, help="dyck: number of bracket types (1..4)")
    p.add_argument("--name", help="model name (default derived from the input)")
    p.add_argument("-o", "--output", help="write the model here (default: standard output)")
    p.add_argument("--check", action="store_true", help="compare the hard model with the reference semantics")
    p.add_argument("--exhaustive", type=int, default=8, help="--check: every word up to this length (default 8)")
    p.add_argument("--random", type=int, default=500, help="--check: this many random words (default 500)")
    p.add_argument("--max-len", type=int, default=64, help="--check: random word lengths 1..this (default 64)")
    p.add_argument("--seed", type=int, default=0, help="--check: random seed (default 0)")
    p.add_argument("--soft", type=int, default=10,
                   help="--check: compare the soft model at the proposed temperature on this many words (default 10)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout (certify/schemas/compile.json)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=main)


def parse_alphabet(text: str | None) -> tuple[str, ...]:
    if text is None or not text.strip():
        raise UserError("--alphabet is required (e.g. --alphabet abc)")
    symbols = tuple(s.strip() for s in text.split(",")) if "," in text else tuple(text.strip())
    if any(not s for s in symbols):
        raise UserError(f"--alphabet {text!r}: empty symbol")
    if len(set(symbols)) != len(symbols):
        raise UserError(f"--alphabet {text!r}: repeated symbol")
    return symbols


def build_task(args):
    from proofs.constructions.check import dyck_task, formula_task, induction_task

    if args.formula.endswith(".srasp"):
        return _srasp_task(args)
    if args.formula == "dyck":
        if args.k is None:
            raise UserError("dyck needs --k (number of bracket types)")
        if args.scheme != "bounded":
            raise UserError("dyck is compiled in the bounded scheme only")
        return dyck_task(args.k, args.name)
    if args.k is not None:
        raise UserError("--k applies to dyck only")
    if args.formula == "induction-head":
        if args.target is None:
            raise UserError("induction-head needs --target SYMBOL")
        return induction_task(parse_alphabet(args.alphabet), args.target, args.scheme, args.name)
    if args.target is not None:
        raise UserError("--target applies to induction-head only")
    return formula_task(args.formula, parse_alphabet(args.alphabet), args.scheme, args.transduction, args.name)


def _srasp_task(args):
    """An S-RASP program (docs/srasp.md): the model of proofs.constructions.srasp_compile, checked
    against the interpreter.  The formula-only options do not apply."""
    import re

    from proofs.constructions.check import Task
    from proofs.constructions.srasp import decisions, parse_program
    from proofs.constructions.srasp_compile import compile_program

    for option, given in (("--alphabet", args.alphabet), ("--target", args.target), ("--k", args.k),
                          ("--transduction", args.transduction or None)):
        if given is not None:
            raise UserError(f"{option} does not apply to an S-RASP program (the program states it)")
    if args.scheme != "bounded":
        raise UserError("S-RASP programs are compiled in the bounded scheme only")
    path = Path(args.formula)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{args.formula}: cannot read the program: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        program = parse_program(text)
    except UserError as exc:
        raise UserError(f"{args.formula}: {exc}") from None
    name = args.name or "srasp-" + (re.sub(r"[^A-Za-z0-9._-]", "-", path.stem)[:58] or "program")
    return Task(compile_program(program, name), lambda w: decisions(program, w))


def main(args) -> int:
    for option in ("exhaustive", "random", "soft"):
        if getattr(args, option) < 0:
            raise UserError(f"--{option}: must be >= 0")
    if args.max_len < 1:
        raise UserError("--max-len: must be >= 1")
    task = build_task(args)
    text = dumps_model(task.model)
    model_from_dict(task.model)  # the compiler's output must meet the v1 contract
    if args.output:
        try:
            Path(args.output).write_text(text)
        except OSError as exc:
            raise UserError(f"--output: cannot write {args.output}: {exc.strerror}") from None
    result = None
    if args.check:
        from proofs.constructions.check import check

        with Progress(not args.quiet) as progress:
            result = check(task, args.exhaustive, args.random, args.max_len, args.seed, args.soft, progress)
    if args.json:
        print(json.dumps(_json(task.model, args.output, result)))
    else:
        _print(task.model, text, args, result)
    return 0 if result is None or result.ok else 1


def _json(model: dict, path: str | None, result) -> dict:
    out = {"name": model["name"], "model": model, "layers": len(model["layers"]), "dims": len(model["dims"]),
           "temperature": model.get("temperature"), "check": None}
    if path:
        out["model_path"] = path
    if result is not None:
        out["check"] = {"ok": result.ok, "hard_words": result.hard_words, "soft_words": result.soft_words,
                        "counterexample": result.counterexample}
    return out


def _print(model: dict, text: str, args, result) -> None:
    if args.output:
        print(f"wrote {args.output}: {len(model['layers'])} layers, {len(model['dims'])} dims, "
              f"temperature {model['temperature']}")
    elif result is None:
        sys.stdout.write(text)
    if result is None:
        return
    if not result.ok:
        print(f"check failed: {result.counterexample}")
        return
    print(f"check passed: {result.hard_words} words (exhaustive up to length {args.exhaustive}, "
          f"{args.random} random up to length {args.max_len}) agree with the reference; soft model at "
          f"temperature {model['temperature']} agrees with the hard model on {result.soft_words} words")

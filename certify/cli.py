"""The ``certify`` command: a thin layer that routes to one module per subcommand.

``certify MODEL.json …`` (no subcommand) is the certifier; every other word is a
subcommand registered by a module of :mod:`certify.commands`.  A first word that is
neither a command nor an existing file is rejected with the closest command
(``certify verify`` → "did you mean 'check'?") rather than read as a missing model.
User mistakes are :class:`certify.errors.UserError`: one line on stderr, exit status
3 — or, under ``--json``, the object ``{"error": {"code": 3, "message", "where"}}`` on
stdout (``certify/schemas/error.json``), so a script reading stdout always gets JSON.
"""
from __future__ import annotations

import argparse
import difflib
import importlib
import json
import os
import re
import sys
from pathlib import Path

from . import __version__
from .api import EXIT_INVALID, EXIT_OK
from .errors import ModelError, UserError

SUBCOMMANDS = ("run", "check", "show", "validate-model", "compile", "derive", "prove", "export", "import",
               "validate", "critical", "table", "plot", "appendix", "precision")
_MODULES = {name: name.replace("-", "_") + ("_" if name == "import" else "") for name in SUBCOMMANDS}
# words users type for a command, so that a suggestion can name the right one (verify → check)
SYNONYMS = {"verify": "check", "recheck": "check", "lint": "validate-model", "test": "validate", "compare": "validate",
            "tau-star": "critical", "temperature": "critical",
            "eval": "run", "evaluate": "run", "simulate": "run", "inspect": "show", "explain": "show",
            "describe": "show", "build": "compile", "proof": "prove", "lemmas": "prove", "derivation": "derive"}
MAIN_USAGE = "certify MODEL.json [--nmax N] [--nmin N] [--tau EXPR | --derive] [--out CERT.json] [--json] [--quiet]"
EXIT_CODES = "exit codes: 0 certified / valid / ok, 1 refuted or check failed, 2 not proved, 3 invalid input"


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as one line with exit status 3."""

    def error(self, message: str):  # noqa: D401 - argparse API
        raise UserError(f"{self.prog}: {message}")


def main_command_parser(add_help: bool = True) -> argparse.ArgumentParser:
    from .commands import certify_model

    parser = _Parser(prog="certify", usage=MAIN_USAGE, epilog=EXIT_CODES, add_help=add_help,
                     description="Prove that the softmax model equals the hard one for every input of length "
                                 "n_min..n_max, or say why not.")
    certify_model.add_arguments(parser)
    return parser


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser; its help shows the main command first, then every subcommand."""
    main_options = main_command_parser(add_help=False).format_help().split("\n\n", 1)[1].rsplit("\n\n", 1)[0]
    main_options = main_options.replace("positional arguments:", "arguments:", 1).replace("options:", "", 1)
    parser = _Parser(prog="certify", formatter_class=argparse.RawDescriptionHelpFormatter,
                     usage=f"{MAIN_USAGE}\n       certify COMMAND ...   (certify COMMAND --help)",
                     description="Certify that softmax attention simulates hard attention.\n\n"
                                 f"main command: {MAIN_USAGE}\n{main_options}",
                     epilog=EXIT_CODES)
    parser.add_argument("--version", action="version", version=f"certify (hardsoft) {__version__}")
    # prog: a subcommand's usage and errors read "certify check: …" (by default argparse would build
    # it from the two-line usage above, and an error would no longer be one line)
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, title="commands", metavar="COMMAND",
                                prog="certify")
    for name in SUBCOMMANDS:
        importlib.import_module(f"certify.commands.{_MODULES[name]}").register(sub)
    return parser


def _suggestion(word: str) -> str | None:
    """The command closest to ``word`` (by spelling, or by a synonym's spelling)."""
    names = {**{c: c for c in SUBCOMMANDS}, **SYNONYMS}
    close = difflib.get_close_matches(word.lower(), list(names), n=1, cutoff=0.6)
    return names[close[0]] if close else None


def _is_main_command(first: str) -> bool:
    """An existing path (or a word that looks like a file name) is the main command's model;
    a bare word such as ``verify`` is a mistyped command."""
    if Path(first).exists():
        return True
    return _suggestion(first) is None and not re.fullmatch(r"[a-z]+(-[a-z]+)*", first)


def _unknown_command(word: str) -> UserError:
    close = _suggestion(word)
    hint = f"did you mean '{close}'?" if close else f"commands: {', '.join(SUBCOMMANDS)}"
    return UserError(f"unknown command {word!r} (and no file of that name); {hint}")


def _dispatch(argv: list[str]) -> int:
    if argv and argv[0] not in SUBCOMMANDS and not argv[0].startswith("-"):
        if not _is_main_command(argv[0]):
            raise _unknown_command(argv[0])
        from .commands import certify_model

        return certify_model.main(main_command_parser().parse_args(argv))
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        if argv:  # options without a model or command, e.g. `certify --json`
            raise UserError("give MODEL.json or a COMMAND (certify --help)")
        parser.print_help()
        return EXIT_OK
    return args.func(args)


def where(exc: UserError) -> str | None:
    """The flag or key path an error is about: a ModelError's path, else a leading --flag."""
    if isinstance(exc, ModelError) and exc.path:
        return exc.path
    m = re.search(r"(?:^|argument )(--[A-Za-z][\w-]*)", str(exc))
    return m.group(1) if m else None


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return _dispatch(argv)
    except UserError as exc:
        if "--json" in argv:
            print(json.dumps({"error": {"code": EXIT_INVALID, "message": str(exc), "where": where(exc)}}))
        else:
            print(f"certify: error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    except SystemExit as exc:  # --help / --version print and exit 0 inside argparse
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    except KeyboardInterrupt:
        print("certify: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `certify … | head`: the reader left; stop quietly, no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())

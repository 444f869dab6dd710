"""The ``certify`` command: a thin layer that routes to one module per subcommand.

``certify MODEL.json …`` (no subcommand) is the certifier; every other word is a
subcommand registered by a module of :mod:`certify.commands`.  User mistakes are
:class:`certify.errors.UserError`: one line on stderr, exit status 3.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from .errors import UserError

EXIT_OK, EXIT_REFUTED, EXIT_NOT_PROVED, EXIT_INVALID = 0, 1, 2, 3
SUBCOMMANDS = ("run", "validate-model", "derive", "prove", "compile", "check", "export", "import")
_MODULES = {name: name.replace("-", "_") + ("_" if name == "import" else "") for name in SUBCOMMANDS}


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as one line with exit status 3."""

    def error(self, message: str):  # noqa: D401 - argparse API
        raise UserError(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="certify", description="Certify that softmax attention simulates hard attention.")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    for name in SUBCOMMANDS:
        try:
            module = importlib.import_module(f"certify.commands.{_MODULES[name]}")
        except ModuleNotFoundError as exc:
            if exc.name != f"certify.commands.{_MODULES[name]}":
                raise
            continue
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] not in SUBCOMMANDS and not argv[0].startswith("-"):
            from .commands import certify_model

            parser = _Parser(prog="certify MODEL.json")
            certify_model.add_arguments(parser)
            return certify_model.main(parser.parse_args(argv))
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return EXIT_OK if not argv else EXIT_INVALID
        return args.func(args)
    except UserError as exc:
        print(f"certify: error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    except KeyboardInterrupt:
        print("certify: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

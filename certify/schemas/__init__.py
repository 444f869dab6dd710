"""JSON Schemas (draft 2020-12) of the certificate and of every command's ``--json`` output.

Shipped as package data so that tools consuming hardsoft's output can validate it
without this repository; the tests validate every command's output against them.
Schemas refer to each other by file name (their ``$id``s share one base URI).
"""
from __future__ import annotations

import json
from importlib import resources

NAMES = ("certificate", "certify", "check", "show", "run", "validate-model", "compile", "derive", "prove", "export", "error",
         "validate", "critical", "table", "plot", "appendix", "critical-input", "precision")


def load(name: str) -> dict:
    """The schema ``certify/schemas/NAME.json`` as a dict."""
    if name not in NAMES:
        raise KeyError(f"no schema {name!r} (schemas: {', '.join(NAMES)})")
    return json.loads(resources.files(__name__).joinpath(f"{name}.json").read_text(encoding="utf-8"))

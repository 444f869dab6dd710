"""One step of a derivation: what was derived, and how it was checked.

Prose is ASCII with inline ``$...$`` math so that the same text is valid
Markdown (with math) and LaTeX; ``formulas`` are display-math LaTeX bodies.
``check`` says which independent checker accepted the step; ``ok`` is its verdict.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Step:
    key: str
    title: str
    prose: str
    formulas: tuple[str, ...]
    check: str
    ok: bool

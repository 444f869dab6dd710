"""Soft versus hard on many words at one schedule τ(n): the empirical counterpart of a certificate.

Why: a certificate proves soft = hard for every input; ``certify validate`` *tests* it (or a
schedule that was never certified) on every word up to a length, seeded random words and the
adversarial families of :mod:`certify.words`, and reports every disagreement with both outputs.
Hard outputs are exact; soft ones are mpmath, or float64 with an mpmath re-evaluation of every
output too close to its decision boundary — so a reported disagreement is always an mpmath one.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Callable, Sequence

from .compare import CompareConfig, compare
from .errors import UserError
from .expr import Expr, eval_mp, to_text
from .hard_fast import hard_run_fast
from .model import Model, format_word
from .words import adversarial_words, random_words


@dataclass(frozen=True)
class ValidateConfig:
    exhaustive_budget: int = 2000  # default --exhaustive: the largest K with at most this many words of length ≤ K
    exhaustive_cap: int = 10
    random_max_len: int = 20
    compare: CompareConfig = CompareConfig()


@dataclass(frozen=True)
class Disagreement:
    word: str
    n: int
    tau: float
    position: int
    hard: str
    soft: str
    family: str  # "exhaustive" | "random" | "adversarial"


@dataclass(frozen=True)
class ValidationReport:
    """``certify validate``: how many words were compared, the worst |soft − hard|, and every
    disagreement (exit 0 when there is none, else 1)."""

    model: str
    model_sha256: str
    tau: str
    precision: str
    words: dict  # family -> number of words compared
    evaluations: dict  # number system -> soft evaluations decided in it
    worst_error: float
    worst_word: str | None
    disagreements: tuple[Disagreement, ...]

    @property
    def agree(self) -> bool:
        return not self.disagreements

    @property
    def exit_code(self) -> int:
        return 0 if self.agree else 1

    def to_json(self) -> dict:
        return {"model": self.model, "model_sha256": self.model_sha256, "tau": self.tau, "precision": self.precision,
                "words": dict(self.words), "compared": sum(self.words.values()), "evaluations": dict(self.evaluations),
                "worst_error": self.worst_error, "worst_word": self.worst_word, "agree": self.agree,
                "disagreements": [{"word": d.word, "n": d.n, "tau": d.tau, "position": d.position,
                                   "hard_output": d.hard, "soft_output": d.soft, "family": d.family}
                                  for d in self.disagreements]}


def default_exhaustive(model: Model, cfg: ValidateConfig = ValidateConfig()) -> int:
    total, k = 0, 0
    while k < cfg.exhaustive_cap and total + len(model.alphabet) ** (k + 1) <= cfg.exhaustive_budget:
        k += 1
        total += len(model.alphabet) ** k
    return k


def planned_words(model: Model, exhaustive: int, random_count: int, max_len: int, lengths: Sequence[int],
                  adversarial: bool, seed: int) -> list[tuple[str, tuple[str, ...]]]:
    """(family, word) pairs, each word once (the first family that produced it names it)."""
    top = model.max_length if model.max_length is not None else None
    fits = (lambda n: top is None or n <= top)
    plan: list[tuple[str, tuple[str, ...]]] = []
    for k in range(1, exhaustive + 1):
        if fits(k):
            plan += [("exhaustive", w) for w in itertools.product(model.alphabet, repeat=k)]
    if random_count:
        plan += [("random", w) for w in random_words(model, random_count, tuple(k for k in range(1, max_len + 1) if fits(k)) or (1,), seed)]
    if adversarial:
        for n in lengths:
            if fits(n):
                plan += [("adversarial", w) for w in adversarial_words(model, n)]
    seen: dict[tuple[str, ...], str] = {}
    for family, w in plan:
        seen.setdefault(w, family)
    return [(family, w) for w, family in seen.items()]


def validate(model: Model, tau: Expr, exhaustive: int | None = None, random_count: int = 100,
             max_len: int | None = None, lengths: Sequence[int] = (), adversarial: bool = True,
             precision: str = "mp", seed: int = 0, cfg: ValidateConfig = ValidateConfig(),
             progress: Callable[[str, int, int], None] = lambda *_: None) -> ValidationReport:
    """Compare soft at τ(n) with hard on the planned words (see :func:`planned_words`)."""
    if precision not in ("mp", "float64"):
        raise UserError(f"--precision: {precision!r} is not one of mp, float64")
    k = default_exhaustive(model, cfg) if exhaustive is None else exhaustive
    plan = planned_words(model, k, random_count, max_len or cfg.random_max_len, lengths, adversarial, seed)
    counts = {"exhaustive": 0, "random": 0, "adversarial": 0}
    evaluations = {"float64": 0, "mp": 0}
    worst, worst_word, found = 0.0, None, []
    for done, (family, w) in enumerate(plan):
        progress("soft vs hard", done, len(plan))
        n = len(w)
        t = _tau_at(tau, n, cfg.compare.dps)
        c = compare(model, w, hard_run_fast(model, w), t, precision, cfg.compare)
        counts[family] += 1
        evaluations[c.precision] += 1
        if c.error > worst or worst_word is None:
            worst, worst_word = c.error, format_word(model, w)
        if not c.agree:
            found.append(Disagreement(format_word(model, w), n, float(t), c.position, c.hard, c.soft, family))
    progress("soft vs hard", len(plan), len(plan))
    return ValidationReport(model.name, model.sha256, to_text(tau), precision, counts, evaluations, worst,
                            worst_word, tuple(found))


def _tau_at(tau: Expr, n: int, dps: int):
    """τ(n) as an mpf at ``dps`` digits (so that the mpmath evaluation sees it unrounded)."""
    import mpmath

    from .errors import ExprError

    with mpmath.workdps(dps):
        try:
            t = eval_mp(tau, {"n": n})
        except (ExprError, ValueError, OverflowError) as exc:
            raise UserError(f"--tau: undefined at n={n}: {exc}") from None
    if not t > 0:
        raise UserError(f"--tau: τ({n}) = {mpmath.nstr(t, 6)} is not positive")
    return t

"""Counterexample search: a word whose soft decision differs from its hard one.

Used when the kernel cannot certify a claim.  Candidates are every short word
and seeded random longer ones; the comparison uses the exact hard evaluator and
the mpmath soft evaluator, and a difference is reported only when the soft output
is farther than ``noise`` from the threshold, so mpmath rounding never makes a
counterexample.
"""
from __future__ import annotations

import itertools
import time
import random
from dataclasses import dataclass
from fractions import Fraction

import mpmath

from .errors import UserError
from .evaluate import format_value, hard_run, soft_run
from .expr import Expr, eval_mp, parse_expr, to_text
from .model import Model, format_word


@dataclass(frozen=True)
class RefuteConfig:
    exhaustive_budget: int = 400
    random_words: int = 40
    random_max_len: int = 20
    dps: int = 40
    noise: Fraction = Fraction(1, 10**20)
    default_taus: tuple[str, ...] = ("1/(1000*n^2)", "1/(1000000*n^3)")  # near the τ → 0 limit
    # hotter τ at which a hard output sitting exactly on the threshold shows its leakage
    threshold_taus: tuple[str, ...] = ("1/(10*n)", "1/(100*n)")
    seed: int = 0
    work: int = 100_000  # per τ tried: Σ over words of n·dims·layers + heads·n² (the evaluator's work)
    seconds: float = 20.0  # wall-clock cap on the whole search (large models evaluate slowly in mpmath)


@dataclass(frozen=True)
class Counterexample:
    word: str
    n: int
    tau: str
    position: int
    hard: str
    soft: str
    reason: str


def candidate_words(model: Model, n_min: int, n_max: int, cfg: RefuteConfig):
    budget = cfg.exhaustive_budget
    n = n_min
    while n <= n_max and len(model.alphabet) ** n <= budget:
        budget -= len(model.alphabet) ** n
        yield from itertools.product(model.alphabet, repeat=n)
        n += 1
    rng = random.Random(cfg.seed)
    top = min(n_max, cfg.random_max_len)
    if top >= n:
        for _ in range(cfg.random_words):
            length = rng.randint(n, top)
            yield tuple(rng.choice(model.alphabet) for _ in range(length))


def search_counterexample(model: Model, tau: Expr | None, n_min: int, n_max: int | str,
                          cfg: RefuteConfig = RefuteConfig()) -> Counterexample | None:
    n_hi = n_max if isinstance(n_max, int) else cfg.random_max_len
    if tau is not None:
        plan = [(tau, False)]
    else:
        plan = [(parse_expr(t, ("n",)), False) for t in cfg.default_taus]
        plan += [(parse_expr(t, ("n",)), True) for t in cfg.threshold_taus]
    heads, width = len(model.heads), len(model.dims) * len(model.layers)
    deadline = time.monotonic() + cfg.seconds
    for t, on_threshold_only in plan:
        spent = 0
        for word in candidate_words(model, n_min, n_hi, cfg):
            spent += len(word) * width + heads * len(word) ** 2
            if spent > cfg.work or time.monotonic() > deadline:
                break
            cex = _compare(model, word, t, cfg, on_threshold_only)
            if cex is not None:
                return cex
    return None


def _compare(model: Model, word, tau: Expr, cfg: RefuteConfig, on_threshold_only: bool = False) -> Counterexample | None:
    try:
        hard = hard_run(model, word)
        soft = soft_run(model, word, tau, dps=cfg.dps)
    except UserError:
        return None
    with mpmath.workdps(cfg.dps):
        noise = mpmath.mpf(cfg.noise.numerator) / cfg.noise.denominator
        theta = mpmath.mpf(model.output.threshold.numerator) / model.output.threshold.denominator
        for row, h, s, hd, sd in zip(hard.output_rows, hard.outputs, soft.outputs, hard.decisions, soft.decisions):
            if on_threshold_only and (decision_clearance(model, h) != 0 if model.output.argmax
                                      else h != model.output.threshold):
                continue
            if hd != sd and decision_clearance(model, s) > noise:
                n = len(word)
                tau_n = eval_mp(tau, {"n": n})
                return Counterexample(
                    word=format_word(model, word), n=n, tau=to_text(tau), position=row + hard.first_position,
                    hard=format_value(h), soft=format_value(s) if model.output.argmax else mpmath.nstr(s, 20),
                    reason=(f"on {format_word(model, word)!r} (n={n}) at τ = {to_text(tau)} ≈ {mpmath.nstr(tau_n, 6)}, "
                            f"position {row + hard.first_position}: hard output {format_value(h)} decides {hd}, soft output "
                            + (f"{[mpmath.nstr(v, 8) for v in s]} decides {sd}" if model.output.argmax else
                               f"{mpmath.nstr(s, 12)} (threshold {'+' if s > theta else '-'} {mpmath.nstr(abs(s - theta), 3)}) decides {sd}")
                            + (" (the hard output sits on the threshold and leakage moves it)" if on_threshold_only else "")))
    return None


def threshold_witness(model: Model, n_min: int, n_max: int | str, cfg: RefuteConfig = RefuteConfig()) -> str | None:
    """A word at whose output a hard value sits exactly on the threshold (argmax: a tie for the top), said
    in words, or None: the candidate words of :func:`candidate_words`, exact hard runs only.  Named when the
    margin at the rows that may leak is 0: such a row's decision is whichever side the leakage takes
    (a row where soft = hard exactly decides as hard, on θ too, and needs no margin)."""
    n_hi = n_max if isinstance(n_max, int) else cfg.random_max_len
    spent, width = 0, len(model.dims) * len(model.layers)
    for word in candidate_words(model, n_min, n_hi, cfg):
        spent += len(word) * width
        if spent > cfg.work:
            return None
        try:
            hard = hard_run(model, word)
        except UserError:
            continue
        for row, h in zip(hard.output_rows, hard.outputs):
            if (sorted(h)[-1] == sorted(h)[-2]) if model.output.argmax else h == model.output.threshold:
                return (f"hard output {format_value(h)} sits on the "
                        f"{'tie of its top two values' if model.output.argmax else 'threshold'} at "
                        f"{format_word(model, word)!r} (n={len(word)}), position {row + hard.first_position}: "
                        "no margin can certify it if soft leaks there")
    return None


def decision_clearance(model: Model, y):
    """How far an output is from changing its decision: |y − θ| for a threshold output, top −
    runner-up for an argmax output (0 on a tie).  A soft decision that differs from the hard one
    counts only when this exceeds the evaluator's rounding noise."""
    if model.output.argmax:
        top, second = sorted(y, reverse=True)[:2]
        return top - second
    theta = mpmath.mpf(model.output.threshold.numerator) / model.output.threshold.denominator
    return abs(y - theta)

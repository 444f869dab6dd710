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
from dataclasses import dataclass, replace
from fractions import Fraction

import mpmath

from .errors import UserError
from .evaluate import format_value, hard_run, soft_run
from .hard_batch import BatchConfig, clearances
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
    # the search for a hard output exactly on θ (exact hard runs only), then the side soft leaks it to
    tie_exhaustive: int = 4000  # every word of the shortest lengths, this many in all
    tie_words: int = 4000  # patterned random words after those (periodic with flips, runs, random)
    tie_max_len: int = 24
    tie_work: int = 2_000_000  # the hard-only search's work (as ``work``: Σ n·dims·layers + heads·n²)
    tie_seconds: float = 5.0  # wall-clock cap on the whole tie step, hard search and soft sides (keeps certify ≤ 10 s)
    tie_search_seconds: float = 2.5  # of which the hard search may take this much (the soft sides need the rest)
    tie_soft: int = 60  # tie words whose soft side is resolved in mpmath
    tie_dps: tuple[int, ...] = (40, 160, 640)  # raised until the leak is farther than the noise 10^(−dps/2)


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
                          cfg: RefuteConfig = RefuteConfig(), hard: dict | None = None) -> Counterexample | None:
    """A candidate word whose soft decision differs from its hard one at ``tau`` (or at each of ``default_taus``,
    near the τ → 0 limit), or None.  ``hard`` caches the exact runs by word across τ and across
    :func:`threshold_refutation`, which handles the words whose hard output sits on θ."""
    hard = {} if hard is None else hard
    n_hi = n_max if isinstance(n_max, int) else cfg.random_max_len
    plan = [tau] if tau is not None else [parse_expr(t, ("n",)) for t in cfg.default_taus]
    heads, width = len(model.heads), len(model.dims) * len(model.layers)
    deadline = time.monotonic() + cfg.seconds
    for t in plan:
        spent = 0
        for word in candidate_words(model, n_min, n_hi, cfg):
            spent += len(word) * width + heads * len(word) ** 2
            if spent > cfg.work or time.monotonic() > deadline:
                break
            run = _hard(model, word, hard)
            try:
                cex = run and _counterexample(model, word, t, run, soft_run(model, word, t, dps=cfg.dps), cfg, False)
            except UserError:
                cex = None
            if cex is not None:
                return cex
    return None


def _hard(model: Model, word, cache: dict):
    """The exact run of ``word`` (None where the model rejects it), once per word."""
    if word not in cache:
        try:
            cache[word] = hard_run(model, word)
        except UserError:
            cache[word] = None
    return cache[word]


def _counterexample(model: Model, word, tau: Expr, hard, soft, cfg: RefuteConfig,
                    on_threshold_only: bool) -> Counterexample | None:
    """The first output row whose soft decision differs from the hard one by more than the noise, as a
    counterexample, or None."""
    with mpmath.workdps(cfg.dps):
        noise = mpmath.mpf(cfg.noise.numerator) / cfg.noise.denominator
        theta = mpmath.mpf(model.output.threshold.numerator) / model.output.threshold.denominator
        for row, h, s, hd, sd in zip(hard.output_rows, hard.outputs, soft.outputs, hard.decisions, soft.decisions):
            if on_threshold_only and not _on_threshold(model, h):
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


def _screened_short_words(model: Model, n_lo: int, n_hi: int, cfg: RefuteConfig):
    """Every word of the shortest lengths (``tie_exhaustive`` in all) whose float outputs come within the batch
    screen's ``apart`` of θ, shortest first.  Why: the exact evaluator costs milliseconds a word, so on a slow
    machine the wall-clock cap ended the search before length 7 (the CI run of 287ba0e missed the leak of
    tie-among-exact-ties.json at 'aaacbbb'); numpy decides the thousands of clear words at once, and only the
    near-ties are run exactly (the exact run, not the screen, decides which words are on θ)."""
    budget, n = cfg.tie_exhaustive, n_lo
    top = n_hi if model.max_length is None else min(n_hi, model.max_length)
    while n <= top and len(model.alphabet) ** n <= budget:
        budget -= len(model.alphabet) ** n
        words = list(itertools.product(model.alphabet, repeat=n))
        try:
            near = clearances(model, words) < BatchConfig().apart
        except UserError:  # e.g. a position embedding undefined at this length: the exact runs say so per word
            near = [True] * len(words)
        yield from (w for w, keep in zip(words, near) if keep)
        n += 1


def _patterned_words(model: Model, n_lo: int, n_hi: int, cfg: RefuteConfig):
    """Seeded words of length n_lo … n_hi: a short period repeated with a few flips, runs of symbols, or uniform
    draws -- the shapes on which a rounded count ratio lands exactly on θ (equal counts, periodic positions)."""
    rng = random.Random(cfg.seed + 1)
    for _ in range(cfg.tie_words if n_hi >= n_lo else 0):
        n, style = rng.randint(n_lo, n_hi), rng.random()
        if style < 0.4:
            period = [rng.choice(model.alphabet) for _ in range(rng.randint(1, 4))]
            word = [period[i % len(period)] for i in range(n)]
            for _ in range(rng.randint(0, 3)):
                word[rng.randrange(n)] = rng.choice(model.alphabet)
        elif style < 0.6:
            word = []
            while len(word) < n:
                word += [rng.choice(model.alphabet)] * rng.randint(1, max(1, n // 2))
            word = word[:n]
        else:
            word = [rng.choice(model.alphabet) for _ in range(n)]
        yield tuple(word)


def _on_threshold(model: Model, h) -> bool:
    return (sorted(h)[-1] == sorted(h)[-2]) if model.output.argmax else h == model.output.threshold


def tie_words(model: Model, n_min: int, n_max: int | str, cfg: RefuteConfig = RefuteConfig(), hard: dict | None = None):
    """Words with a hard output exactly on the threshold (argmax: a tie for the top), with the row: the near-ties
    among every word of the shortest lengths (:func:`_screened_short_words`) alternating with
    :func:`_patterned_words` up to ``tie_max_len``, decided by exact hard runs, within ``tie_work``
    (deterministic) and ``tie_search_seconds``."""
    n_hi = min(n_max if isinstance(n_max, int) else cfg.tie_max_len, cfg.tie_max_len)
    deadline = time.monotonic() + min(cfg.tie_search_seconds, cfg.tie_seconds)
    hard, seen, spent = ({} if hard is None else hard), set(), 0
    heads, width = len(model.heads), len(model.dims) * len(model.layers)
    # alternate the two streams: the short lengths' near-ties and the longer patterned words share the time
    both = itertools.chain.from_iterable(itertools.zip_longest(_screened_short_words(model, n_min, n_hi, cfg),
                                                               _patterned_words(model, n_min, n_hi, cfg)))
    for word in (w for w in both if w is not None):
        spent += len(word) * width + heads * len(word) ** 2
        if spent > cfg.tie_work or time.monotonic() > deadline:
            return
        if word in seen:
            continue
        seen.add(word)
        run = _hard(model, word, hard)
        row = None if run is None else next((r for r, h in zip(run.output_rows, run.outputs) if _on_threshold(model, h)), None)
        if row is not None:
            yield word, run, row


def threshold_refutation(model: Model, tau: Expr | None, n_min: int, n_max: int | str,
                         cfg: RefuteConfig = RefuteConfig(), hard: dict | None = None) -> tuple[Counterexample | None, str | None]:
    """A word whose hard output sits exactly on θ and whose soft output leaks to the other side at τ (``tau``, or
    each of ``threshold_taus``), and the first word on θ said in words (or None).

    Why: where the margin is 0 no bound certifies, but the model may still be simulable when every leak pushes
    toward the hard side; when one pushes across, the word refutes the schedule.  The leak at such a word is
    e^(−γ/τ)-small, so mpmath's precision is raised (``tie_dps``) until the soft output is farther from θ than
    the noise 10^(−dps/2) -- rounding never makes a counterexample -- or the largest precision is spent."""
    plan = [tau] if tau is not None else [parse_expr(t, ("n",)) for t in cfg.threshold_taus]
    first, deadline, found = None, time.monotonic() + cfg.tie_seconds, []
    for word, run, row in tie_words(model, n_min, n_max, cfg, hard):
        if first is None:
            first = (f"hard output {format_value(run.outputs[run.output_rows.index(row)])} sits on the "
                     f"{'tie of its top two values' if model.output.argmax else 'threshold'} at "
                     f"{format_word(model, word)!r} (n={len(word)}), position {row + run.first_position}: "
                     "no margin can certify it if soft leaks there")
        found.append((word, run))
    found = _soft_plan(found, cfg.tie_soft)
    found.sort(key=lambda f: len(f[0]))  # the shortest refuting word is the one reported
    # one precision at a time over every tie word: a leak that shows at the lowest precision is found before the
    # time goes on raising the precision at words whose soft output is θ exactly (symmetry, exact rows)
    pending = [(word, run, t) for word, run in found for t in plan]
    for dps in cfg.tie_dps:
        fine, unresolved = replace(cfg, dps=dps, noise=Fraction(1, 10 ** (dps // 2))), []
        for word, run, t in pending:
            if time.monotonic() > deadline:
                return None, first
            try:
                soft = soft_run(model, word, t, dps=dps)
            except UserError:
                continue
            cex = _counterexample(model, word, t, run, soft, fine, on_threshold_only=True)
            if cex is not None:
                return cex, first
            with mpmath.workdps(dps):
                noise = mpmath.mpf(fine.noise.numerator) / fine.noise.denominator
                if not all(decision_clearance(model, y) > noise
                           for h, y in zip(run.outputs, soft.outputs) if _on_threshold(model, h)):
                    unresolved.append((word, run, t))  # still within the noise: more digits may show the side
        pending = unresolved
    return None, first


def _soft_plan(found: list, count: int) -> list:
    """The ``count`` tie words resolved in mpmath: half the shortest (in the order found), then the others the
    first of each length, the second of each length, and so on.  Why: the screened short lengths give hundreds
    of tie words at once; a leak may show at a short one only (seed 18 unbounded, 31st: 'aabbb') or only at a
    longer patterned word (tie-leaks-across.json: 16 symbols), so the plan covers both."""
    shortest = sorted(found, key=lambda f: len(f[0]))[:count // 2]
    taken = {f[0] for f in shortest}
    lengths: dict[int, list] = {}
    for f in found:
        if f[0] not in taken:
            lengths.setdefault(len(f[0]), []).append(f)
    spread = [f for rank in itertools.zip_longest(*lengths.values()) for f in rank if f is not None]
    return shortest + spread[:count - len(shortest)]


def decision_clearance(model: Model, y):
    """How far an output is from changing its decision: |y − θ| for a threshold output, top −
    runner-up for an argmax output (0 on a tie).  A soft decision that differs from the hard one
    counts only when this exceeds the evaluator's rounding noise."""
    if model.output.argmax:
        top, second = sorted(y, reverse=True)[:2]
        return top - second
    theta = mpmath.mpf(model.output.threshold.numerator) / model.output.threshold.denominator
    return abs(y - theta)

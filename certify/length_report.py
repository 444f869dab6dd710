"""Per-length verdicts for bounded models (v2 ``max_length``), as a tracr user asks them:
"certified for n ≤ 7; refuted at n = 8 by ``aabbabab``".

For each n the kernel certifies the single box [n, n] (the same proof as for a range,
so a certified length is a kernel claim).  When it does not, a counterexample is
searched at that n: every word while |Σ|^n is small, else seeded random words; a
fast float64 filter proposes words, and a word is reported only when the exact hard
evaluator and the mpmath soft evaluator really decide differently (beyond rounding
noise).  Without a temperature, each length gets the hottest κ·shape(n) schedule the
certifier derives, i.e. the coldness that suffices at that n.
"""
from __future__ import annotations

import itertools
import random
import time
from dataclasses import dataclass
from fractions import Fraction

import mpmath

from .certifier import CertifyConfig, certify
from .evaluate import float_run, hard_run, soft_run
from .errors import ExprError
from .expr import Expr, eval_exact, eval_mp, to_text
from .model import Model, format_word
from .refute import decision_clearance

EXHAUSTIVE_WORDS = 20000


@dataclass(frozen=True)
class SearchConfig:
    exhaustive_words: int = EXHAUSTIVE_WORDS  # every word of length n while |Σ|^n is at most this
    random_words: int = 2000
    seed: int = 0
    seconds: float = 30.0  # per length
    dps: int = 50
    noise: Fraction = Fraction(1, 10**20)


@dataclass(frozen=True)
class LengthVerdict:
    n: int
    verdict: str  # certified | refuted | not proved
    tau: str | None  # the temperature checked (or derived) at this n
    word: str | None = None  # refuted: a word on which soft and hard decide differently
    reason: str = ""

    def as_json(self) -> dict:
        out = {"n": self.n, "verdict": self.verdict, "tau": self.tau}
        if self.word is not None:
            out["word"] = self.word
        if self.reason:
            out["reason"] = self.reason
        return out


def length_report(model: Model, n_min: int, n_max: int, tau: Expr | None,
                  search: SearchConfig = SearchConfig()) -> list[LengthVerdict]:
    """One verdict per n in [n_min, n_max] (n_max at most the model's max_length)."""
    cfg = CertifyConfig(refute=False)
    out = []
    for n in range(n_min, n_max + 1):
        outcome = certify(model, n, n, tau, cfg=cfg)
        checked = outcome.tau if tau is None else tau
        text = None if checked is None else _at(checked, n)
        if outcome.verdict == "certified":
            out.append(LengthVerdict(n, "certified", text))
            continue
        word = None if checked is None else find_counterexample(model, n, checked, search)
        if word is not None:
            out.append(LengthVerdict(n, "refuted", text, format_word(model, word),
                                     f"soft at τ = {text} decides differently from hard on this word"))
        else:
            out.append(LengthVerdict(n, "not proved", text, reason=outcome.reason or ""))
    return out


def _at(tau: Expr, n: int) -> str:
    """τ at this n as an exact rational where it is one, else its text."""
    try:
        v = eval_exact(tau, {"n": n})
    except ExprError:  # a log schedule is not rational at n
        return to_text(tau)
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


def adversarial_words(model: Model, n: int):
    """Words that push counts and ties to their extremes, tried first: s^n for every symbol, and
    for every pair s ≠ t the halves s^⌈n/2⌉ t^⌊n/2⌋ and the alternation stst… (tracr's
    selector-width MLPs, for one, fail first where a count reaches n)."""
    sigma = model.alphabet
    for s in sigma:
        yield (s,) * n
    for s, t in itertools.permutations(sigma, 2):
        yield (s,) * ((n + 1) // 2) + (t,) * (n // 2)
        yield tuple(s if k % 2 == 0 else t for k in range(n))


def candidate_words(model: Model, n: int, search: SearchConfig):
    """Adversarial words, then every word of length n when there are at most ``exhaustive_words``,
    else seeded random ones."""
    yield from adversarial_words(model, n)
    if len(model.alphabet) ** n <= search.exhaustive_words:
        yield from itertools.product(model.alphabet, repeat=n)
        return
    rng = random.Random(search.seed * 1000003 + n)
    for _ in range(search.random_words):
        yield tuple(rng.choice(model.alphabet) for _ in range(n))


def find_counterexample(model: Model, n: int, tau: Expr, search: SearchConfig = SearchConfig()):
    """A word of length n on which soft at τ and hard decide differently, confirmed exactly
    (hard_run in rationals, soft_run in mpmath); None when the search finds none in its budget.

    float64 runs at τ and at a far colder τ propose words cheaply; only a proposed word is
    evaluated exactly, so a float artefact is never reported."""
    t = float(eval_mp(tau, {"n": n}))
    cold = t * 1e-6
    deadline = time.monotonic() + search.seconds
    for word in candidate_words(model, n, search):
        if time.monotonic() > deadline:
            return None
        if float_run(model, word, t).decisions == float_run(model, word, cold).decisions:
            continue
        if confirmed(model, word, tau, search):
            return word
    return None


def confirmed(model: Model, word, tau, search: SearchConfig = SearchConfig()) -> bool:
    """Whether soft (mpmath at ``search.dps``) and exact hard decide differently on ``word`` at a
    position where the soft output is clear of its decision boundary by more than the noise."""
    hard = hard_run(model, word)
    soft = soft_run(model, word, tau, dps=search.dps)
    with mpmath.workdps(search.dps):
        noise = mpmath.mpf(search.noise.numerator) / search.noise.denominator
        return any(hd != sd and decision_clearance(model, s) > noise
                   for hd, sd, s in zip(hard.decisions, soft.decisions, soft.outputs))


def summary(verdicts: list[LengthVerdict]) -> str:
    """Runs of equal verdicts in words: "certified for n ≤ 7; refuted at n = 8 by `aabbabab`"."""
    parts = []
    for verdict, group in itertools.groupby(verdicts, key=lambda v: v.verdict):
        group = list(group)
        lo, hi = group[0].n, group[-1].n
        span = f"n = {lo}" if lo == hi else f"n ≤ {hi}" if lo == 1 else f"{lo} ≤ n ≤ {hi}"
        if verdict == "refuted":
            parts += [f"refuted at n = {v.n} by `{v.word}`" for v in group]
        elif verdict == "certified":
            parts.append(f"certified for {span}")
        else:
            parts.append(f"not proved for {span}" + (f" ({group[0].reason})" if group[0].reason else ""))
    return "; ".join(parts)

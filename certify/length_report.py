"""Per-length verdicts for bounded models (v2 ``max_length``), as a tracr user asks them:
"certified for n ≤ 7; refuted at n = 8 by ``aabbabab``".

For each n the kernel proves soft = hard at that length: by L-exhaustive (every word enumerated,
exact hard runs and rigorous per-word bounds, kernel/exhaustive.py) while |Σ|^n is at most the
config's ``exhaustive_words``, else on the single box [n, n] (the same proof as for a range).
Either way a certified length is a kernel claim with its certificate.  When it does not, a
counterexample is searched at that n: first the word L-exhaustive could not decide, then every
word while |Σ|^n is small, else seeded random words; a fast float64 filter proposes words, and a
word is reported only when the exact hard evaluator and the mpmath soft evaluator really decide
differently (beyond rounding noise).  A temperature may be a schedule τ(n) or an interval
[lo, hi] (the model's ``temperature_interval``: L-exhaustive then proves every τ in it).  Without
one, each length gets a derived schedule: under L-exhaustive the first of τ₀, τ₀/2, τ₀/4, … that
certifies (τ₀ the interval's upper end, else the model's temperature, else 1), under the boxes the
hottest κ·shape(n) the certifier derives — the coldness that suffices at that n.
"""
from __future__ import annotations

import itertools
import random
import time
from dataclasses import dataclass
from fractions import Fraction

import mpmath

from .certifier import CertifyConfig, Outcome, certify, certify_exhaustive
from .evaluate import float_run, hard_run, soft_run
from .errors import ExprError
from .expr import Expr, Num, eval_exact, eval_mp, to_text
from .model import Model, format_word
from .kernel.structure import Unsupported, analyse
from .refute import decision_clearance

EXHAUSTIVE_WORDS = 20000


@dataclass(frozen=True)
class SearchConfig:
    exhaustive_words: int = EXHAUSTIVE_WORDS  # every word of length n while |Σ|^n is at most this
    random_words: int = 2000
    seed: int = 0
    seconds: float = 3.0  # per length (a fixture at max_seq_len 10 must answer within 30 s: issue 13)
    dps: int = 50
    noise: Fraction = Fraction(1, 10**20)


@dataclass(frozen=True)
class LengthVerdict:
    n: int
    verdict: str  # certified | refuted | not proved
    tau: str | None  # the temperature checked (or derived) at this n
    word: str | None = None  # refuted: a word on which soft and hard decide differently
    reason: str = ""
    rule: str = ""  # certified: "L-exhaustive" (every word enumerated) or "boxes" (the kernel's box [n, n])
    certificate: dict | None = None  # certified: the kernel's certificate of this length

    def as_json(self) -> dict:
        out = {"n": self.n, "verdict": self.verdict, "tau": self.tau}
        for key in ("word", "reason", "rule"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        if self.certificate is not None and "exhaustive" in self.certificate:
            out["words"] = self.certificate["exhaustive"]["lengths"][0]["words"]
            out["margin"] = self.certificate["claim"]["margin"]
        return out


def length_report(model: Model, n_min: int, n_max: int, tau: Expr | None,
                  search: SearchConfig = SearchConfig(), interval: tuple[Fraction, Fraction] | None = None,
                  cfg: CertifyConfig = CertifyConfig(refute=False)) -> list[LengthVerdict]:
    """One verdict per n in [n_min, n_max] (n_max at most the model's max_length), at ``tau`` (a schedule),
    at every τ of ``interval``, or at a derived schedule when both are None."""
    out, structure = [], []  # the analysis, made once for the lengths the boxes take
    for n in range(n_min, n_max + 1):
        exhaustive = len(model.alphabet) ** n <= cfg.exhaustive_words
        ends = interval if interval is not None else None if tau is None else _point(tau, n)
        if exhaustive and ends is not None:
            outcome = certify_exhaustive(model, n, *ends)
        elif exhaustive and tau is None:
            outcome = _derive_exhaustive(model, n, cfg)
        else:
            if not structure:
                structure.append(_analysed(model))
            outcome = certify(model, n, n, tau if interval is None else Num(interval[1]), cfg=cfg,
                              derive=tau is None and interval is None, st=structure[0])
        checked = outcome.tau if tau is None else tau
        text = None if checked is None else _at(checked, n)
        if interval is not None:
            text = f"[{_fraction_text(interval[0])}, {_fraction_text(interval[1])}]"
        if outcome.verdict == "certified":
            rule = "L-exhaustive" if "exhaustive" in outcome.certificate else "boxes"
            out.append(LengthVerdict(n, "certified", text, rule=rule, certificate=outcome.certificate))
            continue
        word = None if checked is None else _refutation(model, n, checked, outcome, search)
        if word is not None:
            out.append(LengthVerdict(n, "refuted", text, format_word(model, word),
                                     f"soft at τ = {_at(checked, n)} decides differently from hard on this word"))
        else:
            out.append(LengthVerdict(n, "not proved", text, reason=outcome.reason or ""))
    return out


def _analysed(model: Model):
    """The model's structure, or None when the analysis refuses it (certify then reports why)."""
    try:
        return analyse(model)
    except Unsupported:
        return None


def _point(tau: Expr, n: int) -> tuple[Fraction, Fraction] | None:
    """τ(n) as the interval [τ(n), τ(n)] when it is rational (L-exhaustive needs a number), else None."""
    try:
        v = eval_exact(tau, {"n": n})
    except ExprError:
        return None
    return (v, v) if v > 0 else None


def _derive_exhaustive(model: Model, n: int, cfg: CertifyConfig) -> Outcome:
    """The first of τ₀, τ₀/2, …, τ₀/2^k that L-exhaustive certifies at n (the last outcome when none does)."""
    start = model.temperature_interval[1] if model.temperature_interval is not None else \
        (_point(model.temperature, n) or (Fraction(1),))[0] if model.temperature is not None else Fraction(1)
    for k in range(cfg.exhaustive_halvings + 1):
        t = start / 2 ** k
        outcome = certify_exhaustive(model, n, t, t)
        if outcome.verdict == "certified":
            return outcome
    return outcome


def _refutation(model: Model, n: int, tau: Expr, outcome: Outcome, search: SearchConfig):
    """A confirmed counterexample at n: the word L-exhaustive could not decide, else the search's."""
    if outcome.undecided is not None and confirmed(model, outcome.undecided, tau, search):
        return outcome.undecided
    return find_counterexample(model, n, tau, search)


def _fraction_text(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


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

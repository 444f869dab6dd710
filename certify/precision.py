"""Certify a model evaluated in a floating-point format, and the significand bits a length needs.

Orchestration only (the proof is the kernel's: :mod:`certify.kernel.rounding_error` adds each
stage's rounding to the exact box bounds).  First the exact claim is certified (the schedule is
the one checked or derived there: a hotter τ fails in exact arithmetic already, a colder one only
raises the rounding term η/τ); then the cover is walked with the format, bisecting the first
failing box down to one length, so the answer is the largest certified prefix [n_min, n*] and the
obligation that fails at n* + 1.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .certifier import CertifyConfig, Outcome, Progress, _no_progress, _scaled, build_certificate, certify
from .cover import cover, split
from .errors import UserError
from .expr import Expr, parse_expr, to_text
from .kernel.bounds import BoxFailure, BoxReport, analyse_box
from .kernel.records import lower, upper
from .kernel.rounding_error import FORMATS, FloatFormat, bits_format
from .kernel.structure import analyse
from .model import Model

FORMAT_NAMES = tuple(FORMATS)


@dataclass(frozen=True)
class PrecisionConfig:
    """Constants of the precision searches, in one place."""

    min_bits: int = 2
    max_bits: int = 113  # binary128's significand; beyond, the 128-bit balls of the kernel lose the terms
    colder_steps: int = 12  # --derive in a format: try τ/2, τ/4, … τ/2^12 of the exact schedule
    colder_patience: int = 1  # … stopping at the first halving that does not lengthen the prefix


@dataclass(frozen=True)
class Failure:
    """The first length the format cannot certify and the obligation that fails there."""

    n: int
    obligation: str

    def as_json(self) -> dict:
        return {"n": self.n, "obligation": self.obligation}


def fmt_named(name: str) -> FloatFormat:
    if name not in FORMATS:
        raise UserError(f"--precision: {name!r} is not one of {', '.join(FORMAT_NAMES)}")
    return FORMATS[name]


def certified_prefix(model: Model, st, tau: Expr, boxes: list[tuple[int, int]], fmt: FloatFormat,
                     progress: Progress = _no_progress) -> tuple[list[BoxReport], Failure | None]:
    """Reports of the longest prefix of the cover that the format passes (failing boxes bisected)."""
    todo, reports = list(reversed(boxes)), []
    while todo:
        box = todo.pop()
        try:
            report = analyse_box(model, st, tau, *box, fmt)
            why = "" if report.ok else (f"output error bound {upper(report.err)} is not below the margin "
                                        f"{lower(report.margin)}")
        except BoxFailure as exc:
            why = str(exc)
        if not why:
            reports.append(report)
            progress(f"boxes ({fmt.name})", len(reports), len(boxes))
            continue
        parts = split(box)
        if len(parts) > 1:
            todo.extend(reversed(parts))
            continue
        return reports, Failure(box[0], _explain(model, st, tau, box[0], fmt, why))
    return reports, None


def _explain(model: Model, st, tau: Expr, n: int, fmt: FloatFormat, why: str) -> str:
    """Name the first head whose added error is a sizable share (≥ 1/4) of the margin at length n, with
    its score error over τ split into the part carried in by its inputs and the format's own rounding
    (η_r: a gap γ(n) ≲ η makes the hard order unrecoverable; η/τ ≳ 1 already costs the margin)."""
    seen: dict = {}

    class Recorder:
        def __getattr__(self, attr):
            return getattr(fmt, attr)

        def score_error(self, head, rng, err, t, keys):
            eta = fmt.score_error(head, rng, err, t, keys)
            carried = sum(abs(float(c)) * float((rng[q].abs_upper() * err[k] + rng[k].abs_upper() * err[q]
                                                 + err[q] * err[k]).upper()) for q, k, c in head.score)
            seen[head.name] = (carried, float(eta.upper()), float(t.mid()))
            return eta

    try:
        report = analyse_box(model, st, tau, n, n, Recorder())
    except BoxFailure:
        return why
    share = float(report.margin.lower()) / 4
    errs = [(h.name, max((float(e.upper()) for e in h.err.values()), default=0.0)) for h in report.heads]
    big = [h for h in errs if h[1] >= share] or sorted(errs, key=lambda h: -h[1])[:1]
    if not big or big[0][0] not in seen:
        return why
    name, added = big[0]
    carried, own, t = seen[name]
    return (f"{why}; first head with a large error: {name!r} adds {added:.3g}, its score error over τ(n) = {t:.3g} "
            f"is {carried / t:.3g} carried from its inputs + {own / t:.3g} from its own rounding (η_r = {own:.3g})")


@dataclass(frozen=True)
class PrecisionOutcome:
    """The exact outcome, and in the format: the certified prefix's certificate and the failure."""

    exact: Outcome
    fmt: FloatFormat
    tau: Expr | None  # the schedule the format's certificate is for (colder than exact's with --derive)
    n_certified: int | None
    certificate: dict | None
    failure: Failure | None

    @property
    def verdict(self) -> str:
        if self.exact.verdict != "certified":
            return self.exact.verdict
        return "certified" if self.failure is None else "not proved"

    @property
    def reason(self) -> str:
        if self.exact.verdict != "certified":
            return f"exact arithmetic: {self.exact.reason}"
        if self.failure is None:
            return ""
        upto = f"certified in {self.fmt.name} for n ≤ {self.n_certified}" if self.n_certified else \
            f"nothing certified in {self.fmt.name}"
        return f"{upto}; at n = {self.failure.n}: {self.failure.obligation}"

    def as_json(self) -> dict:
        return {"format": self.fmt.name, "n_max_certified": self.n_certified,
                "failing": None if self.failure is None else self.failure.as_json()}


def certify_in_format(model: Model, n_min: int, n_max: int, fmt: FloatFormat, tau: Expr | None = None,
                      derive: bool = False, cfg: CertifyConfig = CertifyConfig(),
                      progress: Progress = _no_progress, pcfg: PrecisionConfig = PrecisionConfig()) -> PrecisionOutcome:
    """The exact claim first; then the longest prefix of its cover the format passes, at the exact
    schedule or — with ``derive`` — at the colder halving of it that certifies the most lengths."""
    if n_max == "inf":
        raise UserError("--precision: needs a finite --nmax (rounding bounds are proved on boxes)")
    exact = certify(model, n_min, n_max, tau, cfg, progress, derive)
    if exact.verdict != "certified":
        return PrecisionOutcome(exact, fmt, None, None, None, None)
    st = analyse(model)
    boxes = cover(n_min, n_max, cfg.cover)
    tau = exact.tau
    reports, failure = certified_prefix(model, st, tau, boxes, fmt, progress)
    if derive and failure is not None:
        tau, reports, failure = _colder_in_format(model, st, exact.tau, boxes, fmt, (tau, reports, failure),
                                                  progress, pcfg)
    if not reports:
        return PrecisionOutcome(exact, fmt, tau, None, None, failure)
    top = reports[-1].hi
    cert = build_certificate(model, st, tau, n_min, top, reports)
    cert["claim"]["precision"] = fmt.record()
    # L-round's second opinions restate exact FFN outputs; in a format they carry rounding error instead
    cert["obligations"] = [o for o in cert["obligations"] if o.get("kind") != "second opinion"]
    return PrecisionOutcome(exact, fmt, tau, top, cert, failure)


def _colder_in_format(model: Model, st, tau: Expr, boxes: list[tuple[int, int]], fmt: FloatFormat, best: tuple,
                      progress: Progress, pcfg: PrecisionConfig) -> tuple:
    """The derived exact schedule sits close to the exact limit, so little margin is left for the
    format's rounding; a colder τ/2^k buys exact margin (leakage falls like e^{−γ/τ}) while the
    rounding term η/τ only grows like 2^k.  Try the halvings and keep the longest certified prefix."""
    def length(found) -> int:
        return found[1][-1].hi if found[1] else 0

    stale = 0
    for k in range(1, pcfg.colder_steps + 1):
        colder = parse_expr(to_text(_scaled(Fraction(1, 2 ** k), tau)), variables=("n",), allow_log=True)
        progress(f"deriving τ(n) in {fmt.name}", k, pcfg.colder_steps)
        if not _passes(model, st, colder, best[2].n, fmt):  # its prefix ends before the best one's failure:
            stale += 1                                       # no longer prefix, and no walk needed to know it
            if stale >= pcfg.colder_patience:
                break
            continue
        found = (colder, *certified_prefix(model, st, colder, boxes, fmt, progress))
        if found[2] is None:
            return found
        stale = 0 if length(found) > length(best) else stale + 1
        best = found if length(found) > length(best) else best
        if stale >= pcfg.colder_patience:
            break
    return best


def _passes(model: Model, st, tau: Expr, n: int, fmt: FloatFormat) -> bool:
    try:
        return analyse_box(model, st, tau, n, n, fmt).ok
    except BoxFailure:
        return False


def bits_needed(model: Model, st, tau: Expr, n: int, cfg: PrecisionConfig = PrecisionConfig()) -> int | None:
    """The fewest significand bits p for which the kernel certifies length n in a p-bit format with
    no over- or underflow (accumulating in itself); None when even max_bits fails.  The bounds grow
    with u = 2^-p, so bisection finds the least passing p."""
    def ok(p: int) -> bool:
        return _passes(model, st, tau, n, bits_format(p))

    if not ok(cfg.max_bits):
        return None
    lo, hi = cfg.min_bits - 1, cfg.max_bits  # ok(hi), not ok(lo) (lo below any format)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def adversarial_words(model: Model, n: int, seed: int = 0) -> list[tuple[str, ...]]:
    """Words of length n that stress a format: every constant word, one symbol changed at either end
    of it, alternations of two symbols, deep-and-flat bracket words for bracket alphabets, and two
    seeded random words."""
    import random

    sigma = list(model.alphabet)
    out = [(a,) * n for a in sigma]
    for a in sigma:
        for b in sigma:
            if a != b:
                out += [(a,) * (n - 1) + (b,), (b,) + (a,) * (n - 1), tuple(a if k % 2 else b for k in range(n))]
    if {"(", ")", "[", "]"} <= set(sigma) and n % 4 == 0:
        q = n // 4
        deep = "(" * q + "[]" * q + ")" * q
        out += [tuple(deep), tuple(deep[:q - 1] + "[" + deep[q:]), tuple("(" + "[]" * (n // 2 - 1) + ")")]
    rng = random.Random(seed * 1000003 + n)
    out += [tuple(rng.choice(sigma) for _ in range(n)) for _ in range(2)]
    return list(dict.fromkeys(out))


def first_flip(model: Model, tau: Expr, fmt: str, lengths, seed: int = 0):
    """(n, word) of the first length whose adversarial words decide differently in the format than the
    exact hard model, or None."""
    from .evaluate import float_run, hard_run

    for n in lengths:
        for word in adversarial_words(model, n, seed):
            if float_run(model, word, tau, fmt).decisions != hard_run(model, word).decisions:
                return n, "".join(word) if all(len(s) == 1 for s in word) else " ".join(word)
    return None

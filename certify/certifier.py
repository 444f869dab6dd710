"""The certifier: find (or check) τ(n) and prove soft = hard for every input up to n_max.

Orchestration only — the proof itself is the trusted kernel's
(:mod:`certify.kernel`): structural facts for all inputs, then rigorous bounds on
every box of a cover of [n_min, n_max].  This module proposes the schedule
(untrusted search), runs the kernel, assembles the certificate and, when the
kernel cannot prove the claim, looks for a counterexample with the exact
evaluators.
"""
from __future__ import annotations

import json
import platform
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Callable

from . import __version__
from .cover import CoverConfig, cover, split
from .expr import BinOp, Expr, Log, Num, Var, parse_expr, to_text
from .kernel.bounds import BoxFailure, BoxReport, all_uniform, analyse_box
from .kernel.checker import FORMAT
from .kernel.records import (box_record, facts_record, ffn_record, first_row_margin, first_row_obligations,
                             first_row_record, head_record, kernel_obligations, lower, structural_margin, upper)
from .kernel.polyid import substitute
from .kernel.positivity import check_tau
from .kernel.structure import HeadFact, Structure, Unsupported, analyse, first_row_exact, query_bound
from .kernel.tail import TailFailure, TailReport, analyse_tail, sup, tail_record
from .second_opinion import rounding_obligations
from .simplify import readable
from .model import Model
from .refute import Counterexample, search_counterexample, threshold_refutation

@dataclass(frozen=True)
class CertifyConfig:
    """Every tunable constant of the certifier, in one place."""

    cover: CoverConfig = CoverConfig()
    kappa_start_exponent: int = 8  # first try κ = 2^8, then halve
    kappa_min_exponent: int = -60
    kappa_refine_steps: int = 6  # bisection steps between 2^k and 2^(k+1)
    backoff_steps: int = 3  # re-derivations with a failing box among the probes
    max_splits: int = 8  # how often a failing box may be bisected
    probe_lengths: tuple[int, ...] = (1, 2, 3, 4, 5, 8, 16, 64, 1000, 10**6, 10**9, 10**12)
    refute: bool = True  # search a counterexample when not proved (sweeps that only test soundness skip it)
    tail_start: int = 10**12 + 1  # --nmax inf: boxes cover [n_min, N₀ − 1] (the 10^12 cover), the tail [N₀, ∞)
    tail_backoff: int = 4  # a derived κ whose tail does not settle is halved at most this often
    exhaustive_words: int = 60000  # bounded models: L-exhaustive at a length n while |Σ|^n is at most this
    exhaustive_halvings: int = 12  # derived schedules under L-exhaustive: τ₀, τ₀/2, …, τ₀/2^12
    class_gap_shapes: bool = True  # a head with a class gap proposes its shape from it (then, failing, from its gaps)


@dataclass
class Outcome:
    verdict: str  # certified | refuted | not proved
    reason: str = ""
    certificate: dict | None = None
    counterexample: Counterexample | None = None
    tau: Expr | None = None
    reports: list = field(default_factory=list)
    blockers: list = field(default_factory=list)  # not proved: every head or coordinate with its missing fact
    undecided: tuple | None = None  # L-exhaustive not proved: the first word its bound does not decide


Progress = Callable[[str, int, int], None]


def _no_progress(_stage: str, _done: int, _total: int) -> None:
    return None


def schedule_shape(st: Structure, class_gaps: bool = True) -> Expr | None:
    """A shape s(n) with τ = κ·s(n) natural for the heads (untrusted proposal).

    L-ziggurat needs |A(n)|/τ constant; L-gap needs γ(n)/τ ≈ log N.  The shape
    of the head with the smallest value at large n wins; the kernel decides.
    """
    candidates = []
    for facts in st.facts:
        if not isinstance(facts, tuple):
            continue
        for fact in facts:
            shape = _head_shape(fact, class_gaps)
            if shape is not None:
                candidates.append(shape)
    if not candidates:
        return None
    return min(candidates, key=lambda e: _value_at(e, 10**6))


def _head_shape(fact: HeadFact, class_gaps: bool = True) -> Expr | None:
    n = Var("n")
    if fact.kind in ("ziggurat", "distinct"):
        return _positive(fact.step)
    if fact.kind == "lookup":  # its output feeds later scores: leakage must shrink like a power of n
        coldest = min(fact.step_ends, key=lambda e: _value_at(e, 10**6))
        return BinOp("/", coldest, Log(BinOp("+", n, Num(Fraction(2)))))
    if fact.kind not in ("gap", "classes"):
        return None
    gamma = _positive(fact.delta_key)
    q = fact.query_coord
    if fact.class_gap is not None and class_gaps:  # L-value-classes bounds the output's error whatever the other gaps
        gamma = Num(fact.class_gap)
    elif fact.gammas:  # the rule states its gap bounds: the smallest at large n sets the shape
        gamma = _positive(min(fact.gammas, key=lambda e: abs(_value_at(e, 10**6))))
    elif q is not None and q.fin is None:
        gamma = BinOp("/", gamma, _positive(substitute(query_bound(q), "i", n)))
    elif q is not None:
        nz = [abs(v) for v in q.fin if v != 0]
        gamma = BinOp("*", gamma, Num(min(nz) if nz else Fraction(1)))
    if fact.level_size is not None:  # geometric leakage (≤ c keys a band): γ/τ constant suffices
        return gamma
    return BinOp("/", gamma, Log(BinOp("+", n, Num(Fraction(2)))))


def _positive(e: Expr) -> Expr:
    return e if _value_at(e, 10**6) > 0 else BinOp("*", Num(Fraction(-1)), e)


def _value_at(e: Expr, n: int) -> float:
    from flint import arb

    from .expr import eval_ball

    try:
        return float(eval_ball(e, {"n": arb(n), "i": arb(n)}).mid())
    except Exception:  # an untrusted heuristic: a shape that cannot be evaluated loses
        return float("inf")


def _scaled(kappa: Fraction, shape: Expr) -> Expr:
    if isinstance(shape, BinOp) and shape.op == "/" and isinstance(shape.right, Log):
        return BinOp("/", readable(BinOp("*", Num(kappa), shape.left)), shape.right)
    return readable(BinOp("*", Num(kappa), shape))


def check_schedule(model: Model, st: Structure, tau: Expr, boxes: list[tuple[int, int]], cfg: CertifyConfig,
                   progress: Progress = _no_progress) -> tuple[list[BoxReport], str, tuple | None]:
    """Kernel bounds on every box (bisecting failing boxes): (reports, '', None) when all hold, else
    (reports so far, why, the box that failed)."""
    reports: list[BoxReport] = []
    todo = [(b, 0) for b in reversed(boxes)]
    total = len(boxes)
    while todo:
        box, depth = todo.pop()
        try:
            report = analyse_box(model, st, tau, *box)
        except BoxFailure as exc:
            report, why = None, str(exc)
        else:
            why = "" if report.ok else (f"at n in [{box[0]}, {box[1]}] the output error bound {upper(report.err)} "
                                        f"is not below the margin {lower(report.margin)}")
        if why:
            parts = split(box)
            if len(parts) == 1 or depth >= cfg.max_splits:
                return reports, why, box
            todo.extend((p, depth + 1) for p in reversed(parts))
            total += 1
            continue
        reports.append(report)
        progress("boxes", len(reports), total)
    return reports, "", None


def _probe_boxes(boxes: list[tuple[int, int]], cfg: CertifyConfig) -> list[tuple[int, int]]:
    """The cover's boxes that hold a probe length, plus the first and the last."""
    chosen = {boxes[0], boxes[-1]}
    for n in cfg.probe_lengths:
        chosen.update(b for b in boxes if b[0] <= n <= b[1])
    return sorted(chosen)


def _probe(model: Model, st: Structure, tau: Expr, probes: list[tuple[int, int]]) -> bool:
    for box in probes:
        try:
            if not analyse_box(model, st, tau, *box).ok:
                return False
        except BoxFailure:
            return False
    return True


def derive_schedule(model: Model, st: Structure, probes: list[tuple[int, int]], cfg: CertifyConfig,
                    below: Fraction | None = None) -> tuple[Expr, Fraction | None] | None:
    """(τ, κ): the hottest κ·shape(n) that passes the kernel on the probe boxes (then checked on the full
    cover); ``below``: only κ < below (a hotter κ passed the probes but failed a box of the cover)."""
    shape = schedule_shape(st, cfg.class_gap_shapes)
    if shape is None:
        return Num(Fraction(1)), None  # every head is exact: any temperature works
    if not any(_probe(model, st, _scaled(Fraction(2) ** k, shape), probes)
               for k in (cfg.kappa_min_exponent, cfg.kappa_min_exponent // 3)):
        # neither the coldest κ (a zero margin fails there) nor a middle one, where 1/τ amplification of a
        # small leak has not yet outgrown the margin, passes: skip the search from the top
        return None
    k = cfg.kappa_start_exponent
    while below is not None and k >= cfg.kappa_min_exponent and Fraction(2) ** k >= below:
        k -= 1
    while k >= cfg.kappa_min_exponent and not _probe(model, st, _scaled(Fraction(2) ** k, shape), probes):
        k -= 1
    if k < cfg.kappa_min_exponent:
        return None
    lo, hi = Fraction(2) ** k, Fraction(2) ** (k + 1) if below is None else min(Fraction(2) ** (k + 1), below)
    for _ in range(cfg.kappa_refine_steps):
        mid = (lo + hi) / 2
        if _probe(model, st, _scaled(mid, shape), probes):
            lo = mid
        else:
            hi = mid
    return _scaled(lo, shape), lo


def derive_blockers(model: Model, st: Structure, probes: list[tuple[int, int]], cfg: CertifyConfig) -> list[str]:
    """Why no κ·shape(n) passed: what fails on the probe boxes at the coldest κ tried (issue 12, every
    blocker reported), the output's margin named when it is 0 (a hard value may sit on the threshold)."""
    shape = schedule_shape(st, cfg.class_gap_shapes)
    tau = _scaled(Fraction(2) ** cfg.kappa_min_exponent, shape)
    out = []
    for box in probes:
        try:
            report = analyse_box(model, st, tau, *box)
        except BoxFailure as exc:
            out.append(str(exc))
            continue
        if report.ok:
            continue
        if not report.margin > 0:
            coord = st.coords[-1][model.output.dim] if not model.output.argmax else None
            values = None if coord is None else coord.exact_unless if coord.exact_unless is not None else coord.fin
            known = "its hard values there are not known to a finite set" if values is None else \
                "one of its hard values there is the threshold"
            out.append(f"output dim {model.output.dim or 'argmax'!r}: margin 0 at the rows where soft may leak "
                       f"({known}: leakage decides a hard output on the threshold)")
        else:
            out.append(f"at n in [{box[0]}, {box[1]}] the output error bound {upper(report.err)} is not below the "
                       f"margin {lower(report.margin)} even at τ = {to_text(tau)}")
    return list(dict.fromkeys(out)) or ["no temperature of the form κ·shape(n) passes the bounds"]


def certify(model: Model, n_min: int, n_max: int | str, tau: Expr | None = None, cfg: CertifyConfig = CertifyConfig(),
            progress: Progress = _no_progress, derive: bool = False, st: Structure | None = None) -> Outcome:
    """Prove soft = hard on [n_min, n_max] at ``tau``, else the model's proposed temperature, else a
    derived schedule; ``derive`` ignores the model's proposal (so a file need not be edited to ask).
    ``st``: the model's structure when the caller already analysed it (the per-length report certifies
    one length at a time, and the analysis does not depend on the length)."""
    if model.max_length is not None and (n_max == "inf" or n_max > model.max_length):
        from .errors import UserError  # a bounded (v2) model means nothing beyond max_length

        raise UserError(f"--nmax {n_max} is above the model's max_length {model.max_length}")
    if st is None and first_row_exact(model):  # the bounds first (their certificate names a τ and its error)
        outcome = _certify_model(model, n_min, n_max, tau, replace(cfg, refute=False), progress, derive, st)
        return outcome if outcome.verdict == "certified" else certify_first_row(
            model, n_min, n_max, tau if tau is not None else None if derive else model.temperature)
    return _certify_model(model, n_min, n_max, tau, cfg, progress, derive, st)


def _certify_model(model: Model, n_min: int, n_max: int | str, tau: Expr | None, cfg: CertifyConfig,
                   progress: Progress, derive: bool, st: Structure | None) -> Outcome:
    """:func:`certify` by the kernel's analysis and bounds: the plain analysis, then with L-tiebreak only where
    proved for every n, then with L-ffn-absorb, then with L-nearest-level too (each asks the boxes to confirm
    more: radii, conditions on τ)."""
    try:
        plain = analyse(model) if st is None else st
    except Unsupported as exc:
        return _unproved(model, str(exc), tau, n_min, n_max, cfg, exc.blockers)
    outcome = _certify(model, plain, n_min, n_max, tau, cfg, progress, derive)
    if outcome.verdict != "not proved" or st is not None:
        return outcome
    retries = (  # (the analysis, whether it differs from the plain one where it matters)
        # L-tiebreak only where proved for every n: the lattice rule otherwise
        (lambda: analyse(model, strict=True), lambda s: _kinds(s) != _kinds(plain)),
        # L-ffn-absorb only when needed: its boxes must confirm every radius
        (lambda: analyse(model, absorb=True), lambda s: any(not isinstance(f, tuple) and f.absorbs for f in s.facts)),
        # L-nearest-level: its boxes must confirm every condition on τ
        (lambda: analyse(model, absorb=True, nearest=True, strict=True),
         lambda s: not model.output.argmax and bool(s.coords[-1][model.output.dim].needs)))
    for build, differs in retries:
        try:
            again = build()
        except Unsupported:  # exact dims drop terms (L-word-constant): a rule the plain analysis used may not apply
            continue
        if differs(again):
            second = _certify(model, again, n_min, n_max, tau, replace(cfg, refute=False), progress, derive)
            if second.verdict == "certified":
                return second
    return outcome


def _kinds(st: Structure) -> list[str]:
    return [f.kind for layer in st.facts if isinstance(layer, tuple) for f in layer]


def _certify(model: Model, st: Structure, n_min: int, n_max: int | str, tau: Expr | None, cfg: CertifyConfig,
             progress: Progress, derive: bool) -> Outcome:
    """:func:`certify` on one analysis of the model; a derived schedule shaped by class gaps that fails is tried
    again shaped by the heads' gaps alone."""
    outcome = _certify_shaped(model, st, n_min, n_max, tau, cfg, progress, derive)
    derived = (tau if tau is not None else None if derive else model.temperature) is None
    if outcome.verdict == "not proved" and derived and cfg.class_gap_shapes and \
            schedule_shape(st) != schedule_shape(st, class_gaps=False):
        again = _certify_shaped(model, st, n_min, n_max, tau, replace(cfg, class_gap_shapes=False, refute=False),
                                progress, derive)
        return again if again.verdict == "certified" else outcome
    return outcome


def _certify_shaped(model: Model, st: Structure, n_min: int, n_max: int | str, tau: Expr | None, cfg: CertifyConfig,
                    progress: Progress, derive: bool) -> Outcome:
    proposed = tau if tau is not None else None if derive else model.temperature
    if proposed is not None:
        _require_positive(proposed, n_min, n_max, "--tau" if tau is not None else "temperature")
    if n_max == "inf" and all_uniform(st):
        return _certify_unbounded(model, st, proposed, n_min)
    n0 = max(cfg.tail_start, n_min + 1) if n_max == "inf" else None
    boxes = cover(n_min, n_max if n0 is None else n0 - 1, cfg.cover)
    derived, probes, kappa = proposed is None, _probe_boxes(boxes, cfg), None
    for attempt in range(cfg.backoff_steps + 1):
        if derived:  # schedule search over the whole cover: a box that failed joins the probes
            progress("deriving τ(n)", attempt, cfg.backoff_steps + 1)
            found = derive_schedule(model, st, probes, cfg, below=kappa)
            if found is None:
                return _unproved(model, "no temperature of the form κ·shape(n) passes the bounds", None, n_min,
                                 n_max, cfg, derive_blockers(model, st, probes, cfg))
            proposed, kappa = found
        # the checker parses the recorded text: bound exactly that expression tree, so both compute
        # the same balls (an equal but differently built τ can round its last recorded digit differently)
        proposed = parse_expr(to_text(proposed), variables=("n",), allow_log=True)
        reports, why, failed = check_schedule(model, st, proposed, boxes, cfg, progress)
        if not why or not derived or kappa is None:
            break
        probes = sorted(set(probes) | {failed})
    if why:
        return _unproved(model, why, proposed, n_min, n_max if n0 is None else n0 - 1, cfg)
    if n0 is not None:
        return _certify_tail(model, st, proposed, n_min, n0, reports, kappa if derived else None, boxes, cfg,
                             progress)
    return Outcome("certified", certificate=build_certificate(model, st, proposed, n_min, n_max, reports),
                   tau=proposed, reports=reports)


def _certify_tail(model: Model, st: Structure, tau: Expr, n_min: int, n0: int, reports: list, kappa: Fraction | None,
                  boxes: list, cfg: CertifyConfig, progress: Progress) -> Outcome:
    """n_max = ∞: the boxes hold up to N₀ − 1; the kernel's tail walk proves every n ≥ N₀ at once.  A derived
    schedule whose tail does not settle is made colder (κ/2, κ/4, …) and its cover re-checked."""
    shape, first, proposed = schedule_shape(st, cfg.class_gap_shapes), None, tau
    for step in range(cfg.tail_backoff + 1 if kappa is not None and shape is not None else 1):
        if step:
            tau = parse_expr(to_text(_scaled(kappa / 2 ** step, shape)), variables=("n",), allow_log=True)
        progress("tail n ≥ N₀", step, cfg.tail_backoff + 1)
        try:  # the tail walk is cheap: try it before re-checking the cover at a colder κ
            tail = analyse_tail(model, st, tau, n0)
        except TailFailure as exc:
            blockers = [str(exc)]
        else:
            if tail.ok and step:
                reports, why, _ = check_schedule(model, st, tau, boxes, cfg, progress)
                if why:
                    continue
            if tail.ok:
                cert = build_certificate(model, st, tau, n_min, "inf", reports, tail)
                return Outcome("certified", certificate=cert, tau=tau, reports=reports)
            blockers = tail_blockers(tail)
        first = first or blockers
    return Outcome("not proved", reason=f"for n ≥ {n0} (beyond the finite cover): {first[0]}", tau=proposed,
                   blockers=first)


def tail_blockers(tail: TailReport) -> list[str]:
    """Every quantity whose tail bound does not settle: heads whose leakage bound does not stay below 1,
    then the output error against the margin."""
    out = [f"head {h.name!r}: leakage bound {h.leak.text()} does not settle below 1 on [{tail.n0}, inf)"
           for h in tail.heads if not _settles(h.leak, tail.n0)]
    top = upper(tail.err_sup) if tail.err_sup.is_finite() else "inf"
    out.append(f"output error bound {tail.err.text()} (sup {top} on [{tail.n0}, inf)) is not below the margin "
               f"{lower(tail.margin)}")
    return out


def _settles(leak, n0: int) -> bool:
    top = sup(leak, n0)
    return top is not None and top < 1


def certify_first_row(model: Model, n_min: int, n_max: int | str, tau: Expr | None) -> Outcome:
    """L-first-row-exact: the output is read at the first row and every head is causal, so soft = hard there for
    every τ and n (proofs/lemmas/first_row.py) -- even where the bounds fail at rows the output never reads (a
    lattice whose modulus fails later in the word, say).  ``tau`` (else 1) only needs to be positive."""
    tau = tau if tau is not None else Num(Fraction(1))
    if not first_row_exact(model):
        why = "L-first-row-exact needs the output read at the first row and every head seeing j <= i or j < i"
        return Outcome("not proved", reason=why, tau=tau, blockers=[why])
    verdict = check_tau(tau, n_min, n_max)
    if not verdict.ok:
        return Outcome("not proved", reason=f"τ(n) = {to_text(tau)}: {verdict.why} (positivity)", tau=tau)
    cert = {
        "format": FORMAT,
        "model_sha256": model.sha256,
        "model_name": model.name,
        "claim": {"n_min": n_min, "n_max": n_max, "tau": to_text(tau), "error_bound": "0",
                  "margin": first_row_margin(model), "verdict": "certified"},
        "analysis": {"heads": [], "ffns": []},
        "first_row": first_row_record(0 if model.bos else 1),
        "boxes": [],
        "obligations": first_row_obligations(),
        "tools": _tools(),
    }
    return Outcome("certified", certificate=cert, tau=tau)


def _require_positive(tau: Expr, n_min: int, n_max, source: str) -> None:
    """A schedule undefined or ≤ 0 at some length of the range is invalid input (exit 3), named by n."""
    from .errors import UserError

    verdict = check_tau(tau, n_min, n_max)
    if verdict.n is not None:
        raise UserError(f"{source}: τ(n) = {to_text(tau)} is {verdict.why} at n = {verdict.n}")


def _certify_unbounded(model: Model, st: Structure, tau: Expr | None, n_min: int) -> Outcome:
    """All n when every head is uniform: every error is exactly 0 for every n, no cover is needed."""
    tau = tau if tau is not None else Num(Fraction(1))
    verdict = check_tau(tau, n_min, "inf")
    if not verdict.ok:
        return Outcome("not proved", reason=f"τ(n) = {to_text(tau)}: {verdict.why} (positivity for every n)", tau=tau)
    cert = build_certificate(model, st, tau, n_min, "inf", [])
    return Outcome("certified", certificate=cert, tau=tau)


def _unproved(model: Model, why: str, tau: Expr | None, n_min: int, n_max: int, cfg: CertifyConfig,
              blockers: list[str] | None = None) -> Outcome:
    blockers, hard = list(blockers or [why]), {}
    if cfg.refute:
        cex = search_counterexample(model, tau, n_min, n_max, hard=hard)
        tie = None
        if cex is None:  # a word on θ refutes when soft leaks it across (hotter τ, raised precision)
            cex, tie = threshold_refutation(model, tau, n_min, n_max, hard=hard)
        if cex is not None:
            return Outcome("refuted", reason=cex.reason, counterexample=cex, tau=tau)
        if tie is not None and any("margin 0" in b for b in blockers):
            blockers.append(tie)
    return Outcome("not proved", reason=why, tau=tau, blockers=blockers)


def certify_exhaustive(model: Model, n: int, tau_lo: Fraction, tau_hi: Fraction) -> Outcome:
    """L-exhaustive at length n (kernel/exhaustive.py): every word's soft decision equals the hard one for
    every τ in [tau_lo, tau_hi]; not proved names the first word the per-word bound does not decide."""
    from .kernel.exhaustive import check_length

    got = check_length(model, n, tau_lo, tau_hi)
    tau = Num(Fraction(tau_hi))
    if not got.ok:
        word = "".join(got.word) if all(len(s) == 1 for s in model.alphabet) else " ".join(got.word)
        why = f"at n = {n} the per-word bound (L-exhaustive) does not decide `{word}`"
        return Outcome("not proved", reason=why, tau=tau, blockers=[why], undecided=got.word)
    return Outcome("certified", certificate=build_exhaustive_certificate(model, [got], tau_lo, tau_hi), tau=tau)


def build_exhaustive_certificate(model: Model, checks: list, tau_lo: Fraction, tau_hi: Fraction) -> dict:
    """The certificate of L-exhaustive results at consecutive lengths (checked by re-running them)."""
    from .kernel.records import exhaustive_obligations, exhaustive_record

    record = exhaustive_record(model, checks, Fraction(tau_lo), Fraction(tau_hi))
    return {
        "format": FORMAT,
        "model_sha256": model.sha256,
        "model_name": model.name,
        "claim": {"n_min": checks[0].n, "n_max": checks[-1].n, "tau": record["tau_interval"][1],
                  "tau_interval": record["tau_interval"],
                  "error_bound": max((c["error_upper"] for c in record["lengths"]), key=Fraction),
                  "margin": min((c["margin_lower"] for c in record["lengths"]), key=Fraction), "verdict": "certified"},
        "analysis": {"heads": [], "ffns": []},
        "exhaustive": record,
        "boxes": [],
        "obligations": exhaustive_obligations(record),
        "tools": _tools(),
    }


def merge_exhaustive(model: Model, certificates: list[dict]) -> dict | None:
    """One certificate for consecutive lengths certified by L-exhaustive on one τ interval (None otherwise)."""
    from .kernel.exhaustive import LengthCheck

    records = [c.get("exhaustive") for c in certificates]
    if not records or None in records or len({tuple(r["tau_interval"]) for r in records}) != 1:
        return None
    items = [item for r in records for item in r["lengths"]]
    if [i["n"] for i in items] != list(range(items[0]["n"], items[-1]["n"] + 1)):
        return None
    checks = [LengthCheck(i["n"], i["words"], True, Fraction(i["margin_lower"]) or None, Fraction(i["error_upper"]))
              for i in items]
    lo, hi = (Fraction(v) for v in records[0]["tau_interval"])
    return build_exhaustive_certificate(model, checks, lo, hi)


def build_certificate(model: Model, st: Structure, tau: Expr, n_min: int, n_max: int,
                      reports: list[BoxReport], tail: TailReport | None = None) -> dict:
    reports = sorted(reports, key=lambda r: r.lo)
    margin = lower(min(reports, key=lambda r: _lower_value(r.margin)).margin) if reports else \
        structural_margin(model, st)
    error = "0" if all(r.err.is_zero() for r in reports) else upper(max(reports, key=lambda r: _upper_value(r.err)).err)
    extra = {}
    if tail is not None:
        record = tail_record(tail)
        margin = min(margin, record["margin_lower"], key=Fraction)
        error = error if record["exact"] else max(error, record["error_upper"], key=Fraction)
        extra["tail"] = record
    heads = [head_record(f, lambda e: to_text(readable(e))) for facts in st.facts if isinstance(facts, tuple)
             for f in facts]
    ffns = [ffn_record(f) for f in st.facts if not isinstance(f, tuple)]
    return {
        "format": FORMAT,
        "model_sha256": model.sha256,
        "model_name": model.name,
        "claim": {
            "n_min": n_min,
            "n_max": n_max,
            "tau": to_text(tau),
            "error_bound": error,
            "margin": margin,
            "verdict": "certified",
        },
        "analysis": {"heads": heads, "ffns": ffns},
        "facts": facts_record(st),
        "boxes": [box_record(r) for r in reports],
        **extra,
        "obligations": kernel_obligations(st, len(reports), n_max == "inf", tail is not None)
        + rounding_obligations(model, st, reports),
        "tools": _tools(),
    }


def _upper_value(x) -> Fraction:
    return Fraction(upper(x))


def _lower_value(x) -> Fraction:
    return Fraction(lower(x))


def _tools() -> dict:
    import flint

    return {"hardsoft": __version__, "python": platform.python_version(), "python-flint": flint.__version__}


def certificate_text(cert: dict) -> str:
    return json.dumps(cert, indent=1, sort_keys=False) + "\n"


def parse_nmax(text: str, flag: str = "--nmax") -> int | str:
    """``1e6``, ``1000000``, ``2^20`` or ``inf``; errors name ``flag``."""
    from .errors import UserError

    t = text.strip().lower()
    if t in ("inf", "infinity"):
        return "inf"
    try:
        if "^" in t:
            base, exp = t.split("^", 1)
            value = int(base) ** int(exp) if int(exp) <= 200 else None
        elif "e" in t:
            mant, exp = t.split("e", 1)
            value = Fraction(mant) * Fraction(10) ** int(exp) if int(exp) <= 200 else None
        else:
            value = int(t)
    except ValueError:
        value = None
    if value is None or Fraction(value).denominator != 1 or value < 1:
        raise UserError(f"{flag}: {text!r} is not a positive integer (examples: 1e6, 1000000, 2^20, inf)")
    return int(value)


def parse_tau(text: str) -> Expr:
    from .errors import ExprError, UserError

    try:
        return parse_expr(text, variables=("n",), allow_log=True)
    except ExprError as exc:
        raise UserError(f"--tau: {exc}") from None


"""Re-verify a certificate against a model without trusting the code that made it.

Everything is recomputed from the model's weights by the kernel (exact rationals
and python-flint balls) and compared with what the certificate records; the
first mismatch is reported as (item, expected, found).  Recorded expressions
may be rewritten into equal readable forms: they are accepted after an exact
identity test, never by comparing text or floats.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..errors import ExprError
from ..expr import BinOp, parse_expr
from ..model import Model
from .bounds import BoxFailure, analyse_box
from .polyid import is_zero
from .positivity import check_tau
from .rounding_error import RoundingFailure, format_of
from .exhaustive import check_length
from .records import (box_record, exhaustive_obligations, facts_record, ffn_record, first_row_margin,
                      first_row_obligations, first_row_record, head_record, kernel_obligations, lower,
                      structural_margin, upper)
from .structure import Unsupported, analyse, first_row_exact
from .tail import TailFailure, analyse_tail, tail_record

FORMAT = "hardsoft.certificate/1"


class CheckFailure(Exception):
    def __init__(self, item: str, expected, found):
        self.item, self.expected, self.found = item, expected, found
        super().__init__(f"{item}: expected {expected!r}, found {found!r}")


@dataclass(frozen=True)
class CheckResult:
    boxes: int
    kernel_items: int
    structure: object = None
    reports: tuple = ()


def _expect(item: str, expected, found) -> None:
    if expected != found:
        raise CheckFailure(item, expected, found)


def _same_expr(item: str, expected, found) -> None:
    try:
        rec = parse_expr(found, variables=("i", "n"), allow_log=True)
    except (ExprError, TypeError):
        raise CheckFailure(item, "an expression in i and n", found) from None
    if not is_zero(BinOp("-", expected, rec), ("i", "n")):
        raise CheckFailure(item, "an expression equal to the kernel's", found)


def check(cert: dict, model: Model) -> CheckResult:
    """Raise :class:`CheckFailure` at the first item that does not hold."""
    if not isinstance(cert, dict):
        raise CheckFailure("certificate", "a JSON object", type(cert).__name__)
    _expect("format", FORMAT, cert.get("format"))
    _expect("model_sha256", model.sha256, cert.get("model_sha256"))
    _expect("model_name", model.name, cert.get("model_name"))
    claim = cert.get("claim")
    if not isinstance(claim, dict):
        raise CheckFailure("claim", "an object", claim)
    _expect("claim.verdict", "certified", claim.get("verdict"))
    n_min, n_max = claim.get("n_min"), claim.get("n_max")
    if not isinstance(n_min, int) or isinstance(n_min, bool) or n_min < 1:
        raise CheckFailure("claim.n_min", "an integer >= 1", n_min)
    if n_max != "inf" and (not isinstance(n_max, int) or isinstance(n_max, bool) or n_max < n_min):
        raise CheckFailure("claim.n_max", "an integer >= n_min or \"inf\"", n_max)
    try:
        tau = parse_expr(claim.get("tau"), variables=("n",), allow_log=True)
    except (ExprError, TypeError):
        raise CheckFailure("claim.tau", "an expression in n", claim.get("tau")) from None
    if "exhaustive" in cert:  # L-exhaustive: no structure analysis, every word re-run
        return _check_exhaustive(cert, model, n_min, n_max, tau)
    if "first_row" in cert:  # L-first-row-exact: decided from the heads' visibility, no bounds
        return _check_first_row(cert, model, n_min, n_max, tau)
    fp = None
    if "precision" in claim:  # the soft model in a floating-point format: its rounding joins every box
        try:
            fp = format_of(claim["precision"])
        except RoundingFailure as exc:
            raise CheckFailure("claim.precision", "a format record of the kernel", str(exc)) from None
        if n_max == "inf":
            raise CheckFailure("claim.n_max", "a finite n_max (rounding bounds hold on boxes)", n_max)
    try:
        ffns = (cert.get("analysis") or {}).get("ffns") if isinstance(cert.get("analysis"), dict) else None
        facts = cert.get("facts") if isinstance(cert.get("facts"), dict) else {}
        nearest = any(isinstance(c, dict) and isinstance(c.get("noisy_spans"), dict) and "side_conditions" in c["noisy_spans"]
                      for c in facts.get("coords") or [])  # L-nearest-level: the analysis the certifier retried with
        absorb = nearest or isinstance(ffns, list) and any(isinstance(f, dict) and "absorbs" in f for f in ffns)
        st = analyse(model, absorb=absorb, nearest=nearest, strict=nearest)
    except Unsupported as exc:
        raise CheckFailure("analysis", "a model the kernel can analyse", str(exc)) from None
    try:
        items = _check_heads(cert, st)
    except CheckFailure:  # the certifier's second analysis: L-tiebreak only where proved for every n
        if absorb:
            raise
        st = analyse(model, strict=True)
        items = _check_heads(cert, st)
    _expect("facts", facts_record(st), cert.get("facts"))  # the audit's statements are the kernel's own
    boxes = cert.get("boxes")
    if not isinstance(boxes, list):
        raise CheckFailure("boxes", "a list", boxes)
    if n_max == "inf" and "tail" not in cert:
        return _check_unbounded(cert, model, st, boxes, items)
    if n_max != "inf" and "tail" in cert:
        raise CheckFailure("tail", "no tail (n_max is finite)", cert["tail"])
    tail = _tail_start(cert.get("tail"), n_min) if n_max == "inf" else None
    _check_cover(boxes, n_min, n_max if tail is None else tail - 1)
    reports = _check_boxes(boxes, model, st, tau, fp)
    exact = all(r.err.is_zero() for r in reports)
    bound = "0" if exact else max((upper(r.err) for r in reports), key=Fraction)
    margin = min((lower(r.margin) for r in reports), key=Fraction)
    if tail is not None:
        _check_tau_unbounded(cert)
        record = _check_tail(cert["tail"], model, st, tau, tail)
        margin = min(margin, record["margin_lower"], key=Fraction)
        bound = bound if record["exact"] else max(bound, record["error_upper"], key=Fraction)
    _expect("claim.error_bound", bound, claim.get("error_bound"))
    _expect("claim.margin", margin, claim.get("margin"))
    _check_obligations(cert, st, len(reports), unbounded=tail is not None, tail=tail is not None)
    return CheckResult(len(reports), items + len(reports) + (tail is not None), st, tuple(reports))


def _check_exhaustive(cert: dict, model: Model, n_min: int, n_max, tau) -> CheckResult:
    """Re-run L-exhaustive at every recorded length; the recorded margins must be at most, and the error
    bounds at least, what the kernel finds (so a machine whose BLAS sums in another order agrees)."""
    rec = cert["exhaustive"]
    if not isinstance(rec, dict) or not isinstance(rec.get("lengths"), list):
        raise CheckFailure("exhaustive", "an object with a list of lengths", rec)
    _expect("exhaustive.rule", "L-exhaustive", rec.get("rule"))
    _expect("exhaustive.alphabet", list(model.alphabet), rec.get("alphabet"))
    try:
        lo, hi = (Fraction(v) for v in rec.get("tau_interval"))
    except (TypeError, ValueError, ZeroDivisionError):
        raise CheckFailure("exhaustive.tau_interval", "[lo, hi], two rationals", rec.get("tau_interval")) from None
    if not 0 < lo <= hi:
        raise CheckFailure("exhaustive.tau_interval", "0 < lo <= hi", rec.get("tau_interval"))
    _expect("claim.tau_interval", rec["tau_interval"], cert["claim"].get("tau_interval"))
    if n_max == "inf" or model.max_length is not None and n_max > model.max_length:
        raise CheckFailure("claim.n_max", "a length the model is defined at", n_max)
    _expect("exhaustive.lengths (n)", list(range(n_min, n_max + 1)),
            [item.get("n") if isinstance(item, dict) else None for item in rec["lengths"]])
    margins, errors = [], []
    for k, item in enumerate(rec["lengths"]):
        n = item["n"]
        if _value_at(tau, n) != hi:
            raise CheckFailure("claim.tau", f"the interval's upper end {hi} at n = {n}", cert["claim"].get("tau"))
        got = check_length(model, n, lo, hi)
        if not got.ok:
            raise CheckFailure(f"exhaustive.lengths[{k}]", "every word decided as hard",
                               f"the bound does not decide {''.join(got.word)!r}")
        _expect(f"exhaustive.lengths[{k}].words", got.words, item.get("words"))
        margin, error = _fraction(item, "margin_lower", k), _fraction(item, "error_upper", k)
        if margin is None or (margin == 0) != (got.margin is None) or margin and not margin <= got.margin:
            raise CheckFailure(f"exhaustive.lengths[{k}].margin_lower", f"0 < margin <= {got.margin} (0: all exact)",
                               margin)
        if error is None or error < got.error:
            raise CheckFailure(f"exhaustive.lengths[{k}].error_upper", f"at least {got.error}", error)
        margins.append(item["margin_lower"])
        errors.append(item["error_upper"])
    _expect("claim.margin", min(margins, key=Fraction), cert["claim"].get("margin"))
    _expect("claim.error_bound", max(errors, key=Fraction), cert["claim"].get("error_bound"))
    _expect("boxes", [], cert.get("boxes"))
    _expect("obligations", exhaustive_obligations(rec), cert.get("obligations"))
    return CheckResult(0, len(rec["lengths"]))


def _check_first_row(cert: dict, model: Model, n_min: int, n_max, tau) -> CheckResult:
    """L-first-row-exact: the output is read at the first row and every head sees j ≤ i or j < i (re-decided from
    the model), so error 0 for every positive τ; the margin must be the kernel's."""
    _expect("first_row", first_row_record(0 if model.bos else 1), cert["first_row"])
    if model.max_length is not None and (n_max == "inf" or n_max > model.max_length):
        raise CheckFailure("claim.n_max", "a length the model is defined at", n_max)
    if not first_row_exact(model):
        raise CheckFailure("first_row", "a model read at the first row whose heads all see j <= i or j < i",
                           f"output at {model.output.position!r}, heads " +
                           ", ".join(f"{h.name}: {h.visible}" for _, h in model.heads))
    verdict = check_tau(tau, n_min, n_max)
    if not verdict.ok:
        raise CheckFailure("claim.tau", f"τ(n) defined and positive for every n in [{n_min}, {n_max}]",
                           f"{cert['claim'].get('tau')}: {verdict.why}" + (f" at n = {verdict.n}" if verdict.n else ""))
    _expect("claim.error_bound", "0", cert["claim"].get("error_bound"))
    _expect("claim.margin", first_row_margin(model), cert["claim"].get("margin"))
    _expect("analysis", {"heads": [], "ffns": []}, cert.get("analysis"))
    _expect("boxes", [], cert.get("boxes"))
    _expect("obligations", first_row_obligations(), cert.get("obligations"))
    return CheckResult(0, 1)


def _value_at(tau, n: int):
    from ..expr import eval_exact

    try:
        return eval_exact(tau, {"n": n})
    except ExprError:
        return None


def _fraction(item: dict, key: str, k: int) -> Fraction | None:
    v = item.get(key)
    if v is None:
        return None
    try:
        return Fraction(str(v))
    except (ValueError, ZeroDivisionError):
        raise CheckFailure(f"exhaustive.lengths[{k}].{key}", "a decimal", v) from None


def _check_boxes(boxes: list, model: Model, st, tau, fp=None) -> list:
    reports = []
    for k, box in enumerate(boxes):
        lo, hi = box["n"]
        try:
            report = analyse_box(model, st, tau, lo, hi, fp)
        except BoxFailure as exc:
            raise CheckFailure(f"boxes[{k}]", "bounds the kernel can establish", str(exc)) from None
        if not report.ok:
            raise CheckFailure(f"boxes[{k}]", "error < margin (or error = 0)",
                               f"error {upper(report.err)}, margin {lower(report.margin)}")
        _expect(f"boxes[{k}]", box_record(report), box)
        reports.append(report)
    return reports


def _tail_start(record, n_min: int) -> int:
    """N₀ of a recorded tail [N₀, inf): an integer above n_min (the boxes end at N₀ − 1)."""
    n = record.get("n") if isinstance(record, dict) else None
    if not (isinstance(n, list) and len(n) == 2 and n[1] == "inf" and isinstance(n[0], int)
            and not isinstance(n[0], bool) and n[0] > n_min):
        raise CheckFailure("tail.n", "[N0, \"inf\"] with an integer N0 > n_min", n)
    return n[0]


def _check_tail(record: dict, model: Model, st, tau, n0: int) -> dict:
    """Recompute the tail walk for every n ≥ N₀ and compare its rendering with the record."""
    try:
        report = analyse_tail(model, st, tau, n0)
    except TailFailure as exc:
        raise CheckFailure("tail", "bounds the kernel can establish for every n >= N0", str(exc)) from None
    mine = tail_record(report)
    if not report.ok:
        raise CheckFailure("tail", "sup of the error bound over [N0, inf) < margin (or error = 0)",
                           f"error {mine['error_bound']} (sup {mine['error_upper']}), margin {mine['margin_lower']}")
    _expect("tail", mine, record)
    return mine


def _check_tau_unbounded(cert: dict) -> None:
    verdict = check_tau(parse_expr(cert["claim"]["tau"], variables=("n",), allow_log=True), cert["claim"]["n_min"], "inf")
    if not verdict.ok:
        raise CheckFailure("claim.tau", "τ(n) defined and positive for every n ≥ n_min",
                           f"{cert['claim']['tau']}: {verdict.why}" + (f" at n = {verdict.n}" if verdict.n else ""))


def _check_heads(cert: dict, st) -> int:
    analysis = cert.get("analysis")
    if not isinstance(analysis, dict) or not isinstance(analysis.get("heads"), list):
        raise CheckFailure("analysis.heads", "a list", analysis)
    facts = [f for layer in st.facts if isinstance(layer, tuple) for f in layer]
    recorded = analysis["heads"]
    _expect("analysis.heads (count)", len(facts), len(recorded))
    for k, (fact, rec) in enumerate(zip(facts, recorded)):
        item = f"analysis.heads[{k}]"
        if not isinstance(rec, dict):
            raise CheckFailure(item, "an object", rec)
        mine = head_record(fact)
        exprs = {"step": fact.step, "delta_key": fact.delta_key, "modulus": fact.modulus}
        for key, value in exprs.items():
            if value is not None:
                _same_expr(f"{item}.{key}", value, rec.get(key))
                mine[key] = rec.get(key)
        if fact.kind == "ziggurat":
            classes = rec.get("offsets")
            if not isinstance(classes, list) or len(classes) != len(fact.offsets):
                raise CheckFailure(f"{item}.offsets", f"a list of {len(fact.offsets)} expressions", classes)
            for m, (b, text) in enumerate(zip(fact.offsets, classes)):
                _same_expr(f"{item}.offsets[{m}]", b, text)
            mine["offsets"] = classes
        _expect(item, mine, rec)
    ffns = [ffn_record(f) for f in st.facts if not isinstance(f, tuple)]
    _expect("analysis.ffns", ffns, analysis.get("ffns"))
    return len(facts) + len(ffns)


def _check_cover(boxes: list, n_min: int, n_max: int) -> None:
    expected_lo = n_min
    for k, box in enumerate(boxes):
        n = box.get("n") if isinstance(box, dict) else None
        if not (isinstance(n, list) and len(n) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in n)):
            raise CheckFailure(f"boxes[{k}].n", "[lo, hi] with integer endpoints", n)
        _expect(f"boxes[{k}].n[0] (contiguity)", expected_lo, n[0])
        if n[1] < n[0]:
            raise CheckFailure(f"boxes[{k}].n", "lo <= hi", n)
        expected_lo = n[1] + 1
    _expect("boxes (cover ends at n_max)", n_max, expected_lo - 1)


def _check_unbounded(cert: dict, model: Model, st, boxes: list, items: int) -> CheckResult:
    """n_max = inf: only when every head is uniform, so every error is 0 for every n (induction on layers)."""
    kinds = {f.kind for layer in st.facts if isinstance(layer, tuple) for f in layer}
    if kinds - {"uniform"}:
        raise CheckFailure("claim.n_max", "a tail record (some head is not uniform)", "inf without a tail")
    _check_tau_unbounded(cert)
    _expect("boxes", [], boxes)
    _expect("claim.error_bound", "0", cert["claim"].get("error_bound"))
    _expect("claim.margin", structural_margin(model, st), cert["claim"].get("margin"))
    _check_obligations(cert, st, 0, unbounded=True)
    return CheckResult(0, items, st)


def _check_obligations(cert: dict, st, boxes: int, unbounded: bool = False, tail: bool = False) -> None:
    """The kernel's own obligations, exactly as the kernel states them (second opinions are re-run elsewhere)."""
    found = [o for o in cert.get("obligations", []) if not (isinstance(o, dict) and o.get("kind") == "second opinion")]
    _expect("obligations", kernel_obligations(st, boxes, unbounded, tail), found)

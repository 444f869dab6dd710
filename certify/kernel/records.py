"""Canonical rendering of kernel results, shared by the certifier and the checker.

The checker recomputes every recorded number and compares the *rendering*, so a
certificate in which any number was nudged no longer matches.  Upper bounds are
rounded up and lower bounds down (``decimal`` divisions are correctly rounded in the
context's direction), so a recorded number is always on the safe side of its ball.
"""
from __future__ import annotations

from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal, localcontext
from fractions import Fraction

from flint import arb

from ..expr import to_text
from .bounds import BoxReport, exact_fraction
from .structure import HeadFact

DIGITS = 12
FINAL_STATEMENT = "error(n) < margin(n), or error(n) = 0, on every box"
TINY = arb(10) ** -300  # magnitudes below this are recorded as 1e-300 (upper) or 0 (lower)


def _decimal(v: Fraction, up: bool) -> str:
    with localcontext() as context:
        context.prec, context.rounding = DIGITS, ROUND_CEILING if up else ROUND_FLOOR
        return str(Decimal(v.numerator) / Decimal(v.denominator))


def upper(x: arb) -> str:
    """A decimal ≥ every point of the ball."""
    end = x.upper()
    if abs(end) < TINY:
        return "1e-300" if end > 0 else "0"
    return _decimal(exact_fraction(end), up=True)


def lower(x: arb) -> str:
    """A decimal ≤ every point of the ball."""
    end = x.lower()
    if abs(end) < TINY:
        return "0" if end >= 0 else "-1e-300"
    return _decimal(exact_fraction(end), up=False)


def head_record(fact: HeadFact, render=to_text) -> dict:
    """The certificate's entry for a head; ``render`` may rewrite expressions into equal readable ones."""
    record = {"layer": fact.layer, "head": fact.head.name, "kind": fact.kind, "lemma": fact.lemma}
    if fact.kind == "ziggurat":
        record.update({"step": render(fact.step), "offsets": [render(b) for b in fact.offsets],
                       "ties_excluded": len(fact.ties_apart)})
    elif fact.kind == "lookup":
        record.update({"step": render(fact.step), "level_size": 2})
    elif fact.kind == "distinct":
        record.update({"step": render(fact.step), "modulus": render(fact.modulus), "level_size": 1})
    elif fact.kind == "gap":
        record.update({"delta_key": render(fact.delta_key), "homogeneous": fact.homogeneous,
                       "query": "constant" if fact.query_coord is None else "grid-or-finite"})
    return record


def ffn_record(fact) -> dict:
    return {"layer": fact.layer, "dims": list(fact.dims), "joint_inputs": None if fact.combos is None else len(fact.combos)}


def box_record(report: BoxReport) -> dict:
    return {
        "n": [report.lo, report.hi],
        "tau_lower": lower(report.tau),
        "leak_upper": {h.name: upper(h.leak) for h in report.heads},
        "error_upper": upper(report.err),
        "margin_lower": lower(report.margin),
        "exact": bool(report.err.is_zero()),
    }


def structural_margin(model, st) -> str:
    """min |y − θ| over the output's finite value set, or 0 when it is not finite."""
    coord = st.coords[-1][model.output.dim]
    if coord.fin is None:
        return "0"
    return _decimal(min(abs(v - model.output.threshold) for v in coord.fin), up=False)


def kernel_obligations(st, boxes: int) -> list[dict]:
    """The obligations the kernel itself discharges (the checker recomputes this list exactly)."""
    items = [{"id": f"head:{f.head.name}", "kind": "exact", "statement": f"{f.kind} score structure",
              "lemma": f.lemma, "evidence": "kernel: exact rational identities at grid points"}
             for layer in st.facts if isinstance(layer, tuple) for f in layer]
    items.append({"id": "cover", "kind": "exact", "statement": "boxes are contiguous integer intervals covering "
                  "[n_min, n_max]", "evidence": "kernel: endpoint arithmetic"})
    items.append({"id": "final", "kind": "ball", "statement": FINAL_STATEMENT, "relation": "<",
                  "evidence": f"kernel: python-flint balls on {boxes} boxes" if boxes else
                  "kernel: every head is uniform, so every error is exactly 0 for every n"})
    return items

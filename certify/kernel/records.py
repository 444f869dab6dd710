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
from .bounds import BoxReport, exact_fraction, gap_lower_bounds
from .polyid import simplified
from .structure import Coord, HeadFact, argmax_gap, first_row_values

DIGITS = 12
FINAL_STATEMENT = "error(n) < margin(n), or error(n) = 0, on every box"
TAIL_STATEMENT = "for every n >= N0: error(n) <= error_bound(n) and sup of error_bound over [N0, inf) < margin, or error = 0"
TINY = arb(10) ** -300  # magnitudes below this are recorded as 1e-300 (upper) or 0 (lower)


def _decimal(v: Fraction, up: bool) -> str:
    with localcontext() as context:
        context.prec, context.rounding = DIGITS, ROUND_CEILING if up else ROUND_FLOOR
        return str(Decimal(v.numerator) / Decimal(v.denominator))


def upper(x: arb) -> str:
    """A decimal ≥ every point of the ball ("inf" for a ball that is not finite)."""
    if not x.is_finite():
        return "inf"
    end = x.upper()
    if abs(end) < TINY:
        return "1e-300" if end > 0 else "0"
    return _decimal(exact_fraction(end), up=True)


def lower(x: arb) -> str:
    """A decimal ≤ every point of the ball ("-inf" for a ball that is not finite)."""
    if not x.is_finite():
        return "-inf"
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
    elif fact.kind in ("gap", "classes"):
        record.update({"delta_key": render(fact.delta_key), "homogeneous": fact.homogeneous,
                       **({"special_key": {"gammas": [_text(g) for g in fact.gammas], "rungs_agree": fact.rungs_agree}}
                          if fact.special else {}),
                       "query": "constant" if fact.query_coord is None else
                       "harmonic" if fact.query_coord.fin is None and fact.query_coord.harmonic is not None else "grid-or-finite",
                       **({} if fact.level_size is None else {"level_size": fact.level_size})})
    if fact.class_gap is not None:
        record["class_gap"] = str(fact.class_gap)
    if fact.shifts:
        record["row_shifts"] = {"terms": [[q, k] for q, k, _ in fact.shifts], "lemma": "L-word-constant"}
    return record


def ffn_record(fact) -> dict:
    return {"layer": fact.layer, "dims": list(fact.dims), "joint_inputs": None if fact.combos is None else len(fact.combos),
            **({"absorbs": [{"dim": o, "reads": x, "radius": str(r), "lemma": "L-ffn-absorb"} for o, x, r in fact.absorbs]}
               if fact.absorbs else {})}


def box_record(report: BoxReport) -> dict:
    return {
        "n": [report.lo, report.hi],
        "tau_lower": lower(report.tau),
        "leak_upper": {h.name: upper(h.leak) for h in report.heads},
        "level_size": {h.name: h.level_size for h in report.heads if h.level_size is not None},
        "error_upper": upper(report.err),
        "margin_lower": lower(report.margin),
        "exact": bool(report.err.is_zero()),
    }


def structural_margin(model, st) -> str:
    """min |y − θ| over the output's finite value set, or 0 when it is not finite; for a v2 argmax
    output half the smallest top − runner-up gap (soft decides as hard when every error is below it)."""
    if model.output.argmax:
        return _decimal(argmax_gap(model, st) / 2, up=False)
    coord = st.coords[-1][model.output.dim]
    if coord.fin is None:
        return "0"
    return _decimal(min(abs(v - model.output.threshold) for v in coord.fin), up=False)


def kernel_obligations(st, boxes: int, unbounded: bool = False, tail: bool = False) -> list[dict]:
    """The obligations the kernel itself discharges (the checker recomputes this list exactly)."""
    items = [{"id": f"head:{f.head.name}", "kind": "exact", "statement": f"{f.kind} score structure",
              "lemma": f.lemma, "evidence": "kernel: exact rational identities at grid points"}
             for layer in st.facts if isinstance(layer, tuple) for f in layer]
    if unbounded:  # no box evaluates τ beyond a finite cover: positivity is its own obligation
        items.append({"id": "tau", "kind": "exact", "statement": "τ(n) is defined and positive for every integer "
                      "n ≥ n_min", "evidence": "kernel: polynomial sign conditions decided at root enclosures"})
    items.append({"id": "cover", "kind": "exact", "statement": "boxes are contiguous integer intervals covering "
                  "[n_min, n_max]" if not tail else "[n_min, N0 - 1]; the tail covers every n >= N0",
                  "evidence": "kernel: endpoint arithmetic"})
    items.append({"id": "final", "kind": "ball", "statement": FINAL_STATEMENT, "relation": "<",
                  "evidence": f"kernel: python-flint balls on {boxes} boxes" if boxes else
                  "kernel: every head is uniform, so every error is exactly 0 for every n"})
    if tail:
        items.append({"id": "tail", "kind": "ball", "statement": TAIL_STATEMENT, "relation": "<",
                      "evidence": "kernel: monomial enclosures c*n^a*log(n)^b with exact exponents, suprema decided "
                      "from the sign of a*log(n) + b, python-flint balls at N0; exact sign conditions for n >= N0"})
    return items


def facts_record(st) -> dict:
    """Every structural fact the bounds rely on, as plain statements about the hard model that
    ``certify check --audit`` tests on concrete words (issue 11: a second line of defence that
    does not re-run the kernel's reasoning).  Meanings (i: the row's position, n: the length):

    * joint, after k layers: the vector of ``dims`` at every row is one of ``rows`` (dims that are a
      function of the row's symbol);
    * coords, after k layers, dim d: ``values`` — the value is in the set; ``exact`` — it equals
      the expression; ``grid``/``offset`` — value·G(i, n) − offset is an integer; ``values_off_bos``
      / ``value_at_bos`` / ``values_at_bos`` — the values at input rows / the value (the values) at the BOS row; ``denominator_at_most``
      — the value's denominator in lowest terms is at most that expression; ``zero_or_apart`` — the
      value equals ``centre`` or side·(value − centre) ≥ min |at_least| (L-zero-or-apart); ``bound`` —
      side·(value − value_bound) ≤ 0 (an extreme head against an always-visible BOS key); ``never_equals`` —
      the value is never that one (two heads' selected keys, L-two-keys); ``same_at_every_row`` — every row
      of a word holds one value (L-word-constant), ``soft_same_at_every_row`` — one soft value too, for every τ;
      ``same_in_class`` — rows of a word whose ``dims`` hold one of the listed ``classes`` [values, lo, hi] hold one
      value, lo ≤ value ≤ hi (L-class-constant); ``in_class_range`` — the same ranges without one value per class
      (L-maxima-classes per symbol row);
      ``exact_unless`` — at
      every row whose hard value is not in this list, the soft value equals the hard one for every
      τ (the row's heads saw equal scores or exact inputs); ``exact_at`` — at every row whose hard
      value is in its list, likewise (L-extreme-exact: every key the row sees carries that value);
      ``noisy_spans`` — [lo, hi, side] spans: a row whose hard value lies in none of them (nor in
      ``exact_at``) has soft = hard, and one whose value lies only in spans of side −1 (+1) has soft ≤ hard
      (soft ≥ hard), for every τ (L-one-sided: the soft average stays in the hull of the maximal level's
      values and the lower levels' values; monotone FFNs keep the side).
    * heads: ``equal_scores`` — all visible scores of a row are equal; ``levels`` (width w, size c
      per box, ``unique``) — every non-maximal key's deficit s_max − s_j is ≥ w, each band
      [m·w, (m+1)·w), m ≥ 1, holds ≤ c keys, and (unique) one key is maximal; ``gap`` — every
      non-zero deficit is ≥ min |γ_k(n)| = γ (and with ``level_size`` c each band [m·γ, (m+1)·γ),
      m ≥ 1, holds ≤ c keys); ``maxima_same_value`` — the maximal keys carry one value;
      ``leak_other_values`` — the box's ``leak_upper`` bounds the soft weight on the keys whose value
      differs from the maxima's (L-special-key with one value on every input key), not all keys off them.
    * per box (in ``boxes``): the soft weight off the hard maxima at τ(n) ≤ ``leak_upper``, the
      hard output's distance to the threshold ≥ ``margin_lower`` (> 0 only, at rows off the output's
      ``exact_unless``: those are exact, nor where the output's spans decide as hard: y ≤ θ with soft ≤ hard,
      y > θ with soft ≥ hard), |soft − hard| ≤ ``error_upper``.
    """
    coords = []
    for k, layer in enumerate(st.coords):
        for dim, c in layer.items():
            entry = _coord_record(c, written=k > 0 and c is not st.coords[k - 1][dim])
            if entry:
                coords.append({"after_layers": k, "dim": dim, **entry})
    heads = []
    for layer in st.facts:
        if isinstance(layer, tuple):
            heads.extend({"layer": f.layer, "head": f.head.name, "statements": _head_statements(f)} for f in layer)
    joint = [{"after_layers": k, "dims": list(j.dims), "rows": [[str(v) for v in row] for row in sorted(j.rows)]}
             for k, j in enumerate(st.joint) if j.dims]
    return {"coords": coords, "joint": joint, "heads": heads}


def _text(e) -> str:
    return to_text(simplified(e))


def _coord_record(c: Coord, written: bool) -> dict:
    entry = {}
    if c.fin is not None:
        entry["values"] = [str(v) for v in sorted(c.fin)]
    if c.pe is not None:
        entry["exact"] = _text(c.pe)
    if c.grid is not None:
        entry.update({"grid": _text(c.grid), "offset": str(c.offset)})
    if c.rest is not None:
        entry["values_off_bos"] = [str(v) for v in sorted(c.rest)]
    if c.at_bos is not None:
        entry["value_at_bos"] = str(c.at_bos)
    if c.bos_fin is not None:
        entry["values_at_bos"] = [str(v) for v in sorted(c.bos_fin)]
    if c.den_bound is not None:
        entry["denominator_at_most"] = _text(c.den_bound)
    if c.harmonic is not None:
        entry["harmonic"] = {"points": [str(v) for v in sorted(c.harmonic[0])],
                             "families": [[str(v), str(d)] for v, d in sorted(c.harmonic[1])]}
    if c.apart is not None:
        entry["zero_or_apart"] = {"centre": _text(c.apart[0]), "at_least": [_text(e) for e in c.apart[1]],
                                  "side": c.apart[2], "lemma": "L-zero-or-apart"}
    if c.bound is not None:
        entry["bound"] = {"side": c.bound[0], "value": str(c.bound[1]), "lemma": "L-zero-or-apart"}
    if c.avoids is not None:
        entry["never_equals"] = {"value": str(c.avoids), "lemma": "L-two-keys"}
    if c.fin is None and c.hull is not None:
        entry["range"] = [str(c.hull[0]), str(c.hull[1])]
    if c.same_in_word and written:
        entry["same_at_every_row"] = {"lemma": "L-word-constant"}
    if c.soft_same and written:
        entry["soft_same_at_every_row"] = {"lemma": "L-word-constant"}
    if c.classes is not None and written:
        entry["same_in_class" if c.classes[2] else "in_class_range"] = {
            "dims": list(c.classes[0]), "lemma": "L-class-constant" if c.classes[2] else "L-maxima-classes",
            "classes": [[[str(v) for v in key], str(lo), str(hi)] for key, lo, hi in c.classes[1]]}
    if c.exact_unless is not None and written:  # an embedding is exact: only written dims say more
        entry["exact_unless"] = [str(v) for v in sorted(c.exact_unless)]
    if c.spans and written:
        entry["noisy_spans"] = {"spans": [[str(lo), str(hi), side] for lo, hi, side in sorted(c.spans)],
                                "lemma": "L-one-sided",
                                **({"side_conditions": [[str(g), str(r)] for g, r in c.needs],
                                    "side_lemma": "L-nearest-level"} if c.needs else {})}
    if c.exact_at and written:
        entry["exact_at"] = {"values": [str(v) for v in sorted(c.exact_at)], "lemma": "L-extreme-exact"}
    return entry


def _head_statements(f: HeadFact) -> list[dict]:
    if f.kind == "uniform":
        return [{"kind": "equal_scores"}]
    if f.kind == "classes":  # L-value-classes alone: no bound on the gaps between keys of one value
        out = []
    elif f.kind == "gap":
        out = [{"kind": "gap", "gamma_min_of": [_text(g) for g in gap_lower_bounds(f)],
                **({} if f.level_size is None else {"level_size": f.level_size})}]
    else:  # ziggurat: |A(n)|, c from the box; lookup: α(i, n), c = 2; distinct: |A(n)|, c = 1
        out = [{"kind": "levels", "width": _text(f.step), "unique": f.kind != "ziggurat",
                **({"bos_off_lattice": True} if f.bos_off_lattice else {})}]  # L-bos-apart: c counts BOS too
    if f.homogeneous or f.kind == "ziggurat" and f.head.hard != "average":
        out.append({"kind": "maxima_same_value"})
    if f.rungs_agree:  # L-special-key: the boxes' leak_upper bounds the weight on keys valued unlike the maxima
        out.append({"kind": "leak_other_values"})
    if f.class_gap is not None:  # L-value-classes: so does a class gap, which also bounds their deficits
        out.append({"kind": "class_gap", "gamma": str(f.class_gap)})
    return out


EXHAUSTIVE_STATEMENT = ("every word of every recorded length: the soft output decides as the hard one for every τ "
                        "in tau_interval, with (clearance − error bound) ≥ margin_lower")


FIRST_ROW_STATEMENT = ("the output is read at the first row and every head sees j <= i or j < i: that row sees at most its own "
                       "key, of softmax weight 1, so its soft stream is the hard one for every τ and n")


def first_row_record(first: int) -> dict:
    """The record of an L-first-row-exact certificate: the rule and the row it speaks of (0 with BOS, else 1)."""
    return {"rule": "L-first-row-exact", "row": first}


def first_row_margin(model) -> str:
    """min |y − θ| over the hard outputs at the first row when they are free of n, else 0 (soft = hard there: no
    margin is needed, the claim's margin only reports how far the decision is from changing)."""
    values = None if model.output.argmax else first_row_values(model)
    return "0" if not values else _decimal(min(abs(v - model.output.threshold) for v in values), up=False)


def first_row_obligations() -> list[dict]:
    return [{"id": "first-row-exact", "kind": "exact", "statement": FIRST_ROW_STATEMENT, "lemma": "L-first-row-exact",
             "evidence": "kernel: every head's visibility read from the model (structure.first_row_exact)"}]


def fraction_text(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


def exhaustive_record(model, checks, tau_lo: Fraction, tau_hi: Fraction) -> dict:
    """The certificate's entry for L-exhaustive (kernel/exhaustive.py): per length its word count, a lower
    bound on the least margin (rounded down) and an upper bound on the output error (rounded up)."""
    from .exhaustive import LEMMAS

    return {"rule": "L-exhaustive", "lemmas": list(LEMMAS), "alphabet": list(model.alphabet),
            "tau_interval": [fraction_text(tau_lo), fraction_text(tau_hi)],
            "lengths": [{"n": c.n, "words": c.words,
                         "margin_lower": "0" if c.margin is None else _decimal(c.margin, up=False),  # 0: all exact
                         "error_upper": _decimal(c.error, up=True) if c.error else "0"} for c in checks]}


def exhaustive_obligations(record: dict) -> list[dict]:
    words = sum(item["words"] for item in record["lengths"])
    return [{"id": "exhaustive", "kind": "ball", "statement": EXHAUSTIVE_STATEMENT, "lemma": "L-gap",
             "evidence": f"kernel: exact hard runs and outward-rounded per-word bounds on {words} words"}]

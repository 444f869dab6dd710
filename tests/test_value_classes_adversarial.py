"""The facts behind L-value-classes, the own-key floor and class gaps, against the exact evaluator, on models
drawn at those rules' edges (``tests/range_models.py``).

Default run: every fact the structure states — finite value sets, BOS-row values, ranges, BOS-level families,
bounds, values never taken, maxima sharing one value, class gaps — is held on the hard streams of short and long
words (no certification: the facts are what the kernel's leakage and margins stand on).  Slow: every
certificate is audited and brute-forced."""
from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction

import pytest

from certify.errors import UserError
from certify.evaluate import hard_run, visible_keys
from certify.kernel.structure import Unsupported, analyse, value_hull
from certify.model import model_from_dict
from range_models import GENERATORS
from soundness import rule_sweep, words_up_to


def _coord_problems(c, v: Fraction, p: int) -> list[str]:
    out = []
    if c.fin is not None and v not in c.fin:
        out.append(f"value set: {v}")
    if c.rest is not None and p >= 1 and v not in c.rest:
        out.append(f"input-row set: {v}")
    if c.at_bos is not None and p == 0 and v != c.at_bos:
        out.append(f"BOS value: {v} != {c.at_bos}")
    if c.bos_fin is not None and p == 0 and v not in c.bos_fin:
        out.append(f"BOS values: {v} not in {sorted(c.bos_fin)}")
    hull = value_hull(c)
    if hull is not None and not hull[0] <= v <= hull[1]:
        out.append(f"range: {v} outside {hull}")
    if c.harmonic is not None:
        points, families = c.harmonic
        if v not in points and not any(d and v != b and (d / (v - b)).denominator == 1 and d / (v - b) >= 1
                                        for b, d in families):
            out.append(f"family: {v}")
    if c.bound is not None and c.bound[0] * (v - c.bound[1]) > 0:
        out.append(f"bound {c.bound}: {v}")
    if c.avoids is not None and v == c.avoids:
        out.append(f"never {c.avoids}")
    return out


def _head_problems(fact, rows, idx, first: int) -> list[str]:
    head, out = fact.head, []
    outs = sorted({o for o, _, _ in head.value})
    last = first + len(rows) - 1
    for i in range(first, last + 1):
        keys = list(visible_keys(head.visible, i, first, last))
        if not keys:
            continue
        q = rows[i - first]
        scores = [sum((c * q[idx[a]] * rows[j - first][idx[b]] for a, b, c in head.score), Fraction(0)) for j in keys]
        carried = [tuple(sum((c * rows[j - first][idx[v]] for o2, v, c in head.value if o2 == o), Fraction(0))
                         for o in outs) for j in keys]
        top = max(scores)
        at_top = {v for s, v in zip(scores, carried) if s == top}
        if len(at_top) > 1:
            out.append(f"head {head.name}: maxima carry {len(at_top)} values at row {i}")
        elif fact.class_gap is not None:
            near = [top - s for s, v in zip(scores, carried) if v not in at_top and top - s < fact.class_gap]
            if near:
                out.append(f"head {head.name}: a key valued otherwise {min(near)} below, class gap {fact.class_gap}")
    return out


def facts_that_fail(model, st, word) -> list[str]:
    """Every coordinate and head fact of the structure ``st`` on the hard streams of one word."""
    run = hard_run(model, word)
    idx = {d: k for k, d in enumerate(model.dims)}
    problems = []
    for k, rows in enumerate(run.streams[:len(st.coords)]):
        for d, c in st.coords[k].items():
            for p, row in enumerate(rows, start=run.first_position):
                problems += [f"after {k} layers, {d} at row {p}: {why}" for why in _coord_problems(c, row[idx[d]], p)]
    for k, facts in enumerate(st.facts):
        if isinstance(facts, tuple):
            for fact in facts:
                if fact.kind not in ("uniform", "unsupported") and (fact.homogeneous or fact.class_gap is not None):
                    problems += _head_problems(fact, run.streams[k], idx, run.first_position)
    return problems


def _fact_sweep(name: str, seed: int, count: int, long_words: int) -> tuple[int, int, int]:
    """(models analysed, coordinates known by a range, heads with a class gap); every fact held on words."""
    rng, analysed, ranges, gaps = random.Random(seed), 0, 0, 0
    for k in range(count):
        data = GENERATORS[name](rng, k)
        try:
            model = model_from_dict(data)
            st = analyse(model)
        except (UserError, Unsupported):
            continue
        analysed += 1
        ranges += sum(c.fin is None and c.harmonic is None and value_hull(c) is not None for cs in st.coords for c in cs.values())
        gaps += sum(f.class_gap is not None for fs in st.facts if isinstance(fs, tuple) for f in fs)
        for word in words_up_to(model.alphabet, 1, 4, budget=40, random_words=long_words, random_max=60, seed=k):
            problems = facts_that_fail(model, st, word)
            assert not problems, (data, "".join(word), problems[:3])
    return analysed, ranges, gaps


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_stated_facts_hold_on_drawn_models(name):
    analysed, ranges, _ = _fact_sweep(name, 1, 20, 4)
    assert analysed >= 5 and ranges >= 1, (analysed, ranges)


def test_the_fact_sweep_reaches_class_gaps():
    """Not vacuous: the generators aimed at the rule produce heads with a class gap in the default sample."""
    assert sum(_fact_sweep(name, 3, 10, 1)[2] for name in ("pe_classes", "query_box", "ffn_hull")) >= 3


def test_a_narrowed_range_is_caught():
    """The oracle itself: a range claimed narrower than the values reached fails on some word."""
    rng = random.Random(4)
    for k in range(40):
        model = model_from_dict(GENERATORS["ffn_hull"](rng, k))
        try:
            st = analyse(model)
        except Unsupported:
            continue
        c = st.coords[1]["w0"]
        if c.fin is None and c.hull is not None and c.hull[0] < c.hull[1]:
            st.coords[1]["w0"] = replace(c, hull=(c.hull[0], (c.hull[0] + c.hull[1]) / 2 - Fraction(1, 10**6)))
            words = words_up_to(model.alphabet, 1, 5, budget=200, random_words=10, random_max=40, seed=k)
            if any(facts_that_fail(model, st, w) for w in words):
                return
    pytest.fail("no narrowed range was caught")


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_certificates_of_drawn_models_hold_large(name):
    certified, _ = rule_sweep(GENERATORS[name], 2, 60, 250, lambda c: 0, audit_len=5)
    assert certified >= 3, certified

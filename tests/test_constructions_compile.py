"""Issue 5: compiled hard models agree with the reference evaluator; size is linear;
PEs respect the scheme; soft models at the proposed temperature agree with hard ones."""
import itertools
import random

import pytest

from certify.evaluate import hard_run, soft_run
from certify.expr import eval_exact
from certify.model import model_from_dict
from proofs.constructions.check import check, formula_task
from proofs.constructions.compiler import SCHEDULE
from proofs.constructions.formula import (And, Compare, Const, Count, Int, Mon, Next, Not, Or, Prev, Scale, Since,
                                          Sym, Until, Add, evaluate, size, to_text)


def random_formula(rng: random.Random, depth: int, counts: bool = True):
    """Formulas with nested since/until/prev/next, Mon predicates and count comparisons."""
    if depth == 0 or rng.random() < 0.2:
        return rng.choice([Sym("a"), Sym("b"), Sym("c"), Mon(rng.choice(["first", "last", "even", "odd"])),
                           Const(rng.random() < 0.5)])
    kind = rng.choice(["not", "prev", "next", "and", "or", "since", "until", "since", "until"]
                      + (["cmp", "cmp"] if counts else []))
    sub = lambda: random_formula(rng, depth - 1, counts)  # noqa: E731
    if kind in ("not", "prev", "next"):
        return {"not": Not, "prev": Prev, "next": Next}[kind](sub())
    if kind in ("and", "or", "since", "until"):
        return {"and": And, "or": Or, "since": Since, "until": Until}[kind](sub(), sub())
    def term():
        t = Count(rng.choice(["past", "past", "future"]), random_formula(rng, depth - 1, False))
        if rng.random() < 0.4:
            t = Scale(rng.choice([-2, 2, 3]), t)
        return Add(t, Int(rng.randint(-2, 2))) if rng.random() < 0.5 else t
    return Compare(rng.choice(["<", "<=", "=", ">=", ">"]), term(), term() if rng.random() < 0.6 else Int(rng.randint(0, 3)))


SEEDS = range(12)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("scheme", ["bounded", "unbounded"])
def test_unseen_formulas_agree_with_reference(seed, scheme):
    rng = random.Random(1000 * seed + (scheme == "bounded"))
    f = random_formula(rng, 3)
    transduction = seed % 2 == 0
    task = formula_task(to_text(f), "abc", scheme, transduction)
    result = check(task, exhaustive=4, random_count=6, max_len=64, seed=seed, soft=3)
    assert result.ok, (to_text(f), result.counterexample)
    assert result.hard_words == 3 + 9 + 27 + 81 + 6


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("scheme", ["bounded", "unbounded"])
def test_unseen_formulas_exhaustive_8(seed, scheme):
    rng = random.Random(77 + seed)
    f = random_formula(rng, 3)
    result = check(formula_task(to_text(f), "abc", scheme, seed % 2 == 0), exhaustive=8, random_count=100,
                   max_len=64, seed=seed, soft=10)
    assert result.ok, (to_text(f), result.counterexample)


HAND = ["'a' since ('b' and not ('c' until 'a'))", "prev prev 'a' or next next 'b'",
        "#past['a'] > #past['b']", "#past['a'] > #future['b']", "#past['a'] = #past['b'] + 1",
        "(first or last) and not even", "odd and (2*#past['a'] >= #past['b'] + 1)",
        "(#future['c'] < 2) until prev 'a'", "-2*#past['a'] + 3 <= 0 - #future[next 'b']"]


@pytest.mark.parametrize("text", HAND)
@pytest.mark.parametrize("scheme", ["bounded", "unbounded"])
def test_hand_formulas_exhaustive_6(text, scheme):
    task = formula_task(text, "abc", scheme, transduction=True)
    model = model_from_dict(task.model)
    for n in range(1, 6):
        for w in itertools.product("abc", repeat=n):
            assert list(hard_run(model, w).decisions) == evaluate(task_formula(text), w), w


def task_formula(text):
    from proofs.constructions.formula import parse_formula
    return parse_formula(text)


def test_check_reports_the_first_counterexample():
    """Negative control: a model paired with the wrong specification must fail."""
    task = formula_task("'a' since 'b'", "abc", "bounded")
    wrong = type(task)(task.model, lambda w: (evaluate(Since(Sym("a"), Sym("c")), w)[-1],))
    result = check(wrong, exhaustive=3, random_count=0, soft=0)
    assert not result.ok
    # words are tried shortest first: 'ba' is the first where a S b (true) and a S c (false) differ
    assert result.counterexample == ("hard model disagrees with the reference: word 'ba' (n=2), position 2: "
                                     "model says true, reference says false")


def test_check_catches_a_broken_model():
    """Negative control: flipping the tie-break of the since head breaks the construction."""
    task = formula_task("'a' since 'b'", "abc", "bounded")
    broken = dict(task.model)
    layers = [dict(layer) for layer in broken["layers"]]
    for layer in layers:
        if layer["type"] == "attention":
            layer["heads"] = [dict(h, hard="leftmost", visible="j<i") for h in layer["heads"]]
            for h in layer["heads"]:
                h["score"] = [[q, k, c] for q, k, c in h["score"] if k != "pos"] + [["one", "pos", -1]]
    broken["layers"] = layers
    result = check(type(task)(broken, task.reference), exhaustive=4, random_count=0, soft=0)
    assert not result.ok and "position" in result.counterexample


def _pe_values(model, n_max):
    m = model_from_dict(model)
    for n in range(1, n_max + 1):
        for i in range(0 if m.bos else 1, n + 1):
            for d, e in m.position_embed:
                yield d, n, i, eval_exact(e, {"i": i, "n": n})


@pytest.mark.parametrize("text", HAND)
def test_bounded_scheme_uses_bounded_pe_only(text):
    model = formula_task(text, "abc", "bounded").model
    assert all(-1 <= v <= 1 for _, _, _, v in _pe_values(model, 40))
    assert model["temperature"] in (SCHEDULE.unique, SCHEDULE.past, SCHEDULE.mixed)


def test_unbounded_scheme_has_constant_temperature_and_unbounded_pe():
    model = formula_task("'a' since 'b' and #past['a'] > #past['c']", "abc", "unbounded").model
    assert model["temperature"] == "1"
    assert max(v for _, _, _, v in _pe_values(model, 20)) > 1


def test_unique_hard_heads_have_key_only_scores():
    """Gadget shape the certifier relies on: the query side of unique-hard scores is
    position-independent (one, or n in the unbounded scheme)."""
    for scheme in ("bounded", "unbounded"):
        model = formula_task("('a' since prev 'b') until next 'c'", "abc", scheme).model
        constant = {d for d, e in model["embed"]["position"].items() if e in ("1", "n")}
        for layer in model["layers"]:
            for h in layer.get("heads", []):
                if h["hard"] != "average":
                    assert {q for q, _, _ in h["score"]} <= constant


def _size(model):
    units = sum(len(layer.get("hidden", [])) for layer in model["layers"])
    heads = sum(len(layer.get("heads", [])) for layer in model["layers"])
    return len(model["dims"]), units, heads


def test_model_size_is_linear_in_formula_size():
    """The constants stated in models/compiled/README.md: per AST node at most 10 dims,
    10 FFN units and 3 heads, plus at most 14 + |alphabet| fixed dims."""
    rng = random.Random(5)
    for _ in range(60):
        f = random_formula(rng, rng.randint(1, 5))
        for scheme in ("bounded", "unbounded"):
            dims, units, heads = _size(formula_task(to_text(f), "abc", scheme).model)
            s = size(f)
            assert dims <= 10 * s + 14 + 3 and units <= 10 * s and heads <= 3 * s, (to_text(f), dims, units, heads)
    # a chain of k nested since grows linearly, not exponentially
    f = Sym("a")
    sizes = []
    for _ in range(8):
        f = Since(f, Sym("b"))
        sizes.append(_size(formula_task(to_text(f), "abc", "bounded").model))
    deltas = {tuple(b - a for a, b in zip(x, y)) for x, y in zip(sizes, sizes[1:])}
    assert len(deltas) == 1


@pytest.mark.parametrize("text", ["'a' since 'b'", "#past['a'] > #past['b']", "#past['a'] > #future['b']",
                                  "next 'a' until (prev 'b' or last)"])
@pytest.mark.parametrize("scheme", ["bounded", "unbounded"])
def test_soft_at_proposed_temperature_agrees_with_hard(text, scheme):
    model = model_from_dict(formula_task(text, "abc", scheme, transduction=True).model)
    rng = random.Random(len(text))
    for n in (1, 2, 7, 24, 64):
        w = tuple(rng.choice("abc") for _ in range(n))
        hard, soft = hard_run(model, w), soft_run(model, w, model.temperature, dps=30)
        assert soft.decisions == hard.decisions, w
        assert all(abs(float(h) - float(s)) < 1e-6 for h, s in zip(hard.outputs, soft.outputs))

"""Issue 12: the general gap principle — rules that certify the models users bring.

Every rule is a row gap lower bound plus a count of keys per gap level: joint finite values,
score lattices (with denominators bounded for means), row-constant terms dropped, (-1)^i as a
two-valued embedding, average heads with a unique maximum.  Whatever they certify is brute-forced
here and audited (conftest), and what they cannot prove is reported head by head.
"""
from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction
import random
import subprocess
import sys
from pathlib import Path

import mpmath
import pytest

from certify.audit import AuditConfig, _mp_fraction, audit
from certify.certifier import CertifyConfig, certify, certify_first_row
from certify.kernel.checker import CheckFailure, check
from certify.evaluate import hard_run, soft_run
from certify.expr import eval_exact, parse_expr
from certify.kernel.structure import analyse, first_row_soft_exact, first_row_values, harmonic_distance, maxima_outputs
from certify.model import load_model, model_from_dict
from outside_models import edited_model, random_model, simulable, split_head
from soundness import assert_certificate_holds, rule_sweep, words_up_to

ROOT = Path(__file__).resolve().parent.parent
COVERAGE = sorted((ROOT / "tests" / "fixtures" / "coverage").glob("*.json"))


def _certified_to_a_million_and_sound(model, words) -> None:
    """Certified at n ≤ 10^6, the certificate checked and its facts audited, the claim brute-forced on ``words``."""
    outcome = certify(model, 1, 10**6)
    assert outcome.verdict == "certified", outcome.blockers
    check(outcome.certificate, model)
    assert audit(outcome.certificate, model, max_len=6, cfg=AuditConfig(random_words=10)).ok
    assert assert_certificate_holds(model, outcome.certificate["claim"], words) > 0


@pytest.mark.parametrize("path", COVERAGE, ids=lambda p: p.stem)
def test_coverage_example_certifies_checks_and_survives_brute_force(path):
    model = load_model(path)
    _certified_to_a_million_and_sound(model, words_up_to(model.alphabet, 1, 6, budget=300, random_words=6,
                                                         random_max=30, seed=3))


def test_row_constant_terms_are_dropped_before_anything_else():
    plain = certify(load_model(ROOT / "models" / "exists-b.json"), 1, 1000)
    shifted = certify(load_model(ROOT / "tests" / "fixtures" / "coverage" / "ex2-exists-b-plus-row-constant.json"), 1, 1000)
    assert shifted.verdict == "certified" and shifted.certificate["claim"]["tau"] == plain.certificate["claim"]["tau"]


def _two_blockers() -> dict:
    model = json.loads((ROOT / "tests" / "fixtures" / "coverage" / "crash-alt-query.json").read_text())
    bad = {"name": "tie", "hard": "rightmost", "visible": "all", "score": [["t_a", "t_a", 1]], "value": [["v", "alt", 1]]}
    model["layers"][0]["heads"] = [dict(bad, name="tie1"), dict(bad, name="tie2")]
    return model


def test_not_proved_lists_every_blocker():
    outcome = certify(model_from_dict(_two_blockers()), 1, 100, cfg=CertifyConfig(refute=False))
    assert outcome.verdict == "not proved"
    assert [b.split(":")[0] for b in outcome.blockers] == ["head 'tie1'", "head 'tie2'"]


def test_cli_json_not_proved_has_the_blocker_list(tmp_path):
    path = tmp_path / "m.json"
    path.write_text(json.dumps(_two_blockers()))
    run = subprocess.run([sys.executable, "-m", "certify.cli", str(path), "--nmax", "20", "--json"],
                         capture_output=True, text=True, timeout=120)
    result = json.loads(run.stdout)
    if result["verdict"] == "not proved":
        assert run.returncode == 2 and len(result["blockers"]) == 2
    else:  # the refuter may find that the unique-hard ties really break soft = hard
        assert result["verdict"] == "refuted" and run.returncode == 1


def test_unique_hard_ties_with_different_values_are_not_certified():
    """The joint rule must not accept tied maxima carrying different values under rightmost attention."""
    outcome = certify(model_from_dict(_two_blockers()), 1, 50, cfg=CertifyConfig(refute=False))
    assert outcome.verdict != "certified"


def _exact_rows_model(hard: str = "average", visible: str = "j<=i", position: str = "all") -> dict:
    """ex5's pattern, reduced: query b averages t_b over the keys when no 'a' is visible (a uniform
    row: soft = hard exactly) and sees the a's value 0 otherwise; 1/2 is hit only on uniform rows."""
    return {"format": "hardsoft.model/1", "name": "exact-rows", "alphabet": ["a", "b"], "bos": "$",
            "dims": ["one", "t_a", "t_b", "t_bos", "w", "out"],
            "embed": {"token": {"a": {"t_a": 1}, "b": {"t_b": 1}, "$": {"t_bos": 1}}, "position": {"one": "1"}},
            "layers": [{"type": "attention", "heads": [{"name": "h", "hard": hard, "visible": visible,
                                                       "score": [["t_b", "t_a", "1/2"]], "value": [["w", "t_b", 1]]}]},
                       {"type": "ffn", "hidden": [{"in": {"w": 2}, "bias": "-1/2", "out": {"out": 1}},
                                                  {"in": {"w": 2}, "bias": "-3/2", "out": {"out": -1}}]}],
            "output": {"dim": "out", "position": position, "threshold": "1/2"}}


@pytest.mark.parametrize("change", [{}, {"visible": "all", "position": "first"}])
def test_uniform_rows_are_exact_and_a_tie_on_the_threshold_there_is_certified(change):
    """The structure says w is exact off {0}; brute force agrees (soft = hard to 40 digits there).  The
    output sits on θ = 1/2 only on exact rows (#b = #a, every score equal), where soft = θ = hard decides
    as hard, not above θ; the rows that may leak (w = 0) are 1/2 from θ: certified, checked, audited,
    and brute-forced on words that put the output on θ.  A non-causal head read at the BOS row: the BOS
    query scores every key alike, so that row is exact too."""
    model = model_from_dict(_exact_rows_model(**change))
    w = analyse(model).coords[1]["w"]
    assert w.exact_unless == {Fraction(0)}
    col = model.dims.index("w")
    for word in words_up_to(model.alphabet, 1, 7, budget=400, random_words=10, random_max=30, seed=5):
        hard, soft = hard_run(model, word), soft_run(model, word, parse_expr("1/n", variables=("n",)), dps=60)
        for h, sft in zip(hard.streams[1], soft.streams[1]):
            if h[col] != 0:
                assert abs(_mp_fraction(sft[col]) - h[col]) < Fraction(1, 10**40), word
    ties = [w for w in words_up_to(model.alphabet, 1, 9, budget=1100, random_words=0, random_max=0)
            if Fraction(1, 2) in hard_run(model, w).outputs] + [tuple("b" * 9 + "a" * 8)]  # 9 b's of 18 keys
    assert len(ties) > 20 and Fraction(1, 2) in hard_run(model, ties[-1]).outputs
    _certified_checked_audited(model, n_max=200)
    outcome = certify(model, 1, 200, cfg=CertifyConfig(refute=False))
    assert assert_certificate_holds(model, outcome.certificate["claim"], ties) == len(ties)


def test_a_count_ratio_on_the_threshold_at_uniform_rows_is_certified():
    """A drawn outside model (seed 9, model 3): query b scores every key 1 (t_a + t_b), so its rows are
    uniform and w0 = #b/n is exact there; the rounding ramp puts the output on θ = 1/2 exactly when #b = #a
    ('ab', 'abab', …).  Query a rows may leak but hold w0 ∈ {0, 1}, 1/2 from θ.  Certified, checked,
    audited, and brute-forced on every word ≤ 8 that puts the output on θ."""
    model = load_model(Path(__file__).parent / "fixtures" / "outside" / "count-ratio-on-threshold.json")
    assert analyse(model).coords[-1]["out"].exact_unless == {Fraction(0), Fraction(1)}
    _certified_checked_audited(model, n_max=1000)
    ties = [w for w in words_up_to(model.alphabet, 1, 8, budget=600, random_words=0, random_max=0)
            if Fraction(1, 2) in hard_run(model, w).outputs]
    assert len(ties) > 20
    outcome = certify(model, 1, 1000, cfg=CertifyConfig(refute=False))
    assert assert_certificate_holds(model, outcome.certificate["claim"], ties) == len(ties)


def _one_head_leaking_down() -> dict:
    """Every a key scores 1 and carries 1/2: a row that sees an a outputs hard 1/2 = θ, soft 1/2 − leak (the
    other keys carry 0) — on θ at a row that is not exact, yet the leak only lowers it (L-one-sided)."""
    data = _exact_rows_model()
    data["layers"] = [{"type": "attention", "heads": [{"name": "h", "hard": "average", "visible": "j<=i",
                                                       "score": [["one", "t_a", 1]], "value": [["w", "t_a", "1/2"]]}]}]
    data["output"]["dim"] = "w"
    return data


def _leaks_onto_the_threshold() -> dict:
    """The same 1/2 written by two heads (a keys at 1 and at 2, each carrying 1/4): each leaks down, but a sum of
    two heads keeps no side, so the kernel sees a hard output on θ at a row that may leak — no margin exists, yet
    nothing flips."""
    data = _one_head_leaking_down()
    head = data["layers"][0]["heads"][0]
    head["value"] = [["w", "t_a", "1/4"]]
    data["layers"][0]["heads"].append({**head, "name": "g", "score": [["one", "t_a", 2]]})
    return data


def test_a_tie_leaking_toward_the_hard_side_is_certified():
    """L-one-sided: the hard output 1/2 sits on θ wherever an a is visible, and soft only falls below it."""
    model = model_from_dict(_one_head_leaking_down())
    assert analyse(model).coords[-1]["w"].spans == {(Fraction(1, 2), Fraction(1, 2), -1)}
    _certified_checked_audited(model)


def test_a_tie_on_the_threshold_is_named_with_its_word(tmp_path):
    """Not proved for a hard output on θ at a row that may leak (the leak lowers it, so nothing refutes it):
    the blockers name a word that puts it there, and the text report lists every blocker under the verdict line."""
    data = _leaks_onto_the_threshold()
    outcome = certify(model_from_dict(data), 1, 200)
    assert outcome.verdict == "not proved"
    tie = [b for b in outcome.blockers if "sits on the threshold" in b]
    assert len(tie) == 1
    word = tie[0].split("'")[1]
    assert Fraction(1, 2) in hard_run(model_from_dict(data), tuple(word)).outputs
    path = tmp_path / "tie.json"
    path.write_text(json.dumps(data))
    run = subprocess.run([sys.executable, "-m", "certify.cli", str(path), "--nmax", "200", "--quiet"],
                         capture_output=True, text=True, timeout=120)
    lines = run.stdout.splitlines()
    assert run.returncode == 2 and lines[0].startswith("not proved: ")
    assert lines[1:] == [f"  - {b}" for b in outcome.blockers if b not in outcome.reason]


def test_exact_rows_are_not_claimed_where_soft_differs():
    """Under rightmost-hard attention soft averages a uniform row (no exact rows): not certified."""
    outcome = certify(model_from_dict(_exact_rows_model(hard="rightmost")), 1, 200, cfg=CertifyConfig(refute=False))
    assert outcome.verdict != "certified"


def _outside_sweep(seed: int, count: int, n_max: int):
    """(certified, of them random models rather than edits of shipped ones, simulable on words ≤ 3);
    every certificate brute-forced."""
    rng, certified, random_certified, simulable_count = random.Random(seed), 0, 0, 0
    for k in range(count):
        family = k % 3
        d = edited_model(rng, k) if family == 2 else random_model(rng, k, unbounded=family == 1)
        model = model_from_dict(d)
        outcome = certify(model, 1, n_max, cfg=CertifyConfig(refute=False))
        simulable_count += simulable(model, 3) is not None
        if outcome.verdict == "certified":
            certified += 1
            random_certified += family != 2
            words = words_up_to(model.alphabet, 1, 5, budget=300, random_words=3, random_max=n_max, seed=k)
            assert_certificate_holds(model, outcome.certificate["claim"], words)
    return certified, random_certified, simulable_count


def test_outside_style_models_certified_claims_hold():
    """Measured 20 certified (12 random, 8 edits) of 24 since hard outputs on θ at exact rows are certified;
    12 (4 random) before that, 9 (1 random) before L-maxima-classes."""
    certified, random_certified, simulable_count = _outside_sweep(seed=5, count=24, n_max=20)
    assert certified >= 18 and random_certified >= 10, (certified, random_certified, simulable_count)


@pytest.mark.slow
def test_outside_style_models_large():
    certified, random_certified, simulable_count = _outside_sweep(seed=6, count=300, n_max=100)
    assert certified >= 90 and random_certified >= 20, (certified, random_certified, simulable_count)


def test_never_tie_is_exact_on_both_pe_shapes():
    """L-maxima-classes (b), (c), (e): levels δ apart never tie — checked against every pair of positions; (e)
    proves the quadratic and cubic ones whose smallest key difference exceeds δ (i² from 1: 3 > 2)."""
    from certify.kernel.structure import never_tie

    for text, delta, visible, first in [("-1/(i+1)", "1/2", "all", 1), ("-1/(i+1)", "1/2", "all", 0),
                                        ("1/(i+1)", "1/3", "j<=i", 1), ("i/n", "1", "all", 1), ("i/n", "1", "all", 0),
                                        ("i/(n+1)", "1", "all", 0), ("2*i/n", "1", "j<=i", 1),
                                        ("i^2", "2", "all", 1), ("i^2", "3", "all", 1), ("2*i^2", "2", "j<i", 0),
                                        ("-i^2", "5/2", "all", 1), ("i^3 + n", "6", "all", 1), ("i^2 - 3*i", "1", "all", 1)]:
        pe, delta = parse_expr(text, variables=("i", "n")), Fraction(delta)
        claimed = never_tie(delta, pe, visible, first)
        tie = any(abs(eval_exact(pe, {"i": a, "n": n}) - eval_exact(pe, {"i": b, "n": n})) == delta
                  for n in range(1, 13) for a in range(first, n + 1) for b in range(first, n + 1))
        assert not (claimed and tie), (text, delta, first)
        proved = {("-1/(i+1)", 1), ("i/n", 1), ("i/(n+1)", 0), ("i^2", 1), ("-i^2", 1), ("i^3 + n", 1)}
        assert claimed or (text, first) not in proved or (text, delta) == ("i^2", 3), (text, delta, first)


def _rows_within_value_sets(data: dict, max_len: int = 5, strict: bool = False) -> int:
    """Every hard value of every head output the kernel states a finite set for lies in it (one value per class
    and within its range where it states classes, L-class-constant), and the value it
    states at the BOS row is that row's (all words ≤ max_len), at the lengths whose box conditions hold (L-tiebreak's modulus, unique-hard ties: checked per box)."""
    from certify.kernel.bounds import BoxFailure, analyse_box
    from certify.kernel.structure import Unsupported

    model = model_from_dict(data)
    try:
        st = analyse(model, strict=strict)
    except Unsupported:
        return 0
    checked, valid = 0, {}
    for word in words_up_to(model.alphabet, 1, max_len, budget=500, random_words=5, random_max=12, seed=1):
        if len(word) not in valid:
            try:
                valid[len(word)] = analyse_box(model, st, parse_expr("1"), len(word), len(word)) is not None
            except BoxFailure:
                valid[len(word)] = False
        if not valid[len(word)]:
            continue
        hard = hard_run(model, word)
        for k, coords in enumerate(st.coords):
            for dim, c in coords.items():
                if c.fin is not None:
                    col = model.dims.index(dim)
                    assert all(row[col] in c.fin for row in hard.streams[k]), (data["name"], k, dim, word)
                    checked += 1
                if c.classes is not None:  # in its class's range; one value per class of C in the word when same
                    cols, ranges, held = [model.dims.index(d) for d in c.classes[0]], {v: (lo, hi) for v, lo, hi in c.classes[1]}, {}
                    for row in hard.streams[k]:
                        key, value = tuple(row[a] for a in cols), row[model.dims.index(dim)]
                        assert key in ranges and ranges[key][0] <= value <= ranges[key][1] and \
                            (not c.classes[2] or held.setdefault(key, value) == value), (data["name"], k, dim, word, "class")
                        checked += 1
                if model.bos and c.at_bos is not None:  # the value at the BOS row (row 0)
                    assert hard.streams[k][0][model.dims.index(dim)] == c.at_bos, (data["name"], k, dim, word, "BOS")
                if model.bos and c.bos_fin is not None:  # the values the BOS row may hold
                    assert hard.streams[k][0][model.dims.index(dim)] in c.bos_fin, (data["name"], k, dim, word, "BOS set")
                    checked += 1
            joint = st.joint[k]  # the joint (symbol-determined) values, input rows apart from the BOS row
            at = [model.dims.index(d) for d in joint.dims]
            for p, row in enumerate(hard.streams[k]):
                values = tuple(row[a] for a in at)
                assert values in (joint.rows if model.bos and p == 0 else joint.inputs), (data["name"], k, word, p)
                checked += 1
    return checked


def _bos_like_a_symbol(data: dict) -> dict:
    """The BOS key's class shared with an input symbol (both embed to zeros): aimed at the rules that tell
    the BOS key apart by its values (L-bos-level, the BOS floor)."""
    data = json.loads(json.dumps(data))
    data["embed"]["token"][data["bos"]] = {}
    data["alphabet"].append("z")
    data["embed"]["token"]["z"] = {}
    return data


def test_value_sets_of_average_heads_hold_on_outside_models():
    """The maxima-class value sets (and every other finite set) against the exact evaluator."""
    rng = random.Random(21)
    drawn = [random_model(rng, k, unbounded=k % 2 == 1) for k in range(24)]
    assert sum(_rows_within_value_sets(data) for data in drawn) > 0
    assert sum(_rows_within_value_sets(_bos_like_a_symbol(data)) for data in drawn if data["bos"]) > 0
    for path in sorted((Path(__file__).parent / "fixtures" / "outside").glob("*.json")):
        if path.stem == "first-row-only":
            continue  # h1 has no gap bound (so no value set is claimed): only L-first-row-exact certifies it
        data = json.loads(path.read_text())  # where L-tiebreak's modulus fails in every box, the strict analysis
        assert _rows_within_value_sets(data) + _rows_within_value_sets(data, strict=True) > 0, path.stem


def test_maxima_classes_give_a_finite_output_where_ties_are_impossible():
    """Query a: score 2/(j+1) + t_b(j)... keys of one token never tie (1/(j+1) is injective) and a and b
    keys are 1/2 apart, more than 1/(j+1) − 1/(j'+1) < 1/2 ever reaches: the output is 0 or 1, never 1/2."""
    data = {"format": "hardsoft.model/1", "name": "classes", "alphabet": ["a", "b"], "bos": None,
            "dims": ["one", "p", "t_a", "t_b", "w", "out"],
            "embed": {"token": {"a": {"t_a": 1}, "b": {"t_b": 1}}, "position": {"one": "1", "p": "1/(i+1)"}},
            "layers": [{"type": "attention", "heads": [{"name": "h", "hard": "average", "visible": "all",
                                                       "score": [["one", "t_b", "1/2"], ["t_a", "p", -1]],
                                                       "value": [["w", "t_a", 1]]}]},
                       {"type": "ffn", "hidden": [{"in": {"w": 2}, "bias": "-1/2", "out": {"out": 1}},
                                                  {"in": {"w": 2}, "bias": "-3/2", "out": {"out": -1}}]}],
            "output": {"dim": "out", "position": "last", "threshold": "1/2"}}
    model = model_from_dict(data)
    assert analyse(model).coords[1]["w"].fin == {Fraction(0), Fraction(1)}
    assert _rows_within_value_sets(data, 7) > 0
    outcome = certify(model, 1, 1000, cfg=CertifyConfig(refute=False))
    assert outcome.verdict == "certified" and "L-maxima-classes" in outcome.certificate["analysis"]["heads"][0]["lemma"]
    words = words_up_to(model.alphabet, 1, 7, budget=300, random_words=10, random_max=80, seed=4)
    assert assert_certificate_holds(model, outcome.certificate["claim"], words) > 0


def test_a_failed_schedule_search_names_its_blocker():
    """Deliverable 5: no κ·shape(n) passing is not the end of the report — the output's margin 0 is named."""
    outcome = certify(model_from_dict(_leaks_onto_the_threshold()), 1, 200, cfg=CertifyConfig(refute=False))
    assert outcome.verdict == "not proved"
    assert any("output dim 'w': margin 0" in b for b in outcome.blockers), outcome.blockers


def _split(data: dict, share: Fraction, **change) -> dict:
    """The first attention head with a non-empty score split in two heads writing share·v and (1 − share)·v
    (``change``: fields of the second half, for halves that no longer attend alike)."""
    model = json.loads(json.dumps(data))
    model.pop("temperature", None)
    model["name"] = f"split-{model['name']}"[:64]
    for layer in model["layers"]:
        for at, head in enumerate(layer.get("heads", [])):
            if head["score"]:
                split_head(layer, at, share, **change)
                return model
    raise AssertionError("no scored head")


SPLIT = ["since-a-b.json", "exists-b.json", "bos-first-a.json", "compiled/induction-head-bounded.json"]


@pytest.mark.parametrize("name", SPLIT)
def test_a_head_split_in_two_keeps_its_certificate_and_schedule(name):
    """Issue 12 (deliver 3): twin heads (same visibility, hard rule and score) put the same weights on every
    key, so ⅓v + ⅔v is v again — the split model certifies at the original's derived schedule."""
    data = json.loads((ROOT / "models" / name).read_text())
    original = certify(model_from_dict(dict(data, temperature=None) if "temperature" in data else data), 1, 1000,
                       derive=True)
    split = model_from_dict(_split(data, Fraction(1, 3)))
    outcome = certify(split, 1, 1000, derive=True)
    assert outcome.verdict == "certified", outcome.blockers
    assert outcome.certificate["claim"]["tau"] == original.certificate["claim"]["tau"]
    check(outcome.certificate, split)
    words = words_up_to(split.alphabet, 1, 6, budget=500, random_words=4, random_max=40, seed=1)
    assert assert_certificate_holds(split, outcome.certificate["claim"], words) > 0


@pytest.mark.parametrize("change", [{"visible": "j<=i"}, {"hard": "leftmost"}, {"score": [["one", "p", 1]]}])
def test_halves_that_attend_differently_are_not_merged(change):
    """Halves of since-a-b's head that differ in visibility, hard rule or score may pick different keys: the
    output ½·b(j) + ½·b(j') can be ½, on the threshold — never certified."""
    data = json.loads((ROOT / "models" / "since-a-b.json").read_text())
    model = model_from_dict(_split(data, Fraction(1, 2), **change))
    assert certify(model, 1, 200, cfg=CertifyConfig(refute=False)).verdict != "certified"


def _with_extra_head(data: dict, read_by_output: bool) -> dict:
    """since-a-b plus a rightmost head whose tied maxima carry different values (no rule covers it) writing
    a fresh dim; ``read_by_output``: the output FFN also reads that dim, so the head is live."""
    model = json.loads(json.dumps(data))
    model["name"], model["dims"] = "extra-head", model["dims"] + ["junk", "junk2"]
    model["layers"][0]["heads"].append({"name": "junk", "hard": "rightmost", "visible": "all",
                                        "score": [["one", "p", 1]], "value": [["junk", "b", 1]]})
    model["layers"].insert(1, {"type": "attention", "heads": [{"name": "junk-reader", "hard": "average", "visible": "all",
                                                                "score": [["junk", "p", 1]], "value": [["junk2", "a", 1]]}]})
    if read_by_output:
        model["layers"][-1]["hidden"][0]["in"]["junk"] = "1/8"
    return model


def test_dead_heads_block_nothing():
    """Heads whose outputs never reach the output (a dead head feeding another) change neither the hard nor
    the soft output: the model certifies at since-a-b's own schedule, and the audit holds on its words."""
    data = json.loads((ROOT / "models" / "since-a-b.json").read_text())
    model = model_from_dict(_with_extra_head(data, read_by_output=False))
    outcome = certify(model, 1, 1000, derive=True)
    assert outcome.verdict == "certified", outcome.blockers
    assert outcome.certificate["claim"]["tau"] == certify(load_model(ROOT / "models" / "since-a-b.json"), 1, 1000,
                                                          derive=True).certificate["claim"]["tau"]
    assert {h["head"] for h in outcome.certificate["analysis"]["heads"]} == {"rightmost-p"}
    check(outcome.certificate, model)
    assert audit(outcome.certificate, model, max_len=6, cfg=AuditConfig(random_words=10)).ok
    words = words_up_to(model.alphabet, 1, 6, budget=400, random_words=4, random_max=30, seed=2)
    assert assert_certificate_holds(model, outcome.certificate["claim"], words) > 0


def test_a_head_that_reaches_the_output_is_analysed():
    """The same head read by the output FFN is live: no rule covers it, so the model is not certified."""
    data = json.loads((ROOT / "models" / "since-a-b.json").read_text())
    outcome = certify(model_from_dict(_with_extra_head(data, read_by_output=True)), 1, 200,
                      cfg=CertifyConfig(refute=False))
    assert outcome.verdict != "certified" and any("junk" in b for b in outcome.blockers)


def test_exact_rows_need_no_margin_when_no_hard_output_sits_on_the_threshold():
    """exists-b against θ = 1/4: a row with no b is uniform (soft = hard = 0, exactly), so only the
    rows that may be inexact (hard value 1) need a margin, 3/4 instead of the 1/4 of the value 0."""
    model = load_model(Path(__file__).parent / "fixtures" / "exact_rows" / "exists-b-quarter.json")
    outcome = certify(model, 1, 10 ** 6, cfg=CertifyConfig(refute=False), derive=True)
    assert outcome.verdict == "certified"
    assert Fraction(outcome.certificate["claim"]["margin"]) == Fraction(3, 4)
    assert Fraction(outcome.certificate["claim"]["error_bound"]) > Fraction(1, 4)  # past what every row could afford
    check(outcome.certificate, model)
    assert audit(outcome.certificate, model, max_len=6).ok
    words = words_up_to(model.alphabet, 1, 8, budget=600, random_words=20, random_max=300, seed=5)
    assert assert_certificate_holds(model, outcome.certificate["claim"], words) > 0


def test_the_audit_catches_rows_claimed_exact_that_are_not():
    model = load_model(Path(__file__).parent / "fixtures" / "exact_rows" / "exists-b-quarter.json")
    cert = certify(model, 1, 1000, cfg=CertifyConfig(refute=False), derive=True).certificate
    bad = json.loads(json.dumps(cert))
    for c in bad["facts"]["coords"]:
        if c["dim"] == "w" and "exact_unless" in c:
            c["exact_unless"] = []  # "every row exact": a row with a b and an a is not
    assert not audit(bad, model, max_len=4).ok
    with pytest.raises(CheckFailure, match="facts"):
        check(bad, model)


@pytest.mark.parametrize("name, share", [("compiled/tl-since-until-bounded", "1/3"), ("exists-b", "1/6")])
def test_a_rounding_ramp_with_other_breakpoints_is_harmless_and_certifies(name, share):
    """The issue's "other rounding breakpoints" edit: a ramp narrowed inward keeps every hard decision
    (its input never sits inside the old ramp) and the model still certifies, soundly."""
    from outside_models import _ramps, narrow_ramp

    data = json.loads((Path(__file__).parent.parent / "models" / f"{name}.json").read_text())
    data.pop("temperature", None)
    original = model_from_dict(data)
    narrow_ramp(*_ramps(data)[0], Fraction(share))
    model = model_from_dict(data)
    words = list(words_up_to(model.alphabet, 1, 5, budget=400, random_words=5, random_max=40, seed=2))
    assert all(hard_run(model, w).decisions == hard_run(original, w).decisions for w in words)
    outcome = certify(model, 1, 1000, cfg=CertifyConfig(refute=False))
    assert outcome.verdict == "certified", outcome.blockers
    assert assert_certificate_holds(model, outcome.certificate["claim"], words) > 0


def test_value_classes_whose_offsets_exceed_every_key_distance_never_tie():
    """score n·is_b(j) + j: a b key and an a key would tie only |j − j'| = n apart, which no two keys are
    (proved for every n), so the average head's maxima carry one value and its output is 0 or 1."""
    path = Path(__file__).parent / "fixtures" / "outside" / "exists-b-by-n-offset.json"
    model = load_model(path)
    fact = analyse(model).facts[0][0]
    assert fact.kind == "ziggurat" and fact.homogeneous
    outcome = certify(model, 1, 10 ** 6, cfg=CertifyConfig(refute=False))
    assert outcome.verdict == "certified", outcome.blockers
    check(outcome.certificate, model)
    assert audit(outcome.certificate, model, max_len=6).ok  # maxima_same_value on every word ≤ 6
    words = words_up_to(model.alphabet, 1, 7, budget=500, random_words=20, random_max=300, seed=1)
    assert assert_certificate_holds(model, outcome.certificate["claim"], words) > 0


def test_value_classes_a_key_distance_apart_may_tie():
    """score 2·is_b(j) + j: an a key at j and a b key at j − 2 tie, and the average mixes their values."""
    data = json.loads((Path(__file__).parent / "fixtures" / "outside" / "exists-b-by-n-offset.json").read_text())
    data["layers"][0]["heads"][0]["score"][0] = ["one", "t_b", 2]
    model = model_from_dict(data)
    assert not analyse(model).facts[0][0].homogeneous
    mixed = hard_run(model, ("b", "a", "a")).outputs  # keys 1 (b: 2 + 1) and 3 (a: 3) tie at the maximum
    assert mixed == (Fraction(1, 2),)


# every word ≤ 7 and 20 random words up to 24: the default's 200 words up to 64 took ~20 s a certificate
AUDIT_TO_7 = AuditConfig(random_words=20, random_max_len=24)


def _certified_checked_audited(model, n_max: int = 10 ** 6):
    outcome = certify(model, 1, n_max, cfg=CertifyConfig(refute=False))
    assert outcome.verdict == "certified", outcome.blockers
    check(outcome.certificate, model)
    assert audit(outcome.certificate, model, max_len=7, cfg=AUDIT_TO_7).ok  # value sets on every word ≤ 7
    words = words_up_to(model.alphabet, 1, 8, budget=600, random_words=20, random_max=200, seed=2)
    assert assert_certificate_holds(model, outcome.certificate["claim"], words) > 0
    return outcome


def test_the_bos_row_output_when_the_query_dim_is_known_only_by_its_hull():
    """Drawn model (seed 19 bounded, 3rd).  h1 sees every key and reads the query dim w0, known only by its hull
    [0, 1] (a rounded prefix mean), so no finite query table exists; but the output is read at the BOS row, where
    w0 = 0 exactly (h0 sees only the BOS key there), so the scores are t_bos_j/2: the BOS key alone is maximal
    and w1 = t_a(BOS) = 0 (recorded value_at_bos, audited).  Control: h0 seeing every key leaves w0 at the BOS
    row unknown, and no BOS value is claimed."""
    path = ROOT / "tests" / "fixtures" / "outside" / "bos-row-query-known-by-its-hull.json"
    model = load_model(path)
    st = analyse(model)
    assert st.coords[2]["w0"].fin is None and st.coords[2]["w0"].at_bos == 0
    assert st.coords[3]["w1"].at_bos == 0
    _certified_checked_audited(model)
    data = json.loads(path.read_text())
    data["layers"][0]["heads"][0]["visible"] = "all"
    control = model_from_dict(data)
    assert analyse(control).coords[3]["w1"].at_bos is None


def test_the_output_read_at_the_first_row_of_causal_heads_is_exact_whatever_the_later_rows():
    """The output is read at the BOS row and both heads see j ≤ i, so that row sees only its own key (weight 1):
    soft = hard there for every τ and n (L-first-row-exact).  h1's query w0, a uniform mean of 1/(j + 1), has no
    known grid, so the bounds find no gap for h1 at later rows, which the output never reads: only the first-row
    certificate holds: no head facts, τ = 1, error 0, the margin from the first row's hard outputs, re-decided by
    the checker and audited stream by stream.  Controls: read at the last row the model is not certified; a head
    that sees every key makes the checker refuse the same certificate; a tampered margin is refused.
    (Until L-tiebreak's modulus had to be proved apart before it was proposed, seed 19 bounded's 15th model,
    ``first-row-lattice-failing-later.json``, served here; its head now takes the lattice rule.)"""
    path = ROOT / "tests" / "fixtures" / "outside" / "first-row-only.json"
    model = load_model(path)
    outcome = _certified_checked_audited(model)
    cert = outcome.certificate
    assert cert["first_row"] == {"rule": "L-first-row-exact", "row": 0} and cert["boxes"] == []
    assert cert["claim"]["tau"] == "1" and cert["claim"]["error_bound"] == "0" and cert["claim"]["margin"] == "0.5"
    assert certify(model, 1, "inf", cfg=CertifyConfig(refute=False)).verdict == "certified"
    data = json.loads(path.read_text())
    data["output"]["position"] = "last"
    assert certify(model_from_dict(data), 1, 1000, cfg=CertifyConfig(refute=False)).verdict == "not proved"
    data = json.loads(path.read_text())
    data["layers"][0]["heads"][0]["visible"] = "all"
    with pytest.raises(CheckFailure, match="first_row"):
        check(cert, _same_hash(model_from_dict(data), model))
    tampered = json.loads(json.dumps(cert))
    tampered["claim"]["margin"] = "0.75"
    with pytest.raises(CheckFailure, match="claim.margin"):
        check(tampered, model)


def test_first_row_certificates_hold_on_drawn_causal_models():
    """Drawn models read at the first row with every head made causal (j ≤ i or j < i, drawn): the L-first-row-exact
    certificate of each (asked directly, whatever the bounds would say) is checked, audited, and its claim holds
    on words up to length 8 and random longer ones at a hot τ (soft = hard at that row: same decisions, error 0)."""
    rng = random.Random(41)
    for index in range(10):
        data = random_model(rng, index, unbounded=index % 3 == 0)
        data["output"]["position"] = "first"
        for layer in data["layers"]:
            for head in layer.get("heads", []):
                head["visible"] = rng.choice(("j<=i", "j<i"))
        model = model_from_dict(data)
        outcome = certify_first_row(model, 1, 10 ** 6, parse_expr("2", ("n",)))
        assert outcome.verdict == "certified" and outcome.certificate["claim"]["error_bound"] == "0"
        check(outcome.certificate, model)
        assert audit(outcome.certificate, model, max_len=6, cfg=AUDIT_TO_7).ok
        words = words_up_to(model.alphabet, 1, 8, budget=300, random_words=10, random_max=60, seed=index)
        assert assert_certificate_holds(model, outcome.certificate["claim"], words) > 0


def _same_hash(model, like):
    """``model`` under ``like``'s name and hash, so the checker reaches the rule's own test."""
    return replace(model, sha256=like.sha256, name=like.name)


def test_the_bos_row_output_from_a_set_of_possible_values():
    """Drawn model (seed 20 bounded, 18th).  The output is read at the BOS row; h0 sees every key and, at the BOS
    row's query (t_b = 0), scores b keys 1 and the BOS and a keys 0: its output there is 1 (some b key) or 0 (none),
    two values, not one (recorded values_at_bos, audited); the FFN maps them to {0, 1}, so the margin at that row
    is 1/2 although other rows may sit on θ.  Control: without the t_b key term the BOS row is uniform over every
    key (any share of b), and no BOS values are claimed."""
    path = ROOT / "tests" / "fixtures" / "outside" / "bos-row-two-possible-values.json"
    model = load_model(path)
    st = analyse(model)
    assert st.coords[1]["w0"].bos_fin == {0, 1} and st.coords[2]["out"].bos_fin == {0, 1}
    _certified_checked_audited(model)
    data = json.loads(path.read_text())
    data["layers"][0]["heads"][0]["score"] = data["layers"][0]["heads"][0]["score"][1:]
    control = analyse(model_from_dict(data))
    assert control.coords[1]["w0"].bos_fin is None and control.coords[1]["w0"].at_bos is None


def test_a_joint_row_only_bos_has_marks_the_bos_key():
    """No input symbol has t_a = t_b = 0, so that class is the BOS key alone: the BOS row's head averages
    it with m a keys, a/(a+1) (L-bos-level family 1 − 1/k), never 3/8, where the ramps would put the
    output on θ; with a symbol sharing BOS's row the class may hold many keys and nothing is known."""
    path = Path(__file__).parent / "fixtures" / "outside" / "bos-row-mean-of-a-keys.json"
    model = load_model(path)
    st = analyse(model)
    means, families = maxima_outputs(model.layers[0].heads[0], st.coords[0], st.joint[0], st.first)
    assert not means and (Fraction(1), Fraction(-1)) in families["w0"][1]
    _certified_checked_audited(model)
    data = json.loads(path.read_text())
    data["alphabet"].append("c")
    data["embed"]["token"]["c"] = {}
    shared = model_from_dict(data)
    st = analyse(shared)
    assert maxima_outputs(shared.layers[0].heads[0], st.coords[0], st.joint[0], st.first) == ({}, {})


def test_levels_below_the_bos_key_under_a_falling_position_term_are_never_maximal():
    """−i/(n+1) falls from the BOS key's position 0, and the BOS key is on the top level of the token
    terms: every other key scores below it, so the head outputs BOS's value 0.  With +i/(n+1) later
    keys can beat BOS and the value set keeps 1/2 and 1."""
    path = Path(__file__).parent / "fixtures" / "outside" / "bos-on-top-of-falling-position.json"
    model = load_model(path)
    st = analyse(model)
    means, _ = maxima_outputs(model.layers[0].heads[0], st.coords[0], st.joint[0], st.first)
    assert means == {"w0": frozenset({Fraction(0)})}
    _certified_checked_audited(model)
    data = json.loads(path.read_text())
    data["layers"][0]["heads"][0]["score"][0] = ["one", "p", 1]
    rising = model_from_dict(data)
    st = analyse(rising)
    means, _ = maxima_outputs(rising.layers[0].heads[0], st.coords[0], st.joint[0], st.first)
    assert len(means["w0"]) > 1


def test_the_first_row_of_causal_heads_is_computed_from_its_symbol():
    """Output at the first row and every head causal: that row sees only itself, so its hard output is
    a function of its symbol (here 0 for both), computed exactly — margin 1/2 against θ = 1/2, for every
    n (the tail too); against θ = 0 it sits on the threshold, where soft = hard = θ exactly (the row sees only
    itself), so it is certified with error 0 and holds by brute force."""
    path = Path(__file__).parent / "fixtures" / "outside" / "first-row-causal-heads.json"
    model = load_model(path)
    assert first_row_values(model) == frozenset({Fraction(0)})
    _certified_checked_audited(model, n_max="inf")
    data = json.loads(path.read_text())
    data["output"]["threshold"] = "0"
    on_theta = _certified_checked_audited(model_from_dict(data), n_max=1000)
    assert all(b["error_upper"] == "0" for b in on_theta.certificate["boxes"])
    alternating = load_model(path.parent / "first-row-alternating-pe.json")  # PE (-1)^i, −1 at the first row
    assert first_row_values(alternating) == frozenset({Fraction(0), Fraction(1)})  # its own t_a, rounded
    _certified_checked_audited(alternating, n_max="inf")
    over_n = load_model(path.parent / "first-row-position-over-n.json")  # PE i/n: 1/n at the first row
    assert first_row_values(over_n) is None
    _certified_checked_audited(over_n, n_max=10 ** 6)


def test_a_head_output_read_jointly_with_the_token_and_the_own_key_on_top():
    """At an a row, h0's own key is on the top token level and latest (2i/n rises), so it beats every other
    key: w0 = 0 at a rows, only b rows may carry 1/2 or 1 — joint values the next head needs (without
    the row's own key h0's a rows could output 1/2, and h1's output is not known to be 0 or 1)."""
    path = Path(__file__).parent / "fixtures" / "outside" / "own-key-on-top-of-rising-position.json"
    model = load_model(path)
    joint = analyse(model).joint[1]
    assert set(joint.project(["t_a", "w0"])) == {(1, 0), (0, 0), (0, Fraction(1, 2)), (0, 1)}
    _certified_checked_audited(model)
    data = json.loads(path.read_text())
    for head in data["layers"][0]["heads"]:
        head["visible"] = "j<i"  # the row no longer sees its own key
    assert (1, Fraction(1, 2)) in analyse(model_from_dict(data)).joint[1].project(["t_a", "w0"])


def test_query_values_only_the_bos_row_has_see_no_key_under_j_before_i():
    """t_a = t_b = 0 only at the BOS row, which sees no key under j<i: that query adds 0 instead of a tie
    of every class (0 and 1 mixed); under visible "all" the same query value averages the whole row."""
    path = Path(__file__).parent / "fixtures" / "outside" / "bos-query-row-sees-nothing.json"
    model = load_model(path)
    st = analyse(model)
    assert maxima_outputs(model.layers[0].heads[0], st.coords[0], st.joint[0], st.first)[1]["w0"]
    _certified_checked_audited(model)
    data = json.loads(path.read_text())
    data["layers"][0]["heads"][0]["visible"] = "all"
    everything = model_from_dict(data)
    st = analyse(everything)
    assert maxima_outputs(everything.layers[0].heads[0], st.coords[0], st.joint[0], st.first) == ({}, {})


def test_a_bos_key_sharing_its_class_with_an_input_symbol_keeps_its_value():
    """Under a strictly falling position term the BOS key beats every key j ≥ 1 of its own level, but its
    class is shared with c here (both embed to zeros): the level must keep that class's value (0), which
    is the output of every row with t_a = 0 — dropping the class (as for a BOS-only one) would claim {1}."""
    data = {"format": "hardsoft.model/1", "name": "bos-shares-a-class", "alphabet": ["a", "b", "c"], "bos": "$",
            "dims": ["one", "t_a", "t_b", "p", "w"],
            "embed": {"token": {"a": {"t_a": 1}, "b": {"t_b": 1}, "c": {}, "$": {}},
                      "position": {"one": "1", "p": "i/(n+1)"}},
            "layers": [{"type": "attention", "heads": [{
                "name": "h", "hard": "average", "visible": "all", "value": [["w", "t_a", 1]],
                "score": [["one", "p", -1], ["one", "t_a", -1], ["one", "t_b", -1], ["t_a", "t_a", 3]]}]}],
            "output": {"dim": "w", "position": "last", "threshold": "1/2"}}
    model = model_from_dict(data)
    st = analyse(model)
    means, _ = maxima_outputs(model.layers[0].heads[0], st.coords[0], st.joint[0], st.first)
    assert {hard_run(model, w).outputs[0] for w in (("b",), ("a",), ("c", "a"))} == {0, 1} <= means["w"]


def test_a_key_dim_the_query_weighs_by_zero_does_not_hide_exact_rows():
    """Query b weighs the position key by 0 and every key's token dims alike (each key scores 1): its rows
    are uniform, hence exact, although the head reads a position-embedded key dim; query a takes the
    BOS key (value 1/2).  So w0 is exact off {1/2}, and brute force agrees to 40 digits."""
    model = load_model(Path(__file__).parent / "fixtures" / "outside" / "query-weighs-position-by-zero.json")
    assert analyse(model).coords[1]["w0"].exact_unless == {Fraction(1, 2)}
    col = model.dims.index("w0")
    checked = 0
    for word in words_up_to(model.alphabet, 1, 7, budget=300, random_words=10, random_max=40, seed=3):
        hard, soft = hard_run(model, word), soft_run(model, word, parse_expr("1/n", variables=("n",)), dps=60)
        for h, sft in zip(hard.streams[1], soft.streams[1]):
            if h[col] != Fraction(1, 2):
                assert abs(_mp_fraction(sft[col]) - h[col]) < Fraction(1, 10**40), word
                checked += 1
    assert checked > 100


def _exact_rows_hold(data: dict, tau: str, words: int = 40, nearest: bool = False, tally: dict | None = None) -> int:
    """At every row whose hard value of a dim lies off that dim's ``exact_unless`` (or in ``exact_at``, or in none
    of its ``spans``), soft = hard to 40 digits (60-digit mpmath at ``tau``); at rows the dim claims soft ≤ hard
    (spans of side −1) or soft ≥ hard (side +1), that side: the facts the margin and the FFN error rely on, on
    the first ``words`` words; a dim claimed one soft value in a word (``soft_same``), that, and one hard value
    (``same_in_word``), that.  ``nearest``: the analysis with L-nearest-level, whose sides are claimed only at
    lengths where τ(n) meets every side condition e^{g/τ} ≥ (n + 1)·r (checked here in 60-digit mpmath); ``tally``
    counts those conditioned sides checked ("conditioned")."""
    from certify.kernel.structure import Unsupported

    model = model_from_dict(data)
    try:
        st = analyse(model, nearest=nearest)  # not L-ffn-absorb's claims: they hold only where a box bounds the error
    except Unsupported:
        return 0
    schedule = parse_expr(tau, variables=("n",))

    def met(c, n):  # every side condition of c holds at this length (with room: the check is in floating point)
        with mpmath.workdps(60):
            t = mpmath.mpf(eval_exact(schedule, {"n": n}).numerator) / eval_exact(schedule, {"n": n}).denominator
            return all(mpmath.mpf(g.numerator) / g.denominator / t > mpmath.log((n + 1) * mpmath.mpf(r.numerator) / r.denominator) + 1
                       for g, r in c.needs)

    def side(c, v, n):  # 0: exact, ±1: soft − hard has that sign (or is 0), None: no claim
        if c.exact_unless is not None and v not in c.exact_unless or v in c.exact_at:
            return 0
        if c.needs and not met(c, n):
            return None if c.spans and any(lo <= v <= hi for lo, hi, _ in c.spans) else 0
        if c.spans:
            sides = {s for lo, hi, s in c.spans if lo <= v <= hi}
            if not sides:
                return 0  # in no span: exact
            return sides.pop() or None if len(sides) == 1 else None  # a shared side, else no claim
        return None
    claims = [(k, model.dims.index(d), c) for k, coords in enumerate(st.coords) for d, c in coords.items()
              if c.exact_unless is not None or c.exact_at or c.spans]
    alike = [(k, model.dims.index(d)) for k, coords in enumerate(st.coords) for d, c in coords.items() if c.soft_same]
    same = [(k, model.dims.index(d)) for k, coords in enumerate(st.coords) for d, c in coords.items() if c.same_in_word]
    if not claims and not alike and not same:
        return 0
    checked = 0
    for word in list(words_up_to(model.alphabet, 1, 5, budget=words, random_words=4, random_max=14, seed=2)):
        hard, soft = hard_run(model, word), soft_run(model, word, schedule, dps=60)
        for k, col, c in claims:
            for h, s in zip(hard.streams[k], soft.streams[k]):
                claim = side(c, h[col], len(word))
                if claim is None:
                    continue
                with mpmath.workdps(60):
                    diff = s[col] - mpmath.mpf(h[col].numerator) / h[col].denominator
                assert (abs(diff) if claim == 0 else -claim * diff) < mpmath.mpf(10) ** -40, \
                    (data["name"], k, model.dims[col], word, claim)
                checked += 1
                if tally is not None and claim and c.needs:
                    tally["conditioned"] = tally.get("conditioned", 0) + 1
        for k, col in alike:  # L-word-constant (d): one soft value at every row
            values = [s[col] for s in soft.streams[k]]
            assert max(values) - min(values) < mpmath.mpf(10) ** -40, (data["name"], k, model.dims[col], word, "soft same")
            checked += 1
        for k, col in same:  # L-word-constant: one hard value at every row
            assert len({h[col] for h in hard.streams[k]}) == 1, (data["name"], k, model.dims[col], word, "same")
            checked += 1
    return checked


def test_rows_claimed_exact_are_exact_on_outside_models():
    """Every ``exact_unless``, ``exact_at``, side and span the structure states, on drawn models (both PE families, and the BOS key sharing
    its class with an input symbol) and every outside fixture, at a hot and a cold τ."""
    rng = random.Random(23)
    drawn = [random_model(rng, k, unbounded=k % 2 == 1) for k in range(16)]
    total = sum(_exact_rows_hold(data, tau) for data in drawn for tau in ("1", "1/(4*n^2)"))
    total += sum(_exact_rows_hold(_bos_like_a_symbol(data), "1") for data in drawn if data["bos"])
    for path in sorted((Path(__file__).parent / "fixtures" / "outside").glob("*.json")):
        total += _exact_rows_hold(json.loads(path.read_text()), "1")
    assert total > 1000


def test_a_convex_position_score_is_not_a_lookup():
    """Score +j² (α = −1 < 0): no vertex maximum, so L-lookup must not take the head (it did, and the
    derived shape came out negative: "τ(n) is not certainly positive"); the gap rule does (lattice step 1,
    the rightmost key), and the certificate holds by brute force.  A concave −j² stays a lookup."""
    path = Path(__file__).parent / "fixtures" / "outside" / "convex-position-score.json"
    model = load_model(path)
    assert analyse(model).facts[0][0].kind != "lookup"
    _certified_checked_audited(model)
    data = json.loads(path.read_text())
    data["layers"][0]["heads"][0]["score"] = [["one", "p", -1]]
    assert analyse(model_from_dict(data)).facts[0][0].kind == "lookup"


def test_class_offsets_off_the_position_step_never_tie():
    """Query b: 2(n − j) + t_b(j) + t_a(j)/2.  The offsets between classes (1/2, 1) are not multiples of the
    step 2, so keys never tie (L-maxima-classes (d)) and the head outputs one key's t_a: {0, 1}, not the
    means 1/3 and 1/2 of tying levels.  With a step of 1/2 an offset of 1/2 is a multiple: a tie is possible."""
    path = Path(__file__).parent / "fixtures" / "outside" / "position-step-off-the-offsets.json"
    model = load_model(path)
    assert analyse(model).coords[1]["w0"].fin == {Fraction(0), Fraction(1)}
    assert _rows_within_value_sets(json.loads(path.read_text()), 7) > 0
    _certified_checked_audited(model)
    data = json.loads(path.read_text())
    data["layers"][0]["heads"][0]["score"][0][2] = "1/2"
    assert analyse(model_from_dict(data)).coords[1]["w0"].fin != {Fraction(0), Fraction(1)}


def test_offsets_a_constant_fraction_of_the_step_apart_use_the_finer_lattice():
    """Score j + t_b(j)/2: b keys sit half a step up.  Off the lattice of step 1 (L-ziggurat refused the head,
    and the fallback's value set held 1/2 = θ) but on the lattice of step 1/2, where no two keys share a level:
    certified at a constant τ, checked, audited, brute-forced.  An offset that moves with n stays refused."""
    path = Path(__file__).parent / "fixtures" / "outside" / "offsets-half-a-step.json"
    model = load_model(path)
    fact = analyse(model).facts[0][0]
    assert fact.kind == "ziggurat" and eval_exact(fact.step, {"n": 7}) == Fraction(1, 2)
    _certified_checked_audited(model)
    data = json.loads(path.read_text())
    data["embed"]["position"]["p"] = "i/n"  # step 1/n: the offset 1/2 is n/2 steps, an integer for even n
    assert analyse(model_from_dict(data)).facts[0][0].kind != "ziggurat"


def _offset_model(rng: random.Random, k: int) -> dict:
    """One head scoring A·P(j) + class offsets that are often a fraction of the step A (aimed at the finer
    lattice of L-ziggurat and at L-maxima-classes (d)), unbounded P, BOS or not, every hard kind and visibility."""
    alphabet = ["a", "b", "c"][:rng.choice([2, 3])]
    bos = rng.random() < 0.5
    token = {s: {f"t_{s}": 1} for s in alphabet} | ({"$": {"t_bos": 1}} if bos else {})
    score = [["one", "p", rng.choice(["1", "-1", "2", "1/2", "-1/3"])]]
    for s in alphabet + (["bos"] if bos else []):
        if rng.random() < 0.7:
            score.append([rng.choice(["one"] + [f"t_{x}" for x in alphabet]), f"t_{s}",
                          rng.choice(["1/2", "1/3", "-1/2", "2/3", "3/2", "1", "-1/4"])])
    return {"format": "hardsoft.model/1", "name": f"offsets-{k}", "alphabet": alphabet, "bos": "$" if bos else None,
            "dims": ["one", "p"] + [f"t_{s}" for s in alphabet] + (["t_bos"] if bos else []) + ["w", "out"],
            "embed": {"token": token, "position": {"one": "1", "p": rng.choice(["i", "2*i+1", "n-i"])}},
            "layers": [{"type": "attention", "heads": [{
                "name": "h", "hard": rng.choice(["average", "average", "rightmost", "leftmost"]),
                "visible": rng.choice(["all", "j<=i", "j<i"]), "score": score,
                "value": [["w", f"t_{rng.choice(alphabet)}", 1]]}]},
                {"type": "ffn", "hidden": [{"in": {"w": 2}, "bias": "-1/2", "out": {"out": 1}},
                                           {"in": {"w": 2}, "bias": "-3/2", "out": {"out": -1}}]}],
            "output": {"dim": "out", "position": rng.choice(["last", "all"]), "threshold": "1/2"}}


def _offset_sweep(seed: int, count: int) -> tuple[int, int]:
    """(certificates, of them with a finer-lattice head)."""
    return rule_sweep(_offset_model, seed, count, 300,
                      lambda c: any("constant fraction" in h.get("lemma", "") for h in c["analysis"]["heads"]))


def test_offsets_off_the_step_sweep_holds_by_brute_force():
    certified, finer = _offset_sweep(3, 40)
    assert certified >= 10 and finer >= 2, (certified, finer)


@pytest.mark.slow
def test_offsets_off_the_step_sweep_large():
    certified, finer = _offset_sweep(4, 400)
    assert certified >= 100 and finer >= 15, (certified, finer)


def _two_keys_model(rng: random.Random, k: int) -> dict:
    """Two heads adding one selected key's value each into the output dim (aimed at L-two-keys): a token
    preference (mostly two different tokens, sometimes one) with a position tie-break, values ±P(j) (often
    opposite, so P₁ + P₂ is free of j) plus token offsets, thresholds on and off the reachable differences,
    BOS or not, average heads too; half of them through an FFN that is linear (c·ReLU(h) − c·ReLU(−h)) or
    almost (a twin with another bias or the same sign)."""
    alphabet = ["a", "b", "c"][:rng.choice([2, 3])]
    bos = rng.random() < 0.5
    token = {s: {f"t_{s}": 1} for s in alphabet} | ({"$": {"t_bos": 1}} if bos else {})
    sign = rng.choice([1, -1])
    heads, preferred = [], rng.sample(alphabet, 2) if rng.random() < 0.8 else [rng.choice(alphabet)] * 2
    for h in range(2):
        score = [["one", f"t_{preferred[h]}", 1], ["one", "p", rng.choice(["1/2", "-1/2", "1/4", "-1/3"])]]
        if bos and rng.random() < 0.5:
            score.append(["one", "t_bos", rng.choice(["1/4", "-1/4", "2", "1/2", "-1/2", "-1"])])  # at, above, below a class's best
        value = [["out", "p", str(sign * (1 if h == 0 else rng.choice([-1, -1, -1, 2])))]]
        value += [["out", f"t_{s}", rng.choice(["1", "-1", "2", "1/2"])] for s in alphabet if rng.random() < 0.3]
        heads.append({"name": f"h{h}", "hard": rng.choice(["leftmost", "rightmost", "average"]),
                      "visible": rng.choice(["all", "j<=i"]), "score": score, "value": value})
    layers, dims = [{"type": "attention", "heads": heads}], ["out"]
    if rng.random() < 0.5:  # through an FFN: c·ReLU(h) − c·ReLU(−h) = c·h, h = a₀x₀ + a₁x₁ + b, or a twin that breaks it
        dims = ["out", "x0", "x1"]
        for h, head in enumerate(heads):
            head["value"] = [[f"x{h}", x, c] for _, x, c in head["value"]]
        a0, ratio = Fraction(rng.choice([1, 2, -1])), Fraction(heads[0]["value"][0][2]) / Fraction(heads[1]["value"][0][2])
        a = {"x0": a0, "x1": -a0 * ratio if rng.random() < 0.8 else a0 * rng.choice([1, -2])}  # mostly P₁ + P₂ free of j
        b, c = Fraction(rng.choice([0, 0, 1, -2])) / 2, rng.choice([1, -1, 2])
        twin = {"in": {d: str(-w) for d, w in a.items()}, "bias": str(-b), "out": {"out": -c}}
        if rng.random() < 0.25:
            twin = rng.choice([{**twin, "bias": str(b + Fraction(1, 2))}, {**twin, "out": {"out": c}}])
        layers.append({"type": "ffn", "hidden": [{"in": {d: str(w) for d, w in a.items()}, "bias": str(b),
                                                  "out": {"out": c}}, twin]})
    return {"format": "hardsoft.model/1", "name": f"two-keys-{k}", "alphabet": alphabet, "bos": "$" if bos else None,
            "dims": ["one", "p"] + [f"t_{s}" for s in alphabet] + (["t_bos"] if bos else []) + dims,
            "embed": {"token": token, "position": {"one": "1", "p": rng.choice(["i/n", "i/(n+1)", "2*i/(n+1)"])}},
            "layers": layers,
            "output": {"dim": "out", "position": rng.choice(["first", "last", "all"]),
                       "threshold": rng.choice(["0", "0", "0", "1", "-1", "1/2", "2"])}}


def _two_keys_sweep(seed: int, count: int) -> tuple[int, int]:
    """(certificates, of them with an L-two-keys fact), each audited too."""
    return rule_sweep(_two_keys_model, seed, count, 120,
                      lambda c: any("never_equals" in f for f in c.get("facts", {}).get("coords", [])),
                      audit_len=5)  # a first-row certificate (L-first-row-exact) has no facts


def test_two_keys_sweep_holds_by_brute_force():
    certified, pairs = _two_keys_sweep(5, 40)
    assert pairs >= 4, (certified, pairs)


@pytest.mark.slow
def test_two_keys_sweep_large():
    certified, pairs = _two_keys_sweep(6, 300)
    assert pairs >= 25, (certified, pairs)


def test_two_keys_through_a_linear_ffn_and_below_the_bos_key():
    """Sortedness as out = ReLU(fb − la) − ReLU(la − fb) (literature fixture): the FFN is fb − la exactly, and
    the first-b head never selects an a (its best score 0 is below the BOS key's 1/4), so fb − la ≠ 0
    (L-two-keys) and the margin is 1/n.  Control: with the BOS key at −1 the head takes the first a of a
    word without b, and on 'a' fb = la = 1: no fact, not certified."""
    path = Path(__file__).parent / "fixtures" / "literature" / "sorted-first-b-last-a.json"
    model = load_model(path)
    assert analyse(model).coords[-1]["out"].avoids == 0
    _certified_checked_audited(model)
    data = json.loads(path.read_text())
    data["layers"][0]["heads"][0]["score"][2][2] = "-1"
    model = model_from_dict(data)
    assert hard_run(model, ("a",)).outputs[0] == 0
    assert analyse(model).coords[-1]["out"].avoids is None
    assert certify(model, 1, 100).verdict != "certified"


def test_two_heads_that_can_select_one_position_are_not_claimed_apart():
    """Control for L-two-keys: first b minus last b is 0 on a word with one b (one position, one row)."""
    data = json.loads((Path(__file__).parent / "fixtures" / "literature-independent" / "sorted-positions.json").read_text())
    data["layers"][0]["heads"][1]["score"][0][1] = "is_b"
    for head, sign in zip(data["layers"][0]["heads"], (1, -1)):
        head["value"] = [["out", "pos", sign]]  # no token offsets: y = (j₁ − j₂)/n, 0 on a word with one b
    model = model_from_dict(data)
    assert analyse(model).coords[-1]["out"].avoids is None
    assert certify(model, 1, 100).verdict != "certified"


ABSORB = [Path(__file__).parent / "fixtures" / "outside" / f for f in ("ffn-absorb-ramp.json", "ffn-absorb-ramp-unbounded.json")]


@pytest.mark.parametrize("path", ABSORB, ids=lambda p: p.stem)
def test_a_flat_rounding_ffn_absorbs_the_leak(path):
    """L-ffn-absorb: w + ReLU(4w − 1) − ReLU(4w − 2) − ReLU(w) is exactly 0 on [0, 1/4] and 1 on [1/2, 1]; the
    heads' soft outputs stay in [0, 1] (convex combinations of 0/1 values), so at the noisy values 0 and 1 the
    FFN is flat on the only side soft can reach and an error ≤ 1/4 leaves w exactly hard: later uniform rows
    are exact.  The plain analysis did not certify either model; the absorbing one does, recorded, checked,
    audited and brute-forced.  Since 2026-12-06 the unbounded one is certified without the rule (its rounded
    query is exact wherever it is 0, which keeps those rows uniform): the absorbing analysis still finds the
    radius there."""
    model = load_model(path)
    assert not any(not isinstance(f, tuple) and f.absorbs for f in analyse(model).facts)
    assert any(not isinstance(f, tuple) and f.absorbs for f in analyse(model, absorb=True).facts)
    outcome = _certified_checked_audited(model)
    absorbs = [a for f in outcome.certificate["analysis"]["ffns"] for a in f.get("absorbs", [])]
    assert all(a["lemma"] == "L-ffn-absorb" and Fraction(a["radius"]) > 0 for a in absorbs)
    assert absorbs or path.stem == "ffn-absorb-ramp-unbounded"


def test_absorption_needs_the_soft_hull_side_and_the_box_confirms_the_radius():
    """Controls: with soft values allowed below 0 the unit −ReLU(w) at its kink moves w by δ < 0 (slope 1 on
    the left): no claim; a hot τ whose leak may exceed the radius 1/4 fails the box instead of zeroing it."""
    from certify.kernel.bounds import BoxFailure, analyse_box
    from certify.kernel.structure import Coord, _absorbs
    model = load_model(ABSORB[0])
    ramp = model.layers[2]
    inside = Coord(fin=frozenset({Fraction(0), Fraction(1)}), exact_unless=frozenset({Fraction(0)}), soft=(Fraction(0), Fraction(1)))
    assert _absorbs(ramp, "w1", {"w1": inside}) == ("w1", "w1", Fraction(1, 4))
    assert _absorbs(ramp, "w1", {"w1": replace(inside, soft=(Fraction(-1), Fraction(1)))}) is None
    assert _absorbs(ramp, "w1", {"w1": replace(inside, exact_unless=frozenset({Fraction(1, 3)}))}) is None  # on the slope
    with pytest.raises(BoxFailure, match="within which the FFN keeps"):
        analyse_box(model, analyse(model, absorb=True), parse_expr("1000"), 50, 60)


def _absorb_sweep(seed: int, count: int) -> tuple[int, int]:
    """(certificates, of them with an L-ffn-absorb record) over outside-style random models, bounded and
    unbounded PE alternating, each audited and brute-forced."""
    return rule_sweep(lambda rng, k: random_model(rng, k, unbounded=bool(k % 2)), seed, count, 120,
                      lambda c: any("absorbs" in f for f in c["analysis"]["ffns"]), audit_len=5)


def test_absorb_sweep_holds_by_brute_force():
    certified, absorbed = _absorb_sweep(9, 30)
    assert certified >= 10 and absorbed >= 1, (certified, absorbed)


@pytest.mark.slow
def test_absorb_sweep_large():
    certified, absorbed = _absorb_sweep(10, 200)
    assert absorbed >= 4, (certified, absorbed)


def test_a_noisy_query_against_a_row_constant_key_keeps_uniform_rows_exact():
    """The second head's score n·(t_a − w0)(i) + ½·t_a(i)t_a(j): the first term is the same at every key (p = n),
    so w0's soft error shifts a whole row alike and the b rows, uniform under the second term, stay exact: at the
    word 'aaabbbb' (BOS first) #a/(n + 1) = 3/8 rounds onto θ = 1/2 and soft = θ = hard.  With a key that varies
    (p = i) the query's error reorders the row, and no exact row is claimed."""
    path = ROOT / "tests" / "fixtures" / "outside" / "row-constant-noisy-query.json"
    model = load_model(path)
    word = tuple("aaabbbb")
    assert hard_run(model, word).outputs[-1] == model.output.threshold
    with mpmath.workdps(80):
        assert abs(soft_run(model, word, Fraction(1, 100), dps=80).outputs[-1] - mpmath.mpf(1) / 2) < mpmath.mpf(10) ** -60
    _certified_checked_audited(model)
    data = json.loads(path.read_text())
    data["embed"]["position"]["p"] = "i"
    st = analyse(model_from_dict(data))
    assert st.coords[2]["w1"].exact_unless is None


def test_keys_below_the_bos_key_carry_no_output_and_a_scaled_injective_position_has_one_maximum():
    """Two value-set facts in one drawn model (seed 9 bounded, 38th).  h0 scores a keys ½, BOS 0, b keys −1 and
    averages t_b under j < i: a b key is never maximal (BOS is visible from every row that sees a key), so the output
    is 0, not {0, 1}.  h2 scores w1(i)·1/(j + 1): a row with w1 = 0 is uniform (exact), any other has one maximal
    key (1/(j + 1) is injective), so it may leak only where it carries one key's value t_b ∈ {0, 1}."""
    path = ROOT / "tests" / "fixtures" / "outside" / "below-bos-then-scaled-position.json"
    data = json.loads(path.read_text())
    st = analyse(model_from_dict(data), absorb=True)  # h1 reads w0 rounded: exact once its leak is absorbed
    assert st.coords[1]["w0"].fin == {0}
    assert st.coords[4]["w2"].exact_unless == {0, 1}
    no_bos = json.loads(path.read_text())
    no_bos["bos"] = None
    no_bos["dims"].remove("t_bos")
    no_bos["embed"]["token"].pop("$")
    for layer in no_bos["layers"]:
        for head in layer.get("heads", ()):
            head["score"] = [t for t in head["score"] if "t_bos" not in t]
    assert analyse(model_from_dict(no_bos)).coords[1]["w0"].fin == {0, 1}
    alternating = json.loads(path.read_text())
    alternating["embed"]["position"]["p"] = "(-1)^i"  # not injective: many keys share the maximum
    assert analyse(model_from_dict(alternating), absorb=True).coords[4]["w2"].exact_unless is None
    _certified_checked_audited(load_model(path))


def test_a_key_that_one_word_shares_shifts_every_row_alike():
    """h0 sees every key and scores b keys above a keys under every query (3 or 5/2 against 0): its maxima, so its
    output w0 (rounded: is there a b), are the same at every row of a word (L-word-constant).  h2 scores
    t_a(i)·w0(j): once w0 is exact the term adds one amount to a row, every row is uniform, and the prefix share
    of b, 1/2 at 'ab', puts the output on θ with soft = hard.  When h0's order depends on the query (a keys win
    for a queries, b keys for b queries) w0 differs between rows and nothing is dropped; a certificate that
    claims one value for a dim that varies fails the audit."""
    path = ROOT / "tests" / "fixtures" / "outside" / "word-constant-key.json"
    model = load_model(path)
    assert hard_run(model, tuple("ab")).outputs[-1] == model.output.threshold
    st = analyse(model, absorb=True)
    assert st.coords[2]["w0"].same_in_word and st.coords[4]["w0"].exact_unless == frozenset()
    h2 = st.facts[4][0]
    assert h2.kind == "uniform" and "L-word-constant" in h2.lemma
    outcome = _certified_checked_audited(model)
    assert any("same_at_every_row" in c for c in outcome.certificate["facts"]["coords"])
    forged = json.loads(json.dumps(outcome.certificate))
    forged["facts"]["coords"].append({"after_layers": 6, "dim": "w2", "same_at_every_row": {"lemma": "L-word-constant"}})
    failure = audit(forged, model, max_len=4).failure
    assert failure is not None and failure.fact.endswith("same_at_every_row")
    data = json.loads(path.read_text())
    data["layers"][0]["heads"][0]["score"] = [["t_a", "t_a", 1], ["t_b", "t_b", 1]]
    st = analyse(model_from_dict(data), absorb=True)
    assert not st.coords[2]["w0"].same_in_word and st.facts[4][0].kind != "uniform"


def test_a_key_one_soft_value_in_a_word_shifts_soft_rows_alike_without_being_exact():
    """Drawn model (seed 17 bounded, 37th).  h0 sees every key with the query 'one': every row scores the keys with
    one vector, so w0 ("is there an a") is one soft value at every row as well as one hard value, though not exact
    (L-word-constant (d)).  h1 reads it as the key of a b query: the term shifts a row alike in soft too, so b rows
    are uniform and exact, and 'babbababb' puts the rounded share of a on θ with soft = hard.  Controls: h0 seeing
    only the prefix, or scoring with a query that differs between rows, makes w0 differ between rows in soft;
    nothing is dropped without charge, and a certificate claiming one soft value for a dim that varies fails the
    audit."""
    path = ROOT / "tests" / "fixtures" / "outside" / "soft-word-constant-key.json"
    model = load_model(path)
    assert hard_run(model, tuple("babbababb")).outputs[-1] == model.output.threshold
    st = analyse(model)
    w0 = st.coords[1]["w0"]
    assert w0.same_in_word and w0.soft_same and w0.exact_unless != frozenset()
    assert [k for _, k, _ in st.facts[1][0].shifts] == ["w0"]
    assert _exact_rows_hold(json.loads(path.read_text()), "1/(4*n)", words=60) > 0
    outcome = _certified_checked_audited(model)
    assert any("soft_same_at_every_row" in c for c in outcome.certificate["facts"]["coords"])
    assert any("row_shifts" in h for h in outcome.certificate["analysis"]["heads"])
    forged = json.loads(json.dumps(outcome.certificate))
    forged["facts"]["coords"].append({"after_layers": 2, "dim": "w1", "same_at_every_row": {"lemma": "L-word-constant"},
                                      "soft_same_at_every_row": {"lemma": "L-word-constant"}})
    failure = audit(forged, model, max_len=4).failure
    assert failure is not None and "same_at_every_row" in failure.fact
    for change in ({"visible": "j<=i"}, {"score": [["t_b", "t_b", 1], ["one", "t_b", -1], ["one", "t_a", "1/2"]]}):
        data = json.loads(path.read_text())
        data["layers"][0]["heads"][0].update(change)
        st = analyse(model_from_dict(data))
        assert not st.coords[1]["w0"].soft_same and not st.facts[1][0].shifts


def test_a_noisy_key_leaves_exact_the_rows_whose_query_weighs_it_by_zero():
    """Drawn model (seed 18 unbounded, 29th).  h0 gives w0 = t_a of the row's own key, inexact (earlier keys leak).
    h1 scores t_a(i)·w0(j): a rows weigh the noisy key (the a keys win, valued 1: soft ≤ hard, or every visible key
    is b, valued 0: exact), b rows weigh nothing and stay uniform and exact, so the prefix share of a, 3/8 at
    'aaabbbbbb', rounds onto θ with soft = hard.  Controls: every row weighing w0 keeps the claims true (checked on
    words); w0 as the value too leaves nothing exact."""
    path = ROOT / "tests" / "fixtures" / "outside" / "noisy-key-one-query.json"
    model = load_model(path)
    assert hard_run(model, tuple("aaabbbbbb")).outputs[-1] == model.output.threshold
    st = analyse(model)
    assert st.coords[1]["w0"].exact_unless == {0, 1}
    assert st.coords[2]["w1"].exact_unless == {1} and st.coords[2]["w1"].spans == {(1, 1, -1)}
    _certified_checked_audited(model)
    data = json.loads(path.read_text())
    data["layers"][1]["heads"][0]["score"] = [["one", "w0", 1]]
    assert _exact_rows_hold(data, "1/2", words=60) > 0
    data["layers"][1]["heads"][0]["value"] = [["w1", "w0", 1]]
    assert analyse(model_from_dict(data)).coords[2]["w1"].exact_unless is None


def test_a_bos_level_family_stays_joint_with_the_symbol_through_its_rounding_ffn():
    """Drawn model (seed 9 bounded, 30th).  h0 sees every key and scores a keys 2 − 1/(j + 1) under an a query,
    above BOS (−1/2) and b keys wherever they sit, and the row's own a key is visible: w0 = t_a at every row.
    h1 averages t_a over the b keys or, with none, over BOS and m a keys: 0 at b rows, 1 − 1/(m + 1) elsewhere
    (an L-bos-level family), which the FFN above rounds to {0, 1} — so the joint keeps (t_b = 1 ⇒ w1 = 0) and
    h2's b keys never tie the BOS key (1/2): h2 always selects BOS.  Controls: with the a keys' weight 1 the
    own key no longer outscores BOS (w0 may be 0 at a rows); without the family the joint loses w1."""
    path = ROOT / "tests" / "fixtures" / "outside" / "bos-level-joint-through-ffn.json"
    model = load_model(path)
    st = analyse(model, absorb=True)
    assert st.joint[1].project(["t_a", "w0"]) == [(0, 0), (1, 1)]
    assert "w1" not in st.joint[3].dims  # after h1: a family at a and BOS rows, kept for the FFN only
    assert st.joint[4].project(["t_b", "w1"]) == [(0, 0), (0, 1), (1, 0)]
    _certified_checked_audited(model)
    data = json.loads(path.read_text())
    data["layers"][0]["heads"][0]["score"][0][2] = 1
    assert (1, 0) in analyse(model_from_dict(data), absorb=True).joint[1].project(["t_a", "w0"])


def test_the_first_row_is_exact_under_a_head_that_sees_every_key_with_equal_scores_there():
    """Drawn model (seed 7 unbounded, 36th): the output is read at the first row, the BOS row.  h0 (j ≤ i) sees only
    BOS there: w0 = 0 exactly.  h1 sees every key with score w0(i)·t_b(j)/2 + 2·t_a(i)·t_a(j): at the BOS row
    both query factors are 0, so every key ties and the soft row is the uniform mean of exact values, and
    'bababab' puts the rounded mean of t_a on θ with soft = hard.  Controls: a query factor that is 1 at BOS
    (one) or a leftmost hard rule (one key where soft averages the tie) leaves the first row unproved."""
    path = ROOT / "tests" / "fixtures" / "outside" / "first-row-uniform-all-head.json"
    model = load_model(path)
    assert hard_run(model, tuple("bababab")).outputs[0] == model.output.threshold
    st = analyse(model, absorb=True)
    assert first_row_soft_exact(model, st)
    _certified_checked_audited(model)
    for change in ("one", "leftmost"):
        data = json.loads(path.read_text())
        head = data["layers"][1]["heads"][0]
        if change == "one":
            head["score"][0][0] = "one"
        else:
            head["hard"] = "leftmost"
        assert not first_row_soft_exact(model_from_dict(data), st), change  # (the coords are the same)


def test_a_query_factor_exact_where_it_is_0_keeps_those_rows_uniform():
    """Drawn model (seed 13 bounded, 14th).  h1 averages t_a over the a keys under an a query (1, leaking toward
    the other keys) and uniformly otherwise (exact): w1 is exact wherever it is not 1, 0 included.  h2 scores
    w1(i)·j/n: a row with w1 = 0 is uniform over exact values, any other has one maximal key (j/n is injective),
    so only a key's t_b ∈ {0, 1} may be noisy.  Control: when b queries attend the b keys (t_b·t_b), w1 = 0 leaks
    at b rows and nothing is claimed."""
    path = ROOT / "tests" / "fixtures" / "outside" / "zero-query-scaled-position.json"
    model = load_model(path)
    st = analyse(model, absorb=True)
    assert st.coords[2]["w1"].exact_unless == {1} and st.coords[3]["w2"].exact_unless == {0, 1}
    _certified_checked_audited(model)
    data = json.loads(path.read_text())
    data["layers"][1]["heads"][0]["score"].append(["t_b", "t_b", 1])
    st = analyse(model_from_dict(data), absorb=True)
    assert 0 in st.coords[2]["w1"].exact_unless and st.coords[3]["w2"].exact_unless is None


def test_a_uniform_head_under_a_noisy_zero_query_claims_no_exact_rows():
    """Regression (seed 7 unbounded, 21st; an unsound certificate for an hour of 2026-12-06): h0 always selects
    BOS, so w0 = 0 in hard, but soft w0 leaks toward the b keys.  h2 scores w0(i)·(n − j): uniform in hard (its
    query is always 0), not in soft, so its rows are not exact (at 'aba' soft w2 = 0.33333305… against 1/3) and a
    certificate with error 0 on θ would be wrong.  The structure claims no exact rows for w2, and whatever certify
    returns holds by brute force."""
    path = ROOT / "tests" / "fixtures" / "outside" / "uniform-under-noisy-zero-query.json"
    model = load_model(path)
    st = analyse(model, absorb=True)
    assert st.facts[2][0].kind == "uniform" and 0 in st.coords[2]["w0"].exact_unless
    assert st.coords[3]["w2"].exact_unless is None
    outcome = certify(model, 1, 1000, cfg=CertifyConfig(refute=False))
    if outcome.verdict == "certified":
        words = words_up_to(model.alphabet, 1, 7, budget=600, random_words=20, random_max=60, seed=2)
        assert_certificate_holds(model, outcome.certificate["claim"], words)


def test_an_output_at_the_end_of_its_values_is_exact_under_a_noisy_query():
    """Seed 13 bounded, 21st model (not proved before).  h0 selects the row's own symbol (w0 = t_a, noisy in soft);
    h1 sees every key with score −w0(i)·t_a(j) and outputs the b share of its maxima: under either query value
    the b keys (value 1) score at least as high as the a keys (value 0), so a hard w1 of 0 means no b key is
    visible and soft w1 is 0 too, whatever w0's error (L-extreme-exact).  h2 scores w1(i)·t_a(j): its rows with
    w1 = 0 are uniform and exact, the others carry one key's value, 1 (0 only where no a key is visible, exact by
    the same lemma), so the rounding FFNs keep a margin at every row that may leak.  With h1's sign flipped the a keys win under an a query, a hard 0 sits next to
    visible b keys and leaks: the kernel claims 0 no more, and a forged claim fails the audit."""
    path = ROOT / "tests" / "fixtures" / "outside" / "extreme-value-exact.json"
    model = load_model(path)
    st = analyse(model, absorb=True)
    w1 = st.coords[2]["w1"]
    assert w1.fin is None and w1.exact_unless is None and w1.exact_at == {0}
    assert st.coords[3]["w2"].exact_unless == {1}  # 0 is exact too: the a keys (value 1) never score below b keys
    col = model.dims.index("w1")
    soft = soft_run(model, tuple("aaaa"), parse_expr("1"), dps=60)  # w0 ≈ 1 − ε at every row, w1 = 0 exactly
    assert all(hard_run(model, tuple("aaaa")).streams[2][r][col] == 0 and row[col] == 0
               for r, row in enumerate(soft.streams[2]))
    outcome = _certified_checked_audited(model)
    assert any(c.get("exact_at", {}).get("lemma") == "L-extreme-exact" for c in outcome.certificate["facts"]["coords"])
    forged = json.loads(json.dumps(outcome.certificate))
    entry = next(c for c in forged["facts"]["coords"] if "exact_at" in c)
    entry["exact_at"]["values"] = ["0", "1"]  # w1 = 1 at an a row with a b key: the b keys win only in hard
    failure = audit(forged, model, max_len=4).failure
    assert failure is not None and failure.fact.endswith("exact_at")
    flipped = json.loads(path.read_text())
    flipped["layers"][1]["heads"][0]["score"] = [["w0", "t_a", 1]]
    flipped_model = model_from_dict(flipped)
    assert 0 not in analyse(flipped_model, absorb=True).coords[2]["w1"].exact_at
    hard = hard_run(flipped_model, tuple("ab")).streams[2][0][col]  # the a row: its a key wins in hard
    leak = soft_run(flipped_model, tuple("ab"), parse_expr("1"), dps=60).streams[2][0][col]
    assert hard == 0 and leak > mpmath.mpf(10) ** -3


def test_a_level_of_several_values_leaks_to_the_side_of_its_lower_keys():
    """Seed 14 bounded, 32nd model (not proved before): one head, j<i, scores −t_c(i)·t_a(j) + 2·t_b(i)·p(j), value
    t_b.  A c row averages its earlier b and c keys (a mixed level) above its a keys, which carry 0: under exact
    scores the soft output is (1 − λ)·hard + λ·0 ≤ hard (L-one-sided), so at 'bcac', where the hard output is
    exactly θ = 1/2, soft stays below θ and decides False as hard does; the rows above θ keep a margin from the
    output's denominator bound.  With the a keys carrying 1 the leak goes up, over θ: the span's side is +1, a
    hard 1/2 is undecided, and the model is not certified.  A certificate whose span claims the wrong side fails the audit."""
    path = ROOT / "tests" / "fixtures" / "outside" / "one-sided-majority.json"
    model = load_model(path)
    out = analyse(model).coords[-1]["out"]
    assert out.exact_unless is None and (Fraction(0), Fraction(1), -1) in out.spans
    assert hard_run(model, tuple("bcac")).outputs == (Fraction(1, 2),)
    assert soft_run(model, tuple("bcac"), parse_expr("1"), dps=60).outputs[0] < mpmath.mpf(1) / 2
    outcome = _certified_checked_audited(model)
    forged = json.loads(json.dumps(outcome.certificate))
    entry = next(c for c in forged["facts"]["coords"] if "noisy_spans" in c and c["dim"] == "w0")
    entry["noisy_spans"]["spans"] = [[lo, hi, 1 if side == -1 else side] for lo, hi, side in entry["noisy_spans"]["spans"]]
    failure = audit(forged, model, max_len=4).failure
    assert failure is not None and failure.fact.endswith("noisy_spans")
    data = json.loads(path.read_text())
    data["layers"][0]["heads"][0]["value"] = [["w0", "t_b", 1], ["w0", "t_a", 1]]
    upward = model_from_dict(data)
    assert (Fraction(0), Fraction(1), 1) in analyse(upward).coords[-1]["out"].spans  # soft ≥ hard: θ rows undecided
    assert soft_run(upward, tuple("bcac"), parse_expr("1/(4*n)"), dps=60).outputs[0] > mpmath.mpf(1) / 2
    assert certify(upward, 1, 1000, cfg=CertifyConfig(refute=False)).verdict != "certified"


def test_a_uniform_row_tilted_by_a_query_error_of_known_sign():
    """Seed 9 bounded, 4th model (not proved before).  h2 scores w1(i)·t_a(j) and averages t_b: where w1 is 0 in hard
    every row is uniform, but soft w1 leaks above 0 (0 is the low end of its soft hull), so the a keys, which
    carry 0, weigh more and the soft mean falls below the hard one (L-one-sided, Chebyshev's sum inequality).
    At 'baabaabaabaaba' the hard output at position 8 is exactly θ = 1/2 and soft stays below it.  Averaging
    t_a instead, the tilt raises the mean, the span's side is +1 and the model is not certified."""
    path = ROOT / "tests" / "fixtures" / "outside" / "tilted-uniform-row.json"
    model = load_model(path)
    assert (Fraction(0), Fraction(1), -1) in analyse(model).coords[4]["w2"].spans
    word = tuple("baabaabaabaaba")
    assert hard_run(model, word).outputs[7] == Fraction(1, 2)
    assert soft_run(model, word, parse_expr("1"), dps=60).outputs[7] < mpmath.mpf(1) / 2
    col = model.dims.index("w2")  # the side is real: at τ = 1 soft w2 is visibly below hard at that row
    hard_w2 = hard_run(model, word).streams[4][7][col]
    assert soft_run(model, word, parse_expr("1"), dps=60).streams[4][7][col] < mpmath.mpf(hard_w2.numerator) / hard_w2.denominator - mpmath.mpf(10) ** -3
    _certified_checked_audited(model)
    data = json.loads(path.read_text())
    data["layers"][3]["heads"][0]["value"] = [["w2", "t_a", 1]]
    raised = model_from_dict(data)
    assert (Fraction(0), Fraction(1), 1) in analyse(raised).coords[4]["w2"].spans
    assert certify(raised, 1, 1000, cfg=CertifyConfig(refute=False)).verdict != "certified"


def test_quadratic_position_steps_larger_than_the_class_levels_never_tie():
    """Drawn model (seed 18 unbounded, 38th).  h0 (j < i, keys from 1) scores 2·j² + 2·t_a(j) − t_b(i)·t_a(j):
    class levels at most 2 apart, while 2·j² moves by at least 2·(2² − 1²) = 6 between two keys, so the maximum
    is the latest key alone (L-maxima-classes (e)) and w0 ∈ {0, 1}: never the 1/2 that rounds onto θ.  Control:
    weight 2/3 makes the smallest step 2, a tie: 1/2 is in the value set, and a word reaches it."""
    path = ROOT / "tests" / "fixtures" / "outside" / "quadratic-steps-never-tie.json"
    model = load_model(path)
    assert analyse(model).coords[1]["w0"].fin == {0, 1}
    _certified_checked_audited(model)
    data = json.loads(path.read_text())
    data["layers"][0]["heads"][0]["score"][0][2] = "2/3"
    control = model_from_dict(data)
    assert Fraction(1, 2) in analyse(control).coords[1]["w0"].fin
    assert Fraction(1, 2) in hard_run(control, tuple("aba")).outputs


def test_the_bos_key_above_every_hull_of_the_other_keys_is_the_maximum_alone():
    """Drawn model (seed 17 bounded, 38th).  h1 scores −t_b(j) − w0(j) − t_a(i)·t_b(j) + t_bos(j)/2 with w0 (a
    rounded mean) known only by its hull [0, 1]: every non-BOS key scores ≤ 0 < 1/2, the BOS key's score (w0 = 0
    there), so BOS is the maximum alone and w1 = t_b(BOS) = 0 at every row (L-bos-level over hulls).  Control:
    without the BOS term the b-free keys may tie BOS and nothing is known."""
    path = ROOT / "tests" / "fixtures" / "outside" / "bos-above-hull-keys.json"
    model = load_model(path)
    assert analyse(model).coords[3]["w1"].fin == {0}
    assert _exact_rows_hold(json.loads(path.read_text()), "1/(4*n)", words=60) > 0
    _certified_checked_audited(model)
    data = json.loads(path.read_text())
    data["layers"][2]["heads"][0]["score"][3][2] = "0"
    assert analyse(model_from_dict(data)).coords[3]["w1"].fin is None


def test_a_first_key_that_outscores_every_later_key_is_one_value_in_the_word():
    """Drawn model (seed 18 unbounded, 19th).  h0 (j ≤ i) scores −j²: the first key wins at every row
    (L-word-constant (e)), so w0 = t_a(1) is one value in the word, exact once rounded; h2 reads it as its only
    key, a row shift, so h2 is uniform and exact: the share of b (3/8 rounds onto θ) decides with soft = hard.
    Controls: a rising +j² picks each row's own key; a class term 4·t_a outweighs the first step 3 ('ba':
    w0 = 0, then 1), and neither is claimed one value in the word."""
    path = ROOT / "tests" / "fixtures" / "outside" / "first-key-alone.json"
    model = load_model(path)
    assert analyse(model).coords[1]["w0"].same_in_word
    assert _exact_rows_hold(json.loads(path.read_text()), "1/(4*n)", words=60) > 0
    outcome = _certified_checked_audited(model)
    assert any(c.get("dim") == "w0" and "same_at_every_row" in c for c in outcome.certificate["facts"]["coords"])
    for score in ([["one", "p", 1]], [["one", "p", -1], ["one", "t_a", 4]]):
        data = json.loads(path.read_text())
        data["layers"][0]["heads"][0]["score"] = score
        assert not analyse(model_from_dict(data)).coords[1]["w0"].same_in_word
    control = model_from_dict(data)
    w0 = control.dims.index("w0")
    assert [row[w0] for row in hard_run(control, tuple("ba")).streams[1]] == [0, 1]


def test_a_class_below_the_own_key_by_more_than_the_position_spread_is_never_maximal():
    """Drawn model (seed 19 bounded, 22nd).  h0 (j ≤ i) scores t_b(j) − j/(n + 1) under a b query: the row's own b
    key (visible) beats every a key, since −j/(n + 1) moves by less than 1 between two keys the row sees
    (L-maxima-classes (b)); likewise under an a query: so w0 = t_b at every row, joint with the symbol, and h1's
    levels (w0 = 1: b keys, valued t_a = 0) carry one value each.  Control: slope −2/(n + 1) spans more than 1
    ('aaab': the first a outscores the own b key at row 4), and the joint no longer ties w0 to t_b."""
    path = ROOT / "tests" / "fixtures" / "outside" / "own-key-beyond-the-position-spread.json"
    model = load_model(path)
    assert analyse(model).joint[1].project(["t_b", "w0"]) == [(0, 0), (1, 1)]
    assert _rows_within_value_sets(json.loads(path.read_text()), 7) > 0
    _certified_checked_audited(model)
    data = json.loads(path.read_text())
    data["layers"][0]["heads"][0]["score"][2][2] = -2
    control = model_from_dict(data)
    assert (1, 0) in analyse(control).joint[1].project(["t_b", "w0"])
    assert hard_run(control, tuple("aaab")).streams[1][3][control.dims.index("w0")] == 0


def test_a_key_of_one_hard_value_is_no_soft_shift_at_the_first_row():
    """Drawn model (seed 10, 78th, from the slow absorb sweep).  The output is read at the BOS row, where h2 sees
    every key with score w1(j)/2; w1 is 0 at every row in hard, but its soft value leaks (0.33 at n = 2 under a
    hot τ) and differs between keys, so the BOS row's soft mean is not the uniform hard one.  The first row is
    not soft-exact (it was when a key of one hard value counted as a soft shift: error 0 recorded, and the
    audit found 5.9e-5 at 'ba'); the certificate charges the error and holds."""
    from certify.kernel.structure import first_row_soft_exact

    path = ROOT / "tests" / "fixtures" / "outside" / "first-row-key-one-hard-value.json"
    model = load_model(path)
    assert not first_row_soft_exact(model, analyse(model))
    _certified_checked_audited(model, n_max=120)


def test_the_bos_row_output_of_a_head_seeing_every_key_from_its_own_query():
    """Drawn model (seed 17 bounded, 0th).  The output is read at the BOS row; h1 sees every key and, at the BOS
    row's own query values (t_a = t_b = w0 = 0), scores the BOS key 1/2 and every other key 0: BOS is the maximum
    alone, so w1 = t_c(BOS) = 0 there (L-maxima-classes at the BOS query, recorded value_at_bos), and the output's
    margin at that row is 1/2 although other rows may sit on θ.  Control: without the BOS term the BOS row is
    uniform ('c': w1 = 1/2, the output on θ) and no BOS value is claimed."""
    path = ROOT / "tests" / "fixtures" / "outside" / "bos-row-of-a-head-seeing-every-key.json"
    model = load_model(path)
    st = analyse(model)
    assert st.coords[3]["w1"].at_bos == 0 and Fraction(1, 2) in st.coords[3]["w1"].fin
    assert _rows_within_value_sets(json.loads(path.read_text()), 6) > 0
    _certified_checked_audited(model)
    data = json.loads(path.read_text())
    data["layers"][2]["heads"][0]["score"][3][2] = "0"
    control = model_from_dict(data)
    assert analyse(control).coords[3]["w1"].at_bos is None
    assert hard_run(control, ("c",)).outputs == (Fraction(1, 2),)


@pytest.mark.parametrize("stem", ["per-query-position-step", "modulus-equal-to-key-distance"])
def test_a_tiebreak_modulus_not_proved_apart_leaves_the_head_to_the_lattice(stem):
    """Drawn models (seed 20 bounded, 6th; seed 22 bounded, 9th).  L-tiebreak needs score/A ≡ ±j modulo an integer
    M(n) above the key distance on every row; here M = 2 (the query's own position step 3/(2n) is not A's 1/(2n))
    or M = n against a key distance of n at the last row.  The rule used to be proposed and then failed in every
    box ("the modulus M(n) is not certainly above the key distance"), ending the search; it is now proposed only
    when |M| > the key distance is proved for every n, so the lattice rule (L-gap) certifies both heads.
    Control: the shipped models keep their L-tiebreak heads (the certificate comparison in benchmarks/) and a
    distinct head's modulus is still checked in each box."""
    model = load_model(ROOT / "tests" / "fixtures" / "outside" / f"{stem}.json")
    outcome = _certified_checked_audited(model)
    heads = outcome.certificate["analysis"]["heads"]
    assert [h["kind"] for h in heads] == ["gap"] and "L-gap" in heads[0]["lemma"]


def test_a_query_factor_known_as_a_bos_level_family_bounds_the_gap_by_its_least_non_zero_value():
    """Drawn model (seed 21 bounded, 17th).  h0 averages t_a under scores t_b over j < i, so w0 is 0 (a b was seen)
    or 1 − 1/k (the BOS key and k − 1 a's tie: the family v + d/k of L-bos-level).  h2 scores −w0·t_b + t_b·t_b/2,
    one query factor w = t_b/2 − w0 against the key t_b: every non-zero gap is ≥ min |w| over w ≠ 0, which over the
    families 1/2 − 1 + 1/k and −1 + 1/k (k ≥ 1) is 1/6 (k = 3; w = 0 at k = 2 and k = 1 is a uniform row, exact).
    Recorded as the fact gamma_min_of = [1/6], audited on every word ≤ 7.  Control: a family tending to 0
    (w = d/k) has no least non-zero value, and such a query gives no gap."""
    model = load_model(ROOT / "tests" / "fixtures" / "outside" / "harmonic-query-factor.json")
    outcome = _certified_checked_audited(model)
    h2 = next(h for h in outcome.certificate["analysis"]["heads"] if h["head"] == "h2")
    assert h2["kind"] == "gap" and h2["query"] == "harmonic" and "L-bos-level" in h2["lemma"]
    gap = next(f for f in outcome.certificate["facts"]["heads"] if f.get("head") == "h2")
    assert [eval_exact(parse_expr(g, ("n",)), {"n": 7}) for g in gap["statements"][0]["gamma_min_of"]] == [Fraction(1, 6)]
    assert harmonic_distance((frozenset(), frozenset({(Fraction(0), Fraction(1))})), Fraction(0), off=True) == 0
    data = json.loads((ROOT / "tests" / "fixtures" / "outside" / "harmonic-query-factor.json").read_text())
    data["layers"][2]["heads"][0]["score"] = [["w0", "t_b", -1], ["one", "t_b", 1]]  # w = 1 − w0: 1 or 1/k
    outcome = certify(model_from_dict(data), 1, 10 ** 6, cfg=CertifyConfig(refute=False))
    assert outcome.verdict == "not proved" and any("'h2'" in b for b in outcome.blockers)


@pytest.mark.parametrize("seed", range(6))
def test_the_least_non_zero_distance_of_a_family_is_its_infimum(seed):
    """harmonic_distance(…, off=True) against enumeration: the least |v + d/k − θ| over k with v + d/k ≠ θ, or the
    limit |v − θ| (L-bos-level (b): k ↦ v + d/k is monotone)."""
    rng = random.Random(seed)
    for _ in range(200):
        v, d = Fraction(rng.randint(-6, 6), rng.randint(1, 4)), Fraction(rng.choice([-1, 1]) * rng.randint(1, 9), rng.randint(1, 4))
        theta = rng.choice([Fraction(0), v + d / rng.randint(1, 12), Fraction(rng.randint(-40, 40), rng.randint(1, 12))])
        points = frozenset(Fraction(rng.randint(-8, 8), rng.randint(1, 3)) for _ in range(rng.randint(0, 2))) | {theta}
        found = harmonic_distance((points, frozenset({(v, d)})), theta, off=True)
        enumerated = min([abs(v + d / k - theta) for k in range(1, 3000) if v + d / k != theta]
                         + [abs(p - theta) for p in points if p != theta])
        assert found <= enumerated and (found == enumerated or found == abs(v - theta))


def test_the_always_visible_bos_key_nearest_below_decides_the_side_of_the_leak_for_small_tau():
    """Drawn model (seed 22 bounded, 39th).  A query a scores keys −(−1)^j + t_a(j) + t_bos(j)/2: the a's at odd j on
    top, then the b's and c's at odd j (score 1), the a's at even j (0), the BOS key (−1/2, value 0) and the b's and
    c's at even j (−1).  When no a sits at an odd j, the maxima average t_b over the odd b's and c's: any μ in
    [0, 1], 3/8 at eight of them with three b's, which the rounding FFNs send exactly onto θ.  Below them the even
    b's carry 1 > μ, so L-one-sided leaves the side open; but they lie 2 below, BOS only 3/2 below with 0 < μ:
    for μ ≥ c = 1/16, e^{(1/2)/τ} ≥ (n + 1)·15 makes soft ≤ hard (L-nearest-level), which every box checks.
    The recorded side_conditions are audited through the spans on every word ≤ 7 and on the word that puts 3/8
    on θ.  Controls: at τ = 1/5 a box refuses the condition (and soft really crosses θ on that word there); with the
    BOS key moved below the even b's (−3/2) the rule does not apply and the model is not proved; a tampered
    condition is refused by the checker; the condition is checked box by box, so --nmax inf is not proved."""
    from certify.kernel.bounds import BoxFailure, analyse_box
    model = load_model(ROOT / "tests" / "fixtures" / "outside" / "nearest-level-bos-decides.json")
    outcome = _certified_checked_audited(model)
    spans = [c["noisy_spans"] for c in outcome.certificate["facts"]["coords"] if "noisy_spans" in c]
    assert spans and all(s["side_conditions"] == [["1/2", "15"]] and s["side_lemma"] == "L-nearest-level" for s in spans)
    on_theta = list("bbbbbbcbcbcbcbcba")  # odd positions b b b c c c c c (μ = 3/8), even ones b, then the query a
    assert hard_run(model, on_theta).outputs[-1] == Fraction(1, 2)
    assert assert_certificate_holds(model, outcome.certificate["claim"], [on_theta]) > 0
    hot = soft_run(model, on_theta, Fraction(1, 5), dps=60)
    assert hot.decisions[-1] and not hard_run(model, on_theta).decisions[-1]  # the leak's side flips at τ = 1/5
    st = analyse(model, absorb=True, nearest=True)
    with pytest.raises(BoxFailure, match="L-nearest-level"):
        analyse_box(model, st, parse_expr("1/5", ("n",)), 1, 1)
    data = json.loads((ROOT / "tests" / "fixtures" / "outside" / "nearest-level-bos-decides.json").read_text())
    data["layers"][0]["heads"][0]["score"][3][2] = "-1/2"  # BOS at −3/2, below the even b's
    assert certify(model_from_dict(data), 1, 10 ** 6, cfg=CertifyConfig(refute=False)).verdict == "not proved"
    tampered = json.loads(json.dumps(outcome.certificate))
    next(c for c in tampered["facts"]["coords"] if "noisy_spans" in c)["noisy_spans"]["side_conditions"] = [["1", "15"]]
    with pytest.raises(CheckFailure, match="facts"):
        check(tampered, model)
    assert certify(model, 1, "inf", cfg=CertifyConfig(refute=False)).verdict == "not proved"


def test_nearest_level_sides_hold_on_drawn_models_where_tau_meets_their_conditions():
    """The analysis with L-nearest-level on drawn models (both PE families) and the fixture: every exact row, side
    and span at τ = 1/(8n), the sides with conditions at the lengths where τ meets them (hot enough for a wrong
    side to show above 10⁻⁴⁰).  A sweep that checks no conditioned side fails."""
    rng = random.Random(29)
    drawn = [random_model(rng, k, unbounded=k % 2 == 1) for k in range(12)]
    path = ROOT / "tests" / "fixtures" / "outside" / "nearest-level-bos-decides.json"
    tally: dict = {}
    total = sum(_exact_rows_hold(data, "1/(8*n)", words=25, nearest=True, tally=tally) for data in drawn)
    assert total > 0
    assert _exact_rows_hold(json.loads(path.read_text()), "1/(8*n)", words=80, nearest=True, tally=tally) > 0
    assert tally.get("conditioned", 0) > 0, tally


def test_an_alternating_key_embedding_is_read_at_the_bos_row():
    """(-1)^i at a fixed row is ±1: the BOS row's score (which keys the BOS key keeps below it) substitutes i = 0
    into a key embedding (-1)^i.  Drawn by the claim campaign (seed 1016, model 8): certify stopped with
    "cannot substitute into (-1)^var" (exit 3, as if the model were invalid); it certifies, and the claim holds."""
    model = load_model(Path(__file__).parent / "fixtures" / "outside" / "alt-sign-key-at-the-bos-row.json")
    _certified_to_a_million_and_sound(model, words_up_to(model.alphabet, 1, 8, budget=600, random_words=10,
                                                         random_max=40, seed=5))


def test_alternating_sign_substitutes_only_at_integers():
    from certify.errors import ExprError
    from certify.expr import AltSign, Num, Var
    from certify.kernel.polyid import substitute
    assert [substitute(AltSign("i"), "i", Num(Fraction(k))) for k in (0, 1, 2, 7)] == \
        [Num(Fraction(1)), Num(Fraction(-1)), Num(Fraction(1)), Num(Fraction(-1))]
    for value in (Num(Fraction(1, 2)), Var("n")):
        with pytest.raises(ExprError):
            substitute(AltSign("i"), "i", value)

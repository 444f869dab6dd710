"""L-exhaustive on imported tracr models (issue 13): certified lengths are right on every word, refuted
lengths come with a word that really differs, and a perturbed model is never certified where it is wrong.

Every claim is brute-forced here with the independent evaluators (exact hard_run, mpmath soft_run), at
both ends of the certified τ interval and, for tracr's models, at tracr's irrational sqrt(K)/100.
"""
from __future__ import annotations

import copy
import itertools
import json
import random
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest

from certify.certifier import certify_exhaustive
from certify.evaluate import hard_run, soft_run
from certify.kernel.checker import CheckFailure, check
from certify.kernel.exhaustive import _Engine, check_length
from certify.length_report import confirmed, length_report
from certify.model import model_from_dict
from certify.tracr_import import convert, hard_decoded, load_export, tracr_temperature
from soundness import tampered
from test_user_json import validate

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "tracr"


def _load(name: str):
    export = load_export(FIXTURES / name)
    return export, model_from_dict(convert(export))


def _words(model, n: int):
    return itertools.product(model.alphabet, repeat=n)


@pytest.mark.parametrize("name, top", [("count_a-ab-5", 5), ("reverse-ab-5", 5), ("frac_prevs-ab-5", 5),
                                       ("sort-123-5", 4), ("shuffle_dyck1-pq-5", 5)])
def test_certified_lengths_decide_as_hard_on_every_word(name, top):
    export, model = _load(name)
    lo, hi = model.temperature_interval
    exact = tracr_temperature(export.spec)
    for n in range(1, top + 1):
        outcome = certify_exhaustive(model, n, lo, hi)
        assert outcome.verdict == "certified", outcome.reason
        check(outcome.certificate, model)
        for word in _words(model, n):
            hard = hard_run(model, word).decisions
            for tau in (lo, hi, exact):
                assert soft_run(model, word, tau, dps=40).decisions == hard, (n, word, tau)


def _bounds(model, n: int, tau: Fraction, words):
    engine = _Engine(model, n, tau, tau)
    tokens = np.array([[model.alphabet.index(s) for s in w] for w in words])
    ids, r, failed = engine.run(tokens)
    return engine, ids, r, failed


@pytest.mark.parametrize("name, n, tau", [("count_a-ab-5", 4, "1/5"), ("reverse-ab-5", 5, "1/20"),
                                          ("sort_freq-123-5", 4, "1/40"), ("shuffle_dyck2-pqbd-5", 3, "1/30"),
                                          ("hist-ab-5", 5, "1/8"), ("nary_mod3-012-5", 3, "1/40")])
def test_per_word_bounds_enclose_the_mpmath_soft_run(name, n, tau):
    """r ≥ |soft − hard| on every coordinate of every row after the last layer (hot τ: large errors)."""
    _, model = _load(name)
    tau = Fraction(tau)
    words = random.Random(1).sample(list(_words(model, n)), min(len(model.alphabet) ** n, 12))
    engine, ids, r, failed = _bounds(model, n, tau, words)
    checked = 0
    with mpmath.workdps(40):
        for b, word in enumerate(words):
            hard = hard_run(model, word).streams[-1]
            assert [tuple(row) for row in hard] == [engine.tables[-1].vectors[u] for u in ids[b]]  # exact hard runs
            if failed[b]:
                continue
            soft = soft_run(model, word, tau, dps=40).streams[-1]
            for p, row in enumerate(hard):
                for d, v in enumerate(row):
                    diff = abs(soft[p][d] - mpmath.mpf(v.numerator) / v.denominator)
                    assert diff <= r[b, p, engine.col[d]] + mpmath.mpf(10) ** -35, (word, p, model.dims[d])
                    checked += 1
    assert checked > 0


def test_a_refuted_length_has_a_word_that_really_differs():
    export, model = _load("reverse-ab-10")
    [verdict] = length_report(model, 10, 10, None, interval=model.temperature_interval)
    assert verdict.verdict == "refuted"
    word = tuple(verdict.word)
    exact = tracr_temperature(export.spec)
    assert confirmed(model, word, exact)
    assert soft_run(model, word, exact, dps=50).decisions != hard_run(model, word).decisions


def _scaled_scores(obj: dict, factor: Fraction) -> dict:
    out = copy.deepcopy(obj)
    for layer in out["layers"]:
        for head in layer.get("heads", []):
            head["score"] = [[q, k, str(Fraction(c) * factor)] for q, k, c in head["score"]]
    return out


@pytest.mark.parametrize("name, factor", [("count_a-ab-5", Fraction(1, 20)), ("reverse-ab-5", Fraction(1, 40)),
                                          ("reverse-ab-5", Fraction(1, 100))])
def test_a_perturbed_model_is_never_certified_where_soft_differs(name, factor):
    """Flatter scores at tracr's τ: soft decides differently on some word; that length is not certified."""
    export = load_export(FIXTURES / name)
    model = model_from_dict(_scaled_scores(convert(export), factor))
    lo, hi = model.temperature_interval
    wrong_lengths = set()
    for n in range(1, model.max_length + 1):
        wrong = [w for w in _words(model, n) if soft_run(model, w, hi, dps=30).decisions != hard_run(model, w).decisions]
        got = check_length(model, n, lo, hi)
        if wrong:
            wrong_lengths.add(n)
            assert not got.ok, (n, wrong[:3])
    assert wrong_lengths, "the perturbation must make soft differ somewhere (else the test proves nothing)"


def test_the_checker_reruns_and_rejects_edited_records():
    _, model = _load("hist-ab-5")
    lo, hi = model.temperature_interval
    cert = certify_exhaustive(model, 4, lo, hi).certificate
    assert check(cert, model).kernel_items == 1
    edits = [(("exhaustive", "lengths", 0, "margin_lower"), "0.99999999999"),
             (("exhaustive", "lengths", 0, "words"), 15),
             (("exhaustive", "lengths", 0, "error_upper"), "1e-30"),
             (("exhaustive", "tau_interval"), ["1/100", "1"]),
             (("claim", "tau"), "1/1000"),
             (("claim", "n_max"), 5)]
    for path, value in edits:
        with pytest.raises(CheckFailure):
            check(tampered(cert, path, value), model)


def test_certified_lengths_agree_with_tracrs_recorded_outputs():
    """At every length certified at tracr's τ, tracr's own recorded outputs are the hard model's."""
    for name in ("count_a-ab-10", "reverse-ab-10", "length-ab-10", "hist-ab-10"):
        export, model = _load(name)
        verdicts = length_report(model, 1, model.max_length, None, interval=model.temperature_interval)
        certified = {v.n for v in verdicts if v.verdict == "certified"}
        samples = [s for s in export.spec["samples"] if len(s["input"]) in certified]
        assert samples
        for s in samples:
            word = tuple(str(t) for t in s["input"])
            assert list(hard_decoded(model, export.spec, word)) == s["tracr_decoded"], (name, word)


def test_the_cli_writes_a_certificate_that_check_accepts(tmp_path, capsys):
    from certify.cli import main

    export, _ = _load("count_a-ab-5")
    path = tmp_path / "m.json"
    path.write_text(json.dumps(convert(export)))
    assert main([str(path), "--out", str(tmp_path / "c.json"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    validate("certify", out)
    validate("certificate", json.loads((tmp_path / "c.json").read_text()))
    assert out["verdict"] == "certified" and {v["rule"] for v in out["lengths"]} == {"L-exhaustive"}
    assert out["certificate"]["exhaustive"]["lengths"][-1]["words"] == 32
    assert main(["check", str(tmp_path / "c.json"), "--model", str(path), "--audit", "--random", "5", "--json",
                 "--quiet"]) == 0
    checked = json.loads(capsys.readouterr().out)
    validate("check", checked)
    assert checked["valid"] and checked["audit"]["passed"]

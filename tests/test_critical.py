"""Critical temperatures τ*(n) (certify.critical) and soft-versus-hard validation (certify.validate).

What is asserted: the search never reports a τ* below a certified τ (the model's proposed
temperature and the derived schedule, on every shipped model); τ* agrees with independent
measurements — the closed form 1/ln(n−1) of exists-b, and for since-a-b both the root of its
worst word's equation and a global bisection over a different word set with the independent
evaluator of tests/independent_spec.py; the Dask and in-process paths return identical
results; the fast exact evaluator equals the reference one.
"""
from __future__ import annotations

import json
import math
import random
from pathlib import Path

import mpmath
import pytest
from hypothesis import HealthCheck, given, settings

import independent_spec
from certify import api
from certify.cli import main
from certify.critical import CriticalJob, critical_point, sweep
from certify.evaluate import hard_run
from certify.expr import eval_mp
from certify.hard_fast import hard_run_fast
from certify.model import load_model, model_from_dict
from certify.words import WordSet, parse_word_set
from model_strategies import models, words
from test_user_json import validate as validate_schema

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted((ROOT / "models").glob("*.json")) + sorted((ROOT / "models" / "compiled").glob("*.json"))
# the default run takes the models that derive in seconds; the slow variant below takes all 18
LIGHT = [p for p in SHIPPED if not any(w in p.stem for w in ("dyck", "induction", "ahat"))]
EXISTS = ROOT / "models" / "exists-b.json"
SINCE = ROOT / "models" / "since-a-b.json"
QUICK = parse_word_set("adversarial,exhaustive:64")


def _ids(paths):
    return [str(p.relative_to(ROOT / "models")) for p in paths]


# ---------------------------------------------------------------- the fast exact evaluator

@pytest.mark.parametrize("path", SHIPPED, ids=_ids(SHIPPED))
def test_fast_hard_run_equals_the_reference_on_shipped_models(path):
    model = load_model(path)
    rng = random.Random(7)
    for n in (1, 2, 3, 5, 9, 17):
        for _ in range(3):
            word = [rng.choice(model.alphabet) for _ in range(n)]
            fast, ref = hard_run_fast(model, word), hard_run(model, word)
            assert fast.streams[-1] == ref.streams[-1] and fast.decisions == ref.decisions, word


@pytest.mark.parametrize("path", SHIPPED[::3], ids=_ids(SHIPPED[::3]))
def test_fast_hard_run_in_blocks_of_rows_equals_the_reference(path, monkeypatch):
    """Scores formed a few query rows at a time (as at n = 2^16) give the same exact run."""
    import certify.hard_fast as hf

    model = load_model(path)
    rng = random.Random(11)
    for n in (5, 17):
        word = [rng.choice(model.alphabet) for _ in range(n)]
        ref = hard_run(model, word)
        for entries in (1, 2 * (n + 1), 7 * (n + 1)):  # one row, two rows, seven rows a block
            monkeypatch.setattr(hf, "BLOCK_ENTRIES", entries)
            assert hard_run_fast(model, word).streams == ref.streams, (entries, word)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example])
@given(data=models().flatmap(lambda m: words(m, 1, 7).map(lambda w: (m, w))))
def test_fast_hard_run_equals_the_reference_on_random_models(data):
    raw, word = data
    model = model_from_dict(raw)
    assert hard_run_fast(model, word).streams == hard_run(model, word).streams


# ---------------------------------------------------------------- independent measurements

@pytest.mark.parametrize("n", [10, 40])
def test_exists_b_critical_temperature_is_one_over_log_n_minus_1(n):
    """One b among n − 1 a's: v = e^{1/τ}/(e^{1/τ} + n − 1) crosses 1/2 exactly at τ = 1/ln(n − 1)."""
    p = critical_point(load_model(EXISTS), n, QUICK)
    exact = 1 / math.log(n - 1)
    assert p.status == "bracketed" and p.confirmed
    assert p.tau_star < exact <= p.tau_above * (1 + 1e-9)
    assert abs(p.tau_star / exact - 1) < 0.05


def _since_closed_form(n: int) -> float:
    """since-a-b's worst words (rightmost p-key at n − 1 and the other n − 2 keys p with the opposite
    value) flip when Σ_{k=1}^{n−2} x^k = 1 for x = e^{−1/(2nτ)} (a-keys, e^{−1/(2τ)} smaller, neglected)."""
    x = mpmath.findroot(lambda x: sum(x ** k for k in range(1, n - 1)) - 1, 0.5)
    return float(-1 / (2 * n * mpmath.log(x)))


def _independent_scan(path: Path, n: int, word_list, steps: int = 14) -> float:
    """A global bisection on log τ of "every word agrees" with the independent evaluator."""
    raw = independent_spec.loads(path.read_text())

    def agree(tau: float) -> bool:
        text = repr(tau)
        return all(independent_spec.run(raw, w).decisions == independent_spec.run(raw, w, text, dps=40).decisions
                   for w in word_list)

    lo, hi = 0.25 / n, 4.0 / n
    assert agree(lo) and not agree(hi)
    for _ in range(steps):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if agree(mid) else (lo, mid)
    return lo


def test_since_a_b_agrees_with_the_closed_form_and_an_independent_scan():
    n = 8
    p = critical_point(load_model(SINCE), n, QUICK)
    assert p.status == "bracketed" and p.confirmed
    assert 0.7 / n <= p.tau_star <= 1.2 / n
    assert abs(p.tau_star / _since_closed_form(n) - 1) < 0.05
    rng = random.Random(2024)  # a different search: every {b, c} word of length n, plus random ones
    bc = [list(f"{k:0{n}b}".replace("0", "b").replace("1", "c")) for k in range(2 ** n)]
    scan = _independent_scan(SINCE, n, bc + [[rng.choice("abc") for _ in range(n)] for _ in range(20)])
    assert abs(p.tau_star / scan - 1) < 0.05


# ---------------------------------------------------------------- soundness against certificates

def _certified_schedules(model, n_max: int = 256) -> list:
    out = [model.temperature] if model.temperature is not None else []
    derived = api.certify_model(model, n_max=n_max, derive=True)
    assert derived.certified, derived.reason
    return out + [api.parse_schedule(derived.tau)]


def _assert_not_below_certified(path: Path, lengths, word_set: WordSet):
    model = load_model(path)
    schedules = _certified_schedules(model)
    for n in lengths:
        p = critical_point(model, n, word_set)
        assert p.status in ("bracketed", "agrees up to tau_max"), p
        if p.tau_above is None:  # no tried word disagrees below tau_max
            continue
        for tau in schedules:
            with mpmath.workdps(30):
                certified = float(eval_mp(tau, {"n": n}))
            # the witness disagrees at tau_above: a certified τ(n) at or above it would be unsound
            assert certified < p.tau_above, (path.name, n, certified, p)
            assert certified <= p.tau_star, (path.name, n, certified, p)


@pytest.mark.parametrize("path", LIGHT, ids=_ids(LIGHT))
def test_critical_temperature_is_never_below_a_certified_one(path):
    _assert_not_below_certified(path, (6, 16), QUICK)


@pytest.mark.slow
@pytest.mark.parametrize("path", SHIPPED, ids=_ids(SHIPPED))
def test_critical_temperature_is_never_below_a_certified_one_up_to_256(path):
    _assert_not_below_certified(path, (10, 64, 256), WordSet())


# ---------------------------------------------------------------- Dask, cache

def test_dask_and_in_process_paths_give_identical_results(tmp_path):
    distributed = pytest.importorskip("distributed")
    word_set = WordSet(adversarial=True, random=12, exhaustive=64, seed=5)
    jobs = [CriticalJob(load_model(EXISTS), 9, word_set), CriticalJob(load_model(SINCE), 7, word_set),
            CriticalJob(load_model(SINCE), 11, word_set)]
    local = sweep(jobs)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = sweep(jobs, client)
    assert remote == local
    assert [p.to_json() | {"seconds": 0} for p in remote] == [p.to_json() | {"seconds": 0} for p in local]


def test_cached_results_are_reused_and_keyed_by_the_word_set(tmp_path, monkeypatch):
    import certify.critical as critical

    job = CriticalJob(load_model(EXISTS), 8, QUICK)
    first = sweep([job], cache=tmp_path)
    computed = []
    monkeypatch.setattr(critical, "critical_point", lambda *args: computed.append(args) or first[0])
    assert sweep([job], cache=tmp_path) == first and computed == []
    other = CriticalJob(load_model(EXISTS), 8, WordSet(random=3, exhaustive=0))
    assert other.key() != job.key()
    sweep([other], cache=tmp_path)
    assert len(computed) == 1


# ---------------------------------------------------------------- the commands

def _json(capsys, *argv):
    rc = main([*map(str, argv), "--json", "--quiet"])
    return rc, json.loads(capsys.readouterr().out)


def test_validate_agrees_at_a_certified_tau_and_reports_disagreements_above_it(capsys):
    rc, ok = _json(capsys, "validate", SINCE, "--tau", "1/(4*n)", "--exhaustive", "4", "--random", "10", "--n", "12")
    validate_schema("validate", ok)
    assert rc == 0 and ok["agree"] and ok["words"] == {"exhaustive": 120, "random": ok["words"]["random"],
                                                       "adversarial": ok["words"]["adversarial"]}
    rc, bad = _json(capsys, "validate", SINCE, "--tau", "1", "--n", "8", "--precision", "float64")
    validate_schema("validate", bad)
    assert rc == 1 and not bad["agree"] and bad["disagreements"]
    d = bad["disagreements"][0]
    soft = api.evaluate(SINCE, d["word"], "1")  # every reported disagreement holds in mpmath
    assert soft.agree is False


def test_validate_needs_a_temperature_and_keeps_validate_model_working(capsys):
    rc, err = _json(capsys, "validate", SINCE)
    validate_schema("error", err)
    assert rc == 3 and err["error"]["where"] == "--tau"
    assert main(["validate-model", str(SINCE)]) == 0
    assert capsys.readouterr().out.startswith("valid: since-a-b")


def test_critical_command_json_and_cache(capsys, tmp_path):
    argv = ("critical", EXISTS, "--n", "10,12", "--words", "adversarial,exhaustive:64", "--cache", tmp_path,
            "--scheduler", "inprocess")
    rc, out = _json(capsys, *argv)
    validate_schema("critical", out)
    assert rc == 0 and [p["n"] for p in out["results"]] == [10, 12]
    assert all(p["tau_star"] < 1 / math.log(p["n"] - 1) <= p["tau_above"] for p in out["results"])
    assert len(list(tmp_path.glob("*.json"))) == 2
    assert _json(capsys, *argv)[1]["results"] == out["results"]  # from the cache


@pytest.mark.parametrize("argv, where", [(["critical", str(EXISTS), "--n", "0"], "--n"),
                                         (["critical", str(EXISTS), "--n", "8", "--words", "bogus"], "--words"),
                                         (["validate", str(SINCE), "--tau", "n^"], "--tau"),
                                         (["validate", str(SINCE), "--tau", "1", "--exhaustive", "-1"], "--exhaustive")])
def test_invalid_input_is_exit_3_naming_the_flag(capsys, argv, where):
    rc, err = _json(capsys, *argv)
    assert rc == 3 and err["error"]["where"] == where, err


# ---------------------------------------------------------------- word families

def test_adversarial_words_have_length_n_are_distinct_and_contain_the_boundary_cases():
    model = load_model(SINCE)
    from certify.words import adversarial_words

    ws = adversarial_words(model, 9)
    assert len(set(ws)) == len(ws) and all(len(w) == 9 for w in ws)
    assert tuple("bbbbbbbcb") in ws  # one differing symbol next to the end (since-a-b's witness)
    assert tuple("abbbbbbba") in ws  # a far match
    assert tuple("aaaabbbbb") in ws and tuple("aaaaabbbb") in ws  # balanced counts ± 1
    assert ws == adversarial_words(model, 9)


def test_word_sets_are_deterministic_and_named_by_their_description():
    model = load_model(SINCE)
    a = parse_word_set("adversarial,random:5", seed=3)
    assert a == WordSet(True, 5, 0, 3) and a.words(model, 12) == a.words(model, 12)
    assert a.describe() != WordSet(True, 5, 0, 4).describe()
    assert len(WordSet(False, 0, 3 ** 4).words(model, 4)) == 81  # exhaustive when |Σ|^n ≤ the limit

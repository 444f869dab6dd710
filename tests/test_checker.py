"""`certify check`: certificates of shipped models check valid; every kind of corruption is rejected."""
from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from certify.certifier import certify
from certify.kernel.checker import CheckFailure, check
from certify.model import load_model, model_from_dict
from certify.second_opinion import recheck_smt_obligations

ROOT = Path(__file__).resolve().parent.parent
SINCE = ROOT / "models" / "since-a-b.json"


@pytest.fixture(scope="module")
def since():
    model = load_model(SINCE)
    return model, certify(model, 1, 10**4).certificate


def rejected(cert: dict, model) -> bool:
    try:
        recheck_smt_obligations(cert, model, check(cert, model))
    except CheckFailure:
        return True
    return False


def test_certificate_checks_valid(since):
    model, cert = since
    result = check(cert, model)
    assert result.boxes == len(cert["boxes"]) > 0
    assert recheck_smt_obligations(cert) == [o["id"] for o in cert["obligations"] if o["kind"] == "second opinion"]


def _nudge(text: str, factor: str = "1.0001") -> str:
    from fractions import Fraction

    return str(float(Fraction(text) * Fraction(factor))) if Fraction(text) != 0 else "0.001"


def _mutations(cert: dict):
    """(name, mutate) pairs, one for every kind of item in a certificate."""
    mid = len(cert["boxes"]) // 2
    zig = next(k for k, h in enumerate(cert["analysis"]["heads"]) if h["kind"] == "ziggurat")

    def setter(path, value):
        def mutate(c):
            target = c
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = value(target[path[-1]]) if callable(value) else value
        return mutate

    yield "format", setter(["format"], "hardsoft.certificate/2")
    yield "model hash", setter(["model_sha256"], "0" * 64)
    yield "verdict", setter(["claim", "verdict"], "refuted")
    yield "n_max raised", setter(["claim", "n_max"], lambda v: v + 1)
    yield "n_max much higher", setter(["claim", "n_max"], lambda v: v * 10)
    yield "n_min changed", setter(["claim", "n_min"], 2)
    yield "tau times 1.01", setter(["claim", "tau"], lambda t: f"101/100*({t})")
    yield "tau unparsable", setter(["claim", "tau"], "__import__('os')")
    yield "error bound nudged", setter(["claim", "error_bound"], "0.001")
    yield "margin nudged", setter(["claim", "margin"], lambda m: _nudge(m))
    yield "box dropped", lambda c: c["boxes"].pop(mid)
    yield "first box dropped", lambda c: c["boxes"].pop(0)
    yield "box endpoint moved", setter(["boxes", mid, "n"], lambda n: [n[0], n[1] + 1])
    yield "box error nudged", setter(["boxes", mid, "error_upper"], "0.000001")
    yield "box margin nudged", setter(["boxes", mid, "margin_lower"], lambda m: _nudge(m))
    yield "box tau nudged", setter(["boxes", mid, "tau_lower"], lambda t: _nudge(t))
    yield "box leak nudged", lambda c: c["boxes"][mid]["leak_upper"].update(
        {k: _nudge(v, "0.99") for k, v in c["boxes"][mid]["leak_upper"].items()})
    yield "box exactness flipped", setter(["boxes", mid, "exact"], lambda e: not e)
    yield "head kind", setter(["analysis", "heads", zig, "kind"], "uniform")
    yield "head step doubled", setter(["analysis", "heads", zig, "step"], lambda s: f"2*({s})")
    yield "head offsets dropped", setter(["analysis", "heads", zig, "offsets"], lambda o: o[:1])
    yield "head lemma", setter(["analysis", "heads", zig, "lemma"], "L-gap")
    yield "head dropped", lambda c: c["analysis"]["heads"].pop()
    yield "final relation < to <=", lambda c: next(o for o in c["obligations"] if o["id"] == "final").update(
        relation="<=")
    yield "final statement", lambda c: next(o for o in c["obligations"] if o["id"] == "final").update(
        statement="error(n) <= margin(n) on every box")
    yield "final obligation dropped", lambda c: c.update(
        obligations=[o for o in c["obligations"] if o["id"] != "final"])
    yield "second opinion dropped", lambda c: c.update(
        obligations=[o for o in c["obligations"] if o["kind"] != "second opinion"])
    yield "smt2 weakened", lambda c: next(o for o in c["obligations"] if o["kind"] == "second opinion").update(
        smt2="(set-logic QF_LRA)\n(declare-const x Real)\n(assert (> x 0.0))\n(check-sat)\n")


MUTATIONS = [name for name, _ in _mutations({"boxes": [0, 1, 2], "analysis": {"heads": [{"kind": "ziggurat"}]}})]


@pytest.mark.parametrize("name", MUTATIONS)
def test_every_mutation_is_rejected(since, name):
    model, cert = since
    mutate = dict(_mutations(cert))[name]
    bad = copy.deepcopy(cert)
    mutate(bad)
    assert bad != cert
    assert rejected(bad, model), name


def test_model_weight_changed_is_rejected(since):
    model, cert = since
    data = json.loads(SINCE.read_text())
    data["layers"][0]["heads"][0]["score"][1][2] = "1/3"
    assert rejected(cert, model_from_dict(data))


def test_certificate_for_one_model_does_not_check_against_another(since):
    _, cert = since
    other = load_model(ROOT / "models" / "bos-first-a.json")
    with pytest.raises(CheckFailure) as info:
        check(cert, other)
    assert info.value.item == "model_sha256"


def test_cli_check_valid_and_invalid(tmp_path, since):
    model, cert = since
    good = tmp_path / "good.json"
    good.write_text(json.dumps(cert))
    run = subprocess.run([sys.executable, "-m", "certify.cli", "check", str(good), "--model", str(SINCE), "--json"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["valid"] is True
    bad_cert = copy.deepcopy(cert)
    bad_cert["claim"]["n_max"] += 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(bad_cert))
    run = subprocess.run([sys.executable, "-m", "certify.cli", "check", str(bad), "--model", str(SINCE)],
                         capture_output=True, text=True)
    assert run.returncode == 1
    assert run.stdout.startswith("invalid: ") and "n_max" in run.stdout


def _paths(node, prefix=()):
    if isinstance(node, dict):
        for key, value in node.items():
            yield prefix + (key,)
            yield from _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for k, value in enumerate(node[:3]):
            yield prefix + (k,)
            yield from _paths(value, prefix + (k,))


def test_deleting_or_retyping_any_item_is_a_check_failure_not_a_crash(since):
    """Every structural corruption is reported as a failing item (exit 1), never as a traceback."""
    model, cert = since
    for path in _paths(cert):
        if path[0] in ("tools",) or (path[0] == "obligations" and path[-1] not in ("id", "relation", "statement")):
            continue
        for replacement in (None, "x", [], {}):
            bad = copy.deepcopy(cert)
            target = bad
            for key in path[:-1]:
                target = target[key]
            if replacement is None:
                del target[path[-1]]
            else:
                if target[path[-1]] == replacement:
                    continue
                target[path[-1]] = replacement
            with pytest.raises(CheckFailure):
                check(bad, model)


def test_unbounded_claim_without_a_tail_only_for_all_uniform_models():
    uniform = load_model(ROOT / "models" / "majority-a-b.json")
    cert = certify(uniform, 1, "inf").certificate
    assert cert["claim"]["n_max"] == "inf" and cert["boxes"] == [] and "tail" not in cert
    assert check(cert, uniform).boxes == 0
    since = load_model(SINCE)
    assert "tail" in certify(since, 1, "inf").certificate  # a non-uniform head needs the tail walk (issue 16)
    forged = copy.deepcopy(cert)
    forged.update(model_sha256=since.sha256, model_name=since.name)
    with pytest.raises(CheckFailure):
        check(forged, since)


@pytest.fixture(scope="module")
def dyck():
    model = load_model(ROOT / "models" / "compiled" / "dyck-2-bounded.json")
    return model, certify(model, 1, 200).certificate


def _head_of_kind(cert: dict, kind: str) -> int:
    return next(k for k, h in enumerate(cert["analysis"]["heads"]) if h["kind"] == kind)


@pytest.mark.parametrize("kind, key, value", [
    ("lookup", "step", lambda s: f"2*({s})"),
    ("lookup", "level_size", 1),
    ("lookup", "kind", "distinct"),
    ("distinct", "step", lambda s: f"2*({s})"),
    ("distinct", "modulus", lambda m: f"({m})/2"),
    ("distinct", "level_size", 0),
    ("distinct", "kind", "ziggurat"),
])
def test_lookup_and_distinct_records_are_checked(dyck, kind, key, value):
    """The L-lookup and L-tiebreak-modulo facts of the Dyck-2 certificate are recomputed, not trusted."""
    model, cert = dyck
    assert check(cert, model).boxes == len(cert["boxes"])
    bad = copy.deepcopy(cert)
    head = bad["analysis"]["heads"][_head_of_kind(cert, kind)]
    head[key] = value(head[key]) if callable(value) else value
    with pytest.raises(CheckFailure):
        check(bad, model)


def test_equal_rewritten_lookup_step_is_accepted(dyck):
    """A recorded expression may be any equal form (exact identity test), not only the kernel's text."""
    model, cert = dyck
    good = copy.deepcopy(cert)
    head = good["analysis"]["heads"][_head_of_kind(cert, "lookup")]
    head["step"] = f"(n+1)/(n+1)*({head['step']})"
    assert check(good, model).boxes == len(cert["boxes"])


def test_derived_schedule_certificate_checks_even_when_its_text_parses_to_another_tree():
    """Found by a random sweep: the derived τ = κ·shape was bounded as built (6350/9 over log(n+2)),
    the checker re-parsed its text into a different tree whose ball rounded the last recorded digit
    of a box's τ differently; the certifier now bounds the parsed text itself."""
    spec = {"format": "hardsoft.model/1", "name": "sweep-tau-text", "alphabet": ["a", "b", "c"], "bos": None,
            "dims": ["one", "w1", "t0", "w0", "t1", "pos", "t2"],
            "embed": {"token": {"a": {"t0": 1}, "b": {"t1": "5/3"}, "c": {"t2": 1, "pos": 1}},
                      "position": {"one": "1", "pos": "i/(n+1)", "w0": "(i^3)+((1)+((-1)^i*i))", "w1": "2"}},
            "layers": [{"type": "attention", "heads": [{"name": "h0", "hard": "average", "visible": "j>=i",
                                                       "score": [["t1", "t1", -2.0], ["t1", "t1", "3/2"]],
                                                       "value": [["w0", "t1", "2/3"]]}]},
                       {"type": "attention", "heads": [{"name": "h1", "hard": "average", "visible": "j>=i",
                                                       "score": [["t2", "t1", 1.5]],
                                                       "value": [["w0", "w0", 2], ["w0", "t1", "1/2"]]}]}],
            "output": {"dim": "pos", "position": "first", "threshold": "11/5"}}
    model = model_from_dict(spec)
    outcome = certify(model, 1, 150)
    assert outcome.verdict == "certified"
    assert check(outcome.certificate, model).boxes == len(outcome.certificate["boxes"])

"""The documented Python API (docs/api.md): names, typed frozen results, and the doc's examples run."""
from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import certify
from certify import (CertifyResult, CheckReport, Evaluation, check_certificate, certify_model, evaluate, load_model,
                     run_hard, run_soft, summarize_certificate)
from certify.errors import ModelError, UserError

ROOT = Path(__file__).resolve().parent.parent
SINCE = ROOT / "models" / "since-a-b.json"
LEAK = ROOT / "tests" / "negative_models" / "threshold-leak.json"
DOC = (ROOT / "docs" / "api.md").read_text()


def doc_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC, flags=re.S)


def test_import_hardsoft_gives_the_same_objects():
    import hardsoft

    assert hardsoft.__version__ == certify.__version__
    for name in certify.API:
        assert getattr(hardsoft, name) is getattr(certify, name), name
    with pytest.raises(AttributeError):
        hardsoft.no_such_name  # noqa: B018


def test_import_hardsoft_in_a_fresh_interpreter():
    proc = subprocess.run([sys.executable, "-c", "from hardsoft import load_model, certify_model, check_certificate, "
                           "evaluate, run_hard, run_soft; print('ok')"], capture_output=True, text=True, timeout=60,
                          cwd=ROOT)
    assert proc.returncode == 0 and proc.stdout == "ok\n", proc.stderr


def test_results_are_typed_and_frozen():
    model = load_model(SINCE)
    result = certify_model(model, n_max=200)
    assert isinstance(result, CertifyResult) and result.certified and result.exit_code == 0
    assert result.claim.n_max == 200 and result.claim.model_sha256 == model.sha256
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.verdict = "refuted"
    report = check_certificate(result.certificate, SINCE)
    assert isinstance(report, CheckReport) and report.valid and report.claim == result.claim
    bad = json.loads(json.dumps(result.certificate))
    bad["claim"]["margin"] = "0.9"
    failed = check_certificate(bad, model)
    assert not failed.valid and failed.exit_code == 1 and failed.failure.item == "claim.margin"
    summary = summarize_certificate(result.certificate)
    assert [h.head for h in summary.heads] == ["rightmost-p"]
    assert [o.id for o in summary.obligations if o.second_opinion] == ["round:layer1:out"]


def test_model_from_a_dict_and_errors_are_user_errors():
    data = json.loads(SINCE.read_text())
    assert load_model(data).sha256 == load_model(SINCE).sha256
    data["output"]["dim"] = "nope"
    with pytest.raises(ModelError) as info:
        load_model(data)
    assert info.value.path == "output.dim"
    with pytest.raises(UserError, match="--nmin"):
        certify_model(SINCE, n_max=10, n_min=0)
    with pytest.raises(UserError, match="--derive"):
        certify_model(SINCE, n_max=10, tau="1/n", derive=True)


def test_evaluate_run_hard_run_soft_agree():
    ev = evaluate(SINCE, "bab", tau="1/(4*n)")
    assert isinstance(ev, Evaluation) and ev.positions == (3,) and ev.hard.values == ("1",)
    assert ev.agree is True and ev.soft.decisions == (True,)
    assert run_hard(SINCE, "bab").outputs == (1,)
    assert run_soft(SINCE, ["b", "a", "b"], "1/(4*n)", precision="float64").decisions == (True,)
    assert evaluate(SINCE, "bab").soft is None and evaluate(SINCE, "bab").agree is None
    with pytest.raises(UserError, match="--precision"):
        run_soft(SINCE, "bab", "1", precision="float8")


def test_refuted_result_has_a_counterexample():
    leak = certify_model(LEAK, n_max=100)
    assert leak.verdict == "refuted" and leak.exit_code == 1 and leak.certificate is None
    assert leak.counterexample.word and leak.claim is None
    with pytest.raises(UserError, match="--out"):
        leak.write("never-written.json")


def test_the_notebook_example_in_docs_api_runs(monkeypatch, capsys):
    notebook = next(b for b in doc_blocks() if "leaky = certify_model" in b)
    monkeypatch.chdir(ROOT)
    exec(compile(notebook, "docs/api.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "certified 23/(32*n)" and out[-1] == "refuted abc"


def test_the_ci_gate_example_in_docs_api_exits_non_zero_unless_certified(tmp_path):
    gate = next(b for b in doc_blocks() if b.startswith("# ci_gate.py"))
    script = tmp_path / "ci_gate.py"
    script.write_text(gate)

    def run(*models):
        return subprocess.run([sys.executable, str(script), "--nmax", "1000", *map(str, models)], capture_output=True,
                              text=True, timeout=300, cwd=ROOT)

    ok = run(SINCE, ROOT / "models" / "majority-a-b.json")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert ok.stdout.count(": certified at tau(n) = ") == 2
    refuted = run(SINCE, LEAK)
    assert refuted.returncode == 1 and f"{LEAK}: refuted" in refuted.stdout
    invalid = tmp_path / "invalid.json"
    invalid.write_text("{}")
    assert run(invalid).returncode == 3


def test_evaluate_stays_the_api_function_after_the_evaluators_module_is_used():
    """``certify.evaluate`` is also a submodule; importing it must not replace the API name."""
    import certify.api
    from certify.evaluate import hard_run  # noqa: F401

    run_hard(SINCE, "ab")
    from certify import evaluate as again

    assert again is certify.api.evaluate and certify.evaluate is certify.api.evaluate

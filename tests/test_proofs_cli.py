"""``certify prove``: selection, JSON rows, exit codes, --emit-smt, plain table."""
import json
import subprocess
import sys
import time

import pytest

from certify.cli import main
from proofs import lemmas as lemma_pkg
from proofs.lemmas.base import Control, Lemma
from proofs.smt import Query, run_cvc5, run_z3


def test_prove_all_json_proves_every_lemma_refutes_every_control_under_60s(tmp_path):
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "certify.cli", "prove", "--all", "--json",
                           "--emit-smt", str(tmp_path)], capture_output=True, text=True, timeout=120)
    elapsed = time.perf_counter() - t0
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert elapsed < 60
    rows = json.loads(proc.stdout)
    assert all(set(r) == {"lemma", "control", "method", "verdict", "seconds"} for r in rows)
    lemmas = [r for r in rows if not r["control"]]
    controls = [r for r in rows if r["control"]]
    assert [r["lemma"] for r in lemmas] == list(lemma_pkg.LEMMAS)
    assert all(r["verdict"] == "proved" for r in lemmas)
    assert all(r["verdict"] == "refuted" for r in controls)
    for name in lemma_pkg.LEMMAS:
        assert sum(r["lemma"].startswith(name + "/") for r in controls) >= 2
    assert all(isinstance(r["seconds"], (int, float)) and r["seconds"] >= 0 for r in rows)
    files = sorted(tmp_path.glob("*.smt2"))
    assert len(files) > len(controls)
    for f in files[:3]:
        text = f.read_text()
        assert "(check-sat)" in text
        assert run_z3(text)[0] == run_cvc5(text) in ("sat", "unsat")


def test_selected_lemmas_and_plain_table(capsys):
    assert main(["prove", "L-round", "L-lookup"]) == 0
    out = capsys.readouterr().out
    lines = out.strip().splitlines()
    assert lines[0].split() == ["lemma", "method", "verdict", "seconds"]
    assert any(ln.startswith("L-round ") and "proved" in ln for ln in lines)
    assert any(ln.startswith("L-round/delta-half") and "refuted" in ln for ln in lines)
    assert not any(ln.startswith("L-gap") for ln in lines)


def test_unknown_lemma_is_a_one_line_error_with_exit_3(capsys):
    assert main(["prove", "L-round", "L-nonexistent"]) == 3
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "L-nonexistent" in err


def _true_statement(B, v):
    return [B.ge(v["x"], 1)], B.ge(v["x"] * v["x"], 1)


def _false_statement(B, v):
    return [B.ge(v["x"], 0)], B.ge(v["x"] * v["x"], 1)


@pytest.mark.parametrize("lemma_ok, control_ok", [(True, False), (False, True)])
def test_exit_1_when_a_lemma_is_not_proved_or_a_control_not_refuted(monkeypatch, capsys, lemma_ok, control_ok):
    lemma_q = Query("q", ("x",), _true_statement if lemma_ok else _false_statement)
    control_q = Query("c", ("x",), _false_statement if control_ok else _true_statement)
    fake = Lemma("L-fake", "x ≥ 1 ⇒ x² ≥ 1", (lemma_q,), controls=(Control("L-fake/c", control_q),))
    monkeypatch.setattr(lemma_pkg, "LEMMAS", {"L-fake": fake})
    assert main(["prove", "--json", "L-fake"]) == 1
    rows = json.loads(capsys.readouterr().out)
    assert [r["verdict"] for r in rows] == ["proved" if lemma_ok else "refuted",
                                            "refuted" if control_ok else "proved"]
    assert rows[1] == {**rows[1], "lemma": "L-fake/c", "control": True}

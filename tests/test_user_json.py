"""Every command's --json output validates against its shipped schema (certify/schemas/), errors included.

Each case runs the real CLI entry point in-process and validates what it printed on
stdout with ``jsonschema`` (draft 2020-12, schemas resolved by their shared base URI).
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from certify import schemas
from certify.cli import main

ROOT = Path(__file__).resolve().parent.parent
SINCE = str(ROOT / "models" / "since-a-b.json")
LEAK = str(ROOT / "tests" / "negative_models" / "threshold-leak.json")
HOT = str(ROOT / "tests" / "negative_models" / "tail" / "since-constant-tau.json")  # holds to 10^12, not for all n
REGISTRY = Registry().with_resources(
    (schemas.load(n)["$id"], Resource.from_contents(schemas.load(n))) for n in schemas.NAMES)


def validate(name: str, instance) -> None:
    Draft202012Validator.check_schema(schemas.load(name))
    Draft202012Validator(schemas.load(name), registry=REGISTRY).validate(instance)


def cli_json(capsys, *argv) -> tuple[int, object]:
    rc = main([*argv, "--json"])
    out = capsys.readouterr().out
    return rc, json.loads(out)


@pytest.fixture(scope="module")
def cert_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("cert") / "since.cert.json"
    assert main([SINCE, "--nmax", "300", "--out", str(path), "--quiet"]) == 0
    return path


def test_certified_json_always_carries_the_certificate_object(capsys, tmp_path, cert_file):
    rc, plain = cli_json(capsys, SINCE, "--nmax", "300", "--quiet")
    assert rc == 0 and plain["verdict"] == "certified" and "certificate_path" not in plain
    validate("certify", plain)
    out = tmp_path / "c.json"
    rc, written = cli_json(capsys, SINCE, "--nmax", "300", "--out", str(out), "--quiet")
    assert rc == 0 and written["certificate_path"] == str(out)
    assert written["certificate"] == plain["certificate"] == json.loads(out.read_text())
    validate("certify", written)
    validate("certificate", json.loads(cert_file.read_text()))


def test_refuted_and_not_proved_json(capsys):
    rc, refuted = cli_json(capsys, LEAK, "--nmax", "100", "--quiet")
    assert rc == 1 and refuted["verdict"] == "refuted" and refuted["counterexample"]["n"] >= 1
    validate("certify", refuted)
    rc, unproved = cli_json(capsys, HOT, "--nmax", "inf", "--quiet")
    assert rc == 2 and unproved["verdict"] == "not proved" and "does not settle" in unproved["reason"]
    validate("certify", unproved)


def test_certificate_schema_is_open_to_kernel_facts_and_claim_keys(cert_file):
    cert = json.loads(cert_file.read_text())
    extended = copy.deepcopy(cert)
    extended["facts"] = {"anything": [1, 2]}
    extended["claim"]["tau_positive_on"] = [1, 300]
    validate("certificate", extended)
    broken = copy.deepcopy(cert)
    broken["model_sha256"] = "not a hash"
    with pytest.raises(Exception, match="does not match"):
        validate("certificate", broken)
    typo = copy.deepcopy(cert)
    typo["boxs"] = typo.pop("boxes")
    with pytest.raises(Exception):
        validate("certificate", typo)


def test_check_json_valid_and_invalid(capsys, cert_file, tmp_path):
    rc, good = cli_json(capsys, "check", str(cert_file), "--model", SINCE, "--quiet")
    assert rc == 0 and good["valid"] is True and good["claim"]["n_max"] == 300
    validate("check", good)
    bad = json.loads(cert_file.read_text())
    bad["claim"]["n_max"] += 1
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    rc, failed = cli_json(capsys, "check", str(path), "--model", SINCE, "--quiet")
    assert rc == 1 and failed["valid"] is False and "n_max" in failed["item"]
    validate("check", failed)


def test_show_json(capsys, cert_file):
    rc, shown = cli_json(capsys, "show", str(cert_file))
    assert rc == 0 and shown["verified"] is False
    validate("show", shown)
    assert main(["show", str(cert_file), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == shown


@pytest.mark.parametrize("options", [(), ("--tau", "1/(4*n)"), ("--tau", "1", "--precision", "float32")])
def test_run_json(capsys, options):
    rc, result = cli_json(capsys, "run", SINCE, "bacab", *options)
    assert rc == 0 and result["hard"]["decisions"] == [False]
    assert ("soft" in result) == bool(options)
    validate("run", result)


def test_validate_model_json(capsys):
    rc, result = cli_json(capsys, "validate-model", SINCE)
    assert rc == 0 and result["heads"] == 1 and result["temperature"] is None
    validate("validate-model", result)


def test_compile_json(capsys, tmp_path):
    out = tmp_path / "m.json"
    rc, written = cli_json(capsys, "compile", "'a' since 'b'", "--alphabet", "abc", "-o", str(out))
    assert rc == 0 and written["model_path"] == str(out) and written["check"] is None
    assert written["model"] == json.loads(out.read_text())
    validate("compile", written)
    rc, checked = cli_json(capsys, "compile", "'a'", "--alphabet", "ab", "--check", "--exhaustive", "3",
                           "--random", "4", "--soft", "2", "--quiet")
    assert rc == 0 and checked["check"]["ok"] is True and checked["check"]["hard_words"] == 14 + 4
    assert "model_path" not in checked
    validate("compile", checked)


def test_derive_json(capsys):
    rc, result = cli_json(capsys, "derive", "theorem26", "--nmax", "1000")
    assert rc == 0 and result["proved"] is True
    validate("derive", result)


def test_prove_json(capsys):
    rc, rows = cli_json(capsys, "prove", "L-round", "--quiet")
    assert rc == 0 and rows[0]["lemma"] == "L-round" and rows[0]["verdict"] == "proved"
    validate("prove", rows)


ERRORS = {
    "main --nmin 0": ([SINCE, "--nmin", "0"], "--nmin"),
    "main --nmax": ([SINCE, "--nmax", "many"], "--nmax"),
    "main --tau with --derive": ([SINCE, "--tau", "1", "--derive"], "--derive"),
    "main --tau unparsable": ([SINCE, "--tau", "n**2"], "--tau"),
    "unknown option": ([SINCE, "--nmax-typo", "3"], None),
    "unknown command": (["verify", "x.cert.json"], None),
    "model missing": (["validate-model", "no-such-model.json"], None),
    "validate-model unknown option": (["validate-model", str(ROOT / "tests" / "negative_models" / "threshold-leak.json"),
                        "--model-typo"], None),
    "run bad word": (["run", SINCE, "abx"], None),
    "run precision without tau": (["run", SINCE, "ab", "--precision", "float64"], "--precision"),
    "check missing certificate": (["check", "missing.cert.json", "--model", SINCE], None),
    "show missing certificate": (["show", "missing.cert.json"], None),
    "compile bad formula": (["compile", "'a' since", "--alphabet", "abc"], None),
    "derive bad delta": (["derive", "theorem26", "--delta", "2"], "--delta"),
    "prove unknown lemma": (["prove", "L-nonexistent"], None),
    "export bad length": (["export", SINCE, "--n", "0", "--hard", "-o", "x.onnx"], "--n"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_under_json_are_a_json_object_on_stdout_with_exit_3(case, capsys):
    argv, where = ERRORS[case]
    rc = main([*argv, "--json"])
    captured = capsys.readouterr()
    assert rc == 3 and captured.err == ""
    error = json.loads(captured.out)
    validate("error", error)
    assert error["error"]["where"] == where
    assert "\n" not in error["error"]["message"]


def test_model_error_names_its_key_path_under_json(capsys, tmp_path):
    model = json.loads(Path(SINCE).read_text())
    model["layers"][0]["heads"][0]["score"][1] = ["one", "q", 1]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(model))
    rc = main(["validate-model", str(path), "--json"])
    error = json.loads(capsys.readouterr().out)
    assert rc == 3 and error["error"]["where"] == "layers[0].heads[0].score[1]"
    validate("error", error)


def test_check_audit_json(capsys, cert_file):
    rc, audited = cli_json(capsys, "check", str(cert_file), "--model", SINCE, "--audit", "--max-len", "3",
                           "--random", "2", "--quiet")
    assert rc == 0 and audited["audit"]["passed"] is True and audited["audit"]["words"] == 3 + 9 + 27 + 2
    validate("check", audited)
    fixtures = ROOT / "tests" / "fixtures" / "soundness"
    rc, failed = cli_json(capsys, "check", str(fixtures / "offset-drop.buggy-facts.cert.json"), "--model",
                          str(fixtures / "offset-drop.json"), "--audit", "--max-len", "3", "--random", "0", "--quiet")
    assert rc == 1 and failed["valid"] is False and failed["audit"]["passed"] is False
    assert failed["audit"]["failure"]["fact"].startswith("facts.coords")
    validate("check", failed)


@pytest.mark.parametrize("fmt, options", [("npz", ("--tau", "1/n")), ("onnx", ("--hard",))])
def test_export_json(capsys, tmp_path, fmt, options):
    if fmt == "onnx":
        pytest.importorskip("onnx")
    out = tmp_path / f"m.{fmt}"
    rc, result = cli_json(capsys, "export", SINCE, "--n", "8", "--format", fmt, *options, "-o", str(out))
    assert rc == 0 and result["path"] == str(out) and result["bytes"] == out.stat().st_size > 0
    validate("export", result)

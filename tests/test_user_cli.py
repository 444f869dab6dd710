"""Issue 14, the user's side of the CLI: help, version, unknown commands, one-line errors, --derive,
the claim echoed by check, show, hard and soft side by side in run, progress on stderr and --quiet."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from certify import __version__
from certify.cli import main

ROOT = Path(__file__).resolve().parent.parent
SINCE = ROOT / "models" / "since-a-b.json"


def one_line_error(capsys, argv, *fragments) -> str:
    assert main(list(argv)) == 3
    captured = capsys.readouterr()
    err = captured.err
    assert captured.out == "" and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in err, (fragment, err)
    return err


def test_help_shows_the_main_command_and_every_subcommand():
    proc = subprocess.run([sys.executable, "-m", "certify.cli", "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    assert proc.stdout.startswith("usage: certify MODEL.json [--nmax N]")
    for word in ("--nmin", "--tau", "--derive", "--out", "--quiet", "check", "show", "run", "validate-model",
                 "compile", "derive", "prove", "exit codes"):
        assert word in proc.stdout, word


def test_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"certify (hardsoft) {__version__}"


@pytest.mark.parametrize("word, suggestion", [("verify", "check"), ("chek", "check"), ("lint", "validate-model"), ("validat", "validate"),
                                              ("criticl", "critical"),
                                              ("shwo", "show"), ("evaluate", "run")])
def test_unknown_command_is_rejected_with_a_suggestion(capsys, word, suggestion):
    one_line_error(capsys, [word, "x.json"], f"unknown command {word!r}", f"did you mean '{suggestion}'?")


def test_unknown_word_without_a_close_command_lists_the_commands(capsys):
    one_line_error(capsys, ["frobnicate"], "unknown command 'frobnicate'", "commands: run, check")


def test_an_existing_file_named_like_a_command_is_still_the_model(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("verify").write_text(SINCE.read_text())
    assert main(["verify", "--nmax", "20", "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("certified: since-a-b")


@pytest.mark.parametrize("argv, fragment", [(["check", "x.cert.json"], "certify check: the following arguments are "
                                             "required: --model"),
                                             (["run", str(SINCE)], "certify run: the following arguments"),
                                             (["show", "c.json", "--format", "pdf"], "certify show: argument --format")])
def test_subcommand_usage_errors_are_one_line_naming_the_command(capsys, argv, fragment):
    one_line_error(capsys, argv, fragment)


def test_a_missing_model_file_says_so(capsys):
    one_line_error(capsys, ["no-such-model.json"], "cannot read no-such-model.json")


def test_a_directory_as_model_is_a_one_line_error(capsys, tmp_path):
    one_line_error(capsys, [str(tmp_path)], "is a directory")
    one_line_error(capsys, ["validate-model", str(tmp_path)], "is a directory")
    one_line_error(capsys, ["check", str(tmp_path), "--model", str(SINCE)], "is a directory")


def test_an_unreadable_model_is_a_one_line_error(capsys, tmp_path, monkeypatch):
    path = tmp_path / "locked.json"
    path.write_text(SINCE.read_text())

    def denied(self):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_bytes", denied)  # root can read any mode, so deny where the model is read
    one_line_error(capsys, [str(path)], "cannot read", "Permission denied")


@pytest.mark.parametrize("flag, value", [("--nmin", "0"), ("--nmin", "-3"), ("--nmax", "0"), ("--nmax", "lots")])
def test_length_errors_name_their_flag(capsys, flag, value):
    err = one_line_error(capsys, [str(SINCE), flag, value], f"{flag}: {value!r}")
    other = "--nmax" if flag == "--nmin" else "--nmin"
    assert other not in err


def test_nmin_inf_and_nmax_below_nmin(capsys):
    one_line_error(capsys, [str(SINCE), "--nmin", "inf"], "--nmin")
    one_line_error(capsys, [str(SINCE), "--nmin", "50", "--nmax", "10"], "--nmax 10 is below --nmin 50")


@pytest.fixture()
def proposing(tmp_path):
    model = json.loads(SINCE.read_text())
    model["temperature"] = "1/(4*n)"
    path = tmp_path / "proposing.json"
    path.write_text(json.dumps(model))
    return path


def test_derive_ignores_the_models_proposed_temperature(capsys, proposing):
    assert main([str(proposing), "--nmax", "100", "--json", "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["tau"] == "1/(4*n)"
    assert main([str(proposing), "--nmax", "100", "--derive", "--json", "--quiet"]) == 0
    derived = json.loads(capsys.readouterr().out)
    assert derived["tau"] != "1/(4*n)" and derived["claim"]["tau"] == derived["tau"]


def test_derive_conflicts_with_tau(capsys, proposing):
    one_line_error(capsys, [str(proposing), "--derive", "--tau", "1/(4*n)"], "--derive", "--tau")


@pytest.mark.parametrize("tau, n", [("-1", 1), ("0", 1), ("1/(3-n)", 3), ("n-5", 1)])
def test_non_positive_tau_is_invalid_input(capsys, tau, n):
    one_line_error(capsys, [str(SINCE), "--nmax", "100", "--tau", tau], "--tau", f"at n = {n}")


@pytest.mark.parametrize("tau, n", [("-1", 1), ("1/(3-n)", 3), ("log(n)", 1)])
def test_a_model_proposing_a_non_positive_temperature_is_invalid(capsys, tmp_path, tau, n):
    model = json.loads(SINCE.read_text())
    model["temperature"] = tau
    path = tmp_path / "hot.json"
    path.write_text(json.dumps(model))
    for argv in (["validate-model", str(path)], [str(path), "--nmax", "10"], ["run", str(path), "ab"]):
        one_line_error(capsys, argv, "temperature", f"at n = {n}")


@pytest.fixture(scope="module")
def cert(tmp_path_factory):
    path = tmp_path_factory.mktemp("cert") / "since.cert.json"
    assert main([str(SINCE), "--nmax", "300", "--out", str(path), "--quiet"]) == 0
    return path


def test_check_echoes_the_claim_it_verified(capsys, cert):
    assert main(["check", str(cert), "--model", str(SINCE), "--quiet"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    claim = json.loads(cert.read_text())["claim"]
    assert first.startswith("valid: since-a-b: soft = hard for every input of length 1..300")
    assert f"τ(n) = {claim['tau']}" in first and claim["error_bound"] in first


def test_check_of_a_reformatted_model_is_valid(capsys, cert, tmp_path):
    """The hash is over the model's content: re-indenting and a new description keep the certificate."""
    model = json.loads(SINCE.read_text())
    model["description"] = "the same model, described differently"
    path = tmp_path / "pretty.json"
    path.write_text(json.dumps(model, indent=8))
    assert main(["check", str(cert), "--model", str(path), "--quiet"]) == 0


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_show_says_the_claim_heads_lemmas_and_second_opinions(capsys, cert, fmt):
    assert main(["show", str(cert), "--format", fmt]) == 0
    out = capsys.readouterr().out
    data = json.loads(cert.read_text())
    head = data["analysis"]["heads"][0]
    second = [o["id"] for o in data["obligations"] if o["kind"] == "second opinion"]
    assert second, "the fixture certificate has a rounding second opinion"
    for fragment in ("since-a-b", "1..300", data["claim"]["tau"], data["claim"]["margin"], head["head"],
                     head["kind"], head["lemma"], *second, "not a verification"):
        assert fragment in out, fragment


def test_show_of_a_non_certificate_is_a_one_line_error(capsys, tmp_path):
    path = tmp_path / "x.json"
    path.write_text("[1, 2]")
    one_line_error(capsys, ["show", str(path)], "a certificate is a JSON object")
    path.write_text('{"claim": {"n_min": 1}}')
    one_line_error(capsys, ["show", str(path)], "claim.n_max")


def test_run_shows_hard_and_soft_side_by_side(capsys):
    assert main(["run", str(SINCE), "bab", "--tau", "1/(4*n)", "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("position 3: out: hard 1 -> true; soft (τ = 1/(4*n), mp) ")
    assert lines[0].endswith("-> true") and lines[1] == "soft and hard decide the same at every output position"
    assert main(["run", str(SINCE), "bab"]) == 0
    assert capsys.readouterr().out == "position 3: out = 1 -> true\n"


def test_run_json_carries_both_and_flags_disagreement(capsys):
    """A hot τ on the threshold-leak model makes the soft decision differ from the hard one."""
    leak = ROOT / "tests" / "negative_models" / "threshold-leak.json"
    assert main(["run", str(leak), "abc", "--tau", "1/(10*n)", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["hard"]["decisions"] != result["soft"]["decisions"] and result["agree"] is False
    assert result["outputs"] == result["soft"]["outputs"]


# ------------------------------------------------------------------ progress on stderr, --quiet

def test_certify_progress_on_stderr_and_quiet(capsys):
    assert main([str(SINCE), "--nmax", "100"]) == 0
    captured = capsys.readouterr()
    assert "certify: boxes" in captured.err and captured.out.startswith("certified:")
    assert main([str(SINCE), "--nmax", "100", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_progress_does_not_mix_into_json(capsys):
    assert main([str(SINCE), "--nmax", "100", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["verdict"] == "certified" and "certify: boxes" in captured.err


def test_compile_check_progress(capsys):
    argv = ["compile", "'a' since 'b'", "--alphabet", "ab", "--check", "--exhaustive", "3", "--random", "3",
            "--soft", "2"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "certify: hard words 1/17" in err and "certify: hard words 17/17" in err and "soft words 2/2" in err
    assert main([*argv, "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_prove_and_check_progress(capsys, cert):
    assert main(["prove", "L-round"]) == 0
    assert "certify: lemmas 1/1" in capsys.readouterr().err
    assert main(["check", str(cert), "--model", str(SINCE)]) == 0
    assert "certify: kernel check" in capsys.readouterr().err


def test_long_run_progress(capsys, monkeypatch):
    from certify.commands import run

    monkeypatch.setattr(run, "LONG_WORD", 3)
    assert main(["run", str(SINCE), "babab", "--tau", "1"]) == 0
    err = capsys.readouterr().err
    assert "certify: hard (exact) 0/2" in err and "certify: soft (mp) 2/2" in err
    assert main(["run", str(SINCE), "babab", "--tau", "1", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_progress_on_a_terminal_is_a_rich_bar(monkeypatch):
    """On a tty the same callback drives a rich bar (transient), not plain lines."""
    import io

    from certify.commands.progress import Progress

    class Tty(io.StringIO):
        def isatty(self):
            return True

    stream = Tty()
    with Progress(True, stream) as progress:
        progress("boxes", 1, 2)
        progress("boxes", 2, 2)
    assert "certify: boxes" not in stream.getvalue() and "boxes" in stream.getvalue()


# ------------------------------------------------------------------ packaging

def test_matplotlib_is_an_optional_extra_imported_only_by_the_plots():
    """Figures (certify plot / appendix) are the only use of matplotlib: an extra, imported lazily there."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert not any(d.startswith("matplotlib") for d in project["dependencies"])
    assert project["optional-dependencies"]["plot"] == ["matplotlib==3.11.2"]
    for folder in ("certify", "symbolic", "proofs", "hardsoft"):
        for path in (ROOT / folder).rglob("*.py"):
            if path != ROOT / "certify" / "plot.py":
                assert "import matplotlib" not in path.read_text(), path
    plot = (ROOT / "certify" / "plot.py").read_text()
    assert "import matplotlib" in plot and not re.search(r"^(import|from) matplotlib", plot, re.M)  # lazily


def test_schemas_ship_as_package_data_and_jsonschema_is_pinned():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert data["tool"]["setuptools"]["package-data"]["certify.schemas"] == ["*.json"]
    assert "jsonschema==4.26.0" in data["project"]["optional-dependencies"]["test"]
    assert "hardsoft*" in data["tool"]["setuptools"]["packages"]["find"]["include"]

"""Issue 5: ``certify compile`` exit codes and files."""
import json

from certify.cli import main
from certify.model import load_model


def test_compile_writes_a_valid_model(tmp_path, capsys):
    out = tmp_path / "m.json"
    assert main(["compile", "'a' since 'b'", "--alphabet", "abc", "--scheme", "unbounded", "--transduction",
                 "-o", str(out)]) == 0
    model = load_model(out)
    assert model.output.position == "all" and json.loads(out.read_text())["temperature"] == "1"


def test_compile_check_passes(capsys):
    assert main(["compile", "#past['a'] > #past['b']", "--alphabet", "ab", "--check", "--exhaustive", "4",
                 "--random", "5", "--max-len", "30", "--soft", "2"]) == 0
    assert "check passed: 35 words" in capsys.readouterr().out


def test_compile_check_fails_with_counterexample(monkeypatch, capsys):
    """Negative control: a wrong reference makes --check exit 1 with the first counterexample."""
    import proofs.constructions.check as check_module

    monkeypatch.setattr(check_module, "evaluate", lambda f, w: [True] * len(w))
    assert main(["compile", "'a'", "--alphabet", "ab", "--check", "--exhaustive", "2", "--random", "0"]) == 1
    assert "check failed: hard model disagrees with the reference: word 'b' (n=1)" in capsys.readouterr().out


def test_compile_tasks(tmp_path):
    out = tmp_path / "d.json"
    assert main(["compile", "dyck", "--k", "2", "-o", str(out)]) == 0
    assert load_model(out).alphabet == ("(", ")", "[", "]")
    assert main(["compile", "induction-head", "--alphabet", "abc", "--target", "a", "-o", str(out)]) == 0
    assert load_model(out).output.position == "all"


def test_compile_invalid_input_exits_3(capsys):
    assert main(["compile", "'a' since", "--alphabet", "abc"]) == 3
    assert "column 10" in capsys.readouterr().err
    assert main(["compile", "'d'", "--alphabet", "abc"]) == 3
    assert main(["compile", "induction-head", "--alphabet", "abc"]) == 3
    assert main(["compile", "dyck", "--k", "9"]) == 3
    assert main(["compile", "dyck", "--k", "2", "--scheme", "unbounded"]) == 3

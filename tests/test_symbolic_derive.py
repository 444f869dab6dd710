"""`certify derive theorem26`: the appendix in Markdown, LaTeX and JSON."""
import argparse
import json
import shutil
import subprocess
from fractions import Fraction

import pytest

from certify.commands import derive
from certify.errors import UserError
from certify.expr import parse_expr
from certify.model import load_model
from symbolic.layer_bound import layer_constant, model_constant


def run(capsys, *argv):
    parser = argparse.ArgumentParser()
    derive.register(parser.add_subparsers())
    args = parser.parse_args(["derive", "theorem26", *argv])
    rc = args.func(args)
    return rc, capsys.readouterr().out


@pytest.fixture(scope="module")
def json_out():
    parser = argparse.ArgumentParser()
    derive.register(parser.add_subparsers())
    args = parser.parse_args(["derive", "theorem26", "--format", "json"])
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = args.func(args)
    return rc, json.loads(buf.getvalue())


def test_json_default(json_out):
    rc, d = json_out
    assert rc == 0 and d["proved"] is True
    tau = parse_expr(d["tau"], variables=("n",), allow_log=True)
    assert tau is not None
    assert [r["n"] for r in d["table"]] == [10, 10**3, 10**6, 10**9]
    assert all(r["ok"] and r["every_eps_le_1"] for r in d["table"])
    row = next(r for r in d["table"] if r["n"] == 10**6)
    assert float(row["ratio_exact_over_tau"][1]) < 4
    keys = {s["key"] for s in d["steps"]}
    assert {"closed-form", "monotone", "tau-exact", "tau-lambert", "tau-elementary", "typo-sign",
            "typo-direction", "lemma25-coarse", "lemma25-refined", "asymptotic"} <= keys
    assert all(s["ok"] and s["check"] for s in d["steps"])
    assert d["asymptotic"].startswith("Theta(n^2 log n)")


def test_markdown_tags_every_step(capsys):
    rc, out = run(capsys, "--L", "2", "--K", "2", "--gamma", "1/n", "--xmax", "1", "--delta", "1/2")
    assert rc == 0
    assert out.count("*Checked:*") >= 15 and "FAILED" not in out
    assert "Theta(n^1 log n)" in out


def test_latex_compiles(capsys, tmp_path):
    rc, out = run(capsys, "--format", "latex", "--nmax", "100000")
    assert rc == 0
    assert out.startswith("\\documentclass{article}") and "\\usepackage" not in out
    assert out.count("$") % 2 == 0 and out.rstrip().endswith("\\end{document}")
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed; structural checks only")
    (tmp_path / "d.tex").write_text(out)
    res = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "d.tex"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout[-2000:]


@pytest.mark.parametrize("argv", [["--delta", "2"], ["--gamma", "log(n)"], ["--K", "x"], ["--L", "0"],
                                  ["--xmax", "n^9"]])
def test_bad_input_is_a_user_error(capsys, argv):
    with pytest.raises(UserError):
        run(capsys, *argv)


def test_K_from_weights():
    model = load_model("models/since-a-b.json")
    # attention: ||S|| = 1 + 1/2, ||V|| = 1 -> max(2, 1 + 1 + 9/2); ffn: 1 + (5/2 + 7/2)
    assert [layer_constant(layer) for layer in model.layers] == [Fraction(13, 2), Fraction(7)]
    assert model_constant(model) == 7

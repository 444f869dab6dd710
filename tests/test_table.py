"""``certify table``: rows for shipped models in every format, the generic comparison, --critical, --paper.

The rows are asserted on content: closed forms, the construction class, the asymptotic class of the
certified schedule, and ratios certified/generic ≥ 1 wherever the certified schedule is hotter than the
paper's generic Theorem 26 schedule for the same model.
"""
from __future__ import annotations

import csv
import dataclasses
import io
import json
import re
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

from certify.api import check_certificate, load_model, parse_schedule
from certify.expr import to_text
from certify.precision import certify_in_format, fmt_named
from certify.cli import main
from certify.errors import UserError
from certify.table import (CONFIG, PAPER_ROWS, build_table, latex_escape, read_critical, to_csv, to_latex,
                           to_markdown)
from test_user_json import validate

ROOT = Path(__file__).resolve().parents[1]
SINCE = ROOT / "models" / "since-a-b.json"
COUNT = ROOT / "models" / "compiled" / "counting-majority-bounded.json"
PREV_U = ROOT / "models" / "compiled" / "tl-prev-next-unbounded.json"
NS = (10, 1000)


@pytest.fixture(scope="module")
def table():
    return build_table([SINCE, COUNT, PREV_U], NS)


def row(table, name):
    return next(r for r in table.rows if r.model == name)


def test_rows_carry_class_scheme_closed_forms_and_values(table):
    since, count, prev = (row(table, n) for n in ("since-a-b", "counting-majority-bounded", "tl-prev-next-unbounded"))
    assert [r.verdict for r in table.rows] == ["certified"] * 3
    assert since.construction == "TL[S,U]" and since.pe == "bounded" and "L-ziggurat" in since.scheme
    assert since.gamma.closed == "1/(2*n)" and since.gamma.values == ("0.05000", "0.0005000")
    assert since.xmax.closed == "1" and since.certified.cls == "Θ(1/n)"
    assert since.certified.closed == "23/(32*n)" and since.certified.values[1] == "0.0007187"
    assert count.construction == "counting (MAJORITY)" and "L-special-key" in count.scheme and "uniform (exact)" in count.scheme
    assert count.gamma.closed == "1/(4*n + 4)" and count.certified.cls == "Θ(1/n)"  # the ladder: no log factor
    assert prev.pe == "unbounded" and prev.gamma.closed == "3" and prev.certified.cls == "Θ(1)"
    assert prev.xmax.closed == "max(1, n)" and prev.xmax.values == ("10.00", "1.000e+3")  # the unbounded PE i
    assert since.generic.cls == "Θ(1/(n log n))" and prev.generic.cls == "Θ(1/log n)"


def test_certified_is_hotter_than_the_generic_schedule(table):
    """Every shipped schedule beats Theorem 26's for its own K, γ, x_max: the ratio is ≥ 1 at every n."""
    for r in table.rows:
        assert all(float(v) >= 1 for v in r.certified_over_generic), (r.model, r.certified_over_generic)
        assert r.growth_certified is not None
    assert float(row(table, "tl-prev-next-unbounded").certified_over_generic[1]) > 10


def test_markdown_lists_every_row_and_value(table):
    text = to_markdown(table)
    lines = [line for line in text.splitlines() if line.startswith("| `")]
    assert len(lines) == 3
    assert "`23/(32*n)`: 0.07187 / 0.0007187" in lines[0] and "Θ(1/n)" in lines[0]
    assert "`83/(128*n + 128)`" in lines[1]
    header = text.splitlines()[2]
    assert all(line.count(" | ") == header.count(" | ") for line in lines)


def test_csv_has_one_line_per_model_and_a_column_per_n(table):
    rows = list(csv.DictReader(io.StringIO(to_csv(table))))
    assert [r["model"] for r in rows] == ["since-a-b", "counting-majority-bounded", "tl-prev-next-unbounded"]
    assert rows[0]["tau_certified_closed"] == "23/(32*n)" and rows[0]["tau_certified@1000"] == "0.0007187"
    assert rows[0]["gamma@10"] == "0.05000" and float(rows[0]["certified_over_generic@1000"]) > 1
    assert rows[2]["tau_certified_class"] == "Θ(1)"


def latex_problems(text: str) -> list[str]:
    """What would stop a plain `article` from compiling: non-ASCII, unbalanced braces or $, mismatched
    environments, a table row with the wrong number of cells, an unescaped special character."""
    problems = [f"non-ASCII {ch!r}" for ch in sorted(set(text)) if ord(ch) > 127]
    body = text.replace("\\\\", "").replace("\\{", "").replace("\\}", "").replace("\\$", "").replace("\\&", "")
    if body.count("{") != body.count("}"):
        problems.append("unbalanced braces")
    stack = []
    for kind, env in re.findall(r"\\(begin|end)\{(\w+)\}", text):
        if kind == "begin":
            stack.append(env)
        elif not stack or stack.pop() != env:
            problems.append(f"mismatched \\end{{{env}}}")
    problems += [f"unclosed {e}" for e in stack]
    tables = re.findall(r"\\begin\{tabular\}\{([^\n]*)\}\n(.*?)\n\\end\{tabular\}", text, re.S)
    if not tables:
        problems.append("no tabular")
    for spec, block in tables:
        columns = len(re.findall(r"p\{[^}]*\}|[lrc]", spec))
        for line in block.splitlines():
            if line == "\\hline":
                continue
            clean = line.replace("\\&", "").replace("\\$", "")
            if clean.count("$") % 2:
                problems.append(f"odd $ in {line[:40]}")
            if clean.count("&") != columns - 1:
                problems.append(f"{clean.count('&') + 1} cells for {columns} columns in {line[:40]}")
            if re.search(r"(?<!\\)[_#%]", re.sub(r"\$[^$]*\$", "", clean)):
                problems.append(f"unescaped special character in {line[:40]}")
    return problems


def test_latex_is_a_plain_article_that_would_compile(table):
    text = to_latex(table)
    assert text.startswith("\\documentclass{article}") and text.rstrip().endswith("\\end{document}")
    assert "\\usepackage" not in text
    assert latex_problems(text) == []
    broken = text.replace("\\end{table}", "", 1).replace("since-a-b", "since_a-b", 1).replace(" & ", " ", 1)
    assert len(latex_problems(broken)) >= 3  # the checker sees a lost \end, an unescaped _ and a lost cell
    assert "\\frac{23}{32 n}" in text and "$\\Theta(1/n)$" in text


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="no TeX installation (the structural test above runs)")
def test_latex_compiles_with_pdflatex(table, tmp_path):
    (tmp_path / "t.tex").write_text(to_latex(table))
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-2000:]
    assert (tmp_path / "t.pdf").stat().st_size > 1000
    overfull = [float(w) for w in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide\)", run.stdout)]
    assert all(w < 20 for w in overfull), overfull  # the tables fit the page of a plain article


def test_latex_escape_turns_specials_and_unicode_into_ascii():
    assert latex_escape("a_b & 50% #1 ~ ^") == "a\\_b \\& 50\\% \\#1 \\textasciitilde{} \\textasciicircum{}"
    assert latex_escape("TL[⊖,⊕] γ ≥ τ") == "TL[$\\ominus$,$\\oplus$] $\\gamma$ $\\geq$ $\\tau$"


def test_critical_file_gives_tau_star_and_the_ratio(tmp_path):
    crit = tmp_path / "critical.json"
    crit.write_text(json.dumps([{"model": "../" * 0 + str(SINCE), "n": 1000, "tau_star": "0.00072"},
                                {"model": "some-other-model", "n": 10, "tau_star": "1"}]))
    points = read_critical(crit)
    assert points[0].tau_star == Fraction(72, 100000) and points[0].n == 1000
    t = build_table([SINCE], NS, critical=points)
    r = t.rows[0]
    assert r.critical.values == (None, "0.0007200")
    assert r.certified_over_critical[0] is None and 0.4 < float(r.certified_over_critical[1]) < 1
    by_hash = tmp_path / "by-hash.json"
    by_hash.write_text(json.dumps([{"model": r.sha256, "n": 10, "tau_star": "0.07"}]))
    assert build_table([SINCE], NS, critical=read_critical(by_hash)).rows[0].critical.values == ("0.07000", None)


@pytest.mark.parametrize("content, where", [
    ({"model": "m"}, "[0]"), ([{"model": "m", "n": 0, "tau_star": "1"}], "[0].n"),
    ([{"model": "m", "n": 5, "tau_star": 0.5}], "[0].tau_star"), ([{"model": "m", "n": 5, "tau_star": "-1"}], "[0].tau_star"),
    ([{"model": "", "n": 5, "tau_star": "1"}], "[0].model")])
def test_bad_critical_files_name_the_entry(tmp_path, content, where):
    path = tmp_path / "c.json"
    path.write_text(json.dumps(content))
    with pytest.raises(UserError, match=re.escape(f"--critical: {where}") if where != "[0]" else "--critical"):
        read_critical(path)


def test_table_cli_json_validates_and_writes_out(tmp_path, capsys):
    out = tmp_path / "t.csv"
    rc = main(["table", str(SINCE), "--n", "10,1e2", "--format", "csv", "--out", str(out), "--json", "--quiet"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 0 and data["ns"] == [10, 100] and data["out"] == str(out)
    validate("table", data)
    assert out.read_text() == data["text"] and data["rows"][0]["certified_tau"]["closed"] == "23/(32*n)"


def test_table_cli_certs_are_written_checked_and_a_refuted_row_is_exit_2(tmp_path, capsys):
    leak = ROOT / "tests" / "negative_models" / "threshold-leak.json"
    rc = main(["table", str(SINCE), str(leak), "--n", "10,100", "--certs", str(tmp_path), "--json", "--quiet"])
    data = json.loads(capsys.readouterr().out)
    validate("table", data)
    since, refuted = data["rows"]
    assert rc == 2 and since["checked"] is True and refuted["verdict"] == "refuted" and refuted["checked"] is None
    assert check_certificate(since["certificate"], SINCE).valid and not (tmp_path / "threshold-leak.cert.json").exists()
    assert "refuted: " in data["text"] and refuted["certified_tau"]["values"] == [None, None]


def test_table_precision_columns_state_the_certified_float_ranges(capsys):
    """--precision float64,float32: a column per format with the lengths certified in it (issue 17); the
    range and its τ agree with `certify --precision F --derive` at the row's schedule."""
    rc = main(["table", str(SINCE), "--n", "10,1e2", "--precision", "float64,float32", "--format", "csv", "--json",
               "--quiet"])
    data = json.loads(capsys.readouterr().out)
    validate("table", data)
    row = data["rows"][0]
    assert rc == 0 and data["formats"] == ["float64", "float32"] and set(row["precision"]) == {"float64", "float32"}
    for fmt, got in row["precision"].items():
        p = certify_in_format(load_model(SINCE), 1, 100, fmt_named(fmt), parse_schedule(row["certified_tau"]["closed"]),
                              derive=True)
        assert got["n_max_certified"] == p.n_certified and got["whole_range"] == (p.n_certified == 100)
        assert got["tau"] == to_text(p.tau)
    head = data["text"].splitlines()[0].split(",")
    assert head[-2:] == ["n_max_certified@float64", "n_max_certified@float32"]
    assert main(["table", str(SINCE), "--precision", "float8", "--quiet"]) == 3
    assert "--precision" in capsys.readouterr().err


@pytest.mark.parametrize("argv, fragment", [
    (["table"], "give MODEL.json files or --paper"), (["table", "--paper", str(SINCE)], "--paper"),
    (["table", str(SINCE), "--n", "0"], "--n"), (["table", str(SINCE), "--n", "inf"], "--n"),
    (["table", "missing.json"], "missing.json")])
def test_table_cli_errors_are_exit_3(capsys, argv, fragment):
    assert main([*argv, "--quiet"]) == 3
    assert fragment in capsys.readouterr().err


def test_paper_rows_fast_sample_certified_checked_and_in_class(tmp_path):
    """Two rows of --paper (bounded and unbounded TL[⊖,⊕]): certificates written, `certify check` accepts them."""
    cfg = dataclasses.replace(CONFIG, paper_rows=PAPER_ROWS[:2])
    t = build_table((), NS, paper=True, certs=tmp_path, cfg=cfg)
    assert [r.model for r in t.rows] == ["tl-prev-next-bounded", "tl-prev-next-unbounded"]
    assert all(r.verdict == "certified" and r.checked and r.in_class for r in t.rows)
    assert [r.paper_class for r in t.rows] == ["Θ(1/n)", "Θ(1)"] and t.exit_code == 0
    for r in t.rows:
        assert check_certificate(r.certificate, ROOT / "models" / "compiled" / f"{r.model}.json").valid
    assert "in class or hotter" in to_markdown(t) and latex_problems(to_latex(t)) == []


def test_paper_counting_rows_with_bounded_pe_are_in_the_papers_theta_one_over_n(tmp_path):
    """The ladder amplifier (L-special-key) puts both bounded counting rows in Θ(1/n), not Θ(1/(n log n))."""
    rows = tuple(r for r in PAPER_ROWS if r.construction.startswith("counting") and r.pe == "bounded")
    t = build_table((), NS, paper=True, certs=tmp_path, cfg=dataclasses.replace(CONFIG, paper_rows=rows))
    assert [r.model for r in t.rows] == ["counting-majority-bounded", "counting-mon-bounded"]
    assert all(r.verdict == "certified" and r.checked and r.in_class for r in t.rows) and t.exit_code == 0
    assert {r.paper_class for r in t.rows} == {"Θ(1/n)"} and {r.certified.cls for r in t.rows} == {"Θ(1/n)"}


@pytest.mark.slow
def test_paper_table_every_row_certified_and_checked(tmp_path, capsys):
    """The whole simulation table at n = 10, 10^3, 10^6: every row certified, checked and in the paper's class
    (the bounded counting rows by the ladder, L-special-key, in Θ(1/n))."""
    rc = main(["table", "--paper", "--certs", str(tmp_path), "--json", "--quiet"])
    data = json.loads(capsys.readouterr().out)
    validate("table", data)
    assert len(data["rows"]) == len(PAPER_ROWS) == 12
    assert data["all_certified"] and data["all_checked"]
    assert [r["model"] for r in data["rows"] if not r["paper"]["in_class"]] == [] and rc == 0
    dyck = next(r for r in data["rows"] if r["model"] == "dyck-2-bounded")
    assert dyck["paper"]["class"] == "Ω(1/(n³ log n))" and dyck["paper"]["in_class"]
    assert len(list(tmp_path.glob("*.cert.json"))) == 12


def test_the_tables_example_in_docs_api_runs(tmp_path, monkeypatch, capsys):
    text = (ROOT / "docs" / "api.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S) if "build_table" in b)
    monkeypatch.chdir(tmp_path)
    exec(compile(block.replace('"models/', f'"{ROOT}/models/'), "docs/api.md", "exec"), {})  # noqa: S102
    assert capsys.readouterr().out.strip() == "23/(32*n) Θ(1/n) ('18.91', '32.95')"
    assert latex_problems((tmp_path / "since.tex").read_text()) == [] and (tmp_path / "since-tau.png").stat().st_size

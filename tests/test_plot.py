"""``certify plot`` and ``certify appendix``: figures are written (PNG and PDF, non-empty) and the plotted
numbers say what the figure shows; the appendix writes every table format, plot and certificate."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from certify import appendix as appendix_module
from certify.api import check_certificate, load_model
from certify.cli import main
from certify.plot import error_series, structured_words, tau_series
from certify.table import CONFIG as TABLE, PAPER_ROWS, SRASP_ROWS, read_critical
from test_user_json import validate

ROOT = Path(__file__).resolve().parents[1]
SINCE = str(ROOT / "models" / "since-a-b.json")
EXISTS = str(ROOT / "models" / "exists-b.json")


def test_tau_series_certified_above_generic():
    s = tau_series(SINCE, 10, 1000)
    certified, generic = s.curves
    assert s.certified_tau == "23/(32*n)" and certified.label.startswith("certified")
    assert certified.points[0] == (10, pytest.approx(23 / 320))
    by_n = dict(certified.points)
    assert all(by_n.get(n, 0) > t for n, t in generic.points if n in by_n)


def test_tau_series_draws_measured_critical_points(tmp_path):
    crit = tmp_path / "critical.json"
    crit.write_text(json.dumps([{"model": "since-a-b", "n": 100, "tau_star": "0.007"},
                                {"model": "since-a-b", "n": 10, "tau_star": "0.07"}]))
    s = tau_series(SINCE, 10, 100, read_critical(crit))
    assert s.curves[-1].label == "critical τ*" and s.curves[-1].points == ((10, 0.07), (100, 0.007))


def test_error_series_is_below_the_margin_at_the_certified_tau_and_not_when_hot():
    s = error_series(SINCE, 12)
    (label, tau), *_ = s.marks
    assert label.startswith("certified") and tau == pytest.approx(23 / 32 / 12)
    errors = dict(s.curve.points)
    assert all(e < 0.5 for t, e in errors.items() if t <= tau)  # below the margin 1/2: no decision flips
    assert max(errors.values()) > 0.1  # hot enough, some structured word flips
    assert len(s.words) >= 4 and all(len(w) == 12 for w in s.words)


def test_structured_words_cover_runs_cycles_and_halves():
    words = structured_words(load_model(SINCE), 6)
    assert ("a",) * 6 in words and ("c",) * 6 in words and ("a", "b", "c") * 2 in words  # alphabet abc
    assert ("a",) * 3 + ("c",) * 3 in words and len(words) == len(set(words))


@pytest.mark.parametrize("suffix", [".png", ".pdf"])
def test_plot_cli_writes_a_non_empty_figure(tmp_path, capsys, suffix):
    out = tmp_path / f"tau{suffix}"
    assert main(["plot", SINCE, EXISTS, "--n-range", "10:1e3", "-o", str(out), "--json", "--quiet"]) == 0
    data = json.loads(capsys.readouterr().out)
    validate("plot", data)
    assert out.stat().st_size > 1000 and data["out"] == str(out) and len(data["series"]) == 2
    head = out.read_bytes()[:8]
    assert head.startswith(b"\x89PNG") if suffix == ".png" else head.startswith(b"%PDF")


def test_error_plot_cli(tmp_path, capsys):
    out = tmp_path / "error.png"
    assert main(["plot", SINCE, "--kind", "error", "--n", "8", "-o", str(out), "--json", "--quiet"]) == 0
    data = json.loads(capsys.readouterr().out)
    validate("plot", data)
    assert out.stat().st_size > 1000 and data["series"][0]["n"] == 8


def test_plot_of_a_refuted_model_draws_the_generic_curve_and_exits_2(tmp_path, capsys):
    leak = str(ROOT / "tests" / "negative_models" / "threshold-leak.json")
    out = tmp_path / "leak.png"
    assert main(["plot", leak, "--n-range", "10:100", "-o", str(out), "--json", "--quiet"]) == 2
    data = json.loads(capsys.readouterr().out)
    assert data["certified"] is False and out.stat().st_size > 1000
    assert [c["label"] for c in data["series"][0]["curves"]] == ["generic (Theorem 26)"]


@pytest.mark.parametrize("argv, fragment", [
    (["plot", SINCE, "-o", "x.svg"], "-o"), (["plot", SINCE, "--n-range", "100:10"], "--n-range"),
    (["plot", SINCE, "--n-range", "10"], "--n-range"), (["plot", SINCE, "--n", "5"], "--n")])
def test_plot_cli_errors_are_exit_3(capsys, argv, fragment):
    assert main([*argv, "--quiet"]) == 3
    assert fragment in capsys.readouterr().err


def test_appendix_small_writes_every_format_plot_and_certificate(tmp_path, capsys, monkeypatch):
    """The appendix pipeline on one paper row and one other model (the full one is the slow test below)."""
    small = dataclasses.replace(appendix_module.CONFIG, table=dataclasses.replace(TABLE, paper_rows=PAPER_ROWS[:1],
                                                                          srasp_rows=SRASP_ROWS[:1]),
                                others=("models/since-a-b.json",), n_range=(10, 100), error_n=6,
                                error_models=("models/since-a-b.json",))
    monkeypatch.setattr(appendix_module, "CONFIG", small)  # the command reads it at run time
    rc = main(["appendix", "--out", str(tmp_path), "--n", "10,100", "--json", "--quiet"])
    data = json.loads(capsys.readouterr().out)
    validate("appendix", data)
    assert rc == 0 and data["paper"]["rows"] == 1 and data["others"]["rows"] == 1 and data["srasp"]["rows"] == 1
    assert data["srasp"]["all_certified"] and data["srasp"]["all_checked"] and data["srasp"]["all_in_class"]
    for name in ("paper-table.md", "paper-table.tex", "paper-table.csv", "models-table.md", "tau-bounded.png",
                 "tau-bounded.pdf", "error.png", "error.pdf", "appendix.json", "srasp-table.md", "srasp-table.tex",
                 "srasp-table.csv", "certificates/srasp-prefix-majority.cert.json",
                 "certificates/tl-prev-next-bounded.cert.json", "certificates/since-a-b.cert.json"):
        assert (tmp_path / name).stat().st_size > 0, name
        assert name in data["files"]
    validate("appendix", json.loads((tmp_path / "appendix.json").read_text()))
    assert check_certificate(tmp_path / "certificates" / "since-a-b.cert.json", SINCE).valid
    header = (tmp_path / "models-table.csv").read_text().splitlines()[0].split(",")  # issue 17's columns
    assert header[-2:] == ["n_max_certified@float64", "n_max_certified@float32"]
    assert "float32: certified" in (tmp_path / "paper-table.md").read_text()


@pytest.mark.slow
def test_full_appendix(tmp_path, capsys):
    rc = main(["appendix", "--out", str(tmp_path), "--json", "--quiet"])
    data = json.loads(capsys.readouterr().out)
    validate("appendix", data)
    assert data["paper"]["all_certified"] and data["paper"]["all_checked"] and data["others"]["all_certified"]
    assert data["srasp"]["all_certified"] and data["srasp"]["all_checked"] and data["srasp"]["all_in_class"]
    assert rc in (0, 2) and len(list((tmp_path / "certificates").glob("*.cert.json"))) == 24

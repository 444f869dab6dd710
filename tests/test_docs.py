"""The documentation in docs/ stands on its own and its examples do what it says.

The worked model of docs/model-format.md is extracted from the Markdown and must
validate, run and certify exactly as the page shows; every page is reachable from
docs/index.md; no page points outside the clone.
"""
from __future__ import annotations

import re
from pathlib import Path

from certify.cli import main

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _worked_example() -> str:
    text = (DOCS / "model-format.md").read_text()
    section = text.split("## A worked example", 1)[1]
    return re.search(r"```json\n(.*?)```", section, re.S).group(1)


def test_worked_example_validates_runs_and_certifies(tmp_path, capsys):
    path = tmp_path / "b-after-first.json"
    path.write_text(_worked_example())
    assert main(["validate-model", str(path)]) == 0
    assert main(["run", str(path), "abab"]) == 0
    assert main(["run", str(path), "baaa"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("valid: b-after-first:")
    assert out[1:] == ["position 1: out = 1 -> true", "position 1: out = 0 -> false"]
    assert main([str(path), "--nmax", "1e3"]) == 0
    assert capsys.readouterr().out.startswith(
        "certified: b-after-first: soft = hard for every input of length 1..1000 at τ(n) = 1/(4*n)")


def test_index_links_every_page():
    index = (DOCS / "index.md").read_text()
    linked = set(re.findall(r"\]\(([\w.-]+\.md)\)", index))
    pages = {p.name for p in DOCS.glob("*.md")} - {"index.md"}
    assert pages <= linked
    assert {"cli.md", "api.md"} <= linked


def test_docs_do_not_point_outside_the_clone():
    for page in DOCS.glob("*.md"):
        assert "shared/" not in page.read_text(), page.name


def test_export_page_python_example_runs(tmp_path, monkeypatch):
    """The onnxruntime snippet of docs/export.md runs on the file its command writes."""
    import pytest

    pytest.importorskip("onnxruntime")
    text = (DOCS / "export.md").read_text()
    command = re.search(r"after `certify export (.*?)`", text).group(1).split()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    command[0] = str(DOCS.parent / command[0])
    assert main(["export", *[c.strip('"') for c in command]]) == 0
    namespace: dict = {}
    exec(code, namespace)  # noqa: S102 - the page's own example
    from certify.evaluate import hard_run
    from certify.model import load_model

    model = load_model(command[0])
    assert namespace["decision"].tolist() == [list(hard_run(model, list(w)).decisions) for w in namespace["words"]]

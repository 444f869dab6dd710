"""Issue 5: shipped compiled models equal the compiler output and pass the gate."""
from pathlib import Path

import pytest

from certify.model import dumps_model, load_model
from proofs.constructions.check import check
from proofs.constructions.regenerate import CATALOG, TARGET, tasks

TASKS = tasks()


def test_every_table_row_is_shipped():
    rows = {row for _, row, _ in CATALOG}
    assert rows == {"TL[prev,next]", "TL[S,U]", "counting logic with +, Mon", "induction heads",
                    "AHAT with gap gamma(n)", "S-RASP, Dyck-k"}
    shipped = {p.stem for p in Path(TARGET).glob("*.json")}
    assert shipped == set(TASKS)


@pytest.mark.parametrize("stem", sorted(TASKS))
def test_shipped_file_equals_compiler_output(stem):
    path = Path(TARGET) / f"{stem}.json"
    assert path.read_text() == dumps_model(TASKS[stem].model), "run: python -m proofs.constructions.regenerate"
    model = load_model(path)
    assert model.name == stem and model.temperature is not None


@pytest.mark.parametrize("stem", sorted(TASKS))
def test_shipped_model_gate(stem):
    small = stem.startswith("dyck")
    result = check(TASKS[stem], exhaustive=3 if small else 4, random_count=4, max_len=64, soft=2)
    assert result.ok, result.counterexample


@pytest.mark.slow
@pytest.mark.parametrize("stem", sorted(TASKS))
def test_shipped_model_gate_full(stem):
    result = check(TASKS[stem], exhaustive=6 if stem.startswith("dyck") else 8, random_count=200, max_len=64,
                   soft=10)
    assert result.ok, result.counterexample

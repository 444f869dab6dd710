"""``certify export``: the ONNX graph and the npz arrays compute what the evaluators compute.

Every shipped model is exported at n = 8 and n = 64 and run in onnxruntime on seeded
random words: soft graphs agree with ``float_run`` (the float64 evaluator) at the model's
temperature (τ = 1/n for models without one), hard graphs with ``hard_run`` (exact
rationals; ``float_run`` has no hard mode), both to 1e-9 on the output and on the whole
final residual stream, and the decisions are equal.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from certify.cli import main  # noqa: E402
from certify.errors import UserError  # noqa: E402
from certify.evaluate import float_run, hard_run  # noqa: E402
from certify.export import export_weights, load_npz, save_npz, to_onnx  # noqa: E402
from certify.expr import parse_expr  # noqa: E402
from certify.model import load_model, model_from_dict  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted((ROOT / "models").glob("*.json")) + sorted((ROOT / "models" / "compiled").glob("*.json"))
TOLERANCE = 1e-9
ONE_OVER_N = parse_expr("1/n", variables=("n",))


def session(proto):
    options = ort.SessionOptions()
    options.log_severity_level = 3
    return ort.InferenceSession(proto.SerializeToString(), options, providers=["CPUExecutionProvider"])


def random_words(model, n: int, count: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, len(model.alphabet), size=(count, n))


def worst_difference(model, proto, words: np.ndarray, reference) -> float:
    """Run the graph on a batch of words; max |graph − reference| over y and the final stream."""
    y, decision, stream = session(proto).run(["y", "decision", "stream"], {"tokens": words})
    worst = 0.0
    for b, row in enumerate(words):
        run = reference([model.alphabet[k] for k in row])
        expected_stream = np.array([[float(v) for v in r] for r in run.streams[-1]])
        worst = max(worst, float(np.max(np.abs(y[b] - np.array([float(v) for v in run.outputs])))),
                    float(np.max(np.abs(stream[b] - expected_stream))))
        assert decision[b].tolist() == list(run.decisions)
    return worst


def test_every_shipped_model_is_tested():
    """The glob finds both folders (18 models today), so the parametrised test cannot pass vacuously."""
    assert {p.parent.name for p in SHIPPED} == {"models", "compiled"} and len(SHIPPED) >= 18


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_onnx_agrees_with_the_evaluators(path):
    model = load_model(path)
    tau = model.temperature or ONE_OVER_N
    for n in (8, 64):
        words = random_words(model, n, 4, seed=n)
        soft = worst_difference(model, to_onnx(export_weights(model, n, tau)), words,
                                lambda w: float_run(model, w, tau))
        hard = worst_difference(model, to_onnx(export_weights(model, n, None)), words[:2],
                                lambda w: hard_run(model, w))
        assert soft <= TOLERANCE and hard <= TOLERANCE, (n, soft, hard)


def _visibility_model() -> dict:
    """Every visibility and hard kind, with a BOS: rows that see no key (j<i at the first row,
    j>i at the last) must add nothing, and ties must be broken left, right or averaged."""
    heads = [{"name": f"{kind}-{vis}", "hard": kind, "visible": vis,
              "score": [["a", "a", 1], ["one", "pos", "1/3"]], "value": [[f"out-{kind}-{k}", "pos", 1]]}
             for k, (kind, vis) in enumerate([("average", "all"), ("leftmost", "j>=i"), ("rightmost", "j>i"),
                                              ("leftmost", "j<i"), ("average", "j<=i")])]
    dims = ["one", "a", "pos"] + [h["value"][0][0] for h in heads] + ["out"]
    return {"format": "hardsoft.model/1", "name": "visibility", "alphabet": ["a", "b"], "bos": "<s>",
            "dims": dims, "embed": {"token": {"a": {"a": 1}, "b": {}, "<s>": {"one": 1}},
                                    "position": {"one": "1", "pos": "(-1)^i*i/n"}},
            "layers": [{"type": "attention", "heads": heads},
                       {"type": "ffn", "hidden": [{"in": {d: 1 for d in dims[3:-1]}, "bias": "-1/2",
                                                   "out": {"out": 1}}]}],
            "output": {"dim": "out", "position": "all", "threshold": "1/4"}}


def test_every_visibility_and_hard_kind():
    model = model_from_dict(_visibility_model())
    for n in (1, 2, 9):
        words = random_words(model, n, 3, seed=n)
        assert worst_difference(model, to_onnx(export_weights(model, n, ONE_OVER_N)), words,
                                lambda w: float_run(model, w, ONE_OVER_N)) <= TOLERANCE
        assert worst_difference(model, to_onnx(export_weights(model, n, None)), words,
                                lambda w: hard_run(model, w)) <= TOLERANCE


def test_npz_round_trip_rebuilds_the_same_graph(tmp_path):
    model = load_model(ROOT / "models" / "compiled" / "counting-majority-bounded.json")
    out = tmp_path / "model.npz"
    assert main(["export", str(ROOT / "models" / "compiled" / "counting-majority-bounded.json"),
                 "--format", "npz", "--n", "16", "-o", str(out)]) == 0
    loaded = load_npz(out)
    direct = export_weights(model, 16, model.temperature)
    assert loaded.metadata == direct.metadata
    assert sorted(loaded.arrays) == sorted(direct.arrays)
    for name, array in direct.arrays.items():
        assert loaded.arrays[name].dtype == array.dtype and np.array_equal(loaded.arrays[name], array), name
    words = random_words(model, 16, 3, seed=1)
    assert worst_difference(model, to_onnx(loaded), words,
                            lambda w: float_run(model, w, model.temperature)) <= TOLERANCE


def test_npz_arrays_are_named_by_dims(tmp_path):
    model = load_model(ROOT / "models" / "since-a-b.json")
    weights = export_weights(model, 4, None)
    save_npz(weights, tmp_path / "w.npz")
    w = load_npz(tmp_path / "w.npz")
    dims, symbols = w.metadata["dims"], w.metadata["symbols"]
    b = w.arrays["token_embed"][symbols.index("b")]
    assert {d for d, v in zip(dims, b) if v} == {"b", "p"}
    assert w.arrays["position_embed"][:, dims.index("pos")].tolist() == [0.25, 0.5, 0.75, 1.0]
    score = w.arrays["layer0.head0.score"]
    assert score[dims.index("one"), dims.index("pos")] == 0.5 and np.count_nonzero(score) == 2
    assert w.arrays["layer0.head0.value"][dims.index("b"), dims.index("v")] == 1
    assert w.arrays["layer1.ffn.bias"].tolist() == [0.0, 0.0]
    assert w.arrays["output.rows"].tolist() == [3] and w.metadata["output"]["threshold"] == "1/2"
    assert w.metadata["semantics"] == "hard" and w.metadata["layers"][0]["heads"][0]["hard"] == "rightmost"


def test_load_npz_refuses_foreign_files(tmp_path):
    np.savez(tmp_path / "other.npz", x=np.zeros(2))
    (tmp_path / "text.npz").write_text("not a zip")
    for name in ("other.npz", "text.npz"):
        with pytest.raises(UserError):
            load_npz(tmp_path / name)


def test_cli_json_describes_the_file(tmp_path, capsys):
    out = tmp_path / "m.onnx"
    assert main(["export", str(ROOT / "models" / "since-a-b.json"), "--n", "8", "--tau", "1/(4*n)",
                 "-o", str(out), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["bytes"] == out.stat().st_size and info["semantics"] == "soft"
    assert info["tau"] == "1/(4*n)" and info["tau_value"] == 1 / 32
    assert info["inputs"] == [{"name": "tokens", "dtype": "int64", "shape": ["batch", 8]}]
    proto = onnx.load(str(out))
    assert json.loads({p.key: p.value for p in proto.metadata_props}["hardsoft.metadata"])["n"] == 8


@pytest.mark.parametrize("argv, flag", [
    (["--n", "0", "-o", "x.onnx"], "--n"),
    (["--n", "ten", "-o", "x.onnx"], "--n"),
    (["--n", "8"], "-o/--output"),
    (["--n", "8", "--format", "tflite", "-o", "x"], "--format"),
    (["--n", "8", "--tau", "1 - n", "-o", "x.onnx"], "--tau"),
    (["--n", "8", "--tau", "log(n - 8)", "-o", "x.onnx"], "--tau"),
    (["--n", "8", "--tau", "1/", "-o", "x.onnx"], "--tau"),
    (["--n", "8", "-o", "x.onnx"], "--tau"),  # since-a-b has no temperature
    (["--n", "8", "--hard", "--tau", "1", "-o", "x.onnx"], "--hard"),
])
def test_cli_bad_input_is_one_line_exit_3(argv, flag, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["export", str(ROOT / "models" / "since-a-b.json"), *argv]) == 3
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and flag in err
    assert not list(tmp_path.iterdir())


def test_model_temperature_not_positive_names_it(tmp_path, capsys):
    obj = json.loads((ROOT / "models" / "since-a-b.json").read_text())
    obj["temperature"] = "1/2 - 1/n"
    path = tmp_path / "cold.json"
    path.write_text(json.dumps(obj))
    assert main(["export", str(path), "--n", "2", "-o", str(tmp_path / "x.onnx")]) == 3
    assert "the model's temperature" in capsys.readouterr().err

"""certify import tracr: all 22 compiled tracr fixtures import, the hard model is the RASP program,
soft at tracr's own temperature is tracr (to 1e-5), and hard is tracr's weights at τ → 0."""
import json
import math
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest

from certify.cli import main
from certify.evaluate import float_run, hard_run, soft_run
from certify.kernel.structure import analyse, Unsupported
from certify.model import model_from_dict
from certify.tracr_import import (check_against_reference, convert, decode_value, exact_rational, load_export,
                                  temperature_interval, tracr_temperature)
from tracr_npforward import forward

FIXTURES = Path(__file__).parent / "fixtures" / "tracr"
NAMES = sorted(p.name for p in FIXTURES.iterdir())
_CACHE: dict = {}


def imported(name):
    if name not in _CACHE:
        export = load_export(FIXTURES / name)
        _CACHE[name] = export, model_from_dict(convert(export))
    return _CACHE[name]


def test_all_22_fixtures_are_present():
    assert len(NAMES) == 22


@pytest.mark.parametrize("x,expected", [(1 / 3, Fraction(1, 3)), (0.1, Fraction(1, 10)), (100 / 7, Fraction(100, 7)),
                                        (-0.5, Fraction(-1, 2)), (5 / 11, Fraction(5, 11)), (0.0, Fraction(0))])
def test_exact_rational_is_the_simplest_rational_rounding_to_the_float(x, expected):
    r = exact_rational(x)
    assert r == expected and float(r) == x


def test_exact_rational_never_takes_the_binary_expansion():
    assert exact_rational(0.1) != Fraction(0.1)
    for x in np.random.default_rng(0).random(200).tolist():
        r = exact_rational(x)
        assert float(r) == x and r.denominator <= Fraction(x).denominator


@pytest.mark.parametrize("name", NAMES)
def test_import_structure(name):
    export, model = imported(name)
    spec = export.spec
    assert model.max_length == spec["compiler"]["max_seq_len"]
    assert model.bos == "compiler_bos" and "compiler_pad" not in model.alphabet
    lo, hi = model.temperature_interval
    with mpmath.workdps(60):
        tau = mpmath.sqrt(spec["architecture"]["key_size"]) / 100
        assert mpmath.mpf(lo.numerator) / lo.denominator <= tau <= mpmath.mpf(hi.numerator) / hi.denominator
    assert (lo, hi) == temperature_interval(spec) and hi - lo == Fraction(1, 10**30)
    # tracr's categorical_attn: W_Q W_K^T = coldness · A with A ∈ {0, 1/2, 1} (plus numerical heads' ±1)
    coefs = {c for _, h in model.heads for _, _, c in h.score}
    assert coefs <= {Fraction(1, 2), Fraction(1), Fraction(-1)}, coefs
    if spec["output"]["encoding"] == "categorical":
        assert len(model.output.argmax) == len(spec["output"]["space"])
    else:
        assert model.output.threshold == Fraction(spec["question"]["value"])
    # the position table is tracr's one-hot indices, BOS row empty
    table = dict(model.position_table)
    assert all(v[0] == 0 for v in table.values())
    assert sorted(sum(v[p] for v in table.values()) for p in range(1, model.max_length + 1)) == [1] * model.max_length


def _soft_vectors(model, word, tau):
    return np.array(float_run(model, word, tau).outputs, dtype=float)


@pytest.mark.parametrize("name", NAMES)
def test_soft_at_tracr_temperature_is_tracr(name):
    """float64 softmax at τ = sqrt(K)/100 reproduces tracr's recorded outputs, and the numpy
    re-implementation of tracr's forward pass to 1e-5 on every output coordinate."""
    export, model = imported(name)
    spec = export.spec
    tau = float(tracr_temperature(spec))
    for sample in spec["samples"]:
        word = tuple(str(t) for t in sample["input"])
        run = float_run(model, word, tau)
        decoded, y = forward(spec, export.params32, word, dtype=np.float64)
        if model.output.argmax:
            assert list(run.decisions) == sample["tracr_unembedded"][1:], word
            assert np.max(np.abs(np.array(run.outputs) - y)) < 1e-5
        else:
            assert np.max(np.abs(np.array(run.outputs) - np.array(sample["tracr_unembedded"][1:]))) < 1e-5


@pytest.mark.parametrize("name", ["count_a-ab-5", "frac_prevs-ab-5", "reverse-ab-5"])
def test_mpmath_soft_at_tracr_temperature_is_tracr(name):
    export, model = imported(name)
    spec = export.spec
    sample = spec["samples"][0]
    word = tuple(str(t) for t in sample["input"])
    run = soft_run(model, word, tracr_temperature(spec))
    _, y = forward(spec, export.params64, word)
    got = np.array([[float(v) for v in row] for row in run.outputs]) if model.output.argmax else \
        np.array([float(v) for v in run.outputs])
    assert np.max(np.abs(got - (y if model.output.argmax else y[:, 0]))) < 1e-5


def _words(export, count):
    ref = json.loads((FIXTURES / export.spec["name"] / "reference.json").read_text())
    return [tuple(str(t) for t in s["input"]) for s in export.spec["samples"]] + \
        [tuple(str(t) for t in r["input"]) for r in ref["rows"][-count:]]


@pytest.mark.parametrize("name", NAMES)
def test_hard_model_is_tracr_weights_at_zero_temperature(name):
    """The exact hard model decides as tracr's float64 weights with softmax replaced by hardmax."""
    export, model = imported(name)
    for word in _words(export, 6):
        decoded, _ = forward(export.spec, export.params64, word, hard=True)
        run = hard_run(model, word)
        if model.output.argmax:
            assert list(run.decisions) == decoded, word
        else:
            assert max(abs(float(v) - d) for v, d in zip(run.outputs, decoded)) < 1e-9


@pytest.mark.parametrize("name", NAMES)
def test_hard_model_is_the_rasp_program(name):
    """--check on a slice of reference.json (the last rows: the longest, random inputs)."""
    export, model = imported(name)
    ref = json.loads((FIXTURES / name / "reference.json").read_text())
    ref["rows"] = ref["rows"][-3:] + [r for r in ref["rows"] if len(set(r["input"])) == 1][-1:]
    rep = check_against_reference(model, export, ref)
    assert rep.inputs == 4 and rep.hard_vs_rasp == _npforward_wrong(export, ref["rows"])


def _npforward_wrong(export, rows) -> int:
    """Rows where tracr's own float64 weights at τ → 0 (hardmax) decode differently from RASP."""
    space = [decode_value(s["value"]) for s in export.spec["output"]["space"]]
    wrong = 0
    for row in rows:
        decoded, _ = forward(export.spec, export.params64, [str(t) for t in row["input"]], hard=True)
        if export.spec["output"]["encoding"] == "categorical":
            decoded = [space[k] for k in decoded]
            wrong += decoded != row["rasp"]
        else:
            wrong += any(abs(d - r) > 1e-9 for d, r in zip(decoded, row["rasp"]))
    return wrong


def test_check_finds_the_count_a_miscount_at_length_10():
    """tracr's count_a at max_seq_len 10 decodes the selector-width value 1/11 as 9: 'aaaaaaaaaa'
    (and every word with ten a's) is miscounted, by the hard model and by tracr alike."""
    export, model = imported("count_a-ab-10")
    ref = {"rows": [{"input": list("a" * 10), "rasp": [10] * 10}, {"input": list("a" * 9), "rasp": [9] * 9}]}
    rep = check_against_reference(model, export, ref)
    assert rep.hard_vs_rasp == 1 and rep.hard_vs_rasp_examples[0]["hard"] == [9] * 10 and rep.soft_vs_hard == 0


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_hard_model_is_the_rasp_program_on_every_reference_input(name):
    export, model = imported(name)
    rep = check_against_reference(model, export, json.loads((FIXTURES / name / "reference.json").read_text()))
    report = json.loads((FIXTURES / name / "report.json").read_text())
    assert rep.hard_vs_rasp == _npforward_wrong(export, json.loads((FIXTURES / name / "reference.json").read_text())["rows"])
    assert rep.soft_vs_hard <= report["exhaustive"]["wrong_inputs"] + report["random"]["wrong_inputs"] + rep.hard_vs_rasp


def test_cli_import_check_json(tmp_path, capsys):
    out = tmp_path / "m.json"
    assert main(["import", "tracr", str(FIXTURES / "count_a-ab-5"), "-o", str(out), "--check", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["check"]["inputs"] == 282 and result["check"]["hard_vs_rasp"] == 0
    assert json.loads(out.read_text())["format"] == "hardsoft.model/2"
    assert main(["run", str(out), "aaaaaa"]) == 3
    assert "max_length 5" in capsys.readouterr().err


def test_cli_import_errors_are_one_line_exit_3(tmp_path, capsys):
    assert main(["import", "tracr", str(tmp_path), "-o", str(tmp_path / "m.json")]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "DIR" in err and "model.json missing" in err
    assert main(["import", "tracr", str(FIXTURES / "count_a-ab-5")]) == 3  # -o is required


def test_import_rejects_float64_that_does_not_round_to_float32():
    export = load_export(FIXTURES / "count_a-ab-5")
    bad = dict(export.params64)
    w = bad["token_embed/embeddings"].copy()
    w[0, 0] += 1e-3
    bad["token_embed/embeddings"] = w
    with pytest.raises(Exception, match="bit for bit"):
        convert(type(export)(export.spec, bad, export.params32))


def test_wide_binary_key_head_does_not_build_the_product():
    """sort_unique at max_seq_len 10 had one head over 46 binary key dims (2^46 combinations): the
    kernel must refuse from the set sizes, not run out of memory building the product."""
    dims = ["one"] + [f"k{j}" for j in range(46)] + ["y"]
    token = {"a": {"one": 1, "k0": 1}, "b": {"one": 1, "k1": 1}, "^": {"one": 1}}
    model = model_from_dict({
        "format": "hardsoft.model/1", "name": "wide", "alphabet": ["a", "b"], "bos": "^", "dims": dims,
        "embed": {"token": token},
        "layers": [{"type": "attention", "heads": [{"name": "w", "hard": "average", "visible": "all",
                                                    "score": [["one", f"k{j}", 1] for j in range(46)],
                                                    "value": [["y", "k0", 1]]}]},
                   {"type": "ffn", "hidden": [{"in": {f"k{j}": 1 for j in range(46)}, "out": {"y": 1}}]}],
        "output": {"dim": "y", "position": "last", "threshold": "1/2"}})
    from certify.certifier import CertifyConfig, certify

    try:
        st = analyse(model)
    except Unsupported:
        st = None
    if st is not None:
        assert st.facts[1].combos is None  # 2^46 joint inputs: not enumerated
    assert certify(model, 1, 8, None, cfg=CertifyConfig(refute=False)).verdict in ("certified", "not proved")


def test_reverse_at_length_10_is_refuted_at_tracr_temperature():
    """tracr's own softmax (τ = sqrt(22)/100) reverses 'bbbbbbbbbb' wrongly: the per-length search finds
    the word, confirmed exactly at the interval's rational end and at the irrational τ itself."""
    from certify.expr import Num
    from certify.length_report import SearchConfig, confirmed, find_counterexample

    export, model = imported("reverse-ab-10")
    word = find_counterexample(model, 10, Num(model.temperature_interval[1]), SearchConfig(seconds=20))
    assert word is not None and len(word) == 10
    assert confirmed(model, word, tracr_temperature(export.spec))
    _, y = forward(export.spec, export.params32, word, dtype=np.float32)  # what tracr itself computes
    assert list(np.argmax(y, axis=-1)) != list(hard_run(model, word).decisions)

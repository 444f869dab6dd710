"""model.json v2 (docs/model-format-v2.md): argmax outputs, position tables with max_length,
temperature intervals; their kernel facts; the per-length report of bounded models."""
import copy
import json
from fractions import Fraction
from pathlib import Path

import pytest

from certify.certifier import certify
from certify.cli import main
from certify.errors import ModelError, UserError
from certify.evaluate import first_argmax, float_run, hard_run, soft_run
from certify.expr import parse_expr
from certify.kernel.structure import analyse, argmax_gap, embed_coords
from certify.length_report import confirmed, length_report, summary
from certify.model import model_from_dict

V2 = Path(__file__).parent / "fixtures" / "v2"
LAST = json.loads((V2 / "last_token.json").read_text())
FIRST = json.loads((V2 / "first_token.json").read_text())


def _model(obj):
    return model_from_dict(obj)


def _with(obj, path, value):
    out = copy.deepcopy(obj)
    node = out
    for key in path[:-1]:
        node = node[key]
    if value is None:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return out


@pytest.mark.parametrize("path,value,where", [
    (["max_length"], None, "embed.position_table"),
    (["max_length"], 0, "max_length"),
    (["embed", "position_table", "p1"], [0, 1, 0], "embed.position_table.p1"),
    (["embed", "position_table", "p1"], [0, 1, 0, 0, "x"], "embed.position_table.p1[4]"),
    (["output", "argmax"], ["out_a", "nope"], "output.argmax[1]"),
    (["output", "argmax"], ["out_a"], "output.argmax"),
    (["output", "threshold"], "1/2", "output.threshold"),
    (["temperature_interval"], ["1/2", "1/3"], "temperature_interval"),
    (["temperature_interval"], ["1/2"], "temperature_interval"),
])
def test_v2_rejections_name_the_key(path, value, where):
    with pytest.raises(ModelError) as exc:
        _model(_with(LAST, path, value))
    assert exc.value.path == where


def test_v2_keys_are_refused_in_v1_files():
    for obj in (_with(LAST, ["format"], "hardsoft.model/1"),):
        with pytest.raises(ModelError, match="unknown key"):
            _model(obj)


def test_temperature_and_interval_are_exclusive():
    obj = _with(_with(LAST, ["temperature_interval"], ["1/50", "1/40"]), ["temperature"], "1/50")
    with pytest.raises(ModelError, match="not both"):
        _model(obj)
    assert _model(_with(LAST, ["temperature_interval"], ["1/50", "1/40"])).temperature_interval == \
        (Fraction(1, 50), Fraction(1, 40))


def test_position_table_values_reach_the_stream_exactly():
    model = _model(LAST)
    run = hard_run(model, ("c", "c", "a"))
    p1 = model.dims.index("p1")
    assert [row[p1] for row in run.streams[0]] == [0, 1, 0, 0]  # BOS row gets table[0]
    assert run.outputs[0] == (0, 0, 3) and run.outputs[1] == (0, 0, 1) and run.decisions == (2, 2, 0)
    assert float_run(model, ("c", "c", "a"), 1).decisions == run.decisions


def test_inputs_longer_than_max_length_are_user_errors():
    model = _model(LAST)
    with pytest.raises(UserError, match="max_length 4"):
        hard_run(model, tuple("abcab"))
    assert main(["run", str(V2 / "last_token.json"), "abcab"]) == 3


def test_argmax_decision_is_the_first_maximum():
    assert first_argmax((1, 3, 3)) == 1 and first_argmax((2, 2)) == 0 and first_argmax((0, 0, 1)) == 2
    tie = _with(LAST, ["layers", 0, "hidden", 2], {"in": {"tc": 1, "p1": 1}, "bias": "-1/2", "out": {"out_c": 2}})
    run = hard_run(_model(tie), ("a",))
    assert run.outputs == ((1, 0, 1),) and run.decisions == (0,)


def test_position_table_dims_are_finite_coordinates():
    coords = embed_coords(_model(LAST))
    assert coords["p1"].fin == {0, 1} and coords["p1"].rest == {0, 1} and coords["p1"].at_bos == 0
    assert coords["p0"].rest == {0} and coords["p0"].at_bos == 1


def test_argmax_margin_is_half_the_least_gap_over_joint_hard_outputs():
    model = _model(LAST)
    assert argmax_gap(model, analyse(model)) == 1
    outcome = certify(model, 1, 4, parse_expr("1/50", ("n",)))
    assert outcome.verdict == "certified" and outcome.certificate["claim"]["margin"] == "0.5"
    # 'a' at position 1 gives (1, 0, 1): a tie the margin must see
    tie = _model(_with(LAST, ["layers", 0, "hidden", 2], {"in": {"tc": 1, "p1": 1}, "bias": "-1/2",
                                                           "out": {"out_c": 2}}))
    assert argmax_gap(tie, analyse(tie)) == 0


def test_argmax_margin_is_zero_when_a_head_output_can_tie():
    model = _model(FIRST)  # f is a mean of key values: (1/2, 1/2) cannot be excluded by the kernel
    assert argmax_gap(model, analyse(model)) == 0


def test_length_report_refutes_with_confirmed_words():
    model = _model(FIRST)
    tau = parse_expr("10", ("n",))
    verdicts = length_report(model, 1, 4, tau)
    assert [v.verdict for v in verdicts] == ["not proved", "refuted", "refuted", "refuted"]
    for v in verdicts[1:]:
        assert len(v.word) == v.n and confirmed(model, tuple(v.word), tau)
        assert hard_run(model, tuple(v.word)).decisions != soft_run(model, tuple(v.word), tau).decisions
    assert "refuted at n = 2 by `ab`" in summary(verdicts)


def test_length_report_cli_json(capsys):
    assert main([str(V2 / "last_token.json"), "--tau", "1/50", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "certified" and [v["n"] for v in out["lengths"]] == [1, 2, 3, 4]
    assert main([str(V2 / "first_token.json"), "--tau", "10"]) == 1
    assert "refuted at n = 2 by `ab`" in capsys.readouterr().out
    assert main([str(V2 / "last_token.json"), "--nmin", "5"]) == 3


def test_summary_groups_runs():
    from certify.length_report import LengthVerdict as V
    text = summary([V(1, "certified", "1"), V(2, "certified", "1"), V(3, "refuted", "1", "aab")])
    assert text == "certified for n ≤ 2; refuted at n = 3 by `aab`"


def test_certifier_refuses_lengths_beyond_max_length():
    """Position-table facts hold only for n ≤ max_length: a longer range is invalid input, not a claim."""
    model = _model(LAST)
    for n_max in (5, "inf"):
        with pytest.raises(UserError, match="max_length 4"):
            certify(model, 1, n_max, parse_expr("1/50", ("n",)))


def test_export_refuses_argmax_outputs():
    from certify.export import export_weights

    with pytest.raises(UserError, match="argmax"):
        export_weights(_model(LAST), 3, None)

"""Done-when 2: hostile models fail fast (< 2 s), exit 3, one line on stderr, no traceback.

Every rejection of a model's content must name the key path (model-format.md,
"Errors"); file-level problems (bad JSON, nesting, size) have no path to name.  The
expensive cases run through the real console entry point in a subprocess, so a
crash, a hang or a traceback would show; the many cheap cases run in-process
through ``certify.cli.main`` (same code, no interpreter start-up per case).
"""
from __future__ import annotations

import copy
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from certify.cli import main as certify_main

ROOT = Path(__file__).parents[1]
BASE = json.loads((ROOT / "models" / "since-a-b.json").read_text())
BASE_TEXT = json.dumps(BASE)


def edited(edit) -> str:
    model = copy.deepcopy(BASE)
    edit(model)
    return json.dumps(model)


def replaced(old: str, new: str) -> str:
    assert old in BASE_TEXT
    return BASE_TEXT.replace(old, new, 1)


def check_rejected(capsys, tmp_path, text: str | bytes, *expected: str, command=("validate-model",), extra=()):
    """In-process: exit 3, exactly one stderr line containing every expected fragment, < 2 s."""
    path = tmp_path / "hostile.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    start = time.perf_counter()
    rc = certify_main([*command, str(path), *extra])
    elapsed = time.perf_counter() - start
    err = capsys.readouterr().err
    assert rc == 3, err
    assert elapsed < 2.0
    assert len(err.strip().splitlines()) == 1 and err.endswith("\n"), err
    assert "Traceback" not in err
    for fragment in expected:
        assert fragment in err, (fragment, err)
    return err


# ------------------------------------------------------------------ model content: key path named

def _set(path, value):
    def edit(m):
        obj = m
        for k in path[:-1]:
            obj = obj[k]
        obj[path[-1]] = value
    return edit


def _delete(path):
    def edit(m):
        obj = m
        for k in path[:-1]:
            obj = obj[k]
        del obj[path[-1]]
    return edit


HEAD = ["layers", 0, "heads", 0]
CONTENT_CASES = {
    # unknown dims
    "score-unknown-dim": (_set(HEAD + ["score", 1], ["one", "q", 1]), ["layers[0].heads[0].score[1]", "'q'"]),
    "value-unknown-dim": (_set(HEAD + ["value", 0], ["zz", "b", 1]), ["layers[0].heads[0].value[0]", "'zz'"]),
    "token-unknown-dim": (_set(["embed", "token", "a"], {"q": 1}), ["embed.token.a", "'q'"]),
    "position-unknown-dim": (_set(["embed", "position", "q"], "i"), ["embed.position.q", "'q'"]),
    "ffn-unknown-dim": (_set(["layers", 1, "hidden", 0, "in"], {"q": 1}), ["layers[1].hidden[0].in", "'q'"]),
    "output-unknown-dim": (_set(["output", "dim"], "q"), ["output.dim", "'q'"]),
    # numbers
    "exponent-string": (_set(["embed", "token", "a", "a"], "1e400"), ["embed.token.a.a"]),
    "numerator-over-1e30": (_set(["embed", "token", "a", "a"], "1000000000000000000000000000001/2"),
                            ["embed.token.a.a", "10^30"]),
    "denominator-over-1e30": (_set(HEAD + ["score", 1], ["one", "pos", "1/1000000000000000000000000000001"]),
                              ["layers[0].heads[0].score[1]", "10^30"]),
    "int-over-1e30": (_set(["output", "threshold"], 10**30 + 1), ["output.threshold", "10^30"]),
    "zero-denominator": (_set(["output", "threshold"], "1/0"), ["output.threshold"]),
    "boolean-number": (_set(HEAD + ["score", 0], ["one", "p", True]), ["layers[0].heads[0].score[0]"]),
    # code and out-of-grammar text in expressions
    "import": (_set(["embed", "position", "pos"], "__import__('os')"), ["embed.position.pos"]),
    "eval": (_set(["embed", "position", "pos"], "eval(1)"), ["embed.position.pos"]),
    "python-power": (_set(["embed", "position", "pos"], "i**2"), ["embed.position.pos"]),
    "exp-call": (_set(["embed", "position", "pos"], "exp(i)"), ["embed.position.pos"]),
    "log-in-pe": (_set(["embed", "position", "pos"], "log(i+1)"), ["embed.position.pos"]),
    "exponent-over-8": (_set(["embed", "position", "pos"], "i^9"), ["embed.position.pos"]),
    "variable-exponent": (_set(["embed", "position", "pos"], "2^i"), ["embed.position.pos"]),
    "scientific-in-expr": (_set(["embed", "position", "pos"], "1e400"), ["embed.position.pos"]),
    "unknown-variable": (_set(["embed", "position", "pos"], "j/n"), ["embed.position.pos"]),
    "over-200-chars": (_set(["embed", "position", "pos"], "+".join(["i"] * 101)), ["embed.position.pos"]),
    "temperature-uses-i": (_set(["temperature"], "1/i"), ["temperature"]),
    # missing keys, wrong types, unknown keys, duplicates, bad choices
    "missing-output": (_delete(["output"]), ["output"]),
    "missing-visible": (_delete(HEAD + ["visible"]), ["layers[0].heads[0]", "visible"]),
    "missing-threshold": (_delete(["output", "threshold"]), ["output", "threshold"]),
    "missing-token-symbol": (_delete(["embed", "token", "c"]), ["embed.token", "'c'"]),
    "dims-not-list": (_set(["dims"], "one"), ["dims"]),
    "layers-not-list": (_set(["layers"], {}), ["layers"]),
    "score-not-triple": (_set(HEAD + ["score", 0], ["one", "p"]), ["layers[0].heads[0].score[0]"]),
    "unknown-top-key": (_set(["extra"], 1), ["extra"]),
    "unknown-head-key": (_set(HEAD + ["mask"], "j<i"), ["layers[0].heads[0].mask"]),
    "unknown-unit-key": (_set(["layers", 1, "hidden", 0, "gain"], 1), ["layers[1].hidden[0].gain"]),
    "bad-format": (_set(["format"], "hardsoft.model/3"), ["format"]),
    "bad-name": (_set(["name"], "no spaces allowed"), ["name"]),
    "duplicate-symbol": (_set(["alphabet"], ["a", "b", "a", "c"]), ["alphabet[2]"]),
    "duplicate-dim": (_set(["dims"], BASE["dims"] + ["one"]), ["dims[7]"]),
    "bos-in-alphabet": (_set(["bos"], "a"), ["bos"]),
    "bad-hard": (_set(HEAD + ["hard"], "soft"), ["layers[0].heads[0].hard"]),
    "bad-visible": (_set(HEAD + ["visible"], "j<=k"), ["layers[0].heads[0].visible"]),
    "bad-layer-type": (_set(["layers", 1, "type"], "conv"), ["layers[1].type"]),
    "bad-output-position": (_set(["output", "position"], "middle"), ["output.position"]),
    "duplicate-head-name": (lambda m: m["layers"].append(copy.deepcopy(m["layers"][0])), ["layers[2].heads[0].name"]),
    # size limits
    "too-many-dims": (_set(["dims"], BASE["dims"] + [f"d{k}" for k in range(4096)]), ["dims"]),
    "too-many-heads": (lambda m: m["layers"][0].__setitem__(
        "heads", [dict(m["layers"][0]["heads"][0], name=f"h{k}") for k in range(65)]), ["layers[0].heads"]),
    "too-many-layers": (lambda m: m["layers"].extend(copy.deepcopy(m["layers"][1]) for _ in range(256)), ["layers"]),
    "list-over-65536": (_set(HEAD + ["score"], [["one", "p", 1]] * 65537), ["layers[0].heads[0].score"]),
}


@pytest.mark.parametrize("case", sorted(CONTENT_CASES))
def test_invalid_model_content_names_the_key_path(case, capsys, tmp_path):
    edit, fragments = CONTENT_CASES[case]
    check_rejected(capsys, tmp_path, edited(edit), *fragments)
    # the same model is refused by `run` too, before any work
    check_rejected(capsys, tmp_path, edited(edit), *fragments, command=("run",), extra=("ab",))


RAW_CASES = {
    # JSON number tokens json cannot hand over as Fractions: still named by their key path
    "json-exponent-huge": (replaced('"a": {"a": 1}', '"a": {"a": 1e999999}'), ["embed.token.a.a"]),
    "json-exponent-31": (replaced('"a": {"a": 1}', '"a": {"a": 1e31}'), ["embed.token.a.a"]),
    "json-tiny-decimal": (replaced('"a": {"a": 1}', '"a": {"a": 1e-31}'), ["embed.token.a.a"]),
    "json-40-digit-int": (replaced('"a": {"a": 1}', '"a": {"a": %d}' % 10**40), ["embed.token.a.a"]),
    "json-nan": (replaced('"a": {"a": 1}', '"a": {"a": NaN}'), ["embed.token.a.a", "NaN"]),
    "json-infinity": (replaced('"threshold": "1/2"', '"threshold": Infinity'), ["output.threshold", "Infinity"]),
    "json-minus-infinity": (replaced('"score": [["one", "p", 1]', '"score": [["one", "p", -Infinity]'),
                            ["layers[0].heads[0].score[0]", "Infinity"]),
    "json-million-digit-decimal": (replaced('"a": {"a": 1}', '"a": {"a": 1%s.5}' % ("7" * 10**6)),
                                   ["embed.token.a.a"]),
    # file-level problems: no key path exists
    "bad-json": ('{"format": "hardsoft.model/1", "name": ', ["JSON"]),
    "deep-nesting": ("[" * 10**6, []),
    "deep-nesting-objects": ('{"a":' * 10**5, []),
    "top-level-array": ("[]", []),
    "not-utf8": (b'{"name": "\xff\xfe"}', []),
    "empty-file": ("", []),
}


@pytest.mark.parametrize("case", sorted(RAW_CASES))
def test_hostile_files_are_refused_in_one_line(case, capsys, tmp_path):
    text, fragments = RAW_CASES[case]
    check_rejected(capsys, tmp_path, text, *fragments)


def test_boundary_numbers_are_accepted(capsys, tmp_path):
    """The limits are "over 10^30" and "exponents beyond ±30": 10^30 itself and 1e±30 load."""
    for a in ("1e30", "1e-30", "%d" % 10**30, '"1/%d"' % 10**30, '"-%d/7"' % 10**30):
        path = tmp_path / "ok.json"
        path.write_text(replaced('"a": {"a": 1}', '"a": {"a": %s}' % a))
        assert certify_main(["validate-model", str(path)]) == 0, (a, capsys.readouterr().err)


def subprocess_certify(*args: str):
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "certify.cli", *args], capture_output=True, text=True, timeout=60)
    return proc, time.perf_counter() - start


@pytest.mark.parametrize("case", ["deep-nesting", "json-exponent-huge", "json-nan", "json-million-digit-decimal"])
def test_worst_cases_through_the_console_entry_point(case, tmp_path):
    path = tmp_path / "hostile.json"
    path.write_text(RAW_CASES[case][0])
    proc, elapsed = subprocess_certify("run", str(path), "ab")
    assert proc.returncode == 3 and elapsed < 2.0
    assert len(proc.stderr.splitlines()) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stdout == ""


def test_file_over_16_mib_is_refused_before_parsing(tmp_path):
    model = copy.deepcopy(BASE)
    model["description"] = "x" * (16 * 2**20)
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(model))
    proc, elapsed = subprocess_certify("validate-model", str(path))
    assert proc.returncode == 3 and elapsed < 2.0
    assert len(proc.stderr.splitlines()) == 1 and "Traceback" not in proc.stderr
    assert "16 MiB" in proc.stderr


# ------------------------------------------------------------------ undefined at some position

@pytest.mark.parametrize("pe, where", [
    ("1/(i-2)", "i=2, n=2"),  # defined for n = 1 only: still invalid (a model is a claim about every n)
    ("1/(i-1)", "i=1, n=1"),
    ("1/(n-1000)", "i=1, n=1000"),  # fine for every n < 1000: sampling short words would miss it
    ("1/(2*i-n)", "i=1, n=2"),
    ("1/(i*n-6)", "i=2, n=3"),
    ("1/(1+(-1)^i)", "i=1, n=1"),
    ("i/(3*i-2*n-1000001)", "embed.position.pos: undefined at i="),  # first zero at i = n = 1000001
])
def test_pe_undefined_at_some_position_is_invalid(pe, where, capsys, tmp_path):
    """Decided exactly on the denominators (every n >= 1), so validate-model and run refuse it up front."""
    text = replaced('"pos": "i/n"', '"pos": "%s"' % pe)
    check_rejected(capsys, tmp_path, text, "embed.position.pos", where)
    check_rejected(capsys, tmp_path, text, "embed.position.pos", where, command=("run",), extra=("b",))


@pytest.mark.parametrize("pe", ["i/n", "1/(i+1)", "1/(n-i+1)", "1/(i^2+n^2+1)", "1/(n^3-7)", "1/(2*i-2*n-1)",
                                "(1+(-1)^i)/(2+(-1)^i)"])
def test_pe_defined_everywhere_is_valid(pe, capsys, tmp_path):
    path = tmp_path / "ok.json"
    path.write_text(replaced('"pos": "i/n"', '"pos": "%s"' % pe))
    assert certify_main(["validate-model", str(path)]) == 0, capsys.readouterr().err


def test_pe_division_by_zero_at_bos_position(capsys, tmp_path):
    """With a BOS symbol the PE is evaluated at i = 0 too: "1/i" is undefined there for every n,
    while without BOS "1/i" is defined at every position 1..n."""
    text = edited(lambda m: (m.__setitem__("bos", "<s>"), m["embed"]["token"].__setitem__("<s>", {}),
                             m["embed"]["position"].__setitem__("pos", "1/i")))
    check_rejected(capsys, tmp_path, text, "embed.position.pos", "i=0, n=1", command=("run",), extra=("ab",))
    path = tmp_path / "no-bos.json"
    path.write_text(replaced('"pos": "i/n"', '"pos": "1/i"'))
    assert certify_main(["validate-model", str(path)]) == 0


@pytest.mark.parametrize("tau", ["0", "-1", "1/(n-2)", "1/log(n-1)", "log(n-2)", "i", "__import__('os')", "1e400"])
def test_bad_temperatures_are_refused(tau, capsys, tmp_path):
    check_rejected(capsys, tmp_path, BASE_TEXT, command=("run",), extra=("ab", "--tau", tau))


@pytest.mark.parametrize("word", ["abx", "", "a d"])
def test_bad_words_are_refused(word, capsys, tmp_path):
    check_rejected(capsys, tmp_path, BASE_TEXT, command=("run",), extra=(word,))

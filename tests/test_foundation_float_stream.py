"""Done-when (Deliver 3): the numpy path streams over key blocks, so n = 16384 fits in memory.

A one-head model with a query-dependent score ``s_ij = 3 (i/n)(j/n) + a_j/2`` (so no
prefix-sum shortcut can hide a blocking bug) is run by ``float_run``; selected rows,
including block boundaries, are recomputed directly in mpmath from the definition of
softmax_τ (one O(n) sum per row), and the small-n run must agree with the mpmath
evaluator and with tests/independent_spec.py.
"""
from __future__ import annotations

import json
import sys
import tracemalloc
from pathlib import Path

import mpmath
import numpy as np
import pytest

from certify.evaluate import float_run, soft_run
from certify.expr import parse_expr
from certify.model import model_from_dict

sys.path.insert(0, str(Path(__file__).parent))
import independent_spec as spec  # noqa: E402

TAU_ONE = parse_expr("1", variables=("n",))


def one_head(visible: str) -> dict:
    return {"format": "hardsoft.model/1", "name": "stream", "alphabet": ["a", "b"], "bos": None,
            "dims": ["one", "pos", "a", "v"],
            "embed": {"token": {"a": {"a": 1}, "b": {}}, "position": {"one": "1", "pos": "i/n"}},
            "layers": [{"type": "attention", "heads": [
                {"name": "h", "hard": "average", "visible": visible,
                 "score": [["pos", "pos", 3], ["one", "a", "1/2"]], "value": [["v", "a", 1]]}]}],
            "output": {"dim": "v", "position": "all", "threshold": "1/2"}}


VISIBLE = {"all": lambda i, j: True, "j<=i": lambda i, j: j <= i, "j<i": lambda i, j: j < i,
           "j>=i": lambda i, j: j >= i, "j>i": lambda i, j: j > i}


def direct_row(word: str, i: int, visible: str):
    """v_i from the definition: Σ_j softmax_1(s_i·)_j a_j over visible j (0 if none)."""
    n = len(word)
    with mpmath.workdps(30):
        keys = [j for j in range(1, n + 1) if VISIBLE[visible](i, j)]
        if not keys:
            return mpmath.mpf(0)
        s = [mpmath.mpf(3 * i * j) / n**2 + (mpmath.mpf(1) / 2 if word[j - 1] == "a" else 0) for j in keys]
        top = max(s)
        e = [mpmath.exp(x - top) for x in s]
        return mpmath.fsum(w for w, j in zip(e, keys) if word[j - 1] == "a") / mpmath.fsum(e)


def random_word(n: int, seed: int) -> str:
    return "".join(np.random.default_rng(seed).choice(["a", "b"], n))


@pytest.mark.parametrize("visible", sorted(VISIBLE))
def test_small_n_float64_agrees_with_mpmath_and_the_independent_spec(visible):
    d = one_head(visible)
    word = random_word(64, 7)
    model = model_from_dict(d)
    fast = float_run(model, word, TAU_ONE, "float64", block=10)  # 7 key blocks, ragged last one
    exact = soft_run(model, word, TAU_ONE)
    with mpmath.workdps(60):
        ref = spec.run(spec.loads(json.dumps(d)), word, "1", dps=60)
        for f, m, r in zip(fast.outputs, exact.outputs, ref.outputs):
            assert abs(m - r) < mpmath.mpf("1e-40")
            assert abs(float(f) - float(m)) < 1e-12


@pytest.mark.parametrize("visible", ["j<=i", "j>i"])
def test_streaming_blocks_match_direct_rows_n_2048(visible):
    word = random_word(2048, 11)
    run = float_run(model_from_dict(one_head(visible)), word, TAU_ONE, "float64", block=100)
    assert len(run.outputs) == 2048
    for i in (1, 2, 99, 100, 101, 200, 1024, 2047, 2048):
        assert abs(float(run.outputs[i - 1]) - float(direct_row(word, i, visible))) < 1e-12, i
    assert list(run.decisions) == [float(v) > 0.5 for v in run.outputs]


@pytest.mark.slow
def test_n_16384_runs_in_under_1_gib_and_matches_direct_rows():
    n = 16384
    word = random_word(n, 3)
    model = model_from_dict(one_head("j<=i"))
    tracemalloc.start()
    try:
        run = float_run(model, word, TAU_ONE, "float64")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**30, f"peak {peak / 2**20:.0f} MiB"
    assert len(run.outputs) == n
    for i in (1, 1023, 1024, 1025, 8192, n - 1, n):
        assert abs(float(run.outputs[i - 1]) - float(direct_row(word, i, "j<=i"))) < 1e-9, i

"""Random lookup / tie-break models: whatever the kernel certifies must survive brute force.

The strategy builds the Dyck-style pipeline with random coefficients — a uniform count
d/(i+1), an L-lookup-shaped head (sometimes perturbed so its vertex is not an integer or its
curvature has the wrong sign), and a tie-break head whose other terms may or may not be
multiples of a large enough modulus — so the new head kinds meet both the shapes they must
accept and near misses they must not.
"""
from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from certify.certifier import certify
from certify.kernel.checker import check
from certify.model import model_from_dict

from soundness import assert_certificate_holds, words_up_to


def _q(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


@st.composite
def lookup_models(draw):
    beta = Fraction(draw(st.sampled_from((1, 2, 3))), draw(st.sampled_from((1, 2))))
    lin = 2 * beta + draw(st.sampled_from((0, 0, 0, Fraction(1, 2), -1)))  # 2β: integer vertex
    quad = -beta * draw(st.sampled_from((1, 1, 1, -1)))  # -β: concave
    keys = draw(st.sampled_from((("i/n^2", "(i/n)^2"), ("i/(n+1)^2", "(i/(n+1))^2"))))
    tie = Fraction(draw(st.sampled_from((1, 2, 1, 4))), 2) * draw(st.sampled_from((1, -1)))
    big = draw(st.sampled_from((8, 1, 0)))
    second = draw(st.sampled_from(("distinct", "none")))
    heads2 = [{"name": "depth", "hard": "average", "visible": "j<=i", "score": [],
               "value": [["d", "a", 1], ["d", "b", -1]]}]
    layers = [{"type": "attention", "heads": heads2},
              {"type": "attention", "heads": [{"name": "lookup", "hard": "average", "visible": "all",
                                              "score": [["d", "k1", _q(lin)], ["inv", "k2", _q(quad)]],
                                              "value": [["D", "pos", 1], ["E", "k2n", 1]]}]}]
    out = "D"
    if second == "distinct":
        layers.append({"type": "attention", "heads": [{
            "name": "match", "hard": draw(st.sampled_from(("average", "rightmost"))), "visible": "j<i",
            "score": [["D", "D", 2], ["one", "E", -1], ["one", "a", big], ["one", "k3", _q(tie)]],
            "value": [["M", "a", 1]]}]})
        out = "M"
    threshold = draw(st.sampled_from((Fraction(1, 2), Fraction(1, 4), Fraction(3, 4), Fraction(1, 3))))
    return {"format": "hardsoft.model/1", "name": "lookup-sweep", "alphabet": ["a", "b"], "bos": "<s>",
            "dims": ["one", "a", "b", "d", "D", "E", "M", "pos", "inv", "k1", "k2", "k2n", "k3"],
            "embed": {"token": {"a": {"a": 1}, "b": {"b": 1}, "<s>": {}},
                      "position": {"one": "1", "pos": "i/n", "inv": "1/(i+1)", "k1": keys[0], "k2": keys[1],
                                   "k2n": "(i/n)^2", "k3": "i/n^3"}},
            "layers": layers,
            "output": {"dim": out, "position": draw(st.sampled_from(("last", "all"))), "threshold": _q(threshold)}}


def _certified_claims_hold(spec, longest: int) -> None:
    model = model_from_dict(spec)
    outcome = certify(model, 1, 40)
    if outcome.verdict != "certified":
        return
    assert check(outcome.certificate, model).boxes == len(outcome.certificate["boxes"])
    words = list(words_up_to(model.alphabet, 1, 6, budget=130, random_words=2, random_max=longest, seed=3))
    words += [tuple("a" * k + "b" * (longest - k)) for k in (0, longest // 3, longest // 2, longest)]
    assert assert_certificate_holds(model, outcome.certificate["claim"], words) > 0


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(spec=lookup_models())
def test_lookup_models_certified_claims_hold(spec):
    _certified_claims_hold(spec, longest=20)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(spec=lookup_models())
def test_lookup_models_certified_claims_hold_many(spec):
    _certified_claims_hold(spec, longest=40)

"""The model hash certificates cite is over the model's meaning, not its bytes (issue 14).

Reformatting, the description, and the spelling of a number must not invalidate a
certificate; any change of what the model computes (a weight, a name, a threshold,
a PE, an order) must.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from certify.certifier import certify
from certify.kernel.checker import CheckFailure, check
from certify.model import load_model, model_from_dict, parse_model_bytes

ROOT = Path(__file__).resolve().parent.parent
SINCE_TEXT = (ROOT / "models" / "since-a-b.json").read_text()
SINCE = json.loads(SINCE_TEXT)


def sha(text: str) -> str:
    return parse_model_bytes(text.encode()).sha256


def edited(edit) -> dict:
    model = copy.deepcopy(SINCE)
    edit(model)
    return model


SAME_MEANING = {
    "reindented": lambda: json.dumps(SINCE, indent=7),
    "one line": lambda: json.dumps(SINCE, separators=(",", ":")),
    "keys reordered": lambda: json.dumps(dict(reversed(list(SINCE.items())))),
    "description edited": lambda: json.dumps(edited(lambda m: m.__setitem__("description", "something else"))),
    "description removed": lambda: json.dumps(edited(lambda m: m.pop("description"))),
    "threshold 0.5 for \"1/2\"": lambda: SINCE_TEXT.replace('"threshold": "1/2"', '"threshold": 0.5'),
    "threshold \"2/4\" for \"1/2\"": lambda: SINCE_TEXT.replace('"threshold": "1/2"', '"threshold": "2/4"'),
    "PE spaced": lambda: SINCE_TEXT.replace('"pos": "i/n"', '"pos": "i / n"'),
    "explicit zero bias": lambda: json.dumps(edited(lambda m: m["layers"][1]["hidden"][0].__setitem__("bias", 0))),
}

CHANGED_MEANING = {
    "a score weight": lambda m: m["layers"][0]["heads"][0]["score"][1].__setitem__(2, "1/3"),
    "a dim name": lambda m: json.loads(json.dumps(m).replace('"pos"', '"where"')),
    "the threshold": lambda m: m["output"].__setitem__("threshold", "1/3"),
    "the PE": lambda m: m["embed"]["position"].__setitem__("pos", "i/(n+1)"),
    "the head's hard kind": lambda m: m["layers"][0]["heads"][0].__setitem__("hard", "leftmost"),
    "the model name": lambda m: m.__setitem__("name", "since-a-b-2"),
    "a proposed temperature": lambda m: m.__setitem__("temperature", "1/(4*n)"),
    "the FFN unit order": lambda m: m["layers"][1]["hidden"].reverse(),
}


@pytest.mark.parametrize("case", sorted(SAME_MEANING))
def test_same_meaning_same_hash(case):
    assert sha(SAME_MEANING[case]()) == sha(SINCE_TEXT)


@pytest.mark.parametrize("case", sorted(CHANGED_MEANING))
def test_changed_meaning_changes_the_hash(case):
    model = copy.deepcopy(SINCE)
    result = CHANGED_MEANING[case](model)
    text = json.dumps(result if result is not None else model)
    assert sha(text) != sha(SINCE_TEXT)


def test_a_certificate_survives_reformatting_and_breaks_on_a_weight_change(tmp_path):
    model = load_model(ROOT / "models" / "since-a-b.json")
    cert = certify(model, 1, 100).certificate
    pretty = tmp_path / "pretty.json"
    pretty.write_text(json.dumps(edited(lambda m: m.__setitem__("description", "reworded")), indent=4))
    assert check(cert, load_model(pretty)).boxes == len(cert["boxes"])
    changed = model_from_dict(edited(lambda m: m["layers"][0]["heads"][0]["score"][1].__setitem__(2, "1/3")))
    with pytest.raises(CheckFailure) as info:
        check(cert, changed)
    assert info.value.item == "model_sha256"

"""Soundness of the kernel's newer head kinds, by brute force with the exact evaluators.

The kernel (certify/kernel/structure.py, bounds.py) classifies heads as

* ``lookup``   L-lookup: score α(i, n)·(2b·j − j²) + row terms, b an integer;
* ``distinct`` L-tiebreak modulo: score/A(n) ≡ ±j (mod M(n)) with M > key distance;
* ``gap``      with one query factor combined from several query dims sharing a key dim;

and lets FFN outputs keep grids.  Here every certificate the kernel issues for the
compiled Dyck-2 and past-vs-future models, and for hand-made lookup / sign models, is
compared with hard (exact) and soft (mpmath) runs on exhaustive short words and
adversarial long ones, at the certified τ(n): decisions must agree and |soft − hard|
must stay within the claimed error bound.  Hand-made negative models (odd lookup
vertex, weak or fractional tie-break modulus, integer sign shift) must never be
certified with a claim that brute force contradicts.
"""
from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path

import pytest

from certify.certifier import certify
from certify.evaluate import hard_run, soft_run
from certify.expr import parse_expr
from certify.kernel.bounds import BoxFailure, analyse_box
from certify.kernel.checker import check
from certify.kernel.structure import Unsupported, analyse
from certify.model import model_from_dict, parse_word
from proofs.constructions.formula import evaluate, parse_formula
from proofs.constructions.tasks import dyck_reference

from soundness import assert_certificate_holds, words_up_to

ROOT = Path(__file__).resolve().parent.parent
COMPILED = ROOT / "models" / "compiled"


def _tau(text: str):
    return parse_expr(text, variables=("n",), allow_log=True)


def _load_dict(name: str) -> dict:
    return json.loads((COMPILED / name).read_text())


def _without_temperature(obj: dict) -> dict:
    """The same model with no proposed schedule: the certifier derives its hottest κ·shape(n)."""
    obj = copy.deepcopy(obj)
    obj.pop("temperature", None)
    obj["name"] = obj["name"] + "-derived"
    return obj


def _facts(model) -> dict:
    return {f.head.name: f for facts in analyse(model).facts if isinstance(facts, tuple) for f in facts}


def _certified_claim(model, n_max: int, recheck: bool = True) -> dict:
    outcome = certify(model, 1, n_max)
    assert outcome.verdict == "certified", outcome.reason
    if recheck:
        assert check(outcome.certificate, model).boxes == len(outcome.certificate["boxes"])
    return outcome.certificate["claim"]


def _assert_flips(model, word: str, tau: str) -> None:
    """The hard and soft decisions of ``word`` differ at τ (so no certificate may cover its length there)."""
    w = tuple(word)
    hard, soft = hard_run(model, w), soft_run(model, w, _tau(tau), dps=60)
    assert hard.decisions != soft.decisions, (word, tau, hard.outputs, soft.outputs)


def _assert_not_certified(outcome, model) -> None:
    assert outcome.verdict in ("refuted", "not proved"), (outcome.verdict, outcome.reason)
    if outcome.verdict == "refuted":
        cex = outcome.counterexample
        word = parse_word(model, cex.word)
        tau = _tau(cex.tau)
        assert hard_run(model, word).decisions != soft_run(model, word, tau).decisions, cex


# --------------------------------------------------------------------------------------------
# 1. Dyck-2 (depth-lookup: L-lookup; match: L-tiebreak modulo; amplifiers: gap; FFN grids)
# --------------------------------------------------------------------------------------------

DYCK_ADVERSARIAL = [
    "(" * 9 + "[" * 9 + "]" * 9 + ")" * 9,                # deep nesting, member (n = 36)
    "(" * 9 + "[" * 9 + "]" * 8 + ")" + "]" + ")" * 8,    # mismatch at depth 10, counts balanced
    "()" * 20,                                            # n = 40, member
    "()" * 19 + ")(",                                     # balanced counts, depth −1 at n − 1
    ")" + "()" * 17 + "(",                                # negative depth at the first symbol
    "(" + "[]" * 17 + ")",                                # closer matches the opener 35 positions left
    "(" + "[]" * 17 + "]",                                # the same, wrong type
    "[" + "(" * 15 + ")" * 15 + "]",                      # member, n = 32
    "(" + "[" * 15 + ")" + "]" * 15,                      # crossing, counts balanced
    "([" * 9 + "])" * 9,                                  # alternating types, member
    "([" * 9 + ")]" * 9,                                  # alternating types, crossing
    "(" * 20 + ")" * 19,                                  # one opener left open
    "(" + "[]" * 8 + ")" + "[" + "()" * 8 + ")",          # last ')' must match the nearer '[' at depth 1
    "(" + "[]" * 8 + ")" + "[" + "()" * 8 + "]",          # the same, member
]


def _proposed_and_derived(file: str, recheck_derived: bool) -> dict:
    """The shipped model (its own τ) and the same weights without τ (the derived schedule), certified."""
    obj = _load_dict(file)
    proposed = model_from_dict(obj)
    derived = model_from_dict(_without_temperature(obj))
    return {
        "model": proposed,
        "derived_model": derived,
        "claim": _certified_claim(proposed, 10**6),
        "derived_claim": _certified_claim(derived, 10**6, recheck=recheck_derived),
    }


@pytest.fixture(scope="module")
def dyck():
    return _proposed_and_derived("dyck-2-bounded.json", recheck_derived=False)


def test_dyck_heads_use_the_new_kinds(dyck):
    facts = _facts(dyck["model"])
    assert facts["depth-lookup"].kind == "lookup" and facts["depth-lookup"].homogeneous
    assert facts["match"].kind == "distinct" and facts["match"].homogeneous
    assert all(facts[h].kind == "gap" and facts[h].homogeneous for h in ("h2.amplify", "h5.amplify", "h7.amplify"))
    # the derived schedule is a different (hotter at large n) claim than the proposed one
    assert dyck["claim"]["tau"] == "1/(8*n^2*(n + 1)*log(n + 2))"
    assert dyck["derived_claim"]["tau"] != dyck["claim"]["tau"]


def test_dyck_certificate_survives_all_short_words(dyck):
    """Every word of length ≤ 4 over ()[] plus random words up to 12, at the proposed τ; hard = reference."""
    model = dyck["model"]
    words = list(words_up_to(model.alphabet, 1, 4, budget=400, random_words=16, random_max=12, seed=3))
    assert len(words) == 340 + 16
    for w in words:
        assert hard_run(model, w).decisions == (dyck_reference(w, 2),), w
    assert assert_certificate_holds(model, dyck["claim"], words) == len(words)


def test_dyck_certificate_survives_adversarial_long_words(dyck):
    """Deep nesting, deep mismatches, far matches and negative-depth prefixes (n = 32..40), at the proposed
    schedule; the deepest / farthest of them also at the derived (hotter) one."""
    model = dyck["model"]
    words = [tuple(w) for w in DYCK_ADVERSARIAL]
    expected = [dyck_reference(w, 2) for w in words]
    assert any(expected) and not all(expected)
    for w, e in zip(words, expected):
        assert hard_run(model, w).decisions == (e,), "".join(w)
    assert assert_certificate_holds(model, dyck["claim"], words) == len(words)
    hardest = [words[k] for k in (0, 1, 5, 6, 8, 12, 13)]  # deep, far and same-depth matches
    assert assert_certificate_holds(dyck["derived_model"], dyck["derived_claim"], hardest) == len(hardest)


@pytest.mark.slow
def test_dyck_certificate_survives_all_words_of_length_5_at_the_derived_tau(dyck):
    """All 1024 words of length 5 (and the 340 shorter ones) at the hotter, derived τ."""
    model = dyck["derived_model"]
    words = list(words_up_to(model.alphabet, 1, 5, budget=2000, random_words=0, random_max=5))
    assert len(words) == 1364
    assert assert_certificate_holds(model, dyck["derived_claim"], words) == len(words)


# --------------------------------------------------------------------------------------------
# 2. #past['a'] > #future['b'] (amplifier: gap with the combined query u − w/2)
# --------------------------------------------------------------------------------------------

PAST_FUTURE = "#past['a'] > #future['b']"


def _past_future_words() -> list[str]:
    """Long words whose count difference #past[a] − #future[b] is 0 or ±1 at the last position
    (the decision's smallest gaps) or around the middle position."""
    words = []
    for m in (15, 22):  # lengths 31 and 45
        filler = "c" * m
        words += [filler + "c" + filler, filler + "b" + filler,                # 0 − 0, 0 − 1
                  "a" + filler + filler + "b",                                 # 1 − 1 = 0
                  "a" + filler + filler + "c",                                 # 1 − 0 = 1
                  "aa" + filler + filler[1:] + "b",                            # 2 − 1 = 1
                  "b" * m + "a" + "b" * m,                                     # many b, one a, last b
                  "ab" * m + "a",                                              # a last
                  "ab" * m + "b"]                                              # b last
        half = m // 2
        words += ["a" * half + "c" + "b" * half + "c" * (m - 2 * half) + "c" * m,   # middle: past a = future b
                  "a" * (half + 1) + "c" + "b" * half + "c" * m,                   # middle: +1
                  "a" * half + "c" + "b" * (half + 1) + "c" * m]                   # middle: −1
    return words


@pytest.fixture(scope="module")
def past_future():
    return {**_proposed_and_derived("ahat-past-vs-future-bounded.json", recheck_derived=True),
            "formula": parse_formula(PAST_FUTURE)}


def test_past_future_amplifier_combines_its_query(past_future):
    fact = _facts(past_future["model"])["h3.amplify"]
    assert fact.kind == "gap" and fact.homogeneous
    assert fact.query_coord is not None and fact.query_coord.offset == 0.5  # u − w/2: never exactly 0


def test_past_future_certificate_survives_short_and_gap_words(past_future):
    model, f = past_future["model"], past_future["formula"]
    short = list(words_up_to(model.alphabet, 1, 5, budget=400, random_words=10, random_max=14, seed=5))
    long = [tuple(w) for w in _past_future_words()]
    assert all(20 < len(w) < 64 for w in long)
    for w in short + long:
        assert hard_run(model, w).decisions == (evaluate(f, w)[-1],), "".join(w)
    assert assert_certificate_holds(model, past_future["claim"], short + long) == len(short) + len(long)
    derived = past_future["derived_model"]
    assert assert_certificate_holds(derived, past_future["derived_claim"], short + long) == len(short) + len(long)


# --------------------------------------------------------------------------------------------
# Hand-made models
# --------------------------------------------------------------------------------------------

def lookup_model(odd: bool = False) -> dict:
    """d = #a as the uniform count d/(i+1), then a lookup of key position d over all keys:
    score (2d·j − j²)/((i+1)n²) (odd: ((2d+1)·j − j²)/((i+1)n²), tied maxima j = d, d+1).
    Output: the symbol at position d is a (BOS, position 0, holds no a)."""
    score = [["d_ratio", "p_n2", 2], ["inv_i1", "pos2", -1]]
    if odd:
        score.append(["inv_i1", "p_n2", 1])
    return {
        "format": "hardsoft.model/1", "name": "lookup-odd" if odd else "lookup-even",
        "alphabet": ["a", "b"], "bos": "<s>",
        "dims": ["one", "bos", "a", "d_ratio", "p_n2", "pos2", "pos", "inv_i1", "v", "pd"],
        "embed": {"token": {"a": {"a": 1}, "b": {}, "<s>": {"bos": 1}},
                  "position": {"one": "1", "p_n2": "i/n^2", "pos2": "(i/n)^2", "pos": "i/n", "inv_i1": "1/(i+1)"}},
        "layers": [
            {"type": "attention", "heads": [{"name": "count", "hard": "average", "visible": "j<=i", "score": [],
                                             "value": [["d_ratio", "a", 1]]}]},
            {"type": "attention", "heads": [{"name": "lookup", "hard": "average", "visible": "all", "score": score,
                                             "value": [["v", "a", 1], ["pd", "pos", 1]]}]},
        ],
        "output": {"dim": "v", "position": "last", "threshold": "1/2"},
    }


def modulus_model(coef: str, key_pe: str, name: str, threshold: str = "1/2") -> dict:
    """score = key_pe(j) + coef·b_i·a_j (query b_i is a token, so not exact: the distinct rule),
    value = 1 on non-a keys; output at the last position."""
    return {
        "format": "hardsoft.model/1", "name": name,
        "alphabet": ["a", "b", "c"], "bos": None,
        "dims": ["one", "a", "b", "na", "p", "v"],
        "embed": {"token": {"a": {"a": 1}, "b": {"b": 1, "na": 1}, "c": {"na": 1}},
                  "position": {"one": "1", "p": key_pe}},
        "layers": [{"type": "attention", "heads": [{"name": "tiebreak", "hard": "average", "visible": "j<=i",
                                                    "score": [["one", "p", 1], ["b", "a", coef]],
                                                    "value": [["v", "na", 1]]}]}],
        "output": {"dim": "v", "position": "last", "threshold": threshold},
    }


def sign_model(shift: str) -> dict:
    """u = d/n by the L-lookup above (a grid n, and a soft error), then the sign gadget
    score (u + shift/n)_i · k_j (two query dims, one key dim k = +1 on a and BOS, −1 on b),
    value k: +1 / −1 by the sign of d + shift, the mean of k when d = −shift."""
    return {
        "format": "hardsoft.model/1", "name": "sign-gadget",
        "alphabet": ["a", "b"], "bos": "<s>",
        "dims": ["one", "bos", "a", "k", "d_ratio", "p_n2", "pos2", "pos", "inv_i1", "inv_n", "u", "v"],
        "embed": {"token": {"a": {"a": 1, "k": 1}, "b": {"k": -1}, "<s>": {"bos": 1, "k": 1}},
                  "position": {"one": "1", "p_n2": "i/n^2", "pos2": "(i/n)^2", "pos": "i/n",
                               "inv_i1": "1/(i+1)", "inv_n": "1/n"}},
        "layers": [
            {"type": "attention", "heads": [{"name": "count", "hard": "average", "visible": "j<=i", "score": [],
                                             "value": [["d_ratio", "a", 1]]}]},
            {"type": "attention", "heads": [{"name": "lookup", "hard": "average", "visible": "all",
                                             "score": [["d_ratio", "p_n2", 2], ["inv_i1", "pos2", -1]],
                                             "value": [["u", "pos", 1]]}]},
            {"type": "attention", "heads": [{"name": "sign", "hard": "average", "visible": "j<=i",
                                             "score": [["u", "k", 1], ["inv_n", "k", shift]],
                                             "value": [["v", "k", 1]]}]},
        ],
        "output": {"dim": "v", "position": "last", "threshold": 0},
    }


def leaky_fin_sign_model() -> dict:
    """v = [w_i = a] by a rightmost head (leaky under softmax), then score (v − 1)_i · k_j:
    the combined query has finite values {−1, 0}, so all keys tie when w_n = a."""
    return {
        "format": "hardsoft.model/1", "name": "leaky-fin-sign",
        "alphabet": ["a", "b"], "bos": None,
        "dims": ["one", "a", "k", "pos", "v", "out"],
        "embed": {"token": {"a": {"a": 1, "k": 1}, "b": {"k": -1}}, "position": {"one": "1", "pos": "i/n"}},
        "layers": [
            {"type": "attention", "heads": [{"name": "last", "hard": "rightmost", "visible": "j<=i",
                                             "score": [["one", "pos", 1]], "value": [["v", "a", 1]]}]},
            {"type": "attention", "heads": [{"name": "sign", "hard": "average", "visible": "j<=i",
                                             "score": [["v", "k", 1], ["one", "k", -1]], "value": [["out", "k", -1]]}]},
        ],
        "output": {"dim": "out", "position": "last", "threshold": 0},
    }


# --------------------------------------------------------------------------------------------
# 3a. lookup with an odd linear coefficient: tied maxima j = d, d + 1 carry different values
# --------------------------------------------------------------------------------------------

def test_odd_lookup_is_not_a_lookup_and_is_refuted():
    model = model_from_dict(lookup_model(odd=True))
    try:
        fact = _facts(model)["lookup"]
    except Unsupported:
        pass
    else:
        assert fact.kind != "lookup" and not fact.homogeneous, fact
    # 'aab': d = 2, keys 2 (a) and 3 (b) tie, the leak to key 1 (a) beats the leak to BOS:
    # hard 1/2 (rejects), soft > 1/2 at every τ
    for tau in ("1/(10*n)", "1/(100*n)"):
        _assert_flips(model, "aab", tau)
    _assert_not_certified(certify(model, 1, 100), model)


# --------------------------------------------------------------------------------------------
# 3b. distinct with a modulus below the key distance, and with a fractional modulus
# --------------------------------------------------------------------------------------------

def test_weak_tiebreak_modulus_is_certified_only_where_it_exceeds_the_key_distance():
    """score = j + 3·b_i·a_j: keys 3 apart tie once n ≥ 4.  'distinct' (M = 3) is honest only as long
    as the box check M > key distance holds, i.e. n ≤ 3."""
    model = model_from_dict(modulus_model("3", "i", "weak-modulus"))
    fact = _facts(model)["tiebreak"]
    assert fact.kind == "distinct"
    st = analyse(model)
    tau = _tau("1/10")
    for n in (1, 2, 3):
        analyse_box(model, st, tau, n, n)
    with pytest.raises(BoxFailure):
        analyse_box(model, st, tau, 4, 4)
    claim = _certified_claim(model, 3)
    assert assert_certificate_holds(model, claim, words_up_to(model.alphabet, 1, 3, 100, 0, 3)) == 39
    # 'accb' (n = 4): keys 1 (a, value 0) and 4 (b, value 1) tie at the top, the next levels hold only
    # the c keys (value 1): hard 1/2 rejects, soft > 1/2 accepts, at the τ certified for n ≤ 3 and colder
    for word in ("accb", "caccb"):
        _assert_flips(model, word, claim["tau"])
        _assert_flips(model, word, "1/10")
    _assert_not_certified(certify(model, 1, 50), model)


HALF_MODULUS_WORDS = ["ab", "acb", "accb", "a" + "c" * 10 + "b", "a" + "c" * 30 + "b", "bab", "cab", "aab"]


def test_fractional_tiebreak_modulus_certificate_survives_brute_force():
    """score = j/(2n−1) + (1/2)·b_i·a_j: score·(2n−1) = j + (n − 1/2)·b_i·a_j, so M = n − 1/2 exceeds the
    key distance n − 1 and all scores differ — but two keys can be |A|/2 apart, not |A| (the lattice of
    L-ziggurat needs an integer M).  On 'a c…c b' the a key (value 0) wins by half a step over the b
    key (value 1): whatever τ a certificate claims must survive these words."""
    model = model_from_dict(modulus_model("1/2", "i/(2*n-1)", "half-modulus", threshold="1/10"))
    _assert_flips(model, "ab", "1/(4*n)")  # a real negative: too hot a τ flips the decision
    outcome = certify(model, 1, 1000)
    if outcome.verdict == "certified":
        claim = outcome.certificate["claim"]
        words = list(words_up_to(model.alphabet, 1, 4, 200, 0, 4)) + [tuple(w) for w in HALF_MODULUS_WORDS]
        assert_certificate_holds(model, claim, words)
    else:
        _assert_not_certified(outcome, model)


# --------------------------------------------------------------------------------------------
# 3c. combined-query sign gadget whose constant shift is an integer: the query can be exactly 0
# --------------------------------------------------------------------------------------------

def test_integer_shift_sign_gadget_is_not_homogeneous_and_is_refuted():
    model = model_from_dict(sign_model("-1"))
    fact = _facts(model)["sign"]
    assert fact.kind == "gap" and not fact.homogeneous  # (u − 1/n)·n ∈ Z: the offset is 0, the query can be 0
    assert fact.query_coord.offset == 0
    # 'abb': d = 1, all keys tie, hard mean of k = (1 + 1 − 2)/4 = 0 rejects; the soft lookup leaks more
    # weight right of key 1 than left, u > 1/3, the query turns positive and favours k = +1
    for tau in ("1/(10*n)", "1/(10*n^2)"):
        _assert_flips(model, "abb", tau)
    _assert_not_certified(certify(model, 1, 50), model)


def test_leaky_finite_query_sign_gadget_is_not_homogeneous_and_is_refuted():
    model = model_from_dict(leaky_fin_sign_model())
    fact = _facts(model)["sign"]
    assert fact.kind == "gap" and not fact.homogeneous
    assert fact.query_coord.fin is not None and 0 in fact.query_coord.fin
    _assert_flips(model, "ba", "1/(10*n)")
    _assert_not_certified(certify(model, 1, 100), model)


def test_half_integer_shift_sign_gadget_certificate_survives_brute_force():
    """The control: shift −3/2 keeps the combined query off zero (offset 1/2), so the gadget is homogeneous."""
    model = model_from_dict(sign_model("-3/2"))
    fact = _facts(model)["sign"]
    assert fact.kind == "gap" and fact.homogeneous and fact.query_coord.offset == 0.5
    claim = _certified_claim(model, 50)
    words = list(words_up_to(model.alphabet, 1, 8, budget=600, random_words=6, random_max=40, seed=7))
    words += [tuple("a" + "b" * 20), tuple("b" * 20 + "a"), tuple("ab" + "b" * 30), tuple("aab" + "b" * 30)]
    assert assert_certificate_holds(model, claim, words) == len(words)


# --------------------------------------------------------------------------------------------
# 4. a positive L-lookup model
# --------------------------------------------------------------------------------------------

def _lookup_reference(word) -> bool:
    d = word.count("a")
    return d >= 1 and word[d - 1] == "a"


def test_even_lookup_is_a_lookup_and_its_certificate_survives_brute_force():
    model = model_from_dict(lookup_model(odd=False))
    fact = _facts(model)["lookup"]
    assert fact.kind == "lookup" and fact.homogeneous
    claim = _certified_claim(model, 200)
    assert claim["n_max"] == 200
    words = list(words_up_to(model.alphabet, 1, 7, budget=300, random_words=0, random_max=7))
    assert len(words) == 254
    # long words where position d = #a holds a and its neighbours b (leak toward the other value)
    for n in (31, 64, 100):
        d = n // 2
        words.append(tuple(("b" * (d - 2) + "bab" + "a" * n)[:n]))
        words.append(tuple(("a" * (d - 2) + "aba" + "b" * n)[:n]))
    for w in words:
        assert hard_run(model, w).decisions == (_lookup_reference(w),), "".join(w)
    assert assert_certificate_holds(model, claim, words) == len(words)


@pytest.mark.parametrize("scheme", ["bounded", "unbounded"])
@pytest.mark.parametrize("text", ["#future['a'] > #future['b']", "#past['a'] + 2*#future['b'] >= #past['c'] + 1"])
def test_compiled_future_comparisons_certify_and_hold(scheme, text):
    """Future counts in both schemes: the amplifier's combined query (u + c·w, normalised by the
    first coefficient) is never 0, so the head is homogeneous; the certificate survives brute force."""
    from proofs.constructions.compiler import compile_formula

    alphabet = ("a", "b", "c")
    model = model_from_dict(compile_formula(parse_formula(text), alphabet, scheme))
    outcome = certify(model, 1, 200)
    assert outcome.verdict == "certified", outcome.reason
    words = list(words_up_to(alphabet, 1, 4, budget=120, random_words=3, random_max=30, seed=4))
    assert assert_certificate_holds(model, outcome.certificate["claim"], words) > 0
    formula = parse_formula(text)
    for word in words:
        assert hard_run(model, word).decisions[-1] == evaluate(formula, word)[-1]

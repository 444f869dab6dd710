"""Random models aimed at the kernel's assumptions, not at the shapes the compiler emits.

Each model is a pipeline that moves a number through the places where the kernel must
keep every part of a fact (issue 11): a *carrier* head copies a scaled quantity — a
position embedding times a constant with an awkward denominator (49/100, 999/10^6, 1/3,
3/7), a token indicator, a mean — into a work dim; an optional FFN sits between heads
(ReLU copy, scaling, rounding); an optional second head copies the copy; a final head
scores with that number against key dims, next to a tie-breaking position term and
terms that nearly cancel (−1/2·p·k beside w·k, ×1000 amplifiers).  BOS or not,
leftmost/rightmost/average, 1/n, 1/(n+1) and 1/n² scales.

Drawn with a seeded :class:`random.Random` so that a sweep is the same on every run and
its minimum number of certified non-uniform models is a real assertion.
"""
from __future__ import annotations

import random
from fractions import Fraction

SCALES = ("1/n", "1/(n+1)", "1/n^2", "2/(n+1)", "1")
POSITIONS = ("i/n", "i/(n+1)", "i/n^2", "(i+1)/(n+1)")
AWKWARD = ("49/100", "1/2", "999/1000000", "1/3", "3/7", "1", "2", "-1/2", "1/4")
AMPLIFIERS = ("1", "1000", "-1/2", "2", "1/2", "-1", "3")


def _q(text: str) -> Fraction:
    return Fraction(text)


def adversarial_model(rng: random.Random, index: int = 0) -> dict:
    """One pipeline model (a model.json v1 dict)."""
    bos = rng.choice((None, "$"))
    alphabet = rng.choice((["a", "b"], ["a", "b", "c"]))
    dims = ["one", "pos", "p", "k", "kb", "w", "w2", "w3", "out", "y"]
    token = {"a": {"k": 1}, "b": {"kb": 1}}
    if "c" in alphabet:
        token["c"] = {"k": 1, "kb": 1} if rng.random() < 0.5 else {}
    if bos:
        token[bos] = rng.choice(({}, {"k": 1}, {"kb": Fraction(1, 2)}))
    position = {"one": "1", "pos": rng.choice(POSITIONS), "p": rng.choice(SCALES)}
    layers = [{"type": "attention", "heads": [_carrier(rng)]}]
    source = "w"
    if rng.random() < 0.4:
        layers.append({"type": "ffn", "hidden": _between(rng)})
        source = "w2"
    if rng.random() < 0.35:
        layers.append({"type": "attention", "heads": [_copy(rng, source)]})
        source = "w3"
    layers.append({"type": "attention", "heads": [_final(rng, source)]})
    output_dim = "out"
    if rng.random() < 0.4:
        layers.append({"type": "ffn", "hidden": [
            {"in": {"out": 4}, "bias": "-1", "out": {"y": 1}},
            {"in": {"out": 4}, "bias": "-2", "out": {"y": -1}}]})
        output_dim = "y"
    return {
        "format": "hardsoft.model/1", "name": f"adversarial-{index}", "alphabet": alphabet, "bos": bos,
        "dims": dims, "embed": {"token": _numbers(token), "position": position}, "layers": layers,
        "output": {"dim": output_dim, "position": rng.choice(("last", "last", "first", "all")), "threshold": "1/2"},
    }


def _numbers(token: dict) -> dict:
    return {s: {d: str(v) for d, v in vec.items()} for s, vec in token.items()}


def _carrier(rng: random.Random) -> dict:
    kind = rng.choice(("last", "first", "mean", "exists", "last-token"))
    c = rng.choice(AWKWARD)
    if kind in ("last", "first"):
        return {"name": "h1", "hard": rng.choice(("rightmost", "leftmost")),
                "visible": rng.choice(("j<=i", "all")),
                "score": [["one", "pos", 1 if kind == "last" else -1]],
                "value": [["w", rng.choice(("p", "p", "k", "pos")), c]]}
    if kind == "last-token":
        return {"name": "h1", "hard": "rightmost", "visible": "j<=i", "score": [["one", "pos", 1]],
                "value": [["w", "k", c], ["w", "p", rng.choice(AWKWARD)]]}
    if kind == "mean":
        return {"name": "h1", "hard": "average", "visible": rng.choice(("all", "j<=i")), "score": [],
                "value": [["w", rng.choice(("p", "k")), c]]}
    return {"name": "h1", "hard": "average", "visible": rng.choice(("all", "j<=i")), "score": [["one", "k", 1]],
            "value": [["w", rng.choice(("k", "p")), c]]}


def _between(rng: random.Random) -> list:
    kind = rng.choice(("copy", "scale", "round", "shift"))
    if kind == "copy":
        return [{"in": {"w": 1}, "out": {"w2": 1}}, {"in": {"w": -1}, "out": {"w2": -1}}]
    if kind == "scale":
        return [{"in": {"w": rng.choice((2, "1/2", 3))}, "out": {"w2": 1}}]
    if kind == "shift":
        return [{"in": {"w": 1}, "bias": rng.choice(("1/2", "1/3", "-1/4")), "out": {"w2": 1}}]
    return [{"in": {"w": 4}, "bias": "-1", "out": {"w2": 1}}, {"in": {"w": 4}, "bias": "-2", "out": {"w2": -1}}]


def _copy(rng: random.Random, source: str) -> dict:
    return {"name": "h2", "hard": rng.choice(("rightmost", "leftmost")), "visible": "j<=i",
            "score": [["one", "pos", rng.choice((1, -1))]], "value": [["w3", source, rng.choice(("1", "1/2", "999/1000"))]]}


def _final(rng: random.Random, source: str) -> dict:
    """The head that reads the carried number; families aimed at the gap, distinct and lattice rules."""
    family = rng.choice(("gap", "gap", "distinct", "lattice", "mixed"))
    key = rng.choice(("k", "k", "kb"))
    if family == "gap":  # w·K(j), possibly next to −c·p·K(j): the combined query must keep its offset
        score = [[source, key, rng.choice(AMPLIFIERS)]]
        if rng.random() < 0.5:
            score.append(["p", key, rng.choice(("-1/2", "-49/100", "1"))])
        hard = "average"
    elif family == "distinct":  # a position tie-break next to the carried number (L-tiebreak)
        score = [["one", "pos", rng.choice((1, -1))], [source, key, rng.choice(("1000", "1", "2", "-1"))]]
        hard = rng.choice(("rightmost", "leftmost"))
    elif family == "lattice":  # exact queries: token offsets on the position lattice (L-ziggurat)
        score = [["one", "pos", rng.choice((1, -1, "1/2"))], ["one", key, rng.choice((1, 2, -1, "1/2"))]]
        hard = rng.choice(("average", "rightmost", "leftmost"))
    else:
        score = [["one", "pos", rng.choice((1, -1, "1/2"))], [source, rng.choice(("k", "kb", "pos")),
                                                               rng.choice(AMPLIFIERS)]]
        if rng.random() < 0.4:
            score.append(["p", "k", rng.choice(("-1/2", "-49/100", "1"))])
        hard = rng.choice(("average", "rightmost", "leftmost"))
    return {"name": "h3", "hard": hard, "visible": rng.choice(("all", "j<=i", "j<i")), "score": score,
            "value": [["out", rng.choice(("k", "k", "kb", "w")), 1]]}

"""Models written the way outside users write them (issue 12), not the way the compiler emits them.

Families:

* ``random``: one-hot tokens, average-hard heads whose scores combine token, position and work
  dims with several terms, bounded position embeddings (i/n, i/(n+1), 1/(i+1), (-1)^i) or
  unbounded ones (i, i², n, n − i), 1–3 layers, rounding FFNs between and after;
* ``edit``: harmless edits of shipped models — rescaled scores, an extra unused dim, a head's
  score with an added row-constant term, permuted dims, a head split in two (value shares summing to 1), an extra head whose output nothing reads,
  a rounding ramp with other breakpoints (moved inward, as steep as it must be to keep its rise).

Drawn with a seeded :class:`random.Random`; :func:`simulable` is the brute-force check that
decides whether a model is simulable at all (soft = hard on every short word at some τ).
"""
from __future__ import annotations

import copy
import itertools
import json
import random
from fractions import Fraction
from pathlib import Path

from certify.errors import UserError
from certify.evaluate import hard_run, soft_run
from certify.expr import parse_expr

BOUNDED = ("i/n", "i/(n+1)", "1/(i+1)", "(-1)^i")
UNBOUNDED = ("i", "i^2", "n", "n-i")
TRY_TAUS = ("1/n", "1/(4*n^2)", "1/(n^3*log(n+2))", "1/(16*n^3*log(n+2))")
SHIPPED = sorted(p for p in (Path(__file__).resolve().parent.parent / "models").rglob("*.json") if "srasp" not in p.parts)


def random_model(rng: random.Random, index: int, unbounded: bool = False) -> dict:
    alphabet = rng.choice((["a", "b"], ["a", "b", "c"]))
    bos = rng.choice((None, "$"))
    tokens = [f"t_{s}" for s in alphabet]
    work = ["w0", "w1", "w2"]
    dims = ["one", "p"] + tokens + (["t_bos"] if bos else []) + work + ["out"]
    token = {s: {f"t_{s}": 1} for s in alphabet}
    if bos:
        token[bos] = {"t_bos": 1}
    position = {"one": "1", "p": rng.choice(UNBOUNDED if unbounded else BOUNDED)}
    layers, readable = [], ["one", "p"] + tokens
    for k in range(rng.randint(1, 3)):
        out = work[k]
        terms = [[rng.choice(["one"] + tokens + readable[2 + len(tokens):]), rng.choice(tokens + ["p"] + readable[2 + len(tokens):]),
                  rng.choice((1, -1, 2, "1/2"))] for _ in range(rng.randint(1, 3))]
        if bos and rng.random() < 0.5:
            terms.append(["one", "t_bos", "1/2"])
        layers.append({"type": "attention", "heads": [{
            "name": f"h{k}", "hard": "average", "visible": rng.choice(("all", "j<=i", "j<i")), "score": terms,
            "value": [[out, rng.choice(tokens), 1]]}]})
        if rng.random() < 0.6:
            layers.append({"type": "ffn", "hidden": [{"in": {out: 4}, "bias": "-1", "out": {out: 1}},
                                                     {"in": {out: 4}, "bias": "-2", "out": {out: -1}},
                                                     {"in": {out: 1}, "out": {out: -1}}]})
        readable.append(out)
    last = readable[-1]
    layers.append({"type": "ffn", "hidden": [{"in": {last: 2}, "bias": "-1/2", "out": {"out": 1}},
                                             {"in": {last: 2}, "bias": "-3/2", "out": {"out": -1}}]})
    return {"format": "hardsoft.model/1", "name": f"outside-{index}", "alphabet": alphabet, "bos": bos,
            "dims": dims, "embed": {"token": token, "position": position}, "layers": layers,
            "output": {"dim": "out", "position": rng.choice(("last", "first", "all")), "threshold": "1/2"}}


def edited_model(rng: random.Random, index: int) -> dict:
    base = json.loads(rng.choice(SHIPPED).read_text())
    model = copy.deepcopy(base)
    model["name"] = f"edit-{index}-{base['name']}"
    model.pop("temperature", None)
    edit = rng.choice(("rescale", "extra-dim", "row-constant", "permute", "split", "extra-head", "breakpoints"))
    heads = [h for layer in model["layers"] if layer["type"] == "attention" for h in layer["heads"]]
    if edit == "rescale" and heads:
        head = rng.choice(heads)
        factor = Fraction(rng.choice((2, 3, "1/2")))
        head["score"] = [[q, k, str(Fraction(c) * factor)] for q, k, c in head["score"]]
    elif edit == "extra-dim":
        model["dims"].append("unused")
    elif edit == "row-constant" and heads:
        model["dims"].append("row_n")
        model["embed"].setdefault("position", {})["row_n"] = "n"
        rng.choice(heads)["score"].append(["row_n", "row_n", 1])
    elif edit == "extra-head" and heads:  # a head nothing reads: ties with different values, no rule covers it
        model["dims"].append("unused")
        layer = rng.choice([lay for lay in model["layers"] if lay["type"] == "attention"])
        read = rng.choice(model["dims"][:-1])
        layer["heads"].append({"name": "extra", "hard": rng.choice(("rightmost", "average")), "visible": "all",
                               "score": [["one" if "one" in model["dims"] else read, read, 1]],
                               "value": [["unused", rng.choice(model["dims"][:-1]), 1]]})
    elif edit == "breakpoints" and (ramps := _ramps(model)):
        narrow_ramp(*rng.choice(ramps), Fraction(rng.choice(("1/6", "1/4", "1/3"))))
    elif edit == "split" and heads:
        layer = rng.choice([lay for lay in model["layers"] if lay["type"] == "attention"])
        head = rng.choice(layer["heads"])
        split_head(layer, layer["heads"].index(head), Fraction(rng.choice(("1/2", "1/3", "3/4"))))
    else:
        rng.shuffle(model["dims"])
    return model


def _ramps(model: dict) -> list:
    """(u, v) unit pairs of the FFNs forming a ramp c·ReLU(a·x − t₁) − c·ReLU(a·x − t₂), t₁ < t₂: the same
    inputs, one output with opposite coefficients (the compiler's rounding of a noisy 0/1 value)."""
    found = []
    for layer in model["layers"]:
        units = layer.get("hidden", [])
        for u, v in itertools.combinations(units, 2):
            if u["in"] == v["in"] and len(u["out"]) == 1 and u["out"].keys() == v["out"].keys() and \
                    Fraction(str(next(iter(u["out"].values())))) == -Fraction(str(next(iter(v["out"].values())))) > 0 \
                    and Fraction(str(u.get("bias", 0))) > Fraction(str(v.get("bias", 0))):
                found.append((u, v))
    return found


def narrow_ramp(u: dict, v: dict, share: Fraction) -> None:
    """Move a ramp's breakpoints t₁ < t₂ inward by share·(t₂ − t₁) each and steepen it to keep its rise:
    outside [t₁, t₂] the output is unchanged ("other rounding breakpoints", a harmless edit)."""
    b1, b2 = Fraction(str(u.get("bias", 0))), Fraction(str(v.get("bias", 0)))  # pre-activation a·x + b, b1 > b2
    width = b1 - b2
    out = next(iter(u["out"]))
    c = Fraction(str(u["out"][out]))
    u["bias"], v["bias"] = str(b1 - share * width), str(b2 + share * width)
    scale = 1 / (1 - 2 * share)
    u["out"][out], v["out"][out] = str(c * scale), str(-c * scale)


def split_head(layer: dict, at: int, share: Fraction, **change) -> None:
    """Replace head ``at`` of ``layer`` by two heads writing share·v and (1 − share)·v (``change``: fields
    of the second half, for halves that no longer attend alike)."""
    head = layer["heads"][at]
    halves = [dict(head, name=f"{head['name']}-{k}", value=[[o, v, str(Fraction(c) * part)] for o, v, c in head["value"]])
              for k, part in ((1, share), (2, 1 - share))]
    halves[1].update(change)
    layer["heads"][at:at + 1] = halves


def simulable(model, max_len: int = 5) -> str | None:
    """A τ among :data:`TRY_TAUS` at which soft = hard on every word up to ``max_len``, or None."""
    words = [w for n in range(1, max_len + 1) for w in itertools.product(model.alphabet, repeat=n)]
    hard = [hard_run(model, w).decisions for w in words]
    for text in TRY_TAUS:
        tau = parse_expr(text, variables=("n",), allow_log=True)
        try:
            if all(soft_run(model, w, tau, dps=40).decisions == h for w, h in zip(words, hard)):
                return text
        except UserError:
            continue
    return None

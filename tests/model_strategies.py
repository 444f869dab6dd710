"""Hypothesis strategies for random VALID model.json v1 dicts (model-format.md).

``models()`` draws anything the contract allows (within sizes that keep tests fast):
one- and multi-character alphabets, BOS or not, PE expressions from the grammar
(bounded or unbounded), heads of every hard kind and visibility, FFN units with and
without bias, every output position, an optional temperature, numbers written as
ints, "p/q" strings and JSON decimals.  Two restricted families serve the lemmas'
properties:

* ``heads="unique_max"``: every score is ``K_tok·[token] + c·pos_j`` read by the
  constant query dim ``one``, with integer ``K``, ``0 < |c| <= 1/2`` and ``pos`` a
  strictly increasing PE in [0, 1]; the dims a score reads are never written.  Every
  visible row then has a unique maximum with gap >= |c|/(n+1) (so softmax_τ → hard
  as τ → 0 for every hard kind, theory.md L-gap);
* ``heads="uniform"``: every head is ``average`` with an empty score list, so all
  visible scores tie and softmax_τ = ahardmax exactly at every τ (theory.md §1).

Expressions only divide by quantities that are positive at every position (BOS
included), so every drawn model is defined at every n >= 1.
"""
from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st

# -------------------------------------------------------------- numbers

def _as_model_number(q: Fraction, style: int):
    """Write q as int / "p/q" string / JSON decimal, whichever the style picks and q allows."""
    if style == 0 and q.denominator == 1:
        return int(q)
    if style == 1 and q.denominator in (1, 2, 4, 5, 8, 10, 20, 25):
        return float(q)  # short, exact decimal: json writes e.g. 0.1 and the spec reads 1/10
    return f"{q.numerator}/{q.denominator}" if q.denominator != 1 else str(q.numerator)


@st.composite
def numbers(draw, bound: int = 3, denominators=(1, 2, 3, 4, 5, 10)):
    den = draw(st.sampled_from(denominators))
    num = draw(st.integers(-bound * den, bound * den))
    return _as_model_number(Fraction(num, den), draw(st.integers(0, 2)))


@st.composite
def nonzero_numbers(draw, bound: int = 3):
    q = Fraction(0)
    while q == 0:
        den = draw(st.sampled_from((1, 2, 3, 4)))
        q = Fraction(draw(st.integers(-bound * den, bound * den)), den)
    return _as_model_number(q, draw(st.integers(0, 2)))


# -------------------------------------------------------------- expressions
# Denominators below are positive for all i >= 0, n >= 1.

_POSITIVE = ("n", "(i+1)", "(n+1)", "(n+i)", "(i^2+1)", "(n-i+1)*(n+2)", "(2*n+i+3)")
_BOUNDED_ATOMS = ("1", "0", "i/n", "1/(i+1)", "i/(n+1)", "(-1)^i", "0.5", "(i/(n+1))^2", "1/n")
_UNBOUNDED_ATOMS = ("i", "n", "i^2", "n-i", "i*n", "2.5", "i^3", "(-1)^i*i")


@st.composite
def expressions(draw, bounded: bool = False, depth: int = 2):
    """A PE expression in i, n; bounded ones stay in [-8, 8] for every i <= n + 1."""
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        atoms = _BOUNDED_ATOMS if bounded else _BOUNDED_ATOMS + _UNBOUNDED_ATOMS
        return draw(st.sampled_from(atoms))
    kind = draw(st.sampled_from(("+", "-", "*", "/", "neg", "scale") if not bounded else ("+", "-", "*", "neg", "scale")))
    a = draw(expressions(bounded=bounded, depth=depth - 1))
    if kind == "neg":
        return f"-({a})"
    if kind == "scale":
        c = draw(st.sampled_from(("2", "1/2", "3", "0.25", "-1")))
        return f"{c}*({a})"
    if kind == "/":
        return f"({a})/{draw(st.sampled_from(_POSITIVE))}"
    b = draw(expressions(bounded=bounded, depth=depth - 1))
    return f"({a}){kind}({b})"


_TAUS_N = ("1", "1/2", "2", "0.3", "1/n", "1/(2*n)", "1/(n+1)", "1/log(n+1)", "1/(n*log(n+2))", "log(n+2)")


def temperatures():
    """τ(n) expressions that are positive and >= ~1/50 for n <= 10 (keeps mp errors far below 1e-30)."""
    return st.sampled_from(_TAUS_N)


# -------------------------------------------------------------- models

VISIBLE = ("all", "j<=i", "j<i", "j>=i", "j>i")
HARD = ("average", "leftmost", "rightmost")


@st.composite
def alphabets(draw):
    if draw(st.booleans()):
        return draw(st.lists(st.sampled_from("abcd"), min_size=1, max_size=3, unique=True))
    return draw(st.lists(st.sampled_from(("x1", "yy", "z", "sym3")), min_size=1, max_size=3, unique=True))


@st.composite
def models(draw, heads: str = "any", bounded: bool = False, max_layers: int = 3, coef_bound: int = 3):
    """A random valid model dict; see the module docstring for ``heads``."""
    alphabet = draw(alphabets())
    bos = draw(st.sampled_from((None, "BOS", "$")))
    symbols = alphabet + ([bos] if bos else [])
    token_dims = [f"t{k}" for k in range(len(symbols))]
    work = [f"w{k}" for k in range(draw(st.integers(1, 3)))]
    dims = ["one", "pos"] + token_dims + work
    perm = draw(st.permutations(dims))  # the order of dims must not matter
    num = lambda: numbers(bound=coef_bound)  # noqa: E731

    token = {}
    for k, sym in enumerate(symbols):
        vec = {token_dims[k]: 1}
        if heads == "any":
            for d in draw(st.lists(st.sampled_from(dims), max_size=2, unique=True)):
                vec[d] = draw(num())
        token[sym] = vec
    position = {"one": "1", "pos": draw(st.sampled_from(("i/(n+1)", "i/(n+2)", "(i/(n+1))^2")))}
    if heads == "any":
        for d in draw(st.lists(st.sampled_from(work + token_dims), max_size=2, unique=True)):
            position[d] = draw(expressions(bounded=bounded))
        if not bounded and draw(st.booleans()):
            position["pos"] = draw(st.sampled_from(("i", "i^2", "n-i", "i/n")))

    readable = dims
    layers = []
    head_count = 0
    for layer_index in range(draw(st.integers(1, max_layers))):
        if layer_index == 0 or draw(st.booleans()):
            hs = []
            for _ in range(draw(st.integers(1, 2))):
                hs.append(draw(_head(f"h{head_count}", heads, dims, token_dims, work, readable, coef_bound)))
                head_count += 1
            layers.append({"type": "attention", "heads": hs})
        else:
            units = []
            for _ in range(draw(st.integers(1, 3))):
                unit = {"in": {d: draw(num()) for d in draw(st.lists(st.sampled_from(readable), min_size=1,
                                                                       max_size=3, unique=True))},
                        "out": {d: draw(num()) for d in draw(st.lists(st.sampled_from(work if heads != "any" else dims),
                                                                        min_size=1, max_size=2, unique=True))}}
                if draw(st.booleans()):
                    unit["bias"] = draw(num())
                units.append(unit)
            layers.append({"type": "ffn", "hidden": units})

    model = {"format": "hardsoft.model/1", "name": draw(st.from_regex(r"[A-Za-z0-9._-]{1,12}", fullmatch=True)),
             "alphabet": alphabet, "bos": bos, "dims": list(perm),
             "embed": {"token": token, "position": position}, "layers": layers,
             # mostly a dim the last attention layer writes, so its heads reach the output (dead heads are skipped)
             "output": {"dim": draw(st.sampled_from(_last_written(layers) * 6 + work + ["pos"])),
                        "position": draw(st.sampled_from(("last", "first", "all"))),
                        "threshold": draw(num())}}
    if draw(st.booleans()):
        model["description"] = "random model drawn by tests/model_strategies.py"
    if draw(st.booleans()):
        model["temperature"] = draw(temperatures())
    return model


def _last_written(layers: list) -> list:
    attention = [layer for layer in layers if layer["type"] == "attention"]
    return sorted({o for h in attention[-1]["heads"] for o, _, _ in h["value"]}) if attention else []


@st.composite
def _head(draw, name, heads, dims, token_dims, work, readable, coef_bound):
    num = numbers(bound=coef_bound)
    if heads == "uniform":
        score = []
    elif heads == "unique_max":
        c = Fraction(draw(st.sampled_from((1, 2, 3, 4))), 8) * draw(st.sampled_from((1, -1)))
        score = [["one", "pos", f"{c.numerator}/{c.denominator}"]]
        for d in draw(st.lists(st.sampled_from(token_dims), max_size=2, unique=True)):
            score.append(["one", d, draw(st.integers(-3, 3))])
    else:  # keys mostly read token dims, so ties between equal symbols are common
        score = [[draw(st.sampled_from(["one"] + dims)), draw(st.sampled_from(token_dims + dims)),
                  draw(nonzero_numbers())] for _ in range(draw(st.integers(0, 3)))]
    value = [[draw(st.sampled_from(work)), draw(st.sampled_from(readable + token_dims + ["pos"])),
              draw(nonzero_numbers())] for _ in range(draw(st.integers(1, 2)))]
    return {"name": name, "hard": "average" if heads == "uniform" else draw(st.sampled_from(HARD)),
            "visible": draw(st.sampled_from(VISIBLE)), "score": score, "value": value}


@st.composite
def words(draw, model: dict, min_size: int = 1, max_size: int = 6):
    return draw(st.lists(st.sampled_from(model["alphabet"]), min_size=min_size, max_size=max_size))


def word_text(model: dict, word) -> str:
    """WORD as the CLI takes it: concatenated when every symbol is one character, else spaced."""
    return "".join(word) if all(len(s) == 1 for s in model["alphabet"]) else " ".join(word)

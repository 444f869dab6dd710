"""An independent reading of the model format (docs/model-format.md), used as a test oracle.

Written from the spec alone, deliberately without importing (or reading) the
project's ``certify.expr`` / ``certify.evaluate``: if both implementations agree on
random models, a misreading of the spec would have to be made twice, the same way.
It works on the raw JSON dict (decimals parsed exactly with ``parse_float=Fraction``),
does no validation beyond what evaluation needs, and favours obviousness over speed
(pure Python, O(layers * n^2)).

Semantics implemented (model-format.md, theory.md §1):
* positions 0..n with a BOS symbol (position 0), else 1..n; PE(i, n) is added at every
  position, BOS included;
* attention: all heads of a layer read the same stream; ``s_ij = Σ c x_i[q] x_j[k]``;
  hard weights are ahardmax (average) or all weight on the leftmost/rightmost maximum;
  soft weights are ``softmax_τ`` (max-shifted) whatever ``hard`` says; an empty visible
  set adds nothing;
* ffn: every unit reads the stream as it was before the layer;
* output: ``x_i[D]`` at the last position, the first (BOS if present, else 1), or every
  input position 1..n; the decision is ``x_i[D] > threshold``.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from fractions import Fraction

import mpmath

# ------------------------------------------------------------------ numbers

_RATIO = re.compile(r"(-?)(\d+)/(\d+)\Z")


def number(v) -> Fraction:
    """A model number: int, exact decimal (already a Fraction), or "p/q" / "-p/q"."""
    if isinstance(v, bool):
        raise ValueError("boolean is not a number")
    if isinstance(v, (int, Fraction)):
        return Fraction(v)
    if isinstance(v, str):
        m = _RATIO.match(v.strip())
        if m:
            q = Fraction(int(m.group(2)), int(m.group(3)))
            return -q if m.group(1) else q
        if re.fullmatch(r"-?\d+", v.strip()):
            return Fraction(int(v))
    raise ValueError(f"not a model number: {v!r}")


def loads(text: str) -> dict:
    """Parse model text; JSON decimals become the exact decimal they spell."""
    return json.loads(text, parse_float=Fraction)


# ------------------------------------------------------------------ expressions
# Grammar (model-format.md): integers, decimals, i, n, + - * /, parentheses,
# ^ with a literal integer exponent 0..8, (-1)^i, log(...).  Unary minus binds
# looser than ^ (so -i^2 = -(i^2)), as in ordinary mathematics.

_TOKEN = re.compile(r"\s*(?:(\d+\.\d+|\d+)|([a-z]+)|(.))")


def _tokens(text: str) -> list[str]:
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        out.append(m.group(1) or m.group(2) or m.group(3))
        pos = m.end()
    return out


class _Parser:
    def __init__(self, text: str, variables: tuple[str, ...]):
        self.toks = _tokens(text)
        self.k = 0
        self.variables = variables

    def peek(self):
        return self.toks[self.k] if self.k < len(self.toks) else None

    def take(self, expected=None):
        t = self.peek()
        if t is None or (expected is not None and t != expected):
            raise ValueError(f"expected {expected!r}, got {t!r}")
        self.k += 1
        return t

    def parse(self):
        e = self.sum()
        if self.peek() is not None:
            raise ValueError(f"trailing {self.peek()!r}")
        return e

    def sum(self):
        e = self.product()
        while self.peek() in ("+", "-"):
            op = self.take()
            e = (op, e, self.product())
        return e

    def product(self):
        e = self.unary()
        while self.peek() in ("*", "/"):
            op = self.take()
            e = (op, e, self.unary())
        return e

    def unary(self):
        if self.peek() == "-":
            self.take()
            return ("neg", self.unary())
        return self.power()

    def power(self):
        start = self.k
        base = self.atom()
        base_tokens = self.toks[start:self.k]
        if self.peek() != "^":
            return base
        self.take()
        t = self.take()
        if t == "i" and base_tokens == ["(", "-", "1", ")"] and "i" in self.variables:
            return ("altsign",)
        if not t.isdigit() or int(t) > 8:
            raise ValueError(f"bad exponent {t!r}")
        return ("pow", base, int(t))

    def atom(self):
        t = self.take()
        if t == "(":
            e = self.sum()
            self.take(")")
            return e
        if t == "log":
            self.take("(")
            e = self.sum()
            self.take(")")
            return ("log", e)
        if t in self.variables:
            return ("var", t)
        if t[0].isdigit():
            return ("num", Fraction(t))
        raise ValueError(f"unexpected {t!r}")


def parse(text: str, variables=("i", "n")):
    return _Parser(text, variables).parse()


def evaluate(e, env: dict, exact: bool = True):
    """Exact (Fraction) or mpmath value; ZeroDivisionError / ValueError where undefined."""
    tag = e[0]
    if tag == "num":
        return e[1] if exact else mpmath.mpf(e[1].numerator) / e[1].denominator
    if tag == "var":
        return Fraction(env[e[1]]) if exact else mpmath.mpf(env[e[1]])
    if tag == "altsign":
        return Fraction((-1) ** env["i"]) if exact else mpmath.mpf((-1) ** env["i"])
    if tag == "neg":
        return -evaluate(e[1], env, exact)
    if tag == "pow":
        return evaluate(e[1], env, exact) ** e[2]
    if tag == "log":
        if exact:
            raise ValueError("log has no exact value")
        x = evaluate(e[1], env, exact)
        if x <= 0:
            raise ValueError("log of a non-positive number")
        return mpmath.log(x)
    a, b = evaluate(e[1], env, exact), evaluate(e[2], env, exact)
    if tag == "+":
        return a + b
    if tag == "-":
        return a - b
    if tag == "*":
        return a * b
    if b == 0:
        raise ZeroDivisionError("division by zero")
    return a / b


# ------------------------------------------------------------------ evaluation

@dataclass(frozen=True)
class Result:
    n: int
    positions: tuple[int, ...]      # output positions (BOS = 0)
    outputs: tuple                  # Fraction (hard) or mpf (soft)
    decisions: tuple[bool, ...]
    scale: object                   # max |entry| over every stream, for error floors


def _visible(rule: str, i: int, j: int) -> bool:
    return {"all": True, "j<=i": j <= i, "j<i": j < i, "j>=i": j >= i, "j>i": j > i}[rule]


def _hard_weights(kind: str, scores: list) -> list:
    top = max(scores)
    winners = [k for k, s in enumerate(scores) if s == top]
    if kind == "leftmost":
        winners = winners[:1]
    elif kind == "rightmost":
        winners = winners[-1:]
    w = [Fraction(0)] * len(scores)
    for k in winners:
        w[k] = Fraction(1, len(winners))
    return w


def _soft_weights(tau, scores: list) -> list:
    top = max(scores)
    e = [mpmath.exp((s - top) / tau) for s in scores]
    total = mpmath.fsum(e)
    return [x / total for x in e]


def run(model: dict, word, tau: str | None = None, dps: int = 100) -> Result:
    """Hard semantics (exact) when ``tau`` is None, else softmax_τ(n) in mpmath at ``dps``."""
    with mpmath.workdps(dps):
        return _run(model, list(word), tau)


def _run(model: dict, word: list, tau_text: str | None) -> Result:
    exact = tau_text is None
    n = len(word)
    dims = model["dims"]
    bos = model.get("bos")
    positions = list(range(0 if bos is not None else 1, n + 1))
    symbols = ([bos] if bos is not None else []) + word
    conv = (lambda q: q) if exact else (lambda q: mpmath.mpf(q.numerator) / q.denominator)
    zero = conv(Fraction(0))

    stream = []
    pe = {d: parse(t if isinstance(t, str) else str(number(t))) for d, t in model["embed"].get("position", {}).items()}
    for i, sym in zip(positions, symbols):
        x = {d: Fraction(0) for d in dims}
        for d, c in model["embed"]["token"][sym].items():
            x[d] += number(c)
        for d, e in pe.items():
            x[d] += evaluate(e, {"i": i, "n": n})  # PE is rational: exact, then converted
        stream.append({d: conv(v) for d, v in x.items()})
    tau = None
    if not exact:
        tau = evaluate(parse(tau_text, variables=("n",)), {"n": n}, exact=False)
        if tau <= 0:
            raise ValueError("temperature must be positive")
    scale = max((abs(v) for x in stream for v in x.values()), default=zero)

    for layer in model["layers"]:
        new = [dict(x) for x in stream]
        if layer["type"] == "attention":
            for head in layer["heads"]:
                score = [(q, k, conv(number(c))) for q, k, c in head["score"]]
                value = [(o, k, conv(number(c))) for o, k, c in head["value"]]
                for a, i in enumerate(positions):
                    keys = [b for b, j in enumerate(positions) if _visible(head["visible"], i, j)]
                    if not keys:
                        continue
                    s = [sum((c * stream[a][q] * stream[b][k] for q, k, c in score), zero) for b in keys]
                    w = _hard_weights(head["hard"], s) if exact else _soft_weights(tau, s)
                    for o, k, c in value:
                        new[a][o] += sum((wt * c * stream[b][k] for wt, b in zip(w, keys)), zero)
        else:
            for unit in layer["hidden"]:
                bias = conv(number(unit.get("bias", 0)))
                for a in range(len(positions)):
                    pre = bias + sum((conv(number(c)) * stream[a][d] for d, c in unit["in"].items()), zero)
                    act = pre if pre > 0 else zero
                    for d, c in unit["out"].items():
                        new[a][d] += conv(number(c)) * act
        stream = new
        scale = max([scale] + [abs(v) for x in stream for v in x.values()])

    out = model["output"]
    where = {"last": [n], "first": [positions[0]], "all": list(range(1, n + 1))}[out["position"]]
    theta = conv(number(out["threshold"]))
    values = tuple(stream[positions.index(p)][out["dim"]] for p in where)
    return Result(n, tuple(where), values, tuple(bool(v > theta) for v in values), scale)

"""Assembling model.json v1 dicts from gadgets, with layer scheduling.

A :class:`Builder` owns the residual dims, embeddings and a sequence of layer
slots that alternate FFN, attention, FFN, ...  Every gadget step is placed in
the earliest slot of its kind after the slots that wrote its inputs, so
independent subformulas share layers and the depth is the formula's depth,
while the size (dims, units, heads) is linear in the formula (each gadget adds
a constant amount; see ``models/compiled/README.md``).  Dims are never
overwritten: every gadget writes fresh dims, so each dim has one meaning.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Iterable

from certify.model import FORMAT

EMBEDDED = -1  # "ready" index of dims set by the embedding


def number(v) -> int | str:
    """A model number: an int, or the exact "p/q" string."""
    v = Fraction(v)
    return v.numerator if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


class Builder:
    def __init__(self, alphabet: Iterable[str], bos: str | None):
        self.alphabet = tuple(alphabet)
        self.bos = bos
        self.dims: list[str] = []
        self.token: dict[str, dict[str, Fraction]] = {s: {} for s in self.alphabet + ((bos,) if bos else ())}
        self.position: dict[str, str] = {}
        self._pe_by_expr: dict[str, str] = {}
        self.slots: list[list] = []  # slot k: FFN units if k even, attention heads if k odd
        self.notes: list[str] = []
        self._counter = 0

    # -- dims
    def fresh(self, hint: str) -> str:
        self._counter += 1
        name = f"n{self._counter}.{hint}"
        self.dims.append(name)
        return name

    def named(self, name: str) -> str:
        if name not in self.dims:
            self.dims.append(name)
        return name

    def pe(self, name: str, expr: str) -> str:
        """A dim holding the position embedding ``expr`` (shared per expression)."""
        if expr not in self._pe_by_expr:
            self.named(name)
            self.position[name] = expr
            self._pe_by_expr[expr] = name
        return self._pe_by_expr[expr]

    def token_feature(self, name: str, values: dict[str, int | Fraction]) -> str:
        """A dim set by the token embedding (``values``: symbol -> number)."""
        if name not in self.dims:
            self.named(name)
            for sym, v in values.items():
                if v:
                    self.token[sym][name] = Fraction(v)
        return name

    # -- layers
    def _slot(self, kind: str, ready: int) -> int:
        k = ready + 1
        if (k % 2 == 0) != (kind == "ffn"):
            k += 1
        while len(self.slots) <= k:
            self.slots.append([])
        return k

    def ffn(self, units: list[dict], ready: int) -> int:
        """Add FFN units after layer ``ready``; return the slot they were placed in."""
        k = self._slot("ffn", ready)
        self.slots[k].extend(units)
        return k

    def attention(self, head: dict, ready: int) -> int:
        k = self._slot("attention", ready)
        self.slots[k].append(head)
        return k

    # -- output
    def to_dict(self, name: str, description: str, output: dict, temperature: str) -> dict:
        layers = []
        for k, items in enumerate(self.slots):
            if not items:
                continue
            if k % 2 == 0:
                layers.append({"type": "ffn", "hidden": [_unit(u) for u in items]})
            else:
                layers.append({"type": "attention", "heads": [_head(h) for h in items]})
        return {
            "format": FORMAT,
            "name": name,
            "description": description,
            "alphabet": list(self.alphabet),
            "bos": self.bos,
            "dims": list(self.dims),
            "embed": {
                "token": {s: {d: number(v) for d, v in vec.items()} for s, vec in self.token.items()},
                "position": dict(self.position),
            },
            "layers": layers,
            "output": output,
            "temperature": temperature,
        }


def unit(inputs: dict, out: dict, bias=0) -> dict:
    return {"in": dict(inputs), "bias": Fraction(bias), "out": dict(out)}


def _unit(u: dict) -> dict:
    d = {"in": {k: number(v) for k, v in u["in"].items()}}
    if u["bias"]:
        d["bias"] = number(u["bias"])
    d["out"] = {k: number(v) for k, v in u["out"].items()}
    return d


def _head(h: dict) -> dict:
    return {
        "name": h["name"],
        "hard": h["hard"],
        "visible": h["visible"],
        "score": [[q, k, number(c)] for q, k, c in h["score"]],
        "value": [[o, v, number(c)] for o, v, c in h["value"]],
    }

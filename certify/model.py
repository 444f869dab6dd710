"""model.json v1 and v2: loading and validation (docs/model-format.md, docs/model-format-v2.md).

Everything a model says is checked here, before any work, and every rejection is
one :class:`ModelError` naming the key path.  Numbers become exact ``Fraction``s
(a JSON decimal is the decimal it spells, never a binary float); expressions
become ASTs from :mod:`certify.expr`, and a position embedding must be defined at
every position of every length (decided exactly by :mod:`certify.domain`), and a
proposed temperature positive for every n (:mod:`certify.kernel.positivity`).  This
module imports nothing else of ours except the error types, the expression parser
and those two decisions, so every other layer can depend on it.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path
from typing import Any

from .errors import ExprError, ModelError
from .domain import first_undefined
from .expr import Expr, eval_exact, has_log, parse_expr, to_text
from .kernel.positivity import check_tau

FORMAT = "hardsoft.model/1"
FORMAT_V2 = "hardsoft.model/2"
MAX_TABLE_LENGTH = 4096
MAX_FILE_BYTES = 16 * 2**20
MAX_DIMS = 4096
MAX_LAYERS = 256
MAX_HEADS = 64
MAX_LIST = 65536
MAX_DIGITS = 10**30
MAX_DECIMAL_EXPONENT = 30
HARD_KINDS = ("average", "leftmost", "rightmost")
VISIBILITIES = ("all", "j<=i", "j<i", "j>=i", "j>i")
OUTPUT_POSITIONS = ("last", "first", "all")
_NAME = re.compile(r"[A-Za-z0-9._-]{1,64}\Z")
_RATIO = re.compile(r"\s*(-?)(\d+)\s*/\s*(\d+)\s*\Z")
_INTEGER = re.compile(r"\s*-?\d+\s*\Z")


@dataclass(frozen=True)
class Head:
    name: str
    hard: str
    visible: str
    score: tuple[tuple[str, str, Fraction], ...]
    value: tuple[tuple[str, str, Fraction], ...]


@dataclass(frozen=True)
class AttentionLayer:
    heads: tuple[Head, ...]


@dataclass(frozen=True)
class Unit:
    inputs: tuple[tuple[str, Fraction], ...]
    bias: Fraction
    outputs: tuple[tuple[str, Fraction], ...]


@dataclass(frozen=True)
class FFNLayer:
    units: tuple[Unit, ...]


Layer = AttentionLayer | FFNLayer


def dims_written(layer: Layer) -> set:
    """The dims a layer adds to: its heads' value outputs, or its units' outputs."""
    if isinstance(layer, AttentionLayer):
        return {o for h in layer.heads for o, _, _ in h.value}
    return {d for u in layer.units for d, _ in u.outputs}


@dataclass(frozen=True)
class Output:
    dim: str
    position: str
    threshold: Fraction
    argmax: tuple[str, ...] = ()  # v2 categorical output: decision = index of the first largest dim


@dataclass(frozen=True)
class Model:
    name: str
    description: str
    alphabet: tuple[str, ...]
    bos: str | None
    dims: tuple[str, ...]
    token_embed: dict  # symbol -> tuple[(dim, Fraction)]
    position_embed: tuple[tuple[str, Expr], ...]
    layers: tuple[Layer, ...]
    output: Output
    temperature: Expr | None
    sha256: str  # of the canonical content (canonical_content), as certificates cite it
    # v2 (docs/model-format-v2.md); v1 files leave the defaults, so they mean what they meant.
    position_table: tuple[tuple[str, tuple[Fraction, ...]], ...] = ()  # dim -> value at position 0..max_length
    max_length: int | None = None  # inputs longer than this are outside the model
    temperature_interval: tuple[Fraction, Fraction] | None = None  # the model's τ lies in [lo, hi]

    def __hash__(self) -> int:
        return hash(self.sha256)

    @property
    def heads(self) -> list[tuple[int, Head]]:
        return [(k, h) for k, layer in enumerate(self.layers) if isinstance(layer, AttentionLayer) for h in layer.heads]


# ---------------------------------------------------------------- numbers

class RejectedNumber:
    """A JSON number or constant refused while parsing (NaN, Infinity, huge exponent or
    integer); :func:`parse_number` reports it with its key path, which json cannot know."""

    def __init__(self, reason: str):
        self.reason = reason


def parse_number(value: Any, path: str) -> Fraction:
    """A model number: int, "p/q" string, or JSON decimal (kept as its text)."""
    if isinstance(value, RejectedNumber):
        raise ModelError(path, value.reason)
    if isinstance(value, bool):
        raise ModelError(path, "expected a number, got a boolean")
    if isinstance(value, int):
        return _bounded(Fraction(value), path)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ModelError(path, "NaN and Infinity are not numbers")
        sign, digits, exponent = value.as_tuple()
        if abs(exponent) > MAX_DECIMAL_EXPONENT + len(digits):
            raise ModelError(path, f"exponent beyond ±{MAX_DECIMAL_EXPONENT}")
        # p/q with p, q <= 10^30 and q = 2^a 5^b has < 160 significant digits; longer
        # mantissas would make Fraction(value) take minutes (10^6 digits: ~60 s).
        if len(bytes(digits).strip(b"\0")) > 160:
            raise ModelError(path, "numerator or denominator over 10^30")
        return _bounded(Fraction(value), path)
    if isinstance(value, str):
        m = _RATIO.match(value)
        if m:
            if len(m.group(2)) > 31 or len(m.group(3)) > 31:
                raise ModelError(path, "numerator or denominator over 10^30")
            den = int(m.group(3))
            if den == 0:
                raise ModelError(path, f"zero denominator in {value!r}")
            num = int(m.group(2))
            if num > MAX_DIGITS or den > MAX_DIGITS:
                raise ModelError(path, "numerator or denominator over 10^30")
            return Fraction(-num if m.group(1) else num, den)
        if _INTEGER.match(value) and len(value.strip()) <= 32:
            return _bounded(Fraction(int(value)), path)
        raise ModelError(path, f"not a number: {value[:40]!r} (use an integer, \"p/q\" or a decimal)")
    raise ModelError(path, f"expected a number, got {type(value).__name__}")


def _bounded(v: Fraction, path: str) -> Fraction:
    if abs(v.numerator) > MAX_DIGITS or v.denominator > MAX_DIGITS:
        raise ModelError(path, "numerator or denominator over 10^30")
    return v


def _parse_constant(text: str) -> RejectedNumber:
    return RejectedNumber(f"{text} is not a number (NaN and Infinity are rejected)")


def _decimal(text: str) -> Decimal | RejectedNumber:
    # Reject absurd exponents before Decimal builds a huge number.
    m = re.search(r"[eE]([+-]?\d+)", text)
    if m and abs(int(m.group(1)[:8])) > MAX_DECIMAL_EXPONENT + len(text):
        return RejectedNumber(f"exponent beyond ±{MAX_DECIMAL_EXPONENT} in {text[:40]}")
    try:
        return Decimal(text)
    except InvalidOperation as exc:  # pragma: no cover - json already validated the text
        raise ValueError(text) from exc


# ---------------------------------------------------------------- loading

def load_model(path: str | Path) -> Model:
    """Read and validate a model file; :class:`ModelError` on any problem."""
    p = Path(path)
    try:
        size = p.stat().st_size
    except OSError as exc:
        raise ModelError("", f"cannot read {path}: {exc.strerror}") from None
    if p.is_dir():
        raise ModelError("", f"cannot read {path}: it is a directory, not a model file")
    if size > MAX_FILE_BYTES:
        raise ModelError("", f"file larger than {MAX_FILE_BYTES // 2**20} MiB")
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ModelError("", f"cannot read {path}: {exc.strerror}") from None
    return parse_model_bytes(data)


def parse_model_bytes(data: bytes) -> Model:
    if len(data) > MAX_FILE_BYTES:
        raise ModelError("", f"file larger than {MAX_FILE_BYTES // 2**20} MiB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ModelError("", "file is not UTF-8") from None
    _check_nesting(text)
    try:
        obj = json.loads(text, parse_float=_decimal, parse_int=_safe_int, parse_constant=_parse_constant)
    except ValueError as exc:
        raise ModelError("", f"invalid JSON: {str(exc).splitlines()[0][:200]}") from None
    except RecursionError:
        raise ModelError("", "invalid JSON: nesting too deep") from None
    return parse_model(obj)


def _safe_int(text: str) -> int | RejectedNumber:
    if len(text.lstrip("-")) > 31:
        return RejectedNumber(f"integer {text[:20]}... over 10^30")
    return int(text)


def _check_nesting(text: str, limit: int = 64) -> None:
    """Model files are at most a few levels deep; refuse deep nesting before json sees it."""
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                raise ModelError("", f"invalid JSON: nesting deeper than {limit}")
        elif ch in "]}":
            depth -= 1


def model_from_dict(obj: dict) -> Model:
    """Validate an in-memory model (e.g. from the compiler) exactly as if read from its file."""
    data = dumps_model(obj).encode()
    return parse_model_bytes(data)


def dumps_model(obj: dict) -> str:
    """Canonical text of a model dict, as the compiler writes files."""
    return json.dumps(obj, indent=1, ensure_ascii=False) + "\n"


def _get(obj: dict, key: str, path: str, kind, optional: bool = False):
    if key not in obj:
        if optional:
            return None
        raise ModelError(path, f"missing key '{key}'")
    value = obj[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise ModelError(_join(path, key), f"expected {names}, got {type(value).__name__}")
    if isinstance(value, (list, dict)) and len(value) > MAX_LIST:
        raise ModelError(_join(path, key), f"more than {MAX_LIST} entries")
    return value


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _no_extra(obj: dict, allowed: set[str], path: str) -> None:
    for key in obj:
        if key not in allowed:
            raise ModelError(_join(path, key), "unknown key")


def parse_model(obj: Any) -> Model:
    """Validate a parsed JSON object; the model's hash is over its canonical content."""
    if not isinstance(obj, dict):
        raise ModelError("", "top level must be a JSON object")
    fmt = _get(obj, "format", "", str)
    if fmt not in (FORMAT, FORMAT_V2):
        raise ModelError("format", f"expected {FORMAT!r} or {FORMAT_V2!r}, got {fmt[:40]!r}")
    v2 = fmt == FORMAT_V2
    _no_extra(obj, {"format", "name", "description", "alphabet", "bos", "dims", "embed", "layers", "output",
                    "temperature"} | (V2_TOP_KEYS if v2 else set()), "")
    name = _get(obj, "name", "", str)
    if not _NAME.match(name):
        raise ModelError("name", "must match [A-Za-z0-9._-]{1,64}")
    description = _get(obj, "description", "", str, optional=True) or ""
    alphabet = _symbols(_get(obj, "alphabet", "", list), "alphabet")
    bos = obj.get("bos")
    if bos is not None:
        if not isinstance(bos, str) or not bos:
            raise ModelError("bos", "must be a non-empty string or null")
        if bos in alphabet:
            raise ModelError("bos", f"{bos!r} is also in the alphabet")
    dims_list = _get(obj, "dims", "", list)
    if not dims_list:
        raise ModelError("dims", "must not be empty")
    if len(dims_list) > MAX_DIMS:
        raise ModelError("dims", f"more than {MAX_DIMS} dims")
    dims = _symbols(dims_list, "dims")
    dimset = frozenset(dims)
    embed = _get(obj, "embed", "", dict)
    _no_extra(embed, {"token", "position"} | ({"position_table"} if v2 else set()), "embed")
    token_obj = _get(embed, "token", "embed", dict)
    token_embed = {}
    for sym in alphabet + ((bos,) if bos else ()):
        if sym not in token_obj:
            raise ModelError("embed.token", f"missing symbol {sym!r}")
    for sym, vec in token_obj.items():
        path = f"embed.token.{sym}"
        if sym not in alphabet and sym != bos:
            raise ModelError(path, "symbol not in the alphabet")
        if not isinstance(vec, dict):
            raise ModelError(path, "expected an object {dim: number}")
        token_embed[sym] = tuple((_dim(d, dimset, f"{path}.{d}"), parse_number(v, f"{path}.{d}"))
                                 for d, v in vec.items())
    pos_obj = _get(embed, "position", "embed", dict, optional=True) or {}
    position_embed = []
    for d, text in pos_obj.items():
        path = f"embed.position.{d}"
        _dim(d, dimset, path)
        if isinstance(text, (int, Decimal)) and not isinstance(text, bool):
            text = str(parse_number(text, path))
        if not isinstance(text, str):
            raise ModelError(path, "expected an expression string")
        expr = _expr(text, path, allow_log=False)
        undefined = first_undefined(expr, 0 if bos else 1)
        if undefined is not None:
            i, n = undefined
            raise ModelError(path, f"undefined at i={i}, n={n}: division by zero "
                                   f"(a position embedding must be defined at every position of every length)")
        position_embed.append((d, expr))
    layers_list = _get(obj, "layers", "", list)
    if len(layers_list) > MAX_LAYERS:
        raise ModelError("layers", f"more than {MAX_LAYERS} layers")
    layers = tuple(_layer(layer, f"layers[{k}]", dimset) for k, layer in enumerate(layers_list))
    seen: set[str] = set()
    for k, layer in enumerate(layers):
        if isinstance(layer, AttentionLayer):
            for h, head in enumerate(layer.heads):
                if head.name in seen:
                    raise ModelError(f"layers[{k}].heads[{h}].name", f"duplicate head name {head.name!r}")
                seen.add(head.name)
    out = _get(obj, "output", "", dict)
    output = _argmax_output(out, dimset) if v2 and "argmax" in out else None
    if output is None:
        _no_extra(out, {"dim", "position", "threshold"}, "output")
    output = output or Output(
        dim=_dim(_get(out, "dim", "output", str), dimset, "output.dim"),
        position=_choice(_get(out, "position", "output", str), OUTPUT_POSITIONS, "output.position"),
        threshold=parse_number(out["threshold"], "output.threshold") if "threshold" in out
        else _missing("output", "threshold"),
    )
    temperature = None
    max_length = _max_length(obj) if v2 else None
    table = _position_table(embed, dimset, max_length, pos_obj) if v2 else ()
    interval = _temperature_interval(obj) if v2 else None
    if obj.get("temperature") is not None:
        t = obj["temperature"]
        if isinstance(t, (int, Decimal)) and not isinstance(t, bool):
            t = str(parse_number(t, "temperature"))
        if not isinstance(t, str):
            raise ModelError("temperature", "expected an expression string in n")
        temperature = _expr(t, "temperature", allow_log=True, variables=("n",))
        verdict = check_tau(temperature, 1, "inf")
        if verdict.n is not None:
            raise ModelError("temperature", f"the model's temperature τ(n) = {t} is {verdict.why} at n = {verdict.n} "
                                            "(it must be defined and positive for every n >= 1)")
    model = Model(name, description, alphabet, bos, dims, token_embed, tuple(position_embed), layers, output,
                  temperature, "", table, max_length, interval)
    return replace(model, sha256=content_sha256(model))


def canonical_content(model: Model) -> dict:
    """What the model means, as plain JSON: numbers as reduced fractions, expressions in the
    parser's canonical text, maps with sorted keys, free text (``description``) left out.

    Certificates cite the hash of this, not of the file's bytes: re-indenting a model,
    editing its description or writing 0.5 as "1/2" keeps its certificate valid, while
    any change of a weight, a name, an order or a threshold changes the hash.
    """
    def vec(pairs) -> dict:
        return {d: _fraction_text(c) for d, c in sorted(pairs)}

    def triples(items) -> list:
        return [[a, b, _fraction_text(c)] for a, b, c in items]

    def layer(item: Layer) -> dict:
        if isinstance(item, AttentionLayer):
            return {"type": "attention", "heads": [
                {"name": h.name, "hard": h.hard, "visible": h.visible, "score": triples(h.score),
                 "value": triples(h.value)} for h in item.heads]}
        return {"type": "ffn", "hidden": [{"in": vec(u.inputs), "bias": _fraction_text(u.bias), "out": vec(u.outputs)}
                                          for u in item.units]}

    return {
        "content": "hardsoft.model-content/1",
        "format": FORMAT,
        "name": model.name,
        "alphabet": list(model.alphabet),
        "bos": model.bos,
        "dims": list(model.dims),
        "embed": {"token": {sym: vec(model.token_embed[sym]) for sym in sorted(model.token_embed)},
                  "position": {d: to_text(e) for d, e in sorted(model.position_embed, key=lambda p: p[0])}},
        "layers": [layer(item) for item in model.layers],
        "output": {"dim": model.output.dim, "position": model.output.position,
                   "threshold": _fraction_text(model.output.threshold)},
        "temperature": None if model.temperature is None else to_text(model.temperature),
        **_v2_content(model),
    }


def _v2_content(model: Model) -> dict:
    """The v2 keys, present only when used: a v1 model's content (and hash) is what it was."""
    out: dict = {}
    if model.max_length is not None:
        out["max_length"] = model.max_length
    if model.position_table:
        out["position_table"] = {d: [_fraction_text(v) for v in values] for d, values in sorted(model.position_table)}
    if model.temperature_interval is not None:
        out["temperature_interval"] = [_fraction_text(v) for v in model.temperature_interval]
    if model.output.argmax:
        out["output_argmax"] = list(model.output.argmax)
    return out


def content_sha256(model: Model) -> str:
    """SHA-256 of :func:`canonical_content` as sorted-key, whitespace-free JSON."""
    text = json.dumps(canonical_content(model), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _fraction_text(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


# ---------------------------------------------------------------- v2 keys (docs/model-format-v2.md)

V2_TOP_KEYS = {"max_length", "temperature_interval"}


def _max_length(obj: dict) -> int | None:
    """``max_length`` N: the model is only defined for inputs of length n ≤ N (a position table
    has no value beyond N)."""
    if "max_length" not in obj:
        return None
    v = obj["max_length"]
    if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= MAX_TABLE_LENGTH:
        raise ModelError("max_length", f"expected an integer 1..{MAX_TABLE_LENGTH}")
    return v


def _position_table(embed: dict, dims: frozenset[str], max_length: int | None, pos_obj: dict):
    """``embed.position_table``: {dim: [value at position 0, …, value at position N]} with N the
    model's ``max_length``; position 0 is the BOS row (ignored without a BOS)."""
    table = _get(embed, "position_table", "embed", dict, optional=True)
    if not table:
        return ()
    if max_length is None:
        raise ModelError("embed.position_table", "needs the top-level key 'max_length'")
    out = []
    for d, values in table.items():
        path = f"embed.position_table.{d}"
        _dim(d, dims, path)
        if d in pos_obj:
            raise ModelError(path, "dim also has an embed.position expression")
        if not isinstance(values, list) or len(values) != max_length + 1:
            raise ModelError(path, f"expected a list of max_length + 1 = {max_length + 1} numbers (positions 0..N)")
        out.append((d, tuple(parse_number(v, f"{path}[{i}]") for i, v in enumerate(values))))
    return tuple(out)


def _argmax_output(out: dict, dims: frozenset[str]) -> Output:
    """Categorical output: the decision at a position is the index of the largest of the listed
    dims (the first one on exact ties, as numpy's / tracr's argmax)."""
    _no_extra(out, {"argmax", "position"}, "output")
    names = _get(out, "argmax", "output", list)
    if len(names) < 2:
        raise ModelError("output.argmax", "expected at least two dims")
    argmax = tuple(_dim(d, dims, f"output.argmax[{k}]") for k, d in enumerate(names))
    if len(set(argmax)) != len(argmax):
        raise ModelError("output.argmax", "duplicate dim")
    position = _choice(_get(out, "position", "output", str), OUTPUT_POSITIONS, "output.position")
    return Output(dim=argmax[0], position=position, threshold=Fraction(0), argmax=argmax)


def _temperature_interval(obj: dict) -> tuple[Fraction, Fraction] | None:
    """``temperature_interval`` ["lo", "hi"]: rationals enclosing an irrational temperature such as
    tracr's sqrt(K)/100, which no rational expression states exactly."""
    if "temperature_interval" not in obj:
        return None
    if obj.get("temperature") is not None:
        raise ModelError("temperature_interval", "give either 'temperature' or 'temperature_interval', not both")
    pair = _get(obj, "temperature_interval", "", list)
    if len(pair) != 2:
        raise ModelError("temperature_interval", "expected [lo, hi]")
    lo, hi = (parse_number(v, f"temperature_interval[{k}]") for k, v in enumerate(pair))
    if not 0 < lo <= hi:
        raise ModelError("temperature_interval", "expected 0 < lo <= hi")
    return lo, hi


def _missing(path: str, key: str):
    raise ModelError(path, f"missing key '{key}'")


def _symbols(items: list, path: str) -> tuple[str, ...]:
    if not items:
        raise ModelError(path, "must not be empty")
    if len(items) > MAX_LIST:
        raise ModelError(path, f"more than {MAX_LIST} entries")
    seen = set()
    for k, s in enumerate(items):
        if not isinstance(s, str) or not s:
            raise ModelError(f"{path}[{k}]", "expected a non-empty string")
        if s in seen:
            raise ModelError(f"{path}[{k}]", f"duplicate {s!r}")
        seen.add(s)
    return tuple(items)


def _dim(d: Any, dims: frozenset[str], path: str) -> str:
    if not isinstance(d, str) or d not in dims:
        raise ModelError(path, f"unknown dim {str(d)[:40]!r}")
    return d


def _choice(value: str, options: tuple[str, ...], path: str) -> str:
    if value not in options:
        raise ModelError(path, f"{value[:40]!r} is not one of {', '.join(options)}")
    return value


def _expr(text: str, path: str, allow_log: bool, variables=("i", "n")) -> Expr:
    try:
        return parse_expr(text, variables=variables, allow_log=allow_log)
    except ExprError as exc:
        raise ModelError(path, str(exc)) from None


def _layer(obj: Any, path: str, dims: frozenset[str]) -> Layer:
    if not isinstance(obj, dict):
        raise ModelError(path, "expected an object")
    kind = _get(obj, "type", path, str)
    if kind == "attention":
        _no_extra(obj, {"type", "heads"}, path)
        heads = _get(obj, "heads", path, list)
        if len(heads) > MAX_HEADS:
            raise ModelError(f"{path}.heads", f"more than {MAX_HEADS} heads")
        return AttentionLayer(tuple(_head(h, f"{path}.heads[{k}]", dims) for k, h in enumerate(heads)))
    if kind == "ffn":
        _no_extra(obj, {"type", "hidden"}, path)
        units = _get(obj, "hidden", path, list)
        return FFNLayer(tuple(_unit(u, f"{path}.hidden[{k}]", dims) for k, u in enumerate(units)))
    raise ModelError(f"{path}.type", f"{kind[:40]!r} is not 'attention' or 'ffn'")


def _head(obj: Any, path: str, dims: frozenset[str]) -> Head:
    if not isinstance(obj, dict):
        raise ModelError(path, "expected an object")
    _no_extra(obj, {"name", "hard", "visible", "score", "value"}, path)
    name = _get(obj, "name", path, str)
    if not name:
        raise ModelError(f"{path}.name", "must not be empty")
    return Head(
        name=name,
        hard=_choice(_get(obj, "hard", path, str), HARD_KINDS, f"{path}.hard"),
        visible=_choice(_get(obj, "visible", path, str), VISIBILITIES, f"{path}.visible"),
        score=_triples(_get(obj, "score", path, list), f"{path}.score", dims),
        value=_triples(_get(obj, "value", path, list), f"{path}.value", dims),
    )


def _triples(items: list, path: str, dims: frozenset[str]) -> tuple[tuple[str, str, Fraction], ...]:
    out = []
    for k, t in enumerate(items):
        p = f"{path}[{k}]"
        if not isinstance(t, list) or len(t) != 3:
            raise ModelError(p, "expected [dim, dim, coef]")
        out.append((_dim(t[0], dims, p), _dim(t[1], dims, p), parse_number(t[2], p)))
    return tuple(out)


def _unit(obj: Any, path: str, dims: frozenset[str]) -> Unit:
    if not isinstance(obj, dict):
        raise ModelError(path, "expected an object")
    _no_extra(obj, {"in", "bias", "out"}, path)

    def vec(key: str) -> tuple[tuple[str, Fraction], ...]:
        v = _get(obj, key, path, dict)
        return tuple((_dim(d, dims, f"{path}.{key}.{d}"), parse_number(c, f"{path}.{key}.{d}")) for d, c in v.items())

    bias = parse_number(obj["bias"], f"{path}.bias") if "bias" in obj else Fraction(0)
    return Unit(vec("in"), bias, vec("out"))


# ---------------------------------------------------------------- words and positions

def parse_word(model: Model, text: str) -> tuple[str, ...]:
    """WORD as on the command line: concatenated one-character symbols, else space-separated."""
    from .errors import UserError

    if all(len(s) == 1 for s in model.alphabet) and " " not in text.strip():
        word = tuple(text.strip())
    else:
        word = tuple(text.split())
    for k, s in enumerate(word):
        if s not in model.alphabet:
            raise UserError(f"word position {k + 1}: {s!r} is not in the alphabet {list(model.alphabet)}")
    return word


def format_word(model: Model, word) -> str:
    sep = "" if all(len(s) == 1 for s in model.alphabet) else " "
    return sep.join(word)


def positions(model: Model, n: int) -> range:
    """Stream positions for an input of length n (0 is BOS when there is one)."""
    return range(0 if model.bos else 1, n + 1)


def position_embedding(model: Model, n: int) -> dict[str, list[Fraction]]:
    """Exact PE values; an undefined value is a ModelError naming the dim and position."""
    if model.max_length is not None and n > model.max_length:
        raise ModelError("max_length", f"input length {n} exceeds the model's max_length {model.max_length}")
    table = {d: [values[i] for i in positions(model, n)] for d, values in model.position_table}
    for d, e in model.position_embed:
        col = []
        for i in positions(model, n):
            try:
                col.append(eval_exact(e, {"i": i, "n": n}))
            except ExprError as exc:
                raise ModelError(f"embed.position.{d}", f"undefined at i={i}, n={n}: {exc}") from None
        table[d] = col
    return table


def temperature_uses_log(model: Model) -> bool:
    return model.temperature is not None and has_log(model.temperature)

"""The fact audit: test a certificate's statements on concrete words with the exact evaluator.

Not a proof — a cheap, independent net (issue 11).  The checker re-runs the kernel, so a
wrong rule in the kernel is re-derived and accepted by it; the audit instead evaluates the
hard model exactly (:func:`certify.evaluate.hard_run`, which shares no reasoning with the
kernel) on every short word and on seeded random longer ones, and tests each recorded
statement on every row, every head and every length:

* the coordinate facts (finite value sets, exact position expressions, grids with their
  offsets, the BOS row's value) after every layer;
* each head's score structure (equal scores, lattice levels of width w holding ≤ c keys,
  unique maxima, gap lower bounds, maxima carrying one value);
* per box: the soft weight off the hard maxima at τ(n) against ``leak_upper``, the hard
  output's distance to the threshold against ``margin_lower``, and on a budget of words
  |soft − hard| against ``error_upper`` and equal decisions;
* beyond the boxes of an all-n certificate, the same numbers from its ``tail``: each
  monomial bound c·n^a·log(n)^b evaluated at the word's length (issue 16).

Floats only screen: a soft-side violation is reported only after mpmath confirms it.
Certificates without a ``facts`` object (older ones) are audited on what they record:
the head kinds of ``analysis.heads`` and the per-box numbers.
"""
from __future__ import annotations

import bisect
import itertools
import math
import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Iterator

import mpmath

from .errors import ExprError
from .evaluate import first_argmax, float_run, format_value, hard_run, soft_run, visible_keys
from .expr import Expr, eval_exact, parse_expr
from .model import Model, dims_written, format_word


@dataclass(frozen=True)
class AuditConfig:
    """Every constant of the audit in one place."""

    exhaustive_budget: int = 50_000  # all words of length n while |Σ|^n ≤ this (without --max-len)
    random_words: int = 200  # seeded random words on top
    random_max_len: int = 64
    seed: int = 0
    soft_words: int = 2_000  # words whose soft output is compared with error_upper (float screen)
    screen_tolerance: float = 1e-9  # relative slack of the float screen before mpmath is asked
    confirm_dps: int = 60
    confirm_slack: Fraction = Fraction(1, 10**40)


@dataclass(frozen=True)
class AuditFailure:
    fact: str  # the statement that failed, as a path into the certificate
    word: str
    n: int
    position: int | None
    detail: str

    def __str__(self) -> str:
        where = f" at position {self.position}" if self.position is not None else ""
        return f"{self.fact} fails on {self.word!r} (n = {self.n}){where}: {self.detail}"


@dataclass(frozen=True)
class AuditResult:
    words: int
    statements: int  # recorded statements audited (coordinate facts, head statements, box numbers)
    checks: int  # statement instances tested (rows × statements)
    failure: AuditFailure | None

    @property
    def ok(self) -> bool:
        return self.failure is None


class _Failed(Exception):
    def __init__(self, failure: AuditFailure):
        self.failure = failure


def words_to_audit(model: Model, n_min: int, n_max, max_len: int | None, cfg: AuditConfig) -> Iterator[tuple]:
    """Every word up to ``max_len`` (default: while |Σ|^n ≤ the budget), then seeded random ones."""
    top = n_max if n_max != "inf" else math.inf
    sigma = list(model.alphabet)
    n = n_min
    while n <= top and (len(sigma) ** n <= cfg.exhaustive_budget if max_len is None else n <= max_len):
        yield from itertools.product(sigma, repeat=n)
        n += 1
    rng = random.Random(cfg.seed)
    longest = int(min(top, max(cfg.random_max_len, n_min)))
    for _ in range(cfg.random_words):
        yield tuple(rng.choice(sigma) for _ in range(rng.randint(n_min, longest)))


def audit(cert: dict, model: Model, max_len: int | None = None, cfg: AuditConfig = AuditConfig(),
          progress: Callable[[int], None] | None = None) -> AuditResult:
    """Test every statement of ``cert`` on the words of :func:`words_to_audit`."""
    claim = cert["claim"]
    if "exhaustive" in cert:
        return _audit_exhaustive(cert, model, max_len, cfg, progress)
    tau = parse_expr(claim["tau"], variables=("n",), allow_log=True)
    if "first_row" in cert:
        return _audit_first_row(cert, model, tau, max_len, cfg, progress)
    plan = _Plan(cert, model, tau, cfg)
    words = checks = 0
    try:
        for word in words_to_audit(model, claim["n_min"], claim["n_max"], max_len, cfg):
            checks += plan.check_word(word, soft=words < cfg.soft_words)
            words += 1
            if progress is not None:
                progress(words)
    except _Failed as exc:
        return AuditResult(words + 1, plan.statements, checks, exc.failure)
    return AuditResult(words, plan.statements, checks, None)


class _Plan:
    """The certificate's statements, ready to test on one word at a time."""

    def __init__(self, cert: dict, model: Model, tau: Expr, cfg: AuditConfig):
        self.model, self.tau, self.cfg = model, tau, cfg
        self.index = {d: k for k, d in enumerate(model.dims)}
        facts = cert.get("facts")
        self.coords = [] if facts is None else [_coord_statement(c) for c in facts["coords"]]
        self.same_rows = [] if facts is None else [(c["after_layers"], c["dim"]) for c in facts["coords"]
                                                   if "same_at_every_row" in c]
        self.same_class = [] if facts is None else [  # (layer, dim, C, {c: (lo, hi)}, the key, one value per class)
            (c["after_layers"], c["dim"], [self.index[d] for d in c[key]["dims"]],
             {tuple(Fraction(v) for v in k): (Fraction(lo), Fraction(hi)) for k, lo, hi in c[key]["classes"]},
             key, key == "same_in_class")
            for c in facts["coords"] for key in ("same_in_class", "in_class_range") if key in c]
        self.soft_same = [] if facts is None else [(c["after_layers"], c["dim"]) for c in facts["coords"]
                                                   if "soft_same_at_every_row" in c]
        self.exact_unless = {} if facts is None else {
            (c["after_layers"], c["dim"]): frozenset(Fraction(v) for v in c["exact_unless"])
            for c in facts["coords"] if "exact_unless" in c}
        self.spans = {} if facts is None else {  # L-one-sided: (layer, dim) → [(lo, hi, side)]
            (c["after_layers"], c["dim"]): [(Fraction(lo), Fraction(hi), int(side)) for lo, hi, side in c["noisy_spans"]["spans"]]
            for c in facts["coords"] if "noisy_spans" in c}
        self.exact_at = {} if facts is None else {
            (c["after_layers"], c["dim"]): frozenset(Fraction(v) for v in c["exact_at"]["values"])
            for c in facts["coords"] if "exact_at" in c}
        o = model.output.dim  # the output's facts are recorded after the last layer that writes it
        self.output_written = max((k + 1 for k, layer in enumerate(model.layers) if o in dims_written(layer)), default=0)
        self.joint = [] if facts is None else [(j["after_layers"], [self.index[d] for d in j["dims"]],
                                                {tuple(Fraction(v) for v in row) for row in j["rows"]})
                                               for j in facts.get("joint", [])]
        by_name = {h.name: (k, h) for k, h in model.heads}
        records = facts["heads"] if facts is not None else _legacy_heads(cert)
        self.heads = [(*by_name[r["head"]], r["statements"]) for r in records]
        self.boxes = sorted(cert.get("boxes", []), key=lambda b: b["n"][0])
        self.starts = [b["n"][0] for b in self.boxes]
        self.tail = cert.get("tail")
        self.claim = cert["claim"]
        self.statements = len(self.coords) + len(self.same_rows) + len(self.same_class) + len(self.soft_same) + len(self.joint) + sum(len(s) for _, _, s in self.heads) + 3 * max(len(self.boxes), 1)

    def box(self, n: int) -> dict | None:
        k = bisect.bisect_right(self.starts, n) - 1
        if k >= 0 and self.boxes[k]["n"][0] <= n <= self.boxes[k]["n"][1]:
            return self.boxes[k]
        if self.tail is not None and n >= self.tail["n"][0]:
            return tail_at(self.tail, n)
        return None

    def check_word(self, word: tuple, soft: bool) -> int:
        n = len(word)
        run = hard_run(self.model, word)
        text = format_word(self.model, word)
        first = run.first_position
        checks = 0

        def fail(fact: str, position, detail: str):
            raise _Failed(AuditFailure(fact, text, n, position, detail))

        for fact, layer, dim, test in self.coords:
            col = self.index[dim]
            for r, row in enumerate(run.streams[layer]):
                p = first + r
                why = test(row[col], p, n, bool(self.model.bos) and p == 0)
                if why:
                    fail(fact, p, why)
                checks += 1
        for layer, dim in self.same_rows:  # L-word-constant: one value at every row of the word
            seen = {row[self.index[dim]] for row in run.streams[layer]}
            if len(seen) > 1:
                fail(f"facts.coords[after {layer} layers, {dim}].same_at_every_row", first,
                     f"the rows hold {len(seen)} values: {sorted(seen)[:4]}")
            checks += 1
        for layer, dim, cols, classes, name, same in self.same_class:  # in its class's range (one value per class)
            held: dict = {}
            for r, row in enumerate(run.streams[layer]):
                key, value = tuple(row[c] for c in cols), row[self.index[dim]]
                ends = classes.get(key)
                if ends is None or not ends[0] <= value <= ends[1] or same and held.setdefault(key, value) != value:
                    fail(f"facts.coords[after {layer} layers, {dim}].{name}", first + r,
                         f"class {[str(v) for v in key]}: value {value} (range {ends}, seen {held.get(key)})")
                checks += 1
        for layer, cols, rows in self.joint:
            for r, row in enumerate(run.streams[layer]):
                if tuple(row[c] for c in cols) not in rows:
                    fail(f"facts.joint[after {layer} layers]", first + r,
                         f"the vector {[str(row[c]) for c in cols]} is not a recorded row")
                checks += 1
        box = self.box(n)
        for layer, head, statements in self.heads:
            checks += self._check_head(run, layer, head, statements, box, n, fail)
        fast = float_run(self.model, word, self.tau, "float64") if soft else None
        if fast is not None:
            checks += self._check_exact_rows(run, word, fast, fail) + self._check_soft_same(run, word, fast, fail)
        checks += self._check_output(run, word, fast, box, n, fail)
        return checks

    def _check_exact_rows(self, run, word, fast, fail) -> int:
        """``exact_unless``: off the listed values soft equals hard; ``exact_at``: at the listed values (float
        screen, then mpmath)."""
        checks, exact = 0, None
        claims = [(key, values, "exact_unless", False) for key, values in self.exact_unless.items()] + \
            [(key, values, "exact_at", True) for key, values in self.exact_at.items()]
        for (layer, dim), values, name, listed in claims:
            col = self.index[dim]
            for r, row in enumerate(run.streams[layer]):
                if (row[col] in values) != listed:
                    continue
                checks += 1
                if abs(float(fast.streams[layer][r][col]) - float(row[col])) <= \
                        self.cfg.screen_tolerance * max(1.0, abs(float(row[col]))):
                    continue
                exact = exact or soft_run(self.model, word, self.tau, dps=self.cfg.confirm_dps)
                soft = _mp_fraction(exact.streams[layer][r][col])
                if abs(soft - row[col]) > self.cfg.confirm_slack:
                    fail(f"facts.coords[after {layer} layers, {dim}].{name}", run.first_position + r,
                         f"hard value {row[col]} is {'' if listed else 'not '}listed, yet soft is {float(soft):.12g}")
        for (layer, dim), spans in self.spans.items():
            col = self.index[dim]
            at = self.exact_at.get((layer, dim), frozenset())
            for r, row in enumerate(run.streams[layer]):
                sign = _span_side(spans, row[col])
                if sign is None and row[col] in at:
                    continue
                checks += 1
                soft = float(fast.streams[layer][r][col])
                tol = self.cfg.screen_tolerance * max(1.0, abs(float(row[col])))
                if (abs(soft - float(row[col])) <= tol) if sign is None else sign == 0 or \
                        sign * (soft - float(row[col])) >= 0:
                    continue
                exact = exact or soft_run(self.model, word, self.tau, dps=self.cfg.confirm_dps)
                soft = _mp_fraction(exact.streams[layer][r][col])
                if abs(soft - row[col]) > self.cfg.confirm_slack if sign is None else \
                        sign * (soft - row[col]) < -self.cfg.confirm_slack:
                    fail(f"facts.coords[after {layer} layers, {dim}].noisy_spans", run.first_position + r,
                         f"hard value {row[col]} ({'in no span' if sign is None else f'side {sign}'}), "
                         f"soft {float(soft):.12g}")
        return checks

    def _check_soft_same(self, run, word, fast, fail) -> int:
        """``soft_same_at_every_row``: the soft values of every row of the word agree (float screen, then mpmath)."""
        exact = None
        for layer, dim in self.soft_same:
            col = self.index[dim]
            values = [float(row[col]) for row in fast.streams[layer]]
            if max(values) - min(values) <= self.cfg.screen_tolerance * max(1.0, max(map(abs, values))):
                continue
            exact = exact or soft_run(self.model, word, self.tau, dps=self.cfg.confirm_dps)
            soft = [_mp_fraction(row[col]) for row in exact.streams[layer]]
            if max(soft) - min(soft) > self.cfg.confirm_slack:
                fail(f"facts.coords[after {layer} layers, {dim}].soft_same_at_every_row", run.first_position,
                     f"the rows' soft values range over [{float(min(soft)):.12g}, {float(max(soft)):.12g}]")
        return len(self.soft_same)

    def _check_head(self, run, layer: int, head, statements, box, n: int, fail) -> int:
        rows = run.streams[layer]
        first = run.first_position
        last = first + len(rows) - 1
        score = [(self.index[q], self.index[k], c) for q, k, c in head.score]
        value = [(o, self.index[v], c) for o, v, c in head.value]
        tau = _tau_float(self.tau, n)
        leak_bound = None if box is None else Fraction(box["leak_upper"][head.name])
        level = None if box is None else box.get("level_size", {}).get(head.name)
        checks = 0
        for i in range(first, last + 1):
            keys = visible_keys(head.visible, i, first, last)
            if len(keys) == 0:
                continue
            xi = rows[i - first]
            scores = [sum((c * xi[q] * rows[j - first][k] for q, k, c in score), Fraction(0)) for j in keys]
            top = max(scores)
            deficits = [top - s for s in scores]
            maxima = [j for j, d in zip(keys, deficits) if d == 0]
            for st in statements:
                fact = f"facts.heads[{head.name}].{st['kind']}"
                why = _head_statement(st, deficits, maxima, rows, first, value, i, n, level, keys)
                if why:
                    fail(fact, i, why)
                checks += 1
            if leak_bound is not None:
                counted = deficits
                if any(st["kind"] in ("leak_other_values", "class_gap") for st in statements):  # only keys valued unlike the maxima
                    carried = [tuple(c * rows[j - first][v] for _, v, c in value) for j in keys]
                    top_value = carried[keys.index(maxima[0])]
                    counted = [d if c != top_value else Fraction(0) for d, c in zip(deficits, carried)]
                leak = _leak_float(deficits, tau, counted)
                if leak > float(leak_bound) * (1 + self.cfg.screen_tolerance) and \
                        _leak_exact(deficits, self.tau, n, self.cfg.confirm_dps, counted) > leak_bound:
                    fail(f"boxes[n={box['n']}].leak_upper[{head.name}]", i,
                         f"soft weight off the hard maxima {leak:.6g} > {box['leak_upper'][head.name]}")
                checks += 1
        return checks

    def _check_output(self, run, word, fast, box, n: int, fail) -> int:
        margin = Fraction(box["margin_lower"] if box is not None else self.claim["margin"])
        bound = Fraction(box["error_upper"] if box is not None else self.claim["error_bound"])
        theta = self.model.output.threshold
        positions = [run.first_position + r for r in run.output_rows]
        argmax = bool(self.model.output.argmax)
        # exact rows (hard value off the output's exact_unless, exact arithmetic) need no margin: soft = hard
        # there (audited by _check_exact_rows to the confirmation slack), which decides as hard, on θ too
        exact = None if argmax or "precision" in self.claim else self.exact_unless.get((self.output_written, self.model.output.dim))
        # rows whose error has the side of their hard decision (L-one-sided) need no margin either
        spans = None if argmax or "precision" in self.claim else self.spans.get((self.output_written, self.model.output.dim))
        for y, p in zip(run.outputs, positions):
            clear = (_top_two(y)[0] - _top_two(y)[1]) / 2 if argmax else abs(y - theta)
            if spans is not None and ((side := _span_side(spans, y)) is None or side < 0 and y <= theta or
                                      side > 0 and y > theta):
                continue
            if spans is None and exact is not None and y not in exact:
                continue
            if clear < margin:
                fail(f"boxes[n={box['n'] if box else 'claim'}].margin_lower", p,
                     f"hard output {format_value(y)} is {float(clear):.6g} from "
                     f"{'a tie (half its top gap)' if argmax else 'the threshold'}, below {margin}")
        if fast is None:
            return len(positions)
        on_exact_row = [exact is not None and y not in exact or spans is not None and _span_side(spans, y) is None
                        for y in run.outputs]  # a decision by rounding at θ
        suspicious = any(_distance(s, h, float) > float(bound) + self.cfg.screen_tolerance * max(1.0, _size(h))
                         or not skip and (first_argmax(s) if argmax else bool(s > float(theta))) != d
                         for s, h, d, skip in zip(fast.outputs, run.outputs, run.decisions, on_exact_row))
        if suspicious:
            confirmed = soft_run(self.model, word, self.tau, dps=self.cfg.confirm_dps)
            for s, sd, h, d, p, skip in zip(confirmed.outputs, confirmed.decisions, run.outputs, run.decisions, positions,
                                            on_exact_row):
                diff = _distance(s, h, _mp_fraction)
                if diff > bound + self.cfg.confirm_slack or sd != d and not skip:
                    fail(f"boxes[n={box['n'] if box else 'claim'}].error_upper", p,
                         f"soft output {format_value(s)} vs hard {format_value(h)} (|Δ| {float(diff):.6g} > {bound}); "
                         f"decisions soft {sd}, hard {d}")
        return 2 * len(positions)


def _audit_exhaustive(cert: dict, model: Model, max_len, cfg: AuditConfig, progress) -> AuditResult:
    """An L-exhaustive certificate on concrete words: the hard clearance (top − runner-up, or |y − θ|) is at
    least margin_lower, and soft at both ends of tau_interval decides as hard within error_upper (float
    screen, mpmath confirmation)."""
    claim, rec = cert["claim"], cert["exhaustive"]
    by_n = {item["n"]: item for item in rec["lengths"]}
    taus = [Fraction(v) for v in rec["tau_interval"]]
    argmax = bool(model.output.argmax)
    words = checks = 0
    for word in words_to_audit(model, claim["n_min"], claim["n_max"], max_len, cfg):
        item = by_n[len(word)]
        run = hard_run(model, word)
        text = format_word(model, word)
        positions = [run.first_position + r for r in run.output_rows]
        margin = Fraction(item["margin_lower"])
        if margin:
            for y, p in zip(run.outputs, positions):
                clear = _top_two(y)[0] - _top_two(y)[1] if argmax else abs(y - model.output.threshold)
                checks += 1
                if clear < margin:
                    return AuditResult(words + 1, 2, checks, AuditFailure(
                        f"exhaustive.lengths[n={len(word)}].margin_lower", text, len(word), p,
                        f"hard clearance {float(clear):.6g} is below {item['margin_lower']}"))
        bound = Fraction(item["error_upper"])
        for tau in taus if words < cfg.soft_words else ():
            fast = float_run(model, word, tau, "float64")
            checks += 1
            if all(fd == hd and _distance(s, h, float) <= float(bound) + cfg.screen_tolerance * max(1.0, _size(h))
                   for s, h, fd, hd in zip(fast.outputs, run.outputs, fast.decisions, run.decisions)):
                continue
            exact = soft_run(model, word, tau, dps=cfg.confirm_dps)
            for s, sd, h, d, p in zip(exact.outputs, exact.decisions, run.outputs, run.decisions, positions):
                if sd != d or _distance(s, h, _mp_fraction) > bound + cfg.confirm_slack:
                    return AuditResult(words + 1, 2, checks, AuditFailure(
                        f"exhaustive.lengths[n={len(word)}].error_upper", text, len(word), p,
                        f"at τ = {tau}: soft {format_value(s)} vs hard {format_value(h)}, decisions {sd} / {d}"))
        words += 1
        if progress is not None:
            progress(words)
    return AuditResult(words, 2 * len(by_n), checks, None)


def _audit_first_row(cert: dict, model: Model, tau: Expr, max_len, cfg: AuditConfig, progress) -> AuditResult:
    """An L-first-row-exact certificate on concrete words: the soft stream at the first row equals the hard one in
    every layer (float screen, mpmath confirmation to the slack), and the hard output there is at least the
    claimed margin from the threshold (top − runner-up for argmax)."""
    claim, row = cert["claim"], cert["first_row"]["row"]
    margin, argmax = Fraction(claim["margin"]), bool(model.output.argmax)
    words = checks = 0
    for word in words_to_audit(model, claim["n_min"], claim["n_max"], max_len, cfg):
        run = hard_run(model, word)
        text = format_word(model, word)
        r = row - run.first_position
        y = run.outputs[run.output_rows.index(r)]
        clear = _top_two(y)[0] - _top_two(y)[1] if argmax else abs(y - model.output.threshold)
        checks += 1
        if clear < margin:
            return AuditResult(words + 1, 2, checks, AuditFailure(
                "claim.margin", text, len(word), row, f"hard clearance {float(clear):.6g} is below {claim['margin']}"))
        if words < cfg.soft_words:
            fast, exact = float_run(model, word, tau, "float64"), None
            for layer, stream in enumerate(run.streams):
                for d, h in enumerate(stream[r]):
                    checks += 1
                    if abs(float(fast.streams[layer][r][d]) - float(h)) <= cfg.screen_tolerance * max(1.0, abs(float(h))):
                        continue
                    exact = exact or soft_run(model, word, tau, dps=cfg.confirm_dps)
                    soft = _mp_fraction(exact.streams[layer][r][d])
                    if abs(soft - h) > cfg.confirm_slack:
                        return AuditResult(words + 1, 2, checks, AuditFailure(
                            f"first_row (after {layer} layers, {model.dims[d]})", text, len(word), row,
                            f"soft {float(soft):.12g} vs hard {h}"))
        words += 1
        if progress is not None:
            progress(words)
    return AuditResult(words, 2, checks, None)


def tail_at(tail: dict, n: int) -> dict:
    """The tail's statements at one length n ≥ N₀, shaped like a box record (bounds rounded up)."""
    leaks = {h: str(monomial_at(text, n)) for h, text in tail["leak_upper"].items()}
    error = monomial_at(tail["error_bound"], n)
    return {"n": [tail["n"][0], "inf"], "leak_upper": leaks, "level_size": tail.get("level_size", {}),
            "margin_lower": tail["margin_lower"], "error_upper": str(error)}


def monomial_at(text: str, n: int) -> Fraction:
    """A rational ≥ c·n^a·log(n)^b for the certificate's text ``c*n^(a)*log(n)^b`` (mpmath, rounded up)."""
    import mpmath

    parts = text.split("*")
    value = Fraction(parts[0])
    with mpmath.workdps(40):
        x = mpmath.mpf(value.numerator) / value.denominator
        for part in parts[1:]:
            base, exponent = part.split("^")
            e = Fraction(exponent.strip("()"))
            x *= mpmath.power(mpmath.mpf(n) if base == "n" else mpmath.log(n), mpmath.mpf(e.numerator) / e.denominator)
        return Fraction(mpmath.nstr(x * (1 + mpmath.mpf(10) ** -30), 35)) if x else Fraction(0)


def _top_two(y: tuple) -> list:
    return sorted(y, reverse=True)[:2]


def _distance(soft, hard, convert):
    """|soft − hard| of one output: a scalar, or the largest coordinate difference of an argmax vector."""
    if isinstance(hard, tuple):
        return max(abs(convert(s) - convert(h)) for s, h in zip(soft, hard))
    return abs(convert(soft) - convert(hard))


def _mp_fraction(v) -> Fraction:
    """The exact value of an mpmath number (or of a rational): str() would round to 15 digits."""
    if isinstance(v, (Fraction, int)):
        return Fraction(v)
    if not mpmath.isfinite(v):
        raise ValueError(f"not a finite number: {v}")
    sign, mantissa, exponent, _ = v._mpf_  # man_exp drops the sign (mpmath 1.3: mpf(-0.5).man_exp == (1, -1))
    return (-1) ** sign * Fraction(int(mantissa)) * Fraction(2) ** int(exponent)


def _size(hard) -> float:
    return max(abs(float(h)) for h in hard) if isinstance(hard, tuple) else abs(float(hard))


def _legacy_heads(cert: dict) -> list[dict]:
    """Statements implied by the head kinds of a certificate that records no ``facts``."""
    out = []
    for rec in cert.get("analysis", {}).get("heads", []):
        kind = rec.get("kind")
        statements = {"uniform": [{"kind": "equal_scores"}],
                      "ziggurat": [{"kind": "levels", "width": rec.get("step"), "unique": False}],
                      "lookup": [{"kind": "levels", "width": rec.get("step"), "unique": True, "size": 2}],
                      "distinct": [{"kind": "levels", "width": rec.get("step"), "unique": True, "size": 1}]
                      }.get(kind, [])
        out.append({"head": rec["head"], "statements": statements})
    return out


def _span_side(spans: list, y: Fraction) -> int | None:
    """None when y lies in no span (the row is exact), else the side every span holding y shares (0 if they
    differ)."""
    sides = {side for lo, hi, side in spans if lo <= y <= hi}
    return None if not sides else sides.pop() if len(sides) == 1 else 0


def _coord_statement(rec: dict):
    """(name, layer, dim, test) where test(value, position, n, is_bos) returns '' or why it fails."""
    layer, dim = rec["after_layers"], rec["dim"]
    name = f"facts.coords[after {layer} layers, {dim}]"
    values = None if "values" not in rec else frozenset(Fraction(v) for v in rec["values"])
    rest = None if "values_off_bos" not in rec else frozenset(Fraction(v) for v in rec["values_off_bos"])
    at_bos = None if "value_at_bos" not in rec else Fraction(rec["value_at_bos"])
    bos_fin = None if "values_at_bos" not in rec else frozenset(Fraction(v) for v in rec["values_at_bos"])
    exact = None if "exact" not in rec else _memo(parse_expr(rec["exact"]))
    den = None if "denominator_at_most" not in rec else _memo(parse_expr(rec["denominator_at_most"]))
    grid = None if "grid" not in rec or rec["grid"] == "1" and rec.get("offset", "0") == "0" and values is not None \
        else _memo(parse_expr(rec["grid"]))  # G = 1, offset 0 next to a value set: implied by the set's check
    offset = Fraction(rec.get("offset", "0"))
    spread = None if "harmonic" not in rec else (frozenset(Fraction(v) for v in rec["harmonic"]["points"]),
                                                 [(Fraction(v), Fraction(d)) for v, d in rec["harmonic"]["families"]])

    apart = None if "zero_or_apart" not in rec else (
        _memo(parse_expr(rec["zero_or_apart"]["centre"])), [_memo(parse_expr(e)) for e in rec["zero_or_apart"]["at_least"]],
        int(rec["zero_or_apart"]["side"]))

    bound = None if "bound" not in rec else (int(rec["bound"]["side"]), Fraction(rec["bound"]["value"]))
    never = None if "never_equals" not in rec else Fraction(rec["never_equals"]["value"])
    span = None if "range" not in rec else tuple(Fraction(v) for v in rec["range"])

    def test(v: Fraction, p: int, n: int, is_bos: bool) -> str:
        if values is not None and v not in values:
            return f"value {v} is not in the recorded set {sorted(values)[:8]}"
        if rest is not None and not is_bos and v not in rest:
            return f"value {v} at an input row is not in {sorted(rest)[:8]}"
        if at_bos is not None and is_bos and v != at_bos:
            return f"value {v} at the BOS row is not {at_bos}"
        if bos_fin is not None and is_bos and v not in bos_fin:
            return f"value {v} at the BOS row is not in {sorted(bos_fin)}"
        if exact is not None and v != exact(p, n):
            return f"value {v} differs from {rec['exact']} = {exact(p, n)}"
        if spread is not None and v not in spread[0] and not any(
                v != w and (k := d / (v - w)).denominator == 1 and k >= 1 for w, d in spread[1]):
            return f"value {v} is neither a recorded point nor v + d/k (k ≥ 1) of a recorded family"
        if den is not None and v.denominator > den(p, n):
            return f"value {v} has a denominator above {rec['denominator_at_most']} = {den(p, n)}"
        if apart is not None and v != apart[0](p, n) and apart[2] * (v - apart[0](p, n)) < min(abs(e(p, n)) for e in apart[1]):
            return f"value {v} is neither {rec['zero_or_apart']['centre']} nor at least min |{rec['zero_or_apart']['at_least']}| " \
                   f"beyond it on side {apart[2]}"
        if bound is not None and bound[0] * (v - bound[1]) > 0:
            return f"value {v} is on the wrong side of {bound[1]} (side {bound[0]})"
        if never is not None and v == never:
            return f"value {v} is the value it is recorded never to take"
        if span is not None and not span[0] <= v <= span[1]:
            return f"value {v} is outside the recorded range [{span[0]}, {span[1]}]"
        if grid is not None:
            g = grid(p, n)
            if (v * g - offset).denominator != 1:
                return f"value·G = {v}·{g} = {v * g} is not in Z + {offset} (G = {rec['grid']})"
        return ""

    return name, layer, dim, test


def _memo(e: Expr) -> Callable[[int, int], Fraction]:
    """e(i, n), remembered: words of one length share every (i, n)."""
    seen: dict = {}

    def value(i: int, n: int) -> Fraction:
        if (i, n) not in seen:
            seen[i, n] = _value(e, {"i": i, "n": n})
        return seen[i, n]

    return value


def _value(e: Expr, env: dict) -> Fraction:
    try:
        return eval_exact(e, env)
    except ExprError as exc:
        raise ValueError(f"recorded expression undefined at {env}: {exc}") from None


def _value_vector(value, row) -> tuple:
    """(out dim, Σ c·x_j[v]) per out dim: two terms into one dim (t_b − t_b) add one value, 0."""
    sums: dict = {}
    for o, v, c in value:
        sums[o] = sums.get(o, Fraction(0)) + c * row[v]
    return tuple(sorted(sums.items()))


def _head_statement(st: dict, deficits, maxima, rows, first: int, value, i: int, n: int, level, keys=()) -> str:
    kind = st["kind"]
    positive = [d for d in deficits if d > 0]
    if kind == "equal_scores":
        return f"scores differ by up to {max(positive)}" if positive else ""
    if kind == "levels":
        width = abs(_value(parse_expr(st["width"]), {"i": i, "n": n}))
        small = [d for d in positive if d < width]
        if small:
            return f"a key's score is {min(small)} below the maximum, less than the level width {width}"
        if st.get("unique") and len(maxima) != 1:
            return f"{len(maxima)} maximal keys (positions {maxima[:6]}), a unique maximum was recorded"
        return _crowded(positive, width, st.get("size", level))
    if kind == "gap":
        gamma = min(abs(_value(parse_expr(g, variables=("n",)), {"n": n})) for g in st["gamma_min_of"])
        small = [d for d in positive if d < gamma]
        if small:
            return f"a non-zero score gap {min(small)} is below the recorded bound {gamma}"
        return _crowded(positive, gamma, st.get("level_size"))
    if kind == "leak_other_values":  # L-special-key: every input key (BOS excluded) carries one value
        carried = {tuple(c * rows[j - first][v] for _, v, c in value) for j in range(max(first, 1), first + len(rows))}
        return f"the input keys carry {len(carried)} different values" if len(carried) > 1 else ""
    if kind == "class_gap":  # L-value-classes: keys valued unlike the maxima lie ≥ γ below them
        carried = {j: tuple(c * rows[j - first][v] for _, v, c in value) for j in keys}
        top = {carried[j] for j in maxima}
        if len(top) > 1:
            return f"the {len(maxima)} maximal keys carry {len(top)} different values"
        gamma = Fraction(st["gamma"])
        near = [d for j, d in zip(keys, deficits) if carried[j] not in top and d < gamma]
        return f"a key valued unlike the maxima is {min(near)} below them, less than {gamma}" if near else ""
    if kind == "maxima_same_value":  # the value vector a key adds: each out dim's sum over its value terms
        carried = {_value_vector(value, rows[j - first]) for j in maxima}
        return f"the {len(maxima)} maximal keys carry {len(carried)} different values" if len(carried) > 1 else ""
    return f"unknown statement kind {kind!r}"


def _crowded(positive, width, size) -> str:
    """A band [m·w, (m+1)·w) below the maximum that holds more than ``size`` keys, if any."""
    if size is None:
        return ""
    bands: dict[int, int] = {}
    for d in positive:
        m = int(d // width)
        bands[m] = bands.get(m, 0) + 1
    crowded = [m for m, c in bands.items() if c > size]
    if crowded:
        return f"{bands[crowded[0]]} keys in the level {crowded[0]}·w below the maximum (w = {width}), " \
               f"at most {size} recorded"
    return ""


def _tau_float(tau: Expr, n: int) -> float:
    from .expr import eval_mp

    return float(eval_mp(tau, {"n": n}))


def _leak_float(deficits, tau: float, counted=None) -> float:
    """The soft weight on the keys whose ``counted`` deficit is positive (default: every key off the maxima)."""
    weights = [math.exp(-float(d) / tau) for d in deficits]
    return sum(w for w, d in zip(weights, counted or deficits) if d > 0) / sum(weights)


def _leak_exact(deficits, tau: Expr, n: int, dps: int, counted=None) -> Fraction:
    import mpmath

    from .expr import eval_mp

    with mpmath.workdps(dps):
        t = eval_mp(tau, {"n": n})
        weights = [mpmath.exp(-mpmath.mpf(d.numerator) / d.denominator / t) for d in deficits]
        off = mpmath.fsum(w for w, d in zip(weights, counted or deficits) if d > 0)
        return Fraction(mpmath.nstr(off / mpmath.fsum(weights), dps - 5)) - Fraction(1, 10**(dps - 10))

"""``certify table``: one row per model — what τ(n) is certified, against the paper's generic schedule
and the measured critical τ*(n) — and ``--paper``, the paper's simulation table regenerated.

Why: an appendix needs, per construction, the temperature a referee can rerun and how much it gives
away.  Each row reports

* the construction class and the *scheme* (the head rules / lemmas the certificate used),
* γ(n) and x_max(n) (:mod:`certify.quantities`, from the kernel's structural facts),
* the certified τ(n): the certifier's derived schedule (``certify_model(…, derive=True)``), closed
  form, asymptotic class (:mod:`certify.asymptotics`) and values,
* the paper's generic τ(n) for the same model: the exact largest τ of Theorem 26's recursion
  (:func:`symbolic.schedule.exact_bracket`, theory.md §3) with the model's own L, K, γ(n), x_max(n)
  and δ, capped at 1 (Lemma 25's K assumes τ ≤ 1, :mod:`symbolic.layer_bound`),
* τ*(n) where a ``--critical`` file gives it, and the ratios certified/generic and certified/τ*.

With ``--paper`` the rows are :data:`CONFIG.paper_rows` (theory.md §5's simulation table), each backed
by a certificate that is written and re-checked with ``certify check`` in the same run, and compared
with the paper's class for that row (:class:`PaperClass`, with the lemma/theorem it comes from).
Values are decimals of exact balls/Fractions (4 significant digits); nothing here decides a proof.
"""
from __future__ import annotations

import csv
import io
import json
import math
import tempfile
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path
from typing import Callable, Sequence

from flint import arb, ctx
from symbolic.derivation import fmt  # a ball or Fraction as a short decimal (display only)
from symbolic.schedule import ball

from .asymptotics import Growth, growth
from .errors import ExprError, UserError
from .expr import Num, eval_ball, to_text

REPO = Path(__file__).resolve().parents[1]
THETA_1 = Growth(Fraction(0), 0)


@dataclass(frozen=True)
class PaperClass:
    """The paper's class of τ(n) for one row of the simulation table.

    ``growth`` None: the class is Theorem 26's for the model's own gap, Ω(γ/log(n·x_max/γ)).
    ``relation``: "Θ" (the paper's τ is of exactly this order) or "Ω" (a lower bound on τ)."""

    relation: str
    growth: Growth | None
    source: str


@dataclass(frozen=True)
class PaperRow:
    construction: str  # the class as the paper names it (plain text)
    construction_tex: str  # the same in LaTeX (plain article: no Unicode)
    pe: str  # "bounded" | "unbounded"
    model: str  # path relative to the repository root
    paper: PaperClass


_BOUNDED = PaperClass("Θ", Growth(Fraction(-1), 0), "the paper's simulation table (bounded PE): L-tiebreak (Lemma 8) + "
                                                    "L-ziggurat (Lemma 6), L-round (Lemma 9)")
_UNBOUNDED = PaperClass("Θ", THETA_1, "the paper's simulation table (unbounded PE: τ = 1): L-tiebreak (Lemma 8a) + "
                                      "L-ziggurat (Lemma 6)")
_UNBOUNDED_COUNTING = PaperClass("Θ", THETA_1, "the paper's simulation table (counting logic, unbounded PE: τ = 1): the "
                                               "comparison amplified by unbounded PE")
_UNBOUNDED_INDUCTION = PaperClass("Θ", THETA_1, "the paper's simulation table (induction heads, unbounded PE: τ = 1)")
_COUNTING = PaperClass("Θ", Growth(Fraction(-1), 0), "the paper's simulation table (counting logic with +, Mon, bounded PE: "
                                                     "τ = Θ(1/n)); counts exact by uniform attention")
_INDUCTION = PaperClass("Θ", Growth(Fraction(-1), 0), "the paper's simulation table (induction heads, bounded PE): "
                                                      "L-lookup (Lemma 7) / L-tiebreak (Lemma 8)")
_AHAT = PaperClass("Ω", None, "Theorem 26: 1/τ ∈ O((1/γ) log(n x_max/γ)) for the model's gap γ(n)")
_DYCK = PaperClass("Ω", Growth(Fraction(-3), -1), "the paper's simulation table (S-RASP compiles to AHATs with gap Ω(1/n³)) + "
                                                  "Theorem 26: τ ∈ Ω(1/(n³ log n))")

PAPER_ROWS = (
    PaperRow("TL[⊖,⊕]", "TL[$\\ominus,\\oplus$]", "bounded", "models/compiled/tl-prev-next-bounded.json", _BOUNDED),
    PaperRow("TL[⊖,⊕]", "TL[$\\ominus,\\oplus$]", "unbounded", "models/compiled/tl-prev-next-unbounded.json", _UNBOUNDED),
    PaperRow("TL[S,U]", "TL[S,U]", "bounded", "models/compiled/tl-since-until-bounded.json", _BOUNDED),
    PaperRow("TL[S,U]", "TL[S,U]", "unbounded", "models/compiled/tl-since-until-unbounded.json", _UNBOUNDED),
    PaperRow("counting (MAJORITY)", "counting (MAJORITY)", "bounded", "models/compiled/counting-majority-bounded.json",
             _COUNTING),
    PaperRow("counting (MAJORITY)", "counting (MAJORITY)", "unbounded",
             "models/compiled/counting-majority-unbounded.json", _UNBOUNDED_COUNTING),
    PaperRow("counting (+, Mon)", "counting ($+$, Mon)", "bounded", "models/compiled/counting-mon-bounded.json", _COUNTING),
    PaperRow("counting (+, Mon)", "counting ($+$, Mon)", "unbounded", "models/compiled/counting-mon-unbounded.json",
             _UNBOUNDED_COUNTING),
    PaperRow("induction heads", "induction heads", "bounded", "models/compiled/induction-head-bounded.json", _INDUCTION),
    PaperRow("induction heads", "induction heads", "unbounded", "models/compiled/induction-head-unbounded.json",
             _UNBOUNDED_INDUCTION),
    PaperRow("AHAT with gap γ(n)", "AHAT with gap $\\gamma(n)$", "bounded",
             "models/compiled/ahat-past-vs-future-bounded.json", _AHAT),
    PaperRow("S-RASP / Dyck-2", "S-RASP / Dyck-2", "bounded", "models/compiled/dyck-2-bounded.json", _DYCK),
)

# issue 18: the shipped S-RASP programs (models/srasp/), each against the paper's S-RASP class
SRASP_ROWS = tuple(PaperRow(f"S-RASP / {label}", f"S-RASP / {label}", "bounded", f"models/srasp/{stem}.json", _DYCK)
                   for stem, label in (("prefix-majority", "prefix majority"), ("dyck-1", "Dyck-1"),
                                       ("dyck-2", "Dyck-2"), ("dyck-3", "Dyck-3"), ("sort", "sort"),
                                       ("histogram", "histogram")))


@dataclass(frozen=True)
class TableConfig:
    """Every constant of the table and the appendix, in one place."""

    ns: tuple[int, ...] = (10, 10**3, 10**6)
    delta: Fraction = Fraction(1, 4)  # Theorem 26's target error: ≤ 1 (ε ≤ 1 invariant), below the margin 1/2
    tau_cap: Fraction = Fraction(1)  # Lemma 25's K (symbolic.layer_bound) holds for τ ≤ 1
    digits: int = 4  # significant digits of the printed values
    paper_rows: tuple[PaperRow, ...] = PAPER_ROWS
    srasp_rows: tuple[PaperRow, ...] = SRASP_ROWS  # the appendix's S-RASP table (``certify appendix``)
    # the hand-written shipped models (models/*.json): their construction class and PE kind
    shipped: tuple[tuple[str, str, str], ...] = (
        ("since-a-b", "TL[S,U]", "TL[S,U]"), ("unbounded-since-a-b", "TL[S,U]", "TL[S,U]"),
        ("transduction-prev-a", "TL[⊖,⊕]", "TL[$\\ominus,\\oplus$]"), ("bos-first-a", "TL (first symbol)",
                                                                        "TL (first symbol)"),
        ("exists-b", "AHAT, tied Boolean scores", "AHAT, tied Boolean scores"),
        ("majority-a-b", "counting (MAJORITY, uniform head)", "counting (MAJORITY, uniform head)"))


CONFIG = TableConfig()


# ---------------------------------------------------------------- critical temperatures (--critical)

@dataclass(frozen=True)
class CriticalPoint:
    """A measured τ*(n): the largest τ at which every tried word still agreed (``certify critical``)."""

    model: str  # a path, the model's content sha256 or its name
    n: int
    tau_star: Fraction


def read_critical(path: str | Path) -> tuple[CriticalPoint, ...]:
    """The ``--critical`` file: a JSON list of ``{"model": PATH|SHA256|NAME, "n": INT, "tau_star": "DECIMAL"}``
    (schema ``certify/schemas/critical-input.json``); a path is taken relative to the file's folder, else to
    the current directory."""
    p = Path(path)
    try:
        data = json.loads(p.read_text())
    except OSError as exc:
        raise UserError(f"--critical: cannot read {path}: {exc.strerror}") from None
    except ValueError as exc:
        raise UserError(f"--critical: {path}: invalid JSON: {exc}") from None
    if not isinstance(data, list):
        raise UserError("--critical: the file is a JSON list of {model, n, tau_star} objects")
    out = []
    for k, item in enumerate(data):
        where = f"--critical: [{k}]"
        if not isinstance(item, dict) or set(item) != {"model", "n", "tau_star"}:
            raise UserError(f"{where}: an object with exactly the keys model, n, tau_star")
        model, n, tau = item["model"], item["n"], item["tau_star"]
        if not isinstance(model, str) or not model:
            raise UserError(f"{where}.model: a path, a content sha256 or a model name")
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise UserError(f"{where}.n: a positive integer, got {n!r}")
        try:
            value = Fraction(Decimal(tau)) if isinstance(tau, str) else None
        except (InvalidOperation, ValueError):
            value = None
        if value is None or value <= 0:
            raise UserError(f"{where}.tau_star: a positive decimal string, got {tau!r}")
        files = [f for f in (p.parent / model, Path(model)) if f.is_file()]  # the file's folder, then the cwd
        out.append(CriticalPoint(str(files[0].resolve()) if files else model, n, value))
    return tuple(out)


def critical_for(points: Sequence[CriticalPoint], model, path: Path | None) -> dict[int, Fraction]:
    keys = {model.sha256, model.name} | ({str(path.resolve())} if path is not None else set())
    return {c.n: c.tau_star for c in points if c.model in keys}


# ---------------------------------------------------------------- rows

@dataclass(frozen=True)
class Series:
    """A quantity of the row: closed form (text, LaTeX), class, and one decimal per table n (None: n/a)."""

    closed: str
    values: tuple[str | None, ...]
    cls: str = ""
    closed_tex: str = ""
    cls_tex: str = ""

    def to_json(self) -> dict:
        return {"closed": self.closed, "class": self.cls or None, "values": list(self.values)}


@dataclass(frozen=True)
class Row:
    model: str
    path: str | None
    sha256: str
    construction: str
    construction_tex: str
    pe: str
    scheme: str
    verdict: str
    reason: str
    L: int
    K: Fraction
    gamma: Series
    xmax: Series
    certified: Series
    generic: Series
    critical: Series
    certified_over_generic: tuple[str | None, ...]
    certified_over_critical: tuple[str | None, ...]
    paper: PaperClass | None = None
    paper_class: str = ""  # the paper's class as text ("Θ(1/n)", "Ω(1/(n³ log n))")
    paper_class_tex: str = ""
    in_class: bool | None = None  # certified τ in the paper's class or hotter (None: no paper row / not certified)
    certificate: str | None = None
    checked: bool | None = None  # `certify check` accepted the certificate (None: not checked)
    all_n: str | None = None  # the τ(n) certified for every length (`--nmax inf --derive`; None: none)
    precision: tuple["FormatRange", ...] = ()  # --precision: the certified length range per format
    growth_certified: Growth | None = field(default=None, compare=False)

    def to_json(self) -> dict:
        return {
            "model": self.model, "path": self.path, "sha256": self.sha256, "construction": self.construction,
            "pe": self.pe, "scheme": self.scheme, "verdict": self.verdict, "reason": self.reason or None,
            "L": self.L, "K": str(self.K), "gamma": self.gamma.to_json(), "x_max": self.xmax.to_json(),
            "certified_tau": self.certified.to_json(), "generic_tau": self.generic.to_json(),
            "critical_tau": self.critical.to_json(),
            "ratios": {"certified_over_generic": list(self.certified_over_generic),
                       "certified_over_critical": list(self.certified_over_critical)},
            "paper": None if self.paper is None else {"class": self.paper_class, "source": self.paper.source,
                                                       "in_class": self.in_class},
            "certificate": self.certificate, "checked": self.checked, "all_n": self.all_n,
            "precision": {p.format: p.to_json() for p in self.precision},
        }


@dataclass(frozen=True)
class FormatRange:
    """Issue 17's column: the soft model evaluated in ``format`` is certified for n ≤ ``n_max`` (None: for
    no length) at ``tau`` (the exact certificate's schedule or a colder halving of it, L-fp-*)."""

    format: str
    n_max: int | None
    tau: str | None
    covers_all: bool  # n_max is the row's whole range

    def text(self) -> str:
        return "—" if self.n_max is None else "all" if self.covers_all else f"n ≤ {self.n_max}"

    def to_json(self) -> dict:
        return {"n_max_certified": self.n_max, "tau": self.tau, "whole_range": self.covers_all}


@dataclass(frozen=True)
class Table:
    ns: tuple[int, ...]
    rows: tuple[Row, ...]
    paper: bool
    delta: Fraction
    formats: tuple[str, ...] = ()  # the floating-point formats with a column (--precision)

    @property
    def exit_code(self) -> int:
        """1: a certificate failed `certify check`; 2: a row not certified, or (--paper) outside its class."""
        if any(r.checked is False for r in self.rows):
            return 1
        if any(r.verdict != "certified" or r.in_class is False for r in self.rows):
            return 2
        return 0

    def to_json(self) -> dict:
        return {"ns": list(self.ns), "paper": self.paper, "delta": str(self.delta), "formats": list(self.formats),
                "rows": [r.to_json() for r in self.rows],
                "all_certified": all(r.verdict == "certified" for r in self.rows),
                "all_checked": all(r.checked for r in self.rows) if any(r.checked is not None for r in self.rows)
                else None,
                "all_in_class": all(r.in_class for r in self.rows) if self.paper else None}


def _scheme(certificate: dict) -> str:
    """Which rules/lemmas proved the claim: the obligations' lemma keys, counted (as `certify show` lists them)."""
    counts: dict[str, int] = {}
    for o in certificate.get("obligations") or []:
        lemma = o.get("lemma")
        if not lemma:
            continue
        key = "uniform (exact)" if lemma.startswith("exact:") else lemma.split(" (")[0]
        counts[key] = counts.get(key, 0) + 1
    return ", ".join(f"{k}×{v}" if v > 1 else k for k, v in counts.items())


def _latex_expr(text: str) -> str:
    """A schedule in LaTeX math (via sympy's printer on our parsed expression; never sympify of text)."""
    import sympy as sp

    from symbolic.convert import to_sympy

    from .api import parse_schedule

    try:
        return "$" + sp.latex(to_sympy(parse_schedule(text), {"n": sp.Symbol("n", positive=True)})) + "$"
    except (UserError, ValueError, TypeError):
        return latex_escape(text)


def _latex_forms(forms, pick: str) -> str:
    """One form as LaTeX math, several as \\min(…) / \\max(…)."""
    parts = [_latex_expr(to_text(e)).strip("$") for e in forms]
    return "$" + (parts[0] if len(parts) == 1 else f"\\{pick}(" + ", ".join(parts) + ")") + "$"


def latex_escape(text: str) -> str:
    """Plain text for a LaTeX cell: the special characters escaped, known Unicode as math."""
    out = []
    for ch in text:
        out.append(_TEX.get(ch, ch) if ord(ch) < 128 else _TEX_UNICODE.get(ch, "?"))
    return "".join(out)


_TEX = {"\\": "\\textbackslash{}", "&": "\\&", "%": "\\%", "$": "\\$", "#": "\\#", "_": "\\_", "{": "\\{",
        "}": "\\}", "~": "\\textasciitilde{}", "^": "\\textasciicircum{}"}
_TEX_UNICODE = {"γ": "$\\gamma$", "τ": "$\\tau$", "Θ": "$\\Theta$", "Ω": "$\\Omega$", "×": "$\\times$",
                "⊖": "$\\ominus$", "⊕": "$\\oplus$", "∞": "$\\infty$", "—": "--", "–": "--", "≥": "$\\geq$",
                "≤": "$\\leq$", "³": "$^3$", "²": "$^2$", "·": "$\\cdot$", "ε": "$\\varepsilon$", "δ": "$\\delta$",
                "§": "\\S{}", "∈": "$\\in$"}


def _generic_growth(q, xmax_growth: Growth | None) -> Growth | None:
    """Theorem 26's class for the model: Θ(γ / log(n·x_max/γ)) (before the cap τ ≤ 1)."""
    if not q.shown or xmax_growth is None:
        return None
    g = growth(q.shown[0])
    if g is None:
        return None
    inner = Fraction(1) + xmax_growth.power - g.power
    return Growth(g.power, g.logs - (1 if inner > 0 else 0))


def _xmax_growth(q, probes: tuple[int, int] = (10**6, 10**9)) -> Growth:
    """x_max's class: from its closed form, else the nearest integer power through two ball values."""
    if q.xmax_forms:
        g = growth(q.xmax_forms[-1])
        if g is not None:
            return g
    lo, hi = (q.xmax(n) for n in probes)
    slope = (math.log(hi.numerator / hi.denominator) - math.log(lo.numerator / lo.denominator)) / \
        math.log(probes[1] / probes[0])
    return Growth(Fraction(round(slope)), 0)


def _class_text(rel: str, g: Growth | None, tex: bool = False) -> str:
    if g is None:
        return ""
    body = g.latex() if tex else g.text()
    return body.replace("\\Theta", "\\Omega") if tex and rel == "Ω" else body.replace("Θ", rel)


def generic_tau(q, n: int, cfg: TableConfig = CONFIG) -> Fraction | None:
    """The paper's generic τ(n) for the model of ``q`` (:class:`certify.quantities.Quantities`): the lower end
    of the exact largest τ of Theorem 26's recursion (symbolic.schedule.exact_bracket), capped at
    ``cfg.tau_cap``; a model without gaps (uniform heads only: a = 0 in the recursion) gets the cap."""
    from symbolic.schedule import Problem, exact_bracket

    if not q.gaps:
        return cfg.tau_cap
    g = q.gamma(n)
    if g is None:
        return None
    lo, _hi = exact_bracket(Problem(q.L, q.K, Num(g), Num(q.xmax(n)), cfg.delta), n).tau
    return min(lo, cfg.tau_cap)


def build_row(source: str | Path, ns: Sequence[int], cfg: TableConfig = CONFIG, paper: PaperRow | None = None,
              critical: Sequence[CriticalPoint] = (), certs: Path | None = None, check: bool = False,
              formats: Sequence[str] = ()) -> Row:
    """One row: certify ``source`` with a derived schedule at n_max = max(ns), compute the generic τ and ratios;
    per format in ``formats``, the length range certified in that floating-point format."""
    from symbolic.layer_bound import model_constant

    from .api import certify_model, check_certificate, load_model
    from .kernel.structure import Unsupported
    from .quantities import quantities

    path = Path(source)
    model = load_model(path)
    K = model_constant(model)
    top = max(ns) if model.max_length is None else min(max(ns), model.max_length)
    inside = [n <= top for n in ns]
    construction, construction_tex, pe = _construction(model, paper, cfg)
    result = certify_model(model, n_max=top, derive=True)
    cert = result.certificate
    # issue 16: the schedule certified for every length (the boxes to 10^12, the tail walk beyond)
    every = None if cert is None or model.max_length is not None else certify_model(model, n_max="inf", derive=True)
    all_n = every.tau if every is not None and every.verdict == "certified" else None
    try:
        q = quantities(model)
    except Unsupported:
        q = None
    with ctx.workprec(128):
        if q is not None:
            gam = [q.gamma(n) if ok else None for n, ok in zip(ns, inside)]
            xs = [q.xmax(n) if ok else None for n, ok in zip(ns, inside)]
        else:
            gam, xs = [None] * len(ns), [None] * len(ns)
        generic = [generic_tau(q, n, cfg) if q is not None and ok else None for n, ok in zip(ns, inside)]
        tau_expr = None if result.tau is None else _parse(result.tau)
        cert_vals = [eval_ball(tau_expr, {"n": arb(n)}) if tau_expr is not None and ok and cert else None
                     for n, ok in zip(ns, inside)]
        crit = critical_for(critical, model, path)
        crit_vals = [crit.get(n) for n in ns]
        over_generic = [fmt(c / ball(g), cfg.digits) if c is not None and g is not None else None
                        for c, g in zip(cert_vals, generic)]
        over_critical = [fmt(c / ball(t), cfg.digits) if c is not None and t is not None else None
                         for c, t in zip(cert_vals, crit_vals)]
    gc = growth(tau_expr) if tau_expr is not None and cert else None
    xg = _xmax_growth(q) if q is not None else None
    gen_growth = _generic_growth(q, xg) if q is not None else None
    capped = THETA_1 if q is not None and not q.gaps else None if gen_growth is None else min(gen_growth, THETA_1)
    certificate_path, checked = None, None
    if cert is not None and certs is not None:
        certs.mkdir(parents=True, exist_ok=True)
        target = certs / f"{model.name}.cert.json"
        result.write(target)
        certificate_path = str(target)
        if check:
            checked = check_certificate(target, model).valid
    paper_growth = None if paper is None else paper.paper.growth if paper.paper.growth is not None else gen_growth
    dash = "—"
    return Row(
        model=model.name, path=str(path), sha256=model.sha256,
        construction=construction, construction_tex=construction_tex, pe=pe,
        scheme=_scheme(cert) if cert else dash, verdict=result.verdict, reason=result.reason,
        L=len(model.layers), K=K,
        gamma=Series(q.gamma_text if q is not None else dash, _values(gam, cfg),
                     closed_tex=_latex_forms(q.shown, "min") if q is not None and q.shown
                     else latex_escape(q.gamma_text if q is not None else dash)),
        xmax=Series(q.xmax_text if q is not None else dash, _values(xs, cfg),
                    closed_tex=_latex_forms(q.xmax_forms, "max") if q is not None and q.xmax_forms
                    else latex_escape(q.xmax_text if q is not None else dash)),
        certified=Series(result.tau if cert else dash, _values(cert_vals, cfg), gc.text() if gc else "",
                         _latex_expr(result.tau) if cert else "--", gc.latex() if gc else ""),
        generic=Series(f"Theorem 26 exact (L={len(model.layers)}, K={K}, δ={cfg.delta})",
                       _values(generic, cfg), capped.text() if capped else "",
                       latex_escape(f"Theorem 26 exact (L={len(model.layers)}, K={K}, δ={cfg.delta})"),
                       capped.latex() if capped else ""),
        critical=Series("measured" if crit else dash, _values(crit_vals, cfg)),
        certified_over_generic=tuple(over_generic), certified_over_critical=tuple(over_critical),
        paper=None if paper is None else paper.paper,
        paper_class=_class_text(paper.paper.relation, paper_growth) if paper else "",
        paper_class_tex=_class_text(paper.paper.relation, paper_growth, tex=True) if paper else "",
        in_class=None if paper is None or gc is None or paper_growth is None else gc >= paper_growth,
        certificate=certificate_path, checked=checked, all_n=all_n, growth_certified=gc,
        precision=tuple(format_range(model, top, result.tau, f) for f in formats) if cert else ())


def format_range(model, top: int, tau: str, fmt: str) -> FormatRange:
    """The largest n ≤ top certified in ``fmt`` at the row's schedule or a colder halving of it."""
    from .precision import certify_in_format, fmt_named

    p = certify_in_format(model, 1, top, fmt_named(fmt), _parse(tau), derive=True)
    return FormatRange(fmt, p.n_certified, None if p.tau is None or p.n_certified is None else to_text(p.tau),
                       p.n_certified == top)


def _values(values, cfg: TableConfig) -> tuple[str | None, ...]:
    return tuple(None if v is None else fmt(v, cfg.digits) for v in values)


def _parse(text: str):
    from .api import parse_schedule

    return parse_schedule(text)


def _construction(model, paper: PaperRow | None, cfg: TableConfig) -> tuple[str, str, str]:
    """(class, class in LaTeX, PE kind) of a model: the paper row's, a shipped model's, or inferred."""
    if paper is not None:
        return paper.construction, paper.construction_tex, paper.pe
    for row in cfg.paper_rows:
        if Path(row.model).stem == model.name:
            return row.construction, row.construction_tex, row.pe
    pe = "bounded" if all(_bounded(e) for _, e in model.position_embed) else "unbounded"
    for name, text, tex in cfg.shipped:
        if name == model.name:
            return text, tex, pe
    label = "tracr (RASP)" if "tracr" in model.description.lower() else "AHAT (gap γ)"
    return label, latex_escape(label), pe


def _bounded(pe) -> bool:
    """A PE is bounded when its value at i = n stays put from n = 10^3 to 10^6 (display only)."""
    try:
        values = [abs(float(eval_ball(pe, {"i": arb(n), "n": arb(n)}).mid())) for n in (10**3, 10**6)]
    except ExprError:
        return False
    return math.isfinite(values[1]) and values[1] <= 2 * max(values[0], 1.0)


def build_table(models: Sequence[str | Path] = (), ns: Sequence[int] = CONFIG.ns, paper: bool = False,
                critical: Sequence[CriticalPoint] = (), certs: Path | None = None, cfg: TableConfig = CONFIG,
                progress: Callable[[str, int, int], None] = lambda *_: None, formats: Sequence[str] = (),
                paper_rows: Sequence[PaperRow] | None = None) -> Table:
    """The rows for ``models`` (or, with ``paper``, for the paper's simulation table — or for ``paper_rows``,
    each with its paper class — each certificate checked); ``formats``: a column per floating-point format
    with the certified length range (issue 17)."""
    ns = tuple(sorted(set(ns)))
    if paper and models:
        raise UserError("--paper: conflicts with MODEL arguments (the paper's rows are fixed)")
    if not paper and not models:
        raise UserError("give MODEL.json files or --paper")
    jobs = [(REPO / r.model, r) for r in (cfg.paper_rows if paper_rows is None else paper_rows)] if paper else \
        [(Path(m), None) for m in models]
    for path, _ in jobs:
        if not path.is_file():
            raise UserError(f"cannot read {path}: no such file")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        where = certs if certs is not None else (Path(tmp) if paper else None)
        for k, (path, row) in enumerate(jobs):
            progress("table rows", k, len(jobs))
            rows.append(build_row(path, ns, cfg, row, critical, where, check=paper or certs is not None,
                                  formats=formats))
        progress("table rows", len(jobs), len(jobs))
        if certs is None:
            rows = [replace(r, certificate=None) for r in rows]
    return Table(ns, tuple(rows), paper, cfg.delta, tuple(formats))


# ---------------------------------------------------------------- rendering

def _n_text(n: int) -> str:
    k = round(math.log10(n)) if n > 0 else 0
    return f"10^{k}" if 10**k == n and k >= 3 else str(n)


def _cells(values: Sequence[str | None]) -> str:
    return " / ".join(v if v is not None else "—" for v in values)


def _status(r: Row) -> str:
    if r.verdict != "certified":
        return f"{r.verdict}: {r.reason}" if r.reason else r.verdict
    parts = ["certified" if r.all_n is None else "certified; all n" if r.all_n == r.certified.closed
             else f"certified; all n at {r.all_n}"]
    if r.checked is not None:
        parts.append("checked" if r.checked else "CHECK FAILED")
    return ", ".join(parts)


def _in_class(r: Row) -> str:
    return "—" if r.in_class is None else "yes" if r.in_class else "NO (colder)"


def to_markdown(t: Table) -> str:
    ns = " / ".join(_n_text(n) for n in t.ns)
    head = ["model", "class", "PE", "scheme", "L", "K", "γ(n)", "x_max(n)", "certified τ(n)", "class",
            "generic τ(n) (Theorem 26)", "τ*(n)", "certified / generic", "certified / τ*"]
    if t.paper:
        head += ["paper's class", "in class or hotter"]
    head += [f"{f}: certified" for f in t.formats]
    head.append("status")
    lines = [f"Values at n = {ns} (each cell lists them in that order; 4 significant digits). Generic τ: the exact "
             f"largest τ of Theorem 26's recursion with the model's L, K, γ, x_max and δ = {t.delta}, capped at 1.",
             "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in t.rows:
        cells = [f"`{r.model}`", r.construction, r.pe, r.scheme, str(r.L), str(r.K),
                 f"`{r.gamma.closed}`: {_cells(r.gamma.values)}", f"`{r.xmax.closed}`: {_cells(r.xmax.values)}",
                 f"`{r.certified.closed}`: {_cells(r.certified.values)}", r.certified.cls or "—",
                 f"{_cells(r.generic.values)} ({r.generic.cls or '—'})", _cells(r.critical.values),
                 _cells(r.certified_over_generic), _cells(r.certified_over_critical)]
        if t.paper:
            cells += [r.paper_class or "—", _in_class(r)]
        cells += [_format_cell(r, f) for f in t.formats]
        cells.append(_status(r))
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    if t.paper:
        lines += ["", "Paper's classes and where they come from:", ""]
        lines += [f"* {r.construction} — {r.paper_class}: {r.paper.source}" for r in _class_sources(t)]
    return "\n".join(lines) + "\n"


def _format_cell(r: Row, fmt: str) -> str:
    got = {p.format: p for p in r.precision}.get(fmt)
    if got is None:
        return "—"
    return got.text() if got.tau is None or got.tau == r.certified.closed else f"{got.text()} at `{got.tau}`"


def _class_sources(t: Table) -> list[Row]:
    """One row per distinct (construction, paper's class, source): the legend of the paper's classes."""
    seen, out = set(), []
    for r in t.rows:
        key = None if r.paper is None else (r.construction, r.paper_class, r.paper.source)
        if key is not None and key not in seen:
            seen.add(key)
            out.append(r)
    return out


def to_latex(t: Table) -> str:
    """A complete document for a plain ``article`` (no packages, ASCII only) with three tables that fit the
    page: the construction and proof of each row, the closed forms, and the values at every n (certified,
    generic and their ratio; τ* and certified/τ* when measured).  Each ``tabular`` can be pasted into a paper."""
    ns = ", ".join(_tex_n(n) for n in t.ns)
    measured = any(v is not None for r in t.rows for v in r.critical.values)
    first = (["model", "class, PE", "scheme", "class of $\\tau$"] + (["paper", "in class"] if t.paper else [])
             + [f"{f} $n\\le$" for f in t.formats])
    spec1 = "p{2.0cm}p{2.0cm}p{2.2cm}l" + ("ll" if t.paper else "") + "l" * len(t.formats)
    rows1 = [[_tex_model(r), f"\\raggedright {r.construction_tex}, {r.pe}", f"\\raggedright {latex_escape(r.scheme)}",
              r.certified.cls_tex or "--"]
             + ([r.paper_class_tex or "--", "--" if r.in_class is None else "yes" if r.in_class else "no"]
                if t.paper else [])
             + [_tex_range(r, f) for f in t.formats] for r in t.rows]
    rows2 = [[_tex_model(r), str(r.L), _tex_fraction(r.K), r.gamma.closed_tex, r.xmax.closed_tex,
              r.certified.closed_tex] for r in t.rows]
    labels = ["cert.", "gen.", "ratio"] + (["$\\tau^*$", "cert./$\\tau^*$"] if measured else [])
    rows3 = []
    for r in t.rows:
        cells = [_tex_model(r)]
        for k in range(len(t.ns)):
            parts = [r.certified.values[k], r.generic.values[k], r.certified_over_generic[k]]
            parts += [r.critical.values[k], r.certified_over_critical[k]] if measured else []
            cells.append("\\begin{tabular}[t]{@{}l@{}}" + " \\\\ ".join(
                f"{label} {_tex_number(v)}" for label, v in zip(labels, parts)) + "\\end{tabular}")
        rows3.append(cells)
    out = ["\\documentclass{article}", "\\begin{document}"]
    out += _tex_table("How each row is certified: construction class, the lemmas the certificate uses, the class "
                      "of the certified $\\tau(n)$" + (" and the paper's class for the row (in class: the certified "
                                                        "$\\tau$ is in it or hotter)." if t.paper else "."),
                      spec1, first, rows1)
    out += _tex_table("Closed forms: depth $L$, Lemma 25 constant $K$, the least score gap $\\gamma(n)$, the largest "
                      "activation $x_{\\max}(n)$ and the certified $\\tau(n)$.", "p{2.0cm}rllll",
                      ["model", "$L$", "$K$", "$\\gamma(n)$", "$x_{\\max}(n)$", "certified $\\tau(n)$"], rows2)
    out += _tex_table(f"Values at $n$ = {ns}: certified $\\tau$, the paper's generic $\\tau$ (the exact largest "
                      f"$\\tau$ of Theorem 26's recursion with the model's $L$, $K$, $\\gamma$, $x_{{\\max}}$ and "
                      f"$\\delta = {t.delta}$, capped at 1) and certified/generic"
                      + (", measured $\\tau^*$ and certified/$\\tau^*$" if measured else "") + ".",
                      "p{2.0cm}" + "l" * len(t.ns), ["model"] + [f"$n = {_tex_n(n).strip('$')}$" for n in t.ns], rows3)
    if t.paper:
        out += ["Where the paper's classes come from:", "\\begin{itemize}"]
        out += [f"\\item {r.construction_tex} -- {r.paper_class_tex}: {latex_escape(r.paper.source)}"
                for r in _class_sources(t)]
        out += ["\\end{itemize}", ""]
    out += ["\\end{document}", ""]
    return "\n".join(out)


def _tex_table(caption: str, spec: str, head: list[str], rows: list[list[str]]) -> list[str]:
    return (["\\begin{table}", "\\centering", "\\scriptsize", "\\setlength{\\tabcolsep}{3pt}",
             f"\\caption{{{caption}}}", f"\\begin{{tabular}}{{{spec}}}", "\\hline", " & ".join(head) + " \\\\",
             "\\hline"] + [" & ".join(cells) + " \\\\" for cells in rows] + ["\\hline", "\\end{tabular}",
                                                                            "\\end{table}", ""])


def _tex_model(r: Row) -> str:
    """The model name in typewriter, breakable after its hyphens (a narrow first column)."""
    return "\\raggedright\\texttt{" + latex_escape(r.model).replace("-", "-\\allowbreak{}") + "}"


def _tex_range(r: Row, fmt: str) -> str:
    got = {p.format: p for p in r.precision}.get(fmt)
    return "--" if got is None or got.n_max is None else "all" if got.covers_all else _tex_number(str(got.n_max))


def _tex_fraction(q: Fraction) -> str:
    return str(q) if q.denominator == 1 else f"${q.numerator}/{q.denominator}$"


def _tex_n(n: int) -> str:
    text = _n_text(n)
    return f"$10^{{{text[3:]}}}$" if text.startswith("10^") else f"${text}$"


def _tex_cells(values: Sequence[str | None]) -> str:
    return "; ".join(_tex_number(v) for v in values)


def _tex_number(v: str | None) -> str:
    if v is None:
        return "--"
    if "e" in v:
        mant, exp = v.split("e")
        return f"${mant}\\cdot 10^{{{int(exp)}}}$"
    return v


def to_csv(t: Table) -> str:
    """One line per model; the per-n quantities as one column per n (``tau_certified@1000``)."""
    per_n = ["gamma", "x_max", "tau_certified", "tau_generic", "tau_critical", "certified_over_generic",
             "certified_over_critical"]
    head = ["model", "path", "sha256", "class", "pe", "scheme", "verdict", "L", "K", "gamma_closed", "x_max_closed",
            "tau_certified_closed", "tau_certified_class", "tau_generic_class", "paper_class", "in_class",
            "certificate", "checked"] + [f"{q}@{n}" for q in per_n for n in t.ns] + \
        [f"n_max_certified@{f}" for f in t.formats]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(head)
    for r in t.rows:
        series = [r.gamma.values, r.xmax.values, r.certified.values, r.generic.values, r.critical.values,
                  r.certified_over_generic, r.certified_over_critical]
        w.writerow([r.model, r.path or "", r.sha256, r.construction, r.pe, r.scheme, r.verdict, r.L, str(r.K),
                    r.gamma.closed, r.xmax.closed, r.certified.closed, r.certified.cls, r.generic.cls,
                    r.paper_class, "" if r.in_class is None else str(r.in_class).lower(), r.certificate or "",
                    "" if r.checked is None else str(r.checked).lower()]
                   + [v if v is not None else "" for s in series for v in s]
                   + [_csv_range(r, f) for f in t.formats])
    return buf.getvalue()


def _csv_range(r: Row, fmt: str) -> str:
    got = {p.format: p for p in r.precision}.get(fmt)
    return "" if got is None or got.n_max is None else str(got.n_max)


RENDER = {"markdown": to_markdown, "latex": to_latex, "csv": to_csv}

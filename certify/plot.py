"""``certify plot``: τ(n) on log-log axes (certified, paper generic, critical), and soft-versus-hard
error against τ at a fixed n.

Why two pictures: the first shows how much each construction's certified schedule gives away
against Theorem 26's generic one (:func:`certify.table.generic_tau`) and against the measured τ*(n)
(``--critical``); the second shows *why* a τ is needed — the largest |soft − hard| output difference
over a few structured words (:func:`certify.evaluate.float_run` against :func:`certify.evaluate.hard_run`)
collapses once τ drops below the critical temperature, and the certified τ(n) sits on the safe side.
The series are frozen dataclasses (also the ``--json`` output); :func:`render` draws them with
matplotlib's Agg backend into PNG or PDF.  Floats here are for drawing only.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Callable, Sequence

from .errors import UserError

FORMATS = (".png", ".pdf")


@dataclass(frozen=True)
class PlotConfig:
    """Every constant of the plots, in one place."""

    tau_points: int = 25  # samples of the certified τ(n) over the n-range (log-spaced)
    generic_points: int = 13  # samples of the generic τ(n) (each an exact bracket of Theorem 26's recursion)
    error_n: int = 32  # default length of the error plot
    error_taus: int = 17  # τ samples of the error plot (log-spaced)
    error_span: tuple[float, float] = (0.1, 1e5)  # the sweep covers certified τ(n) × [lo, hi]
    random_words: int = 2  # seeded random words next to the structured ones
    max_words: int = 10  # the structured words are cut to this many (each costs one soft run per τ)
    seed: int = 0
    precision: str = "float64"  # the error sweep's soft evaluator (certify.evaluate.float_run)
    dpi: int = 150


CONFIG = PlotConfig()


@dataclass(frozen=True)
class Curve:
    label: str
    points: tuple[tuple[float, float], ...]  # (x, y)

    def to_json(self) -> dict:
        return {"label": self.label, "points": [list(p) for p in self.points]}


@dataclass(frozen=True)
class TauSeries:
    """τ(n) of one model: certified (closed form sampled), paper generic, critical (where measured)."""

    model: str
    certified_tau: str | None
    curves: tuple[Curve, ...]

    def to_json(self) -> dict:
        return {"model": self.model, "certified_tau": self.certified_tau, "curves": [c.to_json() for c in self.curves]}


@dataclass(frozen=True)
class ErrorSeries:
    """max |soft − hard| over ``words`` at length n, per τ; the reference temperatures as vertical lines."""

    model: str
    n: int
    words: tuple[str, ...]
    curve: Curve
    marks: tuple[tuple[str, float], ...]  # (label, τ) of the certified, generic and critical τ(n)

    def to_json(self) -> dict:
        return {"model": self.model, "n": self.n, "words": list(self.words), "curve": self.curve.to_json(),
                "marks": [{"label": k, "tau": v} for k, v in self.marks]}


def _log_grid(lo: float, hi: float, k: int) -> list[float]:
    if hi <= lo or k < 2:
        return [lo]
    a, b = math.log(lo), math.log(hi)
    return [math.exp(a + (b - a) * j / (k - 1)) for j in range(k)]


def _lengths(lo: int, hi: int, k: int) -> list[int]:
    return sorted({max(lo, min(hi, round(v))) for v in _log_grid(lo, hi, k)})


def _certified(model, n_max: int):
    """The certifier's derived schedule up to n_max (an Expr), or None with the verdict."""
    from .api import certify_model, parse_schedule

    result = certify_model(model, n_max=n_max, derive=True)
    return (parse_schedule(result.tau), result.tau) if result.certified else (None, result.verdict)


def _float(e, n: int) -> float:
    from flint import arb

    from .expr import eval_ball

    return float(eval_ball(e, {"n": arb(n)}).mid())


def tau_series(source, n_lo: int, n_hi: int, critical=(), cfg: PlotConfig = CONFIG,
               certified: str | None = None) -> TauSeries:
    """``certified``: a schedule already certified up to n_hi (the appendix passes its table's), else derived."""
    from .api import load_model, parse_schedule
    from .quantities import quantities
    from .table import critical_for, generic_tau

    model = load_model(source)
    expr, text = (parse_schedule(certified), certified) if certified is not None else _certified(model, n_hi)
    curves = []
    if expr is not None:
        curves.append(Curve(f"certified {text}", tuple((n, _float(expr, n)) for n in _lengths(n_lo, n_hi, cfg.tau_points))))
    q = quantities(model)
    generic = [(n, generic_tau(q, n)) for n in _lengths(n_lo, n_hi, cfg.generic_points)]
    curves.append(Curve("generic (Theorem 26)", tuple((n, float(t)) for n, t in generic if t is not None)))
    measured = critical_for(critical, model, Path(source) if not isinstance(source, dict) else None)
    if measured:
        curves.append(Curve("critical τ*", tuple((n, float(t)) for n, t in sorted(measured.items()))))
    return TauSeries(model.name, text if expr is not None else None, tuple(curves))


def structured_words(model, n: int, cfg: PlotConfig = CONFIG) -> list[tuple[str, ...]]:
    """Words that stress a construction: each symbol repeated (long runs, maximal ties), the alphabet
    cycled, the two halves of different symbols (far matches), one odd symbol at either end of a long
    run (boundary positions), plus seeded random words; at most ``cfg.max_words``."""
    sigma = list(model.alphabet)
    words = [tuple([s] * n) for s in sigma]
    words.append(tuple(sigma[j % len(sigma)] for j in range(n)))
    if len(sigma) > 1:
        words.append(tuple([sigma[0]] * (n // 2) + [sigma[-1]] * (n - n // 2)))
    rnd = random.Random(cfg.seed)
    words += [tuple(rnd.choice(sigma) for _ in range(n)) for _ in range(cfg.random_words)]
    for s in sigma:
        for t in sigma:
            if s != t:
                words += [(s,) + (t,) * (n - 1), (t,) * (n - 1) + (s,)]
    return list(dict.fromkeys(words))[:cfg.max_words]


def _error(hard, soft) -> float:
    out = 0.0
    for h, s in zip(hard.outputs, soft.outputs):
        hs, ss = (h, s) if isinstance(h, tuple) else ((h,), (s,))
        out = max(out, max(abs(float(a) - float(b)) for a, b in zip(hs, ss)))
    return out


def error_series(source, n: int, critical=(), cfg: PlotConfig = CONFIG,
                 progress: Callable[[str, int, int], None] = lambda *_: None) -> ErrorSeries:
    from .api import load_model
    from .evaluate import float_run, hard_run
    from .model import format_word
    from .quantities import quantities
    from .table import critical_for, generic_tau

    model = load_model(source)
    if model.max_length is not None and n > model.max_length:
        raise UserError(f"--n: {n} is above the model's max_length {model.max_length}")
    expr, text = _certified(model, n)
    generic = generic_tau(quantities(model), n)
    centre = _float(expr, n) if expr is not None else float(generic) if generic is not None else 1.0
    taus = _log_grid(centre * cfg.error_span[0], centre * cfg.error_span[1], cfg.error_taus)
    words = structured_words(model, n, cfg)
    hards = [hard_run(model, w) for w in words]
    points = []
    for k, t in enumerate(taus):
        progress(f"soft runs at n={n}", k, len(taus))
        tau = Fraction(t)
        points.append((t, max(_error(h, float_run(model, w, tau, cfg.precision)) for w, h in zip(words, hards))))
    progress(f"soft runs at n={n}", len(taus), len(taus))
    marks = [] if expr is None else [(f"certified {text}", centre)]
    if generic is not None:
        marks.append(("generic (Theorem 26)", float(generic)))
    measured = critical_for(critical, model, Path(source) if not isinstance(source, dict) else None)
    if n in measured:
        marks.append(("critical τ*", float(measured[n])))
    return ErrorSeries(model.name, n, tuple(format_word(model, w) for w in words),
                       Curve("max |soft − hard| over the words", tuple(points)), tuple(marks))


def figure_path(out: str | Path) -> Path:
    """The figure's path; its suffix picks the format (checked before any work is done)."""
    out = Path(out)
    if out.suffix.lower() not in FORMATS:
        raise UserError(f"-o: {out} must end in .png or .pdf")
    return out


def render(series: Sequence[TauSeries | ErrorSeries], kind: str, out: str | Path, cfg: PlotConfig = CONFIG) -> Path:
    """Draw the series into ``out`` (.png or .pdf) with matplotlib's Agg backend."""
    try:
        import matplotlib
    except ImportError:
        raise UserError("figures need matplotlib: python3 -m pip install -e '.[plot]'") from None

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = figure_path(out)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    styles = {"certified": "-", "generic": "--", "critical": "o"}
    for k, s in enumerate(series):
        colour = f"C{k % 10}"
        if kind == "tau":
            for c in s.curves:
                style = next(v for key, v in styles.items() if c.label.startswith(key))
                xs, ys = zip(*c.points) if c.points else ((), ())
                ax.plot(xs, ys, style, color=colour, label=f"{s.model}: {c.label}")
        else:
            xs, ys = zip(*s.curve.points)
            ax.plot(xs, [max(y, 1e-17) for y in ys], "-o", ms=3, color=colour, label=f"{s.model} (n = {s.n})")
            for j, (label, tau) in enumerate(s.marks):
                ax.axvline(tau, color=colour, linestyle=("-", "--", ":")[j % 3], alpha=0.6,
                           label=f"{s.model}: {label}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    if kind == "tau":
        ax.set_xlabel("n")
        ax.set_ylabel("τ(n)")
        ax.set_title("Temperature schedules: certified, paper generic (Theorem 26), critical")
    else:
        ax.set_xlabel("τ")
        ax.set_ylabel("max |soft − hard| (output, float64; 1e-17 = exact)")
        ax.set_title("Soft versus hard error against τ at fixed n")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6, loc="best")
    fig.tight_layout()
    try:
        fig.savefig(out, dpi=cfg.dpi)
    except OSError as exc:
        raise UserError(f"-o: cannot write {out}: {exc.strerror}") from None
    finally:
        plt.close(fig)
    return out

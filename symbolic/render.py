"""A Derivation as an appendix: Markdown, a standalone LaTeX ``article``, or JSON.

The LaTeX uses no package at all (plain ``article``), so a referee can compile
it anywhere; prose is ASCII with inline math, shared with the Markdown.
"""
from __future__ import annotations

import json
import re

from .derivation import Derivation, fmt

_TEX_SPECIAL = {"&": "\\&", "%": "\\%", "#": "\\#", "_": "\\_", "~": "\\~{}", "^": "\\^{}"}


def _tex_prose(text: str) -> str:
    """Escape LaTeX specials outside ``$...$`` math."""
    parts = re.split(r"(\$[^$]*\$)", text)
    return "".join(p if p.startswith("$") else "".join(_TEX_SPECIAL.get(c, c) for c in p) for p in parts)


def _tau_cell(row) -> str:
    if row.tau_exact is None:
        return "unbounded"
    lo, hi = row.tau_exact
    return f"[{fmt(lo)}, {fmt(hi)}]"


def _ratio_cell(row, digits: int = 4) -> str:
    return "n/a" if row.ratio is None else f"{fmt(row.ratio[0], digits)}..{fmt(row.ratio[1], digits)}"


def _table_rows(d: Derivation):
    for r in d.rows:
        yield (str(r.n), _tau_cell(r), fmt(r.tau_lambert) if r.tau_lambert is not None else "n/a", fmt(r.tau),
               _ratio_cell(r), fmt(r.eps_L, 4), "yes" if r.ok else "NO")


HEAD = ("n", "exact tau* (enclosure)", "tau_W (Lambert W)", "tau (elementary)", "tau*/tau", "eps_L at tau", "ok")
TEX_HEAD = ("$n$", "$\\tau^{*}$ (enclosure)", "$\\tau_W$", "$\\tau$ (iii)", "$\\tau^{*}/\\tau$",
            "$\\varepsilon_L$ at $\\tau$", "ok")


def to_markdown(d: Derivation) -> str:
    out = ["# Theorem 26, derived mechanically", "",
           f"Verdict: **{'proved' if d.proved else 'NOT proved'}** on n in [1, {d.n_max}].", "",
           f"Schedule (model-format grammar): `tau = {d.tau_text}`", ""]
    for i, s in enumerate(d.steps, 1):
        out += [f"## {i}. {s.title}", "", s.prose, ""]
        out += [f"$$ {f} $$\n" for f in s.formulas]
        out += [f"*Checked:* {s.check} -- **{'ok' if s.ok else 'FAILED'}**", ""]
    out += ["## Table of temperatures", "", "| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
    out += ["| " + " | ".join(row) + " |" for row in _table_rows(d)]
    out += ["", "*Checked:* ball arithmetic at each n (eps_L <= delta and every eps_l <= 1)", "",
            f"Asymptotic class: {d.asymptotic}", ""]
    return "\n".join(out)


def to_latex(d: Derivation) -> str:
    out = ["\\documentclass{article}", "\\begin{document}", "\\section*{Appendix: Theorem 26, derived mechanically}",
           _tex_prose(f"Verdict: {'proved' if d.proved else 'NOT proved'} for every real n in [1, {d.n_max}]. "
                      "Every step names the independent check that accepted it."), ""]
    for i, s in enumerate(d.steps, 1):
        out += [f"\\subsection*{{{i}. {_tex_prose(s.title)}}}", _tex_prose(s.prose), ""]
        out += [f"\\[ {f} \\]" for f in s.formulas]
        out += [f"\\noindent\\emph{{Checked:}} {_tex_prose(s.check)} --- {'ok' if s.ok else 'FAILED'}.", ""]
    out += ["\\subsection*{Table of temperatures}", "{\\scriptsize\\setlength{\\tabcolsep}{3pt}\\begin{tabular}{" + "l" * len(HEAD) + "}",
            " & ".join(TEX_HEAD) + " \\\\ \\hline"]
    out += [" & ".join(_tex_prose(c) for c in row) + " \\\\" for row in _table_rows(d)]
    out += ["\\end{tabular}}", "", _tex_prose(f"Asymptotic class: {d.asymptotic}."), "", "\\end{document}", ""]
    return "\n".join(out)


def to_json(d: Derivation) -> str:
    p = d.problem
    el = d.elementary
    obj = {
        "theorem": "26",
        "inputs": {"L": p.L, "K": str(p.K), "gamma": d.texts["gamma"], "xmax": d.texts["xmax"], "delta": str(p.delta)},
        "proved": d.proved,
        "tau": d.tau_text,
        "inverse_tau": "(C/gamma) * log(A * n * xmax / gamma)",
        "C": str(el.C),
        "A": str(el.A),
        "n_range": [1, d.n_max],
        "cover_balls": el.cover.intervals,
        "tau_le_1_on_range": el.cold.ok,
        "asymptotic": d.asymptotic,
        "steps": [{"key": s.key, "title": s.title, "check": s.check, "ok": s.ok, "formulas": list(s.formulas)}
                  for s in d.steps],
        "table": [{"n": r.n,
                   "tau_exact": None if r.tau_exact is None else [fmt(r.tau_exact[0], 12), fmt(r.tau_exact[1], 12)],
                   "tau_lambert": fmt(r.tau_lambert, 12) if r.tau_lambert is not None else None,
                   "tau": fmt(r.tau, 12),
                   "ratio_exact_over_tau": None if r.ratio is None else [fmt(r.ratio[0], 6), fmt(r.ratio[1], 6)],
                   "eps_L": fmt(r.eps_L, 6),
                   "every_eps_le_1": r.eps_max_ok,
                   "ok": r.ok} for r in d.rows],
    }
    return json.dumps(obj, indent=2)


RENDERERS = {"markdown": to_markdown, "latex": to_latex, "json": to_json}

"""Theorem 26, derived end to end: the steps, the τ table and the verdict.

This assembles L-layer (Lemma 25, layer_bound.py), the recursion and its ε ≤ 1
invariant (recursion.py) and the three schedules (schedule.py) into one
:class:`Derivation` that render.py prints as Markdown, LaTeX or JSON.  Every
step carries the name of the checker that accepted it; the derivation is
``proved`` only if every step's check passed.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import sympy as sp
from flint import arb

from certify.expr import BinOp, Num, Var, to_text

from .config import CONFIG, DeriveConfig
from .convert import to_sympy
from .exact import from_ast, identical, monomial_form
from .layer_bound import lemma25_steps
from .recursion import derive_recursion
from .schedule import (Elementary, Problem, at_n, ball, elementary_schedule, elementary_u, eps_chain,
                       exact_bracket, lambert_point, precision)
from .steps import Step

BALLS = "ball arithmetic (python-flint arb)"
EXACT_TAG = "sympy-derived; re-checked exactly (rational-function identity)"


def fmt(v, digits: int = 6) -> str:
    """A ball or Fraction as a short decimal (display only; never used to decide)."""
    if isinstance(v, Fraction):
        v = ball(v)
    return v.str(digits, radius=False)


@dataclass(frozen=True)
class Row:
    n: int
    tau_exact: tuple[Fraction, Fraction] | None   # None: every temperature works at this n
    tau_lambert: arb | None
    tau: arb                 # the elementary schedule
    ratio: tuple[arb, arb] | None   # τ*/τ_elementary, lower and upper
    eps_L: arb               # ε_L at the elementary schedule
    eps_max_ok: bool         # every ε_ℓ ≤ 1 there
    ok: bool


@dataclass(frozen=True)
class Derivation:
    problem: Problem
    texts: dict              # the user's γ, x_max text
    elementary: Elementary
    steps: tuple[Step, ...]
    rows: tuple[Row, ...]
    asymptotic: str
    n_max: int

    @property
    def proved(self) -> bool:
        return all(s.ok for s in self.steps) and all(r.ok for r in self.rows)

    @property
    def tau_text(self) -> str:
        return to_text(self.elementary.tau)


def _row(p: Problem, el: Elementary, n: int, cfg: DeriveConfig) -> Row:
    br = exact_bracket(p, n, cfg)
    lam = lambert_point(p, n, cfg)
    x, g = at_n(p, n)
    with precision(cfg.prec_bits):
        u = elementary_u(p, el, n)
        a = ball(p.K * x * n) * (-u).exp()
        eps = eps_chain(a, ball(p.K * x * x / g) * u, p.L)
        ratio = None if br.unbounded else (u / ball(br.u_hi), u / ball(br.u_lo) if br.u_lo > 0 else arb("inf"))
        eps_ok = all(e <= 1 for e in eps)
        ok = bool(eps[-1] <= ball(p.delta) and eps_ok and (lam is None or lam.sufficient))
        return Row(n, None if br.unbounded else br.tau, lam.tau if lam else None, ball(g) / u, ratio, eps[-1], eps_ok, ok)


def _asymptotic(p: Problem, el: Elementary) -> tuple[str, Step]:
    """γ = c n^{−k}, x = c' n^p ⇒ 1/τ = (C/c) n^k (e ln n + ln c_N) with e = 1 + p + k."""
    g = monomial_form(from_ast(p.gamma))
    inner = BinOp("/", BinOp("*", BinOp("*", Num(Fraction(el.A)), Var("n")), p.xmax), p.gamma)
    nn = monomial_form(from_ast(inner))
    if g is None or nn is None:
        text = "Theta((1/gamma) log(A n x_max/gamma)) by construction (gamma, x_max are not monomials)"
        return text, Step("asymptotic", "Asymptotic class",
                          "The schedule is $(C/\\gamma)\\ln(A n x_{\\max}/\\gamma)$ by construction, which is the class "
                          "$O((1/\\gamma)\\log(n x_{\\max}/\\gamma))$ of Theorem 26.", (), "by construction", True)
    (cg, pg), (cN, eN) = g, nn
    k = -pg
    n = sp.Symbol("n", positive=True)
    inv_tau = sp.Rational(el.C.numerator, el.C.denominator) / to_sympy(p.gamma, {"n": n}) * sp.log(to_sympy(inner, {"n": n}))
    limit = sp.limit(inv_tau / (n**k * sp.log(n)), n, sp.oo) if eN > 0 else None
    expected = el.C * eN / cg
    lim_ok = eN > 0 and isinstance(limit, sp.Rational) and Fraction(int(limit.p), int(limit.q)) == expected
    cls = f"Theta(n^{k} log n)" if eN > 0 else f"Theta(n^{k})"
    text = f"{cls}: 1/tau = ({el.C / cg}) n^{k} ({eN} ln n + ln({cN}))"
    return text, Step(
        "asymptotic", "Asymptotic class",
        f"$\\gamma = {sp.latex(sp.Rational(cg.numerator, cg.denominator))}\\,n^{{{-k}}}$ and $A n x_{{\\max}}/\\gamma = "
        f"{sp.latex(sp.Rational(cN.numerator, cN.denominator))}\\,n^{{{eN}}}$ exactly (monomial identities over Fractions), "
        f"so $1/\\tau$ is $n^{{{k}}}$ times an affine function of $\\ln n$ with positive slope: "
        f"$1/\\tau \\in \\Theta(n^{{{k}}} \\log n)$, the class of Theorem 26. sympy's limit agrees with the exact constant.",
        (f"\\frac{{1}}{{\\tau(n)}} = {sp.latex(sp.Rational((el.C / cg).numerator, (el.C / cg).denominator))}\\, n^{{{k}}}\\,\\bigl({eN}\\ln n + \\ln {cN}\\bigr), \\qquad "
         f"\\lim_{{n\\to\\infty}} \\frac{{1/\\tau(n)}}{{n^{{{k}}}\\ln n}} = {sp.latex(sp.Rational(expected.numerator, expected.denominator))}",),
        "exact monomial identity (Fractions); sympy limit re-checked against the exact constant", bool(lim_ok))


def _typo_steps(p: Problem, el: Elementary, cfg: DeriveConfig) -> tuple[Step, ...]:
    n = min(cfg.ratio_n, cfg.n_max)
    x, g = at_n(p, n)
    uu, t = sp.symbols("u t", positive=True)
    Ks, xs, ns, gs = sp.symbols("K x_max n gamma", positive=True)
    a_plus = Ks * xs * ns * sp.exp(gs * t)
    deriv = sp.diff(a_plus, t)
    deriv_ok = identical(deriv, gs * a_plus)
    with precision(cfg.prec_bits):
        u = elementary_u(p, el, n)
        wrong = eps_chain(ball(p.K * x * n) * u.exp(), ball(p.K * x * x / g) * u, p.L)
        wrong_fails = bool(wrong[-1] > 1 and wrong[-1] > ball(p.delta))
        n3 = min(10**3, cfg.n_max)
        x3, g3 = at_n(p, n3)
        u3 = elementary_u(p, el, n3)
        a3 = ball(p.K * x3 * n3) * (-u3).exp()
        tiny = ball(Fraction(1, 2**n3))
        typo3_fails = bool(a3 > tiny) and Fraction(1, 2**n3) <= Fraction(1, n3)
    return (
        Step("typo-sign", "Review defect 2: the sign in the exponent of $a$",
             "With the printed $a^{+} = K x_{\\max} n\\, e^{+\\gamma/\\tau}$, $a^{+}$ is increasing in $t = 1/\\tau$ "
             "(derivative below), so $\\varepsilon_L \\ge a^{+} \\ge K x_{\\max} n$ at every temperature: no $\\tau$ can "
             f"reach $\\varepsilon_L \\le \\delta$ once $K x_{{\\max}} n > \\delta$. Concretely, at $n = {n}$ and the "
             f"schedule below, the wrong recursion gives $\\varepsilon_L \\approx {fmt(wrong[-1])} > 1$, while the "
             "corrected $a = K x_{\\max} n e^{-\\gamma/\\tau}$ gives the table's values.",
             (f"\\frac{{\\partial a^{{+}}}}{{\\partial t}} = {sp.latex(deriv)} > 0",),
             EXACT_TAG + "; concrete failure by " + BALLS, deriv_ok and wrong_fails),
        Step("typo-direction", "Review defect 3: the allowed error is a lower bound",
             "Since $\\varepsilon_L \\ge \\varepsilon_1 = a$, any valid schedule needs $u \\ge \\ln(K x_{\\max} n/\\delta)$. "
             "If the allowed error only satisfied $\\delta(n) \\le \\alpha/n^\\beta$, then $\\delta(n) = 2^{-n}$ "
             "(which satisfies it with $\\alpha = \\beta = 1$) forces $1/\\tau \\ge (\\ln(K x_{\\max} n) + n\\ln 2)/\\gamma$, "
             "outside $O((1/\\gamma)\\log(n x_{\\max}/\\gamma))$; concretely at "
             f"$n = {n3}$ the elementary schedule (iii) leaves $\\varepsilon_L \\ge a \\approx {fmt(a3)} > 2^{{-{n3}}}$. "
             "With the corrected $\\delta(n) \\ge \\alpha/n^\\beta$, $\\ln(1/\\delta) \\le \\ln(n^\\beta/\\alpha)$ and the "
             "class is unchanged.",
             ("u^{*} \\ge \\ln\\frac{K x_{\\max} n}{\\delta(n)}",),
             "lower bound by positivity of the recursion terms; concrete failure by " + BALLS, typo3_fails),
    )


def derive_theorem26(p: Problem, texts: dict, cfg: DeriveConfig = CONFIG) -> Derivation:
    el = elementary_schedule(p, cfg)
    rows = tuple(_row(p, el, n, cfg) for n in cfg.table_ns if n <= cfg.n_max)
    rec = derive_recursion(p.L)
    n_sym = sp.Symbol("n", positive=True)
    g_tex = sp.latex(to_sympy(p.gamma, {"n": n_sym}))
    x_tex = sp.latex(to_sympy(p.xmax, {"n": n_sym}))
    asym_text, asym_step = _asymptotic(p, el)
    pivot = [r for r in rows if r.n == cfg.ratio_n]
    ratio = pivot[0].ratio if pivot else None
    ratio_ok = bool(ratio is None or ratio[1] < 4)
    ratio_txt = f"[{fmt(ratio[0], 4)}, {fmt(ratio[1], 4)}]" if ratio else "n/a (tau* unbounded there)"
    lam_ok = all(r.tau_lambert is not None for r in rows) and all(r.ok for r in rows)
    steps = (
        Step("inputs", "Setting",
             f"An average-hard transformer with $L = {p.L}$ layers, Lemma 25 constant $K = {p.K}$, score gap "
             f"$\\gamma(n) = {g_tex}$, activations bounded by $x_{{\\max}}(n) = {x_tex}$, and target error "
             f"$\\delta = {sp.latex(sp.Rational(p.delta.numerator, p.delta.denominator))}$. Temperature $\\tau$, "
             "inverse temperature $t = 1/\\tau$.", (), "given", True),
        *lemma25_steps(),
        *rec.steps,
        Step("tau-exact", "(i) The exact largest temperature",
             "$\\tau^{*}(n) = \\gamma/u^{*}$ with $u^{*} = \\sup\\{u : f(u) > \\delta\\}$: the largest $\\tau$ such that every "
             "colder $\\tau' \\le \\tau$ meets $\\varepsilon_L \\le \\delta$. It is bracketed by bisection: $f(u_{lo}) > \\delta$ "
             "is decided on balls; $f \\le \\delta$ on $[u_{hi}, \\infty)$ by $f(u_{hi}) \\le \\delta$ on balls plus an exact "
             "test that $f$ decreases there ($f' < 0$ iff the sum below is $< 1$; dropping negative terms makes it "
             "non-increasing in $u$).",
             ("\\sum_{j=0}^{L-2} \\max\\bigl(0, (j+1)\\rho - 1\\bigr)\\,(\\rho u)^{j-L+1} < 1 \\;\\Rightarrow\\; "
              "f' < 0 \\mathrm{\\ on\\ } [u,\\infty)",),
             "root isolation by bisection; " + BALLS + " + exact monotonicity test (Fractions)", True),
        Step("tau-lambert", "(ii) A closed form through Lambert W",
             "For $\\rho u \\ge 1$, $\\sum_{k<L}(\\rho u)^k \\le L(\\rho u)^{L-1}$, so $\\varepsilon_L \\le \\delta$ follows from "
             "$u^m e^{-u} \\le 1/B$ with $m = L-1$ and $B = K x_{\\max} n L \\rho^m/\\delta$. The larger root uses the "
             "$W_{-1}$ branch; beyond it the bound decreases ($u \\ge m$). At every table $n$ the closed form is "
             "substituted back on balls: $u^m e^{-u} B \\ni 1$, $\\rho u \\ge 1$, $u \\ge m$ and $\\varepsilon_L(u_W) \\le \\delta$.",
             ("\\frac{1}{\\tau_W(n)} = \\frac{u_W}{\\gamma}, \\qquad u_W = -m\\,W_{-1}\\!\\left(-\\frac{1}{m\\,B^{1/m}}\\right)"
              " \\quad (L = 1:\\ u_W = \\ln B)",),
             BALLS + " (arb.lambertw branch -1), substituted back", lam_ok),
        Step("tau-elementary", "(iii) An elementary closed form",
             "The constants $C$ and $A$ are proposed from samples of $u^{*}$ (a line in $\\ln(n x_{\\max}/\\gamma)$ above them, "
             f"touching near $n = {cfg.ratio_n}$) and then proved: for every real $n \\in [1, {cfg.n_max}]$ "
             f"({el.cover.intervals} balls, adaptive cover) $\\varepsilon_L \\le \\delta$, hence every "
             "$\\varepsilon_\\ell \\le 1$. Beyond $n = " + str(cfg.n_max) + "$ nothing is claimed. "
             + ("Also $\\tau(n) \\le 1$ on the whole range (needed when K comes from weights)."
                if el.cold.ok else "The side condition $\\tau(n) \\le 1$ was not proved on the whole range."),
             (f"\\frac{{1}}{{\\tau(n)}} = \\frac{{C}}{{\\gamma}}\\,\\ln\\frac{{A\\,n\\,x_{{\\max}}}}{{\\gamma}}, \\qquad "
              f"C = {sp.latex(sp.Rational(el.C.numerator, el.C.denominator))}, \\quad A = {el.A}",),
             BALLS + f" over a cover of [1, {cfg.n_max}]", el.cover.ok),
        Step("ratio", f"Tightness at n = {cfg.ratio_n}",
             f"The elementary schedule is colder than the exact one by the factor $\\tau^{{*}}/\\tau \\in {ratio_txt}$ "
             "(required: at most 4).", (), BALLS, ratio_ok),
        asym_step,
        *_typo_steps(p, el, cfg),
    )
    return Derivation(p, texts, el, steps, rows, asym_text, cfg.n_max)

"""Theorem 26's error recursion, solved by sympy and re-checked exactly.

theory.md §3: ε_0 = 0, ε_{ℓ+1} = a + b·ε_ℓ with a = K x n e^{−γ/τ} and
b = K x²/τ.  sympy's ``rsolve`` proposes the closed form; :mod:`symbolic.exact`
re-checks it by induction (base case and step as exact rational-function
identities with b^ℓ an opaque atom).  Monotonicity in ℓ is *derived* (the
increment simplifies to a·b^ℓ, a product of positive factors), which settles
review defect 1: ε_L ≤ δ ≤ 1 implies ε_ℓ ≤ 1 for every layer input, as the
hypothesis of L-layer (Lemma 25) requires.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from .exact import from_sympy, identical
from .steps import Step

a, b = sp.symbols("a b", positive=True)
ell = sp.Symbol("ell", integer=True, nonnegative=True)
K, x, n, gamma, t, u, rho = sp.symbols("K x_max n gamma t u rho", positive=True)
EXACT = "sympy-derived; re-checked exactly (rational-function identity over Fractions)"


@dataclass(frozen=True)
class Recursion:
    closed: sp.Expr          # ε_ℓ in closed form
    increment: sp.Expr       # ε_{ℓ+1} − ε_ℓ, simplified
    steps: tuple[Step, ...]


def positive_product(e, positives: set) -> bool:
    """Structural check: ``e`` is a product of positive symbols and powers of them."""
    factors = e.args if isinstance(e, sp.Mul) else (e,)
    for f in factors:
        base = f.base if isinstance(f, sp.Pow) else f
        if isinstance(f, sp.Number):
            if not f > 0:
                return False
        elif base not in positives:
            return False
    return True


def derive_recursion(L: int) -> Recursion:
    eps = sp.Function("varepsilon")
    closed = sp.rsolve(eps(ell + 1) - a - b * eps(ell), eps(ell), {eps(0): 0})
    base_ok = from_sympy(closed.subs(ell, 0)).num.is_zero()
    step_ok = identical(closed.subs(ell, ell + 1), a + b * closed)
    increment = sp.simplify(closed.subs(ell, ell + 1) - closed)
    inc_ok = identical(increment, closed.subs(ell, ell + 1) - closed) and positive_product(increment, {a, b})
    sums_ok = all(identical(closed.subs(ell, k), a * sum(b**j for j in range(k))) for k in range(1, 9))
    eps_u = (K * x * n * sp.exp(-gamma * t)) * sum((K * x**2 * t) ** j for j in range(L))
    in_u = sp.exp(-u) * K * x * n * sum((rho * u) ** j for j in range(L))
    u_ok = identical(eps_u.subs(t, u / gamma), in_u.subs(rho, K * x**2 / gamma))
    steps = (
        Step("recursion", "The error recursion",
             "Lemma 25 (L-layer) applied to layer $\\ell+1$ with input error $\\varepsilon_\\ell \\le 1$ gives "
             "$\\varepsilon_{\\ell+1} \\le a + b\\,\\varepsilon_\\ell$ with $\\varepsilon_0 = 0$ (identical embeddings), where",
             ("a = K\\,x_{\\max}\\,n\\,e^{-\\gamma/\\tau}, \\qquad b = \\frac{K\\,x_{\\max}^2}{\\tau}.",),
             "definition (theory.md, Theorem 26)", True),
        Step("closed-form", "Closed form of the recursion",
             "sympy's rsolve proposes the closed form below. It is accepted by induction: the base case "
             "$\\varepsilon_0 = 0$ and the step $\\varepsilon_{\\ell+1} = a + b\\,\\varepsilon_\\ell$ are exact "
             "rational-function identities with $b^\\ell$ an opaque atom; for $L = 1..8$ it equals "
             "$a\\sum_{k<L} b^k$ (also valid at $b = 1$).",
             (f"\\varepsilon_\\ell = {sp.latex(closed)} = a\\sum_{{k=0}}^{{\\ell-1}} b^k",),
             EXACT + " + induction", base_ok and step_ok and sums_ok),
        Step("monotone", "Monotonicity in the layer index (review defect 1)",
             "The increment simplifies to a product of positive factors ($a, b > 0$), so $\\varepsilon_\\ell$ is "
             "strictly increasing in $\\ell$. Hence $\\varepsilon_L \\le \\delta \\le 1$ implies "
             "$\\varepsilon_\\ell \\le 1$ for every $\\ell \\le L$: the hypothesis $\\varepsilon \\le 1$ of Lemma 25 "
             "holds at the input of every layer, which the published proof never re-checked.",
             (f"\\varepsilon_{{\\ell+1}} - \\varepsilon_\\ell = {sp.latex(increment)} > 0, \\qquad "
              "\\varepsilon_0 \\le \\varepsilon_1 \\le \\dots \\le \\varepsilon_L \\le \\delta \\le 1.",),
             EXACT + "; positivity by structure (product of positive factors)", inc_ok),
        Step("in-u", "The condition in one variable",
             "With $u = \\gamma/\\tau$ and $\\rho = K x_{\\max}^2/\\gamma$ the requirement $\\varepsilon_L \\le \\delta$ "
             "reads $f(u) \\le \\delta$ at every $n$, where",
             (f"f(u) = K\\,x_{{\\max}}\\,n\\,e^{{-u}} \\sum_{{k=0}}^{{{L - 1}}} (\\rho u)^k .",),
             EXACT + " (exp as an atom)", u_ok),
    )
    return Recursion(closed, increment, steps)

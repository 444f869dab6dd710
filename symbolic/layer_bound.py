"""L-layer (paper's Lemma 25) as symbolic objects, with K computed from weights.

(a) Coarse form.  For an attention layer with heads h (score matrix S_h, value
map V_h) and input error ε ≤ 1 ≤ x_max:

* L-lipschitz + L-gap: ‖α̂ − α‖_1 ≤ |ŝ − s|_∞/τ + 2n e^{−γ/τ};
* score perturbation |ŝ − s| ≤ ‖S‖·ε(2x_max + ε) ≤ 3‖S‖ x_max ε (uses ε ≤ 1 ≤ x_max);
* head error ≤ ‖V‖ε + ‖V‖ x_max (3‖S‖x_max ε/τ + 2n e^{−γ/τ}), plus ε through the residual.

Here ‖S‖ = Σ|coef| (so |u^T S v| ≤ ‖S‖ ‖u‖_∞‖v‖_∞) and ‖V‖ is the ∞→∞ norm
(max row sum).  With τ ≤ 1 the bare ε terms are ≤ x_max² ε/τ and the layer error
is ≤ K·x_max·(n e^{−γ/τ} + x_max ε/τ) with K = max(2ΣV, 1 + ΣV + 3ΣSV).  An FFN
layer is (1 + W)-Lipschitz, W = max_d Σ_u |w2_{d,u}|·‖w1_u‖_1.  sympy proposes the
decomposition of the slack into non-negative terms; the identity is re-checked
exactly and each term's sign follows from the definition of K.

(b) Refined form (theory.md §4): head error ν + Λ·D_out + Δ_M·D_M with
Λ ≤ e^{2η/τ} r/m and Δ_M ≤ Λ + 2η/τ.
"""
from __future__ import annotations

from fractions import Fraction

import sympy as sp

from certify.model import AttentionLayer, FFNLayer, Model

from .exact import from_sympy, identical
from .steps import Step

EXACT = "sympy-derived; re-checked exactly (rational-function identity over Fractions)"


def _abs_sum(items) -> Fraction:
    return sum((abs(c) for c in items), Fraction(0))


def head_norms(head) -> tuple[Fraction, Fraction]:
    """(‖S‖ entrywise 1-norm, ‖V‖ max row sum) of one head, exactly."""
    s = _abs_sum(c for _, _, c in head.score)
    rows: dict[str, Fraction] = {}
    for out, _, c in head.value:
        rows[out] = rows.get(out, Fraction(0)) + abs(c)
    return s, max(rows.values(), default=Fraction(0))


def layer_constant(layer) -> Fraction:
    """K of one layer in the coarse L-layer bound (valid for ε ≤ 1 ≤ x_max and τ ≤ 1)."""
    if isinstance(layer, AttentionLayer):
        norms = [head_norms(h) for h in layer.heads]
        v = sum((nv for _, nv in norms), Fraction(0))
        sv = sum((ns * nv for ns, nv in norms), Fraction(0))
        return max(2 * v, 1 + v + 3 * sv)
    assert isinstance(layer, FFNLayer)
    rows: dict[str, Fraction] = {}
    for unit in layer.units:
        w1 = _abs_sum(c for _, c in unit.inputs)
        for out, c in unit.outputs:
            rows[out] = rows.get(out, Fraction(0)) + abs(c) * w1
    return 1 + max(rows.values(), default=Fraction(0))


def model_constant(model: Model) -> Fraction:
    """One K for every layer (the recursion uses the worst layer)."""
    return max((layer_constant(layer) for layer in model.layers), default=Fraction(1))


eps, x, n, tau, gamma = sp.symbols("varepsilon x_max n tau gamma", positive=True)
Vs, SVs, W, Kc = sp.symbols("V_Sigma SV_Sigma W K", nonnegative=True)
E = sp.exp(-gamma / tau)


def coarse_form(K=Kc):
    """The paper's one-layer bound K·x_max·(n e^{−γ/τ} + x_max ε/τ)."""
    return K * x * (n * E + x * eps / tau)


def _split(head: str, terms) -> str:
    """A long sum as a left-aligned array, one term a line (plain LaTeX, no amsmath)."""
    lines = " \\\\ \\quad + ".join(sp.latex(t) for t in terms)
    return f"\\begin{{array}}{{l}} {head} \\\\ \\quad {lines} \\end{{array}}"


def lemma25_steps() -> tuple[Step, ...]:
    attn = eps + Vs * eps + 3 * SVs * x**2 * eps / tau + 2 * Vs * x * n * E
    slack = sp.expand(coarse_form() - attn)
    parts = (Kc - 2 * Vs) * x * n * E + (Kc - 1 - Vs - 3 * SVs) * x**2 * eps / tau + (1 + Vs) * (x**2 / tau - 1) * eps
    attn_ok = identical(slack, parts)
    ffn = (1 + W) * eps
    ffn_parts = (Kc - 1 - W) * x**2 * eps / tau + Kc * x * n * E + (1 + W) * (x**2 / tau - 1) * eps
    ffn_ok = identical(sp.expand(coarse_form() - ffn), ffn_parts)

    nu, r, m, eta, Dout, DM = sp.symbols("nu r m eta D_out D_M", positive=True)
    lam = sp.exp(2 * eta / tau) * r / m
    refined = nu + lam * Dout + (lam + 2 * eta / tau) * DM
    exact_heads = refined.subs(eta, 0)
    exact_ok = identical(exact_heads, nu + r / m * (Dout + DM))
    unique = refined.subs({eta: 0, DM: 0})
    unique_ok = identical(unique, nu + r * Dout / m) and "tau" not in {v for v in from_sympy(unique).variables()}
    return (
        Step("lemma25-coarse", "Lemma 25, coarse form, with an explicit K",
             "For an attention layer with input error $\\varepsilon \\le 1 \\le x_{\\max}$ and $\\tau \\le 1$: "
             "L-lipschitz and L-gap bound the weight error by $|\\hat s - s|_\\infty/\\tau + 2n e^{-\\gamma/\\tau}$, and "
             "$|\\hat s - s| \\le \\|S\\|\\varepsilon(2x_{\\max}+\\varepsilon) \\le 3\\|S\\| x_{\\max}\\varepsilon$ (this is "
             "where $\\varepsilon \\le 1$ is used). Summing over heads ($V_\\Sigma = \\sum_h \\|V_h\\|_\\infty$, "
             "$SV_\\Sigma = \\sum_h \\|S_h\\|_1\\|V_h\\|_\\infty$) the layer error is at most the first line below. "
             "The slack to the coarse form splits into three terms, each non-negative when "
             "$K = \\max(2V_\\Sigma,\\ 1 + V_\\Sigma + 3SV_\\Sigma)$, $x_{\\max} \\ge 1 \\ge \\tau$.",
             (f"\\mathrm{{err}}_{{attn}} \\le {sp.latex(attn)}",
              _split(f"{sp.latex(coarse_form())} - \\mathrm{{err}}_{{attn}} \\ge", parts.args)),
             EXACT + "; signs by the definition of K", attn_ok),
        Step("lemma25-ffn", "Lemma 25 for a ReLU layer",
             "An FFN layer is $(1+W)$-Lipschitz in the sup norm, $W = \\max_d \\sum_u |w^{(2)}_{du}|\\,\\|w^{(1)}_u\\|_1$; "
             "with $K \\ge 1 + W$ its error is below the coarse form.",
             (_split(f"{sp.latex(coarse_form())} - {sp.latex(ffn)} =", ffn_parts.args),),
             EXACT + "; signs by K >= 1 + W", ffn_ok),
        Step("lemma25-refined", "Lemma 25, refined form (theory.md section 4)",
             "Per head: value error $\\nu$, leakage $r$ outside the $m$ maxima, score perturbation $\\eta$, "
             "value spreads $D_{out}, D_M$. With $\\Lambda \\le e^{2\\eta/\\tau} r/m$ and "
             "$\\Delta_M \\le \\Lambda + 2\\eta/\\tau$ the head error is the first line. If the scores read only exact "
             "coordinates ($\\eta = 0$) it is the second; if moreover the maximum is unique or tied values are equal "
             "($D_M = 0$) the $1/\\tau$ amplification disappears (third line has no $\\tau$ except through $r$).",
             (f"\\mathrm{{err}} \\le {sp.latex(refined)}",
              f"\\eta = 0:\\quad \\mathrm{{err}} \\le {sp.latex(sp.factor(exact_heads - nu) + nu)}",
              f"\\eta = 0,\\ D_M = 0:\\quad \\mathrm{{err}} \\le {sp.latex(unique)}"),
             EXACT + "; tau-freeness checked on the exact form", exact_ok and unique_ok),
    )

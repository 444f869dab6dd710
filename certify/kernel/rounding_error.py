"""Rounding error of a soft model evaluated in a floating-point format (docs/floating-point.md).

:func:`bounds.analyse_box` bounds |exact soft − hard| on a box of lengths; given a
:class:`FloatFormat` it also calls the hooks below, which add what the format's
arithmetic can add on top, stage by stage, in the stated model: every stored value is
rounded to the format (|fl(x) − x| ≤ u|x| + λ: relative u, or a flush to zero below the
smallest normal λ), sums and dot products run in the accumulation format in any order
(L-fp-dot: γ_k = k·u_A/(1 − k·u_A)), softmax is max-shifted, and exp is within
``exp_ulps`` ulps (an assumption).  The hooks see the same per-box balls as the exact
analysis (value ranges ``rng`` and errors ``err``, which already include the rounding of
earlier layers, so the float inputs have magnitude ≤ |rng| + err):

* scores: L-fp-score (dot-product rounding) plus L-fp-softmax (τ rounded, the division,
  the shift and exp as a logit perturbation, in score units) become extra score error η,
  which the exact analysis turns into D·η/τ (L-lipschitz) — so a gap γ(n) below about
  u·|score|·n^k makes this term, not the leak, the one that fails;
* head outputs: L-fp-values (value vectors, the weighted sum and its normaliser);
* the residual stream and FFNs: L-fp-dot on every stored sum.

Overflow is an obligation (a logit s/τ or a stream value above the largest finite
number fails the box), so is τ(n) ≥ λ (a flushed τ would divide by zero).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from flint import arb

ZERO = arb(0)


class RoundingFailure(Exception):
    """A precondition of the floating-point bounds fails on this box (names the obligation)."""


@dataclass(frozen=True)
class FloatFormat:
    """A binary format: p significand bits (u = 2^-p), smallest normal 2^emin, largest finite value
    (None: an exponent range that never over- or underflows), and the accumulation format."""

    name: str
    bits: int
    emin: int | None = None
    largest: Fraction | None = None
    accumulate: "FloatFormat | None" = None
    exp_ulps: int = 4

    @property
    def acc(self) -> "FloatFormat":
        return self.accumulate or self

    def u(self):
        return arb(2) ** -self.bits

    def tiny(self):
        """λ: the largest error of a flush to zero (0 for an unbounded exponent range)."""
        return ZERO if self.emin is None else arb(2) ** self.emin

    def record(self) -> dict:
        return {"format": self.name, "significand_bits": self.bits, "unit_roundoff": f"2^-{self.bits}",
                "smallest_normal": None if self.emin is None else f"2^{self.emin}",
                "largest_finite": None if self.largest is None else str(self.largest),
                "accumulation": self.acc.name, "accumulation_unit_roundoff": f"2^-{self.acc.bits}",
                "exp_error_ulps": self.exp_ulps, "model": "docs/floating-point.md", "assumptions": list(ASSUMPTIONS)}

    # ------------------------------------------------------------ L-fp-dot
    def gamma(self, k: int):
        """γ_k of the accumulation format: k roundings on one term, any order (L-fp-dot)."""
        ku = k * self.acc.u()
        if not ku < 1:
            raise RoundingFailure(f"{self.name}: {k} terms accumulated in {self.acc.name} (k·u_A ≥ 1)")
        return ku / (1 - ku)

    def rho(self, k: int):
        """Σ of k terms (constants rounded to F, accumulated in A, stored in F): error ≤ ρ(k)·Σ|terms|."""
        return (1 + self.u()) ** 2 * (1 + self.gamma(k)) - 1

    def flush(self, k: int):
        """Absolute error of flushes in a k-term sum: ≤ 2k·λ_A + λ_F."""
        return 2 * k * self.acc.tiny() + self.tiny()

    def stored(self, k: int, magnitude):
        """Error of a stored k-term sum whose terms have Σ|terms| ≤ magnitude (L-fp-dot)."""
        self.representable(magnitude, "a stored sum")
        return self.rho(k) * magnitude + self.flush(k)

    def representable(self, magnitude, what: str) -> None:
        if self.largest is not None and not magnitude * (1 + self.u()) < arb(self.largest.numerator) / self.largest.denominator:
            raise RoundingFailure(f"{self.name}: {what} may overflow (|x| up to {magnitude.upper()})")

    # ------------------------------------------------------------ hooks called by bounds.py
    def embedding_error(self, token_abs: dict, pe_abs: dict) -> dict:
        """x = fl(fl(token) + fl(PE)) per dim: a stored 2-term sum."""
        return {d: self.stored(2, token_abs[d] + pe_abs.get(d, ZERO)) for d in token_abs}

    def score_error(self, head, rng: dict, err: dict, tau, keys: int):
        """Extra score error η_r of one head, in score units (L-fp-score + L-fp-softmax)."""
        if not tau > self.tiny():
            raise RoundingFailure(f"{self.name}: τ(n) is not certainly above the smallest normal {self.tiny().upper()}")
        mag = {d: rng[d].abs_upper() + err[d] for d in rng}
        k = len(head.score)
        total = sum((abs(_q(c)) * mag[q] * mag[kd] for q, kd, c in head.score), ZERO)
        key_mass = sum((mag[d] for d in {kd for _, kd, _ in head.score}), ZERO)
        q_err = self.rho(k) * total + self.flush(k) * key_mass  # the query vector Σ_q c·x_q, stored
        sigma = (1 + self.u()) * (1 + self.gamma(k)) - 1  # then its dot product with the key row, stored
        dot = q_err + sigma * (total * (1 + self.rho(k)) + self.flush(k) * key_mass) + self.flush(k)
        s_max = total + dot
        self.representable(s_max, f"head {head.name!r}: a score")
        u, g2 = self.u(), _gamma_f(2, self.u())
        self.representable(s_max * (1 + g2) / tau, f"head {head.name!r}: a logit s/τ")
        u_e = 2 * self.exp_ulps * u
        if not u_e < 1:
            raise RoundingFailure(f"{self.name}: exp error {self.exp_ulps} ulps is not below 1 in relative terms")
        shift = (2 * g2 + 2 * u * (1 + g2)) * s_max + 2 * self.tiny() * tau  # fl(s/τ̂), fl(z − max z)
        return dot + shift + tau * u_e / (1 - u_e)  # exp's relative error as a logit perturbation

    def _values(self, head, o: str, rng: dict, err: dict):
        """(error of the stored value vectors, a bound on their magnitude) for output dim o."""
        terms = [(v, c) for oo, v, c in head.value if oo == o]
        mag = sum((abs(_q(c)) * (rng[v].abs_upper() + err[v]) for v, c in terms), ZERO)
        nu = self.stored(len(terms), mag)
        return nu, mag + nu

    def _average(self, keys: int):
        """Relative error of Σ_j w_j·v_j / Σ_j w_j: both sums accumulated (a term through ≤ N + 1 and
        ≤ N roundings: one more than a plain sum, for weights factored out of equal keys), the
        quotient stored (L-fp-values)."""
        return (1 + self.gamma(keys + 1)) * (1 + self.acc.u()) * (1 + self.u()) / (1 - self.gamma(max(keys, 2))) - 1

    def head_output_error(self, head, o: str, rng: dict, err: dict, keys: int):
        """Value vectors, weighted sum and normaliser of one output dim o (L-fp-values)."""
        nu, v_max = self._values(head, o, rng, err)
        u_e = 2 * self.exp_ulps * self.u()
        flushed = 2 * keys * self.tiny() / (1 - u_e)  # L1 weight lost to exp results flushed to zero
        return nu + (self._average(keys) + flushed) * v_max + self.flush(keys)

    def residual_error(self, layer, o: str, rng: dict, err: dict, keys: int):
        """x_o + Σ_heads out_h, accumulated and stored once (L-fp-dot)."""
        mag, k = rng[o].abs_upper() + err[o], 1
        for h in layer.heads:
            if any(oo == o for oo, _, _ in h.value):
                _, v_max = self._values(h, o, rng, err)
                mag += v_max * (1 + self._average(keys)) + self.flush(keys)
                k += 1
        return self.stored(k, mag)

    def preactivation_error(self, unit, rng: dict, err: dict):
        mag = abs(_q(unit.bias)) + sum((abs(_q(c)) * (rng[d].abs_upper() + err[d]) for d, c in unit.inputs), ZERO)
        return self.stored(len(unit.inputs) + 1, mag)

    def ffn_output_error(self, layer, o: str, rng: dict, err: dict, pre: list):
        """Σ |c|·(pre-activation rounding) of the units writing o (it does not cancel as slopes do),
        plus the stored sum x_o + Σ c·h_u."""
        mag, lost = rng[o].abs_upper() + err[o], ZERO
        k = 1
        for u, e in zip(layer.units, pre):
            co = sum((c for d, c in u.outputs if d == o), Fraction(0))
            if co == 0:
                continue
            k += 1
            h = _q(u.bias) + sum((_q(c) * rng[d] for d, c in u.inputs), ZERO)
            h_abs = h.abs_upper() + sum((abs(_q(c)) * err[d] for d, c in u.inputs), ZERO) + e
            lost += abs(_q(co)) * e
            mag += abs(_q(co)) * h_abs
        return lost + self.stored(k, mag)

    def threshold_error(self, threshold: Fraction):
        """The decision compares with fl(θ)."""
        return self.u() * abs(_q(threshold)) + self.tiny()


def _gamma_f(k: int, u):
    return k * u / (1 - k * u)


def _q(v: Fraction):
    return arb(v.numerator) / v.denominator


ASSUMPTIONS = (
    "every stored value (weights, token and position embeddings, τ(n), threshold, intermediates) is rounded "
    "to nearest in the format: |fl(x) − x| ≤ u|x| + λ (λ: smallest normal; results below it may flush to 0)",
    "sums and dot products are accumulated in the accumulation format, in any order, and stored once",
    "softmax is max-shifted: y = fl(fl(s/fl(τ)) − max), w = fl(exp(y)); exp is within exp_error_ulps ulps "
    "(relative error ≤ 2·ulps·u) and exp(0) = 1",
    "no NaN or infinity is produced (overflow is an obligation the bounds check)",
)

FLOAT32 = FloatFormat("float32", 24, -126, Fraction(2**24 - 1) * Fraction(2) ** 104)
FORMATS = {
    "float64": FloatFormat("float64", 53, -1022, Fraction(2**53 - 1) * Fraction(2) ** 971),
    "float32": FLOAT32,
    "bfloat16": FloatFormat("bfloat16", 8, -126, Fraction(2**8 - 1) * Fraction(2) ** 120, FLOAT32),
    "float16": FloatFormat("float16", 11, -14, Fraction(65504), FLOAT32),
}


def bits_format(p: int) -> FloatFormat:
    """A hypothetical format with p significand bits, no over- or underflow, accumulating in itself."""
    return FloatFormat(f"binary-p{p}", p)


def format_of(record) -> FloatFormat:
    """The format a certificate names (claim.precision), recomputed from the name alone."""
    name = record.get("format") if isinstance(record, dict) else None
    if name in FORMATS:
        fmt = FORMATS[name]
    elif isinstance(name, str) and name.startswith("binary-p") and name[8:].isdigit():
        fmt = bits_format(int(name[8:]))
    else:
        raise RoundingFailure(f"unknown floating-point format {name!r}")
    if fmt.record() != record:
        raise RoundingFailure(f"claim.precision differs from the kernel's record of {name}")
    return fmt

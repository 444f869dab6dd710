"""Second-opinion obligations: facts the kernel proved with balls, restated in SMT-LIB2.

For every FFN whose joint hard inputs are finite and whose inputs carry error, the
certificate records, per output dim, the linear-real-arithmetic query "some input
within the error box moves the output" (when the kernel found it exact: L-round) or
"… moves it by more than the kernel's bound" as SMT-LIB2 text.  Both z3 and cvc5 must answer
``unsat`` (proofs.smt.second_opinion).  These answers are labelled *second
opinion*: the kernel's ball arithmetic is the proof, the solvers a cross-check.
"""
from __future__ import annotations

from fractions import Fraction

from .kernel.checker import CheckFailure
from .kernel.bounds import ffn_error, q_ball
from .kernel.records import upper
from .kernel.structure import Structure
from .model import FFNLayer, Model


def _real(v: Fraction) -> str:
    body = f"(/ {abs(v.numerator)}.0 {v.denominator}.0)"
    return f"(- {body})" if v < 0 else body


def _relu(h: str) -> str:
    return f"(ite (> {h} 0.0) {h} 0.0)"


def _affine(terms: list[tuple[str, Fraction]], bias: Fraction) -> str:
    parts = [f"(* {_real(c)} {x})" for x, c in terms] + [_real(bias)]
    return f"(+ {' '.join(parts)})"


def _ffn_output(layer: FFNLayer, out: str, value: dict) -> str:
    """The FFN's output coordinate as an SMT term over ``value`` (dim -> term)."""
    terms = [value.get(out, "0.0")]
    for u in layer.units:
        c = sum((co for d, co in u.outputs if d == out), Fraction(0))
        if c:
            h = _affine([(value.get(d, "0.0"), ci) for d, ci in u.inputs], u.bias)
            terms.append(f"(* {_real(c)} {_relu(h)})")
    return f"(+ {' '.join(terms)})"


def rounding_query(layer: FFNLayer, dims: tuple, combos: tuple, eps: dict, out: str, moved: Fraction = Fraction(0)) -> str:
    """Satisfiable iff some input within ``eps`` of a joint hard input moves ``out`` by more than
    ``moved`` (0: changes it at all)."""
    names = {d: f"x{k}" for k, d in enumerate(dims)}
    lines = ["(set-logic QF_LRA)"] + [f"(declare-const {x} Real)" for x in names.values()]
    cases = []
    for combo in combos:
        hard = dict(zip(dims, combo))
        box = " ".join(f"(<= {_real(hard[d] - eps[d])} {names[d]}) (<= {names[d]} {_real(hard[d] + eps[d])})"
                       for d in dims)
        exact = {d: _real(v) for d, v in hard.items()}
        soft, hard_out = _ffn_output(layer, out, names), _ffn_output(layer, out, exact)
        apart = f"(not (= {soft} {hard_out}))" if not moved else \
            f"(or (> (- {soft} {hard_out}) {_real(moved)}) (< (- {soft} {hard_out}) {_real(-moved)}))"
        cases.append(f"(and {box} {apart})")
    lines += [f"(assert (or {' '.join(cases)}))", "(check-sat)"]
    return "\n".join(lines) + "\n"


def rounding_obligations(model: Model, st: Structure, reports: list) -> list[dict]:
    """One obligation per (FFN layer, output dim) that the kernel found exact despite input error."""
    items = []
    for fact in st.facts:
        if isinstance(fact, tuple) or not reports:
            continue
        combos = fact.noisy if fact.noisy is not None else fact.combos  # other rows have exact inputs
        if not combos:
            continue
        layer = model.layers[fact.layer]
        seen = [next(f[1:] for f in r.ffn_inputs if f[0] == fact.layer) for r in reports]
        eps = {d: max(Fraction(upper(before[d])) for before, _ in seen) for d in fact.dims}
        if not any(eps.values()):
            continue
        reach = ffn_error(layer, fact, {d: q_ball(v) for d, v in eps.items()})  # the kernel's bound on the joint box
        for out in sorted({d for u in layer.units for d, _ in u.outputs}):
            moved = Fraction(0) if all(after[out].is_zero() for _, after in seen) else Fraction(upper(reach[out]))
            items.append({
                "id": f"round:layer{fact.layer}:{out}",
                "kind": "second opinion",
                "lemma": "L-round",
                "statement": f"inputs within the recorded error box leave {out} unchanged" if not moved else
                             f"inputs within the recorded error box move {out} by at most {moved}",
                "eps": {d: str(v) for d, v in eps.items()},
                "smt2": rounding_query(layer, fact.dims, combos, eps, out, moved),
            })
    return items


def recheck_smt_obligations(cert: dict, model: Model | None = None, checked=None) -> list[str]:
    """Re-run every second-opinion obligation in z3 and cvc5; both must say unsat.

    With the model and the kernel's check result, the recorded obligations must also be
    exactly the ones this module derives from the kernel's bounds (none dropped or edited)."""
    from proofs.smt import SolverDisagreement, second_opinion

    if model is not None and checked is not None:
        recorded = [o for o in cert.get("obligations", []) if isinstance(o, dict) and o.get("kind") == "second opinion"]
        # a floating-point claim (claim.precision) has no exact FFN outputs to second-guess: none expected
        floating = isinstance(cert.get("claim"), dict) and "precision" in cert["claim"]
        expected = [] if floating or checked.structure is None else \
            rounding_obligations(model, checked.structure, list(checked.reports))  # None: L-exhaustive, no FFN facts
        if recorded != expected:
            raise CheckFailure("obligations (second opinion)", [o["id"] for o in expected],
                               [o.get("id") for o in recorded])
    done = []
    for k, item in enumerate(cert.get("obligations", [])):
        if not isinstance(item, dict) or item.get("kind") != "second opinion":
            continue
        text = item.get("smt2")
        if not isinstance(text, str):
            raise CheckFailure(f"obligations[{k}].smt2", "SMT-LIB2 text", text)
        try:
            answer = second_opinion(text)
        except SolverDisagreement as exc:
            raise CheckFailure(f"obligations[{k}] ({item.get('id')})", "z3 and cvc5 to agree", str(exc)) from None
        if answer != "unsat":
            raise CheckFailure(f"obligations[{k}] ({item.get('id')})", "unsat in z3 and cvc5 (second opinion)", answer)
        done.append(item.get("id"))
    return done

"""Tasks beyond formulas: induction head and Dyck-k, each with a reference.

* Induction head (transduction): at i, true iff w_i occurred before and, for the
  most recent earlier occurrence j < i, w_{j+1} is the target.  Compiled as the
  TL[S,U]/TL[⊖,⊕] formula  ∨_σ (σ ∧ (¬σ S (σ ∧ ⊕target))): for each σ one
  since head finds j* = max{j < i : w_j = σ} (P = (σ ∧ ⊕t) ∨ ¬¬σ = σ) and reads
  whether w_{j*+1} = target, so the model inherits the since/next gadgets (and
  their Θ(1/n) / τ = 1 temperatures).
* Dyck-k (membership, output at the last position), an average-hard construction
  with BOS and bounded PEs:
    1. a_j = d(j)/(j+1) (uniform head over j<=i, values open − close), d = depth;
    2. lookup head (L-lookup with the ratio pointer) over all keys p, score
       (2·a_j·p − p²/(j+1))/n² = (d² − (p − d)²)/((j+1)n²): unique max at p = d(j),
       gap >= 1/((n+1)n²); value D = p/n and E = (p/n)² at p = d(j);
    3. match head over j<i, score 8·open_j + (2ℓ_i d_j − d_j²)/n² + j/(2n³) with
       ℓ_i = d(i) + 1 (query dims D and 1/n): the rightmost opener at depth ℓ_i,
       i.e. the bracket matching a closer at i; gap >= 1/(2n³); value its type;
    4. mismatch = closer ∧ ¬∨_t(matched type t ∧ closer type t); bad = mismatch ∨
       (#past[close] > #past[open]); accept iff no bad position so far (¬(bad ∨
       ⊤ S bad)) and #past[open] = #past[close] at the last position.
  γ(n) = 1/(2n³) (the match head; the lookup's 1/((n+1)n²) is larger), in line
  with the S-RASP gap Ω(1/n³) of theory.md §5.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from certify.errors import UserError

from .builder import Builder
from .compiler import FormulaCompiler, Given, compile_formula, finish
from .formula import And, Compare, Const, Count, Next, Not, Or, Since, Sym

BRACKETS = (("(", ")"), ("[", "]"), ("{", "}"), ("<", ">"))
DYCK_TEMPERATURE = "1/(8*n^2*(n+1)*log(n+2))"


# ---------------------------------------------------------------- induction head

def induction_reference(word: Sequence[str], target: str) -> list[bool]:
    out = []
    for i, s in enumerate(word):
        earlier = [j for j in range(i) if word[j] == s]
        out.append(bool(earlier) and word[earlier[-1] + 1] == target)
    return out


def induction_formula(alphabet: Sequence[str], target: str):
    f = None
    for s in alphabet:
        term = And(Sym(s), Since(Not(Sym(s)), And(Sym(s), Next(Sym(target)))))
        f = term if f is None else Or(f, term)
    return f


def compile_induction(alphabet: Sequence[str], target: str, scheme: str, name: str | None = None) -> dict:
    if target not in alphabet:
        raise UserError(f"--target {target!r} is not in the alphabet {list(alphabet)}")
    f = induction_formula(alphabet, target)
    model = compile_formula(f, alphabet, scheme, transduction=True,
                            name=name or f"induction-head-{scheme}", source=f"induction head, target {target!r}")
    model["description"] = (f"induction head with target {target!r}: at i, true iff w_i occurred before and the "
                            f"symbol after its most recent earlier occurrence is {target!r}; compiled as "
                            f"OR over s of (s and (not s since (s and next target))). " + model["description"])
    return model


# ---------------------------------------------------------------- Dyck-k

def dyck_alphabet(k: int) -> tuple[str, ...]:
    if not 1 <= k <= len(BRACKETS):
        raise UserError(f"--k must be between 1 and {len(BRACKETS)}, got {k}")
    return tuple(c for pair in BRACKETS[:k] for c in pair)


def dyck_reference(word: Sequence[str], k: int) -> bool:
    closer_of = {o: c for o, c in BRACKETS[:k]}
    stack = []
    for s in word:
        if s in closer_of:
            stack.append(closer_of[s])
        elif not stack or stack.pop() != s:
            return False
    return not stack


def compile_dyck(k: int, scheme: str = "bounded", name: str | None = None) -> dict:
    if scheme != "bounded":
        raise UserError("dyck is compiled in the bounded scheme only (an average-hard model, theory.md §5)")
    alphabet = dyck_alphabet(k)
    opens, closes = [o for o, _ in BRACKETS[:k]], [c for _, c in BRACKETS[:k]]
    b = Builder(alphabet, "<s>")
    fc = FormulaCompiler(b, "bounded", ladder=False)  # the match head sets Θ(1/(n³ log n)): the plain gadget leaks less
    one = fc.one
    is_open = b.token_feature("open", {o: 1 for o in opens})
    is_close = b.token_feature("close", {c: 1 for c in closes})
    open_type = [b.token_feature(f"open{t}", {o: 1}) for t, o in enumerate(opens)]
    close_type = [b.token_feature(f"close{t}", {c: 1}) for t, c in enumerate(closes)]
    # 1. normalised depth a = d/(i+1)
    a = b.fresh("depth_ratio")
    k1 = b.attention({"name": "depth", "hard": "average", "visible": "j<=i", "score": [],
                      "value": [(a, is_open, Fraction(1)), (a, is_close, Fraction(-1))]}, -1)
    # 2. lookup of position p = d(i): D = d/n, E = (d/n)^2
    q1 = b.pe("p_n2", "i/n^2")
    q2 = b.pe("pos2", "(i/n)^2")
    r = b.pe("inv_i1", "1/(i+1)")
    pos = b.pe("pos", "i/n")
    D, E = b.fresh("depth"), b.fresh("depth_sq")
    k2 = b.attention({"name": "depth-lookup", "hard": "average", "visible": "all",
                      "score": [(a, q1, Fraction(2)), (r, q2, Fraction(-1))],
                      "value": [(D, pos, Fraction(1)), (E, q2, Fraction(1))]}, k1)
    # 3. the matching opener of a closer
    inv_n = b.pe("inv_n", "1/n")
    tb = b.pe("p_n3", "i/n^3")
    matched = [b.fresh(f"match{t}.raw") for t in range(k)]
    k3 = b.attention({"name": "match", "hard": "average", "visible": "j<i",
                      "score": [(D, D, Fraction(2)), (inv_n, D, Fraction(2)), (one, E, Fraction(-1)),
                                (one, is_open, Fraction(8)), (one, tb, Fraction(1, 2))],
                      "value": [(m, open_type[t], Fraction(1)) for t, m in enumerate(matched)]}, k2)
    ok_terms = []
    for t, m in enumerate(matched):
        mt, kr = fc.round(m, k3, gate=False, hint=f"match{t}")
        ok_terms.append(And(Given(mt, kr), Given(close_type[t], -1)))
    ok = ok_terms[0]
    for term in ok_terms[1:]:
        ok = Or(ok, term)
    closer = Given(is_close, -1)
    opener = Given(is_open, -1)
    mismatch = And(closer, Not(ok))
    negative = Compare(">", Count("past", closer), Count("past", opener))
    bad = Or(mismatch, negative)
    accept = And(Not(Or(bad, Since(Const(True), bad))),
                 Compare("=", Count("past", opener), Count("past", closer)))
    dim, _ = fc.compile(accept)
    b.notes.append("depth-lookup: gap >= 1/((n+1)n^2); match: gap >= 1/(2n^3); gamma(n) = 1/(2n^3)")
    model = finish(b, fc, dim, name or f"dyck-{k}", f"Dyck-{k} membership over {''.join(alphabet)}", False)
    model["temperature"] = DYCK_TEMPERATURE
    model["description"] = model["description"].replace(f"proposed temperature {fc.temperature()}",
                                                        f"proposed temperature {DYCK_TEMPERATURE}")
    return model

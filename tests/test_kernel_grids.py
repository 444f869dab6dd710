"""Kernel facts added for L-lookup / L-tiebreak-modulo heads: normal forms, grids, wide balls.

Each fact is checked against brute force on concrete numbers, so a wrong rule fails here
before it can make a certificate unsound.
"""
from __future__ import annotations

from fractions import Fraction

import pytest
from flint import ctx
from hypothesis import given, settings
from hypothesis import strategies as st

from certify.expr import BinOp, Num, Var, eval_exact, parse_expr
from certify.kernel.bounds import _pe_ball, _position_pieces, box_ball
from certify.kernel.polyid import ball_of, degree, integer_polynomial, is_zero, simplified
from certify.kernel.structure import Coord, _add, _finite, _scaled, pe_grid


def expr(text: str):
    return parse_expr(text, variables=("i", "n"), allow_log=True)


@pytest.mark.parametrize("text, zero", [("(n+1)^2 - n^2 - 2*n - 1", True), ("n/(n*n) - 1/n", True),
                                       ("(i+1)*(i-1) - i^2 + 1", True), ("n^2 - n", False), ("1/n - 1/(n+1)", False)])
def test_identities_are_exact(text, zero):
    assert is_zero(expr(text), ("i", "n")) is zero


@pytest.mark.parametrize("text, integral", [("n*(n+1)/2", True), ("i*(i-1)*(i-2)/6", True), ("n/2", False),
                                           ("(n^2+n)/n", True), ("1/(n+1)", False), ("n^3/3 - n/3", True)])
def test_integer_valued_polynomials(text, integral):
    assert integer_polynomial(expr(text), ("i", "n")) is integral
    if integral:  # brute force agrees
        assert all(eval_exact(expr(text), {"i": i, "n": n}).denominator == 1 for i in range(-5, 6) for n in range(1, 8))


def test_degrees_are_exact_after_cancellation():
    e = expr("((i+1)*n^2*(2*i - 1))/((i+1)*n^2)")
    assert degree(e, "n", ("i", "n")) == (0, 0) and degree(e, "i", ("i", "n")) == (1, 0)


@pytest.mark.parametrize("text", ["-2/(-2*i*n^2 - 2*n^2)", "(i/n)^2*n^2", "3 - n", "1/2/(1*n^3)"])
def test_simplified_is_the_same_function(text):
    e = expr(text)
    assert is_zero(BinOp("-", e, simplified(e)), ("i", "n"))


@pytest.mark.parametrize("pe, grid", [("i/n", "n"), ("(i/n)^2", "n^2"), ("1/(i+1)", "i+1"), ("i/n^3", "n^3"),
                                      ("1/((i+1)*(n+1))", "(i+1)*(n+1)"), ("i", "1")])
def test_position_embedding_grids(pe, grid):
    g = pe_grid(expr(pe))
    assert g is not None and is_zero(BinOp("-", g, expr(grid)), ("i", "n"))
    for n in range(1, 9):
        for i in range(0, n + 1):
            assert (eval_exact(expr(pe), {"i": i, "n": n}) * eval_exact(g, {"i": i, "n": n})).denominator == 1


def test_alternating_sign_has_no_grid_claim_beyond_integers():
    g = pe_grid(expr("(-1)^i"))
    assert g is None or all(eval_exact(g, {"i": i, "n": 3}).denominator == 1 for i in range(4))


def _holds(coord: Coord, value: Fraction, i: int, n: int) -> bool:
    """value·G − offset ∈ Z, the claim a grid coordinate makes."""
    g = eval_exact(coord.grid, {"i": i, "n": n})
    return (value * g - coord.offset).denominator == 1


@settings(max_examples=200, deadline=None)
@given(k=st.integers(-50, 50), b=st.sampled_from([0, 1]), i=st.integers(0, 20), n=st.integers(1, 20),
       coef=st.sampled_from([Fraction(1), Fraction(-1), Fraction(1, 2), Fraction(3, 2), Fraction(2)]))
def test_sums_and_scalings_keep_offsets_sound(k, b, i, n, coef):
    """u = (k + 1/2)/(i+1) has grid i+1 and offset 1/2; u + b and coef·u must keep a true claim
    (the old rule dropped the offset on a sum and claimed the sum was on the grid)."""
    u = Coord(grid=expr("i+1"), offset=Fraction(1, 2))
    u_value = (Fraction(k) + Fraction(1, 2)) / (i + 1)
    total = _add(u, _finite([0, 1], 0))
    assert total.grid is not None and _holds(total, u_value + b, i, n)
    scaled = _scaled(u, coef)
    assert scaled.grid is not None and _holds(scaled, coef * u_value, i, n)


def test_exact_position_embedding_scaled_by_a_half_gets_an_offset():
    """(1/2)·w with w = 1/((i+1)(n+1)): on the grid (i+1)(n+1) it sits at 1/2 (so it is never 0)."""
    w = Coord(pe=expr("1/((i+1)*(n+1))"), grid=expr("(i+1)*(n+1)"))
    half = _scaled(w, Fraction(1, 2))
    assert half.offset == Fraction(1, 2) and is_zero(BinOp("-", half.grid, expr("(i+1)*(n+1)")), ("i", "n"))


def test_wide_boxes_of_n_stay_positive():
    """Midpoint-radius products lose the sign of n^3 + n^2 on [4099, 8198]; the kernel must not."""
    with ctx.workprec(128):
        n = box_ball(4099, 8198)
        assert ball_of(expr("n^3 + n^2"), n) > 0
        assert ball_of(expr("1/(8*n^2*(n+1))"), n) > 0
        tau = expr("1/(8*n^2*(n+1)*log(n+2))")
        from certify.expr import eval_ball
        assert eval_ball(tau, {"n": n}) > 0


def test_positions_up_to_10_to_the_12_do_not_reach_a_pole():
    with ctx.workprec(128):
        pieces = _position_pieces(0, 10**12)
        assert all(p.lower() > -1 for p in pieces) and any(p.upper() >= 10**12 for p in pieces)
        ball = _pe_ball(expr("1/(i+1)"), {"i": pieces, "n": box_ball(10**12 - 5, 10**12)})
        assert ball.upper() >= 1 and -10**-8 < ball.lower() <= 10**-12  # no pole, a true (if loose) hull


def _two_movers(extra_terms=()) -> dict:
    """Layer 2 scores w_j + 1/(2(j+1)): w = a prefix mean (denominator ≤ j, a bound) and the PE
    1/(j+1) (grid j + 1) are two key grids that move with the key position."""
    return {"format": "hardsoft.model/1", "name": "two-movers", "alphabet": ["a", "b"], "bos": None,
            "dims": ["one", "q", "t_a", "t_b", "w", "v"],
            "embed": {"token": {"a": {"t_a": 1}, "b": {"t_b": 1}}, "position": {"one": "1", "q": "1/(i+1)"}},
            "layers": [{"type": "attention", "heads": [{"name": "mean", "hard": "average", "visible": "j<=i",
                                                        "score": [], "value": [["w", "t_a", 1]]}]},
                       {"type": "attention", "heads": [{"name": "pick", "hard": "average", "visible": "all",
                                                        "score": [["one", "w", 1], ["one", "q", "1/2"], *extra_terms],
                                                        "value": [["v", "t_b", 1]]}]}],
            "output": {"dim": "v", "position": "last", "threshold": "2"}}


def test_a_lattice_head_with_two_moving_key_grids_gets_a_gap_that_holds_on_words():
    """s_j·(j+1)·d(j) ∈ Z/2 (d(j) ≤ j, the mean's denominator over j keys): non-zero gaps ≥ 1/(2n²(n+1)²)."""
    from certify.audit import audit
    from certify.certifier import CertifyConfig, certify
    from certify.kernel.bounds import gap_lower_bounds
    from certify.kernel.checker import check
    from certify.kernel.structure import analyse
    from certify.model import model_from_dict
    from soundness import assert_certificate_holds, words_up_to

    model = model_from_dict(_two_movers())
    fact = analyse(model).facts[1][0]
    assert fact.kind == "gap" and len(fact.gammas) == 16
    least = min(abs(eval_exact(g, {"n": 7})) for g in gap_lower_bounds(fact))
    assert least == Fraction(1, 2 * 7 ** 2 * 8 ** 2)
    outcome = certify(model, 1, 1000, cfg=CertifyConfig(refute=False))
    assert outcome.verdict == "certified", outcome.blockers
    check(outcome.certificate, model)
    assert audit(outcome.certificate, model, max_len=7).ok  # the gap statement, on every word up to length 7
    words = words_up_to(model.alphabet, 1, 6, budget=200, random_words=5, random_max=40, seed=3)
    assert assert_certificate_holds(model, outcome.certificate["claim"], words) > 0


def test_four_moving_key_grids_are_past_the_lattice_rule():
    from certify.kernel.structure import MAX_MOVERS, Unsupported, analyse
    from certify.model import model_from_dict

    data = _two_movers()
    data["dims"] += ["r", "s"]
    data["embed"]["position"].update({"r": "1/(i+2)", "s": "1/(i+3)"})
    data["layers"][1]["heads"][0]["score"] += [["one", "r", 1], ["one", "s", 1]]
    assert MAX_MOVERS == 3
    with pytest.raises(Unsupported, match="key grids vary with the position"):
        analyse(model_from_dict(data))


MOVING = ("1/(i+1)", "1/(i+2)", "2/(i+3)", "i/n", "1/n")


def _moving_grid_model(seed: int):
    """Layer 2 of :func:`_two_movers` with 2–4 drawn terms over prefix means and PEs with moving or fixed grids."""
    import random

    from certify.model import model_from_dict

    rng = random.Random(seed)
    pes = rng.sample(MOVING, 2)
    data = _two_movers()
    data["dims"] += ["r", "s", "m2"]
    data["embed"]["position"].update({"r": pes[0], "s": pes[1]})
    data["layers"][0]["heads"].append({"name": "mean2", "hard": "average", "visible": rng.choice(["j<=i", "all"]),
                                       "score": [], "value": [["m2", "t_b", 1]]})
    terms = [[rng.choice(["one", "t_a", "t_b"]), k, rng.choice(["1", "-1", "1/2", "3", "-2/3"])]
             for k in rng.sample(["w", "q", "r", "s", "m2"], rng.randint(2, 4))]
    data["layers"][1]["heads"][0].update(score=terms, visible=rng.choice(["all", "j<=i", "j<i"]))
    return model_from_dict(data), terms, data["layers"][1]["heads"][0]


@pytest.mark.parametrize("seed", [4, 7])
def test_three_moving_grids_certify_to_a_million_and_hold(seed):
    """γ ~ 1/n⁶ over the wide boxes near 10⁶: γ/τ is re-bounded on halves of a box where one ball
    loses it, so these heads certify (were "error bound inf"); brute force and `check` agree."""
    from certify.certifier import CertifyConfig, certify
    from certify.kernel.checker import check
    from soundness import assert_certificate_holds, words_up_to

    model, _, _ = _moving_grid_model(seed)
    outcome = certify(model, 1, 10 ** 6, cfg=CertifyConfig(refute=False))
    assert outcome.verdict == "certified", outcome.blockers
    check(outcome.certificate, model)
    words = words_up_to(model.alphabet, 1, 6, budget=300, random_words=4, random_max=200, seed=seed)
    assert assert_certificate_holds(model, outcome.certificate["claim"], words) > 0


@pytest.mark.parametrize("seed", range(10))
def test_moving_key_grid_gaps_hold_on_every_short_word(seed):
    """Drawn layer-2 scores over prefix means (denominator ≤ j) and PEs with moving or fixed grids:
    every non-zero score gap of every row is at least the lattice rule's min |γ(n)| (exact, by brute force)."""
    import itertools

    from certify.evaluate import hard_run, visible_keys
    from certify.kernel.bounds import gap_lower_bounds
    from certify.kernel.structure import Unsupported, analyse

    model, terms, head = _moving_grid_model(seed)
    try:
        st = analyse(model)
    except Unsupported:
        pytest.skip("no rule covers this draw")
    fact = st.facts[1][0]
    if fact.kind != "gap" or not fact.gammas:
        pytest.skip(f"another rule ({fact.kind}) covers this draw")
    index = {d: k for k, d in enumerate(model.dims)}
    checked = 0
    for n in range(1, 7):
        gamma = min(abs(eval_exact(g, {"n": n})) for g in gap_lower_bounds(fact))
        for word in itertools.product(model.alphabet, repeat=n):
            rows = hard_run(model, word).streams[1]
            for i in range(1, n + 1):
                keys = visible_keys(head["visible"], i, 1, n)
                scores = [sum((Fraction(c) * rows[i - 1][index[q]] * rows[j - 1][index[k]] for q, k, c in terms),
                              Fraction(0)) for j in keys]
                for a, b in itertools.combinations(scores, 2):
                    assert a == b or abs(a - b) >= gamma, (word, i, a, b, gamma)
                    checked += 1
    assert checked > 0


def test_a_ball_that_is_not_finite_prints_as_an_infinite_bound():
    """derive_blockers reports an error bound that overflowed as "inf" (it used to stop with a traceback)."""
    from flint import arb

    from certify.kernel.records import lower, upper

    assert upper(arb("inf")) == "inf" and upper(arb(0, float("inf"))) == "inf" and lower(arb("nan")) == "-inf"
    assert upper(arb(1) / 3) == "0.333333333334"

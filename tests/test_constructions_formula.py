"""Issue 5: the formula language (syntax, errors with columns) and its reference semantics."""
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certify.errors import UserError
from proofs.constructions.formula import (Add, And, Compare, Const, Count, FormulaError, Int, Mon, Next, Not, Or,
                                          Prev, Scale, Since, Sym, Until, evaluate, parse_formula, to_text)

A, B, C = Sym("a"), Sym("b"), Sym("c")


@pytest.mark.parametrize("text, ast", [
    ("'a'", A),
    ("true", Const(True)),
    ("not 'a' and 'b'", And(Not(A), B)),
    ("'a' or 'b' and 'c'", Or(A, And(B, C))),
    ("'a' since 'b' since 'c'", Since(Since(A, B), C)),
    ("'a' since 'b' until 'c'", Until(Since(A, B), C)),
    ("prev 'a' since next 'b'", Since(Prev(A), Next(B))),
    ("not prev next 'a'", Not(Prev(Next(A)))),
    ("'a' and 'b' since 'c'", And(A, Since(B, C))),
    ("('a' or 'b') and 'c'", And(Or(A, B), C)),
    ("first or last and even or odd", Or(Or(Mon("first"), And(Mon("last"), Mon("even"))), Mon("odd"))),
    ("#past['a'] > #future['b']", Compare(">", Count("past", A), Count("future", B))),
    ("3*#past['a'] - 2 <= #past['b'] + 1",
     Compare("<=", Add(Scale(3, Count("past", A)), Scale(-1, Int(2))), Add(Count("past", B), Int(1)))),
    ("(#past['a'] + 1) = 2 and 'c'", And(Compare("=", Add(Count("past", A), Int(1)), Int(2)), C)),
    ("not #past['a' or 'b'] >= 2", Not(Compare(">=", Count("past", Or(A, B)), Int(2)))),
    ("((('a')))", A),
])
def test_parse_precedence(text, ast):
    assert parse_formula(text) == ast


@pytest.mark.parametrize("text, column", [
    ("'a' since", 10),
    ("'a' and and 'b'", 9),
    ("#past['a' > 1", 11),
    ("(('a')", 7),
    ("'a' 'b'", 5),
    ("a", 1),
    ("'a' & 'b'", 5),
    ("#past['a'] >", 13),
    ("#past['a'] * #past['b'] > 1", 14),
    ("'a", 1),
])
def test_parse_errors_point_at_the_column(text, column):
    with pytest.raises(FormulaError) as exc:
        parse_formula(text)
    assert isinstance(exc.value, UserError)
    assert str(exc.value).startswith(f"column {column}:"), str(exc.value)


def test_reference_semantics_examples():
    w = tuple("abcab")
    assert evaluate(Prev(A), w) == [False, True, False, False, True]
    assert evaluate(Next(B), w) == [True, False, False, True, False]
    # a S b at i: some j < i has b, and every k in (j, i) has a
    assert evaluate(Since(A, B), tuple("babcc")) == [False, True, True, True, False]
    assert evaluate(Until(A, B), tuple("aab")) == [True, True, False]
    assert evaluate(Mon("first"), w) == [True, False, False, False, False]
    assert evaluate(Mon("last"), w) == [False, False, False, False, True]
    assert evaluate(Mon("even"), w) == [False, True, False, True, False]
    assert evaluate(parse_formula("#past['a'] > #future['b']"), w) == [False, False, False, True, True]
    assert evaluate(parse_formula("2*#past['a'] = #past['b'] + 1"), tuple("bab")) == [False, True, False]


def _since_brute(phi, psi):
    n = len(phi)
    return [any(psi[j] and all(phi[k] for k in range(j + 1, i)) for j in range(i)) for i in range(n)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from("abc"), min_size=1, max_size=10))
def test_since_until_match_their_definitions(word):
    w = tuple(word)
    phi, psi = evaluate(Or(A, C), w), evaluate(B, w)
    assert evaluate(Since(Or(A, C), B), w) == _since_brute(phi, psi)
    rev = w[::-1]
    assert evaluate(Until(Or(A, C), B), w) == _since_brute(evaluate(Or(A, C), rev), evaluate(B, rev))[::-1]
    # #past[a] + #future[a] counts position i twice: = total + a(i)
    both = evaluate(parse_formula("#past['a'] + #future['a'] - 1 >= #past[true] - #past[true] + 0"), w)
    assert both == [w.count("a") + (x == "a") - 1 >= 0 for x in w]


FORMULAS = ["'a' since not ('b' until 'c')", "prev (next 'a' or first) and not last",
            "#past['a'] + 2 > 3*#future[prev 'b'] - 1", "even and (true until odd)"]


@pytest.mark.parametrize("text", FORMULAS)
def test_to_text_round_trips(text):
    f = parse_formula(text)
    assert parse_formula(to_text(f)) == f
    for w in itertools.product("abc", repeat=4):
        assert evaluate(parse_formula(to_text(f)), w) == evaluate(f, w)

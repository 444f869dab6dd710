"""Certificates for every length (issue 16): the kernel's tail walk proves [N₀, ∞) at once."""
from __future__ import annotations

import copy
import math
import random
from fractions import Fraction
from pathlib import Path

import pytest

from certify.expr import BinOp, Num
from certify.kernel.polyid import simplified
from flint import arb, ctx
from hypothesis import given, settings
from hypothesis import strategies as st

from certify.certifier import CertifyConfig, certify
from certify.expr import Num, eval_ball, parse_expr, to_text
from certify.kernel.bounds import analyse_box
from certify.kernel.checker import CheckFailure, check
from certify.kernel.structure import analyse
from certify.kernel.tail import (Mono, add, analyse_tail, maximum, mul, pe_range, rational, scale_inf, scale_sup,
                                 with_logs)
from certify.model import load_model
from soundness import tampered

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "models"
NEGATIVES = ROOT / "tests" / "negative_models" / "tail"
CHEAP = ["since-a-b.json", "exists-b.json", "compiled/counting-majority-bounded.json",
         "compiled/tl-prev-next-unbounded.json"]


def _value(m: Mono, n: int) -> arb:
    """The enclosure at one n: c·n^a·(log n)^b."""
    with ctx.workprec(128):
        return m.c * (arb(m.a.numerator) / m.a.denominator * arb(n).log()).exp() * arb(n).log() ** m.b


@pytest.fixture(scope="module")
def since_inf():
    model = load_model(MODELS / "since-a-b.json")
    outcome = certify(model, 1, "inf")
    assert outcome.verdict == "certified", outcome.reason
    return model, outcome.certificate


@pytest.mark.parametrize("name", CHEAP)
def test_cheap_shipped_models_certify_for_every_length_with_the_1e12_schedule(name):
    model = load_model(MODELS / name)
    finite, unbounded = certify(model, 1, 10**12), certify(model, 1, "inf")
    assert unbounded.verdict == "certified", unbounded.reason
    # the 1e12 schedule, or (a derived one) a colder κ of the same shape when its tail does not settle
    same = to_text(unbounded.tau) == to_text(finite.tau)
    ratio = simplified(BinOp("/", unbounded.tau, finite.tau))
    assert same or isinstance(ratio, Num) and 0 < ratio.value <= 1, (to_text(unbounded.tau), to_text(finite.tau))
    cert = unbounded.certificate
    assert cert["claim"]["n_max"] == "inf" and cert["tail"]["n"] == [10**12 + 1, "inf"]
    assert cert["boxes"][-1]["n"][1] == 10**12 and {o["id"] for o in cert["obligations"]} >= {"tau", "tail"}
    assert check(cert, model).boxes == len(cert["boxes"])


@pytest.mark.slow
@pytest.mark.parametrize("path", sorted(str(p.relative_to(MODELS)) for p in MODELS.rglob("*.json") if "srasp" not in p.parts))
def test_every_shipped_model_certifies_for_every_length(path):
    """The model's own temperature is certified for every length as it is to 10^12; a derived one (no
    proposal) may be a colder κ of the same shape (issue 16: "the same schedule or a colder one")."""
    model = load_model(MODELS / path)
    finite, unbounded = certify(model, 1, 10**12), certify(model, 1, "inf")
    assert unbounded.verdict == "certified"
    if model.temperature is not None or to_text(unbounded.tau) == to_text(finite.tau):
        assert to_text(unbounded.tau) == to_text(finite.tau)
    else:
        ratios = [eval_ball(unbounded.tau, {"n": arb(n)}) / eval_ball(finite.tau, {"n": arb(n)})
                  for n in (1, 10**3, 10**12)]
        assert all(r.upper() <= 1 for r in ratios) and ratios[0].overlaps(ratios[-1])
    check(unbounded.certificate, model)


@pytest.mark.parametrize("path, value", [
    (("tail", "leak_upper", "rightmost-p"), "0.1"),
    (("tail", "n"), [10**6, "inf"]),
    (("tail", "n"), [10**12 + 2, "inf"]),
    (("tail", "n"), [10**12 + 1, 10**13]),
    (("tail", "error_upper"), "1"),
    (("tail", "exact"), True),  # since-a-b's all-n error is 0.498 at 23/(32n): not exact
    (("tail", "margin_lower"), "0.75"),
    (("claim", "margin"), "0.75"),
])
def test_a_tampered_tail_fails_the_check(since_inf, path, value):
    model, cert = since_inf
    with pytest.raises(CheckFailure):
        check(tampered(cert, path, value), model)


def test_a_certificate_without_its_tail_or_with_a_moved_cover_fails(since_inf):
    model, cert = since_inf
    for mutate in (lambda c: c.pop("tail"), lambda c: c["boxes"].pop(),
                   lambda c: c["obligations"].pop(next(k for k, o in enumerate(c["obligations"]) if o["id"] == "tail")),
                   lambda c: c["claim"].update(n_max=10**12)):
        bad = copy.deepcopy(cert)
        mutate(bad)
        with pytest.raises(CheckFailure):
            check(bad, model)


@pytest.mark.parametrize("name, head", [("exists-b-constant-tau.json", "any-b"),
                                        ("since-constant-tau.json", "rightmost-p")])
def test_a_leak_that_grows_beyond_the_cover_is_never_certified_for_all_n(name, head):
    """Constant τ: γ/τ does not grow, so N·e^(−γ/τ) (gap) or 1/(e^(A/τ) − 1) with A = 1/(2n) (ziggurat) grows
    without limit; both hold up to 10^12 (true there) but fail near 10^13–10^14, and the tail names the head."""
    model = load_model(NEGATIVES / name)
    assert certify(model, 1, 10**12).verdict == "certified"
    outcome = certify(model, 1, "inf")
    assert outcome.verdict == "not proved" and outcome.certificate is None
    assert outcome.blockers and head in outcome.blockers[0] and "does not settle" in outcome.blockers[0]


def test_the_gap_one_over_n_squared_at_tau_one_over_n_is_never_certified():
    model = load_model(NEGATIVES / "gap-n-squared.json")
    for n_max in (10**6, "inf"):
        assert certify(model, 1, n_max).verdict != "certified"
    st_ = analyse(model)
    report = analyse_tail(model, st_, parse_expr("1/n", variables=("n",)), 1000)
    assert not report.ok and report.heads[0].leak.a == 1  # N·e^(−1/n) ≥ n/e: grows like n


def test_the_tail_alone_refuses_a_hot_schedule_that_the_cover_accepts():
    """N₀ small: exists-b at τ = 1/30 passes every box up to N₀ − 1 = 2^12 but not the tail."""
    model = load_model(NEGATIVES / "exists-b-constant-tau.json")
    outcome = certify(model, 1, "inf", cfg=CertifyConfig(tail_start=2**12 + 1))
    assert outcome.verdict == "not proved" and "for n ≥ 4097" in outcome.reason


def test_not_proved_json_names_the_quantity(capsys):
    from certify.cli import main
    import json

    rc = main([str(NEGATIVES / "since-constant-tau.json"), "--nmax", "inf", "--quiet", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 2 and out["verdict"] == "not proved" and "rightmost-p" in out["blockers"][0]


@pytest.mark.parametrize("name", ["since-a-b.json", "exists-b.json", "compiled/counting-mon-bounded.json",
                                  "compiled/tl-prev-next-unbounded.json", "bos-first-a.json"])
def test_tail_leak_bounds_dominate_the_box_bounds_at_every_probed_length(name):
    """Soundness cross-check: with N₀ = 100 the tail's closed-form leak bound at n is ≥ the box bound at [n, n]."""
    model = load_model(MODELS / name)
    st_ = analyse(model)
    tau = model.temperature or certify(model, 1, 100).tau
    tail = analyse_tail(model, st_, tau, 100)
    for n in (100, 101, 1000, 12345, 10**6, 10**9, 10**12):
        box = analyse_box(model, st_, tau, n, n)
        for th, hb in zip(tail.heads, box.heads):
            assert th.name == hb.name
            assert not _value(th.leak, n).upper() < hb.leak.upper(), (name, th.name, n)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=1, max_size=4), st.lists(st.integers(1, 5), min_size=1, max_size=3),
       st.integers(0, 40))
def test_rational_enclosures_hold_at_sampled_lengths(num, den, shift):
    text = lambda cs: " + ".join(f"({c})*n^{k}" for k, c in enumerate(cs))
    e = parse_expr(f"({text(num)})/(({text(den)})*(n + 1))", variables=("n",))
    n0 = 50 + shift
    m = rational(e, n0)
    from certify.expr import eval_exact

    for k in (n0, n0 + 1, 2 * n0 + 3, 10**4, 10**8):
        exact = eval_exact(e, {"n": k})
        assert _value(m, k).contains(arb(exact.numerator) / exact.denominator), (to_text(e), k)


@settings(max_examples=80, deadline=None)
@given(st.fractions(-4, 4, max_denominator=8), st.integers(-4, 4), st.sampled_from([3, 10, 100, 10**6]))
def test_scale_extrema_bound_every_sampled_length(alpha, beta, n0):
    top, low = scale_sup(alpha, beta, n0), scale_inf(alpha, beta, n0)
    samples = [n0, n0 + 1, int(n0 * 1.7) + 2, n0 * 50, n0 * 10**4, 10**15]
    samples += [int(math.exp(float(-Fraction(beta) / alpha))) + d for d in (-1, 0, 1)
                if alpha and 0 < -Fraction(beta) / alpha < 30 and math.exp(float(-Fraction(beta) / alpha)) > n0 + 1]
    for n in samples:
        v = _value(Mono(arb(1), alpha, beta), n)
        assert top is None or not v.lower() > top.upper(), (alpha, beta, n0, n)
        assert not v.upper() < low.lower(), (alpha, beta, n0, n)
    if alpha > 0 or alpha == 0 and beta > 0:
        assert top is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.fractions(0, 3, max_denominator=4), st.fractions(-3, 2, max_denominator=4),
                          st.integers(-2, 2)), min_size=2, max_size=4))
def test_sums_products_and_maxima_enclose_pointwise(terms):
    n0 = 64
    monos = [Mono(arb(c.numerator) / c.denominator, a, b) for c, a, b in terms]
    s, p, mx = monos[0], monos[0], monos[0]
    for m in monos[1:]:
        s, p, mx = add(s, m, n0), mul(p, m), maximum(mx, m, n0)
    for n in (64, 65, 200, 10**5, 10**10):
        values = [_value(m, n) for m in monos]
        assert not _value(s, n).upper() < sum(values, arb(0)).lower()
        prod = arb(1)
        for v in values:
            prod *= v
        assert not _value(p, n).upper() < prod.lower()
        assert not _value(mx, n).upper() < max(v.lower() for v in values)


@pytest.mark.parametrize("pe, bound", [("i/n", 1), ("1/(i+1)", 1), ("(i/n)^2", 1), ("1/((i+1)*(n+1))", 1),
                                       ("(-1)^i", 1), ("i/n^3", 1)])
def test_position_embedding_magnitudes_hold_on_every_row(pe, bound):
    e = parse_expr(pe, variables=("i", "n"))
    r = pe_range(e, 100)
    from certify.model import position_embedding  # noqa: F401  (the PE semantics: i from first to n)
    from certify.expr import eval_exact

    rng = random.Random(0)
    for n in (100, 101, 1000, 10**6):
        for i in {0, 1, n // 2, n - 1, n, rng.randint(0, n)}:
            v = eval_exact(e, {"i": i, "n": n})
            assert _value(r.mag, n).upper() >= abs(v.numerator) / v.denominator
            assert r.hull is not None and r.hull.contains(arb(v.numerator) / v.denominator)


def test_unbounded_pe_has_no_constant_hull_and_schedules_split_their_logs():
    r = pe_range(parse_expr("i*(n+1)^2", variables=("i", "n")), 100)
    assert r.hull is None and r.mag.a == 3
    m = with_logs(Num(Fraction(1)), parse_expr("1/(4*(n+1)*log(n+2))", variables=("n",), allow_log=True), 10**6)
    assert (m.a, m.b) == (1, 1)
    for n in (10**6, 10**9):
        assert _value(m, n).contains(arb(4 * (n + 1)) * arb(n + 2).log())


def _words(alphabet, n: int, random_words: int, seed: int):
    """The all-first-symbol word, one last symbol changed, one first symbol changed, then random words."""
    rng = random.Random(seed)
    yield tuple(alphabet[0] for _ in range(n))
    yield tuple(alphabet[0] for _ in range(n - 1)) + (alphabet[-1],)
    yield (alphabet[-1],) + tuple(alphabet[0] for _ in range(n - 1))
    for _ in range(random_words):
        yield tuple(rng.choice(alphabet) for _ in range(n))


@pytest.mark.slow
@pytest.mark.parametrize("name, n, count", [("exists-b.json", 1000, 4), ("since-a-b.json", 1000, 4),
                                            ("transduction-prev-a.json", 1000, 4), ("exists-b.json", 2000, 1),
                                            ("bos-first-a.json", 3000, 1)])
def test_all_n_schedules_agree_with_brute_force_at_lengths_in_the_thousands(name, n, count):
    """Exact hard run against mpmath softmax at the certified all-n schedule (adversarial and random words):
    the decisions agree and |soft − hard| is within the claimed error bound."""
    from certify.evaluate import hard_run, soft_run

    model = load_model(MODELS / name)
    outcome = certify(model, 1, "inf")
    assert outcome.verdict == "certified"
    bound = Fraction(outcome.certificate["claim"]["error_bound"])
    for word in list(_words(list(model.alphabet), n, 1, seed=n))[:count]:
        hard, soft = hard_run(model, word), soft_run(model, word, outcome.tau, dps=20)
        assert hard.decisions == soft.decisions, (name, n, to_text(outcome.tau))
        for h, s in zip(hard.outputs, soft.outputs):
            assert abs(float(s) - float(h)) <= float(bound) + 1e-12, (name, n, word[:5])


@pytest.mark.parametrize("name", ["since-a-b.json", "exists-b.json", "bos-first-a.json", "transduction-prev-a.json",
                                  "unbounded-since-a-b.json", "compiled/tl-prev-next-bounded.json",
                                  "compiled/counting-majority-unbounded.json"])
def test_a_tail_from_n0_5_holds_by_brute_force_and_audit(name):
    """N₀ = 5: the tail alone claims every n ≥ 5, so short words test it directly — exact hard runs against
    mpmath softmax (decisions and the tail's error bound) and the fact audit of the tail's numbers at n."""
    from certify.audit import AuditConfig, audit
    from soundness import assert_certificate_holds, words_up_to

    model = load_model(MODELS / name)
    outcome = certify(model, 1, "inf", cfg=CertifyConfig(tail_start=5))
    assert outcome.verdict == "certified" and outcome.certificate["tail"]["n"][0] == 5
    words = list(words_up_to(list(model.alphabet), 5, 12, budget=200, random_words=8, random_max=24, seed=5))
    assert assert_certificate_holds(model, outcome.certificate["claim"], words) == len(words)
    result = audit(outcome.certificate, model, cfg=AuditConfig(exhaustive_budget=200, random_words=8,
                                                               random_max_len=20, soft_words=20))
    assert result.ok, result.failure


TAIL_SWEEP = CertifyConfig(refute=False, tail_start=4)  # boxes [1, 3], the tail claims every n ≥ 4


def _tail_sweep_one(model, counts, seed: int) -> None:
    from certify.audit import AuditConfig, audit
    from soundness import assert_certificate_holds, words_up_to

    outcome = certify(model, 1, "inf", cfg=TAIL_SWEEP)
    counts[outcome.verdict] += 1
    if outcome.verdict != "certified":
        return
    if "tail" in outcome.certificate:
        counts["tail"] += 1
    words = words_up_to(model.alphabet, 4, 8, budget=300, random_words=4, random_max=16, seed=seed)
    assert assert_certificate_holds(model, outcome.certificate["claim"], words) > 0
    result = audit(outcome.certificate, model, cfg=AuditConfig(exhaustive_budget=200, random_words=4,
                                                               random_max_len=16, soft_words=8))
    assert result.ok, result.failure


def test_tails_from_n0_4_of_adversarial_models_hold_by_brute_force():
    """Soundness sweep of the tail itself: adversarial pipeline models (tests/adversarial_models.py) whose tail
    starts at 4 are brute-forced on words of length 4..16 wherever the tail certified them."""
    from collections import Counter

    from adversarial_models import adversarial_model
    from certify.model import model_from_dict

    rng, counts = random.Random(16), Counter()
    for k in range(30):
        _tail_sweep_one(model_from_dict(adversarial_model(rng, k)), counts, k)
    assert counts["tail"] >= 4, counts  # measured: 6 of 30 (the other 24 fail on structure or the boxes)


@pytest.mark.parametrize("path", sorted((ROOT / "tests" / "fixtures" / "coverage").glob("*.json")), ids=lambda p: p.stem)
def test_the_outside_coverage_examples_certify_for_every_length(path):
    model = load_model(path)
    outcome = certify(model, 1, "inf")
    assert outcome.verdict == "certified", outcome.blockers
    check(outcome.certificate, model)


@pytest.mark.parametrize("name, tau", [("exists-b.json", "1/10"), ("exists-b.json", "1/60"),
                                       ("since-a-b.json", "1/1000"), ("bos-first-a.json", "1/100"),
                                       ("compiled/ahat-past-vs-future-bounded.json", "1/(4*(n + 1)^2)"),
                                       ("compiled/tl-prev-next-bounded.json", "1/log(n + 2)")])
def test_schedules_whose_leakage_grows_without_limit_are_never_certified_for_all_n(name, tau):
    """τ too hot for the head's gap or lattice step by more than a constant: γ/τ or |A|/τ does not grow like
    log n, so the bound N·e^(−γ/τ) or 1/(e^(|A|/τ) − 1) grows with n; whatever the boxes say, never all n."""
    model = load_model(MODELS / name)
    outcome = certify(model, 1, "inf", tau=parse_expr(tau, variables=("n",), allow_log=True))
    assert outcome.verdict != "certified" and outcome.certificate is None

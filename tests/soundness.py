"""Brute-force oracle for certificates: exact hard vs mpmath soft on many words."""
from __future__ import annotations

import copy
import itertools
import random
from fractions import Fraction

import mpmath

from certify.evaluate import hard_run, soft_run
from certify.expr import parse_expr

TOLERANCE = mpmath.mpf(10) ** -40


def words_up_to(alphabet, n_min: int, n_max: int, budget: int, random_words: int, random_max: int, seed: int = 0):
    for n in range(n_min, n_max + 1):
        if len(alphabet) ** n > budget:
            break
        budget -= len(alphabet) ** n
        yield from itertools.product(alphabet, repeat=n)
    rng = random.Random(seed)
    for _ in range(random_words):
        yield tuple(rng.choice(alphabet) for _ in range(rng.randint(n_min, random_max)))


def assert_certificate_holds(model, claim: dict, words) -> int:
    """Every word: same decisions, and |soft − hard| ≤ the claimed error bound at every output.  A hard
    output exactly on θ is certified only at a row where soft = hard exactly (exact_unless), whose decision
    60 digits cannot show (mpmath rounds θ either way): there soft must be θ to the tolerance."""
    tau = parse_expr(claim["tau"], variables=("n",), allow_log=True)
    bound = mpmath.mpf(Fraction(claim["error_bound"]).numerator) / Fraction(claim["error_bound"]).denominator
    count = 0
    for word in words:
        n = len(word)
        if not claim["n_min"] <= n <= (claim["n_max"] if claim["n_max"] != "inf" else n):
            continue
        hard = hard_run(model, word)
        soft = soft_run(model, word, tau, dps=60)
        theta = model.output.threshold
        with mpmath.workdps(60):
            on = [not model.output.argmax and h == theta for h in hard.outputs]
            assert all(hd == sd or tie and abs(s - mpmath.mpf(theta.numerator) / theta.denominator) <= TOLERANCE
                       for hd, sd, s, tie in zip(hard.decisions, soft.decisions, soft.outputs, on)), \
                (word, hard.outputs, soft.outputs, claim["tau"])
            for h, s in zip(hard.outputs, soft.outputs):
                exact = mpmath.mpf(h.numerator) / h.denominator
                assert abs(s - exact) <= bound + TOLERANCE, (word, h, s, claim)
        count += 1
    return count


def tampered(certificate: dict, path: tuple, value) -> dict:
    """A deep copy of the certificate with the entry at ``path`` (keys and indices) set to ``value``:
    the checker must reject every such edit of a recorded fact."""
    bad = copy.deepcopy(certificate)
    target = bad
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return bad


def rule_sweep(make, seed: int, count: int, n_max: int, marked, audit_len: int | None = None, audit_cfg=None,
               budget: int = 300, random_words: int = 6, random_max: int = 120) -> tuple[int, int]:
    """(certificates, of them those ``marked`` says use the rule aimed at) over ``count`` models drawn by
    ``make(rng, k)``; every certificate brute-forced (and, with ``audit_len``, audited on words up to it)."""
    from certify.audit import AuditConfig, audit
    from certify.certifier import CertifyConfig, certify
    from certify.model import model_from_dict

    rng, certified, hits = random.Random(seed), 0, 0
    for k in range(count):
        model = model_from_dict(make(rng, k))
        outcome = certify(model, 1, n_max, cfg=CertifyConfig(refute=False))
        if outcome.verdict != "certified":
            continue
        certified += 1
        hits += marked(outcome.certificate)
        assert audit_len is None or audit(outcome.certificate, model, max_len=audit_len,
                                          cfg=audit_cfg or AuditConfig(random_words=4)).ok
        words = words_up_to(model.alphabet, 1, 6, budget=budget, random_words=random_words,
                            random_max=min(n_max, random_max), seed=k)
        assert_certificate_holds(model, outcome.certificate["claim"], words)
    return certified, hits

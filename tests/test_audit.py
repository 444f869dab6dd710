"""``certify check --audit``: the certificate's facts tested on concrete words (issue 11)."""
from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from certify.audit import AuditConfig, audit, words_to_audit
from certify.certifier import certify
from certify.model import load_model
from certify.model import model_from_dict as load_model_dict

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "soundness"
ORIGINALS = ("offset-drop", "distinct-offset2", "mean-offset2")
SMALL = AuditConfig(random_words=5, random_max_len=12)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "certify.cli", *args], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("name", ORIGINALS)
def test_audit_flags_the_old_kernels_certificate(name):
    """The certificates the kernel of 32aa02c issued (and its checker accepted) fail the audit."""
    run = _cli("check", str(FIXTURES / f"{name}.cert.json"), "--model", str(FIXTURES / f"{name}.json"),
               "--audit", "--max-len", "6", "--random", "0", "--json")
    assert run.returncode == 1, run.stdout + run.stderr
    report = json.loads(run.stdout)
    assert report["audit"]["passed"] is False
    assert report["audit"]["failure"]["n"] <= 3 and report["audit"]["failure"]["word"]


@pytest.mark.parametrize("name", ORIGINALS)
def test_audit_names_the_dropped_offset(name):
    """With the facts the old kernel derived recorded, the first failing fact is the grid without its offset."""
    cert = json.loads((FIXTURES / f"{name}.buggy-facts.cert.json").read_text())
    result = audit(cert, load_model(FIXTURES / f"{name}.json"), max_len=3, cfg=SMALL)
    assert not result.ok
    assert result.failure.fact == "facts.coords[after 1 layers, w]"
    assert result.failure.n == 1 and "is not in Z + 0" in result.failure.detail


def test_cli_audit_text_names_fact_word_and_position():
    run = _cli("check", str(FIXTURES / "offset-drop.buggy-facts.cert.json"), "--model",
               str(FIXTURES / "offset-drop.json"), "--audit", "--max-len", "3", "--random", "0")
    assert run.returncode == 1
    assert "audit: FAILED: facts.coords[after 1 layers, w] fails on 'a' (n = 1) at position 1" in run.stdout


@pytest.fixture(scope="module")
def since():
    model = load_model(ROOT / "models" / "since-a-b.json")
    return model, certify(model, 1, 40).certificate


def test_valid_certificate_passes_the_audit(since, tmp_path):
    model, cert = since
    path = tmp_path / "since.cert.json"
    path.write_text(json.dumps(cert))
    run = _cli("check", str(path), "--model", str(ROOT / "models" / "since-a-b.json"), "--audit",
               "--max-len", "5", "--random", "20", "--json")
    assert run.returncode == 0, run.stdout
    report = json.loads(run.stdout)
    assert report["valid"] and report["audit"]["passed"] and report["audit"]["words"] == 3 + 9 + 27 + 81 + 243 + 20


def _tampered(cert, edit):
    bad = copy.deepcopy(cert)
    edit(bad)
    return bad


def _grid_fact(cert):
    return next(c for c in cert["facts"]["coords"] if c.get("grid") == "n")


TAMPERING = {
    "grid offset": (lambda c: _grid_fact(c).update(offset="1/2"), "facts.coords"),
    "value set": (lambda c: c["facts"]["coords"][1].update(values=["1"]), "facts.coords"),
    "level width": (lambda c: c["facts"]["heads"][0]["statements"][0].update(width="2/n"), "facts.heads"),
    "leak bound": (lambda c: [b["leak_upper"].update({k: "1e-300" for k in b["leak_upper"]}) for b in c["boxes"]],
                   "leak_upper"),
    "margin": (lambda c: [b.update(margin_lower="0.75") for b in c["boxes"]], "margin_lower"),
}


@pytest.mark.parametrize("what", TAMPERING)
def test_audit_catches_a_false_statement(since, what):
    model, cert = since
    edit, where = TAMPERING[what]
    result = audit(_tampered(cert, edit), model, max_len=4, cfg=SMALL)
    assert not result.ok and where in result.failure.fact, result.failure


def test_default_word_set_is_every_word_while_sigma_to_the_n_is_at_most_50000():
    model = load_model(ROOT / "models" / "majority-a-b.json")  # binary: lengths 1..15 exhaustively
    words = list(words_to_audit(model, 1, 10**6, None, AuditConfig(random_words=7)))
    exhaustive = [w for w in words[:-7]]
    assert len(exhaustive) == sum(2**n for n in range(1, 16)) and max(map(len, exhaustive)) == 15
    assert all(1 <= len(w) <= 64 for w in words[-7:])
    assert list(words_to_audit(model, 1, 10, 3, AuditConfig(random_words=0))) == \
        [w for w in exhaustive if len(w) <= 3]


def test_maxima_same_value_reads_the_value_each_key_adds_per_out_dim():
    """A head writing w1 += t_b − t_b (two value terms into one dim) adds 0 at every key, so its maxima share
    one value; the audit compared the terms one by one ((1, −1) against (0, 0)) and rejected a true fact on
    'baaa' (found by an adversarial campaign, 2026-12-04).  A forged claim on a head whose maxima really
    differ is still rejected."""
    model = load_model(ROOT / "tests" / "fixtures" / "outside" / "split-value-terms.json")
    outcome = certify(model, 1, 250)
    assert outcome.verdict == "certified"
    statements = [s["kind"] for h in outcome.certificate["facts"]["heads"] for s in h["statements"]]
    assert "maxima_same_value" in statements
    assert audit(outcome.certificate, model, max_len=5, cfg=SMALL).ok
    data = json.loads((ROOT / "tests" / "fixtures" / "outside" / "split-value-terms.json").read_text())
    data["layers"][0]["heads"][0]["value"] = [["w1", "t_b", 1], ["w1", "t_b", -1], ["w1", "t_a", 1]]
    changed = load_model_dict(data)
    forged = copy.deepcopy(outcome.certificate)
    forged["facts"]["coords"] = []  # the head statement alone (w1's value set would fail first)
    failure = audit(forged, changed, max_len=5, cfg=SMALL).failure
    assert failure is not None and "maxima_same_value" in failure.fact, failure


def test_the_confirmation_keeps_the_sign_of_a_negative_soft_value():
    """mpmath's ``man_exp`` drops the sign (mpf(-0.5).man_exp == (1, -1)), so the audit once confirmed a soft
    −1/2 as +1/2 and failed a true span fact (the drawn ffnh-40 of the slow range sweep: w0 − ReLU(w0 + 1/2) is
    −1/2 in hard and soft alike, its float64 value a rounding above).  The exact value keeps the sign."""
    import mpmath
    from fractions import Fraction

    from certify.audit import _mp_fraction
    from certify.certifier import CertifyConfig

    assert [_mp_fraction(mpmath.mpf(x)) for x in ("-0.5", "-3", "0", "2.25")] == \
        [Fraction(-1, 2), Fraction(-3), Fraction(0), Fraction(9, 4)]
    model = load_model(ROOT / "tests" / "fixtures" / "outside" / "negative-span-value.json")
    outcome = certify(model, 1, 250, cfg=CertifyConfig(refute=False))
    assert outcome.verdict == "certified"
    assert audit(outcome.certificate, model, max_len=5, cfg=AuditConfig(random_words=4)).ok

"""Shared pytest configuration: the ``slow`` marker (CI runs ``-m "not slow"``), and the fact audit of
every certificate the tests produce in-process (issue 11: the suite audits every certificate it makes)."""
from __future__ import annotations

import pytest

from certify import certifier
from certify.audit import AuditConfig, audit

# Small on purpose: every certificate of the suite goes through it.  All words while |Σ|^n ≤ 64 and a
# few random ones up to 16: the three unsound certificates of issue 11 failed their facts at n = 1.
SUITE_AUDIT = AuditConfig(exhaustive_budget=64, random_words=3, random_max_len=16, soft_words=12)


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: takes more than ~20 s; CI skips it with -m 'not slow'")


@pytest.fixture(autouse=True, scope="session")
def audit_every_certificate():
    """Wrap the certifier's certificate builder: a certificate whose facts fail on a concrete word fails
    the test that produced it, whatever that test asserts."""
    def audited(build):
        def wrapped(model, *args, **kwargs):
            cert = build(model, *args, **kwargs)
            result = audit(cert, model, cfg=SUITE_AUDIT)
            assert result.ok, f"fact audit of a certificate for {model.name!r}: {result.failure}"
            return cert
        return wrapped

    with pytest.MonkeyPatch.context() as patch:  # session-wide: module fixtures' certificates too
        patch.setattr(certifier, "build_certificate", audited(certifier.build_certificate))
        patch.setattr(certifier, "build_exhaustive_certificate", audited(certifier.build_exhaustive_certificate))
        yield

"""Imported tracr models that the kernel certifies: the claims are true on every word (issue 13).

``frac_prevs`` (a numerical average head) certifies for every length up to max_seq_len once the
joint-value gap rule and a bounded model's mean value sets are in the kernel; each certified claim
is brute-forced here on every word up to the model's max_length.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from certify.certifier import CertifyConfig, certify
from certify.kernel.checker import check
from certify.model import model_from_dict
from certify.tracr_import import convert, load_export
from soundness import assert_certificate_holds, words_up_to

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "tracr"


@pytest.mark.parametrize("name", ["frac_prevs-ab-5", "frac_prevs-ab-10"])
def test_frac_prevs_certifies_every_length_and_the_claim_holds(name):
    model = model_from_dict(convert(load_export(FIXTURES / name)))
    top = model.max_length
    outcome = certify(model, 1, top, cfg=CertifyConfig(refute=False))
    assert outcome.verdict == "certified", outcome.blockers
    check(outcome.certificate, model)
    words = words_up_to(model.alphabet, 1, top, budget=2000 if top <= 5 else 300, random_words=20,
                        random_max=top, seed=1)
    assert assert_certificate_holds(model, outcome.certificate["claim"], words) > 0

"""Claim campaign (issue 12, soundness): every fact the structure states about drawn outside-style models,
checked on words by the exact and the 60-digit soft evaluators.

    PYTHONPATH=. python3 benchmarks/claim_campaign.py SEED COUNT

Draws COUNT models with ``tests/outside_models.random_model`` (bounded and unbounded PE alternating; with BOS,
also the variant whose BOS key shares a symbol's class) and checks, on words up to length 6 (value sets and
joint rows and per-class values, at the lengths whose box conditions hold) and on 25 words (exact rows, spans, soft-same and
same-in-word claims at τ = 1/(4n²); the analysis with L-nearest-level at τ = 1/(8n), its sides at the
lengths where τ meets their conditions), what ``test_generality._rows_within_value_sets`` and ``_exact_rows_hold``
check.  Prints each failing model (written to ``campaign-SEED-K.json``) and the number of checks; exit status 1
on any failure.
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from outside_models import random_model  # noqa: E402
from test_generality import _bos_like_a_symbol, _exact_rows_hold, _rows_within_value_sets  # noqa: E402


def main(argv=None) -> int:
    seed, count = (int(a) for a in (argv or sys.argv[1:])[:2])
    rng, checked, failed = random.Random(seed), 0, 0
    for k in range(count):
        data = random_model(rng, k, unbounded=k % 2 == 1)
        for variant in [data, _bos_like_a_symbol(data)] if data["bos"] else [data]:
            try:
                checked += _rows_within_value_sets(variant, 6) + _exact_rows_hold(variant, "1/(4*n^2)", words=25)
                checked += _exact_rows_hold(variant, "1/(8*n)", words=25, nearest=True)  # L-nearest-level's sides
            except AssertionError as e:
                failed += 1
                print("FAIL", k, str(e)[:300], flush=True)
                Path(f"campaign-{seed}-{k}.json").write_text(json.dumps(variant))
    print(f"seed {seed}: {count} models, {checked} checks, {failed} failures")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

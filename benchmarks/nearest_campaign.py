"""Campaign aimed at L-nearest-level (issue 12, soundness): mutations of its fixture, each checked on words.

    PYTHONPATH=. python3 benchmarks/nearest_campaign.py SEED COUNT

Draws COUNT mutations of ``tests/fixtures/outside/nearest-level-bos-decides.json`` (score terms, the BOS key's
offset, the value terms and the visibility drawn), and for each: every exact row, side and span of the analysis
with L-nearest-level on words at τ = 1/(8n), the conditioned sides at the lengths where τ meets their conditions
(``test_generality._exact_rows_hold``); every certificate to n = 1000 whose facts carry side conditions is
checked, audited on words ≤ 6 and brute-forced on every word ≤ 7 (within a budget), 60 random words and four
long words built to put a mean of 3/8 on θ.  Prints the counts; exit status 1 on any failure (the model is
written to ``nearest-SEED-K.json``).
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from certify.audit import audit  # noqa: E402
from certify.certifier import CertifyConfig, certify  # noqa: E402
from certify.kernel.checker import check  # noqa: E402
from certify.model import model_from_dict  # noqa: E402
from soundness import assert_certificate_holds, words_up_to  # noqa: E402
from test_generality import _exact_rows_hold  # noqa: E402

BASE = ROOT / "tests" / "fixtures" / "outside" / "nearest-level-bos-decides.json"
LONG = ("bbbbbbcbcbcbcbcba", "cbcbcbbbbbcbcbcbcba", "bcbcbcbcbcbcbcbcbcbca", "ccbbccbbccbbccbbccbba")


def mutation(rng: random.Random, k: int) -> dict:
    data = json.loads(BASE.read_text())
    head = data["layers"][0]["heads"][0]
    head["score"] = [[rng.choice(["t_a", "t_b", "t_c", "one"]), rng.choice(["p", "t_a", "t_b", "t_c", "t_bos"]),
                      rng.choice(["-1", "1", "1/2", "-1/2", "2"])] for _ in range(rng.randint(2, 4))]
    head["score"].append(["one", "t_bos", rng.choice(["-1", "-1/2", "0", "1/2", "1", "3/2"])])
    head["value"] = [["w0", rng.choice(["t_a", "t_b", "t_c"]), 1]] + (
        [["w0", "t_bos", rng.choice([1, "1/2"])]] if rng.random() < 0.3 else [])
    head["visible"] = rng.choice(["j<i", "j<=i", "all"])
    data["name"] = f"nearest-{k}"
    return data


def main(argv=None) -> int:
    seed, count = (int(a) for a in (argv or sys.argv[1:])[:2])
    rng, certified, conditioned, failed = random.Random(seed), 0, 0, 0
    for k in range(count):
        data = mutation(rng, k)
        model, tally = model_from_dict(data), {}
        try:
            _exact_rows_hold(data, "1/(8*n)", words=40, nearest=True, tally=tally)
            conditioned += tally.get("conditioned", 0)
            outcome = certify(model, 1, 1000, cfg=CertifyConfig(refute=False))
            if outcome.verdict != "certified" or not any(
                    "side_conditions" in c.get("noisy_spans", {}) for c in outcome.certificate["facts"]["coords"]):
                continue
            certified += 1
            check(outcome.certificate, model)
            report = audit(outcome.certificate, model, max_len=6)
            assert report.ok, report.failure
            words = list(words_up_to(model.alphabet, 1, 7, budget=1500, random_words=60, random_max=40, seed=k))
            assert_certificate_holds(model, outcome.certificate["claim"], words + [list(w) for w in LONG])
        except AssertionError as exc:
            failed += 1
            print("FAIL", k, str(exc)[:300], flush=True)
            Path(f"nearest-{seed}-{k}.json").write_text(json.dumps(data))
    print(f"seed {seed}: {count} mutations, {certified} certified with side conditions, "
          f"{conditioned} conditioned sides checked, {failed} failures")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

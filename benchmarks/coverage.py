"""Measured coverage on outside-style models (issue 12): of the random models that brute force
shows simulable, how many does the certifier prove, and does every certificate survive brute force?

    PYTHONPATH=. python3 benchmarks/coverage.py SEED COUNT bounded|unbounded|edits [--nmax 1000] [--sim-len 6] [--models DIR] [--ties]

Draws COUNT models with ``tests/outside_models.random_model`` (``edits``: ``edited_model``, harmless edits of the
shipped models) (seeded), keeps the simulable ones
(soft = hard on every word up to length ``--sim-len`` at one of ``TRY_TAUS``), certifies each to n_max, and
brute-forces every certificate (exact hard vs 60-digit soft on all words up to length 7 within a
budget plus random long words, at the certified τ).  Prints one line per model, the counts, and the
blockers of the models not proved, by count, and how many were refuted by a word longer than ``--sim-len`` (a
hard output exactly on θ that soft leaks across: simulable only as far as brute force looked) or refuted at all (a
refutation at a length brute force covered is a leak below ``simulable``'s 40 digits: not simulable either); ``--ties`` also searches each model not proved for a word
whose hard output sits exactly on θ (what no margin can certify).  Exit status 1 when any certificate fails brute force.
"""
from __future__ import annotations

import argparse
import collections
import itertools
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from certify.certifier import CertifyConfig, certify  # noqa: E402
from certify.evaluate import hard_run, soft_run  # noqa: E402
from certify.expr import parse_expr  # noqa: E402
from certify.model import model_from_dict  # noqa: E402
from outside_models import edited_model, random_model, simulable  # noqa: E402
from soundness import assert_certificate_holds, words_up_to  # noqa: E402


def _tie_by_symmetry(model, outcome, error: AssertionError) -> bool:
    """The failing word differs only where the hard output is exactly the threshold, and every head
    of the certificate is uniform (the kernel accepts margin 0 there: soft = hard by symmetry)."""
    word = error.args[0][0] if error.args and isinstance(error.args[0], tuple) else None
    if word is None or any(h["kind"] != "uniform" for h in outcome.certificate["analysis"]["heads"]):
        return False
    tau = parse_expr(outcome.certificate["claim"]["tau"], variables=("n",), allow_log=True)
    hard, soft = hard_run(model, word), soft_run(model, word, tau, dps=60)
    return all(h == s or y == model.output.threshold for h, s, y in zip(hard.decisions, soft.decisions, hard.outputs))


def _tie_on_threshold(model, rng: random.Random) -> tuple | None:
    """A word at whose output rows some hard output is exactly the threshold (no margin can certify it),
    or None: every word up to length 7, then 3000 random words of length 8–24."""
    words = itertools.chain((w for n in range(1, 8) for w in itertools.product(model.alphabet, repeat=n)),
                            (tuple(rng.choice(model.alphabet) for _ in range(rng.randint(8, 24))) for _ in range(3000)))
    return next((w for w in words if model.output.threshold in hard_run(model, w).outputs), None)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("seed", type=int)
    ap.add_argument("count", type=int)
    ap.add_argument("family", choices=("bounded", "unbounded", "edits", "b", "u", "e"))
    ap.add_argument("--nmax", type=int, default=1000)
    ap.add_argument("--models", type=Path, default=None, help="write every simulable model here")
    ap.add_argument("--start", type=int, default=0, help="skip the first START draws (same rng stream)")
    ap.add_argument("--sim-len", type=int, default=6, help="simulable: soft = hard on every word up to this length")
    ap.add_argument("--ties", action="store_true", help="search each model not proved for a hard output on θ")
    args = ap.parse_args(argv)
    unbounded = args.family.startswith("u")
    rng = random.Random(args.seed)
    blockers, verdicts, unsound, ties, on_theta = collections.Counter(), collections.Counter(), [], [], collections.Counter()
    refuted_at = []  # the length of each refuting word
    for k in range(args.count):
        data = edited_model(rng, k) if args.family.startswith("e") else random_model(rng, k, unbounded=unbounded)
        if k < args.start:
            continue
        model = model_from_dict(data)
        if simulable(model, max_len=args.sim_len) is None:
            continue
        if args.models:
            args.models.mkdir(parents=True, exist_ok=True)
            (args.models / f"{args.seed}-{args.family[0]}-{k}.json").write_text(json.dumps(data))
        t = time.time()
        outcome = certify(model, 1, args.nmax, cfg=CertifyConfig())
        dt = time.time() - t
        verdicts[outcome.verdict] += 1
        if outcome.verdict == "refuted":
            refuted_at.append(outcome.counterexample.n)
        note = ""
        if outcome.verdict == "certified":
            words = words_up_to(model.alphabet, 1, 7, budget=3000, random_words=40, random_max=min(args.nmax, 60), seed=k)
            try:
                note = f"holds on {assert_certificate_holds(model, outcome.certificate['claim'], words)} words"
            except AssertionError as e:
                if _tie_by_symmetry(model, outcome, e):
                    ties.append(k)
                    note = "holds except where the hard output is on the threshold and every head is uniform (exact " \
                           "in real arithmetic; mpmath's rounded uniform average decides it)"
                else:
                    unsound.append(k)
                    note = f"FAILS brute force: {str(e)[:200]}"
        else:
            for b in outcome.blockers or (outcome.reason,):
                blockers[str(b).split(":", 1)[-1].strip()[:100]] += 1
            note = "; ".join(str(b)[:120] for b in (outcome.blockers or (outcome.reason,)))
            if args.ties:
                tie = _tie_on_threshold(model, random.Random(k))
                on_theta[tie is not None] += 1
                note += f" | hard output on θ at {''.join(tie)!r}" if tie else " | no hard output on θ found"
        print(k, outcome.verdict, f"{dt:.1f}s", outcome.certificate["claim"]["tau"] if outcome.certificate else "", note, flush=True)
    total = sum(verdicts.values())
    print(f"seed {args.seed} {args.family}: simulable {total}, " + ", ".join(f"{v} {c}" for v, c in verdicts.most_common())
          + f", unsound {len(unsound)}, threshold ties of all-uniform models {len(ties)}")
    longer = sum(1 for n in refuted_at if n > args.sim_len)
    print(f"refuted by a word longer than --sim-len {args.sim_len} (simulable only as far as brute force looked): "
          f"{longer}; certified among the {total - longer} not so refuted: {verdicts['certified']}")
    # a refutation is a word whose soft output is verified (raised precision, noise 10^(−dps/2)) on the other side
    # of θ: such a model is not simulable, whatever the 40-digit brute force of ``simulable`` rounded to
    kept = total - verdicts["refuted"]
    print(f"certified among the {kept} not refuted at all: {verdicts['certified']}"
          + (f" ({100 * verdicts['certified'] / kept:.0f} %)" if kept else ""))
    for b, c in blockers.most_common(30):
        print(c, b)
    if args.ties:
        print(f"not proved with a hard output on θ at some word (≤ 7 every word, then 3000 random ≤ 24): "
              f"{on_theta[True]} of {on_theta[True] + on_theta[False]}")
    return 1 if unsound else 0


if __name__ == "__main__":
    sys.exit(main())

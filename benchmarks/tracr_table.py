"""The tracr table of docs/tracr.md: every shipped tracr fixture, imported and certified per length.

Run:  python3 benchmarks/tracr_table.py [--out benchmarks/tracr_table.md] [--fixtures DIR] [--full-check]

Per fixture (program × max_seq_len N):
* tracr wrong: inputs where tracr's compiled model disagrees with RASP (the export's report.json);
* hard ≠ RASP: inputs of reference.json where the imported exact hard model disagrees with RASP
  (with --full-check every reference input, else the last 20 rows: the longest random ones);
* soft ≠ hard: the same inputs, float64 softmax at tracr's τ = sqrt(K)/100 against the hard model;
* at tracr's τ: the per-length report on the model's temperature interval [lo, hi] (width 10^-30
  around sqrt(K)/100): L-exhaustive proves every τ in it at the lengths it enumerates (|Σ|^n ≤
  the config's 60000 words), the kernel boxes prove τ = hi beyond; refutations are confirmed at hi
  and re-confirmed at the irrational sqrt(K)/100;
* coldness needed: for each n a derived schedule (L-exhaustive: the first of hi, hi/2, hi/4, … that
  certifies; boxes: the hottest κ·shape(n)); a length certified at tracr's interval keeps τ = hi
  (L-exhaustive's bound is monotone in τ, so hi is what the derivation tries first).  The
  coldness is sqrt(K)/τ(n), and the column gives the largest over n ≤ N (the coldness that
  certifies every length), or "—" where some length gets no schedule;
* seconds: wall time of the whole per-length report at tracr's τ (what ``certify M.json`` does),
  and of the extra derivations for the lengths it does not certify.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from certify.length_report import SearchConfig, confirmed, length_report, summary  # noqa: E402
from certify.model import model_from_dict, parse_word  # noqa: E402
from certify.tracr_import import check_against_reference, convert, load_export, tracr_temperature  # noqa: E402

SEARCH = SearchConfig(seconds=3.0, random_words=300)


def row(directory: Path, full_check: bool) -> dict:
    export = load_export(directory)
    obj = convert(export)
    model = model_from_dict(obj)
    report = json.loads((directory / "report.json").read_text())
    reference = json.loads((directory / "reference.json").read_text())
    if not full_check:
        reference["rows"] = reference["rows"][-20:]
    check = check_against_reference(model, export, reference)
    start = time.monotonic()
    at_tracr = length_report(model, 1, model.max_length, None, SEARCH, interval=model.temperature_interval)
    seconds = time.monotonic() - start
    # every refutation at hi is re-confirmed at the irrational sqrt(K)/100 itself (mpmath, 50 digits)
    exact_tau = tracr_temperature(export.spec)
    reconfirmed = all(confirmed(model, parse_word(model, v.word), exact_tau)
                      for v in at_tracr if v.verdict == "refuted")
    start = time.monotonic()
    derived = [v if v.verdict == "certified" else length_report(model, v.n, v.n, None, SEARCH)[0] for v in at_tracr]
    derive_seconds = time.monotonic() - start
    hi = model.temperature_interval[1]
    key_size = export.spec["architecture"]["key_size"]
    kept = {id(v) for v in at_tracr}
    taus = [hi if id(v) in kept else _rational(v.tau) for v in derived if v.verdict == "certified"]
    coldness = (f"{key_size ** 0.5 / float(min(taus)):.4g}" if len(taus) == len(derived) and None not in taus
                else "—")
    return {
        "program": export.spec["program"], "N": model.max_length,
        "tracr_wrong": report["exhaustive"]["wrong_inputs"] + report["random"]["wrong_inputs"],
        "tracr_inputs": report["exhaustive"]["inputs"] + report["random"]["inputs"],
        "hard_vs_rasp": check.hard_vs_rasp, "soft_vs_hard": check.soft_vs_hard, "checked": check.inputs,
        "certified_at_tracr_tau": sum(v.verdict == "certified" for v in at_tracr),
        "refuted_at_tracr_tau": [v.n for v in at_tracr if v.verdict == "refuted"],
        "refuted_words": [v.word for v in at_tracr if v.verdict == "refuted"], "reconfirmed": reconfirmed,
        "summary": summary(at_tracr), "coldness_needed": coldness,
        "derived_certified": sum(v.verdict == "certified" for v in derived), "seconds": round(seconds, 1),
        "derive_seconds": round(derive_seconds, 1),
        "exhaustive_lengths": sum(v.rule == "L-exhaustive" for v in derived),
    }


def _refuted(r: dict) -> str:
    if not r["refuted_at_tracr_tau"]:
        return "none found"
    return ", ".join(f"{n} (`{w}`)" for n, w in zip(r["refuted_at_tracr_tau"], r["refuted_words"])) + \
        ("" if r["reconfirmed"] else " (NOT reconfirmed at sqrt(K)/100)")


def _rational(text: str | None) -> Fraction | None:
    """τ(n) as the length report records it: a rational at that n, or None for a log schedule's text."""
    try:
        return Fraction(text)
    except (TypeError, ValueError):
        return None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fixtures", default=str(ROOT / "tests" / "fixtures" / "tracr"))
    ap.add_argument("--out", help="write the markdown table here (also printed)")
    ap.add_argument("--json", help="write the rows as JSON here")
    ap.add_argument("--full-check", action="store_true", help="compare on every reference input (slow)")
    args = ap.parse_args()
    rows = []
    for d in sorted(Path(args.fixtures).iterdir()):
        rows.append(row(d, args.full_check))
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    lines = ["| program | N | tracr wrong (report.json) | hard ≠ RASP | soft ≠ hard at tracr τ | certified lengths at "
             "tracr τ | refuted lengths at tracr τ | coldness certifying n ≤ N | lengths by L-exhaustive | s | s derive |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['program']} | {r['N']} | {r['tracr_wrong']}/{r['tracr_inputs']} | "
                     f"{r['hard_vs_rasp']}/{r['checked']} | {r['soft_vs_hard']}/{r['checked']} | "
                     f"{r['certified_at_tracr_tau']}/{r['N']} | {_refuted(r)} | {r['coldness_needed']} | "
                     f"{r['exhaustive_lengths']}/{r['N']} | {r['seconds']} | {r['derive_seconds']} |")
    every = sum(r["coldness_needed"] != "—" for r in rows)
    at_tracr = sum(r["certified_at_tracr_tau"] == r["N"] for r in rows)
    lines.append(f"\n{every} of {len(rows)} fixtures are certified at some derived schedule for every n ≤ N, "
                 f"{at_tracr} at tracr's own temperature.")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()

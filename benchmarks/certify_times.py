"""Wall time of `certify MODEL.json --nmax N` per shipped model (issue 6 benchmark; reported, not a test).

Run:  python3 benchmarks/certify_times.py [--out benchmarks/certify_times.md]
Two tables, each cell the median of three runs and the verdict: the command line
(`certify MODEL --nmax N` in a fresh process, what a user waits for) and the certifier
called in this process (imports excluded).  Targets: nmax = 10^6 under 10 s per model on
two cores; nmax = 10^12 at most twice nmax = 10^3; nmax = inf (boxes to 10^12, then the tail) at most
twice nmax = 10^12 (issue 16).
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from certify.certifier import certify  # noqa: E402
from certify.model import load_model  # noqa: E402

NMAX = [("10^3", 10**3), ("10^6", 10**6), ("10^12", 10**12), ("inf", "inf")]


def measure(path: Path, n_max, repeats: int = 3) -> tuple[float, str]:
    model = load_model(path)
    times, verdict = [], ""
    for _ in range(repeats):
        start = time.perf_counter()
        verdict = certify(model, 1, n_max).verdict
        times.append(time.perf_counter() - start)
    return statistics.median(times), verdict


VERDICT = {0: "certified", 1: "refuted", 2: "not proved", 3: "invalid input"}


def measure_cli(path: Path, n_max, repeats: int = 3) -> tuple[float, str]:
    times, code = [], 0
    for _ in range(repeats):
        start = time.perf_counter()
        code = subprocess.run(["certify", str(path), "--nmax", str(n_max)], capture_output=True).returncode
        times.append(time.perf_counter() - start)
    return statistics.median(times), VERDICT.get(code, f"exit {code}")


def table(measure_one) -> str:
    rows = ["| model | " + " | ".join(f"nmax = {label}" for label, _ in NMAX) + " | 10^12 / 10^3 | inf / 10^12 |",
            "|---|" + "---|" * (len(NMAX) + 2)]
    for path in sorted(p for p in (ROOT / "models").rglob("*.json") if "srasp" not in p.parts):
        cells, seconds = [], {}
        for label, n_max in NMAX:
            t, verdict = measure_one(path, n_max)
            seconds[label] = t
            cells.append(f"{t:.2f} s ({verdict})")
        ratio, tail = seconds["10^12"] / seconds["10^3"], seconds["inf"] / seconds["10^12"]
        rows.append(f"| {path.relative_to(ROOT / 'models')} | " + " | ".join(cells) + f" | {ratio:.2f} | {tail:.2f} |")
        print(rows[-1], flush=True)
    return "\n".join(rows) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    cli, inproc = table(measure_cli), table(measure)
    if args.out:
        args.out.write_text("# certify time per shipped model\n\nMeasured with `python3 benchmarks/certify_times.py` "
                            "(median of 3 runs, 2-core machine).\n\n## Command line (`certify MODEL --nmax N`, "
                            "fresh process, imports included)\n\n" + cli + "\n## In process (imports excluded)\n\n"
                            + inproc)


if __name__ == "__main__":
    main()

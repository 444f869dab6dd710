"""The review's experiment: Dyck-2 in float32 at n = 2^16, at the derived schedule and at τ ≈ 1/(n³ log n).

For each adversarial word (a member and a non-member that differ in one bracket, in two shapes)
and each schedule it runs the soft model in the format with ``certify.evaluate.float_run`` (rounding
points of docs/floating-point.md), reports the decision next to the hard one (Dyck-2 membership,
which the compiled hard model decides: ``certify compile dyck --k 2 --check``), and the weight that
the ``match`` head puts on the winning position (the opener matched with the last bracket) at the
last query.  Rerun:

    python3 benchmarks/dyck2_float32.py                      # n = 2^16, float32 (about 10 minutes here)
    python3 benchmarks/dyck2_float32.py --n 4096 --format float64 --json out.json
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from certify.api import load_model  # noqa: E402
from certify.evaluate import attention_weights, float_run  # noqa: E402
from certify.expr import parse_expr  # noqa: E402

MODEL = ROOT / "models/compiled/dyck-2-bounded.json"
DERIVED = "41/(256*n^2*(n+1)*log(n+2))"  # certify models/compiled/dyck-2-bounded.json --nmax 1e6 --derive
REVIEW = "1/(n^3*log(n))"
MATCH_LAYER, MATCH_HEAD = 4, "match"


def words(n: int) -> dict[str, tuple[str, int, int]]:
    """name -> (word, critical query, its winning key) for members and non-members of Dyck-2 of length
    n (n divisible by 4).  In the deep ones the first closer after the flat middle (query 3n/4 + 1)
    must find its opener (position n/4) among the n/4 closers of the middle at the same depth n/4
    (scores of size ~1/16): only the gap γ(n) = 1/(2n³) separates them."""
    flat = "(" + "[]" * (n // 2 - 1) + ")"
    q = n // 4
    deep = "(" * q + "[]" * q + ")" * q
    return {"deep member": (deep, 3 * q + 1, q),
            "deep, opener at depth n/4 of the wrong type": (deep[:q - 1] + "[" + deep[q:], 3 * q + 1, q),
            "flat member": (flat, n, 1), "flat, last bracket of the wrong type": (flat[:-1] + "]", n, 1)}


def member(word: str) -> bool:
    stack = []
    for c in word:
        if c in "([":
            stack.append(c)
        elif not stack or stack.pop() != {")": "(", "]": "["}[c]:
            return False
    return not stack


def run(n: int, fmt: str, schedules: dict[str, str], only: list[str] | None = None) -> list[dict]:
    model = load_model(MODEL)
    rows = []
    for name, (word, query, win) in words(n).items():
        if only and not any(name.startswith(o) for o in only):
            continue
        for label, text in schedules.items():
            tau = parse_expr(text, variables=("n",), allow_log=True)
            t0 = time.perf_counter()
            r = float_run(model, word, tau, fmt, block=n)
            w = attention_weights(model, r, MATCH_LAYER, MATCH_HEAD, query, tau, fmt)
            rows.append({"n": n, "format": fmt, "schedule": label, "tau": text, "word": name,
                         "hard": member(word), "soft": bool(r.decisions[0]), "agree": bool(r.decisions[0]) == member(word),
                         "output": r.outputs[0], "weight_on_winner": float(w[win - r.first_position]),
                         "query": query, "winner": win, "top_position": int(w.argmax()) + r.first_position,
                         "seconds": round(time.perf_counter() - t0, 1)})
            print(json.dumps(rows[-1]), flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=2**16)
    ap.add_argument("--format", default="float32", choices=("float64", "float32", "bfloat16", "float16"))
    ap.add_argument("--json", metavar="FILE", help="write the rows as a JSON list")
    ap.add_argument("--words", nargs="*", help="only the words whose name starts with one of these")
    args = ap.parse_args()
    rows = run(args.n, args.format, {"derived": DERIVED, "review 1/(n^3 log n)": REVIEW}, args.words)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()

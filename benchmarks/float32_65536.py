"""The review's question for every shipped model: in float32 at n = 2^16, at the exact certificate's
schedule, does the hard winner still get most of the attention, and is the decision still right?

The review asked it of Dyck-2 (``benchmarks/dyck2_float32.py`` answers that one: no).  Here each
other shipped model gets the same run on its hardest word: the adversarial words of
``certify.precision.adversarial_words`` are screened at ``--screen`` (1024) in the format, and the one
whose last position puts the least weight on some head's hard winners (ties: whose float output lies
closest to the decision boundary, |y − θ| or the gap between the two largest argmax entries) is run
at n = 2^16.  Reported per model: the decision in the format next to
the exact hard model's (``certify.hard_fast.hard_run_fast``, the exact reference in blocks of rows),
and, at the last output position, the least weight that any non-uniform head puts on its hard
winners (the exact maxima of that row, resolved leftmost/rightmost as the head says).

    python3 benchmarks/float32_65536.py --out benchmarks/float32_65536.md     # about an hour here
    python3 benchmarks/float32_65536.py --n 4096 --models since-a-b           # seconds

A disagreement inside a certified float32 range (``certify M --precision float32``) would be a
soundness bug; the ranges are in README's finite-precision table.
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

from certify.certifier import certify  # noqa: E402
from certify.evaluate import attention_weights, float_run, visible_keys  # noqa: E402
from certify.expr import to_text  # noqa: E402
from certify.hard_fast import hard_run_fast  # noqa: E402
from certify.model import AttentionLayer, load_model  # noqa: E402
from certify.precision import adversarial_words  # noqa: E402
from certify.words import run_length  # noqa: E402

SKIP = {"compiled/dyck-2-bounded.json": "benchmarks/dyck2_float32.py (deep-and-flat words)"}


def closeness(model, run) -> float:
    """Distance of the float outputs to the decision boundary (smallest over output positions)."""
    if model.output.argmax:
        gaps = []
        for v in run.outputs:
            top = sorted((float(x) for x in v), reverse=True)
            gaps.append(top[0] - top[1] if len(top) > 1 else float("inf"))
        return min(gaps)
    return min(abs(float(y) - float(model.output.threshold)) for y in run.outputs)


def hardest_word(model, tau, fmt: str, n: int) -> int:
    """Index, in ``adversarial_words``' order (the same families at every length), of the word at
    length n whose last position puts the least float weight on a head's hard winners (ties: whose
    float output lies closest to the decision boundary)."""
    words = adversarial_words(model, n)

    def hardness(k: int):
        soft, hard = float_run(model, words[k], tau, fmt), hard_run_fast(model, words[k])
        return winner_weight(model, hard, soft, tau, fmt, hard.n)[0], closeness(model, soft)

    return min(range(len(words)), key=hardness)


def winner_weight(model, hard, soft, tau, fmt: str, position: int):
    """(least weight on the hard winners, head) over the non-uniform heads at one query position."""
    least = (1.0, "-")
    index = {d: k for k, d in enumerate(model.dims)}
    first, last = hard.first_position, hard.n
    for li, layer in enumerate(model.layers):
        if not isinstance(layer, AttentionLayer):
            continue
        rows = hard.streams[li]
        xi = rows[position - first]
        for head in layer.heads:
            keys = visible_keys(head.visible, position, first, last)
            if len(keys) == 0:
                continue
            scores = [sum((c * xi[index[q]] * rows[j - first][index[k]] for q, k, c in head.score), Fraction(0))
                      for j in keys]
            top = max(scores)
            winners = [j for j, s in zip(keys, scores) if s == top]
            if len(winners) == len(keys):
                continue  # every key ties: the head is uniform on this row
            if head.hard == "leftmost":
                winners = winners[:1]
            elif head.hard == "rightmost":
                winners = winners[-1:]
            w = attention_weights(model, soft, li, head.name, position, tau, fmt)
            mass = float(sum(w[j - first] for j in winners))
            least = min(least, (mass, f"layer {li} {head.name}"))
    return least


def run_model(path: Path, n: int, screen: int, fmt: str) -> dict:
    model = load_model(path)
    exact = certify(model, 1, 10 ** 6)
    row = {"model": str(path.relative_to(ROOT / "models")), "n": n, "format": fmt}
    if exact.verdict != "certified":
        return row | {"note": f"exact: {exact.verdict}"}
    tau = exact.tau
    word = adversarial_words(model, n)[hardest_word(model, tau, fmt, screen)]
    t0 = time.perf_counter()
    soft = float_run(model, word, tau, fmt)
    hard = hard_run_fast(model, word)
    weight, head = winner_weight(model, hard, soft, tau, fmt, hard.n)
    wrong = [p for p, h, f in zip(hard.output_rows, hard.decisions, soft.decisions) if h != f]
    return row | {"tau": to_text(tau), "word": run_length(word), "decisions": len(hard.decisions),
                  "hard_last": _plain(hard.decisions[-1]), "float_last": _plain(soft.decisions[-1]),
                  "disagreements": len(wrong), "first_disagreement_row": wrong[0] if wrong else None,
                  "agree": not wrong, "least_winner_weight": weight, "head": head,
                  "seconds": round(time.perf_counter() - t0, 1)}


def _plain(d):
    return bool(d) if not isinstance(d, int) or isinstance(d, bool) else int(d)


HEADER = """# The review's question for every shipped model: float32 at n = 2^16

`python3 benchmarks/float32_65536.py --out benchmarks/float32_65536.md --models M…` (the models whose float32
certificate stops below 2^16; see README's finite-precision table): per model, its hardest adversarial word
(chosen at n = 1024: least float32 weight on some head's hard winners at the last position, then closeness
to the decision boundary), run at n = 2^16 in float32 at the model's certified schedule, against the exact
hard model.  "least weight": at the last position, over the heads whose row is not a full tie (1 (-): every
head's row ties there).  Dyck-2 is `benchmarks/dyck2_float32.py`'s (its decision flips).

"""


def table(rows: list[dict]) -> str:
    out = ["| model | τ(n) | word (n = %d) | decisions agree (positions) | least weight on the hard winners (head) | s |" % rows[0]["n"],
           "|---|---|---|---|---|---|"]
    for r in rows:
        if "note" in r:
            out.append(f"| `{r['model']}` | – | {r['note']} | – | – | – |")
            continue
        agree = "yes" if r["agree"] else f"**no** ({r['disagreements']} of {r['decisions']})"
        out.append(f"| `{r['model']}` | `{r['tau']}` | `{r['word']}` | {agree} | "
                   f"{r['least_winner_weight']:.6g} ({r['head']}) | {r['seconds']} |")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=2 ** 16)
    ap.add_argument("--screen", type=int, default=1024, help="length at which the hardest word is chosen")
    ap.add_argument("--format", default="float32", choices=("float64", "float32", "bfloat16", "float16"))
    ap.add_argument("--models", nargs="*", help="only these (stems of models/*.json, models/compiled/*.json)")
    ap.add_argument("--out", type=Path, help="write the Markdown table here (and the rows as .json next to it)")
    args = ap.parse_args(argv)
    paths = sorted((ROOT / "models").glob("*.json")) + sorted((ROOT / "models/compiled").glob("*.json"))
    rows = []
    for path in paths:
        name = str(path.relative_to(ROOT / "models"))
        if args.models and path.stem not in args.models:
            continue
        if name in SKIP:
            rows.append({"model": name, "n": args.n, "note": f"see {SKIP[name]}"})
            continue
        rows.append(run_model(path, args.n, min(args.screen, args.n), args.format))
        print(json.dumps(rows[-1]), flush=True)
    text = table(rows)
    print(text)
    if args.out:
        args.out.write_text(HEADER + text)
        args.out.with_suffix(".json").write_text(json.dumps(rows, indent=1) + "\n")
    return 0 if all(r.get("agree", True) for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())

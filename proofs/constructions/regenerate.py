"""Rewrite ``models/compiled/``: one compiled model per row of the simulation table
(theory.md §5) in each applicable scheme.  Run ``python -m proofs.constructions.regenerate``;
the test suite checks that the shipped files equal this output byte for byte.
"""
from __future__ import annotations

import sys
from pathlib import Path

from certify.model import dumps_model

from .check import Task, dyck_task, formula_task, induction_task

ROOT = Path(__file__).resolve().parents[2]
TARGET = ROOT / "models" / "compiled"

# (file stem, table row, factory)
CATALOG = (
    ("tl-prev-next-bounded", "TL[prev,next]", lambda: formula_task("prev 'a' and next 'b'", "abc", "bounded",
                                                                   name="tl-prev-next-bounded")),
    ("tl-prev-next-unbounded", "TL[prev,next]", lambda: formula_task("prev 'a' and next 'b'", "abc", "unbounded",
                                                                     name="tl-prev-next-unbounded")),
    ("tl-since-until-bounded", "TL[S,U]", lambda: formula_task("'a' since ('b' and not ('c' until 'a'))", "abc",
                                                               "bounded", name="tl-since-until-bounded")),
    ("tl-since-until-unbounded", "TL[S,U]", lambda: formula_task("'a' since ('b' and not ('c' until 'a'))", "abc",
                                                                 "unbounded", name="tl-since-until-unbounded")),
    ("counting-majority-bounded", "counting logic with +, Mon",
     lambda: formula_task("#past['a'] > #past['b']", "abc", "bounded", name="counting-majority-bounded")),
    ("counting-majority-unbounded", "counting logic with +, Mon",
     lambda: formula_task("#past['a'] > #past['b']", "abc", "unbounded", name="counting-majority-unbounded")),
    ("counting-mon-bounded", "counting logic with +, Mon",
     lambda: formula_task("odd and 2*#past['a'] >= #past['b'] + 1", "abc", "bounded", transduction=True,
                          name="counting-mon-bounded")),
    ("counting-mon-unbounded", "counting logic with +, Mon",
     lambda: formula_task("odd and 2*#past['a'] >= #past['b'] + 1", "abc", "unbounded", transduction=True,
                          name="counting-mon-unbounded")),
    ("induction-head-bounded", "induction heads", lambda: induction_task("abc", "a", "bounded",
                                                                         name="induction-head-bounded")),
    ("induction-head-unbounded", "induction heads", lambda: induction_task("abc", "a", "unbounded",
                                                                           name="induction-head-unbounded")),
    ("ahat-past-vs-future-bounded", "AHAT with gap gamma(n)",
     lambda: formula_task("#past['a'] > #future['b']", "abc", "bounded", name="ahat-past-vs-future-bounded")),
    ("dyck-2-bounded", "S-RASP, Dyck-k", lambda: dyck_task(2, name="dyck-2-bounded")),
)


def tasks() -> dict[str, Task]:
    return {stem: factory() for stem, _, factory in CATALOG}


def main() -> int:
    TARGET.mkdir(parents=True, exist_ok=True)
    for stem, task in tasks().items():
        path = TARGET / f"{stem}.json"
        path.write_text(dumps_model(task.model))
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

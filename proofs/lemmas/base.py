"""What a lemma is here: a statement, its discharge, and false variants that must fail.

A :class:`Lemma` is proved when every one of its SMT :class:`~proofs.smt.Query`s is
``unsat`` for both Z3 and cvc5 and every :class:`Check` (exact or ball arithmetic)
passes.  A :class:`Control` is a deliberately false variant; it is *refuted* only by a
concrete counterexample that survives substitution (Fractions, or arb balls when exp
is involved) — a solver's ``sat`` alone is not enough.  Controls exist so that a
discharge machinery which "proves" everything is caught.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from proofs.smt import Outcome, Query, prove_query


@dataclass(frozen=True)
class Check:
    """A non-SMT obligation decided by exact or ball arithmetic; ``run()`` is True iff it holds."""
    name: str
    run: Callable[[], bool]
    method: str = "exact"


@dataclass(frozen=True)
class Result:
    """One row of ``certify prove``: a lemma or a control and what its discharge came to."""
    lemma: str
    control: bool
    method: str
    verdict: str
    seconds: float
    detail: str = ""
    counterexample: dict | None = None

    def as_json(self) -> dict:
        return {"lemma": self.lemma, "control": self.control, "method": self.method,
                "verdict": self.verdict, "seconds": round(self.seconds, 4)}


@dataclass(frozen=True)
class Control:
    """A false variant of a lemma, named ``LEMMA/what-changed``; must be refuted."""
    name: str
    query: Query

    @property
    def method(self) -> str:
        return "z3 model + " + ("arb substitution" if self.query.uses_exp else "exact substitution")

    def refute(self) -> Result:
        out: Outcome = prove_query(self.query)
        return Result(self.name, True, self.method, out.verdict, out.seconds, out.detail, out.counterexample)


@dataclass(frozen=True)
class Lemma:
    """A lemma of theory.md §3–4: ``statement`` (text), SMT ``queries``, extra ``checks``."""
    name: str
    statement: str
    queries: tuple[Query, ...]
    checks: tuple[Check, ...] = ()
    controls: tuple[Control, ...] = field(default=())

    @property
    def method(self) -> str:
        parts = []
        if self.queries:
            parts.append("z3+cvc5" + (" (exp bounds)" if any(q.uses_exp for q in self.queries) else ""))
        parts += sorted({c.method for c in self.checks})
        return " + ".join(parts)

    def prove(self) -> Result:
        t0 = time.perf_counter()
        failures = []
        for q in self.queries:
            out = prove_query(q)
            if out.verdict != "proved":
                failures.append(f"{q.name}: {out.verdict} ({out.detail})")
        for c in self.checks:
            if not c.run():
                failures.append(f"{c.name}: check failed")
        verdict = "proved" if not failures else ("refuted" if any("refuted" in f for f in failures) else "unknown")
        return Result(self.name, False, self.method, verdict, time.perf_counter() - t0, "; ".join(failures))

    def smt_files(self) -> dict[str, str]:
        """Every query (lemma and controls) as ``file name -> SMT-LIB2 text``."""
        files = {f"{self.name}__{q.name}.smt2": q.smt2() for q in self.queries}
        for c in self.controls:
            files[c.name.replace("/", "__") + ".smt2"] = c.query.smt2()
        return files

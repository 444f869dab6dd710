"""``certify appendix --out DIR``: the paper's appendix in one command — tables, plots, certificates.

Why one command: a referee reruns one line and gets every number of the appendix, each certified
τ backed by a certificate that ``certify check`` accepted in the same run.  It writes

* ``certificates/*.cert.json`` — one per row of the simulation table (re-checked), and for the other
  shipped models;
* ``paper-table.{md,tex,csv}`` — ``certify table --paper --precision float64,float32`` (theory.md §5's
  rows, with the paper's class and the lengths certified in float64 and float32);
* ``models-table.{md,tex,csv}`` — the other shipped models (``models/*.json``), with the same columns;
* ``srasp-table.{md,tex,csv}`` — the shipped S-RASP programs (``models/srasp/``), each against the
  paper's S-RASP class Ω(1/(n³ log n)), with the same columns;
* ``tau-bounded.{png,pdf}``, ``tau-unbounded.{png,pdf}`` — τ(n) log-log, certified against generic
  (and critical, with ``--critical``);
* ``error.{png,pdf}`` — soft-versus-hard error against τ at n = :attr:`AppendixConfig.error_n`;
* ``appendix.json`` — what was written, each stage's run time and the verdicts
  (certify/schemas/appendix.json).

The constants live in :class:`AppendixConfig`; the rows in :data:`certify.table.CONFIG`.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

from .table import CONFIG as TABLE, REPO, RENDER, Table, TableConfig, build_table

SUFFIX = {"markdown": "md", "latex": "tex", "csv": "csv"}


@dataclass(frozen=True)
class AppendixConfig:
    table: TableConfig = TABLE
    others: tuple[str, ...] = ("models/since-a-b.json", "models/unbounded-since-a-b.json",
                               "models/transduction-prev-a.json", "models/bos-first-a.json", "models/exists-b.json",
                               "models/majority-a-b.json")
    n_range: tuple[int, int] = (10, 10**6)  # the τ(n) plots
    error_n: int = 32
    error_models: tuple[str, ...] = ("models/compiled/induction-head-bounded.json",
                                     "models/compiled/counting-majority-bounded.json",
                                     "models/compiled/dyck-2-bounded.json")
    formats: tuple[str, ...] = ("png", "pdf")
    float_formats: tuple[str, ...] = ("float64", "float32")  # issue 17: certified length ranges per format
    # the S-RASP table without them: the float walks of the deep Dyck-2/3 programs alone would take longer
    # than the rest of the appendix; their ranges are measured by benchmarks/precision_sweep.py (README)
    srasp_float_formats: tuple[str, ...] = ()


CONFIG = AppendixConfig()


@dataclass(frozen=True)
class Appendix:
    out: Path
    paper: Table
    others: Table
    srasp: Table | None  # None when the configuration has no S-RASP rows
    files: tuple[str, ...]
    seconds: tuple[tuple[str, float], ...]  # (stage, wall-clock seconds)

    @property
    def exit_code(self) -> int:
        """The paper table's (1: a certificate rejected; 2: a row not certified or colder than its class)."""
        codes = [self.paper.exit_code, self.others.exit_code] + ([self.srasp.exit_code] if self.srasp else [])
        return 1 if 1 in codes else max(codes)

    def to_json(self) -> dict:
        return {"out": str(self.out), "files": list(self.files),
                "seconds": {k: round(v, 1) for k, v in self.seconds},
                "total_seconds": round(sum(v for _, v in self.seconds), 1),
                "paper": {"rows": len(self.paper.rows),
                          "all_certified": all(r.verdict == "certified" for r in self.paper.rows),
                          "all_checked": all(r.checked for r in self.paper.rows),
                          "all_in_class": all(r.in_class for r in self.paper.rows),
                          "outside_class": [r.model for r in self.paper.rows if r.in_class is False]},
                "others": {"rows": len(self.others.rows),
                           "all_certified": all(r.verdict == "certified" for r in self.others.rows),
                           "all_checked": all(r.checked for r in self.others.rows)},
                **({"srasp": {"rows": len(self.srasp.rows),
                              "all_certified": all(r.verdict == "certified" for r in self.srasp.rows),
                              "all_checked": all(r.checked for r in self.srasp.rows),
                              "all_in_class": all(r.in_class for r in self.srasp.rows)}} if self.srasp else {}),
                "exit_code": self.exit_code}


def build_appendix(out: str | Path, ns: Sequence[int] | None = None, critical=(), cfg: AppendixConfig = CONFIG,
                   progress: Callable[[str, int, int], None] = lambda *_: None) -> Appendix:
    from .plot import error_series, render, tau_series

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    certs = out / "certificates"
    ns = tuple(ns) if ns is not None else cfg.table.ns
    files: list[Path] = []
    seconds: list[tuple[str, float]] = []

    def stage(name: str, start: float) -> None:
        seconds.append((name, time.monotonic() - start))

    start = time.monotonic()
    paper = build_table((), ns, True, critical, certs, cfg.table, progress, cfg.float_formats)
    others = build_table([REPO / m for m in cfg.others], ns, False, critical, certs, cfg.table, progress,
                         cfg.float_formats)
    srasp = build_table((), ns, True, critical, certs, cfg.table, progress, cfg.srasp_float_formats,
                        paper_rows=cfg.table.srasp_rows) if cfg.table.srasp_rows else None
    files += sorted(certs.glob("*.cert.json"))
    stage("tables (certify, check)", start)
    tables = [("paper-table", paper), ("models-table", others)] + ([("srasp-table", srasp)] if srasp else [])
    for name, table in tables:
        for fmt, suffix in SUFFIX.items():
            path = out / f"{name}.{suffix}"
            path.write_text(RENDER[fmt](table))
            files.append(path)

    start = time.monotonic()
    rows = {Path(r.path).resolve(): r for r in paper.rows}
    lo, hi = cfg.n_range
    for pe in ("bounded", "unbounded"):
        chosen = [(p, r) for p, r in rows.items() if r.pe == pe]
        if not chosen:
            continue
        series = []
        for k, (path, row) in enumerate(chosen):
            progress(f"τ(n) plot ({pe} PE)", k, len(chosen))
            series.append(tau_series(path, lo, hi, critical,
                                     certified=row.certified.closed if row.verdict == "certified" and hi <= max(ns)
                                     else None))
        files += [render(series, "tau", out / f"tau-{pe}.{fmt}") for fmt in cfg.formats]
    stage("τ(n) plots", start)

    start = time.monotonic()
    errors = [error_series(REPO / m, cfg.error_n, critical, progress=progress) for m in cfg.error_models]
    files += [render(errors, "error", out / f"error.{fmt}") for fmt in cfg.formats]
    stage("error plot", start)

    appendix = Appendix(out, paper, others, srasp, tuple(str(f.relative_to(out)) for f in files), tuple(seconds))
    summary = out / "appendix.json"
    summary.write_text(json.dumps({**appendix.to_json(), "files": [*appendix.files, "appendix.json"]}, indent=1) + "\n")
    return replace(appendix, files=(*appendix.files, "appendix.json"))

"""The critical temperature τ*(n): the largest τ at which every tried word of length n still has
its soft decisions equal to its hard ones — the measuring stick for certified schedules.

Why these choices:

* **What is measured.** A certificate claims soft = hard for *every* input at τ(n); τ*(n) is
  an upper estimate of the best such τ from a finite word search (:class:`certify.words.WordSet`),
  so a sound certificate never claims τ(n) above the witness's disagreement point
  ``tau_above`` (tests/test_critical.py asserts it on every shipped model).
* **Bisection on log τ, pruned.** Words are taken one at a time against the best bracket so
  far: a word that agrees just below the current ``tau_above`` cannot lower τ* and costs one
  evaluation; only a word that disagrees there is bisected (from a τ where it agrees).  A final
  pass checks that *every* tried word agrees at ``tau_star`` (so per-word non-monotonicity
  cannot hide a disagreement below the bracket), repeating with any word that does not.
* **Numbers.** Hard outputs are exact (:func:`certify.hard_fast.hard_run_fast`); soft ones are
  float64 screened with an mpmath fallback near the boundary (:mod:`certify.compare`); the
  reported bracket — the witness agreeing at ``tau_star`` and disagreeing at ``tau_above`` —
  is then re-confirmed in mpmath, and bisected in mpmath if float64 misjudged it.
* **Sweeps.** Many (model, n, word set) jobs run on Dask (:func:`sweep`), each job a pure
  function of its inputs, so the Dask and in-process paths return identical results; results
  are cached on disk by (model content hash, n, word-set description, search constants).
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from .compare import CompareConfig, Comparison, compare
from .errors import UserError
from .evaluate import Run
from .hard_fast import hard_run_fast
from .model import Model, format_word
from .words import WordSet

STATUSES = ("bracketed", "agrees up to tau_max", "disagrees at tau_min", "above max_length")
CACHE_VERSION = 2  # bump when the search changes what it returns for the same inputs


@dataclass(frozen=True)
class CriticalConfig:
    """Constants of the search (all part of the cache key)."""

    rtol: float = 1e-3  # the bracket's width: tau_above / tau_star = 1 + rtol
    expand: float = 8.0  # factor per step when looking for a first disagreement or agreement
    tau_max: float = 1e9  # no disagreement up to here: τ* is reported as unbounded
    tau_min: float = 1e-60  # a disagreement even here: the soft model never agrees (τ* = 0)
    rounds: int = 8  # bracket re-checks (all words at tau_star, the witness in mpmath) before giving up
    probes: int = 16  # words tried while looking for a first disagreement
    compare: CompareConfig = CompareConfig()


@dataclass(frozen=True)
class CriticalPoint:
    """τ*(n) for one model at one length: every tried word agrees at ``tau_star``; the ``witness``
    disagrees at ``tau_above`` (both confirmed in mpmath)."""

    model: str
    model_sha256: str
    n: int
    words: str  # the word set's description
    tried: int  # distinct words of length n
    status: str  # one of STATUSES
    tau_star: float | None
    tau_above: float | None
    witness: str | None = None
    position: int | None = None
    hard: str | None = None  # the witness's hard output at ``position``
    soft: str | None = None  # its soft output at tau_above (mpmath)
    confirmed: bool = False  # the bracket held in mpmath
    evaluations: dict = field(default_factory=dict)  # {"hard": k, "float64": k, "mp": k}
    seconds: float = field(default=0.0, compare=False)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, obj: dict) -> "CriticalPoint":
        return cls(**obj)


class _Search:
    """The state of one τ*(n) search: the words, their exact hard runs, and evaluation counts."""

    def __init__(self, model: Model, n: int, words: Sequence, cfg: CriticalConfig):
        self.model, self.n, self.words, self.cfg = model, n, list(words), cfg
        self.hards: dict[int, Run] = {}
        self.counts = {"hard": 0, "float64": 0, "mp": 0}
        self.seen: dict[tuple[int, float, str], Comparison] = {}

    def hard(self, k: int) -> Run:
        if k not in self.hards:
            self.hards[k] = hard_run_fast(self.model, self.words[k])
            self.counts["hard"] += 1
        return self.hards[k]

    def judge(self, k: int, tau: float, precision: str = "float64") -> Comparison:
        """Memoised: the final pass re-asks every word at the final lower end, most of them already asked."""
        if (k, tau, precision) not in self.seen:
            c = compare(self.model, self.words[k], self.hard(k), tau, precision, self.cfg.compare)
            self.counts[c.precision] += 1
            if precision == "float64" and c.precision == "mp":
                self.counts["float64"] += 1
            self.seen[k, tau, precision] = c
        return self.seen[k, tau, precision]

    def agrees(self, k: int, tau: float, precision: str = "float64") -> bool:
        return self.judge(k, tau, precision).agree

    def first_disagreement(self, tau: float, order: Sequence[int]) -> int | None:
        return next((k for k in order if not self.agrees(k, tau)), None)

    def bisect(self, k: int, hi: float, precision: str = "float64") -> tuple[float, float] | None:
        """Word k disagrees at ``hi``: a bracket (agrees, disagrees) of width rtol below it, or None
        when it disagrees down to tau_min."""
        lo = hi / self.cfg.expand
        while not self.agrees(k, lo, precision):
            hi, lo = lo, lo / self.cfg.expand
            if lo < self.cfg.tau_min:
                return None
        while hi / lo > 1 + self.cfg.rtol:
            mid = math.sqrt(lo * hi)
            if self.agrees(k, mid, precision):
                lo = mid
            else:
                hi = mid
        return hi / (1 + self.cfg.rtol), hi


def start_tau(model: Model, n: int) -> float:
    """Where the search starts: the model's proposed τ(n) when it has one, else 1/n."""
    if model.temperature is not None:
        from .errors import ExprError
        from .expr import eval_mp

        try:
            t = float(eval_mp(model.temperature, {"n": n}))
        except (ExprError, ValueError, OverflowError):  # undefined at this n: only a poor start
            t = 0.0
        if t > 0 and math.isfinite(t):
            return t
    return 1.0 / n


def critical_point(model: Model, n: int, words: WordSet = WordSet(), cfg: CriticalConfig = CriticalConfig()) -> CriticalPoint:
    """τ*(n) of ``model`` over ``words`` at length n (see the module docstring)."""
    began = time.monotonic()
    base = dict(model=model.name, model_sha256=model.sha256, n=n, words=words.describe())
    if model.max_length is not None and n > model.max_length:
        return CriticalPoint(**base, tried=0, status="above max_length", tau_star=None, tau_above=None)
    search = _Search(model, n, words.words(model, n), cfg)
    everyone = range(len(search.words))

    def done(status: str, lo=None, hi=None, k=None, confirmed=False, c: Comparison | None = None) -> CriticalPoint:
        extra = {}
        if k is not None:
            extra = dict(witness=format_word(model, search.words[k]), position=c.position if c else None,
                         hard=c.hard if c else None, soft=c.soft if c else None)
        return CriticalPoint(**base, tried=len(search.words), status=status, tau_star=lo, tau_above=hi,
                             confirmed=confirmed, evaluations=dict(search.counts), seconds=time.monotonic() - began,
                             **extra)

    def first_above(order) -> tuple[int | None, float]:
        tau = start_tau(model, n)
        while (k := search.first_disagreement(tau, order)) is None and tau <= cfg.tau_max:
            tau *= cfg.expand
        return k, tau

    # a few probe words find a first disagreement cheaply; the passes below then bring every word in
    k, tau = first_above(everyone[::max(1, len(everyone) // cfg.probes)])
    if k is None:
        k, tau = first_above(everyone)
    if k is None:
        return done("agrees up to tau_max", lo=cfg.tau_max)
    witness, hi, precision = k, tau, "float64"
    for _ in range(cfg.rounds):
        bracket = search.bisect(witness, hi, precision)
        if bracket is None:
            return done("disagrees at tau_min", hi=cfg.tau_min, k=witness)
        lo, hi = bracket
        for k in everyone:  # a later word that disagrees just below the bracket lowers it
            if k != witness and not search.agrees(k, lo):
                found = search.bisect(k, lo)
                if found is None:
                    return done("disagrees at tau_min", hi=cfg.tau_min, k=k)
                witness, (lo, hi) = k, found
        below = search.first_disagreement(lo, everyone)
        if below is not None:  # non-monotone: some word disagrees at the final lower end
            witness, hi, precision = below, lo, "float64"
            continue
        at_hi = search.judge(witness, hi, "mp")
        if search.agrees(witness, lo, "mp") and not at_hi.agree:
            return done("bracketed", lo, hi, witness, True, at_hi)
        precision = "mp"  # float64 misjudged the witness: bisect it in mpmath from a τ where mp disagrees
        while search.agrees(witness, hi, "mp"):
            hi *= cfg.expand
            if hi > cfg.tau_max:
                break
    return done("bracketed", lo, hi, witness, False, search.judge(witness, hi, "mp"))


# ---------------------------------------------------------------- sweeps: cache and Dask

@dataclass(frozen=True)
class CriticalJob:
    model: Model
    n: int
    words: WordSet = WordSet()
    config: CriticalConfig = CriticalConfig()

    def key(self) -> str:
        """The cache key: (model content hash, n, word set, search constants, CACHE_VERSION)."""
        text = json.dumps({"model": self.model.sha256, "n": self.n, "words": self.words.describe(),
                           "config": asdict(self.config), "version": CACHE_VERSION}, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()


def default_cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "hardsoft" / "critical"


def _run_job(job: CriticalJob) -> CriticalPoint:
    return critical_point(job.model, job.n, job.words, job.config)


def cached(cache: Path | None, job: CriticalJob) -> CriticalPoint | None:
    """The job's cached result, if any (an unreadable or stale-format file is a miss)."""
    if cache is None:
        return None
    try:
        return CriticalPoint.from_json(json.loads((cache / f"{job.key()}.json").read_text()))
    except (OSError, ValueError, TypeError):
        return None


def _store(cache: Path | None, job: CriticalJob, point: CriticalPoint) -> None:
    if cache is None:
        return
    cache.mkdir(parents=True, exist_ok=True)
    tmp = cache / f"{job.key()}.json.tmp{os.getpid()}"
    tmp.write_text(json.dumps(point.to_json()))
    tmp.replace(cache / f"{job.key()}.json")


def sweep(jobs: Sequence[CriticalJob], scheduler=None, cache: Path | None = None,
          progress: Callable[[str, int, int], None] = lambda *_: None) -> tuple[CriticalPoint, ...]:
    """Every job's CriticalPoint, in the jobs' order.

    ``scheduler``: None runs in this process; ``"local"`` starts a dask.distributed LocalCluster
    (one single-threaded worker process per core, at most one per job); any other string is the
    address of a running scheduler; a ``distributed.Client`` is used as is.  Cached results
    (``cache``: a directory) are not recomputed."""
    results: dict[int, CriticalPoint] = {}
    for k, job in enumerate(jobs):
        hit = cached(cache, job)
        if hit is not None:
            results[k] = hit
    todo = [k for k in range(len(jobs)) if k not in results]
    stage = "critical temperatures (cached {})".format(len(results)) if results else "critical temperatures"
    progress(stage, len(results), len(jobs))
    if scheduler is None:
        for k in todo:  # looked up again: another sweep sharing the cache may have finished it meanwhile
            results[k] = cached(cache, jobs[k]) or _run_job(jobs[k])
            _store(cache, jobs[k], results[k])
            progress(stage, len(results), len(jobs))
    elif todo:
        with _client(scheduler, len(todo)) as client:
            from distributed import as_completed

            futures = {client.submit(_run_job, jobs[k], pure=False): k for k in todo}
            for future in as_completed(futures):
                k = futures[future]
                results[k] = future.result()
                _store(cache, jobs[k], results[k])
                progress(stage, len(results), len(jobs))
    return tuple(results[k] for k in range(len(jobs)))


class _client:
    """A context manager giving a distributed.Client; it closes only what it started."""

    def __init__(self, scheduler, jobs: int):
        self.scheduler, self.jobs, self.owned = scheduler, jobs, []

    def __enter__(self):
        if not isinstance(self.scheduler, str):
            return self.scheduler
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise UserError("--scheduler: dask.distributed is not installed (pip install distributed)") from None
        if self.scheduler == "local":
            workers = max(1, min(os.cpu_count() or 1, self.jobs))
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None)
            self.owned.append(cluster)
            client = Client(cluster)
        else:
            try:
                client = Client(self.scheduler, timeout="10s")
            except (OSError, TimeoutError, ValueError) as exc:
                raise UserError(f"--scheduler: cannot reach a dask scheduler at {self.scheduler!r}: {exc}") from None
        self.owned.insert(0, client)
        return client

    def __exit__(self, *exc) -> bool:
        for thing in self.owned:
            thing.close()
        return False

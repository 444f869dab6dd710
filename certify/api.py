"""The Python API: what the ``certify`` command does, as functions with typed results.

Why a separate layer: the CLI, notebooks and CI gates need the same answers with
the same shapes.  Every command of :mod:`certify.cli` is a thin printer over these
functions, and each result's ``to_json()`` is exactly what the command prints under
``--json`` (validated against ``certify/schemas/*.json`` in the tests), so a script
and a shell pipeline cannot drift apart.

Results are frozen dataclasses; numbers a proof depends on stay exact (model
numbers are Fractions, bounds are the certificate's decimal strings).
``import hardsoft`` gives the same names.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

from .errors import ExprError, UserError
from .expr import Expr, parse_expr, to_text
from .model import Model, format_word, load_model as _load_file, model_from_dict, parse_word

if TYPE_CHECKING:  # certify.refute and certify.audit import mpmath; `import certify` must stay free of the oracles
    from .audit import AuditResult
    from .refute import Counterexample

EXIT_OK, EXIT_REFUTED, EXIT_NOT_PROVED, EXIT_INVALID = 0, 1, 2, 3
VERDICT_EXIT = {"certified": EXIT_OK, "refuted": EXIT_REFUTED, "not proved": EXIT_NOT_PROVED}
PRECISIONS = ("mp", "float64", "float32", "bfloat16", "float16")

Progress = Callable[[str, int, int], None]


def _no_progress(_stage: str, _done: int, _total: int) -> None:
    return None


def load_model(source: str | Path | Mapping | Model) -> Model:
    """A validated model from a file path, a dict (as in model.json) or a Model (returned as is);
    :class:`certify.errors.ModelError` names the key path of the first problem."""
    if isinstance(source, Model):
        return source
    if isinstance(source, Mapping):
        return model_from_dict(dict(source))
    return _load_file(source)


def parse_schedule(text: str | Expr, flag: str = "--tau") -> Expr:
    """τ(n) in the model-format grammar (our parser, never eval); errors name ``flag``."""
    if not isinstance(text, str):
        return text
    try:
        return parse_expr(text, variables=("n",), allow_log=True)
    except ExprError as exc:
        raise UserError(f"{flag}: {exc}") from None


# ---------------------------------------------------------------- certify

@dataclass(frozen=True)
class Claim:
    """What a certificate asserts: soft = hard for every input of length n_min..n_max at τ(n)."""

    model: str
    model_sha256: str
    n_min: int
    n_max: int | str  # "inf" for every length
    tau: str
    error_bound: str  # an upper bound on |soft − hard| at the output ("0": exactly equal)
    margin: str  # a lower bound on |hard output − threshold|
    precision: str | None = None  # the floating-point format the soft model is evaluated in (None: exact)
    tau_interval: tuple[str, str] | None = None  # L-exhaustive: the claim holds for every τ in [lo, hi]

    @classmethod
    def of(cls, certificate: Mapping) -> "Claim":
        claim = certificate.get("claim") if isinstance(certificate, Mapping) else None
        if not isinstance(claim, Mapping):
            raise UserError("certificate: 'claim' is missing or not an object")
        try:
            return cls(str(certificate.get("model_name")), str(certificate.get("model_sha256")), claim["n_min"],
                       claim["n_max"], str(claim["tau"]), str(claim["error_bound"]), str(claim["margin"]),
                       (claim.get("precision") or {}).get("format") if isinstance(claim.get("precision"), Mapping)
                       else None, tuple(claim["tau_interval"]) if isinstance(claim.get("tau_interval"), list) else None)
        except KeyError as exc:
            raise UserError(f"certificate: claim.{exc.args[0]} is missing") from None

    def sentence(self) -> str:
        bound = ("the soft output equals the hard output exactly" if self.error_bound == "0"
                 else f"output error ≤ {self.error_bound} < margin {self.margin}" if _below(self.error_bound, self.margin)
                 else f"output error < margin at every length; largest error bound {self.error_bound} and smallest "
                      f"margin {self.margin} are reached at different lengths")
        where = f" evaluated in {self.precision}" if self.precision else ""
        at = f"for every τ in [{self.tau_interval[0]}, {self.tau_interval[1]}]" if self.tau_interval and \
            self.tau_interval[0] != self.tau_interval[1] else f"at τ(n) = {self.tau}"
        return (f"{self.model}: soft{where} = hard for every input of length {self.n_min}..{self.n_max} "
                f"{at} ({bound})")


def _below(a: str, b: str) -> bool:
    """Whether the decimal a is below the decimal b (claims write both as exact decimals)."""
    try:
        return Fraction(a) < Fraction(b)
    except (ValueError, ZeroDivisionError):
        return True


@dataclass(frozen=True)
class CertifyResult:
    """The certifier's answer; ``exit_code`` is the CLI's (0 certified, 1 refuted, 2 not proved)."""

    verdict: str  # "certified" | "refuted" | "not proved"
    model: str
    n_min: int
    n_max: int | str
    tau: str | None  # the schedule that was checked (None: none was found)
    certificate: dict | None = None
    counterexample: Counterexample | None = None  # certify.refute.Counterexample: word, n, tau, position, hard, soft
    reason: str = ""
    blockers: tuple[str, ...] = ()  # not proved: every head or coordinate with its missing fact
    precision: dict | None = None  # --precision: format, n_max_certified, failing (certify.precision)

    @property
    def exit_code(self) -> int:
        return VERDICT_EXIT[self.verdict]

    @property
    def certified(self) -> bool:
        return self.verdict == "certified"

    @property
    def claim(self) -> Claim | None:
        return Claim.of(self.certificate) if self.certificate is not None else None

    def write(self, path: str | Path) -> None:
        """Write the certificate as JSON (only a certified result has one)."""
        if self.certificate is None:
            raise UserError(f"--out: no certificate to write ({self.verdict})")
        from .certifier import certificate_text

        try:
            Path(path).write_text(certificate_text(self.certificate))
        except OSError as exc:
            raise UserError(f"--out: cannot write {path}: {exc.strerror}") from None

    def to_json(self, certificate_path: str | None = None) -> dict:
        out: dict = {"verdict": self.verdict, "model": self.model, "n_min": self.n_min, "n_max": self.n_max,
                     "tau": self.tau}
        if self.certificate is not None:
            out["claim"] = self.certificate["claim"]
            out["certificate"] = self.certificate
            if certificate_path is not None:
                out["certificate_path"] = certificate_path
        if self.counterexample is not None:
            c = self.counterexample
            out["counterexample"] = {"word": c.word, "n": c.n, "tau": c.tau, "position": c.position,
                                     "hard_output": c.hard, "soft_output": c.soft}
        if self.reason:
            out["reason"] = self.reason
        if self.blockers:
            out["blockers"] = list(self.blockers)
        if self.precision is not None:
            out["precision"] = self.precision
        return out


def certify_model(model: str | Path | Mapping | Model, n_max: int | str = 10**6, n_min: int = 1,
                  tau: str | Expr | None = None, derive: bool = False,
                  progress: Progress = _no_progress, precision: str | None = None) -> CertifyResult:
    """Prove that the softmax model equals the hard one for every input of length n_min..n_max.

    ``tau`` checks that schedule; otherwise the model's ``temperature`` is checked, or, with
    ``derive=True`` or when the model proposes none, the hottest κ·shape(n) the kernel proves.
    ``n_max`` may be ``"inf"``: boxes up to 10^12, then the kernel's tail bound for every larger n.
    ``precision`` (float64, float32, bfloat16, float16): the soft model evaluated in that format
    (docs/floating-point.md); the certificate then covers the largest prefix n_min..n* the format
    allows (``precision`` of the result).
    """
    from .certifier import certify

    m = load_model(model)
    if not isinstance(n_min, int) or isinstance(n_min, bool) or n_min < 1:
        raise UserError(f"--nmin: {n_min!r} is not a positive integer")
    if n_max != "inf" and (not isinstance(n_max, int) or isinstance(n_max, bool) or n_max < 1):
        raise UserError(f"--nmax: {n_max!r} is not a positive integer or \"inf\"")
    if n_max != "inf" and n_max < n_min:
        raise UserError(f"--nmax {n_max} is below --nmin {n_min}")
    if tau is not None and derive:
        raise UserError("--derive: conflicts with --tau (derive a schedule, or check the given one)")
    schedule = parse_schedule(tau) if tau is not None else None
    if precision is not None:
        from .precision import certify_in_format, fmt_named

        p = certify_in_format(m, n_min, n_max, fmt_named(precision), schedule, derive, progress=progress)
        ex, t = p.exact, p.tau or p.exact.tau
        return CertifyResult(p.verdict, m.name, n_min, n_max, None if t is None else to_text(t),
                             p.certificate, ex.counterexample, p.reason, tuple(ex.blockers) or
                             ((p.reason,) if p.verdict == "not proved" else ()), p.as_json())
    outcome = certify(m, n_min, n_max, schedule, progress=progress, derive=derive)
    return CertifyResult(outcome.verdict, m.name, n_min, n_max, None if outcome.tau is None else to_text(outcome.tau),
                         outcome.certificate, outcome.counterexample, outcome.reason, tuple(outcome.blockers))


# ---------------------------------------------------------------- check

@dataclass(frozen=True)
class CheckFailureInfo:
    """The first certificate item that does not hold, with what the kernel computed instead."""

    item: str
    expected: str
    found: str


@dataclass(frozen=True)
class CheckReport:
    """``certify check``: valid (exit 0) or the first failing item (exit 1); with an audit
    (:func:`audit_certificate`), a failed audit is exit 1 too."""

    valid: bool
    claim: Claim | None
    kernel_items: int = 0
    boxes: int = 0
    second_opinions: tuple[str, ...] = ()
    failure: CheckFailureInfo | None = None
    audit: AuditResult | None = None  # certify.audit.AuditResult: words, statements, checks, failure, ok

    @property
    def exit_code(self) -> int:
        return EXIT_OK if self.valid and (self.audit is None or self.audit.ok) else EXIT_REFUTED

    def to_json(self) -> dict:
        out: dict = {"valid": self.valid, "claim": None if self.claim is None else _claim_json(self.claim)}
        if self.valid:
            out.update(kernel_checked=self.kernel_items, boxes=self.boxes, second_opinion=list(self.second_opinions))
        else:
            f = self.failure
            out.update(item=f.item, expected=f.expected, found=f.found)
        if self.audit is not None:
            a = self.audit
            out["audit"] = {"passed": a.ok, "words": a.words, "statements": a.statements, "checks": a.checks}
            if a.failure is not None:
                f = a.failure
                out["audit"]["failure"] = {"fact": f.fact, "word": f.word, "n": f.n, "position": f.position,
                                           "detail": f.detail}
        return out


def _claim_json(c: Claim) -> dict:
    return {"model": c.model, "model_sha256": c.model_sha256, "n_min": c.n_min, "n_max": c.n_max, "tau": c.tau,
            "error_bound": c.error_bound, "margin": c.margin}


def read_certificate(source: str | Path | Mapping) -> dict:
    """A certificate from a path or a dict; unreadable or non-JSON files are a one-line UserError."""
    if isinstance(source, Mapping):
        return dict(source)
    p = Path(source)
    try:
        text = p.read_text()
    except IsADirectoryError:
        raise UserError(f"cannot read {source}: it is a directory, not a certificate") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read {source}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        cert = json.loads(text)
    except ValueError as exc:
        raise UserError(f"{source}: invalid JSON: {exc}") from None
    if not isinstance(cert, dict):
        raise UserError(f"{source}: a certificate is a JSON object")
    return cert


def check_certificate(certificate: str | Path | Mapping, model: str | Path | Mapping | Model,
                      second_opinion: bool = True, progress: Progress = _no_progress) -> CheckReport:
    """Re-verify a certificate with the kernel (and, by default, its SMT second opinions in z3 and cvc5).

    Nothing recorded is trusted: every number is recomputed from the model's weights."""
    from .kernel.checker import CheckFailure, check
    from .second_opinion import recheck_smt_obligations

    cert = read_certificate(certificate)
    m = load_model(model)
    try:
        claim = Claim.of(cert)
    except UserError:
        claim = None
    try:
        progress("kernel check", 0, 2)
        result = check(cert, m)
        progress("second opinions (z3, cvc5)", 1, 2)
        opinions = recheck_smt_obligations(cert, m, result) if second_opinion else []
        progress("second opinions (z3, cvc5)", 2, 2)
    except CheckFailure as exc:
        return CheckReport(False, claim, failure=CheckFailureInfo(exc.item, str(exc.expected), str(exc.found)))
    return CheckReport(True, claim, result.kernel_items, result.boxes, tuple(opinions))


def audit_certificate(certificate: str | Path | Mapping, model: str | Path | Mapping | Model,
                      max_len: int | None = None, random_words: int = 200, seed: int = 0,
                      progress: Progress = _no_progress) -> AuditResult:
    """Test the certificate's recorded facts (and box numbers) on concrete words with the exact
    evaluator: every word up to ``max_len`` (default: while |alphabet|^n ≤ 50000) plus
    ``random_words`` seeded random ones.  Independent of the kernel check: it catches a kernel
    that derived, and a checker that accepted, a false fact."""
    from .audit import AuditConfig, AuditFailure, AuditResult, audit, words_to_audit

    cert = read_certificate(certificate)
    m = load_model(model)
    cfg = AuditConfig(random_words=random_words, seed=seed)
    try:
        claim = cert["claim"]
        total = sum(1 for _ in words_to_audit(m, claim["n_min"], claim["n_max"], max_len, cfg))
        return audit(cert, m, max_len=max_len, cfg=cfg, progress=lambda done: progress("audit words", done, total))
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        return AuditResult(0, 0, 0, AuditFailure("certificate", "", 0, None, f"not auditable: {exc!r}"))


# ---------------------------------------------------------------- evaluate

@dataclass(frozen=True)
class Outputs:
    """One semantics' outputs at the output positions: values (exact "p/q" when hard) and decisions."""

    values: tuple[str, ...]
    decisions: tuple[bool, ...]

    def to_json(self) -> dict:
        return {"outputs": list(self.values), "decisions": list(self.decisions)}


@dataclass(frozen=True)
class Evaluation:
    """``certify run``: the hard outputs, and the soft ones at τ when a τ was given."""

    word: str
    n: int
    positions: tuple[int, ...]
    hard: Outputs
    soft: Outputs | None = None
    tau: str | None = None
    precision: str | None = None

    @property
    def agree(self) -> bool | None:
        """Do soft and hard decide the same at every output position (None without a τ)?"""
        return None if self.soft is None else self.soft.decisions == self.hard.decisions

    def to_json(self) -> dict:
        chosen = self.soft if self.soft is not None else self.hard
        out = {"word": self.word, "n": self.n, "positions": list(self.positions), **chosen.to_json(),
               "hard": self.hard.to_json()}
        if self.soft is not None:
            out.update(soft=self.soft.to_json(), tau=self.tau, precision=self.precision, agree=self.agree)
        return out


def _word(m: Model, word: str | Sequence[str]) -> tuple[str, ...]:
    w = parse_word(m, word) if isinstance(word, str) else tuple(word)
    if not w:
        raise UserError("the word is empty; inputs have length n >= 1")
    return w


def run_hard(model: str | Path | Mapping | Model, word: str | Sequence[str]):
    """The exact reference semantics (:class:`certify.evaluate.Run`, Fractions throughout)."""
    from .evaluate import hard_run

    m = load_model(model)
    return hard_run(m, _word(m, word))


def run_soft(model: str | Path | Mapping | Model, word: str | Sequence[str], tau: str | Expr,
             precision: str = "mp"):
    """Softmax at τ(n) in mpmath (60 digits) or numpy float64/float32 (:class:`certify.evaluate.Run`)."""
    from .evaluate import float_run, soft_run

    if precision not in PRECISIONS:
        raise UserError(f"--precision: {precision!r} is not one of {', '.join(PRECISIONS)}")
    m = load_model(model)
    w = _word(m, word)
    schedule = parse_schedule(tau)
    return soft_run(m, w, schedule) if precision == "mp" else float_run(m, w, schedule, precision)


def evaluate(model: str | Path | Mapping | Model, word: str | Sequence[str], tau: str | Expr | None = None,
             precision: str = "mp", progress: Progress = _no_progress) -> Evaluation:
    """Evaluate one word: always the hard (exact) outputs, and the soft ones at ``tau`` if given."""
    from .evaluate import format_value

    m = load_model(model)
    w = _word(m, word)
    if tau is None and precision != "mp":
        raise UserError("--precision: applies to soft evaluation; give --tau")
    steps = 1 if tau is None else 2
    progress("hard (exact)", 0, steps)
    hard = run_hard(m, w)
    hard_out = Outputs(tuple(format_value(v) for v in hard.outputs), tuple(hard.decisions))
    positions = tuple(r + hard.first_position for r in hard.output_rows)
    if tau is None:
        progress("hard (exact)", 1, steps)
        return Evaluation(format_word(m, w), hard.n, positions, hard_out)
    progress(f"soft ({precision})", 1, steps)
    soft = run_soft(m, w, tau, precision)
    progress(f"soft ({precision})", 2, steps)
    soft_out = Outputs(tuple(format_value(v) for v in soft.outputs), tuple(soft.decisions))
    return Evaluation(format_word(m, w), hard.n, positions, hard_out, soft_out,
                      tau if isinstance(tau, str) else to_text(tau), precision)


# ---------------------------------------------------------------- show

@dataclass(frozen=True)
class HeadProof:
    """How one head was proved: its score structure (``kind``) and the lemma that bounds it."""

    layer: int
    head: str
    kind: str
    lemma: str
    facts: tuple[tuple[str, str], ...]  # the recorded quantities (step, offsets, ...) as text


@dataclass(frozen=True)
class Obligation:
    id: str
    kind: str  # "exact" / "ball" (the kernel's) or "second opinion" (SMT, re-run in z3 and cvc5)
    statement: str
    lemma: str | None
    evidence: str | None

    @property
    def second_opinion(self) -> bool:
        return self.kind == "second opinion"


@dataclass(frozen=True)
class CertificateSummary:
    """``certify show``: a certificate's claim and proof outline in words (not a verification)."""

    claim: Claim
    verdict: str
    heads: tuple[HeadProof, ...]
    ffns: tuple[dict, ...]
    boxes: int
    obligations: tuple[Obligation, ...]
    tools: dict

    def to_json(self) -> dict:
        return {
            "claim": _claim_json(self.claim),
            "verdict": self.verdict,
            "heads": [{"layer": h.layer, "head": h.head, "kind": h.kind, "lemma": h.lemma, "facts": dict(h.facts)}
                      for h in self.heads],
            "ffns": list(self.ffns),
            "boxes": self.boxes,
            "obligations": [{"id": o.id, "kind": o.kind, "statement": o.statement, "lemma": o.lemma,
                             "second_opinion": o.second_opinion} for o in self.obligations],
            "tools": self.tools,
            "verified": False,
        }


def summarize_certificate(certificate: str | Path | Mapping) -> CertificateSummary:
    """Read a certificate's claim, head proofs and obligations (shape errors are one-line UserErrors)."""
    cert = read_certificate(certificate)
    claim = Claim.of(cert)
    analysis = cert.get("analysis") if isinstance(cert.get("analysis"), Mapping) else {}
    heads = []
    for k, h in enumerate(analysis.get("heads") or []):
        if not isinstance(h, Mapping):
            raise UserError(f"certificate: analysis.heads[{k}] is not an object")
        facts = tuple((key, json.dumps(v) if not isinstance(v, str) else v) for key, v in h.items()
                      if key not in ("layer", "head", "kind", "lemma"))
        heads.append(HeadProof(h.get("layer"), str(h.get("head")), str(h.get("kind")), str(h.get("lemma")), facts))
    obligations = []
    for k, o in enumerate(cert.get("obligations") or []):
        if not isinstance(o, Mapping):
            raise UserError(f"certificate: obligations[{k}] is not an object")
        obligations.append(Obligation(str(o.get("id")), str(o.get("kind")), str(o.get("statement")),
                                      o.get("lemma"), o.get("evidence")))
    return CertificateSummary(claim, str(cert["claim"].get("verdict")), tuple(heads),
                              tuple(f for f in analysis.get("ffns") or [] if isinstance(f, Mapping)),
                              len(cert.get("boxes") or []), tuple(obligations), dict(cert.get("tools") or {}))


# ---------------------------------------------------------------- validate, critical

def parse_lengths(values: Sequence[str] | str, flag: str = "--n") -> tuple[int, ...]:
    """Lengths as given on the command line: ``10,100,1e3`` or several words; each ≥ 1 and finite."""
    from .certifier import parse_nmax

    words = [values] if isinstance(values, str) else list(values)
    out = []
    for part in (p.strip() for w in words for p in str(w).split(",") if p.strip()):
        n = parse_nmax(part, flag)
        if n == "inf":
            raise UserError(f"{flag}: lengths must be finite, got {part!r}")
        out.append(n)
    if not out:
        raise UserError(f"{flag}: give at least one length")
    return tuple(dict.fromkeys(out))


def _schedule_or_temperature(m: Model, tau: str | Expr | None) -> Expr:
    if tau is not None:
        return parse_schedule(tau)
    if m.temperature is None:
        raise UserError(f"--tau: the model {m.name} proposes no temperature; give --tau EXPR")
    return m.temperature


def validate_agreement(model: str | Path | Mapping | Model, tau: str | Expr | None = None,
                       exhaustive: int | None = None, random_words: int = 100, max_len: int | None = None,
                       lengths: Sequence[int] = (16,), adversarial: bool = True, precision: str = "mp",
                       seed: int = 0, progress: Progress = _no_progress):
    """Soft at τ(n) (default: the model's ``temperature``) against hard on every word of length
    1..``exhaustive`` (default: as many as fit 2000 words), ``random_words`` seeded random words of
    length ≤ ``max_len`` and the adversarial families at each of ``lengths``
    (:class:`certify.validate.ValidationReport`; exit code 0 all agree, 1 a disagreement)."""
    from .validate import validate

    m = load_model(model)
    for name, v in (("--exhaustive", exhaustive), ("--random", random_words), ("--max-len", max_len)):
        if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < (1 if name == "--max-len" else 0)):
            raise UserError(f"{name}: {v!r} is not a {'positive' if name == '--max-len' else 'non-negative'} integer")
    return validate(m, _schedule_or_temperature(m, tau), exhaustive, random_words, max_len, tuple(lengths),
                    adversarial, precision, seed, progress=progress)


def critical_temperatures(models: Sequence[str | Path | Mapping | Model], lengths: Sequence[int],
                          words: str = "adversarial,random:32,exhaustive:1024", seed: int = 0, scheduler=None,
                          cache: str | Path | None = None, progress: Progress = _no_progress):
    """τ*(n) for every model × length (:class:`certify.critical.CriticalPoint`, in that order):
    the largest τ at which every tried word still agrees, by bisection on log τ.  ``scheduler``:
    None in-process, ``"local"`` a dask LocalCluster, an address, or a ``distributed.Client``;
    ``cache``: a directory of results keyed by (model hash, n, word set)."""
    from .critical import CriticalJob, sweep
    from .words import parse_word_set

    word_set = parse_word_set(words, seed)
    loaded = [load_model(m) for m in models]
    jobs = [CriticalJob(m, n, word_set) for m in loaded for n in lengths]
    return sweep(jobs, scheduler, None if cache is None else Path(cache), progress)

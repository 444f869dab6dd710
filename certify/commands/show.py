"""``certify show CERT.json``: what a certificate claims and how it was proved, in words.

Why: a certificate is ~100 KB of boxes and balls; a reviewer wants the claim (model,
lengths, τ(n), error bound, margin), which rule proved each head, and which
obligations rest on SMT second opinions.  ``show`` only reads; ``certify check``
verifies.
"""
from __future__ import annotations

import json

from ..api import CertificateSummary, summarize_certificate

NOT_VERIFIED = "(a summary of the certificate, not a verification: run `certify check CERT.json --model MODEL.json`)"


def register(sub) -> None:
    p = sub.add_parser("show", help="a certificate's claim and proof outline in words (no verification)")
    p.add_argument("certificate", help="certificate JSON written by `certify MODEL.json --out`")
    p.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    p.add_argument("--json", action="store_true", help="same as --format json (certify/schemas/show.json)")
    p.set_defaults(func=main)


def main(args) -> int:
    from ..errors import UserError

    if args.json and args.format not in ("text", "json"):
        raise UserError(f"--json: conflicts with --format {args.format}")
    summary = summarize_certificate(args.certificate)
    fmt = "json" if args.json else args.format
    print(json.dumps(summary.to_json()) if fmt == "json" else RENDER[fmt](summary))
    return 0


def _facts(h) -> str:
    return ", ".join(f"{k} {v}" for k, v in h.facts) or "—"


def to_text(s: CertificateSummary) -> str:
    c = s.claim
    lines = [f"certificate for model {c.model} (sha256 {c.model_sha256[:16]}…): {s.verdict}",
             f"  claim: soft = hard for every input of length {c.n_min}..{c.n_max}",
             f"  τ(n) = {c.tau}",
             f"  error bound {c.error_bound}" + (" (exact)" if c.error_bound == "0" else f" < margin {c.margin}"),
             f"  margin {c.margin} (hard output distance from the threshold)",
             f"  {s.boxes} boxes of lengths bounded in ball arithmetic", "heads:"]
    lines += [f"  layer {h.layer} {h.head}: {h.kind} by {h.lemma} ({_facts(h)})" for h in s.heads]
    lines.append("obligations:")
    lines += [f"  {o.id} [{o.kind}{', ' + o.lemma if o.lemma else ''}]: {o.statement}" for o in s.obligations]
    second = [o.id for o in s.obligations if o.second_opinion]
    lines.append(f"second opinions (SMT, z3 and cvc5): {', '.join(second) if second else 'none'}")
    lines.append(NOT_VERIFIED)
    return "\n".join(lines)


def to_markdown(s: CertificateSummary) -> str:
    c = s.claim
    lines = [f"# Certificate: `{c.model}`", "", f"**{s.verdict}**: soft = hard for every input of length "
             f"{c.n_min}..{c.n_max}.", "", "| quantity | value |", "|---|---|",
             f"| model sha256 | `{c.model_sha256}` |", f"| τ(n) | `{c.tau}` |", f"| error bound | {c.error_bound} |",
             f"| margin | {c.margin} |", f"| boxes | {s.boxes} |", "", "## Heads", "",
             "| layer | head | structure | lemma | facts |", "|---|---|---|---|---|"]
    lines += [f"| {h.layer} | `{h.head}` | {h.kind} | {h.lemma} | {_facts(h)} |" for h in s.heads]
    lines += ["", "## Obligations", "", "| id | kind | lemma | statement |", "|---|---|---|---|"]
    lines += [f"| `{o.id}` | {o.kind}{' (SMT second opinion)' if o.second_opinion else ''} | {o.lemma or ''} | "
              f"{o.statement} |" for o in s.obligations]
    lines += ["", NOT_VERIFIED, ""]
    return "\n".join(lines)


RENDER = {"text": to_text, "markdown": to_markdown}

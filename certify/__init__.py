"""hardsoft: certify that softmax attention simulates hard attention.

The Python API (documented in docs/api.md) is importable from here and from the
``hardsoft`` alias package::

    from certify import load_model, certify_model, check_certificate, evaluate
"""

__version__ = "0.1.0"

# ``certify.evaluate`` is also the evaluators' submodule.  The import system binds a submodule
# to its package's attribute when it is first loaded, which would later replace the API
# function ``evaluate`` with the module; loading the submodule first makes that binding happen
# here, before the API's names are bound.
from . import evaluate as _evaluators  # noqa: E402,F401
from .api import (EXIT_INVALID, EXIT_NOT_PROVED, EXIT_OK, EXIT_REFUTED, CertificateSummary,  # noqa: E402
                  CertifyResult, CheckFailureInfo, CheckReport, Claim, Evaluation, HeadProof, Obligation, Outputs,
                  audit_certificate, certify_model, check_certificate, evaluate, load_model, parse_schedule,
                  read_certificate, run_hard, run_soft, summarize_certificate)
from .api import critical_temperatures, parse_lengths, validate_agreement  # noqa: E402

API = ("load_model", "certify_model", "check_certificate", "audit_certificate", "evaluate", "run_hard", "run_soft",
       "summarize_certificate", "read_certificate", "parse_schedule", "Claim", "CertifyResult",
       "CheckReport", "CheckFailureInfo", "Evaluation", "Outputs", "CertificateSummary", "HeadProof", "Obligation",
       "EXIT_OK", "EXIT_REFUTED", "EXIT_NOT_PROVED", "EXIT_INVALID",
       "validate_agreement", "critical_temperatures", "parse_lengths")
__all__ = ["__version__", *API]

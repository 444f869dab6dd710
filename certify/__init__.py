"""hardsoft: certify that softmax attention simulates hard attention.

The Python API (documented in docs/api.md) is importable from here and from the
``hardsoft`` alias package::

    from certify import load_model, certify_model, check_certificate, evaluate

Names are resolved on first use (PEP 562), so ``import certify`` stays cheap and the
modules that ``certify.api`` imports can themselves read ``certify.__version__``.
"""

__version__ = "0.1.0"

API = ("load_model", "certify_model", "check_certificate", "evaluate", "run_hard", "run_soft",
       "summarize_certificate", "read_certificate", "parse_schedule", "Claim", "CertifyResult", "Counterexample",
       "CheckReport", "CheckFailureInfo", "Evaluation", "Outputs", "CertificateSummary", "HeadProof", "Obligation",
       "EXIT_OK", "EXIT_REFUTED", "EXIT_NOT_PROVED", "EXIT_INVALID")
__all__ = ["__version__", *API]


def __getattr__(name: str):
    if name in API:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'certify' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(API))

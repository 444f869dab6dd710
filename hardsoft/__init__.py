"""``import hardsoft``: the project's name for the :mod:`certify` Python API (same names, same objects)."""

import certify as _certify

__version__ = _certify.__version__
__all__ = list(_certify.__all__)


def __getattr__(name: str):
    if name in _certify.API:
        return getattr(_certify, name)
    raise AttributeError(f"module 'hardsoft' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_certify.API))

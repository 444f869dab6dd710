"""``import hardsoft``: the project's name for the :mod:`certify` Python API (same names, same objects)."""

from certify import *  # noqa: F401,F403 - the alias re-exports exactly certify's public API
from certify import API, __all__, __version__  # noqa: F401

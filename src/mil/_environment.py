"""Environment switches of mil, parsed in one place.

``MIL_PURE_PYTHON``      use the NumPy twins of every kernel.
``MIL_REQUIRE_COMPILED`` make a missing compiled kernel an ImportError.

Both accept 1/true/yes/on (any case); anything else, or unset, means off.
"""

import os

__all__ = ["compiled_required", "env_flag", "pure_python_requested"]

_TRUE = {"1", "true", "yes", "on"}


def env_flag(name):
    """Return True when environment variable `name` is set to a true value."""
    return os.environ.get(name, "").strip().lower() in _TRUE


def pure_python_requested():
    """True when ``MIL_PURE_PYTHON`` asks for the NumPy twins of every kernel."""
    return env_flag("MIL_PURE_PYTHON")


def compiled_required():
    """True when ``MIL_REQUIRE_COMPILED`` makes a missing compiled kernel an error."""
    return env_flag("MIL_REQUIRE_COMPILED")

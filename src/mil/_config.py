"""Environment switches, parsed in one place, and ``show_config``.

``MIL_PURE_PYTHON``      use the NumPy twins of every kernel.
``MIL_REQUIRE_COMPILED`` make a missing compiled kernel an ImportError.

Both accept 1/true/yes/on (any case); anything else, or unset, means off.
"""

import os
import platform
import sys

_TRUE = {"1", "true", "yes", "on"}


def env_flag(name):
    """Return True when environment variable `name` is set to a true value."""
    return os.environ.get(name, "").strip().lower() in _TRUE


def pure_python_requested():
    return env_flag("MIL_PURE_PYTHON")


def compiled_required():
    return env_flag("MIL_REQUIRE_COMPILED")


def _version_of(dist):
    try:
        from importlib.metadata import version

        return version(dist)
    except Exception:  # not installed as a distribution
        return "not installed"


def config_info():
    """Machine-readable configuration: versions and the backend of each kernel.

    Returns
    -------
    info : dict
        ``{"mil": ..., "python": ..., "platform": ..., "dependencies": {...},
        "kernels": {name: {"active": "compiled" | "python", "reason": str}}}``
    """
    import mil
    from mil._core import BACKENDS

    return {
        "mil": mil.__version__,
        "location": os.path.dirname(mil.__file__),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "dependencies": {d: _version_of(d) for d in ("numpy", "scipy", "scikit-learn", "Cython")},
        "environment": {
            "MIL_PURE_PYTHON": os.environ.get("MIL_PURE_PYTHON", ""),
            "MIL_REQUIRE_COMPILED": os.environ.get("MIL_REQUIRE_COMPILED", ""),
        },
        "kernels": {name: dict(state) for name, state in BACKENDS.items()},
    }


def format_config(info=None):
    """Return the text that :func:`show_config` prints."""
    info = config_info() if info is None else info
    lines = [
        f"mil {info['mil']}  ({info['location']})",
        f"python {info['python']} on {info['platform']}",
        "dependencies: " + ", ".join(f"{k} {v}" for k, v in info["dependencies"].items()),
        "kernels:",
    ]
    width = max(len(n) for n in info["kernels"])
    for name, state in info["kernels"].items():
        lines.append(f"  {name:<{width}}  {state['description']}")
    return "\n".join(lines)


def show_config(file=None):
    """Print the version, dependency versions, and which implementation each kernel uses.

    Examples
    --------
    >>> import mil
    >>> mil.show_config()  # doctest: +SKIP
    mil 0.1.0  (...)
    ...
    kernels:
      _bag_counts  compiled
    """
    print(format_config(), file=file if file is not None else sys.stdout)

"""``show_config``: versions, dependencies and the implementation of each kernel.

The environment switches themselves are read in :mod:`mil._environment`.
"""

import os
import platform
import sys

from mil._core import BACKENDS
from mil._environment import compiled_required, env_flag, pure_python_requested

__all__ = ["compiled_required", "config_info", "env_flag", "format_config", "pure_python_requested",
           "show_config"]

#: What mil needs to run (pyproject.toml's dependencies).
RUNTIME = ("numpy", "scipy", "scikit-learn", "joblib", "threadpoolctl", "pot")
#: What some users add: the file readers (pandas, pyarrow, h5py), plots, Dask, faiss-cpu (the
#: neighbours' approximate search) and Cython to ``cimport mil.cython_kernels`` in their own
#: extensions (the shipped kernels are compiled when mil is built and need no Cython to run).
OPTIONAL = ("pandas", "pyarrow", "h5py", "matplotlib", "dask", "faiss-cpu", "Cython")


def _version_of(dist):
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return None


def config_info():
    """Machine-readable configuration: versions and the backend of each kernel.

    Returns
    -------
    info : dict
        ``{"mil": ..., "python": ..., "platform": ..., "dependencies": {...},
        "optional": {...}, "kernels": {name: {"active": "compiled" | "python",
        "reason": str}}}``; a distribution that is not installed has the
        version None.
    """
    import mil

    return {
        "mil": mil.__version__,
        "location": os.path.dirname(mil.__file__),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "dependencies": {d: _version_of(d) for d in RUNTIME},
        "optional": {d: _version_of(d) for d in OPTIONAL},
        "environment": {
            "MIL_PURE_PYTHON": os.environ.get("MIL_PURE_PYTHON", ""),
            "MIL_REQUIRE_COMPILED": os.environ.get("MIL_REQUIRE_COMPILED", ""),
        },
        "kernels": {name: dict(state) for name, state in BACKENDS.items()},
    }


def _versions(versions):
    return ", ".join(f"{k} {v}" if v is not None else f"{k} (not installed)" for k, v in versions.items())


def format_config(info=None):
    """Return the text that :func:`show_config` prints."""
    info = config_info() if info is None else info
    kernels = info["kernels"]
    compiled = sum(state["active"] == "compiled" for state in kernels.values())
    lines = [
        f"mil {info['mil']}  ({info['location']})",
        f"python {info['python']} on {info['platform']}",
        "dependencies: " + _versions(info["dependencies"]),
        "optional: " + _versions(info.get("optional", {})),
        (f"kernels: all {compiled} compiled" if compiled == len(kernels) else
         f"kernels: {compiled} of {len(kernels)} compiled, the others run as their NumPy twins"),
    ]
    width = max(len(n) for n in kernels)
    for name, state in kernels.items():
        lines.append(f"  {name:<{width}}  {state['description']}")
    return "\n".join(lines)


def show_config(file=None):
    """Print the version, dependency versions, and which implementation each kernel uses.

    Parameters
    ----------
    file : file-like, default=None
        Where to print (default: standard output).

    Examples
    --------
    >>> import mil
    >>> mil.show_config()  # doctest: +SKIP
    mil 0.1.0  (...)
    ...
    kernels: all 8 compiled
      _bag_counts  compiled
    """
    print(format_config(), file=file if file is not None else sys.stdout)

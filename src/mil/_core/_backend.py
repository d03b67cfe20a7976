"""Resolve every kernel to its compiled module or its NumPy twin.

Each kernel is a stem ``NAME``: ``mil._core.NAME`` is the compiled (Cython)
module and ``mil._core.NAME_py`` its twin with the same public names
(``__all__``). Resolution happens once, at import: the compiled module wins
when it imports, unless ``MIL_PURE_PYTHON`` is set; with
``MIL_REQUIRE_COMPILED`` a compiled module that does not import is an
ImportError carrying the original message.

Callers look kernels up at call time with :func:`kernel`, so
:func:`use_backend` can switch implementations inside one process (tests run
both paths that way).
"""

import importlib
import threading
from contextlib import contextmanager

from mil._environment import compiled_required, pure_python_requested

# The kernel stems; a new kernel adds its stem here.
KERNELS = (
    "_bag_counts",
    "_bag_shares",
    "_hausdorff",
    "_golden",
    "_binning",
    "_rule_split",
    "_tree_split",
    "_set_kernel",
)

#: name -> {"active": "compiled" | "python", "reason": str, "description": str}
BACKENDS = {}

_modules = {}  # name -> {"compiled": module | None, "python": module}
_local = threading.local()


def _resolve(name, pure, required):
    twin = importlib.import_module(f"mil._core.{name}_py")
    compiled, error = None, None
    try:
        compiled = importlib.import_module(f"mil._core.{name}")
    except ImportError as exc:
        error = exc
    if compiled is None and required:
        raise ImportError(
            f"MIL_REQUIRE_COMPILED is set but the compiled kernel mil._core.{name} "
            f"does not import: {error}"
        ) from error
    _modules[name] = {"compiled": compiled, "python": twin}
    if pure:
        state = ("python", "MIL_PURE_PYTHON", "python (MIL_PURE_PYTHON)")
    elif compiled is None:
        state = ("python", f"compiled module missing: {error}",
                 f"python (compiled module missing: {error})")
    else:
        state = ("compiled", "compiled module imported", "compiled")
    BACKENDS[name] = dict(zip(("active", "reason", "description"), state))


def resolve_all():
    """(Re)resolve every kernel from the current environment."""
    pure, required = pure_python_requested(), compiled_required()
    BACKENDS.clear()
    for name in KERNELS:
        _resolve(name, pure, required)


def kernel(name):
    """Return the module implementing kernel `name` for the current backend."""
    forced = getattr(_local, "forced", None)
    mods = _modules[name]
    if forced == "python":
        return mods["python"]
    if forced == "compiled":
        if mods["compiled"] is None:
            raise ImportError(f"the compiled kernel mil._core.{name} is not available: "
                              f"{BACKENDS[name]['reason']}")
        return mods["compiled"]
    return mods["compiled"] if BACKENDS[name]["active"] == "compiled" else mods["python"]


def compiled_available(name=None):
    """True when the compiled module of `name` (or of every kernel) imported."""
    names = KERNELS if name is None else (name,)
    return all(_modules[n]["compiled"] is not None for n in names)


def twins(name):
    """Return ``(compiled_module_or_None, python_module)`` of kernel `name`."""
    mods = _modules[name]
    return mods["compiled"], mods["python"]


@contextmanager
def use_backend(kind):
    """Force ``"compiled"`` or ``"python"`` kernels in this thread (``"auto"`` restores).

    Parameters
    ----------
    kind : {"compiled", "python", "auto"}

    Examples
    --------
    >>> from mil._core import use_backend
    >>> with use_backend("python"):
    ...     pass  # every kernel call here uses the NumPy twins
    """
    if kind not in ("compiled", "python", "auto"):
        raise ValueError(f"kind must be 'compiled', 'python' or 'auto', got {kind!r}")
    previous = getattr(_local, "forced", None)
    _local.forced = None if kind == "auto" else kind
    try:
        yield
    finally:
        _local.forced = previous

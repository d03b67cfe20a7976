"""Compiled kernels of mil and their NumPy twins (see ``_backend``)."""

from mil._core._backend import (
    BACKENDS,
    KERNELS,
    compiled_available,
    kernel,
    resolve_all,
    twins,
    use_backend,
)

resolve_all()

__all__ = ["BACKENDS", "KERNELS", "compiled_available", "kernel", "resolve_all", "twins", "use_backend"]

"""Build the Cython kernels of ``mil._core``.

Everything declarative lives in pyproject.toml; this file only lists the
extensions, sets compiler directives and flags, and makes the compiled
modules optional: when they cannot be built the package still installs and
runs on its NumPy twins (``mil.show_config()`` then says why).
"""

import multiprocessing
import os
import sys
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

CORE = Path("src") / "mil" / "_core"
DEBUG = os.environ.get("MIL_CYTHON_DEBUG", "").strip().lower() in {"1", "true", "yes", "on"}

DIRECTIVES = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": not DEBUG,
    "embedsignature": True,
}

# -ffp-contract=off forbids fused multiply-add so compiled arithmetic rounds
# exactly like NumPy's; MSVC's /fp:precise is the equivalent.
# Release builds carry no debug information: Python's own CFLAGS usually hold
# -g, which made each kernel 1.3-1.7 MB (about 200 KB without it); -g0 comes
# after them and wins, and on Linux the linker also strips the symbol table
# (-s). MIL_CYTHON_DEBUG=1 keeps both for debugging.
FLAGS = {
    "msvc": ["/O2", "/fp:precise"],
    "unix": ["-O3", "-ffp-contract=off"] + ([] if DEBUG else ["-g0"]),
}
LINK_FLAGS = {
    "unix": [] if DEBUG or not sys.platform.startswith("linux") else ["-s"],
}


class BuildExt(build_ext):
    def finalize_options(self):
        super().finalize_options()
        if self.parallel is None:
            # The kernels compile side by side, one per core (threads of this process);
            # --parallel / -j N still sets the number.
            self.parallel = os.cpu_count() or 1

    def build_extensions(self):
        kind = self.compiler.compiler_type
        flags = FLAGS.get(kind, FLAGS["unix"])
        link = LINK_FLAGS.get(kind, [])
        for ext in self.extensions:
            ext.extra_compile_args = flags + list(ext.extra_compile_args)
            ext.extra_link_args = link + list(ext.extra_link_args)
        super().build_extensions()

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as exc:  # compiler missing or broken: fall back to the twins
            if not ext.optional:
                raise
            print(f"mil: could not compile {ext.name} ({exc}); the pure-Python twin will be used")


def extensions():
    modules = sorted(p.stem for p in CORE.glob("*.pyx"))
    exts = [Extension(f"mil._core.{name}", [str(CORE / f"{name}.pyx")]) for name in modules]
    # Generated C goes to build/, not next to the sources: the source tree stays
    # what git holds (and `pip install .` leaves no generated files in src/).
    # Cython translates the modules in worker processes too where they start by fork;
    # a spawned worker would run this script again.
    workers = (os.cpu_count() or 0) if multiprocessing.get_all_start_methods()[0] == "fork" else 0
    exts = cythonize(exts, compiler_directives=DIRECTIVES, include_path=["src"], build_dir="build",
                     nthreads=workers)
    # cythonize() resets Extension.optional: set it after the call.
    required = os.environ.get("MIL_REQUIRE_COMPILED", "").strip().lower() in {"1", "true", "yes", "on"}
    for ext in exts:
        ext.optional = not required
    return exts


setup(ext_modules=extensions(), cmdclass={"build_ext": BuildExt})

"""The C-level API: build a Cython extension against the installed mil and call it.

A tiny ``.pyx`` written at test time cimports the ``c_`` entry points, both
through the public facade ``mil.cython_kernels`` and straight from
``mil._core._bag_counts``, calls them inside ``with nogil`` (so it compiles
only if they are declared nogil), and must give exactly what the Python API
gives. It is built in a subprocess with Cython and setuptools, with
``mil.get_include()`` on the include path, as another package would build it.

When it skips:
- no working C compiler (probed by building a plain C extension first);
- the compiled kernels are not installed. The ``c_`` functions live in the
  compiled module ``mil._core._bag_counts``; a module that cimports them
  imports that module at its own import time, so without it there is
  nothing to call. ``MIL_PURE_PYTHON=1`` does not skip: it only steers the
  Python dispatcher, and C callers bypass the dispatcher;
- Cython or setuptools is missing (they are in the ``test`` extra).
Under ``MIL_REQUIRE_COMPILED=1`` only the first reason may skip: the other two
fail, so CI and the wheel tests cannot skip the test silently.
"""

import importlib.machinery
import importlib.util
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mil
from mil._config import compiled_required
from mil._core import KERNELS, kernel, twins

PROBE = "_mil_cimport_probe"

PROBE_PYX = textwrap.dedent('''
    # cython: language_level=3, boundscheck=False, wraparound=False
    """Calls every c_ entry point of _bag_counts, as a downstream package would."""

    # The public facade, by name and as a module, and the private module directly.
    from mil.cython_kernels cimport c_sweep_distinct_bags, float64_t, intp_t, uint8_t
    cimport mil.cython_kernels as ck
    from mil._core._bag_counts cimport c_bag_max


    def type_sizes():
        return sizeof(float64_t), sizeof(intp_t), sizeof(uint8_t)


    def sweep(const intp_t[::1] inst_bag, const uint8_t[::1] bag_pos,
              const float64_t[::1] bag_weight, uint8_t[::1] seen, float64_t[:, ::1] out):
        cdef intp_t n = inst_bag.shape[0]
        if n:
            with nogil:
                c_sweep_distinct_bags(&inst_bag[0], n, &bag_pos[0], &bag_weight[0], &seen[0],
                                      &out[0, 0], &out[1, 0], &out[2, 0], &out[3, 0])


    def distinct(const intp_t[::1] inst_bag, const uint8_t[::1] bag_pos,
                 const float64_t[::1] bag_weight, uint8_t[::1] seen):
        cdef float64_t pos = -1.0, neg = -1.0
        with nogil:
            ck.c_distinct_bag_weights(&inst_bag[0], inst_bag.shape[0], &bag_pos[0],
                                      &bag_weight[0], &seen[0], &pos, &neg)
        return pos, neg


    def bag_max(const float64_t[::1] values, const intp_t[::1] offsets, float64_t[::1] out):
        with nogil:
            c_bag_max(&values[0], &offsets[0], offsets.shape[0] - 1, &out[0])


    def hausdorff(const float64_t[:, ::1] X, const intp_t[::1] offsets, float64_t[:, :, ::1] out):
        cdef intp_t n = offsets.shape[0] - 1
        with nogil:
            ck.c_hausdorff_matrices(&X[0, 0], &offsets[0], &X[0, 0], &offsets[0], n, X.shape[1],
                                    True, 0, n, n, 1024, &out[0, 0, 0], &out[1, 0, 0], &out[2, 0, 0])


    cdef float64_t _parabola(float64_t x, void* data) noexcept nogil:
        return -(x - (<float64_t*> data)[0]) ** 2


    def golden(float64_t peak):
        cdef float64_t x
        with nogil:
            x = ck.c_golden_section_max(_parabola, &peak, 0.0, 1.0, 1e-9, 200)
        return x


    def nca(const float64_t[:, ::1] dmin, const float64_t[:, ::1] dmax, const intp_t[::1] y,
            float64_t sigma):
        cdef float64_t f, a
        with nogil:
            f = ck.c_nca_objective(&dmin[0, 0], &dmax[0, 0], &y[0], y.shape[0], 0.5, sigma)
            a = ck.c_nca_alpha(&dmin[0, 0], &dmax[0, 0], &y[0], y.shape[0], sigma, 1e-3)
        return f, a
''')

# A plain C extension: if this does not build, there is no working compiler.
COMPILER_PROBE_C = textwrap.dedent('''
    #include <Python.h>
    static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "_mil_cc_probe", NULL, -1, NULL};
    PyMODINIT_FUNC PyInit__mil_cc_probe(void) { return PyModule_Create(&def); }
''')

BUILD_PY = textwrap.dedent('''
    """python build.py (probe | cimport) INCLUDE: build in place; exit 77 if no compiler works."""
    import sys

    from setuptools import Extension, setup
    from setuptools.command.build_ext import build_ext


    class QuickBuildExt(build_ext):
        # The test checks linkage and results, not speed: skip the optimiser.
        def build_extensions(self):
            flag = "/Od" if self.compiler.compiler_type == "msvc" else "-O0"
            for ext in self.extensions:
                ext.extra_compile_args = [flag]
            super().build_extensions()


    def build(exts):
        setup(name="mil-cimport-probe", ext_modules=exts, cmdclass={"build_ext": QuickBuildExt},
              script_args=["-q", "build_ext", "--inplace"])


    what, include = sys.argv[1], sys.argv[2]
    if what == "probe":
        try:
            build([Extension("_mil_cc_probe", ["_mil_cc_probe.c"])])
        except BaseException as exc:  # distutils reports failures as SystemExit
            print(f"no working C compiler: {exc}", file=sys.stderr)
            sys.exit(77)
    else:
        from Cython.Build import cythonize

        # include_dirs doubles as cythonize's search path for .pxd files.
        ext = Extension("_mil_cimport_probe", ["_mil_cimport_probe.pyx"], include_dirs=[include])
        build(cythonize([ext], quiet=True))
''')


def _cannot_run(reason):
    """Skip, unless MIL_REQUIRE_COMPILED forbids skipping for this reason."""
    if compiled_required():
        pytest.fail(f"{reason}; MIL_REQUIRE_COMPILED is set, so this test may not skip")
    pytest.skip(reason)


def _run(args, cwd):
    return subprocess.run([sys.executable, "build.py", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=600)


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    """The built and imported probe extension."""
    compiled, _ = twins("_bag_counts")
    if compiled is None:
        _cannot_run("the compiled kernels are not installed, and the c_ entry points live in "
                    "them: " + mil._core.BACKENDS["_bag_counts"]["reason"])
    for module in ("Cython", "setuptools"):
        if importlib.util.find_spec(module) is None:
            _cannot_run(f"{module} is not installed (pip install 'scikit-mil[test]')")

    work = tmp_path_factory.mktemp("cimport")
    (work / "build.py").write_text(BUILD_PY)
    (work / "_mil_cc_probe.c").write_text(COMPILER_PROBE_C)
    (work / f"{PROBE}.pyx").write_text(PROBE_PYX)

    result = _run(["probe", mil.get_include()], work)
    if result.returncode == 77:
        pytest.skip(result.stderr.strip().splitlines()[-1])
    assert result.returncode == 0, f"compiler probe failed:\n{result.stdout}\n{result.stderr}"

    result = _run(["cimport", mil.get_include()], work)
    assert result.returncode == 0, (
        f"building a Cython extension that cimports mil failed:\n{result.stdout}\n{result.stderr}")

    built = [p for p in work.iterdir() if p.name.startswith(PROBE + ".")
             and p.name.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))]
    assert len(built) == 1, f"expected one built {PROBE} module, found {built}"
    spec = importlib.util.spec_from_file_location(PROBE, built[0])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _random_sweep(seed, n_bags=7, n=25):
    rng = np.random.default_rng(seed)
    inst_bag = rng.integers(0, n_bags, size=n).astype(np.intp)
    bag_pos = rng.integers(0, 2, size=n_bags).astype(np.uint8)
    bag_weight = rng.uniform(0.0, 3.0, size=n_bags)
    return inst_bag, bag_pos, bag_weight


def test_include_dir_holds_the_pxd_files():
    # What a downstream build needs from the installed package (the wheel ships them).
    root = os.path.join(mil.get_include(), "mil")
    needed = ["cython_kernels.pxd", os.path.join("_core", "_typedefs.pxd")]
    for stem in KERNELS:
        needed += [os.path.join("_core", stem + ".pxd"), os.path.join("_core", stem + ".pyx")]
    missing = [name for name in needed if not os.path.isfile(os.path.join(root, name))]
    assert not missing, f"not installed under {root}: {missing}"


def test_facade_reexports_every_entry_point():
    # Every c_ function declared in mil/_core/*.pxd must be cimportable from
    # mil.cython_kernels (and only those): the facade is the public C API.
    core = os.path.join(mil.get_include(), "mil", "_core")
    declared = set()
    for name in os.listdir(core):
        if name.endswith(".pxd"):
            with open(os.path.join(core, name), encoding="utf-8") as f:
                declared |= set(re.findall(r"^cdef\s[^(#]*?\b(c_\w+)\s*\(", f.read(), re.M))
    with open(os.path.join(mil.get_include(), "mil", "cython_kernels.pxd"), encoding="utf-8") as f:
        code = "\n".join(line.split("#", 1)[0] for line in f)
    exported = set(re.findall(r"\b(c_\w+)\b", code))
    assert "c_sweep_distinct_bags" in declared
    assert declared == exported, (
        f"missing from mil/cython_kernels.pxd: {sorted(declared - exported)}; "
        f"not declared in mil/_core: {sorted(exported - declared)}")


def test_typedefs_match_numpy(probe):
    assert probe.type_sizes() == (np.dtype(np.float64).itemsize, np.dtype(np.intp).itemsize,
                                  np.dtype(np.uint8).itemsize)


def test_sweep_hand_computed(probe):
    # Bags 0 (positive), 1 (negative), 2 (positive); bag 0 straddles cut 0.
    inst_bag = np.array([0, 1, 0, 2], dtype=np.intp)
    bag_pos = np.array([1, 0, 1], dtype=np.uint8)
    seen = np.zeros(3, dtype=np.uint8)
    out = np.full((4, 4), np.nan)
    probe.sweep(inst_bag, bag_pos, np.ones(3), seen, out)
    np.testing.assert_array_equal(out, [[1, 1, 1, 2], [0, 1, 1, 1], [2, 2, 1, 0], [1, 0, 0, 0]])
    np.testing.assert_array_equal(seen, 0)  # the scratch contract: all 0 on exit


@pytest.mark.parametrize("seed", range(5))
def test_cimported_kernels_match_the_python_api(probe, seed):
    inst_bag, bag_pos, bag_weight = _random_sweep(seed)
    compiled, twin = twins("_bag_counts")
    seen = np.zeros(bag_pos.shape[0], dtype=np.uint8)

    out = np.full((4, inst_bag.shape[0]), np.nan)
    probe.sweep(inst_bag, bag_pos, bag_weight, seen, out)
    for api in (compiled, twin):
        np.testing.assert_array_equal(out, np.vstack(api.sweep_distinct_bags(inst_bag, bag_pos,
                                                                             bag_weight)))

    got = probe.distinct(inst_bag[:9], bag_pos, bag_weight, seen)
    assert got == twin.distinct_bag_weights(inst_bag[:9], bag_pos, bag_weight)
    assert got == compiled.distinct_bag_weights(inst_bag[:9], bag_pos, bag_weight)
    np.testing.assert_array_equal(seen, 0)

    values = np.random.default_rng(seed).normal(size=inst_bag.shape[0])
    offsets = np.array([0, 3, 4, 11, 25], dtype=np.intp)
    out = np.full(4, np.nan)
    probe.bag_max(values, offsets, out)
    np.testing.assert_array_equal(out, kernel("_bag_counts").bag_max(values, offsets))
    np.testing.assert_array_equal(out, twin.bag_max(values, offsets))


def test_cimported_distance_kernels(probe):
    A = np.array([[-1.0], [-2.0], [-3.0]])
    B = np.array([[1.0], [2.0], [50.0]])
    out = np.full((3, 2, 2), np.nan)
    probe.hausdorff(np.vstack([A, B]), np.array([0, 3, 6], dtype=np.intp), out)
    assert out[0, 0, 1] == 2.0 and out[1, 0, 1] == 51.0 and out[2, 0, 1] == out[2, 1, 0]
    assert abs(probe.golden(0.3) - 0.3) < 1e-8
    rng = np.random.default_rng(0)
    dmin, dmax = rng.uniform(0, 5, (2, 6, 6))
    dmin, dmax = dmin + dmin.T, dmax + dmax.T
    y = np.array([0, 0, 0, 1, 1, 1], dtype=np.intp)
    g = twins("_golden")[0]  # the compiled module: the probe calls the same C functions
    assert probe.nca(dmin, dmax, y, 1.0) == (g.nca_objective(dmin, dmax, y, 0.5, 1.0),
                                             g.nca_alpha(dmin, dmax, y, 1.0, 1e-3))

"""Check built distributions before anyone installs or publishes them.

    python .ci/check_dist.py DIST_DIR [--complete]

Checks every ``*.tar.gz`` (sdist) and ``*.whl`` in DIST_DIR:

- sdist: has the build files and LICENSE, every ``src/mil/_core/*.pyx`` with its ``.pxd`` and
  NumPy twin, the cimport facade, the tests; no generated ``.c``/``.so``.
- wheel: never ``py3-none-any`` (pip would prefer it and users would silently
  get the slow path); every kernel compiled, with its ``.pyx`` and ``.pxd``;
  ``mil/cython_kernels.pxd`` and ``_typedefs.pxd`` shipped; LICENSE in its
  ``.dist-info`` (and named by ``License-File`` in METADATA); no generated C.
- wheel size (release-sized wheels): each compiled module at most
  ``MAX_MODULE_BYTES`` (512 KiB) uncompressed (built without debug information
  they are 210-300 KB on Linux x86_64; with it, 1.3-1.7 MB), the shipped data
  sets at most ``MAX_DATA_BYTES`` (3.5 MB compressed: the five classic sets
  2.1 MB and MILWEB 1.0 MB; they stay in the wheel because the loaders read
  them from the installed package, with no network), and the whole wheel at
  most ``MAX_WHEEL_BYTES`` (5.0 MB; 4.67 MB on Linux x86_64 for CPython 3.11
  once the regressors of five families landed: 1.7 MB of Python sources).
- ``--complete``: exactly one sdist, and one wheel for every CPython 3.10-3.14
  on every platform of .github/workflows/wheels.yml.

Exits non-zero with one line per problem. Uses the standard library only.
"""

import argparse
import re
import sys
import tarfile
import zipfile
from pathlib import Path

PYTHONS = ["cp310", "cp311", "cp312", "cp313", "cp314"]
# Platform-tag patterns of the wheels.yml matrix (manylinux version may vary).
PLATFORMS = {
    "linux x86_64": r"manylinux_\d+_\d+_x86_64",
    "linux aarch64": r"manylinux_\d+_\d+_aarch64",
    "macOS arm64": r"macosx_\d+_\d+_arm64",
    "macOS x86_64": r"macosx_\d+_\d+_x86_64",
    "Windows AMD64": r"win_amd64",
}
GENERATED = (".c", ".cpp", ".html", ".so", ".pyd", ".o")
MAX_MODULE_BYTES = 512 * 1024
MAX_DATA_BYTES = 3_500_000
MAX_WHEEL_BYTES = 5_000_000


def _mb(n):
    return f"{n / 1e6:.2f} MB"


def check_wheel_size(path):
    """Problems with the size of a wheel (see the module docstring for the budget)."""
    problems = []
    with zipfile.ZipFile(path) as whl:
        infos = whl.infolist()
    for info in infos:
        if info.filename.endswith((".so", ".pyd")) and info.file_size > MAX_MODULE_BYTES:
            problems.append(f"{info.filename} is {_mb(info.file_size)} (budget {_mb(MAX_MODULE_BYTES)}): "
                            "built with debug information? (setup.py builds with -g0, and -s on Linux)")
    data = sum(i.compress_size for i in infos if i.filename.startswith("mil/datasets/"))
    if data > MAX_DATA_BYTES:
        problems.append(f"the shipped data sets take {_mb(data)} (budget {_mb(MAX_DATA_BYTES)})")
    size = path.stat().st_size
    if size > MAX_WHEEL_BYTES:
        problems.append(f"the wheel is {_mb(size)} (budget {_mb(MAX_WHEEL_BYTES)})")
    return problems


def _stems(names, prefix):
    """Kernel stems: the .pyx files directly under {prefix}mil/_core/."""
    pattern = re.compile(re.escape(prefix) + r"mil/_core/([^/]+)\.pyx$")
    return sorted(m.group(1) for n in names if (m := pattern.match(n)))


def check_sdist(path):
    names = tarfile.open(path).getnames()
    top = names[0].split("/", 1)[0] + "/"
    have = {n[len(top):] for n in names if n.startswith(top)}
    problems = []
    stems = _stems(names, top + "src/")
    if not stems:
        problems.append("no src/mil/_core/*.pyx")
    needed = ["pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE",
              "src/mil/__init__.py", "src/mil/_cost_model.json",
              "src/mil/cython_kernels.pxd", "src/mil/_core/_typedefs.pxd", "tests/conftest.py"]
    for stem in stems:
        needed += [f"src/mil/_core/{stem}.pxd", f"src/mil/_core/{stem}_py.py"]
    problems += [f"missing {n}" for n in needed if n not in have]
    problems += [f"generated file {n}" for n in sorted(have) if n.endswith(GENERATED)]
    return problems


def check_wheel(path):
    names = zipfile.ZipFile(path).namelist()
    problems = []
    if path.name.endswith("-none-any.whl") or "-py3-none-" in path.name:
        problems.append("pure-Python wheel: pip would prefer it over compiling the kernels")
    stems = _stems(names, "")
    if not stems:
        problems.append("no mil/_core/*.pyx")
    for stem in stems:
        if not any(re.match(rf"mil/_core/{re.escape(stem)}\.[^/]*\.(so|pyd)$", n) for n in names):
            problems.append(f"no compiled module for {stem}")
        if f"mil/_core/{stem}.pxd" not in names:
            problems.append(f"missing mil/_core/{stem}.pxd")
    for n in ("mil/cython_kernels.pxd", "mil/_core/_typedefs.pxd", "mil/_cost_model.json"):
        if n not in names:
            problems.append(f"missing {n}")
    if not any(n.startswith("mil/datasets/") and n.endswith(".npz") for n in names):
        problems.append("no shipped datasets (mil/datasets/**/*.npz)")
    problems += [f"generated source {n}" for n in names if n.endswith((".c", ".cpp", ".html"))]
    problems += check_wheel_size(path)
    # Wheel metadata 2.4 puts license files under .dist-info/licenses/.
    dist_info = sorted({n.split("/", 1)[0] for n in names if n.split("/", 1)[0].endswith(".dist-info")})
    if len(dist_info) != 1:
        problems.append(f"expected one .dist-info directory, found {dist_info}")
    else:
        if not any(n.startswith(dist_info[0] + "/") and n.endswith("/LICENSE") for n in names):
            problems.append(f"no LICENSE in {dist_info[0]}")
        with zipfile.ZipFile(path) as whl:
            metadata = whl.read(dist_info[0] + "/METADATA").decode("utf-8", "replace")
        if "License-File: LICENSE" not in metadata:
            problems.append("METADATA names no License-File: LICENSE")
    return problems


def check_complete(sdists, wheels):
    problems = []
    if len(sdists) != 1:
        problems.append(f"expected one sdist, found {len(sdists)}")
    for python in PYTHONS:
        for label, platform in PLATFORMS.items():
            # name-version-pythontag-abitag-platform(s).whl; platform may be dotted.
            tag = re.compile(rf"-{python}-{python}-([^-]+\.)*{platform}(\.[^-]+)*\.whl$")
            found = [w.name for w in wheels if tag.search(w.name)]
            if len(found) != 1:
                problems.append(f"{python} {label}: expected one wheel, found {found}")
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dist", type=Path)
    parser.add_argument("--complete", action="store_true",
                        help="require one sdist and the full wheel matrix")
    args = parser.parse_args(argv)

    sdists = sorted(args.dist.glob("*.tar.gz"))
    wheels = sorted(args.dist.glob("*.whl"))
    if not sdists and not wheels:
        print(f"no sdist or wheel in {args.dist}")
        return 1
    failed = False
    for path, check in [(p, check_sdist) for p in sdists] + [(p, check_wheel) for p in wheels]:
        problems = check(path)
        failed |= bool(problems)
        print(f"{'FAIL' if problems else 'ok  '} {path.name} ({_mb(path.stat().st_size)})")
        for problem in problems:
            print(f"     {problem}")
    if args.complete:
        problems = check_complete(sdists, wheels)
        failed |= bool(problems)
        print(f"{'FAIL' if problems else 'ok  '} complete set: {len(wheels)} wheels, "
              f"{len(sdists)} sdist")
        for problem in problems:
            print(f"     {problem}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

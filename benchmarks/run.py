"""The benchmark suite's entry point: list the scripts and what each measures, or run one.

    python benchmarks/run.py                  # the suite, then the studies, one line each
    python benchmarks/run.py NAME [ARGS ...]  # run that script with ARGS (NAME: bench_trees, trees, ...)
    python benchmarks/run.py NAME --help      # the script's own options

The suite is every script in ``benchmarks/`` (``bench_*``: speed, memory and scale; ``reproduce_*``:
accuracy tables); the studies, in ``benchmarks/studies/`` (``study_*``), are how defaults were chosen.
Each is listed by the first line of its module docstring, which states what it measures, and by the
documentation pages that cite it, so a new script needs no edit here. A ``study_*.py`` left at the
top level is listed with the studies.
"""

import argparse
import ast
import difflib
import re
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent
REPO = ROOT.parent
GROUPS = (("bench_", "Speed, memory and scale"), ("reproduce_", "Accuracy"), ("", "Other"))
WIDTH = 100


def scripts():
    """``{"suite": [Path, ...], "studies": [Path, ...]}``: every runnable script, sorted by name."""
    found = {"suite": [], "studies": []}
    for path in sorted(ROOT.glob("*.py")) + sorted((ROOT / "studies").glob("*.py")):
        if path.name.startswith("_") or path == Path(__file__).resolve():
            continue
        study = path.parent.name == "studies" or path.name.startswith("study_")
        found["studies" if study else "suite"].append(path)
    return found


def summary(path):
    """The first line of the module docstring of `path` (read, not imported)."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    return doc.strip().splitlines()[0] if doc and doc.strip() else "(no docstring)"


def citations():
    """``{relative script path: [citing page, ...]}`` from README.md and the docs."""
    pages = [REPO / "README.md"] + sorted((REPO / "docs").rglob("*.rst"))
    cited = {}
    for page in pages:
        if not page.is_file():
            continue
        name = str(page.relative_to(REPO / "docs")).removesuffix(".rst") if page.suffix == ".rst" else page.name
        for ref in set(re.findall(r"benchmarks/([\w/]+\.py)", page.read_text(encoding="utf-8"))):
            cited.setdefault(ref, []).append(name)
    return cited


def listing():
    """The text of ``python benchmarks/run.py``."""
    found, cited = scripts(), citations()

    def entry(path, indent):
        rel = str(path.relative_to(ROOT))
        name = path.stem.ljust(30)
        lines = textwrap.wrap(summary(path), WIDTH - indent - 31, break_on_hyphens=False) or [""]
        out = [" " * indent + name + " " + lines[0]] + [" " * (indent + 31) + line for line in lines[1:]]
        pages = cited.get(rel)
        out.append(" " * (indent + 31) + ("cited by: " + ", ".join(sorted(pages)) if pages else "cited by: nothing yet"))
        return out

    out = ["The suite: benchmarks/*.py, the numbers of the README and docs/results",
           "(run one: python benchmarks/run.py NAME [ARGS]; its options: NAME --help)", ""]
    taken = set()
    for prefix, title in GROUPS:
        group = [p for p in found["suite"] if p.name.startswith(prefix) and p not in taken]
        if group:
            out.append("  " + title)
            for path in group:
                out += entry(path, 4)
            taken.update(group)
            out.append("")
    out += ["The studies: benchmarks/studies/*.py, how the defaults were chosen (cited by the results pages)", ""]
    for path in found["studies"]:
        out += entry(path, 4)
    return "\n".join(out)


def resolve(name):
    """The script `name` names: its stem, file name or path, or its stem without the prefix."""
    every = scripts()["suite"] + scripts()["studies"]
    stem = Path(name).name.removesuffix(".py")
    exact = [p for p in every if p.stem == stem]
    if not exact:
        exact = [p for p in every if p.stem in (f"bench_{stem}", f"reproduce_{stem}", f"study_{stem}")]
    if len(exact) == 1:
        return exact[0]
    if exact:
        raise SystemExit(f"{name!r} is ambiguous: " + ", ".join(p.stem for p in exact))
    close = difflib.get_close_matches(stem, [p.stem for p in every], n=3)
    raise SystemExit(f"no benchmark script {name!r}" + (f"; did you mean {', '.join(close)}?" if close else "")
                     + " (python benchmarks/run.py lists them)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     usage="python benchmarks/run.py [NAME [ARGS ...]]")
    parser.add_argument("name", nargs="?", help="the script to run; without it, the list")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="passed to the script")
    args = parser.parse_args(argv)
    if args.name is None:
        print(listing())
        return 0
    path = resolve(args.name)
    if args.args in (["-h"], ["--help"]):
        print(ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or summary(path))
        if "argparse" not in path.read_text(encoding="utf-8"):
            return 0  # the docstring is all the help a script without argparse has
        print()
    return subprocess.call([sys.executable, str(path), *args.args])


if __name__ == "__main__":
    sys.exit(main())

"""benchmarks/: every script is listed by run.py with its claim, and every cited script path exists."""

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("_bench_run", REPO / "benchmarks" / "run.py")
run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run)


def _every_script():
    found = run.scripts()
    return found["suite"] + found["studies"]


def test_every_script_states_its_claim():
    scripts = _every_script()
    assert len(scripts) > 10
    for path in scripts:
        line = run.summary(path)
        assert line != "(no docstring)", f"{path.name}: the module docstring's first line states its claim"


def test_listing_names_every_script():
    out = subprocess.run([sys.executable, str(REPO / "benchmarks" / "run.py")], capture_output=True,
                         text=True, check=True).stdout
    for path in _every_script():
        assert re.search(rf"^\s+{path.stem}\s", out, re.M), path.stem
    assert "studies" in out


def test_cited_paths_exist():
    """Every ``benchmarks/....py`` named in the README, the docs or the code is a file."""
    texts = [REPO / "README.md"] + sorted((REPO / "docs").rglob("*.rst")) + sorted((REPO / "src").rglob("*.py"))
    missing = set()
    for text in texts:
        for ref in re.findall(r"benchmarks/[\w/]+\.py", text.read_text(encoding="utf-8")):
            if not (REPO / ref).is_file():
                missing.add(f"{text.relative_to(REPO)}: {ref}")
    assert not missing, sorted(missing)


def test_every_study_is_cited():
    cited = run.citations()
    uncited = [p.stem for p in run.scripts()["studies"] if str(p.relative_to(run.ROOT)) not in cited]
    assert not uncited, f"studies no page cites (cite them or remove them): {uncited}"


@pytest.mark.parametrize("name, stem", [("bench_trees", "bench_trees"), ("bench_trees.py", "bench_trees"),
                                        ("tree_configs", "study_tree_configs"),
                                        ("benchmarks/studies/study_tree_configs.py", "study_tree_configs")])
def test_resolve(name, stem):
    assert run.resolve(name).stem == stem


@pytest.mark.parametrize("name, message", [("trees", "ambiguous"), ("bench_tree", "did you mean")])
def test_resolve_errors(name, message):
    with pytest.raises(SystemExit, match=message):
        run.resolve(name)

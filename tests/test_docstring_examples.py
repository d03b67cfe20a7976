"""The Examples sections of mil's docstrings run and print what they say."""

import doctest
import importlib
import pkgutil

import pytest

import mil


def _modules():
    names = []
    for info in pkgutil.walk_packages(mil.__path__, "mil."):
        if ".tests" in info.name:
            continue
        names.append(info.name)
    return sorted(names)


def _examples(name):
    try:
        module = importlib.import_module(name)
    except ImportError as exc:  # an optional dependency (POT, matplotlib) is missing
        pytest.skip(f"{name}: {exc}")
    return [t for t in doctest.DocTestFinder().find(module, name) if t.examples]


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name):
    failures = []
    for test in _examples(name):
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        report = []
        result = runner.run(test, out=report.append)
        if result.failed:
            failures.append("".join(report))
    assert not failures, "\n".join(failures)

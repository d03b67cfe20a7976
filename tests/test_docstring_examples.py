"""The Examples sections of mil's docstrings run and print what they say."""

import doctest
import importlib
import pkgutil

import pytest

import mil

#: Optional dependencies: a module whose import fails for want of one of these is
#: skipped with the reason; any other ImportError is a failure.
OPTIONAL = {"ot", "matplotlib", "dask", "distributed", "h5py", "pyarrow", "pandas"}


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
    except ImportError as exc:
        missing = (exc.name or "").split(".")[0]
        if missing in OPTIONAL:
            pytest.skip(f"{name} needs the optional dependency {missing}: {exc}")
        raise
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

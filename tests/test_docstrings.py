"""numpydoc's docstring validation on every public estimator and its public methods.

The checks are those scikit-learn's own ``sklearn/tests/test_docstrings.py``
enables: every numpydoc check except RT02, GL01 and GL02; on methods also
not EX01, SA01 and ES01 (a class's docstring carries the examples, the
extended summary and See Also); PR02 and GL08 not on properties.
"""

import importlib
import inspect
import pkgutil

import pytest
from sklearn.base import BaseEstimator

import mil

validate = pytest.importorskip("numpydoc.validate")

IGNORED = {"RT02", "GL01", "GL02"}
CLASS_ONLY = {"EX01", "SA01", "ES01"}


def _public_estimators():
    found = {}
    for info in pkgutil.walk_packages(mil.__path__, "mil."):
        if any(part.startswith("_") for part in info.name.split(".")[1:]):
            continue
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if inspect.isclass(obj) and issubclass(obj, BaseEstimator) and obj.__module__ != "mil.base":
                found[obj.__name__] = obj
    return [found[name] for name in sorted(found)]


def _public_methods(cls):
    for name in sorted(dir(cls)):
        if name.startswith("_"):
            continue
        attr = getattr(cls, name)
        if callable(attr) or isinstance(attr, property):
            yield name


def _errors(cls, method):
    path = f"{cls.__module__}.{cls.__qualname__}" + ("" if method is None else f".{method}")
    result = validate.validate(path)
    for code, message in result["errors"]:
        if code in IGNORED or (method is not None and code in CLASS_ONLY):
            continue
        if code in ("PR02", "GL08") and method is not None and isinstance(getattr(cls, method), property):
            continue
        yield f"{path}: {code} {message}"


@pytest.mark.parametrize("cls", _public_estimators(), ids=lambda c: c.__name__)
def test_docstrings_pass_numpydoc_validation(cls):
    errors = [e for method in [None, *_public_methods(cls)] for e in _errors(cls, method)]
    assert not errors, "\n".join(errors)

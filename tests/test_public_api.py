"""Every public estimator class is importable from ``mil`` itself."""

import importlib
import inspect
import pkgutil

from sklearn.base import BaseEstimator

import mil


def _public_modules():
    for info in pkgutil.walk_packages(mil.__path__, "mil."):
        if not any(part.startswith("_") for part in info.name.split(".")[1:]):
            yield importlib.import_module(info.name)


def _public_estimators():
    found = {}
    for module in _public_modules():
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            # mil.base holds the base classes, which are not for direct use.
            if inspect.isclass(obj) and issubclass(obj, BaseEstimator) and obj.__module__ != "mil.base":
                found.setdefault(obj, module.__name__)
    return found


def test_every_public_estimator_is_importable_from_mil():
    found = _public_estimators()
    assert len(found) >= 19  # the learners, the embeddings, the wrappers and BagScaler
    missing = sorted(f"{cls.__name__} (from {module})" for cls, module in found.items()
                     if getattr(mil, cls.__name__, None) is not cls or cls.__name__ not in mil.__all__)
    assert not missing, f"not exported from mil: {missing}"


def test_the_wrappers_import_from_mil():
    from mil import MIWrapperClassifier, SimpleMIClassifier, SingleInstanceClassifier
    from mil.wrappers import MIWrapperClassifier as M, SimpleMIClassifier as S, SingleInstanceClassifier as I

    assert (MIWrapperClassifier, SimpleMIClassifier, SingleInstanceClassifier) == (M, S, I)


def test_mil_all_names_exist():
    assert all(hasattr(mil, name) for name in mil.__all__)
    assert len(set(mil.__all__)) == len(mil.__all__)

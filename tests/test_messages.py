"""Error messages show values as Python shows them to a user: ``0``, not ``np.int64(0)``."""

import numpy as np
import pytest

import mil
from mil.utils.validation import check_bag_labels, check_int, positive_index, shown


def _bags(n=6, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(3, 2)) for _ in range(n)]


@pytest.mark.parametrize("value, text", [
    (np.int64(0), "0"), (np.float64(2.5), "2.5"), (np.str_("yes"), "'yes'"), (np.bool_(True), "True"),
    (np.array([0, 1]), "[0, 1]"), ([np.int64(1), (np.float32(0.5), "a")], "[1, (0.5, 'a')]"),
    ("yes", "'yes'"), (None, "None"),
])
def test_shown(value, text):
    assert shown(value) == text


def test_one_class_names_the_label_as_python_shows_it():
    with pytest.raises(ValueError, match=r"one class only \(0\)"):
        check_bag_labels(np.zeros(4, dtype=np.int64), 4)
    with pytest.raises(ValueError, match=r"one class only \('yes'\)"):
        check_bag_labels(np.array(["yes"] * 4), 4)


def test_positive_class_not_a_label():
    with pytest.raises(ValueError, match=r"positive_class=3 is not one of the labels \[0, 1\]"):
        positive_index(np.array([0, 1]), np.int64(3))


def test_check_int_names_a_numpy_float():
    with pytest.raises(TypeError, match=r"got 2\.5$"):
        check_int(np.float64(2.5), "n")


# Every estimator exported from mil, fitted on NumPy-typed labels of one class and with a
# positive_class that is not a label: no message shows a NumPy repr.
# (SingleInstanceClassifier takes an estimator: the wrappers test it with one.)
_CLASSES = sorted((getattr(mil, name) for name in mil.__all__
                   if (name.endswith("Classifier") or name == "BagKernelSVC")
                   and name != "SingleInstanceClassifier"), key=lambda c: c.__name__)


@pytest.mark.parametrize("cls", _CLASSES, ids=lambda c: c.__name__)
def test_no_numpy_repr_in_label_errors(cls):
    X = _bags()
    for y in (np.zeros(6, dtype=np.int64), np.array(["no"] * 6)):
        with pytest.raises(ValueError) as exc:
            cls().fit(X, y)
        assert "np." not in str(exc.value) and "dtype" not in str(exc.value), str(exc.value)
    if "positive_class" in cls().get_params():
        with pytest.raises(ValueError) as exc:
            cls(positive_class=np.int64(7)).fit(X, np.array([0, 1] * 3))
        assert "positive_class=7" in str(exc.value) and "np." not in str(exc.value), str(exc.value)


def test_bag_kernel_svc_names_the_class_without_weight():
    X, y = _bags(8), np.array([0, 1] * 4, dtype=np.int64)
    weight = np.where(y == 1, 0.0, 1.0)
    with pytest.raises(ValueError, match=r"^class 1 has no bag with a positive weight"):
        mil.BagKernelSVC().fit(X, y, sample_weight=weight)


def test_table_without_label_names_the_value():
    from mil.datasets import from_frame

    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"bag": [1, 1, 2], "label": [1.0, 1.0, np.nan], "x": [0.0, 1.0, 2.0]})
    with pytest.raises(ValueError, match=r"bag 2 has no label \(row 2 of the table: nan in"):
        from_frame(df)

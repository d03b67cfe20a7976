"""Bag-level permutation importance and set_output on the bag transformer."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.pipeline import make_pipeline

from mil import Bags
from mil.inspection import permutation_importance
from mil.preprocessing import BagScaler
from mil.tree import C45MIClassifier


def _one_feature_carries_the_label(n_bags=60, seed=0):
    """Positive bags hold one instance with feature 1 above 5; features 0 and 2 are noise."""
    rng = np.random.default_rng(seed)
    X, y = [], []
    for b in range(n_bags):
        bag = rng.random((int(rng.integers(2, 5)), 3))
        if b % 2:
            bag[0, 1] += 5.0
        X.append(bag)
        y.append(b % 2)
    return X, np.array(y)


def test_the_feature_that_carries_the_label_is_the_important_one(backend):
    X, y = _one_feature_carries_the_label()
    clf = C45MIClassifier().fit(X, y)
    assert clf.score(X, y) == 1.0
    r = permutation_importance(clf, X, y, n_repeats=5, random_state=0)
    assert r.importances.shape == (3, 5) and r.baseline_score == 1.0
    # Shuffling feature 1 across instances leaves about half the bags with a
    # high value somewhere: accuracy falls towards chance.
    assert r.importances_mean[1] > 0.2
    unused = set(range(3)) - set(clf.tree_.feature[clf.tree_.feature >= 0].tolist())
    for j in unused:
        assert r.importances_mean[j] == 0.0 and r.importances_std[j] == 0.0
    # Reproducible, and n_jobs does not change it.
    again = permutation_importance(clf, X, y, n_repeats=5, random_state=0, n_jobs=2)
    np.testing.assert_array_equal(again.importances, r.importances)
    auc = permutation_importance(clf, X, y, scoring="roc_auc", random_state=0)
    assert auc.baseline_score == 1.0 and auc.importances_mean[1] > 0.1


def test_names_inputs_and_errors():
    pd = pytest.importorskip("pandas")
    X, y = _one_feature_carries_the_label(30)
    frames = [pd.DataFrame(b, columns=["a", "signal", "c"]) for b in X]
    clf = C45MIClassifier().fit(frames, y)
    with_frames = permutation_importance(clf, frames, y, random_state=0)
    assert with_frames.feature_names.tolist() == ["a", "signal", "c"]
    assert np.argmax(with_frames.importances_mean) == 1
    # Plain arrays for a model fitted with names: the fitted names are used, no warning.
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plain = permutation_importance(clf, X, y, random_state=0)
    np.testing.assert_array_equal(plain.importances, with_frames.importances)
    with pytest.raises(ValueError, match="n_repeats must be a positive integer"):
        permutation_importance(clf, X, y, n_repeats=0)
    with pytest.raises(ValueError, match="y has 3 labels but X has 30 bags"):
        permutation_importance(clf, X, y[:3])
    before = [b.copy() for b in X]
    permutation_importance(clf, X, y, random_state=1)
    for a, b in zip(X, before):
        np.testing.assert_array_equal(a, b)  # the input is not modified


def test_set_output_pandas_gives_one_frame_per_bag():
    pd = pytest.importorskip("pandas")
    X, y = _one_feature_carries_the_label(20)
    frames = [pd.DataFrame(b, columns=["a", "signal", "c"]) for b in X]
    scaler = BagScaler().set_output(transform="pandas")
    out = scaler.fit_transform(frames)
    assert isinstance(out, list) and len(out) == 20
    assert all(isinstance(f, pd.DataFrame) and list(f.columns) == ["a", "signal", "c"] for f in out)
    np.testing.assert_allclose(np.vstack(out), BagScaler().fit_transform(frames).instances)
    assert scaler.get_feature_names_out().tolist() == ["a", "signal", "c"]
    assert clone(scaler).set_output().fit_transform(frames)[0].shape == (len(X[0]), 3)  # clone keeps it
    # Default output: Bags, carrying the names on.
    default = BagScaler().fit_transform(frames)
    assert isinstance(default, Bags) and default.feature_names.tolist() == ["a", "signal", "c"]
    # In a pipeline the learner sees the names.
    pipe = make_pipeline(BagScaler(), C45MIClassifier()).set_output(transform="pandas").fit(frames, y)
    assert pipe[-1].feature_names_in_.tolist() == ["a", "signal", "c"]
    plain = BagScaler().set_output(transform="pandas").fit_transform(X)
    assert list(plain[0].columns) == ["x0", "x1", "x2"]
    with pytest.raises(ValueError, match="'default' or 'pandas'"):
        BagScaler().set_output(transform="polars")


def test_nested_parameters_of_a_default_inner_estimator_say_how_to_tune_it():
    from sklearn.model_selection import GridSearchCV
    from sklearn.tree import DecisionTreeClassifier

    from mil.wrappers import MIWrapperClassifier, SimpleMIClassifier

    X, y = _one_feature_carries_the_label(20)
    for cls in (SimpleMIClassifier, MIWrapperClassifier):
        with pytest.raises(ValueError, match="pass the inner estimator explicitly"):
            GridSearchCV(cls(), {"estimator__max_depth": [1, 2]}, cv=2).fit(X, y)
        search = GridSearchCV(cls(estimator=DecisionTreeClassifier()), {"estimator__max_depth": [1, 2]},
                              cv=2).fit(X, y)
        assert search.best_params_["estimator__max_depth"] in (1, 2)

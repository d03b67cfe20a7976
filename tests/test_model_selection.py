"""nested_cv: the sliced-matrix fast path equals refitting, and the protocol's shape."""

import numpy as np
import pytest
from sklearn.base import clone

from mil import BagKNNClassifier, CitationKNNClassifier
from mil.base import BaseBagClassifier
from mil.model_selection import nested_cv, paper_grid
from mil.utils.estimator_checks import make_toy_bags


class MeanInstanceClassifier(BaseBagClassifier):
    """Nearest class mean of bag-mean vectors (a non-distance learner for the refit path)."""

    _binary_only = False
    _parameter_constraints = {"shrink": [float]}

    def __init__(self, shrink=0.0):
        self.shrink = shrink

    def fit(self, X, y):
        bags, y_enc = self._validate_fit(X, y)
        means = np.array([b.mean(axis=0) for b in bags])
        self.centers_ = np.array([means[y_enc == c].mean(axis=0) for c in range(len(self.classes_))])
        self.centers_ *= 1.0 - self.shrink
        return self

    def predict_proba(self, X):
        bags = self._validate_predict(X)
        means = np.array([b.mean(axis=0) for b in bags])
        d = ((means[:, None, :] - self.centers_[None]) ** 2).sum(-1)
        p = np.exp(-(d - d.min(1, keepdims=True)))
        return p / p.sum(1, keepdims=True)


def manual_nested(estimator, grid, X, y, outer, inner_cv, scale):
    """The protocol by brute force: GridSearch by hand with plain fit/predict."""
    from sklearn.model_selection import ParameterGrid, StratifiedKFold

    grid = list(ParameterGrid(grid))
    scores, params = [], []
    for k in np.unique(outer):
        tr, te = np.flatnonzero(outer != k), np.flatnonzero(outer == k)
        inner = StratifiedKFold(inner_cv, shuffle=True, random_state=0)
        mean = np.zeros(len(grid))
        for a, b in inner.split(np.zeros(len(tr)), y[tr]):
            for g, p in enumerate(grid):
                est = clone(estimator).set_params(**p)
                if scale is not None:
                    # nested_cv scales with the outer training part: do the same.
                    from mil._scaling import fit_scaling
                    from mil.bags import Bags
                    allb = Bags.from_list(X)
                    off, fac = fit_scaling(allb.instances[np.isin(allb.instance_bag, tr)], scale)
                    Xs = [(x - off) / fac for x in X]
                    est.set_params(scale=None)
                else:
                    Xs = X
                est.fit([Xs[i] for i in tr[a]], y[tr[a]])
                mean[g] += np.mean(est.predict([Xs[i] for i in tr[b]]) == y[tr[b]])
        best = int(np.argmax(mean))
        est = clone(estimator).set_params(**grid[best])
        est.fit([X[i] for i in tr], y[tr])
        scores.append(np.mean(est.predict([X[i] for i in te]) == y[te]))
        params.append(grid[best])
    return np.array(scores), params


@pytest.mark.parametrize("est", [
    CitationKNNClassifier(scale=None),
    CitationKNNClassifier(metric="integrated", scale=None),
    BagKNNClassifier(metric="adapted", scale=None),
    CitationKNNClassifier(metric="average", scale="standard"),
])
def test_fast_path_equals_refitting(est):
    X, y = make_toy_bags(n_bags=40, random_state=11)
    outer = np.arange(40) % 4
    grid = paper_grid(est, sigmas=(0.5, 5.0))
    res = nested_cv(est, grid, X, y, outer, inner_cv=3)
    scores, params = manual_nested(est, grid, X, y, outer, 3, est.scale)
    np.testing.assert_allclose(res.test_scores, scores)
    assert res.best_params == params
    assert res.test_scores.shape == (4,) and res.mean_score == pytest.approx(scores.mean())
    assert res.total_time >= res.distance_time >= 0


def test_refit_path_and_int_folds():
    X, y = make_toy_bags(n_bags=30, random_state=12)
    res = nested_cv(MeanInstanceClassifier(), {"shrink": [0.0, 0.5]}, X, y, outer_folds=3, inner_cv=3)
    assert res.test_scores.shape == (3,) and len(res.best_params) == 3
    assert res.distance_time == 0.0


def test_n_jobs_does_not_change_results():
    X, y = make_toy_bags(n_bags=30, random_state=13)
    est = CitationKNNClassifier(metric="integrated")
    grid = paper_grid(est, sigmas=(1.0,))
    one = nested_cv(est, grid, X, y, outer_folds=3, inner_cv=3)
    two = nested_cv(est, grid, X, y, outer_folds=3, inner_cv=3, n_jobs=2)
    np.testing.assert_array_equal(one.test_scores, two.test_scores)
    assert one.best_params == two.best_params


def test_paper_grid():
    g = paper_grid(CitationKNNClassifier())
    assert [(d["references"], d["citers"]) for d in g] == [([1], [3]), ([3], [5]), ([5], [7]), ([7], [9])]
    assert "sigma" not in g[0]
    assert len(paper_grid(CitationKNNClassifier(metric="integrated"))[0]["sigma"]) == 10
    assert paper_grid(BagKNNClassifier()) == [{"n_neighbors": [1, 3, 5, 7]}]


def test_paper_grid_cv_alpha():
    g = paper_grid(CitationKNNClassifier(metric="integrated"), alpha="cv")
    assert g[0]["alpha"][0] == 0.0 and g[0]["alpha"][-1] == 1.0 and len(g[0]["alpha"]) == 11
    assert "sigma" not in g[0]
    with pytest.raises(ValueError, match="alpha"):
        paper_grid(CitationKNNClassifier(), alpha="magic")


def test_nested_cv_takes_a_regressor_with_kfold_and_r2():
    from sklearn.linear_model import Ridge

    from mil import SimpleMIRegressor

    rng = np.random.default_rng(0)
    y = rng.uniform(0, 10, size=40)
    X = [rng.normal(size=(4, 3)) + t / 3 for t in y]
    res = nested_cv(SimpleMIRegressor(Ridge()), {"estimator__alpha": [0.1, 10.0]}, X, y, outer_folds=4, inner_cv=3)
    assert len(res.test_scores) == 4 and np.all(res.test_scores > 0.5)  # R^2: the means carry y
    assert all(p["estimator__alpha"] in (0.1, 10.0) for p in res.best_params)

"""mil._tuning: the inner-CV rules shared by MILES, MInD, BagKernelSVC, mi-SVM and MI-SVM."""

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from scipy.special import log_softmax

from mil._tuning import best_index, fit_sigmoid, grid_scores, inner_folds, positive_weight_bags, select


def _platt_lr(scores, y, w, intercept):
    """Logistic regression on Platt's targets (each row twice, weights t and 1 - t)."""
    from sklearn.linear_model import LogisticRegression

    w = np.ones(len(y)) if w is None else w
    n_pos, n_neg = w[y == 1].sum(), w[y == 0].sum()
    t = np.where(y == 1, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
    lr = LogisticRegression(C=1e12, tol=1e-12, max_iter=10_000, fit_intercept=intercept)
    lr.fit(np.r_[scores, scores][:, None], np.r_[np.ones(len(y)), np.zeros(len(y))],
           sample_weight=np.r_[w * t, w * (1 - t)])
    return lr.coef_[0, 0], (lr.intercept_[0] if intercept else 0.0)


@pytest.mark.parametrize("intercept", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_fit_sigmoid_is_the_platt_maximum_likelihood(intercept, weighted):
    rng = np.random.default_rng(3)
    y = (rng.random(300) < 0.4).astype(int)
    scores = 50.0 * (np.where(y == 1, 0.8, -0.2) + rng.normal(size=300))  # any scale
    w = rng.uniform(0.5, 2.0, size=300) if weighted else None
    a, b = fit_sigmoid(scores, y, w, intercept=intercept)
    ref_a, ref_b = _platt_lr(scores, y, w, intercept)
    assert a == pytest.approx(ref_a, rel=1e-6)
    assert b == pytest.approx(ref_b, abs=1e-6)
    if intercept:
        assert -b / a != pytest.approx(0.0, abs=1.0)  # the case the intercept is for


def test_fit_sigmoid_separable_constant_and_softmax():
    # Separable scores: Platt's targets keep the optimum finite.
    s = np.array([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0])
    y = np.array([0, 0, 0, 1, 1, 1])
    a, _ = fit_sigmoid(s, y)
    assert 0 < a < 10
    assert fit_sigmoid(np.zeros(6), y) == (1.0, 0.0)
    # Three classes: the temperature of softmax(a F) against a bounded scalar search.
    rng = np.random.default_rng(0)
    t = np.arange(60) % 3
    F = rng.normal(size=(60, 3))
    F[np.arange(60), t] += 1.0
    eps = 1 / 62
    T = np.full(F.shape, eps / 3)
    T[np.arange(60), t] += 1 - eps
    ref = minimize_scalar(lambda a: -np.sum(T * log_softmax(a * F, axis=1)), bounds=(1e-3, 100),
                          method="bounded", options={"xatol": 1e-12}).x
    a, b = fit_sigmoid(F, t)
    assert a == pytest.approx(ref, rel=1e-6) and b == 0.0
    with pytest.raises(ValueError, match="two classes"):
        fit_sigmoid(F, t, intercept=True)


def test_fit_sigmoid_is_continuous_in_the_last_bits():
    # Scores that differ in their last bits (the two backends) give scales that do too:
    # the solver stops at rounding level, not at a tolerance that amplifies the difference.
    rng = np.random.default_rng(1)
    y = np.arange(80) % 2
    s = y - 0.5 + rng.normal(size=80)
    s2 = s * (1 + 1e-15 * rng.standard_normal(80))
    for intercept in (False, True):
        a1, b1 = fit_sigmoid(s, y, intercept=intercept)
        a2, b2 = fit_sigmoid(s2, y, intercept=intercept)
        assert abs(a1 - a2) <= 1e-12 * a1 and abs(b1 - b2) <= 1e-12


def test_inner_folds_rules():
    y = np.r_[np.zeros(12, int), np.ones(4, int)]
    # None is 5 folds, reduced to the smallest class count (4); seeded by random_state.
    folds = inner_folds(None, y, random_state=0)
    assert len(folds) == 4
    assert all(np.bincount(y[te], minlength=2)[1] == 1 for _, te in folds)
    same = inner_folds(None, y, random_state=0)
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(folds, same))
    other = inner_folds(None, y, random_state=1)
    assert not all(np.array_equal(a[1], b[1]) for a, b in zip(folds, other))
    assert len(inner_folds(3, y, random_state=0, repeats=2)) == 6
    # cv=1, or a class with a single bag: no inner fit.
    assert inner_folds(1, y) == [] and inner_folds(5, np.r_[y, 2]) == []
    # A splitter's indices over every bag of fit are renumbered among the kept bags, and a
    # fold whose training part lacks a class is skipped.
    keep = np.arange(1, 16)
    given = [(np.arange(8, 16), np.arange(8)), (np.arange(12), np.arange(12, 16))]
    folds = inner_folds(given, y[keep], keep=keep, n_total=16)
    assert len(folds) == 1
    np.testing.assert_array_equal(folds[0][1], np.arange(7))
    np.testing.assert_array_equal(folds[0][0], np.arange(7, 15))


def test_positive_weight_bags_names_the_class():
    y = np.array([0, 0, 1, 1])
    assert positive_weight_bags(None, y, np.array(["a", "b"])) is None
    np.testing.assert_array_equal(positive_weight_bags(np.array([1.0, 0, 1, 1]), y, np.array(["a", "b"])),
                                  [0, 2, 3])
    with pytest.raises(ValueError, match="class 'b' has no bag with a positive weight"):
        positive_weight_bags(np.array([1.0, 1, 0, 0]), y, np.array(["a", "b"]))


def test_ties_go_to_the_first_C_then_the_first_parameter():
    values = np.array([[0.5, 0.9, 0.9],
                       [0.9, 0.7, 0.9]])
    assert best_index(values) == (1, 0)  # the first C reaching 0.9
    assert best_index(np.full((3, 2), 0.5)) == (0, 0)


def test_grid_scores_and_select_without_folds():
    t = np.array([0, 0, 1, 1])
    s = np.array([[[-1.0, 0.5, 2.0, -0.5], [-1.0, -0.5, 2.0, 0.5]]])  # 1 x 2 grid
    np.testing.assert_allclose(grid_scores(s, t), [[0.5, 1.0]])
    np.testing.assert_allclose(grid_scores(s, t, scoring="roc_auc"), [[0.75, 1.0]])  # 3 of 4 pairs ordered
    w = np.array([1.0, 3.0, 1.0, 1.0])
    np.testing.assert_allclose(grid_scores(s, t, w), [[2 / 6, 1.0]])
    sel = select([], (3, 4), None, t)
    assert sel.index == (1, 2) and sel.scale == 1.0 and sel.cut == 0.0 and sel.scores is None


def _zero_weight_cases():
    from mil.embedding import MILESClassifier, MInDClassifier
    from mil.svm import BagKernelSVC, MISVMClassifier, miSVMClassifier

    return [MInDClassifier(C=10.0, cv=1), MInDClassifier(random_state=0),
            MILESClassifier(C=1.0, cv=1, random_state=0),
            miSVMClassifier(kernel="rbf", C=10.0, random_state=0),
            MISVMClassifier(kernel="rbf", C=10.0, random_state=0),
            BagKernelSVC(kernel="minimal", C=10.0, random_state=0)]


@pytest.mark.parametrize("est", _zero_weight_cases(), ids=lambda e: type(e).__name__)
def test_zero_weight_bags_are_absent_bags(est, backend):
    # Zero-weight bags listed first or last give the same model, and the model fitted
    # without them: they are dropped before anything else (scaling, folds, the SVM).
    from sklearn.base import clone

    from mil.utils.estimator_checks import make_toy_bags

    X, y = make_toy_bags(n_bags=30, random_state=0)
    w = np.ones(30)
    w[:4] = 0
    order = np.r_[4:30, 0:4]
    a = clone(est).fit(X, y, sample_weight=w)
    b = clone(est).fit([X[i] for i in order], y[order], sample_weight=w[order])
    c = clone(est).fit(X[4:], y[4:])
    for other in (b, c):
        np.testing.assert_array_equal(a.predict(X), other.predict(X))
        np.testing.assert_allclose(a.decision_function(X), other.decision_function(X), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("est", _zero_weight_cases(), ids=lambda e: type(e).__name__)
def test_a_class_without_positive_weight_is_named(est):
    from sklearn.base import clone

    from mil.utils.estimator_checks import make_toy_bags

    X, y = make_toy_bags(n_bags=20, random_state=0)
    labels = np.where(y == 1, "pos", "neg")
    est = clone(est)
    if "positive_class" in est.get_params():
        est.set_params(positive_class="pos")
    with pytest.raises(ValueError, match="class 'pos' has no bag with a positive weight"):
        est.fit(X, labels, sample_weight=(y == 0).astype(float))


@pytest.mark.parametrize("est", _zero_weight_cases()[1:], ids=lambda e: type(e).__name__)
def test_cv_none_is_five_folds_and_small_data_works(est):
    # cv=None means scikit-learn's 5 folds in all five learners; 4 bags per class give 4.
    from sklearn.base import clone

    from mil.utils.estimator_checks import make_toy_bags

    X, y = make_toy_bags(n_bags=8, random_state=0)
    grid = {"C": [1.0, 10.0]} if "Cs" not in est.get_params() else {"C": None, "Cs": [1.0, 10.0]}
    a = clone(est).set_params(cv=None, **grid).fit(X, y)
    b = clone(est).set_params(cv=5, **grid).fit(X, y)
    assert a.cv_results_ is not None and a.cv_results_.shape[1] == 2
    np.testing.assert_array_equal(a.cv_results_, b.cv_results_)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    one = clone(est).set_params(cv=1, **grid).fit(X, y)
    assert one.cv_results_ is None and one.proba_scale_ == 1.0


def _all_learners():
    from mil._learners import LEARNERS

    return list(LEARNERS)


@pytest.mark.parametrize("name", _all_learners())
def test_registry_rows_are_the_class_defaults(name):
    # The README's rows are measured with the registry's learners: the class a user writes
    # gives the same model, but for the seed (the reproduction passes seeds 0-2), the bag
    # kernel (one class, six kernels) and the listed, justified differences.
    from mil._learners import DEFAULT_DIFFERENCES, available_learners, make_learner

    if name not in available_learners():
        pytest.skip(f"{name} is not available (POT missing)")
    est = make_learner(name)
    params, defaults = est.get_params(deep=False), type(est)().get_params(deep=False)
    # repr: estimators (the wrappers' inner models) compare by their parameters, not identity.
    differ = {k for k in params if repr(params[k]) != repr(defaults[k])} - {"random_state", "kernel"}
    assert differ == set(DEFAULT_DIFFERENCES.get(name, ()))

"""mil._tuning: the engine and the inner-CV rules shared by every learner tuned inside fit."""

import inspect

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from scipy.special import log_softmax

from mil._tuning import best_index, fit_sigmoid, grid_scores, inner_folds, positive_weight_bags, select
from mil.utils.estimator_checks import make_toy_bags


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
    from mil._learners import DEFAULT_DIFFERENCES, _class_of, available_learners, make_learner

    if name not in available_learners():
        pytest.skip(f"{name} is not available (POT missing)")
    est = make_learner(name)
    if not inspect.isclass(_class_of(name)):
        # A factory (the recommended vote) has no class defaults: its members must be the
        # registry's rows, each held to its class's defaults under its own name.
        members = est.get_params(deep=False)["estimators"]
        assert [(n, {k: repr(v) for k, v in m.get_params(deep=False).items()}) for n, m in members] == [
            (n, {k: repr(v) for k, v in make_learner(n).get_params(deep=False).items()}) for n, _ in members]
        return
    params, defaults = est.get_params(deep=False), type(est)().get_params(deep=False)
    # repr: estimators (the wrappers' inner models) compare by their parameters, not identity.
    differ = {k for k in params if repr(params[k]) != repr(defaults[k])} - {"random_state", "kernel"}
    assert differ == set(DEFAULT_DIFFERENCES.get(name, ()))


# -- the engine ------------------------------------------------------------------------

def _mean_ridge_class():
    """A tiny bag regressor on the engine: ridge regression on the bags' mean instances,
    the means' multiplier a representation grid, alpha the model grid."""
    from sklearn.linear_model import Ridge
    from sklearn.utils import Bunch

    from mil._tuning import REGRESSION_CONSTRAINTS, TunedRegressorMixin
    from mil.base import BaseBagRegressor

    class MeanRidge(TunedRegressorMixin, BaseBagRegressor):
        _parameter_constraints = {**REGRESSION_CONSTRAINTS, "alphas": ["array-like"], "factors": ["array-like"]}

        def __init__(self, alphas=(0.01, 1.0, 100.0), factors=(1.0, 3.0), *, cv=4, cv_repeats=1,
                     scoring="neg_mean_squared_error", random_state=None):
            self.alphas, self.factors, self.cv, self.cv_repeats = alphas, factors, cv, cv_repeats
            self.scoring, self.random_state = scoring, random_state

        # the engine's hooks
        @staticmethod
        def _means(bags):
            return np.add.reduceat(bags.instances, bags.offsets[:-1]) / np.diff(bags.offsets)[:, None]

        def _represent(self, bags, target, seeds):
            return Bunch(means=self._means(bags))

        def _grid(self, rep):
            return [{"factor": float(f)} for f in self.factors], [{"alpha": float(a)} for a in self.alphas]

        def _design(self, fold, row):
            return row["factor"] * fold.rep.means[fold.train], row["factor"] * fold.rep.means[fold.test]

        def _cut(self, rep, train, test):
            return Bunch(rep=rep, train=train, test=test)

        def _model(self, row, col, seeds, inner):
            return Ridge(alpha=col["alpha"])

        def _keep(self, rep, fold, row, col, model, selection):
            self.factor_, self.model_ = row["factor"], model

        def _decision(self, bags):
            return self.model_.predict(self.factor_ * self._means(bags))

    return MeanRidge


def _regression_bags(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = [rng.normal(size=(int(rng.integers(2, 6)), 3)) for _ in range(n)]
    y = np.array([b[:, 0].mean() * 2.0 - b[:, 1].mean() for b in X]) + 0.1 * rng.normal(size=n)
    return X, y


def test_engine_regression_path_is_kfold_on_the_representation():
    """A regressor on the engine: plain shuffled KFold, neg MSE over the pooled out-of-fold
    predictions, ties to the first alpha then the first row, no calibration; the refit on all."""
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import KFold

    from mil._tuning import SEED_MAX

    MeanRidge = _mean_ridge_class()
    X, y = _regression_bags()
    reg = MeanRidge(random_state=5).fit(X, y)
    means = np.array([b.mean(axis=0) for b in X])
    seed = np.random.RandomState(5).randint(SEED_MAX)
    expected = np.zeros((2, 3))
    for i, f in enumerate((1.0, 3.0)):
        for j, a in enumerate((0.01, 1.0, 100.0)):
            pred = np.empty(len(y))
            for tr, te in KFold(4, shuffle=True, random_state=seed).split(means):
                pred[te] = Ridge(alpha=a).fit(f * means[tr], y[tr]).predict(f * means[te])
            expected[i, j] = -np.mean((pred - y) ** 2)
    np.testing.assert_allclose(reg.cv_results_, expected, rtol=1e-12)
    i, j = best_index(expected)
    assert reg.best_params_ == {"factor": (1.0, 3.0)[i], "alpha": (0.01, 1.0, 100.0)[j]}
    assert not hasattr(reg, "proba_scale_")
    ref = Ridge(alpha=reg.best_params_["alpha"]).fit(reg.factor_ * means, y)
    np.testing.assert_allclose(reg.predict(X), ref.predict(reg.factor_ * means), rtol=1e-12)
    assert reg.score(X, y) > 0.8
    # r2 and MAE are scorings too; cv=1 is the middle of each grid, no inner fit.
    assert MeanRidge(scoring="r2", random_state=5).fit(X, y).cv_results_.max() <= 1.0
    one = MeanRidge(cv=1).fit(X, y)
    assert one.cv_results_ is None and one.best_params_ == {"factor": 3.0, "alpha": 1.0}
    # Weight-0 bags are absent bags.
    w = np.ones(len(y))
    w[:5] = 0
    a = MeanRidge(random_state=1).fit(X, y, sample_weight=w)
    b = MeanRidge(random_state=1).fit(X[5:], y[5:], sample_weight=w[5:])
    np.testing.assert_allclose(a.predict(X), b.predict(X), rtol=1e-12)


def test_engine_draws_independent_seeds():
    """The inner folds' shuffles come first from random_state's generator (as they always have),
    then one independent seed per name: the model's seed is not the folds' seed."""
    from sklearn.base import clone

    from mil._tuning import SEED_MAX
    from mil.embedding import miVLADClassifier

    X, y = make_toy_bags(n_bags=30, random_state=0)
    clf = miVLADClassifier(n_clusters=2, Cs=(1.0,), random_state=7).fit(X, y)
    rng = np.random.RandomState(7)
    fold_seed, model_seed, encoder_seed = (int(rng.randint(SEED_MAX)) for _ in range(3))
    assert clf.encoder_.random_state == encoder_seed != fold_seed
    assert len({fold_seed, model_seed, encoder_seed}) == 3
    assert clf._draw_seeds() == ([fold_seed], {"model": model_seed, "encoder": encoder_seed})
    # The same integer twice gives the same model; another gives other folds.
    np.testing.assert_array_equal(clone(clf).fit(X, y).decision_function(X), clf.decision_function(X))


def test_convergence_warnings_are_handled_in_at_most_two_modules():
    import pathlib
    import re

    import mil

    root = pathlib.Path(mil.__file__).parent
    imports = re.compile(r"^\s*from sklearn\.exceptions import .*\bConvergenceWarning\b", re.MULTILINE)
    hits = sorted(str(p.relative_to(root)) for p in root.rglob("*.py") if imports.search(p.read_text()))
    assert len(hits) <= 2, hits


def test_bag_argmax_is_the_first_maximum_of_each_bag():
    from mil.utils._segments import bag_argmax, bag_rows

    rng = np.random.default_rng(0)
    sizes = rng.integers(1, 6, size=50)
    offsets = np.r_[0, np.cumsum(sizes)]
    f = rng.integers(0, 3, size=offsets[-1]).astype(float)  # ties everywhere
    f[rng.random(f.size) < 0.1] = -np.inf
    bags = rng.permutation(50)[:30]
    loop = [offsets[b] + int(np.argmax(f[offsets[b]:offsets[b + 1]])) for b in bags]
    np.testing.assert_array_equal(bag_argmax(f, offsets, bags), loop)
    np.testing.assert_array_equal(bag_rows(offsets, bags), np.concatenate([np.arange(offsets[b], offsets[b + 1])
                                                                           for b in bags]))
    assert bag_argmax(f, offsets, []).shape == (0,)



@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("max_iter", [-1, 3])
def test_inner_svc_through_libsvm_is_svc_fit(weighted, max_iter):
    """The inner grid's libsvm path gives the decision values of the SVC fitted by SVC.fit to the
    last bit (stopped early too; as the engine computes them from the dual coefficients, and to
    rounding as SVC.decision_function does), and declines what it does not reproduce (so the
    engine fits the SVC itself)."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import SVC, LinearSVC

    from mil._tuning._engine import _decision_values
    from mil._tuning._libsvm import svc_decision

    rng = np.random.default_rng(0)
    Z = rng.normal(size=(40, 3))
    K = np.exp(-0.5 * ((Z[:, None] - Z[None]) ** 2).sum(-1))
    y = (Z[:, 0] + 0.5 * rng.normal(size=40) > 0).astype(np.intp)
    w = rng.uniform(0.5, 2.0, size=30) if weighted else None
    for C in (0.01, 1.0, 100.0):
        model = SVC(kernel="precomputed", C=C, tol=1e-8, max_iter=max_iter)
        fast = svc_decision(model, K[:30, :30], y[:30], w, K[30:, :30])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(K[:30, :30], y[:30], sample_weight=w)
        np.testing.assert_array_equal(fast, _decision_values(model, K[30:, :30]))
        np.testing.assert_allclose(fast, model.decision_function(K[30:, :30]), rtol=1e-12, atol=1e-12)
    # Declined: another model, a class weight, one class, labels other than 0 / 1.
    train, test = K[:30, :30], K[30:, :30]
    assert svc_decision(LinearSVC(), train, y[:30], None, test) is None
    assert svc_decision(SVC(kernel="precomputed", class_weight="balanced"), train, y[:30], None, test) is None
    assert svc_decision(SVC(kernel="precomputed"), train, np.zeros(30, int), None, test) is None
    assert svc_decision(SVC(kernel="precomputed"), train, y[:30] + 1, None, test) is None


@pytest.mark.parametrize("make", ["mind", "bag-svc", "sliced"])
def test_engine_inner_svms_through_libsvm_choose_as_svc_fit(make, monkeypatch):
    """The kernel learners' grid scores, choice, calibration and outputs are those of fitting
    every inner SVM through SVC.fit."""
    from mil._tuning import _engine
    from mil._tuning._libsvm import svc_decision
    from mil.embedding import MInDClassifier, SlicedWassersteinClassifier
    from mil.svm import BagKernelSVC

    X, y = make_toy_bags(n_bags=40, random_state=2)
    w = np.random.default_rng(1).uniform(0.5, 2.0, size=len(y))
    est = {"mind": MInDClassifier(Cs=(1.0, 100.0), gamma_scales=(0.25, 1.0), random_state=0),
           "bag-svc": BagKernelSVC(random_state=0),
           "sliced": SlicedWassersteinClassifier(n_directions=8, random_state=0)}[make]
    answered = []

    def counted(*args):
        out = svc_decision(*args)
        answered.append(out is not None)
        return out

    monkeypatch.setattr(_engine, "svc_decision", counted)
    fast = est.fit(X, y, sample_weight=w)
    assert answered and all(answered)  # every inner SVM went through libsvm directly
    got = (fast.cv_results_.copy(), fast.best_params_, fast.proba_scale_, fast.decision_function(X))
    monkeypatch.setattr(_engine, "svc_decision", lambda *args: None)
    slow = est.fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(got[0], slow.cv_results_)
    assert got[1] == slow.best_params_ and got[2] == slow.proba_scale_
    np.testing.assert_array_equal(got[3], slow.decision_function(X))

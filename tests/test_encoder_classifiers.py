"""The classifiers on the bag encoders: hand-built references of the model, the inner CV of
mil._tuning, zero weights, seeds, instance outputs and the two backends."""

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.svm import SVC, LinearSVC

import mil
from mil._tuning import fit_sigmoid, inner_folds
from mil.embedding import (FisherVectorEmbedding, KernelMeanClassifier, KernelMeanEmbedding,
                           SlicedWassersteinClassifier, SlicedWassersteinEmbedding, VLADEmbedding,
                           miFVClassifier, miVLADClassifier)
from mil.utils.estimator_checks import make_toy_bags

CLASSIFIERS = [
    miFVClassifier(Cs=(0.1, 10.0), random_state=0),
    miVLADClassifier(n_clusters=(1, 2), Cs=(1.0, 10.0), random_state=0),
    KernelMeanClassifier(n_components=60, gamma_scales=(0.5, 2.0), Cs=(1.0, 100.0), random_state=0),
    SlicedWassersteinClassifier(n_directions=6, n_quantiles=4, gamma_scales=(0.5, 2.0), Cs=(1.0, 10.0),
                                random_state=0),
]


def _id(est):
    return type(est).__name__


@pytest.fixture(scope="module")
def toy():
    X, y = make_toy_bags(n_bags=40, n_features=3, random_state=7)
    return X, np.asarray(y)


def test_exported_from_mil():
    for name in ("miFVClassifier", "miVLADClassifier", "KernelMeanClassifier", "SlicedWassersteinClassifier"):
        assert getattr(mil, name) is getattr(mil.embedding, name)
        assert name in mil.__all__


def test_logistic_model_is_the_hand_built_one(toy):
    """cv=1 and one C: the encoder fitted with the classifier's seed, then LogisticRegression."""
    X, y = toy
    clf = miVLADClassifier(n_clusters=2, C=3.0, cv=1, random_state=5).fit(X, y)
    # The classifier's defaults: no power normalisation, raw features.
    enc = VLADEmbedding(2, power=1.0, scale=None, random_state=clf.encoder_.random_state).fit(X)
    np.testing.assert_array_equal(clf.encoder_.cluster_centers_, enc.cluster_centers_)
    E = enc.transform(X)
    lr = LogisticRegression(C=3.0, max_iter=5000, tol=1e-4).fit(E, y)
    np.testing.assert_allclose(clf.decision_function(X), lr.decision_function(E), rtol=1e-12, atol=1e-12)
    # No inner folds: probability scale 1, sigmoid of the decision value.
    assert clf.proba_scale_ == 1.0 and clf.cv_results_ is None
    np.testing.assert_allclose(clf.predict_proba(X)[:, 1], 1 / (1 + np.exp(-lr.decision_function(E))))


def test_standardised_encodings_and_linear_svc(toy):
    X, y = toy
    clf = miFVClassifier(n_components=1, C=0.5, model="svm", cv=1, random_state=2).fit(X, y)
    E = FisherVectorEmbedding(1, random_state=clf.encoder_.random_state).fit(X).transform(X)
    Z = (E - E.mean(axis=0)) / np.where(E.std(axis=0) > 0, E.std(axis=0), 1.0)
    svm = LinearSVC(C=0.5, max_iter=5000, tol=1e-4, random_state=clf.model_.random_state).fit(Z, y)
    np.testing.assert_allclose(clf.decision_function(X), svm.decision_function(Z), rtol=1e-9, atol=1e-9)


def test_rbf_model_is_the_hand_built_one(toy):
    X, y = toy
    clf = SlicedWassersteinClassifier(n_directions=5, n_quantiles=3, p=2.0, gamma_scales=(2.0,), C=4.0, cv=1,
                                      random_state=1).fit(X, y)
    E = SlicedWassersteinEmbedding(5, 3, scale=None, random_state=clf.encoder_.random_state).fit(X).transform(X)
    S = ((E[:, None, :] - E[None, :, :]) ** 2).sum(axis=-1)
    gamma = 2.0 / np.median(S[~np.eye(len(E), dtype=bool)])
    assert clf.gamma_ == pytest.approx(gamma, rel=1e-12)
    svc = SVC(kernel="precomputed", C=4.0, tol=1e-8).fit(np.exp(-gamma * S), y)
    np.testing.assert_allclose(clf.decision_function(X[:7]), svc.decision_function(np.exp(-gamma * S[:7])),
                               rtol=1e-8, atol=1e-8)


def test_rbf_kernel_on_a_power_of_the_distance(toy):
    """p = 1: the kernel exp(-gamma d) of the encodings' Euclidean distance d, gamma over the median d;
    a list of p is a grid with gamma, p-major."""
    X, y = toy
    clf = SlicedWassersteinClassifier(n_directions=5, n_quantiles=3, p=1.0, gamma_scales=(0.5,), C=2.0, cv=1,
                                      random_state=4).fit(X, y)
    E = SlicedWassersteinEmbedding(5, 3, scale=None, random_state=clf.encoder_.random_state).fit(X).transform(X)
    D = np.sqrt(((E[:, None, :] - E[None, :, :]) ** 2).sum(axis=-1))
    gamma = 0.5 / np.median(D[~np.eye(len(E), dtype=bool)])
    assert clf.gamma_ == pytest.approx(gamma, rel=1e-12) and clf.p_ == 1.0
    assert clf.best_params_["p"] == 1.0
    svc = SVC(kernel="precomputed", C=2.0, tol=1e-8).fit(np.exp(-gamma * D), y)
    np.testing.assert_allclose(clf.decision_function(X[:7]), svc.decision_function(np.exp(-gamma * D[:7])),
                               rtol=1e-9, atol=1e-9)
    grid = SlicedWassersteinClassifier(n_directions=5, n_quantiles=3, p=(1.0, 2.0), gamma_scales=(0.5, 2.0),
                                       Cs=(1.0, 10.0), cv=3, random_state=4).fit(X, y)
    assert grid.cv_results_.shape == (4, 2)
    for q, row in ((1.0, 0), (2.0, 2)):
        one = SlicedWassersteinClassifier(n_directions=5, n_quantiles=3, p=q, gamma_scales=(0.5, 2.0),
                                          Cs=(1.0, 10.0), cv=3, random_state=4).fit(X, y)
        np.testing.assert_array_equal(grid.cv_results_[row:row + 2], one.cv_results_)
    with pytest.raises(ValueError, match="p must be"):
        SlicedWassersteinClassifier(p=(1.0, -1.0)).fit(X, y)


def test_inner_cv_is_mil_tuning(toy):
    """The grid scores are the pooled out-of-fold accuracies of mil._tuning's folds, and the
    probability scale is its sigmoid fit at the chosen point."""
    X, y = toy
    Cs = (0.1, 1.0, 10.0)
    clf = KernelMeanClassifier(n_components=40, gamma_scales=(0.5, 2.0), Cs=Cs, cv=4, random_state=3).fit(X, y)
    encs = [KernelMeanEmbedding(40, method=clf.method, gamma=g, random_state=clf.encoder_.random_state).fit(X) for g in (0.5, 2.0)]
    Es = [e.transform(X) for e in encs]
    folds = inner_folds(4, y, random_state=3)
    expected = np.zeros((2, 3))
    oof = {}
    for p, E in enumerate(Es):
        for c, C in enumerate(Cs):
            scores = np.zeros(len(y))
            for tr, te in folds:
                scores[te] = LogisticRegression(C=C, max_iter=5000).fit(E[tr], y[tr]).decision_function(E[te])
            oof[p, c] = scores
            expected[p, c] = np.mean((scores > 0) == (y == 1))
    np.testing.assert_allclose(clf.cv_results_, expected)
    # Ties: the first C, then the first gamma.
    order = sorted(np.ndindex(2, 3), key=lambda pc: (-expected[pc], pc[1], pc[0]))
    best = order[0]
    assert clf.best_params_["C"] == Cs[best[1]]
    assert clf.encoder_.gamma == (0.5, 2.0)[best[0]]
    a, _ = fit_sigmoid(oof[best], y)
    assert clf.proba_scale_ == pytest.approx(a, rel=1e-10)


@pytest.mark.parametrize("est", CLASSIFIERS, ids=_id)
def test_zero_weight_bags_are_absent_bags(est, toy):
    X, y = toy
    w = np.ones(len(y))
    w[[3, 10, 11]] = 0
    keep = np.flatnonzero(w > 0)
    a = est.__class__(**est.get_params()).fit(X, y, sample_weight=w)
    b = est.__class__(**est.get_params()).fit([X[i] for i in keep], y[keep])
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), rtol=1e-9, atol=1e-9)
    assert a.best_params_ == b.best_params_


@pytest.mark.parametrize("est", CLASSIFIERS, ids=_id)
def test_seeded_and_probabilities(est, toy):
    X, y = toy
    a = est.__class__(**est.get_params()).fit(X, y)
    b = est.__class__(**est.get_params()).fit(X, y)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    proba = a.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(a.classes_[np.argmax(proba, axis=1)], a.predict(X))
    # Instance outputs: the outputs of one-instance bags.
    inst = a.instance_scores(X[:3])
    singles = [b_[j:j + 1] for b_ in X[:3] for j in range(len(b_))]
    np.testing.assert_allclose(inst, a.decision_function(singles), rtol=1e-12, atol=1e-12)


def test_three_classes(toy):
    X, y = make_toy_bags(n_bags=36, n_classes=3, random_state=4)
    clf = miFVClassifier(n_components=1, Cs=(0.1, 10.0), cv=3, random_state=0).fit(X, y)
    assert clf.decision_function(X).shape == (36, 3)
    np.testing.assert_allclose(clf.predict_proba(X).sum(axis=1), 1.0)


def test_bad_parameters(toy):
    X, y = toy
    with pytest.raises(ValueError, match="model must be one of 'logistic', 'svm'"):
        miFVClassifier(model="rbf").fit(X, y)
    with pytest.raises(ValueError, match="n_clusters must be a positive int"):
        miVLADClassifier(n_clusters=[2, 0]).fit(X, y)
    with pytest.raises(ValueError, match="Cs must be a number > 0 or a non-empty list of them"):
        miVLADClassifier(Cs=()).fit(X, y)
    with pytest.raises(ValueError, match="gamma_scales"):
        SlicedWassersteinClassifier(gamma_scales=(-1.0,)).fit(X, y)


def test_registered():
    from mil._learners import SEED_PARAMS, make_learner
    from mil._costs import FOLD_SECONDS

    for name, cls in (("mi-fv", miFVClassifier), ("mi-vlad", miVLADClassifier),
                      ("nystroem-nsk", KernelMeanClassifier), ("rff-nsk", KernelMeanClassifier),
                      ("swe-svm", SlicedWassersteinClassifier)):
        est = make_learner(name, seed=4)
        assert type(est) is cls and est.random_state == 4
        assert SEED_PARAMS[name] == "random_state" and name in FOLD_SECONDS
    assert make_learner("nystroem-nsk").method == "nystroem" and make_learner("rff-nsk").method == "rff"


def test_reproduce_quick():
    from mil.reproduce import reproduce_encoders

    result = reproduce_encoders(learners=("mi-vlad",), quick=True, seeds=2)
    acc = np.asarray(result.accuracy["mi-vlad"]["musk1"])
    assert acc.shape == (4,) and np.all((acc >= 0) & (acc <= 1)) and acc.mean() > 0.6


def test_sliced_wasserstein_computes_its_training_distances_once(toy, monkeypatch):
    """One distance matrix between the training bags' encodings per fit, whatever the grid and
    the folds (the inner folds slice it); one call of the test bags against the support bags."""
    from mil.embedding import _encoder_classifiers as module

    X, y = toy
    calls = []
    original = module.row_distances

    def counting(A, B=None):
        calls.append(A.shape[0] * (A.shape[0] if B is None else B.shape[0]))
        return original(A, B)

    monkeypatch.setattr(module, "row_distances", counting)
    clf = SlicedWassersteinClassifier(n_directions=6, n_quantiles=4, p=(1.0, 2.0), gamma_scales=(0.5, 2.0),
                                      Cs=(1.0, 10.0), cv_repeats=2, random_state=0).fit(X, y)
    assert calls == [len(y) ** 2]
    assert clf.cv_results_.shape == (4, 2)
    calls.clear()
    clf.predict(X[:5])
    assert calls == [5 * clf.support_encodings_.shape[0]]


def test_solver_parameters_reach_every_model(toy):
    """tol and max_iter act on the RBF SVM too (None: its own tight default), and on the linear models."""
    X, y = toy
    kw = dict(n_directions=6, n_quantiles=4, C=1.0, cv=1, random_state=0)
    default = SlicedWassersteinClassifier(**kw).fit(X, y)
    assert default.model_.tol == 1e-8 and default.model_.max_iter == -1
    set_ = SlicedWassersteinClassifier(tol=1e-2, max_iter=3, **kw)
    with pytest.warns(ConvergenceWarning):
        set_.fit(X, y)
    assert set_.model_.tol == 1e-2 and set_.model_.max_iter == 3
    assert not np.array_equal(set_.decision_function(X), default.decision_function(X))
    lin = miFVClassifier(n_components=1, C=1.0, cv=1, tol=1e-2, max_iter=7, random_state=0).fit(X, y)
    assert lin.model_.tol == 1e-2 and lin.model_.max_iter == 7


@pytest.mark.parametrize("est", CLASSIFIERS, ids=_id)
def test_positive_class_is_deprecated(est, toy):
    """It never had an effect (the models treat the classes alike): setting it warns."""
    X, y = toy
    with pytest.warns(FutureWarning, match="positive_class is deprecated"):
        a = est.__class__(**{**est.get_params(), "positive_class": 0}).fit(X, y)
    b = est.__class__(**est.get_params()).fit(X, y)
    # (the same problem with the classes' roles swapped: the same solution, to the solver's tolerance)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_the_docstring_lists_each_parameter_once():
    from numpydoc.docscrape import ClassDoc

    for cls in (miFVClassifier, miVLADClassifier, KernelMeanClassifier, SlicedWassersteinClassifier):
        names = [p.name for p in ClassDoc(cls)["Parameters"]]
        assert len(names) == len(set(names)), cls.__name__


@pytest.mark.parametrize("settings", [dict(p=2.0), dict(p=3.0), dict(model="logistic"), dict(model="svm")],
                         ids=["p=2", "p=3", "logistic", "svm"])
def test_sliced_wasserstein_off_its_defaults_at_extreme_magnitudes(settings, backend):
    """Features times a power of two from 2^-990 to 2^990 give the model of magnitude one (the
    features, or the distances before their power, are brought back by a power of two), and
    x 1e+-300 / 1e+-150 a working model: before, p=2 was constant at 1e-300 and failed at 1e300,
    logistic regression constant from 1e+-150."""
    X, y = make_toy_bags(n_bags=30, n_features=3, random_state=2)
    kw = dict(n_directions=6, n_quantiles=4, C=10.0, gamma_scales=(1.0,), cv=1, random_state=0, **settings)
    ref = SlicedWassersteinClassifier(**kw).fit(X, y)
    for k in (-990, 990):
        Xs = [np.ldexp(b, k) for b in X]
        got = SlicedWassersteinClassifier(**kw).fit(Xs, y)
        np.testing.assert_allclose(got.decision_function(Xs), ref.decision_function(X), rtol=1e-6, atol=1e-8)
    for factor in (1e-300, 1e300, 1e150):
        Xs = [b * factor for b in X]
        got = SlicedWassersteinClassifier(**kw).fit(Xs, y)
        assert np.unique(got.predict_proba(Xs)[:, 1]).size > 1
        assert np.mean(got.predict(Xs) == ref.predict(X)) >= 0.9


@pytest.mark.parametrize("est", CLASSIFIERS, ids=_id)
def test_float32_bags_reach_the_encoders_without_a_copy(est, monkeypatch):
    from mil.embedding._encoding import BagEncoder

    rng = np.random.default_rng(3)
    sizes = rng.integers(20, 40, size=24)
    X32 = rng.standard_normal((int(sizes.sum()), 5)).astype(np.float32)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    y = np.arange(24) % 2
    for b in np.flatnonzero(y):
        X32[offsets[b]:offsets[b] + 3, :2] += 2.0
    bags32 = mil.Bags(X32, offsets)
    bags64 = mil.Bags(X32.astype(np.float64), offsets)
    b = est.__class__(**est.get_params()).fit(bags64, y)
    seen = []
    fit = BagEncoder.fit

    def spy(self, X, y=None):
        seen.append(X.instances.dtype)
        return fit(self, X, y)

    monkeypatch.setattr(BagEncoder, "fit", spy)
    a = est.__class__(**est.get_params()).fit(bags32, y)
    # The encoders get the float32 bags (or their standardised float32 copy), not a float64 copy
    # of them (twice the data's memory).
    assert seen and all(dt == np.float32 for dt in seen)
    # Some encoder steps run in float32 on float32 bags (the data's own precision): the models
    # agree to float32 rounding.
    np.testing.assert_allclose(a.decision_function(bags32), b.decision_function(bags64), rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(a.predict(bags32), b.predict(bags64))

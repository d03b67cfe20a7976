"""Bag kernels and BagKernelSVC: miGraph weights, EMD against hand-solved cases, set-kernel
normalisation, grid reuse, 3 classes, pickle, backends, bad input and the optional POT."""

import pickle
import sys

import numpy as np
import pytest

import mil.svm._bag_svc as bag_svc
from mil.svm import BagKernelSVC, emd_distances, migraph_weights, set_kernel
from mil.utils.estimator_checks import make_toy_bags
from mil._scaling import median_sq_distance


def test_migraph_weights_hand_made_bag():
    # Distances 0.1, 0.2, 5, 0.1, 4.9, 4.8: mean epsilon 15.1 / 6 ~ 2.52. The three close
    # instances see each other (degree 3 with itself); the far one only itself.
    bag = np.array([[0.0], [0.1], [0.2], [5.0]])
    np.testing.assert_allclose(migraph_weights([bag, np.array([[1.0, ]])]), [1 / 3] * 3 + [1.0, 1.0])
    # A fixed epsilon: 0.15 joins 0-0.1 and 0.1-0.2 only.
    np.testing.assert_allclose(migraph_weights([bag], epsilon=0.15), [1 / 2, 1 / 3, 1 / 2, 1.0])
    # Identical instances (mean distance 0): no edge, weight 1 each.
    np.testing.assert_allclose(migraph_weights([np.ones((3, 2))]), [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="epsilon"):
        migraph_weights([bag], epsilon=-1.0)


def test_emd_hand_solved():
    pytest.importorskip("ot")
    A = np.array([[0.0], [2.0]])
    B = np.array([[1.0], [3.0]])
    C = np.array([[0.0, 0.0]])
    D = np.array([[3.0, 4.0], [0.0, 0.0]])
    np.testing.assert_allclose(emd_distances([A, B]), [[0.0, 1.0], [1.0, 0.0]])
    # Half of C's mass stays, half moves by 5.
    np.testing.assert_allclose(emd_distances([C], [D]), [[2.5]])
    np.testing.assert_allclose(emd_distances([D], [C]), [[2.5]])


def test_emd_ground_metrics_hand_solved():
    pytest.importorskip("ot")
    # 1-D: C = {0, 1} to D = {2, 4}. Euclidean: both matchings cost (2 + 3) / 2 = (4 + 1) / 2 = 2.5;
    # squared: the sorted matching (4 + 9) / 2 = 6.5 beats the crossed one (16 + 1) / 2 = 8.5.
    C, D = np.array([[0.0], [1.0]]), np.array([[2.0], [4.0]])
    np.testing.assert_allclose(emd_distances([C], [D]), [[2.5]])
    np.testing.assert_allclose(emd_distances([C], [D], metric="sqeuclidean"), [[6.5]])
    np.testing.assert_allclose(emd_distances([C], [D], metric="cityblock"), [[2.5]])
    # One instance against two (half its mass to each): (0, 0) to (1, 1) and (2, 0).
    E, F = np.array([[0.0, 0.0]]), np.array([[1.0, 1.0], [2.0, 0.0]])
    np.testing.assert_allclose(emd_distances([E, F]), [[0, (np.sqrt(2) + 2) / 2], [(np.sqrt(2) + 2) / 2, 0]])
    np.testing.assert_allclose(emd_distances([E], [F], metric="sqeuclidean"), [[(2 + 4) / 2]])
    np.testing.assert_allclose(emd_distances([E], [F], metric="cityblock"), [[(2 + 2) / 2]])
    # The pair cache keeps the metrics apart (the Euclidean value again after the squared one).
    np.testing.assert_allclose(emd_distances([C], [D]), [[2.5]])
    with pytest.raises(ValueError, match="metric"):
        emd_distances([C], [D], metric="cosine")


def test_emd_svc_ground_metric_and_mean_reference(monkeypatch, backend):
    pytest.importorskip("ot")
    X, y = make_toy_bags(n_bags=30, random_state=3)
    seen = []
    original = bag_svc.emd_distances
    monkeypatch.setattr(bag_svc, "emd_distances",
                        lambda *a, **k: seen.append(k["metric"]) or original(*a, **k))
    clf = BagKernelSVC(kernel="emd", ground_metric="sqeuclidean", gamma=1.0, gamma_scale="mean", scale=None,
                       p=1.0, cv=1).fit(X, y)
    assert seen == ["sqeuclidean"]
    D = original(X, metric="sqeuclidean")
    # gamma_scale="mean" with gamma=1, p=1: exp(-D / A), A the mean distance between distinct
    # training bags (Zhang, Marszalek, Lazebnik and Schmid 2007).
    A = D[~np.eye(30, dtype=bool)].mean()
    assert np.isclose(clf.gamma_, 1.0 / A)
    np.testing.assert_allclose(clf._test_kernel(bags_of(X))[:, clf.svc_.support_],
                               np.exp(-D / A)[:, clf.svc_.support_], rtol=1e-12)
    med = BagKernelSVC(kernel="emd", ground_metric="sqeuclidean", gamma=1.0, scale=None, cv=1).fit(X, y)
    assert np.isclose(med.gamma_, 1.0 / np.median(D[~np.eye(30, dtype=bool)]))
    # Set kernels: the mean squared distance between instances.
    nsk = BagKernelSVC(gamma=1.0, gamma_scale="mean", scale=None, cv=1).fit(X, y)
    assert np.isclose(nsk.gamma_, 1.0 / median_sq_distance(bags_of(X).instances, "mean"))


def bags_of(X):
    from mil.utils.validation import check_bags

    return check_bags(X)


def test_emd_without_pot_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ot", None)
    with pytest.raises(ImportError, match=r"scikit-mil\[ot\]"):
        emd_distances([np.zeros((1, 1))])
    X, y = make_toy_bags(n_bags=12, random_state=0)
    with pytest.raises(ImportError, match=r"scikit-mil\[ot\]"):
        BagKernelSVC(kernel="emd").fit(X, y)


def test_set_kernel_normalisations(backend):
    rng = np.random.default_rng(0)
    bags = [rng.normal(size=(n, 3)) for n in (1, 3, 4)]
    K = set_kernel(bags, gamma=[0.5, 2.0])
    np.testing.assert_allclose(np.diagonal(K, axis1=1, axis2=2), 1.0)
    raw = set_kernel(bags, gamma=0.5, normalize="none")
    mean = set_kernel(bags, gamma=0.5, normalize="weights")
    sizes = np.array([1, 3, 4])
    np.testing.assert_allclose(mean, raw / np.outer(sizes, sizes))
    # Train-vs-test: the same normalised values as the symmetric matrix.
    np.testing.assert_allclose(set_kernel(bags, bags[1:], gamma=[0.5, 2.0], weights="migraph"),
                               set_kernel(bags, gamma=[0.5, 2.0], weights="migraph")[:, :, 1:], rtol=1e-10)


def test_grid_reuses_one_kernel_pass(monkeypatch):
    X, y = make_toy_bags(n_bags=30, random_state=1)
    calls = []
    original = bag_svc.set_kernels_from_bags

    def counting(*args, **kwargs):
        calls.append(len(args[2]))
        return original(*args, **kwargs)

    monkeypatch.setattr(bag_svc, "set_kernels_from_bags", counting)
    clf = BagKernelSVC(C=[0.1, 1, 10], gamma=[0.5, 1, 2, 4], random_state=0).fit(X, y)
    assert calls == [4]  # one pass for the four gammas, none per C or per inner fold
    assert clf.cv_results_.shape == (4, 3)
    assert clf.C_ in (0.1, 1, 10)

    dist_calls = []
    original_d = bag_svc.hausdorff
    monkeypatch.setattr(bag_svc, "hausdorff",
                        lambda *a, **k: dist_calls.append(1) or original_d(*a, **k))
    BagKernelSVC(kernel="average", C=[1, 10], gamma=[0.5, 2], random_state=0).fit(X, y)
    assert len(dist_calls) == 1


@pytest.mark.parametrize("kernel", ["nsk", "migraph", "minimal", "maximal", "average", "emd"])
def test_learns_toy_bags_and_backends_agree(kernel):
    if kernel == "emd":
        pytest.importorskip("ot")
    from mil._core import use_backend

    X, y = make_toy_bags(n_bags=60, n_features=6, max_size=8, random_state=0)
    outs = []
    for kind in ("compiled", "python"):
        with use_backend(kind):
            clf = BagKernelSVC(kernel=kernel, C=[1, 10], gamma=[0.5, 1, 2], random_state=0).fit(X[:40], y[:40])
            outs.append((clf.predict(X[40:]), clf.predict_proba(X[40:]), clf.decision_function(X[40:])))
    assert np.mean(outs[0][0] == y[40:]) >= 0.6
    # The parity the user guide states (docs/user_guide/kernels.rst): labels identical,
    # decision values within 1e-9 relative, probabilities within 1e-12 (the kernels agree to
    # rounding, and the probability scale is solved to rounding: a bounded search stopped at
    # a tolerance amplified the kernels' last bits to 1e-11 here, 7.5e-8 elsewhere).
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    np.testing.assert_allclose(outs[0][2], outs[1][2], rtol=1e-9)
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=0, atol=1e-12)
    proba = outs[0][1]
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    # predict is the argmax of predict_proba and the sign of decision_function.
    np.testing.assert_array_equal(outs[0][0], clf.classes_[np.argmax(proba, axis=1)])
    np.testing.assert_array_equal(outs[0][0], clf.classes_[(outs[0][2] > 0).astype(int)])


def test_three_classes_string_labels_pickle():
    X, y = make_toy_bags(n_bags=45, n_classes=3, random_state=4)
    labels = np.array(["a", "b", "c"])[y]
    clf = BagKernelSVC(kernel="migraph", C=[1, 10], random_state=0).fit(X, labels)
    assert list(clf.classes_) == ["a", "b", "c"]
    proba = clf.predict_proba(X)
    assert proba.shape == (45, 3) and clf.decision_function(X).shape == (45, 3)
    assert np.mean(clf.predict(X) == labels) > 0.8
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.predict_proba(X), proba)


def test_sample_weight_zero_is_like_dropping():
    X, y = make_toy_bags(n_bags=40, random_state=5)
    w = np.ones(40)
    w[:5] = 0.0
    a = BagKernelSVC(gamma=1.0, C=1.0, scale=None, gamma_scale="absolute").fit(X, y, sample_weight=w)
    b = BagKernelSVC(gamma=1.0, C=1.0, scale=None, gamma_scale="absolute").fit(X[5:], y[5:])
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("params, match", [
    (dict(gamma=[1.0, -2.0]), "gamma"),
    (dict(C=[]), "C"),
    (dict(kernel="rbf"), "kernel"),
    (dict(kernel="emd", ground_metric="cosine"), "ground_metric"),
    (dict(kernel="nsk", ground_metric="sqeuclidean"), "ground_metric.*kernel='emd'"),
    (dict(gamma_scale="max"), "gamma_scale"),
])
def test_bad_parameters(params, match):
    X, y = make_toy_bags(n_bags=12, random_state=0)
    with pytest.raises(ValueError, match=match):
        BagKernelSVC(**params).fit(X, y)


def test_bad_bags_named_and_not_mutated():
    X, y = make_toy_bags(n_bags=12, random_state=0)
    copies = [b.copy() for b in X]
    clf = BagKernelSVC(random_state=0).fit(X, y)
    for a, b in zip(X, copies):
        np.testing.assert_array_equal(a, b)
    bad = [b.copy() for b in X]
    bad[3][0, 0] = np.nan
    with pytest.raises(ValueError, match="bag 3"):
        clf.predict(bad)
    with pytest.raises(ValueError, match="features"):
        clf.predict([b[:, :2] for b in X])


def test_set_kernel_threads_and_emd_threads_give_the_same_matrix(backend):
    rng = np.random.default_rng(7)
    bags = [rng.normal(size=(int(rng.integers(1, 30)), 4)) for _ in range(40)]
    one = set_kernel(bags, gamma=[0.1, 1.0], n_jobs=1)
    np.testing.assert_array_equal(set_kernel(bags, gamma=[0.1, 1.0], n_jobs=3), one)
    np.testing.assert_array_equal(set_kernel(bags, bags[:7], gamma=0.5, n_jobs=3),
                                  set_kernel(bags, bags[:7], gamma=0.5, n_jobs=1))
    if pytest.importorskip("ot"):
        np.testing.assert_array_equal(emd_distances(bags[:8], n_jobs=2), emd_distances(bags[:8]))


def test_cv_1_fits_one_svm(monkeypatch):
    # cv=1: no inner fits (the middle of each list, probability scale 1), so a fit at
    # fixed C and gamma is one kernel pass and one SVM; the SVM is the one cv=5 fits.
    X, y = make_toy_bags(n_bags=40, random_state=4)
    ref = BagKernelSVC(C=10.0, gamma=1.0, random_state=0).fit(X, y)
    fits = []
    original = BagKernelSVC._model
    monkeypatch.setattr(BagKernelSVC, "_model",
                        lambda self, row, col, seeds, inner: fits.append(col["C"]) or original(self, row, col, seeds,
                                                                                             inner))
    clf = BagKernelSVC(C=[1.0, 10.0, 100.0], gamma=[0.5, 1.0, 2.0], cv=1).fit(X, y)
    assert clf.C_ == 10.0 and clf.proba_scale_ == 1.0 and clf.cv_results_ is None and fits == [10.0]
    np.testing.assert_allclose(clf.decision_function(X), ref.decision_function(X), rtol=1e-12)
    from scipy.special import expit
    np.testing.assert_allclose(clf.predict_proba(X)[:, 1], expit(clf.decision_function(X)))


def test_repeated_inner_cv_pools_the_repeats():
    # A repeated stratified k-fold (the registry's emd-svm) scores each grid point on every
    # repeat: with equal fold sizes per repeat, the pooled accuracy is the repeats' mean.
    from sklearn.model_selection import RepeatedStratifiedKFold

    X, y = make_toy_bags(n_bags=30, random_state=6)
    rskf = RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0)
    splits = list(rskf.split(np.zeros((30, 1)), y))
    grid = dict(kernel="average", C=[0.1, 1.0, 10.0], gamma=[0.5, 2.0], scale=None)
    both = BagKernelSVC(cv=rskf, **grid).fit(X, y)
    each = [BagKernelSVC(cv=splits[3 * r:3 * r + 3], **grid).fit(X, y).cv_results_ for r in range(2)]
    np.testing.assert_allclose(both.cv_results_, (each[0] + each[1]) / 2)
    again = BagKernelSVC(cv=rskf, **grid).fit(X, y)
    np.testing.assert_array_equal(again.decision_function(X), both.decision_function(X))


@pytest.mark.parametrize("normalize", ["cosine", "weights", "none"])
def test_landmark_kernel_with_every_instance_a_landmark_is_exact(normalize, backend):
    # The SVC on the landmark kernel is the exact kernel's on the training bags; with
    # normalize "weights" or "none" on new bags too (the Nystroem map is exact against its
    # landmarks; the cosine also needs a new bag's own norm, which it approximates).
    X, y = make_toy_bags(n_bags=40, random_state=0)
    n = sum(len(bag) for bag in X[:30])
    params = dict(C=1.0, gamma=1.0, normalize=normalize, random_state=0)
    exact = BagKernelSVC(**params).fit(X[:30], y[:30])
    approx = BagKernelSVC(n_landmarks=n, **params).fit(X[:30], y[:30])
    # The cosine's kernels agree to rounding (about 1e-12), which can move libsvm's stopping point
    # within its tolerance (1e-3); the other normalisations land on the same point here.
    atol = 1e-3 if normalize == "cosine" else 1e-9
    np.testing.assert_allclose(approx.decision_function(X[:30]), exact.decision_function(X[:30]), atol=atol)
    if normalize != "cosine":
        np.testing.assert_allclose(approx.decision_function(X[30:]), exact.decision_function(X[30:]), atol=1e-9)
    assert approx.support_embedding_.shape[0] == approx.support_bags_.n_bags
    assert exact.landmark_map_ is None and exact.support_embedding_ is None


@pytest.mark.parametrize("kernel", ["migraph", "minimal", "emd"])
def test_landmarks_need_the_nsk(kernel):
    X, y = make_toy_bags(n_bags=12, random_state=0)
    with pytest.raises(ValueError, match="n_landmarks .* needs kernel='nsk'"):
        BagKernelSVC(kernel, n_landmarks=5, C=1.0, gamma=1.0).fit(X, y)


@pytest.mark.parametrize("normalize", ["cosine", "weights", "none"])
def test_normalisation_a_strip_at_a_time_is_the_whole_stack_at_once(normalize):
    # Strips of rows (several, the last one short) give exactly the broadcast result.
    from mil.svm._kernels import _NORMALIZE_ROWS, normalize_kernels

    rng = np.random.default_rng(0)
    n_x, n_y = 2 * _NORMALIZE_ROWS + 37, 150
    K = rng.random((3, n_x, n_y)) + 0.1
    dx, dy = rng.random((3, n_x)) + 0.5, rng.random((3, n_y)) + 0.5
    wx, wy = rng.random(n_x) + 1.0, rng.random(n_y) + 1.0
    expected = {"cosine": K / np.sqrt(dx[:, :, None] * dy[:, None, :]),
                "weights": K / (wx[:, None] * wy[None, :])[None], "none": K.copy()}[normalize]
    got = normalize_kernels(K.copy(), dx, dy, normalize, wx, wy)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("kernel", ["minimal", "emd"])
def test_distance_kernels_filled_in_place_are_exp_of_minus_gamma_d_to_the_p(kernel):
    if kernel == "emd":
        pytest.importorskip("ot")
    bags, _ = make_toy_bags(n_bags=24, random_state=3)
    est = BagKernelSVC(kernel=kernel, p=(1.0, 2.0))
    K, rows = est._distance_kernels(bags, np.array([0.5, 1.0, 2.0]), (1.0, 2.0))
    D = est._distances(bags, None)
    assert K.shape == (6, 24, 24) and [r["_k"] for r in rows] == list(range(6))
    for r in rows:
        np.testing.assert_array_equal(K[r["_k"]], np.exp(-r["gamma"] * D ** r["p"]))

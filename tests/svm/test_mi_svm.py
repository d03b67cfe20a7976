"""mi-SVM and MI-SVM: known witnesses on a toy set, instance scores, kernels, bad input."""

import pickle

import numpy as np
import pytest

from mil.svm import MISVMClassifier, miSVMClassifier


def witness_bags(seed=0, n_bags=40):
    """Negative instances near the origin; each positive bag hides one witness at x0 = 4."""
    rng = np.random.default_rng(seed)
    bags, y, witnesses, start = [], [], [], 0
    for b in range(n_bags):
        n = int(rng.integers(2, 6))
        bag = rng.normal(scale=0.7, size=(n, 3))
        positive = b % 2 == 0
        if positive:
            w = int(rng.integers(n))
            bag[w, 0] = 4.0 + rng.normal(scale=0.3)
            witnesses.append(start + w)
        bags.append(bag)
        y.append(int(positive))
        start += n
    return bags, np.array(y), np.array(witnesses)


@pytest.mark.parametrize("cls", [miSVMClassifier, MISVMClassifier])
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_finds_the_witnesses(cls, kernel):
    X, y, witnesses = witness_bags()
    clf = cls(kernel=kernel, C=10.0, gamma=1.0, threshold="zero", scale="standard").fit(X, y)
    s = clf.instance_scores(X)
    assert s.shape == (sum(len(b) for b in X),)
    offsets = np.r_[0, np.cumsum([len(b) for b in X])]
    # The highest-scoring instance of every positive bag is its witness ...
    top = [offsets[b] + int(np.argmax(s[offsets[b]:offsets[b + 1]])) for b in np.flatnonzero(y == 1)]
    if kernel == "linear":
        np.testing.assert_array_equal(top, witnesses)
        # ... and only witnesses score positive.
        assert set(np.flatnonzero(s > 0)) == set(witnesses.tolist())
    else:  # the RBF fit at the median-heuristic bandwidth may pick a near neighbour in a bag or two
        assert np.mean(np.array(top) == witnesses) >= 0.9
    Xt, yt, _ = witness_bags(seed=1)
    # mi-SVM's RBF fit at the untuned bandwidth lets some negative instances score positive.
    assert np.mean(clf.predict(Xt) == yt) >= (0.75 if kernel == "rbf" and cls is miSVMClassifier else 0.95)
    if cls is MISVMClassifier and kernel == "linear":
        np.testing.assert_array_equal(clf.witnesses_, witnesses)


def test_rbf_nystroem_beyond_max_exact_and_pickle():
    X, y, witnesses = witness_bags()
    clf = miSVMClassifier(kernel="rbf", C=10.0, gamma=1.0, max_exact=10, n_components=50, random_state=0).fit(X, y)
    assert clf.feature_map_ is not None
    assert np.mean(clf.predict(X) == y) >= 0.95
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.predict_proba(X), clf.predict_proba(X))


def test_grid_string_labels_and_positive_class():
    X, y, _ = witness_bags()
    labels = np.where(y == 1, "active", "inactive")
    with pytest.raises(ValueError, match="positive_class"):
        miSVMClassifier().fit(X, labels)
    clf = MISVMClassifier(C=[0.1, 1, 10], positive_class="active", random_state=0).fit(X, labels)
    assert clf.cv_results_.shape == (3, 3)  # the default gammas x the three Cs
    proba = clf.predict_proba(X)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[np.argmax(proba, axis=1)])
    assert np.mean(clf.predict(X) == labels) >= 0.95


def test_three_classes_refused():
    X, y, _ = witness_bags()
    with pytest.raises(ValueError):
        miSVMClassifier().fit(X, np.arange(len(y)) % 3)


def _float32_witness_bags():
    from mil import Bags

    X, y, _ = witness_bags(seed=3, n_bags=60)
    bags = Bags.from_list(X)
    return Bags(bags.instances.astype(np.float32), bags.offsets), y


@pytest.mark.parametrize("cls", [miSVMClassifier, MISVMClassifier])
@pytest.mark.parametrize("blocks", [False, True])
def test_float32_bags_on_the_nystroem_path_are_read_as_they_are(cls, blocks, monkeypatch):
    # The Nystroem path scales and maps float32 instances in float64 a block of rows at a time:
    # no float64 copy of the table, and the model of its float64 copy (bit for bit in one block).
    import mil._scaling as scaling
    from mil import Bags

    bags32, y = _float32_witness_bags()
    bags64 = Bags(bags32.instances.astype(np.float64), bags32.offsets)
    if blocks:
        monkeypatch.setattr(scaling, "BLOCK_BYTES", 8 * 3 * 17)  # blocks of 17 rows
    seen = []
    original = scaling.scaled_rows
    monkeypatch.setattr("mil.svm._mi_svm.scaled_rows",
                        lambda rows, *a: seen.append(rows.shape[0]) or original(rows, *a))
    params = dict(max_exact=0, n_components=12, C=(1.0, 10.0), random_state=0)
    a = cls(**params).fit(bags32, y)
    assert max(seen) == (17 if blocks else bags32.n_instances)
    b = cls(**params).fit(bags64, y)
    assert (a.C_, a.gamma_) == (b.C_, b.gamma_)
    if blocks:
        np.testing.assert_allclose(a.decision_function(bags32), b.decision_function(bags64), rtol=0, atol=1e-9)
    else:
        np.testing.assert_array_equal(a.decision_function(bags32), b.decision_function(bags64))
        np.testing.assert_array_equal(a.instance_scores(bags32), b.instance_scores(bags64))


@pytest.mark.parametrize("cls", [miSVMClassifier, MISVMClassifier])
@pytest.mark.parametrize("kernel, max_exact", [("rbf", 0), ("rbf", 3000), ("linear", 0)])
def test_the_model_scales_every_bag_it_reads(cls, kernel, max_exact):
    # The fit's scaling reaches every bag the model reads (the inner folds' held-out bags, new
    # bags, instance scores): the model on raw bags is the model on bags scaled beforehand.
    from mil import Bags
    from mil._scaling import fit_scaling

    X, y = _float32_witness_bags()
    X = Bags(X.instances * np.float32(7) + np.float32(3), X.offsets)
    offset, scale = fit_scaling(X.instances, "standard")
    pre = Bags((X.instances.astype(np.float64) - offset) / scale, X.offsets)
    params = dict(kernel=kernel, max_exact=max_exact, n_components=12, C=(1.0, 10.0), threshold="cv",
                  random_state=0)
    a = cls(scale="standard", **params).fit(X, y)
    b = cls(scale=None, **params).fit(pre, y)
    assert (a.C_, a.gamma_, a.threshold_) == (b.C_, b.gamma_, b.threshold_)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(pre))
    np.testing.assert_array_equal(a.instance_scores(X), b.instance_scores(pre))


def test_nystroem_map_is_the_one_fitted_on_the_whole_scaled_table():
    from sklearn.kernel_approximation import Nystroem

    from mil._scaling import fit_scaling
    from mil.svm._mi_svm import _nystroem_features

    X = np.random.default_rng(0).normal(size=(500, 7)).astype(np.float32) * 3 + 1
    offset, scale = fit_scaling(X, "standard")
    whole = (X.astype(np.float64) - offset) / scale
    reference = Nystroem(gamma=0.2, n_components=30, random_state=5).fit(whole)
    feature_map, features = _nystroem_features(X, offset, scale, 0.2, 30, 5)
    np.testing.assert_array_equal(feature_map.component_indices_, reference.component_indices_)
    np.testing.assert_array_equal(feature_map.components_, reference.components_)
    np.testing.assert_array_equal(features, reference.transform(whole))


def test_linear_memory_is_linear_in_instances():
    # 2 * 10^4 instances in 2000 bags: the instance-level LinearSVC never forms an n x n matrix.
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(10, 5)) for _ in range(2000)]
    y = np.arange(2000) % 2
    for b in np.flatnonzero(y == 1):
        X[b][0, 0] += 3.0
    clf = miSVMClassifier(kernel="linear", C=1.0, max_iter=5, random_state=0).fit(X, y)
    assert np.mean(clf.predict(X) == y) > 0.8


def _log_loss(p, y):
    p = np.clip(p, 1e-15, 1 - 1e-15)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def _noisy_witness_bags(seed, n_bags):
    X, y, _ = witness_bags(seed, n_bags)
    flip = np.random.default_rng(seed + 100).random(len(y)) < 0.2  # 20 % of the labels flipped
    return X, np.where(flip, 1 - y, y)


@pytest.mark.parametrize("cls", [miSVMClassifier, MISVMClassifier])
def test_probabilities_calibrated_out_of_fold(cls):
    # An RBF fit at C=100 separates its 40 noisy training bags: a scale fitted on
    # their own scores is overconfident (test log loss 1.3 / 1.7, worse than the
    # prior's 0.70); the out-of-fold scale beats the prior.
    from scipy.special import expit

    from mil._tuning import fit_sigmoid

    X, y = _noisy_witness_bags(0, 40)
    Xt, yt = _noisy_witness_bags(1, 200)
    clf = cls(kernel="rbf", C=100.0, gamma=1.0, scale="standard", threshold="zero", random_state=0).fit(X, y)
    prior = _log_loss(np.full(len(yt), y.mean()), yt)
    assert _log_loss(clf.predict_proba(Xt)[:, 1], yt) < prior
    in_sample = fit_sigmoid(clf.decision_function(X), y)[0]
    assert _log_loss(expit(in_sample * clf.decision_function(Xt)), yt) > prior
    # predict stays the sign of the bag score.
    np.testing.assert_array_equal(clf.predict(Xt), (clf.decision_function(Xt) > 0).astype(int))


def _large_negative_bags(seed, n_bags):
    """Small positive bags with one witness, negative bags of 20 to 40 noise instances: the
    largest instance score of a large negative bag tends to sit above 0."""
    rng = np.random.default_rng(seed)
    X, y = [], []
    for b in range(n_bags):
        positive = b % 2 == 0
        n = int(rng.integers(2, 5)) if positive else int(rng.integers(20, 40))
        bag = rng.normal(size=(n, 3))
        if positive:
            bag[rng.integers(n), 0] = 2.5 + rng.normal(scale=0.5)
        X.append(bag)
        y.append(int(positive))
    return X, np.array(y)


@pytest.mark.parametrize("cls", [miSVMClassifier, MISVMClassifier])
def test_threshold_cv_is_platt_on_out_of_fold_scores(cls, backend):
    from mil._tuning import fit_sigmoid

    X, y = _large_negative_bags(0, 40)
    folds = [(np.flatnonzero(np.arange(40) % 4 != k), np.flatnonzero(np.arange(40) % 4 == k)) for k in range(4)]
    # scale=None: the inner fits see the same features as the refits below.
    zero = cls(kernel="linear", C=10.0, cv=folds, scale=None, threshold="zero").fit(X, y)
    clf = cls(kernel="linear", C=10.0, cv=folds, scale=None, threshold="cv").fit(X, y)
    assert zero.threshold_ == 0.0
    # The same SVM; the bag threshold is -b / a of a Platt fit on the out-of-fold bag scores.
    np.testing.assert_array_equal(clf.svm_.coef_, zero.svm_.coef_)
    oof = np.empty(len(y))
    for tr, te in folds:
        oof[te] = cls(kernel="linear", C=10.0, scale=None, threshold="zero").fit([X[i] for i in tr], y[tr]).decision_function(
            [X[i] for i in te])
    a, b = fit_sigmoid(oof, y == 1, intercept=True)
    assert clf.threshold_ == pytest.approx(-b / a)
    assert clf.proba_scale_ == pytest.approx(a)
    assert clf.threshold_ != 0.0
    Xt, _ = _large_negative_bags(1, 200)
    s = clf.decision_function(Xt)
    np.testing.assert_allclose(s, zero.decision_function(Xt) - clf.threshold_)
    np.testing.assert_allclose(clf.instance_scores(Xt), zero.instance_scores(Xt) - clf.threshold_)
    # predict, predict_proba and decision_function agree.
    np.testing.assert_array_equal(clf.predict(Xt), (s > 0).astype(int))
    np.testing.assert_array_equal(clf.predict(Xt), np.argmax(clf.predict_proba(Xt), axis=1))
    np.testing.assert_array_equal(clf.predict_instances(Xt), (clf.instance_scores(Xt) > 0).astype(int))


@pytest.mark.parametrize("cls", [miSVMClassifier, MISVMClassifier])
@pytest.mark.parametrize("threshold", ["zero", "cv"])
def test_scoring_rules_on_the_out_of_fold_scores(cls, threshold):
    # Checked against scikit-learn: the out-of-fold bag scores of each C refitted by hand,
    # the calibration as unpenalised logistic regression (with an intercept for the
    # fitted cut, without for the cut at 0), sklearn.metrics' log loss and AUC.
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import log_loss, roc_auc_score

    X, y = _noisy_witness_bags(0, 40)  # overlapping out-of-fold scores: a finite optimum
    folds = [(np.flatnonzero(np.arange(40) % 4 != k), np.flatnonzero(np.arange(40) % 4 == k)) for k in range(4)]
    Cs = [0.01, 1.0, 100.0]
    kw = dict(kernel="linear", C=Cs, cv=folds, scale=None, threshold=threshold)
    clf = cls(scoring="neg_log_loss", **kw).fit(X, y)
    by_accuracy = cls(scoring="accuracy", **kw).fit(X, y)
    by_auc = cls(scoring="roc_auc", **kw).fit(X, y)
    losses, correct, aucs = [], [], []
    for C in Cs:
        oof = np.empty(len(y))
        for tr, te in folds:
            oof[te] = cls(kernel="linear", C=C, scale=None, threshold="zero").fit([X[i] for i in tr], y[tr]).decision_function(
                [X[i] for i in te])
        lr = _platt_reference(oof, y, None, threshold == "cv")
        losses.append(log_loss(y, lr.predict_proba(oof[:, None])[:, 1]))
        cut = -lr.intercept_[0] / lr.coef_[0, 0] if threshold == "cv" else 0.0
        correct.append(np.mean((oof > cut) == (y == 1)))  # accuracy at the cut the model uses
        aucs.append(roc_auc_score(y, oof))
    np.testing.assert_allclose(-clf.cv_results_[0], losses, rtol=1e-5)
    assert clf.C_ == Cs[int(np.argmin(losses))]
    np.testing.assert_allclose(by_accuracy.cv_results_[0], correct, rtol=1e-12)
    assert by_accuracy.C_ == Cs[int(np.argmax(correct))]
    np.testing.assert_allclose(by_auc.cv_results_[0], aucs, rtol=1e-12)
    assert by_auc.C_ == Cs[int(np.argmax(aucs))]


def _platt_reference(scores, y, w, intercept):
    """Unpenalised logistic regression on Platt's smoothed targets: each bag twice, as class 1
    with weight t and as class 0 with weight 1 - t (the same likelihood)."""
    from sklearn.linear_model import LogisticRegression

    w = np.ones(len(y)) if w is None else w
    n_pos, n_neg = w[y == 1].sum(), w[y == 0].sum()
    t = np.where(y == 1, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
    X2 = np.r_[scores, scores][:, None]
    y2 = np.r_[np.ones(len(y)), np.zeros(len(y))]
    # C = 1e12: no penalty in effect, spelt the same way on every supported scikit-learn.
    lr = LogisticRegression(C=1e12, tol=1e-12, max_iter=10_000, fit_intercept=intercept)
    return lr.fit(X2, y2, sample_weight=np.r_[w * t, w * (1 - t)])


def _reference_alternation(cls, X, y, gamma, C, max_iter=50):
    """The paper's alternations around SVC(kernel="rbf") on the raw instances (the
    implementation before the precomputed kernel): the instance decision function."""
    from sklearn.svm import SVC

    Z = np.vstack(X)
    offsets = np.r_[0, np.cumsum([len(b) for b in X])]
    inst_bag = np.repeat(np.arange(len(X)), np.diff(offsets))
    pos_bags = np.flatnonzero(y == 1)
    argmax = lambda f: np.array([offsets[b] + np.argmax(f[offsets[b]:offsets[b + 1]]) for b in pos_bags])
    if cls is miSVMClassifier:
        pos_inst = y[inst_bag] == 1
        t = pos_inst.astype(int)
        for _ in range(max_iter):
            svm = SVC(kernel="rbf", gamma=gamma, C=C).fit(Z, t)
            f = svm.decision_function(Z)
            new = np.where(pos_inst, f > 0, False).astype(int)
            empty = [b for b in pos_bags if not new[offsets[b]:offsets[b + 1]].any()]
            new[[offsets[b] + np.argmax(f[offsets[b]:offsets[b + 1]]) for b in empty]] = 1
            if np.array_equal(new, t):
                break
            t = new
        return svm
    neg = Z[y[inst_bag] == 0]
    W = np.array([X[b].mean(axis=0) for b in pos_bags])
    t = np.r_[np.zeros(len(neg), dtype=int), np.ones(len(pos_bags), dtype=int)]
    witness = None
    for _ in range(max_iter):
        svm = SVC(kernel="rbf", gamma=gamma, C=C).fit(np.vstack([neg, W]), t)
        new = argmax(svm.decision_function(Z))
        if witness is not None and np.array_equal(new, witness):
            break
        witness, W = new, Z[new]
    return svm


@pytest.mark.parametrize("cls", [miSVMClassifier, MISVMClassifier])
@pytest.mark.parametrize("seed", [0, 1])
def test_exact_rbf_precomputed_equals_the_rbf_svc(cls, seed):
    # The exact RBF path fits SVC(kernel="precomputed") on squared distances computed once;
    # its model is the paper's alternation around SVC(kernel="rbf").
    rng = np.random.default_rng(seed)
    X = [rng.normal(size=(int(rng.integers(1, 7)), 4)) for _ in range(50)]
    y = np.arange(50) % 2
    for b in np.flatnonzero(y == 1):
        X[b][0, :2] += 1.5
    X[3] = np.repeat(X[3][:1], 3, axis=0)  # tied instances
    Xt = [rng.normal(size=(int(rng.integers(1, 7)), 4)) for _ in range(20)]
    clf = cls(kernel="rbf", C=10.0, gamma=1.0, scale=None, threshold="zero").fit(X, y)
    assert clf.feature_map_ is None and clf.support_vectors_ is not None
    ref = _reference_alternation(cls, X, y, clf.gamma_, 10.0)
    np.testing.assert_allclose(clf.instance_scores(Xt), ref.decision_function(np.vstack(Xt)), atol=1e-8)
    assert clf.support_vectors_.shape[0] == ref.support_.shape[0]
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.decision_function(Xt), clf.decision_function(Xt))


@pytest.mark.parametrize("cls", [miSVMClassifier, MISVMClassifier])
def test_inner_folds_slice_the_fit_distances(cls, monkeypatch):
    # With max_exact = n the inner folds take their rows and columns of the fit's squared
    # distances (computed once); with n - 1 the fit and every inner fold take the Nystroem path
    # (the inner CV ranks the model that is refitted), though each fold is below max_exact.
    from mil.svm import _mi_svm

    X, y = _large_negative_bags(0, 24)
    n = sum(len(b) for b in X)
    kw = dict(kernel="rbf", C=[1.0, 10.0], gamma=[0.5, 2.0], n_components=20, max_iter=10, random_state=0)
    calls = []
    original = _mi_svm._sq_distances
    monkeypatch.setattr(_mi_svm, "_sq_distances", lambda P: calls.append(P.shape[0]) or original(P))
    sliced = cls(max_exact=n, **kw).fit(X, y)
    assert len(calls) == 1
    calls.clear()
    own = cls(max_exact=n - 1, **kw).fit(X, y)
    assert calls == []
    assert sliced.feature_map_ is None and own.feature_map_ is not None
    assert sliced.cv_results_.shape == own.cv_results_.shape


@pytest.mark.parametrize("cls", [miSVMClassifier, MISVMClassifier])
def test_beyond_3000_training_instances_the_default_is_the_nystroem_path(cls):
    # The exact kernel's fit grows with the square of the instances (39 s of CPU for one default
    # fold at 4,232 instances); beyond 3,000 the default takes the linear-time path.
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(20, 3)) for _ in range(151)]
    y = np.arange(151) % 2
    for b in np.flatnonzero(y == 1):
        X[b][0, 0] += 3.0
    assert cls().max_exact == 3000
    big = cls(C=1.0, gamma=1.0, cv=1, max_iter=3, random_state=0).fit(X, y)  # 3,020 instances
    small = cls(C=1.0, gamma=1.0, cv=1, max_iter=3, random_state=0).fit(X[:150], y[:150])  # 3,000
    assert big.feature_map_ is not None and small.feature_map_ is None


def _scripted_fit(rounds, n):
    """A stand-in SVM fit whose k-th call returns the decision values `rounds[k]` (then the last)."""
    calls = []

    def fit(rows, t, w):
        calls.append(np.array(t))
        return np.asarray(rounds[min(len(calls) - 1, len(rounds) - 1)], dtype=float)[:n]
    return fit, calls


def test_mi_alternation_stops_when_at_most_tol_of_the_guessed_labels_change():
    from mil.svm._mi_svm import _mi_alternation

    # Bag 0 negative (2 instances), bags 1-2 positive (10 instances each): 20 guessed labels.
    offsets = np.array([0, 2, 12, 22])
    inst_bag = np.repeat(np.arange(3), np.diff(offsets))
    pos = np.array([False, True, True])
    base = np.r_[-1.0, -1.0, np.full(10, -1.0), np.full(10, -1.0)]
    base[[2, 12]] = 1.0  # one positive instance each
    r1 = base.copy()
    r1[[3, 4, 13]] = 1.0  # 3 changes from r0's labels
    r2 = r1.copy()
    r2[5] = 1.0  # 1 change
    r3 = r2.copy()  # none
    rounds = [base, r1, r2, r3]
    for tol, expected in [(0.0, 4), (0.05, 3), (0.1, 3), (0.15, 2), (0.99, 1)]:
        fit, calls = _scripted_fit(rounds, 22)
        n_iter, _ = _mi_alternation(fit, offsets, inst_bag, pos, None, 50, tol)
        # 20 guessed labels: tol 0.05 allows 1 change, 0.1 allows 2, 0.15 allows 3.
        assert n_iter == expected == len(calls), tol
        # The negative bag's instances are never guessed, whatever the decision values.
        assert not any(c[:2].any() for c in calls)


def test_MI_alternation_stops_when_at_most_tol_of_the_witnesses_change():
    from mil.svm._mi_svm import _MI_alternation

    # Four positive bags of 3 instances and a negative bag: 4 witnesses.
    offsets = np.array([0, 3, 6, 9, 12, 15])
    inst_bag = np.repeat(np.arange(5), 3)
    pos = np.array([True, True, True, True, False])

    def at(witnesses):
        f = np.zeros(15)
        f[witnesses] = 1.0
        return f

    rounds = [at([0, 3, 6, 9]), at([1, 4, 6, 9]), at([1, 5, 6, 9]), at([1, 5, 6, 9])]  # 2, 1, 0 changes
    for tol, expected in [(0.0, 4), (0.25, 3), (0.5, 2)]:
        fit, calls = _scripted_fit(rounds, 15)
        n_iter, witness = _MI_alternation(fit, offsets, inst_bag, pos, None, 50, tol)
        assert n_iter == expected == len(calls), tol
        # The witnesses returned are those the last SVM was fitted on.
        np.testing.assert_array_equal(witness, np.flatnonzero(rounds[expected - 2]))


@pytest.mark.parametrize("cls", [miSVMClassifier, MISVMClassifier])
def test_default_tol_is_the_exact_rule_below_a_thousand_guessed_labels(cls):
    # 1e-3 of fewer than 1,000 guessed labels rounds down to no change: the same model as tol=0.
    X, y, _ = witness_bags(seed=3, n_bags=60)
    kw = dict(C=[1.0, 10.0], gamma=[0.5, 2.0], cv=2, random_state=0)
    for kernel in ("linear", "rbf"):
        a = cls(kernel=kernel, **kw).fit(X, y)
        b = cls(kernel=kernel, tol=0.0, **kw).fit(X, y)
        assert a.n_iter_ == b.n_iter_
        np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))

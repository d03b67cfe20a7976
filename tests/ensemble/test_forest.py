"""MIRandomForestClassifier: averaging, determinism, backends, out-of-bag, classes."""

import pickle

import numpy as np
import pytest

import mil
from mil._core import compiled_available, use_backend
from mil.ensemble import MIRandomForestClassifier
from mil.ensemble._forest import OOB_SHARPNESSES
from mil.tree import C45MIClassifier, ID3MIClassifier
from mil.utils.estimator_checks import check_bag_classifier, make_toy_bags


def concept_bags(seed, n_bags=60, n_classes=2, n_features=6):
    """Class c > 0: one instance has x_c in [3, 4]; class 0 bags have none. Other features noise."""
    rng = np.random.default_rng(seed)
    X, y = [], []
    for i in range(n_bags):
        k = rng.integers(2, 6)
        bag = rng.uniform(0, 1, (k, n_features))
        c = i % n_classes
        if c:
            bag[rng.integers(k), c - 1] = rng.uniform(3, 4)
        X.append(bag)
        y.append(c)
    return X, np.array(y)


def test_exported():
    assert mil.MIRandomForestClassifier is MIRandomForestClassifier


def test_bag_classifier_contract(backend):
    check_bag_classifier(MIRandomForestClassifier(n_estimators=5, random_state=0),
                         param_grid={"max_features": [1, "sqrt"]})


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("criterion", ["gain_ratio", "gain"])
def test_proba_is_the_average_of_the_trees(n_classes, criterion, backend):
    X, y = concept_bags(0, n_classes=n_classes)
    forest = MIRandomForestClassifier(n_estimators=7, criterion=criterion, sharpness=np.inf,
                                      random_state=1).fit(X, y)
    assert len(forest.estimators_) == 7
    cls = C45MIClassifier if criterion == "gain_ratio" else ID3MIClassifier
    assert all(type(t) is cls for t in forest.estimators_)
    X_test, y_test = concept_bags(1, n_bags=30, n_classes=n_classes)
    expected = np.mean([t.predict_proba(X_test) for t in forest.estimators_], axis=0)
    np.testing.assert_allclose(forest.predict_proba(X_test), expected, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(forest.predict(X_test),
                                  forest.classes_[np.argmax(expected, axis=1)])
    assert forest.score(X_test, y_test) >= 0.9


def instance_average_by_hand(forest, X):
    """max over a bag's instances of the trees' mean leaf Laplace estimate, per concept, normalised."""
    per_concept = []
    for k in range(len(forest.estimators_[0].trees_)):
        bag_scores = []
        for bag in X:
            leaf_p = [t.trees_[k].laplace()[t.trees_[k].apply(np.asarray(bag, dtype=float))]
                      for t in forest.estimators_]
            bag_scores.append(np.max(np.mean(leaf_p, axis=0)))
        per_concept.append(bag_scores)
    p = np.array(per_concept).T
    if p.shape[1] == 1:
        return np.column_stack([1 - p[:, 0], p[:, 0]])
    return p / p.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_average_instances_is_the_max_of_the_instance_average(n_classes, backend):
    X, y = concept_bags(8, n_classes=n_classes)
    forest = MIRandomForestClassifier(n_estimators=5, average="instances", sharpness=np.inf,
                                      random_state=2).fit(X, y)
    X_test, y_test = concept_bags(9, n_bags=30, n_classes=n_classes)
    expected = instance_average_by_hand(forest, X_test)
    np.testing.assert_allclose(forest.predict_proba(X_test), expected, rtol=0, atol=1e-14)
    np.testing.assert_array_equal(forest.predict(X_test), forest.classes_[np.argmax(expected, axis=1)])
    assert forest.score(X_test, y_test) >= 0.9
    # The same trees as average="bags" (the rule only combines their outputs).
    bags_forest = MIRandomForestClassifier(n_estimators=5, random_state=2).fit(X, y)
    assert all(a.trees_[k] == b.trees_[k] for a, b in zip(forest.estimators_, bags_forest.estimators_)
               for k in range(len(a.trees_)))


def test_average_instances_toy_case_by_hand():
    """Two trees on one feature; a bag whose instances are positive in different trees."""
    X = [np.array([[0.0]]), np.array([[1.0]]), np.array([[2.0]]), np.array([[3.0]])]
    y = np.array([0, 1, 0, 1])
    forest = MIRandomForestClassifier(n_estimators=2, bootstrap=False, average="instances",
                                      random_state=0).fit(X, y)
    assert forest.sharpness_ == np.inf  # "oob" without a bootstrap: the maximum
    # Without bootstrap both trees see all bags and split x at 0.5, 1.5, 2.5 into pure leaves of one
    # bag each: Laplace 2/3 on the positive bags' cells, 1/3 on the negative ones.
    for t in forest.estimators_:
        np.testing.assert_allclose(t.tree_.laplace()[t.tree_.apply(np.array([[0.0], [1.0], [2.0], [3.0]]))],
                                   [1 / 3, 2 / 3, 1 / 3, 2 / 3])
    proba = forest.predict_proba([np.array([[0.0], [2.0]]), np.array([[0.0], [3.0]])])
    np.testing.assert_allclose(proba[:, 1], [1 / 3, 2 / 3])
    # A tie: make x = 1's leaf negative in the second tree (pi = 0, nu = 1), so its mean is exactly 1/2;
    # it goes to the negative class, as a tree's pi == nu leaf.
    t = forest.estimators_[1].tree_
    leaf = t.apply(np.array([[1.0]]))[0]
    t.leaf_pos[leaf], t.leaf_neg[leaf] = 0, 1
    tie = forest.predict_proba([np.array([[1.0]])])[0, 1]
    assert tie < 0.5 and tie == pytest.approx(0.5, abs=1e-15)
    assert forest.predict([np.array([[1.0]])])[0] == 0


def lse_pooled_by_hand(estimates, r):
    """expit((1/r) log mean_i exp(r logit q_i)) of one bag's instance probabilities q."""
    f = np.log(estimates) - np.log1p(-estimates)
    s = np.log(np.mean(np.exp(r * f))) / r
    return 1 / (1 + np.exp(-s))


def pooled_forest_by_hand(forest, X, r, trees=None):
    """Class probabilities of a forest at sharpness r computed bag by bag (either `average`)."""
    trees = forest.estimators_ if trees is None else trees
    n_concepts = len(trees[0].trees_)
    out = []
    for bag in X:
        bag = np.asarray(bag, dtype=float)
        q = np.array([[t.trees_[k].laplace()[t.trees_[k].apply(bag)] for k in range(n_concepts)]
                      for t in trees])  # (tree, concept, instance)
        if forest.average == "bags":
            per_tree = np.array([[lse_pooled_by_hand(q[i, k], r) for k in range(n_concepts)]
                                 for i in range(len(trees))])
            if n_concepts == 1:
                per_tree = np.column_stack([1 - per_tree[:, 0], per_tree[:, 0]])
            else:
                per_tree = per_tree / per_tree.sum(axis=1, keepdims=True)
            out.append(per_tree.mean(axis=0))
        else:
            p = np.array([lse_pooled_by_hand(q[:, k].mean(axis=0), r) for k in range(n_concepts)])
            out.append([1 - p[0], p[0]] if n_concepts == 1 else p / p.sum())
    return np.array(out)


def test_lse_pooling_toy_case_by_hand():
    """At sharpness 1 a bag's pooled odds are the mean of its instances' odds."""
    X = [np.array([[0.0]]), np.array([[1.0]]), np.array([[2.0]]), np.array([[3.0]]),
         np.array([[4.0]]), np.array([[5.0]])]
    y = np.array([0, 1, 1, 1, 0, 0])
    forest = MIRandomForestClassifier(n_estimators=1, bootstrap=False, sharpness=1.0, max_features=None,
                                      random_state=0).fit(X, y)
    t = forest.estimators_[0].tree_
    # One pure leaf per class run: x < 0.5 (nu = 1), 0.5..3.5 (pi = 3), x > 3.5 (nu = 2).
    np.testing.assert_allclose(t.laplace()[t.apply(np.array([[0.0], [2.0], [5.0]]))], [1 / 3, 4 / 5, 1 / 4])
    # Odds 1/2, 4 and 1/3: the bag {0, 2} has mean odds 9/4, so 9/13; {0, 5}: 5/12, so 5/17;
    # {2, 2, 5}: (4 + 4 + 1/3) / 3 = 25/9, so 25/34. The maximum would give 4/5, 1/3, 4/5.
    bags = [np.array([[0.0], [2.0]]), np.array([[0.0], [5.0]]), np.array([[2.0], [2.0], [5.0]])]
    np.testing.assert_allclose(forest.predict_proba(bags)[:, 1], [9 / 13, 5 / 17, 25 / 34], rtol=1e-14)
    np.testing.assert_allclose(forest.set_params(sharpness=np.inf).fit(X, y).predict_proba(bags)[:, 1],
                               [4 / 5, 1 / 3, 4 / 5], rtol=1e-14)
    # Huge weights round a leaf estimate to 1: the pooled probability stays finite.
    w = np.array([1.0, 1e17, 1e17, 1e17, 1.0, 1.0])
    heavy = forest.set_params(sharpness=1.0).fit(X, y, sample_weight=w).predict_proba(bags)
    assert np.isfinite(heavy).all() and (heavy[[0, 2], 1] > 0.5).all()


@pytest.mark.parametrize("average", ["bags", "instances"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_lse_pooling_by_hand(average, n_classes, backend):
    X, y = concept_bags(12, n_classes=n_classes)
    X_test, y_test = concept_bags(13, n_bags=30, n_classes=n_classes)
    for r in (0.5, 3.0):
        forest = MIRandomForestClassifier(n_estimators=5, average=average, sharpness=r,
                                          random_state=4).fit(X, y)
        expected = pooled_forest_by_hand(forest, X_test, r)
        np.testing.assert_allclose(forest.predict_proba(X_test), expected, rtol=0, atol=1e-13)
        np.testing.assert_array_equal(forest.predict(X_test), forest.classes_[np.argmax(expected, axis=1)])
        assert forest.score(X_test, y_test) >= 0.8


@pytest.mark.parametrize("average", ["bags", "instances"])
def test_oob_sharpness_is_the_best_out_of_bag_accuracy(average, backend):
    X, y = concept_bags(14, n_bags=50)
    y[:6] = 1 - y[:6]  # label noise, so the sharpnesses' out-of-bag accuracies differ
    forest = MIRandomForestClassifier(n_estimators=9, average=average, oob_score=True,
                                      random_state=5).fit(X, y)
    assert forest.sharpness == "oob"
    scores = []
    for r in OOB_SHARPNESSES:
        fixed = MIRandomForestClassifier(n_estimators=9, average=average, oob_score=True, sharpness=r,
                                         random_state=5).fit(X, y)
        scores.append(fixed.oob_score_)
        if r == np.inf:
            continue
        # The out-of-bag estimate at r by hand, bag by bag, from the trees that left the bag out.
        for i in range(0, len(X), 7):
            trees = [t for t, s in zip(fixed.estimators_, fixed.estimators_samples_) if i not in s]
            if trees:
                np.testing.assert_allclose(fixed.oob_decision_function_[i],
                                           pooled_forest_by_hand(fixed, [X[i]], r, trees)[0], atol=1e-13)
    np.testing.assert_array_equal(forest.oob_sharpness_scores_, scores)
    best = OOB_SHARPNESSES[np.flatnonzero(np.array(scores) == max(scores))[-1]]  # ties: the sharpest
    assert forest.sharpness_ == best
    assert len(set(scores)) > 1
    fixed = MIRandomForestClassifier(n_estimators=9, average=average, oob_score=True, sharpness=best,
                                     random_state=5).fit(X, y)
    np.testing.assert_array_equal(forest.predict_proba(X), fixed.predict_proba(X))
    np.testing.assert_array_equal(forest.oob_decision_function_, fixed.oob_decision_function_)


@pytest.mark.parametrize("average", ["bags", "instances"])
def test_oob_decision_function_by_hand_both_averages(average, backend):
    X, y = concept_bags(10)
    forest = MIRandomForestClassifier(n_estimators=8, oob_score=True, average=average, sharpness=np.inf,
                                      random_state=0).fit(X, y)
    oob = np.full((len(X), 2), np.nan)
    for i in range(len(X)):
        trees = [t for t, s in zip(forest.estimators_, forest.estimators_samples_) if i not in s]
        if not trees:
            continue
        if average == "bags":
            oob[i] = np.mean([t.predict_proba([X[i]])[0] for t in trees], axis=0)
        else:
            p = np.max(np.mean([t.tree_.laplace()[t.tree_.apply(X[i])] for t in trees], axis=0))
            oob[i] = [1 - p, p]
    np.testing.assert_allclose(forest.oob_decision_function_, oob, atol=1e-14)
    ok = ~np.isnan(oob[:, 0])
    assert forest.oob_score_ == pytest.approx(np.mean(np.argmax(oob[ok], axis=1) == y[ok]))


def test_n_jobs_does_not_change_the_forest(backend):
    X, y = concept_bags(2, n_classes=3)
    one = MIRandomForestClassifier(n_estimators=6, random_state=3, oob_score=True).fit(X, y)
    two = MIRandomForestClassifier(n_estimators=6, random_state=3, oob_score=True, n_jobs=2).fit(X, y)
    for average in ("bags", "instances"):
        np.testing.assert_array_equal(one.set_params(average=average).predict_proba(X),
                                      two.set_params(average=average).predict_proba(X))
    for a, b in zip(one.estimators_, two.estimators_):
        assert all(ta == tb for ta, tb in zip(a.trees_, b.trees_))
    np.testing.assert_array_equal(one.predict_proba(X), two.predict_proba(X))
    np.testing.assert_array_equal(one.oob_decision_function_, two.oob_decision_function_)


@pytest.mark.skipif(not compiled_available() or mil._config.pure_python_requested(),
                    reason="compiled kernels are not in use")
def test_compiled_and_python_grow_identical_forests():
    from mil.datasets import load_dataset

    data = load_dataset("musk1")
    pick = np.r_[np.flatnonzero(data.target == 1)[:20], np.flatnonzero(data.target == 0)[:20]]
    bags, y = data.bags[pick], data.target[pick]
    forests = {}
    for kind in ("compiled", "python"):
        with use_backend(kind):
            forests[kind] = MIRandomForestClassifier(n_estimators=3, random_state=0).fit(bags, y)
    for a, b in zip(forests["compiled"].estimators_, forests["python"].estimators_):
        assert a.tree_ == b.tree_
        assert a.tree_.node_count > 3
    # The same pooling sharpness chosen out of bag, and the same probabilities.
    assert forests["compiled"].sharpness_ == forests["python"].sharpness_
    np.testing.assert_array_equal(forests["compiled"].oob_sharpness_scores_,
                                  forests["python"].oob_sharpness_scores_)
    for kind in ("compiled", "python"):
        with use_backend(kind):
            forests[kind] = forests[kind].predict_proba(bags)
    np.testing.assert_array_equal(forests["compiled"], forests["python"])


def test_bootstrap_samples_and_weights(backend):
    X, y = concept_bags(3)
    forest = MIRandomForestClassifier(n_estimators=4, max_samples=0.5, random_state=0).fit(X, y)
    for tree, sample in zip(forest.estimators_, forest.estimators_samples_):
        assert sample.size == 30
        counts = np.bincount(sample, minlength=len(X))
        # The root holds exactly the distinct sampled bags, weighted by their counts.
        t = tree.tree_
        assert t.n_pos_bags[0] == np.count_nonzero(counts[y == 1])
        assert t.n_neg_bags[0] == np.count_nonzero(counts[y == 0])
        assert t.weighted_pos[0] == counts[y == 1].sum()
        assert t.weighted_neg[0] == counts[y == 0].sum()
    full = MIRandomForestClassifier(n_estimators=2, bootstrap=False, random_state=0).fit(X, y)
    assert full.estimators_[0].tree_.n_pos_bags[0] + full.estimators_[0].tree_.n_neg_bags[0] == len(X)


def test_oob_decision_function_by_hand(backend):
    X, y = concept_bags(4)
    forest = MIRandomForestClassifier(n_estimators=10, oob_score=True, sharpness=np.inf,
                                      random_state=0).fit(X, y)
    total, seen = np.zeros((len(X), 2)), np.zeros(len(X))
    for tree, sample in zip(forest.estimators_, forest.estimators_samples_):
        out = np.setdiff1d(np.arange(len(X)), sample)
        total[out] += tree.predict_proba([X[i] for i in out])
        seen[out] += 1
    ok = seen > 0
    np.testing.assert_allclose(forest.oob_decision_function_[ok], total[ok] / seen[ok, None], atol=1e-15)
    assert np.isnan(forest.oob_decision_function_[~ok]).all()
    pred = forest.classes_[np.argmax(total[ok], axis=1)]
    assert forest.oob_score_ == pytest.approx(np.mean(pred == y[ok]))
    with pytest.raises(ValueError, match="bootstrap"):
        MIRandomForestClassifier(oob_score=True, bootstrap=False).fit(X, y)


def test_feature_importances_find_the_concept(backend):
    X, y = concept_bags(5)
    forest = MIRandomForestClassifier(n_estimators=20, random_state=0).fit(X, y)
    imp = forest.feature_importances_
    assert imp.shape == (6,) and imp.sum() == pytest.approx(1.0)
    assert np.argmax(imp) == 0 and imp[0] > 0.5


def test_three_classes_with_string_labels(backend):
    X, y = concept_bags(6, n_classes=3)
    names = np.array(["none", "red", "blue"])[y]
    forest = MIRandomForestClassifier(n_estimators=10, random_state=0, oob_score=True).fit(X, names)
    assert forest.classes_.tolist() == ["blue", "none", "red"]
    assert all(len(t.trees_) == 3 for t in forest.estimators_)
    X_test, y_test = concept_bags(7, n_bags=45, n_classes=3)
    proba = forest.predict_proba(X_test)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert forest.score(X_test, np.array(["none", "red", "blue"])[y_test]) >= 0.9
    assert forest.oob_score_ >= 0.8
    assert forest.decision_function(X_test).shape == (45, 3)


def test_clone_pickle_and_random_state(backend):
    X, y = make_toy_bags(n_bags=40)
    forest = MIRandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    again = pickle.loads(pickle.dumps(forest))
    np.testing.assert_array_equal(again.predict_proba(X), forest.predict_proba(X))
    same = MIRandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    np.testing.assert_array_equal(same.predict_proba(X), forest.predict_proba(X))
    other = MIRandomForestClassifier(n_estimators=5, random_state=1).fit(X, y)
    assert any(a.tree_ != b.tree_ for a, b in zip(forest.estimators_, other.estimators_))


def test_bad_parameters():
    X, y = make_toy_bags(n_bags=20)
    with pytest.raises(ValueError, match="max_samples"):
        MIRandomForestClassifier(max_samples=50).fit(X, y)
    with pytest.raises(ValueError):
        MIRandomForestClassifier(criterion="gini").fit(X, y)
    with pytest.raises(ValueError, match="average"):
        MIRandomForestClassifier(average="max").fit(X, y)
    for bad in (0.0, -1.0, "max"):
        with pytest.raises(ValueError, match="sharpness"):
            MIRandomForestClassifier(sharpness=bad).fit(X, y)
    with pytest.raises(ValueError, match="two classes"):
        MIRandomForestClassifier(positive_class=2).fit(X[:3], [0, 1, 2])

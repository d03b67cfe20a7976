"""ID3-MI and C4.5-MI estimators: conformance, learned concepts, removal, twins."""

import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import NotFittedError
from sklearn.tree import DecisionTreeClassifier

import mil
from mil import Bags
from mil._core import compiled_available, use_backend
from mil.tree import C45MIClassifier, ID3MIClassifier, export_text
from mil.utils.estimator_checks import check_bag_classifier
from mil.utils.validation import check_bags


@pytest.mark.parametrize("cls", [ID3MIClassifier, C45MIClassifier])
def test_bag_classifier_contract(cls, backend):
    check_bag_classifier(cls(), param_grid={"max_depth": [1, None], "growth": ["depth", "best"]})


def test_exported_from_mil():
    assert mil.ID3MIClassifier is ID3MIClassifier and mil.C45MIClassifier is C45MIClassifier
    assert "C45MIClassifier" in mil.__all__ and "ID3MIClassifier" in mil.__all__


def concept_bags(seed, n_bags=40):
    """A bag is positive iff one of its instances has x0 in [3, 4]; x1 is noise."""
    rng = np.random.default_rng(seed)
    X, y = [], []
    for i in range(n_bags):
        k = rng.integers(2, 5)
        bag = np.column_stack([rng.uniform(0, 1, k), rng.integers(0, 3, k).astype(float)])
        if i % 2:
            bag[rng.integers(k), 0] = rng.uniform(3, 4)
        X.append(bag)
        y.append(i % 2)
    return X, np.array(y)


@pytest.mark.parametrize("make", [
    lambda: C45MIClassifier(growth="best"),
    lambda: C45MIClassifier(growth="best", split_shares="children", pruning=True),
    lambda: ID3MIClassifier(growth="best", split_shares="children"),
])
def test_single_instance_feature_concept_is_learned_exactly(make, backend):
    X, y = concept_bags(0)
    clf = make().fit(X, y)
    t = clf.tree_
    # One split on x0 between the negative range [0, 1] and the positive one [3, 4]:
    # the right leaf explains every positive bag, the left one is then purely negative.
    assert t.node_count == 3 and t.feature[0] == 0 and 1.0 < t.threshold[0] < 3.0
    assert (t.n_pos_bags[1], t.n_neg_bags[1]) == (0, 20)
    assert (t.n_pos_bags[2], t.n_neg_bags[2]) == (20, 0)
    X_test, y_test = concept_bags(1, n_bags=100)
    assert clf.score(X_test, y_test) == 1.0
    inst = clf.predict_instances(X_test)
    bags = Bags.from_list(X_test)
    np.testing.assert_array_equal(inst == 1, bags.instances[:, 0] > t.threshold[0])


def test_positive_bag_removal_changes_the_tree(backend):
    # Positive bags: one instance at x0 = 10 (the concept) and one at x0 = 0.5 .. 0.9;
    # negative bags: instances in x0 = 0 .. 1, interleaved with the positive ones.
    X = [np.array([[10.0], [0.5]]), np.array([[10.0], [0.7]]), np.array([[10.0], [0.9]]),
         np.array([[0.4], [0.6]]), np.array([[0.8], [0.2]]), np.array([[0.1], [0.3]])]
    y = np.array([1, 1, 1, 0, 0, 0])
    kw = dict(growth="best", min_bags_leaf=1, pruning=False)
    with_removal = C45MIClassifier(**kw).fit(X, y).tree_
    without = C45MIClassifier(positive_bag_removal=False, **kw).fit(X, y).tree_
    assert with_removal.threshold[0] == without.threshold[0]  # same growth up to the removal

    def sibling_of_explaining_leaf(t):
        # The leaf x0 > t (t in (0.8, 10)) holds the three positive bags; return its sibling.
        leaf = int(np.flatnonzero(t.is_leaf & (t.n_pos_bags == 3))[0])
        parent = int(np.flatnonzero(t.children_right == leaf)[0])
        assert 0.8 < t.threshold[parent] < 10.0
        return t.children_left[parent]

    # With removal the sibling loses the low instances of the explained bags 0-2:
    # only negative bags remain and it is a leaf.
    s = sibling_of_explaining_leaf(with_removal)
    assert with_removal.is_leaf[s] and with_removal.n_pos_bags[s] == 0
    assert with_removal.node_count == 5
    # Without removal the sibling still mixes positive and negative bags and is split again.
    s = sibling_of_explaining_leaf(without)
    assert not without.is_leaf[s] and without.n_pos_bags[s] == 2 and without.n_neg_bags[s] == 2
    assert without.node_count > 5


def test_one_instance_per_bag_matches_an_entropy_tree_root(backend):
    # With single-instance bags Gain_multi is the ordinary information gain.
    rng = np.random.default_rng(3)
    X = np.round(rng.normal(size=(60, 4)), 1)
    y = (X[:, 2] + 0.5 * rng.normal(size=60) > 0).astype(int)
    bags = [row[None, :] for row in X]
    mi = ID3MIClassifier(max_depth=1, positive_bag_removal=False).fit(bags, y).tree_
    sk = DecisionTreeClassifier(criterion="entropy", max_depth=1).fit(X, y).tree_
    assert mi.feature[0] == sk.feature[0]
    assert mi.threshold[0] == pytest.approx(sk.threshold[0])
    assert (mi.n_pos_bags[1] + mi.n_neg_bags[1]) == sk.n_node_samples[1]


def gain_ratio_root(X, y):
    """Reference C4.5 root: best threshold per feature by gain, then guarded gain ratio."""
    def H(c):
        p = c / c.sum()
        p = p[p > 0]
        return -(p * np.log2(p)).sum()
    base = H(np.bincount(y, minlength=2).astype(float))
    per_feature = []
    for f in range(X.shape[1]):
        u = np.unique(X[:, f])
        best = None
        for a, b in zip(u[:-1], u[1:]):
            t = a / 2 + b / 2
            left = X[:, f] <= t
            cl, cr = np.bincount(y[left], minlength=2), np.bincount(y[~left], minlength=2)
            g = base - left.mean() * H(cl.astype(float)) - (~left).mean() * H(cr.astype(float))
            if best is None or g > best[0] + 1e-12:
                best = (g, t, H(np.array([left.sum(), (~left).sum()], float)))
        per_feature.append(best)
    avg = np.mean([g for g, _, _ in per_feature])
    ratios = [(g / si if g >= avg - 1e-12 else -np.inf, f) for f, (g, t, si) in enumerate(per_feature)]
    f = max(ratios, key=lambda r: (r[0], -r[1]))[1]
    return f, per_feature[f][1]


def test_one_instance_per_bag_matches_a_gain_ratio_tree_root(backend):
    rng = np.random.default_rng(5)
    X = np.round(rng.normal(size=(50, 3)), 1)
    y = (X[:, 1] - 0.3 * X[:, 0] + 0.4 * rng.normal(size=50) > 0).astype(int)
    tree = C45MIClassifier(max_depth=1, min_bags_leaf=1, positive_bag_removal=False,
                           pruning=False).fit([r[None, :] for r in X], y).tree_
    f, t = gain_ratio_root(X, y)
    assert (tree.feature[0], tree.threshold[0]) == (f, pytest.approx(t))


def test_predictions_are_consistent(backend):
    X, y = concept_bags(2)
    X[0][0, 1] = np.nan  # NaN is a missing value for the trees
    clf = C45MIClassifier(growth="best", smoothing=1.0, sharpness=np.inf).fit(X, y)  # Laplace leaves, max rule
    proba = clf.predict_proba(X)[:, 1]
    bags = check_bags(X, allow_nan=True)
    inst = clf.instance_proba(X)
    np.testing.assert_array_equal(proba, np.maximum.reduceat(inst, bags.offsets[:-1]))
    np.testing.assert_array_equal(clf.predict(X) == 1, proba > 0.5)
    np.testing.assert_array_equal(clf.decision_function(X) > 0, proba > 0.5)
    leaves = clf.apply(X)
    t = clf.tree_
    assert (t.children_left[leaves] == -1).all()
    np.testing.assert_allclose(inst, (t.n_pos_bags[leaves] + 1) / (t.n_pos_bags[leaves] + t.n_neg_bags[leaves] + 2))
    assert clf.get_depth() == t.max_depth and clf.get_n_leaves() == t.n_leaves
    assert clf.feature_importances_.shape == (2,)


def test_positive_class_flips_the_meaning(backend):
    X, y = concept_bags(0)
    labels = np.array(["neg", "pos"])[y]
    a = C45MIClassifier(growth="best", positive_class="pos").fit(X, labels)
    b = C45MIClassifier(growth="best", positive_class="neg").fit(X, labels)
    assert list(a.classes_) == list(b.classes_) == ["neg", "pos"]
    assert a.score(X, labels) == 1.0
    # Learning "neg" as the positive concept is a different (harder) MI problem:
    # the columns of predict_proba still follow classes_ and sum to one.
    np.testing.assert_allclose(b.predict_proba(X).sum(axis=1), 1.0)
    assert set(b.predict(X)) <= {"neg", "pos"}
    # A bag at exactly p = 1/2 is not positive: the tie rule gives it classes_[1]
    # in predict, predict_proba's argmax and decision_function's sign alike.
    score = b.decision_function(X)
    np.testing.assert_array_equal(score > 0, b.predict(X) == "pos")
    np.testing.assert_array_equal(b.classes_[np.argmax(b.predict_proba(X), axis=1)], b.predict(X))


def test_nan_and_errors():
    X, y = concept_bags(0)
    X = [b.copy() for b in X]
    for b in X[::3]:
        b[0, 0] = np.nan
    clf = C45MIClassifier(growth="best").fit(X, y)
    assert clf.predict(X).shape == (40,)
    with pytest.raises(ValueError, match="infinity"):
        C45MIClassifier().fit([np.array([[np.inf]]), np.array([[1.0]])], [0, 1])
    with pytest.raises(ValueError, match="two classes"):
        C45MIClassifier(positive_class=2).fit(X[:3], [0, 1, 2])
    with pytest.raises(NotFittedError):
        export_text(C45MIClassifier())
    with pytest.raises(ValueError):
        C45MIClassifier(growth="sideways").fit(X, y)
    with pytest.raises(ValueError, match="feature_names"):
        export_text(clf, feature_names=["only one"])


def test_export_text():
    X = [np.array([[0.0, 1.0], [5.0, 1.0]]), np.array([[1.0, 1.0]]), np.array([[0.5, 1.0], [2.0, 0.0]])]
    clf = C45MIClassifier(growth="best", min_bags_leaf=1).fit(X, [1, 0, 0])
    text = export_text(clf, feature_names=["size", "colour"])
    lines = text.splitlines()
    assert text == clf.export_text(feature_names=["size", "colour"])
    assert len(lines) == 2 * clf.tree_.n_leaves - 2 + clf.tree_.n_leaves
    assert all(line.startswith("|--- ") or line.startswith("|   ") for line in lines)
    assert "size" in text or "colour" in text
    assert "class: 1 (bags: 0=0, 1=1; p=" in text and "class: 0 (bags: 0=" in text


def test_pruning_collapses_noise():
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(rng.integers(1, 4), 3)) for _ in range(40)]
    y = rng.integers(0, 2, 40)
    full = C45MIClassifier(pruning=False).fit(X, y).tree_
    pruned = C45MIClassifier(pruning=True).fit(X, y).tree_
    assert pruned.node_count < full.node_count
    assert pruned.n_leaves >= 1


def test_pessimistic_errors_reference_values():
    from mil.tree._pruning import pessimistic_errors
    # No errors: the exact binomial limit, N (1 - CF^(1/N)).
    assert pessimistic_errors(6, 0, 0.25) == pytest.approx(6 * (1 - 0.25 ** (1 / 6)))
    # Wilson-style upper limit with continuity correction for E >= 1.
    z = 0.6744897501960817
    n, e = 16, 1
    f = e + 0.5
    upper = (f + z * z / 2 + z * math.sqrt(f * (1 - f / n) + z * z / 4)) / (n + z * z)
    assert pessimistic_errors(n, e, 0.25) == pytest.approx(n * upper)
    assert pessimistic_errors(0, 0, 0.25) == 0.0


@st.composite
def random_bag_sets(draw):
    n_bags = draw(st.integers(4, 12))
    d = draw(st.integers(1, 3))
    seed = draw(st.integers(0, 2 ** 16))
    rng = np.random.default_rng(seed)
    X = [np.round(rng.normal(size=(rng.integers(1, 5), d)), draw(st.sampled_from([0, 1, 3])))
         for _ in range(n_bags)]
    if draw(st.booleans()):
        X[0][0, 0] = np.nan
    y = np.arange(n_bags) % 2
    rng.shuffle(y)
    return X, y


@settings(max_examples=40, deadline=None)
@given(random_bag_sets(), st.sampled_from([ID3MIClassifier, C45MIClassifier]),
       st.sampled_from(["depth", "best"]), st.sampled_from(["parent", "children"]),
       st.booleans(), st.sampled_from([1, 2]))
def test_compiled_and_python_build_identical_trees(data, cls, growth, shares, pruning, min_bags):
    if not compiled_available():
        pytest.skip("compiled kernels are not built")
    X, y = data
    est = cls(growth=growth, split_shares=shares, pruning=pruning, min_bags_leaf=min_bags)
    with use_backend("compiled"):
        a = est.fit(X, y).tree_
        pa = est.predict_proba(X)
    with use_backend("python"):
        b = est.fit(X, y).tree_
        pb = est.predict_proba(X)
    assert a == b
    np.testing.assert_array_equal(pa, pb)


def test_model_pickled_on_one_backend_predicts_on_the_other():
    if not compiled_available():
        pytest.skip("compiled kernels are not built")
    X, y = concept_bags(4)
    with use_backend("compiled"):
        clf = C45MIClassifier(growth="best").fit(X, y)
        expected = clf.predict_proba(X)
    restored = pickle.loads(pickle.dumps(clf))
    with use_backend("python"):
        np.testing.assert_array_equal(restored.predict_proba(X), expected)


def test_random_state_breaks_feature_ties_reproducibly(backend):
    # Two identical features: every split ties between them.
    rng = np.random.default_rng(0)
    X = []
    for i in range(20):
        col = rng.uniform(0, 1, (3, 1))
        if i % 2:
            col[0, 0] = 5.0
        X.append(np.hstack([col, col]))
    y = np.arange(20) % 2
    default = C45MIClassifier(growth="best").fit(X, y).tree_
    assert set(default.feature[default.feature >= 0]) == {0}  # lowest index wins
    seeds = {s: C45MIClassifier(growth="best", random_state=s).fit(X, y).tree_ for s in range(6)}
    roots = {t.feature[0] for t in seeds.values()}
    assert roots == {0, 1}  # some seed prefers feature 1
    again = C45MIClassifier(growth="best", random_state=3).fit(X, y).tree_
    assert again == seeds[3]

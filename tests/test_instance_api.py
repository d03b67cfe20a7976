"""One instance-level API: instance_proba / instance_scores / predict_instances, flat or per bag."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from mil import Bags
from mil.base import InstanceOutputMixin, split_by_bag
from mil.embedding import MILESClassifier, MInDClassifier, SlicedWassersteinClassifier, miFVClassifier
from mil.ensemble import GDBTMIClassifier, MIRandomForestClassifier
from mil.neighbors import BagKNNClassifier, CitationKNNClassifier
from mil.rules import RipperMIClassifier
from mil.svm import BagKernelSVC, MISVMClassifier, miSVMClassifier
from mil.tree import C45MIClassifier, ID3MIClassifier
from mil.wrappers import MIWrapperClassifier, SimpleMIClassifier


def _bags(n_bags=30, seed=0, labels=(0, 1)):
    rng = np.random.default_rng(seed)
    X, y = [], []
    for b in range(n_bags):
        label = labels[b % len(labels)]
        bag = rng.normal(size=(int(rng.integers(1, 5)), 2))
        if label == labels[-1]:
            bag[0, 0] += 4.0
        X.append(bag)
        y.append(label)
    return X, np.array(y)


LEARNERS = [
    lambda: C45MIClassifier(min_bags_leaf=2),
    lambda: ID3MIClassifier(min_bags_leaf=2),
    lambda: MIRandomForestClassifier(n_estimators=5, random_state=0),
    lambda: GDBTMIClassifier(n_estimators=10, random_state=0),
    lambda: RipperMIClassifier(random_state=0),
    lambda: MIWrapperClassifier(LogisticRegression()),
    lambda: miSVMClassifier(kernel="linear", C=1.0, random_state=0),
    lambda: MISVMClassifier(C=1.0, gamma=1.0, random_state=0),
    lambda: MILESClassifier(Cs=(1.0,), sigma_scales=(1.0,), cv=3, random_state=0),
    lambda: MInDClassifier(Cs=(1.0,), gamma_scales=(1.0,), cv=3, random_state=0),
    lambda: BagKernelSVC(C=[1.0], gamma=1.0, random_state=0),
    lambda: BagKernelSVC(kernel="migraph", C=[1.0], gamma=1.0, random_state=0),
]
IDS = ["c45", "id3", "forest", "gdbt", "ripper", "miwrapper", "mi-svm", "MI-SVM", "miles", "mind",
       "nsk", "migraph"]


@pytest.mark.parametrize("make", LEARNERS, ids=IDS)
def test_instance_outputs_are_those_of_one_instance_bags(make, backend):
    X, y = _bags()
    clf = make().fit(X, y)
    assert isinstance(clf, InstanceOutputMixin)
    singles = [inst[None, :] for bag in X for inst in bag]
    n = len(singles)
    proba, scores, labels = clf.instance_proba(X), clf.instance_scores(X), clf.predict_instances(X)
    assert proba.shape == scores.shape == labels.shape == (n,)
    np.testing.assert_allclose(proba, clf.predict_proba(singles)[:, 1], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(scores, clf.decision_function(singles), rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(labels, clf.predict(singles))
    assert np.all((proba >= 0) & (proba <= 1))
    # Larger scores favour classes_[1]; the label agrees with the score's sign.
    np.testing.assert_array_equal(labels[scores > 0], clf.classes_[1])
    np.testing.assert_array_equal(labels[scores < 0], clf.classes_[0])
    # One array per bag.
    for out, flat in ((clf.instance_proba(X, per_bag=True), proba),
                      (clf.instance_scores(X, per_bag=True), scores),
                      (clf.predict_instances(X, per_bag=True), labels)):
        assert [len(a) for a in out] == [len(b) for b in X]
        np.testing.assert_array_equal(np.concatenate(out), flat)


@pytest.mark.parametrize("make", LEARNERS, ids=IDS)
def test_more_classes_give_one_column_per_class(make):
    X, y = _bags(36, labels=("a", "b", "c"))
    try:
        clf = make().fit(X, y)
    except ValueError as exc:  # a two-class learner says so
        assert "two classes" in str(exc) or "classes" in str(exc)
        return
    n = sum(len(b) for b in X)
    proba = clf.instance_proba(X)
    assert proba.shape == (n, 3) and clf.instance_scores(X).shape == (n, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert set(clf.predict_instances(X)) <= set(clf.classes_)


def test_the_positive_class_orients_the_outputs():
    X, y = _bags()
    words = np.where(y == 1, "active", "inactive")
    a = C45MIClassifier(min_bags_leaf=2, positive_class="active").fit(X, words)
    assert a.classes_.tolist() == ["active", "inactive"]
    b = C45MIClassifier(min_bags_leaf=2).fit(X, y)
    # classes_[1] is now the negative class: the outputs flip.
    np.testing.assert_allclose(a.instance_proba(X), 1 - b.instance_proba(X))
    np.testing.assert_allclose(a.instance_scores(X), -b.instance_scores(X))


def test_mi_svm_instance_scores_are_the_svm_decision_values():
    X, y = _bags()
    words = np.where(y == 1, "active", "inactive")
    a = miSVMClassifier(kernel="linear", C=1.0, threshold="zero", positive_class="active").fit(X, words)
    assert a.classes_.tolist() == ["active", "inactive"]
    bags = Bags.from_list(X)
    f = a.svm_.decision_function((bags.instances - a.offset_) / a.scale_)
    # classes_[1] is the negative class: the scores are the negated decision values.
    np.testing.assert_allclose(a.instance_scores(X), -f, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(a.predict_instances(X) == "active", f > 0)


def test_miles_contributions_are_not_the_instance_scores():
    X, y = _bags()
    clf = MILESClassifier(Cs=(1.0,), sigma_scales=(1.0,), cv=3, random_state=0).fit(X, y)
    contrib = clf.instance_contributions(X, per_bag=True)
    assert [len(c) for c in contrib] == [len(b) for b in X]
    # A bag's contributions sum to its decision value minus the intercept.
    np.testing.assert_allclose([c.sum() for c in contrib], clf.decision_function(X) - clf.intercept_[0],
                               rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(np.concatenate(contrib), clf.instance_contributions(X))


def test_existing_names_keep_working():
    X, y = _bags()
    gdbt = GDBTMIClassifier(n_estimators=5, random_state=0).fit(X, y)
    bags = Bags.from_list(X)
    F = gdbt.instance_scores(bags)
    pooled = [f.max() for f in split_by_bag(F, bags.offsets)]
    assert len(pooled) == len(X)
    tree = C45MIClassifier(min_bags_leaf=2).fit(X, y)
    assert tree.instance_proba(X).shape == tree.predict_instances(X).shape == (bags.n_instances,)


def test_learners_without_an_instance_model_have_none():
    for clf in (CitationKNNClassifier(), BagKNNClassifier(), SimpleMIClassifier()):
        assert not hasattr(clf, "instance_proba") and not hasattr(clf, "instance_scores")


def test_a_score_only_learner():
    class ScoreOnly(C45MIClassifier):
        _instance_proba = None

    X, y = _bags()
    clf = ScoreOnly(min_bags_leaf=2).fit(X, y)
    with pytest.raises(AttributeError, match="no instance probabilities"):
        clf.instance_proba(X)
    assert clf.instance_scores(X).shape == (sum(len(b) for b in X),)


def test_split_by_bag_checks_the_length():
    with pytest.raises(ValueError, match="values has 3 rows but the bags hold 4"):
        split_by_bag(np.zeros(3), np.array([0, 2, 4]))


@pytest.mark.parametrize("make", LEARNERS[5:] + [lambda: miFVClassifier(random_state=0),
                                                 lambda: SlicedWassersteinClassifier(random_state=0)],
                         ids=IDS[5:] + ["mi-fv", "swe"])
def test_instances_scored_in_blocks_as_at_once(make, monkeypatch):
    # The generic instance outputs score the one-instance bags a block at a time (memory); the
    # blocks change nothing.
    import mil.base

    X, y = _bags(40)
    clf = make().fit(X, y)
    whole = [getattr(clf, m)(X) for m in ("instance_scores", "predict_instances")]
    monkeypatch.setattr(mil.base, "SINGLETON_BLOCK", 7)
    blocked = [getattr(clf, m)(X) for m in ("instance_scores", "predict_instances")]
    np.testing.assert_allclose(blocked[0], whole[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(blocked[1], whole[1])

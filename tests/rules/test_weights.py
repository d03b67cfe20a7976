"""RIPPER-MI with weights: sample_weight, class_weight and the collective instance weights (weighting)."""

import numpy as np
import pytest
from sklearn.utils import check_random_state
from sklearn.utils.class_weight import compute_sample_weight

import mil
from mil import Bags, RipperMIClassifier
from mil._core import compiled_available, use_backend
from mil.rules._ripper import _Ripper

from .test_ripper import MI, conjunction_bags

CONFIGS = [
    {},
    {"assumption": "standard"},
    MI,
    {"rule_order": "ordered", "beam_width": 2},
]


def _same_model(a, b, X):
    assert a.rules_ == b.rules_
    assert a.default_rule_ == b.default_rule_
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


@pytest.mark.parametrize("params", CONFIGS)
def test_unit_weights_give_the_unweighted_model(backend, params):
    X, y = conjunction_bags(40, seed=3)
    y = np.where(np.arange(40) % 7 == 0, 1 - y, y)   # label noise: several rules and pruning
    plain = RipperMIClassifier(random_state=0, **params).fit(X, y)
    unit = RipperMIClassifier(random_state=0, **params).fit(X, y, sample_weight=np.ones(40))
    _same_model(plain, unit, X)
    # Rule counts stay whole numbers (ints), so the text is unchanged too.
    assert plain.export_text() == unit.export_text()


@pytest.mark.skipif(not compiled_available() or mil._config.pure_python_requested(),
                    reason="needs the compiled kernels beside the NumPy twins")
def test_weights_identical_on_both_backends():
    X, y = conjunction_bags(40, seed=4)
    w = check_random_state(0).uniform(0.2, 3.0, size=40)
    models = []
    for name in ("compiled", "python"):
        with use_backend(name):
            models.append([RipperMIClassifier(random_state=0, **p).fit(X, y, sample_weight=w)
                           for p in ({}, {"weighting": "inverse_size"}, {"weighting": "uniform"},
                                     {"assumption": "standard"})])
    for a, b in zip(*models):
        _same_model(a, b, X)


def test_balanced_class_weight_equals_its_sample_weight(backend):
    X, y = conjunction_bags(40, seed=5)
    y = np.where(np.arange(40) < 28, 0, y)   # imbalanced: few positive bags
    sw = check_random_state(1).uniform(0.5, 2.0, size=40)
    for params in ({}, {"assumption": "standard"}):
        a = RipperMIClassifier(random_state=0, class_weight="balanced", **params).fit(X, y, sample_weight=sw)
        b = RipperMIClassifier(random_state=0, **params).fit(
            X, y, sample_weight=sw * compute_sample_weight("balanced", y))
        _same_model(a, b, X)
        c = RipperMIClassifier(random_state=0, class_weight={0: 0.5, 1: 2.0}, **params).fit(X, y)
        d = RipperMIClassifier(random_state=0, **params).fit(X, y, sample_weight=np.where(y == 1, 2.0, 0.5))
        _same_model(c, d, X)


def test_zero_weight_is_a_removed_bag(backend):
    X, y = conjunction_bags(40, seed=6)
    w = np.ones(40)
    w[[3, 10, 11]] = 0.0
    kept = np.flatnonzero(w > 0)
    for params in ({}, {"assumption": "standard"}):
        a = RipperMIClassifier(random_state=0, **params).fit(X, y, sample_weight=w)
        b = RipperMIClassifier(random_state=0, **params).fit([X[i] for i in kept], y[kept])
        _same_model(a, b, X)


def test_weighted_rule_counts_by_hand(backend):
    # Two well separated one-instance bags per class, weights 1, 3 (class 0) and 1.5, 1 (class 1):
    # each class gets one rule covering exactly its own bags.
    X = [np.array([[0.0]]), np.array([[0.1]]), np.array([[5.0]]), np.array([[5.1]])]
    y = np.array([0, 0, 1, 1])
    clf = RipperMIClassifier(assumption="standard", min_bags=1, k=0, random_state=0)
    clf.fit(X, y, sample_weight=[1.0, 3.0, 1.5, 1.0])
    by_label = {r.label: r for r in clf.rules_}
    assert by_label[0].counts == (4, 0) and by_label[1].counts == (0, 2.5)
    # Laplace distribution on the weighted counts: (counts + 1) / (total + 2).
    np.testing.assert_allclose(by_label[0].distribution, [5 / 6, 1 / 6])
    np.testing.assert_allclose(by_label[1].distribution, [1 / 4.5, 3.5 / 4.5])
    assert "THEN class: 1 (bag weight: 0=0, 1=2.5; p=0.78)" in clf.export_text()


def test_weighting_reduces_to_uniform(backend):
    # One instance per bag: 1 / size = 1, "inverse_size" is "uniform". Equal sizes: "bag" is 1.
    rng = np.random.default_rng(0)
    X1 = [rng.normal(size=(1, 3)) + 2 * (i % 2) for i in range(40)]
    X3 = [rng.normal(size=(3, 3)) + 2 * (i % 2) for i in range(40)]
    y = np.arange(40) % 2
    for X, mode in ((X1, "inverse_size"), (X1, "bag"), (X3, "bag")):
        a = RipperMIClassifier(random_state=0, weighting="uniform").fit(X, y)
        b = RipperMIClassifier(random_state=0, weighting=mode).fit(X, y)
        _same_model(a, b, X)
    # (1 / 49) * 49 is not 1 in floating point: equal sizes still give weights of exactly 1,
    # with and without unit sample weights.
    X49 = [rng.normal(size=(49, 2)) + 2 * (i % 2) for i in range(12)]
    y12 = np.arange(12) % 2
    a = RipperMIClassifier(random_state=0, weighting="uniform").fit(X49, y12)
    for sw in (None, np.ones(12)):
        b = RipperMIClassifier(random_state=0, weighting="bag").fit(X49, y12, sample_weight=sw)
        _same_model(a, b, X49)


def test_inverse_size_weighting_counts_bags(backend):
    # With 1 / bag size, the default rule and the rules count bags: over all rules of the class
    # learned last and the default rule, the weights add up to whole bags on a separable toy.
    X, y = conjunction_bags(40, seed=7)
    clf = RipperMIClassifier(random_state=0, weighting="inverse_size").fit(X, y)
    total = np.asarray(clf.default_rule_.counts, float)
    for r in clf.rules_:
        assert np.all(np.asarray(r.counts, float) >= 0)
    bags = Bags.from_list(X)
    # Every rule's counts are sums of 1 / size over the instances it covers.
    for r in clf.rules_:
        inst = Bags.from_instances(bags.instances, np.arange(bags.n_instances))
        cov = np.ones(bags.n_instances, bool)
        for f, op, t in r.conditions:
            cov &= (bags.instances[:, f] >= t) if op else (bags.instances[:, f] <= t)
        w = 1.0 / np.diff(bags.offsets)[bags.instance_bag]
        expected = [w[cov & (y[bags.instance_bag] == c)].sum() for c in (0, 1)]
        np.testing.assert_allclose(r.counts, expected, rtol=1e-12)
        assert inst.n_bags == bags.n_instances
    assert total.sum() <= 40 + 1e-9


def test_integer_weights_equal_repeated_bags_in_the_deterministic_phases(backend):
    """Growing, pruning and the description length see a weight of k as k copies of the bag.

    (The grow/prune split is random and draws bags, so whole fits differ.)
    """
    X, y = conjunction_bags(30, seed=8)
    y = np.where(np.arange(30) % 5 == 0, 1 - y, y)
    reps = np.arange(30) % 3 + 1
    est = RipperMIClassifier(assumption="standard", rule_order="ordered")
    bags = Bags.from_list(X)
    rbags = Bags.from_list([X[i] for i in range(30) for _ in range(reps[i])])
    pos, rpos = y == 1, np.repeat(y, reps) == 1
    weighted = _Ripper(est, bags, pos, np.random.RandomState(0), weight=reps.astype(float))
    repeated = _Ripper(est, rbags, rpos, np.random.RandomState(0))
    everything, r_everything = np.ones(30, bool), np.ones(int(reps.sum()), bool)
    rule = weighted.grow(everything)
    assert rule and rule == repeated.grow(r_everything)
    half = np.arange(30) % 2 == 0
    r_half = np.repeat(half, reps)
    assert weighted.prune(rule, half) == repeated.prune(rule, r_half)
    assert weighted.prune(rule, half, whole_error=True) == repeated.prune(rule, r_half, whole_error=True)
    rules = [rule, rule[:1]]
    assert weighted.dl(rules) == pytest.approx(repeated.dl(rules), rel=1e-12)
    assert weighted.reduce_dl(rules) == repeated.reduce_dl(rules)


@pytest.mark.parametrize("bad, match", [
    (np.ones(39), "shape"),
    (-np.ones(40), "negative"),
    (np.full(40, np.nan), "NaN"),
    (np.zeros(40), "sum to zero"),
])
def test_sample_weight_errors(bad, match):
    X, y = conjunction_bags(40)
    with pytest.raises(ValueError, match=match):
        RipperMIClassifier(random_state=0).fit(X, y, sample_weight=bad)


def test_weighting_is_ignored_with_bag_coverage():
    X, y = conjunction_bags(20)
    a = RipperMIClassifier(assumption="standard", weighting="uniform", random_state=0).fit(X, y)
    b = RipperMIClassifier(assumption="standard", weighting="inverse_size", random_state=0).fit(X, y)
    _same_model(a, b, X)
    with pytest.raises(ValueError, match="weighting"):
        RipperMIClassifier(weighting="equal").fit(X, y)
    with pytest.raises(ValueError, match="class_weight"):
        RipperMIClassifier(class_weight="uniform").fit(X, y)

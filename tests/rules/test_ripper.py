"""RIPPER-MI: scikit-learn contract, a learnable concept, MDL by hand, plain RIPPER, twin agreement."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.utils import check_random_state

from mil import Bags, RipperMIClassifier
from mil._core import use_backend
from mil.rules import Condition, Rule
from mil.rules._mdl import data_dl, ruleset_dl, subset_dl, theory_dl
from mil.rules._ripper import _Ripper
from mil.utils.estimator_checks import check_bag_classifier, make_toy_bags


def conjunction_bags(n_bags=80, seed=0):
    """Concept: some instance has x0 >= 5 and x1 <= 3; feature 2 is noise.

    Background instances avoid the box [4, 10] x [0, 4]; each positive bag also
    holds the concept point (7, 1). Every rule x0 >= t0 AND x1 <= t1 with
    4 < t0 <= 7 and 1 <= t1 < 4 separates the bags exactly, on any sample.
    """
    rng = np.random.default_rng(seed)
    X, y = [], []
    for i in range(n_bags):
        size = rng.integers(2, 6)
        inst = rng.uniform(0, 10, size=(size, 3))
        inside = (inst[:, 0] >= 4) & (inst[:, 1] <= 4)
        inst[inside, 1] += 4.0 + 1e-3  # move background out of the concept box
        label = i % 2
        if label:
            inst[rng.integers(size), :2] = [7.0, 1.0]
        X.append(inst)
        y.append(label)
    return X, np.array(y)


def test_sklearn_contract():
    check_bag_classifier(RipperMIClassifier(random_state=0), param_grid={"k": [0, 1]})


def test_learns_one_conjunction_exactly(backend):
    X, y = conjunction_bags()
    clf = RipperMIClassifier(random_state=0).fit(X, y)
    assert len(clf.rules_) == 1
    rule = clf.rules_[0]
    assert {(c.feature, c.op) for c in rule.conditions} == {(0, 1), (1, 0)}
    thr = {c.feature: c.threshold for c in rule.conditions}
    assert 4 < thr[0] <= 7 and 1 <= thr[1] < 4
    assert (rule.p, rule.n) == (40, 0) and clf.default_rule_ == (0, 40)
    X_test, y_test = conjunction_bags(n_bags=200, seed=1)
    assert clf.score(X_test, y_test) == 1.0


def test_subset_and_theory_dl_by_hand():
    # subset_dl(t, k, p) = -k log2 p - (t - k) log2(1 - p)
    assert subset_dl(8, 2, 0.25) == pytest.approx(-2 * math.log2(0.25) - 6 * math.log2(0.75))
    assert subset_dl(5, 0, 0.0) == 0.0
    # One condition among 4 possible: 0.5 * (log2 1 + subset_dl(4, 1, 1/4)) = 0.5 * (2 + 3 log2(4/3)).
    assert theory_dl(1, 4) == pytest.approx(0.5 * (2 + 3 * math.log2(4 / 3)))
    # Three conditions among 100: log2 3 + 2 log2(log2 3) + subset_dl(100, 3, 0.03), halved.
    expected = 0.5 * (math.log2(3) + 2 * math.log2(math.log2(3))
                      - 3 * math.log2(0.03) - 97 * math.log2(0.97))
    assert theory_dl(3, 100) == pytest.approx(expected)


def test_ruleset_dl_by_hand():
    # Two rules (1 and 2 conditions, 10 possible conditions) covering 6 of 10 bags,
    # 1 false positive, 2 false negatives, expected FP share 0.4.
    # Covered (6) > uncovered (4): cover bits subset_dl(6, 1, 0.4 * 3 / 6), uncover
    # bits subset_dl(4, 2, 2 / 4); plus log2(10 + 1) to send the number of bags.
    cover_bits = -1 * math.log2(0.2) - 5 * math.log2(0.8)
    uncover_bits = -2 * math.log2(0.5) - 2 * math.log2(0.5)
    data = math.log2(11) + cover_bits + uncover_bits
    assert data_dl(0.4, 6, 4, 1, 2) == pytest.approx(data)
    t1 = 0.5 * (-math.log2(0.1) - 9 * math.log2(0.9))
    t2 = 0.5 * (1 + 0 - 2 * math.log2(0.2) - 8 * math.log2(0.8))
    assert ruleset_dl([1, 2], 10, 0.4, 6, 4, 1, 2) == pytest.approx(t1 + t2 + data)
    # Uncovered >= covered: the expectation moves to the uncovered side.
    cover_bits = -1 * math.log2(1 / 3) - 2 * math.log2(2 / 3)
    uncover_bits = -3 * math.log2(0.6 * 4 / 7) - 4 * math.log2(1 - 0.6 * 4 / 7)
    assert data_dl(0.4, 3, 7, 1, 3) == pytest.approx(math.log2(11) + cover_bits + uncover_bits)


def test_learner_dl_matches_hand_count():
    # 4 single-instance bags on one feature, values 0..3, labels - - + +: 4 distinct values,
    # so 8 possible conditions; the rule x0 >= 1.5 covers both positives exactly.
    X = [np.array([[float(v)]]) for v in range(4)]
    bags = Bags.from_list(X)
    learner = _Ripper(RipperMIClassifier(), bags, np.array([0, 0, 1, 1], bool), check_random_state(0))
    assert learner.n_conditions == 8
    rule = ((0, 1, 1.5),)
    # Theory: 0.5 * subset_dl(8, 1, 1/8); data: cover 2, uncover 2, no errors: log2(5).
    expected = 0.5 * (-math.log2(1 / 8) - 7 * math.log2(7 / 8)) + math.log2(5)
    assert learner.dl([rule]) == pytest.approx(expected)
    # No rule: 2 false negatives among 4 uncovered bags, expected (1 - 0.5) * 2 = 1 of them.
    assert learner.dl([]) == pytest.approx(math.log2(5) + subset_dl(4, 2, 0.25))


def test_learns_a_rule_for_values_near_the_largest_double(backend):
    # A threshold midpoint (a + b) * 0.5 overflowed to inf here and the rule set came out empty.
    big = np.finfo(np.float64).max
    X = [np.array([[v]]) for v in (0.1 * big, 0.3 * big, 0.5 * big, 0.7 * big, 0.8 * big, big)]
    y = np.array([0, 0, 0, 1, 1, 1])
    clf = RipperMIClassifier(min_bags=1, random_state=0).fit(X, y)
    assert len(clf.rules_) == 1
    assert all(np.isfinite(c.threshold) for c in clf.rules_[0].conditions)
    assert clf.score(X, y) == 1.0


def test_prune_deletes_final_conditions():
    # Bags (one instance each, two features). The grown rule x0 >= 1.5 AND x1 <= 0.5 is
    # pruned on bags where the second condition only loses positives.
    X = np.array([[2, 0], [2, 1], [3, 1], [0, 0], [0, 1]], dtype=float)
    pos = np.array([1, 1, 1, 0, 0], bool)
    learner = _Ripper(RipperMIClassifier(), Bags.from_instances(X, np.arange(5)), pos,
                      check_random_state(0))
    rule = ((0, 1, 1.5), (1, 0, 0.5))
    prune_mask = np.ones(5, bool)
    # Prefix 1 covers 3+/0- (value 1), the full rule 1+/0- (value 1): tie, keep the shorter.
    assert learner.prune(rule, prune_mask) == rule[:1]
    # Whole-rule-set error: prefix 1 errs on 0 bags, the full rule on 2 (missed positives).
    assert learner.prune(rule, prune_mask, whole_error=True) == rule[:1]
    # When the last condition removes a negative it survives pruning.
    X2 = np.vstack([X, [[2, 1]]])
    pos2 = np.append(pos, False)
    learner2 = _Ripper(RipperMIClassifier(), Bags.from_instances(X2, np.arange(6)), pos2,
                       check_random_state(0))
    # Prefix 1: 3+/1- -> 0.5; full rule: 1+/0- -> 1.
    assert learner2.prune(rule, np.ones(6, bool)) == rule


def test_predict_proba_is_laplace_of_covering_rules():
    X, y = make_toy_bags(n_bags=40, random_state=3)
    clf = RipperMIClassifier(random_state=0).fit(X, y)
    clf.rules_ = [Rule([(0, 1, 1.0)], p=8, n=2), Rule([(1, 1, 0.0)], p=3, n=3)]
    clf.default_rule_ = (2, 10)
    bags = [np.array([[2.0, 1.0, 0, 0]]),     # both rules: (9/12 + 4/8) / 2
            np.array([[2.0, -1.0, 0, 0]]),    # first rule only: 9/12
            np.array([[0.0, -1.0, 0, 0], [0.5, -2.0, 0, 0]])]  # none: default 3/14
    proba = clf.predict_proba(bags)[:, 1]
    np.testing.assert_allclose(proba, [(9 / 12 + 4 / 8) / 2, 9 / 12, 3 / 14])
    np.testing.assert_array_equal(clf.predict(bags), [1, 1, 0])
    np.testing.assert_allclose(clf.decision_function(bags), [(9 / 12 + 4 / 8) / 2, 9 / 12, 3 / 14 - 1])


def test_positive_class_selects_the_rules_class():
    X, y = conjunction_bags()
    labels = np.where(y == 1, "concept", "other")
    # Rules for "concept", which sorts first: decision_function stays oriented to classes_[1].
    clf = RipperMIClassifier(positive_class="concept", random_state=0).fit(X, labels)
    assert list(clf.classes_) == ["concept", "other"]
    assert len(clf.rules_) == 1 and clf.rules_[0].p == 40
    assert (clf.predict(X) == labels).all()
    assert ((clf.decision_function(X) > 0) == (labels == "other")).all()
    assert (clf.predict_proba(X)[:, 0] > 0.5).sum() == 40


def test_export_text():
    X, y = conjunction_bags()
    clf = RipperMIClassifier(random_state=0).fit(X, y)
    lines = clf.export_text().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("IF f") and lines[0].endswith("THEN positive  [40+, 0-]")
    assert " AND " in lines[0] and ">= " in lines[0] and "<= " in lines[0]
    assert lines[1] == "ELSE negative  [0+, 40-]"
    named = clf.export_text(feature_names=["width", "height", "noise"])
    assert "width >= " in named and "height <= " in named
    with pytest.raises(ValueError, match="feature_names has 2 names"):
        clf.export_text(feature_names=["a", "b"])
    assert str(Rule([(12, 0, 3.5), (40, 1, -10)], p=5, n=1)) == \
        "IF f12 <= 3.5 AND f40 >= -10 THEN positive  [5+, 1-]"
    assert Rule([(1, 0, 2.0)]).conditions[0] == Condition(1, 0, 2.0)


def test_more_than_two_classes_is_an_error():
    X, y = make_toy_bags(n_bags=30, n_classes=3)
    with pytest.raises(ValueError, match="class"):
        RipperMIClassifier().fit(X, y)


@pytest.mark.parametrize("params", [dict(beam_width=3), dict(use_lrs=True), dict(k=0),
                                    dict(min_bags=5, prune_ratio=0.25)])
def test_options_still_learn_the_concept(params):
    X, y = conjunction_bags()
    clf = RipperMIClassifier(random_state=0, **params).fit(X, y)
    X_test, y_test = conjunction_bags(n_bags=200, seed=1)
    assert clf.score(X_test, y_test) >= 0.95


def test_lrs_threshold_prunes_insignificant_rules():
    # Pure noise: with a strict significance threshold no rule survives.
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(3, 4)) for _ in range(40)]
    y = np.arange(40) % 2
    clf = RipperMIClassifier(use_lrs=True, lrs_threshold=20.0, random_state=0).fit(X, y)
    assert clf.rules_ == []
    assert (clf.predict(X) == 0).all()


@settings(deadline=None, max_examples=25)
@given(st.integers(0, 10_000), st.integers(8, 30), st.integers(1, 3), st.booleans())
def test_compiled_and_python_learn_identical_rules(seed, n_bags, beam_width, use_lrs):
    from mil._core import compiled_available

    if not compiled_available("_rule_split"):
        pytest.skip("compiled kernels are not built")
    rng = np.random.default_rng(seed)
    # Rounded values: repeated values and gain ties are common.
    X = [np.round(rng.normal(size=(rng.integers(1, 4), 3)), 1) for _ in range(n_bags)]
    y = np.arange(n_bags) % 2
    for bag, label in zip(X, y):
        if label and rng.random() < 0.8:
            bag[0, 0] += 1.5
    models = {}
    for kind in ("compiled", "python"):
        with use_backend(kind):
            models[kind] = RipperMIClassifier(beam_width=beam_width, use_lrs=use_lrs, lrs_threshold=2.0,
                                              random_state=seed).fit(X, y)
    assert models["compiled"].rules_ == models["python"].rules_
    assert models["compiled"].default_rule_ == models["python"].default_rule_


def test_single_instance_bags_match_wittgenstein_ripper():
    """With one instance per bag it is plain RIPPER: compare with wittgenstein on breast cancer."""
    lw = pytest.importorskip("wittgenstein")
    import pandas as pd
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split

    X, y = load_breast_cancer(return_X_y=True)
    ours, theirs, n_ours, n_theirs = [], [], [], []
    for seed in range(3):
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, stratify=y, random_state=seed)
        # Rules for the malignant class (label 0), as wittgenstein's pos_class.
        clf = RipperMIClassifier(positive_class=0, random_state=0)
        clf.fit(Bags.from_instances(X_tr, np.arange(len(X_tr))), y_tr)
        ours.append(clf.score(Bags.from_instances(X_te, np.arange(len(X_te))), y_te))
        n_ours.append(len(clf.rules_))
        frame = pd.DataFrame(X_tr)
        frame["y"] = y_tr
        ripper = lw.RIPPER(random_state=0)
        ripper.fit(frame, class_feat="y", pos_class=0)
        theirs.append(np.mean(np.asarray(ripper.predict(pd.DataFrame(X_te))) == (y_te == 0)))
        n_theirs.append(len(ripper.ruleset_.rules))
    assert abs(np.mean(ours) - np.mean(theirs)) <= 0.02, (ours, theirs)
    # wittgenstein's conditions are bins of a 10-bin discretisation (narrower than a
    # threshold), so it needs somewhat more rules; both stay small rule sets.
    assert 1 <= np.mean(n_ours) <= np.mean(n_theirs) + 2
    assert np.mean(n_theirs) <= 4 * np.mean(n_ours)


def _learner(X, y, **params):
    return _Ripper(RipperMIClassifier(**params), Bags.from_list(X), np.asarray(y) == 1,
                   check_random_state(0))


def test_optimisation_revises_a_too_general_rule():
    X, y = conjunction_bags()
    learner = _learner(X, y)
    general = [((0, 1, 5.5),)]            # half of the concept: covers many negatives too
    cov = learner.coverage(general[0])
    assert (cov & ~learner.pos).sum() > 5
    optimised = learner.optimise(general)
    # The variant kept is the one of smallest description length: never worse than the original.
    assert learner.dl(optimised) < learner.dl(general)
    cov = learner.coverage(optimised[0])
    assert (cov == learner.pos).all()     # replacement or revision recovers the conjunction
    assert {(f, op) for f, op, _ in optimised[0]} == {(0, 1), (1, 0)}


def test_reduce_dl_deletes_rules_that_do_not_pay_for_themselves():
    X, y = conjunction_bags()
    learner = _learner(X, y)
    concept = ((0, 1, 5.5), (1, 0, 2.5))
    # A rule covering only negative bags: deleting it lowers the DL (and its error is 100 %).
    neg_bag = int(np.flatnonzero(~learner.pos)[0])
    x = X[neg_bag][0]
    junk = ((0, 0, float(x[0])), (0, 1, float(x[0])), (1, 0, float(x[1])), (1, 1, float(x[1])))
    assert learner.coverage(junk)[neg_bag]
    assert learner.reduce_dl([concept, junk]) == [concept]
    # A redundant copy covering nothing new is deleted too; the concept itself stays.
    assert learner.reduce_dl([concept, concept[::-1]]) == [concept]
    assert learner.reduce_dl([concept]) == [concept]


def test_build_stops_when_no_positive_is_left():
    X, y = conjunction_bags()
    learner = _learner(X, y)
    concept = ((0, 1, 5.5), (1, 0, 2.5))
    assert learner.build([concept]) == [concept]

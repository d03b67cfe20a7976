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

#: Binary RIPPER-MI as Chevaleyre & Zucker's: bag coverage, rules for the positive class,
#: Cohen's pruning value and 50 % error stop on the pruning bags.
MI = dict(assumption="standard", rule_order="ordered", smoothing=False, error_check="prune")
COHEN = dict(smoothing=False, error_check="prune")


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
    check_bag_classifier(RipperMIClassifier(**MI, random_state=0))
    check_bag_classifier(RipperMIClassifier(condition_search="hist", random_state=0))


@pytest.mark.parametrize("condition_search", ["exact", "hist"])
def test_learns_one_conjunction_with_either_search(backend, condition_search):
    X, y = conjunction_bags()
    clf = RipperMIClassifier(**MI, condition_search=condition_search, random_state=0).fit(X, y)
    assert clf.condition_search_ == condition_search
    assert len(clf.rules_) == 1 and (clf.rules_[0].p, clf.rules_[0].n) == (40, 0)
    X_test, y_test = conjunction_bags(n_bags=200, seed=1)
    assert clf.score(X_test, y_test) == 1.0


def test_auto_condition_search_by_size(monkeypatch):
    X, y = conjunction_bags()
    n = sum(len(b) for b in X)
    assert RipperMIClassifier(random_state=0).fit(X, y).condition_search_ == "exact"
    monkeypatch.setattr("mil.rules._ripper.AUTO_HIST_INSTANCES", n - 1)
    assert RipperMIClassifier(random_state=0).fit(X, y).condition_search_ == "hist"
    monkeypatch.setattr("mil.rules._ripper.AUTO_HIST_INSTANCES", n)
    assert RipperMIClassifier(random_state=0).fit(X, y).condition_search_ == "exact"


def test_hist_search_threads_and_pickle_give_the_same_rules():
    import pickle

    X, y = conjunction_bags(n_bags=120, seed=3)
    one = RipperMIClassifier(condition_search="hist", random_state=0).fit(X, y)
    two = RipperMIClassifier(condition_search="hist", random_state=0, n_jobs=2).fit(X, y)
    assert one.rules_ == two.rules_
    again = pickle.loads(pickle.dumps(one))
    np.testing.assert_array_equal(again.predict_proba(X), one.predict_proba(X))


def test_learns_one_conjunction_exactly(backend):
    X, y = conjunction_bags()
    clf = RipperMIClassifier(**MI, random_state=0).fit(X, y)
    assert len(clf.rules_) == 1
    rule = clf.rules_[0]
    assert {(c.feature, c.op) for c in rule.conditions} == {(0, 1), (1, 0)}
    thr = {c.feature: c.threshold for c in rule.conditions}
    assert 4 < thr[0] <= 7 and 1 <= thr[1] < 4
    assert (rule.p, rule.n) == (40, 0) and rule.label == 1 and rule.counts == (0, 40)
    assert (clf.default_rule_.p, clf.default_rule_.n) == (40, 0)
    assert clf.default_rule_.label == 0 and clf.default_rule_.counts == (40, 0)
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
    learner = _Ripper(RipperMIClassifier(**COHEN), bags, np.array([0, 0, 1, 1], bool), check_random_state(0))
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
    clf = RipperMIClassifier(**MI, min_bags=1, random_state=0).fit(X, y)
    assert len(clf.rules_) == 1
    assert all(np.isfinite(c.threshold) for c in clf.rules_[0].conditions)
    assert clf.score(X, y) == 1.0


def test_prune_deletes_final_conditions():
    # Bags (one instance each, two features). The grown rule x0 >= 1.5 AND x1 <= 0.5 is
    # pruned on bags where the second condition only loses positives.
    X = np.array([[2, 0], [2, 1], [3, 1], [0, 0], [0, 1]], dtype=float)
    pos = np.array([1, 1, 1, 0, 0], bool)
    learner = _Ripper(RipperMIClassifier(**COHEN), Bags.from_instances(X, np.arange(5)), pos,
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
    learner2 = _Ripper(RipperMIClassifier(**COHEN), Bags.from_instances(X2, np.arange(6)), pos2,
                       check_random_state(0))
    # Prefix 1: 3+/1- -> 0.5; full rule: 1+/0- -> 1.
    assert learner2.prune(rule, np.ones(6, bool)) == rule


def test_predict_proba_is_laplace_of_covering_rules():
    X, y = make_toy_bags(n_bags=40, random_state=3)
    clf = RipperMIClassifier(**MI, random_state=0).fit(X, y)
    clf.rules_ = [Rule([(0, 1, 1.0)], p=8, n=2, label=1, counts=[2, 8]),
                  Rule([(1, 1, 0.0)], p=3, n=3, label=1, counts=[3, 3])]
    clf.default_rule_ = Rule((), p=10, n=2, label=0, counts=[10, 2])
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
    clf = RipperMIClassifier(**MI, positive_class="concept", random_state=0).fit(X, labels)
    assert list(clf.classes_) == ["concept", "other"]
    assert len(clf.rules_) == 1 and clf.rules_[0].p == 40
    assert (clf.predict(X) == labels).all()
    assert ((clf.decision_function(X) > 0) == (labels == "other")).all()
    assert (clf.predict_proba(X)[:, 0] > 0.5).sum() == 40


def test_export_text():
    X, y = conjunction_bags()
    clf = RipperMIClassifier(**MI, random_state=0).fit(X, y)
    lines = clf.export_text().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("IF x") and lines[0].endswith("THEN class: 1 (bags: 0=0, 1=40; p=0.98)")
    assert " AND " in lines[0] and ">= " in lines[0] and "<= " in lines[0]
    assert lines[1] == "ELSE class: 0 (bags: 0=40, 1=0; p=0.98)"
    named = clf.export_text(feature_names=["width", "height", "noise"])
    assert "width >= " in named and "height <= " in named
    with pytest.raises(ValueError, match="feature_names has 2 names"):
        clf.export_text(feature_names=["a", "b"])
    assert str(Rule([(12, 0, 3.5), (40, 1, -10)], p=5, n=1)) == \
        "IF x12 <= 3.5 AND x40 >= -10 THEN class: positive (bags: positive=5, other=1; p=0.75)"
    assert str(Rule([(0, 1, 2.0)], p=5, n=1, label="b", counts=[1, 5, 0])) == \
        "IF x0 >= 2 THEN class: b (bags: b=5, other=1; p=0.67)"
    assert Rule([(1, 0, 2.0)]).conditions[0] == Condition(1, 0, 2.0)


def test_positive_class_with_more_than_two_classes_is_an_error():
    X, y = make_toy_bags(n_bags=30, n_classes=3)
    with pytest.raises(ValueError, match="positive_class applies to two classes only"):
        RipperMIClassifier(positive_class=1).fit(X, y)


@pytest.mark.parametrize("params", [dict(beam_width=3), dict(use_lrs=True), dict(k=0),
                                    dict(min_bags=5, prune_ratio=0.25), dict(smoothing=True),
                                    dict(error_check="remaining"), dict(rule_order="unordered")])
def test_options_still_learn_the_concept(params):
    X, y = conjunction_bags()
    clf = RipperMIClassifier(random_state=0, **{**MI, **params}).fit(X, y)
    X_test, y_test = conjunction_bags(n_bags=200, seed=1)
    assert clf.score(X_test, y_test) >= 0.95


def test_lrs_threshold_prunes_insignificant_rules():
    # Pure noise: with a strict significance threshold no rule survives.
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(3, 4)) for _ in range(40)]
    y = np.arange(40) % 2
    clf = RipperMIClassifier(**MI, use_lrs=True, lrs_threshold=20.0, random_state=0).fit(X, y)
    assert clf.rules_ == []
    assert (clf.predict(X) == 0).all()


@settings(deadline=None, max_examples=25)
@given(st.integers(0, 10_000), st.integers(8, 30), st.integers(1, 3), st.booleans(),
       st.sampled_from([("ordered", "standard", 2), ("unordered", "standard", 3),
                        ("ordered", "collective", 3), ("ordered", "standard", 3)]), st.booleans(),
       st.sampled_from(["exact", "hist"]))
def test_compiled_and_python_learn_identical_rules(seed, n_bags, beam_width, use_lrs, mode, smoothing,
                                                   condition_search):
    from mil._core import compiled_available

    if not compiled_available("_rule_split"):
        pytest.skip("compiled kernels are not built")
    rng = np.random.default_rng(seed)
    # Rounded values: repeated values and gain ties are common.
    X = [np.round(rng.normal(size=(rng.integers(1, 4), 3)), 1) for _ in range(n_bags)]
    rule_order, assumption, n_classes = mode
    y = np.arange(n_bags) % n_classes
    for bag, label in zip(X, y):
        if label and rng.random() < 0.8:
            bag[0, label - 1] += 1.5
    models = {}
    for kind in ("compiled", "python"):
        with use_backend(kind):
            models[kind] = RipperMIClassifier(beam_width=beam_width, use_lrs=use_lrs, lrs_threshold=2.0,
                                              rule_order=rule_order, assumption=assumption,
                                              smoothing=smoothing, condition_search=condition_search,
                                              random_state=seed).fit(X, y)
    assert models["compiled"].rules_ == models["python"].rules_
    assert models["compiled"].default_rule_ == models["python"].default_rule_
    with use_backend("python"):
        proba = models["python"].predict_proba(X)
    with use_backend("compiled"):
        np.testing.assert_array_equal(models["compiled"].predict_proba(X), proba)


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
        clf = RipperMIClassifier(**MI, positive_class=0, random_state=0)
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
    return _Ripper(RipperMIClassifier(**{**COHEN, **params}), Bags.from_list(X), np.asarray(y) == 1,
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


# -- any number of classes ----------------------------------------------------------------------

def three_class_bags():
    """One-instance bags, classes by value bands of feature 0 (feature 1 is noise).

    Class 0: x0 in [0, 3]; class 1: x0 in [10, 13]; class 2: x0 in [20, 25], eight bags each.
    Class 0 needs one condition x0 <= t (3 < t < 10), class 2 one condition x0 >= t
    (13 < t < 20), class 1 against the rest two: x0 >= t (3 < t < 10) and x0 <= t (13 < t < 20).
    """
    vals = [0, 1, 2, 3, 0.5, 1.5, 2.5, 3.0, 10, 11, 12, 13, 10.5, 11.5, 12.5, 13,
            20, 21, 22, 23, 24, 25, 20.5, 21.5]
    X = [np.array([[v, (i * 7) % 5]], dtype=float) for i, v in enumerate(vals)]
    return X, np.repeat([0, 1, 2], 8)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_unordered_learns_each_class_against_the_rest(seed):
    X, y = three_class_bags()
    clf = RipperMIClassifier(rule_order="unordered", random_state=seed).fit(X, y)
    # One pure rule per class, in class order, each learned against both other classes.
    assert [r.label for r in clf.rules_] == [0, 1, 2]
    for rule, cls in zip(clf.rules_, (0, 1, 2)):
        assert (rule.p, rule.n) == (8, 0)
        assert rule.counts == tuple(8 if c == cls else 0 for c in range(3))
    (f, op, t), = clf.rules_[0].conditions
    assert (f, op) == (0, 0) and 3 < t < 10
    (f, op, t), = clf.rules_[2].conditions
    assert (f, op) == (0, 1) and 13 < t < 20
    ops = {op: t for f, op, t in clf.rules_[1].conditions}
    assert len(clf.rules_[1]) == 2 and 3 < ops[1] < 10 and 13 < ops[0] < 20
    np.testing.assert_array_equal(clf.predict(X), y)
    assert clf.default_rule_.counts == (0, 0, 0)
    text = clf.export_text().splitlines()
    assert [text[0], text[2], text[4]] == ["rules for class 0:", "rules for class 1:", "rules for class 2:"]
    assert text[1].startswith("  IF x0 <= ")
    assert text[-1] == "ELSE class: 0 (instances: 0=0, 1=0, 2=0; p=0.33)"  # the collective assumption counts instances


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ordered_learns_by_increasing_frequency_with_a_default(seed):
    X, y = three_class_bags()
    X, y = X[:-1], y[:-1]            # class 2 keeps 7 bags: the least frequent
    clf = RipperMIClassifier(**MI, random_state=seed).fit(X, y)
    # Class 2 (7 bags) first, then class 0 (8, before 1 by index); class 1 is the default.
    assert [r.label for r in clf.rules_] == [2, 0]
    (f, op, t), = clf.rules_[0].conditions
    assert (f, op) == (0, 1) and 13 < t < 20 and clf.rules_[0].counts == (0, 0, 7)
    # Class 0 is learned on the bags class 2's rule leaves: its counts include no class-2 bag.
    (f, op, t), = clf.rules_[1].conditions
    assert (f, op) == (0, 0) and 3 < t < 10 and clf.rules_[1].counts == (8, 0, 0)
    assert clf.default_rule_.label == 1 and clf.default_rule_.counts == (0, 8, 0)
    np.testing.assert_array_equal(clf.predict(X), y)
    assert clf.export_text().splitlines()[-1] == "ELSE class: 1 (bags: 0=0, 1=8, 2=0; p=0.82)"


def test_ordered_counts_are_taken_on_the_bags_a_class_is_learned_on():
    # All classes eight bags: 0 first, then 1 against class 2 only: one condition x0 <= t
    # suffices, and its counts leave out the class-0 bags it also covers.
    X, y = three_class_bags()
    clf = RipperMIClassifier(**MI, random_state=0).fit(X, y)
    assert [r.label for r in clf.rules_] == [0, 1]
    (f, op, t), = clf.rules_[1].conditions
    assert (f, op) == (0, 0) and 13 < t < 20 and clf.rules_[1].counts == (0, 8, 0)
    np.testing.assert_array_equal(clf.predict(X), y)


def test_unordered_covering_keeps_the_other_classes_bags():
    # Sequential covering for class 1 removes only class-1 bags: the negatives a rule covers
    # stay for the next rule (plain RIPPER removes them).
    X, y = three_class_bags()
    bags = Bags.from_list(X)
    wide = ((0, 1, 6.5),)               # covers classes 1 and 2
    learner = _Ripper(RipperMIClassifier(**COHEN), bags, y == 1, check_random_state(0), keep_negatives=True)
    np.testing.assert_array_equal(learner.left([wide]), y != 1)
    plain = _Ripper(RipperMIClassifier(**COHEN), bags, y == 1, check_random_state(0))
    np.testing.assert_array_equal(plain.left([wide]), y == 0)


def _hand_model(rule_order, conflict="laplace-vote"):
    """Three rules over one feature, set by hand, on classes a / b / c."""
    X = [np.array([[0.0]]), np.array([[1.0]]), np.array([[2.0]])]
    clf = RipperMIClassifier(assumption="standard", rule_order=rule_order, conflict=conflict,
                             **COHEN).fit(X, ["a", "b", "c"])
    clf.rules_ = [
        Rule([(0, 1, 1.0)], p=3, n=1, label="a", counts=[3, 1, 0]),                # x >= 1
        Rule([(0, 1, 2.0), (0, 0, 9.0)], p=8, n=0, label="b", counts=[0, 8, 0]),   # 2 <= x <= 9
        Rule([(0, 0, 3.0)], p=6, n=2, label="c", counts=[1, 1, 6]),                # x <= 3
    ]
    clf.default_rule_ = Rule((), p=2, n=3, label="c", counts=[3, 0, 2])
    return clf


def test_conflict_resolution_by_hand():
    # x = 2.5 is covered by all three rules; x = 1.5 by a and c; x = 10 by a only; none is
    # uncovered (a and c cover everything), so add x = -1 in {c} only.
    bags = [np.array([[2.5]]), np.array([[1.5]]), np.array([[10.0]]), np.array([[-1.0]])]
    dist = {"a": np.array([4, 2, 1]) / 7, "b": np.array([1, 9, 1]) / 11, "c": np.array([2, 2, 7]) / 11}
    expected = np.array([(dist["a"] + dist["b"] + dist["c"]) / 3, (dist["a"] + dist["c"]) / 2,
                         dist["a"], dist["c"]])
    vote = _hand_model("unordered")
    np.testing.assert_allclose(vote.predict_proba(bags), expected)
    # Laplace vote (argmax of the means): bag 0 -> b (9/11 in b's distribution); bag 1 ->
    # c, (1/7 + 7/11) / 2 against (4/7 + 2/11) / 2 for a.
    np.testing.assert_array_equal(vote.predict(bags), ["b", "c", "a", "c"])
    first = _hand_model("unordered", "first")
    np.testing.assert_array_equal(first.predict(bags), ["a", "a", "a", "c"])
    np.testing.assert_allclose(first.predict_proba(bags), expected)   # probabilities do not change
    # Shortest: bag 0 -> a and c have one condition; Laplace a = 4/7 < c = 7/11 -> c.
    shortest = _hand_model("unordered", "shortest")
    np.testing.assert_array_equal(shortest.predict(bags), ["c", "c", "a", "c"])
    # Ordered: the first covering rule decides, its class's covering rules give the probabilities.
    ordered = _hand_model("ordered")
    np.testing.assert_array_equal(ordered.predict(bags), ["a", "a", "a", "c"])
    np.testing.assert_allclose(ordered.predict_proba(bags)[0], dist["a"])
    np.testing.assert_allclose(ordered.decision_function(bags), ordered.predict_proba(bags))


def test_uncovered_bags_get_the_default_distribution():
    clf = _hand_model("unordered")
    clf.rules_ = clf.rules_[1:2]            # only 2 <= x <= 9
    bags = [np.array([[0.0]]), np.array([[5.0]])]
    np.testing.assert_allclose(clf.predict_proba(bags), [[4 / 8, 1 / 8, 3 / 8], [1 / 11, 9 / 11, 1 / 11]])
    np.testing.assert_array_equal(clf.predict(bags), ["c", "b"])   # the default rule's label


def test_ordered_two_classes_equals_the_binary_learner():
    # Two classes, ordered: the rule list for the positive class is exactly the binary
    # RIPPER-MI learner's (same splits, same random stream), and so are the predictions.
    X, y = make_toy_bags(n_bags=60, random_state=5)
    for positive_class in (None, 0):
        clf = RipperMIClassifier(**MI, random_state=3, positive_class=positive_class).fit(X, y)
        pos = y == (1 if positive_class is None else 0)
        bags = Bags.from_list(X)
        binary = _Ripper(clf, bags, pos, check_random_state(3)).run()
        assert [r.conditions for r in clf.rules_] == [tuple(Condition(*c) for c in conds)
                                                      for conds in binary]
        cov = _Ripper(clf, bags, pos, check_random_state(3)).coverages(binary)
        assert [(r.p, r.n) for r in clf.rules_] == [(int((c & pos).sum()), int((c & ~pos).sum()))
                                                    for c in cov]
        covered = cov.any(axis=0)
        np.testing.assert_array_equal(clf.predict(X) == (1 if positive_class is None else 0), covered)
        lap = np.array([(r.p + 1) / (r.p + r.n + 2) for r in clf.rules_])
        p_def, n_def = int((~covered & pos).sum()), int((~covered & ~pos).sum())
        rate = np.where(covered, (lap @ cov) / np.maximum(cov.sum(axis=0), 1),
                        (p_def + 1) / (p_def + n_def + 2))
        col = 1 if positive_class is None else 0
        np.testing.assert_allclose(clf.predict_proba(X)[:, col], rate)


def test_collective_scores_a_bag_by_the_mean_of_its_instances():
    # One rule x0 >= 1 for class 1 on the instances: a bag's probability is the mean of its
    # instances' (the rule's Laplace estimate where covered, the default rate elsewhere).
    X, y = conjunction_bags()
    clf = RipperMIClassifier(assumption="collective", random_state=0).fit(X, y)
    assert sum(r.p + r.n for r in clf.rules_) <= sum(len(b) for b in X)   # counts are instances
    bag = np.array([[7.0, 1.0, 0.0], [0.0, 9.0, 0.0], [1.0, 9.0, 0.0]])
    inst = clf.predict_proba([row[None, :] for row in bag])
    np.testing.assert_allclose(clf.predict_proba([bag])[0], inst.mean(axis=0))


def test_multiclass_contract():
    X, y = make_toy_bags(n_bags=45, n_classes=3, random_state=0)
    for params in ({}, {"rule_order": "unordered"}, {"assumption": "collective"}):
        check_bag_classifier(RipperMIClassifier(random_state=0, **params), X, y)
        clf = RipperMIClassifier(random_state=0, **params).fit(X, y)
        proba = clf.predict_proba(X)
        assert proba.shape == (45, 3)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)

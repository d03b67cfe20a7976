"""make_digit_bags: labels follow each assumption's rule exactly; seeded; the images are the digits'."""

import numpy as np
import pytest
from sklearn.datasets import load_digits

from mil.datasets import make_digit_bags
from mil.datasets._digits import ASSUMPTIONS

DIGITS = load_digits()


def _rule(assumption, digits, targets, threshold):
    """Each rule written out by hand, independently of the generator's."""
    digits = list(digits)
    if assumption == "presence":
        return int(any(d in targets for d in digits))
    if assumption == "several":
        return int(all(t in digits for t in targets))
    if assumption == "absence":
        return int(not any(d in targets for d in digits))
    return int(sum(d in targets for d in digits) >= threshold)


@pytest.mark.parametrize("assumption", list(ASSUMPTIONS))
@pytest.mark.parametrize("targets, threshold", [(None, 2), ((1, 7), 3)])
def test_labels_follow_the_rule_exactly(assumption, targets, threshold):
    d = make_digit_bags(assumption, n_bags=101, bag_size=(4, 8), targets=targets, threshold=threshold,
                        random_state=3)
    targets = d.targets
    assert len(d.data) == 101 and int(d.target.sum()) == 51  # half positive, the larger half for odd
    for bag, digits, images, label in zip(d.data, d.instance_digits, d.instance_images, d.target):
        assert 4 <= len(bag) <= 8 and bag.shape[1] == 64
        assert _rule(assumption, digits, targets, threshold) == label
        np.testing.assert_array_equal(DIGITS.target[images], digits)  # the digits of those images
        np.testing.assert_array_equal(DIGITS.data[images], bag)  # the features are their pixels
    if assumption == "several":  # negatives hold a proper subset, sometimes a part of the targets
        partial = [set(dg) & set(targets) for dg, lab in zip(d.instance_digits, d.target) if lab == 0]
        assert any(p for p in partial) and any(not p for p in partial)
    if assumption == "count":  # negatives may hold threshold - 1 targets: the rule is the count
        counts = [int(np.isin(dg, targets).sum()) for dg, lab in zip(d.instance_digits, d.target) if lab == 0]
        assert max(counts) == threshold - 1


def test_seeded_and_reproducible():
    a = make_digit_bags("count", n_bags=30, random_state=7)
    b = make_digit_bags("count", n_bags=30, random_state=7)
    c = make_digit_bags("count", n_bags=30, random_state=8)
    np.testing.assert_array_equal(a.target, b.target)
    assert all(np.array_equal(x, z) for x, z in zip(a.data, b.data))
    assert not (np.array_equal(a.target, c.target) and all(
        len(x) == len(z) and np.array_equal(x, z) for x, z in zip(a.data, c.data)))


def test_images_are_not_reused_before_their_digit_is_exhausted():
    d = make_digit_bags("presence", n_bags=200, random_state=0)
    used = np.concatenate(d.instance_images)
    for digit in range(10):
        mine = used[DIGITS.target[used] == digit]
        available = int(np.sum(DIGITS.target == digit))
        assert len(np.unique(mine)) == min(len(mine), available)


def test_bunch_and_bags():
    d = make_digit_bags("absence", n_bags=10, bag_size=3, random_state=0)
    assert d.bags.n_bags == 10 and d.bags.n_features == 64 and d.feature_names[9] == "pixel_1_1"
    assert "holds no 3" in d.rule and d.assumption == "absence" and d.targets == (3,)
    assert all(len(b) == 3 for b in d.data)


@pytest.mark.parametrize("kwargs, message", [
    ({"assumption": "majority"}, "assumption must be one of"),
    ({"n_bags": 1}, "n_bags must be an integer >= 2"),
    ({"targets": (3, 3)}, "targets must be distinct digits"),
    ({"targets": (12,)}, "targets must be distinct digits"),
    ({"assumption": "count", "threshold": 0}, "threshold must be an integer >= 1"),
    ({"assumption": "count", "bag_size": (2, 5)}, "low >= 3"),
    ({"assumption": "several", "targets": (1, 2, 3), "bag_size": 2}, "low >= 3"),
    ({"bag_size": (5, 3)}, "bag_size must be"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        make_digit_bags(**kwargs)


def test_reproduce_assumptions_quick(capsys):
    import json

    from mil.cli import main

    assert main(["reproduce", "assumptions", "--quick", "--learners", "c45-mi", "blrt", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "presence" in out and "absence, pc=0" in out and "total time" in out
    assert out.count("holds no 3") == 2  # the rule under both absence columns
    import re

    blrt = re.split(r"\s{2,}", next(line for line in out.splitlines() if line.startswith("blrt")))
    c45 = re.split(r"\s{2,}", next(line for line in out.splitlines() if line.startswith("c45-mi")))
    assert blrt[4] == "-" and c45[4] != "-"  # BLRT takes no positive_class, C4.5-MI does
    assert main(["reproduce", "assumptions", "--quick", "--learners", "c45-mi", "--tasks", "count",
                 "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert list(record["accuracy"]["c45-mi"]) == ["count"] and len(record["accuracy"]["c45-mi"]["count"]) == 2
    assert main(["reproduce", "assumptions", "--learners", "svm"]) == 2


def test_assumptions_table_marks_randomised_learners():
    from mil._assumptions import assumptions_table, reproduce_assumptions

    res = reproduce_assumptions(tasks=("presence",), learners=("blrt", "c45-mi"), seeds=2, n_bags=30,
                                folds=3)
    rows = {row[0]: row[1] for row in assumptions_table(res)}
    assert rows["blrt *"].count("[") == 1 and "[" not in rows["c45-mi"]
    assert res.accuracy["blrt"]["presence"].shape == (6,)  # 3 folds x 2 seeds
    np.testing.assert_allclose(res.seed_accuracy["blrt"]["presence"],
                               res.accuracy["blrt"]["presence"].reshape(2, 3).mean(axis=1))

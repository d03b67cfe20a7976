"""Printed models in one format: the trees, the forest, BLRT, GDBT-MI and RIPPER-MI.

Every outcome reads ``class: <label> (<unit>: <label>=<count>, ...; p=<p>)``
(a boosting leaf ``value: <v> (bags: ...)``) with the labels as the user gave
them, counts named as bags or instances and weights as weights, and a cut
printout ends with ``... (N more lines; max_lines=K)``.
"""

import doctest
import importlib
import re

import numpy as np
import pytest

from mil.ensemble import BagRandomTreesClassifier, GDBTMIClassifier, MIRandomForestClassifier
from mil.rules import RipperMIClassifier
from mil.tree import C45MIClassifier, ID3MIClassifier, export_text
from mil.utils.estimator_checks import make_toy_bags

LABELS = np.array(["absent", "present"])
COUNTS = r"absent=\d+, present=\d+"
WEIGHTS = r"absent=[\d.]+, present=[\d.]+"
CLASS_LEAF = re.compile(rf"class: (absent|present) \(bags: {COUNTS}(; bag weight: {WEIGHTS})?; p=\d\.\d\d\)$")
VALUE_LEAF = re.compile(rf"value: -?\d+\.\d\d \(bags: {COUNTS}\)$")
RULE = re.compile(rf"class: (absent|present) \((bags|instances|bag weight|instance weight): {WEIGHTS}; p=\d\.\d\d\)$")


def _tree_models():
    return {
        "C4.5-MI": C45MIClassifier(positive_class="present"),
        "ID3-MI": ID3MIClassifier(positive_class="present"),
        "forest": MIRandomForestClassifier(n_estimators=3, positive_class="present", random_state=0),
        "BLRT": BagRandomTreesClassifier(n_estimators=3, random_state=0),
        "GDBT-MI": GDBTMIClassifier(n_estimators=3, positive_class="present", random_state=0),
        "GDBT-MI bag-ratio": GDBTMIClassifier(n_estimators=3, split="bag-ratio", positive_class="present",
                                              random_state=0),
    }


def _rule_models():
    return {"RIPPER-MI": RipperMIClassifier(positive_class="present", random_state=0),
            "RIPPER-MI standard": RipperMIClassifier(assumption="standard", positive_class="present",
                                                     random_state=0)}


@pytest.fixture(scope="module")
def data():
    X, y = make_toy_bags(n_bags=40, random_state=0)
    return X, LABELS[y]


def _leaves(text):
    return [line.split("|--- ")[-1] for line in text.splitlines() if line.startswith("|")
            and not line.split("|--- ")[-1].startswith(("x", "share of"))]


@pytest.mark.parametrize("name", list(_tree_models()))
def test_tree_leaves_name_the_classes_as_given(name, data):
    X, y = data
    model = _tree_models()[name].fit(X, y)
    text = model.export_text()
    ensemble = hasattr(model, "estimators_")
    header = text.splitlines()[0]
    if ensemble:
        assert header.startswith(("tree 0 of 3 (estimators_[0])", "round 0 of 3 (estimators_[0])"))
    leaves = _leaves(text)
    assert leaves, text
    pattern = VALUE_LEAF if isinstance(model, GDBTMIClassifier) else CLASS_LEAF
    assert all(pattern.match(leaf) for leaf in leaves), text
    assert "pi=" not in text and "pos" not in text and "neg" not in text and "+," not in text


@pytest.mark.parametrize("name", list(_rule_models()))
def test_rules_name_the_classes_as_given(name, data):
    X, y = data
    lines = _rule_models()[name].fit(X, y).export_text().splitlines()
    outcomes = [line.split(" THEN ")[-1] if " THEN " in line else line[len("ELSE "):]
                for line in lines if not line.startswith("rules for class ")]
    assert lines[-1].startswith("ELSE class: ")
    assert all(RULE.match(outcome) for outcome in outcomes), lines
    headers = [line for line in lines if line.endswith(":")]
    assert all(re.fullmatch(r"rules for class (absent|present):", h) for h in headers)


def test_bag_ratio_leaves_count_every_bag_once(data):
    # Each bag reaches one leaf of a bag-ratio tree: the leaves' counts add up to the classes' bags.
    X, y = data
    blrt = BagRandomTreesClassifier(n_estimators=1, random_state=0).fit(X, y)
    total = np.zeros(2, dtype=int)
    for leaf in _leaves(blrt.export_text(0)):
        found = re.search(r"absent=(\d+), present=(\d+)", leaf)
        total += [int(found.group(1)), int(found.group(2))]
    np.testing.assert_array_equal(total, [(y == "absent").sum(), (y == "present").sum()])


def test_counts_are_bags_and_weights_are_weights(data):
    X, y = data
    w = np.where(np.arange(len(y)) % 3 == 0, 2.5, 1.0)
    # A tree: bag counts stay whole bags, the weights follow named as such.
    text = export_text(C45MIClassifier(positive_class="present").fit(X, y, sample_weight=w))
    leaves = _leaves(text)
    assert all(CLASS_LEAF.match(leaf) for leaf in leaves)
    assert any("; bag weight: " in leaf for leaf in leaves)
    clf = C45MIClassifier(positive_class="present").fit(X, y, sample_weight=np.ones(len(y)))
    assert "weight" not in export_text(clf)  # weights of 1 are the counts
    # Rules: the standard assumption counts bags, the collective one instances.
    standard = RipperMIClassifier(assumption="standard", positive_class="present", random_state=0)
    assert "(bags: " in standard.fit(X, y).export_text()
    assert "(bag weight: " in standard.fit(X, y, sample_weight=w).export_text()
    # Bags of different sizes: the collective assumption weighs the instances per bag.
    collective = RipperMIClassifier(positive_class="present", random_state=0)
    text = collective.fit(X, y).export_text()
    assert "(instance weight: " in text and "bags" not in text
    uniform = RipperMIClassifier(weighting="uniform", positive_class="present", random_state=0)
    assert "(instances: " in uniform.fit(X, y).export_text()


@pytest.mark.parametrize("name", [*_tree_models(), *_rule_models()])
def test_max_lines_marks_the_cut(name, data):
    X, y = data
    model = {**_tree_models(), **_rule_models()}[name].fit(X, y)
    full = model.export_text().splitlines()
    cut = model.export_text(max_lines=2).splitlines()
    assert cut[:2] == full[:2]
    assert cut[2] == f"... ({len(full) - 2} more lines; max_lines=2)" and len(cut) == 3
    assert model.export_text(max_lines=len(full)).splitlines() == full  # nothing cut, no marker
    with pytest.raises(ValueError, match="max_lines must be a positive integer"):
        model.export_text(max_lines=0)


@pytest.mark.parametrize("model", [MIRandomForestClassifier(n_estimators=3, random_state=0),
                                   BagRandomTreesClassifier(n_estimators=3, random_state=0),
                                   GDBTMIClassifier(n_estimators=3, random_state=0)],
                         ids=["forest", "BLRT", "GDBT-MI"])
def test_ensembles_point_to_the_member_they_print(model, data):
    X, y = make_toy_bags(n_bags=40, random_state=0)
    model.fit(X, y)
    with pytest.raises(ValueError, match=r"holds 3 (trees|boosting rounds); choose one with "
                                         r"export_text\(model, index=k\) or model\.export_text\(k\)"):
        export_text(model)
    text = export_text(model, index=-1)
    assert text == model.export_text(2) and text.splitlines()[0].split(" (")[1].startswith("estimators_[2])")
    with pytest.raises(ValueError, match="index=3 is not a"):
        export_text(model, index=3)


def test_multi_class_members_name_their_class():
    X, y = make_toy_bags(n_bags=45, n_classes=3, random_state=0)
    labels = np.array(["a", "b", "c"])[y]
    forest = MIRandomForestClassifier(n_estimators=2, random_state=0).fit(X, labels)
    text = forest.export_text((1, 2))
    assert text.splitlines()[0] == ("tree 1 of 2 (estimators_[1]), "
                                    "class c against the others (estimators_[1].trees_[2])")
    assert all(re.match(r"class: (c|other) \(bags: other=\d+, c=\d+; p=", leaf)
               for leaf in _leaves(text))
    gdbt = GDBTMIClassifier(n_estimators=2, random_state=0).fit(X, labels)
    text = export_text(gdbt, index=(0, 1))
    assert "class b against the others (estimators_[0][1])" in text.splitlines()[0]
    assert all(re.match(r"value: -?\d+\.\d\d \(bags: other=\d+, b=\d+\)$", leaf) for leaf in _leaves(text))
    blrt = BagRandomTreesClassifier(n_estimators=2, random_state=0).fit(X, labels)
    assert all(re.match(r"class: [abc] \(bags: a=\d+, b=\d+, c=\d+; p=", leaf)
               for leaf in _leaves(blrt.export_text(1)))


@pytest.mark.parametrize("module", ["mil.tree._export", "mil.tree._bag_ratio", "mil.ensemble._blrt",
                                    "mil.rules._rule", "mil.rules._ripper", "mil.utils._printing"])
def test_docstring_examples(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0

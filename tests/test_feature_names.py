"""Feature names flow from tables and DataFrame bags into fit and every printed model."""

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from mil import Bags
from mil.ensemble import GDBTMIClassifier, MIRandomForestClassifier
from mil.rules import RipperMIClassifier
from mil.tree import C45MIClassifier, ID3MIClassifier, export_text

pd = pytest.importorskip("pandas")

NAMES = ["noise_a", "signal", "noise_b"]


def _table(n_bags=24, seed=0):
    """A long table: the label is carried by the column 'signal' (the second)."""
    rng = np.random.default_rng(seed)
    rows = []
    for b in range(n_bags):
        label = b % 2
        for i in range(3):
            signal = 5.0 + rng.random() if (label and i == 0) else rng.random()
            rows.append({"bag": b, "label": label, "noise_a": rng.random(), "signal": signal,
                         "noise_b": rng.random()})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def table():
    from mil.datasets import from_frame

    return from_frame(_table())


def test_from_frame_carries_the_names_into_fit(table):
    assert table.feature_names == NAMES and table.bags.feature_names.tolist() == NAMES
    assert list(table.data[0].columns) == NAMES
    for X in (table.data, table.bags, table.bags[np.arange(10)]):
        clf = C45MIClassifier(min_bags_leaf=2).fit(X, table.target[:len(X)])
        assert clf.feature_names_in_.tolist() == NAMES


def test_load_csv_bags_carry_the_names(tmp_path):
    from mil.datasets import load_csv

    path = tmp_path / "t.csv"
    _table().to_csv(path, index=False)
    d = load_csv(path)
    assert d.bags.feature_names.tolist() == NAMES
    clf = RipperMIClassifier(random_state=0).fit(d.bags, d.target)
    assert "signal" in clf.export_text() and "x1" not in clf.export_text()


@pytest.mark.parametrize("cls", [C45MIClassifier, ID3MIClassifier])
def test_tree_text_uses_the_fitted_names(cls, table):
    clf = cls(min_bags_leaf=2).fit(table.data, table.target)
    text = export_text(clf)
    assert "signal <=" in text and "x1" not in text
    assert "s <=" in export_text(clf, feature_names=["n", "s", "m"])  # the override wins
    with pytest.raises(ValueError, match="feature_names has 2 names"):
        export_text(clf, feature_names=["a", "b"])
    plain = cls(min_bags_leaf=2).fit([np.asarray(b) for b in table.data], table.target)
    assert "x1 <=" in export_text(plain)  # no names: the column index


def test_rules_text_uses_the_fitted_names(table):
    clf = RipperMIClassifier(random_state=0).fit(table.data, table.target)
    text = clf.export_text()
    assert "IF signal >= " in text and "x1" not in text
    assert "IF s >= " in clf.export_text(feature_names=["a", "s", "b"])
    with pytest.raises(ValueError, match="feature_names has 1 names"):
        clf.export_text(feature_names=["a"])
    with pytest.raises(TypeError, match="not a string"):
        clf.export_text(feature_names="abc")
    plain = RipperMIClassifier(random_state=0).fit([np.asarray(b) for b in table.data], table.target)
    assert "IF x1 >= " in plain.export_text()


def test_forest_tree_by_index(table):
    forest = MIRandomForestClassifier(n_estimators=3, max_features=None, random_state=0)
    forest.fit(table.data, table.target)
    text = export_text(forest, index=1)
    header, body = text.split("\n", 1)
    assert header == "tree 1 of 3 (estimators_[1])" and text == forest.export_text(1)
    member = export_text(forest.estimators_[1].tree_, feature_names=NAMES)  # a bare tree: labels pos / neg
    for side, label in (("pos", forest.classes_[1]), ("neg", forest.classes_[0])):
        member = member.replace(f"class: {side}", f"class: {label}").replace(f"{side}=", f"{label}=")
    assert body == member
    assert "signal" in text and export_text(forest, index=-1) == export_text(forest, index=2)
    with pytest.raises(ValueError, match=r"holds 3 trees; choose one with export_text\(model, index=k\) or "
                                         r"model.export_text\(k\)"):
        export_text(forest)
    with pytest.raises(ValueError, match="index=3 is not a tree"):
        export_text(forest, index=3)
    with pytest.raises(NotFittedError, match="fitted MIRandomForestClassifier"):
        export_text(MIRandomForestClassifier(), index=0)


def test_gdbt_round_by_index(table):
    clf = GDBTMIClassifier(n_estimators=4, random_state=0).fit(table.data, table.target)
    text = export_text(clf, index=0)
    assert any(f"{name} <=" in text for name in NAMES) and "x0" not in text and "x1" not in text
    assert "value: " in text and "class: " not in text
    with pytest.raises(ValueError, match="boosting round"):
        export_text(clf)
    y3 = np.arange(len(table.target)) % 3
    multi = GDBTMIClassifier(n_estimators=2, random_state=0).fit(table.data, y3)
    assert "value: " in export_text(multi, index=(1, 2))
    with pytest.raises(ValueError, match=r"index=\(round, class index\)"):
        export_text(multi, index=1)


def test_export_text_refuses_other_models():
    with pytest.raises(TypeError, match="not RipperMIClassifier"):
        export_text(RipperMIClassifier())
    with pytest.raises(NotFittedError):
        export_text(C45MIClassifier())
    clf = C45MIClassifier().fit([np.zeros((1, 1)), np.ones((1, 1))], [0, 1])
    with pytest.raises(ValueError, match="this C45MIClassifier has one tree"):
        export_text(clf, index=0)


def test_bags_feature_names_checks_and_pickle():
    import pickle

    bags = Bags(np.arange(6.0).reshape(3, 2), [0, 1, 3], feature_names=["a", "b"])
    assert pickle.loads(pickle.dumps(bags)).feature_names.tolist() == ["a", "b"]
    assert bags.with_feature_names(None).feature_names is None
    with pytest.raises(ValueError, match="feature_names has 1 names; the bags have 2 features"):
        Bags(np.ones((2, 2)), [0, 2], feature_names=["a"])
    clf = C45MIClassifier().fit(bags, [0, 1])
    with pytest.raises(ValueError, match="same order"):
        clf.predict(bags.with_feature_names(["b", "a"]))

"""splitter="auto": the exact search up to 10,000 training instances, the histogram search above."""

import numpy as np
import pytest

import mil.tree._rows as builder
from mil import Bags
from mil.ensemble import GDBTMIClassifier, MIRandomForestClassifier
from mil.tree import C45MIClassifier, ID3MIClassifier
from mil.utils.estimator_checks import make_toy_bags

MODELS = {
    "C4.5-MI": lambda s: C45MIClassifier(splitter=s),
    "ID3-MI": lambda s: ID3MIClassifier(splitter=s),
    "forest": lambda s: MIRandomForestClassifier(n_estimators=3, random_state=0, splitter=s),
    "GDBT-MI": lambda s: GDBTMIClassifier(n_estimators=5, random_state=0, splitter=s),
}


def test_the_threshold():
    assert builder.AUTO_HIST_INSTANCES == 10_000
    for name, make in MODELS.items():
        assert make("auto").get_params()["splitter"] == "auto", name  # the default
        assert type(make("auto"))().splitter == "auto"


@pytest.mark.parametrize("name", list(MODELS))
def test_auto_is_exact_up_to_the_threshold_and_hist_above(name, monkeypatch, backend):
    X, y = make_toy_bags(n_bags=40, random_state=0)
    n = sum(len(b) for b in X)
    # Coarse features (more than 255 distinct values per feature) make the two searches differ.
    X = [np.round(b * 1000.0) for b in X]
    make = MODELS[name]
    exact, hist = make("exact").fit(X, y), make("hist").fit(X, y)
    assert exact.export_text(decimals=8) != hist.export_text(decimals=8)  # thresholds on bin edges
    for threshold, same in ((n, exact), (n - 1, hist)):
        monkeypatch.setattr(builder, "AUTO_HIST_INSTANCES", threshold)
        auto = make("auto").fit(X, y)
        assert auto.splitter_ == same.splitter_ == ("exact" if same is exact else "hist")
        assert auto.export_text(decimals=8) == same.export_text(decimals=8)
        np.testing.assert_array_equal(auto.predict_proba(X), same.predict_proba(X))


def test_auto_keeps_the_exact_search_for_its_cut_placements(monkeypatch):
    X, y = make_toy_bags(n_bags=30, random_state=2)
    monkeypatch.setattr(builder, "AUTO_HIST_INSTANCES", 0)
    assert C45MIClassifier(cut_placement="training-value").fit(X, y).splitter_ == "hist"
    for placement in ("run-middle", "instances"):  # cuts between node values: the exact search only
        assert C45MIClassifier(cut_placement=placement).fit(X, y).splitter_ == "exact"
    with pytest.raises(ValueError, match="use splitter='exact'"):
        C45MIClassifier(cut_placement="instances", splitter="hist").fit(X, y)


@pytest.mark.parametrize("name", list(MODELS))
def test_auto_reads_float32_for_either_search(name, monkeypatch):
    X, y = make_toy_bags(n_bags=30, random_state=1)
    bags64 = Bags.from_list(X)
    bags32 = Bags(bags64.instances.astype(np.float32), bags64.offsets)
    as64 = Bags(bags32.instances.astype(np.float64), bags64.offsets)  # the float32 values, in float64
    for threshold in (bags64.n_instances, 0):  # exact (a float64 copy), then hist (the float32 as they are)
        monkeypatch.setattr(builder, "AUTO_HIST_INSTANCES", threshold)
        a = MODELS[name]("auto").fit(bags32, y)
        b = MODELS[name]("exact" if threshold else "hist").fit(as64, y)
        np.testing.assert_array_equal(a.predict_proba(bags32), b.predict_proba(as64))

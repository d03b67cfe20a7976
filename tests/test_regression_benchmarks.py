"""Smoke test of the regression benchmark tables (the full runs live in benchmarks/reproduce_regression.py)."""

import numpy as np

from mil import _regression_benchmarks as rb


def test_tables_run_on_small_data():
    rows, skipped = rb.law_table(("mean pooling + ridge", "SimpleMI"), seeds=(0, 1), n_train=80, n_test=40,
                                 bag_size=200)
    assert [r["learner"] for r in rows] == ["mean pooling + ridge", "SimpleMI"] and not skipped
    # The label lives in the spread: the statistics beat the mean.
    assert rows[1]["mse"] < rows[0]["mse"]
    assert rows[0]["seeds"] == [0, 1] and rows[0]["fit_s"] >= 0 and "mse_sd" in rows[0]
    rows, _ = rb.primary_table(("PIR", "mean pooling + ridge"), seeds=(0,), n_bags=300, bag_size=2)
    assert 0 <= rows[0]["attribution"] <= 1 and np.isfinite(rows[0]["mse"])
    # A bag learner without instance predictions is scored on each instance as a bag of one.
    assert np.isnan(rows[1]["attribution"]) and np.isfinite(rows[1]["mse"])
    rows, _ = rb.entropy_table(("SimpleMI",), seeds=(0,), n_bags=30, bag_size=50, n_train=20)
    assert rows[0]["r2"] > 0.5


def test_missing_classes_are_skipped(monkeypatch):
    monkeypatch.setitem(rb._SPECS, "nothing", ("mil.wrappers", "NoSuchRegressor", lambda s: {}, False))
    rows, skipped = rb.law_table(("nothing",), seeds=(0,), n_train=10, n_test=10, bag_size=10)
    assert rows == [] and skipped == ["nothing"]

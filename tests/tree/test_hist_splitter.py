"""The `splitter` option of the tree family: "hist" grows the exact trees when each value has a bin."""

import numpy as np
import pytest

from mil.ensemble import GDBTMIClassifier, MIRandomForestClassifier
from mil.tree import C45MIClassifier, ID3MIClassifier
from mil.utils.estimator_checks import make_toy_bags


def _coarse_bags(seed=0, n_bags=80):
    X, y = make_toy_bags(n_bags=n_bags, random_state=seed)
    return [np.round(b, 1) for b in X], y  # few distinct values: one bin each


@pytest.mark.parametrize("make", [
    lambda sp: C45MIClassifier(splitter=sp),
    lambda sp: ID3MIClassifier(splitter=sp),
    lambda sp: MIRandomForestClassifier(n_estimators=5, random_state=0, splitter=sp),
    lambda sp: GDBTMIClassifier(n_estimators=5, random_state=0, subsample=1.0, splitter=sp),
])
def test_hist_equals_exact_with_one_bin_per_value(backend, make):
    X, y = _coarse_bags()
    Xt, _ = _coarse_bags(seed=1, n_bags=30)
    a, b = make("exact").fit(X, y), make("hist").fit(X, y)
    # The same splits of the training instances; a threshold may sit elsewhere in the gap between two
    # of a node's values, which moves only instances the tree did not see (test or out-of-bag bags).
    trees_a, trees_b = (getattr(m, "estimators_", [m]) for m in (a, b))
    if isinstance(a, GDBTMIClassifier):
        # Its leaf values route every instance (also those positive-bag removal took out), so the
        # rounds after the first see other scores.
        trees_a, trees_b = trees_a[:1], trees_b[:1]
    for ta, tb in zip(trees_a, trees_b):
        ta, tb = getattr(ta, "tree_", ta), getattr(tb, "tree_", tb)
        for name in ("feature", "children_left"):
            np.testing.assert_array_equal(getattr(ta, name), getattr(tb, name))
        # Boosting's bag weights are not whole: their sums may differ in the last bits.
        np.testing.assert_allclose(ta.gain, tb.gain, rtol=1e-12, atol=1e-14)
    if not hasattr(a, "estimators_"):
        np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert (a.predict(Xt) == b.predict(Xt)).mean() > 0.8


def test_hist_rejects_cut_placements_it_cannot_keep():
    X, y = _coarse_bags()
    with pytest.raises(ValueError, match="histogram search"):
        C45MIClassifier(splitter="hist", cut_placement="run-middle").fit(X, y)

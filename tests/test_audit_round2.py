"""Regression tests of the second reliability audit (one test or group per audit item)."""

import numpy as np
import pytest

from mil import BagKNNClassifier, CitationKNNClassifier


def _bags(seed, n_bags=40, n_features=3, low=1.0, high=100.0):
    rng = np.random.default_rng(seed)
    X = [rng.uniform(low, high, size=(rng.integers(1, 5), n_features)) for _ in range(n_bags)]
    y = np.arange(n_bags) % 2
    rng.shuffle(y)
    return X, y


# -- item 1: standardisation at extreme magnitudes ---------------------------------------------
@pytest.mark.parametrize("factor", [1e160, 1e-170, 2.0 ** 600, 2.0 ** -600])
@pytest.mark.parametrize("scale", ["standard", "minmax"])
def test_item1_scaling_invariant_to_extreme_rescaling(backend, factor, scale):
    X, y = _bags(0)
    for est in (BagKNNClassifier(scale=scale), CitationKNNClassifier(scale=scale)):
        ref = est.fit(X, y).predict(X)
        got = est.fit([b * factor for b in X], y).predict([b * factor for b in X])
        np.testing.assert_array_equal(got, ref)
        assert np.all(np.abs(est.scale_ / factor) > 0)

"""Scaling statistics fitted and applied a block of rows at a time: numpy's values, any dtype, any block."""

import numpy as np
import pytest

import mil._scaling as scaling
from mil import Bags


def _table(seed=0, n=300, d=6, dtype=np.float64):
    rng = np.random.default_rng(seed)
    X = (rng.normal(size=(n, d)) * rng.uniform(0.1, 100, size=d) + 5).astype(dtype)
    X[rng.random((n, d)) < 0.1] = np.nan
    X[:, 2] = np.nan  # a feature with no value
    return X


def _numpy_statistics(X, method):
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        if method == "maxabs":
            offset, scale = np.zeros(X.shape[1]), np.nanmax(np.abs(X), axis=0)
        elif method == "standard":
            big = np.nanmax(np.abs(X), axis=0)
            big = np.where(np.isfinite(big) & (big > 0), big, 1.0)
            offset, scale = np.nanmean(X / big, axis=0) * big, np.nanstd(X / big, axis=0) * big
        else:
            offset, scale = np.nanmin(X, axis=0), np.nanmax(X, axis=0) - np.nanmin(X, axis=0)
    return np.where(np.isfinite(offset), offset, 0.0), np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)


@pytest.mark.parametrize("method", ["standard", "minmax", "maxabs"])
def test_one_block_gives_numpys_statistics_bit_for_bit(method):
    X = _table()
    offset, scale = scaling.fit_scaling(X, method)
    expected = _numpy_statistics(X, method)
    np.testing.assert_array_equal(offset, expected[0])
    np.testing.assert_array_equal(scale, expected[1])


@pytest.mark.parametrize("method", ["standard", "minmax", "maxabs", None])
def test_blocks_and_float32_give_the_same_scaling(method, monkeypatch):
    X = _table(dtype=np.float32) * np.float32(1e-30)  # below the magnitude rule's range for None
    whole = scaling.fit_scaling(X.astype(np.float64), method, rescale_extremes=True)
    monkeypatch.setattr(scaling, "BLOCK_BYTES", 8 * 6 * 7)  # blocks of 7 rows
    blocks = scaling.fit_scaling(X, method, rescale_extremes=True)
    if method is None:
        assert whole[0] is None and blocks[0] is None  # 1e-28 is within 2**-400
        return
    np.testing.assert_allclose(blocks[0], whole[0], rtol=1e-13)
    np.testing.assert_allclose(blocks[1], whole[1], rtol=1e-13)
    if method != "standard":  # maxima and minima do not depend on the order of the rows
        np.testing.assert_array_equal(blocks[1], whole[1])


def test_the_magnitude_rule_reads_blocks(monkeypatch):
    X = _table()
    X[np.isnan(X)] = 0.0
    big, small = X * 1e300, X * 1e-300
    big[150, 3], small[150, 3] = 1e307, 1e-290  # the top in a middle block: every block must count
    for table in (big, small):
        whole = scaling.fit_scaling(table, None, rescale_extremes=True)
        assert whole[0] is not None
        with monkeypatch.context() as m:
            m.setattr(scaling, "BLOCK_BYTES", 8 * 6 * 7)  # blocks of 7 rows: maxima, the same in any blocks
            blocked = scaling.fit_scaling(table, None, rescale_extremes=True)
        np.testing.assert_array_equal(blocked[0], whole[0])
        np.testing.assert_array_equal(blocked[1], whole[1])
    X[0, 0] = np.inf  # not finite: ignored by the rule
    assert scaling.fit_scaling(X, None, rescale_extremes=True) == (None, None)


def test_apply_scaling_gives_float64_a_block_at_a_time(monkeypatch):
    X = _table(dtype=np.float32)
    X[np.isnan(X)] = 1.5
    bags = Bags(X, [0, 100, 300])
    offset, scale = scaling.fit_scaling(X, "standard")
    expected = (X.astype(np.float64) - offset) / scale
    monkeypatch.setattr(scaling, "BLOCK_BYTES", 8 * 6 * 11)
    out = scaling.apply_scaling(bags, offset, scale)
    assert out.instances.dtype == np.float64
    np.testing.assert_array_equal(out.instances, expected)
    np.testing.assert_array_equal(out.offsets, bags.offsets)
    assert scaling.row_blocks(0, 6) == [(0, 0)] and scaling.row_blocks(23, 6)[-1] == (22, 23)

"""SimpleMI and MIWrapper for real-valued targets; the bag statistics; the regressor base class."""

import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.dummy import DummyRegressor
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.neighbors import KNeighborsRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from mil import Bags
from mil.utils.validation import check_bag_targets, check_bags
from mil.wrappers import (STATISTICS, MIWrapperRegressor, SimpleMIRegressor, bag_statistics, bag_summaries,
                          pool_by_bag)
from mil.wrappers import _summaries


def _bags(seed=0, n=12, d=3, nan=False):
    rng = np.random.default_rng(seed)
    X = [rng.normal(size=(int(rng.integers(1, 7)), d)) for _ in range(n)]
    if nan:
        X[2][0, 1] = np.nan
        X[5][:, 0] = np.nan
    return X


def test_statistics_by_hand():
    X = _bags()
    got = bag_statistics(Bags.from_list(X), STATISTICS + (0.25, 0.5))
    d = 3
    for b, bag in enumerate(X):
        m2 = bag.var(axis=0)
        flat = m2 == 0
        skew = np.where(flat, 0.0, stats.skew(bag, axis=0)) if bag.shape[0] > 1 else np.zeros(d)
        kurt = np.where(flat, 0.0, stats.kurtosis(bag, axis=0)) if bag.shape[0] > 1 else np.zeros(d)
        expected = np.concatenate([bag.mean(0), bag.std(0), bag.min(0), bag.max(0), (bag.min(0) + bag.max(0)) / 2,
                                   skew, kurt, bag.sum(0), [bag.shape[0]], np.quantile(bag, 0.25, axis=0),
                                   np.median(bag, axis=0)])
        np.testing.assert_allclose(got[b], expected, rtol=1e-10, atol=1e-12)


def test_standardised_moments_do_not_depend_on_instance_order():
    # Two instances: skewness 0 and kurtosis -2 exactly; equal instances: no spread, both 0.
    rng = np.random.default_rng(0)
    pairs = [rng.normal(size=(2, 3)) * 10.0 ** rng.integers(-3, 4) for _ in range(200)]
    flat = [np.full((n, 3), 0.1 * n) for n in (2, 3, 7)]
    for bags in (pairs, flat):
        forward = bag_statistics(Bags.from_list(bags), ("skewness", "kurtosis"))
        backward = bag_statistics(Bags.from_list([b[::-1] for b in bags]), ("skewness", "kurtosis"))
        np.testing.assert_array_equal(forward, backward)
    np.testing.assert_array_equal(forward, 0.0)
    two = bag_statistics(Bags.from_list(pairs), ("skewness", "kurtosis"))
    np.testing.assert_array_equal(two, np.repeat([[0.0, 0.0, 0.0, -2.0, -2.0, -2.0]], 200, axis=0))


def test_statistics_ignore_nan():
    X = _bags(nan=True)
    got = bag_statistics(check_bags(X, allow_nan=True), ("mean", "std", "min", "max", 0.5, "sum", "size"))
    for b, bag in enumerate(X):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # numpy's all-NaN warnings
            sums = np.where(np.isnan(bag).all(0), np.nan, np.nansum(bag, 0))
            expected = np.concatenate([np.nanmean(bag, 0), np.nanstd(bag, 0), np.nanmin(bag, 0), np.nanmax(bag, 0),
                                       np.nanmedian(bag, 0), sums, [bag.shape[0]]])
        np.testing.assert_allclose(got[b], expected, rtol=1e-10)
    assert np.isnan(got[5, 0]) and got[5, -1] == X[5].shape[0]  # feature 0 missing in all of bag 5


def test_statistics_in_chunks_and_from_a_float32_memmap(tmp_path, monkeypatch):
    X = _bags(n=40)
    bags = Bags.from_list(X)
    whole = bag_statistics(bags, ("mean", "std", "kurtosis", 0.9, "size"))
    monkeypatch.setattr(_summaries, "_CHUNK_INSTANCES", 7)
    np.testing.assert_array_equal(bag_statistics(bags, ("mean", "std", "kurtosis", 0.9, "size")), whole)
    path = tmp_path / "inst.npy"
    np.save(path, bags.instances.astype(np.float32))
    mapped = Bags(np.load(path, mmap_mode="r"), bags.offsets)
    assert not mapped.instances.flags.owndata  # still the map, not a copy
    np.testing.assert_allclose(bag_statistics(mapped, ("mean", "std", "kurtosis", 0.9, "size")), whole, rtol=1e-5,
                               atol=1e-5)


def test_weka_summaries_are_statistics():
    bags = check_bags(_bags(nan=True), allow_nan=True)
    np.testing.assert_array_equal(bag_summaries(bags, "minmax"), bag_statistics(bags, ("min", "max")))
    np.testing.assert_array_equal(bag_summaries(bags, "midrange"), bag_statistics(bags, "midrange"))
    with pytest.raises(ValueError, match="unknown summary"):
        bag_summaries(bags, "median")


@pytest.mark.parametrize("summary, message", [
    ("median", "unknown statistic 'median'"), ((), "at least one statistic"), ((1.5,), "outside"),
    (("mean", "mean"), "twice"), ((None,), "neither"),
])
def test_bad_summary(summary, message):
    X, y = _bags(), np.arange(12.0)
    with pytest.raises(ValueError, match=message):
        SimpleMIRegressor(summary=summary).fit(X, y)


def test_mean_is_blind_to_spread():
    # Bags of the same centre whose target is their spread: the mean learns nothing.
    rng = np.random.default_rng(0)
    y = rng.uniform(0.5, 2.0, size=120)
    X = [rng.normal(scale=s, size=(40, 2)) for s in y]
    blind = SimpleMIRegressor(summary="mean").fit(X[:80], y[:80]).score(X[80:], y[80:])
    seeing = SimpleMIRegressor().fit(X[:80], y[:80]).score(X[80:], y[80:])
    assert blind < 0.1 and seeing > 0.9


def test_counts_need_the_sum():
    # The target counts the instances with a positive indicator feature; bag sizes vary.
    rng = np.random.default_rng(1)
    X, y = [], []
    for _ in range(150):
        n = int(rng.integers(2, 30))
        flag = (rng.random(n) < rng.random()).astype(float)
        X.append(np.c_[flag, rng.normal(size=n)])
        y.append(flag.sum())
    y = np.array(y)
    assert SimpleMIRegressor(LinearRegression(), summary="sum").fit(X[:100], y[:100]).score(X[100:], y[100:]) > 0.999
    assert SimpleMIRegressor(LinearRegression(), summary="mean").fit(X[:100], y[:100]).score(X[100:], y[100:]) < 0.9


def test_simple_mi_is_its_inner_estimator_on_the_statistics():
    X, y = _bags(n=30), np.linspace(-1, 1, 30)
    bags = Bags.from_list(X)
    reg = SimpleMIRegressor(Ridge(alpha=0.3), summary=("mean", "max")).fit(X, y)
    Z = bag_statistics(bags, ("mean", "max"))
    np.testing.assert_allclose(reg.predict(X), Ridge(alpha=0.3).fit(Z, y).predict(Z), rtol=1e-12)
    assert reg.n_features_in_ == 3


def test_pipeline_gets_the_weights_at_every_step():
    X, y = _bags(n=30), np.linspace(-1, 1, 30)
    w = np.random.default_rng(3).uniform(0.5, 2, size=30)
    reg = SimpleMIRegressor(make_pipeline(StandardScaler(), Ridge())).fit(X, y, sample_weight=w)
    Z = bag_statistics(Bags.from_list(X))
    expected = make_pipeline(StandardScaler(), Ridge()).fit(Z, y, standardscaler__sample_weight=w,
                                                              ridge__sample_weight=w)
    np.testing.assert_allclose(reg.predict(X), expected.predict(Z), rtol=1e-12)


def test_inner_estimator_without_weights():
    X, y = _bags(n=20), np.linspace(-1, 1, 20)
    with pytest.raises(ValueError, match="KNeighborsRegressor does not accept it"):
        SimpleMIRegressor(KNeighborsRegressor(3)).fit(X, y, sample_weight=np.ones(20))
    with pytest.raises(ValueError, match="KNeighborsRegressor does not accept it"):
        MIWrapperRegressor(KNeighborsRegressor(3)).fit(X, y, sample_weight=np.ones(20))
    with pytest.warns(UserWarning, match="weighting='bag' is ignored"):
        MIWrapperRegressor(KNeighborsRegressor(3)).fit(X, y)  # bag sizes differ: so do the weights
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        MIWrapperRegressor(KNeighborsRegressor(3), weighting="uniform").fit(X, y)


def test_nested_parameters_need_an_explicit_inner_estimator():
    with pytest.raises(ValueError, match="default inner regressor at fit"):
        SimpleMIRegressor().set_params(estimator__alpha=1.0)
    assert SimpleMIRegressor(Ridge()).set_params(estimator__alpha=2.0).estimator.alpha == 2.0


def test_nan_follows_the_inner_estimator():
    X, y = _bags(n=30, nan=True), np.linspace(-1, 1, 30)
    with pytest.raises(ValueError, match="NaN"):
        SimpleMIRegressor().fit(X, y)
    hgb = HistGradientBoostingRegressor(max_iter=5, min_samples_leaf=3)
    assert np.isfinite(SimpleMIRegressor(hgb).fit(X, y).predict(X)).all()


@pytest.mark.parametrize("pooling", ["mean", "median", "max", "min"])
def test_miwrapper_pools_the_instance_predictions(pooling):
    X, y = _bags(n=25), np.linspace(-1, 1, 25)
    reg = MIWrapperRegressor(LinearRegression(), pooling=pooling, weighting="uniform").fit(X, y)
    inner = LinearRegression().fit(np.vstack(X), np.repeat(y, [len(b) for b in X]))
    per_instance = [inner.predict(b) for b in X]
    pool = {"mean": np.mean, "median": np.median, "max": np.max, "min": np.min}[pooling]
    np.testing.assert_allclose(reg.predict(X), [pool(p) for p in per_instance], rtol=1e-12)
    np.testing.assert_allclose(reg.predict_instances(X), np.concatenate(per_instance), rtol=1e-12)
    for got, want in zip(reg.predict_instances(X, per_bag=True), per_instance):
        np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("weighting, expected", [
    # DummyRegressor's weighted mean of the instance targets:
    ("inverse_size", "bag mean"), ("bag", "bag mean"), ("uniform", "instance mean")])
def test_miwrapper_instance_weights(weighting, expected):
    X = [np.zeros((1, 1)), np.zeros((3, 1))]
    y = np.array([0.0, 4.0])
    reg = MIWrapperRegressor(DummyRegressor(), weighting=weighting).fit(X, y)
    want = 2.0 if expected == "bag mean" else 3.0
    np.testing.assert_allclose(reg.predict(X), [want, want])
    # Bag weights multiply them.
    reg = MIWrapperRegressor(DummyRegressor(), weighting="inverse_size").fit(X, y, sample_weight=[3.0, 1.0])
    np.testing.assert_allclose(reg.predict(X), [1.0, 1.0])


def test_pool_by_bag_median_of_even_and_odd_bags():
    values = np.array([4.0, 1.0, 3.0, 2.0, 9.0, 5.0, 7.0])
    np.testing.assert_allclose(pool_by_bag(values, np.array([0, 4, 7]), "median"), [2.5, 7.0])
    with pytest.raises(ValueError, match="unknown pooling"):
        pool_by_bag(values, np.array([0, 7]), "sum")


# -- the targets' validation (mil.utils.validation.check_bag_targets) ----------

@pytest.mark.parametrize("y, message", [
    (None, "requires y to be passed"),
    ([1.0, 2.0], "2 targets but X has 3 bags"),
    ([[1.0, 2.0]] * 3, "1-D"),
    ([1.0, np.nan, 2.0], "NaN \\(the target of bag 1\\)"),
    ([1.0, 2.0, -np.inf], "infinity \\(the target of bag 2\\)"),
    (["1.5", "x", "2"], "non-numeric target \\('x' for bag 1\\)"),
    ([1 + 1j, 2, 3], "complex"),
])
def test_bad_targets(y, message):
    with pytest.raises(ValueError, match=message):
        check_bag_targets(y, 3)


def test_targets_named_by_bag_id_and_converted():
    with pytest.raises(ValueError, match="bag 'b'"):
        check_bag_targets([1.0, np.nan], 2, ids=np.array(["a", "b"]))
    y = np.array([1, 2, 3])
    out = check_bag_targets(y, 3)
    assert out.dtype == np.float64 and out is not y
    np.testing.assert_array_equal(check_bag_targets(["1.5", "2", "3"], 3), [1.5, 2.0, 3.0])
    with pytest.warns(Warning, match="column-vector"):
        check_bag_targets(np.ones((3, 1)), 3)


def test_regressor_error_names_the_bag_id():
    X = Bags(np.arange(6.0).reshape(3, 2), [0, 1, 3], ids=["m1", "m2"])
    with pytest.raises(ValueError, match="bag 'm2'"):
        SimpleMIRegressor().fit(X, [1.0, np.inf])


def test_feature_names_from_dataframe_bags():
    pd = pytest.importorskip("pandas")
    X, y = _bags(n=20), np.linspace(0, 1, 20)
    frames = [pd.DataFrame(b, columns=["a", "b", "c"]) for b in X]
    reg = MIWrapperRegressor().fit(frames, y)
    assert reg.feature_names_in_.tolist() == ["a", "b", "c"]
    with pytest.raises(ValueError, match="same order"):
        reg.predict([f[["c", "b", "a"]] for f in frames])

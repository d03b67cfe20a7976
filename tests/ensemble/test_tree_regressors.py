"""GDBTMIRegressor and BagRandomTreesRegressor: scikit-learn regressors on bags.

scikit-learn's checks (through the one-instance-bag adapter) and the bag-aware
regressor checks, sample weights and the zero-weight rule, float32 and
memory-mapped bags, seeds, instance predictions, the losses, and both backends.
"""

import numpy as np
import pytest

import mil
from mil import Bags
from mil._core import use_backend
from mil.ensemble import BagRandomTreesRegressor, GDBTMIRegressor
from mil.ensemble._gdbt_losses import AbsoluteLoss, HuberLoss, weighted_median
from mil.utils.estimator_checks import check_bag_regressor, make_toy_regression_bags


def _spread_bags(n_bags=60, size=30, seed=0):
    """Bags whose label is their instances' spread (the mean says nothing)."""
    rng = np.random.default_rng(seed)
    scale = rng.uniform(0.5, 2.0, n_bags)
    return [rng.normal(scale=s, size=(size, 2)) for s in scale], scale


@pytest.mark.parametrize("regressor, sklearn_checks", [
    (GDBTMIRegressor(n_estimators=8, subsample=1.0, random_state=0), True),
    (GDBTMIRegressor(n_estimators=8, subsample=1.0, split="mi", loss="huber", random_state=0), False),
    (GDBTMIRegressor(n_estimators=8, subsample=1.0, split="bag-ratio", loss="absolute_error", random_state=0), False),
    (BagRandomTreesRegressor(n_estimators=4, n_rules=4, random_state=0), True),
], ids=["gdbt", "gdbt-mi-huber", "gdbt-bag-ratio-absolute", "blrt"])
def test_regressor_checks(regressor, sklearn_checks):
    # scikit-learn's suite on the defaults of both; the other trees and losses take the bag-aware checks
    # (sample weights, zero-weight bags, permutations, seeds), which keeps the pure-Python run short.
    check_bag_regressor(regressor, param_grid={"max_depth": [2, None]}, sklearn_checks=sklearn_checks)


def test_the_label_in_the_spread_is_learned():
    # Accuracy on the active backend; test_both_backends_build_the_same_model checks the other.
    X, y = _spread_bags()
    Xt, yt = _spread_bags(seed=1)
    for reg in (GDBTMIRegressor(n_estimators=60, random_state=0, split="instance"),
                BagRandomTreesRegressor(n_estimators=30, random_state=0)):
        assert reg.fit(X, y).score(Xt, yt) > 0.6, type(reg).__name__


@pytest.mark.parametrize("make", [
    lambda: GDBTMIRegressor(n_estimators=6, random_state=3, split="instance"),
    lambda: BagRandomTreesRegressor(n_estimators=6, bootstrap=True, random_state=3),
], ids=["gdbt", "blrt"])
def test_both_backends_build_the_same_model(make):
    if mil._config.pure_python_requested() or not mil._core.compiled_available():
        pytest.skip("the compiled kernels are not in use")
    X, y = make_toy_regression_bags()
    X = [np.round(b, 1) for b in X]  # ties
    preds = []
    for kind in ("compiled", "python"):
        with use_backend(kind):
            preds.append(make().fit(X, y).predict(X))
    np.testing.assert_array_equal(*preds)


def test_float32_and_memory_mapped_bags(tmp_path):
    X, y = make_toy_regression_bags()
    bags = Bags.from_list(X)
    path = tmp_path / "x.npy"
    np.save(path, bags.instances.astype(np.float32))
    mapped = Bags(np.load(path, mmap_mode="r"), bags.offsets)
    for reg in (GDBTMIRegressor(n_estimators=5, random_state=0, splitter="hist"),
                BagRandomTreesRegressor(n_estimators=5, random_state=0)):
        a = reg.fit(mapped, y).predict(mapped)
        b = reg.fit(Bags(bags.instances.astype(np.float32), bags.offsets), y).predict(bags)
        np.testing.assert_allclose(a, b)


def test_instance_predictions_are_one_instance_bags():
    X, y = make_toy_regression_bags()
    reg = GDBTMIRegressor(n_estimators=10, random_state=0).fit(X, y)
    single = [b[i:i + 1] for b in X for i in range(b.shape[0])]
    np.testing.assert_allclose(reg.predict_instances(X), reg.predict(single))
    assert len(reg.predict_instances(X, per_bag=True)) == len(X)
    ratio = GDBTMIRegressor(n_estimators=10, split="bag-ratio", random_state=0).fit(X, y)
    np.testing.assert_allclose(ratio.predict_instances(X), ratio.predict(single))


def test_oob_score_is_r2_on_left_out_bags():
    X, y = _spread_bags(n_bags=50)
    reg = BagRandomTreesRegressor(n_estimators=40, bootstrap=True, oob_score=True, random_state=0).fit(X, y)
    ok = ~np.isnan(reg.oob_prediction_)
    ss = ((y[ok] - reg.oob_prediction_[ok]) ** 2).sum()
    assert reg.oob_score_ == pytest.approx(1 - ss / ((y[ok] - y[ok].mean()) ** 2).sum())
    assert 0.3 < reg.oob_score_ < 1.0
    assert not hasattr(reg.set_params(oob_score=False).fit(X, y), "oob_score_")


def test_losses_leaf_rules_by_hand():
    # Two leaves; leaf 0 holds bags 0-2 whole, leaf 1 bag 3 whole and half of bag 2 (A = 0.5).
    pair_bag, pair_leaf = np.array([0, 1, 2, 2, 3]), np.array([0, 0, 0, 1, 1])
    A = np.array([1.0, 1.0, 0.5, 0.5, 1.0])
    r = np.array([1.0, 5.0, 2.0, -4.0])
    # Weighted medians of the bags' residuals, weighted by the shares: leaf 0 sorts 1 (1), 2 (.5), 5 (1),
    # half of 2.5 is first reached at 2; leaf 1 sorts -4 (1), 2 (.5): -4.
    got = AbsoluteLoss.leaf_values(pair_bag, pair_leaf, A, r, None, 2)
    assert got.tolist() == [2.0, -4.0]
    assert weighted_median(np.array([3.0, 1.0, 2.0])) == 2.0
    huber = HuberLoss(alpha=0.5)
    huber.delta = 1.0
    # Leaf 0: median 2, deviations (-1, 3 -> 1, 0) weighted (1, 1, .5): mean 0; leaf 1: median -4 (weight 1
    # against .5), deviations (6 -> 1, 0) weighted (.5, 1): 1/3.
    np.testing.assert_allclose(huber.leaf_values(pair_bag, pair_leaf, A, r, None, 2), [2.0, -4.0 + 0.5 / 1.5])


@pytest.mark.parametrize("loss", ["squared_error", "absolute_error", "huber"])
def test_training_loss_falls(loss):
    X, y = _spread_bags(n_bags=40)
    reg = GDBTMIRegressor(loss=loss, n_estimators=30, subsample=1.0, split="instance", random_state=0).fit(X, y)
    assert reg.train_score_[-1] < 0.7 * reg.train_score_[0]
    if loss == "absolute_error":
        assert reg.init_score_ == np.sort(y)[len(y) // 2 - 1]  # the lower median
    if loss == "squared_error":
        assert reg.init_score_ == pytest.approx(np.mean(y))


def test_regressor_rejects_noisy_or_pooling():
    X, y = make_toy_regression_bags()
    with pytest.raises(ValueError, match="pooling"):
        GDBTMIRegressor(pooling="noisy-or").fit(X, y)

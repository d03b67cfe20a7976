"""scikit-learn's common checks and the bag-aware checks on every bag regressor.

scikit-learn's suite runs through :func:`mil.utils.estimator_checks.one_instance_bags`
with the expected failures of :func:`mil.utils.estimator_checks.expected_failed_checks`;
the bag-aware checks of ``REGRESSOR_CHECKS`` run under the active backend. The
last tests feed the checks broken regressors: each must be caught.
"""

import zlib

import numpy as np
import pytest
import sklearn
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import Ridge
from sklearn.tree import DecisionTreeRegressor
from sklearn.utils.fixes import parse_version

from mil.embedding import (KernelMeanRegressor, MInDRegressor, SlicedWassersteinRegressor, miFVRegressor,
                           miVLADRegressor)
from mil.svm import BagKernelSVR
from mil.utils.estimator_checks import (REGRESSOR_CHECKS, check_bag_regressor, expected_failed_checks,
                                        make_toy_regression_bags, one_instance_bags)
from mil.wrappers import MIWrapperRegressor, PrimaryInstanceRegressor, SimpleMIRegressor

REGRESSORS = [
    SimpleMIRegressor(),
    SimpleMIRegressor(Ridge(alpha=0.1), summary=("mean", "std", "skewness", "kurtosis", 0.5, "sum", "size")),
    SimpleMIRegressor(HistGradientBoostingRegressor(max_iter=20, min_samples_leaf=5, random_state=0)),
    MIWrapperRegressor(),
    MIWrapperRegressor(DecisionTreeRegressor(max_depth=4, random_state=0), pooling="median",
                       weighting="inverse_size"),
    PrimaryInstanceRegressor(random_state=0),
    PrimaryInstanceRegressor(Ridge(), assignment="soft", init="random", random_state=0),
    # Small grids keep the encoder regressors fast.
    KernelMeanRegressor(n_components=50, instance_gamma_scales=(1.0,), alphas=(0.1, 10.0), cv=3, random_state=0),
    KernelMeanRegressor(n_components=50, instance_gamma_scales=(1.0,), model="rbf", gamma_scales=(1.0,),
                        alphas=(0.01, 1.0), cv=3, random_state=0),
    miFVRegressor(n_components=1, alphas=(0.1, 10.0), cv=3, random_state=0),
    miVLADRegressor(n_clusters=1, model="svr", gamma_scales=(1.0,), Cs=(1.0,), cv=3, random_state=0),
    SlicedWassersteinRegressor(n_directions=32, n_quantiles=3, gamma_scales=(1.0,), alphas=(0.01, 1.0), cv=3,
                               random_state=0),
    MInDRegressor(gamma_scales=(1.0,), alphas=(0.01, 1.0), cv=3, random_state=0),
    BagKernelSVR(gamma=(1.0,), C=(1.0, 10.0), cv=3, random_state=0),
    BagKernelSVR(n_landmarks=20, gamma=(1.0,), C=(1.0, 10.0), cv=3, random_state=0),
    BagKernelSVR("average", model="ridge", gamma=(1.0,), alphas=(0.01, 0.1), cv=3, random_state=0),
]
GRIDS = {"SimpleMIRegressor": {"summary": ["mean", ("mean", "std")]},
         "MIWrapperRegressor": {"pooling": ["mean", "max"]},
         "PrimaryInstanceRegressor": {"assignment": ["hard", "soft"]},
         **{name: {"cv": [2, 3]} for name in ("KernelMeanRegressor", "miFVRegressor", "miVLADRegressor",
                                               "SlicedWassersteinRegressor", "MInDRegressor", "BagKernelSVR")}}


# The SVR on a Nystroem landmark kernel (rank at most the landmarks, below the bags): its dual
# is not unique, and libsvm (tol=1e-6) stops at another point of it when the training
# instances' scaling differs in its last bits, as it does for reordered instances (observed:
# 7e-7 on targets in [-2, 2]; the exact kernel's SVR moves by 2e-15).
LANDMARK_SVR_TOLERANCE = 1e-5


def _id(est):
    # crc32, not hash(): string hashes differ between processes, and pytest-xdist's workers must
    # collect the same test ids.
    return f"{type(est).__name__}-{zlib.crc32(repr(est.get_params()).encode()) % 1000:03d}"


def _expected(estimator):
    failures = expected_failed_checks(estimator)
    if isinstance(estimator.get_params().get("estimator"), HistGradientBoostingRegressor):
        # scikit-learn's own: min_samples_leaf counts rows, not weights, and the bins are drawn
        # from the rows.
        failures["check_sample_weight_equivalence_on_dense_data"] = (
            "the inner HistGradientBoostingRegressor counts rows, not weights, in min_samples_leaf")
    return failures


if parse_version(sklearn.__version__) >= parse_version("1.9"):
    from sklearn.utils.estimator_checks import parametrize_with_checks

    @parametrize_with_checks([one_instance_bags(r) for r in REGRESSORS], expected_failed_checks=_expected)
    def test_sklearn_checks(estimator, check):
        check(estimator)


@pytest.mark.parametrize("check", list(REGRESSOR_CHECKS))
@pytest.mark.parametrize("regressor", REGRESSORS, ids=_id)
def test_bag_checks(regressor, check):
    X, y = make_toy_regression_bags()
    if check == "contract":
        REGRESSOR_CHECKS[check](regressor, X, y, param_grid=GRIDS[type(regressor).__name__])
    elif check == "instance_permutation" and regressor.get_params().get("n_landmarks") is not None:
        REGRESSOR_CHECKS[check](regressor, X, y, atol=LANDMARK_SVR_TOLERANCE)
    else:
        REGRESSOR_CHECKS[check](regressor, X, y)


def test_one_call_runs_everything():
    check_bag_regressor(SimpleMIRegressor(Ridge()))


def test_expected_failures_follow_the_inner_estimator():
    assert "check_sample_weight_equivalence_on_dense_data" in expected_failed_checks(SimpleMIRegressor())
    assert "check_sample_weight_equivalence_on_dense_data" not in expected_failed_checks(
        SimpleMIRegressor(Ridge()))


# -- broken regressors: the checks must catch each one ---------------------------

class Constant(SimpleMIRegressor):
    def predict(self, X):
        return np.zeros(len(super().predict(X)))


class FirstInstanceOnly(SimpleMIRegressor):
    def fit(self, X, y, sample_weight=None):
        return super().fit([np.asarray(b)[:1] for b in X], y, sample_weight=sample_weight)

    def predict(self, X):
        return super().predict([np.asarray(b)[:1] for b in X])


class BatchCentred(SimpleMIRegressor):
    def predict(self, X):
        p = super().predict(X)
        return p - p.mean()


class WeightsIgnored(SimpleMIRegressor):
    def fit(self, X, y, sample_weight=None):
        return super().fit(X, y)


class SilentNaN(SimpleMIRegressor):
    def fit(self, X, y, sample_weight=None):
        y = np.asarray(y)
        if y.dtype.kind == "f":
            y = np.nan_to_num(y, nan=0.0, posinf=0.0)
        return super().fit(X, y, sample_weight=sample_weight)


class Float16(SimpleMIRegressor):
    def _accepts_float32(self):
        return True

    def fit(self, X, y, sample_weight=None):
        from mil import Bags

        if isinstance(X, Bags) and X.instances.dtype == np.float32:
            X = Bags(X.instances.astype(np.float16).astype(np.float32), X.offsets)
        return super().fit(X, y, sample_weight=sample_weight)


class InstancesNotSingletons(MIWrapperRegressor):
    def _predict_instances(self, bags):
        return super()._predict_instances(bags) + 1.0


class ScoreNotR2(SimpleMIRegressor):
    def score(self, X, y, sample_weight=None):
        return -float(np.mean((self.predict(X) - y) ** 2))


BROKEN = [Constant, FirstInstanceOnly, BatchCentred, WeightsIgnored, SilentNaN, Float16, InstancesNotSingletons,
          ScoreNotR2]


@pytest.mark.parametrize("broken", BROKEN, ids=lambda c: c.__name__)
def test_checks_catch_broken_regressors(broken):
    with pytest.raises(AssertionError):
        check_bag_regressor(broken(), sklearn_checks=False)

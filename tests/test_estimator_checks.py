"""scikit-learn's common checks and the multi-instance checks on every estimator.

scikit-learn's suite runs through :func:`mil.utils.estimator_checks.one_instance_bags`
(a 2-D X as bags of one instance) with the expected failures, and reasons, of
:func:`mil.utils.estimator_checks.expected_failed_checks`. The multi-instance
checks run under the active backend; a last test feeds them broken estimators.
"""

import numpy as np
import pytest
import sklearn
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks
from sklearn.utils.fixes import parse_version

from mil.embedding import (FisherVectorEmbedding, KernelMeanClassifier, KernelMeanEmbedding, MILESClassifier,
                           MInDClassifier, SlicedWassersteinClassifier, SlicedWassersteinEmbedding, VLADEmbedding,
                           miFVClassifier, miVLADClassifier)
from mil.ensemble import BagRandomTreesClassifier, GDBTMIClassifier, MIRandomForestClassifier
from mil.neighbors import BagKNNClassifier, CitationKNNClassifier
from mil.rules import RipperMIClassifier
from mil.svm import BagKernelSVC, MISVMClassifier, miSVMClassifier
from mil.tree import C45MIClassifier, ID3MIClassifier
from mil.wrappers import MIWrapperClassifier, SimpleMIClassifier
from mil.utils.estimator_checks import (
    BAG_CHECKS, check_bag_classifier, check_bag_invariants, expected_failed_checks, make_toy_bags,
    one_instance_bags)

# Small settings keep the suite fast (it runs twice in CI, once per backend).
ESTIMATORS = [
    ID3MIClassifier(),
    C45MIClassifier(),
    C45MIClassifier(splitter="hist"),
    GDBTMIClassifier(n_estimators=10, random_state=0),
    GDBTMIClassifier(n_estimators=10, random_state=0, splitter="hist"),
    GDBTMIClassifier(n_estimators=10, random_state=0, split="bag-ratio"),
    RipperMIClassifier(random_state=0),
    BagKNNClassifier(),
    CitationKNNClassifier(),
    BagKNNClassifier(algorithm="kd_tree"),
    CitationKNNClassifier(algorithm="ball_tree"),
    MIRandomForestClassifier(n_estimators=10, random_state=0),
    MIRandomForestClassifier(n_estimators=10, random_state=0, splitter="hist"),
    BagRandomTreesClassifier(n_estimators=10, random_state=0),
    SimpleMIClassifier(),
    MIWrapperClassifier(),
    MIWrapperClassifier(DecisionTreeClassifier(max_depth=3, random_state=0), calibration="sigmoid", random_state=0),
    # Small grids keep the checks fast; the defaults' grids are exercised in tests/svm.
    BagKernelSVC(C=1.0, gamma=1.0, random_state=0),
    BagKernelSVC(kernel="migraph", C=[1.0, 10.0], gamma=1.0, random_state=0),
    BagKernelSVC(n_landmarks=20, C=[1.0, 10.0], gamma=1.0, random_state=0),
    miSVMClassifier(kernel="linear", C=1.0, threshold="zero", random_state=0),
    MISVMClassifier(C=1.0, gamma=1.0, threshold="zero", scale="standard", random_state=0),
    MISVMClassifier(kernel="linear", C=1.0, random_state=0),
    MILESClassifier(Cs=(0.1, 1.0), sigma_scales=(1.0,), cv=3, random_state=0),
    MInDClassifier(Cs=(1.0, 10.0), gamma_scales=(1.0,), cv=3, random_state=0),
    MInDClassifier(Cs=(1.0, 10.0), gamma_scales=(1.0,), kernel="auto", cv=3, random_state=0),
    # scikit-learn's checks fit one-instance bags: with several centres (components), a
    # unit-norm code of one instance keeps little more than which centre is nearest, below the
    # checks' accuracy bar on two blobs; one centre keeps the instance's direction.
    miFVClassifier(n_components=1, Cs=(0.1, 10.0), cv=3, random_state=0),
    miVLADClassifier(n_clusters=(1, 2), Cs=(1.0, 10.0), cv=3, random_state=0),
    miVLADClassifier(n_clusters=1, Cs=(1.0,), model="svm", cv=3, random_state=0),
    KernelMeanClassifier(n_components=50, gamma_scales=(0.5, 2.0), Cs=(1.0, 100.0), cv=3, random_state=0),
    SlicedWassersteinClassifier(n_directions=4, n_quantiles=3, gamma_scales=(1.0,), Cs=(1.0, 10.0), cv=3,
                                random_state=0),
]
# The bag encoders (transformers): scikit-learn's checks, and the multi-instance
# checks that apply to a transformer's rows (TRANSFORMER_CHECKS).
TRANSFORMERS = [
    VLADEmbedding(n_clusters=2, random_state=0),
    FisherVectorEmbedding(n_components=2, random_state=0),
    KernelMeanEmbedding(n_components=50, random_state=0),
    KernelMeanEmbedding(n_components=50, method="nystroem", random_state=0),
    SlicedWassersteinEmbedding(n_directions=4, n_quantiles=3, random_state=0),
    SlicedWassersteinEmbedding(n_directions=4, n_quantiles=3, interpolation="linear", random_state=0),
]

# The expected failures, with why, are mil.utils.estimator_checks.expected_failed_checks'
# (they depend on the scikit-learn release: before 1.9 more checks fit on the labels 1/2).
@parametrize_with_checks([one_instance_bags(e) for e in ESTIMATORS + TRANSFORMERS],
                         expected_failed_checks=expected_failed_checks)
def test_sklearn_checks(estimator, check):
    check(estimator)


# -- the multi-instance checks ------------------------------------------------

# Learners solved to a tolerance (liblinear, libsvm): sums over reordered instances,
# or computed by the other backend, differ in their last bits and move the solution
# within the solver's tolerance. Their real-valued outputs are compared to 1e-8
# (observed: 1e-11 or less); labels exactly.
SOLVER_TOLERANCE = 1e-8
TOLERANT = {
    ("miSVMClassifier", "instance_permutation"),
    ("MISVMClassifier", "instance_permutation"),
    *((name, check) for name in ("MILESClassifier", "MInDClassifier")
      for check in ("instance_permutation", "backend_equality")),
}
THREE_CLASS_TOLERANT = TOLERANT | {("BagKernelSVC", "instance_permutation")}
# The SVM on a Nystroem landmark kernel (rank at most the landmarks, below the bags): its dual
# is not unique, and libsvm (SVC's tol=1e-3) stops at another point of it when the training
# instances' scaling differs in its last bits, as it does for reordered instances (observed:
# 8.5e-6 in predict_proba; the exact kernel's SVM moves by less than 1e-12).
LANDMARK_TOLERANCE = 1e-4


def _id(est):
    return type(est).__name__


TRANSFORMER_CHECKS = ("instance_permutation", "batch_invariance", "backend_equality")
# Every multi-instance check on the classifiers; on the transformers, those about their rows.
_BAG_CASES = ([(e, c) for c in BAG_CHECKS for e in ESTIMATORS]
              + [(e, c) for c in TRANSFORMER_CHECKS for e in TRANSFORMERS])


@pytest.mark.parametrize("estimator, check", _BAG_CASES, ids=[f"{_id(e)}-{c}" for e, c in _BAG_CASES])
def test_bag_checks(estimator, check):
    X, y = make_toy_bags(n_bags=40, random_state=3)
    if check == "instance_permutation" and estimator.get_params().get("n_landmarks") is not None:
        BAG_CHECKS[check](estimator, X, y, atol=LANDMARK_TOLERANCE)
    elif (type(estimator).__name__, check) in TOLERANT:
        BAG_CHECKS[check](estimator, X, y, atol=SOLVER_TOLERANCE)
    else:
        BAG_CHECKS[check](estimator, X, y)


@pytest.mark.parametrize("check", ["instance_permutation", "string_labels", "method_consistency"])
@pytest.mark.parametrize("estimator", [BagKNNClassifier(), CitationKNNClassifier(),
                                       BagKernelSVC(C=1.0, gamma=1.0, random_state=0)], ids=_id)
def test_bag_checks_three_classes(estimator, check):
    X, y = make_toy_bags(n_bags=36, n_classes=3, random_state=4)
    if (type(estimator).__name__, check) in THREE_CLASS_TOLERANT:
        BAG_CHECKS[check](estimator, X, y, atol=SOLVER_TOLERANCE)
    else:
        BAG_CHECKS[check](estimator, X, y)


# -- broken estimators: the checks must catch each one ------------------------

class SwappedProba(C45MIClassifier):
    def predict_proba(self, X):
        return super().predict_proba(X)[:, ::-1]


class InvertedStringLabels(C45MIClassifier):
    def predict(self, X):
        pred = super().predict(X)
        if self.classes_.dtype.kind in "UO":
            return np.where(pred == self.classes_[0], self.classes_[1], self.classes_[0])
        return pred


class FlippedDecision(C45MIClassifier):
    def decision_function(self, X):
        return -super().decision_function(X)


class ConstantProba(C45MIClassifier):
    # Consistent with itself: a constant 0.5 (ties go to classes_[0]).
    def predict_proba(self, X):
        return np.full_like(super().predict_proba(X), 0.5)

    def decision_function(self, X):
        return np.zeros(len(self.predict_proba(X)))

    def predict(self, X):
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


class BatchDependent(C45MIClassifier):
    # Probabilities shrunk toward the batch mean (as a batch-centred distance would).
    def predict_proba(self, X):
        p = super().predict_proba(X)
        return 0.5 * p + 0.5 * p.mean(axis=0)

    def decision_function(self, X):
        p = self.predict_proba(X)[:, 1]
        return np.log(p) - np.log1p(-p)

    def predict(self, X):
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


class FirstInstanceOnly(C45MIClassifier):
    def fit(self, X, y):
        return super().fit([np.asarray(b)[:1] for b in X], y)

    def _first(self, X):
        return [np.asarray(b)[:1] for b in X]

    def predict(self, X):
        return super().predict(self._first(X))

    def predict_proba(self, X):
        return super().predict_proba(self._first(X))

    def decision_function(self, X):
        return super().decision_function(self._first(X))


BROKEN = [SwappedProba, InvertedStringLabels, FlippedDecision, ConstantProba, BatchDependent,
          FirstInstanceOnly]


def _run_suite(est):
    check_bag_classifier(est)
    check_bag_invariants(est)


def test_suite_passes_the_unbroken_base():
    _run_suite(C45MIClassifier())


@pytest.mark.parametrize("broken", BROKEN, ids=lambda c: c.__name__)
def test_suite_catches_broken_estimator(broken):
    with pytest.raises(AssertionError, match="check '|C45MI|" + broken.__name__):
        _run_suite(broken())


def test_one_instance_adapter_keeps_the_estimator():
    # The adapter only reshapes X: same parameters, same predictions as bags of one.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = (X[:, 0] > 0).astype(int)
    est = C45MIClassifier(min_bags_leaf=1)
    adapted = one_instance_bags(est)
    assert isinstance(adapted, C45MIClassifier)
    assert adapted.get_params() == est.get_params()
    bags = [row[None, :] for row in X]
    np.testing.assert_array_equal(adapted.fit(X, y).predict_proba(X),
                                  est.fit(bags, y).predict_proba(bags))
    # Not 2-D: passed through for the estimator's own validation.
    with pytest.raises(ValueError, match="1-D"):
        adapted.predict(X[0])


# -- feature names of DataFrame bags ------------------------------------------

@pytest.mark.parametrize("estimator", TRANSFORMERS, ids=_id)
def test_dataframe_feature_names_transformers(estimator):
    pd = pytest.importorskip("pandas")
    X, _ = make_toy_bags(n_bags=24, n_features=3, random_state=5)
    cols = ["a", "b", "c"]
    frames = [pd.DataFrame(b, columns=cols) for b in X]
    est = estimator.__class__(**estimator.get_params(deep=False)).fit(frames)
    assert est.feature_names_in_.tolist() == cols
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        expected = est.transform(frames)
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        np.testing.assert_array_equal(est.transform(X), expected)
    with pytest.raises(ValueError, match="must be in the same order"):
        est.transform([f[["c", "b", "a"]] for f in frames])
    names = est.get_feature_names_out()
    assert names.shape == (expected.shape[1],) and names[0] == type(est).__name__.lower() + "0"


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=_id)
def test_dataframe_feature_names(estimator):
    pd = pytest.importorskip("pandas")
    X, y = make_toy_bags(n_bags=24, n_features=3, random_state=5)
    cols = ["a", "b", "c"]
    frames = [pd.DataFrame(b, columns=cols) for b in X]
    est = estimator.__class__(**estimator.get_params(deep=False)).fit(frames, y)
    assert est.feature_names_in_.dtype == object and est.feature_names_in_.tolist() == cols
    expected = est.predict(X)  # arrays: a warning, same predictions
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(est.predict(frames), expected)
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        est.predict(X)
    with pytest.raises(ValueError, match="must be in the same order"):
        est.predict([f[["c", "b", "a"]] for f in frames])
    with pytest.raises(ValueError, match="unseen at fit time:\n- d\n"):
        est.predict([f.rename(columns={"c": "d"}) for f in frames])
    # Refit on arrays forgets the names; predicting DataFrames then warns.
    est.fit(X, y)
    assert not hasattr(est, "feature_names_in_")
    with pytest.warns(UserWarning, match="fitted without feature names"):
        est.predict(frames)


def test_dataframe_bags_must_agree():
    pd = pytest.importorskip("pandas")
    X, y = make_toy_bags(n_bags=6, n_features=2)
    frames = [pd.DataFrame(b, columns=["u", "v"]) for b in X]
    frames[3] = frames[3][["v", "u"]]
    with pytest.raises(ValueError, match="bag 3 of X has the columns"):
        C45MIClassifier().fit(frames, y)
    mixed = [pd.DataFrame(b, columns=["u", "v"]) for b in X[:3]] + list(X[3:])
    with pytest.raises(ValueError, match="bag 3 of X is an array but bag 0 is a DataFrame"):
        C45MIClassifier().fit(mixed, y)
    numeric = [pd.DataFrame(b) for b in X]  # integer column names: no feature names (as sklearn)
    assert not hasattr(C45MIClassifier().fit(numeric, y), "feature_names_in_")


@pytest.mark.skipif(parse_version(sklearn.__version__) < parse_version("1.9"),
                    reason="before 1.9 this check fits the binary learners on the labels 1/2")
@pytest.mark.parametrize("estimator", ESTIMATORS, ids=_id)
def test_sklearn_dataframe_column_names_check(estimator):
    # Not in check_estimator's list; scikit-learn runs it on its own estimators.
    pytest.importorskip("pandas")
    from sklearn.utils.estimator_checks import check_dataframe_column_names_consistency

    check_dataframe_column_names_consistency(type(estimator).__name__, one_instance_bags(estimator))

"""Conformance checks for mil estimators: scikit-learn's own suite and multi-instance checks.

Three layers, as imbalanced-learn tests its samplers:

- :func:`one_instance_bags` adapts an estimator to scikit-learn's common
  checks: a 2-D ``X`` becomes one bag per row, and everything else (1-D
  arrays, sparse matrices, strings, NaN) reaches the estimator untouched, so
  the checks exercise our validation and our learners, not the adapter's.
  :func:`expected_failed_checks` lists, with a reason each, the checks that
  fail by design.
- :func:`check_bag_classifier` runs the scikit-learn contract on bags
  (clone, pickle, no mutation, ``cross_val_score``, ``GridSearchCV``, ...).
- :func:`check_bag_invariants` runs the multi-instance checks: instance
  order inside a bag, batch invariance, string labels, flipping the positive
  class, agreement of ``predict`` / ``predict_proba`` /
  ``decision_function``, informative probabilities, and equality of the
  compiled and pure-Python backends. The test suite shows that they catch
  deliberately broken estimators (``tests/test_estimator_checks.py``).

Regressors: :func:`check_bag_regressor` is the one call that runs both
scikit-learn's suite (through :func:`one_instance_bags`, with
:func:`expected_failed_checks`) and the bag-aware checks of
:data:`REGRESSOR_CHECKS` (contract, clear target errors, instance order,
batch invariance, a weight-0 bag is an absent bag, held-out R^2 on easy
bags, float32 and memory-mapped bags, ``predict_instances``, backends). In
a test file, parametrize over the checks instead, so that each failure is
its own test::

    @parametrize_with_checks([one_instance_bags(r) for r in REGRESSORS],
                             expected_failed_checks=expected_failed_checks)
    def test_sklearn_checks(estimator, check):
        check(estimator)

    @pytest.mark.parametrize("check", REGRESSOR_CHECKS)
    @pytest.mark.parametrize("regressor", REGRESSORS)
    def test_bag_checks(regressor, check):
        REGRESSOR_CHECKS[check](regressor, *make_toy_regression_bags())

A regressor that fails one of scikit-learn's checks by design gets an
entry, with its reason, in this module's table of expected failures
(``_FAILS_BY_CLASS``, keyed by class name).
"""

import inspect
import pickle

import numpy as np
import sklearn
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.utils.fixes import parse_version

from mil.bags import Bags
from mil.utils._contract import assert_bags_unchanged, check_feature_count_error, check_not_fitted, fit_keeping_inputs
from mil.utils._regressor_checks import REGRESSOR_CHECKS, make_toy_regression_bags

__all__ = ["check_bag_classifier", "check_bag_invariants", "check_bag_regressor", "expected_failed_checks",
           "make_toy_bags", "make_toy_regression_bags", "one_instance_bags", "BAG_CHECKS", "REGRESSOR_CHECKS"]


def make_toy_bags(n_bags=30, n_features=4, max_size=5, random_state=0, n_classes=2):
    """Small separable MI data: a positive bag holds an instance shifted along feature 0.

    Returns
    -------
    X : list of ndarray
    y : ndarray of int
    """
    rng = np.random.default_rng(random_state)
    X, y = [], []
    for i in range(n_bags):
        label = i % n_classes
        bag = rng.normal(size=(rng.integers(1, max_size + 1), n_features))
        if label:
            bag[rng.integers(bag.shape[0]), 0] += 4.0 * label
        X.append(bag)
        y.append(label)
    return X, np.array(y)


def _predictions(est, X):
    if not hasattr(est, "predict") and hasattr(est, "transform"):
        return {"transform": est.transform(X)}  # a transformer: its rows are the outputs
    out = {"predict": est.predict(X)}
    for method in ("predict_proba", "decision_function"):
        if hasattr(est, method):
            out[method] = getattr(est, method)(X)
    return out


def _assert_same(a, b, what, atol=1e-12):
    for key in a:
        if a[key].dtype.kind == "f":
            np.testing.assert_allclose(a[key], b[key], rtol=1e-12, atol=atol, err_msg=f"{what}: {key}")
        else:
            np.testing.assert_array_equal(a[key], b[key], err_msg=f"{what}: {key}")


def check_bag_classifier(estimator, X=None, y=None, param_grid=None, multiclass=False):
    """Run the bag-aware scikit-learn contract on `estimator`; raise AssertionError on failure.

    Parameters
    ----------
    estimator : unfitted mil classifier
    X, y : bags and labels, default=None
        Training data (default: :func:`make_toy_bags`).
    param_grid : dict, default=None
        A small grid for the GridSearchCV check (skipped when None).
    multiclass : bool, default=False
        Also check three string-labelled classes (neighbour classifiers).
    """
    if X is None:
        X, y = make_toy_bags()
    name = type(estimator).__name__

    # Parameters: stored verbatim, cloned equal, set_params round-trips.
    params = estimator.get_params()
    cloned = clone(estimator)
    assert cloned.get_params() == params, f"{name}: clone changed parameters"
    cloned.set_params(**params)
    assert cloned.get_params() == params, f"{name}: set_params did not round-trip"

    # Not fitted yet; fit returns self, inputs untouched.
    check_not_fitted(estimator, X, ("predict", "predict_proba", "decision_function"))
    est, X_before = fit_keeping_inputs(estimator, X, y)
    assert hasattr(est, "classes_") and hasattr(est, "n_features_in_")
    np.testing.assert_array_equal(est.classes_, np.unique(y))

    preds = _predictions(est, X)
    assert preds["predict"].shape == (len(X),)
    assert set(np.unique(preds["predict"])) <= set(est.classes_.tolist())
    if "predict_proba" in preds:
        proba = preds["predict_proba"]
        assert proba.shape == (len(X), len(est.classes_)), f"{name}.predict_proba shape {proba.shape}"
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-9)
        assert ((proba >= 0) & (proba <= 1)).all()
    assert_bags_unchanged(X, X_before, f"{name}.predict")

    # Same model, same predictions, whatever the container; refit is deterministic.
    bags = Bags.from_list(X)
    _assert_same(preds, _predictions(est, bags), f"{name}: Bags vs list input")
    again = clone(estimator).fit(bags, y)
    _assert_same(preds, _predictions(again, X), f"{name}: refit with the same random_state")

    # Pickle round-trip.
    restored = pickle.loads(pickle.dumps(est))
    _assert_same(preds, _predictions(restored, X), f"{name}: pickle round-trip")

    # Wrong feature count at predict time.
    check_feature_count_error(est, X)

    # Labels of any type come back as given.
    names = np.array(["neg", "pos", "other"])[np.searchsorted(np.unique(y), y)]
    est_s = clone(estimator)
    if "positive_class" in est_s.get_params() and np.unique(y).shape[0] == 2:
        # String labels name their positive class (else fit raises by design).
        est_s.set_params(positive_class="pos")
    est_s.fit(X, names)
    assert set(est_s.predict(X).tolist()) <= set(names.tolist())

    # scikit-learn tooling on bags.
    cv = StratifiedKFold(n_splits=3, shuffle=True, random_state=0)
    scores = cross_val_score(clone(estimator), X, y, cv=cv)
    assert scores.shape == (3,) and np.isfinite(scores).all()
    from mil.preprocessing import BagScaler

    pipe = make_pipeline(BagScaler(), clone(estimator)).fit(X, y)
    assert pipe.predict(X).shape == (len(X),)
    if param_grid:
        search = GridSearchCV(clone(estimator), param_grid, cv=cv).fit(X, y)
        assert search.predict(X).shape == (len(X),)

    if multiclass:
        Xm, ym = make_toy_bags(n_bags=36, n_classes=3)
        labels = np.array(["a", "b", "c"])[ym]
        em = clone(estimator).fit(Xm, labels)
        assert list(em.classes_) == ["a", "b", "c"]
        if hasattr(em, "predict_proba"):
            assert em.predict_proba(Xm).shape == (36, 3)
        assert em.score(Xm, labels) > 1 / 3
    return est


# -- scikit-learn's common checks through one-instance bags ------------------

def _as_bags(X):
    """A 2-D X as one single-instance bag per row; anything else unchanged.

    DataFrames become one-row DataFrames (so feature names reach the
    estimator) and sparse matrices one-row sparse matrices (so the
    estimator's own sparse handling answers). Inputs that are not 2-D, or
    that NumPy cannot turn into an array, pass through for the estimator's
    validation to judge.
    """
    if hasattr(X, "iloc") and getattr(X, "ndim", 0) == 2:
        return [X.iloc[i:i + 1] for i in range(X.shape[0])]
    if hasattr(X, "nnz") and hasattr(X, "tocsr") and len(getattr(X, "shape", ())) == 2:
        Xr = X.tocsr()
        return [Xr[i:i + 1] for i in range(Xr.shape[0])]
    if isinstance(X, (list, tuple, np.ndarray)) or hasattr(X, "__array__"):
        try:
            arr = np.asarray(X)
        except (ValueError, TypeError):
            return X
        if arr.ndim == 2:
            return [arr[i:i + 1] for i in range(arr.shape[0])]
    return X


_ADAPTED = {}


def _adapted_class(cls):
    """A subclass of `cls` whose methods take a 2-D X as one-instance bags (cached)."""
    if cls in _ADAPTED:
        return _ADAPTED[cls]

    if "sample_weight" in inspect.signature(cls.fit).parameters:
        # Visible in the signature, so scikit-learn runs its sample-weight checks.
        def fit(self, X, y=None, sample_weight=None):
            return cls.fit(self, _as_bags(X), y, sample_weight=sample_weight)
    else:
        def fit(self, X, y=None):
            return cls.fit(self, _as_bags(X), y)

    methods = {"fit": fit}
    for name in ("predict", "predict_proba", "decision_function", "transform"):
        if hasattr(cls, name):
            def method(self, X, _name=name):
                return getattr(cls, _name)(self, _as_bags(X))
            method.__name__ = name
            methods[name] = method

    def __sklearn_tags__(self):
        tags = cls.__sklearn_tags__(self)
        tags.input_tags.two_d_array = True
        tags.input_tags.three_d_array = False
        return tags

    qualname = f"OneInstance{cls.__name__}"
    new = type(cls.__name__, (cls,), {**methods, "__sklearn_tags__": __sklearn_tags__,
                                      "__module__": __name__, "__qualname__": qualname,
                                      "__doc__": cls.__doc__})
    globals()[qualname] = new  # picklable by reference (check_estimators_pickle)
    _ADAPTED[cls] = new
    return new


def one_instance_bags(estimator):
    """The same estimator (same class behaviour and parameters) taking a 2-D X as bags of one.

    For scikit-learn's ``check_estimator`` / ``parametrize_with_checks``:
    each row of a 2-D ``X`` becomes a bag holding that single instance.
    Multi-instance learners reduce to their single-instance counterparts
    on such bags (a tree on instances, k-NN with the Euclidean distance),
    so scikit-learn's expectations apply. The returned object is an
    instance of a subclass whose ``fit`` / ``predict`` / ``predict_proba``
    / ``decision_function`` only reshape ``X``; parameters, validation and
    learning are the estimator's own.

    Parameters
    ----------
    estimator : mil estimator

    Returns
    -------
    adapted : estimator

    Examples
    --------
    >>> import numpy as np
    >>> from mil.tree import C45MIClassifier
    >>> from mil.utils.estimator_checks import one_instance_bags
    >>> clf = one_instance_bags(C45MIClassifier(min_bags_leaf=1))
    >>> X = np.array([[0.0], [1.0], [5.0], [6.0]])
    >>> clf.fit(X, [0, 0, 1, 1]).predict([[0.5], [5.5]]).tolist()
    [0, 1]
    """
    return _adapted_class(type(estimator))(**estimator.get_params(deep=False))


# Why each scikit-learn check is expected to fail on the adapted estimators.
# Keys are check names; the values are shown by pytest as the xfail reason.
_FAILS_ALL = {
    "check_fit2d_predict1d": (
        "a 1-D X is not a sequence of bags; the error explains the bag layout "
        "('each bag must be a 2-D array ...') instead of scikit-learn's 'Reshape your data'"),
}
# A binary learner fitted on two labels other than 0/1, -1/1 or False/True
# raises until `positive_class` names the multi-instance positive class (a
# bag is positive iff one of its instances is, so the choice changes the
# model; see the labels and ties guide). These checks fit on labels such as
# 1/2 or "one"/"two" with default parameters.
_POSITIVE_CLASS_RULE = ("fit raises by design on the labels this check uses (not 0/1, -1/1 or "
                        "False/True) until positive_class names the positive class")
# Bag-KNN's vote does not depend on which class is positive: it needs no choice.
_FAILS_BINARY = {name: _POSITIVE_CLASS_RULE for name in (
    "check_estimators_dtypes", "check_classifier_data_not_an_array", "check_classifiers_classes",
    "check_fit2d_1feature", "check_sample_weights_pandas_series", "check_sample_weights_not_an_array",
    "check_sample_weights_shape", "check_sample_weights_not_overwritten")}
_FAILS_BY_CLASS = {name: _FAILS_BINARY for name in (
    "ID3MIClassifier", "C45MIClassifier", "GDBTMIClassifier", "RipperMIClassifier",
    "CitationKNNClassifier", "MIRandomForestClassifier", "miSVMClassifier", "MISVMClassifier")}
# The wrappers pass sample_weight to their inner estimator; the default one
# (C4.5-MI on one-instance bags) counts leaf sizes in weight, so they pass.
# The k-NN votes weigh each of the k nearest bags by its weight, but a copy of
# a bag also takes a place among the k nearest (a weight does not), and a
# class weight matters only where the class is among the k nearest: with
# k=3 on the check's noisy 3-class blobs, class 0 is absent from about a
# third of the neighbourhoods, whatever its weight.
_KNN_WEIGHTS = {
    "check_sample_weight_equivalence_on_dense_data": (
        "a repeated bag takes k-nearest places that a weight does not (weights scale votes)"),
    "check_class_weight_classifiers": (
        "a class weight changes the vote only where the class is among the k nearest bags"),
}
_FAILS_BY_CLASS["BagKNNClassifier"] = dict(_KNN_WEIGHTS)
# GDBT-MI draws a random half of the bags and a random feature subset per
# round: two copies of a bag are two draws (a weight of 2 is one), and the
# number of bags changes the later draws. With subsample=1.0 and
# max_features=None the check passes.
_FAILS_BY_CLASS["GDBTMIClassifier"] = {**_FAILS_BINARY, "check_sample_weight_equivalence_on_dense_data": (
    "bags and features are drawn at random per round: two copies of a bag are two draws, a "
    "weight of 2 is one (with subsample=1.0 and max_features=None the check passes)")}
_FAILS_BY_CLASS["CitationKNNClassifier"] = {**_FAILS_BINARY, **_KNN_WEIGHTS}
# The neighbour regressors average the k nearest bags' targets: the same places as the votes.
for _name in ("BagKNNRegressor", "CitationKNNRegressor"):
    _FAILS_BY_CLASS[_name] = {"check_sample_weight_equivalence_on_dense_data":
                              _KNN_WEIGHTS["check_sample_weight_equivalence_on_dense_data"]}
# RIPPER-MI sums bag weights in every count, but its grow/prune split draws bags at
# random (two copies of a bag can fall on both sides, a weight of 2 cannot), and a
# bag no rule covers gets the default rule's class: the majority of the training
# bags the rules leave, which on the check's noisy blobs are of the down-weighted
# classes once the heavy class's bags are all covered.
_FAILS_BY_CLASS["RipperMIClassifier"] = {
    **_FAILS_BINARY,
    "check_sample_weight_equivalence_on_dense_data": (
        "the grow/prune split draws bags at random: two copies of a bag are two draws, a weight "
        "of 2 is one"),
    "check_class_weight_classifiers": (
        "test bags no rule covers get the default rule's class, the majority of the uncovered "
        "training bags, which are all of the down-weighted classes here"),
}
# The forest draws each tree's bootstrap sample uniformly over the bags (as
# scikit-learn's random forest): two copies of a bag are two chances to be
# drawn, a weight of 2 is one, and the number of bags changes every draw.
_FAILS_BY_CLASS["MIRandomForestClassifier"] = {**_FAILS_BINARY, "check_sample_weight_equivalence_on_dense_data": (
    "bootstrap samples are drawn uniformly over the bags: two copies of a bag are two chances to "
    "be drawn, a weight of 2 is one")}

# Bag-level randomized trees grow until their leaves are pure, and a pure leaf's class
# frequencies do not depend on the class weights: only the choice among the random rules
# moves. scikit-learn's check gives its own trees min_weight_fraction_leaf=0.01 so that the
# weights matter; these trees have no such parameter.
_FAILS_BY_CLASS["BagRandomTreesClassifier"] = {"check_class_weight_classifiers": (
    "fully grown trees end in pure leaves, whose class frequencies a class weight does not change")}
# MILES orients its instance scores by the positive class (its bag decisions
# treat both classes alike); MInD needs no choice.
_FAILS_BY_CLASS["MILESClassifier"] = dict(_FAILS_BINARY)
# Both embed a bag by its relation to the training bags: a repeated bag adds
# concepts (prototypes), i.e. features, and changes the inner folds that tune
# C and sigma / gamma; a weight does neither.
_EMBEDDING_WEIGHTS = {"check_sample_weight_equivalence_on_dense_data": (
    "a repeated bag adds its instances as concepts (its prototype) and changes the inner tuning "
    "folds; a weight scales its loss only")}
_FAILS_BY_CLASS["MILESClassifier"].update(_EMBEDDING_WEIGHTS)
_FAILS_BY_CLASS["MInDClassifier"] = dict(_EMBEDDING_WEIGHTS)
# The bag encoders learn their model (mixture, codebook, feature scaling, median bandwidth)
# from the training instances, which a repeated bag adds to and a weight does not; the
# repeated bag also changes the inner tuning folds.
for _name in ("miFVClassifier", "miVLADClassifier", "KernelMeanClassifier", "SlicedWassersteinClassifier",
              "miFVRegressor", "miVLADRegressor", "KernelMeanRegressor", "SlicedWassersteinRegressor",
              "MInDRegressor"):
    _FAILS_BY_CLASS[_name] = {"check_sample_weight_equivalence_on_dense_data": (
        "the encoder is fitted on the training instances (a repeated bag adds its instances, a "
        "weight does not) and a repeated bag changes the inner tuning folds; a weight scales its "
        "loss only")}


# The wrappers' default inner regressor (RidgeCV) chooses its penalty by leave-one-out: two
# copies of a bag are left out one at a time (each still seen through its twin), a bag of
# weight 2 once. With an inner regressor without its own CV (Ridge()) the check passes.
_RIDGE_CV_WEIGHTS = {"check_sample_weight_equivalence_on_dense_data": (
    "the default inner RidgeCV chooses its penalty by leave-one-out, where two copies of a bag are "
    "left out one at a time and a weight of 2 is left out once (Ridge() inside passes)")}
_FAILS_WITH_DEFAULT_INNER = {name: _RIDGE_CV_WEIGHTS for name in (
    "SimpleMIRegressor", "MIWrapperRegressor", "PrimaryInstanceRegressor")}


# scikit-learn before 1.9 fits more of its checks on the labels 1/2 (or 2/3): the
# mi-SVM family refuses them without positive_class.
_FAILS_BEFORE_1_9 = {name: {check: _POSITIVE_CLASS_RULE for check in (
    "check_estimators_pickle", "check_readonly_memmap_input", "check_pipeline_consistency",
    "check_methods_subset_invariance", "check_methods_sample_order_invariance", "check_fit_check_is_fitted",
    "check_f_contiguous_array_estimator", "check_estimators_overwrite_params", "check_estimators_fit_returns_self",
    "check_dtype_object", "check_dont_overwrite_parameters", "check_dict_unchanged")}
    for name in ("miSVMClassifier", "MISVMClassifier")}
# Before 1.9 the sparse sample-weight check also runs on the k-NN classifiers, whose default
# scale="standard" subtracts a per-feature offset and so refuses sparse bags.
_FAILS_BEFORE_1_9.update({name: {"check_sample_weight_equivalence_on_sparse_data": (
    "scale='standard' subtracts a per-feature offset, which would make sparse bags dense: fit raises "
    "and asks for scale='maxabs' or None")} for name in ("BagKNNClassifier", "CitationKNNClassifier")})
# (Before 1.9:) MIWrapperClassifier(calibration="sigmoid") learns its cut on out-of-fold scores of
# stratified, shuffled folds over the bags: a repeated bag changes the folds, a weight does not.
_FAILS_CALIBRATED = {"check_sample_weight_equivalence_on_dense_data": (
    "the calibration's folds are drawn over the bags: a repeated bag changes them, a weight of 2 does not")}


def expected_failed_checks(estimator):
    """scikit-learn checks that `estimator` (adapted by :func:`one_instance_bags`) fails, with why.

    Parameters
    ----------
    estimator : mil estimator

    Returns
    -------
    failures : dict
        Check name -> reason, for ``parametrize_with_checks`` /
        ``check_estimator``'s `expected_failed_checks`.
    """
    failures = dict(_FAILS_ALL)
    params = estimator.get_params(deep=False)
    before_1_9 = parse_version(sklearn.__version__) < parse_version("1.9")
    for klass in type(estimator).__mro__:
        failures.update(_FAILS_BY_CLASS.get(klass.__name__, {}))
        if params.get("estimator", "") is None:
            failures.update(_FAILS_WITH_DEFAULT_INNER.get(klass.__name__, {}))
        if before_1_9:
            failures.update(_FAILS_BEFORE_1_9.get(klass.__name__, {}))
    if before_1_9 and params.get("calibration") == "sigmoid":
        failures.update(_FAILS_CALIBRATED)
    return failures


def check_bag_regressor(estimator, X=None, y=None, *, param_grid=None, sklearn_checks=True, skip=()):
    """Run every conformance check on a bag regressor; raise AssertionError on the first failure.

    scikit-learn's ``check_estimator`` on one-instance bags (its expected
    failures from :func:`expected_failed_checks`), then the bag-aware
    checks of :data:`REGRESSOR_CHECKS`.

    Parameters
    ----------
    estimator : unfitted mil regressor
        A subclass of :class:`mil.base.BaseBagRegressor`.
    X, y : bags and real-valued targets, default=None
        Training data (default: :func:`make_toy_regression_bags`).
    param_grid : dict, default=None
        A small grid for the GridSearchCV check (skipped when None).
    sklearn_checks : bool, default=True
        Run scikit-learn's suite too.
    skip : iterable of str, default=()
        Names of bag-aware checks not to run.

    Raises
    ------
    AssertionError
        Naming the check and the estimator that failed it.

    Examples
    --------
    >>> from mil.wrappers import SimpleMIRegressor
    >>> from mil.utils.estimator_checks import check_bag_regressor
    >>> check_bag_regressor(SimpleMIRegressor(), sklearn_checks=False)
    """
    if X is None:
        X, y = make_toy_regression_bags()
    if sklearn_checks:
        from sklearn.utils.estimator_checks import check_estimator

        results = check_estimator(one_instance_bags(estimator), on_fail=None,
                                  expected_failed_checks=expected_failed_checks(estimator))
        failed = [r for r in results if r["status"] == "failed"]
        if failed:
            raise AssertionError(f"scikit-learn check {failed[0]['check_name']!r} failed on "
                                 f"{type(estimator).__name__}: {failed[0]['exception']}")
    for name, check in REGRESSOR_CHECKS.items():
        if name in skip:
            continue
        try:
            if name == "contract":
                check(estimator, X, y, param_grid=param_grid)
            else:
                check(estimator, X, y)
        except AssertionError as exc:
            raise AssertionError(f"check {name!r} failed: {exc}") from exc


# -- multi-instance invariants ------------------------------------------------

def _fit(estimator, X, y, **params):
    return clone(estimator).set_params(**params).fit(X, y)


def _outputs(est, X):
    return _predictions(est, X)


def _rows(outputs, rows):
    return {k: v[rows] for k, v in outputs.items()}


def _binary(est):
    return len(est.classes_) == 2


def check_instance_permutation(estimator, X, y, *, atol=1e-12):
    """Reordering the instances inside each bag changes no output.

    `atol` bounds the absolute difference of real-valued outputs: a model
    solved to a tolerance (liblinear, libsvm) may move within it when sums
    over reordered instances differ in their last bits.
    """
    est = _fit(estimator, X, y)
    rng = np.random.default_rng(1)
    shuffled = [bag[rng.permutation(len(bag))] for bag in X]
    _assert_same(_outputs(est, X), _outputs(est, shuffled),
                 f"{type(estimator).__name__}: instance order inside a bag", atol)
    # Fitting on reordered bags gives the same model.
    _assert_same(_outputs(est, X), _outputs(_fit(estimator, shuffled, y), X),
                 f"{type(estimator).__name__}: fit on bags with reordered instances", atol)


def check_batch_invariance(estimator, X, y):
    """A bag gets the same outputs alone, in any batch, and in any batch order."""
    name = type(estimator).__name__
    est = _fit(estimator, X, y)
    full = _outputs(est, X)
    for i in range(0, len(X), max(1, len(X) // 6)):
        _assert_same(_rows(full, [i]), _outputs(est, [X[i]]), f"{name}: bag {i} predicted alone")
    order = np.random.default_rng(2).permutation(len(X))
    _assert_same(_rows(full, order), _outputs(est, [X[i] for i in order]),
                 f"{name}: bags predicted in another order")
    half = order[: len(X) // 2]
    _assert_same(_rows(full, half), _outputs(est, [X[i] for i in half]), f"{name}: half the bags")


def check_string_labels(estimator, X, y):
    """Renaming the classes (to strings sorted the same way) renames every output, nothing more."""
    name = type(estimator).__name__
    classes = np.unique(y)
    names = np.array([f"class_{i}" for i in range(len(classes))])
    y_str = names[np.searchsorted(classes, y)]
    params = {}
    if "positive_class" in estimator.get_params() and len(classes) == 2:
        # Labels other than 0/1, -1/1, False/True must name their positive class.
        pos = estimator.get_params()["positive_class"]
        pos = classes[1] if pos is None else pos
        params["positive_class"] = names[np.searchsorted(classes, pos)]
    a, b = _fit(estimator, X, y), _fit(estimator, X, y_str, **params)
    np.testing.assert_array_equal(b.classes_, names, err_msg=f"{name}: classes_ with string labels")
    pa, pb = _outputs(a, X), _outputs(b, X)
    np.testing.assert_array_equal(names[np.searchsorted(classes, pa.pop("predict"))], pb.pop("predict"),
                                  err_msg=f"{name}: predictions with string labels")
    _assert_same(pa, pb, f"{name}: string labels")


def check_positive_class_flip(estimator, X, y):
    """Naming the positive class explicitly equals relabelling: outputs map, columns swap, signs flip.

    Binary learners with a ``positive_class`` parameter are fitted on labels
    where the positive class sorts last (``classes_[1]``) and on labels
    where it sorts first (``classes_[0]``, named by `positive_class`); both
    must be the same model.
    """
    if "positive_class" not in estimator.get_params():
        return
    name = type(estimator).__name__
    classes = np.unique(y)
    if len(classes) != 2:
        return
    is_pos = y == classes[1]
    y_last = np.where(is_pos, "pos", "neg")      # sorted: ["neg", "pos"]: positive last
    y_first = np.where(is_pos, "a_pos", "b_neg")  # sorted: ["a_pos", "b_neg"]: positive first
    a = _fit(estimator, X, y_last, positive_class="pos")
    b = _fit(estimator, X, y_first, positive_class="a_pos")
    pa, pb = _outputs(a, X), _outputs(b, X)
    np.testing.assert_array_equal(pa["predict"] == "pos", pb["predict"] == "a_pos",
                                  err_msg=f"{name}: predictions after flipping the positive class")
    if "predict_proba" in pa:
        np.testing.assert_allclose(pa["predict_proba"], pb["predict_proba"][:, ::-1], rtol=1e-12,
                                   atol=1e-12, err_msg=f"{name}: predict_proba after the flip")
    if "decision_function" in pa:
        np.testing.assert_allclose(pa["decision_function"], -pb["decision_function"], rtol=1e-12,
                                   atol=1e-12, err_msg=f"{name}: decision_function after the flip")


def check_method_consistency(estimator, X, y):
    """``predict`` is ``classes_[argmax(predict_proba)]`` and ``decision_function`` agrees in sign."""
    name = type(estimator).__name__
    est = _fit(estimator, X, y)
    out = _outputs(est, X)
    pred = out["predict"]
    if "predict_proba" in out:
        proba = out["predict_proba"]
        assert proba.shape == (len(X), len(est.classes_)), f"{name}: predict_proba shape {proba.shape}"
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-9, err_msg=f"{name}: rows sum to 1")
        np.testing.assert_array_equal(pred, est.classes_[np.argmax(proba, axis=1)],
                                      err_msg=f"{name}: predict != classes_[argmax(predict_proba)]")
    if "decision_function" in out:
        dec = out["decision_function"]
        if _binary(est):
            assert dec.shape == (len(X),), f"{name}: binary decision_function shape {dec.shape}"
            decided = dec != 0
            np.testing.assert_array_equal((dec > 0)[decided], (pred == est.classes_[1])[decided],
                                          err_msg=f"{name}: sign of decision_function vs predict")
            if "predict_proba" in out:
                # The score ranks bags as the probability of classes_[1] does.
                p1 = out["predict_proba"][:, 1]
                order = np.argsort(dec, kind="stable")
                assert (np.diff(p1[order]) >= -1e-12).all(), \
                    f"{name}: decision_function and predict_proba rank bags differently"
        else:
            np.testing.assert_array_equal(pred, est.classes_[np.argmax(dec, axis=1)],
                                          err_msg=f"{name}: predict != classes_[argmax(decision)]")


def check_informative_proba(estimator, X, y):
    """On well-separated bags, ``predict_proba`` ranks positive bags above negative ones.

    A constant or reversed probability passes the shape checks; this check
    needs the training ROC AUC of the positive-class column to be at least
    0.8 (binary problems).
    """
    if not hasattr(estimator, "predict_proba"):
        return
    from sklearn.metrics import roc_auc_score

    est = _fit(estimator, X, y)
    if not _binary(est):
        return
    auc = roc_auc_score(y == est.classes_[1], est.predict_proba(X)[:, 1])
    assert auc >= 0.8, f"{type(estimator).__name__}: training ROC AUC of predict_proba is {auc:.3f}"


def check_backend_equality(estimator, X, y, *, atol=1e-12):
    """Compiled kernels and NumPy twins give the same fitted model and outputs.

    `atol` bounds the absolute difference of real-valued outputs (see
    :func:`check_instance_permutation`).
    """
    from mil._core import compiled_available, use_backend

    if not compiled_available():
        return
    with use_backend("compiled"):
        a = _outputs(_fit(estimator, X, y), X)
    with use_backend("python"):
        b = _outputs(_fit(estimator, X, y), X)
    for key in a:
        if a[key].dtype.kind == "f":
            np.testing.assert_allclose(a[key], b[key], rtol=1e-9, atol=atol,
                                       err_msg=f"{type(estimator).__name__}: backends differ: {key}")
        else:
            np.testing.assert_array_equal(a[key], b[key],
                                          err_msg=f"{type(estimator).__name__}: backends differ: {key}")


BAG_CHECKS = {
    "instance_permutation": check_instance_permutation,
    "batch_invariance": check_batch_invariance,
    "string_labels": check_string_labels,
    "positive_class_flip": check_positive_class_flip,
    "method_consistency": check_method_consistency,
    "informative_proba": check_informative_proba,
    "backend_equality": check_backend_equality,
}
"""The multi-instance checks by name (each ``check(estimator, X, y)``)."""


def check_bag_invariants(estimator, X=None, y=None, *, skip=(), tolerances=None):
    """Run the multi-instance checks of :data:`BAG_CHECKS` on `estimator`.

    Parameters
    ----------
    estimator : unfitted mil classifier
    X, y : bags and labels, default=None
        Training data (default: 40 bags of :func:`make_toy_bags`).
    skip : iterable of str
        Names of checks not to run.
    tolerances : dict of str to float, default=None
        The absolute tolerance of real-valued outputs by check name, for the
        checks that take one (``instance_permutation``, ``backend_equality``);
        1e-12 otherwise.

    Raises
    ------
    AssertionError
        Naming the check and the estimator that failed it.
    """
    if X is None:
        X, y = make_toy_bags(n_bags=40, random_state=3)
    y = np.asarray(y)
    for name, check in BAG_CHECKS.items():
        if name in skip:
            continue
        try:
            if tolerances and name in tolerances:
                check(estimator, X, y, atol=tolerances[name])
            else:
                check(estimator, X, y)
        except AssertionError as exc:
            raise AssertionError(f"check {name!r} failed: {exc}") from exc
# BagKernelSVC scales the features and sets the median-heuristic bandwidth from the
# training instances, which a repeated bag changes and a weight does not.
_FAILS_BY_CLASS["BagKernelSVC"] = _FAILS_BY_CLASS["BagKernelSVR"] = {"check_sample_weight_equivalence_on_dense_data": (
    "the feature scaling and the median-heuristic bandwidth are computed on the training "
    "instances, which a repeated bag changes and a weight of 2 does not")}
# mi-SVM / MI-SVM: the same (scaling and bandwidth from the instances), and the
# instance labels they infer change with the training set.
for _name in ("miSVMClassifier", "MISVMClassifier"):
    _FAILS_BY_CLASS[_name] = {**_FAILS_BINARY, "check_sample_weight_equivalence_on_dense_data": (
        "the feature scaling and the median-heuristic bandwidth are computed on the training "
        "instances, which a repeated bag changes and a weight of 2 does not")}

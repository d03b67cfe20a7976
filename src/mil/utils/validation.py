"""Input validation for bags and labels: the only validation code in mil.

Every public entry point calls these once; kernels then trust their inputs
(C-contiguous float64 instances, intp offsets). Errors name the bag and the
problem and inputs are never modified: data are copied into the
internal layout, or used read-only when already in it.
"""

import numbers
import warnings

import numpy as np
from sklearn.exceptions import DataConversionWarning

from mil._bag_arrays import (NUMERIC_KINDS, bag_name, check_bag_values, check_finite, check_instances, check_layout,
                             check_offsets, group_rows, id_name, is_sparse, shown, sparse_error, stack_bags)
from mil.bags import Bags, float64_bags

__all__ = [
    "check_bags",
    "check_bag_chunk",
    "check_bag_labels",
    "check_bags_y",
    "check_bag_targets",
    "bags_from_instances",
    "check_instances",
    "check_offsets",
    "implicit_positive",
    "positive_index",
    "bag_name",
    "bag_feature_names",
    "check_feature_names",
    "printed_feature_names",
    "set_feature_names",
    "bag_sample_weight",
    "shown",
]


def check_bags(X, *, n_features=None, allow_nan=False, estimator=None, name="X", accept_sparse=False,
               accept_float32=False, defer_values=False):
    """Validate bags and return them as a :class:`~mil.Bags`.

    Parameters
    ----------
    X : sequence of 2-D array-likes, or Bags
        One (n_i, n_features) array per bag, n_i >= 1, the same n_features.
    n_features : int, default=None
        Expected number of features (the fitted one, at predict time).
    allow_nan : bool, default=False
        Accept NaN as a missing value (infinity is never accepted).
    estimator : estimator or str, default=None
        Named in the feature-count error message.
    name : str, default="X"
        How the input is called in error messages.
    accept_sparse : bool, default=False
        Accept scipy sparse bags (a sparse :class:`~mil.Bags`, or a sequence
        holding sparse 2-D matrices): the result then holds one CSR
        instance matrix. When False, sparse bags are a TypeError naming
        `estimator`.
    accept_float32 : bool, default=False
        Keep the float32 instances of a :class:`~mil.Bags` as they are (the
        trees' histogram search reads them directly). When False, float32
        bags are returned as a new Bags with a float64 copy of the instances.
    defer_values : bool, default=False
        For a :class:`~mil.Bags`: check only its layout (in O(n_bags), the
        instance matrix is not read) and return it as it is, float32 or
        float64, so that a memory map stays on disk; the caller then checks
        the values of every part it reads with :func:`check_bag_chunk`.
        Sequences of arrays are checked in full whatever its value.

    Returns
    -------
    bags : Bags
        The same object when `X` is already a Bags; otherwise a new one
        whose instance matrix is a fresh copy (the input is never modified).

    Raises
    ------
    TypeError
        `X` is not a sequence of bags, or a bag holds non-numeric values.
    ValueError
        No bags, an empty bag, a bag that is not 2-D, ragged feature counts,
        NaN or infinity where not accepted, or a feature count that differs
        from `n_features`.
    """
    if isinstance(X, Bags):
        bags = X
        if bags.n_bags == 0:
            raise ValueError(f"{name} is a Bags with no bags; at least one bag is needed")
        check_layout(bags, name)
        if bags.is_sparse and not accept_sparse:
            raise sparse_error(name, estimator)
        if defer_values:
            return _checked_n_features(bags, n_features, estimator, name)
        check_bag_values(bags, name, allow_nan)
        if not accept_float32:
            bags = float64_bags(bags)
    else:
        bags = Bags._trusted(*stack_bags(X, allow_nan, name, accept_sparse, estimator))
    return _checked_n_features(bags, n_features, estimator, name)


def _checked_n_features(bags, n_features, estimator, name):
    if n_features is not None and bags.n_features != n_features:
        who = estimator if isinstance(estimator, str) or estimator is None else type(estimator).__name__
        # scikit-learn's wording (its common checks match it).
        raise ValueError(f"{name} has {bags.n_features} features, but {who or 'the estimator'} "
                         f"is expecting {n_features} features as input (per instance)")
    return bags


def check_bag_chunk(instances, offsets, *, first=0, ids=None, name="X", dtype=np.float64):
    """Check and copy the instances of a run of consecutive bags read from a larger Bags.

    The values check that :func:`check_bags` skips with ``defer_values=True``,
    done on one part of the bags at a time, so that memory stays at that part
    (a memory-mapped instance matrix is read only here).

    Parameters
    ----------
    instances : ndarray of shape (n_instances, n_features)
        The rows of the bags (a view, for instance a slice of a memory map).
    offsets : ndarray of intp of shape (n_bags + 1,)
        Their offsets, starting at 0.
    first : int, default=0
        Position of the first of these bags in the whole collection (named
        in errors).
    ids : ndarray of shape (n_bags,) or None, default=None
        Their ids, named in errors instead of positions.
    name : str, default="X"
        How the whole collection is called in error messages.
    dtype : numpy dtype, default=float64

    Returns
    -------
    instances : ndarray of `dtype`
        A C-contiguous copy.

    Raises
    ------
    ValueError
        NaN or infinity, naming the first bag that holds one.
    """
    out = np.array(instances, dtype=dtype, order="C")
    bad = ~np.isfinite(out)
    if bad.any():
        row = int(np.flatnonzero(bad.any(axis=1))[0])
        b = int(np.searchsorted(offsets, row, side="right") - 1)
        what = f"bag {first + b}" if ids is None else id_name(ids[b])
        check_finite(out[offsets[b]:offsets[b + 1]], f"{what} of {name}", False)
    return out


def bags_from_instances(X, bag_ids, *, allow_nan=True):
    """Group instance rows into bags by id; see :meth:`mil.Bags.from_instances`."""
    return Bags._trusted(*group_rows(X, bag_ids, allow_nan=allow_nan))


#: Label pairs whose positive class needs no naming: the larger label is positive.
_IMPLICIT_POSITIVE = ({0, 1}, {-1, 1})


def implicit_positive(classes):
    """True for the label pairs {0, 1}, {-1, 1} and {False, True} (numbers, not strings)."""
    if classes.shape[0] != 2:
        return False
    values = classes.tolist()
    if not all(isinstance(v, (bool, int, float)) for v in values):
        return False  # strings such as "0"/"1" are names, not numbers
    return set(values) in _IMPLICIT_POSITIVE


def positive_index(classes, positive_class=None, *, estimator=None):
    """Index in `classes` of the multi-instance positive class.

    The rule (the same for every binary learner; see the user guide page
    "Labels, the positive class and ties"): `positive_class` when given;
    otherwise, for the labels {0, 1}, {-1, 1} and {False, True}, the larger
    one. Any other pair of labels (e.g. "active"/"inactive") has no
    natural positive class: the standard multi-instance assumption treats
    the two classes differently (a bag is positive iff one of its instances
    is), so choosing by sort order could silently learn the complement of
    the intended concept. That case raises, naming the labels and the
    parameter that settles it, as scikit-learn's metrics do for
    ``pos_label``; a warning would be lost in cross-validation workers.

    Parameters
    ----------
    classes : ndarray
        The two sorted labels (``classes_``).
    positive_class : label or None, default=None
    estimator : str, default=None
        Named in the error message.

    Returns
    -------
    index : int

    Raises
    ------
    ValueError
        `positive_class` is not one of `classes`, or it is None and the
        labels are not {0, 1}, {-1, 1} or {False, True}.
    """
    if positive_class is not None:
        hits = np.flatnonzero(classes == positive_class)
        if hits.size == 0:
            raise ValueError(f"positive_class={shown(positive_class)} is not one of the labels "
                             f"{classes.tolist()}")
        return int(hits[0])
    if implicit_positive(classes):
        return 1
    who = estimator if estimator else "this estimator"
    a, b = classes.tolist()
    raise ValueError(
        f"y has the labels {a!r} and {b!r}: {who} needs to know which one is the "
        f"multi-instance positive class (a bag is positive iff one of its instances is). "
        f"Pass positive_class={a!r} or positive_class={b!r}; only the labels 0/1, -1/1 "
        f"and False/True need no choice (the larger one is positive).")


def _check_target_type(y_arr):
    """Raise scikit-learn's usual errors for continuous or multi-output labels."""
    from sklearn.utils.multiclass import check_classification_targets, type_of_target

    kind = type_of_target(y_arr, input_name="y")
    if kind in ("continuous", "continuous-multioutput", "unknown"):
        check_classification_targets(y_arr)  # "Unknown label type: continuous ..."
    if kind in ("multilabel-indicator", "multiclass-multioutput", "multilabel-sequences"):
        raise ValueError(f"y is {kind}: bag classifiers take one label per bag "
                         f"(a 1-D y), got shape {np.shape(y_arr)}")


def check_bag_labels(y, n_bags, *, binary=False, positive_class=None,
                     require_positive=None, estimator=None):
    """Validate bag labels and encode them.

    Parameters
    ----------
    y : array-like of shape (n_bags,)
        One hashable label per bag; continuous or multi-output y raises
        (scikit-learn's ``type_of_target`` decides).
    n_bags : int
        Number of bags the labels must match.
    binary : bool, default=False
        Require exactly two classes (trees, boosting, rules).
    positive_class : label, default=None
        The multi-instance positive class (:func:`positive_index`).
    require_positive : bool, default=None
        With two classes, resolve the positive class by
        :func:`positive_index` (raising for unnamed labels such as
        "active"/"inactive"). None means `binary`; learners for which the
        positive class changes nothing (Bag-KNN with a symmetric distance)
        pass False.
    estimator : str, default=None
        Named in the error messages.

    Returns
    -------
    classes : ndarray
        Sorted distinct labels.
    y_encoded : ndarray of intp, shape (n_bags,)
        Index of each label in `classes`; with ``binary=True``, 1 means the
        positive class (also when the positive class is ``classes[0]``).
    """
    who = f"{estimator} " if estimator else ""
    if y is None:
        raise ValueError(f"{who or 'this estimator '}requires y to be passed, but the target y is None")
    y_arr = np.asarray(y)
    if y_arr.ndim == 2 and y_arr.shape[1] == 1:
        warnings.warn("A column-vector y was passed when a 1d array was expected; it is used "
                      "as y.ravel()", DataConversionWarning, stacklevel=3)
        y_arr = y_arr.ravel()
    if y_arr.ndim == 2:
        _check_target_type(y_arr)
    if y_arr.ndim != 1:
        raise ValueError(f"y must be 1-D with one label per bag; got shape {y_arr.shape}")
    if y_arr.shape[0] != n_bags:
        raise ValueError(f"y has {y_arr.shape[0]} labels but X has {n_bags} bags; "
                         "give exactly one label per bag")
    if y_arr.dtype.kind == "f" and np.isnan(y_arr).any():
        raise ValueError("y contains NaN; every bag needs a label")
    if y_arr.dtype.kind == "O" and any(v is None for v in y_arr):
        raise ValueError("y contains None; every bag needs a label")
    if y_arr.dtype.kind in "fc" or y_arr.dtype.kind == "O":
        _check_target_type(y_arr)
    try:
        classes, y_enc = np.unique(y_arr, return_inverse=True)
    except TypeError as exc:
        raise TypeError(f"y labels must be of one sortable type: {exc}") from None
    y_enc = y_enc.ravel().astype(np.intp, copy=False)
    if classes.shape[0] < 2:
        raise ValueError(f"y has one class only ({shown(classes[0])}); {who}needs bags of two classes")
    if binary and classes.shape[0] > 2:
        raise ValueError(f"Only binary classification is supported: {who}supports two classes only; "
                         f"y has {classes.shape[0]}: {classes.tolist()[:10]}")
    if positive_class is not None and classes.shape[0] != 2:
        raise ValueError(f"positive_class applies to two classes only; y has {classes.shape[0]}: "
                         f"{classes.tolist()[:10]}")
    if require_positive is None:
        require_positive = binary
    if classes.shape[0] == 2 and (require_positive or positive_class is not None):
        pos = positive_index(classes, positive_class, estimator=estimator)
        if binary and pos == 0:
            y_enc = 1 - y_enc
    return classes, y_enc


def check_bags_y(X, y, *, binary=False, positive_class=None, require_positive=None,
                 allow_nan=False, estimator=None, accept_sparse=False, accept_float32=False):
    """Validate training bags and labels together.

    Returns
    -------
    bags : Bags
    classes : ndarray
    y_encoded : ndarray of intp
        See :func:`check_bag_labels`.
    """
    bags = check_bags(X, allow_nan=allow_nan, estimator=estimator, accept_sparse=accept_sparse,
                      accept_float32=accept_float32)
    classes, y_enc = check_bag_labels(y, bags.n_bags, binary=binary, positive_class=positive_class,
                                      require_positive=require_positive, estimator=estimator)
    return bags, classes, y_enc


def check_bag_targets(y, n_bags, *, ids=None, estimator=None):
    """Validate real-valued bag targets (regression) and return them as float64.

    Parameters
    ----------
    y : array-like of shape (n_bags,)
        One finite real number per bag. Integers and booleans are read as
        numbers; a column vector is used as ``y.ravel()`` with a
        DataConversionWarning, as scikit-learn's regressors do.
    n_bags : int
        Number of bags the targets must match.
    ids : ndarray of shape (n_bags,) or None, default=None
        The bags' ids, named in errors instead of positions.
    estimator : str, default=None
        Named in the error messages.

    Returns
    -------
    y : ndarray of float64 of shape (n_bags,)
        A new array (the input is never modified).

    Raises
    ------
    ValueError
        No targets, several targets per bag, a count other than `n_bags`,
        non-numeric or complex values, NaN or infinity (naming the first
        such bag).
    """
    who = f"{estimator} " if estimator else ""
    if y is None:
        raise ValueError(f"{who or 'this estimator '}requires y to be passed, but the target y is None")
    if is_sparse(y):
        raise TypeError("y is a scipy sparse matrix; give one real-valued target per bag as a 1-D array")
    y_arr = np.asarray(y)
    if y_arr.ndim == 2 and y_arr.shape[1] == 1:
        warnings.warn("A column-vector y was passed when a 1d array was expected; it is used "
                      "as y.ravel()", DataConversionWarning, stacklevel=3)
        y_arr = y_arr.ravel()
    if y_arr.ndim != 1:
        raise ValueError(f"y must be 1-D with one real-valued target per bag; got shape {y_arr.shape} "
                         f"({who or 'this estimator '}does not fit several targets at once)")
    if y_arr.shape[0] != n_bags:
        raise ValueError(f"y has {y_arr.shape[0]} targets but X has {n_bags} bags; "
                         "give exactly one target per bag")
    if y_arr.dtype.kind == "c":
        raise ValueError("y holds complex values; a regressor needs real-valued targets")
    if y_arr.dtype.kind not in NUMERIC_KINDS:
        try:
            y_arr = y_arr.astype(np.float64)
        except (TypeError, ValueError):
            bad = next(b for b, v in enumerate(y_arr.tolist()) if not _is_number(v))
            where = f"bag {bad}" if ids is None else id_name(ids[bad])
            raise ValueError(f"y holds a non-numeric target ({shown(y_arr[bad])} for {where}); "
                             f"{who or 'a regressor '}needs one real number per bag "
                             "(class labels need a classifier)") from None
    y_arr = np.array(y_arr, dtype=np.float64)
    bad = ~np.isfinite(y_arr)
    if bad.any():
        b = int(np.flatnonzero(bad)[0])
        kind = "NaN" if np.isnan(y_arr[b]) else "infinity"
        where = f"bag {b}" if ids is None else id_name(ids[b])
        raise ValueError(f"Input y contains {kind} (the target of {where}); every bag needs a finite "
                         "real-valued target")
    return y_arr


def _is_number(value):
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def check_int(value, name, minimum=None):
    """Return `value` as int or raise naming the parameter (for kernel arguments)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer; got {shown(value)}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}; got {value}")
    return int(value)


# -- feature names of DataFrame bags ---------------------------------------------

def bag_feature_names(X, name="X"):
    """Column names shared by DataFrame bags, as scikit-learn keeps them.

    Parameters
    ----------
    X : sequence of bags
        Bags that are pandas DataFrames (anything with ``columns``) carry
        feature names, and so does a :class:`~mil.Bags` with
        ``feature_names``; arrays do not.
    name : str, default="X"
        How the input is called in error messages.

    Returns
    -------
    names : ndarray of object or None
        The column names when every bag is a DataFrame with the same string
        columns; None when no bag has columns or the columns are not
        strings (scikit-learn's rule).

    Raises
    ------
    ValueError
        Some bags are DataFrames and others not, or two bags have different
        columns (naming the first such bag).
    TypeError
        Column names mix strings and other types.
    """
    if isinstance(X, Bags):
        return None if X.feature_names is None else np.asarray(X.feature_names, dtype=object)
    if isinstance(X, np.ndarray) or not hasattr(X, "__len__") or hasattr(X, "iloc"):
        return None
    try:
        has_cols = [hasattr(X[i], "columns") for i in range(len(X))]
    except (TypeError, IndexError, KeyError):
        return None
    if not any(has_cols):
        return None
    if not all(has_cols):
        b = has_cols.index(not has_cols[0])
        kinds = ("a DataFrame", "an array") if has_cols[0] else ("an array", "a DataFrame")
        raise ValueError(f"bag {b} of {name} is {kinds[1]} but bag 0 is {kinds[0]}; give every bag "
                         "as a DataFrame with the same columns, or every bag as an array")
    cols = list(X[0].columns)
    for b in range(1, len(X)):
        other = list(X[b].columns)
        if other != cols:
            raise ValueError(f"bag {b} of {name} has the columns {other[:10]} but bag 0 has "
                             f"{cols[:10]}; every bag needs the same columns in the same order")
    types = {type(c).__name__ for c in cols}
    is_str = [isinstance(c, str) for c in cols]
    if all(is_str):
        return np.asarray(cols, dtype=object)
    if any(is_str):
        raise TypeError("Feature names are only supported if all input features have string names, "
                        f"but your input has {sorted(types)} as feature name / column name types. "
                        "Convert them all to strings, e.g. with df.columns.astype(str).")
    return None


def printed_feature_names(estimator, feature_names=None, prefix="x"):
    """Names to print in a fitted model: `feature_names`, else ``feature_names_in_``, else ``x0, x1, ...``.

    Parameters
    ----------
    estimator : fitted estimator
        Its ``n_features_in_`` checks the length of `feature_names`.
    feature_names : sequence of str, default=None
        Overrides the fitted names.
    prefix : str, default="x"
        Default names are `prefix` followed by the column index (0-based).

    Returns
    -------
    names : list of str
    """
    n = getattr(estimator, "n_features_in_", None)
    if feature_names is not None:
        if isinstance(feature_names, str):
            raise TypeError("feature_names must be a sequence of names, one per feature, not a string")
        names = [str(name) for name in feature_names]
        if n is not None and len(names) != n:
            raise ValueError(f"feature_names has {len(names)} names; {type(estimator).__name__} was "
                             f"fitted on {n} features")
        return names
    fitted = getattr(estimator, "feature_names_in_", None)
    if fitted is not None:
        return [str(name) for name in fitted]
    return None if n is None else [f"{prefix}{i}" for i in range(n)]


def set_feature_names(estimator, X):
    """At fit: set or remove ``feature_names_in_`` from DataFrame bags."""
    names = bag_feature_names(X)
    if names is None:
        if hasattr(estimator, "feature_names_in_"):
            del estimator.feature_names_in_
    else:
        estimator.feature_names_in_ = names


def check_feature_names(estimator, X):
    """At predict: compare the bags' column names with ``feature_names_in_``, as scikit-learn does.

    Mismatched names (other names, missing names, another order) raise a
    ValueError; names on one side only warn (UserWarning).
    """
    fitted = getattr(estimator, "feature_names_in_", None)
    names = bag_feature_names(X)
    who = type(estimator).__name__
    if fitted is None and names is None:
        return
    if fitted is None:
        warnings.warn(f"X has feature names, but {who} was fitted without feature names", UserWarning,
                      stacklevel=3)
        return
    if names is None:
        warnings.warn(f"X does not have valid feature names, but {who} was fitted with feature names",
                      UserWarning, stacklevel=3)
        return
    if len(fitted) == len(names) and np.all(fitted == names):
        return
    message = "The feature names should match those that were passed during fit.\n"
    unseen = sorted(set(names) - set(fitted))
    missing = sorted(set(fitted) - set(names))

    def listed(items):
        shown = "".join(f"- {n}\n" for n in items[:5])
        return shown + ("- ...\n" if len(items) > 5 else "")

    if unseen:
        message += "Feature names unseen at fit time:\n" + listed(unseen)
    if missing:
        message += "Feature names seen at fit time, yet now missing:\n" + listed(missing)
    if not unseen and not missing:
        message += "Feature names must be in the same order as they were in fit.\n"
    raise ValueError(message)


# -- bag weights ----------------------------------------------------------------

def bag_sample_weight(sample_weight, y, n_bags, class_weight=None):
    """One weight per bag: `sample_weight` times the weight of the bag's class.

    Parameters
    ----------
    sample_weight : array-like of shape (n_bags,) or None
        Non-negative finite weights, not all zero.
    y : array-like of shape (n_bags,)
        The bag labels (as given to ``fit``).
    n_bags : int
    class_weight : "balanced", dict or None, default=None
        scikit-learn's convention: "balanced" weighs class c by
        ``n_bags / (n_classes * n_bags_c)``; a dict maps labels to weights
        (missing labels weigh 1).

    Returns
    -------
    weight : ndarray of float64 of shape (n_bags,) or None
        None when both `sample_weight` and `class_weight` are None (the
        unweighted path stays exactly as it was).
    """
    if sample_weight is None and class_weight is None:
        return None
    if sample_weight is None:
        weight = np.ones(n_bags)
    else:
        weight = np.asarray(sample_weight, dtype=np.float64)
        if weight.ndim == 0:
            weight = np.full(n_bags, float(weight))
        if weight.shape != (n_bags,):
            raise ValueError(f"sample_weight has shape {weight.shape}; expected ({n_bags},), "
                             "one weight per bag")
        if not np.isfinite(weight).all():
            raise ValueError("sample_weight contains NaN or infinity")
        if (weight < 0).any():
            b = int(np.flatnonzero(weight < 0)[0])
            raise ValueError(f"sample_weight of bag {b} is negative ({weight[b]}); weights must be >= 0")
        weight = weight.copy()
    if class_weight is not None:
        from sklearn.utils.class_weight import compute_sample_weight

        y_arr = np.asarray(y)
        weight *= compute_sample_weight(class_weight, y_arr.ravel() if y_arr.ndim == 2 else y_arr)
    if not weight.sum() > 0:
        raise ValueError("the bag weights sum to zero; at least one bag needs a positive weight")
    return weight

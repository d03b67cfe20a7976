"""Weka's two propositional baselines around any scikit-learn classifier.

Frank and Xu (2003), "Applying propositional learning algorithms to
multi-instance data", turn a multi-instance problem into an ordinary one in
two simple ways, available in Weka as ``SimpleMI`` and ``MIWrapper``:

- :class:`SimpleMIClassifier` summarises each bag by one vector (per-feature
  mean, mid-range, or minima and maxima) and fits the inner classifier on
  one row per bag;
- :class:`MIWrapperClassifier` gives every instance its bag's label, weights
  the instances so that every bag carries the same total weight, fits the
  inner classifier on the instances, and combines a bag's instance
  probabilities (arithmetic or geometric mean, or maximum) into the bag's.

Both are the baselines every multi-instance learner should be measured
against: with a decision tree inside they are already competitive on the
classic benchmark sets (see the "Wrappers" page of the user guide).
"""

from numbers import Integral

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.decomposition import PCA
from sklearn.utils import check_random_state, get_tags
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from mil._tuning import fit_sigmoid, inner_folds
from mil.bags import Bags
from mil.base import BaseBagClassifier, InstanceOutputMixin, keep_params, log_odds
from mil.tree import C45MIClassifier
from mil.utils._docstrings import fill_doc
from mil.utils._seeds import sub_seeds
from mil.utils.validation import check_bags_y, positive_index, set_feature_names, shown
from mil.wrappers._inner import InnerEstimatorMixin, fit_doc, seed_unset, weight_params
from mil.wrappers._summaries import SUMMARIES, bag_summaries

__all__ = ["SimpleMIClassifier", "MIWrapperClassifier", "SingleInstanceClassifier"]

#: Weka's MIWrapper clips instance probabilities to [0.001, 0.999] before
#: the geometric mean, so one confident instance cannot zero a class.
GEOMETRIC_CLIP = 1e-3
#: ``projection="auto"`` projects the instances on this many principal axes when they have more than
#: :data:`AUTO_PROJECTION_FEATURES` features (the shipped sets have at most 230: no projection there).
AUTO_PROJECTION_COMPONENTS = 64
AUTO_PROJECTION_FEATURES = 256
#: ``calibration="auto"`` learns the cut when the training bags hold more than this many instances on
#: average (the shipped sets at most 65: Weka's fixed cut there), as GDBT-MI's ``split="auto"``.
AUTO_CALIBRATION_BAG_SIZE = 100


def _j48_like(**params):
    # C4.5 on one-instance bags with J48's -M 2 (leaves of at least two rows, by weight) and the
    # trees' default leaf smoothing.
    return C45MIClassifier(min_bags_leaf=2, **params)


def _is_bag_classifier(estimator):
    return isinstance(estimator, BaseBagClassifier)


def _rows_as_bags(Z):
    """Every row of a 2-D array as a bag of one instance (a validated `Bags`)."""
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    return Bags(Z, np.arange(Z.shape[0] + 1, dtype=np.intp))


#: The default inner estimator of the two wrappers (``_BaseWrapper._default_estimator``), named.
_J48_DEFAULT_DOC = """\
    ``C45MIClassifier(min_bags_leaf=2, min_split="j48",
    mdl_correction=True, pruning=True)``: C4.5 as Weka's J48
"""


class _BaseWrapper(InnerEstimatorMixin, BaseBagClassifier):
    """Fit/predict plumbing shared by the two wrappers (not for direct use)."""

    @staticmethod
    def _default_estimator():
        return _j48_like(pruning=True, mdl_correction=True, min_split="j48")

    _binary_only = False

    def _validate_fit(self, X, y):
        self._validate_params()
        pc = getattr(self, "positive_class", None)
        # A positive_class is checked against the labels whether or not combine uses it.
        bags, classes, y_enc = check_bags_y(X, y, binary=False, positive_class=pc,
                                            allow_nan=self._allow_nan, estimator=type(self).__name__)
        if classes.shape[0] == 2 and self._positive_class_matters():
            # The shared rule: other labels than 0/1, -1/1, False/True need positive_class.
            positive_index(classes, pc, estimator=type(self).__name__)
        self.classes_ = classes
        self.n_features_in_ = bags.n_features
        set_feature_names(self, X)
        return bags, y_enc

    def _positive_class_matters(self):
        return False  # the instance learner treats the classes alike; see MIWrapperClassifier

    def _check_bag_weight(self, sample_weight, n_bags):
        """Validated bag weights (None stays None); the inner estimator must accept them."""
        if sample_weight is None:
            return None
        self._require_weight_support()
        return _check_sample_weight(sample_weight, np.empty((n_bags, 1)), ensure_non_negative=True)

    def _fit_inner(self, Z, y, weight, seed=None):
        """Clone and fit the inner estimator, with `weight` unless it is None.

        A bag classifier of mil inside gets every row of `Z` as a bag of
        one instance; its ``positive_class``,
        if set, names one of ``classes_`` and is handed on as that class's
        index, the label the inner estimator sees. With `seed` (an int), every
        ``random_state`` of the inner estimator left at None is drawn from it.
        """
        est = clone(self._inner_template())
        if seed is not None:
            seed_unset(est, check_random_state(int(seed)))
        order = getattr(self, "inner_classes_", None)
        rank = np.arange(self.classes_.shape[0]) if order is None else np.argsort(order)
        if _is_bag_classifier(est):
            pc = est.get_params().get("positive_class")
            if pc is not None:
                hits = np.flatnonzero(self.classes_ == pc)
                if hits.size == 0:
                    raise ValueError(f"the inner estimator's positive_class={shown(pc)} is not one of the "
                                     f"labels {self.classes_.tolist()}")
                est.set_params(positive_class=int(rank[hits[0]]))
        y = rank[np.asarray(y, dtype=np.intp)]
        Z = self._inner_input(Z, est)
        if weight is None:
            est.fit(Z, y)
        else:  # a Pipeline gets them at every step that takes them
            est.fit(Z, y, **weight_params(est, weight))
        self.estimator_ = est
        return est

    @staticmethod
    def _inner_input(Z, est):
        """`Z` as the inner estimator takes it: one-instance bags for a mil bag classifier."""
        return _rows_as_bags(Z) if _is_bag_classifier(est) else Z

    def _inner_proba(self, Z):
        """Inner class probabilities, columns = our class indices (one-hot votes without predict_proba)."""
        est = self.estimator_
        k = self.classes_.shape[0]
        cols = self._outer(est.classes_)
        out = np.zeros((Z.shape[0], k))
        Z = self._inner_input(Z, est)
        if hasattr(est, "predict_proba"):
            out[:, cols] = est.predict_proba(Z)
        else:
            out[np.arange(out.shape[0]), self._outer(est.predict(Z))] = 1.0
        return out

    def _outer(self, inner):
        """Indices into ``classes_`` of the inner estimator's labels (see ``inner_classes_``)."""
        inner = np.asarray(inner, dtype=np.intp)
        order = getattr(self, "inner_classes_", None)
        return inner if order is None else order[inner]

    @staticmethod
    def _log_odds(proba):
        with np.errstate(divide="ignore"):
            return np.log(proba[:, 1]) - np.log(proba[:, 0])


def _tie_order(y_enc, weight, n_classes):
    """Class indices in the order the inner estimator sees them: its tie winner first.

    Inner estimators settle an exact tie for their first class (scikit-learn's
    argmax; mil's binary learners, ties negative, on labels 0/1). Ordering the
    classes by decreasing training weight, then by their first training bag,
    makes that tie winner depend on the data, never on how the labels are
    called or sorted.
    """
    y_enc = np.asarray(y_enc, dtype=np.intp)
    w = np.ones(y_enc.shape[0]) if weight is None else np.asarray(weight, dtype=np.float64)
    total = np.bincount(y_enc, weights=w, minlength=n_classes)
    first = np.full(n_classes, y_enc.shape[0], dtype=np.intp)
    np.minimum.at(first, y_enc, np.arange(y_enc.shape[0]))
    return np.lexsort((first, -total)).astype(np.intp)


@fill_doc(j48_default=_J48_DEFAULT_DOC, fit_parameters=fit_doc(
    y="Two or more classes; the inner estimator sees them as\n0 .. n_classes - 1 (see ``inner_classes_``).",
    sample_weight="Bag weights, passed to the inner estimator (which must accept\nthem)."))
class SimpleMIClassifier(_BaseWrapper):
    """Weka's SimpleMI: a classifier on one summary vector per bag.

    Each bag becomes one row of per-feature summaries (its mean, mid-range,
    or minima and maxima); `estimator` is fitted on those rows with the bag
    labels, and predicts a bag from its summary (Frank and Xu 2003).

    Parameters
    ----------
    estimator : scikit-learn classifier or mil bag classifier, default=None
        Cloned and fitted on the summaries. None is
        [j48 default]
        ``-C 0.25 -M 2`` (its least child size of a split, MDL correction
        and pessimistic pruning), leaf probabilities smoothed as C4.5-MI's
        default (``smoothing=8``). 5 x 10-fold on the five shipped sets:
        mean accuracy 73.8 against 72.8 without J48's split size and MDL
        correction, log loss below the prior on all five (see
        :doc:`/results/boosting_wrappers`). A bag classifier of mil (e.g.
        :class:`mil.tree.C45MIClassifier`) gets every summary as a bag of
        one instance: with one instance per bag C4.5-MI is C4.5 (gain
        ratio) with smoothed leaf probabilities, the closest tree here to
        Weka's J48. To put a bag classifier inside a scikit-learn
        meta-estimator first (e.g. ``CalibratedClassifierCV``), wrap it in
        :class:`SingleInstanceClassifier`.
    summary : {"mean", "midrange", "minmax", "meanminmax"}, default="mean"
        The bag summary, per feature: the mean (Weka ``-M 1``, its default),
        the mid-range (min + max) / 2 (``-M 2``, "geometric centre" in Weka),
        the minimum and the maximum (``-M 3``: 2 d columns, minima first),
        or mean, minimum and maximum (3 d columns; not in Weka). NaN values
        are ignored.

    Attributes
    ----------
    estimator_ : classifier
        The fitted inner estimator. Its classes are 0 .. n_classes - 1:
        its class k is ``classes_[inner_classes_[k]]``.
    inner_classes_ : ndarray of shape (n_classes,)
        The order in which the inner estimator sees the classes: by
        decreasing training weight, then by first training bag. An exact
        tie of the inner estimator goes to its first class, so a tie goes
        to the heavier class whatever the labels are called (see
        :doc:`/user_guide/labels_and_ties`).
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
        Features per instance (the inner estimator sees more with
        ``"minmax"`` and ``"meanminmax"``).

    See Also
    --------
    MIWrapperClassifier : The inner classifier on the instances instead.
    SimpleMIRegressor : The same for real-valued targets.

    [frank2003]

    [toy examples]
    >>> clf = SimpleMIClassifier(LogisticRegression(), summary="minmax").fit(X, y)
    >>> clf.estimator_.coef_.shape
    (1, 8)
    """

    _example_imports = ("from sklearn.linear_model import LogisticRegression",)
    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "summary": [StrOptions(set(SUMMARIES))],
    }

    def __init__(self, estimator=None, summary="mean"):
        self.estimator = estimator
        self.summary = summary

    def fit(self, X, y, sample_weight=None):
        """Fit the inner estimator on the bag summaries.

        [fit parameters]
        """
        bags, y_enc = self._validate_fit(X, y)
        weight = self._check_bag_weight(sample_weight, bags.n_bags)
        self.inner_classes_ = _tie_order(y_enc, weight, self.classes_.shape[0])
        self._fit_inner(bag_summaries(bags, self.summary), y_enc, weight)
        return self

    def _summaries(self, X):
        return bag_summaries(self._validate_predict(X), self.summary)

    def predict(self, X):
        """Predict each bag's label from its summary.

        [fitted bags]

        Returns
        -------
        y : ndarray of shape (n_bags,)
            The inner estimator's prediction, as labels from ``classes_``.
        """
        Z = self._summaries(X)  # validates first: NotFittedError before fit
        Z = self._inner_input(Z, self.estimator_)
        return self.classes_[self._outer(self.estimator_.predict(Z))]

    def predict_proba(self, X):
        """Predict class probabilities: the inner estimator's (one-hot votes without ``predict_proba``).

        [fitted bags]

        Returns
        -------
        proba : ndarray of shape (n_bags, n_classes)
            Columns follow ``classes_``.
        """
        return self._inner_proba(self._summaries(X))

    def decision_function(self, X):
        """Compute the inner estimator's decision function, else log-probabilities.

        [fitted bags]

        Returns
        -------
        scores : ndarray of shape (n_bags,) or (n_bags, n_classes)
            For two classes, the score of ``classes_[1]`` (the log-odds when
            the inner estimator has no decision function).
        """
        check_is_fitted(self, "estimator_")
        Z = self._summaries(X)
        if hasattr(self.estimator_, "decision_function"):
            inner = self.estimator_.decision_function(self._inner_input(Z, self.estimator_))
            order = getattr(self, "inner_classes_", None)  # None: fitted before the tie order
            if order is None:
                return inner
            if np.ndim(inner) == 1:  # the score of the inner class 1
                return inner if order[1] == 1 else -inner
            out = np.empty_like(inner)
            out[:, order] = inner
            return out
        proba = self._inner_proba(Z)
        if proba.shape[1] == 2:
            return self._log_odds(proba)
        with np.errstate(divide="ignore"):
            return np.log(proba)


@fill_doc(j48_default=_J48_DEFAULT_DOC, fit_parameters=fit_doc(
    y="Two or more classes; every instance takes its bag's label.",
    sample_weight="Bag weights; they multiply the instance weights of `weighting`."))
class MIWrapperClassifier(InstanceOutputMixin, _BaseWrapper):
    """Weka's MIWrapper: a classifier on the instances, bag probabilities combined.

    Every instance inherits its bag's label and a weight that gives every
    bag the same total weight; `estimator` is fitted on the instances. A
    bag's class probabilities combine its instances' (Frank and Xu 2003).

    Parameters
    ----------
    estimator : scikit-learn classifier or mil bag classifier, default=None
        Cloned and fitted on the instances. None is
        [j48 default]
        ``-C 0.25 -M 2`` on the instance weights (J48's least child size
        of a split, 0.1 x node weight / 2 between 2 and 25; its MDL
        correction of numeric gains; pessimistic pruning), leaf
        probabilities on the weights smoothed as C4.5-MI's default
        (``smoothing=8``). 5 x 10-fold on the five shipped sets: mean
        accuracy 77.4 against 76.2 for the unpruned C4.5 with a constant
        ``-M 2``, log loss below the prior on all five (see
        :doc:`/results/boosting_wrappers`). A bag classifier of mil gets every instance as a
        bag of one instance, its instance weight as that bag's
        ``sample_weight`` (:class:`mil.tree.C45MIClassifier` inside: C4.5 on
        the weighted instances, leaf probabilities on the weights).
        Without ``predict_proba`` an instance votes for its predicted class
        (probability 1). A Pipeline gets the instance weights at every step
        whose ``fit`` takes ``sample_weight`` (its last step must).
    combine : {"geometric", "arithmetic", "max"}, default="geometric"
        How a bag's probabilities combine its instances' (Weka's ``-P``):
        the arithmetic mean per class (``-P 1``); the geometric mean per
        class of the probabilities clipped to [0.001, 0.999], normalised
        (``-P 2``, Weka's default); or, for two classes, the positive class
        gets the largest positive probability among the instances and the
        negative class the rest (``-P 3``), the multi-instance assumption
        (with more classes, the per-class maxima normalised).
    weighting : {"bag", "inverse_size", "uniform"}, default="bag"
        Instance weights (Weka's ``-A``): ``"bag"`` gives the instances of a
        bag of n_b instances weight N / (B n_b), N instances and B bags in
        all, so every bag weighs the average bag size and the weights sum to
        N (``-A 3``, Weka's default); ``"inverse_size"`` gives 1 / n_b
        (every bag weighs 1, ``-A 2``); ``"uniform"`` gives 1 (``-A 1``: large
        bags weigh more). Bag weights passed to :meth:`fit` multiply them.
        Weights other than uniform need an inner estimator whose ``fit``
        accepts ``sample_weight``.
    positive_class : label or None, default=None
        For ``combine="max"`` with two classes: the class whose probability
        is the maximum over the instances. None is the larger label for
        0/1, -1/1 and False/True; other labels must name it (``fit`` raises).
    calibration : {None, "sigmoid", "auto"}, default=None
        None: a bag's probabilities are the combined ones, and the bag
        goes to the class of the larger (Weka). ``"sigmoid"`` (two classes):
        the combined log-odds s of a bag become ``sigmoid(a s + b)``, with
        a and b fitted by Platt's method on out-of-fold bag scores (`cv`
        folds over the training bags, each fold's model fitted on the other
        folds): the cut between the classes is learned, not fixed at 1/2.
        It matters where few instances of a positive bag carry its label
        (2-10 % witnesses): every bag's combined probability then sits near
        the share of positive instances, on either side of 1/2, however
        well the bags are ranked. Costs `cv` more fits on a share
        (cv - 1) / cv of the bags. ``"auto"``: ``"sigmoid"`` for two classes
        when the training bags hold more than ``AUTO_CALIBRATION_BAG_SIZE``
        (100) instances on average, None otherwise (more classes, and every
        shipped set: at most 65 on average, where the model is Weka's).
    cv : int, cross-validation splitter or iterable, default=3
        Folds of the out-of-fold scores for ``calibration="sigmoid"``: an
        int k is k stratified, shuffled folds (at most the smallest class's
        bag count); a splitter or (train, test) pairs are used as given.
    projection : None, int or "auto", default=None
        None: the inner estimator sees the instances as they are. An int k:
        the instances are first projected on the k leading principal axes
        of the training instances (scikit-learn's ``PCA``: centred, not
        whitened; k at most the number of features and of training
        instances), at fit and at predict; each fold of
        ``calibration="sigmoid"`` learns its own. ``"auto"``:
        ``AUTO_PROJECTION_COMPONENTS`` (64) axes when the bags have more
        than ``AUTO_PROJECTION_FEATURES`` (256) features, none otherwise
        (every shipped set has at most 230). It is meant for embeddings of
        hundreds of features from a pretrained network, on which an inner
        estimator's cost grows with the features: 150 bags of 500-1,500
        instances x 768 features take ``HistGradientBoostingClassifier``
        past 600 s of CPU; on their 64 principal axes, with three more
        fits for ``calibration="auto"``, 208-225 s (see
        :doc:`/results/foundation`). The instances must have no NaN.
    random_state : int, RandomState instance or None, default=None
        Seeds the folds' shuffle for ``calibration="sigmoid"``, the
        principal axes' solver (`projection`) where it is randomised, and
        every ``random_state`` of the inner estimator left at None (as
        scikit-learn's ensembles seed theirs): three independent seeds
        drawn from it. ``HistGradientBoostingClassifier``, for one, draws
        its early-stopping split above 10,000 instances.

    Attributes
    ----------
    estimator_ : classifier
        The fitted inner estimator (its classes are 0 .. n_classes - 1,
        indices into ``classes_``).
    calibration_ : tuple of (float, float) or None
        The (a, b) of ``calibration="sigmoid"`` (on the positive class's
        log-odds); None without calibration (or with fewer than two folds).
    projection_ : sklearn.decomposition.PCA or None
        The fitted projection of `projection` (None without one); the inner
        estimator's features are its components.
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int

    See Also
    --------
    SimpleMIClassifier : The inner classifier on one summary per bag.
    MIWrapperRegressor : The same for real-valued targets.

    [frank2003]

    [toy examples]
    >>> clf = MIWrapperClassifier(RandomForestClassifier(n_estimators=20, random_state=0),
    ...                           combine="max").fit(X, y)
    >>> clf.predict_proba(X).shape
    (40, 2)
    """

    _example_imports = ("from sklearn.ensemble import RandomForestClassifier",)
    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "combine": [StrOptions({"arithmetic", "geometric", "max"})],
        "weighting": [StrOptions({"bag", "inverse_size", "uniform"})],
        "positive_class": "no_validation",
        "calibration": [StrOptions({"sigmoid", "auto"}), None],
        "cv": ["cv_object"],
        "projection": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"}), None],
        "random_state": ["random_state"],
    }

    def _positive_class_matters(self):
        return self.combine == "max"  # the positive class takes the largest instance probability

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = self.calibration != "sigmoid"
        return tags

    def __init__(self, estimator=None, combine="geometric", weighting="bag", positive_class=None, calibration=None,
                 cv=3, projection=None, random_state=None):
        keep_params(self, locals())

    def fit(self, X, y, sample_weight=None):
        """Fit the inner estimator on the instances, labelled by their bags.

        [fit parameters]
        """
        bags, y_enc = self._validate_fit(X, y)
        bag_weight = self._check_bag_weight(sample_weight, bags.n_bags)
        if self.calibration == "sigmoid" and self.classes_.shape[0] != 2:
            raise ValueError(f"Only binary classification is supported with calibration={self.calibration!r}: "
                             f"it fits one cut between two classes; y has {self.classes_.shape[0]}")
        # Independent seeds for the folds, the principal axes and the inner estimator (None: each
        # draws afresh).
        fold_seed = projection_seed = inner_seed = None
        if self.random_state is not None:
            fold_seed, projection_seed, inner_seed = sub_seeds(self.random_state, 3)
        self.calibration_ = None
        if self._calibrates(bags):
            self.calibration_ = self._out_of_fold_sigmoid(bags, y_enc, bag_weight, fold_seed)
        self.projection_ = self._fit_projection(bags, projection_seed)
        self._fit_inner(self._projected(bags.instances), y_enc[bags.instance_bag],
                        self._instance_weights(bags, bag_weight), inner_seed)
        return self

    def _calibrates(self, bags):
        """Whether the cut is learned (`calibration`, resolved for "auto" by the classes and the bag size)."""
        if self.calibration == "auto":
            return (self.classes_.shape[0] == 2
                    and bags.n_instances > AUTO_CALIBRATION_BAG_SIZE * bags.n_bags)
        return self.calibration is not None

    def _fit_projection(self, bags, seed):
        """The PCA of `projection` fitted on the training instances (its solver seeded by `seed`), or None."""
        k = self.projection
        if k == "auto":
            k = AUTO_PROJECTION_COMPONENTS if bags.n_features > AUTO_PROJECTION_FEATURES else None
        if k is None:
            return None
        k = min(k, bags.n_features, bags.n_instances)
        return PCA(n_components=k, random_state=seed).fit(bags.instances)

    def _projected(self, Z):
        """Instances `Z` as the inner estimator sees them (projected with a `projection`)."""
        projection = getattr(self, "projection_", None)  # None: fitted before the projection existed
        return Z if projection is None else projection.transform(Z)

    def _out_of_fold_sigmoid(self, bags, y_enc, bag_weight, seed):
        """Platt's (a, b) on the combined log-odds of the positive class of each training bag, from a
        model that did not see it (the folds drawn from `seed`).

        Fitted on the positive class's scores and labels whichever index it
        has in ``classes_``, so that naming the other class positive gives
        the same numbers.
        """
        folds = inner_folds(self.cv, y_enc, random_state=seed)
        if not folds:
            return None
        pos = self._pos_index
        scores = np.zeros(bags.n_bags)
        seen = np.zeros(bags.n_bags, dtype=bool)
        plain = clone(self).set_params(calibration=None)
        labels = self.classes_[y_enc]
        for train, test in folds:
            w = None if bag_weight is None else bag_weight[train]
            model = clone(plain).fit(bags.subset(train), labels[train], sample_weight=w)
            scores[test] = log_odds(model._bag_proba(bags.subset(test), calibrated=False)[:, pos])
            seen[test] = True
        w = None if bag_weight is None else bag_weight[seen]
        return fit_sigmoid(scores[seen], (y_enc[seen] == pos).astype(np.intp), w, intercept=True)

    def _calibrated_score(self, proba):
        """``a s + b`` of the learned cut, s the log-odds of the positive class in `proba`."""
        a, b = self.calibration_
        return a * log_odds(proba[:, self._pos_index]) + b

    def _bag_proba(self, X, calibrated=True):
        check_is_fitted(self, "estimator_")
        bags = self._validate_predict(X)
        proba = self._combined(bags)
        if calibrated and getattr(self, "calibration_", None) is not None:
            proba = self._proba_from_positive(expit(self._calibrated_score(proba)))
        return proba

    def _combined(self, bags):
        """The bags' class probabilities combined from their instances' (see `combine`)."""
        P = self._inner_proba(self._projected(bags.instances))
        starts, sizes = bags.offsets[:-1], bags.sizes[:, None]
        if self.combine == "arithmetic":
            return np.add.reduceat(P, starts, axis=0) / sizes
        if self.combine == "geometric":
            logs = np.log(np.clip(P, GEOMETRIC_CLIP, 1.0 - GEOMETRIC_CLIP))
            G = np.exp(np.add.reduceat(logs, starts, axis=0) / sizes)
            return G / G.sum(axis=1, keepdims=True)
        M = np.maximum.reduceat(P, starts, axis=0)
        if M.shape[1] == 2:
            pos = self._pos_index
            M[:, 1 - pos] = 1.0 - M[:, pos]
            return M
        total = M.sum(axis=1, keepdims=True)
        return M / total

    def predict_proba(self, X):
        """Predict bag probabilities combined from the instances' (see `combine`).

        [fitted bags]

        Returns
        -------
        proba : ndarray of shape (n_bags, n_classes)
            Columns follow ``classes_``; rows sum to 1.
        """
        return self._bag_proba(X)

    def decision_function(self, X):
        """Compute the log-odds of ``classes_[1]`` (two classes) or the log-probabilities.

        [fitted bags]

        Returns
        -------
        scores : ndarray of shape (n_bags,) or (n_bags, n_classes)
            From ``predict_proba``; for two classes, positive favours
            ``classes_[1]``. With a learned cut (``calibration_``), the
            a s + b whose sigmoid is the probability, finite where the
            probability rounds to 0 or 1.
        """
        if getattr(self, "calibration_", None) is not None:
            score = self._calibrated_score(self._bag_proba(X, calibrated=False))
            return score if self._pos_index == 1 else -score
        proba = self._bag_proba(X)
        if proba.shape[1] == 2:
            return self._log_odds(proba)
        with np.errstate(divide="ignore"):
            return np.log(proba)


def _on_rows(method, summary, returns):
    """A method of :class:`SingleInstanceClassifier`: the fitted estimator's `method` on the rows of
    ``X`` as one-instance bags, documented by `summary` and `returns` (its Returns section's body)."""
    def on_rows(self, X):
        check_is_fitted(self, "estimator_")
        return getattr(self.estimator_, method)(self._bags(X, reset=False))

    on_rows.__name__ = method
    on_rows.__qualname__ = f"SingleInstanceClassifier.{method}"
    on_rows.__doc__ = f"""{summary}

        [rows]

        Returns
        -------
{returns}"""
    return on_rows


@fill_doc(rows="""\
    Parameters
    ----------
    X : array-like of shape (n_rows, n_features)
        The rows, each a bag of one instance.
""")
class SingleInstanceClassifier(ClassifierMixin, MetaEstimatorMixin, BaseEstimator):
    """A bag classifier of mil as an ordinary classifier of rows.

    Every row of a 2-D ``X`` is handed to `estimator` as a bag of one
    instance. With one instance per bag the multi-instance trees are the
    ordinary trees on the rows (a bag is positive iff its only instance is):
    ``SingleInstanceClassifier(C45MIClassifier(smoothing=1.0))`` is C4.5 with
    Laplace leaf probabilities, usable wherever scikit-learn expects a classifier,
    e.g. inside ``CalibratedClassifierCV`` inside :class:`SimpleMIClassifier`
    (the wrappers take a bag classifier directly too; this adapter is for
    the meta-estimators in between).

    Parameters
    ----------
    estimator : mil bag classifier
        Cloned and fitted on the rows as one-instance bags.

    Attributes
    ----------
    estimator_ : mil bag classifier
        The fitted clone.
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int

    See Also
    --------
    SimpleMIClassifier : Takes a bag classifier as its inner estimator directly.

    Examples
    --------
    >>> import numpy as np
    >>> from mil.tree import C45MIClassifier
    >>> from mil.wrappers import SingleInstanceClassifier
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> clf = SingleInstanceClassifier(C45MIClassifier(min_bags_leaf=1, smoothing=1.0)).fit(X, [0, 0, 1, 1])
    >>> clf.predict_proba([[3.5]])  # Laplace: (2 + 1) / (2 + 2)
    array([[0.25, 0.75]])
    """

    _parameter_constraints = {"estimator": [HasMethods(["fit", "predict"])]}

    def __init__(self, estimator):
        self.estimator = estimator

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = get_tags(self.estimator).input_tags.allow_nan
        return tags

    def _bags(self, X, reset):
        X = validate_data(self, X, reset=reset,
                          ensure_all_finite="allow-nan" if get_tags(self).input_tags.allow_nan else True)
        return _rows_as_bags(X)

    def fit(self, X, y, sample_weight=None):
        """Fit a clone of `estimator` on the rows of `X` as one-instance bags.

        [rows]
        y : array-like of shape (n_rows,)
            One label per row.
        sample_weight : array-like of shape (n_rows,), default=None
            Passed to the estimator's ``fit`` (one weight per bag = row).

        Returns
        -------
        self : SingleInstanceClassifier
            The fitted adapter.
        """
        self._validate_params()
        bags = self._bags(X, reset=True)
        est = clone(self.estimator)
        if sample_weight is None:
            est.fit(bags, y)
        else:
            est.fit(bags, y, sample_weight=sample_weight)
        self.estimator_ = est
        self.classes_ = est.classes_
        return self

    predict = _on_rows("predict", "Predict the estimator's label for each row.", """\
        y : ndarray of shape (n_rows,)
            Labels from ``classes_``.
        """)
    predict_proba = _on_rows("predict_proba", "Predict the estimator's class probabilities for each row.", """\
        proba : ndarray of shape (n_rows, n_classes)
            Columns follow ``classes_``.
        """)
    decision_function = _on_rows("decision_function", "Compute the estimator's decision function for each row.", """\
        scores : ndarray of shape (n_rows,) or (n_rows, n_classes)
            The estimator's ``decision_function`` of the one-instance bags.
        """)

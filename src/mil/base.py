"""Shared estimator machinery: fit/predict validation and label bookkeeping.

Every classifier in mil subclasses :class:`BaseBagClassifier` and every
regressor :class:`BaseBagRegressor`, so bag, label and target validation,
``classes_``, ``n_features_in_``, feature names, bag weights (a bag of
weight 0 is exactly an absent bag), the positive-class rule, the mapping
from an internal 0/1 positive flag back to the user's labels and the tie
rule live in one place.

The positive class (:func:`mil.utils.validation.positive_index`): the
labels {0, 1}, {-1, 1} and {False, True} make the larger one positive; any
other pair of labels needs ``positive_class``, else ``fit`` raises.

The tie rule: ``predict`` is ``classes_[argmax(predict_proba)]`` for every
learner. A learner that settles a tie its own way (positive iff the
positive score beats the negative one, "ties negative"; the nearest
neighbour's class) writes that choice into ``predict_proba``, so the
argmax, the sign of ``decision_function`` and ``predict`` always agree
(see docs/user_guide/labels_and_ties.rst).
"""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from mil.utils._docstrings import fill_doc, register
from mil.utils.validation import (bag_sample_weight, check_bag_targets, check_bags, check_bags_y,
                                  check_feature_names, implicit_positive, positive_index, set_feature_names)

__all__ = ["BaseBagClassifier", "BaseBagRegressor", "InstanceOutputMixin", "InstancePredictionMixin",
           "keep_params", "split_by_bag"]

#: Instances scored at a time as bags of their own by the generic instance outputs (bounds the
#: memory of a learner's representation of them: a bag encoding holds thousands of values).
SINGLETON_BLOCK = 2048


def keep_params(estimator, arguments):
    """Store each constructor argument as the attribute of the same name.

    scikit-learn's rule for ``__init__``: keep the arguments unchanged and
    do nothing else (validation happens in ``fit``). An estimator's
    ``__init__`` calls ``keep_params(self, locals())``; its signature stays
    explicit, so ``get_params`` and ``clone`` see every parameter.

    Parameters
    ----------
    estimator : object
    arguments : dict
        ``locals()`` at the top of ``__init__`` (``self`` and dunder names
        are skipped).
    """
    for name, value in arguments.items():
        if name != "self" and not name.startswith("__"):
            setattr(estimator, name, value)


class BagInputMixin:
    """What every bag estimator shares: input tags, instance subsampling, zero weights, predict checks.

    Mixed into :class:`BaseBagClassifier` and :class:`BaseBagRegressor`
    (before scikit-learn's mixins). Class attributes a subclass may set:

    ``_allow_nan`` (bool)
        Accept NaN features as missing values.
    ``_accept_sparse`` (bool)
        Accept scipy sparse bags; the others raise a TypeError naming
        the estimator.
    ``_fitted_attribute`` (str)
        The attribute whose presence means "fitted" (``classes_`` for the
        classifiers, ``n_features_in_`` for the regressors).
    """

    _allow_nan = False
    _accept_sparse = False
    _fitted_attribute = "n_features_in_"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Inputs are sequences of 2-D bags, not one 2-D array.
        tags.input_tags.two_d_array = False
        tags.input_tags.three_d_array = True
        tags.input_tags.allow_nan = self._allow_nan
        return tags

    def _subsampled(self, bags):
        """`bags` cut to ``max_instances_per_bag`` instances each (seeded by ``random_state``), if set."""
        if getattr(self, "max_instances_per_bag", None) is None:
            return bags
        return bags.subsample_instances(self.max_instances_per_bag, self.random_state)

    @staticmethod
    def _drop_zero_weight(bags, y, weight):
        """The bags of positive weight, their labels and weights: a bag of weight 0 is as if absent."""
        if weight is None or (weight > 0).all():
            return bags, y, weight
        keep = np.flatnonzero(weight > 0)
        return bags.subset(keep), y[keep], weight[keep]

    def _validate_predict(self, X):
        """Check fitted state and validate bags against the fitted feature count."""
        check_is_fitted(self, self._fitted_attribute)
        check_feature_names(self, X)
        return check_bags(X, n_features=self.n_features_in_, allow_nan=self._allow_nan,
                          estimator=type(self).__name__, accept_sparse=self._accept_sparse,
                          accept_float32=self._accepts_float32())

    def _accepts_float32(self):
        """Whether float32 bags reach this learner as they are (else as a float64 copy)."""
        return getattr(self, "splitter", None) == "hist"


@fill_doc
class BaseBagClassifier(BagInputMixin, ClassifierMixin, BaseEstimator):
    """Base class of the bag classifiers (not for direct use).

    Subclasses set these class attributes:

    ``_binary_only`` (bool)
        Raise a clear error for more than two classes (trees, boosting, rules).
    ``_allow_nan`` (bool)
        Accept NaN features as missing values (trees).
    ``_accept_sparse`` (bool)
        Accept scipy sparse bags (the neighbour classifiers); the others
        raise a TypeError naming themselves.
    ``_classes_alike`` (bool)
        The model treats both classes alike, so two labels need no
        ``positive_class`` (:meth:`_positive_class_matters`).

    and may declare a ``positive_class`` hyper-parameter (every learner
    whose model depends on which class is positive).
    """

    _binary_only = True
    _classes_alike = False
    _fitted_attribute = "classes_"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = not self._binary_only
        return tags

    # -- validation -----------------------------------------------------------
    def _positive_class_matters(self):
        """Whether the fitted model depends on which of two classes is positive.

        True for the multi-instance learners (the classes play different
        roles); a learner that treats both classes alike sets the class
        attribute ``_classes_alike`` (or overrides this method) and then
        accepts any two labels without ``positive_class``.
        """
        return not self._classes_alike

    def _validate_fit(self, X, y):
        """Validate parameters, bags and labels; set ``classes_`` and ``n_features_in_``.

        Two classes other than {0, 1}, {-1, 1} or {False, True} need
        ``positive_class`` when :meth:`_positive_class_matters`
        (:func:`~mil.utils.validation.positive_index` raises otherwise).

        Returns
        -------
        bags : Bags
        y_encoded : ndarray of intp
            Class index per bag; for binary learners 1 = positive class.
        """
        self._validate_params()
        bags, classes, y_enc = check_bags_y(
            X, y, binary=self._binary_only, positive_class=getattr(self, "positive_class", None),
            require_positive=self._positive_class_matters(),
            allow_nan=self._allow_nan, estimator=type(self).__name__, accept_sparse=self._accept_sparse,
            accept_float32=self._accepts_float32())
        self.classes_ = classes
        self.n_features_in_ = bags.n_features
        set_feature_names(self, X)
        return bags, y_enc

    def _bag_weights(self, sample_weight, y, n_bags):
        """Per-bag weights from `sample_weight` and the ``class_weight`` parameter (None: unweighted)."""
        return bag_sample_weight(sample_weight, y, n_bags, getattr(self, "class_weight", None))

    def _validate_weighted_fit(self, X, y, sample_weight):
        """:meth:`_validate_fit`, then :meth:`_subsampled`, the bag weights and :meth:`_drop_zero_weight`.

        Returns
        -------
        bags, y_encoded, weight
            The kept bags, their class indices and weights (None: unweighted).
        """
        bags, y_enc = self._validate_fit(X, y)
        bags = self._subsampled(bags)
        return self._drop_zero_weight(bags, y_enc, self._bag_weights(sample_weight, y, bags.n_bags))

    # -- binary label bookkeeping --------------------------------------------
    @property
    def _pos_index(self):
        """Index of the positive class in ``classes_`` (two classes)."""
        pc = getattr(self, "positive_class", None)
        if pc is None and not implicit_positive(self.classes_):
            return 1  # a learner for which the positive class changes nothing
        return positive_index(self.classes_, pc)

    def _labels_from_positive(self, is_positive):
        """Map a boolean 'bag is positive' array to labels from ``classes_``."""
        pos = self._pos_index
        return np.where(np.asarray(is_positive, dtype=bool), self.classes_[pos], self.classes_[1 - pos])

    @staticmethod
    def _tie_broken(p_positive, positive):
        """Positive-class probabilities with exact ties moved to the learner's decision.

        Where ``p_positive`` is exactly 1/2 the learner settled a tie by its
        own rule (`positive`, one bool per row). The probability moves by
        2**-53 to that side (the smallest step that keeps ``p`` and ``1 - p``
        exact), so ``argmax(predict_proba)`` and the sign of a log-odds
        ``decision_function`` give the same class as ``predict``, whichever
        class is positive.
        """
        p = np.array(p_positive, dtype=np.float64)
        tie = p == 0.5
        if tie.any():
            step = np.where(np.asarray(positive, dtype=bool)[tie], 2.0 ** -53, -(2.0 ** -53))
            p[tie] = 0.5 + step
        return p

    def _proba_from_positive(self, p_positive, positive=None):
        """Two-column probabilities (columns follow ``classes_``) from positive-class ones.

        Also for instance-level outputs: rows are whatever `p_positive`
        holds. With `positive` (the learner's decision per row), exact ties
        are settled as :meth:`_tie_broken` does.
        """
        p = np.asarray(p_positive, dtype=np.float64)
        if positive is not None:
            p = self._tie_broken(p, positive)
        proba = np.empty((p.shape[0], 2))
        proba[:, self._pos_index] = p
        proba[:, 1 - self._pos_index] = 1.0 - p
        return proba

    def _oriented(self, score):
        """A positive-class score as the score of ``classes_[1]`` (``decision_function``'s sign).

        An exact 0 is a tie, which goes to the negative class: it becomes
        the smallest negative double first, so the sign still agrees with
        ``predict`` when ``classes_[0]`` is the positive class.
        """
        score = np.asarray(score, dtype=np.float64)
        score = np.where(score == 0, -np.finfo(np.float64).smallest_subnormal, score)
        return score if self._pos_index == 1 else -score

    def predict(self, X):
        """Predict the label of each bag: ``classes_[argmax(predict_proba(X))]``.

        Exact ties in ``predict_proba`` do not occur at a decision: each
        learner writes its tie rule into the probabilities (see
        :meth:`_tie_broken`); NumPy's first-maximum rule is the fallback.

        [fitted bags]

        Returns
        -------
        y : ndarray of shape (n_bags,)
            Labels from ``classes_``.
        """
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


class BaseBagRegressor(BagInputMixin, RegressorMixin, BaseEstimator):
    """Base class of the bag regressors (not for direct use).

    A bag regressor predicts one real number per bag. Subclassing this
    class gives it the contract every regressor of mil keeps:

    - ``score`` is R^2 (scikit-learn's ``RegressorMixin``), weighted by
      ``sample_weight`` when given;
    - bags are validated as the classifiers' are
      (:func:`mil.utils.validation.check_bags`: a list of 2-D arrays, a 3-D
      array, or a :class:`~mil.Bags`, also over a memory-mapped float32 or
      float64 instance matrix), targets by
      :func:`mil.utils.validation.check_bag_targets` (one finite real number
      per bag; an error names the problem and the bag);
    - ``n_features_in_`` and, for DataFrame bags or a :class:`~mil.Bags`
      with feature names, ``feature_names_in_`` are set at fit and checked
      at predict;
    - ``sample_weight`` holds one non-negative weight per bag, and a bag of
      weight 0 is exactly an absent bag: it is dropped before anything is
      learned from the bags (scaling, codebooks, inner folds, random draws),
      so the fitted model equals the model fitted without it.

    A subclass writes::

        def fit(self, X, y, sample_weight=None):
            bags, y, weight = self._validate_weighted_fit(X, y, sample_weight)
            ...                   # weight: None, or positive weights only
            return self

        def predict(self, X):
            bags = self._validate_predict(X)
            return ...            # float64 array of shape (n_bags,)

    ``bags`` is a :class:`~mil.Bags` of C-contiguous float64 instances
    (float32 ones are kept as they are only when ``_accepts_float32()`` says
    so), ``y`` a new float64 array. A learner with a ``max_instances_per_bag``
    parameter (and ``random_state``) has its training bags subsampled there.
    Learners that define a prediction for a single instance add
    :class:`InstancePredictionMixin` (``predict_instances``). Class
    attributes as :class:`BagInputMixin` describes (``_allow_nan``,
    ``_accept_sparse``). scikit-learn's checks run on any regressor through
    :func:`mil.utils.estimator_checks.check_bag_regressor`.
    """

    _fitted_attribute = "n_features_in_"

    def _validate_fit(self, X, y):
        """Validate parameters, bags and targets; set ``n_features_in_`` and feature names.

        Returns
        -------
        bags : Bags
        y : ndarray of float64 of shape (n_bags,)
        """
        self._validate_params()
        name = type(self).__name__
        bags = check_bags(X, allow_nan=self._allow_nan, estimator=name, accept_sparse=self._accept_sparse,
                          accept_float32=self._accepts_float32())
        y = check_bag_targets(y, bags.n_bags, ids=bags.ids, estimator=name)
        self.n_features_in_ = bags.n_features
        set_feature_names(self, X)
        return bags, y

    def _validate_weighted_fit(self, X, y, sample_weight):
        """:meth:`_validate_fit`, then the subsampling, the bag weights and the zero-weight rule.

        Returns
        -------
        bags : Bags
            The bags of positive weight.
        y : ndarray of float64
            Their targets.
        weight : ndarray of float64 or None
            Their weights (all positive); None when `sample_weight` is None.
        """
        bags, y = self._validate_fit(X, y)
        bags = self._subsampled(bags)
        return self._drop_zero_weight(bags, y, bag_sample_weight(sample_weight, y, bags.n_bags))


def split_by_bag(values, offsets):
    """Split a per-instance array (bag after bag) into one array per bag.

    Parameters
    ----------
    values : ndarray of shape (n_instances, ...)
        Instance-level outputs in the order of ``Bags.instances``.
    offsets : ndarray of shape (n_bags + 1,)
        The bags' offsets (``Bags.offsets``).

    Returns
    -------
    per_bag : list of ndarray
        ``per_bag[b]`` holds the rows of bag b (views of `values`).

    Examples
    --------
    >>> import numpy as np
    >>> from mil.base import split_by_bag
    >>> [a.tolist() for a in split_by_bag(np.arange(5), np.array([0, 2, 3, 5]))]
    [[0, 1], [2], [3, 4]]
    """
    values = np.asarray(values)
    offsets = np.asarray(offsets)
    if values.shape[0] != offsets[-1]:
        raise ValueError(f"values has {values.shape[0]} rows but the bags hold {offsets[-1]} instances")
    return np.split(values, offsets[1:-1])


def log_odds(proba):
    """log(p / (1 - p)) of probabilities clipped to [1e-12, 1 - 1e-12] (finite at 0 and 1)."""
    p = np.clip(proba, 1e-12, 1 - 1e-12)
    return np.log(p) - np.log1p(-p)


def _instance_inputs_doc(verb):
    """The Parameters section of the instance-level outputs: bags whose instances are `verb`."""
    return f"""    Parameters
    ----------
    X : sequence of 2-D arrays or Bags
        The bags whose instances are {verb}.
    per_bag : bool, default=False
        Return one array per bag instead of one over all instances.
"""


register("instances predicted", _instance_inputs_doc("predicted"))
register("feature names attribute", """\
    feature_names_in_ : ndarray of str
        The features' names, when the training bags had string names.
""")


def _toy_examples_doc(cls):
    """The head of an estimator's Examples on toy bags (targets for a regressor): imports, ``X, y``.

    The class's ``_example_imports`` (lines) come first.
    """
    make = "make_toy_regression_bags" if issubclass(cls, RegressorMixin) else "make_toy_bags"
    package = cls.__module__.rsplit(".", 1)[0]  # the public package of mil.<package>._<module>
    lines = [*getattr(cls, "_example_imports", ()), f"from {package} import {cls.__name__}",
             f"from mil.utils.estimator_checks import {make}", f"X, y = {make}(n_bags=40, random_state=0)"]
    return "    Examples\n    --------\n" + "".join(f"    >>> {line}\n" for line in lines)


register("toy examples", _toy_examples_doc)


def _rng_examples_doc(cls):
    """The head of an estimator's Examples on random bags: imports, ``rng``.

    The class's ``_rng_example_imports`` (lines) follow its own import.
    """
    package = cls.__module__.rsplit(".", 1)[0]
    lines = ["import numpy as np", f"from {package} import {cls.__name__}", *getattr(cls, "_rng_example_imports", ()),
             "rng = np.random.default_rng(0)"]
    return "    Examples\n    --------\n" + "".join(f"    >>> {line}\n" for line in lines)


register("rng examples", _rng_examples_doc)


def _instance_outputs_doc(name, description):
    """The docstring of an instance-level output after its summary: inputs, and `name` described."""
    return f"""    See :class:`~mil.base.InstanceOutputMixin`.

{_instance_inputs_doc("scored")}
    Returns
    -------
    {name} : ndarray of shape (n_instances,) or (n_instances, n_classes), or list of ndarray
{description}"""


@fill_doc
class InstancePredictionMixin:
    """``predict_instances``: the prediction for each instance as a bag of its own.

    For a classifier, the label ``predict`` gives the bag holding that
    instance alone; for a regressor, the value. Rows come bag after bag, in
    the order of ``Bags.from_list(X).instances``; ``per_bag=True`` returns
    one array per bag instead (:func:`split_by_bag`).

    A learner adopts it by listing the mixin before its base class; it may
    override ``_predict_instances(bags)`` (validated :class:`~mil.Bags` in,
    one output per instance out) with a faster or exact computation of the
    same quantity (a regressor whose model is an instance-level regressor
    calls it on the instances directly).
    """

    def _singletons(self, bags):
        """Each instance of validated `bags` as a bag of its own (names kept for the feature check)."""
        from mil.bags import Bags

        names = getattr(self, "feature_names_in_", None)
        offsets = np.arange(bags.n_instances + 1, dtype=np.intp)
        return Bags._trusted(bags.instances, offsets, None, names)

    def _per_singleton(self, method, bags):
        """`method` on every instance of validated `bags` as a bag of its own, ``SINGLETON_BLOCK`` at a time.

        A bag's output does not depend on the bags beside it, so blocks only
        bound the memory of the learner's own representation of the
        singleton bags (a bag encoding of thousands of values each).
        """
        singletons = self._singletons(bags)
        n = singletons.n_bags
        if n <= SINGLETON_BLOCK:
            return method(singletons)
        return np.concatenate([method(singletons[np.arange(a, min(a + SINGLETON_BLOCK, n))])
                               for a in range(0, n, SINGLETON_BLOCK)])

    def _predict_instances(self, bags):
        return self._per_singleton(self.predict, bags)

    def _instance_output(self, X, method, per_bag):
        bags = self._validate_predict(X)
        out = method(bags)
        return split_by_bag(out, bags.offsets) if per_bag else out

    def predict_instances(self, X, *, per_bag=False):
        """Predict each instance as a bag of its own.

        [instances predicted]

        Returns
        -------
        predictions : ndarray of shape (n_instances,) or list of ndarray
            Labels from ``classes_`` (a classifier) or real values (a
            regressor), bag after bag; a list of per-bag arrays with
            `per_bag`.
        """
        return self._instance_output(X, self._predict_instances, per_bag)


@fill_doc(proba_outputs=_instance_outputs_doc("proba", """\
        Two classes: the probability of ``classes_[1]``. More: one
        column per class. Bag after bag; a list of per-bag arrays with
        `per_bag`.
"""), score_outputs=_instance_outputs_doc("scores", """\
        Two classes: larger favours ``classes_[1]`` (the sign of
        ``decision_function``). More: one column per class. Bag after
        bag; a list of per-bag arrays with `per_bag`.
"""))
class InstanceOutputMixin(InstancePredictionMixin):
    """Instance-level outputs with one meaning across the classifiers that have them.

    An instance's output is the learner's output for a bag that holds
    that instance alone:

    ``instance_proba(X)``
        Probability-like, in [0, 1]: ``predict_proba`` of the one-instance
        bag. Two classes: the probability of ``classes_[1]``, shape
        (n_instances,), like ``predict_proba(X)[:, 1]``; more classes:
        shape (n_instances, n_classes), columns following ``classes_``.
    ``instance_scores(X)``
        A real score, larger meaning more ``classes_[1]``:
        ``decision_function`` of the one-instance bag (log-odds for the
        trees, the forest and the wrappers; GDBT-MI's instance score F(x);
        RIPPER-MI's signed confidence). Two classes: shape (n_instances,);
        more: (n_instances, n_classes).
    ``predict_instances(X)``
        The label ``predict`` gives the one-instance bag
        (:class:`InstancePredictionMixin`).

    Rows come bag after bag, in the order of ``Bags.from_list(X).instances``;
    ``per_bag=True`` returns one array per bag instead
    (:func:`split_by_bag`). Under the standard multi-instance assumption
    a bag is positive when one of its instances is, so these are the
    learner's view of which instances make a bag positive.

    A learner adopts it by listing the mixin before its base class; it may
    override ``_instance_proba(bags)``, ``_instance_scores(bags)`` or
    ``_predict_instances(bags)`` (validated :class:`~mil.Bags` in, the flat
    output above out) with a faster or exact computation of the same
    quantity. A learner with a score but no probability (a kernel machine)
    sets ``_instance_proba = None``; ``instance_proba`` then raises
    AttributeError, as scikit-learn's ``predict_proba`` does where it is
    undefined.
    """

    def _instance_proba(self, bags):
        proba = self._per_singleton(self.predict_proba, bags)
        return proba[:, 1] if proba.shape[1] == 2 else proba

    def _instance_scores(self, bags):
        if hasattr(self, "decision_function"):
            return self._per_singleton(self.decision_function, bags)
        p = self._instance_proba(bags)
        return log_odds(p) if p.ndim == 1 else np.log(np.clip(p, 1e-12, 1 - 1e-12))

    def instance_proba(self, X, *, per_bag=False):
        """Compute the probability of each instance as a bag of its own.

        [proba outputs]
        """
        if self._instance_proba is None:
            raise AttributeError(f"{type(self).__name__} has no instance probabilities; "
                                 "use instance_scores")
        return self._instance_output(X, self._instance_proba, per_bag)

    def instance_scores(self, X, *, per_bag=False):
        """Compute the score of each instance as a bag of its own.

        [score outputs]
        """
        return self._instance_output(X, self._instance_scores, per_bag)

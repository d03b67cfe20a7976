"""The tuning engine: the ``fit`` of a learner tuned by inner CV over a representation computed once.

See :mod:`mil._tuning` for the protocol a learner implements.
"""

import warnings

import numpy as np
from sklearn import config_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC
from sklearn.utils import Bunch, check_random_state

from mil._scaling import apply_scaling
from mil._tuning._calibration import sigmoid_proba
from mil._tuning._libsvm import svc_decision
from mil._tuning._scores import SEED_MAX, inner_folds, positive_weight_bags, select
from mil.utils._docstrings import defaults_of, fill_doc, register
from mil.utils.validation import bag_sample_weight

__all__ = ["TunedClassifierMixin", "TunedRegressorMixin", "quiet_fit", "fold_blocks"]


def quiet_fit(model, *args, **kwargs):
    """``model.fit(*args, **kwargs)`` with scikit-learn's ``ConvergenceWarning`` silenced.

    For the fits whose solution is only compared (the inner grid's) or
    whose solver stops by design (mi-SVM's alternations): a stopped
    solution still has a score. The final fit of a tuned learner is not
    silenced.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(*args, **kwargs)


def fold_blocks(M, fold):
    """The blocks of the square bag-by-bag matrix `M` an inner fold's model reads.

    ``M[train, train]`` (the training bags against each other) and
    ``M[test, train]`` (the held-out bags against the training bags), for
    the index arrays ``fold.train`` and ``fold.test``.
    """
    tr, te = fold.train, fold.test
    return M[np.ix_(tr, tr)], M[np.ix_(te, tr)]


def _inner_fit(model, A, y, w):
    """An inner grid point's fit: quiet, and without scikit-learn's checks of what the engine
    built itself (the model's parameters, finite inputs: the refit still checks both)."""
    with config_context(skip_parameter_validation=True, assume_finite=True):
        return quiet_fit(model, A, y, sample_weight=w)


def _decision_values(model, A):
    """``model.decision_function(A)``; for a two-class SVM on a precomputed kernel, the same
    values (to rounding) from its dual coefficients, without the per-call input checks that
    cost more than the product on bag-sized kernels."""
    if isinstance(model, SVC) and model.kernel == "precomputed" and len(model.classes_) == 2:
        return A[:, model.support_] @ model.dual_coef_[0] + model.intercept_[0]
    return model.decision_function(A)


@fill_doc
class _TunedMixin:
    """The engine's ``fit``; see :mod:`mil._tuning` for the hooks (not public)."""

    #: Sub-seeds drawn from ``random_state`` after the inner folds' shuffles, by name.
    _seed_names = ("model",)

    # -- hooks a learner may override -------------------------------------------------
    def _represent(self, bags, target, seeds):
        raise NotImplementedError

    def _grid(self, rep):
        return rep.rows, rep.cols

    def _cut(self, rep, train, test):
        return Bunch(rep=rep, train=train, test=test)

    def _design(self, fold, row):
        raise NotImplementedError

    def _model(self, row, col, seeds, inner):
        raise NotImplementedError

    def _keep(self, rep, fold, row, col, model, selection):
        raise NotImplementedError

    def _release(self, rep, fold):
        """Drop what the refit no longer needs once its design is built (memory)."""

    def _untuned(self, rows, cols):
        return len(rows) // 2, len(cols) // 2

    def _scoring(self):
        return self.scoring

    def _intercept(self):
        return False

    def _scaled(self, X):
        """Validated new bags, scaled as the training bags were (:func:`mil._scaling.fit_scaling`)."""
        bags = self._validate_predict(X)
        return bags if getattr(self, "offset_", None) is None else apply_scaling(bags, self.offset_, self.scale_)

    # -- the engine ---------------------------------------------------------------------
    def _draw_seeds(self):
        """The inner folds' shuffle seeds (one per repeat), then one seed per name of
        ``_seed_names``: independent draws from one generator seeded by ``random_state``."""
        rng = check_random_state(self.random_state)
        fold_seeds = [int(rng.randint(SEED_MAX)) for _ in range(self.cv_repeats)]
        return fold_seeds, Bunch(**{name: int(rng.randint(SEED_MAX)) for name in self._seed_names})

    def fit(self, X, y, sample_weight=None):
        """Fit on training bags, choosing the hyper-parameters by inner cross-validation.

        [fit bags]
        y : array-like of shape (n_bags,)
            One label (classifiers) or target value (regressors) per bag.
        sample_weight : array-like of shape (n_bags,), default=None
            One weight per bag (classifiers: times `class_weight`), passed
            to the model and used in the inner folds' scores and
            calibration. Bags of weight 0 are dropped first (as if absent).

        Returns
        -------
        self : object
            The fitted estimator.
        """
        bags, target, weight, keep, n_total = self._fit_inputs(X, y, sample_weight)
        fold_seeds, seeds = self._draw_seeds()
        rep = self._represent(bags, target, seeds)
        rows, cols = self._grid(rep)
        classify = self._is_classifier
        folds = inner_folds(self.cv, target, keep=keep, n_total=n_total, stratified=classify, seeds=fold_seeds)
        sel = select(folds, (len(rows), len(cols)),
                     lambda train, test: self._fold_outputs(rep, rows, cols, target, weight, seeds, train, test),
                     target, weight, scoring=self._scoring(), intercept=self._intercept(),
                     untuned=self._untuned(rows, cols), calibrate=classify)
        i, j = sel.index
        fold, model = self._refit(rep, rows[i], cols[j], target, weight, seeds)
        self.best_params_ = {k: v for k, v in {**rows[i], **cols[j]}.items() if not k.startswith("_")}
        self.cv_results_ = sel.scores
        if classify:
            self.proba_scale_ = sel.scale
        self._keep(rep, fold, rows[i], cols[j], model, sel)
        return self

    def _fold_outputs(self, rep, rows, cols, target, weight, seeds, train, test):
        """The outputs on the bags `test` of every grid point fitted on the bags `train`:
        shape (n_rows, n_cols, len(test)[, n_classes])."""
        fold = self._cut(rep, train, test)
        w = None if weight is None else weight[train]
        out = None
        for i, row in enumerate(rows):
            A_train, A_test = self._design(fold, row)
            for j, col in enumerate(cols):
                s = self._inner_output(self._model(row, col, seeds, True), A_train, target[train], w, A_test)
                if out is None:
                    out = np.empty((len(rows), len(cols)) + s.shape)
                out[i, j] = s
            del A_train, A_test
        return out

    def _refit(self, rep, row, col, target, weight, seeds):
        """The model at (`row`, `col`) fitted on every training bag, and its fold."""
        everyone = np.arange(target.shape[0])
        fold = self._cut(rep, everyone, everyone[:0])
        A, _ = self._design(fold, row)
        self._release(rep, fold)
        return fold, self._model(row, col, seeds, False).fit(A, target, sample_weight=weight)


@fill_doc
class TunedClassifierMixin(_TunedMixin):
    """A classifier on the tuning engine: its ``fit``, ``decision_function`` and ``predict_proba``.

    Listed before :class:`mil.base.BaseBagClassifier`. The learner defines
    the hooks of :mod:`mil._tuning` and ``_decision(bags)``: its raw
    decision values on validated, scaled bags (two classes: 1-D, > 0 for the
    positive class, already less any fitted cut; more: one column per
    class).
    """

    _is_classifier = True

    def _fit_inputs(self, X, y, sample_weight):
        """Validated bags, the target (two classes: 1 = the positive class; more: the class
        index), the bag weights (None: unweighted), the kept bags' indices and the bag count.
        Bags of weight 0 are dropped (:func:`positive_weight_bags`)."""
        bags, y_enc = self._validate_fit(X, y)
        weight = self._bag_weights(sample_weight, y, bags.n_bags)
        n_total = bags.n_bags
        binary = len(self.classes_) == 2
        if binary and self._binary_only:  # y_enc: 1 = positive class already
            target, index = y_enc, np.where(y_enc == 1, self._pos_index, 1 - self._pos_index)
        elif binary:
            target, index = (y_enc == self._pos_index).astype(np.intp), y_enc
        else:
            target, index = np.asarray(y_enc, dtype=np.intp), y_enc
        keep = positive_weight_bags(weight, index, self.classes_)
        if keep is not None:
            bags, target, weight = bags[keep], target[keep], weight[keep]
        return bags, target, weight, keep, n_total

    @staticmethod
    def _inner_output(model, A_train, y, w, A_test):
        """An inner grid point's decision values on `A_test` after its fit on `A_train`: a
        two-class SVM on a precomputed kernel straight through libsvm (:mod:`mil._tuning._libsvm`,
        the same values), any other model through its quiet ``fit``."""
        s = svc_decision(model, A_train, y, w, A_test)
        return s if s is not None else _decision_values(_inner_fit(model, A_train, y, w), A_test)

    def decision_function(self, X):
        """Decision values of the fitted model.

        [bags to score]

        Returns
        -------
        scores : ndarray of shape (n_bags,) or (n_bags, n_classes)
            Two classes: the score of ``classes_[1]`` (> 0 favours it; an
            exact 0 counts as the negative class). More: one column per
            class (one-vs-rest).
        """
        s = self._decision(self._scaled(X))
        return self._oriented(s) if s.ndim == 1 else s

    def predict_proba(self, X):
        """Class probabilities: ``sigmoid(a f)`` or ``softmax(a F)`` of the decision values.

        The scale ``a = proba_scale_`` was fitted by log loss on the inner
        cross-validation's out-of-fold decision values at the chosen
        hyper-parameters (1 without inner folds), so the argmax is the
        class of the decision value.

        [bags to score]

        Returns
        -------
        proba : ndarray of shape (n_bags, n_classes)
            Columns follow ``classes_``; a decision value of exactly 0 goes
            to the negative class.
        """
        s = self._decision(self._scaled(X))
        p = sigmoid_proba(s, self.proba_scale_)
        return self._proba_from_positive(p, positive=s > 0) if s.ndim == 1 else p


@fill_doc
class TunedRegressorMixin(_TunedMixin):
    """A regressor on the tuning engine: its ``fit`` and ``predict``.

    Listed before :class:`mil.base.BaseBagRegressor`, which supplies
    ``_validate_fit(X, y) -> (bags, y)`` (y as float64) and
    ``_validate_predict(X) -> bags``. The learner defines the hooks of
    :mod:`mil._tuning` and ``_decision(bags)``: its predictions on
    validated, scaled bags.
    """

    _is_classifier = False

    def _fit_inputs(self, X, y, sample_weight):
        """Validated bags, float64 targets, weights, kept bags and bag count (weight-0 bags dropped)."""
        bags, target = self._validate_fit(X, y)
        target = np.asarray(target, dtype=np.float64)
        weight = bag_sample_weight(sample_weight, target, bags.n_bags)
        n_total = bags.n_bags
        keep = positive_weight_bags(weight)
        if keep is not None:
            bags, target, weight = bags[keep], target[keep], weight[keep]
        return bags, target, weight, keep, n_total

    @staticmethod
    def _inner_output(model, A_train, y, w, A_test):
        return _inner_fit(model, A_train, y, w).predict(A_test)

    def predict(self, X):
        """Predict the target value of each bag.

        [bags to predict]

        Returns
        -------
        y : ndarray of shape (n_bags,)
            The predicted values.
        """
        return np.asarray(self._decision(self._scaled(X)), dtype=np.float64)


def _cv_doc(cls):
    cv = defaults_of(cls).get("cv")
    return f"""    cv : int, cross-validation splitter, iterable or None, default={cv}
        Inner folds over the training bags, for the grid and the
        probability scale (:ref:`inner-cv`): an int is that many
        stratified folds shuffled by a seed drawn from `random_state` (at
        most the smallest class count), None is 5 folds as in scikit-learn,
        a splitter or an iterable of (train, test) pairs is used as given;
        ``cv=1`` fits no inner model (the middle of each grid, probability
        scale 1).
    cv_repeats : int, default=1
        Shuffles of an int `cv`, pooled (less noise in the choice,
        proportionally more model fits).
"""


def _classifier_cv_doc(cls):
    scoring = defaults_of(cls).get("scoring")
    return _cv_doc(cls) + f"""    scoring : {{"accuracy", "roc_auc", "neg_log_loss"}}, default="{scoring}"
        What the inner CV maximises, from each grid point's out-of-fold
        decision values (:ref:`inner-cv`).
"""


def _regressor_cv_doc(cls):
    defaults = defaults_of(cls)
    return f"""    cv : int, cross-validation splitter, iterable or None, default={defaults.get("cv")}
        Inner folds over the training bags, for the grid: an int is that
        many shuffled folds (scikit-learn's ``KFold``, seeded by a draw
        from `random_state`; at most the number of bags), None is 5 folds,
        a splitter or an iterable of (train, test) pairs is used as given;
        ``cv=1`` fits no inner model (the middle of each grid).
    cv_repeats : int, default=1
        Shuffles of an int `cv`, pooled.
    scoring : {{"neg_mean_squared_error", "neg_mean_absolute_error", "r2"}}, \
default="{defaults.get("scoring")}"
        What the inner CV maximises, from each grid point's out-of-fold
        predictions (weighted by `sample_weight`).
"""


_ATTRIBUTES_DOC = """    proba_scale_ : float
        The scale ``a`` of ``predict_proba`` (:ref:`inner-cv`).
    n_features_in_ : int
        Number of features of the instances.
"""

register("inner-cv folds", _cv_doc)
register("inner-cv parameters", _classifier_cv_doc)
register("inner-cv regression parameters", _regressor_cv_doc)
register("inner-cv attributes", _ATTRIBUTES_DOC)

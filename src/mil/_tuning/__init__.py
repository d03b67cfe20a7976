"""The tuning engine: inner cross-validation over a representation computed once per ``fit``.

Every learner that chooses hyper-parameters inside ``fit``
(:class:`~mil.embedding.MILESClassifier`, :class:`~mil.embedding.MInDClassifier`,
:class:`~mil.svm.BagKernelSVC`, :class:`~mil.svm.miSVMClassifier`,
:class:`~mil.svm.MISVMClassifier`, and the encoder classifiers
:class:`~mil.embedding.miFVClassifier`, :class:`~mil.embedding.miVLADClassifier`,
:class:`~mil.embedding.KernelMeanClassifier`,
:class:`~mil.embedding.SlicedWassersteinClassifier`), and the regressors
built the same way, inherits its ``fit`` from this package. The learner
says what it computes; the engine owns the folds, the grid, the warnings,
the selection, the calibration, the refit and the fitted attributes.

The protocol
------------
A classifier lists :class:`TunedClassifierMixin` before
:class:`mil.base.BaseBagClassifier`; a regressor lists
:class:`TunedRegressorMixin` before :class:`mil.base.BaseBagRegressor`. Its parameters include ``cv``,
``cv_repeats``, ``scoring`` and ``random_state`` (constraints:
:data:`CONSTRAINTS`, :data:`REGRESSION_CONSTRAINTS`). It defines:

``_represent(bags, target, seeds) -> rep``
    Once per ``fit``, on the validated training bags of positive weight
    and their target (two classes: 1 = positive; a representation may use
    the training labels, as MI-SVM's positive-bag means do, since a fold
    only slices its own training bags' part): everything the grid and the
    folds slice (scaling fitted here; the instance-to-bag minima of MILES,
    the bag dissimilarities of MInD, the kernels of every bandwidth of the
    set-kernel SVMs, the encodings and one distance matrix of the encoder
    classifiers, the instance distances of mi-SVM). ``seeds`` holds one
    independent seed per name of the class attribute ``_seed_names``
    (default ``("model",)``), drawn from `random_state` after the inner
    folds' shuffles.
``_grid(rep) -> (rows, cols)``
    Two lists of dicts: the representation settings (a bandwidth, an
    encoder, a kernel) and the model settings (C, alpha); default
    ``rep.rows, rep.cols`` (a representation that carries its grid). A
    bandwidth relative to a median heuristic is made absolute from `rep`:
    the median over all the training pairs, once per fit (the one
    convention of the package), so every fold and the refit use the same
    value.
``_cut(rep, train, test) -> fold``
    What an inner fold shares between its grid points (default: a Bunch
    of `rep` and the two index arrays, ``fold.rep``, ``fold.train``,
    ``fold.test``). The refit is the fold ``(every bag, none)``.
``_design(fold, row) -> (A_train, A_test)``
    The model's inputs at one representation setting (a kernel slice,
    features, an object the learner's own model reads).
``_model(row, col, seeds, inner) -> model``
    An unfitted model with ``fit(A, y, sample_weight=...)`` and
    ``decision_function(A)`` (classifiers) or ``predict(A)`` (regressors);
    `inner` is True for the inner grid's fits (which may stop earlier).
``_keep(rep, fold, row, col, model, selection)``
    Record the refitted model and what representing new bags needs.
``_decision(bags)``
    Decision values (classifiers) or predictions (regressors) of
    validated new bags, scaled by ``_scaled`` (override ``_scaled`` when the
    representation scales the bags itself).

and optionally ``_release(rep, fold)`` (free memory before the refit's
model is fitted), ``_untuned(rows, cols)`` (the point used without inner
folds; default the middle of each list), ``_scoring()`` and
``_intercept()`` (a Platt intercept moves the cut).

The rules
---------
Zero weights
    Bags of weight 0 are dropped before anything else (scaling,
    representation, folds, the model), so a zero-weight bag is exactly an
    absent bag. A class left without a positively weighted bag is a
    ValueError naming the class.
Seeds
    One generator from `random_state` draws, in this order, one shuffle
    seed per ``cv_repeats`` and one seed per name of ``_seed_names``, so
    the model's seed, a k-means seed and the inner folds are independent
    (scikit-learn's practice), and a fixed `random_state` gives the same
    model on every run.
Inner folds (:func:`inner_folds`)
    ``cv=None`` is scikit-learn's default, 5 folds. An int k is k
    shuffled folds, stratified for classifiers (at most the smallest class
    count) and plain ``KFold`` for regressors (at most the number of
    bags); fewer than 2 (``cv=1``) means no inner fit. A splitter or an
    iterable of (train, test) pairs is used as given over all the bags of
    ``fit``, renumbered among the kept bags. A classifier's folds whose
    training part lacks a class are skipped.
Grid scores (:func:`grid_scores`)
    The grid is an array of shape (n_rows, n_cols), ``cv_results_``. Each
    point is scored from its out-of-fold outputs, pooled over the folds
    (and repeats), weighted by the bags' weights. Classifiers:
    ``"accuracy"`` at the model's cut (0, or the fitted cut with an
    intercept; more than two classes: the argmax), ``"roc_auc"`` (more
    classes: the mean one-vs-rest AUC), ``"neg_log_loss"`` (of the
    probabilities :func:`fit_sigmoid` fits on the values). Regressors:
    ``"neg_mean_squared_error"``, ``"neg_mean_absolute_error"``, ``"r2"``.
Warnings
    The inner grid's fits run with ``ConvergenceWarning`` silenced
    (:func:`quiet_fit`): a stopped solution still has a score. The refit
    warns.
Inner SVMs (:mod:`mil._tuning._libsvm`)
    A two-class ``SVC(kernel="precomputed")`` of the inner grid is fitted
    by the libsvm call ``SVC.fit`` makes, without ``SVC.fit``'s checks of
    the kernel the engine built (the same decision values); any other
    model, and the refit, through its own ``fit``.
Ties (:func:`best_index`)
    The highest score wins; at equal scores the first column (the first C
    of the list: the smallest, in every default grid), then the first row.
Without inner folds
    The ``_untuned`` point, probability scale 1 and cut 0.
Probability scale (classifiers; :func:`fit_sigmoid`)
    ``sigmoid(a f + b)`` (two classes; ``b = 0`` unless ``_intercept()``)
    or ``softmax(a F)`` (more), fitted by weighted log loss on the
    out-of-fold decision values at the chosen point against Platt's
    smoothed targets; ``proba_scale_`` is ``a``.
Fitted attributes
    ``best_params_`` (the chosen row's and column's entries, names without
    a leading underscore), ``cv_results_`` (None without inner folds) and,
    for classifiers, ``proba_scale_``; the learner's ``_keep`` adds its own.

A minimal regressor (ridge regression on bag means, the mean's scale
tuned with alpha)::

    class MeanRidge(TunedRegressorMixin, BaseBagRegressor):
        def _represent(self, bags, target, seeds):
            return np.add.reduceat(bags.instances, bags.offsets[:-1]) / bags.sizes[:, None]

        def _grid(self, rep):
            return [{}], [{"alpha": a} for a in self.alphas]

        def _cut(self, rep, train, test):
            return rep[train], rep[test]

        def _design(self, fold, row):
            return fold

        def _model(self, row, col, seeds, inner):
            return Ridge(alpha=col["alpha"])

        def _keep(self, rep, fold, row, col, model, selection):
            self.model_ = model

        def _decision(self, bags):
            return self.model_.predict(np.add.reduceat(bags.instances, bags.offsets[:-1]) / bags.sizes[:, None])

``tests/test_tuning.py`` holds such a regressor, run through the engine.
"""

from mil._tuning._calibration import fit_sigmoid, sigmoid_proba
from mil._tuning._engine import TunedClassifierMixin, TunedRegressorMixin, fold_blocks, quiet_fit
from mil._tuning._scores import (CONSTRAINTS, CV_CONSTRAINT, DEFAULT_FOLDS, REGRESSION_CONSTRAINTS,
                                 REGRESSION_SCORINGS, REPEATS_CONSTRAINT, SCORING_CONSTRAINT, SCORINGS, SEED_MAX,
                                 best_index, grid_scores, inner_folds, out_of_fold, positive_grid,
                                 positive_weight_bags, select)

__all__ = ["TunedClassifierMixin", "TunedRegressorMixin", "quiet_fit", "fold_blocks", "fit_sigmoid", "sigmoid_proba",
           "CONSTRAINTS", "REGRESSION_CONSTRAINTS", "CV_CONSTRAINT", "REPEATS_CONSTRAINT", "SCORING_CONSTRAINT",
           "SCORINGS", "REGRESSION_SCORINGS", "DEFAULT_FOLDS", "SEED_MAX", "best_index", "grid_scores",
           "inner_folds", "out_of_fold", "positive_grid", "positive_weight_bags", "select"]

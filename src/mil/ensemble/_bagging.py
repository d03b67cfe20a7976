"""What the averaging ensembles share: seeds per tree, bootstrap samples of the bags, the mean of the trees.

The MI random forest and bag-level randomized trees (BLRT) both grow one
tree per seed, each optionally on a bootstrap sample of the bags, and average
their trees' class probabilities; GDBT-MI draws its bag-ratio trees' seeds the
same way.
"""

from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from mil.base import log_odds
from mil.utils._docstrings import fill_doc
from mil.utils._seeds import sub_seeds

__all__ = ["BaggedTreesMixin", "SampledTreesMixin", "bootstrap_counts", "mean_tree_output", "n_drawn"]


def n_drawn(max_samples, n_bags):
    """Bags drawn per tree: all (None), an int, or a fraction of them."""
    if max_samples is None:
        return n_bags
    if isinstance(max_samples, Integral):
        if max_samples > n_bags:
            raise ValueError(f"max_samples={max_samples} is larger than the number of bags ({n_bags})")
        return int(max_samples)
    return max(1, round(max_samples * n_bags))


def bootstrap_counts(seed, n_bags, n_draws):
    """How many times each bag is drawn (with replacement) in a tree's sample."""
    rng = np.random.RandomState(seed)
    return np.bincount(rng.randint(0, n_bags, n_draws), minlength=n_bags)


def mean_tree_output(output, trees, n_jobs):
    """The mean of ``output(tree)`` over the trees, the trees run on threads.

    The outputs are summed in tree order, so `n_jobs` cannot change the result.
    """
    outputs = Parallel(n_jobs=n_jobs, prefer="threads")(delayed(output)(tree) for tree in trees)
    total = np.zeros_like(outputs[0], dtype=np.float64)
    for p in outputs:
        total += p
    return total / len(trees)


#: The parameters every averaging ensemble of mil validates alike.
BAGGING_CONSTRAINTS = {
    "n_estimators": [Interval(Integral, 1, None, closed="left")],
    "max_features": [Interval(Integral, 1, None, closed="left"),
                     Interval(Real, 0.0, 1.0, closed="right"), StrOptions({"sqrt", "log2"}), None],
    "bootstrap": ["boolean"],
    "max_samples": [Interval(Integral, 1, None, closed="left"), Interval(Real, 0.0, 1.0, closed="right"), None],
    "oob_score": ["boolean"],
    "max_depth": [Interval(Integral, 1, None, closed="left"), None],
    "min_bags_leaf": [Interval(Integral, 1, None, closed="left")],
    "class_weight": [StrOptions({"balanced"}), dict, None],
    "random_state": ["random_state"],
    "n_jobs": [Integral, None],
}


class SampledTreesMixin:
    """Seeds, bootstrap samples and importances of an ensemble averaging its trees (classifier or regressor).

    For classes with ``n_estimators``, ``bootstrap``, ``max_samples``,
    ``oob_score`` and ``random_state``.
    """

    def _draw_samples(self, n_bags, rng=None):
        """Seeds and bootstrap counts (None: every bag once) of the trees; sets ``estimators_samples_``.

        The seeds come from `rng`, the fit's generator (None: one from ``random_state``).
        """
        if self.oob_score and not self.bootstrap:
            raise ValueError("oob_score=True needs bootstrap=True (without it no bag is out of bag)")
        # One seed per tree, drawn in tree order (so the number of threads never changes an ensemble).
        seeds = sub_seeds(self.random_state if rng is None else rng, self.n_estimators)
        if self.bootstrap:
            draws = n_drawn(self.max_samples, n_bags)
            counts = [bootstrap_counts(seed, n_bags, draws) for seed in seeds]
        else:
            counts = [None] * self.n_estimators
        self.estimators_samples_ = [np.arange(n_bags) if c is None else np.repeat(np.arange(n_bags), c)
                                    for c in counts]
        return seeds, counts

    def _clear_oob(self):
        """Remove the out-of-bag attributes of an earlier fit (refit without `oob_score`)."""
        for name in ("oob_score_", "oob_decision_function_", "oob_prediction_"):
            if hasattr(self, name):
                delattr(self, name)

    @staticmethod
    def _mean_importances(per_tree):
        """The trees' normalised importances averaged, normalised to sum to one (zeros stay zeros)."""
        total = np.zeros_like(per_tree[0], dtype=np.float64)
        for imp in per_tree:
            total += imp
        s = total.sum()
        return total / s if s > 0 else total


@fill_doc
class BaggedTreesMixin(SampledTreesMixin):
    """:class:`SampledTreesMixin` and the log-odds of a classifier averaging its trees' probabilities.

    Its ``_mean_proba(bags)`` gives the mean of the trees' class
    probabilities on validated bags.
    """

    def _set_oob_attributes(self, proba, ok, y_enc, weight):
        """``oob_decision_function_`` and ``oob_score_`` (accuracy on the bags `ok`, weighted by `weight`)."""
        if proba is None:
            raise ValueError("no bag (of positive weight) was left out of every bootstrap sample: "
                             "oob_score needs more bags or fewer trees")
        self.oob_decision_function_ = proba
        self.oob_score_ = oob_accuracy(proba, y_enc, ok, weight)

    def predict_proba(self, X):
        """Predict class probabilities: the mean over the trees of their class probabilities (see the class).

        [predicted probabilities]
        """
        check_is_fitted(self, "estimators_")
        return self._mean_proba(self._validate_predict(X))

    def decision_function(self, X):
        """Compute the log-odds of the averaged probabilities.

        [bags to score]

        Returns
        -------
        scores : ndarray of shape (n_bags,) or (n_bags, n_classes)
            Two classes: for ``classes_[1]``. More: per class.
        """
        logit = log_odds(self.predict_proba(X))
        return logit[:, 1] if len(self.classes_) == 2 else logit


def oob_accuracy(proba, y_enc, ok, weight):
    """Accuracy of the out-of-bag class probabilities on the bags `ok` (weighted by `weight`, None: equal)."""
    pred = np.argmax(proba[ok], axis=1)
    return float(np.average(pred == y_enc[ok], weights=None if weight is None else weight[ok]))

"""ID3-MI and C4.5-MI classifiers.

ID3-MI: Chevaleyre & Zucker, "Solving multiple-instance and multiple-part
learning problems with decision trees and rule sets. Application to the
mutagenesis problem" (Canadian AI 2001). C4.5-MI: C4.5's gain ratio and
pessimistic pruning (Quinlan, "C4.5: Programs for Machine Learning", 1993)
on the same bag counts.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, check_random_state

from mil._core import kernel
from mil.base import BaseBagClassifier
from mil.tree._builder import build_tree, prune_pessimistic

__all__ = ["ID3MIClassifier", "C45MIClassifier"]


class _BaseMITree(BaseBagClassifier):
    """Shared fit / predict of the multi-instance trees (not for direct use)."""

    _allow_nan = True
    _criterion = None

    _parameter_constraints = {
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "min_bags_leaf": [Interval(Integral, 1, None, closed="left")],
        "growth": [StrOptions({"depth", "best"})],
        "pruning": ["boolean"],
        "confidence": [Interval(Real, 0.0, 0.5, closed="right")],
        "positive_bag_removal": ["boolean"],
        "split_shares": [StrOptions({"parent", "children"})],
        "positive_class": "no_validation",
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
    }

    def fit(self, X, y):
        """Grow (and optionally prune) the tree.

        Parameters
        ----------
        X : sequence of 2-D arrays or Bags
            Training bags; NaN marks a missing value.
        y : array-like of shape (n_bags,)
            Two classes; the positive one is ``classes_[1]`` unless
            `positive_class` says otherwise.

        Returns
        -------
        self
        """
        bags, y_enc = self._validate_fit(X, y)
        rank = np.arange(bags.n_features, dtype=np.intp)
        if self.random_state is not None:
            # Ties between features go to a random (seeded) order instead of the lowest index.
            perm = check_random_state(self.random_state).permutation(bags.n_features)
            rank[perm] = np.arange(bags.n_features)
        tree, _ = build_tree(
            bags.instances, bags.instance_bag, (y_enc == 1).astype(np.uint8),
            criterion=self._criterion, max_depth=self.max_depth,
            min_bags_leaf=self.min_bags_leaf, growth=self.growth,
            remove_positive_bags=self.positive_bag_removal, split_shares=self.split_shares,
            rank=rank, n_jobs=self.n_jobs)
        if self.pruning:
            tree = prune_pessimistic(tree, self.confidence)
        self.tree_ = tree
        gains = np.zeros(bags.n_features)
        internal = tree.feature >= 0
        # Importance: split gains weighted by the bags in the node, normalised.
        np.add.at(gains, tree.feature[internal],
                  tree.gain[internal] * (tree.n_pos_bags + tree.n_neg_bags)[internal])
        gains = np.maximum(gains, 0.0)
        self.feature_importances_ = gains / gains.sum() if gains.sum() > 0 else gains
        return self

    # -- instance level -------------------------------------------------------
    def apply(self, X):
        """Leaf reached by every instance.

        Parameters
        ----------
        X : sequence of 2-D arrays or Bags

        Returns
        -------
        leaves : ndarray of intp, shape (n_instances,)
            For all instances, bag after bag (the order of
            ``Bags.from_list(X).instances``); split per bag with
            ``np.split(leaves, bags.offsets[1:-1])``.
        """
        bags = self._validate_predict(X)
        return self.tree_.apply(bags.instances)

    def instance_proba(self, X):
        """Laplace estimate (pi + 1) / (pi + nu + 2) of the leaf each instance reaches.

        Returns
        -------
        proba : ndarray of float64, shape (n_instances,)
            Probability of ``classes_[1]``, like ``predict_proba(X)[:, 1]``
            (the Laplace estimate when ``classes_[1]`` is the positive
            class, one minus it otherwise); bag after bag, as :meth:`apply`.
        """
        bags = self._validate_predict(X)
        # Oriented like predict_proba[:, 1]: the probability of classes_[1].
        return self._proba_from_positive(self.tree_.laplace()[self.tree_.apply(bags.instances)])[:, 1]

    def predict_instances(self, X):
        """Instance labels: the positive class iff the instance reaches a positive leaf.

        Returns
        -------
        labels : ndarray of shape (n_instances,)
            Labels from ``classes_``, bag after bag, as :meth:`apply`.
        """
        bags = self._validate_predict(X)
        return self._labels_from_positive(self.tree_.positive_leaf[self.tree_.apply(bags.instances)])

    # -- bag level -------------------------------------------------------------
    def _bag_scores(self, X):
        bags = self._validate_predict(X)
        leaves = self.tree_.apply(bags.instances)
        bc = kernel("_bag_counts")
        proba = bc.bag_max(self.tree_.laplace()[leaves], bags.offsets)
        positive = bc.bag_max(self.tree_.positive_leaf[leaves].astype(np.float64), bags.offsets) > 0
        return proba, positive

    def predict_proba(self, X):
        """Bag probabilities: the maximum over the bag's instances of the leaf Laplace estimate.

        Returns
        -------
        proba : ndarray of shape (n_bags, 2)
            Columns follow ``classes_``.
        """
        return self._proba_from_positive(*self._bag_scores(X))

    def decision_function(self, X):
        """Log-odds of the bag probability, for ``classes_[1]``.

        Positive exactly when :meth:`predict` returns ``classes_[1]``.

        Returns
        -------
        scores : ndarray of shape (n_bags,)
        """
        p = self._tie_broken(*self._bag_scores(X))  # a leaf with pi == nu is not positive
        score = np.log(p) - np.log1p(-p)
        return score if self._pos_index == 1 else -score

    def predict(self, X):
        """A bag is positive iff one of its instances reaches a positive leaf (pi > nu).

        Returns
        -------
        y : ndarray of shape (n_bags,)
            Labels from ``classes_``.
        """
        return self._labels_from_positive(self._bag_scores(X)[1])

    def get_depth(self):
        """Depth of the fitted tree (a single leaf has depth 0)."""
        check_is_fitted(self, "tree_")
        return self.tree_.max_depth

    def get_n_leaves(self):
        """Number of leaves of the fitted tree."""
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves


_PARAMS_DOC = """
    Parameters
    ----------
    max_depth : int or None, default=None
        Maximum depth (the root has depth 0); None grows until the other rules stop.
    min_bags_leaf : int, default={min_bags}
        A split is admissible only if each child holds at least this many
        distinct bags (a bag with instances on both sides counts in both).
    growth : {{"depth", "best"}}, default="depth"
        Depth-first growth, or best-first: expand the open node with the
        highest share of positive bags first (as MITI).
    pruning : bool, default={pruning}
        C4.5 pessimistic (error-based) pruning on bag counts after growth: a
        node is a leaf of N = pi + nu bags with min(pi, nu) errors, and a
        subtree is replaced by a leaf when the leaf's upper error bound is at
        most its leaves' sum plus 0.1 (no subtree raising).
    confidence : float in (0, 0.5], default=0.25
        Confidence factor of the pruning (smaller prunes more).
    positive_bag_removal : bool, default=True
        When a leaf holding only positive bags is made, those bags are
        explained: their instances leave every node not yet expanded.
    split_shares : {{"parent", "children"}}, default="parent"
        How Gain_multi weighs a child's Info_multi: by its bag count over the
        parent's (ID3-MI's formula, Chevaleyre & Zucker 2001; a bag with instances on both
        sides counts in both, so the shares can sum above one), or over the
        children's total (the shares sum to one).
    positive_class : label or None, default=None
        The positive class; ``classes_[1]`` when None.
    random_state : int, RandomState or None, default=None
        None breaks ties between equally good features by lowest index; a
        seed breaks them in a random feature order drawn from it.
    n_jobs : int or None, default=None
        Threads sharing out the features of each node's split search (the
        compiled kernel runs without the GIL); None is 1, -1 one per core.
        The tree does not depend on it.

    Attributes
    ----------
    tree_ : mil.tree.Tree
        The fitted tree as flat arrays.
    classes_ : ndarray of shape (2,)
    n_features_in_ : int
    feature_importances_ : ndarray of shape (n_features,)
        Split gains weighted by the node's bag count, normalised to sum to 1.

    Notes
    -----
    Missing values (NaN) are accepted. A feature's cuts are searched with the
    node's NaN instances sent to the left and to the right child, and the
    better choice is kept; when a split saw no NaN in training, NaN goes to the
    child that held more bags. Predictions: a bag is positive iff one of its
    instances reaches a leaf with more positive than negative bags
    (pi > nu); ``predict_proba`` is the largest Laplace estimate
    (pi + 1) / (pi + nu + 2) among the leaves its instances reach.
"""


class ID3MIClassifier(_BaseMITree):
    __doc__ = """ID3-MI multi-instance decision tree (Chevaleyre and Zucker, 2001).

    Splits maximise Gain_multi, the information gain computed on distinct
    positive and negative bags (Chevaleyre & Zucker 2001), with positive-bag removal.
    """ + _PARAMS_DOC.format(min_bags=1, pruning=False) + """
    Examples
    --------
    >>> from mil.tree import ID3MIClassifier
    >>> from mil.utils.estimator_checks import make_toy_bags
    >>> X, y = make_toy_bags(n_bags=40)
    >>> clf = ID3MIClassifier().fit(X, y)
    >>> clf.score(X, y) > 0.9
    True
    """

    _criterion = "gain"

    def __init__(self, *, max_depth=None, min_bags_leaf=1, growth="depth", pruning=False,
                 confidence=0.25, positive_bag_removal=True, split_shares="parent",
                 positive_class=None, random_state=None, n_jobs=None):
        self.max_depth = max_depth
        self.min_bags_leaf = min_bags_leaf
        self.growth = growth
        self.pruning = pruning
        self.confidence = confidence
        self.positive_bag_removal = positive_bag_removal
        self.split_shares = split_shares
        self.positive_class = positive_class
        self.random_state = random_state
        self.n_jobs = n_jobs


class C45MIClassifier(_BaseMITree):
    __doc__ = """C4.5-MI multi-instance decision tree.

    Splits maximise the gain ratio Gain_multi / SplitInfo_multi among the
    features whose gain is at least the average (C4.5's guard), on distinct
    bag counts (Quinlan 1993; Chevaleyre & Zucker 2001); positive-bag removal; optional C4.5 pessimistic
    pruning on bag counts. Pruning is off by default: on the five benchmark
    sets it collapsed the long trees that Gain_multi grows (many leaves of one
    or two bags) and lost 3 to 26 points of accuracy (see the results in the documentation, :doc:`/results/trees_boosting_rules`).
    """ + _PARAMS_DOC.format(min_bags=2, pruning=False) + """
    Examples
    --------
    >>> from mil.tree import C45MIClassifier, export_text
    >>> from mil.utils.estimator_checks import make_toy_bags
    >>> X, y = make_toy_bags(n_bags=40)
    >>> clf = C45MIClassifier().fit(X, y)
    >>> clf.score(X, y) > 0.9
    True
    >>> print(export_text(clf).splitlines()[0])  # doctest: +SKIP
    |--- x0 <= 2.10
    """

    _criterion = "gain_ratio"

    def __init__(self, *, max_depth=None, min_bags_leaf=2, growth="depth", pruning=False,
                 confidence=0.25, positive_bag_removal=True, split_shares="parent",
                 positive_class=None, random_state=None, n_jobs=None):
        self.max_depth = max_depth
        self.min_bags_leaf = min_bags_leaf
        self.growth = growth
        self.pruning = pruning
        self.confidence = confidence
        self.positive_bag_removal = positive_bag_removal
        self.split_shares = split_shares
        self.positive_class = positive_class
        self.random_state = random_state
        self.n_jobs = n_jobs

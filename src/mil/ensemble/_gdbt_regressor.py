"""GDBT-MI for real-valued bag labels: gradient boosting of multi-instance trees on a regression loss.

The boosting loop, the trees and the pooling are the classifier's
(:class:`mil.ensemble.GDBTMIClassifier`); only the loss differs
(:mod:`mil.ensemble._gdbt_losses`: squared error with Newton leaf steps,
absolute error and Huber's loss with weighted-median leaves).
"""

from numbers import Real

from sklearn.utils._param_validation import Interval, StrOptions

from mil.base import BaseBagRegressor, InstancePredictionMixin, keep_params
from mil.ensemble._docs import regression_example
from mil.ensemble._gdbt import _GDBTMIBoosting
from mil.ensemble._gdbt_losses import AbsoluteLoss, HuberLoss, SquaredLoss
from mil.tree._classes import fit_inputs
from mil.tree._export import TreeExportMixin, boosting_tree_printout, ensemble_member
from mil.utils._docstrings import fill_doc

__all__ = ["GDBTMIRegressor"]

_LOSSES = {"squared_error": SquaredLoss, "absolute_error": AbsoluteLoss, "huber": HuberLoss}


@fill_doc(examples=regression_example(50))
class GDBTMIRegressor(_GDBTMIBoosting, TreeExportMixin, InstancePredictionMixin, BaseBagRegressor):
    """GDBT-MI for real-valued bag labels: gradient boosting of multi-instance trees.

    Every instance gets a score F(x) = F_0 + learning_rate * sum_m h_m(x);
    a bag's prediction pools its instances' scores (`pooling`: by default
    their mean, so the prediction is the bag's average of a learned
    function of its instances, which can read a bag's spread as well as its
    mean) and the model minimises `loss` over the bags. Each round computes
    every bag's residual, grows a tree on it (through the pooling: with
    ``split="instance"`` each instance carries its share of its bag's
    residual), and sets the leaves by a Newton step (squared error) or a
    weighted median (absolute error, Huber) on the bags' residuals. With
    ``split="bag-ratio"`` the trees send whole bags and score them directly.

    The trees and their split search are the classifier's
    (:class:`~mil.ensemble.GDBTMIClassifier`): a tree is a classification
    tree on the residuals' signs weighted by their sizes, so the compiled
    split loops, which take real-valued bag weights, grow it as they grow
    the classifier's trees.

    Parameters
    ----------
    loss : {"squared_error", "absolute_error", "huber"}, default="squared_error"
        The loss of the bag predictions (scikit-learn's names).
    alpha : float in (0, 1), default=0.9
        With ``loss="huber"``: the quantile of the absolute residuals at
        which the loss turns from squared to absolute (each round, as
        scikit-learn's ``GradientBoostingRegressor``).
    n_estimators : int, default=200
        Boosting rounds (fewer with early stopping).
    learning_rate : float, default=0.1
        Shrinkage of every tree's contribution.
    max_depth : int or None, default=None
        Depth limit of each tree (the root has depth 0); None grows every
        tree until `min_bags_leaf` stops it.
    min_bags_leaf : float, default=2
        Minimum weight in each child of a split, the tree's weights being
        the residuals' sizes scaled to mean 1 over the round's bags (so 2 is
        "two average bags"; with ``split="instance"``, two average bags'
        worth of instance weight).
    pooling : {"mean", "lse", "max"}, default="mean"
        How a bag's prediction pools its instances' scores: their mean, a
        log-sum-exp soft maximum of sharpness `sharpness`, or the maximum
        (the label carried by the bag's most extreme instance).
    sharpness : float, default=3.0
        The r of the log-sum-exp pooling, S = (1/r) log(mean exp(r f)).
    subsample : float in (0, 1], default=0.5
        Fraction of the training bags drawn (without replacement) for each
        round (stochastic gradient boosting, Friedman 2002).
    max_features : int, float, {"sqrt", "log2"} or None, default=None
        Features each tree may split on, drawn at random for every tree (or
        node, `feature_sampling`): an int is a count (at most the number of
        features), a float a share, "sqrt" / "log2" those functions of the
        feature count, None all of them.
    feature_sampling : {"tree", "node"}, default="tree"
        Where the `max_features` draw happens: once per tree or at every
        node.
    validation_fraction : float in (0, 1), default=0.1
        Share of the training bags held out to decide early stopping; used
        only when `n_iter_no_change` is set.
    n_iter_no_change : int or None, default=None
        Stop when the validation loss has not improved by `tol` on any of
        the last `n_iter_no_change` rounds. None: no early stopping.
    tol : float, default=1e-4
        Improvement counted by early stopping.
    l2_regularization : float, default=1.0
        Added to the curvature of every leaf's Newton step (squared error):
        it shrinks the values of leaves that hold little evidence.
    split_shares : {"children", "parent"}, default="children"
        How each tree's gain weighs a child's entropy (see
        :class:`mil.tree.C45MIClassifier`).
    growth : {"best", "depth"}, default="best"
        Growth order of each tree (best-first, or depth-first).
    positive_bag_removal : bool, default=True
        With ``split="mi"``: once a leaf holds only bags of positive
        residual, their instances leave the other open nodes (see
        :class:`mil.tree.ID3MIClassifier`).
    random_state : int, RandomState or None, default=None
        Seeds the rounds' bag and feature draws; the instance subsample
        (`max_instances_per_bag`) and the validation split draw seeds of
        their own from it.
    n_jobs : int or None, default=None
        Threads sharing out the features of each tree's split search; None
        is 1, -1 one per core. The model does not depend on it.
    splitter : {"auto", "exact", "hist"}, default="auto"
        The split search: "exact", "hist" (quantile bins, which reads
        float32 bags as they are), or "auto": "hist" on more than 10,000
        training instances (see :class:`~mil.tree.C45MIClassifier`).
    max_instances_per_bag : int or None, default=None
        Train on at most this many instances of each bag, drawn once per fit
        (seeded from `random_state`). None trains on every instance.
    max_leaf_nodes : int or None, default=None
        Stop each tree after ``max_leaf_nodes - 1`` splits. None: no limit.
    split : {"instance", "mi", "auto", "bag-ratio"}, default="instance"
        The trees. "instance": trees on the instances, each instance
        labelled by the sign of its share of its bag's residual and weighted
        by its size. "mi": multi-instance trees on the bags (a bag labelled
        by its residual's sign and weighted by its size; the criterion
        counts the distinct bags on each side of a cut). "auto": "instance"
        when the training bags hold more than 100 instances on average,
        "mi" otherwise (in ``split_``). "bag-ratio": bag-ratio trees, which
        send a bag left when the share of its instances with
        x_f <= theta exceeds r, and score bags directly (see
        :class:`~mil.ensemble.GDBTMIClassifier`).
    [gdbt bag-ratio parameters]

    Attributes
    ----------
    estimators_ : list of mil.tree.Tree or of mil.tree.BagRatioTree
        The fitted trees, one per round; ``tree.value`` holds the leaf
        values (before shrinkage).
    split_ : {"instance", "mi", "bag-ratio"}
        The trees boosted (`split`, resolved for "auto").
    splitter_ : {"exact", "hist"}
        The split search used.
    init_score_ : float
        F_0, the constant instance score minimising the training loss.
    n_estimators_ : int
        Rounds actually fitted.
    train_score_ : ndarray of shape (``n_estimators_``,)
        The loss (mean squared error, mean absolute error, mean Huber loss)
        on the round's training bags after each round.
    validation_score_ : ndarray of shape (``n_estimators_``,)
        The same on the validation bags (only with early stopping).
    feature_importances_ : ndarray of shape (n_features,)
        Split gains weighted by the node's weight, normalised per tree,
        averaged over the trees.
    n_features_in_ : int
        Number of features of the training instances.

    See Also
    --------
    mil.ensemble.GDBTMIClassifier : The same boosting for class labels.
    mil.wrappers.SimpleMIRegressor : A regressor on per-bag feature statistics.

    Notes
    -----
    ``predict_instances`` gives an instance's score F(x), the prediction
    for a bag holding that instance alone (with ``split="bag-ratio"``, the
    trees applied to that one-instance bag).

    References
    ----------
    [friedman boosting]

    S. Ray and D. Page (2001). Multiple instance regression. *Proceedings
    of the Eighteenth International Conference on Machine Learning (ICML
    2001)*, 425-432.

    [examples]
    """

    _allow_nan = True

    _parameter_constraints = {
        **_GDBTMIBoosting._parameter_constraints,
        "loss": [StrOptions(set(_LOSSES))],
        "alpha": [Interval(Real, 0.0, 1.0, closed="neither")],
        "pooling": [StrOptions({"mean", "lse", "max"})],
    }

    def __init__(self, *, loss="squared_error", alpha=0.9, n_estimators=200, learning_rate=0.1, max_depth=None,
                 min_bags_leaf=2, pooling="mean", sharpness=3.0, subsample=0.5, max_features=None,
                 feature_sampling="tree", validation_fraction=0.1, n_iter_no_change=None, tol=1e-4,
                 l2_regularization=1.0, split_shares="children", growth="best", positive_bag_removal=True,
                 random_state=None, n_jobs=None, splitter="auto", max_instances_per_bag=None,
                 max_leaf_nodes=None, split="instance", n_rules=16, ratio="random"):
        keep_params(self, locals())

    def fit(self, X, y, sample_weight=None):
        """Boost multi-instance trees on the bags and their real-valued labels.

        Parameters
        ----------
        X : sequence of 2-D arrays or Bags
            Training bags; NaN marks a missing value, routed as in the trees.
        y : array-like of shape (n_bags,)
            One finite real label per bag.
        sample_weight : array-like of shape (n_bags,), default=None
            One weight per bag: it multiplies the bag's term in the loss (the
            initial score, the trees' weights, the leaf values and the
            reported losses). A zero-weight bag is left out.

        Returns
        -------
        self : GDBTMIRegressor
            The fitted model.
        """
        bags, y, w, rng = fit_inputs(self, X, y, sample_weight)
        loss = HuberLoss(self.alpha) if self.loss == "huber" else _LOSSES[self.loss]()
        return self._boost(bags, loss.encode(y), w, loss, rng)

    def predict(self, X):
        """Predict each bag's label: its instances' scores pooled.

        [predicted values]
        """
        return self._bag_scores(X)

    def staged_predict(self, X):
        """Predict the labels of :meth:`predict` after each round (a generator).

        [gdbt staged predict]
        """
        yield from self._staged_bag_scores(X)

    def _predict_instances(self, bags):
        return self._raw_instance_scores(bags)

    # -- printing ---------------------------------------------------------------
    _default_print_index = 0

    def _tree_to_print(self, index):
        m, _ = ensemble_member(self, index, "boosting round", "round", per_class=False)
        header = (f"round {m} of {len(self.estimators_)} (estimators_[{m}]); "
                  f"leaf values before learning_rate={self.learning_rate:g}")
        return boosting_tree_printout(self.estimators_[m], "over-predicted", "under-predicted", owner=self,
                                      header=header)

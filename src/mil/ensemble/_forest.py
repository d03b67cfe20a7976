"""Multi-instance random forest: bagged ID3-MI / C4.5-MI trees with random feature subsets.

Breiman's random forest (Breiman, "Random forests", Machine Learning 45, 2001)
carried to bags, as MIForests (Leistner, Saffari and Bischof, "MIForests:
multiple-instance learning with randomized trees", ECCV 2010) and Weka's MITI
attribute subsampling do: each tree is grown on a bootstrap sample of the
*bags* (a bag drawn k times weighs k in the criteria) with the multi-instance
split machinery of :mod:`mil.tree` (the same builder and kernels), searching a
random subset of the features at every node. A bag's probability is the
average of the trees' bag probabilities (``average="bags"``), or the pooled
forest probability of its instances, the average of the trees' leaf
estimates (``average="instances"``, with the maximum the bag rule of
MIForests). A bag's instances are pooled by a log-sum-exp of their log-odds
(a soft maximum; the maximum at ``sharpness=np.inf``) whose sharpness the
forest chooses on its out-of-bag bags.
"""

from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed
from scipy.special import expit, logit
from sklearn.base import clone
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from mil._core import kernel
from mil.base import BaseBagClassifier, InstanceOutputMixin, keep_params
from mil.ensemble._bagging import BAGGING_CONSTRAINTS, BaggedTreesMixin, mean_tree_output, oob_accuracy
from mil.tree._pooling import pool
from mil.tree import C45MIClassifier, ID3MIClassifier
from mil.tree._classes import fit_inputs
from mil.tree._rows import prepare_layout, resolve_splitter
from mil.tree._export import TreeExportMixin, ensemble_member

__all__ = ["MIRandomForestClassifier"]

#: the sharpnesses among which ``sharpness="oob"`` chooses (np.inf: the maximum)
OOB_SHARPNESSES = (0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 16.0, np.inf)
_EPS = 1e-15


def _pooled(estimates, offsets, sharpness):
    """Bag probabilities pooled from instance probabilities, one column per concept.

    The maximum for ``sharpness=np.inf``; otherwise ``expit(S)`` with S the
    log-sum-exp pooling (1/r) log(mean_i exp(r f_i)) of the instances'
    log-odds f_i (:func:`mil.tree._pooling.pool`, r = `sharpness`).
    """
    if np.isinf(sharpness):
        bag_max = kernel("_bag_counts").bag_max
        return np.column_stack([bag_max(np.ascontiguousarray(estimates[:, j]), offsets)
                                for j in range(estimates.shape[1])])
    # Laplace estimates are inside (0, 1); the clip keeps the log-odds finite when huge sample weights
    # round an estimate to 0 or 1.
    f = logit(np.clip(estimates, _EPS, 1.0 - _EPS))
    return np.column_stack([expit(pool(np.ascontiguousarray(f[:, j]), offsets, "lse", sharpness))
                            for j in range(estimates.shape[1])])


def _tree_weights(counts, weight):
    """Split and leaf bag weights of one tree: (counts x weight, (counts > 0) x weight).

    The split weight counts a bag drawn k times k times; the leaf weight once
    (the trees' leaf estimates are on distinct bags). Without sample weights
    the leaf weight is None, the builder's distinct counts (the same numbers).
    """
    if weight is None:
        return (None if counts is None else counts.astype(np.float64)), None
    if counts is None:
        return weight, weight
    return counts * weight, (counts > 0) * weight


def _grow_one(template, seed, bags, y_enc, classes, presorted, counts, weight):
    """Fit one tree on the bags with ``counts > 0``, weighted by their counts (times `weight`).

    Bags of split weight 0 are absent for the builder.
    """
    tree = clone(template).set_params(random_state=seed)
    tree.classes_ = classes
    split_weight, leaf_weight = _tree_weights(counts, weight)
    tree._fit_encoded(bags, y_enc, bag_weight=split_weight, presorted=presorted, leaf_weight=leaf_weight)
    return tree


class MIRandomForestClassifier(TreeExportMixin, BaggedTreesMixin, InstanceOutputMixin, BaseBagClassifier):
    """Multi-instance random forest of ID3-MI / C4.5-MI trees.

    Each tree is grown on a bootstrap sample of the bags (bags drawn with
    replacement; a bag drawn k times counts k times in Gain_multi and in
    `min_bags_leaf`), and at every node searches only `max_features` features
    drawn at random, with the split criterion and machinery of
    :class:`~mil.tree.C45MIClassifier` / :class:`~mil.tree.ID3MIClassifier`.
    A bag's class probabilities are the average of the trees' bag
    probabilities (`average`), each tree pooling the Laplace estimates of
    the leaves its instances reach (`sharpness`); the predicted class is the
    most probable one.
    More than two classes: every tree holds one concept per class (see the
    trees).

    Parameters
    ----------
    n_estimators : int, default=100
        Number of trees.
    criterion : {"gain_ratio", "gain"}, default="gain_ratio"
        C4.5-MI's gain ratio (with its average-gain guard among the searched
        features) or ID3-MI's Gain_multi.
    max_features : int, float, {"sqrt", "log2"} or None, default="sqrt"
        Features searched at each node (see the trees); None searches all
        (bagged trees).
    bootstrap : bool, default=True
        Grow each tree on a bootstrap sample of the bags; False grows every
        tree on all bags (trees then differ only by their feature subsets).
    max_samples : int, float or None, default=None
        Bags drawn per tree with `bootstrap`: None as many as there are
        bags, an int that many, a float that fraction.
    oob_score : bool, default=False
        Score every bag with the trees whose sample left it out (or in which
        it weighs 0), and store the accuracy in ``oob_score_``, weighted by
        the bag weights when `sample_weight` or `class_weight` is given.
    max_depth : int or None, default=None
        Depth limit of each tree (the root has depth 0); None grows until
        `min_bags_leaf` or purity stops it.
    min_bags_leaf : int, default=1
        Minimum (weighted) number of distinct bags in each child of a split.
    growth : {"best", "depth"}, default="best"
        Node order of each tree (matters with positive-bag removal).
    split_shares : {"children", "parent"}, default="children"
        How Gain_multi weighs the children (see the trees).
    positive_bag_removal : bool, default=True
        Positive-bag removal while growing each tree (see
        :class:`mil.tree.ID3MIClassifier`).
    class_weight : "balanced", dict or None, default=None
        Weights of the classes, multiplying ``sample_weight``: "balanced"
        gives class c the weight n_bags / (n_classes * n_bags_c).
    positive_class : label or None, default=None
        Two classes: the positive class (``classes_[1]`` when None).
    average : {"bags", "instances"}, default="bags"
        How the trees' outputs combine into a bag's probability. "bags":
        every tree scores the bag by pooling the Laplace estimates
        (pi + 1) / (pi + nu + 2) of the leaves its instances reach
        (`sharpness`), and the forest averages these bag probabilities.
        "instances": every instance's probability is the average over the
        trees of the Laplace estimate of the leaf it reaches, and the bag's
        is the pooling of these (with the maximum, the multi-instance rule
        applied to the forest's instance estimates, as MIForests, Leistner
        et al. 2010). With the maximum, "bags" makes a negative bag of many
        instances positive in every tree in which any one of them reaches a
        positive leaf; "instances" needs one instance to do so in most
        trees. More than two classes: per concept, then normalised over the
        classes (per tree for "bags"). :doc:`/results/trees` compares the two
        on the shipped sets.
    sharpness : float or "oob", default="oob"
        How a bag's instances are pooled: ``expit(S)`` with S the
        log-sum-exp (1/r) log(mean_i exp(r f_i)) of the instances' log-odds
        f_i = logit(q_i), r = `sharpness` (the pooling of
        :class:`~mil.ensemble.GDBTMIClassifier`). Equivalently, at r = 1 the
        bag's odds are the mean of its instances' odds. It lies between the
        mean of the log-odds (r -> 0) and their maximum (r -> inf), and a
        single instance gives its own estimate. Unlike the maximum it does
        not grow with the number of instances (a bag with every instance
        repeated keeps its score), so one instance of many reaching a
        positive leaf weighs less in a large bag. ``np.inf``: the maximum,
        each tree's own ``predict_proba`` (the trees' rule). "oob": the
        sharpness among (0.5, 1, 2, 3, 4, 6, 8, 16, inf) of best out-of-bag
        accuracy on the training bags (ties to the sharpest; chosen on the
        training side only; the maximum when no bag is out of bag, e.g.
        without `bootstrap`), in ``sharpness_``. :doc:`/results/trees`
        compares it with the maximum on the shipped sets.
    random_state : int, RandomState or None, default=None
        Seeds the bootstrap samples and feature subsets (one seed per tree,
        drawn in tree order, so `n_jobs` never changes the forest).
    n_jobs : int or None, default=None
        Trees grown (and applied at prediction) in this many threads; the
        split kernels release the GIL. None is 1, -1 one per core.
    splitter : {"auto", "exact", "hist"}, default="auto"
        The split search of the trees: "exact" (every cut between distinct
        values), "hist" (the histogram search on quantile bins, which reads
        float32 bags as they are), or "auto": "hist" on more than 10,000
        training instances, "exact" on fewer; see ``splitter`` in
        :class:`~mil.tree.C45MIClassifier` and :doc:`/results/trees`.
    max_instances_per_bag : int or None, default=None
        Train on at most this many instances of each bag, drawn once per fit
        (seeded by `random_state`); see ``max_instances_per_bag`` in
        :class:`~mil.tree.C45MIClassifier`. None trains on every instance.

    Attributes
    ----------
    estimators_ : list of C45MIClassifier or ID3MIClassifier
        The fitted trees (each with its ``random_state`` seed).
    estimators_samples_ : list of ndarray
        Per tree, the indices of the bags in its sample (with repeats).
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_importances_ : ndarray of shape (n_features,)
        Mean over the trees of their normalised bag-level impurity decrease
        (Gain_multi times the bag weight of the node, summed per feature).
    oob_score_ : float
        Out-of-bag accuracy (with `oob_score`).
    oob_decision_function_ : ndarray of shape (n_bags, n_classes)
        Out-of-bag class probabilities (NaN for a bag in every sample), at
        ``sharpness_``.
    splitter_ : {"exact", "hist"}
        The split search used (`splitter`, resolved by size for "auto").
    sharpness_ : float
        The sharpness used by `predict_proba` (`sharpness`, or the one
        chosen on the out-of-bag bags; np.inf is the maximum).
    oob_sharpness_scores_ : ndarray of shape (9,)
        With ``sharpness="oob"`` and `bootstrap`: the out-of-bag accuracy
        at each candidate sharpness (NaN when no bag is out of bag).

    See Also
    --------
    mil.tree.C45MIClassifier : The forest's trees (``criterion="gain_ratio"``).
    mil.tree.ID3MIClassifier : The forest's trees with ``criterion="gain"``.
    mil.ensemble.BagRandomTreesClassifier : Randomised trees whose rules read whole bags.

    References
    ----------
    L. Breiman, "Random forests", Machine Learning 45(1), 2001.
    C. Leistner, A. Saffari and H. Bischof, "MIForests: multiple-instance
    learning with randomized trees", ECCV 2010.
    H. Blockeel, D. Page and A. Srinivasan, "Multi-instance tree learning",
    ICML 2005.

    Examples
    --------
    >>> from mil.ensemble import MIRandomForestClassifier
    >>> from mil.utils.estimator_checks import make_toy_bags
    >>> X, y = make_toy_bags(n_bags=40)
    >>> forest = MIRandomForestClassifier(n_estimators=20, oob_score=True, random_state=0).fit(X, y)
    >>> forest.score(X, y) > 0.9
    True
    >>> forest.oob_score_ > 0.8  # accuracy on the bags each tree did not draw
    True
    >>> forest.predict_proba(X[:1]).shape
    (1, 2)
    """

    _allow_nan = True
    _binary_only = False

    _parameter_constraints = {
        **BAGGING_CONSTRAINTS,
        "criterion": [StrOptions({"gain_ratio", "gain"})],
        "splitter": [StrOptions({"auto", "exact", "hist"})],
        "max_instances_per_bag": [Interval(Integral, 1, None, closed="left"), None],
        "growth": [StrOptions({"depth", "best"})],
        "split_shares": [StrOptions({"parent", "children"})],
        "positive_bag_removal": ["boolean"],
        "positive_class": "no_validation",
        "average": [StrOptions({"bags", "instances"})],
        "sharpness": [Interval(Real, 0.0, np.inf, closed="right"), StrOptions({"oob"})],
    }

    def __init__(self, n_estimators=100, *, criterion="gain_ratio", max_features="sqrt", bootstrap=True,
                 max_samples=None, oob_score=False, max_depth=None, min_bags_leaf=1, growth="best",
                 split_shares="children", positive_bag_removal=True, class_weight=None,
                 positive_class=None, average="bags", sharpness="oob", random_state=None, n_jobs=None,
                 splitter="auto", max_instances_per_bag=None):
        keep_params(self, locals())

    def _accepts_float32(self):
        return self.splitter in ("auto", "hist")

    def _template(self):
        cls = C45MIClassifier if self.criterion == "gain_ratio" else ID3MIClassifier
        return cls(max_depth=self.max_depth, min_bags_leaf=self.min_bags_leaf, growth=self.growth,
                   positive_bag_removal=self.positive_bag_removal, split_shares=self.split_shares,
                   max_features=self.max_features, positive_class=self.positive_class,
                   splitter=self.splitter_,
                   smoothing=1.0, sharpness=np.inf)  # Laplace leaves, the maximum: the forest pools itself

    def fit(self, X, y, sample_weight=None):
        """Grow the forest.

        Parameters
        ----------
        X : sequence of 2-D arrays or Bags
            Training bags; NaN marks a missing value, routed as in C4.5-MI.
        y : array-like of shape (n_bags,)
            Two classes, or more: each member then holds one tree per class.
        sample_weight : array-like of shape (n_bags,), default=None
            One weight per bag (times `class_weight`). The bootstrap draws
            bags uniformly, as without weights; a bag drawn k times then
            weighs k times its weight in Gain_multi and `min_bags_leaf`, and
            its weight (once) in the leaf estimates. A zero weight leaves the
            bag out of every tree.

        Returns
        -------
        self : MIRandomForestClassifier
            The fitted forest.
        """
        bags, y_enc, weight, rng = fit_inputs(self, X, y, sample_weight, drop_zero_weight=False)
        self.splitter_, bags = resolve_splitter(self.splitter, bags)
        seeds, counts = self._draw_samples(bags.n_bags, rng)
        presorted = prepare_layout(bags.instances, bags.instance_bag, self.splitter_)
        template = self._template()
        self.estimators_ = Parallel(n_jobs=self.n_jobs, prefer="threads")(
            delayed(_grow_one)(template, int(seed), bags, y_enc, self.classes_, presorted, c, weight)
            for seed, c in zip(seeds, counts))
        self.feature_importances_ = self._mean_importances([tree.feature_importances_
                                                            for tree in self.estimators_])
        if isinstance(self.sharpness, str):
            self.sharpness_ = self._choose_sharpness(bags, y_enc, counts, weight) if self.bootstrap else np.inf
        else:
            self.sharpness_ = float(self.sharpness)
        if not (isinstance(self.sharpness, str) and self.bootstrap) and hasattr(self, "oob_sharpness_scores_"):
            del self.oob_sharpness_scores_
        if self.oob_score:
            probas, ok = self._oob_probas(bags, counts, weight, [self.sharpness_])
            self._set_oob_attributes(None if probas is None else probas[0], ok, y_enc, weight)
        else:
            self._clear_oob()
        return self

    _default_print_index = 0

    def _tree_to_print(self, index):
        """Tree `index` (two classes), or class c's tree of tree k for ``index=(k, c)``."""
        k, c = ensemble_member(self, index, "tree", "tree")
        header = f"tree {k} of {len(self.estimators_)} (estimators_[{k}])"
        printed = self.estimators_[k]._tree_to_print(c)
        if c is not None:
            header = f"{header}, {printed.header.replace('trees_', f'estimators_[{k}].trees_')}"
        return printed._replace(owner=self, header=header)

    def _oob_probas(self, bags, counts, weight, sharpnesses):
        """Out-of-bag class probabilities at each sharpness, and the bags that have them.

        A bag's trees are those whose sample left it out (or in which it
        weighs 0). Returns ``(probas, ok)``: one (n_bags, n_classes) array per
        sharpness (NaN rows for bags in every sample) and the indices of the
        bags with at least one such tree; `probas` is None when no bag (of
        positive weight) has one.
        """
        n_bags = bags.n_bags
        rows = self._rows(bags, np.arange(n_bags)).size
        # "instances": the trees' summed outputs do not depend on the sharpness (pooled after averaging).
        shared = self.average == "instances"
        totals = [np.zeros((rows, self._n_outputs())) for _ in range(1 if shared else len(sharpnesses))]
        seen = np.zeros(n_bags, dtype=np.intp)
        for tree, c in zip(self.estimators_, counts):
            split_weight = c if weight is None else c * weight
            out = np.flatnonzero(split_weight == 0)  # bags that did not shape this tree
            if out.size:
                sub, out_rows = bags.subset(out), self._rows(bags, out)
                for total, output in zip(totals, self._tree_outputs(tree, sub, sharpnesses[:len(totals)])):
                    total[out_rows] += output
                seen[out] += 1
        ok = np.flatnonzero(seen > 0)
        if not ok.size or (weight is not None and not weight[ok].sum() > 0):
            return None, ok
        divisor = seen[ok] if self.average == "bags" else np.repeat(seen[ok], np.diff(bags.offsets)[ok])
        ok_rows, ok_bags = self._rows(bags, ok), bags.subset(ok)
        probas = []
        for i, r in enumerate(sharpnesses):
            oob = np.full((n_bags, len(self.classes_)), np.nan)
            oob[ok] = self._combine(totals[0 if shared else i][ok_rows] / divisor[:, None], ok_bags, r)
            probas.append(oob)
        return probas, ok

    def _choose_sharpness(self, bags, y_enc, counts, weight=None):
        """The sharpness of ``OOB_SHARPNESSES`` of best out-of-bag accuracy (ties: the sharpest).

        np.inf (the maximum) when no bag (of positive weight) is out of bag.
        """
        probas, ok = self._oob_probas(bags, counts, weight, OOB_SHARPNESSES)
        if probas is None:
            self.oob_sharpness_scores_ = np.full(len(OOB_SHARPNESSES), np.nan)
            return np.inf
        scores = np.array([oob_accuracy(p, y_enc, ok, weight) for p in probas])
        self.oob_sharpness_scores_ = scores
        return OOB_SHARPNESSES[np.flatnonzero(scores == scores.max())[-1]]

    def _rows(self, bags, index):
        """Rows of the summed tree outputs that belong to the bags `index`: theirs, or their instances'."""
        if self.average == "bags":
            return index
        starts, sizes = bags.offsets[index], np.diff(bags.offsets)[index]
        return np.repeat(starts - np.cumsum(sizes) + sizes, sizes) + np.arange(sizes.sum())

    def _n_outputs(self):
        """Columns of one tree's output: classes ("bags"), or concepts ("instances")."""
        if self.average == "bags":
            return len(self.classes_)
        return 1 if len(self.classes_) == 2 else len(self.classes_)

    def _tree_output(self, tree, bags, sharpness):
        """One tree's share of the average, on validated bags.

        ``average="bags"``: its class probabilities per bag, its instances'
        leaf estimates pooled at `sharpness` (np.inf: the maximum, the tree's
        own ``predict_proba``). "instances": per instance, the Laplace
        estimate of the leaf reached in each concept tree.
        """
        return self._tree_outputs(tree, bags, (sharpness,))[0]

    def _tree_outputs(self, tree, bags, sharpnesses):
        """:meth:`_tree_output` at each sharpness (the leaves are found once)."""
        if self.average == "bags" and all(np.isinf(r) for r in sharpnesses):
            return [tree._proba_bags(bags)] * len(sharpnesses)
        estimates = np.column_stack([t.laplace()[t.apply(bags.instances)] for t in tree.trees_])
        if self.average == "instances":
            return [estimates] * len(sharpnesses)
        return [tree._proba_bags(bags) if np.isinf(r) else
                self._normalised(_pooled(estimates, bags.offsets, r)) for r in sharpnesses]

    def _normalised(self, p):
        """Class probabilities from pooled concept probabilities (one column: the positive class)."""
        if p.shape[1] == 1:
            # An exact 1/2 goes to the negative class, as a tree's tie (pi == nu).
            return self._proba_from_positive(p[:, 0], p[:, 0] > 0.5)
        return p / p.sum(axis=1, keepdims=True)

    def _combine(self, mean, bags, sharpness):
        """Class probabilities of `bags` from the trees' averaged outputs."""
        if self.average == "bags":
            if mean.shape[1] == 2:
                # An exact tie of the averaged probabilities goes to the negative class, as a
                # tree's tie, whichever column the positive class is in (not to classes_[0]).
                tie = mean[:, 0] == mean[:, 1]
                if tie.any():
                    mean = mean.copy()
                    mean[tie] = self._proba_from_positive(np.full(int(tie.sum()), 0.5),
                                                          np.zeros(int(tie.sum()), dtype=bool))
            return mean
        return self._normalised(_pooled(mean, bags.offsets, sharpness))

    def _mean_proba(self, bags):
        """The trees' pooled bag probabilities, or their pooled instance ones, averaged (`average`, `sharpness_`)."""
        mean = mean_tree_output(lambda tree: self._tree_output(tree, bags, self.sharpness_),
                                self.estimators_, self.n_jobs)
        return self._combine(mean, bags, self.sharpness_)

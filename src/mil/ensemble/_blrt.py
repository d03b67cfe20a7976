"""Bag-level randomized trees (BLRT): extremely randomised trees whose rules read whole bags.

Komarek and Somol, "Multiple instance learning with bag-level randomized
trees" (ECML PKDD 2018). A node's rule (f, theta, r) sends a bag to the left
child when the share of its instances with x_f <= theta exceeds r; with r
near 0 it is the multi-instance rule "some instance has x_f <= theta", near 1
"every instance has". Trees are grown as extremely randomised trees (Geurts,
Ernst and Wehenkel, 2006) on bags: at each node, for each of `max_features`
features drawn without replacement, `n_rules` candidate rules with theta
uniform over the range of the node's values of f and r uniform in [0, 1),
scored by the bag-level entropy of the children; the best one is kept. Leaves
hold the bag-weighted class frequencies and the forest averages its trees.

The trees are grown here, not by :mod:`mil.tree`'s builder: that builder
routes instances (a bag reaches every leaf one of its instances reaches) and
counts distinct bags while sweeping sorted instances, whereas a bag-ratio tree
routes each bag as a whole by a share of its instances, so a node holds bags
and scores a candidate by one pass over their instances (the compiled kernel
``mil._core._bag_shares``).
"""

from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, check_random_state

from mil._core import kernel
from mil.base import BaseBagClassifier, log_odds
from mil.ensemble._forest import _bootstrap_counts, _mean_tree_output, _n_drawn
from mil.tree._classes import resolve_max_features

__all__ = ["BagRandomTreesClassifier", "BagRatioTree"]

_MAX_INT = np.iinfo(np.int32).max


class BagRatioTree:
    """One fitted bag-level randomized tree: plain node arrays.

    Node 0 is the root; children come after their parent. At an inner node a
    bag goes to ``left[node]`` when the share of its instances with
    ``x[feature[node]] <= threshold[node]`` exceeds ``ratio[node]`` (a
    missing value never counts as <= and counts in the bag's size), else to
    ``right[node]``. Leaves have ``feature == left == right == -1``.

    Attributes
    ----------
    feature, left, right : ndarray of intp, shape (n_nodes,)
    threshold, ratio : ndarray of float64, shape (n_nodes,)
    value : ndarray of float64, shape (n_nodes, n_classes)
        Bag-weighted class frequencies of the training bags in each node.
    gain : ndarray of float64, shape (n_nodes,)
        Entropy decrease (bits) times the node's bag weight (0 at leaves).
    n_node_bags : ndarray of intp, shape (n_nodes,)
        Training bags reaching each node.
    random_state : int
        The seed the tree was grown with.
    """

    def __init__(self, feature, threshold, ratio, left, right, value, gain, n_node_bags, random_state=None):
        self.feature = np.asarray(feature, dtype=np.intp)
        self.threshold = np.asarray(threshold, dtype=np.float64)
        self.ratio = np.asarray(ratio, dtype=np.float64)
        self.left = np.asarray(left, dtype=np.intp)
        self.right = np.asarray(right, dtype=np.intp)
        self.value = np.asarray(value, dtype=np.float64)
        self.gain = np.asarray(gain, dtype=np.float64)
        self.n_node_bags = np.asarray(n_node_bags, dtype=np.intp)
        self.random_state = random_state

    @property
    def node_count(self):
        return self.feature.shape[0]

    @property
    def n_leaves(self):
        return int((self.left < 0).sum())

    @property
    def max_depth(self):
        depth = np.zeros(self.node_count, dtype=np.intp)
        for node in range(self.node_count):  # children come after their parent
            if self.left[node] >= 0:
                depth[self.left[node]] = depth[self.right[node]] = depth[node] + 1
        return int(depth.max())

    def apply(self, instances, offsets):
        """The leaf each bag reaches (bags as an instance table and offsets)."""
        return kernel("_bag_shares").apply_bags(instances, offsets, self.feature, self.threshold, self.ratio,
                                                self.left, self.right)

    def predict_proba(self, instances, offsets):
        """Class frequencies of the leaf each bag reaches, shape (n_bags, n_classes)."""
        return self.value[self.apply(instances, offsets)]

    def export_text(self, feature_names=None, class_names=None, decimals=3):
        """The tree as indented text, one line per rule side and per leaf.

        An inner node prints as ``share of instances with f <= theta > r``
        (the bags that go left) and ``<= r`` (right); a leaf as the most
        frequent class, the class frequencies and the number of training bags
        (in a GDBT-MI round's tree, whose leaves hold one Newton value each:
        ``value: v`` and the number of training bags).

        Parameters
        ----------
        feature_names : sequence of str, default=None
            ``x0``, ``x1``, ... by default.
        class_names : sequence, default=None
            ``0``, ``1``, ... (the class indices) by default.
        decimals : int, default=3

        Returns
        -------
        text : str
        """
        lines = []

        def name(f):
            return str(feature_names[f]) if feature_names is not None else f"x{f}"

        def cls(k):
            return str(class_names[k]) if class_names is not None else str(k)

        def walk(node, depth):
            indent = "|   " * depth + "|--- "
            if self.left[node] < 0:
                if np.ndim(self.value[node]) == 0:  # a boosting round's tree: one Newton value per leaf
                    lines.append(f"{indent}value: {self.value[node]:.{decimals}f} "
                                 f"({self.n_node_bags[node]} bags)")
                    return
                freq = ", ".join(f"{v:.{decimals}f}" for v in self.value[node])
                lines.append(f"{indent}class: {cls(int(np.argmax(self.value[node])))} "
                             f"({freq}; {self.n_node_bags[node]} bags)")
                return
            rule = (f"share of instances with {name(self.feature[node])} <= "
                    f"{self.threshold[node]:.{decimals}f}")
            lines.append(f"{indent}{rule} >  {self.ratio[node]:.{decimals}f}")
            walk(self.left[node], depth + 1)
            lines.append(f"{indent}{rule} <= {self.ratio[node]:.{decimals}f}")
            walk(self.right[node], depth + 1)

        walk(0, 0)
        return "\n".join(lines)

    def __str__(self):
        return self.export_text()

    def __repr__(self):
        return f"BagRatioTree(node_count={self.node_count}, random_state={self.random_state})"


def _grow_tree(table, y_enc, n_classes, weight, seed, n_feat, n_rules, best_ratio, min_bags, max_depth):
    """Grow one bag-ratio tree on the bags of positive `weight` (depth first).

    Per inner node, one draw of ``d + 2 n_feat n_rules`` uniforms: the
    features searched (the first `n_feat` of a random permutation), then the
    thresholds' and ratios' uniforms. The draws depend on the seed and the
    node order only, so both kernel backends and any `n_jobs` grow the same
    tree.
    """
    rng = np.random.default_rng(seed)
    k = kernel("_bag_shares")
    d = table.XT.shape[0]
    feature, threshold, ratio, left, right, value, gain, n_node = [], [], [], [], [], [], [], []

    def new_node(bags):
        w = weight[bags]
        counts = np.bincount(y_enc[bags], weights=w, minlength=n_classes)
        for lst, v in ((feature, -1), (threshold, 0.0), (ratio, 0.0), (left, -1), (right, -1),
                       (gain, 0.0), (n_node, bags.size)):
            lst.append(v)
        value.append(counts / counts.sum())
        return len(feature) - 1

    stack = [(new_node(np.flatnonzero(weight > 0)), np.flatnonzero(weight > 0), 0)]
    while stack:
        node, bags, depth = stack.pop()
        if (np.count_nonzero(value[node]) <= 1 or bags.size < 2 * min_bags
                or (max_depth is not None and depth >= max_depth)):
            continue
        u = rng.random(d + 2 * n_feat * n_rules)
        feats = np.argsort(u[:d], kind="stable")[:n_feat]
        u_theta = u[d:d + n_feat * n_rules].reshape(n_feat, n_rules)
        u_ratio = u[d + n_feat * n_rules:].reshape(n_feat, n_rules)
        rule = k.best_rule(table, bags, y_enc[bags], weight[bags], n_classes, feats, u_theta, u_ratio,
                           best_ratio, min_bags)
        if rule is None:
            continue
        f, theta, r, g, go_left = rule
        feature[node], threshold[node], ratio[node], gain[node] = f, theta, r, g
        lb, rb = bags[go_left], bags[~go_left]
        left[node] = new_node(lb)
        right[node] = new_node(rb)
        stack.append((right[node], rb, depth + 1))
        stack.append((left[node], lb, depth + 1))
    return BagRatioTree(feature, threshold, ratio, left, right, np.array(value), gain, n_node, random_state=seed)


class BagRandomTreesClassifier(BaseBagClassifier):
    """Bag-level randomized trees (BLRT): a forest of extremely randomised bag-ratio trees.

    Each node sends a bag left when the share of its instances with
    x_f <= theta exceeds r (:class:`BagRatioTree`). The candidate rules of
    a node: `max_features` features drawn without replacement, and for each
    `n_rules` thresholds theta = lo + u (hi - lo), u uniform in [0, 1) and
    [lo, hi) the range of the node's (non-missing) values of the feature (a
    feature constant in the node gives no rule), each with a ratio r uniform
    in [0, 1) (``ratio="random"``) or the best cut of the bags' shares
    (``ratio="best"``, r midway between two consecutive distinct shares).
    The rule of least bag-weighted entropy of the children (base 2) wins,
    among those leaving at least `min_bags_leaf` bags on each side (first
    drawn on ties). A node becomes a leaf when it is pure, holds fewer than
    ``2 * min_bags_leaf`` bags, reaches `max_depth` or has no admissible
    rule. A leaf holds the (weighted) class frequencies of its bags; the
    forest's probabilities are the mean of its trees'. The defaults are the
    paper's (and its reference code's): 100 trees, sqrt(d) features, 16
    rules per feature, random ratios, no bootstrap, fully grown trees.

    Parameters
    ----------
    n_estimators : int, default=100
        Number of trees.
    max_features : int, float, {"sqrt", "log2"} or None, default="sqrt"
        Features searched at each node: ``int(sqrt(d))`` for "sqrt" (the
        reference code rounds instead: 13 rather than 12 on the 166 Musk
        features), ``int(log2(d))``, an int, a fraction of d, or all (None).
    n_rules : int, default=16
        Candidate thresholds (rules) per searched feature.
    ratio : {"random", "best"}, default="random"
        How each candidate's r is chosen: uniformly at random (the paper),
        or as the cut of the bags' shares of least entropy. Measured level on
        the shipped sets (5 x 10-fold, three seeds: mean 81.79 for "best"
        against 81.75; see :doc:`/results/trees`).
    bootstrap : bool, default=False
        Grow each tree on a bootstrap sample of the bags (a bag drawn k times
        weighs k times); the paper grows every tree on all bags.
    max_samples : int, float or None, default=None
        Bags drawn per tree with `bootstrap` (None: as many as there are).
    oob_score : bool, default=False
        With `bootstrap`: score each bag with the trees whose sample left it
        out; ``oob_score_`` is their accuracy (weighted by the bag weights).
    max_depth : int or None, default=None
    min_bags_leaf : int, default=1
        Bags each child of a rule needs.
    class_weight : "balanced", dict or None, default=None
        Weights of the classes, multiplying ``sample_weight``.
    random_state : int, RandomState or None, default=None
        Seeds the trees (one seed per tree, drawn in tree order, so `n_jobs`
        never changes the forest).
    n_jobs : int or None, default=None
        Trees grown and applied in this many threads (the kernels release
        the GIL). None is 1, -1 one per core.

    Attributes
    ----------
    estimators_ : list of BagRatioTree
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_importances_ : ndarray of shape (n_features,)
        Mean over the trees of their normalised entropy decrease (times the
        node's bag weight) summed per feature.
    estimators_samples_ : list of ndarray
        Per tree, the indices of its bags (with repeats under `bootstrap`).
    oob_score_ : float
        Out-of-bag accuracy (with `oob_score`).
    oob_decision_function_ : ndarray of shape (n_bags, n_classes)
        Out-of-bag class probabilities (NaN for a bag in every sample).

    See Also
    --------
    mil.ensemble.MIRandomForestClassifier : bootstrapped MI trees whose rules read single instances.

    References
    ----------
    T. Komarek and P. Somol, "Multiple instance learning with bag-level
    randomized trees", Machine Learning and Knowledge Discovery in Databases
    (ECML PKDD 2018).
    P. Geurts, D. Ernst and L. Wehenkel, "Extremely randomized trees",
    Machine Learning 63(1), 2006.

    Examples
    --------
    >>> from mil.ensemble import BagRandomTreesClassifier
    >>> from mil.utils.estimator_checks import make_toy_bags
    >>> X, y = make_toy_bags(n_bags=40)
    >>> blrt = BagRandomTreesClassifier(n_estimators=20, random_state=0).fit(X, y)
    >>> blrt.score(X, y) > 0.9
    True
    >>> blrt.export_text(0).startswith("|--- share of instances with x")
    True
    """

    _allow_nan = True
    _binary_only = False

    _parameter_constraints = {
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "max_features": [Interval(Integral, 1, None, closed="left"),
                         Interval(Real, 0.0, 1.0, closed="right"), StrOptions({"sqrt", "log2"}), None],
        "n_rules": [Interval(Integral, 1, None, closed="left")],
        "ratio": [StrOptions({"random", "best"})],
        "bootstrap": ["boolean"],
        "max_samples": [Interval(Integral, 1, None, closed="left"),
                        Interval(Real, 0.0, 1.0, closed="right"), None],
        "oob_score": ["boolean"],
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "min_bags_leaf": [Interval(Integral, 1, None, closed="left")],
        "class_weight": [StrOptions({"balanced"}), dict, None],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
    }

    def __init__(self, n_estimators=100, *, max_features="sqrt", n_rules=16, ratio="random", bootstrap=False,
                 max_samples=None, oob_score=False, max_depth=None, min_bags_leaf=1, class_weight=None,
                 random_state=None, n_jobs=None):
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.n_rules = n_rules
        self.ratio = ratio
        self.bootstrap = bootstrap
        self.max_samples = max_samples
        self.oob_score = oob_score
        self.max_depth = max_depth
        self.min_bags_leaf = min_bags_leaf
        self.class_weight = class_weight
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _positive_class_matters(self):
        # Both classes play the same role: any two labels are accepted.
        return False

    def fit(self, X, y, sample_weight=None):
        """Grow the trees.

        Parameters
        ----------
        X : sequence of 2-D arrays or Bags
            Training bags; NaN marks a missing value (never <= a threshold).
        y : array-like of shape (n_bags,)
        sample_weight : array-like of shape (n_bags,), default=None
            One weight per bag (times `class_weight`), in the entropies and
            the leaf frequencies; a zero weight leaves the bag out.

        Returns
        -------
        self
        """
        bags, y_enc = self._validate_fit(X, y)
        weight = self._bag_weights(sample_weight, y, bags.n_bags)
        weight = np.ones(bags.n_bags) if weight is None else np.asarray(weight, dtype=np.float64)
        if self.oob_score and not self.bootstrap:
            raise ValueError("oob_score=True needs bootstrap=True (without it no bag is out of bag)")
        if not (weight > 0).any():
            raise ValueError("sample_weight (times class_weight) is zero for every bag")
        n_bags, d = bags.n_bags, bags.n_features
        n_feat = resolve_max_features(self.max_features, d) or d
        seeds = check_random_state(self.random_state).randint(_MAX_INT, size=self.n_estimators)
        if self.bootstrap:
            n_drawn = _n_drawn(self.max_samples, n_bags)
            counts = [_bootstrap_counts(seed, n_bags, n_drawn) for seed in seeds]
        else:
            counts = [None] * self.n_estimators
        table = kernel("_bag_shares").ShareTable(bags.instances.T, bags.offsets)
        best_ratio = self.ratio == "best"
        self.estimators_ = Parallel(n_jobs=self.n_jobs, prefer="threads")(
            delayed(_grow_tree)(table, y_enc, len(self.classes_), weight if c is None else c * weight,
                                int(seed), n_feat, self.n_rules, best_ratio, self.min_bags_leaf, self.max_depth)
            for seed, c in zip(seeds, counts))
        self.estimators_samples_ = [np.repeat(np.arange(n_bags), c) if c is not None else np.arange(n_bags)
                                    for c in counts]
        importances = np.zeros(d)
        for tree in self.estimators_:
            inner = tree.left >= 0
            per_tree = np.bincount(tree.feature[inner], weights=tree.gain[inner], minlength=d)
            if per_tree.sum() > 0:
                importances += per_tree / per_tree.sum()
        total = importances.sum()
        self.feature_importances_ = importances / total if total > 0 else importances
        if self.oob_score:
            self._set_oob(bags, y_enc, counts, weight)
        elif hasattr(self, "oob_score_"):
            del self.oob_score_, self.oob_decision_function_
        return self

    def _set_oob(self, bags, y_enc, counts, weight):
        instances, offsets = _table(bags)
        total = np.zeros((bags.n_bags, len(self.classes_)))
        seen = np.zeros(bags.n_bags, dtype=np.intp)
        for tree, c in zip(self.estimators_, counts):
            out = np.flatnonzero(c * weight == 0)  # bags that did not shape this tree
            if out.size:
                sub = bags.subset(out)
                total[out] += tree.predict_proba(*_table(sub))
                seen[out] += 1
        ok = np.flatnonzero(seen > 0)
        if not ok.size or not weight[ok].sum() > 0:
            raise ValueError("no bag (of positive weight) was left out of every bootstrap sample: "
                             "oob_score needs more bags or fewer trees")
        oob = np.full_like(total, np.nan)
        oob[ok] = total[ok] / seen[ok, None]
        self.oob_decision_function_ = oob
        pred = np.argmax(oob[ok], axis=1)
        self.oob_score_ = float(np.average(pred == y_enc[ok], weights=weight[ok]))

    def predict_proba(self, X):
        """Class probabilities: the mean of the trees' leaf class frequencies.

        Parameters
        ----------
        X : sequence of 2-D arrays or Bags

        Returns
        -------
        proba : ndarray of shape (n_bags, n_classes)
            Columns follow ``classes_``.
        """
        check_is_fitted(self, "estimators_")
        instances, offsets = _table(self._validate_predict(X))
        return _mean_tree_output(lambda tree: tree.predict_proba(instances, offsets),
                                 self.estimators_, self.n_jobs)

    def decision_function(self, X):
        """Log-odds of the averaged probabilities.

        Returns
        -------
        scores : ndarray of shape (n_bags,) or (n_bags, n_classes)
            Two classes: for ``classes_[1]``. More: per class.
        """
        logit = log_odds(self.predict_proba(X))
        return logit[:, 1] if len(self.classes_) == 2 else logit

    def export_text(self, tree=0, feature_names=None, decimals=3, max_lines=None):
        """One tree of the forest as indented text (see :meth:`BagRatioTree.export_text`).

        Parameters
        ----------
        tree : int, default=0
            Index into ``estimators_``.
        feature_names : sequence of str, default=None
            Defaults to ``feature_names_in_`` when fitted on named features.
        decimals : int, default=3
        max_lines : int or None, default=None
            Keep only the first lines.

        Returns
        -------
        text : str
        """
        check_is_fitted(self, "estimators_")
        if feature_names is None:
            feature_names = getattr(self, "feature_names_in_", None)
        elif len(feature_names) != self.n_features_in_:
            raise ValueError(f"feature_names has {len(feature_names)} names; "
                             f"the forest was fitted on {self.n_features_in_} features")
        text = self.estimators_[tree].export_text(feature_names, self.classes_, decimals)
        return text if max_lines is None else "\n".join(text.split("\n")[:max_lines])


def _table(bags):
    """A validated Bags object as the kernels' C-contiguous instance table and offsets."""
    return (np.ascontiguousarray(bags.instances, dtype=np.float64),
            np.ascontiguousarray(bags.offsets, dtype=np.intp))

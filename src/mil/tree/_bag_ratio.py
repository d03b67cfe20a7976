"""The bag-ratio tree: a tree whose rules send whole bags by a share of their instances.

A node's rule (f, theta, r) sends a bag to the left child when the share of
its instances with x_f <= theta exceeds r (Komarek and Somol, "Multiple
instance learning with bag-level randomized trees", ECML PKDD 2018). The
grower here builds extremely randomised trees (Geurts, Ernst and Wehenkel,
2006) of such rules; bag-level randomized trees
(:class:`~mil.ensemble.BagRandomTreesClassifier`) average them and GDBT-MI
(``split="bag-ratio"``) boosts them.

The trees are grown here, not by :mod:`mil.tree`'s builder: that builder
routes instances (a bag reaches every leaf one of its instances reaches) and
counts distinct bags while sweeping sorted instances, whereas a bag-ratio tree
routes each bag as a whole by a share of its instances, so a node holds bags
and scores a candidate by one pass over their instances (the compiled kernel
``mil._core._bag_shares``).
"""

import numpy as np

from mil._core import kernel
from mil._scaling import row_blocks
from mil.tree._export import boosting_tree_printout, class_tree_printout, render

__all__ = ["BagRatioTree", "bag_table", "grow_bag_ratio_regression_tree", "grow_bag_ratio_tree", "share_table"]


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
    n_class_bags : ndarray of intp, shape (n_nodes, n_classes) or None
        The same per class (per residual sign in a GDBT-MI round's tree).
    random_state : int
        The seed the tree was grown with.
    """

    n_class_bags = None  # a tree pickled before the counts per class were kept

    def __init__(self, feature, threshold, ratio, left, right, value, gain, n_node_bags, random_state=None,
                 n_class_bags=None):
        self.feature = np.asarray(feature, dtype=np.intp)
        self.threshold = np.asarray(threshold, dtype=np.float64)
        self.ratio = np.asarray(ratio, dtype=np.float64)
        self.left = np.asarray(left, dtype=np.intp)
        self.right = np.asarray(right, dtype=np.intp)
        self.value = np.asarray(value, dtype=np.float64)
        self.gain = np.asarray(gain, dtype=np.float64)
        self.n_node_bags = np.asarray(n_node_bags, dtype=np.intp)
        self.random_state = random_state
        self.n_class_bags = None if n_class_bags is None else np.asarray(n_class_bags, dtype=np.intp)

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

    def feature_importances(self, n_features):
        """Entropy decrease per feature (summed over the tree's rules), normalised to sum to one."""
        inner = self.left >= 0
        gains = np.bincount(self.feature[inner], weights=self.gain[inner], minlength=n_features)
        return gains / gains.sum() if gains.sum() > 0 else gains

    def apply(self, instances, offsets):
        """The leaf each bag reaches (bags as an instance table and offsets)."""
        return kernel("_bag_shares").apply_bags(instances, offsets, self.feature, self.threshold, self.ratio,
                                                self.left, self.right)

    def predict_proba(self, instances, offsets):
        """Class frequencies of the leaf each bag reaches, shape (n_bags, n_classes)."""
        return self.value[self.apply(instances, offsets)]

    def class_bag_counts(self):
        """Distinct training bags of each class (of each residual sign in a boosting round) per node."""
        if self.n_class_bags is None:
            raise ValueError("this BagRatioTree was built without n_class_bags: its leaves' bags per class "
                             "are unknown, so it cannot be printed")
        return self.n_class_bags

    @property
    def children_left(self):
        return self.left

    @property
    def children_right(self):
        return self.right

    def split_text(self, node, name, decimals=2):
        """The two sides of an inner node's rule: the bags that go left, then right."""
        rule = f"share of instances with {name} <= {self.threshold[node]:.{decimals}f}"
        r = f"{self.ratio[node]:.{decimals}f}"
        return f"{rule} >  {r}", f"{rule} <= {r}"

    def _tree_to_print(self, index, class_names=None):
        if index is not None:
            raise ValueError("index chooses a tree of an ensemble, not of one BagRatioTree")
        if self.value.ndim == 1:  # a boosting round's tree: one value per leaf, bags by residual sign
            names = (0, 1) if class_names is None else tuple(class_names)
            return boosting_tree_printout(self, *names)
        names = range(self.value.shape[1]) if class_names is None else class_names
        return class_tree_printout(self, names)

    def export_text(self, feature_names=None, class_names=None, decimals=2, max_lines=None):
        """The tree as indented text, one line per rule side and per leaf (see :func:`mil.tree.export_text`).

        An inner node prints as ``share of instances with f <= theta >  r``
        (the bags that go left) and ``<= r`` (right); a leaf as its most
        frequent class, the training bags of each class and the class's
        frequency (in a GDBT-MI round's tree, whose leaves hold one Newton
        value each: ``value: v`` and the bags of each class).

        `feature_names`, `decimals` and `max_lines` are those of
        :func:`mil.tree.export_text`; `class_names` names the classes
        (``0``, ``1``, ..., the class indices, by default). Returns the text.
        """
        return render(self._tree_to_print(None, class_names), feature_names, decimals, max_lines)

    def __str__(self):
        return self.export_text()

    def __repr__(self):
        return f"BagRatioTree(node_count={self.node_count}, random_state={self.random_state})"


def grow_bag_ratio_tree(table, y_enc, n_classes, weight, seed, n_feat, n_rules, best_ratio, min_bags, max_depth):
    """Grow one bag-ratio tree on the bags of positive `weight` (depth first).

    Per inner node, one draw of ``d + 2 n_feat n_rules`` uniforms: the
    features searched (the first `n_feat` of a random permutation), then the
    thresholds' and ratios' uniforms. The draws depend on the seed and the
    node order only, so both kernel backends and any `n_jobs` grow the same
    tree. A leaf holds the bag-weighted class frequencies of its bags.
    """
    k = kernel("_bag_shares")

    def value(bags):
        counts = np.bincount(y_enc[bags], weights=weight[bags], minlength=n_classes)
        return counts / counts.sum(), np.count_nonzero(counts) <= 1

    def search(bags, feats, u_theta, u_ratio):
        return k.best_rule(table, bags, y_enc[bags], weight[bags], n_classes, feats, u_theta, u_ratio, best_ratio,
                           min_bags)

    def counts(bags):
        return np.bincount(y_enc[bags], minlength=n_classes)

    return _grow(table, weight, seed, n_feat, n_rules, min_bags, max_depth, value, search, counts)


def grow_bag_ratio_regression_tree(table, y, weight, seed, n_feat, n_rules, best_ratio, min_bags, max_depth):
    """Grow one bag-ratio regression tree on the bags of positive `weight` (depth first).

    As :func:`grow_bag_ratio_tree` (the same draws), with real-valued bag
    targets `y`: a rule is chosen by variance reduction (the children's
    weighted sum of squared deviations from their means), a node whose
    targets are all equal stays a leaf, and a leaf holds the weighted mean
    of its bags' targets.
    """
    k = kernel("_bag_shares")

    def value(bags):
        w, t = weight[bags], y[bags]
        return float(np.sum(w * t) / np.sum(w)), bool(np.all(t == t[0]))

    def search(bags, feats, u_theta, u_ratio):
        return k.best_regression_rule(table, bags, y[bags], weight[bags], feats, u_theta, u_ratio, best_ratio,
                                      min_bags)

    def counts(bags):
        return np.array([bags.size])

    return _grow(table, weight, seed, n_feat, n_rules, min_bags, max_depth, value, search, counts)


def _grow(table, weight, seed, n_feat, n_rules, min_bags, max_depth, node_value, search, node_counts):
    """The depth-first growth both bag-ratio trees share: `node_value(bags)` gives a node's value and
    whether it is pure, `search` its best rule, `node_counts` the bag counts kept per node."""
    rng = np.random.default_rng(seed)
    d = table.XT.shape[0]
    feature, threshold, ratio, left, right, value, gain, n_node, n_class = [], [], [], [], [], [], [], [], []
    pure = []

    def new_node(bags):
        v, is_pure = node_value(bags)
        for lst, x in ((feature, -1), (threshold, 0.0), (ratio, 0.0), (left, -1), (right, -1),
                       (gain, 0.0), (n_node, bags.size), (n_class, node_counts(bags)), (value, v), (pure, is_pure)):
            lst.append(x)
        return len(feature) - 1

    root = np.flatnonzero(weight > 0)
    stack = [(new_node(root), root, 0)]
    while stack:
        node, bags, depth = stack.pop()
        if pure[node] or bags.size < 2 * min_bags or (max_depth is not None and depth >= max_depth):
            continue
        u = rng.random(d + 2 * n_feat * n_rules)
        feats = np.argsort(u[:d], kind="stable")[:n_feat]
        u_theta = u[d:d + n_feat * n_rules].reshape(n_feat, n_rules)
        u_ratio = u[d + n_feat * n_rules:].reshape(n_feat, n_rules)
        rule = search(bags, feats, u_theta, u_ratio)
        if rule is None:
            continue
        f, theta, r, g, go_left = rule
        feature[node], threshold[node], ratio[node], gain[node] = f, theta, r, g
        lb, rb = bags[go_left], bags[~go_left]
        left[node] = new_node(lb)
        right[node] = new_node(rb)
        stack.append((right[node], rb, depth + 1))
        stack.append((left[node], lb, depth + 1))
    return BagRatioTree(feature, threshold, ratio, left, right, np.array(value), gain, n_node, random_state=seed,
                        n_class_bags=np.array(n_class))


def bag_table(bags):
    """A validated Bags object as the kernels' C-contiguous instance table and offsets."""
    return (np.ascontiguousarray(bags.instances, dtype=np.float64),
            np.ascontiguousarray(bags.offsets, dtype=np.intp))


def share_table(bags):
    """The compiled kernel's share table of validated bags, read by :func:`grow_bag_ratio_tree`.

    The feature-major float64 table is filled a block of rows at a time, so
    float32 bags (a memory map) are not first copied whole into float64.
    """
    X = bags.instances
    XT = np.empty((X.shape[1], X.shape[0]))
    for i, j in row_blocks(*X.shape):
        XT[:, i:j] = X[i:j].T
    return kernel("_bag_shares").ShareTable(XT, np.ascontiguousarray(bags.offsets, dtype=np.intp))

"""A fitted multi-instance tree stored as flat NumPy arrays (cheap to pickle).

Node 0 is the root. Internal nodes have ``feature >= 0`` and two children;
leaves have ``feature == children_left == children_right == -1``. Routing an
instance is a compiled loop (``mil._core._tree_split.apply``), identical on
both backends, and a model pickled on one backend predicts on the other.
"""

import numpy as np

from mil._core import kernel
from mil.tree._export import concept_tree_printout

__all__ = ["Tree"]

_FIELDS = (
    ("feature", np.intp),          # split feature, -1 for a leaf
    ("threshold", np.float64),     # x <= threshold goes left
    ("missing_left", np.uint8),    # 1 if NaN goes left
    ("children_left", np.intp),
    ("children_right", np.intp),
    ("depth", np.intp),
    ("n_pos_bags", np.intp),       # pi: distinct positive bags that reached the node in training
    ("n_neg_bags", np.intp),       # nu: distinct negative bags
    ("weighted_pos", np.float64),  # the same counts weighted by the bag weights
    ("weighted_neg", np.float64),
    ("leaf_pos", np.float64),      # the bag weight of the leaf estimates (distinct counts by default)
    ("leaf_neg", np.float64),
    ("n_instances", np.intp),      # training instances in the node when it was expanded
    ("gain", np.float64),          # Gain_multi of the split (0 for leaves)
    ("value", np.float64),         # leaf output: Laplace estimate (pi + 1) / (pi + nu + 2)
)
# Fields a tree pickled (or built) before they existed gets from the others.
_DERIVED = {"leaf_pos": lambda a: np.asarray(a["n_pos_bags"], dtype=np.float64),
            "leaf_neg": lambda a: np.asarray(a["n_neg_bags"], dtype=np.float64)}


class Tree:
    """Flat-array multi-instance tree.

    Attributes
    ----------
    feature, threshold, missing_left, children_left, children_right : ndarray
        Structure; see the module docstring.
    depth : ndarray of intp
        Depth of each node (the root has depth 0).
    n_pos_bags, n_neg_bags : ndarray of intp
        pi and nu of each node: distinct positive / negative bags with an
        instance in the node when it was expanded (after positive-bag removal).
    weighted_pos, weighted_neg : ndarray of float64
        The same with the split bag weights (equal to the counts for unit
        weights; a forest's bootstrap counts, times any sample weights).
    leaf_pos, leaf_neg : ndarray of float64
        The same with the leaf bag weights, from which :meth:`laplace` and
        :attr:`positive_leaf` are computed: the distinct counts by default;
        the sample weights of a tree (or forest) fitted with them, so that
        an integer weight counts like copies of the bag while a forest's
        bootstrap multiplicity does not.
    n_instances : ndarray of intp
        Training instances in each node when it was expanded.
    gain : ndarray of float64
        Gain_multi of each internal node's split (0 for leaves).
    value : ndarray of float64
        Output of each leaf; the Laplace estimate by default. Writable: a
        boosting learner sets its Newton-step leaf values here.
    n_features : int or None
        Number of features of the training instances; :meth:`apply` rejects
        a matrix with another number of columns. None (a tree pickled
        before it was stored) checks only the features the splits use.
    """

    def __init__(self, n_features=None, **arrays):
        for name, derive in _DERIVED.items():
            if name not in arrays:
                arrays[name] = derive(arrays)
        for name, dtype in _FIELDS:
            setattr(self, name, np.ascontiguousarray(arrays[name], dtype=dtype))
        self.n_features = None if n_features is None else int(n_features)

    @property
    def node_count(self):
        return self.feature.shape[0]

    @property
    def is_leaf(self):
        return self.children_left < 0

    @property
    def n_leaves(self):
        return int(self.is_leaf.sum())

    @property
    def max_depth(self):
        return int(self.depth.max())

    @property
    def positive_leaf(self):
        """True where a leaf holds more positive than negative bag weight (pi > nu, leaf weights)."""
        return self.is_leaf & (self.leaf_pos > self.leaf_neg)

    def laplace(self, smoothing=1.0):
        """(pi + s) / (pi + nu + 2 s) of every node, on the leaf weights ``leaf_pos`` / ``leaf_neg``.

        ``smoothing`` s = 1 is Laplace's estimate (pi + 1) / (pi + nu + 2);
        a larger s shrinks every leaf towards 1/2 without moving it across
        1/2, so the leaves that are positive (pi > nu) stay the same.
        """
        return (self.leaf_pos + smoothing) / (self.leaf_pos + self.leaf_neg + 2.0 * smoothing)

    def apply(self, instances):
        """Leaf index of every row of a C-contiguous float64 instance matrix.

        Raises a ValueError when the matrix is not 2-D or its number of
        columns is not the training one (``n_features``; for a tree without
        it, fewer columns than a split feature needs).
        """
        instances = np.asarray(instances)
        if instances.ndim != 2:
            raise ValueError(f"instances must be a 2-D matrix (n_instances, n_features); "
                             f"got shape {instances.shape}")
        needed = int(self.feature.max()) + 1 if self.feature.size else 0
        if instances.shape[1] < needed:
            raise ValueError(f"instances have {instances.shape[1]} features but the tree splits "
                             f"on feature {needed - 1}")
        if self.n_features is not None and instances.shape[1] != self.n_features:
            raise ValueError(f"instances have {instances.shape[1]} features but the tree was "
                             f"trained on {self.n_features}")
        return kernel("_tree_split").apply(
            instances, self.feature, self.threshold, self.missing_left,
            self.children_left, self.children_right)

    def predict_value(self, instances):
        """``value`` of the leaf each instance reaches."""
        return self.value[self.apply(instances)]

    def class_bag_counts(self):
        """Distinct training bags per node, negative then positive: ``[n_neg_bags, n_pos_bags]``."""
        return np.column_stack([self.n_neg_bags, self.n_pos_bags])

    def split_text(self, node, name, decimals=2):
        """The two sides of an inner node's rule as text: ``name <= t`` and ``name >  t``."""
        thr = f"{self.threshold[node]:.{decimals}f}"
        return f"{name} <= {thr}", f"{name} >  {thr}"

    def _tree_to_print(self, index):
        if index is not None:
            raise ValueError("index chooses a tree of an ensemble or of a classifier of several classes, "
                             "not of one Tree")
        # A bare tree knows no labels: its concept's bags are "pos", the others "neg".
        return concept_tree_printout(self, "neg", "pos")

    def subtree(self, keep_leaf):
        """A copy in which the nodes flagged in `keep_leaf` become leaves (pruning).

        Unreachable nodes are dropped and the rest renumbered in preorder.
        """
        keep_leaf = np.asarray(keep_leaf, dtype=bool)
        order, stack = [], [0]
        while stack:
            node = stack.pop()
            order.append(node)
            if not keep_leaf[node] and self.children_left[node] >= 0:
                stack.append(self.children_right[node])
                stack.append(self.children_left[node])
        order = np.array(order, dtype=np.intp)
        new_id = np.full(self.node_count, -1, dtype=np.intp)
        new_id[order] = np.arange(order.size)
        arrays = {name: getattr(self, name)[order].copy() for name, _ in _FIELDS}
        leaf = keep_leaf[order] | (self.children_left[order] < 0)
        arrays["children_left"] = np.where(leaf, -1, new_id[np.maximum(arrays["children_left"], 0)])
        arrays["children_right"] = np.where(leaf, -1, new_id[np.maximum(arrays["children_right"], 0)])
        arrays["feature"] = np.where(leaf, -1, arrays["feature"])
        arrays["threshold"] = np.where(leaf, np.nan, arrays["threshold"])
        arrays["gain"] = np.where(leaf, 0.0, arrays["gain"])
        return Tree(n_features=self.n_features, **arrays)

    def __getstate__(self):
        state = {name: getattr(self, name) for name, _ in _FIELDS}
        state["n_features"] = self.n_features
        return state

    def __setstate__(self, state):
        state = dict(state)
        for name, derive in _DERIVED.items():
            if name not in state:
                state[name] = derive(state)
        for name, _ in _FIELDS:
            setattr(self, name, state[name])
        self.n_features = state.get("n_features")

    def __eq__(self, other):
        if not isinstance(other, Tree):
            return NotImplemented
        return self.n_features == other.n_features and all(
            np.array_equal(getattr(self, n), getattr(other, n), equal_nan=True) for n, _ in _FIELDS)

    __hash__ = None

    def __repr__(self):
        return f"Tree(node_count={self.node_count}, n_leaves={self.n_leaves}, max_depth={self.max_depth})"

"""Text form of a fitted tree: an ID3-MI / C4.5-MI tree, a bag-ratio tree, or one tree of an ensemble.

The printer imports no estimator. Whatever prints (a tree classifier, a
forest, BLRT, GDBT-MI, or a bare :class:`~mil.tree.Tree` /
:class:`~mil.tree.BagRatioTree`) hands it one tree through a method
``_tree_to_print(index)`` returning a :class:`PrintedTree`: the tree, what
its leaves hold and the class labels of their counts. The trees themselves
give their rules' text (``split_text``) and their bag counts per class
(``class_bag_counts``).
"""

import numbers
from typing import NamedTuple, Optional

import numpy as np
from sklearn.exceptions import NotFittedError

from mil.utils._printing import count_text, outcome_text, truncate_lines
from mil.utils.validation import printed_feature_names

__all__ = ["PrintedTree", "export_text", "render", "member_index", "ensemble_member", "concept_tree_printout", "boosting_tree_printout",
           "class_tree_printout", "not_fitted", "TreeExportMixin"]


class PrintedTree(NamedTuple):
    """One tree as the printer reads it.

    Attributes
    ----------
    tree : Tree or BagRatioTree
        Read through ``children_left``, ``children_right``, ``split_text``
        and ``class_bag_counts``.
    names : tuple
        The class of each column of the counts, as the user gave them.
    proba : ndarray of shape (n_nodes, n_columns) or None
        Class probabilities of each node (a classification tree's leaves).
    value : ndarray of shape (n_nodes,) or None
        The value of each leaf (a boosting round's tree).
    weights : ndarray of shape (n_nodes, n_columns) or None
        The bag weight per class of each node, printed where it is not the
        count (a tree fitted with sample weights).
    owner : estimator or None
        Names the features (``feature_names_in_``, ``n_features_in_``).
    header : str or None
        A first line naming the member of an ensemble that is printed.
    """

    tree: object
    names: tuple
    proba: Optional[np.ndarray] = None
    value: Optional[np.ndarray] = None
    weights: Optional[np.ndarray] = None
    owner: object = None
    header: Optional[str] = None


def not_fitted(what):
    """The error of printing an unfitted model."""
    return NotFittedError(f"export_text needs a fitted {what}; call fit first")


def member_index(index, n, what):
    """`index` checked against `n` members (negative counts from the end)."""
    if index is None:
        raise ValueError(f"this model holds {n} {what}s; choose one with export_text(model, index=k) or "
                         f"model.export_text(k), k from 0 to {n - 1}")
    if isinstance(index, bool) or not isinstance(index, numbers.Integral) or not -n <= index < n:
        raise ValueError(f"index={index!r} is not a {what} of this model; give an integer from 0 to {n - 1}")
    return int(index) % n


def ensemble_member(model, index, what, key, per_class=True):
    """(member, class index or None) that `index` chooses in a fitted ensemble's ``estimators_``.

    With more than two classes and `per_class`, each member (a forest's tree,
    a boosting round) holds one tree per class, and `index` is ``(member,
    class)``.
    """
    if not hasattr(model, "estimators_"):
        raise not_fitted(type(model).__name__)
    n = len(model.estimators_)
    if not per_class or len(model.classes_) == 2:
        return member_index(index, n, what), None
    n_classes = len(model.classes_)
    if not (isinstance(index, tuple) and len(index) == 2):
        raise ValueError(f"with {n_classes} classes each {what} holds one tree per class; "
                         f"choose one with index=({key}, class index)")
    return member_index(index[0], n, what), member_index(index[1], n_classes, "class")


def concept_tree_printout(tree, negative, positive, smoothing=1.0, owner=None, header=None):
    """An ID3-MI / C4.5-MI concept tree: leaves of class `positive` where pi > nu, else `negative`.

    The probability printed is the smoothed leaf estimate (pi + s) / (pi +
    nu + 2 s) of the printed class (s = `smoothing`); the bag weights are
    printed where the tree was grown with weights that are not the counts.
    """
    q = tree.laplace(smoothing)
    weights = np.column_stack([tree.leaf_neg, tree.leaf_pos])
    if np.array_equal(weights, tree.class_bag_counts()):
        weights = None
    return PrintedTree(tree, (negative, positive), proba=np.column_stack([1.0 - q, q]), weights=weights,
                       owner=owner, header=header)


def class_tree_printout(tree, classes, owner=None, header=None):
    """A bag-ratio tree whose leaves hold class frequencies (BLRT's)."""
    return PrintedTree(tree, tuple(classes), proba=tree.value, owner=owner, header=header)


def boosting_tree_printout(tree, negative, positive, owner=None, header=None):
    """A boosting round's tree: each leaf's value, and its bags by the sign of their residual (their class)."""
    return PrintedTree(tree, (negative, positive), value=tree.value, owner=owner, header=header)


class TreeExportMixin:
    """``export_text`` as a method of the models that print a tree (see :func:`export_text`)."""

    #: The member printed when the method is called without `index` (None: the model's only tree).
    _default_print_index = None

    def export_text(self, index=None, feature_names=None, decimals=2, max_lines=None):
        """Print the model's tree, or one tree of the ensemble, as indented text.

        Parameters
        ----------
        index : int or (int, int), default=None
            Which tree (see :func:`mil.tree.export_text`); an ensemble
            prints its first (``estimators_[0]``) by default.
        feature_names : sequence of str, default=None
            Defaults to ``feature_names_in_`` when fitted on named
            features, else ``x0``, ``x1``, ...
        decimals : int, default=2
            Decimals of the thresholds and probabilities printed.
        max_lines : int or None, default=None
            Print at most this many lines, then a line saying how many were cut.

        Returns
        -------
        text : str
            One line per rule side and per leaf, indented by depth.
        """
        if index is None:
            index = self._default_print_index
        return export_text(self, feature_names, decimals, index=index, max_lines=max_lines)


def _printout(model, index):
    to_print = getattr(model, "_tree_to_print", None)
    if to_print is None:
        own = " (it prints itself with its own export_text method)" if hasattr(model, "export_text") else ""
        raise TypeError(f"export_text prints the trees of ID3-MI / C4.5-MI, the MI random forest, BLRT and "
                        f"GDBT-MI, or a Tree / BagRatioTree, not {type(model).__name__}{own}")
    return to_print(index)


def export_text(tree, feature_names=None, decimals=2, *, index=None, max_lines=None):
    """Print a fitted tree, or one tree of a fitted ensemble, as indented text.

    Parameters
    ----------
    tree : tree classifier, ensemble, mil.tree.Tree or mil.tree.BagRatioTree
        A fitted :class:`ID3MIClassifier` / :class:`C45MIClassifier` (with
        more than two classes, `index` chooses a class's tree), a fitted
        :class:`~mil.ensemble.MIRandomForestClassifier`,
        :class:`~mil.ensemble.BagRandomTreesClassifier` or
        :class:`~mil.ensemble.GDBTMIClassifier` (`index` chooses the tree),
        or one tree.
    feature_names : sequence of str, default=None
        One name per feature. Default: the ``feature_names_in_`` the model
        was fitted with (DataFrame bags, :func:`mil.datasets.from_frame`, a
        :class:`~mil.Bags` with ``feature_names``), else ``x0``, ``x1``, ...
        (the column index).
    decimals : int, default=2
        Decimals of thresholds, ratios, probabilities and leaf values.
    index : int or (int, int), default=None
        Which tree: of a forest or BLRT, ``estimators_[index]``; of GDBT-MI,
        the boosting round ``estimators_[index]``; of a tree classifier
        with more than two classes, the tree of ``classes_[index]`` against
        the others. With more than two classes a forest's tree and a
        boosting round hold one tree per class: ``(member, class index)``.
    max_lines : int or None, default=None
        Print at most this many lines, then a line ``... (N more lines;
        max_lines=K)``.

    Returns
    -------
    text : str
        One line per split side and per leaf, after a first line naming the
        member of an ensemble (for example ``tree 3 of 100
        (estimators_[3])``). A rule reads ``x2 <= 0.50`` (a bag-ratio
        tree's: ``share of instances with x2 <= 0.50 > 0.25``). A
        classification leaf reads ``class: <label> (bags: <label>=<count>,
        ...; p=<probability>)``: the predicted class as the model's
        ``classes_`` hold it, the training bags of each class that reached
        the leaf (``bag weight: ...`` follows where sample weights made the
        leaf's weights differ from its counts), and the leaf's probability
        of that class. A boosting round's leaf reads ``value: <v> (bags:
        ...)``: the step added to the score (before the learning rate) and
        the training bags of each class in it. Where NaN goes is in
        ``tree_.missing_left``; it is not printed.

    Raises
    ------
    NotFittedError
        The model is not fitted.
    TypeError
        The model has no tree to print.
    ValueError
        `index` is missing for an ensemble, out of range, or given for a
        single tree; `feature_names` has the wrong length.

    Examples
    --------
    >>> import numpy as np
    >>> from mil.tree import ID3MIClassifier, export_text
    >>> X = [np.array([[0.0], [5.0]]), np.array([[1.0]]),
    ...      np.array([[0.5], [2.0]]), np.array([[6.0], [1.5]])]
    >>> clf = ID3MIClassifier(min_bags_leaf=1, positive_class="yes")
    >>> print(export_text(clf.fit(X, ["yes", "no", "no", "yes"]), feature_names=["size"]))
    |--- size <= 3.50
    |   |--- class: no (bags: no=2, yes=0; p=0.56)
    |--- size >  3.50
    |   |--- class: yes (bags: no=0, yes=2; p=0.56)
    """
    return render(_printout(tree, index), feature_names, decimals, max_lines)


def render(printed, feature_names=None, decimals=2, max_lines=None):
    """The text of a :class:`PrintedTree` (see :func:`export_text`)."""
    t = printed.tree
    n_features = getattr(t, "n_features", None)
    if printed.owner is not None:
        names = printed_feature_names(printed.owner, feature_names)
    elif feature_names is not None:
        names = [str(name) for name in feature_names]
        if n_features is not None and len(names) != n_features:
            raise ValueError(f"feature_names has {len(names)} names; the tree was fitted on "
                             f"{n_features} features")
    else:
        names = None

    def name(f):
        return names[f] if names is not None else f"x{f}"

    counts = t.class_bag_counts()

    def leaf(node):
        if printed.value is not None:
            spread = ", ".join(f"{c}={count_text(k)}" for c, k in zip(printed.names, counts[node]))
            value = round(float(printed.value[node]), decimals) + 0.0  # no "-0.00"
            return f"value: {value:.{decimals}f} (bags: {spread})"
        k = int(np.argmax(printed.proba[node]))  # ties to the first column: a concept tree's negative side
        return outcome_text(printed.names[k], printed.names, counts[node],
                            weights=None if printed.weights is None else printed.weights[node],
                            p=float(printed.proba[node][k]), decimals=decimals)

    lines = [] if printed.header is None else [printed.header]
    left, right = t.children_left, t.children_right

    def walk(node, depth):
        indent = "|   " * depth + "|--- "
        if left[node] < 0:
            lines.append(indent + leaf(node))
            return
        go_left, go_right = t.split_text(node, name(t.feature[node]), decimals)
        lines.append(indent + go_left)
        walk(left[node], depth + 1)
        lines.append(indent + go_right)
        walk(right[node], depth + 1)

    walk(0, 0)
    return truncate_lines(lines, max_lines)

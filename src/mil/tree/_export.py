"""Readable text form of a fitted multi-instance tree."""

from mil.tree._tree import Tree

__all__ = ["export_text"]


def export_text(tree, feature_names=None, decimals=2):
    """Print a fitted ID3-MI / C4.5-MI tree as indented text.

    Parameters
    ----------
    tree : ID3MIClassifier, C45MIClassifier or mil.tree.Tree
        A two-class classifier, or one tree (e.g. ``clf.trees_[k]`` of a
        classifier fitted on more classes).
    feature_names : sequence of str, default=None
        One name per feature (``x0``, ``x1``, ... by default).
    decimals : int, default=2
        Decimals of thresholds and leaf estimates.

    Returns
    -------
    text : str
        One line per split side and per leaf; a leaf shows its label
        (``pos`` when pi > nu), pi, nu and the Laplace estimate. Where NaN
        goes is in ``tree_.missing_left``; it is not printed.

    Examples
    --------
    >>> import numpy as np
    >>> from mil.tree import ID3MIClassifier, export_text
    >>> X = [np.array([[0.0], [5.0]]), np.array([[1.0]]),
    ...      np.array([[0.5], [2.0]]), np.array([[6.0], [1.5]])]
    >>> clf = ID3MIClassifier(growth="best", split_shares="children").fit(X, [1, 0, 0, 1])
    >>> print(export_text(clf, feature_names=["size"]))
    |--- size <= 3.50
    |   |--- neg (pi=0, nu=2, p=0.25)
    |--- size >  3.50
    |   |--- pos (pi=2, nu=0, p=0.75)
    """
    t = tree if isinstance(tree, Tree) else getattr(tree, "tree_", None)
    if t is None and len(getattr(tree, "trees_", ())) > 1:
        raise ValueError(f"this classifier has one tree per class ({len(tree.trees_)}); "
                         "print one with export_text(clf.trees_[k], ...) (class clf.classes_[k])")
    if t is None:
        from sklearn.exceptions import NotFittedError

        raise NotFittedError("export_text needs a fitted tree; call fit first")
    n_features = None if not hasattr(tree, "n_features_in_") else tree.n_features_in_
    if feature_names is not None:
        feature_names = [str(name) for name in feature_names]
        if n_features is not None and len(feature_names) != n_features:
            raise ValueError(f"feature_names has {len(feature_names)} names; "
                             f"the tree was fitted on {n_features} features")
    laplace = t.laplace()
    lines = []

    def name(f):
        return feature_names[f] if feature_names is not None else f"x{f}"

    def walk(node, depth):
        indent = "|   " * depth + "|--- "
        if t.children_left[node] < 0:
            label = "pos" if t.n_pos_bags[node] > t.n_neg_bags[node] else "neg"
            lines.append(f"{indent}{label} (pi={t.n_pos_bags[node]}, nu={t.n_neg_bags[node]}, "
                         f"p={laplace[node]:.{decimals}f})")
            return
        thr = f"{t.threshold[node]:.{decimals}f}"
        lines.append(f"{indent}{name(t.feature[node])} <= {thr}")
        walk(t.children_left[node], depth + 1)
        lines.append(f"{indent}{name(t.feature[node])} >  {thr}")
        walk(t.children_right[node], depth + 1)

    walk(0, 0)
    return "\n".join(lines)

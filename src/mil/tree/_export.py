"""Readable text form of a fitted multi-instance tree (a tree learner's, a forest's or a boosting round's)."""

import numbers

from mil.tree._tree import Tree
from mil.utils.validation import printed_feature_names

__all__ = ["export_text"]


def _not_fitted(what):
    from sklearn.exceptions import NotFittedError

    return NotFittedError(f"export_text needs a fitted {what}; call fit first")


def _index(index, n, what):
    """`index` checked against `n` items (negative counts from the end)."""
    if index is None:
        raise ValueError(f"this model holds {n} {what}s; choose one with index=k (0 to {n - 1})")
    if isinstance(index, bool) or not isinstance(index, numbers.Integral) or not -n <= index < n:
        raise ValueError(f"index={index!r} is not a {what} of this model; give an integer from 0 to {n - 1}")
    return int(index) % n


def _resolve(model, index):
    """The tree to print, the estimator that names its features, and the kind of leaves."""
    if isinstance(model, Tree):
        if index is not None:
            raise ValueError("index applies to a forest or a boosting model, not to one Tree")
        return model, None, "counts"
    from mil.ensemble import GDBTMIClassifier, MIRandomForestClassifier

    if isinstance(model, MIRandomForestClassifier):
        if not hasattr(model, "estimators_"):
            raise _not_fitted("forest")
        k = _index(index, len(model.estimators_), "tree")
        tree, _, kind = _resolve(model.estimators_[k], None)
        return tree, model, kind
    if isinstance(model, GDBTMIClassifier):
        if not hasattr(model, "estimators_"):
            raise _not_fitted("GDBT-MI model")
        rounds = model.estimators_
        if isinstance(index, tuple) and len(index) == 2 and len(model.classes_) > 2:
            m, c = index
            stage = rounds[_index(m, len(rounds), "boosting round")]
            return stage[_index(c, len(stage), "class")], model, "value"
        m = _index(index, len(rounds), "boosting round")
        if len(model.classes_) > 2:
            raise ValueError(f"with {len(model.classes_)} classes each boosting round has one tree per "
                             f"class; choose one with index=(round, class index)")
        return rounds[m], model, "value"
    if index is not None:
        raise ValueError(f"index applies to a forest or a boosting model, not to {type(model).__name__}")
    if not hasattr(model, "trees_"):
        if hasattr(model, "get_params") and hasattr(type(model), "fit"):
            from mil.tree._classes import _BaseMITree

            if isinstance(model, _BaseMITree):
                raise _not_fitted("tree")
        raise TypeError(f"export_text prints ID3-MI / C4.5-MI trees, an MI random forest's tree or a "
                        f"GDBT-MI round, not {type(model).__name__}")
    if len(model.trees_) > 1:
        raise ValueError(f"this classifier has one tree per class ({len(model.trees_)}); "
                         "print one with export_text(clf.trees_[k], feature_names=...) "
                         "(class clf.classes_[k])")
    return model.tree_, model, "counts"


def export_text(tree, feature_names=None, decimals=2, *, index=None):
    """Print a fitted ID3-MI / C4.5-MI tree, a forest's tree or a GDBT-MI round as indented text.

    Parameters
    ----------
    tree : ID3MIClassifier, C45MIClassifier, MIRandomForestClassifier, GDBTMIClassifier or mil.tree.Tree
        A two-class tree classifier, a forest (with `index`), a boosting
        model (with `index`), or one tree (e.g. ``clf.trees_[k]`` of a tree
        classifier fitted on more classes).
    feature_names : sequence of str, default=None
        One name per feature. Default: the ``feature_names_in_`` the model
        was fitted with (DataFrame bags, :func:`mil.datasets.from_frame`, a
        :class:`~mil.Bags` with ``feature_names``), else ``x0``, ``x1``, ...
        (the column index).
    decimals : int, default=2
        Decimals of thresholds and leaf values.
    index : int or (int, int), default=None
        The tree of a forest (``estimators_[index]``) or the boosting round
        of a GDBT-MI model (``estimators_[index]``; with more than two
        classes ``(round, class index)``).

    Returns
    -------
    text : str
        One line per split side and per leaf. A classification tree's leaf
        shows its label (``pos`` when pi > nu), pi, nu and the Laplace
        estimate; a boosting round's leaf shows its value (the step added
        to the instance score F(x)). Where NaN goes is in
        ``tree_.missing_left``; it is not printed.

    Raises
    ------
    NotFittedError
        The model is not fitted.
    ValueError
        `index` is missing for a forest or boosting model, out of range, or
        given for a single tree; `feature_names` has the wrong length.

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
    t, owner, kind = _resolve(tree, index)
    if owner is not None:
        names = printed_feature_names(owner, feature_names)
    elif feature_names is not None:
        names = [str(name) for name in feature_names]
        if t.n_features is not None and len(names) != t.n_features:
            raise ValueError(f"feature_names has {len(names)} names; the tree was fitted on "
                             f"{t.n_features} features")
    else:
        names = None

    def name(f):
        return names[f] if names is not None else f"x{f}"

    laplace = t.laplace() if kind == "counts" else None
    lines = []

    def leaf(node):
        if kind == "value":
            return f"value={t.value[node]:.{decimals}f} (pi={t.n_pos_bags[node]}, nu={t.n_neg_bags[node]})"
        label = "pos" if t.n_pos_bags[node] > t.n_neg_bags[node] else "neg"
        return f"{label} (pi={t.n_pos_bags[node]}, nu={t.n_neg_bags[node]}, p={laplace[node]:.{decimals}f})"

    def walk(node, depth):
        indent = "|   " * depth + "|--- "
        if t.children_left[node] < 0:
            lines.append(indent + leaf(node))
            return
        thr = f"{t.threshold[node]:.{decimals}f}"
        lines.append(f"{indent}{name(t.feature[node])} <= {thr}")
        walk(t.children_left[node], depth + 1)
        lines.append(f"{indent}{name(t.feature[node])} >  {thr}")
        walk(t.children_right[node], depth + 1)

    walk(0, 0)
    return "\n".join(lines)

"""A fitted RIPPER-MI rule set: the rules' training counts and how a rule set scores what it covers.

:func:`make_rules` turns the conditions the learner found into :class:`~mil.rules._rule.Rule`
objects carrying their per-class training counts, with the default rule;
:func:`score_units` gives the class probabilities and the decided class of
every bag (or instance) from the rules that cover it, in the ordered mode
(a decision list: the first covering rule's class) or the unordered mode
(conflicts resolved by a Laplace vote, the first rule or the shortest).
"""

import numpy as np

from mil._core import kernel
from mil.rules._rule import Rule, pack_rules

__all__ = ["coverage", "make_rules", "most_probable", "score_units"]


def coverage(rules, bags):
    """Boolean matrix (n_rules, n_bags): which rules cover which bags (a bag is covered by one instance)."""
    rule_ptr, features, ops, thresholds = pack_rules([r.conditions for r in rules])
    return kernel("_rule_split").ruleset_coverage(
        bags.instances, bags.offsets, rule_ptr, features, ops, thresholds).astype(bool)


def most_probable(proba, order):
    """Index of the most probable class per row of `proba`, ties to the class earliest in `order`."""
    return order[np.argmax(proba[:, order], axis=1)]


def _class_index(classes, rules):
    index = {c: i for i, c in enumerate(classes.tolist())}
    return np.array([index[r.label.item() if hasattr(r.label, "item") else r.label] for r in rules],
                    dtype=np.intp)


def make_rules(learn, y_learn, rules, default, classes, order, weight=None):
    """Rule objects with their per-class training counts, and the default rule.

    Parameters
    ----------
    learn : Bags
        The training units the rules were learned on.
    y_learn : ndarray of intp
        Class index of each unit.
    rules : list of (class index, conditions, scope)
        A rule's counts are taken on the units of `scope` (in the ordered
        mode, those the earlier classes' rules leave), all of them when None.
    default : int or None
        Class index of the default rule; None (unordered mode): the most
        frequent class among the units no rule covers, else overall, ties to
        the class earliest in `order`.
    classes : ndarray
        The class labels.
    order : ndarray of intp
        Classes in learning order.
    weight : ndarray or None, default=None
        Weight of each unit; None counts each once.

    Returns
    -------
    rules : list of Rule
    default_rule : Rule
    """
    n_classes = classes.shape[0]
    rule_ptr, f, o, t = pack_rules([conds for _, conds, _ in rules])
    cov = kernel("_rule_split").ruleset_coverage(
        learn.instances, learn.offsets, rule_ptr, f, o, t).astype(bool).reshape(-1, learn.n_bags)
    if weight is None:
        onehot = np.zeros((learn.n_bags, n_classes), dtype=np.intp)
        onehot[np.arange(learn.n_bags), y_learn] = 1
    else:
        onehot = np.zeros((learn.n_bags, n_classes), dtype=np.float64)
        onehot[np.arange(learn.n_bags), y_learn] = weight
    out = []
    for i, (c, conds, scope) in enumerate(rules):
        counts = cov[i] @ onehot if scope is None else cov[i, scope] @ onehot[scope]
        out.append(Rule(conds, p=counts[c], n=counts.sum() - counts[c], label=classes[c], counts=counts))
    left = onehot[~cov.any(axis=0)].sum(axis=0)
    if default is None:
        base = left if left.sum() else onehot.sum(axis=0)
        default = int(order[np.argmax(base[order])])
    return out, Rule((), p=left[default], n=left.sum() - left[default], label=classes[default], counts=left)


def score_units(rules, default_rule, classes, cov, order, rule_order, conflict):
    """Class probabilities and decided class index of each unit (bag or instance).

    Parameters
    ----------
    rules : list of Rule
    default_rule : Rule
    classes : ndarray
        The class labels.
    cov : ndarray of bool, shape (n_rules, n_units)
        Which rules cover which units.
    order : ndarray of intp
        Classes in learning order (ties go to the earliest).
    rule_order : {"ordered", "unordered"}
    conflict : {"laplace-vote", "first", "shortest"}

    Returns
    -------
    proba : ndarray of shape (n_units, n_classes)
    decided : ndarray of intp, shape (n_units,)
    """
    n_classes = classes.shape[0]
    n_units = cov.shape[1]
    default_class = _class_index(classes, [default_rule])[0]
    if not len(rules):
        return np.tile(default_rule.distribution, (n_units, 1)), np.full(n_units, default_class)
    dist = np.array([r.distribution for r in rules]).reshape(-1, n_classes)
    rule_cls = _class_index(classes, rules)
    covered = cov.any(axis=0)
    first = np.argmax(cov, axis=0)   # first covering rule (0 for uncovered units)
    if rule_order == "ordered":
        # Average over the covering rules of the first covering rule's class.
        decided = rule_cls[first]
        use = cov & (rule_cls[:, None] == decided[None, :])
    else:
        use = cov
    n_use = use.sum(axis=0)
    proba = (use.T.astype(np.float64) @ dist) / np.maximum(n_use, 1)[:, None]
    proba[~covered] = default_rule.distribution
    if rule_order == "unordered":
        if conflict == "laplace-vote":
            decided = most_probable(proba, order)
        else:
            if conflict == "first":
                chosen = first
            else:
                # Fewest conditions, then the higher Laplace estimate, then the first rule.
                length = np.array([len(r) for r in rules], dtype=np.float64)
                lap = np.array([r.laplace for r in rules])
                key = np.where(cov, length[:, None] - lap[:, None], np.inf)
                chosen = np.argmin(key, axis=0)
            decided = rule_cls[chosen]
    decided = np.where(covered, decided, default_class)
    return proba, decided

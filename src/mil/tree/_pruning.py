"""Pruning of a grown multi-instance tree, and the leaf budget chosen by cross-validation.

C4.5's pessimistic (error-based) pruning on bag weights (Quinlan, "C4.5:
Programs for Machine Learning", 1993), minimal cost-complexity pruning on bag
counts (Breiman, Friedman, Olshen and Stone, "Classification and Regression
Trees", 1984), reduced-error pruning on held-out bags (Quinlan, "Simplifying
decision trees", International Journal of Man-Machine Studies 27, 1987), and
the number of leaves whose prefix of the growth errs least on held-out folds.
Each returns a pruned copy (:meth:`mil.tree.Tree.subtree`) or the number.
"""

import numpy as np
from scipy.stats import norm
from sklearn.utils.validation import check_random_state

from mil.tree._builder import build_tree

__all__ = ["cost_complexity_path", "cv_leaf_budget", "held_out_bags", "pessimistic_errors", "prefix_errors",
           "prune_cost_complexity", "prune_pessimistic", "prune_reduced_error"]


def pessimistic_errors(n, e, confidence):
    """C4.5's upper confidence bound on the errors of a leaf with `n` cases, `e` errors.

    The binomial upper limit at level `confidence` (normal approximation with
    a continuity correction; exact limits for e = 0 and interpolation for
    0 < e < 1, as C4.5 does).
    """
    if n <= 0:
        return 0.0
    z = norm.isf(confidence)

    def extra(errors):
        if errors < 1e-6:
            return n * (1.0 - confidence ** (1.0 / n))
        if errors + 0.5 >= n:
            return 0.67 * (n - errors)
        f = errors + 0.5
        upper = (f + z * z / 2.0 + z * np.sqrt(f * (1.0 - f / n) + z * z / 4.0)) / (n + z * z)
        return n * upper - errors

    if e < 1e-6:
        add = extra(0.0)
    elif e < 0.9999:
        base = extra(0.0)
        add = base + e * (extra(1.0) - base)
    else:
        add = extra(e)
    return e + add


def prune_pessimistic(tree, confidence=0.25):
    """C4.5 error-based pruning on the bags' weights.

    A node whose bags weigh N = pi_w + nu_w in all (``weighted_pos`` +
    ``weighted_neg``: the bag weights the tree was grown with; the distinct
    bag counts with unit weights) and is labelled by majority makes
    E = min(pi_w, nu_w) errors; its subtree is replaced by a leaf when the
    leaf's pessimistic error estimate is at most the sum of its leaves'
    estimates plus 0.1 (C4.5's rule; subtree raising is not done). As in
    C4.5 (and Weka's J48, which counts instance weights), an integer weight
    counts as that many copies of the bag; the estimates are not invariant
    to a common scale of the weights (weights summing to the number of
    bags, or of instances as MIWrapper's, are C4.5's counts).

    Returns
    -------
    tree : Tree
        A pruned copy (or `tree` itself when nothing is pruned).
    """
    n_nodes = tree.node_count
    pi, nu = tree.weighted_pos, tree.weighted_neg
    err = np.zeros(n_nodes)
    make_leaf = np.zeros(n_nodes, dtype=bool)
    # Children are numbered after their parents: a reverse scan is post-order.
    for node in range(n_nodes - 1, -1, -1):
        as_leaf = pessimistic_errors(pi[node] + nu[node], min(pi[node], nu[node]), confidence)
        left, right = tree.children_left[node], tree.children_right[node]
        if left < 0:
            err[node] = as_leaf
            continue
        below = err[left] + err[right]
        if as_leaf <= below + 0.1:
            make_leaf[node] = True
            err[node] = as_leaf
        else:
            err[node] = below
    if not make_leaf.any():
        return tree
    return tree.subtree(make_leaf)


def _weakest_links(tree):
    """Minimal cost-complexity pruning on bag counts, step by step (Breiman et al. 1984).

    A node as a leaf misclassifies R(t) = min(pi_w, nu_w) / W of the training
    bag weight W (its majority label is kept, the minority's weight is the
    error); a subtree's error is the sum over its leaves. Each step prunes the
    internal node(s) with the smallest ``(R(t) - R(subtree)) / (leaves - 1)``.

    Yields
    ------
    alpha, make_leaf, impurity
        The effective alpha of the step, the nodes made leaves so far, and
        the pruned tree's total leaf error after the step. The first item
        is ``(0.0, nothing pruned, the full tree's error)``.
    """
    n_nodes = tree.node_count
    total = float(tree.weighted_pos[0] + tree.weighted_neg[0])
    leaf_err = np.minimum(tree.weighted_pos, tree.weighted_neg) / (total if total > 0 else 1.0)
    left, right = tree.children_left, tree.children_right
    make_leaf = np.zeros(n_nodes, dtype=bool)
    sub_err = np.empty(n_nodes)
    n_leaves = np.empty(n_nodes, dtype=np.intp)

    def subtree_stats():
        # Children are numbered after their parents: a reverse scan is post-order.
        for node in range(n_nodes - 1, -1, -1):
            if left[node] < 0 or make_leaf[node]:
                sub_err[node], n_leaves[node] = leaf_err[node], 1
            else:
                sub_err[node] = sub_err[left[node]] + sub_err[right[node]]
                n_leaves[node] = n_leaves[left[node]] + n_leaves[right[node]]

    subtree_stats()
    yield 0.0, make_leaf.copy(), float(sub_err[0])
    while n_leaves[0] > 1:
        reach = np.zeros(n_nodes, dtype=bool)  # internal nodes of the current pruned tree
        stack = [0]
        while stack:
            node = stack.pop()
            if left[node] >= 0 and not make_leaf[node]:
                reach[node] = True
                stack.extend((left[node], right[node]))
        cand = np.flatnonzero(reach)
        g = (leaf_err[cand] - sub_err[cand]) / (n_leaves[cand] - 1)
        alpha = float(g.min())
        make_leaf[cand[g <= alpha + 1e-12]] = True
        subtree_stats()
        yield max(alpha, 0.0), make_leaf.copy(), float(sub_err[0])


def cost_complexity_path(tree):
    """The effective alphas of minimal cost-complexity pruning and the leaf errors after each.

    Returns
    -------
    ccp_alphas : ndarray of float64
        Increasing; pruning with ``ccp_alpha`` in ``[ccp_alphas[i], ccp_alphas[i + 1])``
        gives the i-th subtree (the last one is the root alone).
    impurities : ndarray of float64
        Total bag-weighted leaf error (share of the training bag weight) of
        each of those subtrees.
    """
    steps = [(alpha, err) for alpha, _, err in _weakest_links(tree)]
    return np.array([a for a, _ in steps]), np.array([e for _, e in steps])


def prune_cost_complexity(tree, ccp_alpha):
    """The subtree of minimal cost-complexity pruning at `ccp_alpha` (see :func:`cost_complexity_path`).

    Returns
    -------
    tree : Tree
        A pruned copy (or `tree` itself when nothing is pruned).
    """
    if ccp_alpha <= 0:
        return tree  # as scikit-learn: 0 prunes nothing (not even splits that gain nothing)
    make_leaf = None
    for alpha, pruned, _ in _weakest_links(tree):
        if alpha > ccp_alpha:
            break
        make_leaf = pruned
    if make_leaf is None or not make_leaf.any():
        return tree
    return tree.subtree(make_leaf)


def held_out_bags(y_enc, bag_weight, fraction, rng):
    """Bags set aside for reduced-error pruning: a `fraction` of each class, drawn at random.

    Only bags of positive weight are drawn. Returns a boolean mask over the bags.
    """
    held = np.zeros(y_enc.shape[0], dtype=bool)
    eligible = np.ones(y_enc.shape[0], dtype=bool) if bag_weight is None else bag_weight > 0
    for c in np.unique(y_enc):
        members = np.flatnonzero(eligible & (y_enc == c))
        n_held = int(np.floor(fraction * members.size))
        if n_held:
            held[rng.choice(members, n_held, replace=False)] = True
    return held


def prune_reduced_error(tree, instances, instance_bag, bag_pos, bag_weight=None):
    """Reduced-error pruning (Quinlan 1987) of a multi-instance tree on held-out bags.

    The internal nodes are visited bottom-up (every node after all of its
    descendants). A node becomes a leaf, labelled by its own training counts
    (positive iff pi > nu), when that does not increase the bag-level error on
    the held-out bags, the current pruned tree being applied as the tree's
    predictions are: a bag is predicted positive iff one of its instances
    reaches a positive leaf. Pruning a node can thus change the prediction of
    a bag whose other instances end elsewhere; the error is always that of
    the whole pruned tree. A node that no held-out instance reaches is pruned
    (it cannot increase the error).

    Parameters
    ----------
    tree : Tree
        The tree grown without the held-out bags.
    instances : ndarray of float64, shape (n_instances, n_features)
        Instances of the held-out bags (C-contiguous).
    instance_bag : ndarray of intp, shape (n_instances,)
        Held-out bag index (0 .. n_held - 1) of each instance.
    bag_pos : ndarray of shape (n_held,)
        1 (or True) for the positive held-out bags.
    bag_weight : ndarray of float64, shape (n_held,), default=None
        Weight of each held-out bag in the error (ones by default).

    Returns
    -------
    tree : Tree
        A pruned copy (or `tree` itself when nothing is pruned).

    References
    ----------
    J. R. Quinlan, "Simplifying decision trees", International Journal of
    Man-Machine Studies 27(3), 1987.
    """
    n_nodes = tree.node_count
    left, right = tree.children_left, tree.children_right
    internal = np.flatnonzero(left >= 0)
    if internal.size == 0:
        return tree
    instance_bag = np.asarray(instance_bag, dtype=np.intp)
    target = np.asarray(bag_pos).astype(bool)
    n_held = target.shape[0]
    weight = np.ones(n_held) if bag_weight is None else np.asarray(bag_weight, dtype=np.float64)
    parent = np.full(n_nodes, -1, dtype=np.intp)
    parent[left[internal]] = internal
    parent[right[internal]] = internal
    node_positive = (tree.leaf_pos > tree.leaf_neg).astype(np.intp)  # the label of every node made a leaf
    leaf = tree.apply(instances)
    # (node, instance) for every node on every instance's root-to-leaf path.
    path_nodes, path_inst = [], []
    node, inst = leaf, np.arange(leaf.shape[0], dtype=np.intp)
    while inst.size:
        path_nodes.append(node)
        path_inst.append(inst)
        up = parent[node]
        node, inst = up[up >= 0], inst[up >= 0]
    path_nodes, path_inst = np.concatenate(path_nodes), np.concatenate(path_inst)
    by_node = np.argsort(path_nodes, kind="stable")
    path_inst = path_inst[by_node]
    bounds = np.searchsorted(path_nodes[by_node], np.arange(n_nodes + 1))

    label = node_positive[leaf]  # current label of the leaf each instance reaches
    n_pos = np.bincount(instance_bag, weights=label, minlength=n_held).astype(np.intp)

    def error(pos_count):
        return float(weight[(pos_count > 0) != target].sum())

    err = error(n_pos)
    tol = 1e-12 * max(float(weight.sum()), 1.0)
    make_leaf = np.zeros(n_nodes, dtype=bool)
    # Children are numbered after their parents: a reverse scan is bottom-up.
    for node in internal[::-1]:
        through = path_inst[bounds[node]:bounds[node + 1]]
        delta = node_positive[node] - label[through]
        changed = delta != 0
        if changed.any():
            new_pos = n_pos.copy()
            np.add.at(new_pos, instance_bag[through[changed]], delta[changed])
            new_err = error(new_pos)
            if new_err > err + tol:
                continue
            n_pos, err = new_pos, new_err
            label[through] = node_positive[node]
        make_leaf[node] = True
    if not make_leaf.any():
        return tree
    return tree.subtree(make_leaf)


def prefix_errors(tree, split_order, instances, instance_bag, bag_pos, bag_weight=None):
    """Bag-level error of every prefix of a tree's growth on some bags.

    The prefix with s splits keeps the nodes whose split came first in the
    growth (``split_order < s``) and makes the others leaves, labelled as
    prediction labels leaves (positive iff ``leaf_pos > leaf_neg``); a bag is
    positive iff one of its instances stops at a positive node.

    Parameters
    ----------
    tree : Tree
    split_order : ndarray of intp, shape (n_nodes,)
        From ``build_tree(..., return_split_order=True)``.
    instances : ndarray of float64, shape (n_instances, n_features)
    instance_bag : ndarray of intp, shape (n_instances,)
        Bag index (0 .. n_bags - 1) of each instance.
    bag_pos : ndarray of shape (n_bags,)
        1 (or True) for positive bags.
    bag_weight : ndarray of float64, shape (n_bags,), default=None

    Returns
    -------
    errors : ndarray of float64, shape (n_splits + 1,)
        Weighted bag errors of the prefixes with 0 .. n_splits splits.
    """
    target = np.asarray(bag_pos).astype(bool)
    weight = np.ones(target.shape[0]) if bag_weight is None else np.asarray(bag_weight, dtype=np.float64)
    n_splits = int(split_order.max()) + 1
    n = instances.shape[0]
    node_pos = (tree.leaf_pos > tree.leaf_neg).astype(np.intp)
    # diff[i, s] accumulates, per instance, the label of the node it stops at for s splits.
    diff = np.zeros((n, n_splits + 2), dtype=np.intp)
    inst = np.arange(n, dtype=np.intp)
    node = np.zeros(n, dtype=np.intp)
    lo = np.zeros(n, dtype=np.intp)
    while inst.size:
        order = split_order[node]
        hi = np.where(order < 0, n_splits, order)
        np.add.at(diff, (inst, lo), node_pos[node])
        np.add.at(diff, (inst, hi + 1), -node_pos[node])
        down = order >= 0
        inst, node, lo = inst[down], node[down], hi[down] + 1
        v = instances[inst, tree.feature[node]]
        left = np.where(np.isnan(v), tree.missing_left[node].astype(bool), v <= tree.threshold[node])
        node = np.where(left, tree.children_left[node], tree.children_right[node])
    positive = np.cumsum(diff, axis=1)[:, :n_splits + 1] > 0
    bag_positive = np.zeros((target.shape[0], n_splits + 1), dtype=bool)
    np.logical_or.at(bag_positive, instance_bag, positive)
    return ((bag_positive != target[:, None]) * weight[:, None]).sum(axis=0)


def cv_leaf_budget(bags, bag_pos, bag_weight, leaf_weight, grow, random_state, n_folds=3):
    """The number of leaves chosen by internal cross-validation on the training bags.

    The bags of each class are dealt round-robin into `n_folds` folds (in
    their order, or in an order drawn from `random_state` when it is not
    None); on each fold's complement a full tree is grown with `grow`, and
    the bag error of every prefix of its growth (:func:`prefix_errors`) is
    measured on the fold. The budget is the prefix size (splits + 1 leaves)
    of least summed error, the smallest on ties.
    """
    n_bags = bag_pos.shape[0]
    eligible = np.ones(n_bags, dtype=bool) if bag_weight is None else bag_weight > 0
    fold = np.full(n_bags, -1, dtype=np.intp)
    rng = None if random_state is None else check_random_state(random_state)
    for c in (0, 1):
        members = np.flatnonzero(eligible & (bag_pos == c))
        if rng is not None:
            members = rng.permutation(members)
        fold[members] = np.arange(members.size) % n_folds
    total = np.zeros(1)
    for f in range(n_folds):
        train, val = np.flatnonzero((fold >= 0) & (fold != f)), np.flatnonzero(fold == f)
        if train.size == 0 or val.size == 0:
            continue
        sub, held = bags.subset(train), bags.subset(val)
        tree, _, order = build_tree(
            sub.instances, sub.instance_bag, bag_pos[train], None if bag_weight is None else bag_weight[train],
            leaf_weight=None if leaf_weight is None else leaf_weight[train], return_split_order=True,
            random_state=np.random.RandomState(0), **grow)
        errors = prefix_errors(tree, order, held.instances, held.instance_bag, bag_pos[val],
                               None if bag_weight is None else bag_weight[val])
        if errors.size < total.size:
            errors = np.concatenate([errors, np.full(total.size - errors.size, errors[-1])])
        elif total.size < errors.size:
            total = np.concatenate([total, np.full(errors.size - total.size, total[-1])])
        total = total + errors
    return int(np.argmin(total)) + 1

"""Bag-ratio split rules of bag-level randomized trees (compiled).

Komarek and Somol, "Multiple instance learning with bag-level randomized
trees" (ECML PKDD 2018): a node's rule (f, theta, r) sends a bag to the left
child when the share of its instances with x_f <= theta exceeds r. r near 0
is the multi-instance "some instance" rule, r near 1 the "every instance"
rule. A missing value (NaN) is never <= theta and counts in the bag's size.

The rule search of a node draws, per searched feature, ``n_rules`` thresholds
theta = lo + u (hi - lo) uniformly over the range [lo, hi) of the node's
values, and either a uniform r per threshold or the best cut of the bags'
shares. All thresholds of a feature are scored in one pass over the node's
instances: the thresholds are sorted, each instance falls between two of
them (a binary search), and per-bag prefix sums over these slots give every
threshold's counts. The criterion is the bag-level entropy (base 2) of the
children weighted by bag weight, in the form sum_child (X(W) - sum_c X(w_c))
with X(x) = x log2 x; the first candidate of least value wins (features in
the order given, thresholds in draw order, cuts by descending share). For
real-valued bag targets (``best_regression_rule``, regression trees) the
criterion is the children's weighted sum of squared deviations from their
means, sum_child (S2 - S1^2 / W) with W, S1, S2 the sums of w, w y and
w y^2 of the child's bags: variance reduction (Breiman et al. 1984).

Sums follow bag order, the same order as the NumPy twin's ``cumsum`` (see
``_bag_shares_py``), and ``x log2 x`` uses the C library's ``log2`` on both
paths, so both build identical trees.
"""

from libc.math cimport INFINITY, isnan, log2
from libc.stdlib cimport qsort
from libc.string cimport memset

from mil._core._typedefs cimport float64_t, intp_t, uint8_t

import numpy as np

from mil._core._bag_shares_py import ShareTable, apply_args, regression_rule_args, rule_args, shares_args

__all__ = ["ShareTable", "bag_shares", "best_rule", "best_regression_rule", "apply_bags"]

#: numpy layout of ShareKey (the scratch of the best-ratio sweep)
_KEY_DTYPE = np.dtype([("share", np.float64), ("pos", np.intp)], align=True)


cdef inline float64_t _xlogx(float64_t x) noexcept nogil:
    if x <= 0.0:
        return 0.0
    return x * log2(x)


cdef inline float64_t _mass(const float64_t* w, intp_t n_classes) noexcept nogil:
    # W * entropy(w / W) in bits: X(W) - sum_c X(w_c), W summed in class order.
    cdef intp_t c
    cdef float64_t total = 0.0, m
    for c in range(n_classes):
        total = total + w[c]
    m = _xlogx(total)
    for c in range(n_classes):
        m = m - _xlogx(w[c])
    return m


cdef inline float64_t _impurity(const float64_t* w, intp_t n_classes, bint regression) noexcept nogil:
    # Classes: W * entropy; a real target: the sum of squared deviations S2 - S1^2 / W.
    if not regression:
        return _mass(w, n_classes)
    if not w[0] > 0.0:
        return 0.0
    return w[2] - w[1] * w[1] / w[0]


cdef inline void _add_bag(float64_t* acc, intp_t j, const intp_t* bag_class, const float64_t* bag_weight,
                          const float64_t* bag_target) noexcept nogil:
    # A bag's weight into its class, or its (w, w y, w y^2) into the three sums of a real target.
    cdef float64_t wy
    if bag_target == NULL:
        acc[bag_class[j]] = acc[bag_class[j]] + bag_weight[j]
    else:
        wy = bag_weight[j] * bag_target[j]
        acc[0] = acc[0] + bag_weight[j]
        acc[1] = acc[1] + wy
        acc[2] = acc[2] + wy * bag_target[j]


cdef int _cmp_keys(const void* a, const void* b) noexcept nogil:
    # Descending share, then ascending position: a total order, so the sort is
    # deterministic whatever qsort's algorithm.
    cdef const ShareKey* x = <const ShareKey*> a
    cdef const ShareKey* y = <const ShareKey*> b
    if x.share > y.share:
        return -1
    if x.share < y.share:
        return 1
    return (x.pos > y.pos) - (x.pos < y.pos)


cdef void c_bag_shares(
    const float64_t* col, const intp_t* offsets, const intp_t* bags, intp_t n_bags,
    float64_t theta, float64_t* out,
) noexcept nogil:
    cdef intp_t j, b, i, cnt
    for j in range(n_bags):
        b = bags[j]
        cnt = 0
        for i in range(offsets[b], offsets[b + 1]):
            cnt += col[i] <= theta  # False for NaN
        out[j] = <float64_t> cnt / <float64_t> (offsets[b + 1] - offsets[b])


cdef inline void _consider(
    const float64_t* wl, float64_t* wr, const float64_t* total, intp_t n_classes, bint regression,
    intp_t n_left, intp_t n_bags, intp_t min_bags, intp_t feature, float64_t theta,
    float64_t ratio, float64_t* best, intp_t* found, float64_t* out,
) noexcept nogil:
    cdef intp_t c
    cdef float64_t loss
    if n_left < min_bags or n_bags - n_left < min_bags:
        return
    for c in range(n_classes):
        wr[c] = total[c] - wl[c]
    loss = _impurity(wl, n_classes, regression) + _impurity(wr, n_classes, regression)
    if loss < best[0]:
        best[0] = loss
        found[0] = 1
        out[RULE_FEATURE] = <float64_t> feature
        out[RULE_THRESHOLD] = theta
        out[RULE_RATIO] = ratio


cdef intp_t c_best_rule(
    const float64_t* XT, intp_t n_instances, const intp_t* offsets,
    const intp_t* bags, intp_t n_bags, const intp_t* bag_class, const float64_t* bag_weight,
    intp_t n_classes, const intp_t* features, intp_t n_feat,
    const float64_t* u_theta, const float64_t* u_ratio, intp_t n_rules,
    bint best_ratio, intp_t min_bags,
    intp_t* counts, float64_t* work, intp_t* iwork, ShareKey* keys, float64_t* out,
) noexcept nogil:
    return _best_rule(XT, n_instances, offsets, bags, n_bags, bag_class, bag_weight, NULL, n_classes, features,
                      n_feat, u_theta, u_ratio, n_rules, best_ratio, min_bags, counts, work, iwork, keys, out)


cdef intp_t c_best_regression_rule(
    const float64_t* XT, intp_t n_instances, const intp_t* offsets,
    const intp_t* bags, intp_t n_bags, const float64_t* bag_target, const float64_t* bag_weight,
    const intp_t* features, intp_t n_feat,
    const float64_t* u_theta, const float64_t* u_ratio, intp_t n_rules,
    bint best_ratio, intp_t min_bags,
    intp_t* counts, float64_t* work, intp_t* iwork, ShareKey* keys, float64_t* out,
) noexcept nogil:
    return _best_rule(XT, n_instances, offsets, bags, n_bags, NULL, bag_weight, bag_target, 3, features,
                      n_feat, u_theta, u_ratio, n_rules, best_ratio, min_bags, counts, work, iwork, keys, out)


cdef intp_t _best_rule(
    const float64_t* XT, intp_t n_instances, const intp_t* offsets,
    const intp_t* bags, intp_t n_bags, const intp_t* bag_class, const float64_t* bag_weight,
    const float64_t* bag_target, intp_t n_classes, const intp_t* features, intp_t n_feat,
    const float64_t* u_theta, const float64_t* u_ratio, intp_t n_rules,
    bint best_ratio, intp_t min_bags,
    intp_t* counts, float64_t* work, intp_t* iwork, ShareKey* keys, float64_t* out,
) noexcept nogil:
    # The rule search of c_best_rule (bag_target NULL) and of c_best_regression_rule (n_classes 3: the
    # sums of w, w y and w y^2).
    cdef bint regression = bag_target != NULL
    cdef float64_t* shares = work
    cdef float64_t* theta = work + n_bags
    cdef float64_t* sorted_t = theta + n_rules
    cdef float64_t* total = sorted_t + n_rules
    cdef float64_t* wl = total + n_classes
    cdef float64_t* wr = wl + n_classes
    cdef intp_t* order = iwork
    cdef intp_t* rank = iwork + n_rules
    cdef intp_t R1 = n_rules + 1
    cdef intp_t a, f, j, b, i, k, p, q, lo_, hi_, mid, nl, t
    cdef const float64_t* row
    cdef float64_t lo, hi, v, best = INFINITY, r
    cdef intp_t found = 0

    memset(total, 0, n_classes * sizeof(float64_t))
    for j in range(n_bags):
        _add_bag(total, j, bag_class, bag_weight, bag_target)

    for a in range(n_feat):
        f = features[a]
        row = XT + f * n_instances
        lo = INFINITY
        hi = -INFINITY
        for j in range(n_bags):
            b = bags[j]
            for i in range(offsets[b], offsets[b + 1]):
                v = row[i]
                if v < lo:  # comparisons with NaN are false: missing values are skipped
                    lo = v
                if v > hi:
                    hi = v
        if not hi > lo:
            continue  # constant (or missing) in this node: no rule on f
        for k in range(n_rules):
            theta[k] = lo + u_theta[a * n_rules + k] * (hi - lo)
        # Thresholds in ascending order (ties by draw order), and each one's place.
        for k in range(n_rules):
            p = k
            while p > 0 and theta[order[p - 1]] > theta[k]:
                order[p] = order[p - 1]
                p -= 1
            order[p] = k
        for p in range(n_rules):
            sorted_t[p] = theta[order[p]]
            rank[order[p]] = p
        # counts[j, p]: instances of bag j above exactly p thresholds; after the
        # prefix sum, those with x <= sorted_t[p].
        memset(counts, 0, n_bags * R1 * sizeof(intp_t))
        for j in range(n_bags):
            b = bags[j]
            for i in range(offsets[b], offsets[b + 1]):
                v = row[i]
                if isnan(v):
                    continue
                lo_ = 0
                hi_ = n_rules
                while lo_ < hi_:
                    mid = (lo_ + hi_) >> 1
                    if sorted_t[mid] < v:
                        lo_ = mid + 1
                    else:
                        hi_ = mid
                counts[j * R1 + lo_] += 1
            for p in range(1, n_rules):
                counts[j * R1 + p] += counts[j * R1 + p - 1]

        for k in range(n_rules):
            q = rank[k]
            for j in range(n_bags):
                b = bags[j]
                shares[j] = <float64_t> counts[j * R1 + q] / <float64_t> (offsets[b + 1] - offsets[b])
            memset(wl, 0, n_classes * sizeof(float64_t))
            if not best_ratio:
                r = u_ratio[a * n_rules + k]
                nl = 0
                for j in range(n_bags):
                    if shares[j] > r:
                        _add_bag(wl, j, bag_class, bag_weight, bag_target)
                        nl += 1
                _consider(wl, wr, total, n_classes, regression, nl, n_bags, min_bags, f, theta[k], r,
                          &best, &found, out)
                continue
            # Best ratio: bags by descending share; a cut between two distinct
            # shares sends the bags before it left.
            for j in range(n_bags):
                keys[j].share = shares[j]
                keys[j].pos = j
            qsort(keys, n_bags, sizeof(ShareKey), _cmp_keys)
            for t in range(n_bags - 1):
                j = keys[t].pos
                _add_bag(wl, j, bag_class, bag_weight, bag_target)
                if keys[t + 1].share < keys[t].share:
                    r = keys[t + 1].share / 2.0 + keys[t].share / 2.0
                    _consider(wl, wr, total, n_classes, regression, t + 1, n_bags, min_bags, f, theta[k], r,
                              &best, &found, out)
    if found:
        out[RULE_GAIN] = _impurity(total, n_classes, regression) - best
    return found


cdef void c_apply_bags(
    const float64_t* X, intp_t n_features, const intp_t* offsets, intp_t n_bags,
    const intp_t* feature, const float64_t* threshold, const float64_t* ratio,
    const intp_t* left, const intp_t* right, intp_t* out,
) noexcept nogil:
    cdef intp_t b, node, i, cnt, f
    cdef float64_t t
    for b in range(n_bags):
        node = 0
        while left[node] >= 0:
            f = feature[node]
            t = threshold[node]
            cnt = 0
            for i in range(offsets[b], offsets[b + 1]):
                cnt += X[i * n_features + f] <= t  # False for NaN
            if <float64_t> cnt / <float64_t> (offsets[b + 1] - offsets[b]) > ratio[node]:
                node = left[node]
            else:
                node = right[node]
        out[b] = node


# Python wrappers: each checks its arguments first (shared with the twin in
# _bag_shares_py), so bad arguments raise, never read out of bounds.

def bag_shares(col_, offsets_, bags_, theta):
    """Share of each bag's instances with ``col <= theta`` (NaN never counts).

    Parameters
    ----------
    col : ndarray of float64, shape (n_instances,)
        One feature's value per instance, bags stored one after another.
    offsets : ndarray of intp, shape (n_all_bags + 1,)
    bags : ndarray of intp, shape (n_bags,)
        The bags to score.
    theta : float

    Returns
    -------
    shares : ndarray of float64, shape (n_bags,)
    """
    col_, offsets_, bags_, theta = shares_args(col_, offsets_, bags_, theta)
    cdef const float64_t[::1] col = col_
    cdef const intp_t[::1] offsets = offsets_
    cdef const intp_t[::1] bags = bags_
    cdef intp_t n = bags.shape[0]
    out = np.empty(n, dtype=np.float64)
    cdef float64_t[::1] o = out
    cdef float64_t th = theta
    if n:
        with nogil:
            c_bag_shares(&col[0], &offsets[0], &bags[0], n, th, &o[0])
    return out


def best_rule(table, bags_, bag_class_, bag_weight_, n_classes, features_, u_theta_, u_ratio_,
              best_ratio=False, min_bags=1):
    """The best of a node's random bag-ratio rules (see the module docstring).

    Parameters
    ----------
    table : ShareTable
        The instances (feature-major) and bag offsets, checked once per fit.
    bags : ndarray of intp, shape (n_bags,)
        The node's bags.
    bag_class, bag_weight : ndarray, shape (n_bags,)
        Class index (intp, < `n_classes`) and weight (> 0) of each node bag.
    n_classes : int
    features : ndarray of intp, shape (n_feat,)
        The features searched, in order.
    u_theta, u_ratio : ndarray of float64, shape (n_feat, n_rules)
        Uniforms in [0, 1) drawing the thresholds and (without
        `best_ratio`) the ratios.
    best_ratio : bool
        Cut the bags' shares at the best place instead of at `u_ratio`.
    min_bags : int
        Bags each child needs.

    Returns
    -------
    rule : tuple (feature, theta, ratio, gain, go_left) or None
        None when no candidate leaves `min_bags` bags on both sides; gain is
        the node's entropy decrease times its bag weight (bits); go_left
        (bool, one per node bag) says which bags the rule sends left.
    """
    bags_, bag_class_, bag_weight_, features_, u_theta_, u_ratio_ = rule_args(
        table, bags_, bag_class_, bag_weight_, n_classes, features_, u_theta_, u_ratio_, min_bags)
    return _search(table, bags_, bag_class_, None, bag_weight_, n_classes, features_, u_theta_, u_ratio_,
                   best_ratio, min_bags)


def best_regression_rule(table, bags_, bag_target_, bag_weight_, features_, u_theta_, u_ratio_, best_ratio=False,
                         min_bags=1):
    """The best of a node's random bag-ratio rules for real-valued bag targets (variance reduction).

    As :func:`best_rule`, with `bag_target` (float64, finite, one per node
    bag) in place of the classes; the gain is the decrease of the weighted
    sum of squared deviations of the targets from their node means.

    Returns
    -------
    rule : tuple (feature, theta, ratio, gain, go_left) or None
    """
    bags_, bag_target_, bag_weight_, features_, u_theta_, u_ratio_ = regression_rule_args(
        table, bags_, bag_target_, bag_weight_, features_, u_theta_, u_ratio_, min_bags)
    return _search(table, bags_, None, bag_target_, bag_weight_, 3, features_, u_theta_, u_ratio_, best_ratio,
                   min_bags)


def _search(table, bags_, bag_class_, bag_target_, bag_weight_, n_classes, features_, u_theta_, u_ratio_,
            best_ratio, min_bags):
    cdef const float64_t[:, ::1] XT = table.XT
    cdef const intp_t[::1] offsets = table.offsets
    cdef const intp_t[::1] bags = bags_
    cdef const intp_t[::1] bag_class
    cdef const float64_t[::1] bag_target
    cdef const float64_t[::1] bag_weight = bag_weight_
    cdef const intp_t[::1] features = features_
    cdef const float64_t[:, ::1] u_theta = u_theta_
    cdef const float64_t[:, ::1] u_ratio = u_ratio_
    cdef intp_t n = bags.shape[0], n_feat = features.shape[0], n_rules = u_theta.shape[1]
    cdef intp_t C = n_classes, mb = min_bags, found = 0
    cdef bint exact = bool(best_ratio)
    cdef bint regression = bag_target_ is not None
    if n < 2 or n_feat == 0 or n_rules == 0:
        return None
    if regression:
        bag_target = bag_target_
    else:
        bag_class = bag_class_
    counts_ = np.empty(n * (n_rules + 1), dtype=np.intp)
    work_ = np.empty(n + 2 * n_rules + 3 * C, dtype=np.float64)
    iwork_ = np.empty(2 * n_rules, dtype=np.intp)
    keys_ = np.empty(n, dtype=_KEY_DTYPE)
    out_ = np.zeros(RULE_N_FIELDS, dtype=np.float64)
    cdef intp_t[::1] counts = counts_
    cdef float64_t[::1] work = work_
    cdef intp_t[::1] iwork = iwork_
    cdef uint8_t[::1] keys = keys_.view(np.uint8)
    cdef float64_t[::1] out = out_
    with nogil:
        if regression:
            found = c_best_regression_rule(&XT[0, 0], XT.shape[1], &offsets[0], &bags[0], n, &bag_target[0],
                                           &bag_weight[0], &features[0], n_feat, &u_theta[0, 0], &u_ratio[0, 0],
                                           n_rules, exact, mb, &counts[0], &work[0], &iwork[0],
                                           <ShareKey*> &keys[0], &out[0])
        else:
            found = c_best_rule(&XT[0, 0], XT.shape[1], &offsets[0], &bags[0], n, &bag_class[0],
                                &bag_weight[0], C, &features[0], n_feat, &u_theta[0, 0], &u_ratio[0, 0],
                                n_rules, exact, mb, &counts[0], &work[0], &iwork[0],
                                <ShareKey*> &keys[0], &out[0])
        if found:  # the chosen rule's shares, into the scratch
            c_bag_shares(&XT[<intp_t> out[RULE_FEATURE], 0], &offsets[0], &bags[0], n, out[RULE_THRESHOLD],
                         &work[0])
    if not found:
        return None
    go_left = work_[:n] > out_[RULE_RATIO]
    return (int(out_[RULE_FEATURE]), float(out_[RULE_THRESHOLD]), float(out_[RULE_RATIO]), float(out_[RULE_GAIN]),
            go_left)


def apply_bags(X_, offsets_, feature_, threshold_, ratio_, left_, right_):
    """The leaf each bag reaches in a bag-ratio tree.

    Parameters
    ----------
    X : ndarray of float64, shape (n_instances, n_features)
    offsets : ndarray of intp, shape (n_bags + 1,)
    feature, threshold, ratio, left, right : ndarray, shape (n_nodes,)
        The tree's node arrays (feature and children -1 at a leaf).

    Returns
    -------
    leaves : ndarray of intp, shape (n_bags,)
    """
    X_, offsets_, feature_, threshold_, ratio_, left_, right_ = apply_args(
        X_, offsets_, feature_, threshold_, ratio_, left_, right_)
    cdef const float64_t[:, ::1] X = X_
    cdef const intp_t[::1] offsets = offsets_
    cdef const intp_t[::1] feature = feature_
    cdef const float64_t[::1] threshold = threshold_
    cdef const float64_t[::1] ratio = ratio_
    cdef const intp_t[::1] left = left_
    cdef const intp_t[::1] right = right_
    cdef intp_t n_bags = offsets.shape[0] - 1
    out = np.empty(n_bags, dtype=np.intp)
    cdef intp_t[::1] o = out
    if n_bags > 0:
        with nogil:
            c_apply_bags(&X[0, 0], X.shape[1], &offsets[0], n_bags, &feature[0], &threshold[0],
                         &ratio[0], &left[0], &right[0], &o[0])
    return out

"""Distinct-bag counting for multi-instance split and rule search (compiled).

Multi-instance trees (pi(D), nu(D): distinct positive and negative bags
present in a node; Chevaleyre & Zucker 2001) and rules (a rule covers a bag iff it covers one of its
instances). Sweeping instances sorted by a feature, a per-bag "seen" flag
makes each step O(1): a bag joins the left side at its first instance and
leaves the right side after its last one. Weighted counts (GDBT-MI weights
bags by their residual) use the same sweep.

Sums are accumulated strictly in sweep order, left to right for the left
side and right to left for the right side, so that the NumPy twin's
``cumsum`` gives bit-identical results (see ``_bag_counts_py``).
"""

from mil._core._typedefs cimport float64_t, intp_t, uint8_t

import numpy as np

from mil._core._checks import bag_max_args, bag_weights_args

__all__ = ["sweep_distinct_bags", "distinct_bag_weights", "bag_max"]


cdef void c_sweep_left_distinct_bags(
    const intp_t* inst_bag, intp_t n, const uint8_t* bag_pos,
    const float64_t* bag_weight, uint8_t* seen,
    float64_t* left_pos, float64_t* left_neg,
) noexcept nogil:
    cdef intp_t k
    cdef float64_t acc_pos = 0.0, acc_neg = 0.0
    # A bag is counted from its first instance in sweep order; the flags stay
    # set (the caller's backward pass clears them).
    for k in range(n):
        enter_left(inst_bag[k], bag_pos, bag_weight, seen, &acc_pos, &acc_neg)
        left_pos[k] = acc_pos
        left_neg[k] = acc_neg


cdef void c_sweep_distinct_bags(
    const intp_t* inst_bag, intp_t n, const uint8_t* bag_pos,
    const float64_t* bag_weight, uint8_t* seen,
    float64_t* left_pos, float64_t* left_neg,
    float64_t* right_pos, float64_t* right_neg,
) noexcept nogil:
    cdef intp_t k
    cdef float64_t acc_pos = 0.0, acc_neg = 0.0
    c_sweep_left_distinct_bags(inst_bag, n, bag_pos, bag_weight, seen, left_pos, left_neg)
    # Right side, swept backwards; this pass also clears the scratch flags.
    for k in range(n - 1, -1, -1):
        right_pos[k] = acc_pos
        right_neg[k] = acc_neg
        leave_right(inst_bag[k], bag_pos, bag_weight, seen, &acc_pos, &acc_neg)


cdef void c_distinct_bag_weights(
    const intp_t* inst_bag, intp_t n, const uint8_t* bag_pos,
    const float64_t* bag_weight, uint8_t* seen,
    float64_t* pos, float64_t* neg,
) noexcept nogil:
    cdef intp_t k
    cdef float64_t acc_pos = 0.0, acc_neg = 0.0
    for k in range(n):
        enter_left(inst_bag[k], bag_pos, bag_weight, seen, &acc_pos, &acc_neg)
    for k in range(n):
        seen[inst_bag[k]] = 0
    pos[0] = acc_pos
    neg[0] = acc_neg


cdef void c_bag_max(
    const float64_t* values, const intp_t* offsets, intp_t n_bags, float64_t* out,
) noexcept nogil:
    cdef intp_t b, i
    cdef float64_t best
    for b in range(n_bags):
        best = values[offsets[b]]
        for i in range(offsets[b] + 1, offsets[b + 1]):
            if values[i] > best:
                best = values[i]
        out[b] = best


# Python wrappers: each checks sizes, dtypes and bag indices first (mil._core._checks,
# shared with the twin in _bag_counts_py), so bad arguments raise, never read out of bounds.

def sweep_distinct_bags(inst_bag_, bag_pos_, bag_weight_):
    """Distinct-bag weights on each side of every cut of a sweep.

    Parameters
    ----------
    inst_bag : ndarray of intp, shape (n,)
        Bag index of each instance, in sweep order.
    bag_pos : ndarray of uint8, shape (n_bags,)
        1 for positive bags, 0 for negative ones.
    bag_weight : ndarray of float64, shape (n_bags,)
        Weight of each bag (ones for plain counts).

    Returns
    -------
    left_pos, left_neg, right_pos, right_neg : ndarray of float64, shape (n,)
        Entry k describes the cut after instance k: the weight of distinct
        positive / negative bags among instances ``0..k`` (left) and
        ``k+1..n-1`` (right).
    """
    inst_bag_, bag_pos_, bag_weight_ = bag_weights_args(inst_bag_, bag_pos_, bag_weight_)
    cdef const intp_t[::1] inst_bag = inst_bag_
    cdef const uint8_t[::1] bag_pos = bag_pos_
    cdef const float64_t[::1] bag_weight = bag_weight_
    cdef intp_t n = inst_bag.shape[0]
    out = np.empty((4, n), dtype=np.float64)
    cdef float64_t[:, ::1] o = out
    cdef uint8_t[::1] seen = np.zeros(bag_pos.shape[0], dtype=np.uint8)
    if n:
        with nogil:
            c_sweep_distinct_bags(&inst_bag[0], n, &bag_pos[0], &bag_weight[0], &seen[0],
                                  &o[0, 0], &o[1, 0], &o[2, 0], &o[3, 0])
    return out[0], out[1], out[2], out[3]


def distinct_bag_weights(inst_bag_, bag_pos_, bag_weight_):
    """Weight of the distinct positive and negative bags among some instances.

    Returns
    -------
    pos, neg : float
        Sum of `bag_weight` over the distinct positive (negative) bags that
        own at least one of the instances.
    """
    inst_bag_, bag_pos_, bag_weight_ = bag_weights_args(inst_bag_, bag_pos_, bag_weight_)
    cdef const intp_t[::1] inst_bag = inst_bag_
    cdef const uint8_t[::1] bag_pos = bag_pos_
    cdef const float64_t[::1] bag_weight = bag_weight_
    cdef intp_t n = inst_bag.shape[0]
    cdef float64_t pos = 0.0, neg = 0.0
    cdef uint8_t[::1] seen = np.zeros(bag_pos.shape[0], dtype=np.uint8)
    if n:
        with nogil:
            c_distinct_bag_weights(&inst_bag[0], n, &bag_pos[0], &bag_weight[0], &seen[0],
                                   &pos, &neg)
    return pos, neg


def bag_max(values_, offsets_):
    """Maximum of instance values within each bag.

    Parameters
    ----------
    values : ndarray of float64, shape (n_instances,)
    offsets : ndarray of intp, shape (n_bags + 1,)
        Bag b owns ``values[offsets[b]:offsets[b + 1]]``; bags are non-empty.

    Returns
    -------
    out : ndarray of float64, shape (n_bags,)
    """
    values_, offsets_ = bag_max_args(values_, offsets_)
    cdef const float64_t[::1] values = values_
    cdef const intp_t[::1] offsets = offsets_
    cdef intp_t n_bags = offsets.shape[0] - 1
    out = np.empty(n_bags, dtype=np.float64)
    cdef float64_t[::1] o = out
    if n_bags > 0:
        with nogil:
            c_bag_max(&values[0], &offsets[0], n_bags, &o[0])
    return out

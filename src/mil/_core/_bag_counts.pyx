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

from mil._core._checks import bag_max_args, bag_weights_args, binned_extremes_args

__all__ = ["sweep_distinct_bags", "distinct_bag_weights", "bag_max", "binned_bag_extremes"]


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


cdef void c_binned_bag_extremes(
    const uint8_t* codes, intp_t n_bins, const intp_t* ids, intp_t n, const intp_t* inst_bag,
    const uint8_t* bag_pos, const float64_t* bag_weight,
    float64_t* lo, float64_t* hi, float64_t* cnt, float64_t* nan_w, intp_t* extent, bint distinct_bags,
) noexcept nogil:
    # The instances come bag after bag: each bag's lowest / highest bin is
    # kept in registers and added to the histograms when the bag ends, in
    # ascending bag order (the NumPy twin sums in the same order).
    cdef intp_t j, k, b, c, c_hi, cur, r_lo, r_hi, r_nan, i, row
    cdef intp_t bmin = 255, bmax = -1, n_nan = 0
    cdef float64_t nan_p = 0.0, nan_n = 0.0, w
    for j in range(4):
        for k in range(n_bins + 1):
            lo[256 * j + k] = 0.0
            hi[256 * j + k] = 0.0
    for k in range(n_bins + 1):
        cnt[k] = 0.0
    if distinct_bags:
        # Each instance a bag of its own: its bin is the bag's lowest and
        # highest, and the rows without a missing value are the same sums
        # (a bag holding one missing value enters none of them), so one
        # histogram is filled and copied.
        for k in range(n):
            i = ids[k]
            b = inst_bag[i]
            c = codes[i]
            w = bag_weight[b]
            if c == 255:
                n_nan += 1
                if bag_pos[b]:
                    nan_p = nan_p + w
                else:
                    nan_n = nan_n + w
                continue
            row = 256 * (bag_pos[b] == 0)
            lo[row + c] += w
            cnt[c] += 1.0
            bmax = c if c > bmax else bmax
            bmin = c if c < bmin else bmin
        for k in range(n_bins + 1):
            lo[512 + k] = lo[k]
            lo[768 + k] = lo[256 + k]
        for k in range(n_bins + 1):
            hi[k] = lo[k]
            hi[256 + k] = lo[256 + k]
            hi[512 + k] = lo[k]
            hi[768 + k] = lo[256 + k]
    elif n > 0:
        cur = inst_bag[ids[0]]
        r_lo = 255
        r_hi = 0
        r_nan = 0
        for k in range(n + 1):
            if k < n:
                b = inst_bag[ids[k]]
            if k == n or b != cur:
                add_bag_extremes(cur, r_lo, r_hi, r_nan, bag_pos, bag_weight, lo, hi, &nan_p, &nan_n)
                if k == n:
                    break
                cur = b
                r_lo = 255
                r_hi = 0
                r_nan = 0
            c = codes[ids[k]]
            # Branch-free: the missing bin (255) leaves the lowest bin as it
            # is and counts as 0 for the highest.
            r_nan = r_nan | (c == 255)
            r_lo = c if c < r_lo else r_lo
            c_hi = c if c != 255 else 0
            r_hi = c_hi if c_hi > r_hi else r_hi
            if c != 255:
                cnt[c] += 1.0
                bmax = c if c > bmax else bmax
                bmin = c if c < bmin else bmin
            else:
                n_nan += 1
    nan_w[0] = nan_p
    nan_w[1] = nan_n
    extent[0] = bmin
    extent[1] = bmax
    extent[2] = n_nan


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


def binned_bag_extremes(codes_, ids_, inst_bag_, bag_pos_, bag_weight_):
    """Histograms of the lowest and highest bin of each bag among some instances of one binned feature.

    The first pass of the histogram split search (trees) and condition
    search (rules): a bag holds an instance at or below the cut after bin b
    iff its lowest bin is <= b, one above it iff its highest bin is > b.

    Parameters
    ----------
    codes : ndarray of uint8, shape (n_instances,)
        The feature's bin code of every instance (255: missing).
    ids : ndarray of intp, shape (m,)
        The instances counted, increasing, their bags non-decreasing
        (instances stored bag after bag).
    inst_bag : ndarray of intp, shape (n_instances,)
        Bag index of every instance.
    bag_pos : ndarray of uint8, shape (n_bags,)
        1 for positive bags.
    bag_weight : ndarray of float64, shape (n_bags,)
        Weight of each bag.

    Returns
    -------
    lo, hi : ndarray of float64, shape (4, 256)
        Weight of the bags whose lowest (highest) non-missing bin is b: rows
        positive, negative, positive without a missing value, negative
        without; summed in ascending bag order.
    cnt : ndarray of float64, shape (256,)
        Instances in each non-missing bin.
    nan_w : tuple of two floats
        Weight of the positive and of the negative bags holding a missing value.
    extent : tuple of three ints
        Lowest and highest non-missing bin met (255 and -1: none) and the
        number of missing values.
    """
    codes_, ids_, inst_bag_, bag_pos_, bag_weight_ = binned_extremes_args(codes_, ids_, inst_bag_, bag_pos_,
                                                                          bag_weight_)
    cdef const uint8_t[::1] codes = codes_
    cdef const intp_t[::1] ids = ids_
    cdef const intp_t[::1] inst_bag = inst_bag_
    cdef const uint8_t[::1] bag_pos = bag_pos_
    cdef const float64_t[::1] bag_weight = bag_weight_
    cdef intp_t m = ids.shape[0]
    hist = np.zeros(9 * 256, dtype=np.float64)
    cdef float64_t[::1] h = hist
    cdef float64_t nan_w[2]
    cdef intp_t extent[3]
    nan_w[0] = 0.0
    nan_w[1] = 0.0
    extent[0] = 255
    extent[1] = -1
    extent[2] = 0
    if m:
        with nogil:
            c_binned_bag_extremes(&codes[0], 255, &ids[0], m, &inst_bag[0], &bag_pos[0], &bag_weight[0],
                                  &h[0], &h[1024], &h[2048], nan_w, extent, False)
    return (hist[:1024].reshape(4, 256), hist[1024:2048].reshape(4, 256), hist[2048:],
            (nan_w[0], nan_w[1]), (int(extent[0]), int(extent[1]), int(extent[2])))


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

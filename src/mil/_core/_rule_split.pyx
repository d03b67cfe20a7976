"""Rule condition search for RIPPER-MI (compiled).

RIPPER (Cohen 1995, "Fast Effective Rule Induction") with
bag-level coverage (Chevaleyre & Zucker 2001, "Solving multiple-instance and
multiple-part learning problems with decision trees and rule sets"): a rule
covers a bag iff it covers at least one of the bag's instances, and every
count p, n is a number of bags.

For each feature the instances still covered by the growing rule are swept in
sorted order; the bag-counting steps shared with the tree split search
(``_bag_counts``: a forward sweep, then a backward one fused with the gains) give,
in O(1) per instance, the distinct positive and
negative bags on each side of every cut. When every bag has one instance and
the weights are units (RIPPER on a plain table, and the collective
assumption's instances), the counts are whole numbers of instances: one
backward pass in integers gives both sides, with the same doubles reaching
the gains. The search can also write the covered instances' sorted orders
(``out``: what :func:`compact` gives), so that the next condition of the
rule is searched among them only. The left side of a cut is what the
condition ``x_f <= t`` keeps, the right side what ``x_f >= t`` keeps. Each
candidate is scored by FOIL's information gain

    gain = p1 * (log2(p1 / (p1 + n1)) - log2(p0 / (p0 + n0)))

(or, with ``smooth=1``, Weka JRip's smoothed precisions ``(p + 1) / (p + n + 1)``)

Counts are weighted: a bag counts its weight (ones give counts of bags), as
Weka's JRip sums instance weights. A whole-number argument of a logarithm is
read from a table computed by NumPy, any other from the C library's
``log2`` (the function Python's ``math.log2`` calls), so that the NumPy
twin (``_rule_split_py``) gets bit-identical gains. Ties go to the lowest
threshold here; across features and operators the caller takes the first
maximum in (feature, operator) order, so both paths pick the same condition.
"""

from mil._core._typedefs cimport float64_t, intp_t, uint8_t
from mil._core._bag_counts cimport c_binned_bag_extremes, enter_left, leave_right
from libc.math cimport log2
from libc.stdint cimport int32_t

import numpy as np

# Pure NumPy helpers are shared with the twin, so both read the same log table.
from mil._core._checks import rule_coverage_args, rule_search_args, rule_search_out_args
from mil._core._rule_split_py import (Binned, Presorted, _compact_setup, _cut_thresholds, _gain_setup, _new_ids,
                                      foil_gain, presort, prune_metric)

__all__ = ["presort", "compact", "Presorted", "Binned", "best_conditions", "best_binned_conditions",
           "prefix_coverage", "ruleset_coverage", "foil_gain", "prune_metric"]


cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    /* c ? x : y for doubles, without a jump (the bits blended by a mask). */
    static inline double mil_select(int c, double x, double y) {
        uint64_t ux, uy, mask = (uint64_t)0 - (uint64_t)(c != 0);
        memcpy(&ux, &x, sizeof ux);
        memcpy(&uy, &y, sizeof uy);
        ux = (ux & mask) | (uy & ~mask);
        memcpy(&x, &ux, sizeof ux);
        return x;
    }
    """
    float64_t mil_select(int c, float64_t x, float64_t y) noexcept nogil


cdef inline float64_t _lg(const float64_t* log2_table, intp_t table_len, float64_t x) noexcept nogil:
    # log2(x), x >= 0: from the table for a whole number it holds (always with
    # unit weights), else from libm (x > 0 there: 0 is in the table).
    cdef intp_t i
    if x < table_len:
        i = <intp_t> x
        if <float64_t> i == x:
            return log2_table[i]
    return log2(x)


cdef inline float64_t _gain(const float64_t* log2_table, intp_t table_len, float64_t base,
                            float64_t p1, float64_t n1, float64_t smooth) noexcept nogil:
    cdef float64_t t = _lg(log2_table, table_len, p1 + smooth) - _lg(log2_table, table_len, p1 + n1 + smooth)
    t = t - base
    return p1 * t


cdef inline float64_t _midpoint(float64_t a, float64_t b) noexcept nogil:
    # a * 0.5 + b * 0.5 (not (a + b) * 0.5): finite for every finite a, b,
    # also near the largest double where a + b overflows to inf.
    return a * 0.5 + b * 0.5


cdef inline void _condition(
    bint left, float64_t a, float64_t b, float64_t p, float64_t n,
    const float64_t* log2_table, intp_t table_len, float64_t base, float64_t min_weight,
    float64_t smooth, float64_t* best, float64_t* out_gain, float64_t* out_threshold,
    float64_t* out_p, float64_t* out_n,
) noexcept nogil:
    # One condition of the cut between consecutive distinct values a < b:
    # x <= t (left) or x >= t, keeping the bags' weights p, n. It replaces the
    # entry the pointers point at (best[0], out_gain[0], ...) when its gain is
    # positive and at least that entry's.
    cdef float64_t g, t
    if p >= min_weight and p > 0.0:
        g = _gain(log2_table, table_len, base, p, n, smooth)
        if g > 0.0 and g >= best[0]:
            t = _midpoint(a, b)
            if left:
                if not (a <= t and t < b):
                    t = a
            elif not (a < t and t <= b):
                t = b
            best[0] = g
            out_gain[0] = g
            out_threshold[0] = t
            out_p[0] = p
            out_n[0] = n


cdef inline void _cut(
    float64_t a, float64_t b, float64_t lp, float64_t ln, float64_t rp, float64_t rn,
    const float64_t* log2_table, intp_t table_len, float64_t base, float64_t min_weight,
    float64_t smooth, float64_t* best, float64_t* out_gain, float64_t* out_threshold,
    float64_t* out_p, float64_t* out_n,
) noexcept nogil:
    # The two conditions of the cut between consecutive distinct values a < b:
    # x <= t keeps the left side (lp, ln), x >= t the right side (rp, rn).
    # best[0], best[1] and the out_ pointers are the feature's two entries.
    # Called going backwards: ">=" keeps the lowest threshold among equal
    # gains, as a forward scan with ">" would.
    _condition(True, a, b, lp, ln, log2_table, table_len, base, min_weight, smooth,
               best, out_gain, out_threshold, out_p, out_n)
    _condition(False, a, b, rp, rn, log2_table, table_len, base, min_weight, smooth,
               best + 1, out_gain + 1, out_threshold + 1, out_p + 1, out_n + 1)


cdef void _search_rows(
    const float64_t* sorted_vals, intp_t n, intp_t d, const int32_t* order,
    const uint8_t* active, const int32_t* new_id, intp_t m_out,
    const int32_t* sorted_bag, const uint8_t* bag_pos, const float64_t* bag_weight,
    const float64_t* log2_table, intp_t table_len, float64_t base, float64_t min_weight,
    float64_t smooth, int32_t* scratch_bag, float64_t* scratch_val,
    float64_t* lp, float64_t* ln, uint8_t* seen,
    float64_t* out_gain, float64_t* out_threshold, float64_t* out_p, float64_t* out_n,
    float64_t* cvals, int32_t* corder, int32_t* cbag, bint unit_single,
) noexcept nogil:
    # The condition search of c_best_conditions. With unit_single every bag
    # has one instance and weighs 1 (see below). With new_id (not NULL) the
    # covered instances of each feature are gathered straight into row f of
    # the compacted copy (cvals, corder, cbag: d rows of m_out, the number of
    # covered instances), and new_id[i] (the rank of covered instance i, -1
    # for the others) replaces the active flags; else into the scratch rows.
    cdef intp_t f, k, m, i
    cdef int32_t r
    cdef const int32_t* row
    cdef const int32_t* brow
    cdef const float64_t* vrow
    cdef int32_t* gbag
    cdef float64_t* gval
    cdef int32_t* gord
    cdef float64_t a, b, acc_pos, acc_neg
    cdef float64_t best[2]
    cdef intp_t n_pos, r_pos, r_neg, q
    cdef bint direct = unit_single and new_id == NULL
    cdef intp_t m_all = 0, pos_all = 0, have_b
    if direct:
        # One instance per bag, unit weights, nothing to write: each feature's
        # row is swept once, in place (no gather). The covered instances and
        # the positive ones among them are the same for every feature: count
        # them once, on the first row.
        for k in range(n):
            q = active[order[k]]
            m_all += q
            pos_all += q & (bag_pos[sorted_bag[k]] != 0)
    for f in range(d):
        row = order + f * n
        brow = sorted_bag + f * n
        vrow = sorted_vals + f * n
        best[0] = 0.0
        best[1] = 0.0
        out_gain[2 * f] = 0.0
        out_gain[2 * f + 1] = 0.0
        out_threshold[2 * f] = 0.0
        out_threshold[2 * f + 1] = 0.0
        out_p[2 * f] = 0.0
        out_p[2 * f + 1] = 0.0
        out_n[2 * f] = 0.0
        out_n[2 * f + 1] = 0.0
        if direct:
            if m_all < 2:
                continue
            # Backwards over the whole row, skipping the instances not covered
            # without a jump: b is the value of the last covered instance met
            # (to the right), r_pos / r_neg count the covered ones right of the
            # cut, and the left side is the totals minus the right. The cuts,
            # their order and the doubles reaching the gains are those of the
            # gathered sweep below.
            r_pos = 0
            r_neg = 0
            have_b = 0
            b = 0.0
            for k in range(n - 1, -1, -1):
                q = active[row[k]]
                a = vrow[k]
                if q & have_b & (a < b):  # a cut between distinct covered values
                    _cut(a, b, <float64_t> (pos_all - r_pos), <float64_t> (m_all - pos_all - r_neg),
                         <float64_t> r_pos, <float64_t> r_neg, log2_table, table_len, base, min_weight,
                         smooth, best, out_gain + 2 * f, out_threshold + 2 * f, out_p + 2 * f, out_n + 2 * f)
                i = q & (bag_pos[brow[k]] != 0)
                r_pos += i
                r_neg += q - i
                have_b |= q
                b = mil_select(q, a, b)
            continue
        # Gather the covered instances in this feature's sorted order; the
        # values and bags are pre-sorted, so only the small flag array is
        # read out of order. Branch-free: always copy, advance only past
        # covered instances (a branch on the scattered flags is mispredicted
        # about half the time).
        m = 0
        if new_id == NULL:
            gbag = scratch_bag
            gval = scratch_val
            for k in range(n):
                gbag[m] = brow[k]
                gval[m] = vrow[k]
                m += active[row[k]]
        else:
            gbag = cbag + f * m_out
            gval = cvals + f * m_out
            gord = corder + f * m_out
            if m_out > 0:
                # Every write lands below m_out: the scan stops at the last
                # covered instance.
                for k in range(n):
                    r = new_id[row[k]]
                    gbag[m] = brow[k]
                    gval[m] = vrow[k]
                    gord[m] = r
                    m += r >= 0
                    if m == m_out:
                        break
        if m < 2:
            continue
        if unit_single:
            # One instance per bag, unit weights: the counts are whole numbers
            # of instances, exact in integers and as doubles, so one backward
            # pass gives both sides (left = totals - right), and no bag is met
            # twice (no flags). The same doubles reach the gains as below.
            n_pos = 0
            for k in range(m):
                n_pos += bag_pos[gbag[k]] != 0
            q = bag_pos[gbag[m - 1]] != 0
            r_pos = q
            r_neg = 1 - q
            b = gval[m - 1]
            for k in range(m - 2, -1, -1):
                # r_pos, r_neg: instances k+1..m-1 (right of cut k).
                a = gval[k]
                if a < b:  # no cut between equal values
                    _cut(a, b, <float64_t> (n_pos - r_pos), <float64_t> (k + 1 - (n_pos - r_pos)),
                         <float64_t> r_pos, <float64_t> r_neg, log2_table, table_len, base, min_weight,
                         smooth, best, out_gain + 2 * f, out_threshold + 2 * f, out_p + 2 * f, out_n + 2 * f)
                q = bag_pos[gbag[k]] != 0
                r_pos += q
                r_neg += 1 - q
                b = a
            continue
        # Left side: the shared forward step (as c_sweep_left_distinct_bags, on
        # int32 bags). Right side: the shared backward step, fused with the gains
        # of each cut (no right-side arrays, one pass).
        acc_pos = 0.0
        acc_neg = 0.0
        for k in range(m):
            enter_left(gbag[k], bag_pos, bag_weight, seen, &acc_pos, &acc_neg)
            lp[k] = acc_pos
            ln[k] = acc_neg
        acc_pos = 0.0
        acc_neg = 0.0
        b = gval[m - 1]
        leave_right(gbag[m - 1], bag_pos, bag_weight, seen, &acc_pos, &acc_neg)
        for k in range(m - 2, -1, -1):
            # acc_pos, acc_neg: the bags of instances k+1..m-1 (right of cut k).
            a = gval[k]
            if a < b:  # no cut between equal values
                _cut(a, b, lp[k], ln[k], acc_pos, acc_neg, log2_table, table_len, base, min_weight,
                     smooth, best, out_gain + 2 * f, out_threshold + 2 * f, out_p + 2 * f, out_n + 2 * f)
            leave_right(gbag[k], bag_pos, bag_weight, seen, &acc_pos, &acc_neg)
            b = a


cdef void c_best_conditions(
    const float64_t* sorted_vals, intp_t n, intp_t d, const int32_t* order,
    const uint8_t* active, const int32_t* sorted_bag, const uint8_t* bag_pos, const float64_t* bag_weight,
    const float64_t* log2_table, intp_t table_len, float64_t base, float64_t min_weight,
    float64_t smooth, intp_t* scratch_bag, float64_t* scratch_val,
    float64_t* lp, float64_t* ln, uint8_t* seen,
    float64_t* out_gain, float64_t* out_threshold, float64_t* out_p, float64_t* out_n,
) noexcept nogil:
    # The bags are gathered as int32 into scratch_bag (n intp hold 2 n int32).
    _search_rows(sorted_vals, n, d, order, active, NULL, 0, sorted_bag, bag_pos, bag_weight,
                 log2_table, table_len, base, min_weight, smooth, <int32_t*> scratch_bag, scratch_val,
                 lp, ln, seen, out_gain, out_threshold, out_p, out_n, NULL, NULL, NULL, False)


cdef inline bint _holds(float64_t x, uint8_t op, float64_t t) noexcept nogil:
    if op == 0:
        return x <= t
    return x >= t


cdef void c_prefix_coverage(
    const float64_t* X, intp_t d, const intp_t* offsets, intp_t n_bags,
    const intp_t* features, const uint8_t* ops, const float64_t* thresholds, intp_t m,
    uint8_t* out,
) noexcept nogil:
    cdef intp_t b, i, j, depth
    for j in range(m * n_bags):
        out[j] = 0
    for b in range(n_bags):
        for i in range(offsets[b], offsets[b + 1]):
            # The longest prefix this instance satisfies: it is covered by
            # prefixes 0..depth-1, so the bag is too.
            depth = 0
            while depth < m and _holds(X[i * d + features[depth]], ops[depth], thresholds[depth]):
                depth += 1
            for j in range(depth):
                out[j * n_bags + b] = 1


cdef void c_ruleset_coverage(
    const float64_t* X, intp_t d, const intp_t* offsets, intp_t n_bags,
    const intp_t* rule_ptr, intp_t n_rules,
    const intp_t* features, const uint8_t* ops, const float64_t* thresholds,
    uint8_t* out,
) noexcept nogil:
    cdef intp_t r, b, i, j
    cdef bint ok
    for r in range(n_rules):
        for b in range(n_bags):
            out[r * n_bags + b] = 0
            for i in range(offsets[b], offsets[b + 1]):
                ok = True
                for j in range(rule_ptr[r], rule_ptr[r + 1]):
                    if not _holds(X[i * d + features[j]], ops[j], thresholds[j]):
                        ok = False
                        break
                if ok:
                    out[r * n_bags + b] = 1
                    break


# Python wrappers: each checks its arguments first (mil._core._checks, shared with
# the twin in _rule_split_py), so bad arguments raise, never read out of bounds.

def best_conditions(presorted, active, bag_pos, p0, n0, min_bags, smooth=0, bag_weight=None,
                    start=0, stop=None, out=None):
    """Best next condition of a growing rule for every (feature, operator).

    Parameters
    ----------
    presorted : Presorted
        The training instances sorted by each feature (:func:`presort`).
    active : ndarray of uint8, shape (n,)
        1 for the instances covered by the rule being grown (only instances
        of the bags being learned from).
    bag_pos : ndarray of uint8, shape (n_bags,)
        1 for positive bags.
    p0, n0 : float
        Weight of the positive and negative bags covered by the rule before
        the condition (p0 > 0); numbers of bags with unit weights.
    min_bags : float
        Minimum weight of positive bags a condition must keep.
    smooth : {0, 1}, default=0
        1: precisions are smoothed as ``(p + 1) / (p + n + 1)`` in the gain
        (Weka's JRip), 0: plain ``p / (p + n)``.
    bag_weight : ndarray of float64, shape (n_bags,), default=None
        Weight of each bag (non-negative, finite); None counts bags.
    start, stop : int, default=0, None
        The features searched: ``start:stop`` (None: to the last).
    out : tuple of three ndarrays, default=None
        ``(sorted_vals, order, sorted_bag)``: writable C-contiguous float64,
        int32 and int32 arrays of shape (d, m), d the presorted features and
        m the covered instances (``active.sum()``). Rows ``start:stop`` are
        filled with what :func:`compact` ``(presorted, active)`` holds there,
        on the way (the search gathers the covered instances anyway), so
        ``presorted.compacted(*out)`` can be searched next for
        subsets of `active`, in time proportional to m.

    Returns
    -------
    gain, threshold, p, n : ndarray of float64, shape (stop - start, 2)
        Column 0 is ``x_f <= t``, column 1 is ``x_f >= t``: the best FOIL gain
        (0 when no condition has a positive gain), its threshold (the lowest
        among equal gains; a midpoint between consecutive distinct values)
        and the weight of the positive and negative bags it keeps.

    Raises
    ------
    TypeError, ValueError
        When `presorted` is not made by :func:`presort`, or the other
        arguments do not match it (sizes, dtypes, ranges); the checks cost
        O(n + n_bags).
    """
    active, bag_pos, p0, n0, min_bags, smooth, bag_weight, start, stop = rule_search_args(
        presorted, Presorted, active, bag_pos, p0, n0, min_bags, smooth, bag_weight, start, stop)
    cdef float64_t[:, ::1] cv
    cdef int32_t[:, ::1] co
    cdef int32_t[:, ::1] cb
    cdef const int32_t[::1] nid
    cdef intp_t m_out = 0
    if out is not None:
        cv, co, cb = rule_search_out_args(presorted, active, out)
        nid = _new_ids(active)
        m_out = cv.shape[1]
    cdef const float64_t[:, ::1] sorted_vals = presorted.sorted_vals
    cdef const int32_t[:, ::1] order = presorted.order
    cdef const int32_t[:, ::1] sorted_bag = presorted.sorted_bag
    cdef const uint8_t[::1] act = active
    cdef const uint8_t[::1] pos = bag_pos
    cdef intp_t n = sorted_vals.shape[1], n_bags = presorted.n_bags
    cdef intp_t lo = start, d = stop - start
    weights, table, base_ = _gain_setup(n_bags, p0, n0, smooth, bag_weight)
    cdef const float64_t[::1] lg = table
    cdef const float64_t[::1] w = weights
    cdef float64_t base = base_
    cdef float64_t min_weight = min_bags
    cdef float64_t smooth_ = smooth
    result = np.zeros((4, d, 2), dtype=np.float64)
    cdef float64_t[:, :, ::1] o = result
    cdef intp_t[::1] sb = np.empty(max(n, 1), dtype=np.intp)
    cdef float64_t[:, ::1] sv = np.empty((3, max(n, 1)), dtype=np.float64)
    cdef uint8_t[::1] seen = np.zeros(max(n_bags, 1), dtype=np.uint8)
    cdef bint unit_single = bag_weight is None and presorted.one_per_bag
    cdef float64_t* cvp = NULL
    cdef int32_t* cop = NULL
    cdef int32_t* cbp = NULL
    cdef const int32_t* nidp = NULL
    if out is not None and m_out and d:
        cvp, cop, cbp, nidp = &cv[lo, 0], &co[lo, 0], &cb[lo, 0], &nid[0]
    # No covered instance: no condition (the zeros above), nothing to gather.
    if n and d and (out is None or m_out):
        with nogil:
            _search_rows(&sorted_vals[lo, 0], n, d, &order[lo, 0], &act[0], nidp, m_out,
                         &sorted_bag[lo, 0], &pos[0], &w[0], &lg[0], lg.shape[0], base, min_weight, smooth_,
                         <int32_t*> &sb[0], &sv[0, 0], &sv[1, 0], &sv[2, 0], &seen[0],
                         &o[0, 0, 0], &o[1, 0, 0], &o[2, 0, 0], &o[3, 0, 0], cvp, cop, cbp, unit_single)
    return result[0], result[1], result[2], result[3]


cdef void _binned_row(
    const uint8_t* codes, intp_t n_bins, const intp_t* ids, intp_t m, const intp_t* inst_bag,
    const uint8_t* bag_pos, const float64_t* bag_weight, const float64_t* log2_table, intp_t table_len,
    float64_t base, float64_t min_weight, float64_t smooth, float64_t* hist, bint distinct_bags,
    float64_t* out_gain, float64_t* out_cut, float64_t* out_p, float64_t* out_n,
) noexcept nogil:
    # One feature's two best binned conditions (out_*[0]: x <= edges[k],
    # out_*[1]: x > edges[k]; out_cut holds k, -1 for none). hist: 9 x 256
    # (the lowest-bin and highest-bin histograms of c_binned_bag_extremes,
    # then the instances per bin).
    cdef float64_t* lo = hist
    cdef float64_t* hi = hist + 1024
    cdef float64_t* cnt = hist + 2048
    cdef float64_t nan_w[2]
    cdef intp_t extent[3]
    cdef intp_t b, k, prev = -1, bmin, bmax
    cdef float64_t lp = 0.0, ln = 0.0, g
    cdef float64_t best[2]
    out_cut[0] = -1.0
    out_cut[1] = -1.0
    c_binned_bag_extremes(codes, n_bins, ids, m, inst_bag, bag_pos, bag_weight, lo, hi, cnt, nan_w, extent,
                          distinct_bags)
    bmin = extent[0]
    bmax = extent[1]
    if bmax <= bmin:
        return
    best[0] = 0.0
    best[1] = 0.0
    # Suffix sums in place: hi[b] becomes the weight of the bags whose highest bin is >= b.
    for b in range(bmax - 1, bmin - 1, -1):
        hi[b] = hi[b] + hi[b + 1]
        hi[256 + b] = hi[256 + b] + hi[256 + b + 1]
    # One cut between each two consecutive occupied bins prev < b: x <= edges[k]
    # keeps the bags whose lowest bin is <= prev (the prefix sums), x > edges[k]
    # those whose highest bin is >= b (the suffix sums), at the edge k midway
    # between them. ">" keeps the lowest threshold among equal gains.
    for b in range(bmin, bmax + 1):
        if cnt[b] > 0.0:
            if prev >= 0:
                k = (prev + b - 1) // 2
                if lp >= min_weight and lp > 0.0:
                    g = _gain(log2_table, table_len, base, lp, ln, smooth)
                    if g > best[0]:
                        best[0] = g
                        out_gain[0] = g
                        out_cut[0] = <float64_t>k
                        out_p[0] = lp
                        out_n[0] = ln
                if hi[b] >= min_weight and hi[b] > 0.0:
                    g = _gain(log2_table, table_len, base, hi[b], hi[256 + b], smooth)
                    if g > best[1]:
                        best[1] = g
                        out_gain[1] = g
                        out_cut[1] = <float64_t>k
                        out_p[1] = hi[b]
                        out_n[1] = hi[256 + b]
            prev = b
        lp = lp + lo[b]
        ln = ln + lo[256 + b]


def best_binned_conditions(binned, active, bag_pos, p0, n0, min_bags, smooth=0, bag_weight=None, start=0,
                           stop=None):
    """Best next condition of a growing rule for every (feature, operator), on binned features.

    The histogram condition search: a candidate condition cuts between two
    bins of a feature (:class:`Binned`: the trees' quantile bins, at most
    255 a feature) instead of between every two distinct values. One pass
    over the covered instances gives each bag's lowest and highest bin
    (``_bag_counts``, shared with the trees' histogram search); a bag keeps
    an instance with ``x <= edges[k]`` iff its lowest bin is <= k, with
    ``x > edges[k]`` iff its highest is > k, so prefix and suffix sums over
    the bins give every candidate's counts, in O(m) a feature for m covered
    instances, without sorting. Between each two consecutive bins that hold
    covered instances there is one cut, at the edge midway between them (by
    index), as the exact search cuts midway between two values; its
    conditions are ``x <= edges[k]`` and ``x >= t``, t the next double above
    ``edges[k]`` (which keeps exactly the values above the edge). So the
    candidates split the covered instances as the exact search's do, with
    the same counts and gains (:func:`best_conditions`' logarithms; the
    same up to the order in which non-integer weights are summed), ties to
    the lowest threshold; the thresholds are the exact search's when every
    distinct value has its own bin and holds a covered instance.

    Parameters
    ----------
    binned : Binned
        The training instances' bin codes.
    active, bag_pos, p0, n0, min_bags, smooth, bag_weight, start, stop
        As in :func:`best_conditions`.

    Returns
    -------
    gain, threshold, p, n : ndarray of float64, shape (stop - start, 2)
        As :func:`best_conditions` (threshold 0 where no condition has a
        positive gain).
    """
    active, bag_pos, p0, n0, min_bags, smooth, bag_weight, start, stop = rule_search_args(
        binned, Binned, active, bag_pos, p0, n0, min_bags, smooth, bag_weight, start, stop)
    weights, table, base_ = _gain_setup(binned.n_bags, p0, n0, smooth, bag_weight)
    ids_ = np.flatnonzero(active).astype(np.intp)
    cdef const intp_t[::1] ids = ids_
    cdef const uint8_t[:, ::1] codes = binned.codes
    cdef const intp_t[::1] n_bins = binned.n_bins
    cdef const intp_t[::1] inst_bag = binned.inst_bag
    cdef const uint8_t[::1] pos = bag_pos
    cdef const float64_t[::1] lg = table
    cdef const float64_t[::1] w = weights
    cdef float64_t base = base_, min_weight = min_bags, smooth_ = smooth
    cdef intp_t lo = start, d = stop - start, m = ids.shape[0], f
    result = np.zeros((4, d, 2), dtype=np.float64)
    cdef float64_t[:, :, ::1] o = result
    cdef float64_t[::1] hist = np.empty(9 * 256, dtype=np.float64)
    cdef bint distinct = binned.one_per_bag
    if m and d:
        with nogil:
            for f in range(d):
                _binned_row(&codes[lo + f, 0], n_bins[lo + f], &ids[0], m, &inst_bag[0], &pos[0], &w[0], &lg[0],
                            lg.shape[0], base, min_weight, smooth_, &hist[0], distinct,
                            &o[0, f, 0], &o[1, f, 0], &o[2, f, 0], &o[3, f, 0])
    cut = np.where(m and d, result[1], -1.0).astype(np.intp)
    return result[0], _cut_thresholds(binned.edges[start:stop], cut), result[2], result[3]


def compact(presorted, keep):
    """The presorted data of the instances in `keep` only (in the same sorted orders).

    Instance i of the result is the i-th kept instance; the bags keep their
    indices. The condition search on the result with ``active[keep]`` gives
    what it gives on `presorted` with ``active`` when ``active`` lies inside
    `keep` (the same sequences are swept), in time proportional to the kept
    instances.

    Parameters
    ----------
    presorted : Presorted
    keep : ndarray of uint8 or bool, shape (n,)

    Returns
    -------
    presorted : Presorted
    """
    keep, new_id_, n_kept_ = _compact_setup(presorted, keep)
    cdef const uint8_t[::1] kp = keep
    cdef const int32_t[::1] new_id = new_id_
    cdef const float64_t[:, ::1] vals = presorted.sorted_vals
    cdef const int32_t[:, ::1] order = presorted.order
    cdef const int32_t[:, ::1] bag = presorted.sorted_bag
    cdef intp_t d = vals.shape[0], n = vals.shape[1], n_kept = n_kept_, f, k, j, i
    # Flat outputs with one spare slot: the branch-free copy below always writes at
    # position j and advances past kept instances only, so a row's trailing writes land
    # on the next row's first slot (rewritten next) or on the spare one.
    out_vals = np.empty(d * n_kept + 1, dtype=np.float64)
    out_order = np.empty(d * n_kept + 1, dtype=np.int32)
    out_bag = np.empty(d * n_kept + 1, dtype=np.int32)
    cdef float64_t[::1] ov = out_vals
    cdef int32_t[::1] oo = out_order
    cdef int32_t[::1] ob = out_bag
    if n_kept:
        with nogil:
            for f in range(d):
                j = f * n_kept
                for k in range(n):
                    i = order[f, k]
                    ov[j] = vals[f, k]
                    oo[j] = new_id[i]
                    ob[j] = bag[f, k]
                    j += kp[i]
    size = d * n_kept
    return Presorted._trusted(out_vals[:size].reshape(d, n_kept), out_order[:size].reshape(d, n_kept),
                              out_bag[:size].reshape(d, n_kept), presorted.n_bags, presorted.one_per_bag)


def prefix_coverage(X, offsets, features, ops, thresholds):
    """Bags covered by every prefix of a rule.

    Parameters
    ----------
    X : ndarray of float64, shape (n, d)
    offsets : ndarray of intp, shape (n_bags + 1,)
    features, ops, thresholds : ndarrays of shape (m,)
        The rule's conditions in order (op 0 is ``<=``, 1 is ``>=``).

    Returns
    -------
    covered : ndarray of uint8, shape (m, n_bags)
        Row j: 1 for the bags that conditions ``0..j`` cover (some instance
        satisfies all of them).

    Raises
    ------
    TypeError, ValueError
        On wrong dtypes, sizes, offsets, feature indices or operators.
    """
    X, offsets, features, ops, thresholds = rule_coverage_args(X, offsets, features, ops, thresholds)
    cdef const float64_t[:, ::1] xv = X
    cdef const intp_t[::1] off = offsets
    cdef const intp_t[::1] fv = features
    cdef const uint8_t[::1] ov = ops
    cdef const float64_t[::1] tv = thresholds
    cdef intp_t n_bags = off.shape[0] - 1, m = fv.shape[0]
    out = np.zeros((m, n_bags), dtype=np.uint8)
    cdef uint8_t[:, ::1] o = out
    if m and n_bags > 0:
        with nogil:
            c_prefix_coverage(&xv[0, 0], xv.shape[1], &off[0], n_bags,
                              &fv[0], &ov[0], &tv[0], m, &o[0, 0])
    return out


def ruleset_coverage(X, offsets, rule_ptr, features, ops, thresholds):
    """Bags covered by each rule of a rule set.

    Parameters
    ----------
    X : ndarray of float64, shape (n, d)
    offsets : ndarray of intp, shape (n_bags + 1,)
    rule_ptr : ndarray of intp, shape (n_rules + 1,)
        Rule r owns conditions ``rule_ptr[r]:rule_ptr[r + 1]`` of the arrays below.
    features, ops, thresholds : ndarrays of shape (n_conditions,)

    Returns
    -------
    covered : ndarray of uint8, shape (n_rules, n_bags)
        1 when the rule covers the bag (an empty rule covers every bag).

    Raises
    ------
    TypeError, ValueError
        On wrong dtypes, sizes, offsets, rule pointers, feature indices or
        operators.
    """
    X, offsets, features, ops, thresholds, rule_ptr = rule_coverage_args(
        X, offsets, features, ops, thresholds, rule_ptr)
    cdef const float64_t[:, ::1] xv = X
    cdef const intp_t[::1] off = offsets
    cdef const intp_t[::1] rp = rule_ptr
    cdef const intp_t[::1] fv = features
    cdef const uint8_t[::1] ov = ops
    cdef const float64_t[::1] tv = thresholds
    cdef intp_t n_bags = off.shape[0] - 1, n_rules = rp.shape[0] - 1
    out = np.zeros((n_rules, n_bags), dtype=np.uint8)
    cdef uint8_t[:, ::1] o = out
    cdef intp_t dummy_f = 0
    cdef uint8_t dummy_op = 0
    cdef float64_t dummy_t = 0.0
    cdef const intp_t* fp = &dummy_f
    cdef const uint8_t* op = &dummy_op
    cdef const float64_t* tp = &dummy_t
    if fv.shape[0]:
        fp, op, tp = &fv[0], &ov[0], &tv[0]
    if n_rules > 0 and n_bags > 0:
        with nogil:
            c_ruleset_coverage(&xv[0, 0], xv.shape[1], &off[0], n_bags, &rp[0],
                               n_rules, fp, op, tp, &o[0, 0])
    return out

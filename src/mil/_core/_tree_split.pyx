"""Multi-instance decision-tree split search (compiled).

ID3-MI (Chevaleyre and Zucker, "Solving multiple-instance and multiple-part
learning problems with decision trees and rule sets. Application to the
mutagenesis problem", Canadian AI 2001) and C4.5-MI (Quinlan 1993). For a node D,
pi(D) and nu(D) are the (weighted) numbers of distinct positive and negative
bags with an instance in D, Info_multi(D) the entropy of pi / (pi + nu) and

    Gain_multi = Info_multi(D) - sum_i (pi_i + nu_i) / (pi + nu) * Info_multi(D_i).

Written with x log2 x, (pi + nu) * Info_multi = E(pi, nu) where
E(p, n) = X(p + n) - X(p) - X(n) and X(x) = x log2 x, so a cut's gain is
E(P, N) / T - (E(lp, ln) + E(rp, rn)) / T with T = P + N: a bag with
instances on both sides counts in both children, as the formula says, and
the children's shares can sum above one. Optionally (``shares_of_children``)
the children are weighed by their share of lp + ln + rp + rn instead, so the
shares sum to one: ... / (lp + ln + rp + rn) in the second term.

Every feature is presorted once at the root. When every feature is searched,
the builder keeps each node's instances as one segment of every feature's
sorted row (stable partition, ``c_partition``); when a random forest searches
a few features per node, it gathers only those features' values of the node's
instances in the order of their presorted rows (``c_gather_feature``: their
positions are marked, then the row is scanned), which is the same order a
stable partition would have left. Either way a node's search is one sweep per
feature: distinct bags
on each side come from ``c_sweep_distinct_bags`` (O(1) per instance) and
cuts lie midway between consecutive distinct values. For each feature the
kernel returns the cut of largest gain (gains within ``tol`` of the best are
ties, won by the lowest threshold, "NaN right" before "NaN left") with its
split information; the builder compares features (ID3-MI by gain, C4.5-MI
by gain ratio with the average-gain guard) in shared Python code.

Missing values: NaN sort last. When a node has NaN on a feature, every cut
is evaluated twice, with the NaN instances sent right (a sweep in sorted
order) and sent left (a sweep with the NaN block moved to the front); the
better one is kept. Without NaN in the node, NaN met at prediction time goes
to the child holding more bag weight (the left one on ties).

The NumPy twin ``_tree_split_py`` computes the same numbers in the same order
(x log2 x through the same libm ``log2``), so both build identical trees.
"""

cimport cython
from libc.math cimport INFINITY, NAN, fabs, isnan, log2
from libc.stdint cimport uint64_t
from libc.string cimport memcpy

from mil._core._bag_counts cimport (add_bag_extremes, c_binned_bag_extremes, c_sweep_distinct_bags,
                                     c_sweep_left_distinct_bags, leave_right)
from mil._core._typedefs cimport float64_t, intp_t, uint8_t

import numpy as np

from mil._core._checks import (binned_features as _binned_features, binned_search_args, check_tree_walk,
                               elementwise_args, tree_apply_args, tree_gather_args, tree_partition_args,
                               tree_search_args, tree_values_args)

__all__ = ["best_splits", "gather_best_splits", "binned_best_splits", "partition", "apply", "add_tree_values",
           "entropy_mass", "midpoints"]


cdef inline float64_t _xlogx(float64_t x) noexcept nogil:
    if x <= 0.0:
        return 0.0
    return x * log2(x)


# x log2 x of the whole numbers 0.._XLOGX_MAX, computed once with the same
# _xlogx: bag counts (unit or bootstrap weights) are whole, so most entropy
# terms are a lookup, with the bits the libm call would give.
cdef enum:
    _XLOGX_MAX = 4096
cdef float64_t _XLOGX[_XLOGX_MAX + 1]


cdef void _fill_xlogx_table() noexcept:
    cdef intp_t i
    for i in range(_XLOGX_MAX + 1):
        _XLOGX[i] = _xlogx(<float64_t>i)


_fill_xlogx_table()


cdef inline float64_t _xlogx_counts(float64_t x) noexcept nogil:
    cdef intp_t i
    if 0.0 <= x <= <float64_t>_XLOGX_MAX:
        i = <intp_t>x
        if <float64_t>i == x:
            return _XLOGX[i]
    return _xlogx(x)


cdef inline float64_t _entropy_mass(float64_t p, float64_t n) noexcept nogil:
    # (p + n) * Info_multi(p, n), in bits.
    return _xlogx_counts(p + n) - _xlogx_counts(p) - _xlogx_counts(n)


cdef inline float64_t _midpoint(float64_t a, float64_t b) noexcept nogil:
    # Halves first so huge values cannot overflow; rounding may land on b,
    # which would send b left, so fall back to a (a <= t < b always holds).
    cdef float64_t t = a / 2.0 + b / 2.0
    if not (t >= a and t < b):
        t = a
    return t


ctypedef struct _SweepMemory:
    # What a sweep over a feature's cuts remembers for one NaN direction.
    float64_t lp, ln, rp, rn   # counts at which el, er were taken (_cut_gain)
    float64_t el, er           # entropy terms of the left and right side
    float64_t qlp, qln, qrp, qrn  # counts of the previous admissible cut (_new_partition)


cdef inline void _forget(_SweepMemory* mem) noexcept nogil:
    # Both NaN directions' memories empty (NaN counts never compare equal).
    cdef intp_t d
    for d in range(2):
        mem[d].lp = NAN; mem[d].ln = NAN; mem[d].rp = NAN; mem[d].rn = NAN
        mem[d].el = 0.0; mem[d].er = 0.0
        mem[d].qlp = NAN; mem[d].qln = NAN; mem[d].qrp = NAN; mem[d].qrn = NAN


cdef inline float64_t _cut_gain(
    float64_t lp, float64_t ln, float64_t rp, float64_t rn,
    float64_t parent, float64_t total, float64_t min_weight, bint shares_of_children,
    _SweepMemory* mem,
) noexcept nogil:
    # Gain of a cut between distinct values, -inf where a child is too light.
    # mem caches the last entropy term of each side: a side's counts change
    # only where a bag enters or leaves it, so far fewer log2 are taken.
    cdef float64_t cl = lp + ln, cr = rp + rn
    if not ((cl >= min_weight) & (cr >= min_weight) & (cl > 0.0) & (cr > 0.0)):
        return -INFINITY
    if lp != mem.lp or ln != mem.ln:
        mem.lp = lp; mem.ln = ln
        mem.el = _entropy_mass(lp, ln)
    if rp != mem.rp or rn != mem.rn:
        mem.rp = rp; mem.rn = rn
        mem.er = _entropy_mass(rp, rn)
    return parent - (mem.el + mem.er) / (cl + cr if shares_of_children else total)


cdef inline bint _new_partition(
    float64_t lp, float64_t ln, float64_t rp, float64_t rn, _SweepMemory* mem,
) noexcept nogil:
    # Whether an admissible cut's counts differ from its direction's previous
    # admissible cut (mem.q*, updated): a new partition of the node's bags, for
    # C4.5's MDL correction.
    if lp == mem.qlp and ln == mem.qln and rp == mem.qrp and rn == mem.qrn:
        return False
    mem.qlp = lp; mem.qln = ln; mem.qrp = rp; mem.qrn = rn
    return True


cdef intp_t c_best_split_feature(
    const float64_t* vals, const intp_t* inst_bag, intp_t n,
    const uint8_t* bag_pos, const float64_t* bag_weight,
    float64_t total_pos, float64_t total_neg, float64_t min_weight, float64_t tol,
    bint shares_of_children, uint8_t* seen, intp_t* bag_scratch, float64_t* work, float64_t* out,
) noexcept nogil:
    return _best_split_feature(vals, inst_bag, n, bag_pos, bag_weight, total_pos, total_neg, min_weight, tol,
                               shares_of_children, seen, bag_scratch, work, out, True)


cdef intp_t _best_split_feature(
    const float64_t* vals, const intp_t* inst_bag, intp_t n,
    const uint8_t* bag_pos, const float64_t* bag_weight,
    float64_t total_pos, float64_t total_neg, float64_t min_weight, float64_t tol,
    bint shares_of_children, uint8_t* seen, intp_t* bag_scratch, float64_t* work, float64_t* out,
    bint count_cuts,
) noexcept nogil:
    # c_best_split_feature; without count_cuts the admissible cut points are
    # not counted (SPLIT_N_CUTS is NaN): only C4.5's MDL correction reads them.
    cdef intp_t m = n, n_nan, k, d, n_dirs, best_k = -1, best_d = 0, n_cuts = 0, n_parts = 0
    cdef bint new_part
    cdef float64_t total = total_pos + total_neg
    cdef float64_t parent, g, gmax = -INFINITY, lp, ln, rp, rn
    cdef float64_t *a_lp = work
    cdef float64_t *a_ln = work + n
    cdef float64_t *a_rp = work + 2 * n
    cdef float64_t *a_rn = work + 3 * n
    cdef float64_t *b_lp = work + 4 * n
    cdef float64_t *b_ln = work + 5 * n
    cdef float64_t *b_rp = work + 6 * n
    cdef float64_t *b_rn = work + 7 * n
    cdef float64_t *gains = work + 8 * n   # 2 per cut: NaN right, NaN left

    while m > 0 and isnan(vals[m - 1]):
        m -= 1
    n_nan = n - m
    if m < 2 or total <= 0.0 or not (vals[0] < vals[m - 1]):
        return 0  # no cut: too few values, or all equal (skip the sweeps)
    n_dirs = 2 if n_nan > 0 else 1

    parent = _entropy_mass(total_pos, total_neg) / total
    # The sweep's memory (entropy caches, last admissible cut), one per NaN direction.
    cdef _SweepMemory mem[2]
    _forget(mem)
    if n_nan == 0:
        # The common case, by runs of cuts with the same counts: the counts
        # change only where a bag enters the left side (its first instance)
        # or leaves the right one (its last), so the gain is computed once
        # per run, at the run's first cut between distinct values.
        best_k = _best_cut_by_runs(vals, inst_bag, n, bag_pos, bag_weight, parent, total, min_weight, tol,
                                   shares_of_children, seen, bag_scratch, work, &g, &lp, &ln, &rp, &rn,
                                   mem, &n_cuts, &n_parts, count_cuts)
        if best_k < 0:
            return 0
        k = best_k
        return _write_split(_midpoint(vals[k], vals[k + 1]), g, lp, ln, rp, rn, 1.0 if lp + ln >= rp + rn else 0.0,
                            n_cuts if count_cuts else -1, n_parts, out)
    c_sweep_distinct_bags(inst_bag, n, bag_pos, bag_weight, seen, a_lp, a_ln, a_rp, a_rn)
    # NaN block first: the cut after non-missing position k is then the
    # cut after position n_nan + k of this second sweep.
    for k in range(n_nan):
        bag_scratch[k] = inst_bag[m + k]
    for k in range(m):
        bag_scratch[n_nan + k] = inst_bag[k]
    c_sweep_distinct_bags(bag_scratch, n, bag_pos, bag_weight, seen, b_lp, b_ln, b_rp, b_rn)
    # A cut point opens a new bag partition when a direction's counts differ
    # from that direction's previous admissible cut (bag weights are positive,
    # so counts move whenever a bag enters the left side or leaves the right one).
    for k in range(m - 1):
        new_part = False
        for d in range(2):
            if not (vals[k] < vals[k + 1]):
                g = -INFINITY
            elif d == 0:
                g = _cut_gain(a_lp[k], a_ln[k], a_rp[k], a_rn[k], parent, total, min_weight,
                              shares_of_children, mem)
            else:
                g = _cut_gain(b_lp[n_nan + k], b_ln[n_nan + k], b_rp[n_nan + k], b_rn[n_nan + k],
                              parent, total, min_weight, shares_of_children, mem + 1)
            gains[2 * k + d] = g
            gmax = g if g > gmax else gmax
            if g > -INFINITY:
                if d == 0:
                    lp = a_lp[k]; ln = a_ln[k]; rp = a_rp[k]; rn = a_rn[k]
                else:
                    lp = b_lp[n_nan + k]; ln = b_ln[n_nan + k]; rp = b_rp[n_nan + k]; rn = b_rn[n_nan + k]
                new_part |= _new_partition(lp, ln, rp, rn, mem + d)
        # A cut point is admissible when either NaN direction is.
        n_cuts += (gains[2 * k] > -INFINITY) | (gains[2 * k + 1] > -INFINITY)
        n_parts += new_part
    if gmax == -INFINITY:
        return 0
    # First cut (lowest threshold, NaN right before NaN left) within tol of the best.
    for k in range(2 * (m - 1)):
        if (k & 1) < n_dirs and gains[k] >= gmax - tol:
            best_k = k >> 1
            best_d = k & 1
            break
    k = best_k
    if best_d == 0:
        lp = a_lp[k]; ln = a_ln[k]; rp = a_rp[k]; rn = a_rn[k]
    else:
        lp = b_lp[n_nan + k]; ln = b_ln[n_nan + k]; rp = b_rp[n_nan + k]; rn = b_rn[n_nan + k]
    return _write_split(_midpoint(vals[k], vals[k + 1]), gains[2 * k + best_d], lp, ln, rp, rn, <float64_t>best_d,
                        n_cuts if count_cuts else -1, n_parts, out)


cdef inline intp_t _write_split(
    float64_t threshold, float64_t gain, float64_t lp, float64_t ln, float64_t rp, float64_t rn,
    float64_t missing_left, intp_t n_cuts, intp_t n_parts, float64_t* out,
) noexcept nogil:
    # The result row of a cut at `threshold`; n_cuts / n_parts: the feature's admissible
    # cut points (-1: not counted, written as NaN) / the distinct bag partitions they make.
    cdef float64_t cl = lp + ln, cr = rp + rn
    cdef float64_t s = cl / (cl + cr), t = cr / (cl + cr)
    out[SPLIT_GAIN] = gain
    out[SPLIT_INFO] = -(_xlogx(s) + _xlogx(t))
    out[SPLIT_THRESHOLD] = threshold
    out[SPLIT_MISSING_LEFT] = missing_left
    out[SPLIT_W_LEFT] = cl
    out[SPLIT_W_RIGHT] = cr
    out[SPLIT_N_CUTS] = <float64_t>n_cuts if n_cuts >= 0 else NAN
    out[SPLIT_N_PARTITIONS] = <float64_t>n_parts
    return 1


cdef intp_t _best_cut_by_runs(
    const float64_t* vals, const intp_t* inst_bag, intp_t n,
    const uint8_t* bag_pos, const float64_t* bag_weight,
    float64_t parent, float64_t total, float64_t min_weight, float64_t tol, bint shares_of_children,
    uint8_t* seen, intp_t* f_pos, float64_t* work,
    float64_t* g_out, float64_t* lp_out, float64_t* ln_out, float64_t* rp_out, float64_t* rn_out,
    _SweepMemory* mem, intp_t* n_cuts_out, intp_t* n_parts_out, bint count_cuts,
) noexcept nogil:
    # Best cut of a node without NaN (the cut after sorted position k, 0 <= k
    # <= n - 2, needs vals[k] < vals[k + 1]). Returns k, -1 if none, and in
    # n_cuts_out the number of admissible cuts (those of the admissible runs), in n_parts_out the
    # number of admissible runs holding one (each run is one partition of the node's bags).
    #
    # Forward: each bag's first position, with the left sums after it (added
    # in sweep order, as c_sweep_left_distinct_bags). Backward: each bag's
    # last position, with the right sums (added right to left, as
    # c_sweep_distinct_bags). The cuts then fall into runs of equal counts;
    # a run's gain is the one every cut of it would get (the same inputs,
    # the same bits), and its first cut between distinct values the lowest
    # threshold with that gain: so the first cut within tol of the best is
    # the one a sweep over every cut finds.
    cdef float64_t *f_lp = work
    cdef float64_t *f_ln = work + n
    cdef float64_t *b_rp = work + 2 * n
    cdef float64_t *b_rn = work + 3 * n
    cdef float64_t *b_at = work + 4 * n      # last positions (exact as doubles)
    cdef float64_t *run_gain = work + 5 * n
    cdef float64_t *run_cut = work + 6 * n   # each run's first distinct cut (exact as doubles)
    cdef intp_t k, j, q, b, nf = 0, nb = 0, i, c, k_end, n_runs = 0, best = -1
    cdef float64_t acc_p = 0.0, acc_n = 0.0, g, gmax = -INFINITY, lp, ln, rp, rn
    for k in range(n):
        b = inst_bag[k]
        if not seen[b]:
            seen[b] = 1
            if bag_pos[b]:
                acc_p = acc_p + bag_weight[b]
            else:
                acc_n = acc_n + bag_weight[b]
            f_pos[nf] = k
            f_lp[nf] = acc_p
            f_ln[nf] = acc_n
            nf += 1
    acc_p = 0.0
    acc_n = 0.0
    for k in range(n - 1, -1, -1):
        b = inst_bag[k]
        if seen[b]:
            seen[b] = 0
            if bag_pos[b]:
                acc_p = acc_p + bag_weight[b]
            else:
                acc_n = acc_n + bag_weight[b]
            b_at[nb] = <float64_t>k
            b_rp[nb] = acc_p
            b_rn[nb] = acc_n
            nb += 1
    # Walk the runs: i bags entered left (first position <= k), the right
    # side holds the c bags whose last position is > k (a prefix of the
    # backward list, which runs from the last position down).
    i = 0
    c = nb
    k = 0
    while k <= n - 2:
        while i < nf and f_pos[i] <= k:
            i += 1
        while c > 0 and <intp_t>b_at[c - 1] <= k:
            c -= 1
        k_end = n - 2
        if i < nf and f_pos[i] - 1 < k_end:
            k_end = f_pos[i] - 1
        if c > 0 and <intp_t>b_at[c - 1] - 1 < k_end:
            k_end = <intp_t>b_at[c - 1] - 1
        lp = f_lp[i - 1]  # i >= 1: the first instance's bag entered at k = 0
        ln = f_ln[i - 1]
        rp = b_rp[c - 1] if c > 0 else 0.0
        rn = b_rn[c - 1] if c > 0 else 0.0
        g = _cut_gain(lp, ln, rp, rn, parent, total, min_weight, shares_of_children, mem)
        if g > -INFINITY:
            j = k
            while j <= k_end and not (vals[j] < vals[j + 1]):
                j += 1
            if j <= k_end:
                run_gain[n_runs] = g
                run_cut[n_runs] = <float64_t>j
                n_runs += 1
                gmax = g if g > gmax else gmax
                n_cuts_out[0] += 1
                if count_cuts:  # the run's other cut points (only the MDL correction reads the count)
                    for q in range(j + 1, k_end + 1):
                        n_cuts_out[0] += vals[q] < vals[q + 1]
        k = k_end + 1
    n_parts_out[0] = n_runs
    if n_runs == 0:
        return -1
    for j in range(n_runs):
        if run_gain[j] >= gmax - tol:
            best = <intp_t>run_cut[j]
            g_out[0] = run_gain[j]
            break
    # The counts at the chosen cut.
    i = 0
    while i < nf and f_pos[i] <= best:
        i += 1
    c = nb
    while c > 0 and <intp_t>b_at[c - 1] <= best:
        c -= 1
    lp_out[0] = f_lp[i - 1]
    ln_out[0] = f_ln[i - 1]
    rp_out[0] = b_rp[c - 1] if c > 0 else 0.0
    rn_out[0] = b_rn[c - 1] if c > 0 else 0.0
    return best


cdef intp_t _binned_split_feature(
    const uint8_t* codes, const float64_t* edges, intp_t n_bins,
    const intp_t* ids, intp_t n, const intp_t* node_bags, intp_t n_node_bags, const intp_t* inst_bag,
    const uint8_t* bag_pos, const float64_t* bag_weight,
    float64_t total_pos, float64_t total_neg, float64_t min_weight, float64_t tol, bint shares_of_children,
    uint8_t* bag_lo, uint8_t* bag_hi, uint8_t* bag_nan, float64_t* hist, float64_t* out, bint count_cuts,
    bint bags_sorted,
) noexcept nogil:
    # The binned twin of _best_split_feature: the same candidates (cuts
    # between the node's distinct bins), the same _cut_gain, the same
    # tie-break (lowest cut, NaN right first) and result row.
    #
    # One pass over the node's instances gives each bag's lowest and highest
    # non-missing bin and whether it has a missing value; a bag is on the
    # left of the cut after bin b iff its lowest bin is <= b (or it has a
    # NaN sent left), on the right iff its highest bin is > b (or it has a
    # NaN sent right). Histograms over the node's bags (in `node_bags`
    # order) of the lowest and highest bins, and prefix / suffix sums over
    # the bins, give every cut's counts. Bags that have a NaN enter the
    # histograms "no NaN" only, their weight goes to nan_p / nan_n.
    cdef intp_t k, j, b, c, bmax = -1, bmin = 255, d, n_dirs, best_k = -1, best_d = 0, n_cuts = 0, n_parts = 0
    cdef intp_t n_nan = 0
    cdef bint new_part
    # lp .. rn are set by _binned_counts before any use (zeros only quiet the C compiler).
    cdef float64_t w, g, gmax = -INFINITY, lp = 0.0, ln = 0.0, rp = 0.0, rn = 0.0, nan_p = 0.0, nan_n = 0.0
    cdef float64_t total = total_pos + total_neg, parent
    # hist: 12 blocks of 256: lo_all p/n, lo_nonan p/n, hi_all p/n, hi_nonan p/n,
    # then suffix sums of hi_all p/n and hi_nonan p/n; gains (2 * 256) and
    # instance counts per bin (256) follow.
    cdef float64_t *lo_ap = hist
    cdef float64_t *lo_an = hist + 256
    cdef float64_t *lo_np = hist + 512
    cdef float64_t *lo_nn = hist + 768
    cdef float64_t *hi_ap = hist + 1024
    cdef float64_t *hi_an = hist + 1280
    cdef float64_t *hi_np = hist + 1536
    cdef float64_t *hi_nn = hist + 1792
    cdef float64_t *gains = hist + 2048
    cdef float64_t *cnt = hist + 2560
    cdef float64_t acc_lp[2]
    cdef float64_t acc_ln[2]
    cdef float64_t nan_w[2]
    cdef intp_t extent[3]
    cdef _SweepMemory mem[2]
    if n < 2 or total <= 0.0:
        return 0
    if bags_sorted:
        # The node's instances come bag after bag (ids ascending, bags stored
        # in order): the shared pass of _bag_counts, in ascending bag order,
        # which is the order of `node_bags`.
        c_binned_bag_extremes(codes, n_bins, ids, n, inst_bag, bag_pos, bag_weight, hist, hist + 1024, cnt,
                              nan_w, extent, False)
        nan_p = nan_w[0]
        nan_n = nan_w[1]
        bmin = extent[0]
        bmax = extent[1]
        n_nan = extent[2]
    else:
        # Only the feature's bins are used (the missing bin is counted apart).
        for j in range(8):
            for k in range(n_bins + 1):
                hist[256 * j + k] = 0.0
        for k in range(n_bins + 1):
            cnt[k] = 0.0
        for j in range(n_node_bags):
            b = node_bags[j]
            bag_lo[b] = 255
            bag_hi[b] = 0
            bag_nan[b] = 0
        for k in range(n):
            c = codes[ids[k]]
            b = inst_bag[ids[k]]
            if c == 255:
                bag_nan[b] = 1
                n_nan += 1
            else:
                cnt[c] += 1.0
                if c < bag_lo[b]:
                    bag_lo[b] = <uint8_t>c
                if c > bag_hi[b]:
                    bag_hi[b] = <uint8_t>c
                if c > bmax:
                    bmax = c
                if c < bmin:
                    bmin = c
        for j in range(n_node_bags):
            b = node_bags[j]
            add_bag_extremes(b, bag_lo[b], bag_hi[b], bag_nan[b], bag_pos, bag_weight, lo_ap, hi_ap, &nan_p,
                             &nan_n)
    if bmax <= bmin:
        return 0  # fewer than two non-missing bins in the node
    # Below the node's lowest bin every histogram is 0 and no cut is a
    # candidate: the scans start there (prefix sums of zeros are exact zeros).
    # Suffix sums in place: hi_*[b] becomes the weight of the bags whose highest bin is >= b.
    for b in range(bmax - 1, bmin - 1, -1):
        hi_ap[b] = hi_ap[b] + hi_ap[b + 1]
        hi_an[b] = hi_an[b] + hi_an[b + 1]
        hi_np[b] = hi_np[b] + hi_np[b + 1]
        hi_nn[b] = hi_nn[b] + hi_nn[b + 1]
    n_dirs = 2 if n_nan > 0 else 1
    parent = _entropy_mass(total_pos, total_neg) / total
    _forget(mem)
    for d in range(2):
        acc_lp[d] = 0.0; acc_ln[d] = 0.0
    for b in range(bmin, bmax):
        # Left prefix sums: NaN right (all bags by lowest bin), NaN left (bags without NaN).
        acc_lp[0] = acc_lp[0] + lo_ap[b]
        acc_ln[0] = acc_ln[0] + lo_an[b]
        acc_lp[1] = acc_lp[1] + lo_np[b]
        acc_ln[1] = acc_ln[1] + lo_nn[b]
        new_part = False
        for d in range(2):
            if cnt[b] == 0.0 or d >= n_dirs:
                g = -INFINITY  # not between two of the node's distinct bins
            else:
                _binned_counts(d, acc_lp, acc_ln, hi_ap[b + 1], hi_an[b + 1], hi_np[b + 1], hi_nn[b + 1],
                               nan_p, nan_n, &lp, &ln, &rp, &rn)
                g = _cut_gain(lp, ln, rp, rn, parent, total, min_weight, shares_of_children, mem + d)
            gains[2 * b + d] = g
            gmax = g if g > gmax else gmax
            if g > -INFINITY:
                new_part |= _new_partition(lp, ln, rp, rn, mem + d)
        n_cuts += (gains[2 * b] > -INFINITY) | (gains[2 * b + 1] > -INFINITY)
        n_parts += new_part
    if gmax == -INFINITY:
        return 0
    for k in range(2 * bmin, 2 * bmax):
        if gains[k] >= gmax - tol:
            best_k = k >> 1
            best_d = k & 1
            break
    # The chosen cut's counts again (prefix sums up to best_k, in the same order).
    acc_lp[0] = 0.0; acc_ln[0] = 0.0; acc_lp[1] = 0.0; acc_ln[1] = 0.0
    for b in range(best_k + 1):
        acc_lp[0] = acc_lp[0] + lo_ap[b]
        acc_ln[0] = acc_ln[0] + lo_an[b]
        acc_lp[1] = acc_lp[1] + lo_np[b]
        acc_ln[1] = acc_ln[1] + lo_nn[b]
    b = best_k
    _binned_counts(best_d, acc_lp, acc_ln, hi_ap[b + 1], hi_an[b + 1], hi_np[b + 1], hi_nn[b + 1],
                   nan_p, nan_n, &lp, &ln, &rp, &rn)
    return _write_split(edges[b], gains[2 * b + best_d], lp, ln, rp, rn,
                        <float64_t>best_d if n_nan > 0 else (1.0 if lp + ln >= rp + rn else 0.0),
                        n_cuts if count_cuts else -1, n_parts, out)


cdef inline void _binned_counts(
    intp_t d, const float64_t* acc_lp, const float64_t* acc_ln,
    float64_t hi_ap, float64_t hi_an, float64_t hi_np, float64_t hi_nn, float64_t nan_p, float64_t nan_n,
    float64_t* lp, float64_t* ln, float64_t* rp, float64_t* rn,
) noexcept nogil:
    # The four bag counts of a binned cut: NaN right (d = 0) or left (d = 1).
    if d == 0:
        lp[0] = acc_lp[0]; ln[0] = acc_ln[0]
        rp[0] = hi_np + nan_p; rn[0] = hi_nn + nan_n
    else:
        lp[0] = acc_lp[1] + nan_p; ln[0] = acc_ln[1] + nan_n
        rp[0] = hi_ap; rn[0] = hi_an



cdef intp_t c_partition(
    intp_t* order, float64_t* vals, intp_t* inst_bag, intp_t n_rows, intp_t stride,
    intp_t start, intp_t end, const uint8_t* go_left,
    intp_t* s_order, float64_t* s_vals, intp_t* s_bag,
) noexcept nogil:
    cdef intp_t r, k, i, b, g, base, dst, n_left = 0, n_right, total_left = 0
    cdef float64_t v
    cdef bint lopsided, few_left
    for k in range(start, end):
        total_left += go_left[order[k]]
    # A lopsided split (a chain step peeling a few instances off) makes the
    # branch predictable and most writes avoidable; a balanced one is
    # partitioned without a data-dependent branch.
    lopsided = 8 * min(total_left, end - start - total_left) < end - start
    few_left = lopsided and 2 * total_left < end - start
    for r in range(n_rows):
        base = r * stride
        n_left = 0
        n_right = 0
        k = start
        if few_left:
            # From the back: the right instances move up in place (those
            # above the last left one are already there), the few left ones
            # go to the scratch and then, in order, to the front.
            dst = end - 1
            for k in range(end - 1, start - 1, -1):
                i = order[base + k]
                if go_left[i]:
                    s_order[n_left] = i
                    s_vals[n_left] = vals[base + k]
                    s_bag[n_left] = inst_bag[base + k]
                    n_left += 1
                else:
                    if dst != k:
                        order[base + dst] = i
                        vals[base + dst] = vals[base + k]
                        inst_bag[base + dst] = inst_bag[base + k]
                    dst -= 1
            for k in range(n_left):
                order[base + start + k] = s_order[n_left - 1 - k]
                vals[base + start + k] = s_vals[n_left - 1 - k]
                inst_bag[base + start + k] = s_bag[n_left - 1 - k]
            continue
        if lopsided:
            # The leading run of left instances is already in place.
            while k < end and go_left[order[base + k]]:
                k += 1
            n_left = k - start
            while k < end:
                i = order[base + k]
                if go_left[i]:
                    order[base + start + n_left] = i
                    vals[base + start + n_left] = vals[base + k]
                    inst_bag[base + start + n_left] = inst_bag[base + k]
                    n_left += 1
                else:
                    s_order[n_right] = i
                    s_vals[n_right] = vals[base + k]
                    s_bag[n_right] = inst_bag[base + k]
                    n_right += 1
                k += 1
        else:
            while k < end:
                # Written to both places, kept where the counter advances.
                # The left slot (<= k) was already read.
                i = order[base + k]
                v = vals[base + k]
                b = inst_bag[base + k]
                g = go_left[i]
                s_order[n_right] = i
                s_vals[n_right] = v
                s_bag[n_right] = b
                order[base + start + n_left] = i
                vals[base + start + n_left] = v
                inst_bag[base + start + n_left] = b
                n_left += g
                n_right += 1 - g
                k += 1
        for k in range(n_right):
            order[base + start + n_left + k] = s_order[k]
            vals[base + start + n_left + k] = s_vals[k]
            inst_bag[base + start + n_left + k] = s_bag[k]
    return n_left


cdef intp_t c_gather_feature(
    const float64_t* vals, const intp_t* inst_bag, const intp_t* rank, intp_t n,
    const intp_t* ids, intp_t m, uint8_t* mark, float64_t* out_vals, intp_t* out_bag,
) noexcept nogil:
    cdef intp_t t, j, k, c = 0, n8 = n - n % 8
    cdef uint64_t word
    for t in range(m):
        mark[rank[ids[t]]] = 1
    # Scan the row 8 marks at a time, skipping blocks without one (a small
    # node marks few); inside a block, write every entry and advance the
    # output where marked (no data-dependent branch). `out_*` hold m + 1.
    j = 0
    while j < n8:
        memcpy(&word, mark + j, 8)
        if word != 0:
            for k in range(j, j + 8):
                out_vals[c] = vals[k]
                out_bag[c] = inst_bag[k]
                c += mark[k]
                mark[k] = 0
        j += 8
    for k in range(n8, n):
        out_vals[c] = vals[k]
        out_bag[c] = inst_bag[k]
        c += mark[k]
        mark[k] = 0
    return c


cdef void c_apply(
    const float64_t* X, intp_t n, intp_t n_features,
    const intp_t* feature, const float64_t* threshold, const uint8_t* missing_left,
    const intp_t* left, const intp_t* right, intp_t* out,
) noexcept nogil:
    _walk(X, n, n_features, feature, threshold, missing_left, left, right, out)


cdef inline intp_t _leaf(
    const cython.floating* x, const intp_t* feature, const float64_t* threshold, const uint8_t* missing_left,
    const intp_t* left, const intp_t* right,
) noexcept nogil:
    # The leaf instance `x` reaches (a float32 value is compared after an
    # exact conversion to float64, as the binning kernel does).
    cdef intp_t node = 0
    cdef float64_t v
    cdef bint go
    while left[node] >= 0:
        v = <float64_t>x[feature[node]]
        if isnan(v):
            go = missing_left[node]
        else:
            go = v <= threshold[node]
        node = left[node] if go else right[node]
    return node


cdef void _walk(
    const cython.floating* X, intp_t n, intp_t n_features,
    const intp_t* feature, const float64_t* threshold, const uint8_t* missing_left,
    const intp_t* left, const intp_t* right, intp_t* out,
) noexcept nogil:
    # c_apply for float64 or float32 instances.
    cdef intp_t i
    for i in range(n):
        out[i] = _leaf(X + i * n_features, feature, threshold, missing_left, left, right)


cdef enum:
    _VALUE_BLOCK = 64  # instances whose rows stay in cache while every tree walks them


cdef void _add_values(
    const cython.floating* X, intp_t n, intp_t n_features,
    const intp_t* feature, const float64_t* threshold, const uint8_t* missing_left,
    const intp_t* left, const intp_t* right, const float64_t* value,
    const intp_t* node_offsets, const intp_t* columns, intp_t n_trees, intp_t n_columns,
    float64_t scale, float64_t* out,
) noexcept nogil:
    # out[i, columns[t]] += scale * value of the leaf of tree t, tree after
    # tree for each instance (the order of a loop over the trees). Each walk
    # reads a few scattered features of the instance's row: a block of rows
    # is walked by every tree before the next block is read, so a wide row
    # comes from memory once rather than once per tree.
    cdef intp_t i0 = 0, i, t, m, base
    while i0 < n:
        m = n - i0 if n - i0 < _VALUE_BLOCK else _VALUE_BLOCK
        for t in range(n_trees):
            base = node_offsets[t]
            for i in range(i0, i0 + m):
                out[i * n_columns + columns[t]] += scale * value[base + _leaf(
                    X + i * n_features, feature + base, threshold + base, missing_left + base, left + base,
                    right + base)]
        i0 += m


# Python wrappers. The public ones check sizes, dtypes, segment bounds and
# index ranges first (mil._core._checks, shared with the twin), so bad
# arguments raise instead of reading or writing out of bounds. The builder
# (mil.tree._builder), which makes its own layout from validated bags, calls
# the underscored ones, which trust their arguments.

def best_splits(vals, inst_bag, start, end, bag_pos, bag_weight, total_pos, total_neg, min_weight, tol,
                shares_of_children=False, features=None, count_cuts=True):
    """Best cut of every feature (or of `features`) for the node owning columns ``start:end``.

    Parameters
    ----------
    vals : ndarray of float64, shape (n_features, n_instances)
        Row f: feature f's values, each node's segment ascending with NaN last.
    inst_bag : ndarray of intp, shape (n_features, n_instances)
        The bag of each entry of `vals`.
    start, end : int
        The node's segment.
    bag_pos : ndarray of uint8, shape (n_bags,)
    bag_weight : ndarray of float64, shape (n_bags,)
    total_pos, total_neg : float
        Weight of the distinct positive / negative bags in the node.
    min_weight : float
        Minimum bag weight in each child.
    tol : float
        Gains within `tol` of a feature's best are ties (lowest cut wins).
    shares_of_children : bool, default=False
        Weigh the children's entropies by their share of the children's
        total bag weight (which sums to one) instead of the parent's
        (ID3-MI's formula; a bag on both sides then counts twice).
    features : ndarray of intp, default=None
        Search only these rows (a random forest's feature subset); result
        row i then describes feature ``features[i]``. None searches all.
    count_cuts : bool, default=True
        Count the admissible cut points (only C4.5's MDL correction with
        ``mdl_correction="cuts"`` reads them); False skips that pass.

    Returns
    -------
    found : ndarray of uint8, shape (n_searched,)
        1 where the feature has an admissible cut.
    stats : ndarray of float64, shape (n_searched, 8)
        Per feature: gain, split information, threshold, NaN-goes-left flag,
        left and right bag weight of the chosen cut, the number of
        admissible cut points of the feature (between distinct values, both
        children within `min_weight`; with NaN, a point counts once if
        either direction is admissible), and the number of those that make a
        new partition of the node's bags (in either NaN direction, the left
        and right bag counts differ from that direction's previous
        admissible cut), for C4.5 release 8's MDL correction (undefined
        where not found; the count of cut points is NaN without `count_cuts`).

    Raises
    ------
    TypeError, ValueError
        On a wrong dtype or shape, a segment outside the rows, a feature
        outside [0, n_features) or a bag index outside [0, n_bags).
    """
    *args, features = tree_search_args(vals, inst_bag, start, end, bag_pos, bag_weight, total_pos, total_neg,
                                       min_weight, tol, shares_of_children, features)
    return _best_splits(*args, bool(count_cuts), features)


def _best_splits(const float64_t[:, ::1] vals, const intp_t[:, ::1] inst_bag,
                 intp_t start, intp_t end,
                 const uint8_t[::1] bag_pos, const float64_t[::1] bag_weight,
                 float64_t total_pos, float64_t total_neg,
                 float64_t min_weight, float64_t tol, bint shares_of_children=False,
                 bint count_cuts=True, const intp_t[::1] features=None):
    cdef intp_t n_features = vals.shape[0] if features is None else features.shape[0]
    cdef intp_t n = end - start, f, row
    cdef bint subset = features is not None
    found = np.zeros(n_features, dtype=np.uint8)
    stats = np.zeros((n_features, SPLIT_N_FIELDS), dtype=np.float64)
    cdef uint8_t[::1] fo = found
    cdef float64_t[:, ::1] st = stats
    cdef uint8_t[::1] seen = np.zeros(max(bag_pos.shape[0], 1), dtype=np.uint8)
    cdef intp_t[::1] scratch = np.empty(max(n, 1), dtype=np.intp)
    cdef float64_t[::1] work = np.empty(max(10 * n, 1), dtype=np.float64)
    if n < 2:
        return found, stats
    with nogil:
        for f in range(n_features):
            row = features[f] if subset else f
            fo[f] = <uint8_t>_best_split_feature(
                &vals[row, start], &inst_bag[row, start], n, &bag_pos[0], &bag_weight[0],
                total_pos, total_neg, min_weight, tol, shares_of_children, &seen[0], &scratch[0], &work[0], &st[f, 0],
                count_cuts)
    return found, stats


def gather_best_splits(vals, inst_bag, rank, ids, features, bag_pos, bag_weight, total_pos, total_neg,
                       min_weight, tol, shares_of_children=False, count_cuts=True):
    """``best_splits`` of `features` for the node holding the instances `ids`, from the root's rows.

    Instead of a node segment kept up to date by partitions, each searched
    feature's values of the node's instances are gathered from the root's
    presorted row, in that row's order: the order a stable partition of the
    row would have left, hence the same cuts, sums and results.

    Parameters
    ----------
    vals, inst_bag : ndarray, shape (n_features, n_instances)
        The root's presorted rows (every training instance), as in
        :func:`best_splits`.
    rank : ndarray of intp, shape (n_features, n_instances)
        ``rank[f, i]``: the position of instance i in row f.
    ids : ndarray of intp, shape (m,)
        The node's instances (distinct, any order).
    features : ndarray of intp, shape (n_searched,)
        The rows to search.
    bag_pos, bag_weight, total_pos, total_neg, min_weight, tol, shares_of_children, count_cuts
        As in :func:`best_splits`.

    Returns
    -------
    found, stats
        As :func:`best_splits` with ``features``.
    """
    return _gather_best_splits(*tree_gather_args(vals, inst_bag, rank, ids, features, bag_pos, bag_weight,
                                                 total_pos, total_neg, min_weight, tol, shares_of_children),
                               bool(count_cuts))


def _gather_best_splits(const float64_t[:, ::1] vals, const intp_t[:, ::1] inst_bag,
                        const intp_t[:, ::1] rank, const intp_t[::1] ids, const intp_t[::1] features,
                        const uint8_t[::1] bag_pos, const float64_t[::1] bag_weight,
                        float64_t total_pos, float64_t total_neg,
                        float64_t min_weight, float64_t tol, bint shares_of_children=False,
                        bint count_cuts=True):
    cdef intp_t n_searched = features.shape[0], m = ids.shape[0], n = vals.shape[1], f, row, got = 0
    cdef bint duplicate = False
    found = np.zeros(n_searched, dtype=np.uint8)
    stats = np.zeros((n_searched, SPLIT_N_FIELDS), dtype=np.float64)
    cdef uint8_t[::1] fo = found
    cdef float64_t[:, ::1] st = stats
    if m < 2:
        return found, stats
    cdef uint8_t[::1] mark = np.zeros(n, dtype=np.uint8)
    cdef float64_t[::1] g_vals = np.empty(m + 1, dtype=np.float64)
    cdef intp_t[::1] g_bag = np.empty(m + 1, dtype=np.intp)
    cdef uint8_t[::1] seen = np.zeros(max(bag_pos.shape[0], 1), dtype=np.uint8)
    cdef intp_t[::1] scratch = np.empty(m, dtype=np.intp)
    cdef float64_t[::1] work = np.empty(10 * m, dtype=np.float64)
    with nogil:
        for f in range(n_searched):
            row = features[f]
            got = c_gather_feature(&vals[row, 0], &inst_bag[row, 0], &rank[row, 0], n, &ids[0], m,
                                   &mark[0], &g_vals[0], &g_bag[0])
            if got != m:
                duplicate = True
                break
            fo[f] = <uint8_t>_best_split_feature(
                &g_vals[0], &g_bag[0], m, &bag_pos[0], &bag_weight[0], total_pos, total_neg, min_weight,
                tol, shares_of_children, &seen[0], &scratch[0], &work[0], &st[f, 0], count_cuts)
    if duplicate:
        raise ValueError(f"ids must be distinct instances; {m} ids name {got} of them")
    return found, stats



def binned_best_splits(codes, edges, n_bins, ids, inst_bag, bag_pos, bag_weight, total_pos, total_neg,
                       min_weight, tol, shares_of_children=False, features=None, count_cuts=True):
    """``best_splits`` on binned features for the node holding the instances `ids`.

    The histogram split search: the candidate cuts of a feature are the
    boundaries between the node's non-empty bins (threshold: the bin's upper
    edge); each cut's distinct-bag counts come from histograms of each
    bag's lowest and highest bin in the node, so a feature costs one pass
    over the node's instances plus one over its bags and bins, with no
    sorting. When every distinct value has its own bin, the candidates,
    counts, gains and result rows are those of :func:`best_splits` (up to
    the order in which non-integer bag weights are summed), except that the
    threshold is the bin edge instead of the midpoint of the node's values.

    Parameters
    ----------
    codes : ndarray of uint8, shape (n_features, n_instances)
        Bin of every training instance (255: missing), from ``_binning.map_to_bins``.
    edges : ndarray of float64, shape (n_features, 255)
        Bin edges (``edges[f, b]``: upper edge of bin b).
    n_bins : ndarray of intp, shape (n_features,)
    ids : ndarray of intp, shape (m,)
        The node's instances (distinct).
    inst_bag : ndarray of intp, shape (n_instances,)
        Bag of every training instance.
    bag_pos, bag_weight, total_pos, total_neg, min_weight, tol, shares_of_children, features, count_cuts
        As in :func:`best_splits`.

    Returns
    -------
    found, stats
        As :func:`best_splits`.
    """
    return _binned_best_splits(*binned_search_args(codes, edges, n_bins, ids, inst_bag, bag_pos, bag_weight,
                                                   total_pos, total_neg, min_weight, tol, shares_of_children),
                               bool(count_cuts), features=_binned_features(features, codes.shape[0]))


def _binned_best_splits(const uint8_t[:, ::1] codes, const float64_t[:, ::1] edges, const intp_t[::1] n_bins,
                        const intp_t[::1] ids, const intp_t[::1] inst_bag,
                        const uint8_t[::1] bag_pos, const float64_t[::1] bag_weight,
                        float64_t total_pos, float64_t total_neg,
                        float64_t min_weight, float64_t tol, bint shares_of_children=False,
                        bint count_cuts=True, const intp_t[::1] features=None, const intp_t[::1] node_bags=None,
                        bint bags_sorted=False):
    cdef intp_t n_features = codes.shape[0] if features is None else features.shape[0]
    cdef intp_t m = ids.shape[0], f, row, n_nb
    cdef bint subset = features is not None
    found = np.zeros(n_features, dtype=np.uint8)
    stats = np.zeros((n_features, SPLIT_N_FIELDS), dtype=np.float64)
    cdef uint8_t[::1] fo = found
    cdef float64_t[:, ::1] st = stats
    if m < 2 or n_features == 0:
        return found, stats
    if node_bags is None:
        node_bags = np.flatnonzero(np.bincount(np.asarray(inst_bag)[np.asarray(ids)],
                                               minlength=bag_pos.shape[0])).astype(np.intp)
    n_nb = node_bags.shape[0]
    cdef intp_t n_b = max(bag_pos.shape[0], 1)
    cdef uint8_t[::1] lo = np.empty(n_b, dtype=np.uint8)
    cdef uint8_t[::1] hi = np.empty(n_b, dtype=np.uint8)
    cdef uint8_t[::1] nan = np.empty(n_b, dtype=np.uint8)
    cdef float64_t[::1] hist = np.empty(2816, dtype=np.float64)
    with nogil:
        for f in range(n_features):
            row = features[f] if subset else f
            fo[f] = <uint8_t>_binned_split_feature(
                &codes[row, 0], &edges[row, 0], n_bins[row], &ids[0], m, &node_bags[0], n_nb, &inst_bag[0],
                &bag_pos[0], &bag_weight[0], total_pos, total_neg, min_weight, tol, shares_of_children,
                &lo[0], &hi[0], &nan[0], &hist[0], &st[f, 0], count_cuts, bags_sorted)
    return found, stats


def _choose_feature(const uint8_t[::1] found, const float64_t[:, ::1] stats, bint gain_ratio,
                    const intp_t[::1] rank, float64_t tol, float64_t average_gain_tolerance,
                    float64_t min_split_info, bint return_ties=False):
    """The builder's choice of a node's split feature among the features' best cuts (unchecked).

    ID3-MI (``gain_ratio`` False): largest gain. C4.5-MI: largest gain ratio
    among the features whose gain is at least the average gain of the found
    features (summed in feature order) less ``max(average_gain_tolerance,
    tol)`` and whose split information exceeds `min_split_info`. Scores
    within ``tol * max(1, |best|)`` of the best tie; the lowest `rank` wins
    (the first feature on equal ranks). The twin's ``_choose_feature`` does
    the same in NumPy; ``mil.tree._split_choice.choose_feature`` documents it.

    Returns
    -------
    feature : int
        Row of `stats`, -1 when no feature qualifies.
    ties : ndarray of intp
        Instead, with `return_ties`: every feature whose score ties with the
        best, ascending (empty when none qualifies).
    """
    cdef intp_t f, n = found.shape[0], n_ok = 0, n_cand = 0, best_f = -1, n_ties = 0
    cdef float64_t total = 0.0, threshold = 0.0, score, best = -INFINITY, cut
    ties = np.empty(n, dtype=np.intp)
    cdef intp_t[::1] tied = ties
    for f in range(n):
        if found[f]:
            total += stats[f, 0]
            n_ok += 1
    if n_ok == 0:
        return ties[:0] if return_ties else -1
    if gain_ratio:
        threshold = total / n_ok - (average_gain_tolerance if average_gain_tolerance > tol else tol)
    for f in range(n):
        if not found[f] or (gain_ratio and not (stats[f, 0] >= threshold and stats[f, 1] > min_split_info)):
            continue
        score = stats[f, 0] / stats[f, 1] if gain_ratio else stats[f, 0]
        n_cand += 1
        if score > best:
            best = score
    if n_cand == 0:
        return ties[:0] if return_ties else -1
    cut = best - tol * (fabs(best) if fabs(best) > 1.0 else 1.0)
    for f in range(n):
        if not found[f] or (gain_ratio and not (stats[f, 0] >= threshold and stats[f, 1] > min_split_info)):
            continue
        score = stats[f, 0] / stats[f, 1] if gain_ratio else stats[f, 0]
        if score >= cut:
            tied[n_ties] = f
            n_ties += 1
            if best_f < 0 or rank[f] < rank[best_f]:
                best_f = f
    return ties[:n_ties] if return_ties else best_f


ctypedef float64_t (*_pairwise)(float64_t, float64_t) noexcept nogil


cdef _elementwise(a, b, tuple names, _pairwise f):
    # f(a[i], b[i]) for every element of two arrays of one shape (the Python
    # entry points of the split search's own arithmetic, for the tests).
    a, b = elementwise_args(a, b, names)
    out = np.empty(a.shape)
    cdef const float64_t[::1] av = a.reshape(-1), bv = b.reshape(-1)
    cdef float64_t[::1] o = out.reshape(-1)
    cdef intp_t i
    with nogil:
        for i in range(av.shape[0]):
            o[i] = f(av[i], bv[i])
    return out


def entropy_mass(p, n):
    """(p + n) * Info_multi(p, n) in bits, elementwise: the entropy term of the split criteria.

    Parameters
    ----------
    p, n : array-like of float64
        Positive and negative bag weights (one shape).

    Returns
    -------
    mass : ndarray of float64
        ``X(p + n) - X(p) - X(n)`` with ``X(x) = x log2 x`` (0 for x <= 0),
        with the split search's own arithmetic.
    """
    return _elementwise(p, n, ("p", "n"), _entropy_mass)


def midpoints(a, b):
    """The split search's threshold between values ``a <= b``, elementwise.

    Parameters
    ----------
    a, b : array-like of float64
        Lower and upper values (one shape).

    Returns
    -------
    t : ndarray of float64
        ``a / 2 + b / 2`` where that lies in ``[a, b)``, else `a` (rounding
        must not send `b` to the lower side).
    """
    return _elementwise(a, b, ("a", "b"), _midpoint)


def _partition_ids(intp_t[::1] samples, intp_t start, intp_t end, const cython.floating[:, ::1] X,
                   intp_t feature, float64_t threshold, bint missing_left):
    """Split a node of a layout of instance ids (the builder's, unchecked).

    Stably moves the ids of ``samples[start:end]`` whose value
    ``X[id, feature]`` is at most `threshold` (NaN: when `missing_left`) to
    the front of the segment, in place; float32 values are compared as
    float64, as :func:`apply` does.

    Returns
    -------
    n_left : int
    """
    cdef intp_t m = end - start, i, j = start, k = 0, sample
    cdef intp_t[::1] right = np.empty(max(m, 1), dtype=np.intp)
    cdef float64_t v
    with nogil:
        for i in range(start, end):
            sample = samples[i]
            v = X[sample, feature]
            if v <= threshold or (missing_left and isnan(v)):
                samples[j] = sample
                j += 1
            else:
                right[k] = sample
                k += 1
        for i in range(k):
            samples[j + i] = right[i]
    return j - start


def _node_stats(const intp_t[::1] ids, const intp_t[::1] inst_bag, const uint8_t[::1] bag_pos,
                const float64_t[::1] bag_weight, const float64_t[::1] leaf_weight=None):
    """A node's distinct-bag statistics, in one pass over its instances (the builder's, unchecked).

    The bags of ``inst_bag[ids]`` must be non-decreasing (as in every layout
    of bags stored one after another); each distinct bag is counted once, its
    weights added in ascending bag order.

    Returns
    -------
    (n_pos, n_neg, w_pos, w_neg, leaf_pos, leaf_neg) or None
        Distinct positive / negative bags, their summed `bag_weight` and
        `leaf_weight` (the counts when None); None when the bags are not
        non-decreasing.
    """
    cdef intp_t i, b, prev = -1, n_pos = 0, n_neg = 0, m = ids.shape[0]
    cdef float64_t w_pos = 0.0, w_neg = 0.0, l_pos = 0.0, l_neg = 0.0
    cdef bint has_leaf = leaf_weight is not None, ordered = True
    with nogil:
        for i in range(m):
            b = inst_bag[ids[i]]
            if b == prev:
                continue
            if b < prev:
                ordered = False
                break
            prev = b
            if bag_pos[b]:
                n_pos += 1
                w_pos += bag_weight[b]
                if has_leaf:
                    l_pos += leaf_weight[b]
            else:
                n_neg += 1
                w_neg += bag_weight[b]
                if has_leaf:
                    l_neg += leaf_weight[b]
    if not ordered:
        return None
    if not has_leaf:
        l_pos, l_neg = <float64_t>n_pos, <float64_t>n_neg
    return n_pos, n_neg, w_pos, w_neg, l_pos, l_neg


def partition(order, vals, inst_bag, start, end, go_left):
    """Stably move the instances with ``go_left[id] == 1`` to the front of every row's segment.

    Modifies `order`, `vals` and `inst_bag` in place (columns ``start:end``).

    Returns
    -------
    n_left : int
        How many instances moved to the front (the same in every row).

    Raises
    ------
    TypeError, ValueError
        On a wrong dtype, shape or writability, a segment outside the rows,
        or an instance id in `order` outside [0, len(go_left)).
    """
    return _partition(*tree_partition_args(order, vals, inst_bag, start, end, go_left))


def _partition(intp_t[:, ::1] order, float64_t[:, ::1] vals, intp_t[:, ::1] inst_bag,
               intp_t start, intp_t end, const uint8_t[::1] go_left):
    cdef intp_t n = end - start, n_left = 0
    cdef intp_t[::1] s_order = np.empty(max(n, 1), dtype=np.intp)
    cdef float64_t[::1] s_vals = np.empty(max(n, 1), dtype=np.float64)
    cdef intp_t[::1] s_bag = np.empty(max(n, 1), dtype=np.intp)
    if n <= 0:
        return 0
    with nogil:
        n_left = c_partition(&order[0, 0], &vals[0, 0], &inst_bag[0, 0], order.shape[0],
                             order.shape[1], start, end, &go_left[0],
                             &s_order[0], &s_vals[0], &s_bag[0])
    return n_left


def apply(X, feature, threshold, missing_left, left, right):
    """Leaf reached by every instance (row of `X`) in a tree stored as flat arrays.

    Returns
    -------
    leaves : ndarray of intp, shape (n_instances,)

    Raises
    ------
    TypeError, ValueError
        On a wrong dtype or shape, node arrays of different lengths, a split
        feature outside X's columns, or children that do not form a tree
        numbered from the root down (each child after its parent).
    """
    return _apply(*tree_apply_args(X, feature, threshold, missing_left, left, right))


def _apply(const cython.floating[:, ::1] X, const intp_t[::1] feature, const float64_t[::1] threshold,
           const uint8_t[::1] missing_left, const intp_t[::1] left, const intp_t[::1] right):
    # O(n_nodes): a cyclic tree would never return, a bad index would read out of bounds.
    check_tree_walk(np.asarray(feature), np.asarray(threshold), np.asarray(missing_left),
                    np.asarray(left), np.asarray(right), X.shape[1])
    cdef intp_t n = X.shape[0]
    out = np.empty(n, dtype=np.intp)
    cdef intp_t[::1] o = out
    if n == 0:
        return out
    with nogil:
        _walk(&X[0, 0], n, X.shape[1], &feature[0], &threshold[0], &missing_left[0],
                &left[0], &right[0], &o[0])
    return out


def add_tree_values(X, feature, threshold, missing_left, left, right, value, node_offsets, columns, scale, out):
    """Add the scaled leaf values of several trees to one row per instance, in place.

    Parameters
    ----------
    X : ndarray of float64 or float32, shape (n_instances, n_features)
    feature, threshold, missing_left, left, right, value : ndarray, shape (n_nodes,)
        The trees' node arrays one after another (as :func:`apply` takes
        them for one tree), children numbered from each tree's own root.
    node_offsets : ndarray of intp, shape (n_trees + 1,)
        Tree t holds nodes ``node_offsets[t]:node_offsets[t + 1]``.
    columns : ndarray of intp, shape (n_trees,)
        The column of `out` each tree adds to.
    scale : float
        Every value is multiplied by it before it is added.
    out : ndarray of float64, shape (n_instances, n_columns)
        C-contiguous; ``out[i, columns[t]] += scale * value[leaf of i in t]``,
        tree after tree, which rounds as a loop over the trees adding
        ``scale * tree_values`` does.

    Raises
    ------
    TypeError, ValueError
        On a wrong dtype or shape, node offsets that do not cover the node
        arrays, a column outside `out`, or a tree whose walk leaves it.
    """
    _add_tree_values(*tree_values_args(X, feature, threshold, missing_left, left, right, value, node_offsets,
                                       columns, scale, out))


def _add_tree_values(const cython.floating[:, ::1] X, const intp_t[::1] feature, const float64_t[::1] threshold,
                     const uint8_t[::1] missing_left, const intp_t[::1] left, const intp_t[::1] right,
                     const float64_t[::1] value, const intp_t[::1] node_offsets, const intp_t[::1] columns,
                     float64_t scale, float64_t[:, ::1] out):
    if X.shape[0] == 0 or columns.shape[0] == 0:
        return
    with nogil:
        _add_values(&X[0, 0], X.shape[0], X.shape[1], &feature[0], &threshold[0], &missing_left[0], &left[0],
                    &right[0], &value[0], &node_offsets[0], &columns[0], columns.shape[0], out.shape[1], scale,
                    &out[0, 0])

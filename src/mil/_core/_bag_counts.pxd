# C-level API of the bag-counting kernel (trees and rules): distinct-bag counts
# in O(1) per instance, shared by the tree split search and the rule
# condition search. Entry points are prefixed c_, nogil, and trust their inputs;
# the Python wrappers of the same names without c_ live in _bag_counts.pyx.
from mil._core._typedefs cimport float64_t, intp_t, uint8_t

cdef void c_sweep_distinct_bags(
    const intp_t* inst_bag,     # bag index of each instance, in sweep order (length n)
    intp_t n,                   # number of instances swept
    const uint8_t* bag_pos,     # 1 if the bag is positive, 0 if negative (length n_bags)
    const float64_t* bag_weight,  # weight of each bag (1.0 for plain counts)
    uint8_t* seen,              # scratch, length n_bags, all 0 on entry and on exit
    float64_t* left_pos,        # out[k]: weight of distinct positive bags among instances 0..k
    float64_t* left_neg,        # out[k]: same for negative bags
    float64_t* right_pos,       # out[k]: weight of distinct positive bags among instances k+1..n-1
    float64_t* right_neg,       # out[k]: same for negative bags
) noexcept nogil

cdef void c_sweep_left_distinct_bags(
    const intp_t* inst_bag,     # bag index of each instance, in sweep order (length n)
    intp_t n,                   # number of instances swept
    const uint8_t* bag_pos,     # 1 if the bag is positive, 0 if negative (length n_bags)
    const float64_t* bag_weight,  # weight of each bag (1.0 for plain counts)
    uint8_t* seen,              # scratch, length n_bags, all 0 on entry; on exit 1 for the bags swept
    float64_t* left_pos,        # out[k]: weight of distinct positive bags among instances 0..k
    float64_t* left_neg,        # out[k]: same for negative bags
) noexcept nogil

cdef void c_distinct_bag_weights(
    const intp_t* inst_bag,     # bag index of each instance (length n)
    intp_t n,                   # number of instances
    const uint8_t* bag_pos,     # 1 if the bag is positive (length n_bags)
    const float64_t* bag_weight,  # weight of each bag
    uint8_t* seen,              # scratch, length n_bags, all 0 on entry and on exit
    float64_t* pos,             # out: weight of the distinct positive bags present
    float64_t* neg,             # out: weight of the distinct negative bags present
) noexcept nogil

cdef void c_binned_bag_extremes(
    const uint8_t* codes,       # one feature's bin code of every instance (255: missing)
    intp_t n_bins,              # the feature's bins (every other code is below it)
    const intp_t* ids,          # the instances counted, their bags in non-decreasing order (length n)
    intp_t n,                   # number of instances counted
    const intp_t* inst_bag,     # bag index of every instance
    const uint8_t* bag_pos,     # 1 if the bag is positive (length n_bags)
    const float64_t* bag_weight,  # weight of each bag
    float64_t* lo,              # out (4 x 256): weight of the bags whose lowest non-missing bin is b
                                # (positive, negative, positive without a missing value, negative without)
    float64_t* hi,              # out (4 x 256): the same by their highest non-missing bin
    float64_t* cnt,             # out (256): instances in each non-missing bin
    float64_t* nan_w,           # out (2): weight of the positive / negative bags holding a missing value
    intp_t* extent,             # out (3): lowest and highest non-missing bin met (255, -1: none), missing values
    bint distinct_bags,         # every instance of ids in a bag of its own (a faster pass, the same sums)
) noexcept nogil

cdef void c_bag_max(
    const float64_t* values,    # one value per instance, bags stored one after another
    const intp_t* offsets,      # bag b owns values[offsets[b]:offsets[b + 1]] (length n_bags + 1)
    intp_t n_bags,              # number of bags (each non-empty)
    float64_t* out,             # out[b]: maximum over bag b's values
) noexcept nogil


cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    /* x if c else +0.0, without a jump: the bits of x masked by all ones or all zeros. */
    static inline double mil_keep_if(int c, double x) {
        uint64_t u;
        memcpy(&u, &x, sizeof u);
        u &= (uint64_t)0 - (uint64_t)(c != 0);
        memcpy(&x, &u, sizeof u);
        return x;
    }
    """
    float64_t mil_keep_if(int c, float64_t x) noexcept nogil


cdef inline void enter_left(
    intp_t b, const uint8_t* bag_pos, const float64_t* bag_weight, uint8_t* seen,
    float64_t* acc_pos, float64_t* acc_neg,
) noexcept nogil:
    # One step of a forward sweep: the first time bag b is met its flag is set
    # and its weight joins the left side (the flags stay set for the caller).
    # Branch-free (the bag's class and whether it is new are data, and a
    # branch on them is mispredicted about half the time): each side adds
    # either the weight or +0.0, selected without a jump. Bit-identical to
    # adding the weight to one side only: a sum that starts at +0.0 is never
    # -0.0, and x + 0.0 == x for every other x (also inf and NaN).
    cdef float64_t w = mil_keep_if(seen[b] == 0, bag_weight[b])
    cdef int pos = bag_pos[b] != 0
    seen[b] = 1
    acc_pos[0] = acc_pos[0] + mil_keep_if(pos, w)
    acc_neg[0] = acc_neg[0] + mil_keep_if(1 - pos, w)


cdef inline void add_bag_extremes(
    intp_t b, intp_t lo_bin, intp_t hi_bin, intp_t has_nan, const uint8_t* bag_pos, const float64_t* bag_weight,
    float64_t* lo, float64_t* hi, float64_t* nan_p, float64_t* nan_n,
) noexcept nogil:
    # Bag b's lowest / highest non-missing bin (lo_bin = 255: none) into the
    # histograms of c_binned_bag_extremes (lo, hi: 4 x 256 each: positive,
    # negative, positive without a missing value, negative without); a bag
    # holding a missing value adds its weight to nan_p / nan_n and to the
    # first two rows only. The bag's class selects a row by offset, without
    # a branch (it is data, and a branch on it is mispredicted half the time).
    cdef float64_t w = bag_weight[b]
    cdef intp_t row = 256 * (bag_pos[b] == 0)
    if has_nan:
        if bag_pos[b]:
            nan_p[0] = nan_p[0] + w
        else:
            nan_n[0] = nan_n[0] + w
    if lo_bin == 255:
        return  # NaN only
    lo[row + lo_bin] += w
    hi[row + hi_bin] += w
    if not has_nan:
        lo[512 + row + lo_bin] += w
        hi[512 + row + hi_bin] += w


cdef inline void leave_right(
    intp_t b, const uint8_t* bag_pos, const float64_t* bag_weight, uint8_t* seen,
    float64_t* acc_pos, float64_t* acc_neg,
) noexcept nogil:
    # One step of a backward sweep after a forward one: the first time bag b is
    # met from the right its flag is cleared and its weight joins the right
    # side. Inline, so the fused loop of a caller keeps its sums in registers;
    # branch-free and bit-identical as enter_left.
    cdef float64_t w = mil_keep_if(seen[b], bag_weight[b])
    cdef int pos = bag_pos[b] != 0
    seen[b] = 0
    acc_pos[0] = acc_pos[0] + mil_keep_if(pos, w)
    acc_neg[0] = acc_neg[0] + mil_keep_if(1 - pos, w)

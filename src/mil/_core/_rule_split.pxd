# C-level API of the rule condition search (RIPPER-MI). Entry points
# are prefixed c_, nogil, and trust their inputs; the Python wrappers of the
# same names without c_ live in _rule_split.pyx. Operators are coded 0 for
# "x_f <= t" and 1 for "x_f >= t".
from libc.stdint cimport int32_t
from mil._core._typedefs cimport float64_t, intp_t, uint8_t

cdef void c_best_conditions(
    const float64_t* sorted_vals,  # row-major (d x n): sorted_vals[f, k] = X[order[f, k], f]
    intp_t n,                   # number of instances
    intp_t d,                   # number of features
    const int32_t* order,       # row-major (d x n): instances sorted by each feature (stable)
    const uint8_t* active,      # 1 for the instances covered by the rule being grown (length n)
    const int32_t* sorted_bag,  # row-major (d x n): bag of instance order[f, k]
    const uint8_t* bag_pos,     # 1 if the bag is positive (length n_bags)
    const float64_t* bag_weight,  # weight of each bag (length n_bags; ones count bags)
    const float64_t* log2_table,  # log2_table[i] = log2(i) (NumPy), i = 0..table_len - 1
    intp_t table_len,           # entries of log2_table; other arguments use libm's log2
    float64_t base,             # log2(p0 / (p0 + n0)) of the rule before the new condition
    float64_t min_weight,       # a condition must keep at least this weight of positive bags
    float64_t smooth,           # 1: precisions (p + 1) / (p + n + 1) (JRip), 0: p / (p + n)
    intp_t* scratch_bag,        # scratch, length n
    float64_t* scratch_val,     # scratch, length n
    float64_t* lp,              # scratch, length n (sweep counts, left positive)
    float64_t* ln,              # scratch, length n (left negative)
    uint8_t* seen,              # scratch, length n_bags, all 0 on entry and on exit
    float64_t* out_gain,        # out (d x 2): best FOIL gain per (feature, operator), 0 if none
    float64_t* out_threshold,   # out (d x 2): its threshold (lowest among equal gains)
    float64_t* out_p,           # out (d x 2): positive bags covered with the condition
    float64_t* out_n,           # out (d x 2): negative bags covered with the condition
) noexcept nogil

cdef void c_prefix_coverage(
    const float64_t* X,         # instance matrix, row-major (n x d)
    intp_t d,                   # number of features
    const intp_t* offsets,      # bag b owns rows offsets[b]:offsets[b + 1] (length n_bags + 1)
    intp_t n_bags,              # number of bags
    const intp_t* features,     # feature of each condition (length m)
    const uint8_t* ops,         # operator of each condition (length m)
    const float64_t* thresholds,  # threshold of each condition (length m)
    intp_t m,                   # number of conditions
    uint8_t* out,               # out (m x n_bags): row j = bags covered by conditions 0..j
) noexcept nogil

cdef void c_ruleset_coverage(
    const float64_t* X,         # instance matrix, row-major (n x d)
    intp_t d,                   # number of features
    const intp_t* offsets,      # bag offsets (length n_bags + 1)
    intp_t n_bags,              # number of bags
    const intp_t* rule_ptr,     # rule r owns conditions rule_ptr[r]:rule_ptr[r + 1] (length n_rules + 1)
    intp_t n_rules,             # number of rules
    const intp_t* features,     # feature of each condition, rule after rule
    const uint8_t* ops,         # operator of each condition
    const float64_t* thresholds,  # threshold of each condition
    uint8_t* out,               # out (n_rules x n_bags): 1 if rule r covers bag b
) noexcept nogil

# C-level API of the multi-instance tree kernel (ID3-MI / C4.5-MI): split search on a
# node's presorted instances, stable partition of the presorted layout, and
# routing of instances to leaves. Entry points are prefixed c_, nogil, and
# trust their inputs; the Python wrappers without c_ live in _tree_split.pyx.
from mil._core._typedefs cimport float64_t, intp_t, uint8_t

# Layout of the per-feature result row written by c_best_split_feature.
cdef enum:
    SPLIT_GAIN = 0          # Gain_multi of the chosen cut
    SPLIT_INFO = 1          # SplitInfo_multi of the chosen cut (entropy of the child shares)
    SPLIT_THRESHOLD = 2     # x <= threshold goes left
    SPLIT_MISSING_LEFT = 3  # 1.0 if NaN goes left, else 0.0
    SPLIT_W_LEFT = 4        # weight of the distinct bags in the left child
    SPLIT_W_RIGHT = 5       # weight of the distinct bags in the right child
    SPLIT_N_CUTS = 6        # number of admissible cut points of the feature (for the MDL correction)
    SPLIT_N_PARTITIONS = 7  # number of distinct bag partitions among them (for the MDL correction)
    SPLIT_N_FIELDS = 8      # length of the row

cdef intp_t c_best_split_feature(
    const float64_t* vals,      # the node's values of one feature, ascending, NaN last (length n)
    const intp_t* inst_bag,     # bag index of each of those instances (length n)
    intp_t n,                   # number of instances in the node
    const uint8_t* bag_pos,     # 1 if the bag is positive (length n_bags)
    const float64_t* bag_weight,  # weight of each bag (length n_bags)
    float64_t total_pos,        # weight of the distinct positive bags in the node
    float64_t total_neg,        # weight of the distinct negative bags in the node
    float64_t min_weight,       # a child needs at least this bag weight to be admissible
    float64_t tol,              # gains within tol of the best one are ties (lowest cut wins)
    bint shares_of_children,    # weigh child entropies by lp+ln+rp+rn instead of P+N
    uint8_t* seen,              # scratch, length n_bags, all 0 on entry and on exit
    intp_t* bag_scratch,        # scratch, length n
    float64_t* work,            # scratch, length 10 * n
    float64_t* out,             # out: SPLIT_N_FIELDS values describing the chosen cut
) noexcept nogil                # returns 1 if an admissible cut exists, else 0

cdef intp_t c_partition(
    intp_t* order,              # (n_rows, stride): instance ids, each row sorted by its feature
    float64_t* vals,            # (n_rows, stride): the matching feature values
    intp_t* inst_bag,           # (n_rows, stride): the matching bag indices
    intp_t n_rows,              # number of rows (features)
    intp_t stride,              # row length (number of training instances)
    intp_t start,               # the node owns columns start..end-1 of every row
    intp_t end,
    const uint8_t* go_left,     # per instance id: 1 to move to the front of the segment
    intp_t* s_order,            # scratch, length end - start
    float64_t* s_vals,          # scratch, length end - start
    intp_t* s_bag,              # scratch, length end - start
) noexcept nogil                # returns the number of instances moved to the front

cdef intp_t c_gather_feature(
    const float64_t* vals,      # one feature's presorted row at the root (length n)
    const intp_t* inst_bag,     # the matching bag indices (length n)
    const intp_t* rank,         # rank[i]: position of instance i in that row (length n)
    intp_t n,                   # row length (number of training instances)
    const intp_t* ids,          # the node's instances, distinct (length m)
    intp_t m,
    uint8_t* mark,              # scratch, length n, all 0 on entry and on exit
    float64_t* out_vals,        # out: the node's values in row order (room for m + 1)
    intp_t* out_bag,            # out: their bags (room for m + 1)
) noexcept nogil                # returns how many were gathered (m when ids are distinct)

cdef void c_apply(
    const float64_t* X,         # (n, n_features) instances, C order
    intp_t n,                   # number of instances
    intp_t n_features,          # row length of X
    const intp_t* feature,      # per node: split feature, -1 for a leaf
    const float64_t* threshold, # per node: x <= threshold goes left
    const uint8_t* missing_left,  # per node: 1 if NaN goes left
    const intp_t* left,         # per node: left child (-1 for a leaf)
    const intp_t* right,        # per node: right child (-1 for a leaf)
    intp_t* out,                # out[i]: the leaf reached by instance i
) noexcept nogil

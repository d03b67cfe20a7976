# C-level API of the bag-ratio split kernel (bag-level randomized trees): the share
# of a bag's instances with x_f <= theta, the randomised rule search of a node and
# the routing of bags to leaves. Entry points are prefixed c_, nogil, and trust
# their inputs; the Python wrappers of the same names without c_ live in
# _bag_shares.pyx. A missing value (NaN) is never <= theta and counts in the
# bag's size.
from mil._core._typedefs cimport float64_t, intp_t, uint8_t

# One bag in the sweep of the best ratio: sorted by share, descending, then by position.
ctypedef struct ShareKey:
    float64_t share             # the bag's share
    intp_t pos                  # its position among the node's bags

# Layout of the result row written by c_best_rule.
cdef enum:
    RULE_FEATURE = 0     # feature of the chosen rule (as a double)
    RULE_THRESHOLD = 1   # theta: an instance counts when x_f <= theta
    RULE_RATIO = 2       # r: a bag goes left when its share exceeds r
    RULE_GAIN = 3        # entropy decrease times the node's bag weight (sum_c x log2 x form)
    RULE_N_FIELDS = 4    # length of the row

cdef void c_bag_shares(
    const float64_t* col,       # one feature's value per instance, bags one after another
    const intp_t* offsets,      # bag b owns col[offsets[b]:offsets[b + 1]] (non-empty)
    const intp_t* bags,         # the bags to score (length n_bags)
    intp_t n_bags,
    float64_t theta,            # an instance counts when col[i] <= theta (NaN never does)
    float64_t* out,             # out[j]: share of bag bags[j]'s instances that count
) noexcept nogil

cdef intp_t c_best_rule(
    const float64_t* XT,        # (n_features, n_instances) instances, feature-major, C order
    intp_t n_instances,         # row length of XT
    const intp_t* offsets,      # bag b owns instances offsets[b]..offsets[b + 1]-1
    const intp_t* bags,         # the node's bags (length n_bags)
    intp_t n_bags,
    const intp_t* bag_class,    # class index of each node bag (length n_bags, values < n_classes)
    const float64_t* bag_weight,  # weight of each node bag (length n_bags, > 0)
    intp_t n_classes,
    const intp_t* features,     # the features searched, in order (length n_feat)
    intp_t n_feat,
    const float64_t* u_theta,   # (n_feat, n_rules) uniforms in [0, 1): theta = lo + u (hi - lo)
    const float64_t* u_ratio,   # (n_feat, n_rules) uniforms in [0, 1): the random r
    intp_t n_rules,
    bint best_ratio,            # 1: r is the best cut of the bags' shares, not u_ratio
    intp_t min_bags,            # each child needs at least this many bags
    intp_t* counts,             # scratch, length n_bags * (n_rules + 1)
    float64_t* work,            # scratch, length n_bags + 2 * n_rules + 3 * n_classes
    intp_t* iwork,              # scratch, length 2 * n_rules
    ShareKey* keys,             # scratch, length n_bags (used with best_ratio)
    float64_t* out,             # out: RULE_N_FIELDS values of the chosen rule
) noexcept nogil                # returns 1 if an admissible rule exists, else 0

cdef intp_t c_best_regression_rule(
    const float64_t* XT,        # as c_best_rule
    intp_t n_instances,
    const intp_t* offsets,
    const intp_t* bags,
    intp_t n_bags,
    const float64_t* bag_target,  # real-valued target of each node bag (length n_bags, finite)
    const float64_t* bag_weight,  # weight of each node bag (length n_bags, > 0)
    const intp_t* features,
    intp_t n_feat,
    const float64_t* u_theta,
    const float64_t* u_ratio,
    intp_t n_rules,
    bint best_ratio,
    intp_t min_bags,
    intp_t* counts,             # scratch, length n_bags * (n_rules + 1)
    float64_t* work,            # scratch, length n_bags + 2 * n_rules + 9
    intp_t* iwork,              # scratch, length 2 * n_rules
    ShareKey* keys,             # scratch, length n_bags (used with best_ratio)
    float64_t* out,             # out: RULE_N_FIELDS values; RULE_GAIN is the decrease of the squared deviations
) noexcept nogil                # returns 1 if an admissible rule exists, else 0

cdef void c_apply_bags(
    const float64_t* X,         # (n_instances, n_features) instances, C order
    intp_t n_features,          # row length of X
    const intp_t* offsets,      # bag b owns rows offsets[b]..offsets[b + 1]-1 (non-empty)
    intp_t n_bags,
    const intp_t* feature,      # per node: rule feature, -1 for a leaf
    const float64_t* threshold, # per node: theta
    const float64_t* ratio,     # per node: r (share > r goes left)
    const intp_t* left,         # per node: left child (-1 for a leaf)
    const intp_t* right,        # per node: right child (-1 for a leaf)
    intp_t* out,                # out[b]: the leaf reached by bag b
) noexcept nogil

# Public C-level API of mil: cimport the kernels from here, not from mil._core.
#
#     from mil.cython_kernels cimport c_bag_max, float64_t, intp_t
#
# This file only re-exports declarations of mil/_core/*.pxd, so the private
# modules can be reorganised without breaking code that cimports them. The
# functions are defined in the compiled modules mil._core.<stem>; a module
# that cimports them imports those at its own import time (through
# __pyx_capi__), so the compiled kernels must be installed at run time, while
# only these .pxd files are needed at build time (put mil.get_include() on the
# include path).
#
# Every c_ entry point is `noexcept nogil`, works on raw pointers plus
# lengths, and trusts its inputs: C-contiguous float64 values, intp indices,
# non-overlapping output buffers of the documented lengths, scratch buffers in
# the documented state. Nothing is checked; validate in Python first (see
# mil.utils.validation) or call the def wrappers of the same names without c_.
# The parameters are documented in the .pxd of each kernel.

# Fixed C types of every kernel: float64_t values, intp_t (Py_ssize_t, like
# numpy.intp) indices and counts, uint8_t flags.
from mil._core._typedefs cimport float64_t, intp_t, uint8_t

# _bag_counts: distinct positive/negative bag weights over instances
# (multi-instance trees and rules), shared by the tree split search and the rule search,
# and the histograms of each bag's lowest and highest bin (their histogram searches).
from mil._core._bag_counts cimport (
    c_sweep_distinct_bags,
    c_sweep_left_distinct_bags,
    c_distinct_bag_weights,
    c_binned_bag_extremes,
    c_bag_max,
)

# _binning: bin code of a value (histogram split search of the trees).
from mil._core._binning cimport c_bin_code

# _bag_shares: bag-ratio rules of bag-level randomized trees (share of a bag's
# instances with x_f <= theta), the node's rule search (classes or, by variance reduction, targets)
# and the routing of bags.
from mil._core._bag_shares cimport (
    ShareKey,
    c_bag_shares,
    c_best_rule,
    c_best_regression_rule,
    c_apply_bags,
)

# _rule_split: condition search and bag coverage of RIPPER-MI.
from mil._core._rule_split cimport (
    c_best_conditions,
    c_prefix_coverage,
    c_ruleset_coverage,
)

# _tree_split: split search, partition, gathering of a node's presorted values
# and routing of ID3-MI / C4.5-MI.
from mil._core._tree_split cimport (
    c_best_split_feature,
    c_partition,
    c_gather_feature,
    c_apply,
)

# _hausdorff: minimal, maximal and average Hausdorff matrices in one pass
# over blocks of bags, and the instance-to-bag minima of the same pass.
from mil._core._hausdorff cimport c_hausdorff_matrices, c_instance_bag_minima

# _golden: golden-section maximisation over a C function pointer, and the NCA
# objective choosing the integrated distance's alpha.
from mil._core._golden cimport (
    scalar_func,
    c_golden_section_max,
    c_nca_objective,
    c_nca_alpha,
)

# _set_kernel: set kernels (NSK / MI-Kernel, miGraph) between bags for several
# gammas in one pass over blocks of bags, and each bag's kernel with itself.
from mil._core._set_kernel cimport c_set_kernel_matrices, c_set_kernel_diagonal

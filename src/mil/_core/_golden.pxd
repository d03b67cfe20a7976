# C-level API of the golden-section kernel (alpha of the integrated distance): a generic scalar
# maximiser over a C function pointer and the NCA objective of the integrated
# Hausdorff distance. Entry points are prefixed c_, nogil, trust their inputs;
# the Python wrappers without c_ live in _golden.pyx.
from mil._core._typedefs cimport float64_t, intp_t

# A scalar function f(x, data); data carries whatever f needs.
ctypedef float64_t (*scalar_func)(float64_t x, void* data) noexcept nogil

cdef float64_t c_golden_section_max(
    scalar_func f,              # function to maximise
    void* data,                 # passed through to f
    float64_t lo,               # left end of the search interval
    float64_t hi,               # right end (hi > lo)
    float64_t tol,              # stop when the bracket is shorter than tol
    intp_t max_iter,            # and after at most max_iter shrinking steps
) noexcept nogil                # returns the midpoint of the final bracket

cdef float64_t c_nca_objective(
    const float64_t* dmin,      # (n, n) row-major minimal Hausdorff distances between training bags
    const float64_t* dmax,      # (n, n) row-major maximal Hausdorff distances
    const intp_t* y,            # class index of each bag (length n)
    intp_t n,                   # number of bags
    float64_t alpha,            # weight of dmin in d_int = alpha dmin + (1 - alpha) dmax
    float64_t sigma,            # bandwidth (> 0)
) noexcept nogil                # returns f(alpha) = sum_i sum_{j: y_j = y_i} p_ij

cdef float64_t c_nca_alpha(
    const float64_t* dmin,      # as in c_nca_objective
    const float64_t* dmax,
    const intp_t* y,
    intp_t n,
    float64_t sigma,
    float64_t tol,              # bracket length at which the search stops
) noexcept nogil                # returns the alpha in [0, 1] maximising f

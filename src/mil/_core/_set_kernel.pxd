# C-level API of the set-kernel pass (NSK / MI-Kernel, miGraph). Entry points
# are prefixed c_, nogil, and trust their inputs (C-contiguous row-major
# arrays); the Python wrappers without c_ live in _set_kernel.pyx.
from mil._core._typedefs cimport float64_t, intp_t

cdef int c_set_kernel_matrices(
    const float64_t* X,         # row instances, (x_offsets[n_x], d) row-major
    const intp_t* x_offsets,    # bag b of X owns rows x_offsets[b]:x_offsets[b + 1]
    const float64_t* x_weights, # one weight per row instance
    const float64_t* Y,         # column instances (ignored, X used, when symmetric)
    const intp_t* y_offsets,    # bag offsets of Y (ignored when symmetric)
    const float64_t* y_weights, # one weight per column instance (ignored when symmetric)
    intp_t n_y,                 # number of column bags (ignored when symmetric)
    intp_t d,                   # number of features
    bint symmetric,             # train-vs-train: columns are X, pairs i <= j computed and mirrored
    intp_t row_start,           # first row bag to fill
    intp_t row_stop,            # one past the last row bag to fill
    intp_t n_x,                 # number of row bags (columns when symmetric)
    intp_t block_size,          # target instances per row block and per column chunk
    const float64_t* gammas,    # the n_gammas bandwidths, each > 0
    intp_t n_gammas,            # number of bandwidths
    float64_t* out,             # out (n_gammas, n_x, n_cols) row-major: the unnormalised kernels
) except -1 nogil

cdef int c_set_kernel_diagonal(
    const float64_t* X,         # instances, (offsets[n_bags], d) row-major
    const intp_t* offsets,      # bag offsets
    const float64_t* weights,   # one weight per instance
    intp_t n_bags,              # number of bags
    intp_t d,                   # number of features
    const float64_t* gammas,    # the n_gammas bandwidths
    intp_t n_gammas,            # number of bandwidths
    float64_t* out,             # out (n_gammas, n_bags) row-major: K(B, B) of every bag
) except -1 nogil

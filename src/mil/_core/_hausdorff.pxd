# C-level API of the Hausdorff bag-distance kernel. Entry points are
# prefixed c_, nogil, and trust their inputs (C-contiguous row-major arrays);
# the Python wrapper without c_ lives in _hausdorff.pyx.
from mil._core._typedefs cimport float64_t, intp_t

cdef int c_hausdorff_matrices(
    const float64_t* X,         # row instances, (x_offsets[n_x], d) row-major
    const intp_t* x_offsets,    # bag b of X owns rows x_offsets[b]:x_offsets[b + 1]
    const float64_t* Y,         # column instances (ignored, X used, when symmetric)
    const intp_t* y_offsets,    # bag offsets of Y (ignored when symmetric)
    intp_t n_y,                 # number of column bags (ignored when symmetric)
    intp_t d,                   # number of features
    bint symmetric,             # train-vs-train: columns are X, only pairs i < j computed
    intp_t row_start,           # first row bag to fill
    intp_t row_stop,            # one past the last row bag to fill
    intp_t n_x,                 # number of row bags (columns when symmetric)
    intp_t block_size,          # target instances per row block and per column chunk
    float64_t* out_min,         # out (n_x, n_cols) row-major: minimal Hausdorff distance
    float64_t* out_max,         # out: maximal Hausdorff distance
    float64_t* out_ave,         # out: average Hausdorff distance
) except -1 nogil

# Instance-to-bag minima M[a, j] = min over z in column bag j of ||x_a - z||^2
# (squared, the block pass of c_hausdorff_matrices without the per-pair reduction).
cdef int c_instance_bag_minima(
    const float64_t* X,         # row instances, (x_offsets[n_x], d) row-major
    const intp_t* x_offsets,    # bag b of X owns rows x_offsets[b]:x_offsets[b + 1]
    const float64_t* Y,         # column instances (ignored, X used, when symmetric)
    const intp_t* y_offsets,    # bag offsets of Y (ignored when symmetric)
    intp_t n_y,                 # number of column bags (ignored when symmetric)
    intp_t d,                   # number of features
    bint symmetric,             # train-vs-train: columns are X, pairs i < j computed once
    intp_t row_start,           # first row bag to fill
    intp_t row_stop,            # one past the last row bag to fill
    intp_t n_x,                 # number of row bags (columns when symmetric)
    intp_t block_size,          # target instances per row block and per column chunk
    float64_t* out_xy,          # out (x_offsets[n_x], n_cols) row-major: row instance vs column bag
    float64_t* out_yx,          # out (y_offsets[n_y], n_x) row-major: column instance vs row bag;
                                # NULL to skip; ignored (out_xy used) when symmetric
) except -1 nogil

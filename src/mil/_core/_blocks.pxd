# The blocked-BLAS pass shared by the bag-pair kernels (_hausdorff: the
# Hausdorff matrices and the instance-to-bag minima; _set_kernel: the set
# kernels). Internal: no c_ names, not re-exported by mil/cython_kernels.pxd;
# the kernels' own .pxd files are the C API. See _blocks.pyx.
from mil._core._typedefs cimport float64_t, intp_t


# How a train-vs-train diagonal block (row block == column chunk) gets its products.
cdef enum DiagonalProducts:
    CROSS_BAGS = 0   # only products between different bags; a block of one bag is skipped
    TRIANGLE = 1     # the whole triangle, products within a bag included (one dsyrk)


# One block of the pass, handed to the reduction: the pass's inputs (the same
# for every block; Y, y_offsets and sq_y are X's when symmetric) and the block.
cdef struct Block:
    const float64_t* X          # row instances, row-major, d columns
    const intp_t* x_offsets     # row bag offsets
    const float64_t* Y          # column instances
    const intp_t* y_offsets     # column bag offsets
    const float64_t* sq_x       # |x|^2 of every row instance
    const float64_t* sq_y       # |y|^2 of every column instance
    intp_t d                    # number of features
    intp_t n_x                  # number of row bags
    intp_t n_cols               # number of column bags
    bint symmetric              # train-vs-train
    intp_t r0, r1               # row bags r0..r1-1 ...
    intp_t c0, c1               # ... against column bags c0..c1-1
    intp_t i0, j0               # their first row / column instance
    bint diagonal               # symmetric, c0 == r0 and c1 == r1
    const float64_t* G          # products x.y, row-major (rows i0.., columns j0..), row stride ldg;
                                # a diagonal block holds only the upper triangle (row-major)
                                # of what its DiagonalProducts computes
    intp_t ldg
    float64_t* scratch          # n_scratch buffers for the reduction, each of
    intp_t scratch_len          # scratch_len doubles (more than any row block or column chunk)


# The per-block reduction of a kernel: reads blk.G, writes through ctx.
ctypedef void (*block_reduction)(void* ctx, const Block* blk) noexcept nogil


cdef inline intp_t next_bound(const intp_t* offsets, intp_t b, intp_t stop,
                              intp_t block_size) noexcept nogil:
    # Bags b..nb-1 hold at most block_size instances, at least one bag.
    cdef intp_t limit = offsets[b] + block_size
    cdef intp_t nb = b + 1
    while nb < stop and offsets[nb + 1] <= limit:
        nb += 1
    return nb


cdef inline void squared_norms(const float64_t* X, intp_t n, intp_t d,
                               float64_t* out) noexcept nogil:
    cdef intp_t a, k
    cdef float64_t s
    for a in range(n):
        s = 0.0
        for k in range(d):
            s = s + X[a * d + k] * X[a * d + k]
        out[a] = s


cdef intp_t largest_run(const intp_t* offsets, intp_t start, intp_t stop,
                        intp_t block_size) noexcept nogil

cdef int blocked_pass(
    const float64_t* X,         # row instances, (x_offsets[n_x], d) row-major
    const intp_t* x_offsets,    # bag b of X owns rows x_offsets[b]:x_offsets[b + 1]
    intp_t n_x,                 # number of row bags
    const float64_t* Y,         # column instances (ignored, X used, when symmetric)
    const intp_t* y_offsets,    # bag offsets of Y (ignored when symmetric)
    intp_t n_y,                 # number of column bags (ignored when symmetric)
    intp_t d,                   # number of features
    bint symmetric,             # train-vs-train: column chunks from the row block on
    intp_t row_start,           # first row bag
    intp_t row_stop,            # one past the last row bag
    intp_t block_size,          # target instances per row block and per column chunk
    DiagonalProducts diagonal,  # products of the diagonal blocks
    block_reduction reduce,     # called once per block
    void* ctx,                  # passed to reduce
    intp_t n_scratch,           # buffers in Block.scratch
    const char* what,           # "the ... block", for the MemoryError
) except -1 nogil

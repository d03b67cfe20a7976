"""The blocked-BLAS pass over pairs of bags (compiled), shared by the bag-pair kernels.

Bags are grouped into row blocks and column chunks of about ``block_size``
instances (``next_bound``: at least one bag, so a larger bag forms a run on
its own; ``_hausdorff.bag_blocks`` gives the boundaries), so memory stays at
one block of products, never the full instance-by-instance matrix. For
each block the pass computes the products ``a.b`` by BLAS (scipy's
``cython_blas``) into ``G``, from which the kernels expand squared distances
``|a|^2 + |b|^2 - 2 a.b`` (the squared norms are computed once, here), then
hands the block to the kernel's reduction. Train-vs-train (``symmetric``)
visits only column chunks from the row block onwards; a diagonal block
(row block == column chunk) gets the products its kernel reads:

- ``CROSS_BAGS``: only the products between different bags (the Hausdorff
  family: a bag is at distance 0 from itself), by recursive dgemm halving
  (``_cross_bag_products``); a diagonal block of a single bag is skipped;
- ``TRIANGLE``: the whole triangle by one dsyrk, products within a bag
  included (the set kernel's K(A, A)).

Every other block is one dgemm. A row range shorter than the column chunk
(a strip of rows for one thread) is not a diagonal block: dgemm does it, the
reductions skip what they do not need.

The reductions (one C function per kernel, called once per block through a
pointer, never per pair or per instance):

- the instance-to-bag minima ``M[a, j] = min over z in bag j of ||a - z||^2``
  (``_hausdorff.c_instance_bag_minima``): the row minima of each bag pair of
  the block, and its column minima for the other direction;
- the minimal, maximal and average Hausdorff distances of each bag pair
  (``_hausdorff.c_hausdorff_matrices``), which are reductions of those same
  minima per bag: minimal = the smallest of a pair's minima, maximal = the
  largest of either direction, average = their mean; the mean-min
  dissimilarity (Cheplygina, Tax and Loog 2015) is the mean of one
  direction, computed from M in Python;
- the set kernel ``sum w_a w_b exp(-gamma ||a - b||^2)`` per bag pair for
  several gammas (``_set_kernel.c_set_kernel_matrices``): another reduction
  of the same blocks, a sum of exponentials instead of minima.
"""

from libc.stdlib cimport malloc, free
from scipy.linalg.cython_blas cimport dgemm, dsyrk

from mil._core._typedefs cimport float64_t, intp_t

__all__ = []

# Runs of bags with at most this many instances get one dsyrk (products within
# bags included) rather than more, smaller BLAS calls.
cdef intp_t _SYRK_BELOW = 128


cdef intp_t largest_run(const intp_t* offsets, intp_t start, intp_t stop,
                        intp_t block_size) noexcept nogil:
    # Instances in the largest run of bags start..stop-1 (one allocation).
    cdef intp_t b0 = start, b1, size = 0
    while b0 < stop:
        b1 = next_bound(offsets, b0, stop, block_size)
        if offsets[b1] - offsets[b0] > size:
            size = offsets[b1] - offsets[b0]
        b0 = b1
    return size


cdef void _cross_bag_products(const float64_t* X, const intp_t* offsets, intp_t b0, intp_t b1,
                              intp_t base, int d, float64_t* G, int ldc) noexcept nogil:
    # The products a.b of every two instances a < b of different bags among
    # bags b0..b1-1, written into a diagonal block G (column-major, origin at
    # instance `base`). Halving the bags recursively, each half against the
    # other by dgemm, skips the products within a bag that a dsyrk of the
    # whole block would compute; small runs of bags use one dsyrk anyway.
    cdef intp_t mid, bm, n_inst = offsets[b1] - offsets[b0]
    cdef int m, n
    cdef float64_t one = 1.0, zero = 0.0
    cdef char tr = b'T', nt = b'N', lo = b'L'
    if b1 - b0 < 2:
        return
    if n_inst <= _SYRK_BELOW:
        n = <int>n_inst
        dsyrk(&lo, &tr, &n, &d, &one, <float64_t*>(X + offsets[b0] * d), &d, &zero,
              G + (offsets[b0] - base) * ldc + (offsets[b0] - base), &ldc)
        return
    mid = offsets[b0] + n_inst // 2
    bm = b0 + 1
    while bm < b1 - 1 and offsets[bm + 1] <= mid:
        bm += 1
    m = <int>(offsets[b1] - offsets[bm])
    n = <int>(offsets[bm] - offsets[b0])
    dgemm(&tr, &nt, &m, &n, &d, &one, <float64_t*>(X + offsets[bm] * d), &d,
          <float64_t*>(X + offsets[b0] * d), &d, &zero,
          G + (offsets[b0] - base) * ldc + (offsets[bm] - base), &ldc)
    _cross_bag_products(X, offsets, b0, bm, base, d, G, ldc)
    _cross_bag_products(X, offsets, bm, b1, base, d, G, ldc)


cdef int blocked_pass(
    const float64_t* X, const intp_t* x_offsets, intp_t n_x,
    const float64_t* Y, const intp_t* y_offsets, intp_t n_y, intp_t d, bint symmetric,
    intp_t row_start, intp_t row_stop, intp_t block_size, DiagonalProducts diagonal,
    block_reduction reduce, void* ctx, intp_t n_scratch, const char* what,
) except -1 nogil:
    cdef Block blk
    cdef intp_t n_cols = n_x if symmetric else n_y
    if symmetric:
        Y = X
        y_offsets = x_offsets
    cdef intp_t n_inst_x = x_offsets[n_x], n_inst_y = y_offsets[n_cols]
    cdef intp_t r0, r1, c0, c1, i0, i1, j0, j1, max_rows, max_cols, scratch_len
    cdef float64_t one = 1.0, zero = 0.0
    cdef float64_t* sq_x = NULL
    cdef float64_t* sq_y = NULL
    cdef float64_t* G = NULL
    cdef float64_t* scratch = NULL
    cdef int m, n, kk, ldc
    cdef char tr = b'T', nt = b'N', lo = b'L'
    # Largest blocks that can occur, for one allocation.
    max_rows = largest_run(x_offsets, row_start, row_stop, block_size)
    max_cols = largest_run(y_offsets, row_start if symmetric else 0, n_cols, block_size)
    sq_x = <float64_t*> malloc((n_inst_x + 1) * sizeof(float64_t))
    sq_y = sq_x if symmetric else <float64_t*> malloc((n_inst_y + 1) * sizeof(float64_t))
    G = <float64_t*> malloc((max_rows * max_cols + 1) * sizeof(float64_t))
    # Buffers 64-byte apart, so vector loops over two of them keep their relative alignment.
    scratch_len = ((max_rows if max_rows > max_cols else max_cols) + 8) // 8 * 8
    scratch = <float64_t*> malloc((n_scratch * scratch_len + 1) * sizeof(float64_t))
    if sq_x == NULL or sq_y == NULL or G == NULL or scratch == NULL:
        free(G)
        free(scratch)
        if sq_y != sq_x:
            free(sq_y)
        free(sq_x)
        with gil:
            raise MemoryError("could not allocate " + what.decode("ascii"))
    try:
        squared_norms(X, n_inst_x, d, sq_x)
        if not symmetric:
            squared_norms(Y, n_inst_y, d, sq_y)
        blk.X = X
        blk.x_offsets = x_offsets
        blk.Y = Y
        blk.y_offsets = y_offsets
        blk.sq_x = sq_x
        blk.sq_y = sq_y
        blk.d = d
        blk.n_x = n_x
        blk.n_cols = n_cols
        blk.symmetric = symmetric
        blk.G = G
        blk.scratch = scratch
        blk.scratch_len = scratch_len
        kk = <int>d
        r0 = row_start
        while r0 < row_stop:
            r1 = next_bound(x_offsets, r0, row_stop, block_size)
            i0 = x_offsets[r0]
            i1 = x_offsets[r1]
            c0 = r0 if symmetric else 0
            while c0 < n_cols:
                c1 = next_bound(y_offsets, c0, n_cols, block_size)
                j0 = y_offsets[c0]
                j1 = y_offsets[c1]
                # Row-major G (rows x cols) = X_r Y_c^T is column-major G^T = Y_c X_r^T.
                m = <int>(j1 - j0)
                n = <int>(i1 - i0)
                ldc = m
                blk.diagonal = symmetric and c0 == r0 and c1 == r1
                if blk.diagonal and diagonal == CROSS_BAGS:
                    if c1 == c0 + 1:
                        # A diagonal block of one (large) bag holds no pair of bags.
                        c0 = c1
                        continue
                    # Only pairs of bags i < j are read, whose products lie
                    # above the row-major diagonal, i.e. in the column-major
                    # lower triangle: just those (about half the products).
                    _cross_bag_products(X, x_offsets, r0, r1, i0, kk, G, ldc)
                elif blk.diagonal:
                    # Pairs i <= j read the row-major upper triangle
                    # (column-major lower): one dsyrk, half the products.
                    dsyrk(&lo, &tr, &m, &kk, &one, <float64_t*>(X + i0 * d), &kk, &zero, G, &ldc)
                else:
                    dgemm(&tr, &nt, &m, &n, &kk, &one, <float64_t*>(Y + j0 * d), &kk,
                          <float64_t*>(X + i0 * d), &kk, &zero, G, &ldc)
                blk.r0 = r0
                blk.r1 = r1
                blk.c0 = c0
                blk.c1 = c1
                blk.i0 = i0
                blk.j0 = j0
                blk.ldg = ldc
                reduce(ctx, &blk)
                c0 = c1
            r0 = r1
    finally:
        free(G)
        free(scratch)
        if sq_y != sq_x:
            free(sq_y)
        free(sq_x)
    return 0

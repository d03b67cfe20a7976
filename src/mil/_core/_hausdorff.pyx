"""Minimal, maximal and average Hausdorff bag distances in one pass (compiled).

For bags A and B, every Hausdorff variant is a function of
the row minima (nearest b for each a) and column minima (nearest a for each
b) of the block of instance distances ||a - b||: minimal = the smallest row
minimum, maximal = the larger of the largest row and column minima
(Edgar 1995; Wang & Zucker 2000, "Solving the multiple-instance problem: a
lazy learning approach"), average = the mean of all row and column minima
(Zhang & Zhou 2009). One pass over each block yields all three.

The pass over blocks of bags is the shared one of ``_blocks.pyx`` (row
blocks and column chunks of about ``block_size`` instances, products by BLAS
dgemm, squared norms once, memory one block); this module holds its
reductions. A block of squared distances is ``|a|^2 + |b|^2 - 2 a.b``,
negatives clamped to 0 after the minimum (clamping commutes with it); a
minimum small enough to be dominated by the expansion's rounding is
recomputed exactly (``EXACT_BELOW``). Train-vs-train visits only column bags
from the row block onwards and mirrors, and a diagonal block computes only
the products between different bags (``CROSS_BAGS``), so the pass does a
little under half the products of a full ``X @ X.T``. The NumPy twin
(``_hausdorff_py``) uses the same blocks and expansion with whole diagonal
blocks (the results agree to rounding).

Both kernels are reductions of the same blocks. ``c_instance_bag_minima``
keeps the instance-to-bag minima ``M[i, b] = min over z in bag b of
||x_i - z||^2`` (:func:`instance_bag_minima`): a bag pair's row minima are
the entries of its row instances, its column minima those of its column
instances. Every bag distance above is a reduction of M per bag (minimal:
the smallest entry of a bag's rows in a column; directed Hausdorff: the
largest; average: the sums of both directions; the mean-min dissimilarity
of Cheplygina, Tax and Loog 2015: the mean), and M is the embedding of
MILES (Chen, Bi and Wang 2006). ``c_hausdorff_matrices`` reduces each bag
pair's minima at once (``_pair_distances``), never storing M.
"""

from libc.math cimport sqrt, INFINITY
from mil._core._blocks cimport (
    Block, CROSS_BAGS, blocked_pass, next_bound,
)
from mil._core._typedefs cimport float64_t, intp_t

from mil._core._checks import bag_blocks_args, hausdorff_args, minima_args

__all__ = ["hausdorff_matrices", "bag_blocks", "instance_bag_minima"]

# A squared distance below EXACT_BELOW * (|a|^2 + |b|^2) may be mostly
# cancellation error of the expansion (about eps * d * (|a|^2 + |b|^2)):
# such a row or column minimum is recomputed exactly from differences, so
# near-duplicate instances give exact (zero) distances and both twins agree
# to ~1e-10 relative. Rare on real data; the twin uses the same rule.
cdef float64_t _EXACT_BELOW = 1e-4
EXACT_BELOW = _EXACT_BELOW

def bag_blocks(offsets, start, stop, block_size):
    """Bag boundaries of the runs of about `block_size` instances (as in the twin)."""
    return _bag_blocks(*bag_blocks_args(offsets, start, stop, block_size))


def _bag_blocks(const intp_t[::1] offsets, intp_t start, intp_t stop, intp_t block_size):
    bounds = [start]
    cdef intp_t b = start
    while b < stop:
        b = next_bound(&offsets[0], b, stop, block_size)
        bounds.append(b)
    return bounds


cdef inline float64_t _exact_min(const float64_t* a, const float64_t* B, intp_t nb,
                                 intp_t d) noexcept nogil:
    # Smallest squared distance from a to the nb rows of B, by differences.
    cdef intp_t b, k
    cdef float64_t s, t, best = INFINITY
    for b in range(nb):
        s = 0.0
        for k in range(d):
            t = a[k] - B[b * d + k]
            s = s + t * t
        if s < best:
            best = s
    return best


cdef void _pair_minima(
    const float64_t* G, intp_t ldg, const float64_t* sq_r, const float64_t* sq_c,
    const float64_t* A, const float64_t* B, intp_t d, intp_t nr, intp_t nc, float64_t* cmin,
    float64_t* row_out, intp_t row_stride, float64_t* col_out, intp_t col_stride,
) noexcept nogil:
    # The squared row minima (one per instance of A, written every
    # row_stride) and column minima (one per instance of B, every col_stride;
    # skipped when col_out is NULL; col_out may be cmin itself) of one bag
    # pair's block: the instance-to-bag minima of the pair, from which every
    # bag distance of this module follows. G: the nr x nc block of a.b
    # products of the pair (row stride ldg); A, B: the pair's instances (for
    # exact recomputation, see EXACT_BELOW); negatives clamped to 0, no
    # square root.
    cdef intp_t a, b
    cdef float64_t v, v1, v2, v3, r1, r2, r3, rmin, sra, max_sq_r = 0.0, max_sq_c = 0.0
    cdef const float64_t* g
    for b in range(nc):
        cmin[b] = INFINITY
        if sq_c[b] > max_sq_c:
            max_sq_c = sq_c[b]
    for a in range(nr):
        if sq_r[a] > max_sq_r:
            max_sq_r = sq_r[a]
    for a in range(nr):
        g = G + a * ldg
        sra = sq_r[a]
        rmin = INFINITY
        # Selects, not branches, and four running row minima so that no min
        # waits for the previous one (the minimum is exact in any order).
        r1 = INFINITY
        r2 = INFINITY
        r3 = INFINITY
        b = 0
        while b + 4 <= nc:
            v = (sra + sq_c[b]) - 2.0 * g[b]
            v1 = (sra + sq_c[b + 1]) - 2.0 * g[b + 1]
            v2 = (sra + sq_c[b + 2]) - 2.0 * g[b + 2]
            v3 = (sra + sq_c[b + 3]) - 2.0 * g[b + 3]
            rmin = v if v < rmin else rmin
            r1 = v1 if v1 < r1 else r1
            r2 = v2 if v2 < r2 else r2
            r3 = v3 if v3 < r3 else r3
            cmin[b] = v if v < cmin[b] else cmin[b]
            cmin[b + 1] = v1 if v1 < cmin[b + 1] else cmin[b + 1]
            cmin[b + 2] = v2 if v2 < cmin[b + 2] else cmin[b + 2]
            cmin[b + 3] = v3 if v3 < cmin[b + 3] else cmin[b + 3]
            b += 4
        while b < nc:
            v = (sra + sq_c[b]) - 2.0 * g[b]
            rmin = v if v < rmin else rmin
            cmin[b] = v if v < cmin[b] else cmin[b]
            b += 1
        r1 = r1 if r1 < r3 else r3
        rmin = rmin if rmin < r2 else r2
        rmin = rmin if rmin < r1 else r1
        if rmin < _EXACT_BELOW * (sra + max_sq_c):
            rmin = _exact_min(A + a * d, B, nc, d)
        row_out[a * row_stride] = rmin if rmin > 0.0 else 0.0
    if col_out == NULL:
        return
    for b in range(nc):
        v = cmin[b]
        if v < _EXACT_BELOW * (sq_c[b] + max_sq_r):
            v = _exact_min(B + b * d, A, nr, d)
        col_out[b * col_stride] = v if v > 0.0 else 0.0


cdef void _pair_distances(const float64_t* row_min, intp_t nr, const float64_t* col_min, intp_t nc,
                          float64_t* dmin, float64_t* dmax, float64_t* dave) noexcept nogil:
    # The minimal, maximal and average Hausdorff distances of one bag pair:
    # reductions of its squared instance-to-bag minima (_pair_minima), rows
    # then columns, in order.
    cdef intp_t a, b
    cdef float64_t v, best = INFINITY, hmax_r = 0.0, hmax_c = 0.0, total = 0.0
    for a in range(nr):
        v = row_min[a]
        v = sqrt(v) if v > 0.0 else 0.0
        if v < best:
            best = v
        if v > hmax_r:
            hmax_r = v
        total = total + v
    for b in range(nc):
        v = col_min[b]
        v = sqrt(v) if v > 0.0 else 0.0
        if v > hmax_c:
            hmax_c = v
        total = total + v
    dmin[0] = best
    dmax[0] = hmax_r if hmax_r > hmax_c else hmax_c
    dave[0] = total / <float64_t>(nr + nc)


cdef struct _Pairs:
    float64_t* out_min      # the three matrices (c_hausdorff_matrices), or NULL ...
    float64_t* out_max
    float64_t* out_ave
    float64_t* out_xy       # ... the instance-to-bag minima (c_instance_bag_minima)
    float64_t* out_yx


cdef void _pairs_block(void* ctx, const Block* blk) noexcept nogil:
    # The reduction of both kernels: each bag pair i < j of the block (all
    # pairs when rectangular) to its instance-to-bag minima, kept in M
    # (out_xy, and out_yx or M itself transposed when symmetric) or reduced
    # at once to the pair's three distances (mirrored when symmetric).
    cdef _Pairs* o = <_Pairs*>ctx
    cdef const intp_t* xo = blk.x_offsets
    cdef const intp_t* yo = blk.y_offsets
    cdef intp_t i, j, nr, nc, d = blk.d, n_x = blk.n_x, n_cols = blk.n_cols, ldg = blk.ldg
    cdef bint symmetric = blk.symmetric
    cdef float64_t* cmin = blk.scratch
    cdef float64_t* rmin = blk.scratch + blk.scratch_len
    cdef float64_t* col_out
    cdef const float64_t* g
    for i in range(blk.r0, blk.r1):
        for j in range(blk.c0, blk.c1):
            if symmetric and j <= i:
                continue
            g = blk.G + (xo[i] - blk.i0) * ldg + (yo[j] - blk.j0)
            nr = xo[i + 1] - xo[i]
            nc = yo[j + 1] - yo[j]
            if o.out_min == NULL:
                col_out = NULL
                if o.out_yx != NULL:
                    col_out = o.out_yx + yo[j] * n_x + i
                _pair_minima(g, ldg, blk.sq_x + xo[i], blk.sq_y + yo[j], blk.X + xo[i] * d,
                             blk.Y + yo[j] * d, d, nr, nc, cmin,
                             o.out_xy + xo[i] * n_cols + j, n_cols, col_out, n_x)
                continue
            _pair_minima(g, ldg, blk.sq_x + xo[i], blk.sq_y + yo[j], blk.X + xo[i] * d,
                         blk.Y + yo[j] * d, d, nr, nc, cmin, rmin, 1, cmin, 1)
            _pair_distances(rmin, nr, cmin, nc, o.out_min + i * n_cols + j,
                            o.out_max + i * n_cols + j, o.out_ave + i * n_cols + j)
            if symmetric:
                o.out_min[j * n_cols + i] = o.out_min[i * n_cols + j]
                o.out_max[j * n_cols + i] = o.out_max[i * n_cols + j]
                o.out_ave[j * n_cols + i] = o.out_ave[i * n_cols + j]


cdef int c_hausdorff_matrices(
    const float64_t* X, const intp_t* x_offsets,
    const float64_t* Y, const intp_t* y_offsets, intp_t n_y, intp_t d,
    bint symmetric, intp_t row_start, intp_t row_stop, intp_t n_x, intp_t block_size,
    float64_t* out_min, float64_t* out_max, float64_t* out_ave,
) except -1 nogil:
    cdef _Pairs o
    cdef intp_t i, n_cols = n_x if symmetric else n_y
    o.out_min = out_min
    o.out_max = out_max
    o.out_ave = out_ave
    o.out_xy = NULL
    o.out_yx = NULL
    blocked_pass(X, x_offsets, n_x, Y, y_offsets, n_y, d, symmetric, row_start, row_stop,
                 block_size, CROSS_BAGS, _pairs_block, &o, 2,
                 b"the Hausdorff distance block")
    if symmetric:
        for i in range(row_start, row_stop):
            out_min[i * n_cols + i] = 0.0
            out_max[i * n_cols + i] = 0.0
            out_ave[i * n_cols + i] = 0.0
    return 0



def hausdorff_matrices(X, x_offsets, Y, y_offsets, symmetric, out_min, out_max, out_ave,
                       row_start, row_stop, block_size):
    """Fill rows ``row_start..row_stop-1`` of the minimal, maximal and average matrices.

    Parameters
    ----------
    X : ndarray (n_instances_x, d), C-contiguous float64
        Instances of the row bags, bag after bag.
    x_offsets : ndarray (n_x + 1,) of intp
    Y, y_offsets : column bags, the same layout (ignored when `symmetric`).
    symmetric : bool
        Train-vs-train (columns are X): pairs i < j are computed once and
        mirrored; the diagonal is set to 0. Rows of one call may be a slice
        (threads split the rows); mirrored entries land in other rows.
    out_min, out_max, out_ave : ndarray (n_x, n_cols), C-contiguous float64
        Written in place.
    row_start, row_stop : int
        The row bags to fill.
    block_size : int
        Target number of instances per row block and per column chunk.
    """
    _fill(*hausdorff_args(X, x_offsets, Y, y_offsets, symmetric, out_min, out_max, out_ave,
                          row_start, row_stop, block_size))


cdef int _check_layout(const intp_t[::1] offsets, intp_t n_rows, str name) except -1:
    # Offsets from 0 to n_rows, strictly increasing (no empty bag).
    cdef intp_t b, n = offsets.shape[0]
    if n == 0 or offsets[0] != 0 or offsets[n - 1] != n_rows:
        raise ValueError(f"{name} must start at 0 and end at the number of rows ({n_rows})")
    for b in range(n - 1):
        if offsets[b + 1] <= offsets[b]:
            raise ValueError(f"{name} must be strictly increasing (no empty bag); "
                             f"{name}[{b}] = {offsets[b]} >= {name}[{b + 1}] = {offsets[b + 1]}")
    return 0


def _fill(
    const float64_t[:, ::1] X, const intp_t[::1] x_offsets,
    const float64_t[:, ::1] Y, const intp_t[::1] y_offsets, bint symmetric,
    float64_t[:, ::1] out_min, float64_t[:, ::1] out_max, float64_t[:, ::1] out_ave,
    intp_t row_start, intp_t row_stop, intp_t block_size,
):
    cdef intp_t n_x = x_offsets.shape[0] - 1
    cdef intp_t n_y = y_offsets.shape[0] - 1
    cdef intp_t d = X.shape[1]
    if symmetric:
        Y = X
        y_offsets = x_offsets
        n_y = n_x
    # The kernel trusts these; an O(n_bags) check costs nothing beside it (hausdorff_matrices
    # has checked them already; this guards direct calls).
    _check_layout(x_offsets, X.shape[0], "x_offsets")
    _check_layout(y_offsets, Y.shape[0], "y_offsets")
    if Y.shape[1] != d:
        raise ValueError(f"Y has {Y.shape[1]} features but X has {d}")
    if not (out_min.shape[0] == out_max.shape[0] == out_ave.shape[0] == n_x
            and out_min.shape[1] == out_max.shape[1] == out_ave.shape[1] == n_y):
        raise ValueError(f"the three outputs must have shape ({n_x}, {n_y})")
    if row_start < 0 or row_stop > n_x or block_size < 1:
        raise ValueError(f"need 0 <= row_start and row_stop <= {n_x}, block_size >= 1; got "
                         f"{row_start}, {row_stop}, {block_size}")
    if n_x == 0 or n_y == 0 or row_start >= row_stop:
        return
    with nogil:
        c_hausdorff_matrices(&X[0, 0], &x_offsets[0], &Y[0, 0], &y_offsets[0], n_y, d,
                             symmetric, row_start, row_stop, n_x, block_size,
                             &out_min[0, 0], &out_max[0, 0], &out_ave[0, 0])


# -- instance-to-bag minima ----------------------------------------------------

cdef int c_instance_bag_minima(
    const float64_t* X, const intp_t* x_offsets,
    const float64_t* Y, const intp_t* y_offsets, intp_t n_y, intp_t d,
    bint symmetric, intp_t row_start, intp_t row_stop, intp_t n_x, intp_t block_size,
    float64_t* out_xy, float64_t* out_yx,
) except -1 nogil:
    cdef _Pairs o
    cdef intp_t i, a, n_cols = n_x if symmetric else n_y
    o.out_min = NULL
    o.out_max = NULL
    o.out_ave = NULL
    o.out_xy = out_xy
    o.out_yx = out_xy if symmetric else out_yx
    blocked_pass(X, x_offsets, n_x, Y, y_offsets, n_y, d, symmetric, row_start, row_stop,
                 block_size, CROSS_BAGS, _pairs_block, &o, 1,
                 b"the instance-to-bag distance block")
    if symmetric:
        # An instance lies in its own bag.
        for i in range(row_start, row_stop):
            for a in range(x_offsets[i], x_offsets[i + 1]):
                out_xy[a * n_cols + i] = 0.0
    return 0


def instance_bag_minima(X, x_offsets, Y, y_offsets, symmetric, out_xy, out_yx,
                        row_start, row_stop, block_size):
    """Squared distance from each instance to the nearest instance of each bag, rows of bags
    ``row_start..row_stop-1``.

    Parameters
    ----------
    X, x_offsets, Y, y_offsets, row_start, row_stop, block_size
        As in :func:`hausdorff_matrices`.
    symmetric : bool
        Train-vs-train (columns are X): each pair of bags i < j is computed
        once, giving both M[instances of i, j] and M[instances of j, i];
        M[instances of i, i] is 0. Rows of one call may be a slice (threads
        split the row bags); the entries of pairs with later bags land in
        other rows, in the slice's own columns.
    out_xy : ndarray (n_instances_x, n_cols), C-contiguous float64
        Written in place: ``out_xy[a, j] = min_{z in column bag j} ||x_a - z||^2``
        for the instances a of the row bags filled.
    out_yx : ndarray (n_instances_y, n_x), C-contiguous float64, or None
        Rectangular only (None when `symmetric`): the other direction,
        ``out_yx[b, i] = min_{x in row bag i} ||y_b - x||^2``, from the same
        products (the block's column minima); columns row_start..row_stop-1
        are written.
    """
    _fill_minima(*minima_args(X, x_offsets, Y, y_offsets, symmetric, out_xy, out_yx,
                              row_start, row_stop, block_size))


def _fill_minima(
    const float64_t[:, ::1] X, const intp_t[::1] x_offsets,
    const float64_t[:, ::1] Y, const intp_t[::1] y_offsets, bint symmetric,
    float64_t[:, ::1] out_xy, out_yx, intp_t row_start, intp_t row_stop, intp_t block_size,
):
    cdef intp_t n_x = x_offsets.shape[0] - 1
    cdef intp_t n_y = y_offsets.shape[0] - 1
    cdef intp_t d = X.shape[1]
    cdef float64_t[:, ::1] yx
    cdef float64_t* yx_ptr = NULL
    if symmetric:
        Y = X
        y_offsets = x_offsets
        n_y = n_x
    if n_x == 0 or n_y == 0 or row_start >= row_stop:
        return
    if out_yx is not None and not symmetric:
        yx = out_yx
        yx_ptr = &yx[0, 0]
    with nogil:
        c_instance_bag_minima(&X[0, 0], &x_offsets[0], &Y[0, 0], &y_offsets[0], n_y, d,
                              symmetric, row_start, row_stop, n_x, block_size,
                              &out_xy[0, 0], yx_ptr)

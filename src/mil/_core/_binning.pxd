# C-level API of the binning kernel (histogram split search of the multi-instance trees): the
# bin code of one value. Entry points are prefixed c_, nogil, and trust their inputs; the Python
# wrapper map_to_bins lives in _binning.pyx.
from mil._core._typedefs cimport float64_t, intp_t, uint8_t

cdef uint8_t c_bin_code(
    float64_t v,                # the value (a float32 value converted exactly)
    const float64_t* edges,     # the feature's increasing bin edges (length n_edges)
    intp_t n_edges,             # number of edges (bins - 1), at most 254
) noexcept nogil                # returns the number of edges below v, or 255 for NaN

# Fixed C types shared by every kernel: float64 values, pointer-sized indices.
ctypedef double float64_t         # instances, distances, weights, scores
ctypedef Py_ssize_t intp_t        # indices and counts (numpy.intp)
ctypedef unsigned char uint8_t    # flags (numpy.uint8)

"""What every bag encoder shares: fit on a sample of instances, encode chunk by chunk.

A bag encoder learns a model of the instances (a codebook, a mixture, random
features, projection directions) on the training bags, or on a seeded sample
of ``max_samples`` of their instances (sorted, so that with every instance
used the model does not depend on the order of the bags or of their
instances), then turns each bag into one fixed-length row that depends on
that bag alone. So ``transform`` walks the bags in chunks of consecutive bags
(about ``chunk_size`` instances each) and memory stays at one chunk's working
arrays plus the output, whatever the number of bags: a :class:`~mil.Bags`
over a memory-mapped instance matrix is read from disk one chunk at a time,
and float32 instances stay float32 there. The chunks are independent tasks
for joblib: threads by default, or the workers of a Dask cluster under
``joblib.parallel_config(backend="dask")``.

The features are scaled before anything else: by the ``scale`` method asked
for, or (``scale=None``) by the power of two that brings the largest training
magnitude into [0.5, 1), which is exact. Either way the encoder sees
magnitudes near 1, so no square under- or overflows for features anywhere in
the float64 range, and the fitted model is the same for the features times
any power of two. The sample and the model draw from independent seeds, drawn
once from ``random_state``.
"""

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from mil._distance_engine import inside_dask_task
from mil.bags import Bags
from mil.embedding._vectors import lexicographic_order, unit_exponent
from mil.utils._docstrings import defaults_of, register
from mil.utils._seeds import sub_seeds
from mil.utils.validation import (check_bag_chunk, check_bags, check_feature_names, set_feature_names, shown)

__all__ = ["CHUNK_BYTES", "COMMON_CONSTRAINTS", "BagEncoder", "bag_exponents", "bag_sums", "chunk_bounds",
           "normalize_rows", "sample_scaling"]

#: Working memory of one chunk of bags in ``transform`` when ``chunk_size`` is None:
#: the chunk holds as many instances as keep its float64 working arrays near this size.
CHUNK_BYTES = 32 * 2**20

#: Parameter constraints shared by every encoder.
COMMON_CONSTRAINTS = {
    "max_samples": [Interval(Integral, 1, None, closed="left"), None],
    "scale": [StrOptions({"standard", "minmax", "maxabs"}), None],
    "chunk_size": [Interval(Integral, 1, None, closed="left"), None],
    "n_jobs": [Integral, None],
    "random_state": ["random_state"],
}

#: A bag's terms (residuals, standardised deviations) beyond ``2**FAR_EXPONENT`` are summed
#: in units of a power of two, so that their squares and sums stay finite.
FAR_EXPONENT = 480


def chunk_bounds(offsets, max_instances):
    """Cut bags into runs of consecutive bags of at most `max_instances` instances each.

    A bag larger than `max_instances` makes a run of its own.

    Parameters
    ----------
    offsets : ndarray of intp of shape (n_bags + 1,)
    max_instances : int >= 1

    Returns
    -------
    bounds : list of (start, stop) pairs of bag indices

    Examples
    --------
    >>> import numpy as np
    >>> chunk_bounds(np.array([0, 2, 5, 6, 10]), 4)
    [(0, 1), (1, 3), (3, 4)]
    """
    n_bags = offsets.shape[0] - 1
    bounds, start = [], 0
    while start < n_bags:
        stop = int(np.searchsorted(offsets, offsets[start] + max_instances, side="right")) - 1
        stop = min(max(stop, start + 1), n_bags)
        bounds.append((start, stop))
        start = stop
    return bounds


def _output_dtype(X):
    """float32 when the bags' instances are all float32 (a Bags, a list of arrays), else float64."""
    if isinstance(X, Bags):
        return np.dtype(np.float32) if X.instances.dtype == np.float32 else np.dtype(np.float64)
    if isinstance(X, np.ndarray) and X.dtype != object:
        return np.dtype(np.float32) if X.dtype == np.float32 else np.dtype(np.float64)
    if isinstance(X, (list, tuple)) and len(X) and all(
            isinstance(b, np.ndarray) and b.dtype == np.float32 for b in X):
        return np.dtype(np.float32)
    return np.dtype(np.float64)


def _bag_label(first, b, ids, name):
    return f"bag {first + b} of {name}" if ids is None else f"bag {shown(ids[b])} of {name}"


def _encode_chunk(encoder, instances, offsets, first, ids, name):
    """One task: check, scale and encode a run of bags (may run in another process)."""
    Z = check_bag_chunk(instances, offsets, first=first, ids=ids, name=name)
    with np.errstate(over="ignore", invalid="ignore"):
        Z -= encoder.offset_
        Z /= encoder.scale_
    bad = ~np.isfinite(Z).all(axis=1)
    if bad.any():
        b = int(np.searchsorted(offsets, np.flatnonzero(bad)[0], side="right") - 1)
        raise ValueError(f"{_bag_label(first, b, ids, name)}: its instances, once scaled, exceed the float64 "
                         f"range (they lie beyond about 1e300 times the training instances' spread)")
    rows = encoder._encode(Z, offsets)
    bad = ~np.isfinite(rows).all(axis=1)
    if bad.any():
        b = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{_bag_label(first, b, ids, name)}: its encoding exceeds the float64 range (its "
                         f"instances lie too far from the training instances){encoder._far_hint()}")
    return rows


def _chunk_parameters_doc(cls):
    scale = defaults_of(cls)["scale"]
    return f"""    scale : {{"standard", "minmax", "maxabs"}} or None, default={'None' if scale is None else f'"{scale}"'}
        Feature scaling fitted on the sampled training instances, applied
        to every instance before encoding. None: the features as given,
        divided by the power of two that brings the largest sampled
        magnitude into [0.5, 1) (exact, so the encoding is the same for
        the features times any power of two, and no square under- or
        overflows at extreme magnitudes).
    chunk_size : int or None, default=None
        Instances per chunk of bags in ``transform`` (a larger bag is a
        chunk of its own). None: as many as keep a chunk's working arrays
        near 32 MB (``mil.embedding.CHUNK_BYTES``). The result does not
        depend on it.
    n_jobs : int or None, default=None
        Workers over the chunks of bags: threads, or the workers of the
        joblib backend in use (``joblib.parallel_config``, e.g. a Dask
        cluster). The result does not depend on it.
"""


register("encoder chunk parameters", _chunk_parameters_doc)
register("encoder scaling attributes", """\
    offset_ : ndarray of shape (n_features,)
        The feature scaling's offset: an instance is encoded as
        ``(x - offset_) / scale_``.
    scale_ : ndarray of shape (n_features,)
        The feature scaling's divisor.
""")
register("encoder input attributes", """\
    n_features_in_ : int
        Number of features of the training instances.
    feature_names_in_ : ndarray of str
        Defined when the training bags have feature names.
""")

class BagEncoder(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Fit on a sample of instances, encode bags chunk by chunk (the encoders' base class).

    Subclasses set ``_parameter_constraints`` and implement
    ``_fit_instances(Z, rng)`` (fit on the scaled sample, set the fitted
    attributes and ``_n_features_out``), ``_encode(Z, offsets)`` (the scaled
    instances of a run of bags -> one float64 row per bag, each row from its
    own bag only) and ``_floats_per_instance()`` (the width of the working
    arrays of ``_encode``, for the automatic chunk size).
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.three_d_array = True
        tags.requires_fit = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    def _far_hint(self):
        """What a user can do about a bag whose encoding exceeds float64 (appended to the error)."""
        return ""

    def _check_params(self):
        """Checks beyond ``_parameter_constraints`` (subclasses)."""

    # -- fit -------------------------------------------------------------------
    def fit(self, X, y=None):
        """Learn the encoder's model of the instances from the training bags.

        Parameters
        ----------
        X : sequence of 2-D arrays or Bags
            Training bags. A :class:`~mil.Bags` is read only at the sampled
            instances (all of them when there are at most ``max_samples``).
        y : None
            Ignored: the encoder never sees a label.

        Returns
        -------
        self : object
            The fitted encoder.
        """
        self._validate_params()
        self._check_params()
        bags = check_bags(X, estimator=self, defer_values=True)
        sample_seed, model_seed = sub_seeds(self.random_state, 2)
        Z = self._sample(bags, np.random.RandomState(sample_seed))
        self.n_features_in_ = bags.n_features
        set_feature_names(self, X)
        if self.scale is not None:
            self.offset_, self.scale_ = sample_scaling(Z, self.scale)
        else:
            self.offset_ = np.zeros(Z.shape[1])
            self.scale_ = np.full(Z.shape[1], np.ldexp(1.0, unit_exponent(Z)))
        Z -= self.offset_.astype(Z.dtype)
        Z /= self.scale_.astype(Z.dtype)
        self.n_samples_fit_ = Z.shape[0]
        self._fit_instances(Z, np.random.RandomState(model_seed))
        return self

    def _sample(self, bags, rng):
        """The instances the model is fitted on, checked, as a copy in lexicographic order.

        float32 instances stay float32 (half the memory of a float64 copy; the
        models' float64 arithmetic converts a block of rows at a time), others
        become float64. Memory: the sample, once.
        """
        source = bags.instances
        dtype = np.float32 if source.dtype == np.float32 else np.float64
        n = bags.n_instances
        rows = None
        if self.max_samples is not None and self.max_samples < n:
            rows = np.sort(rng.choice(n, self.max_samples, replace=False))
        part = np.ascontiguousarray(source if rows is None else source[rows], dtype=dtype)
        bad = _first_non_finite_row(part)
        if bad is not None:
            r = bad if rows is None else int(rows[bad])
            b = int(np.searchsorted(bags.offsets, r, side="right") - 1)
            # Raises, naming the bag.
            check_bag_chunk(source[bags.offsets[b]:bags.offsets[b + 1]],
                            np.array([0, bags.offsets[b + 1] - bags.offsets[b]]),
                            first=b, ids=None if bags.ids is None else bags.ids[b:b + 1])
        # With every instance used, the fitted model (k-means and mixture initialisations,
        # landmarks) does not depend on the order of the bags or of their instances.
        order = lexicographic_order(part)
        if rows is None:
            Z = part[order]
        else:
            del part
            Z = np.ascontiguousarray(source[rows[order]], dtype=dtype)
        Z += 0.0  # -0.0 as 0.0: equal rows are then equal bit for bit, whatever their order
        return Z

    # -- transform -------------------------------------------------------------
    def _rows_per_chunk(self):
        if self.chunk_size is not None:
            return self.chunk_size
        return max(1, CHUNK_BYTES // (8 * max(1, self._floats_per_instance())))

    def transform(self, X):
        """Encode bags: one row per bag, computed from that bag alone.

        Parameters
        ----------
        X : sequence of 2-D arrays or Bags
            A :class:`~mil.Bags` (also over a memory-mapped instance matrix)
            is read one chunk of bags at a time.

        Returns
        -------
        E : ndarray of shape (n_bags, n_features_out)
            The encodings, float32 when the instances are float32, float64
            otherwise.
        """
        check_is_fitted(self, "n_samples_fit_")
        check_feature_names(self, X)
        dtype = _output_dtype(X)
        bags = check_bags(X, n_features=self.n_features_in_, estimator=self, defer_values=True)
        out = np.empty((bags.n_bags, self._n_features_out), dtype=dtype)
        bounds = chunk_bounds(bags.offsets, self._rows_per_chunk())
        off, ids = bags.offsets, bags.ids

        def task(b0, b1):
            from joblib import delayed

            return delayed(_encode_chunk)(self, bags.instances[off[b0]:off[b1]], off[b0:b1 + 1] - off[b0],
                                          b0, None if ids is None else ids[b0:b1], "X")

        from joblib import Parallel, effective_n_jobs, parallel_config

        # In a task on a Dask worker (client.map(encoder.transform, ...)), the chunks are done in
        # the worker's process, on threads if n_jobs asks for them.
        local = {"backend": "threading"} if inside_dask_task() else {"prefer": "threads"}
        with parallel_config(**local):
            workers = effective_n_jobs(self.n_jobs)
        if len(bounds) == 1 or workers == 1:
            for b0, b1 in bounds:
                fn, args, kwargs = task(b0, b1)
                out[b0:b1] = fn(*args, **kwargs)
            return out
        results = Parallel(n_jobs=self.n_jobs, return_as="generator", **local)(
            task(b0, b1) for b0, b1 in bounds)
        for (b0, b1), rows in zip(bounds, results):
            out[b0:b1] = rows
        return out


#: Values of the sample (8 MB in float64) read at a time by the statistics of :func:`sample_scaling`.
_BLOCK_VALUES = 2**20


def _row_blocks(Z, step=None):
    """Blocks of rows of Z as float64 arrays (the statistics' working memory is one block)."""
    step = step or max(1, _BLOCK_VALUES // max(1, Z.shape[1]))
    for r0 in range(0, Z.shape[0], step):
        yield np.asarray(Z[r0:r0 + step], dtype=np.float64)


def _first_non_finite_row(Z):
    """Index of the first row of Z holding NaN or infinity, or None (a block of rows at a time)."""
    step = max(1, _BLOCK_VALUES // max(1, Z.shape[1]))
    for r0 in range(0, Z.shape[0], step):
        ok = np.isfinite(Z[r0:r0 + step]).all(axis=1)
        if not ok.all():
            return r0 + int(np.flatnonzero(~ok)[0])
    return None


def sample_scaling(Z, method):
    """Per-feature ``(offset, scale)`` of `method` on the sample Z, a block of rows at a time.

    The statistics of :func:`mil._scaling.fit_scaling` ("standard": the mean
    and standard deviation of ``x / max|x|``, scaled back, so that a
    rescaling of the data only rescales them; "minmax"; "maxabs"), in
    float64, without a full-size temporary: the sample can be most of the
    memory an encoder's fit takes. Constant features get scale 1.
    """
    n, d = Z.shape
    if method in ("standard", "maxabs"):
        big = np.zeros(d)
        for B in _row_blocks(Z):
            np.maximum(big, np.abs(B).max(axis=0), out=big)
        if method == "maxabs":
            offset, scale = np.zeros(d), big
        else:
            big = np.where(np.isfinite(big) & (big > 0), big, 1.0)
            total = np.zeros(d)
            for B in _row_blocks(Z):
                total += (B / big).sum(axis=0)
            mean = total / max(n, 1)
            squares = np.zeros(d)
            for B in _row_blocks(Z):
                U = B / big
                U -= mean
                squares += np.einsum("ij,ij->j", U, U)
            offset, scale = mean * big, np.sqrt(squares / max(n, 1)) * big
    else:
        low, top = np.full(d, np.inf), np.full(d, -np.inf)
        for B in _row_blocks(Z):
            np.minimum(low, B.min(axis=0), out=low)
            np.maximum(top, B.max(axis=0), out=top)
        offset = low
        with np.errstate(over="ignore", invalid="ignore"):
            scale = top - low
        # max - min overflows for ranges beyond ~1.8e308: halve both first.
        scale = np.where(np.isinf(scale) & np.isfinite(low) & np.isfinite(top), 2.0 * (top * 0.5 - low * 0.5), scale)
    scale = np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)
    offset = np.where(np.isfinite(offset), offset, 0.0)
    return offset, scale


def bag_exponents(top, offsets):
    """Per bag, the power of two in whose units its terms are summed (0: as they are).

    `top` holds each instance's largest term magnitude. A bag whose largest
    term exceeds ``2**FAR_EXPONENT`` (an instance some 1e144 standard
    deviations from the training instances) gets the exponent ``e`` that
    brings it into [0.5, 1); its terms divided by ``2**e`` have finite
    squares and sums, and a code normalised to unit length does not change.

    Returns
    -------
    per_bag : ndarray of int of shape (n_bags,)
    per_instance : ndarray of int of shape (n_instances,)
    """
    sizes = np.diff(offsets)
    e = np.zeros(top.shape[0], dtype=np.intp)
    far = top > 2.0 ** FAR_EXPONENT
    if far.any():
        e[far] = np.frexp(top[far])[1]
        per_bag = np.maximum.reduceat(e, offsets[:-1]) if top.shape[0] else np.zeros(0, dtype=np.intp)
    else:
        per_bag = np.zeros(sizes.shape[0], dtype=np.intp)
    return per_bag, np.repeat(per_bag, sizes)


def bag_sums(A, offsets, cancel=False, slack=None):
    """Sum the rows of `A` (instances) over each bag: (n_bags, n_columns) float64.

    One product with the sparse bag-by-instance membership matrix: each
    bag's row adds its own instances in order (so it does not depend on the
    other bags), and is several times faster than ``np.add.reduceat`` along
    rows. With `cancel`, a sum within the rounding error of its terms
    (``n eps sum |a|`` for n terms, plus the summed `slack`: the terms' own
    uncertainty, as a (n, n_columns) array) is set to exactly 0: such a sum
    is cancellation noise whose sign depends on the order of the instances
    and on the rounding of the terms, and a normalisation to unit norm
    would blow it up to a full-size value.
    """
    n = A.shape[0]
    A = np.asarray(A, dtype=np.float64)
    member = sp.csr_matrix((np.ones(n), np.arange(n), offsets), shape=(offsets.shape[0] - 1, n))
    S = np.asarray(member @ A)
    if cancel:
        bound = np.asarray(member @ np.abs(A))
        bound *= (np.diff(offsets) * np.finfo(np.float64).eps)[:, None]
        if slack is not None:
            bound += np.asarray(member @ slack)
        S[np.abs(S) <= bound] = 0.0
    return S


def normalize_rows(V, power, normalize, n_blocks=1):
    """Signed power, then L2 normalisation of each row, in place (a zero row or block stays zero).

    ``normalize="intra"`` first scales each of the `n_blocks` equal blocks of a row (a
    codeword's part) to unit norm (Arandjelovic and Zisserman, "All about VLAD", CVPR 2013),
    then the whole row; "l2" the whole row only; None neither. Norms are taken on each row
    divided by its largest magnitude, so no square under- or overflows.
    """
    if power != 1.0:
        np.copysign(np.abs(V) ** power, V, out=V)
    if normalize == "intra":
        B = V.reshape(V.shape[0], n_blocks, -1)
        norms = _norms(B.reshape(-1, B.shape[2])).reshape(B.shape[0], n_blocks, 1)
        np.divide(B, norms, out=B, where=norms > 0)
    if normalize is not None:
        norms = _norms(V)[:, None]
        np.divide(V, norms, out=V, where=norms > 0)
    return V


def _norms(V):
    """Euclidean norms of the rows of V, free of under- and overflow (0 for a zero row)."""
    top = np.abs(V).max(axis=1) if V.shape[1] else np.zeros(V.shape[0])
    safe = np.where(top > 0, top, 1.0)
    U = V / safe[:, None]
    return np.sqrt(np.einsum("ij,ij->i", U, U)) * np.where(top > 0, top, 0.0)

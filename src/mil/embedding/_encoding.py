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
"""

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, check_random_state

from mil._scaling import fit_scaling
from mil.bags import Bags
from mil.utils.validation import (check_bag_chunk, check_bags, check_feature_names, set_feature_names)

__all__ = ["CHUNK_BYTES", "chunk_bounds"]

#: Working memory of one chunk of bags in ``transform`` when ``chunk_size`` is None:
#: the chunk holds as many instances as keep its float64 working arrays near this size.
CHUNK_BYTES = 32 * 2**20

#: Parameter constraints shared by every encoder.
_COMMON_CONSTRAINTS = {
    "max_samples": [Interval(Integral, 1, None, closed="left"), None],
    "scale": [StrOptions({"standard", "minmax", "maxabs"}), None],
    "chunk_size": [Interval(Integral, 1, None, closed="left"), None],
    "n_jobs": [Integral, None],
    "random_state": ["random_state"],
}


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


def _inside_dask_task():
    from mil._distance_engine import inside_dask_task as inside

    return inside()


def _encode_chunk(encoder, instances, offsets, first, ids, name):
    """One task: check, scale and encode a run of bags (may run in another process)."""
    Z = check_bag_chunk(instances, offsets, first=first, ids=ids, name=name)
    if encoder.offset_ is not None:
        Z -= encoder.offset_
        Z /= encoder.scale_
    return encoder._encode(Z, offsets)


#: The encoders' shared parameter text (their docstrings' "[chunk parameters]").
_CHUNK_PARAMETERS_DOC = """    scale : {"standard", "minmax", "maxabs"} or None, default="standard"
        Feature scaling fitted on the sampled training instances, applied
        to every instance before encoding.
    chunk_size : int or None, default=None
        Instances per chunk of bags in ``transform`` (a larger bag is a
        chunk of its own). None: as many as keep a chunk's working arrays
        near 32 MB (``mil.embedding.CHUNK_BYTES``).
    n_jobs : int or None, default=None
        Workers over the chunks of bags: threads, or the workers of the
        joblib backend in use (``joblib.parallel_config``, e.g. a Dask
        cluster). The result does not depend on it.
"""


class _BagEncoder(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Fit on a sample of instances, encode bags chunk by chunk (not public).

    Subclasses set ``_parameter_constraints`` and implement
    ``_fit_instances(Z, rng)`` (fit on the scaled sample, set the fitted
    attributes and ``_n_features_out``), ``_encode(Z, offsets)`` (the scaled
    instances of a run of bags -> one float64 row per bag, each row from its
    own bag only) and ``_floats_per_instance()`` (the width of the working
    arrays of ``_encode``, for the automatic chunk size).
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__doc__:
            cls.__doc__ = cls.__doc__.replace("    [chunk parameters]\n", _CHUNK_PARAMETERS_DOC)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.three_d_array = True
        tags.requires_fit = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    # -- fit -------------------------------------------------------------------
    def fit(self, X, y=None):
        """Learn the encoder's model of the instances from the training bags.

        Parameters
        ----------
        X : sequence of 2-D arrays or Bags
            Training bags. A :class:`~mil.Bags` is read only at the sampled
            instances (all of them when there are at most ``max_samples``).
        y : ignored

        Returns
        -------
        self
        """
        self._validate_params()
        bags = check_bags(X, estimator=self, defer_values=True)
        rng = check_random_state(self.random_state)
        Z = self._sample(bags, rng)
        self.n_features_in_ = bags.n_features
        set_feature_names(self, X)
        if self.scale is not None:
            self.offset_, self.scale_ = fit_scaling(Z, self.scale)
            Z -= self.offset_
            Z /= self.scale_
        else:
            self.offset_ = self.scale_ = None
        self.n_samples_fit_ = Z.shape[0]
        self._fit_instances(Z, rng)
        return self

    def _sample(self, bags, rng):
        """The instances the model is fitted on, as a checked float64 copy."""
        n = bags.n_instances
        if self.max_samples is None or self.max_samples >= n:
            rows = None
            part = bags.instances
        else:
            rows = np.sort(rng.choice(n, self.max_samples, replace=False))
            part = bags.instances[rows]
        Z = np.array(part, dtype=np.float64, order="C")
        bad = ~np.isfinite(Z)
        if bad.any():
            r = int(np.flatnonzero(bad.any(axis=1))[0])
            r = r if rows is None else int(rows[r])
            b = int(np.searchsorted(bags.offsets, r, side="right") - 1)
            # Raises, naming the bag.
            check_bag_chunk(bags.instances[bags.offsets[b]:bags.offsets[b + 1]],
                            np.array([0, bags.offsets[b + 1] - bags.offsets[b]]),
                            first=b, ids=None if bags.ids is None else bags.ids[b:b + 1])
        # Rows in lexicographic order: with every instance used, the fitted model (k-means and
        # mixture initialisations, landmarks) does not depend on the order of the bags or of
        # their instances. One sort of the rows as records (numpy compares them field by field).
        records = Z.view(np.dtype([(f"f{j}", Z.dtype) for j in range(Z.shape[1])])).ravel()
        return Z[np.argsort(records, kind="stable")]

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
        Z : ndarray of shape (n_bags, n_features_out)
            float32 when the instances are float32, float64 otherwise.
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
        local = {"backend": "threading"} if _inside_dask_task() else {"prefer": "threads"}
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


def _bag_sums(A, offsets, cancel=False):
    """Sum the rows of `A` (instances) over each bag: (n_bags, n_columns) float64.

    One product with the sparse bag-by-instance membership matrix: each
    bag's row adds its own instances in order (so it does not depend on the
    other bags), and is several times faster than ``np.add.reduceat`` along
    rows. With `cancel`, a sum within the rounding error of its terms
    (``n eps sum |a|`` for n terms) is set to exactly 0: such a sum is
    cancellation noise whose sign depends on the order of the instances, and
    a normalisation to unit norm would blow it up to a full-size value.
    """
    n = A.shape[0]
    A = np.asarray(A, dtype=np.float64)
    member = sp.csr_matrix((np.ones(n), np.arange(n), offsets), shape=(offsets.shape[0] - 1, n))
    S = np.asarray(member @ A)
    if cancel:
        bound = np.asarray(member @ np.abs(A))
        bound *= (np.diff(offsets) * np.finfo(np.float64).eps)[:, None]
        S[np.abs(S) <= bound] = 0.0
    return S


def _normalise_rows(V, power, normalize, n_blocks=1):
    """Signed power, then L2 normalisation of each row, in place (a zero row or block stays zero).

    ``normalize="intra"`` first scales each of the `n_blocks` equal blocks of a row (a
    codeword's part) to unit norm (Arandjelovic and Zisserman, "All about VLAD", CVPR 2013),
    then the whole row; "l2" the whole row only; None neither.
    """
    if power != 1.0:
        np.copysign(np.abs(V) ** power, V, out=V)
    if normalize == "intra":
        B = V.reshape(V.shape[0], n_blocks, -1)
        norms = np.sqrt(np.einsum("ijk,ijk->ij", B, B))[:, :, None]
        np.divide(B, norms, out=B, where=norms > 0)
    if normalize is not None:
        norms = np.sqrt(np.einsum("ij,ij->i", V, V))
        np.divide(V, norms[:, None], out=V, where=norms[:, None] > 0)
    return V

"""The bag container: one instance matrix plus bag offsets (user guide: :doc:`/user_guide/data`).

A :class:`Bags` holds every instance of every bag in one C-contiguous
float64 matrix, bag after bag, and an ``offsets`` array (CSR style): bag
``b`` owns rows ``offsets[b]:offsets[b + 1]``. Kernels work on this layout
directly, so large data never becomes a Python list of arrays.

The instance matrix may also be a scipy sparse CSR matrix (word counts,
one-hot features): see :attr:`Bags.is_sparse` and the "Sparse bags" user
guide for which learners accept it.
"""

import numbers

import numpy as np

from mil._bag_arrays import (check_bag_values, check_instances, check_layout, check_offsets, concat_ranges,
                             group_rows, shown, stack_bags)

__all__ = ["Bags"]


class Bags:
    """A collection of bags stored as one instance matrix and bag offsets.

    Build one with :meth:`from_instances` (instance matrix + bag id per
    instance) or :meth:`from_list` (a list of 2-D arrays); estimators accept
    either a :class:`Bags` or a list of 2-D arrays. Validation happens in the
    constructors (see :func:`mil.utils.validation.check_bags`); a Bags is
    treated as read-only afterwards.

    Parameters
    ----------
    instances : ndarray or scipy sparse matrix of shape (n_instances, n_features)
        Every instance, bag after bag. Converted to C-contiguous float64, or
        for a sparse matrix to a CSR float64 copy (sorted indices, no
        duplicate entries). A C-contiguous float32 or float64 array is kept
        as it is, without a copy: a memory map (``np.load(path,
        mmap_mode="r")``) stays on disk. Learners that cannot read float32
        (every one but the trees with ``splitter="hist"``) work on a float64
        copy.
    offsets : ndarray of shape (n_bags + 1,)
        Bag ``b`` owns ``instances[offsets[b]:offsets[b + 1]]``. Starts at 0,
        ends at n_instances, strictly increasing (no empty bag).
    ids : array-like of shape (n_bags,), default=None
        Optional identifier of each bag (kept through indexing).
    feature_names : sequence of str, default=None
        Optional name of each feature (kept through indexing). An estimator
        fitted on these bags records them in ``feature_names_in_`` and
        prints them in its models, as with DataFrame bags;
        :func:`mil.datasets.from_frame` and :func:`mil.datasets.load_csv`
        set them from the table's columns.

    Attributes
    ----------
    instances : ndarray of float64 or float32, or scipy.sparse.csr_matrix, shape (n_instances, n_features)
    offsets : ndarray of intp, shape (n_bags + 1,)
    ids : ndarray of shape (n_bags,) or None
    feature_names : ndarray of str (object), shape (n_features,), or None

    Examples
    --------
    >>> import numpy as np
    >>> from mil import Bags
    >>> X = np.array([[0., 1.], [1., 1.], [5., 5.]])
    >>> bags = Bags.from_instances(X, bag_ids=[7, 7, 3])
    >>> bags.n_bags, bags.n_features, bags.ids.tolist()
    (2, 2, [3, 7])
    >>> bags[1]
    array([[0., 1.],
           [1., 1.]])
    """

    __slots__ = ("instances", "offsets", "ids", "feature_names", "_instance_bag")

    def __init__(self, instances, offsets, ids=None, feature_names=None):
        self.instances = check_instances(instances, keep_float32=True)
        self.offsets = check_offsets(offsets, self.instances.shape[0])
        if ids is not None:
            ids = np.asarray(ids)
            if ids.shape != (self.n_bags,):
                raise ValueError(f"ids has shape {ids.shape}; expected ({self.n_bags},), one per bag")
        self.ids = ids
        self.feature_names = _check_feature_names(feature_names, self.n_features)
        self._instance_bag = None

    @classmethod
    def _trusted(cls, instances, offsets, ids=None, feature_names=None):
        # Internal: wrap arrays that are already valid (no copies, no checks).
        self = object.__new__(cls)
        self.instances, self.offsets, self.ids, self._instance_bag = instances, offsets, ids, None
        self.feature_names = feature_names
        return self

    def with_feature_names(self, feature_names):
        """These bags (the same arrays, not copied) with `feature_names` (None: without names)."""
        names = _check_feature_names(feature_names, self.n_features)
        return Bags._trusted(self.instances, self.offsets, self.ids, names)

    @classmethod
    def from_instances(cls, X, bag_ids):
        """Group the rows of an instance matrix into bags by their bag id.

        Parameters
        ----------
        X : array-like or scipy sparse matrix of shape (n_instances, n_features)
            A sparse matrix gives sparse bags (CSR instances).
        bag_ids : array-like of shape (n_instances,)
            The bag of each instance; any sortable ids. Bags are ordered by
            sorted id (as :func:`numpy.unique`), instances keep their order
            within a bag; the ids are kept in ``ids``.

        Returns
        -------
        bags : Bags
        """
        return cls._trusted(*group_rows(X, bag_ids))

    @classmethod
    def from_list(cls, bags):
        """Build from a sequence of 2-D array-likes, one per bag (validated).

        Scipy sparse bags give a Bags with a CSR instance matrix (dense bags
        among them are converted). A Bags is checked and returned as it is
        (float32 instances as a float64 copy).
        """
        if isinstance(bags, Bags):
            if bags.n_bags == 0:
                raise ValueError("X is a Bags with no bags; at least one bag is needed")
            check_layout(bags, "X")
            check_bag_values(bags, "X", allow_nan=False)
            return float64_bags(bags)
        return cls._trusted(*stack_bags(bags, allow_nan=False, accept_sparse=True))

    # -- shape ---------------------------------------------------------------
    @property
    def n_bags(self):
        """Number of bags."""
        return self.offsets.shape[0] - 1

    @property
    def n_features(self):
        """Number of features per instance."""
        return self.instances.shape[1]

    @property
    def is_sparse(self):
        """True when the instance matrix is a scipy sparse (CSR) matrix."""
        return not isinstance(self.instances, np.ndarray)

    def toarray(self):
        """These bags with a dense instance matrix (a new Bags; itself when already dense)."""
        if not self.is_sparse:
            return self
        return Bags._trusted(np.ascontiguousarray(self.instances.toarray()), self.offsets, self.ids,
                             self.feature_names)

    @property
    def n_instances(self):
        """Total number of instances."""
        return self.instances.shape[0]

    @property
    def sizes(self):
        """Number of instances of each bag, ndarray of intp (n_bags,)."""
        return np.diff(self.offsets)

    @property
    def instance_bag(self):
        """Bag index of each instance, ndarray of intp (n_instances,)."""
        if self._instance_bag is None:
            self._instance_bag = np.repeat(np.arange(self.n_bags, dtype=np.intp), self.sizes)
        return self._instance_bag

    def __len__(self):
        return self.n_bags

    def __repr__(self):
        return (f"Bags(n_bags={self.n_bags}, n_instances={self.n_instances}, "
                f"n_features={self.n_features}{', sparse' if self.is_sparse else ''})")

    # -- access --------------------------------------------------------------
    def __iter__(self):
        for b in range(self.n_bags):
            yield self.instances[self.offsets[b]:self.offsets[b + 1]]

    def __getitem__(self, key):
        """``bags[i]`` is bag i's 2-D instance array (a read-only view);
        ``bags[indices]``, ``bags[mask]`` and ``bags[slice]`` are a new Bags
        (a slice of consecutive bags shares the instance matrix).
        For sparse bags, ``bags[i]`` is a CSR matrix (a copy)."""
        if isinstance(key, numbers.Integral):
            n = self.n_bags
            if not -n <= key < n:
                raise IndexError(f"bag index {key} is out of range for {n} bags")
            key = int(key) % n
            if self.is_sparse:
                return self.instances[self.offsets[key]:self.offsets[key + 1]]
            view = self.instances[self.offsets[key]:self.offsets[key + 1]]
            view = view.view()
            view.flags.writeable = False
            return view
        return self.subset(key)

    def subset(self, indices):
        """Return the bags selected by `indices` (ints, boolean mask or slice) as a new Bags.

        A slice of consecutive bags (step 1) gives a view of the same
        instance matrix, without a copy (a memory map stays on disk); other
        selections copy the selected instances.
        """
        if isinstance(indices, slice):
            start, stop, step = indices.indices(self.n_bags)
            if step == 1 and stop > start and not self.is_sparse:
                lo, hi = self.offsets[start], self.offsets[stop]
                ids = None if self.ids is None else self.ids[start:stop]
                return Bags._trusted(self.instances[lo:hi], self.offsets[start:stop + 1] - lo, ids,
                                     self.feature_names)
            indices = np.arange(self.n_bags)[indices]
        indices = np.asarray(indices)
        if indices.dtype == bool:
            if indices.shape != (self.n_bags,):
                raise IndexError(f"boolean mask has shape {indices.shape}; expected ({self.n_bags},)")
            indices = np.flatnonzero(indices)
        elif indices.size == 0:
            indices = indices.astype(np.intp)
        elif not np.issubdtype(indices.dtype, np.integer):
            raise IndexError(f"bags can be indexed by integers, slices or boolean masks, not {indices.dtype}")
        indices = indices.ravel().astype(np.intp, copy=False)
        if indices.size and (indices.min() < -self.n_bags or indices.max() >= self.n_bags):
            raise IndexError(f"bag index out of range for {self.n_bags} bags")
        indices = indices % max(self.n_bags, 1)
        sizes = self.sizes[indices]
        offsets = np.zeros(indices.size + 1, dtype=np.intp)
        np.cumsum(sizes, out=offsets[1:])
        rows = concat_ranges(self.offsets[indices], sizes)
        instances = self.instances[rows] if self.is_sparse else np.ascontiguousarray(self.instances[rows])
        ids = None if self.ids is None else self.ids[indices]
        return Bags._trusted(instances, offsets, ids, self.feature_names)

    def subsample_instances(self, max_instances, random_state=None):
        """At most `max_instances` instances of each bag, drawn without replacement (a new Bags).

        Bags with at most `max_instances` instances are kept whole; from a
        larger bag, `max_instances` of its instances are drawn uniformly
        without replacement and kept in their order. The draw depends only
        on `random_state` (an int makes it repeatable) and the bag sizes.

        Parameters
        ----------
        max_instances : int >= 1
        random_state : int, RandomState or None, default=None

        Returns
        -------
        bags : Bags
            `self` when no bag is larger than `max_instances`.

        Examples
        --------
        >>> import numpy as np
        >>> from mil import Bags
        >>> bags = Bags(np.arange(10.0).reshape(5, 2), [0, 1, 5])
        >>> small = bags.subsample_instances(2, random_state=0)
        >>> small.sizes.tolist()
        [1, 2]
        """
        from sklearn.utils import check_random_state

        if isinstance(max_instances, bool) or not isinstance(max_instances, numbers.Integral) or max_instances < 1:
            raise ValueError(f"max_instances must be an integer >= 1; got {shown(max_instances)}")
        sizes = self.sizes
        if sizes.max() <= max_instances:
            return self
        rng = check_random_state(random_state)
        key = rng.random_sample(int(self.offsets[-1]))
        bag = np.repeat(np.arange(self.n_bags), sizes)
        order = np.lexsort((key, bag))  # by bag, then by the random key
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size) - np.repeat(self.offsets[:-1], sizes)
        rows = np.flatnonzero(rank < max_instances)
        new_sizes = np.minimum(sizes, max_instances)
        offsets = np.zeros(self.n_bags + 1, dtype=np.intp)
        np.cumsum(new_sizes, out=offsets[1:])
        instances = self.instances[rows] if self.is_sparse else np.ascontiguousarray(self.instances[rows])
        return Bags._trusted(instances, offsets, self.ids)

    def to_list(self):
        """Return the bags as a list of 2-D arrays (copies; CSR matrices for sparse bags)."""
        return [bag.copy() for bag in self]

    # -- pickling (slots) ----------------------------------------------------
    def __getstate__(self):
        return {"instances": self.instances, "offsets": self.offsets, "ids": self.ids,
                "feature_names": self.feature_names}

    def __setstate__(self, state):
        self.instances, self.offsets, self.ids = state["instances"], state["offsets"], state["ids"]
        self.feature_names = state.get("feature_names")
        self._instance_bag = None


def _check_feature_names(names, n_features):
    """`names` as an object array of n_features strings (None stays None)."""
    if names is None:
        return None
    names = np.asarray([str(n) for n in names], dtype=object)
    if names.shape != (n_features,):
        raise ValueError(f"feature_names has {names.shape[0]} names; the bags have {n_features} features")
    return names


def float64_bags(bags):
    """Dense bags with float64 instances (float32 ones copied); sparse or float64 bags as they are."""
    if bags.is_sparse or bags.instances.dtype == np.float64:
        return bags
    return Bags._trusted(bags.instances.astype(np.float64), bags.offsets, bags.ids)

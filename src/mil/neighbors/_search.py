"""Bag neighbours under the minimal Hausdorff distance, from an instance-level tree search.

The minimal Hausdorff distance between two bags is the distance of their
closest pair of instances, so the training bags near a bag follow from a
k-nearest or radius search among the training instances (scikit-learn's
:class:`~sklearn.neighbors.KDTree` or :class:`~sklearn.neighbors.BallTree`)
without the bag-by-bag distance matrix.

k-nearest queries. The k nearest training instances of each instance q of
a bag Q are listed; every training instance left out is at least as far
from q as the k-th. With R the smallest k-th distance over Q's instances,
every training bag nearer to Q than R is in some list, at its exact
distance (the smallest listed distance to one of its instances), and every
bag in no list is at least R away. A decision is settled once it involves
only bags nearer than R: the C-th nearest other bag (Citation-KNN's citer
radius), or the k nearest bags with the whole tie group of the k-th
(within ``DISTANCE_RTOL``, :mod:`mil.neighbors._ties`). Otherwise k doubles
for the instances whose k-th distance is too small (one bag's own
instances, or a crowd of one other bag's, fill their lists) and they are
queried again, until every bag is settled (at worst every instance is
listed).

Radius queries. Citation-KNN's citers of the query bags are the training
bags b with d(b, Q) <= r_b: a tree over the query instances, queried once
by every training instance with its bag's radius.

Exact values. The tree searches the training instances rotated to their
principal axes (a KD-tree splits those well), which moves distances by
rounding. So the tree only proposes pairs: search radii and the bounds R
carry a slack (``BagTreeIndex._slack``: hundreds of times the rotation's
and the tree's rounding, about 1e-12 of the data's extent), and every
distance a decision uses is recomputed from the original instances by
differences (:func:`pair_distances`). The decisions are those of the full matrix: the
same distances up to the full-matrix kernels' own rounding (about 1e-12
relative, within 1.2e-10; see :mod:`mil.distances`), compared with the
same tolerance and rules.

Memory: the rotated copy of the training instances and the tree (about
twice the instance matrix), plus neighbour lists of at most ``BUDGET``
entries per thread at a time.

Approximate lists (``algorithm="hnsw"``). The same search over a faiss
HNSW graph of the training instances (Malkov and Yashunin 2020) instead of
a tree: the k-nearest lists come from a graph search that may miss some of
the true nearest instances, so the bounds R certify nothing and are not
used: a bag is settled as soon as its lists name enough other bags (the C
nearest, or the k nearest with the tie group of the k-th), each at the
smallest listed distance, and k doubles only for the instances of a bag
whose lists name too few. The distances it decides with are still the exact
ones of the pairs listed (:func:`pair_distances`), so a decision differs
from the exact search's only where the graph, or a list of C + 2 (k + 2)
instances, missed the closest pair of a bag that matters. The graph has no radius query: the
citers of a query bag are looked for among its ``CITER_COVER`` nearest
training bags (a training bag b cites Q when ``d(b, Q) <= r_b``; b is then
rarely far down Q's own ranking). Memory: the rotated instances in
float64 and in the graph's float32, and the graph (``HNSW_M`` x 2 links per
instance at the bottom layer), about ``12 d + 150`` bytes per training
instance.
"""

import threading

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.neighbors import BallTree, KDTree

from mil._bag_arrays import concat_ranges
from mil._distance_exact import power_of_two_exponent, scaled_by
from mil.neighbors._ties import DISTANCE_RTOL, group_starts, rank_rows

__all__ = ["ANN", "BagTreeIndex", "EF_SEARCH", "TREES", "graph_available", "pair_distances"]

TREES = {"kd_tree": KDTree, "ball_tree": BallTree}
#: Approximate searches: neighbour lists from a graph, not a certificate.
ANN = ("hnsw",)
#: Links per instance of the HNSW graph (faiss's M; twice as many at the bottom layer).
HNSW_M = 16
#: Breadth of the search that inserts each instance into the graph (faiss's efConstruction).
HNSW_EF_CONSTRUCTION = 40
#: Default breadth of the graph searches (faiss's efSearch; at least the list length k).
EF_SEARCH = 16
#: Citers of a query bag are looked for among this many of its nearest training bags (approximate search).
CITER_COVER = 64
#: Relative slack of the graph's float32 distances against the exact ones, per feature.
_REL32 = 2.0 ** -16
#: Neighbour-list entries (query instances x k) one step of a search holds (per thread).
BUDGET = 2**19
#: Points per leaf of the trees.
LEAF_SIZE = 40
#: Slack of the tree's distances against the exact ones, per feature (see BagTreeIndex._slack):
#: absolute, times d**1.5 and the largest rotated norms; relative, times d.
_ABS = 2.0 ** -44
_REL = 2.0 ** -44
#: Rotated coordinates beyond this magnitude could overflow the tree's squared distances.
_SAFE = 2.0 ** 450
#: Rows per block when rotating instances (bounds the temporaries).
_ROWS = 2**16


def pair_distances(A, ia, B, ib, chunk=2**16):
    """Euclidean distance between ``A[ia[i]]`` and ``B[ib[i]]`` for every i, from differences.

    Sums of squares that underflow (differences below about 1e-150) or
    overflow are recomputed with :func:`numpy.hypot`, which does neither;
    identical rows are at exactly 0. Works in chunks of `chunk` pairs.
    """
    out = np.empty(ia.shape[0])
    for a in range(0, ia.shape[0], chunk):
        diff = A[ia[a:a + chunk]] - B[ib[a:a + chunk]]
        sq = np.einsum("ij,ij->i", diff, diff)
        d = np.sqrt(sq)
        with np.errstate(invalid="ignore"):
            redo = np.flatnonzero(~((sq >= 2.0 ** -900) & (sq < np.inf)))
        if redo.size:
            redo = redo[np.any(diff[redo] != 0, axis=1)]
            if redo.size:
                d[redo] = np.hypot.reduce(diff[redo], axis=1)
        out[a:a + chunk] = d
    return out


def _parallel(fn, tasks, n_jobs):
    """``[fn(t) for t in tasks]``, on `n_jobs` threads."""
    n_jobs = effective_n_jobs(n_jobs)
    if n_jobs == 1 or len(tasks) < 2:
        return [fn(t) for t in tasks]
    return Parallel(n_jobs=n_jobs, prefer="threads")(delayed(fn)(t) for t in tasks)


def _min_per_key(keys, vals):
    """Unique keys (sorted) with the smallest value of each."""
    if keys.size == 0:
        return keys, vals
    order = np.lexsort((vals, keys))
    keys, vals = keys[order], vals[order]
    first = np.ones(keys.shape[0], dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    return keys[first], vals[first]


def _faiss():
    """The faiss module, or an ImportError that names the extra providing it."""
    try:
        import faiss
    except ImportError as exc:
        raise ImportError(
            "algorithm='hnsw' needs faiss (the faiss-cpu package): pip install 'scikit-mil[ann]' "
            f"(or pip install faiss-cpu); importing it failed: {exc}") from exc
    return faiss


def graph_available():
    """Whether faiss imports, so that ``algorithm="hnsw"`` can run."""
    try:
        _faiss()
    except ImportError:
        return False
    return True


class _OneThread:
    """faiss's OpenMP threads of the calling thread set to one, then restored.

    A graph built on several threads depends on their timing; on one it is
    the same at every fit. Searches run one per joblib thread (``n_jobs``).
    """

    def __init__(self, faiss):
        self.faiss = faiss

    def __enter__(self):
        self.before = self.faiss.omp_get_max_threads()
        self.faiss.omp_set_num_threads(1)

    def __exit__(self, *exc):
        self.faiss.omp_set_num_threads(self.before)


class BagTreeIndex:
    """The training bags' instances in a KD-tree, ball tree or HNSW graph, for minimal-distance bag searches.

    Parameters
    ----------
    bags : Bags
        Dense float64 training bags (after the classifier's scaling); kept
        by reference.
    algorithm : {"kd_tree", "ball_tree", "hnsw"}
    ef_search : int, default=EF_SEARCH
        Breadth of the HNSW graph searches ("hnsw" only).

    The searches take ``n_jobs``: threads over blocks of query bags (or of
    training instances for the citers); the tree queries release the GIL.
    Results do not depend on it.
    """

    def __init__(self, bags, algorithm="kd_tree", ef_search=EF_SEARCH):
        if algorithm in ANN:
            _faiss()  # fail before any work when faiss is missing
        self.bags = bags
        self.algorithm = algorithm
        self.ef_search = int(ef_search)
        self.approximate = algorithm in ANN
        X = bags.instances
        self.exponent = power_of_two_exponent([X])
        # Principal axes of the training instances (about their mean, in the power-of-two scale).
        self.centre = self._normalised(X).mean(axis=0)
        gram = np.zeros((X.shape[1], X.shape[1]))
        for a in range(0, X.shape[0], _ROWS):
            Z = self._normalised(X[a:a + _ROWS]) - self.centre
            gram += Z.T @ Z
        rotation = np.linalg.eigh(gram)[1][:, ::-1] if np.isfinite(gram).all() else np.eye(X.shape[1])
        self.rotation = np.ascontiguousarray(rotation)
        self._lock = threading.Lock()
        self._layout = None
        self._build()

    # -- state -------------------------------------------------------------------------------
    def __getstate__(self):
        # The tree and the rotated instances are rebuilt on first use (the pickle holds the bags once).
        # The HNSW graph is pickled (faiss.serialize_index): rebuilding it costs about as much as
        # the fit's searches, and a faiss of another version could build another graph.
        state = self.__dict__.copy()
        del state["_lock"], state["_layout"]
        if self.approximate and self._layout is not None:
            state["_graph"] = _faiss().serialize_index(self._layout.index)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.Lock()
        self._layout = None

    def _build(self):
        """The training instances' layout (:class:`_Layout` or :class:`_HNSWLayout`), built once."""
        with self._lock:
            if self._layout is None:
                Y = self.embed(self.bags.instances)
                self.extent = float(np.sqrt(np.einsum("ij,ij->i", Y, Y).max())) if Y.size else 0.0
                if self.approximate:
                    self._layout = _HNSWLayout(Y, self.ef_search, self.__dict__.pop("_graph", None))
                else:
                    self._layout = _Layout(Y, self.algorithm)
        return self._layout

    @property
    def tree(self):
        return self._build().tree

    @property
    def n_instances(self):
        return self.bags.n_instances

    @property
    def n_bags(self):
        return self.bags.n_bags

    def _normalised(self, X):
        return scaled_by(X, self.exponent) if self.exponent else X

    def embed(self, X):
        """Instances in the tree's coordinates (power-of-two scale, centred, rotated); None if unsafe."""
        Y = np.empty(X.shape)
        for a in range(0, X.shape[0], _ROWS):
            np.matmul(self._normalised(X[a:a + _ROWS]) - self.centre, self.rotation, out=Y[a:a + _ROWS])
        with np.errstate(invalid="ignore"):
            if Y.size and not np.abs(Y).max() < _SAFE:
                return None
        return Y

    def inspected_fraction(self, n_sample=256, k=16):
        """Mean fraction of the training instances a k-nearest query computes distances to.

        Measured on `n_sample` evenly spaced training instances; near 1, the
        tree does no better than brute force (high intrinsic dimension).
        """
        tree, n = self.tree, self.n_instances
        n_sample = max(1, min(n, n_sample, 2**30 // max(n, 1)))  # the tree counts in a C int
        rows = np.unique(np.linspace(0, n - 1, n_sample).astype(np.intp))
        tree.reset_n_calls()
        tree.query(self._layout.Y[rows], k=min(k, n))
        return tree.get_n_calls() / (rows.shape[0] * n)

    # -- searches ----------------------------------------------------------------------------
    def queries(self, bags):
        """A batch of query bags ready for :meth:`nearest` and :meth:`citers`; None if unsafe.

        Their instances rotated like the training ones, a tree over them
        (the citers' search) and their order along it: searching in that
        order keeps the training tree's nodes in cache (about twice as fast).
        None when some rotated value is beyond what the tree's squared
        distances can hold (then the caller uses the distance matrix).
        """
        Y = self.embed(bags.instances)
        if Y is None:
            return None
        slack = self._slack(Y)
        layout = _Order(Y) if self.approximate else _Layout(Y, self.algorithm)
        return _Batch(bags.instances, bags.offsets, layout, slack)

    def _training_batch(self):
        b = self.bags
        layout = self._build()
        return _Batch(b.instances, b.offsets, layout, self._slack(layout.Y))

    def _slack(self, Yq):
        """(absolute, relative) bound on the tree's distances' error, in tree units, for queries `Yq`.

        Rotating a vector of d values rounds it by at most about ``d**1.5``
        units in the last place of its norm; the tree's own sums by about d
        relative. Both bounds below are 2**9 times those.
        """
        q = float(np.sqrt(np.einsum("ij,ij->i", Yq, Yq).max())) if Yq.size else 0.0
        d = max(Yq.shape[1], 1)
        if self.approximate:  # float32 coordinates and sums
            return (_REL32 * d ** 1.5 * (self.extent + q), _REL32 * d)
        return (_ABS * d ** 1.5 * (self.extent + q), _REL * d)

    def kth_distances(self, C, n_jobs=None):
        """Distance from each training bag to its C-th nearest other training bag (1 <= C < n_bags)."""
        return self._search(self._training_batch(), ("kth", C), True, n_jobs)

    def nearest(self, batch, k, n_jobs=None, return_distance=False):
        """The k nearest training bags of each query bag of `batch` (:meth:`queries`), as :func:`rank_rows`.

        With `return_distance`, also their distances (each the smallest
        exact distance of a pair of their instances).
        """
        self._build()
        near, dist = self._search(batch, ("rank", min(k, self.n_bags)), False, n_jobs)
        return (near, dist) if return_distance else near

    def citation(self, batch, references, radius, n_jobs=None):
        """Citation-KNN's neighbours of the query bags: (near, distances) as :meth:`nearest`, and citers.

        `radius` as in :meth:`citers`; None for no citers. On the HNSW graph
        one search ranks ``max(references, CITER_COVER)`` training bags per
        query bag: its first `references` are the references, and the
        citers are the ranked bags b with ``d(b, Q) <= radius[b]``, plus
        the bags of infinite radius.
        """
        if not self.approximate:
            near, dist = self.nearest(batch, references, n_jobs=n_jobs, return_distance=True)
            return near, dist, (None if radius is None else self.citers(batch, radius, n_jobs=n_jobs))
        k = references if radius is None else max(references, CITER_COVER)
        near, dist = self.nearest(batch, k, n_jobs=n_jobs, return_distance=True)
        cites = None
        if radius is not None:
            n, m = self.n_bags, near.shape[0]
            inside = dist <= radius[near]
            q = np.repeat(np.arange(m, dtype=np.int64), near.shape[1])[inside.ravel()]
            keys, dists = [q * n + near[inside]], [dist[inside]]
            every = np.flatnonzero(radius == np.inf)
            if every.size:
                pairs = (np.arange(m, dtype=np.int64)[:, None] * n + every[None, :]).ravel()
                keys.append(pairs)
                dists.append(self._pair_minima(batch, pairs // n, pairs % n))
            keys, dists = _min_per_key(np.concatenate(keys), np.concatenate(dists))
            cites = (keys // n).astype(np.intp), (keys % n).astype(np.intp), dists
        r = min(references, self.n_bags)
        return near[:, :r], dist[:, :r], cites

    def citers(self, batch, radius, n_jobs=None):
        """(query bag, training bag) pairs with ``d(b, Q) <= radius[b]``, sorted, and their distances.

        `radius` holds one radius per training bag (original units); -inf
        cites nothing, +inf every query bag. Each training instance queries
        the batch's tree with its bag's radius; a pair's distance is the
        smallest exact distance of the instance pairs found (its closest
        pair is within the radius, so among them). Trees only.
        """
        if self.approximate:
            raise ValueError("the HNSW graph has no radius query: use citation()")
        self._build()
        tree_X, n = self.bags.instances, self.n_bags
        q_off = batch.offsets
        m = q_off.shape[0] - 1
        q_bag = np.repeat(np.arange(m, dtype=np.intp), np.diff(q_off))
        keys, dists = [], []
        every = np.flatnonzero(radius == np.inf)
        if every.size:
            pairs = (np.arange(m, dtype=np.int64)[:, None] * n + every[None, :]).ravel()
            keys.append(pairs)
            dists.append(self._pair_minima(batch, pairs // n, pairs % n))
        finite = np.isfinite(radius) & (radius >= 0)
        T, Q = self._build(), batch.layout
        inst = np.flatnonzero(finite[self.bag_of[T.perm]])  # training tree rows, in tree order
        if inst.size and m:
            eps, rel = batch.slack

            def block(rows):
                ti = T.perm[rows]
                r = (np.ldexp(radius[self.bag_of[ti]], -self.exponent) + eps) * (1.0 + rel)
                found = Q.tree.query_radius(T.Y[rows], r)
                lens = np.fromiter((a.shape[0] for a in found), dtype=np.intp, count=found.shape[0])
                if not lens.sum():
                    return np.zeros(0, dtype=np.int64), np.zeros(0)
                qi = Q.perm[np.concatenate(found)]
                ti = np.repeat(ti, lens)
                d = pair_distances(tree_X, ti, batch.X, qi)
                keep = d <= radius[self.bag_of[ti]]
                return _min_per_key(q_bag[qi[keep]].astype(np.int64) * n + self.bag_of[ti[keep]], d[keep])

            step = max(1, min(_ROWS, -(-inst.shape[0] // (4 * effective_n_jobs(n_jobs)))))
            for k_, d_ in _parallel(block, [inst[a:a + step] for a in range(0, inst.shape[0], step)], n_jobs):
                keys.append(k_)
                dists.append(d_)
        if not keys:
            return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp), np.zeros(0)
        keys, dists = _min_per_key(np.concatenate(keys), np.concatenate(dists))
        return (keys // n).astype(np.intp), (keys % n).astype(np.intp), dists

    def _pair_minima(self, batch, q, b):
        """The minimal distance between query bag ``q[i]`` and training bag ``b[i]``, from all their pairs."""
        X, off = self.bags.instances, self.bags.offsets
        out = np.empty(q.shape[0])
        for i, (qq, bb) in enumerate(zip(q.tolist(), b.tolist())):
            qa, qn = batch.offsets[qq], batch.offsets[qq + 1] - batch.offsets[qq]
            ta, tn = off[bb], off[bb + 1] - off[bb]
            ia = np.repeat(np.arange(qa, qa + qn), tn)
            ib = np.tile(np.arange(ta, ta + tn), qn)
            out[i] = pair_distances(batch.X, ia, X, ib).min()
        return out

    @property
    def bag_of(self):
        return self.bags.instance_bag

    def _search(self, batch, rule, exclude_self, n_jobs):
        """Settle `rule` for every query bag, in blocks of nearby bags (threads over blocks)."""
        q_off = batch.offsets
        sizes = np.diff(q_off)
        m = sizes.shape[0]
        kind, count = rule
        out = _answers(kind, m, count)
        if m == 0:
            return out
        k0 = self._first_k(sizes, rule)
        # Bags in the order of their first instance along the query tree, in blocks of
        # about equal first lists (at least BUDGET entries per block when there are many).
        order = np.argsort(np.minimum.reduceat(batch.layout.pos, q_off[:-1]), kind="stable")
        cost = np.cumsum((sizes * k0)[order])
        n_blocks = max(int(np.ceil(cost[-1] / BUDGET)), min(m, 4 * effective_n_jobs(n_jobs)))
        cuts = np.unique(np.r_[0, np.searchsorted(cost, cost[-1] * np.arange(1, n_blocks) / n_blocks), m])
        blocks = [order[a:b] for a, b in zip(cuts[:-1], cuts[1:])]
        for bags, res in zip(blocks, _parallel(lambda bags: self._block(batch, bags, k0, rule, exclude_self),
                                               blocks, n_jobs)):
            if kind == "kth":
                out[bags] = res
            else:
                out[0][bags], out[1][bags] = res
        return out

    def _first_k(self, sizes, rule):
        """First list length per query bag: what is asked plus 2 (k doubles where that is short).

        Small first lists measured fastest even where a bag's own instances
        fill them (16,000 bags of 20 instances: C + 2 took half the time of
        the bag's size + 2C + 2).
        """
        return np.full(sizes.shape[0], min(self.n_instances, rule[1] + 2), dtype=np.intp)

    def _block(self, batch, bags, k0, rule, exclude_self):
        """Settle the query bags `bags` (see the module docstring); their answers in that order."""
        n, N = self.n_bags, self.n_instances
        sizes = np.diff(batch.offsets)[bags]
        nb = bags.shape[0]
        rows = concat_ranges(batch.offsets[bags], sizes)  # the block's instances (batch rows)
        inst_bag = np.repeat(np.arange(nb, dtype=np.intp), sizes)
        first = np.zeros(nb, dtype=np.intp)
        np.cumsum(sizes[:-1], out=first[1:])
        k = np.repeat(k0[bags], sizes)
        lower = np.zeros(rows.shape[0])  # every training instance nearer than this is listed
        own = bags if exclude_self else None
        keys, vals = np.zeros(0, dtype=np.int64), np.zeros(0)
        kind, count = rule
        out = _answers(kind, nb, count)
        settle = _settle_kth if kind == "kth" else _settle_rank
        active = np.ones(nb, dtype=bool)
        todo = np.arange(rows.shape[0], dtype=np.intp)
        while todo.size:
            new_keys, new_vals = self._lists(batch, rows, todo, k[todo], inst_bag, own, lower)
            keys, vals = _min_per_key(np.r_[keys, new_keys], np.r_[vals, new_vals])
            # A graph's lists certify nothing: every bag listed is taken at its listed distance.
            R = np.full(nb, np.inf) if self.approximate else np.minimum.reduceat(lower, first)
            qb, tb = (keys // n).astype(np.intp), (keys % n).astype(np.intp)
            order = np.lexsort((tb, vals, qb))
            qb, tb, v = qb[order], tb[order], vals[order]
            done, target, strict = settle(qb, tb, v, R, nb, count, out)
            done &= active
            active &= ~done
            keep = active[qb]
            keys, vals = qb[keep].astype(np.int64) * n + tb[keep], v[keep]
            grow = active[inst_bag] & (k < N)
            if not self.approximate:
                t = target[inst_bag]
                grow &= (lower < t) if strict else (lower <= t)
            todo = np.flatnonzero(grow)
            k[todo] = np.minimum(N, 2 * k[todo])
        return out

    def _lists(self, batch, rows, todo, ks, inst_bag, own, lower):
        """Query the block's instances `todo` with their k; (local bag, training bag) keys and distances.

        Sets ``lower[todo]``, in original units, the distance below which
        every training instance is in the instance's list. Of the listed
        pairs of one key, only those within the slack of the key's smallest
        tree distance can hold its exact minimum; only those are recomputed.
        """
        n, N, X = self.n_bags, self.n_instances, self.bags.instances
        eps, rel = batch.slack
        T, Q = self._build(), batch.layout
        keys, vals = [], []
        for kk in np.unique(ks).tolist():
            sel = todo[ks == kk]
            sel = sel[np.argsort(Q.pos[rows[sel]], kind="stable")]  # in tree order
            step = max(1, BUDGET // kk)
            for a in range(0, sel.shape[0], step):
                r = sel[a:a + step]
                dist, ind = T.query(Q.Y[Q.pos[rows[r]]], kk)
                if kk >= N:
                    lower[r] = np.inf
                else:
                    lower[r] = np.ldexp(np.maximum(0.0, dist[:, -1] * (1.0 - rel) - eps), self.exponent)
                qb = np.repeat(inst_bag[r], kk)
                qi = np.repeat(rows[r], kk)
                ind, dd = ind.ravel(), dist.ravel()
                if self.approximate:  # a graph search may return fewer than kk (marked -1)
                    found = ind >= 0
                    qb, qi, ind, dd = qb[found], qi[found], ind[found], dd[found]
                ti = T.perm[ind]
                tb = self.bag_of[ti]
                if own is not None:
                    foreign = tb != own[qb]
                    qb, qi, ti, tb, dd = qb[foreign], qi[foreign], ti[foreign], tb[foreign], dd[foreign]
                key = qb.astype(np.int64) * n + tb
                o = np.lexsort((dd, key))
                key, qi, ti, dd = key[o], qi[o], ti[o], dd[o]
                start = np.ones(key.shape[0], dtype=bool)
                start[1:] = key[1:] != key[:-1]
                smallest = dd[start][np.cumsum(start) - 1]
                near = dd <= (smallest + 2.0 * eps) * (1.0 + 2.0 * rel)
                key, qi, ti = key[near], qi[near], ti[near]
                d = pair_distances(batch.X, qi, X, ti)
                if not np.isfinite(d).all():
                    raise ValueError(
                        "some minimal Hausdorff distances exceed the largest float64 "
                        f"({np.finfo(float).max:.3g}): the bags are too far apart to be compared in "
                        "double precision; rescale the features")
                k_, v_ = _min_per_key(key, d)
                keys.append(k_)
                vals.append(v_)
        if not keys:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        return np.concatenate(keys), np.concatenate(vals)


class _Layout:
    """Points in a tree that stores them in its own leaf order.

    scikit-learn's trees keep their points in the given order and visit
    them through a permutation; stored in leaf order, a leaf's points are
    contiguous in memory, which made queries 1.3-1.6 times faster on a
    million instances. ``Y`` holds the points in that order (tree rows),
    ``perm`` maps a tree row to the caller's row and ``pos`` back; ``pos``
    also orders the caller's points along the tree (nearby points, nearby
    positions), the order in which the searches query them.
    """

    __slots__ = ("Y", "tree", "perm", "pos")

    def __init__(self, Y, algorithm):
        perm = np.array(TREES[algorithm](Y, leaf_size=LEAF_SIZE).get_arrays()[1], dtype=np.intp)
        self.Y = np.ascontiguousarray(Y[perm])
        self.tree = TREES[algorithm](self.Y, leaf_size=LEAF_SIZE)
        self.perm = perm
        self.pos = np.empty_like(perm)
        self.pos[perm] = np.arange(perm.shape[0], dtype=np.intp)

    def query(self, Yq, k):
        """Distances and tree rows of the k nearest points of each row of `Yq`, nearest first."""
        return self.tree.query(Yq, k=k)


class _Order:
    """Points stored in a KD-tree's leaf order (as :class:`_Layout`), without keeping the tree.

    Nearby points sit at nearby rows: a graph stored, and queried, in that
    order keeps more of it in cache (at 320,000 instances of 16 normal
    features, a graph inserted and stored in this order was searched in 0.65
    of the time of one in random order; the renumbered graph of
    :class:`_HNSWLayout` was not timed apart).
    """

    __slots__ = ("Y", "perm", "pos")

    def __init__(self, Y):
        perm = np.array(KDTree(Y, leaf_size=LEAF_SIZE).get_arrays()[1], dtype=np.intp)
        self.Y = np.ascontiguousarray(Y[perm])
        self.perm = perm
        self.pos = np.empty_like(perm)
        self.pos[perm] = np.arange(perm.shape[0], dtype=np.intp)


class _HNSWLayout(_Order):
    """Points in a faiss HNSW graph (``IndexHNSWFlat``, float32, M = ``HNSW_M``), stored in leaf order.

    The points are inserted in a fixed pseudo-random order (inserted in
    leaf order they made a worse graph: on 4,000 bags of 16 normal features,
    identical probabilities on 96.25 % of held-out bags instead of 98.0 %;
    a caller's order may be as sorted), then the graph is renumbered to the
    leaf order (``permute_entries``). Built on one OpenMP thread, so the same
    points give the same graph (and the same lists) at every fit; `graph`
    is a serialized index to load instead of building.
    """

    __slots__ = ("index", "ef_search")

    def __init__(self, Y, ef_search, graph=None):
        super().__init__(Y)
        faiss = _faiss()
        self.ef_search = ef_search
        if graph is not None:
            self.index = faiss.deserialize_index(graph)
            return
        n = self.Y.shape[0]
        insert = np.random.default_rng(0).permutation(n)  # leaf rows, in insertion order
        self.index = faiss.IndexHNSWFlat(max(Y.shape[1], 1), HNSW_M)
        self.index.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
        with _OneThread(faiss):
            for a in range(0, n, _ROWS):
                self.index.add(self._f32(self.Y[insert[a:a + _ROWS]]))
        # Renumber the graph to leaf rows: its new row i is the row where leaf row i was inserted.
        where = np.empty(n, dtype=np.int64)
        where[insert] = np.arange(n, dtype=np.int64)
        self.index.permute_entries(where)

    @staticmethod
    def _f32(Y):
        Y = np.ascontiguousarray(Y, dtype=np.float32)
        return Y if Y.shape[1] else np.zeros((Y.shape[0], 1), dtype=np.float32)

    def query(self, Yq, k):
        """Approximate k nearest points of each row of `Yq`: distances (float64) and rows, -1 where none.

        Where k is at least the number of points, every point, exactly
        (from differences of the float64 coordinates).
        """
        N, Q = self.Y.shape[0], Yq.shape[0]
        if k >= N:
            every = np.arange(N, dtype=np.intp)
            dist = pair_distances(Yq, np.repeat(np.arange(Q, dtype=np.intp), N), self.Y,
                                  np.tile(every, Q)).reshape(Q, N)
            ind = np.argsort(dist, axis=1, kind="stable")[:, :k]
            return np.take_along_axis(dist, ind, axis=1), ind
        faiss = _faiss()
        params = faiss.SearchParametersHNSW(efSearch=max(self.ef_search, k))
        with _OneThread(faiss):
            sq, ind = self.index.search(self._f32(Yq), k, params=params)
        dist = np.sqrt(np.maximum(sq.astype(np.float64), 0.0))
        dist[ind < 0] = np.inf
        return dist, ind.astype(np.intp)


class _Batch:
    """Query bags for a search: instances, offsets, their tree layout, the distance slack."""

    __slots__ = ("X", "offsets", "layout", "slack")

    def __init__(self, X, offsets, layout, slack):
        self.X, self.offsets, self.layout, self.slack = X, offsets, layout, slack


def _answers(kind, m, count):
    """Room for `m` bags' answers: C-th distances ("kth"), or the k nearest and their distances ("rank")."""
    if kind == "kth":
        return np.empty(m)
    return np.empty((m, count), dtype=np.intp), np.empty((m, count))


def _row_counts(qb, v, R, nb):
    """Entries per bag, and how many of them lie at or below the bag's bound R (the exact ones)."""
    cnt_all = np.bincount(qb, minlength=nb)
    cnt_pre = np.bincount(qb[v <= R[qb]], minlength=nb)
    ptr = np.zeros(nb + 1, dtype=np.intp)
    np.cumsum(cnt_all, out=ptr[1:])
    return cnt_all, cnt_pre, ptr


def _settle_kth(qb, tb, v, R, nb, C, out):
    """C-th smallest distance per bag, once the C nearest are exact (v_C <= R)."""
    cnt_all, cnt_pre, ptr = _row_counts(qb, v, R, nb)
    done = cnt_pre >= C
    pos = np.minimum(ptr[:-1] + C - 1, max(v.shape[0] - 1, 0))
    out[done] = v[pos[done]]
    target = np.where(cnt_all >= C, v[pos] if v.size else np.inf, np.inf)
    return done, target, True


def _settle_rank(qb, tb, v, R, nb, k, out):
    """The k nearest per bag, once the tie group of the k-th ends below R."""
    cnt_all, cnt_pre, ptr = _row_counts(qb, v, R, nb)
    has = cnt_pre >= k
    target = np.full(nb, np.inf)
    if v.size:
        pos = np.minimum(ptr[:-1] + k - 1, v.shape[0] - 1)
        gid = np.cumsum(group_starts(qb, v))
        last = np.searchsorted(gid, gid[pos], side="right") - 1
        last = np.minimum(last, ptr[:-1] + cnt_pre - 1)
        g_end = v[last] * (1.0 + DISTANCE_RTOL)
        target = np.where(has, g_end, np.where(cnt_all >= k, v[pos] * (1.0 + DISTANCE_RTOL), np.inf))
        done = has & ((g_end < R) | (R == np.inf))
    else:
        done = has
    idx = np.flatnonzero(done)
    if idx.size:
        lengths = last[idx] - ptr[idx] + 1
        sub = concat_ranges(ptr[idx], lengths)
        sub_ptr = np.zeros(idx.shape[0] + 1, dtype=np.intp)
        np.cumsum(lengths, out=sub_ptr[1:])
        out[0][idx], out[1][idx] = rank_rows(sub_ptr, tb[sub], v[sub], k, return_distance=True)
    return done, target, False

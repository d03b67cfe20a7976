"""Loaders of the five classic benchmark sets shipped inside the package."""

from importlib import resources

import numpy as np
from sklearn.utils import Bunch

from mil.bags import Bags

__all__ = ["DATASETS", "load_dataset", "load_musk1", "load_musk2", "load_elephant", "load_fox", "load_tiger"]

#: name -> (title, domain description) of every shipped data set.
DATASETS = {
    "musk1": ("Musk1", "drug activity (UCI Musk v1): molecule = bag, low-energy conformation = instance"),
    "musk2": ("Musk2", "drug activity (UCI Musk v2): molecule = bag, low-energy conformation = instance"),
    "elephant": ("Elephant", "image annotation (Andrews et al. 2003): image = bag, segment = instance"),
    "fox": ("Fox", "image annotation (Andrews et al. 2003): image = bag, segment = instance"),
    "tiger": ("Tiger", "image annotation (Andrews et al. 2003): image = bag, segment = instance"),
}

_DESCR = """{title} multi-instance data set
{underline}

Domain: {domain}.
Bags: {n_bags} ({n_pos} positive, {n_neg} negative); instances: {n_inst}; features: {n_feat}.
Labels: 1 = positive bag, 0 = negative bag.
Folds: ``folds[r, b]`` is the test fold (0-9) of bag b in repetition r of a 10-fold
cross-validation (5 repetitions); use ``folds[0]`` for a single 10-fold CV.
Source: {source}.
"""


def load_dataset(name, *, return_X_y=False, as_bags=False):
    """Load a shipped benchmark data set by name.

    Parameters
    ----------
    name : {"musk1", "musk2", "elephant", "fox", "tiger"}
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.
    as_bags : bool, default=False
        Give ``data`` as a :class:`~mil.Bags` instead of a list of arrays.

    Returns
    -------
    data : Bunch
        ``data`` (list of 2-D float64 arrays, one per bag), ``target``
        (int labels, 1 = positive), ``folds`` (int array (5, n_bags)),
        ``bags`` (the same bags as a :class:`~mil.Bags`), ``feature_names``,
        ``name``, ``DESCR``.
    (data, target) : tuple
        When `return_X_y` is True.

    Examples
    --------
    >>> from mil.datasets import load_dataset
    >>> d = load_dataset("musk1")
    >>> len(d.data), d.data[0].shape[1], d.folds.shape
    (92, 166, (5, 92))
    """
    key = str(name).lower()
    if key not in DATASETS:
        raise ValueError(f"unknown data set {name!r}; shipped: {', '.join(DATASETS)}")
    with resources.files("mil.datasets").joinpath(f"data/{key}.npz").open("rb") as fh:
        with np.load(fh) as npz:
            arrays = {k: npz[k] for k in npz.files}
    bags = Bags.from_instances(arrays["X"], arrays["bag_ids"])
    target = arrays["y"].astype(np.int64)
    data = bags if as_bags else bags.to_list()
    if return_X_y:
        return data, target
    title, domain = DATASETS[key]
    descr = _DESCR.format(
        title=title, underline="=" * (len(title) + 31), domain=domain, n_bags=bags.n_bags,
        n_pos=int(target.sum()), n_neg=int((target == 0).sum()), n_inst=bags.n_instances,
        n_feat=bags.n_features, source=str(arrays["source"]))
    return Bunch(
        data=data,
        target=target,
        folds=arrays["folds"].astype(np.int64),
        bags=bags,
        feature_names=[f"f{i + 1}" for i in range(bags.n_features)],
        target_names=np.array(["negative", "positive"]),
        name=key,
        DESCR=descr,
    )


def _loader(key):
    title = DATASETS[key][0]

    def load(*, return_X_y=False, as_bags=False):
        return load_dataset(key, return_X_y=return_X_y, as_bags=as_bags)

    load.__name__ = f"load_{key}"
    load.__doc__ = f"""Load the {title} data set ({DATASETS[key][1]}).

    See :func:`load_dataset` for the parameters and the returned Bunch.

    Examples
    --------
    >>> from mil.datasets import load_{key}
    >>> X, y = load_{key}(return_X_y=True)
    """
    return load


load_musk1 = _loader("musk1")
load_musk2 = _loader("musk2")
load_elephant = _loader("elephant")
load_fox = _loader("fox")
load_tiger = _loader("tiger")

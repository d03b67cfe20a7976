"""Benchmark data sets shipped with mil, and readers for multi-instance files.

Loaders return a scikit-learn :class:`~sklearn.utils.Bunch` (MILWEB's bags are
sparse, with a predefined train/test split); readers accept
Weka's multi-instance ARFF and long tables (one row per instance);
:func:`make_digit_bags` builds bags of scikit-learn's 8x8 digits labelled by
a multi-instance assumption (presence, several concepts, absence, a count).
"""

from mil.datasets._arff import load_arff
from mil.datasets._digits import make_digit_bags
from mil.datasets._base import (
    DATASETS,
    load_dataset,
    load_elephant,
    load_fox,
    load_musk1,
    load_musk2,
    load_tiger,
)
from mil.datasets._milweb import MILWEB_USERS, load_milweb
from mil.datasets._table import from_frame, load_csv

__all__ = [
    "DATASETS",
    "MILWEB_USERS",
    "from_frame",
    "load_arff",
    "load_csv",
    "load_dataset",
    "load_elephant",
    "load_fox",
    "load_milweb",
    "load_musk1",
    "load_musk2",
    "load_tiger",
    "make_digit_bags",
]

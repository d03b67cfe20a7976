"""Benchmark data sets shipped with mil, generators, and readers for multi-instance files.

Loaders return a scikit-learn :class:`~sklearn.utils.Bunch` (MILWEB's bags are
sparse, with a predefined train/test split); readers accept
Weka's multi-instance ARFF, long tables (one row per instance; CSV and
Parquet) and folders of per-bag feature files (``.npy``, ``.npz``, ``.h5``,
``.parquet``) with a labels table;
:func:`make_digit_bags` builds bags of scikit-learn's 8x8 digits labelled by
a multi-instance assumption (presence, several concepts, absence, a count);
:func:`make_foundation_bags` builds bags shaped like foundation-model patch
embeddings with known witnesses; the regression generators rebuild published
multi-instance regression benchmarks from their papers' recipes.
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
from mil.datasets._files import load_bag_files
from mil.datasets._foundation import make_foundation_bags
from mil.datasets._leak import LeakedLabelWarning
from mil.datasets._milweb import MILWEB_USERS, load_milweb
from mil.datasets._parquet import load_parquet
from mil.datasets._primary import OVERLAP_TEMPERATURES, make_primary_instance_bags, primary_instance_split
from mil.datasets._regression import make_chisq_bags, make_population_stats_bags, make_rotated_gaussian_bags
from mil.datasets._table import from_frame, load_csv

__all__ = [
    "DATASETS",
    "LeakedLabelWarning",
    "MILWEB_USERS",
    "OVERLAP_TEMPERATURES",
    "from_frame",
    "load_arff",
    "load_bag_files",
    "load_csv",
    "load_dataset",
    "load_elephant",
    "load_fox",
    "load_milweb",
    "load_musk1",
    "load_musk2",
    "load_parquet",
    "load_tiger",
    "make_chisq_bags",
    "make_digit_bags",
    "make_foundation_bags",
    "make_population_stats_bags",
    "make_primary_instance_bags",
    "make_rotated_gaussian_bags",
    "primary_instance_split",
]

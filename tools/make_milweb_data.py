"""Build the shipped MILWEB files (src/mil/datasets/data/milweb{1..9}.npz) from the .mat files.

Usage::

    python tools/make_milweb_data.py /path/to/milweb   # the directory holding web1.mat ... web9.mat

Each ``webU.mat`` holds one cell array ``data`` of 113 rows: the bag's
instance matrix (float64, values in [0, 1]) and its label. The LAST column of
every instance matrix is the bag's label copied to each instance: it is
checked to be exactly that and dropped. The other columns are stored as they
are (no rescaling) in CSR form: ``data`` (float64), ``indices`` (uint16: at
most 6,520 columns), ``row_nnz`` (non-zeros per instance, uint16, from which
the loader rebuilds ``indptr``), ``sizes`` (instances per bag), ``y`` (uint8,
1 = positive), ``n_features`` and ``n_train`` (the first 75 bags are the
training pages of the original split, the last 38 the test pages; see
:func:`mil.datasets.load_milweb`). The script prints each file's size and
the SHA-256 of every written file; running it again gives identical files.
"""

import argparse
import hashlib
import io
import os
import sys

import numpy as np
import scipy.io
import scipy.sparse as sp

N_BAGS, N_TRAIN = 113, 75


def convert(mat_path):
    """The arrays of one user's file (see the module docstring)."""
    cells = scipy.io.loadmat(mat_path)["data"]
    if cells.shape != (N_BAGS, 2):
        raise ValueError(f"{mat_path}: expected a (113, 2) cell array 'data', got {cells.shape}")
    bags = [np.asarray(cells[j, 0], dtype=np.float64) for j in range(N_BAGS)]
    y = np.array([int(np.ravel(cells[j, 1])[0]) for j in range(N_BAGS)], dtype=np.uint8)
    for j, bag in enumerate(bags):
        if not np.array_equal(bag[:, -1], np.full(bag.shape[0], float(y[j]))):
            raise ValueError(f"{mat_path}: the last column of bag {j} is not its label; "
                             "the layout differs from the one this script knows")
    X = np.vstack([bag[:, :-1] for bag in bags])
    if X.min() < 0 or X.max() > 1:
        raise ValueError(f"{mat_path}: values outside [0, 1]")
    csr = sp.csr_matrix(X)
    csr.sum_duplicates()
    return {
        "data": csr.data,
        "indices": csr.indices.astype(np.uint16),
        "row_nnz": np.diff(csr.indptr).astype(np.uint16),
        "sizes": np.array([bag.shape[0] for bag in bags], dtype=np.uint16),
        "y": y,
        "n_features": np.int64(X.shape[1]),
        "n_train": np.int64(N_TRAIN),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", help="directory holding web1.mat ... web9.mat")
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), os.pardir,
                                                      "src", "mil", "datasets", "data"),
                        help="output directory (default: the package's data directory)")
    args = parser.parse_args(argv)
    total = 0
    for user in range(1, 10):
        arrays = convert(os.path.join(args.source, f"web{user}.mat"))
        buf = io.BytesIO()
        np.savez_compressed(buf, **arrays)
        path = os.path.join(args.out, f"milweb{user}.npz")
        with open(path, "wb") as fh:
            fh.write(buf.getvalue())
        total += buf.tell()
        print(f"{os.path.normpath(path)}: {buf.tell()} bytes, sha256 "
              f"{hashlib.sha256(buf.getvalue()).hexdigest()}")
    print(f"total: {total} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()

"""Small helpers on embedding vectors shared by the embedding and encoder classifiers."""

import numpy as np

__all__ = ["sq_dists", "column_scaling"]


def sq_dists(A, B):
    """Squared Euclidean distances between the rows of A and B (small matrices)."""
    d = np.add.outer(np.einsum("ij,ij->i", A, A), np.einsum("ij,ij->i", B, B)) - 2.0 * (A @ B.T)
    return np.maximum(d, 0.0)


def column_scaling(F):
    """Column means and standard deviations of `F` (1 where a column is constant)."""
    mean, scale = F.mean(axis=0), F.std(axis=0)
    scale[scale == 0] = 1.0
    return mean, scale

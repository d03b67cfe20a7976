"""Hausdorff kernel: brute force on tiny bags, symmetric vs rectangular, twin agreement."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist

from mil._core import kernel, twins


def brute(A, B):
    """Minimal, maximal, average Hausdorff matrices by scipy cdist per pair."""
    out = np.zeros((3, len(A), len(B)))
    for i, a in enumerate(A):
        for j, b in enumerate(B):
            D = cdist(a, b)
            r, c = D.min(axis=1), D.min(axis=0)
            out[:, i, j] = D.min(), max(r.max(), c.max()), (r.sum() + c.sum()) / (len(a) + len(b))
    return out


def run(bags, others=None, block_size=1024, rows=None):
    X = np.vstack(bags)
    off = np.r_[0, np.cumsum([len(b) for b in bags])].astype(np.intp)
    if others is None:
        Y, yoff, n_cols, sym = X, off, len(bags), True
    else:
        Y = np.vstack(others)
        yoff = np.r_[0, np.cumsum([len(b) for b in others])].astype(np.intp)
        n_cols, sym = len(others), False
    outs = [np.full((len(bags), n_cols), -1.0) for _ in range(3)]
    r0, r1 = (0, len(bags)) if rows is None else rows
    kernel("_hausdorff").hausdorff_matrices(X, off, Y, yoff, sym, *outs, r0, r1, block_size)
    return np.array(outs)


def tricky_bags(rng):
    """1-instance bags, duplicated instances, two identical bags."""
    bags = [rng.normal(size=(rng.integers(1, 5), 3)) for _ in range(6)]
    bags.append(rng.normal(size=(1, 3)))
    dup = rng.normal(size=(1, 3))
    bags.append(np.vstack([dup, dup, dup + 1.0]))
    bags.append(bags[2].copy())
    return bags


@pytest.mark.parametrize("block_size", [1, 3, 1024])
def test_symmetric_matches_brute_force(backend, block_size):
    bags = tricky_bags(np.random.default_rng(0))
    got = run(bags, block_size=block_size)
    ref = brute(bags, bags)
    # Exact zeros on the diagonal, everything else to rounding.
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12)
    for m in got:
        np.testing.assert_array_equal(np.diag(m), 0.0)
        np.testing.assert_array_equal(m, m.T)
    # Identical bags (2 and the last one) are at distance exactly 0.
    np.testing.assert_array_equal(got[:, 2, -1], 0.0)


@pytest.mark.parametrize("block_size", [1, 4, 1024])
def test_rectangular_matches_brute_force(backend, block_size):
    rng = np.random.default_rng(1)
    A, B = tricky_bags(rng), tricky_bags(rng)[:5]
    np.testing.assert_allclose(run(A, B, block_size), brute(A, B), rtol=1e-9, atol=1e-12)
    # A bag against an identical copy: exactly 0, also in the rectangular path.
    np.testing.assert_array_equal(run(A, A, block_size)[:, np.arange(len(A)), np.arange(len(A))], 0.0)


def test_seed_example(backend):
    A = np.array([[-1.0], [-2.0], [-3.0]])
    B = np.array([[1.0], [2.0], [50.0]])
    dmin, dmax, dave = run([A, B])
    assert dmin[0, 1] == 2.0 and dmax[0, 1] == 51.0
    # Row minima of A: 2, 3, 4; column minima of B: 2, 3, 51.
    assert dave[0, 1] == pytest.approx((2 + 3 + 4 + 2 + 3 + 51) / 6)


def test_row_ranges_compose(backend):
    # Threads fill row ranges; the union must equal the one-call result.
    bags = tricky_bags(np.random.default_rng(2))
    n = len(bags)
    X = np.vstack(bags)
    off = np.r_[0, np.cumsum([len(b) for b in bags])].astype(np.intp)
    outs = [np.zeros((n, n)) for _ in range(3)]
    for r0, r1 in [(0, 2), (2, 3), (3, n)]:
        kernel("_hausdorff").hausdorff_matrices(X, off, X, off, True, *outs, r0, r1, 2)
    np.testing.assert_allclose(np.array(outs), run(bags), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("sizes, ranges, block", [
    # One-instance bags, chunks of four: a slice of rows stops inside its diagonal chunk.
    ([1] * 9, [(0, 1), (1, 3), (3, 4), (4, 9)], 4),
    # A bag larger than the block sits alone in its diagonal block (no pair to compute).
    ([2, 7, 1, 1, 3], [(0, 5)], 4),
    ([2, 7, 1, 1, 3], [(0, 1), (1, 2), (2, 5)], 4),
    # Diagonal blocks of several hundred instances: the products between bags are
    # split recursively (uneven bags, one of them larger than half the block).
    ([3, 1, 40, 7, 2, 90, 5, 5, 1, 60, 8, 30, 4, 2, 9, 50, 6], [(0, 17)], 1024),
    ([3, 1, 40, 7, 2, 90, 5, 5, 1, 60, 8, 30, 4, 2, 9, 50, 6], [(0, 5), (5, 17)], 200),
    ([9] * 40, [(0, 40)], 1024),
])
def test_diagonal_blocks_and_row_slices(backend, sizes, ranges, block):
    rng = np.random.default_rng(7)
    bags = [rng.normal(size=(k, 3)) for k in sizes]
    n = len(bags)
    X = np.vstack(bags)
    off = np.r_[0, np.cumsum(sizes)].astype(np.intp)
    outs = [np.zeros((n, n)) for _ in range(3)]
    for r0, r1 in ranges:
        kernel("_hausdorff").hausdorff_matrices(X, off, X, off, True, *outs, r0, r1, block)
    np.testing.assert_allclose(np.array(outs), brute(bags, bags), rtol=1e-12, atol=1e-12)


bag_lists = st.integers(0, 2**31 - 1).flatmap(lambda seed: st.tuples(
    st.just(seed), st.integers(1, 7), st.integers(1, 6), st.integers(1, 5), st.integers(1, 40)))


@settings(deadline=None, max_examples=40)
@given(bag_lists)
def test_twins_agree(params):
    compiled, python = twins("_hausdorff")
    if compiled is None:
        pytest.skip("compiled kernels are not built")
    seed, n_bags, n_features, max_size, block = params
    rng = np.random.default_rng(seed)
    bags = [rng.normal(scale=rng.uniform(0.1, 100), size=(rng.integers(1, max_size + 1), n_features))
            for _ in range(n_bags)]
    X = np.vstack(bags)
    off = np.r_[0, np.cumsum([len(b) for b in bags])].astype(np.intp)
    res = []
    for mod in (compiled, python):
        for sym in (True, False):
            outs = [np.zeros((n_bags, n_bags)) for _ in range(3)]
            mod.hausdorff_matrices(X, off, X, off, sym, *outs, 0, n_bags, block)
            res.append(np.array(outs))
    # Minima small enough to be rounding noise of the expansion are
    # recomputed exactly, so the twins agree to 1e-10 relative everywhere,
    # zero distances (a bag against itself when rectangular) included.
    tiny = 1e-12 * np.abs(X).max()
    np.testing.assert_allclose(res[0], res[2], rtol=1e-10, atol=tiny)
    np.testing.assert_allclose(res[1], res[3], rtol=1e-10, atol=tiny)
    np.testing.assert_array_equal(np.diagonal(res[1], axis1=1, axis2=2), 0.0)
    # Symmetric and rectangular agree off the diagonal (the diagonal is exact 0 only when symmetric).
    mask = ~np.eye(n_bags, dtype=bool)
    np.testing.assert_allclose(res[0][:, mask], res[1][:, mask], rtol=1e-9, atol=tiny)


def test_bag_blocks_twins_agree():
    compiled, python = twins("_hausdorff")
    if compiled is None:
        pytest.skip("compiled kernels are not built")
    off = np.array([0, 3, 4, 10, 11, 12, 20], dtype=np.intp)
    for size in (1, 2, 5, 8, 100):
        assert compiled.bag_blocks(off, 0, 6, size) == python.bag_blocks(off, 0, 6, size)
    assert python.bag_blocks(off, 0, 6, 5) == [0, 2, 3, 5, 6]


def test_near_duplicates_are_exact(backend):
    # Instances far from the origin and 1e-6 apart: the expansion alone loses
    # every digit (|a|^2 ~ 1e12); the exact recomputation keeps them.
    rng = np.random.default_rng(5)
    base = rng.normal(size=(3, 4)) + 1e6
    A, B = [base], [base + 1e-6 * np.eye(3, 4)]
    got = run(A, B)
    np.testing.assert_allclose(got, brute(A, B), rtol=1e-6)

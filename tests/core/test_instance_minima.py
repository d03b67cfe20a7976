"""Instance-to-bag minima: brute force, both directions, row slices, twins, Hausdorff reductions."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist

from mil._core import kernel, twins
from mil.distances import hausdorff_all, instance_bag_minima


def brute(A, B):
    """M[a, j] = min over z in B[j] of ||a - z||^2, by cdist."""
    X = np.vstack(A)
    return np.column_stack([cdist(X, b, "sqeuclidean").min(axis=1) for b in B])


def offsets(bags):
    return np.r_[0, np.cumsum([len(b) for b in bags])].astype(np.intp)


def run(bags, others=None, block_size=1024, ranges=None, both=True, k=None):
    k = kernel("_hausdorff") if k is None else k
    X, off = np.vstack(bags), offsets(bags)
    if others is None:
        M = np.full((len(X), len(bags)), -1.0)
        for r0, r1 in ranges or [(0, len(bags))]:
            k.instance_bag_minima(X, off, None, None, True, M, None, r0, r1, block_size)
        return M
    Y, yoff = np.vstack(others), offsets(others)
    M = np.full((len(X), len(others)), -1.0)
    N = np.full((len(Y), len(bags)), -1.0) if both else None
    for r0, r1 in ranges or [(0, len(bags))]:
        k.instance_bag_minima(X, off, Y, yoff, False, M, N, r0, r1, block_size)
    return M, N


def tricky_bags(rng, d=3):
    """1-instance bags, duplicated instances (ties), two identical bags."""
    bags = [rng.normal(size=(rng.integers(1, 5), d)) for _ in range(6)]
    bags.append(rng.normal(size=(1, d)))
    dup = rng.normal(size=(1, d))
    bags.append(np.vstack([dup, dup, dup + 1.0]))
    bags.append(bags[2].copy())
    return bags


@pytest.mark.parametrize("block_size", [1, 3, 1024])
def test_symmetric_matches_brute_force(backend, block_size):
    bags = tricky_bags(np.random.default_rng(0))
    M = run(bags, block_size=block_size)
    np.testing.assert_allclose(M, brute(bags, bags), rtol=1e-9, atol=1e-12)
    off = offsets(bags)
    for i in range(len(bags)):  # an instance lies in its own bag
        np.testing.assert_array_equal(M[off[i]:off[i + 1], i], 0.0)
    # Identical bags (2 and the last): exact zeros both ways (recomputed exactly).
    np.testing.assert_array_equal(M[off[2]:off[3], -1], 0.0)
    np.testing.assert_array_equal(M[off[-2]:, 2], 0.0)


@pytest.mark.parametrize("block_size", [1, 4, 1024])
def test_rectangular_both_directions(backend, block_size):
    rng = np.random.default_rng(1)
    bags, others = tricky_bags(rng), tricky_bags(rng)[:5]
    M, N = run(bags, others, block_size=block_size)
    np.testing.assert_allclose(M, brute(bags, others), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(N, brute(others, bags), rtol=1e-9, atol=1e-12)
    M2, none = run(bags, others, block_size=block_size, both=False)
    assert none is None
    np.testing.assert_array_equal(M2, M)


def test_one_instance_bags_are_squared_distances(backend):
    rng = np.random.default_rng(2)
    bags = [rng.normal(size=(1, 4)) for _ in range(7)]
    X = np.vstack(bags)
    np.testing.assert_allclose(run(bags), cdist(X, X, "sqeuclidean"), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("block_size", [1, 5, 1024])
def test_row_slices_compose_bitwise(backend, block_size):
    rng = np.random.default_rng(3)
    bags = [rng.normal(size=(rng.integers(1, 6), 3)) for _ in range(11)]
    full = run(bags, block_size=block_size)
    # Slices cut on the kernel's row blocks give the same products, bit for bit.
    bounds = kernel("_hausdorff").bag_blocks(offsets(bags), 0, len(bags), block_size)
    cut = bounds[len(bounds) // 2]
    np.testing.assert_array_equal(run(bags, block_size=block_size, ranges=[(0, cut), (cut, len(bags))]), full)
    others = bags[:4]
    M, N = run(bags, others, block_size=block_size)
    M2, N2 = run(bags, others, block_size=block_size, ranges=[(0, cut), (cut, len(bags))])
    np.testing.assert_array_equal(M2, M)
    np.testing.assert_array_equal(N2, N)


def test_near_duplicates_are_exact(backend):
    # Far from the origin, near-duplicates lose every digit to the expansion;
    # the exact recomputation gives their true (tiny) squared distance.
    base = np.full((1, 5), 1e4)
    bags = [base, base + 1e-7, base + np.array([[1.0, 0, 0, 0, 0]])]
    M = run(bags)
    np.testing.assert_allclose(M, brute(bags, bags), rtol=1e-6, atol=0)
    assert M[0, 1] > 0


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_twins_agree(data):
    seed = data.draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    d = data.draw(st.integers(1, 6))
    n = data.draw(st.integers(1, 9))
    grid = data.draw(st.booleans())  # integer grid: many exact ties
    def bag():
        size = int(rng.integers(1, 6))
        return rng.integers(-2, 3, size=(size, d)).astype(float) if grid else rng.normal(size=(size, d))
    bags = [bag() for _ in range(n)]
    others = [bag() for _ in range(data.draw(st.integers(1, 5)))]
    block = data.draw(st.sampled_from([1, 2, 7, 1024]))
    compiled, python = twins("_hausdorff")
    if compiled is None:
        pytest.skip("compiled kernels are not built")
    a, b = run(bags, block_size=block, k=compiled), run(bags, block_size=block, k=python)
    np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(a, brute(bags, bags), rtol=1e-9, atol=1e-10)
    (a1, a2), (b1, b2) = run(bags, others, block, k=compiled), run(bags, others, block, k=python)
    np.testing.assert_allclose(a1, b1, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(a2, b2, rtol=1e-10, atol=1e-12)
    if grid:  # integer data: every squared distance is exact on both paths
        np.testing.assert_array_equal(a, brute(bags, bags))


def test_hausdorff_family_is_a_reduction_of_M(backend, random_bags):
    bags = random_bags(seed=4, n_bags=8, n_features=3)
    others = random_bags(seed=5, n_bags=5, n_features=3)
    off, yoff = offsets(bags), offsets(others)
    M, N = instance_bag_minima(bags, others, both=True)
    R, C = np.sqrt(M), np.sqrt(N)
    ref = hausdorff_all(bags, others)
    np.testing.assert_allclose(np.minimum.reduceat(R, off[:-1]), ref["minimal"], rtol=1e-9, atol=1e-12)
    h_xy = np.maximum.reduceat(R, off[:-1])
    h_yx = np.maximum.reduceat(C, yoff[:-1]).T
    np.testing.assert_allclose(np.maximum(h_xy, h_yx), ref["maximal"], rtol=1e-9, atol=1e-12)
    total = np.add.reduceat(R, off[:-1]) + np.add.reduceat(C, yoff[:-1]).T
    sizes = np.add.outer(np.diff(off), np.diff(yoff))
    np.testing.assert_allclose(total / sizes, ref["average"], rtol=1e-9, atol=1e-12)


def test_public_function_threads_and_scaling(backend, random_bags):
    bags = random_bags(seed=6, n_bags=12, n_features=4)
    M = instance_bag_minima(bags)
    np.testing.assert_array_equal(instance_bag_minima(bags, n_jobs=3), M)
    np.testing.assert_allclose(M, brute(bags, bags), rtol=1e-9, atol=1e-12)
    # Huge magnitudes: scaled by a power of two inside, squared distances come back exact.
    big = [b * 2.0**300 for b in bags]
    np.testing.assert_allclose(instance_bag_minima(big), M * 2.0**600, rtol=1e-9, atol=0)
    with pytest.raises(ValueError, match="exceed the largest float64"):
        instance_bag_minima([b * 1e200 for b in bags])


def test_bad_arguments():
    k = kernel("_hausdorff")
    X, off = np.zeros((3, 2)), np.array([0, 1, 3])
    with pytest.raises(ValueError, match="out_xy has shape"):
        k.instance_bag_minima(X, off, None, None, True, np.zeros((2, 2)), None, 0, 2, 8)
    with pytest.raises(ValueError, match="out_yx must be None"):
        k.instance_bag_minima(X, off, None, None, True, np.zeros((3, 2)), np.zeros((3, 2)), 0, 2, 8)
    with pytest.raises(ValueError, match="out_yx has shape"):
        k.instance_bag_minima(X, off, X, off, False, np.zeros((3, 2)), np.zeros((2, 2)), 0, 2, 8)
    with pytest.raises(TypeError, match="writable C-contiguous"):
        k.instance_bag_minima(X, off, None, None, True, np.zeros((3, 2), dtype=np.float32), None, 0, 2, 8)
    with pytest.raises(ValueError, match="features"):
        instance_bag_minima([np.zeros((2, 3))], [np.zeros((2, 2))])
    with pytest.raises(ValueError):
        instance_bag_minima([np.zeros((0, 3))])
    with pytest.raises(ValueError):
        instance_bag_minima([np.array([[np.nan, 1.0]])])

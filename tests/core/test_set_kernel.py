"""Set-kernel pass: brute force on tiny bags (ties, one-instance bags, several gammas), symmetric
vs rectangular, row slices and block sizes, compiled and twin agreement."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist

from mil._core import kernel, twins

GAMMAS = np.array([0.01, 0.3, 1.0, 7.0, 1e4])


def brute(A, B, wA, wB, gammas):
    out = np.zeros((len(gammas), len(A), len(B)))
    for i, (a, wa) in enumerate(zip(A, wA)):
        for j, (b, wb) in enumerate(zip(B, wB)):
            d2 = cdist(a, b, "sqeuclidean")
            for k, g in enumerate(gammas):
                out[k, i, j] = wa @ np.exp(-g * d2) @ wb
    return out


def stack(bags, weights):
    X = np.vstack(bags)
    off = np.r_[0, np.cumsum([len(b) for b in bags])].astype(np.intp)
    return X, off, np.concatenate(weights)


def run(bags, weights, others=None, oweights=None, gammas=GAMMAS, block_size=1024, rows=None):
    X, off, w = stack(bags, weights)
    if others is None:
        Y, yoff, yw, n_cols, sym = X, off, w, len(bags), True
    else:
        Y, yoff, yw = stack(others, oweights)
        n_cols, sym = len(others), False
    out = np.full((len(gammas), len(bags), n_cols), -1.0)
    r0, r1 = (0, len(bags)) if rows is None else rows
    kernel("_set_kernel").set_kernel_matrices(X, off, w, Y, yoff, yw, sym, np.asarray(gammas), out,
                                              r0, r1, block_size)
    return out


def tricky_bags(rng):
    """One-instance bags, duplicated instances (ties), two identical bags."""
    bags = [rng.normal(size=(rng.integers(1, 5), 3)) for _ in range(6)]
    bags.append(rng.normal(size=(1, 3)))
    dup = rng.normal(size=(1, 3))
    bags.append(np.vstack([dup, dup, dup + 1.0]))
    bags.append(bags[2].copy())
    return bags


def weights_of(bags, rng, ones=False):
    return [np.ones(len(b)) if ones else rng.uniform(0.1, 2.0, size=len(b)) for b in bags]


@pytest.mark.parametrize("block_size", [1, 3, 1024])
@pytest.mark.parametrize("ones", [True, False])
def test_symmetric_matches_brute_force(backend, block_size, ones):
    rng = np.random.default_rng(0)
    bags = tricky_bags(rng)
    w = weights_of(bags, rng, ones)
    got = run(bags, w, block_size=block_size)
    np.testing.assert_allclose(got, brute(bags, bags, w, w, GAMMAS), rtol=1e-10, atol=1e-300)
    for m in got:
        np.testing.assert_array_equal(m, m.T)
    if ones:
        # Identical bags: the same kernel row.
        np.testing.assert_allclose(got[:, 2], got[:, -1], rtol=1e-10)
        # With weights 1 and a huge gamma, K(A, A) counts the (duplicated) instances.
        np.testing.assert_allclose(got[-1, 7, 7], 2 * 2 + 1)
        np.testing.assert_allclose(got[-1, 6, 6], 1.0)


@pytest.mark.parametrize("block_size", [1, 4, 1024])
def test_rectangular_matches_brute_force_and_symmetric(backend, block_size):
    rng = np.random.default_rng(1)
    bags, others = tricky_bags(rng), tricky_bags(rng)[:5]
    w, ow = weights_of(bags, rng), weights_of(others, rng)
    got = run(bags, w, others, ow, block_size=block_size)
    np.testing.assert_allclose(got, brute(bags, others, w, ow, GAMMAS), rtol=1e-10, atol=1e-300)
    sym = run(bags, w, block_size=block_size)
    np.testing.assert_allclose(run(bags, w, bags, w, block_size=block_size), sym, rtol=1e-10)


def test_row_slices_fill_their_rows_and_mirrors(backend):
    rng = np.random.default_rng(2)
    bags = tricky_bags(rng)
    w = weights_of(bags, rng)
    full = run(bags, w, block_size=4)
    X, off, ww = stack(bags, w)
    out = np.zeros_like(full)
    k = kernel("_set_kernel")
    for r0, r1 in [(0, 3), (3, 4), (4, len(bags))]:
        k.set_kernel_matrices(X, off, ww, X, off, ww, True, GAMMAS, out, r0, r1, 4)
    np.testing.assert_allclose(out, full, rtol=1e-10)


def test_diagonal_matches_symmetric(backend):
    rng = np.random.default_rng(3)
    bags = tricky_bags(rng)
    w = weights_of(bags, rng)
    X, off, ww = stack(bags, w)
    diag = np.zeros((len(GAMMAS), len(bags)))
    kernel("_set_kernel").set_kernel_diagonal(X, off, ww, GAMMAS, diag)
    full = run(bags, w)
    np.testing.assert_allclose(diag, np.diagonal(full, axis1=1, axis2=2), rtol=1e-10)


def test_far_apart_instances_underflow_to_zero(backend):
    # gamma * d2 beyond the float64 range of exp: exactly 0, never NaN.
    bags = [np.zeros((2, 2)), np.full((1, 2), 100.0)]
    got = run(bags, [np.ones(2), np.ones(1)], gammas=[1.0, 1e-6])
    assert got[0, 0, 1] == 0.0 and got[0, 1, 0] == 0.0
    np.testing.assert_allclose(got[1, 0, 1], 2 * np.exp(-1e-6 * 20000.0))


def test_twins_identical_to_rounding():
    compiled, python = twins("_set_kernel")
    if compiled is None:
        pytest.skip("compiled kernels are not built")
    rng = np.random.default_rng(4)
    bags = [rng.normal(size=(rng.integers(1, 40), 7)) for _ in range(30)]
    X, off, w = stack(bags, weights_of(bags, rng))
    for sym in (True, False):
        outs = []
        for mod in (compiled, python):
            out = np.zeros((len(GAMMAS), 30, 30))
            mod.set_kernel_matrices(X, off, w, X, off, w, sym, GAMMAS, out, 0, 30, 64)
            outs.append(out)
        np.testing.assert_allclose(outs[0], outs[1], rtol=1e-11, atol=1e-300)
    assert set(compiled.__all__) == set(python.__all__)


@pytest.mark.parametrize("block_size", [2, 1024])
def test_small_distances_beside_large_norms_are_recomputed(backend, block_size):
    # Instances near 1e8 (uncentred, as the kernel trusts its input) a few tenths apart:
    # |a|^2 + |b|^2 - 2 a.b loses every digit of 0.01 to cancellation (the terms were 1.0 or
    # garbage); the kernel recomputes the squared distances from differences where its error
    # bound could change a term by more than TERM_RTOL. Far-apart pairs (terms 0) stay as they are.
    rng = np.random.default_rng(5)
    bags = [1e8 + rng.uniform(0, 0.5, size=(int(rng.integers(1, 4)), 2)) for _ in range(5)]
    bags.append(np.array([[-1e8, 3.0]]))
    w = weights_of(bags, rng)
    mod = kernel("_set_kernel")
    assert mod.TERM_RTOL == 2.0 ** -33
    ref = brute(bags, bags, w, w, GAMMAS)
    np.testing.assert_allclose(run(bags, w, block_size=block_size), ref, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(run(bags[:2], w[:2], bags, w, block_size=block_size), ref[:, :2],
                               rtol=1e-12, atol=1e-300)
    X, off, ww = stack(bags, w)
    diag = np.zeros((len(GAMMAS), len(bags)))
    mod.set_kernel_diagonal(X, off, ww, GAMMAS, diag)
    np.testing.assert_allclose(diag, np.diagonal(ref, axis1=1, axis2=2), rtol=1e-12)


bag_lists = st.lists(
    st.lists(st.lists(st.sampled_from([-1.0, 0.0, 0.5, 2.0]), min_size=2, max_size=2),
             min_size=1, max_size=4),
    min_size=1, max_size=5)


@settings(max_examples=40, deadline=None)
@given(bags=bag_lists, block_size=st.integers(1, 6))
def test_hypothesis_brute_force(bags, block_size):
    """Random small bags with many ties, both backends, any block size."""
    bags = [np.array(b, dtype=float) for b in bags]
    w = [np.linspace(0.5, 1.5, len(b)) for b in bags]
    ref = brute(bags, bags, w, w, GAMMAS)
    from mil._core import use_backend, compiled_available
    for kind in (("compiled", "python") if compiled_available("_set_kernel") else ("python",)):
        with use_backend(kind):
            np.testing.assert_allclose(run(bags, w, block_size=block_size), ref, rtol=1e-10, atol=1e-300)


@pytest.mark.parametrize("bad, match", [
    (dict(gammas=np.array([1.0, -1.0])), "gammas"),
    (dict(gammas=np.array([np.nan])), "gammas"),
    (dict(w=np.ones(3)), "x_weights"),
    (dict(out=np.zeros((1, 2, 3))), "out has shape"),
])
def test_bad_arguments_raise_the_same_on_both(backend, bad, match):
    X = np.arange(8.0).reshape(4, 2)
    off = np.array([0, 1, 4], dtype=np.intp)
    gammas = bad.get("gammas", np.array([1.0]))
    w = bad.get("w", np.ones(4))
    out = bad.get("out", np.zeros((len(gammas), 2, 2)))
    with pytest.raises(ValueError, match=match):
        kernel("_set_kernel").set_kernel_matrices(X, off, w, X, off, w, True, gammas, out, 0, 2, 8)


# The compiled pass takes its exponentials from a vectorised polynomial (below an
# argument of 700) and the C library (700 to 746), in builds for the baseline
# instruction set, AVX2 with FMA and AVX-512 (x86-64 Linux): within 2 ulp of exp, the builds
# agreeing to a few ulp (the fused Horner steps round once where the baseline rounds twice).

def _compiled_set_kernel():
    mod = kernel("_set_kernel")
    if not hasattr(mod, "_exp_neg_array"):
        pytest.skip("the compiled kernel is not in use")
    return mod


def test_vectorised_exp_within_two_ulp(backend):
    mod = _compiled_set_kernel()
    import math
    rng = np.random.default_rng(0)
    t = np.concatenate([[0.0, 1e-300, 5e-324, 1e-17, 0.5, math.log(2) / 2, math.log(2), 699.999, 700.0],
                        np.linspace(0.0, 700.0, 20001), rng.uniform(0, 5, 5000),
                        np.arange(1, 1010) * math.log(2)])
    ref = np.array([math.exp(-x) for x in t])
    try:
        for level in range(mod.EXP_SIMD + 1):
            assert mod._use_exp_simd(level) == level
            out = np.empty_like(t)
            mod._exp_neg_array(t, out)
            assert out[0] == 1.0 and out[1] == 1.0
            assert np.max(np.abs(out - ref) / np.spacing(ref)) <= 2.0
    finally:
        mod._use_exp_simd(mod.EXP_SIMD)


def test_exp_tail_and_underflow_exact(backend):
    # One-dimensional bags whose squared distances put gamma * d2 on both sides
    # of 700 (the C library's range) and of 746 (exactly 0).
    bags = [np.array([[0.0]]), np.sqrt(np.array([[650.0], [699.0], [700.0], [720.0], [745.0], [746.0],
                                                  [800.0]]))]
    w = [np.ones(1), np.arange(1.0, 8.0)]
    got = run(bags, w, gammas=[1.0])
    ref = brute(bags, bags, w, w, [1.0])
    # |a|^2 + |b|^2 - 2ab is off by a few ulp of 700 (4e-13 absolute): so is
    # the exponential relatively.
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=0)
    assert got[0, 0, 1] > 0.0


def test_simd_builds_agree(backend):
    mod = _compiled_set_kernel()
    rng = np.random.default_rng(3)
    bags = [rng.normal(size=(rng.integers(1, 40), 7)) for _ in range(15)]
    w = weights_of(bags, rng)
    gammas = [0.001, 0.05, 0.4, 3.0, 40.0]
    outs = []
    try:
        for level in range(mod.EXP_SIMD + 1):
            assert mod._use_exp_simd(level) == level
            outs.append(run(bags, w, gammas=gammas, block_size=50))
    finally:
        mod._use_exp_simd(mod.EXP_SIMD)
    for o in outs[1:]:
        np.testing.assert_allclose(o, outs[0], rtol=1e-14, atol=0)
    np.testing.assert_allclose(outs[0], brute(bags, bags, w, w, gammas), rtol=1e-12)

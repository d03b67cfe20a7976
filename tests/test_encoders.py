"""Bag encoders (VLAD, Fisher vectors, kernel mean and sliced-Wasserstein embeddings).

Hand-computed cases, brute-force references, the NSK and sliced-Wasserstein
approximations, independence of each bag's row from the batch, the chunk
size and the workers, memory-mapped float32 bags with memory bounded by the
chunk, pickling and the errors.
"""

import pickle
import tracemalloc

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC
from sklearn.utils._param_validation import InvalidParameterError

from mil import Bags
from mil.embedding import (FisherVectorEmbedding, KernelMeanEmbedding, SlicedWassersteinEmbedding,
                           VLADEmbedding)
from mil.embedding._encoding import chunk_bounds
from mil.embedding._sliced import quantile_positions
from mil.utils.estimator_checks import make_toy_bags

ENCODERS = [
    VLADEmbedding(n_clusters=3, random_state=0),
    FisherVectorEmbedding(n_components=2, random_state=0),
    KernelMeanEmbedding(n_components=64, method="rff", random_state=0),
    KernelMeanEmbedding(n_components=16, method="nystroem", random_state=0),
    SlicedWassersteinEmbedding(n_directions=5, n_quantiles=4, random_state=0),
    SlicedWassersteinEmbedding(n_directions=5, n_quantiles=4, interpolation="linear", random_state=0),
]


def _id(est):
    return f"{type(est).__name__}-{getattr(est, 'method', getattr(est, 'interpolation', ''))}"


def _bags(seed=0, n_bags=30, n_features=4, max_size=6):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(rng.integers(1, max_size + 1), n_features)) for _ in range(n_bags)]


def _scaled(enc, bag):
    return (bag - enc.offset_) / enc.scale_


# -- hand-computed cases and brute-force references -------------------------------

def test_vlad_hand_computed_case_and_ties():
    train = [np.array([[0.0], [1.0]]), np.array([[9.0], [11.0]])]
    enc = VLADEmbedding(n_clusters=2, power=1.0, normalize=None, scale=None, random_state=0).fit(train)
    unit = enc.scale_[0]
    assert unit == 16.0 and not enc.offset_.any()  # scale=None: the power of two bringing 11 into [0.5, 1)
    c = enc.cluster_centers_.ravel() * unit
    np.testing.assert_allclose(np.sort(c), [0.5, 10.0])
    low = int(np.argmin(c))
    # Residuals: (0 - 0.5) + (2 - 0.5) = 1 at centre 0.5, 12 - 10 = 2 at centre 10.
    expected = np.zeros(2)
    expected[low], expected[1 - low] = 1.0, 2.0
    np.testing.assert_allclose(enc.transform([np.array([[0.0], [2.0], [12.0]])])[0] * unit, expected)
    # 5.25 is 4.75 from both centres: it goes to centre 0.
    tie = enc.transform([np.array([[5.25]])])[0] * unit
    assert tie[0] == 5.25 - c[0] and tie[1] == 0.0
    # Power 0.5 then L2: sqrt(1), sqrt(2) over their norm sqrt(3).
    enc.set_params(power=0.5, normalize="l2")
    np.testing.assert_allclose(enc.transform([np.array([[0.0], [2.0], [12.0]])])[0],
                               np.sqrt(expected) / np.sqrt(3.0))
    # Intra-normalisation: each centre's block to unit norm (1 and 1), then the whole code.
    enc.set_params(power=1.0, normalize="intra")
    np.testing.assert_allclose(enc.transform([np.array([[0.0], [2.0], [12.0]])])[0],
                               [np.sqrt(0.5), np.sqrt(0.5)])
    np.testing.assert_allclose(enc.transform([np.array([[0.0], [2.0]])])[0], np.eye(2)[low])


def test_intra_normalisation_of_the_fisher_vector_blocks():
    X = _bags(13)
    enc = FisherVectorEmbedding(n_components=2, power=1.0, normalize=None, random_state=0).fit(X)
    raw = enc.transform(X).reshape(len(X), 4, -1)  # u_1, u_2, v_1, v_2
    blocks = raw / np.linalg.norm(raw, axis=2, keepdims=True)
    expected = blocks.reshape(len(X), -1) / np.sqrt(4.0)
    np.testing.assert_allclose(enc.set_params(normalize="intra").transform(X), expected, rtol=1e-12)


def test_residuals_that_cancel_give_a_zero_code_in_any_instance_order():
    # Centre 0 is (0, -0.2): the residuals of the first bag, 4 x (0, 0.2) and (0, -0.8), cancel,
    # and their rounded sum (about 1e-17, its sign set by the order) must not be normalised to 1.
    bags = [np.array([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, -1.0]]), np.array([[0.0, 1.0]])]
    enc = VLADEmbedding(n_clusters=2, scale=None, random_state=0).fit(bags)
    np.testing.assert_allclose(np.sort(enc.cluster_centers_[:, 1] * enc.scale_[1]), [-0.2, 1.0])
    for order in ([0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [0, 4, 1, 2, 3]):
        np.testing.assert_array_equal(enc.transform([bags[0][order]]), 0.0)


def _vlad_reference(enc, bag):
    Z = _scaled(enc, bag)
    C = enc.cluster_centers_
    v = np.zeros_like(C)
    for z in Z:
        k = np.argmin(((z - C) ** 2).sum(axis=1))
        v[k] += z - C[k]
    v = np.sign(v) * np.abs(v) ** enc.power
    return v.ravel() / np.linalg.norm(v)


def test_vlad_matches_a_loop_over_instances():
    X = _bags(1)
    enc = VLADEmbedding(n_clusters=4, power=0.3, random_state=0).fit(X)
    np.testing.assert_allclose(enc.transform(X), [_vlad_reference(enc, b) for b in X], rtol=1e-10, atol=1e-12)


def test_fisher_vector_hand_computed_single_component():
    # One component fitted on -0.5 and 0.5 (scale=None leaves them: their largest magnitude is
    # in [0.5, 1)): mean 0, standard deviation 0.5.
    enc = FisherVectorEmbedding(n_components=1, power=1.0, normalize=None, reg_covar=0.0, scale=None,
                                random_state=0).fit([np.array([[-0.5]]), np.array([[0.5]])])
    assert enc.scale_[0] == 1.0
    np.testing.assert_allclose(enc.mixture_.means_, [[0.0]], atol=1e-15)
    np.testing.assert_allclose(enc.mixture_.covariances_, [[0.25]])
    # [[0.5], [0.5]]: w = 1: u = 1, v = mean of (w^2 - 1) / sqrt(2) = 0.
    # [[1]]: w = 2: u = 2, v = (4 - 1) / sqrt(2).
    E = enc.transform([np.array([[0.5], [0.5]]), np.array([[1.0]])])
    np.testing.assert_allclose(E, [[1.0, 0.0], [2.0, 3.0 / np.sqrt(2.0)]], atol=1e-12)


def _fisher_reference(enc, bag):
    gmm = enc.mixture_
    Z = _scaled(enc, bag)
    q = gmm.predict_proba(Z)
    sd = np.sqrt(gmm.covariances_)
    u = np.zeros_like(gmm.means_)
    v = np.zeros_like(gmm.means_)
    for t, z in enumerate(Z):
        for k in range(gmm.n_components):
            w = (z - gmm.means_[k]) / sd[k]
            u[k] += q[t, k] * w / (len(Z) * np.sqrt(gmm.weights_[k]))
            v[k] += q[t, k] * (w * w - 1) / (len(Z) * np.sqrt(2 * gmm.weights_[k]))
    f = np.concatenate([u.ravel(), v.ravel()])
    f = np.sign(f) * np.abs(f) ** enc.power
    return f / np.linalg.norm(f)


def test_fisher_vector_matches_a_loop_over_instances():
    X = _bags(2)
    enc = FisherVectorEmbedding(n_components=3, random_state=0).fit(X)
    np.testing.assert_allclose(enc.transform(X), [_fisher_reference(enc, b) for b in X], rtol=1e-10,
                               atol=1e-12)


@pytest.mark.parametrize("normalize", ["cosine", "weights", None])
@pytest.mark.parametrize("method", ["rff", "nystroem"])
def test_kernel_mean_is_the_normalised_sum_of_the_instance_map(method, normalize):
    X = _bags(3)
    enc = KernelMeanEmbedding(n_components=40, method=method, normalize=normalize, random_state=0).fit(X)
    S = np.array([enc.feature_map_.transform(_scaled(enc, b)).sum(axis=0) for b in X])
    if normalize == "cosine":
        S /= np.linalg.norm(S, axis=1, keepdims=True)
    elif normalize == "weights":
        S /= np.array([len(b) for b in X])[:, None]
    # The random features' cosine is taken in float32.
    np.testing.assert_allclose(enc.transform(X), S, rtol=1e-5 if method == "rff" else 1e-10, atol=1e-6)


def test_kernel_mean_approximates_the_nsk_of_mil_svm():
    from mil.svm import BagKernelSVC, set_kernel

    X, y = make_toy_bags(n_bags=16, n_features=3, max_size=6, random_state=7)
    svc = BagKernelSVC(kernel="nsk", gamma=2.0, C=1.0, cv=None).fit(X, y)
    errors = []
    for n in (100, 1000, 20000):
        enc = KernelMeanEmbedding(n_components=n, method="rff", gamma=2.0, random_state=0).fit(X)
        assert enc.gamma_ == pytest.approx(svc.gamma_, rel=1e-12)  # the same median heuristic
        Z = [_scaled(enc, b) for b in X]
        exact = set_kernel(Z, gamma=enc.gamma_)
        E = enc.transform(X)
        errors.append(np.abs(E @ E.T - exact).max())
    assert errors[0] > errors[1] > errors[2] and errors[2] < 0.03, errors
    # Nystroem with every training instance as a landmark reproduces the kernel on them.
    n_inst = sum(len(b) for b in X)
    enc = KernelMeanEmbedding(n_components=n_inst, method="nystroem", gamma=2.0, random_state=0).fit(X)
    E = enc.transform(X)
    np.testing.assert_allclose(E @ E.T, set_kernel([_scaled(enc, b) for b in X], gamma=enc.gamma_),
                               atol=1e-6)


def test_sliced_wasserstein_hand_computed_case():
    A, B = np.array([[0.0], [1.0]]), np.array([[3.0], [5.0]])
    enc = SlicedWassersteinEmbedding(n_directions=1, n_quantiles=2, scale=None, random_state=0).fit([A, B])
    unit = enc.scale_[0]
    assert unit == 8.0  # scale=None: the power of two that brings 5 into [0.5, 1)
    E = enc.transform([A, B]) * unit
    assert np.linalg.norm(E[0] - E[1]) ** 2 == pytest.approx(12.5)
    # The reference: the quantiles of the four training values at 1/4 and 3/4 (1 and 5, signed).
    theta = enc.directions_[0, 0]
    np.testing.assert_allclose(enc.reference_[0] * unit, np.sort(theta * np.array([0.0, 1.0, 3.0, 5.0]))[[1, 3]])


def _w2_squared_1d(a, b):
    """Exact squared 2-Wasserstein distance between two uniform empirical measures on the line."""
    a, b = np.sort(a), np.sort(b)
    cuts = np.union1d(np.arange(len(a) + 1) / len(a), np.arange(len(b) + 1) / len(b))
    mid = (cuts[:-1] + cuts[1:]) / 2
    qa = a[np.minimum((mid * len(a)).astype(int), len(a) - 1)]
    qb = b[np.minimum((mid * len(b)).astype(int), len(b) - 1)]
    return float(np.sum(np.diff(cuts) * (qa - qb) ** 2))


def test_sliced_wasserstein_distance_is_exact_when_the_levels_fit_the_bag_sizes():
    rng = np.random.default_rng(4)
    X = [rng.normal(size=(n, 3)) for n in (2, 3, 4, 6, 1)]
    enc = SlicedWassersteinEmbedding(n_directions=7, n_quantiles=12, scale=None, random_state=0).fit(X)
    E = enc.transform(X) * enc.scale_[0]
    theta = enc.directions_
    for i in range(len(X)):
        for j in range(len(X)):
            brute = np.mean([_w2_squared_1d(X[i] @ theta[:, l], X[j] @ theta[:, l]) for l in range(7)])
            assert np.sum((E[i] - E[j]) ** 2) == pytest.approx(brute, rel=1e-12, abs=1e-12)


def test_sliced_wasserstein_matches_pot_and_converges():
    ot = pytest.importorskip("ot")
    rng = np.random.default_rng(5)
    A, B = rng.normal(size=(5, 3)), rng.normal(loc=0.5, size=(7, 3))
    errors = []
    for M in (3, 12, 35, 350):
        enc = SlicedWassersteinEmbedding(n_directions=20, n_quantiles=M, scale=None, random_state=0).fit([A, B])
        E = enc.transform([A, B]) * enc.scale_[0]
        pot = ot.sliced_wasserstein_distance(A, B, n_projections=20, p=2, projections=enc.directions_)
        errors.append(abs(np.linalg.norm(E[0] - E[1]) - pot))
    # 35 = 5 x 7 and its multiples are exact; other level counts approach it.
    assert errors[2] < 1e-12 and errors[3] < 1e-12
    assert errors[0] > errors[1] > 1e-6


def test_quantile_positions():
    lower, w = quantile_positions(4, 4, "linear")  # M == n: the sorted values themselves
    np.testing.assert_array_equal(lower + w, [0, 1, 2, 3])
    lower, w = quantile_positions(3, 6, "step")  # levels 1/12 .. 11/12
    np.testing.assert_array_equal(lower, [0, 0, 1, 1, 2, 2])
    assert not w.any()
    lower, w = quantile_positions(1, 3, "linear")
    np.testing.assert_array_equal(lower, [0, 0, 0])
    assert not w.any()
    lower, w = quantile_positions(2, 1, "linear")  # the median of two values
    assert lower.tolist() == [0] and w.tolist() == [0.5]


# -- each bag's row is its own ---------------------------------------------------

@pytest.mark.parametrize("encoder", ENCODERS, ids=_id)
def test_rows_do_not_depend_on_the_batch_the_chunks_or_the_workers(encoder):
    X = _bags(6, n_bags=25)
    enc = encoder.fit(X)
    full = enc.transform(X)
    # The Nystroem map: to within its documented rounding, relative to the rows' norms.
    tol = dict(rtol=1e-12, atol=1e-15)
    if getattr(enc, "method", None) == "nystroem":
        tol = dict(rtol=0, atol=enc.nystroem_rounding_ * np.linalg.norm(full, axis=1).max())
    alone = np.vstack([enc.transform([b]) for b in X])
    np.testing.assert_allclose(alone, full, **tol)
    order = np.random.default_rng(0).permutation(len(X))
    np.testing.assert_allclose(enc.transform([X[i] for i in order]), full[order], **tol)
    for chunk in (1, 7, 50):
        np.testing.assert_allclose(enc.set_params(chunk_size=chunk).transform(X), full, **tol)
    np.testing.assert_allclose(enc.set_params(chunk_size=5, n_jobs=2).transform(X), full, **tol)
    enc.set_params(chunk_size=None, n_jobs=None)
    assert full.shape == (len(X), enc.get_feature_names_out().shape[0])


@pytest.mark.parametrize("encoder", ENCODERS, ids=_id)
def test_fit_does_not_depend_on_the_order_of_bags_or_instances(encoder):
    X = _bags(7)
    rng = np.random.default_rng(1)
    shuffled = [X[i][rng.permutation(len(X[i]))] for i in rng.permutation(len(X))]
    a = encoder.fit(X).transform(X)
    b = type(encoder)(**encoder.get_params()).fit(shuffled).transform(X)
    np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("encoder", ENCODERS, ids=_id)
def test_memory_mapped_float32_bags(encoder, tmp_path):
    X = _bags(8, n_bags=40)
    inst = np.concatenate(X).astype(np.float32)
    offsets = np.concatenate([[0], np.cumsum([len(b) for b in X])])
    path = tmp_path / "inst.npy"
    np.save(path, inst)
    bags = Bags(np.load(path, mmap_mode="r"), offsets)
    assert not bags.instances.flags.owndata and bags.instances.dtype == np.float32  # on disk
    as_list = [inst[offsets[b]:offsets[b + 1]].astype(np.float64) for b in range(len(X))]
    ref = type(encoder)(**encoder.get_params()).fit(as_list).transform(as_list)
    enc = type(encoder)(**encoder.get_params(), ).set_params(chunk_size=20).fit(bags)
    out = enc.transform(bags)
    assert out.dtype == np.float32
    # The sample stays float32 in the fit (half the memory): the same model to float32 precision.
    np.testing.assert_allclose(out, ref.astype(np.float32), rtol=1e-5, atol=1e-5)
    # float32 arrays in a list also give float32 rows; float64 gives float64.
    assert enc.transform([b.astype(np.float32) for b in as_list]).dtype == np.float32
    assert enc.transform(as_list).dtype == np.float64


@pytest.mark.parametrize("encoder", [VLADEmbedding(n_clusters=4, random_state=0),
                                     FisherVectorEmbedding(n_components=2, random_state=0),
                                     KernelMeanEmbedding(n_components=32, method="rff", random_state=0),
                                     SlicedWassersteinEmbedding(n_directions=8, n_quantiles=4, random_state=0)],
                         ids=_id)
def test_transform_memory_is_bounded_by_the_chunk(encoder, tmp_path):
    rng = np.random.default_rng(9)
    n_bags, size, d = 4000, 25, 32
    path = tmp_path / "big.npy"
    mm = np.lib.format.open_memmap(path, "w+", np.float32, (n_bags * size, d))
    mm[:] = rng.standard_normal((n_bags * size, d), dtype=np.float32)
    mm.flush()
    del mm
    bags = Bags(np.load(path, mmap_mode="r"), np.arange(0, n_bags * size + 1, size))
    enc = encoder.set_params(max_samples=2000, chunk_size=500).fit(bags)
    peaks = {}
    for chunk in (500, 5000):
        enc.set_params(chunk_size=chunk)
        tracemalloc.start()
        out = enc.transform(bags)
        peaks[chunk] = tracemalloc.get_traced_memory()[1] - out.nbytes
        tracemalloc.stop()
    data = bags.instances.nbytes  # 12.8 MB, on disk
    assert peaks[500] < 0.1 * data, (peaks, data)
    assert peaks[5000] > 3 * peaks[500]  # the working memory follows the chunk


def test_chunk_bounds():
    offsets = np.array([0, 2, 5, 6, 10, 11])
    assert chunk_bounds(offsets, 4) == [(0, 1), (1, 3), (3, 4), (4, 5)]
    assert chunk_bounds(offsets, 1) == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]
    assert chunk_bounds(offsets, 100) == [(0, 5)]


# -- fitting on a sample ---------------------------------------------------------

def test_max_samples_draws_a_seeded_sample():
    X = _bags(10, n_bags=60)
    n = sum(len(b) for b in X)
    a = VLADEmbedding(n_clusters=3, max_samples=50, random_state=0).fit(X)
    b = VLADEmbedding(n_clusters=3, max_samples=50, random_state=0).fit(X)
    c = VLADEmbedding(n_clusters=3, max_samples=50, random_state=1).fit(X)
    assert a.n_samples_fit_ == 50 and VLADEmbedding(n_clusters=3).fit(X).n_samples_fit_ == n
    np.testing.assert_array_equal(a.cluster_centers_, b.cluster_centers_)
    assert not np.array_equal(a.offset_, c.offset_)  # another sample, another scaling
    assert VLADEmbedding(n_clusters=3, max_samples=None).fit(X).n_samples_fit_ == n


# -- scikit-learn integration ----------------------------------------------------

@pytest.mark.parametrize("encoder", ENCODERS, ids=_id)
def test_pickle_and_pipeline(encoder):
    X, y = make_toy_bags(n_bags=40, random_state=2)
    enc = encoder.fit(X)
    again = pickle.loads(pickle.dumps(enc))
    np.testing.assert_array_equal(again.transform(X), enc.transform(X))
    pipe = make_pipeline(type(encoder)(**encoder.get_params()), LinearSVC())
    search = GridSearchCV(pipe, {"linearsvc__C": [0.1, 1.0]}, cv=3).fit(X, y)
    assert search.score(X, y) >= 0.8


# -- errors ----------------------------------------------------------------------

@pytest.mark.parametrize("encoder", ENCODERS, ids=_id)
def test_bad_input_is_named(encoder, tmp_path):
    X = _bags(11)
    bad = [b.copy() for b in X]
    bad[3][0, 1] = np.nan
    with pytest.raises(ValueError, match="bag 3 of X contains NaN"):
        type(encoder)(**encoder.get_params()).fit(bad)
    with pytest.raises(NotFittedError):
        type(encoder)(**encoder.get_params()).transform(X)
    enc = type(encoder)(**encoder.get_params()).fit(X)
    with pytest.raises(ValueError, match="bag 3 of X contains NaN"):
        enc.transform(bad)
    # A Bags is checked chunk by chunk, and named by its ids.
    bags = Bags(np.concatenate(bad), np.concatenate([[0], np.cumsum([len(b) for b in bad])]),
                ids=[f"m{i}" for i in range(len(bad))])
    with pytest.raises(ValueError, match="bag 'm3' of X contains NaN"):
        enc.set_params(chunk_size=2).transform(bags)
    with pytest.raises(ValueError, match="bag 'm3' of X contains NaN"):
        type(encoder)(**encoder.get_params()).fit(bags)
    with pytest.raises(ValueError, match="X has 2 features, but .* is expecting 4"):
        enc.transform([b[:, :2] for b in X])
    with pytest.raises(ValueError, match="bag 1 of X is empty"):
        enc.transform([X[0], X[0][:0]])
    with pytest.raises(TypeError, match="sparse"):
        import scipy.sparse as sp
        enc.transform([sp.csr_matrix(b) for b in X])


def test_parameter_errors():
    X = _bags(12)
    with pytest.raises(ValueError, match="n_samples=5 should be >= n_clusters=8"):
        VLADEmbedding(n_clusters=8, max_samples=5).fit(X)
    with pytest.raises(ValueError, match="n_samples=1 should be >= n_components=2"):
        FisherVectorEmbedding(n_components=2).fit([np.ones((1, 4))])
    for bad in (VLADEmbedding(power=0.0), VLADEmbedding(n_clusters=0), FisherVectorEmbedding(power=1.5),
                VLADEmbedding(normalize=True), FisherVectorEmbedding(normalize="l1"),
                KernelMeanEmbedding(method="exact"), KernelMeanEmbedding(gamma=0.0),
                SlicedWassersteinEmbedding(interpolation="cubic"), SlicedWassersteinEmbedding(n_quantiles=0),
                VLADEmbedding(max_samples=0), VLADEmbedding(chunk_size=0)):
        with pytest.raises(InvalidParameterError):
            bad.fit(X)


# -- property tests: small integer features, so that ties abound ------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@st.composite
def _integer_bags(draw):
    n_bags = draw(st.integers(2, 6))
    d = draw(st.integers(1, 3))
    sizes = draw(st.lists(st.integers(1, 5), min_size=n_bags, max_size=n_bags))
    values = draw(st.lists(st.integers(-2, 2), min_size=sum(sizes) * d, max_size=sum(sizes) * d))
    flat = np.array(values, dtype=np.float64).reshape(-1, d)
    return np.split(flat, np.cumsum(sizes)[:-1])


_FITTED = {}


@settings(max_examples=25, deadline=None)
@given(bags=_integer_bags(), seed=st.integers(0, 3))
def test_rows_are_per_bag_and_ignore_instance_order_with_ties(bags, seed):
    rng = np.random.default_rng(seed)
    for enc in (VLADEmbedding(n_clusters=2, scale=None, random_state=0),
                FisherVectorEmbedding(n_components=1, scale=None, reg_covar=1e-3, random_state=0),
                KernelMeanEmbedding(n_components=16, method="rff", gamma=0.5, gamma_scale="absolute",
                                    scale=None, random_state=0),
                SlicedWassersteinEmbedding(n_directions=3, n_quantiles=4, scale=None, random_state=0)):
        if isinstance(enc, VLADEmbedding) and sum(len(b) for b in bags) < 2:
            continue
        enc.fit(bags)
        full = enc.transform(bags)
        shuffled = [b[rng.permutation(len(b))] for b in bags]
        # Sums that cancel to within rounding are set to 0 (else the L2 normalisation would blow
        # their sign, set by the instance order, up to +-1); sums just above that differ in their
        # last bits with the order, which the signed square root (steep at 0) turns into ~1e-8.
        atol = 1e-6 if getattr(enc, "power", 1.0) < 1.0 else 1e-12
        np.testing.assert_allclose(enc.transform(shuffled), full, rtol=1e-9, atol=atol)
        np.testing.assert_allclose(np.vstack([enc.transform([b]) for b in bags]), full, rtol=1e-12, atol=1e-12)


# -- cancellation, ties, far bags, order, units and seeds --------------------------

def test_vlad_cancelling_bag_encodes_to_zero():
    # The centre of 0.1, 0.2, 0.3 is their mean: the bag [[0.2]] has no residual. Before: the
    # centre was a few ulps off and the leftover was normalised to [[-1, 0]], the code of 0.15.
    enc = VLADEmbedding(2, power=1.0, scale=None, random_state=0).fit([[[0.1]], [[0.2]], [[0.3]], [[10.0]]])
    np.testing.assert_array_equal(enc.transform([[[0.2]]]), [[0.0, 0.0]])
    assert np.abs(enc.transform([[[0.15]]])).max() == 1.0


@pytest.mark.parametrize("scale", [None, "standard"])
@pytest.mark.parametrize("factor", [1.0, 3.0, 0.1, 1e-300, 7e299])
def test_vlad_bags_symmetric_about_their_centre_encode_to_zero_at_every_scale(scale, factor):
    # Two clusters of integers, {0, 1, 3} (mean 4/3) and {100, 104} (mean 102); each test bag's
    # instances are symmetric about one centre, in exact arithmetic, at any scale of the data.
    train = [np.array([[0.0], [1.0]]), np.array([[3.0], [100.0]]), np.array([[104.0]])]
    cancelling = [[[1.0], [1.0], [2.0]], [[0.0], [2.0], [2.0]], [[0.0], [0.0], [4.0]], [[101.0], [103.0]],
                  [[102.0]], [[1.0], [1.0], [2.0], [102.0]]]
    enc = VLADEmbedding(2, scale=scale, random_state=0).fit([b * factor for b in train])
    E = enc.transform([np.array(b) * factor for b in cancelling])
    np.testing.assert_array_equal(E, 0.0)
    # A genuine residual sum, however small against the data, is kept.
    assert np.abs(enc.transform([np.array([[1.0], [1.0], [2.0 + 2.0 ** -30]]) * factor])).max() > 0.5


def test_vlad_integer_data_gives_the_same_codes_at_three_times_the_scale():
    # Before: codes of 32 of 1,845 integer bags moved by more than 0.5 between the data and the
    # data x 3 (a cancelling bag's leftover normalised to a sign set by rounding).
    rng = np.random.default_rng(0)
    compared = 0
    for _ in range(15):
        X = [rng.integers(-3, 4, size=(rng.integers(1, 5), 1)).astype(float) for _ in range(rng.integers(6, 12))]
        for params in ({}, {"n_clusters": 3}, {"n_clusters": 2, "power": 1.0, "scale": None}):
            a = VLADEmbedding(random_state=0, **params)
            b = VLADEmbedding(random_state=0, **params)
            try:
                a.fit(X)
                b.fit([x * 3 for x in X])
            except ValueError:  # fewer instances than centres
                continue
            units_a, units_b = a.cluster_centers_ * a.scale_ + a.offset_, b.cluster_centers_ * b.scale_ + b.offset_
            if not np.allclose(units_a * 3, units_b):
                continue  # k-means found another codebook (a tie broken otherwise)
            np.testing.assert_allclose(a.transform(X), b.transform([x * 3 for x in X]), atol=1e-6)
            compared += len(X)
    assert compared > 100


def _exact_nearest(z, C):
    from fractions import Fraction

    d = [sum((Fraction(float(a)) - Fraction(float(b))) ** 2 for a, b in zip(z, c)) for c in C]
    return d.index(min(d))


def test_vlad_ties_go_to_the_lowest_centre_exactly():
    # Before: an instance exactly midway between two centres went to either, by rounding
    # (centres [-2.694, -4.48]: assign([[-3.587]]) returned [1]).
    enc = VLADEmbedding(2, scale=None, random_state=0).fit([[[-2.694]], [[-4.48]]])
    enc.cluster_centers_ = np.array([[-2.694], [-4.48]])
    assert enc.assign(np.array([[-3.587]])).tolist() == [0]
    enc.cluster_centers_ = np.array([[-4.48], [-2.694]])
    assert enc.assign(np.array([[-3.587]])).tolist() == [0]
    rng = np.random.default_rng(3)
    cases = 0
    for d in (1, 2, 3):
        for _ in range(40):
            # Centres on a grid of 2**-10 (so midpoints are exact), a third centre farther away.
            C = rng.integers(-4000, 4000, size=(3, d)) * 2.0 ** -10 * rng.choice([1.0, 2.0 ** -600, 2.0 ** 500])
            Z = np.vstack([(C[0] + C[1]) / 2, (C[1] + C[2]) / 2, C[0] + rng.normal(size=d) * np.abs(C).max()])
            enc.cluster_centers_ = C
            got = enc.assign(Z)
            assert got.tolist() == [_exact_nearest(z, C) for z in Z]
            cases += 3
    assert cases == 360


def test_far_bags_encode_to_finite_values_or_a_clear_error():
    # Before: NaN beyond about 1e154 standard deviations (Fisher vectors) and 1e38 (random
    # Fourier features, the projection cast to float32 before the cosine).
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(5, 2)) for _ in range(10)]
    far = [np.array([[1e160, 0.0]]), np.array([[-1e300, 1e-300], [0.0, 1.0]]), np.array([[1e40, 0.0]]),
           np.array([[3e307, -3e307]])]
    for enc in (FisherVectorEmbedding(random_state=0), FisherVectorEmbedding(normalize="intra", random_state=0),
                VLADEmbedding(3, random_state=0), KernelMeanEmbedding(50, method="rff", random_state=0),
                KernelMeanEmbedding(20, random_state=0), SlicedWassersteinEmbedding(4, 3, random_state=0)):
        enc.fit(X)
        for bag in far:
            try:
                E = enc.transform([bag])
            except ValueError as exc:  # only beyond the float64 range, naming the bag
                assert "bag 0 of X" in str(exc) and "float64 range" in str(exc)
                assert np.abs(bag).max() > 1e300 or isinstance(enc, SlicedWassersteinEmbedding)
                continue
            assert np.isfinite(E).all(), (enc, bag)
            if getattr(enc, "normalize", None) in ("l2", "intra", "cosine") and np.abs(E).max() > 0:
                assert np.linalg.norm(E) == pytest.approx(1.0)
    # The far instance dominates its bag's Fisher vector: its deviation block, feature 0.
    enc = FisherVectorEmbedding(random_state=0, power=1.0).fit(X)
    E = enc.transform([far[0]]).reshape(2, 2, 2)
    assert np.abs(E[1, :, 0]).sum() == pytest.approx(1.0)
    # Without normalisation a code beyond float64 is an error naming the bag.
    enc = FisherVectorEmbedding(normalize=None, power=1.0, random_state=0).fit(X)
    assert np.isfinite(enc.set_params(power=0.5).transform([far[0]])).all()  # 1e160 after the root
    enc.set_params(power=1.0)
    with pytest.raises(ValueError, match="bag 'far' of X: its encoding exceeds the float64 range.*normalize"):
        enc.transform(Bags(far[0], [0, 1], ids=["far"]))


def test_encoder_classifiers_predict_far_bags():
    from mil.embedding import KernelMeanClassifier, miFVClassifier

    X, y = make_toy_bags(n_bags=20, random_state=0)
    for clf in (miFVClassifier(C=1.0, cv=1, random_state=0),
                KernelMeanClassifier(30, method="rff", C=1.0, cv=1, random_state=0)):
        clf.fit(X, y)
        proba = clf.predict_proba([np.full((1, X[0].shape[1]), 1e200)])
        assert np.isfinite(proba).all()


@pytest.mark.parametrize("n_concepts", [6, 40])
def test_miles_kmeans_concepts_do_not_depend_on_the_order_of_bags_or_instances(n_concepts):
    from mil.embedding import MILESClassifier, MILESEmbedding

    X, y = make_toy_bags(n_bags=24, random_state=4)
    X = [np.round(b, 1) for b in X]  # ties
    rng = np.random.default_rng(0)
    order = rng.permutation(len(X))
    shuffled = [X[i][rng.permutation(len(X[i]))] for i in order]
    a = MILESEmbedding(n_concepts=n_concepts, random_state=0).fit(X)
    b = MILESEmbedding(n_concepts=n_concepts, random_state=0).fit(shuffled)
    # The same centres, to within the rounding of the standard scaling (whose mean and deviation
    # add the instances in the order given).
    np.testing.assert_allclose(a.concepts_, b.concepts_, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(a.transform(X), b.transform(X), rtol=1e-10)
    assert a.n_concepts_ == a.concepts_.shape[0]
    ca = MILESClassifier(C=1.0, sigma=1.0, cv=1, n_concepts=n_concepts, random_state=0).fit(X, y)
    cb = MILESClassifier(C=1.0, sigma=1.0, cv=1, n_concepts=n_concepts, random_state=0).fit(shuffled, y[order])
    np.testing.assert_allclose(ca.decision_function(X), cb.decision_function(X), rtol=1e-7, atol=1e-9)


def test_miles_reports_the_concepts_it_holds():
    from mil.embedding import MILESEmbedding

    X, _ = make_toy_bags(n_bags=12, random_state=0)
    emb = MILESEmbedding(n_concepts=1_000_000, random_state=0).fit(X)
    assert emb.n_concepts_ == emb.concepts_.shape[0] == sum(len(b) for b in X)


def test_nystroem_rows_move_with_the_chunks_only_within_the_documented_rounding():
    # Landmarks of a wide kernel: an ill-conditioned normalisation (condition number ~1e6).
    rng = np.random.default_rng(1)
    X = [np.round(rng.normal(size=(rng.integers(1, 20), 5)), 1) for _ in range(80)]
    enc = KernelMeanEmbedding(200, gamma=0.05, random_state=0).fit(X)
    cond = np.linalg.cond(enc.feature_map_.normalization_)
    assert cond > 1e5 and enc.nystroem_rounding_ == pytest.approx(1e-14 * cond)
    full = enc.transform(X)
    worst = 0.0
    for chunk in (1, 7, 64):
        worst = max(worst, np.abs(enc.set_params(chunk_size=chunk).transform(X) - full).max())
    enc.set_params(chunk_size=None)
    worst = max(worst, np.abs(enc.transform([b[::-1] for b in X]) - full).max())
    assert worst <= enc.nystroem_rounding_  # unit rows (cosine)
    assert KernelMeanEmbedding(20, method="rff").fit(X).nystroem_rounding_ == 0.0


_UNIT_ENCODERS = [
    VLADEmbedding(n_clusters=3, random_state=0),
    VLADEmbedding(n_clusters=3, scale=None, normalize=None, power=1.0, random_state=0),
    FisherVectorEmbedding(n_components=2, random_state=0),
    FisherVectorEmbedding(n_components=2, scale=None, normalize="intra", random_state=0),
    KernelMeanEmbedding(n_components=16, method="rff", scale=None, random_state=0),
    KernelMeanEmbedding(n_components=16, scale="minmax", normalize=None, random_state=0),
    SlicedWassersteinEmbedding(n_directions=4, n_quantiles=3, scale=None, random_state=0),
    SlicedWassersteinEmbedding(n_directions=4, n_quantiles=3, scale="maxabs", interpolation="linear",
                               random_state=0),
]


@pytest.mark.parametrize("encoder", _UNIT_ENCODERS, ids=lambda e: f"{type(e).__name__}-{e.scale}")
def test_a_power_of_two_rescaling_of_the_features_changes_nothing(encoder):
    # Tie-rich integer features: before, a rescaling could move the codebook or the mixture.
    rng = np.random.default_rng(2)
    X = [rng.integers(-2, 3, size=(rng.integers(1, 6), 3)).astype(float) for _ in range(25)]
    ref = type(encoder)(**encoder.get_params()).fit(X).transform(X)
    for k in (-1000, -37, 5, 900):
        Xk = [np.ldexp(b, k) for b in X]
        np.testing.assert_array_equal(type(encoder)(**encoder.get_params()).fit(Xk).transform(Xk), ref)


def test_kernel_mean_absolute_gamma_refers_to_the_features_as_given():
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(4, 2)) * 10 for _ in range(6)]
    enc = KernelMeanEmbedding(50, gamma=0.01, gamma_scale="absolute", scale=None, random_state=0).fit(X)
    from mil.svm import set_kernel

    E = enc.transform(X)
    np.testing.assert_allclose(E @ E.T, set_kernel(X, gamma=0.01), atol=1e-6)


def test_kernel_mean_normalize_none_string_is_deprecated():
    X = _bags(14)
    with pytest.warns(FutureWarning, match="normalize=None"):
        old = KernelMeanEmbedding(16, normalize="none", random_state=0).fit(X).transform(X)
    np.testing.assert_array_equal(old, KernelMeanEmbedding(16, normalize=None, random_state=0).fit(X).transform(X))
    assert KernelMeanEmbedding().method == "nystroem"  # the classifier's default map


def test_encoders_draw_independent_seeds_once(monkeypatch):
    # The sample and the model (k-means, mixture, features, directions) get their own seeds,
    # drawn at once from random_state, and neither is random_state itself.
    import mil.embedding._encoding as encoding

    seen = []
    real = np.random.RandomState

    class Spy(real):
        def __init__(self, seed=None):
            seen.append(seed)
            super().__init__(seed)

    monkeypatch.setattr(encoding.np.random, "RandomState", Spy)
    X = _bags(15, n_bags=40)
    for encoder in ENCODERS:
        seen.clear()
        type(encoder)(**{**encoder.get_params(), "random_state": 7, "max_samples": 50}).fit(X)
        expected = list(real(7).randint(np.iinfo(np.int32).max, size=2))
        # check_random_state(7), then the sample's and the model's generators.
        assert seen[:3] == [7, *expected], (encoder, seen)

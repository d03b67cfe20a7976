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
    KernelMeanEmbedding(n_components=64, random_state=0),
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
    return bag if enc.offset_ is None else (bag - enc.offset_) / enc.scale_


# -- hand-computed cases and brute-force references -------------------------------

def test_vlad_hand_computed_case_and_ties():
    train = [np.array([[0.0], [1.0]]), np.array([[9.0], [11.0]])]
    enc = VLADEmbedding(n_clusters=2, power=1.0, normalize=None, scale=None, random_state=0).fit(train)
    c = enc.cluster_centers_.ravel()
    np.testing.assert_allclose(np.sort(c), [0.5, 10.0])
    low = int(np.argmin(c))
    # Residuals: (0 - 0.5) + (2 - 0.5) = 1 at centre 0.5, 12 - 10 = 2 at centre 10.
    expected = np.zeros(2)
    expected[low], expected[1 - low] = 1.0, 2.0
    np.testing.assert_allclose(enc.transform([np.array([[0.0], [2.0], [12.0]])])[0], expected)
    # 5.25 is 4.75 from both centres: it goes to centre 0.
    tie = enc.transform([np.array([[5.25]])])[0]
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
    np.testing.assert_allclose(np.sort(enc.cluster_centers_[:, 1]), [-0.2, 1.0])
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
    # One component fitted on 0 and 2: mean 1, variance 1.
    enc = FisherVectorEmbedding(n_components=1, power=1.0, normalize=None, reg_covar=0.0, scale=None,
                                random_state=0).fit([np.array([[0.0]]), np.array([[2.0]])])
    np.testing.assert_allclose(enc.mixture_.means_, [[1.0]])
    np.testing.assert_allclose(enc.mixture_.covariances_, [[1.0]])
    # [[2], [2]]: u = mean of (x - 1) = 1, v = mean of ((x - 1)^2 - 1) / sqrt(2) = 0.
    # [[3]]: u = 2, v = (4 - 1) / sqrt(2).
    E = enc.transform([np.array([[2.0], [2.0]]), np.array([[3.0]])])
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


@pytest.mark.parametrize("normalize", ["cosine", "weights", "none"])
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
        enc = KernelMeanEmbedding(n_components=n, gamma=2.0, random_state=0).fit(X)
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
    E = enc.transform([A, B])
    assert np.linalg.norm(E[0] - E[1]) ** 2 == pytest.approx(12.5)
    # The reference: the quantiles of the four training values at 1/4 and 3/4 (1 and 5, signed).
    theta = enc.directions_[0, 0]
    np.testing.assert_allclose(enc.reference_[0], np.sort(theta * np.array([0.0, 1.0, 3.0, 5.0]))[[1, 3]])


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
    E = enc.transform(X)
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
        E = enc.transform([A, B])
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
    alone = np.vstack([enc.transform([b]) for b in X])
    np.testing.assert_allclose(alone, full, rtol=1e-12, atol=1e-15)
    order = np.random.default_rng(0).permutation(len(X))
    np.testing.assert_allclose(enc.transform([X[i] for i in order]), full[order], rtol=1e-12, atol=1e-15)
    for chunk in (1, 7, 50):
        np.testing.assert_allclose(enc.set_params(chunk_size=chunk).transform(X), full, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(enc.set_params(chunk_size=5, n_jobs=2).transform(X), full, rtol=1e-12,
                               atol=1e-15)
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
    np.testing.assert_allclose(out, ref.astype(np.float32), rtol=1e-6, atol=1e-6)
    # float32 arrays in a list also give float32 rows; float64 gives float64.
    assert enc.transform([b.astype(np.float32) for b in as_list]).dtype == np.float32
    assert enc.transform(as_list).dtype == np.float64


@pytest.mark.parametrize("encoder", [VLADEmbedding(n_clusters=4, random_state=0),
                                     FisherVectorEmbedding(n_components=2, random_state=0),
                                     KernelMeanEmbedding(n_components=32, random_state=0),
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
    assert search.score(X, y) > 0.8


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
                KernelMeanEmbedding(n_components=16, gamma=0.5, gamma_scale="absolute", scale=None,
                                    random_state=0),
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

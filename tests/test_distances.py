"""Public Hausdorff API: kinds, labels for adapted, Bags input, threads, errors."""

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from mil import Bags
from mil.distances import hausdorff, hausdorff_all


def seed_bags():
    return [np.array([[-1.0], [-2.0], [-3.0]]), np.array([[1.0], [2.0], [50.0]])]


def test_seed_example_every_kind(backend):
    X = seed_bags()
    assert hausdorff(X, kind="minimal")[0, 1] == 2.0
    assert hausdorff(X, kind="maximal")[0, 1] == 51.0
    assert hausdorff(X, kind="average")[0, 1] == pytest.approx(65 / 6)
    assert hausdorff(X, kind="integrated", alpha=0.25)[0, 1] == pytest.approx(0.25 * 2 + 0.75 * 51)
    # Adapted: minimal between positives, maximal between negatives, average if mixed.
    assert hausdorff(X, kind="adapted", y=[1, 1])[0, 1] == 2.0
    assert hausdorff(X, kind="adapted", y=[0, 0])[0, 1] == 51.0
    assert hausdorff(X, kind="adapted", y=[True, False])[0, 1] == pytest.approx(65 / 6)
    # Unknown labels of the other side: the average form.
    assert hausdorff(X[:1], X[1:], kind="adapted", y=[1])[0, 0] == pytest.approx(65 / 6)
    assert hausdorff(X[:1], X[1:], kind="adapted", y=[1], y_other=[1])[0, 0] == 2.0


def test_all_matches_cdist_and_inputs(backend):
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(rng.integers(1, 6), 4)) + 100 for _ in range(7)]
    Y = [rng.normal(size=(rng.integers(1, 6), 4)) + 100 for _ in range(3)]
    got = hausdorff_all(X, Y)
    for i, a in enumerate(X):
        for j, b in enumerate(Y):
            D = cdist(a, b)
            assert got["minimal"][i, j] == pytest.approx(D.min(), rel=1e-10)
            assert got["maximal"][i, j] == pytest.approx(max(D.min(0).max(), D.min(1).max()), rel=1e-10)
    same = hausdorff_all(Bags.from_list(X), Bags.from_list(Y))
    for k in got:
        np.testing.assert_array_equal(got[k], same[k])
    X_before = [x.copy() for x in X]
    hausdorff_all(X)
    for a, b in zip(X, X_before):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("n_jobs", [2, 3])
def test_threads_do_not_change_results(backend, n_jobs, monkeypatch):
    rng = np.random.default_rng(1)
    X = [rng.normal(size=(rng.integers(1, 30), 5)) for _ in range(25)]
    # Small blocks so that the threads really split the rows.
    import mil.distances as md
    monkeypatch.setattr(md, "BLOCK_SIZE", 40)
    one = hausdorff_all(X)
    many = hausdorff_all(X, n_jobs=n_jobs)
    rect_one, rect_many = hausdorff_all(X, X[:9]), hausdorff_all(X, X[:9], n_jobs=n_jobs)
    for k in one:
        np.testing.assert_array_equal(one[k], many[k])
        np.testing.assert_array_equal(rect_one[k], rect_many[k])


def test_errors():
    X = seed_bags()
    with pytest.raises(ValueError, match="kind"):
        hausdorff(X, kind="chamfer")
    with pytest.raises(ValueError, match="labels"):
        hausdorff(X, kind="adapted")
    with pytest.raises(ValueError, match="binary"):
        hausdorff(X, kind="adapted", y=[0, 2])
    with pytest.raises(ValueError, match="alpha"):
        hausdorff(X, kind="integrated", alpha=1.5)
    with pytest.raises(ValueError, match="features"):
        hausdorff_all(X, [np.zeros((2, 3))])
    with pytest.raises(ValueError):
        hausdorff_all([np.zeros((0, 1))])


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_strips_into_memmaps_match_the_in_memory_matrices(backend, n_jobs, tmp_path, monkeypatch):
    import mil.distances as md

    rng = np.random.default_rng(2)
    X = [rng.normal(size=(rng.integers(1, 12), 4)) for _ in range(23)]
    Y = X[:7]
    whole, rect = hausdorff_all(X), hausdorff_all(X, Y)
    # Strips of two rows: many strips, each with its own diagonal square.
    monkeypatch.setattr(md, "STRIP_BYTES", 2 * 3 * 8 * len(X))
    for other, ref in ((None, whole), (Y, rect)):
        shape = ref["minimal"].shape
        out = {k: np.lib.format.open_memmap(tmp_path / f"{k}{other is None}.npy", mode="w+",
                                            dtype=np.float64, shape=shape) for k in ("minimal", "average")}
        got = hausdorff_all(X, other, n_jobs=n_jobs, out=out)
        assert got is out and set(got) == {"minimal", "average"}
        for k in got:
            np.testing.assert_allclose(got[k], ref[k], rtol=1e-12, atol=1e-12)
        if other is None:
            np.testing.assert_array_equal(got["minimal"], got["minimal"].T)
            np.testing.assert_array_equal(np.diag(got["average"]), 0.0)


def test_bad_out_is_refused():
    X = seed_bags()
    with pytest.raises(ValueError, match="out must be a dict"):
        hausdorff_all(X, out={"integrated": np.zeros((2, 2))})
    with pytest.raises(ValueError, match=r"out\['minimal'\] must be a writable float64 array of shape \(2, 2\)"):
        hausdorff_all(X, out={"minimal": np.zeros((2, 3))})

"""The data generators: foundation-model shaped bags and the regression benchmarks' recipes."""

import mmap

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from mil import Bags
from mil.datasets import (
    OVERLAP_TEMPERATURES, make_chisq_bags, make_foundation_bags, make_population_stats_bags,
    make_primary_instance_bags, make_rotated_gaussian_bags, primary_instance_split,
)


# -- foundation-model shaped bags ---------------------------------------------------------------

def _small_foundation(**kw):
    params = dict(n_features=96, bag_sizes=(100, 200), intrinsic_dim=8, random_state=0)
    params.update(kw)
    return make_foundation_bags(40, **params)


def test_foundation_shapes_labels_and_witness_shares():
    d = _small_foundation()
    bags = d.bags
    assert isinstance(bags, Bags) and d.data is bags
    assert bags.n_bags == 40 and bags.n_features == 96 and bags.instances.dtype == np.float32
    assert bags.sizes.min() >= 100 and bags.sizes.max() <= 200
    assert int(d.target.sum()) == 20
    assert d.instance_labels.shape == (bags.n_instances,) and d.instance_labels.dtype == np.int8
    per_bag = np.add.reduceat(d.instance_labels.astype(int), bags.offsets[:-1])
    np.testing.assert_array_equal(per_bag, d.witness_counts)
    assert (per_bag[d.target == 0] == 0).all() and (per_bag[d.target == 1] >= 1).all()
    share = per_bag[d.target == 1] / bags.sizes[d.target == 1]
    # max(1, round(s * n)) with s in [0.02, 0.10]: within half an instance of the range
    assert (share >= 0.02 - 0.5 / bags.sizes[d.target == 1]).all()
    assert (share <= 0.10 + 0.5 / bags.sizes[d.target == 1]).all()
    # witnesses sit at random positions, not at the start of their bags
    first = bags.offsets[:-1][d.target == 1]
    assert d.instance_labels[first].mean() < 0.5


def test_foundation_intrinsic_dimension():
    d = _small_foundation(noise=0.1)
    X = d.bags.instances.astype(np.float64)
    eig = np.linalg.eigvalsh(np.cov(X, rowvar=False))[::-1]
    # 8 latent directions carry the variance; the other 88 hold only the ambient noise (0.1^2)
    assert eig[7] > 50 * 0.01
    assert eig[8] < 2 * 0.01 and eig[-1] > 0.5 * 0.01


def test_foundation_witnesses_are_separable_but_not_trivially():
    d = _small_foundation(separation=3.0)
    X, z = d.bags.instances, d.instance_labels
    clf = LogisticRegression(max_iter=2000).fit(X, z)
    auc = roc_auc_score(z, clf.decision_function(X))
    assert auc > 0.9


def memory_mapped(arr):
    """Whether `arr` is backed by a memory map (through its chain of bases)."""
    while arr is not None:
        if isinstance(arr, (np.memmap, mmap.mmap)):
            return True
        arr = getattr(arr, "base", None)
    return False


def test_foundation_seeded_and_memmap(tmp_path):
    a = _small_foundation(random_state=3)
    b = _small_foundation(random_state=3, memmap=tmp_path / "inst.npy")
    assert memory_mapped(b.bags.instances) and not b.bags.instances.flags.writeable
    assert not memory_mapped(a.bags.instances)
    assert b.memmap == str(tmp_path / "inst.npy")
    np.testing.assert_array_equal(a.bags.instances, b.bags.instances)
    np.testing.assert_array_equal(a.bags.offsets, b.bags.offsets)
    np.testing.assert_array_equal(a.instance_labels, b.instance_labels)
    c = _small_foundation(random_state=4)
    assert not np.array_equal(a.target, c.target) or c.bags.n_instances != a.bags.n_instances
    d64 = _small_foundation(dtype=np.float64, random_state=3)
    assert d64.bags.instances.dtype == np.float64
    np.testing.assert_array_equal(d64.bags.offsets, a.bags.offsets)  # the same structure; noise drawn in float64
    np.testing.assert_array_equal(d64.instance_labels, a.instance_labels)


@pytest.mark.parametrize("kw, match", [
    ({"intrinsic_dim": 200}, "intrinsic_dim"),
    ({"bag_sizes": (5, 2)}, "bag_sizes"),
    ({"witness_share": (0.2, 1.5)}, "witness_share"),
    ({"noise": -1.0}, "noise"),
    ({"dtype": np.int32}, "dtype"),
])
def test_foundation_bad_parameters(kw, match):
    with pytest.raises(ValueError, match=match):
        _small_foundation(**kw)


# -- Law et al.'s chi-square bags ---------------------------------------------------------------

def test_chisq_moments_follow_the_label():
    d = make_chisq_bags(60, bag_size=2000, noise=1.0, random_state=0)
    bags, y = d.bags, d.target
    assert bags.n_bags == 60 and bags.n_features == 5 and (bags.sizes == 2000).all()
    assert y.min() >= 4 and y.max() <= 8
    means = np.array([b.mean() for b in bags])
    variances = np.array([b.var() for b in bags])
    np.testing.assert_allclose(means, 1.0, atol=0.05)  # chi2(y) / y has mean 1
    # variance 2 / y + noise: 2 / y spans 0.25-0.5, the sample variance of 10,000 entries is within ~0.03
    np.testing.assert_allclose(variances, 2 / y + 1.0, atol=0.06)
    assert np.corrcoef(variances, 2 / y)[0, 1] > 0.9


def test_chisq_without_noise_and_varying_sizes():
    d = make_chisq_bags(200, bag_size=1000, noise=0.0, small_share=0.3, random_state=1)
    sizes = d.bags.sizes
    assert {int(s) for s in np.unique(sizes)} == {5, 20, 100, 1000}
    assert [int((sizes == s).sum()) for s in (5, 20, 100, 1000)] == [60, 50, 50, 40]
    assert d.bags.instances.min() >= 0  # chi-square entries, no noise
    big = np.flatnonzero(sizes == 1000)
    np.testing.assert_allclose([d.bags[i].var() for i in big], 2 / d.target[big], atol=0.06)
    with pytest.raises(ValueError, match="small_share"):
        make_chisq_bags(10, small_share=0.7)


# -- rotated Gaussians and the Deep Sets population statistics ----------------------------------

@pytest.mark.parametrize("label", ["entropy", "squared"])
def test_rotated_gaussian_label_formula(label):
    d = make_rotated_gaussian_bags(12, bag_size=20000, label=label, random_state=0)
    assert d.bags.n_features == 2 and d.angles[0] == 0 and np.isclose(d.angles[-1], np.pi)
    var0 = np.array([b[:, 0].var() for b in d.bags])
    power = 2 if label == "squared" else 1
    expected = 0.5 * np.log(2 * np.pi * np.e * var0 ** power)
    np.testing.assert_allclose(d.target, expected, atol=0.05)


def test_rotated_gaussians_share_one_matrix_across_bags():
    d = make_rotated_gaussian_bags(5, bag_size=20000, random_state=1)
    # the total variance (trace of R A A^T R^T) does not depend on the angle
    traces = [np.trace(np.cov(b, rowvar=False)) for b in d.bags]
    np.testing.assert_allclose(traces, traces[0], rtol=0.05)


def _total_correlation_of_sample(bag):
    cov = np.cov(bag, rowvar=False)
    return 0.5 * np.log(np.diag(cov)).sum() - 0.5 * np.linalg.slogdet(cov)[1]


def test_population_stats_task1_is_the_rotated_entropy():
    a = make_population_stats_bags(1, n_bags=6, bag_size=50, random_state=2)
    b = make_rotated_gaussian_bags(6, bag_size=50, random_state=2)
    np.testing.assert_array_equal(a.bags.instances, b.bags.instances)
    np.testing.assert_array_equal(a.target, b.target)


def test_population_stats_task2_mutual_information():
    d = make_population_stats_bags(2, n_bags=8, bag_size=40000, random_state=0)
    assert d.bags.n_features == 16 and np.all(np.diff(d.parameter) > 0)
    np.testing.assert_allclose(d.target, -4 * np.log(1 - d.parameter ** 2))
    for bag, rho in zip(d.bags, d.parameter):
        # corr(x_i, x_{i+8}) = rho for every i: Sigma = [[A, rho A], [rho A, A]]
        assert abs(np.corrcoef(bag[:, 0], bag[:, 8])[0, 1] - rho) < 0.02
    with pytest.raises(ValueError, match="divisible by 4"):
        make_population_stats_bags(2, n_bags=6)


@pytest.mark.parametrize("task", [3, 4])
def test_population_stats_total_correlation(task):
    d = make_population_stats_bags(task, n_bags=4, bag_size=40000, random_state=0)
    assert d.bags.n_features == 32
    estimated = [_total_correlation_of_sample(b) for b in d.bags]
    np.testing.assert_allclose(d.target, estimated, rtol=0.01, atol=0.03)  # log det: bias ~ d^2 / n
    if task == 3:
        np.testing.assert_allclose(d.parameter, np.linspace(0, 1, 4))
        assert d.target[0] == pytest.approx(0.0, abs=1e-12) and np.all(np.diff(d.target) > 0)


def test_population_stats_bad_task():
    with pytest.raises(ValueError, match="task"):
        make_population_stats_bags(5)


# -- Chauhan et al.'s primary-instance bags -----------------------------------------------------

def test_primary_instance_recipe_without_overlap():
    d = make_primary_instance_bags(3000, bag_size=5, overlap=0.0, random_state=0)
    bags = d.bags
    assert bags.n_bags == 3000 and (bags.sizes == 5).all() and bags.n_features == 32
    assert d.overlap_share == 0.0 and d.temperature is None
    rows = bags.offsets[:-1] + d.primary
    np.testing.assert_array_equal(d.target, d.instance_target[rows])
    X = bags.instances
    f = X @ d.coef_linear + np.einsum("ni,ij,nj->n", X, d.coef_quadratic, X)
    np.testing.assert_allclose(d.instance_function, f)
    assert np.allclose(d.coef_quadratic, np.triu(d.coef_quadratic))
    assert np.abs(d.coef_linear).max() <= 1 and np.abs(d.coef_quadratic).max() <= 0.1
    noise = d.instance_target - d.instance_function
    assert abs(noise.mean()) < 0.03 and abs(noise.var() - 1.0) < 0.05
    # within-bag mixing: instance t has variance 1 + t / 3 per feature (sum of t squared U[0, 1) weights)
    per_position = X.reshape(3000, 5, 32).var(axis=(0, 2))
    np.testing.assert_allclose(per_position, 1 + np.arange(5) / 3, rtol=0.05)
    # ...and is correlated with the earlier instances of its bag, not with other features
    X3 = X.reshape(3000, 5, 32)
    assert np.corrcoef(X3[:, 0, 0], X3[:, 1, 0])[0, 1] > 0.3
    assert abs(np.corrcoef(X3[:, 0, 0], X3[:, 1, 1])[0, 1]) < 0.06
    assert list(np.unique(d.split, return_counts=True)[1]) == [300, 2400, 300]  # test, train, validation


def test_primary_instance_split_is_instance_level():
    d = make_primary_instance_bags(500, bag_size=2, overlap=0.0, random_state=1)
    s = primary_instance_split(d)
    assert s.bags_train.n_bags == 400 and s.y_train.shape == (400,)
    assert s.X_validation.shape == (50, 32) and s.X_test.shape == (50, 32)
    rows = d.bags.offsets[:-1] + d.primary
    np.testing.assert_array_equal(s.X_test, d.bags.instances[rows[450:]])
    np.testing.assert_array_equal(s.y_test, d.target[450:])
    np.testing.assert_array_equal(s.primary_train, d.primary[:400])


def test_primary_instance_overlap():
    d = make_primary_instance_bags(1000, bag_size=5, overlap=0.10, random_state=0)
    assert d.temperature == OVERLAP_TEMPERATURES[5][0.10]
    train = d.split == "train"
    assert 780 <= train.sum() <= 800 and (d.split[~train] != "train").all()
    ids = d.instance_ids.reshape(-1, 5)
    train_ids = ids[train]
    # no instance twice in a bag; a shared instance has the same features and label in every bag
    assert all(len(set(row)) == 5 for row in train_ids)
    counts = np.bincount(train_ids.ravel())
    assert 0.02 < d.overlap_share < 0.3
    assert d.overlap_share == pytest.approx((counts > 1).sum() / (train.sum() * 5), abs=0.01)
    shared = np.flatnonzero(counts > 1)[0]
    where = np.flatnonzero(d.instance_ids == shared)
    assert len(where) > 1
    np.testing.assert_array_equal(d.bags.instances[where[0]], d.bags.instances[where[1]])
    assert d.instance_target[where[0]] == d.instance_target[where[1]]
    # each instance is primary in at most one bag, and every label is its primary's
    primary_ids = ids[np.arange(len(ids)), d.primary]
    assert len(set(primary_ids[train])) == train.sum()
    np.testing.assert_array_equal(d.target, d.instance_target.reshape(-1, 5)[np.arange(len(ids)), d.primary])
    # held-out bags stay as drawn (ids of the instances generated for them)
    assert (ids[~train].min() >= 800 * 5)


def test_primary_instance_bad_parameters():
    with pytest.raises(ValueError, match="no published temperature"):
        make_primary_instance_bags(100, bag_size=3, overlap=0.1)
    with pytest.raises(ValueError, match="train_size"):
        make_primary_instance_bags(100, train_size=0.95, validation_size=0.1)
    d = make_primary_instance_bags(100, bag_size=3, overlap=0.1, temperature=3.0, random_state=0)
    assert d.temperature == 3.0

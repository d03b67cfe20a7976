"""The Bags container and bag validation: layout, indexing and every error case."""

import pickle

import numpy as np
import pytest

from mil import Bags
from mil.utils.validation import check_bag_labels, check_bags, check_bags_y


def test_from_list_layout():
    a, b = np.arange(6.0).reshape(3, 2), np.array([[7, 8]])
    bags = Bags.from_list([a, b])
    assert bags.n_bags == 2 and bags.n_features == 2 and bags.n_instances == 4 and len(bags) == 2
    assert bags.instances.flags.c_contiguous and bags.instances.dtype == np.float64
    np.testing.assert_array_equal(bags.offsets, [0, 3, 4])
    np.testing.assert_array_equal(bags.sizes, [3, 1])
    np.testing.assert_array_equal(bags.instance_bag, [0, 0, 0, 1])
    np.testing.assert_array_equal(bags[1], b)
    np.testing.assert_array_equal(bags[-1], b)
    assert [x.shape for x in bags] == [(3, 2), (1, 2)]


def test_from_instances_groups_by_sorted_id_keeping_order():
    X = np.array([[1.0], [2.0], [3.0], [4.0], [5.0]])
    bags = Bags.from_instances(X, ["b", "a", "b", "c", "a"])
    assert bags.ids.tolist() == ["a", "b", "c"]
    np.testing.assert_array_equal(bags[0].ravel(), [2, 5])
    np.testing.assert_array_equal(bags[1].ravel(), [1, 3])
    np.testing.assert_array_equal(bags[2].ravel(), [4])


def test_from_instances_contiguous_ids_do_not_copy():
    X = np.arange(8.0).reshape(4, 2)
    bags = Bags.from_instances(X, [0, 0, 1, 1])
    assert np.shares_memory(bags.instances, X)
    with pytest.raises(ValueError, match="read-only"):
        bags[0][0, 0] = 5.0
    assert X[0, 0] == 0.0


def test_subset_by_indices_mask_and_slice():
    bags = Bags.from_list([np.full((i + 1, 2), float(i)) for i in range(5)])
    sub = bags[[3, 0, 3]]
    assert isinstance(sub, Bags) and sub.n_bags == 3
    assert [x[0, 0] for x in sub] == [3.0, 0.0, 3.0]
    np.testing.assert_array_equal(sub.sizes, [4, 1, 4])
    mask = np.array([True, False, True, False, False])
    assert [x[0, 0] for x in bags[mask]] == [0.0, 2.0]
    assert [x[0, 0] for x in bags[1:3]] == [1.0, 2.0]
    assert bags[np.array([], dtype=int)].n_bags == 0
    with pytest.raises(IndexError):
        bags[[7]]
    with pytest.raises(IndexError):
        bags[5]


def test_pickle_round_trip():
    bags = Bags.from_instances(np.arange(6.0).reshape(3, 2), [2, 1, 2])
    back = pickle.loads(pickle.dumps(bags))
    np.testing.assert_array_equal(back.instances, bags.instances)
    np.testing.assert_array_equal(back.offsets, bags.offsets)
    assert back.ids.tolist() == [1, 2]


def test_check_bags_copies_and_never_mutates():
    X = [np.array([[1, 2]], dtype=np.int32), np.array([[3.5, 4.0], [5.0, 6.0]])]
    bags = check_bags(X)
    bags.instances[0, 0] = 99.0  # internal copy
    assert X[0][0, 0] == 1
    assert check_bags(bags) is bags


def test_3d_array_is_a_sequence_of_equal_bags():
    X = np.zeros((4, 3, 2))
    assert check_bags(X).n_bags == 4


# -- every error case names the bag and the problem ---------------------------

@pytest.mark.parametrize("X, exc, message", [
    ([], ValueError, "holds no bags"),
    ([np.ones((2, 3)), np.ones((0, 3))], ValueError, "bag 1 of X is empty"),
    ([np.ones((2, 3)), np.ones((2, 4))], ValueError, "bag 1 of X has 4 features but bag 0 has 3"),
    ([np.ones((2, 3)), np.ones(3)], ValueError, "bag 1 of X is 1-D"),
    ([np.ones((2, 2, 2))], ValueError, "bag 0 of X is 3-D"),
    ([np.array([["a", "b"]])], TypeError, "bag 0 of X holds non-numeric values"),
    ([np.array([[1.0, "x"]], dtype=object)], TypeError, "non-numeric"),
    ([np.array([[1.0, None]], dtype=object)], ValueError, "bag 0 of X contains NaN"),
    ([[[1.0, 2.0], [3.0]]], ValueError, "bag 0 of X is ragged"),
    ([np.ones((1, 2)), np.array([[np.nan, 1.0]])], ValueError, "bag 1 of X contains NaN"),
    ([np.array([[np.inf, 1.0]])], ValueError, "bag 0 of X contains infinity"),
    ([np.ones((2, 0))], ValueError, "0 feature"),
    (np.ones((5, 3)), ValueError, "single 2-D array"),
    ("abc", TypeError, "sequence of 2-D arrays"),
    (42, TypeError, "sequence of 2-D arrays"),
])
def test_bag_errors(X, exc, message):
    with pytest.raises(exc, match=message):
        check_bags(X)


def test_sparse_bag_is_rejected():
    sparse = pytest.importorskip("scipy.sparse")
    with pytest.raises(TypeError, match="sparse"):
        check_bags([sparse.csr_matrix(np.ones((2, 2)))])


def test_nan_allowed_where_supported_but_never_inf():
    X = [np.array([[np.nan, 1.0]])]
    assert np.isnan(check_bags(X, allow_nan=True).instances).any()
    with pytest.raises(ValueError, match="infinity"):
        check_bags([np.array([[np.inf, 1.0]])], allow_nan=True)
    bags = Bags.from_list([np.ones((1, 2))])
    with pytest.raises(ValueError, match="NaN"):
        check_bags(Bags(np.array([[np.nan, 1.0]]), [0, 1]))
    assert check_bags(bags) is bags


def test_feature_count_at_predict_time():
    with pytest.raises(ValueError, match="X has 3 features, but Foo is expecting 2 features"):
        check_bags([np.ones((1, 3))], n_features=2, estimator="Foo")


def test_bad_offsets_and_ids():
    with pytest.raises(ValueError, match="bag 1 is empty"):
        Bags(np.ones((3, 2)), [0, 2, 2, 3])
    with pytest.raises(ValueError, match="start at 0 and end"):
        Bags(np.ones((3, 2)), [0, 2])
    with pytest.raises(ValueError, match="one id per instance"):
        Bags.from_instances(np.ones((3, 2)), [0, 1])
    with pytest.raises(ValueError, match="NaN"):
        Bags.from_instances(np.ones((2, 2)), [0.0, np.nan])


@pytest.mark.parametrize("y, kwargs, exc, message", [
    ([0, 1], {}, ValueError, "y has 2 labels but X has 3 bags"),
    ([1, 1, 1], {}, ValueError, "one class only"),
    ([0, 1, 2], {"binary": True}, ValueError, "two classes only"),
    ([0.0, np.nan, 1.0], {}, ValueError, "NaN"),
    ([[0, 1], [1, 0], [0, 1]], {}, ValueError, "1-D"),
    (["a", "b", "b"], {"binary": True, "positive_class": "z"}, ValueError, "positive_class='z'"),
])
def test_label_errors(y, kwargs, exc, message):
    with pytest.raises(exc, match=message):
        check_bag_labels(y, 3, **kwargs)


def test_label_encoding_and_positive_class():
    classes, enc = check_bag_labels(["neg", "pos", "neg"], 3, binary=True, positive_class="pos")
    assert classes.tolist() == ["neg", "pos"] and enc.tolist() == [0, 1, 0]
    classes, enc = check_bag_labels(["neg", "pos", "neg"], 3, binary=True, positive_class="neg")
    assert enc.tolist() == [1, 0, 1]
    from sklearn.exceptions import DataConversionWarning

    with pytest.warns(DataConversionWarning, match="column-vector y"):
        bags, classes, enc = check_bags_y([np.ones((1, 2))] * 3, np.array([[2], [1], [2]]))
    assert classes.tolist() == [1, 2] and enc.tolist() == [1, 0, 1]


def test_a_slice_of_consecutive_bags_is_a_view(tmp_path):
    X = np.arange(20.0).reshape(10, 2)
    bags = Bags(X, [0, 2, 5, 6, 10], ids=["a", "b", "c", "d"])
    part = bags[1:3]
    assert np.shares_memory(part.instances, bags.instances)
    np.testing.assert_array_equal(part.offsets, [0, 3, 4])
    assert part.ids.tolist() == ["b", "c"]
    copied = bags[[1, 2]]
    assert not np.shares_memory(copied.instances, bags.instances)
    np.testing.assert_array_equal(part.instances, copied.instances)
    np.testing.assert_array_equal(bags[::2].offsets, [0, 2, 3])  # a step copies
    # A memory map stays on disk.
    np.save(tmp_path / "x.npy", X.astype(np.float32))
    mm = Bags(np.load(tmp_path / "x.npy", mmap_mode="r"), bags.offsets)
    view = mm[2:]
    assert view.instances.dtype == np.float32 and not view.instances.flags.owndata
    np.testing.assert_array_equal(view.instances, X[5:].astype(np.float32))


def test_deferred_value_checks_read_one_chunk_at_a_time(tmp_path):
    from mil.utils.validation import check_bag_chunk, check_bags

    X = np.arange(24, dtype=np.float32).reshape(12, 2)
    X[7, 1] = np.nan  # a Bags accepts NaN (missing values); the encoders do not
    np.save(tmp_path / "x.npy", X)
    bags = Bags(np.load(tmp_path / "x.npy", mmap_mode="r"), [0, 3, 6, 9, 12], ids=[10, 11, 12, 13])
    same = check_bags(bags, defer_values=True)  # the layout only: no error yet, no copy, float32 kept
    assert same is bags and same.instances.dtype == np.float32
    with pytest.raises(ValueError, match="bag 12 of X contains NaN"):
        check_bags(bags)
    off = bags.offsets
    ok = check_bag_chunk(bags.instances[:6], off[:3], first=0, ids=bags.ids[:2])
    assert ok.dtype == np.float64 and ok.flags.c_contiguous and ok.flags.owndata
    with pytest.raises(ValueError, match="bag 12 of X contains NaN"):
        check_bag_chunk(bags.instances[6:], off[2:] - 6, first=2, ids=bags.ids[2:])
    with pytest.raises(ValueError, match="bag 2 of X contains NaN"):
        check_bag_chunk(bags.instances[6:], off[2:] - 6, first=2)
    with pytest.raises(ValueError, match="X has 2 features, but E is expecting 3"):
        check_bags(bags, n_features=3, estimator="E", defer_values=True)


def test_building_bags_over_a_memory_map_holds_no_copy(tmp_path, monkeypatch):
    import tracemalloc

    from mil import _bag_arrays

    monkeypatch.setattr(_bag_arrays, "FINITE_BLOCK", 1 << 12)  # blocks of 4096 values
    mm = np.lib.format.open_memmap(tmp_path / "x.npy", "w+", np.float32, (20000, 8))
    mm[:] = 1.0
    mm[19999, 3] = np.inf
    mm.flush()
    X = np.load(tmp_path / "x.npy", mmap_mode="r")
    tracemalloc.start()
    with pytest.raises(ValueError, match="contains infinity"):  # found in the last block
        Bags(X, [0, 20000])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < X.nbytes / 10

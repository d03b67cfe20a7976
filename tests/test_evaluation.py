import numpy as np

from mil.evaluation import fold_indices


def test_published_fold_table_is_used():
    table = np.tile(np.arange(10), (5, 3))[:, :25]
    y = np.arange(25) % 2
    splits = fold_indices(y, folds=10, repeats=2, fold_table=table)
    assert len(splits) == 20
    train, test = splits[3]
    np.testing.assert_array_equal(test, np.flatnonzero(table[0] == 3))
    assert set(train) | set(test) == set(range(25)) and not set(train) & set(test)


def test_random_stratified_folds_cover_every_bag_once_per_repeat():
    y = np.array([0] * 12 + [1] * 9)
    splits = fold_indices(y, folds=3, repeats=2, seed=4)
    assert len(splits) == 6
    for r in range(2):
        tests = np.concatenate([t for _, t in splits[3 * r: 3 * r + 3]])
        assert sorted(tests.tolist()) == list(range(21))
    # 5 folds with a 10-fold table: the table does not apply, random folds are drawn.
    assert len(fold_indices(y, folds=3, fold_table=np.zeros((5, 21), dtype=int))) == 3

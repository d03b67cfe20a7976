import numpy as np
import pytest

from mil.evaluation import evaluate, fold_indices


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


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_evaluate_gives_the_same_folds_whatever_n_jobs(n_jobs, random_bags):
    from mil.tree import C45MIClassifier

    X = random_bags(3, n_bags=30, n_features=3)
    y = np.arange(30) % 2
    for bag, label in zip(X, y):
        bag[0, 0] += 4.0 * label  # a learnable concept
    splits = fold_indices(y, folds=3, seed=1)

    def train_size(est, train, test):  # runs in the worker with n_jobs (pickled by value)
        return len(train), est.n_features_in_

    serial = evaluate(C45MIClassifier(), X, y, splits)
    res = evaluate(C45MIClassifier(), X, y, splits, n_jobs=n_jobs, callback=train_size)
    np.testing.assert_array_equal(res["accuracy"], serial["accuracy"])
    np.testing.assert_array_equal(res["auc"], serial["auc"])
    assert res["callback"] == [(len(tr), 3) for tr, _ in splits]
    assert serial["callback"] is None and res["fit_time"].shape == (3,)


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_record_warnings_counts_each_warning_once_per_fold(n_jobs, random_bags):
    # A solver at its iteration limit warns in every fold (in the worker processes with
    # n_jobs=2): recorded once, with the number of folds that raised it, instead of shown.
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression

    from mil import SimpleMIClassifier
    from mil.evaluation import merge_warnings

    X = random_bags(2, n_bags=18, n_features=3)
    y = np.arange(18) % 2
    splits = fold_indices(y, folds=3, seed=0)
    est = SimpleMIClassifier(LogisticRegression(max_iter=1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing escapes the recording
        res = evaluate(est, X, y, splits, n_jobs=n_jobs, record_warnings=True)
    converge = [w for w in res["warnings"] if w[0] is ConvergenceWarning]
    assert len(converge) == 1 and converge[0][2] == 3 and "iter" in converge[0][1].lower()
    with pytest.warns(ConvergenceWarning):  # without recording, the warnings are shown
        assert evaluate(est, X, y, splits[:1])["warnings"] is None
    assert merge_warnings([(UserWarning, "a", 2)], None, [(UserWarning, "a", 1), (UserWarning, "b", 1)]) == \
        [(UserWarning, "a", 3), (UserWarning, "b", 1)]


def test_evaluate_scores_a_regressor_by_rmse_mae_and_r2():
    from sklearn.dummy import DummyRegressor

    from mil.evaluation import evaluate, fold_indices

    rng = np.random.default_rng(0)
    y = rng.uniform(0, 10, size=30)
    bags = [rng.normal(size=(3, 2)) + t / 10 for t in y]

    class MeanDummy(DummyRegressor):  # the training mean, whatever the bags
        def fit(self, X, y):
            return super().fit(np.zeros((len(y), 1)), y)

        def predict(self, X):
            return super().predict(np.zeros((len(X), 1)))

    splits = fold_indices(y, 3, stratify=False)
    res = evaluate(MeanDummy(), bags, y, splits)
    assert set(res) >= {"rmse", "mae", "r2", "prior_rmse", "fit_time"} and "accuracy" not in res
    for (train, test), rmse, mae, r2, prior in zip(splits, res["rmse"], res["mae"], res["r2"], res["prior_rmse"]):
        pred = np.full(len(test), y[train].mean())
        assert rmse == pytest.approx(np.sqrt(np.mean((y[test] - pred) ** 2))) == pytest.approx(prior)
        assert mae == pytest.approx(np.mean(np.abs(y[test] - pred)))
        assert r2 == pytest.approx(1 - np.sum((y[test] - pred) ** 2) / np.sum((y[test] - y[test].mean()) ** 2))


def test_a_fold_predicts_probabilities_once_for_the_auc_and_the_log_loss(random_bags):
    from sklearn.metrics import log_loss, roc_auc_score

    from mil.tree import C45MIClassifier

    class Counted(C45MIClassifier):
        calls = 0

        def predict_proba(self, X):
            type(self).calls += 1
            return super().predict_proba(X)

    X = random_bags(5, n_bags=30, n_features=3)
    y = np.arange(30) % 2
    for bag, label in zip(X, y):
        bag[0, 0] += 4.0 * label
    splits = fold_indices(y, folds=3, seed=1)
    res = evaluate(Counted(), X, y, splits, positive_class=1)
    assert Counted.calls == 3
    for k, (train, test) in enumerate(splits):  # the scores are those of that one call
        proba = C45MIClassifier().fit([X[i] for i in train], y[train]).predict_proba([X[i] for i in test])
        assert res["auc"][k] == pytest.approx(roc_auc_score(y[test], proba[:, 1]))
        assert res["log_loss"][k] == pytest.approx(log_loss(y[test], proba, labels=[0, 1]))

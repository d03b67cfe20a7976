"""The MILWEB loader: shapes, the 75 / 38 split, the dropped label column."""

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from mil import Bags
from mil.datasets import MILWEB_USERS, load_milweb
from mil.datasets._milweb import ORIGINAL_COUNTS

# user -> (features after dropping the label column, positives in the 75 training bags,
# positives in the 38 test bags), from the MATLAB files (shared/datasets/milweb/README.md).
EXPECTED = {1: (5863, 17, 4), 2: (6519, 18, 3), 3: (6306, 14, 7), 4: (6059, 55, 33),
            5: (6407, 61, 26), 6: (6417, 59, 29), 7: (6450, 39, 15), 8: (5999, 35, 20),
            9: (6279, 37, 18)}


@pytest.mark.parametrize("user", MILWEB_USERS)
def test_shapes_split_and_labels(user):
    n_feat, train_pos, test_pos = EXPECTED[user]
    d = load_milweb(user)
    assert d.name == f"milweb{user}" and d.user == user
    assert len(d.data) == 113 and d.target.shape == (113,) and set(np.unique(d.target)) == {0, 1}
    assert all(sp.isspmatrix_csr(b) and b.shape[1] == n_feat for b in d.data)
    assert isinstance(d.bags, Bags) and d.bags.is_sparse and d.bags.n_instances == 3423
    assert d.bags.n_features == n_feat == len(d.feature_names)
    assert d.train_indices.tolist() == list(range(75)) and d.test_indices.tolist() == list(range(75, 113))
    assert int(d.target[d.train_indices].sum()) == train_pos
    assert int(d.target[d.test_indices].sum()) == test_pos
    X = d.bags.instances
    assert X.data.min() > 0 and X.data.max() <= 1.0
    # No column is the bag label copied to the instances (the .mat files' last column).
    label = d.target[d.bags.instance_bag].astype(np.float64)
    n_pos = label.sum()
    is_label = ((X.getnnz(axis=0) == n_pos) & np.isclose(np.asarray(X.sum(axis=0)).ravel(), n_pos)
                & np.isclose(X.T @ label, n_pos))
    assert not is_label.any()
    # Density as documented (about 0.3 % of the entries are non-zero).
    assert 0.002 < X.nnz / (X.shape[0] * X.shape[1]) < 0.004
    assert f"user {user}" in d.DESCR and "75" in d.DESCR


def test_published_counts_differ_as_documented():
    # Users 1, 2, 3, 8, 9 match the original distribution's class counts exactly;
    # 4-7 differ by one bag in one part (documented in load_milweb).
    for user, (n_feat, train_pos, test_pos) in EXPECTED.items():
        pos_tr, neg_tr, pos_te, neg_te = ORIGINAL_COUNTS[user]
        assert pos_tr + neg_tr == 75 and pos_te + neg_te == 38
        diff = abs(pos_tr - train_pos) + abs(pos_te - test_pos)
        assert diff == (0 if user in (1, 2, 3, 8, 9) else 1 if user in (4, 6, 7) else 2)


def test_options_and_bad_user():
    X, y = load_milweb(2, return_X_y=True)
    assert len(X) == 113 and y.shape == (113,)
    bags, _ = load_milweb(2, return_X_y=True, as_bags=True)
    assert isinstance(bags, Bags) and bags.is_sparse
    dense = load_milweb(9, as_bags=True, dense=True)
    sparse = load_milweb(9, as_bags=True)
    assert not dense.bags.is_sparse
    first = sparse.bags[0]
    assert np.array_equal(dense.bags[0], first.toarray())
    for bad in (0, 10, "1", 1.0, True):
        with pytest.raises(ValueError, match="user must be one of 1..9"):
            load_milweb(bad)


def _mat_dir():
    for up in (2, 3):
        p = Path(__file__).resolve().parents[up] / "shared" / "datasets" / "milweb"
        if (p / "web1.mat").exists():
            return p
    return None


@pytest.mark.skipif(_mat_dir() is None, reason="the MATLAB source files are not next to the repository")
def test_values_equal_the_mat_file():
    import scipy.io

    cells = scipy.io.loadmat(_mat_dir() / "web3.mat")["data"]
    d = load_milweb(3)
    for j in (0, 74, 75, 112):
        assert np.array_equal(d.data[j].toarray(), cells[j, 0][:, :-1])
        assert d.target[j] == int(np.ravel(cells[j, 1])[0])


def test_reproduce_milweb_quick_and_command(tmp_path, capsys):
    import json

    from mil.cli import main
    from mil.reproduce import milweb_table, reproduce_milweb

    r = reproduce_milweb(quick=True, curves=False)
    assert r.datasets == ("user1",) and len(r.learners) == 10
    for learner in r.learners:
        (acc,) = r.accuracy[learner]["user1"]
        assert 0.0 <= acc <= 1.0 and abs(acc * 38 - round(acc * 38)) < 1e-9  # a share of 38 bags
    assert r.best_params["citation-knn integrated"]["user1"][0]["sigma"] in (1, 10)
    rows = milweb_table(r)
    assert rows[0][0] == "citation-knn minimal" and len(rows[0]) == 3
    # The command: table, JSON, plots, and a clear error for a bad user or a densifying scale.
    assert main(["reproduce", "distances", "--data", "milweb", "--quick", "--quiet",
                 "--plot-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "user1" in out and "citation-knn integrated" in out and "38 test bags" in out
    assert (tmp_path / "milweb_integrated_references.png").exists()
    assert main(["reproduce", "distances", "--data", "milweb", "--quick", "--no-plots", "--json",
                 "--datasets", "user2"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc["accuracy"]["bag-knn maximal"]) == {"user2"}
    assert main(["reproduce", "distances", "--data", "milweb", "--datasets", "10"]) == 2
    assert main(["reproduce", "distances", "--data", "milweb", "--scale", "standard"]) == 2
    assert "sparse bags dense" in capsys.readouterr().err


def test_nested_cv_on_a_predefined_split():
    from mil import CitationKNNClassifier
    from mil.distances import hausdorff_all
    from mil.model_selection import nested_cv

    d = load_milweb(8, as_bags=True)
    grid = [{"references": [3], "citers": [5]}]
    res = nested_cv(CitationKNNClassifier(scale=None), grid, d.bags, d.target,
                    [(d.train_indices, d.test_indices)], inner_cv=5)
    # The same fit by hand on the 75 training bags, scored on the 38 test bags.
    D = hausdorff_all(d.bags)["minimal"]
    clf = CitationKNNClassifier(references=3, citers=5, metric="precomputed")
    tr, te = d.train_indices, d.test_indices
    clf.fit(D[np.ix_(tr, tr)], d.target[tr])
    assert res.test_scores.tolist() == [float(np.mean(clf.predict(D[np.ix_(te, tr)]) == d.target[te]))]
    with pytest.raises(ValueError, match="disjoint"):
        nested_cv(CitationKNNClassifier(scale=None), grid, d.bags, d.target, [(tr, tr)])

"""Regression tests of the second reliability audit (one test or group per audit item)."""

import numpy as np
import pytest

from mil import BagKNNClassifier, CitationKNNClassifier


def _bags(seed, n_bags=40, n_features=3, low=1.0, high=100.0):
    rng = np.random.default_rng(seed)
    X = [rng.uniform(low, high, size=(rng.integers(1, 5), n_features)) for _ in range(n_bags)]
    y = np.arange(n_bags) % 2
    rng.shuffle(y)
    return X, y


# -- item 1: standardisation at extreme magnitudes ---------------------------------------------
@pytest.mark.parametrize("factor", [1e160, 1e-170, 2.0 ** 600, 2.0 ** -600])
@pytest.mark.parametrize("scale", ["standard", "minmax"])
def test_item1_scaling_invariant_to_extreme_rescaling(backend, factor, scale):
    X, y = _bags(0)
    for est in (BagKNNClassifier(scale=scale), CitationKNNClassifier(scale=scale)):
        ref = est.fit(X, y).predict(X)
        got = est.fit([b * factor for b in X], y).predict([b * factor for b in X])
        np.testing.assert_array_equal(got, ref)
        assert np.all(np.abs(est.scale_ / factor) > 0)


# -- item 3: load_csv keeps bag ids as written and refuses rows without one ----------------------
from mil.datasets import from_frame, load_csv  # noqa: E402


def _csv(tmp_path, text):
    p = tmp_path / "t.csv"
    p.write_text(text)
    return p


def test_item3_load_csv_row_without_bag_id_raises(tmp_path):
    p = _csv(tmp_path, "bag,label,x\n1,1,0.5\n,1,2.0\n,1,3.0\n2,0,1.0\n")
    with pytest.raises(ValueError, match="line 3 has no bag id"):
        load_csv(p)


def test_item3_load_csv_ids_kept_as_written(tmp_path):
    p = _csv(tmp_path, "bag,label,x\n1,1,0.5\n01,0,2.0\n2,0,1.0\n")
    d = load_csv(p)
    assert d.bag_ids.tolist() == ["01", "1", "2"]
    assert [b.shape[0] for b in d.data] == [1, 1, 1]
    # Canonical integer ids stay integers.
    d = load_csv(_csv(tmp_path, "bag,label,x\n10,1,0.5\n2,0,2.0\n"))
    assert d.bag_ids.tolist() == [2, 10]


# -- item 6: CSV line numbers after blank lines; from_frame with a None bag id -------------------
def test_item6_csv_error_line_after_blank_lines(tmp_path):
    p = _csv(tmp_path, "bag,label,x\n\n1,1,0.5\n\n\n2,0,abc\n")
    with pytest.raises(ValueError, match="line 6, column 'x'"):
        load_csv(p)


def test_item6_from_frame_none_bag_id():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"bag": ["a", None, "b"], "label": [1, 1, 0], "x": [0.5, 2.0, 1.0]})
    with pytest.raises(ValueError, match="missing id"):
        from_frame(df)


# -- item 4: exact ties follow the documented rule whatever the labels are called ----------------
from mil import MIRandomForestClassifier  # noqa: E402
from mil.wrappers import SimpleMIClassifier  # noqa: E402


def _renamed(y):
    # 1 -> "a_pos" (sorts first), 0 -> "b_neg": the positive class moves to classes_[0].
    return np.where(np.asarray(y) == 1, "a_pos", "b_neg")


def test_item4_simplemi_tie_independent_of_label_names(backend):
    # Two identical bags with opposite labels make a leaf of one positive and one negative.
    X = [np.array([[0.0]]), np.array([[0.0]]), np.array([[10.0]]), np.array([[11.0]]), np.array([[12.0]])]
    y = np.array([1, 0, 0, 0, 0])
    for est in (None, "tree"):
        from mil.tree import C45MIClassifier
        inner = None if est is None else C45MIClassifier(min_bags_leaf=1, pruning=False)
        a = SimpleMIClassifier(inner).fit(X, y)
        b = SimpleMIClassifier(inner).fit(X, _renamed(y))
        pa, pb = a.predict(X), b.predict(X)
        np.testing.assert_array_equal(_renamed(pa), pb)
        np.testing.assert_allclose(a.predict_proba(X)[:, ::-1], b.predict_proba(X))
        # The tie goes to the heavier class (0 / "b_neg": four bags against one).
        assert pa[0] == 0 and pb[0] == "b_neg"


def test_item4_forest_exact_half_goes_negative(backend):
    rng = np.random.default_rng(3)
    seen_tie = 0
    for seed in range(40):
        X = [rng.normal(size=(rng.integers(1, 4), 2)) for _ in range(12)]
        y = np.array([0, 1] * 6)
        kw = dict(n_estimators=2, max_features=None, random_state=seed)
        a = MIRandomForestClassifier(**kw).fit(X, y)
        b = MIRandomForestClassifier(positive_class="a_pos", **kw).fit(X, _renamed(y))
        pa, pb = a.predict_proba(X), b.predict_proba(X)
        seen_tie += int((np.abs(pa[:, 1] - 0.5) < 1e-15).sum())
        np.testing.assert_array_equal(_renamed(a.predict(X)), b.predict(X))
        np.testing.assert_array_equal(pa[:, ::-1], pb)
        assert a.sharpness_ == b.sharpness_
        # An exact 1/2 is settled negative, on both columns orders.
        assert not np.any(pa[:, 1] == pa[:, 0])
    assert seen_tie > 0  # the case the test is about occurred


# -- item 5: kernel entry points validate what they trust ---------------------------------------
import subprocess  # noqa: E402
import sys  # noqa: E402
import textwrap  # noqa: E402

from mil._core import kernel  # noqa: E402


def _run_isolated(code, backend):
    """Run `code` in a fresh interpreter (a segfault fails the test instead of killing pytest)."""
    env_code = textwrap.dedent(f"""
        import numpy as np
        from mil._core import use_backend, kernel
        with use_backend({backend!r}):
            k = kernel("_rule_split"); h = kernel("_hausdorff"); t = kernel("_tree_split")
    """) + textwrap.dedent(code)
    proc = subprocess.run([sys.executable, "-c", env_code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
    return proc.stdout


def _presort(k, n_bags=5):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2 * n_bags, 3))
    return k.presort(X, np.arange(0, 2 * n_bags + 1, 2, dtype=np.intp)), X


def test_item5_presorted_fields_are_read_only(backend):
    k = kernel("_rule_split")
    pre, _ = _presort(k)
    for name in ("n_bags", "sorted_bag", "order", "sorted_vals", "one_per_bag"):
        with pytest.raises(AttributeError, match="read-only"):
            setattr(pre, name, 1)
    with pytest.raises(ValueError):
        pre.order[0, 0] = 3


@pytest.mark.parametrize("forged", ["sorted_bag", "order"])
def test_item5_forged_presorted_raises(backend, forged):
    k = kernel("_rule_split")
    pre, _ = _presort(k)
    fields = {"sorted_vals": pre.sorted_vals, "order": pre.order.copy(), "sorted_bag": pre.sorted_bag.copy()}
    fields[forged][0, 0] = 10 ** 6
    with pytest.raises(ValueError, match=forged):
        k.Presorted(fields["sorted_vals"], fields["order"], fields["sorted_bag"], pre.n_bags)
    with pytest.raises(ValueError, match="n_bags"):
        k.Presorted(pre.sorted_vals, pre.order, pre.sorted_bag, 0)


def test_item5_kernel_crash_repros_raise(backend):
    # Each snippet crashed the compiled module (SIGSEGV) or never returned before the checks.
    out = _run_isolated("""
        rng = np.random.default_rng(0)
        X = rng.normal(size=(10, 3))
        off = np.arange(0, 11, 2, dtype=np.intp)
        pre = k.presort(X, off)
        msgs = []
        # a compacted presort from an out= whose rows outside start:stop were never written
        act = np.ones(10, np.uint8); act[::3] = 0
        m = int(act.sum())
        out = (np.empty((3, m)), np.full((3, m), 10 ** 6, np.int32), np.full((3, m), -5, np.int32))
        k.best_conditions(pre, act, np.array([1, 0, 1, 0, 1], np.uint8), 3.0, 2.0, 1, start=0, stop=1, out=out)
        try:
            bad = pre.compacted(*out)
        except ValueError as e:
            msgs.append("compacted")
        # forged fields: construction refuses, attributes cannot be swapped
        order = pre.order.copy(); order[1, 2] = -7
        try:
            k.compact(k.Presorted(pre.sorted_vals, order, pre.sorted_bag, 5), np.ones(10, np.uint8))
        except ValueError:
            msgs.append("forged")
        try:
            pre.n_bags = 1
        except AttributeError:
            msgs.append("n_bags")
        # _hausdorff._fill with bad offsets (private, called directly)
        if hasattr(h, "_fill"):
            outs = [np.zeros((2, 2)) for _ in range(3)]
            try:
                h._fill(X, np.array([0, 50, 10], np.intp), X, np.array([0, 50, 10], np.intp), True,
                        *outs, 0, 2, 64)
            except ValueError:
                msgs.append("fill")
        else:
            msgs.append("fill")
        # _tree_split._apply on a cyclic tree
        feat = np.array([0, 0, 0], np.intp); thr = np.zeros(3); ml = np.zeros(3, np.uint8)
        left = np.array([1, 0, -1], np.intp); right = np.array([2, 0, -1], np.intp)
        try:
            t._apply(X, feat, thr, ml, left, right)
        except ValueError:
            msgs.append("apply")
        print(",".join(msgs))
    """, backend)
    assert out.strip() == "compacted,forged,n_bags,fill,apply"


def test_item6_hausdorff_matrices_nan_raises_on_both_backends(backend):
    h = kernel("_hausdorff")
    X = np.array([[0.0], [np.nan], [1.0]])
    off = np.array([0, 2, 3], dtype=np.intp)
    outs = [np.zeros((2, 2)) for _ in range(3)]
    with pytest.raises(ValueError, match="NaN or infinite"):
        h.hausdorff_matrices(X, off, None, None, True, *outs, 0, 2, 64)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
@pytest.mark.parametrize("where", ["X", "Y"])
def test_minima_and_set_kernel_reject_non_finite_instances_on_both_backends(backend, bad, where):
    # Without the check the compiled minima skip NaN while the twin propagates it.
    clean = np.array([[0.0], [2.0], [1.0]])
    dirty = clean.copy()
    dirty[1, 0] = bad
    X, Y = (dirty, clean) if where == "X" else (clean, dirty)
    off = np.array([0, 2, 3], dtype=np.intp)
    m = kernel("_hausdorff")
    with pytest.raises(ValueError, match="NaN or infinite"):
        m.instance_bag_minima(X, off, Y, off, False, np.zeros((3, 2)), None, 0, 2, 64)
    sk = kernel("_set_kernel")
    w = np.ones(3)
    with pytest.raises(ValueError, match="NaN or infinite"):
        sk.set_kernel_matrices(X, off, w, Y, off, w, False, np.array([1.0]), np.zeros((1, 2, 2)), 0, 2, 64)
    if where == "X":
        with pytest.raises(ValueError, match="NaN or infinite"):
            m.instance_bag_minima(X, off, None, None, True, np.zeros((3, 2)), None, 0, 2, 64)
        with pytest.raises(ValueError, match="NaN or infinite"):
            sk.set_kernel_diagonal(X, off, w, np.array([1.0]), np.zeros((1, 2)))


# -- item 6: Bags changed after construction ---------------------------------------------------
from mil import Bags  # noqa: E402
from mil._bag_arrays import stack_dense  # noqa: E402
from mil.utils.validation import check_bags  # noqa: E402


@pytest.mark.parametrize("change", ["negative", "decreasing", "past_end", "instances_1d"])
def test_item6_bags_changed_after_construction(backend, change):
    X, y = _bags(1, n_bags=12)
    bags = Bags.from_list(X)
    if change == "negative":
        bags.offsets = bags.offsets.copy()
        bags.offsets[3] = -1
    elif change == "decreasing":
        bags.offsets = bags.offsets.copy()
        bags.offsets[[3, 4]] = bags.offsets[[4, 3]]
    elif change == "past_end":
        bags.offsets = bags.offsets.copy()
        bags.offsets[-1] += 5
    else:
        bags.instances = bags.instances[:, 0]
    with pytest.raises(ValueError, match="changed after construction"):
        check_bags(bags)
    for est in (SimpleMIClassifier(), BagKNNClassifier()):
        with pytest.raises(ValueError, match="changed after construction"):
            est.fit(bags, y)


# -- item 9: many small bags validated in one vectorised pass ----------------------------------
def test_item9_many_small_bags_vectorised_path_matches_loop():
    rng = np.random.default_rng(0)
    one = [rng.normal(size=(1, 30)) for _ in range(1593)]
    mixed = [rng.integers(0, 5, size=(rng.integers(1, 4), 3)) for _ in range(50)]
    for X in (one, mixed, tuple(mixed), np.stack([b for b in one[:20]])):
        fast = stack_dense(X, allow_nan=False)
        assert fast is not None
        instances, offsets = fast
        np.testing.assert_array_equal(instances, np.concatenate(list(X)).astype(np.float64))
        np.testing.assert_array_equal(offsets, np.r_[0, np.cumsum([len(b) for b in X])])
        assert instances.dtype == np.float64 and instances.flags.c_contiguous
        assert not np.shares_memory(instances, X[0])
    # Anything unusual goes to the per-bag loop, which names the bag.
    bad = one[:5] + [np.array([[np.nan] * 30])]
    assert stack_dense(bad, allow_nan=False) is None
    with pytest.raises(ValueError, match="bag 5"):
        check_bags(bad)
    assert stack_dense(bad, allow_nan=True) is not None
    assert stack_dense(one[:3] + [np.zeros((0, 30))], allow_nan=False) is None
    assert stack_dense([np.zeros((2, 3)), np.zeros((2, 4))], allow_nan=False) is None
    assert stack_dense([np.array([["a"]])], allow_nan=False) is None


# -- item 6: ARFF nominal values with quoted commas, duplicate bag ids --------------------------
from mil.datasets import load_arff  # noqa: E402

_ARFF = """@relation t
@attribute id {b1,b2}
@attribute bag relational
  @attribute f1 numeric
  @attribute f2 {'a,b',c}
@end bag
@attribute class {0,1}
@data
"""


def test_item6_arff_nominal_value_with_quoted_comma(tmp_path):
    p = tmp_path / "t.arff"
    p.write_text(_ARFF + "b1,\"1.0,'a,b'\\n2.0,c\",1\nb2,\"3.0,c\",0\n")
    d = load_arff(p)
    np.testing.assert_array_equal(d.data[0], [[1.0, 0.0], [2.0, 1.0]])
    np.testing.assert_array_equal(d.data[1], [[3.0, 1.0]])


def test_item6_arff_duplicate_bag_ids(tmp_path):
    p = tmp_path / "t.arff"
    p.write_text(_ARFF + "b1,\"1.0,c\",1\nb1,\"3.0,c\",0\n")
    with pytest.raises(ValueError, match="appears again .* with another label"):
        load_arff(p)
    p.write_text(_ARFF + "b1,\"1.0,c\",1\nb1,\"3.0,c\",1\n")
    with pytest.warns(UserWarning, match="appears again"):
        d = load_arff(p)
    assert len(d.data) == 2


# -- item 7: fit keeps (and computes) only the matrices it needs -------------------------------
import mil.neighbors._base as _knn_module  # noqa: E402
from mil.distances import hausdorff  # noqa: E402


def _spy_all_from_bags(monkeypatch):
    calls = []
    real = _knn_module.all_from_bags

    def spy(X, Y, n_jobs=None, block_size=None, out=None):
        calls.append((Y is None, None if out is None else sorted(out)))
        return real(X, Y, n_jobs=n_jobs, block_size=block_size, out=out)

    monkeypatch.setattr(_knn_module, "all_from_bags", spy)
    return calls


@pytest.mark.parametrize("metric, knn_kinds, citation_kinds", [
    ("minimal", None, ["minimal"]), ("average", None, ["average"]),
    ("adapted", None, ["average", "maximal", "minimal"]),
    ("integrated", ["maximal", "minimal"], ["maximal", "minimal"])])
def test_item7_fit_computes_only_needed_matrices(backend, monkeypatch, metric, knn_kinds, citation_kinds):
    X, y = _bags(2, n_bags=30)
    calls = _spy_all_from_bags(monkeypatch)
    BagKNNClassifier(metric=metric).fit(X, y)
    assert calls == ([] if knn_kinds is None else [(True, knn_kinds)])
    calls.clear()
    est = CitationKNNClassifier(metric=metric).fit(X, y)
    assert calls == [(True, citation_kinds)]
    # The thresholds are those of the full train-vs-train matrix.
    scaled = [(b - est.offset_) / est.scale_ for b in X]
    kw = {"alpha": est.alpha_} if metric == "integrated" else {"y": y} if metric == "adapted" else {}
    D = hausdorff(scaled, kind=metric, **kw)
    np.fill_diagonal(D, np.inf)
    np.testing.assert_allclose(est.citer_threshold_, np.sort(D, axis=1)[:, est.citers - 1], rtol=1e-12)


# -- item 8: the distance kernel runs with one BLAS thread per strip of ours ---------------------
def test_item8_kernel_runs_with_one_blas_thread(backend, monkeypatch):
    from threadpoolctl import threadpool_info

    from mil.distances import hausdorff_all

    seen = []
    k = kernel("_hausdorff")
    real = k.hausdorff_matrices
    # The BLAS of NumPy and SciPy, which the kernel and its twin call. Another package may bring
    # a BLAS of its own that they never call (faiss-cpu's is OpenMP-threaded: a new thread starts
    # at the default count); where NumPy's and SciPy's cannot be told apart (one shared BLAS),
    # every BLAS counts.
    blas = {p["filepath"] for p in threadpool_info() if p["user_api"] == "blas"}
    ours = {f for f in blas if "numpy" in f or "scipy" in f} or blas

    def spy(*args):
        seen.append(max(p["num_threads"] for p in threadpool_info() if p["filepath"] in ours))
        return real(*args)

    monkeypatch.setattr(k, "hausdorff_matrices", spy)
    X, _ = _bags(3, n_bags=30)
    ref = hausdorff_all(X, n_jobs=1)
    for n_jobs in (None, 2):
        got = hausdorff_all(X, n_jobs=n_jobs)
        for kind in ref:
            np.testing.assert_array_equal(got[kind], ref[kind])
    assert seen and set(seen) == {1}


def test_item2_citation_knn_tiny_features_beside_large_ones(backend):
    # Features of magnitude 1e-200 beside one instance of 1e3: before, the centred expansion
    # lost every small distance and Citation-KNN voted on ties; now it predicts as with
    # exact distances.
    from mil._distance_exact import exact_pair

    rng = np.random.default_rng(5)
    X = [rng.uniform(1, 100, size=(rng.integers(1, 4), 2)) * 1e-200 for _ in range(24)]
    X[0] = np.vstack([X[0], [[1e3, 1e3]]])
    y = np.arange(24) % 2
    exact = np.array([[0.0 if i == j else exact_pair(a, b)[2] for j, b in enumerate(X)]
                      for i, a in enumerate(X)])
    ref = CitationKNNClassifier(metric="precomputed").fit(exact, y)
    est = CitationKNNClassifier(metric="average", scale=None).fit(X, y)
    np.testing.assert_array_equal(est.predict(X), ref.predict(exact))


def test_item8_concurrent_calls_restore_blas_threads(backend):
    import threading

    from threadpoolctl import threadpool_info

    from mil.distances import hausdorff_all

    def blas_threads():
        return sorted(p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas")

    rng = np.random.default_rng(0)
    X = [rng.normal(size=(40, 20)) for _ in range(60)]  # large enough for threads of ours
    hausdorff_all(X)
    before = blas_threads()
    workers = [threading.Thread(target=lambda: [hausdorff_all(X) for _ in range(3)]) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert blas_threads() == before

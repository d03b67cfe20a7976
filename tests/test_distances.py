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
    # (Centred on the column bags, the training side: 2 to ~1e-14 relative.)
    assert hausdorff(X[:1], X[1:], kind="adapted", y=[1], y_other=[1])[0, 0] == pytest.approx(2.0, rel=1e-12)


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
    import mil._distance_engine as md
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
    import mil._distance_engine as md

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


def _reference(bags_a, bags_b):
    """Brute-force minimal / maximal / average distances by differences (cdist)."""
    out = np.zeros((3, len(bags_a), len(bags_b)))
    for i, a in enumerate(bags_a):
        for j, b in enumerate(bags_b):
            D = cdist(a, b)
            r, c = D.min(axis=1), D.min(axis=0)
            out[:, i, j] = D.min(), max(r.max(), c.max()), (r.sum() + c.sum()) / (len(r) + len(c))
    return out


@pytest.mark.parametrize("factor", [1e300, 1e200, 1e160, 1e-165, 1e-250, 1e-300])
def test_whole_finite_range(backend, factor):
    # Before, inputs above ~1e154 gave inf (compiled) or NaN (twin) and below
    # ~1e-162 every distance was 0: the expansion's squares left float64.
    rng = np.random.default_rng(1)
    bags = [rng.normal(size=(int(rng.integers(1, 5)), 3)) for _ in range(5)]
    bags.append(bags[1].copy())  # identical bags: distance exactly 0
    scaled = [b * factor for b in bags]
    d = hausdorff_all(scaled)
    ref = _reference(bags, bags) * factor
    for i, kind in enumerate(("minimal", "maximal", "average")):
        assert np.isfinite(d[kind]).all()
        np.testing.assert_allclose(d[kind], ref[i], rtol=1e-12, atol=0)
        assert d[kind][1, 5] == d[kind][5, 1] == 0.0
    rect = hausdorff_all(scaled[:3], scaled)
    assert rect["maximal"][1, 5] == 0.0
    np.testing.assert_allclose(rect["average"], ref[2][:3], rtol=1e-12, atol=0)


def test_distances_beyond_float64_raise(backend):
    bags = [np.array([[1e308, -1e308]]), np.array([[-1e308, 1e308]])]
    with pytest.raises(ValueError, match="exceed the largest float64"):
        hausdorff_all(bags)
    # The largest finite inputs still work when their distances are representable.
    big = np.finfo(float).max
    d = hausdorff_all([np.array([[big]]), np.array([[big / 2]]), np.array([[big]])])
    assert d["minimal"][0, 1] == big / 2 and d["minimal"][0, 2] == 0.0


def test_test_distances_do_not_depend_on_the_batch(backend):
    # Centred on the training bags, not on the query batch: a query bag's
    # distances are the same bits alone or among others.
    rng = np.random.default_rng(2)
    train = [rng.normal(5.0, 1.0, size=(int(rng.integers(1, 6)), 4)) for _ in range(8)]
    query = [rng.normal(50.0, 10.0, size=(int(rng.integers(1, 6)), 4)) for _ in range(6)] + train[:2]
    batch = hausdorff_all(query, train)
    for i, q in enumerate(query):
        alone = hausdorff_all([q], train)
        for kind in batch:
            np.testing.assert_array_equal(alone[kind][0], batch[kind][i])


@pytest.mark.parametrize("factor", [1e300, 1e-300])
def test_whole_finite_range_sparse(backend, factor):
    # The sparse path (CSR bags) gets the same power-of-two scaling; before,
    # 1e200 gave NaN and 1e-200 all zeros there too.
    import scipy.sparse as sp

    rng = np.random.default_rng(3)
    bags = [rng.normal(size=(int(rng.integers(1, 4)), 3)) for _ in range(4)]
    bags.append(bags[0].copy())
    ref = _reference(bags, bags) * factor
    d = hausdorff_all([sp.csr_matrix(b * factor) for b in bags])
    for i, kind in enumerate(("minimal", "maximal", "average")):
        np.testing.assert_allclose(d[kind], ref[i], rtol=1e-12, atol=0)
        assert d[kind][0, 4] == 0.0


# -- accuracy contract (audit round 2, item 2) -------------------------------------------------
from decimal import Decimal, localcontext  # noqa: E402
from fractions import Fraction  # noqa: E402

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

#: The documented accuracy contract of mil.distances for d <= 3 features
#: (relative error at most (d + 2) * 2**-53 / EXACT_BELOW + 2**-33).
CONTRACT_RTOL = 1e-9


def _exact_reference(A, B):
    """Minimal, maximal, average distances of one pair, exactly (Fractions) then to 40 digits."""
    sq = [[sum((Fraction(float(x)) - Fraction(float(y))) ** 2 for x, y in zip(a, b)) for b in B] for a in A]
    rows = [min(r) for r in sq]
    cols = [min(c) for c in zip(*sq)]
    with localcontext() as ctx:
        ctx.prec = 40

        def root(f):
            return (Decimal(f.numerator) / Decimal(f.denominator)).sqrt()

        r, c = [root(v) for v in rows], [root(v) for v in cols]
        return min(r), max(max(r), max(c)), (sum(r) + sum(c)) / (len(r) + len(c))


#: Below the smallest normal double a distance is only representable to the subnormal spacing.
_TINY = Decimal(np.finfo(float).tiny)
_SPACING = Decimal(np.nextafter(0.0, 1.0))


def _close(got, exact):
    if exact == 0:
        return got == 0
    return abs(Decimal(float(got)) - exact) <= Decimal(CONTRACT_RTOL) * exact + (
        2 * _SPACING if exact < _TINY else 0)


_magnitude = st.builds(lambda s, m, e: s * m * 10.0 ** e, st.sampled_from([-1.0, 1.0]),
                       st.floats(1.0, 9.99), st.integers(-322, 299))  # subnormals included
_value = st.one_of(_magnitude, st.just(0.0), st.floats(1.0, 2.0))


@st.composite
def _mixed_bags(draw):
    d = draw(st.integers(1, 3))
    n = draw(st.integers(2, 4))
    bags = [np.array(draw(st.lists(st.lists(_value, min_size=d, max_size=d), min_size=1, max_size=3)))
            for _ in range(n)]
    # Near-duplicates at the same magnitude as a neighbour, the cancellation case.
    if draw(st.booleans()):
        src = bags[0][0]
        bags[-1] = np.vstack([bags[-1], src * (1 + draw(st.sampled_from([1e-15, 1e-9, 3.0])))])
    return bags


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bags=_mixed_bags())
def test_item2_accuracy_contract_over_magnitudes(backend, bags):
    # Magnitudes from subnormal (1e-322) to 1e300 mixed within and across bags, against an
    # exact brute force.
    try:
        got = hausdorff_all(bags)
    except ValueError as exc:  # a distance beyond the float64 maximum is refused, never wrong
        assert "exceed the largest float64" in str(exc)
        return
    for i in range(len(bags)):
        for j in range(i + 1, len(bags)):
            ref = _exact_reference(bags[i], bags[j])
            for kind, exact in zip(("minimal", "maximal", "average"), ref):
                assert _close(got[kind][i, j], exact), (kind, i, j, got[kind][i, j], exact)
                assert got[kind][j, i] == got[kind][i, j]


def test_item2_small_distances_beside_large_values(backend):
    # Issue repro: the expansion on centred data cancelled to 0 / lost four digits.
    got = hausdorff_all([[[1e-30]], [[3e-30], [1e3]]])["minimal"][0, 1]
    assert got == pytest.approx(2e-30, rel=1e-12, abs=0)
    got = hausdorff_all([[[1e-10]], [[2e-10], [1e3]]])["minimal"][0, 1]
    assert got == pytest.approx(1e-10, rel=1e-12, abs=0)
    rect = hausdorff_all([[[1e-10]]], [[[2e-10], [1e3]]])["minimal"][0, 0]
    assert rect == pytest.approx(1e-10, rel=1e-12, abs=0)
    # Subnormal features beside normal ones.
    got = hausdorff_all([[[1e-320, 0.0]], [[3e-320, 0.0], [1.0, 1.0]]])
    assert got["minimal"][0, 1] == pytest.approx(2e-320, rel=1e-2, abs=0)


_square_safe = st.builds(lambda s, m, e: s * m * 10.0 ** e, st.sampled_from([-1.0, 1.0]),
                         st.floats(1.0, 9.99), st.integers(-140, 140))


@st.composite
def _mixed_bags_square_safe(draw):
    # Magnitudes whose squares stay normal doubles: M holds squared distances.
    d = draw(st.integers(1, 3))
    value = st.one_of(_square_safe, st.just(0.0), st.floats(1.0, 2.0))
    bags = [np.array(draw(st.lists(st.lists(value, min_size=d, max_size=d), min_size=1, max_size=3)))
            for _ in range(draw(st.integers(2, 4)))]
    if draw(st.booleans()):
        bags[-1] = np.vstack([bags[-1], bags[0][0] * (1 + draw(st.sampled_from([1e-15, 1e-9, 3.0])))])
    return bags


def _exact_squared_minima(rows, cols):
    out = []
    for a in np.vstack(rows):
        out.append([min(sum((Fraction(float(x)) - Fraction(float(y))) ** 2 for x, y in zip(a, b)) for b in B)
                    for B in cols])
    return out


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bags=_mixed_bags_square_safe())
def test_item2_instance_bag_minima_accurate_over_magnitudes(backend, bags):
    # The instance-to-bag minima follow the same rule: entries that the centred
    # kernel cannot vouch for are recomputed from the original instances.
    from mil.distances import instance_bag_minima

    half = len(bags) // 2
    try:
        sym = instance_bag_minima(bags)
        xy, yx = instance_bag_minima(bags[:half], bags[half:], both=True)
    except ValueError as exc:
        assert "exceed the largest float64" in str(exc)
        return
    for got, rows, cols in ((sym, bags, bags), (xy, bags[:half], bags[half:]), (yx, bags[half:], bags[:half])):
        exact = _exact_squared_minima(rows, cols)
        for a, row in enumerate(exact):
            for j, e in enumerate(row):
                if e == 0:
                    assert got[a, j] == 0, (a, j, got[a, j])
                else:
                    assert abs(Fraction(float(got[a, j])) - e) <= Fraction(2 * CONTRACT_RTOL) * e, (a, j, got[a, j], float(e))


def test_item2_instance_bag_minima_small_beside_large(backend):
    from mil.distances import instance_bag_minima

    M = instance_bag_minima([[[1e-30]], [[3e-30], [1e3]]])
    assert M[0, 1] == pytest.approx(4e-60, rel=1e-12, abs=0)
    M = instance_bag_minima([[[1e-10]]], [[[2e-10], [1e3]]])
    assert M[0, 0] == pytest.approx(1e-20, rel=1e-12, abs=0)


# -- tied data: integer-valued features ----------------------------------------------------------
@st.composite
def _tied_bags(draw):
    # Small integer values (many identical instances across bags), times a power of two or a
    # decimal unit, plus an offset: the data of counts, pixels and Musk's features.
    d = draw(st.integers(1, 3))
    unit = draw(st.sampled_from([1.0, 2.0 ** -30, 2.0 ** 40, 0.1, 1e-200, 1e200]))
    offset = draw(st.sampled_from([0.0, 1e8, -3.0, 0.5]))
    bags = [np.array(draw(st.lists(st.lists(st.integers(-2, 2), min_size=d, max_size=d), min_size=1,
                                   max_size=4)), dtype=float) * unit + offset
            for _ in range(draw(st.integers(2, 5)))]
    return bags


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bags=_tied_bags())
def test_tied_integer_data_is_exact_on_both_backends(backend, bags):
    from mil.distances import instance_bag_minima

    got = hausdorff_all(bags)
    for i in range(len(bags)):
        for j in range(i + 1, len(bags)):
            ref = _exact_reference(bags[i], bags[j])
            for kind, exact in zip(("minimal", "maximal", "average"), ref):
                assert _close(got[kind][i, j], exact), (kind, i, j, got[kind][i, j], exact)
    rows = np.vstack(bags)
    if np.abs(rows).max() > 1e100 or np.abs(rows[rows != 0]).min(initial=1.0) < 1e-100:
        return  # squared minima beyond the normal doubles: covered by the magnitude test above
    minima = instance_bag_minima(bags)
    for j, col in enumerate(bags):
        for a, row in enumerate(rows):
            exact = min(sum((Fraction(float(x)) - Fraction(float(z))) ** 2 for x, z in zip(row, c)) for c in col)
            assert _close(minima[a, j], Decimal(exact.numerator) / Decimal(exact.denominator)), (a, j)


def test_tied_integer_data_needs_no_pair_recomputed(backend, monkeypatch):
    # Integer features tie many pairs at distance 0: centred exactly, none is recomputed one by
    # one (before, every tied pair was: 140 times the time of float features of the same shape).
    import mil._distance_exact as ex

    calls = []
    real = ex._recomputed_pair
    monkeypatch.setattr(ex, "_recomputed_pair", lambda *a: calls.append(1) or real(*a))
    rng = np.random.default_rng(0)
    X = [rng.integers(0, 3, size=(rng.integers(2, 8), 2)).astype(float) + 7.0 for _ in range(60)]
    got = hausdorff_all(X)
    assert calls == []
    assert (got["minimal"] == 0).mean() > 0.5
    np.testing.assert_allclose(got["minimal"], _reference(X, X)[0], rtol=1e-12, atol=0)
    np.testing.assert_allclose(got["average"], _reference(X, X)[2], rtol=1e-12, atol=0)
    Q = [b[::-1] + 1.0 for b in X[:9]]
    np.testing.assert_allclose(hausdorff_all(Q, X)["maximal"], _reference(Q, X)[1], rtol=1e-12, atol=0)
    assert calls == []

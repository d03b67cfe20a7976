"""Extreme magnitudes and cancellation in the embeddings, the set kernels and the EMD.

Regression tests (MInD and the dissimilarity embedding at small magnitudes,
the set kernel's small distances beside large values, the set kernel and the
bag-kernel SVMs at extreme magnitudes, the earth mover's distance at extreme
magnitudes), then a hypothesis fuzz of every one of them from 1e-300 to 1e300
against exact references: rational arithmetic (``fractions``) for the
squared distances, 40-digit decimals for their roots, ``math.exp`` on the
correctly rounded exponent, ``math.fsum``; the classifiers against the same
classifier fitted on the features brought back to magnitudes near 1 by a
power of two.
"""

import itertools
import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from mil.distances import hausdorff
from mil.embedding import BagDissimilarityEmbedding, MInDClassifier
from mil.svm import BagKernelSVC, emd_distances, set_kernel
from mil.utils.estimator_checks import make_toy_bags

pot = pytest.importorskip("ot", reason="the EMD needs the optional POT library")


# -- exact references ------------------------------------------------------------------------
def _sq(a, b):
    """Exact squared distance of two float64 vectors."""
    return sum((Fraction(float(x)) - Fraction(float(y))) ** 2 for x, y in zip(a, b))


def _root(f):
    """The square root of a Fraction to 40 digits."""
    with localcontext() as ctx:
        ctx.prec = 40
        return (Decimal(f.numerator) / Decimal(f.denominator)).sqrt()


def exact_set_kernel(A_list, B_list, gamma):
    """Unnormalised set kernels: exact squared distances, exp of the correctly rounded exponent, fsum."""
    g = Fraction(float(gamma))
    out = np.zeros((len(A_list), len(B_list)))
    for i, A in enumerate(A_list):
        for j, B in enumerate(B_list):
            terms = []
            for a in A:
                for b in B:
                    t = g * _sq(a, b)
                    terms.append(0.0 if t > 800 else math.exp(-float(t)))
            out[i, j] = math.fsum(terms)
    return out


#: The set kernel's documented relative bound for d <= 3 features and bags of at most 4
#: instances: TERM_RTOL from the expansion and TERM_RTOL from the centring per term, the
#: recomputed squared distances' (d + 2) 2**-53 times gamma d2 <= 746, the exponential and
#: the sum's rounding.
TERM_RTOL = 2.0 ** -33  # mil.svm._kernels.TERM_RTOL
SET_KERNEL_RTOL = 2 * TERM_RTOL + 746 * 5 * 2.0 ** -53 + 64 * 2.0 ** -53


# -- item 2: MInD and the dissimilarity embedding at small magnitudes --------------------------
def _mind_data():
    X, y = make_toy_bags(n_bags=30, random_state=0)
    return X, y


@pytest.mark.parametrize("factor", [1e-155, 1e-170, 1e-300, 1e160, 1e300])
def test_mind_at_extreme_magnitudes_matches_magnitude_one(backend, factor):
    # Before: x 1e-170 to 1e-300 gave probability 0.5 for every bag without a warning,
    # x 1e-155 "Input X contains NaN" on some data, x 1e300 a ValueError.
    X, y = _mind_data()
    ref = MInDClassifier(cv=1).fit(X, y)
    Xs = [b * factor for b in X]
    got = MInDClassifier(cv=1).fit(Xs, y)
    np.testing.assert_allclose(got.decision_function(Xs), ref.decision_function(X), rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(got.predict(Xs), ref.predict(X))
    assert np.unique(got.predict_proba(Xs)[:, 1]).size > 1


def test_mind_power_of_two_factor_gives_the_same_model(backend):
    X, y = _mind_data()
    ref = MInDClassifier(cv=3, random_state=0).fit(X, y)
    for k in (-900, -600, 600):
        Xs = [np.ldexp(b, k) for b in X]
        got = MInDClassifier(cv=3, random_state=0).fit(Xs, y)
        assert got.best_params_["C"] == ref.best_params_["C"]
        np.testing.assert_allclose(got.predict_proba(Xs), ref.predict_proba(X), rtol=1e-9, atol=1e-12)


def test_mind_absolute_gamma_refers_to_the_features_as_given(backend):
    # scale=None divides extreme features by a power of two; an absolute gamma keeps its meaning.
    X, y = _mind_data()
    ref = MInDClassifier(gamma=0.05, cv=1).fit(X, y)
    Xs = [np.ldexp(b, 450) for b in X]
    got = MInDClassifier(gamma=np.ldexp(0.05, -900), cv=1).fit(Xs, y)
    assert got.scale_ is not None  # the features were divided by a power of two
    np.testing.assert_allclose(got.decision_function(Xs), ref.decision_function(X), rtol=1e-9, atol=1e-12)


def test_miles_scale_none_power_of_two_and_absolute_sigma(backend):
    # MILES shares the embedding classifiers' fit: scale=None at extreme magnitudes divides by
    # a power of two, and an absolute sigma refers to the features as given.
    from mil.embedding import MILESClassifier

    X, y = _mind_data()
    for sigma, k in ((None, -600), (None, 700), (0.7, 450), (0.7, -450)):
        ref = MILESClassifier(sigma=sigma, scale=None, cv=1, random_state=0).fit(X, y)
        Xs = [np.ldexp(b, k) for b in X]
        got = MILESClassifier(sigma=None if sigma is None else np.ldexp(sigma, k), scale=None, cv=1,
                              random_state=0)
        got.fit(Xs, y)
        assert got.scale_ is not None
        np.testing.assert_allclose(got.decision_function(Xs), ref.decision_function(X), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("kind", ["meanmin", "minmin", "maxmin", "hausdorff", "average"])
@pytest.mark.parametrize("factor", [1e-170, 1e-300, 1e300])
def test_dissimilarity_embedding_keeps_small_and_large_distances(backend, kind, factor):
    # Before: the embedding of [A * 1e-170, B * 1e-170] was all zeros (the squared minima
    # underflowed) while hausdorff(kind="maximal") gave the exact 2e-170.
    A, B = np.array([[0.0], [1.0]]), np.array([[2.0], [3.0]])
    bags = [A * factor, B * factor]
    D = BagDissimilarityEmbedding(scale=None, dissimilarity=kind).fit_transform(bags)
    expected = {"meanmin": 1.5, "minmin": 1.0, "maxmin": 2.0, "hausdorff": 2.0, "average": 1.5}[kind]
    np.testing.assert_allclose(D, np.array([[0.0, expected], [expected, 0.0]]) * factor, rtol=1e-12, atol=0)
    if kind == "hausdorff":
        np.testing.assert_allclose(D, hausdorff(bags, kind="maximal"), rtol=1e-12, atol=0)


# -- item 3: the set kernel's small distances beside large values -----------------------------
def test_set_kernel_small_distance_beside_large_value(backend):
    # Before: 1.0 on both backends (the expansion and the centring cancelled 0.01 away).
    exact = math.exp(-0.01)
    got = set_kernel([[[0.0]]], [[[1e8], [0.1]]], gamma=1, normalize="none")[0, 0]
    assert got == pytest.approx(exact, rel=1e-14, abs=0)
    got = set_kernel([[[0.0]], [[1e8], [0.1]]], gamma=1, normalize="none")[0, 1]
    assert got == pytest.approx(exact, rel=1e-14, abs=0)


def test_set_kernel_one_outlier_among_ten_bags(backend):
    # Before: a normalised-kernel error of 3e-3 (unnormalised 3.4e-3 relative).
    rng = np.random.default_rng(0)
    bags = [rng.normal(size=(3, 2)) for _ in range(10)]
    bags[4][1, 0] = 1e8
    ref = exact_set_kernel(bags, bags, 1.0)
    K = set_kernel(bags, gamma=1.0, normalize="none")
    np.testing.assert_allclose(K, ref, rtol=SET_KERNEL_RTOL, atol=0)
    Kn = set_kernel(bags, gamma=1.0)
    np.testing.assert_allclose(Kn, ref / np.sqrt(np.outer(np.diag(ref), np.diag(ref))),
                               rtol=2 * SET_KERNEL_RTOL, atol=0)
    rect = set_kernel(bags[3:6], bags, gamma=[0.5, 1.0], normalize="none")[1]
    np.testing.assert_allclose(rect, ref[3:6], rtol=SET_KERNEL_RTOL, atol=0)


# -- item 4: the set kernel and the NSK / miGraph SVMs at extreme magnitudes -------------------
@pytest.mark.parametrize("factor", [1e160, 1e300, 1e-170, 1e-300])
def test_set_kernel_at_extreme_magnitudes(backend, factor):
    # Before: OverflowError (34, 'Numerical result out of range') near 1e160 and
    # "gammas must be finite and > 0; got [0.0]" near 1e-170 with gamma=1.
    X, _ = make_toy_bags(n_bags=6, random_state=0)
    Xs = [b * factor for b in X]
    got = set_kernel(Xs, gamma=1.0, normalize="none")
    np.testing.assert_allclose(got, exact_set_kernel(Xs, Xs, 1.0), rtol=SET_KERNEL_RTOL, atol=0)
    # A gamma of the magnitude's inverse square (where float64 holds it): the kernel of the
    # bags brought near 1.
    e = int(np.frexp(factor)[1])
    with np.errstate(over="ignore", under="ignore"):
        g = np.ldexp(1.0, -2 * e)
    if not 0.0 < g < np.inf:
        return
    P = [np.ldexp(b, -e) for b in Xs]
    ref = exact_set_kernel(P, P, 1.0)
    np.testing.assert_allclose(set_kernel(Xs, gamma=g, normalize="none"), ref, rtol=SET_KERNEL_RTOL, atol=0)
    np.testing.assert_allclose(set_kernel(Xs[:2], Xs, gamma=[g, 2 * g], normalize="none")[0], ref[:2],
                               rtol=SET_KERNEL_RTOL, atol=0)


def test_migraph_weights_at_extreme_magnitudes():
    from mil.svm import migraph_weights

    bag = np.array([[0.0], [0.1], [0.2], [5.0]])
    ref = migraph_weights([bag])
    for factor in (1e-170, 1e-300, 1e300):
        np.testing.assert_array_equal(migraph_weights([bag * factor]), ref)
    np.testing.assert_array_equal(migraph_weights([bag * 1e-170], epsilon=0.15e-170), migraph_weights([bag], epsilon=0.15))


def test_set_kernel_beyond_double_precision_is_a_clear_error(backend):
    with pytest.raises(ValueError, match="beyond double precision"):
        set_kernel([[[1e307], [0.0]], [[1.0]]], gamma=1e10)


@pytest.mark.parametrize("kernel", ["nsk", "migraph"])
@pytest.mark.parametrize("factor", [1e160, 1e-170, 1e300, 1e-300])
def test_bag_kernel_svc_at_extreme_magnitudes(backend, kernel, factor):
    X, y = make_toy_bags(n_bags=30, random_state=0)
    ref = BagKernelSVC(kernel=kernel, scale=None, cv=1).fit(X, y)
    Xs = [b * factor for b in X]
    got = BagKernelSVC(kernel=kernel, scale=None, cv=1).fit(Xs, y)
    np.testing.assert_allclose(got.decision_function(Xs), ref.decision_function(X), rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(got.predict(Xs), ref.predict(X))


def test_bag_kernel_svc_absolute_gamma_refers_to_the_features_as_given(backend):
    X, y = make_toy_bags(n_bags=30, random_state=0)
    ref = BagKernelSVC(kernel="nsk", scale=None, cv=1, gamma=0.3, gamma_scale="absolute").fit(X, y)
    # gamma 0.3 on the features times 2**-700: every term exp(-0.3 d**2) is 1 in float64.
    Xs = [np.ldexp(b, -700) for b in X]
    got = BagKernelSVC(kernel="nsk", scale=None, cv=1, gamma=0.3, gamma_scale="absolute").fit(Xs, y)
    assert np.ptp(got.decision_function(Xs)) == 0.0
    got = BagKernelSVC(kernel="nsk", scale=None, cv=1, gamma=np.ldexp(0.3, 1000),
                       gamma_scale="absolute").fit([np.ldexp(b, -500) for b in X], y)
    np.testing.assert_allclose(got.decision_function([np.ldexp(b, -500) for b in X]),
                               ref.decision_function(X), rtol=1e-9, atol=1e-12)


# -- item 5: the earth mover's distance at extreme magnitudes ---------------------------------
def test_emd_extreme_magnitudes(backend):
    # Before: inf, 0.0, and 0.0 with only POT's "Problem infeasible" warning.
    assert emd_distances([[[1e155]]], [[[0.0]]])[0, 0] == 1e155
    assert emd_distances([[[1e-170], [2e-170]]], [[[0.0]]])[0, 0] == pytest.approx(1.5e-170, rel=1e-15)
    assert emd_distances([[[1e300], [-1e300]]], [[[0.0]]])[0, 0] == 1e300
    assert emd_distances([[[1e300], [-1e300]]], [[[0.0]]], metric="cityblock")[0, 0] == 1e300
    with pytest.raises(ValueError, match="exceeds the largest float64"):
        emd_distances([[[1e300], [-1e300]]], [[[0.0]]], metric="sqeuclidean")
    assert emd_distances([[[3e-160]]], [[[0.0]]], metric="sqeuclidean")[0, 0] == pytest.approx(9e-320, rel=1e-3)


def test_emd_svm_at_extreme_magnitudes(backend):
    # Before: 0.5 training accuracy (scale=None) with overflow warnings at x 1e160.
    X, y = make_toy_bags(n_bags=30, random_state=0)
    ref = BagKernelSVC(kernel="emd", scale=None, cv=1).fit(X, y)
    for factor in (1e160, 1e-170):
        Xs = [b * factor for b in X]
        got = BagKernelSVC(kernel="emd", scale=None, cv=1).fit(Xs, y)
        np.testing.assert_allclose(got.decision_function(Xs), ref.decision_function(X), rtol=1e-6, atol=1e-8)


# -- the magnitude fuzz: 1e-300 to 1e300 against exact references ------------------------------
_FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
_mantissa = st.floats(1.0, 9.99)
_sign = st.sampled_from([-1.0, 1.0])


def _magnitude(low=-300, high=300):
    return st.builds(lambda s, m, e: s * m * 10.0 ** e, _sign, _mantissa, st.integers(low, high))


@st.composite
def _clustered_bags(draw, max_bags=4, max_size=3):
    """Bags around an offset of any magnitude with a spread of any smaller magnitude (the
    cancellation case), sometimes an outlier of any magnitude, sometimes a near-duplicate."""
    d = draw(st.integers(1, 3))
    e_spread = draw(st.integers(-300, 300))
    offset = draw(st.one_of(st.just(0.0), _magnitude(e_spread, min(300, e_spread + 12))))
    spread = st.builds(lambda s, m: s * m * 10.0 ** e_spread, _sign, st.floats(0.0, 9.99))
    bags = [offset + np.array(draw(st.lists(st.lists(spread, min_size=d, max_size=d), min_size=1,
                                            max_size=max_size)))
            for _ in range(draw(st.integers(2, max_bags)))]
    if draw(st.booleans()):
        b = draw(st.integers(0, len(bags) - 1))
        bags[b] = np.vstack([bags[b], np.array(draw(st.lists(_magnitude(), min_size=d, max_size=d)))])
    if draw(st.booleans()):
        bags[-1] = np.vstack([bags[-1], bags[0][0] * (1 + draw(st.sampled_from([1e-15, 1e-9, 1e-3])))])
    return bags, e_spread


@_FUZZ
@given(case=_clustered_bags(), g0=st.floats(1e-2, 1e2))
def test_fuzz_set_kernel_over_magnitudes(backend, case, g0):
    # gamma of the bags' spread (every term counts) or 1 (most terms 0 or 1).
    bags, e_spread = case
    gamma = g0 * 10.0 ** (-2 * e_spread) if abs(e_spread) <= 150 else 1.0
    try:
        got = set_kernel(bags, gamma=gamma, normalize="none")
    except ValueError as exc:
        _assert_beyond_double_precision(exc, bags, gamma)
        return
    ref = exact_set_kernel(bags, bags, gamma)
    np.testing.assert_allclose(got, ref, rtol=SET_KERNEL_RTOL, atol=1e-305)
    rect = set_kernel(bags[:1], bags, gamma=[gamma, 2 * gamma], normalize="none")[0]
    np.testing.assert_allclose(rect, ref[:1], rtol=SET_KERNEL_RTOL, atol=1e-305)
    cos = set_kernel(bags, gamma=gamma)
    np.testing.assert_allclose(cos, ref / np.sqrt(np.outer(np.diag(ref), np.diag(ref))),
                               rtol=2 * SET_KERNEL_RTOL, atol=1e-305)


@_FUZZ
@given(case=_clustered_bags(max_bags=3), gamma=st.floats(1e-300, 1e300))
def test_fuzz_set_kernel_any_gamma_exact_or_clear_error(backend, case, gamma):
    bags, _ = case
    try:
        got = set_kernel(bags, gamma=gamma, normalize="none")
    except ValueError as exc:
        _assert_beyond_double_precision(exc, bags, gamma)
        return
    np.testing.assert_allclose(got, exact_set_kernel(bags, bags, gamma), rtol=SET_KERNEL_RTOL, atol=1e-305)


def _assert_beyond_double_precision(exc, bags, gamma):
    # The documented error: gamma times the squared largest magnitude beyond about 2**1000.
    assert "beyond double precision" in str(exc)
    top = max(float(np.abs(b).max()) for b in bags)
    assert math.log2(gamma) + 2 * math.log2(top) > 990


#: The EMD's documented bound: relative (costs exact to (d + 2) 2**-53, the solver's sum of
#: at most 9 products); absolute, (n_a + n_b) 2**-50 times the pair's largest ground cost (the
#: network simplex's potentials are doubles of that size), and the costs lost below the
#: smallest subnormal once the pair is scaled to a largest magnitude of 2**400.
EMD_RTOL = 1e-13
EMD_COST_RTOL = 2.0 ** -50


def _exact_costs(A, B, metric):
    sq = [[_sq(a, b) for b in B] for a in A]
    if metric == "sqeuclidean":
        return [[Decimal(f.numerator) / Decimal(f.denominator) for f in row] for row in sq]
    if metric == "cityblock":
        return [[Decimal(sum(abs(Fraction(float(x)) - Fraction(float(y))) for x, y in zip(a, b)).numerator)
                 / Decimal(sum(abs(Fraction(float(x)) - Fraction(float(y))) for x, y in zip(a, b)).denominator)
                 for b in B] for a in A]
    return [[_root(f) for f in row] for row in sq]


def exact_emd(A, B, metric):
    """Uniform-weight EMD (the mean cost to a singleton, or the best assignment of equal-size
    bags) and the largest ground cost."""
    with localcontext() as ctx:
        ctx.prec = 40
        C = _exact_costs(A, B, metric)
        top = max(max(row) for row in C)
        if len(B) == 1:
            return sum(row[0] for row in C) / len(A), top
        perms = itertools.permutations(range(len(B)))
        return min(sum(C[i][p[i]] for i in range(len(A))) for p in perms) / len(A), top


@st.composite
def _emd_pair(draw):
    d = draw(st.integers(1, 3))
    value = st.one_of(_magnitude(), st.just(0.0), st.floats(1.0, 2.0))
    n = draw(st.integers(1, 3))
    A = np.array(draw(st.lists(st.lists(value, min_size=d, max_size=d), min_size=n, max_size=n)))
    m = draw(st.sampled_from([1, n]))
    B = np.array(draw(st.lists(st.lists(value, min_size=d, max_size=d), min_size=m, max_size=m)))
    if draw(st.booleans()):  # near-duplicates across the pair
        B[0] = A[0] * (1 + draw(st.sampled_from([0.0, 1e-15, 1e-9])))
    return A, B


@_FUZZ
@given(pair=_emd_pair(), metric=st.sampled_from(["euclidean", "sqeuclidean", "cityblock"]))
def test_fuzz_emd_over_magnitudes(backend, pair, metric):
    A, B = pair
    exact, max_cost = exact_emd(A, B, metric)
    try:
        got = emd_distances([A], [B], metric=metric)[0, 0]
    except ValueError as exc:
        assert "exceeds the largest float64" in str(exc)
        assert exact > Decimal(np.finfo(float).max) * Decimal("0.999999")
        return
    top = Decimal(max(float(np.abs(A).max()), float(np.abs(B).max())))
    p = 2 if metric == "sqeuclidean" else 1
    # Costs in the subnormal range once the pair is scaled to a largest magnitude of 2**400.
    lost = (top * Decimal(2) ** -400) ** p * Decimal(2) ** -1074 * 9
    solver = Decimal(EMD_COST_RTOL) * (len(A) + len(B)) * max_cost
    assert abs(Decimal(float(got)) - exact) <= Decimal(EMD_RTOL) * exact + solver + lost + Decimal(2.0 ** -1074), \
        (got, exact)
    back = Decimal(float(emd_distances([B], [A], metric=metric)[0, 0]))
    assert abs(back - exact) <= Decimal(EMD_RTOL) * exact + solver + lost + Decimal(2.0 ** -1074)


#: The bag dissimilarities' bound: the distances contract of mil.distances for d <= 3.
DISSIMILARITY_RTOL = 1e-9


def _exact_dissimilarities(A, B):
    """meanmin, minmin, maxmin, hausdorff and average of A to B, to 40 digits."""
    with localcontext() as ctx:
        ctx.prec = 40
        R = [[_root(_sq(a, b)) for b in B] for a in A]
        rows = [min(r) for r in R]
        cols = [min(c) for c in zip(*R)]
        return {"meanmin": sum(rows) / len(rows), "minmin": min(rows), "maxmin": max(rows),
                "hausdorff": max(max(rows), max(cols)), "average": (sum(rows) + sum(cols)) / (len(rows) + len(cols))}


@st.composite
def _mixed_bags(draw):
    d = draw(st.integers(1, 3))
    value = st.one_of(_magnitude(), st.just(0.0), st.floats(1.0, 2.0))
    bags = [np.array(draw(st.lists(st.lists(value, min_size=d, max_size=d), min_size=1, max_size=3)))
            for _ in range(draw(st.integers(2, 4)))]
    if draw(st.booleans()):
        bags[-1] = np.vstack([bags[-1], bags[0][0] * (1 + draw(st.sampled_from([1e-15, 1e-9, 3.0])))])
    return bags


@_FUZZ
@given(bags=_mixed_bags(), kind=st.sampled_from(["meanmin", "minmin", "maxmin", "hausdorff", "average"]))
def test_fuzz_dissimilarity_embedding_over_magnitudes(backend, bags, kind):
    emb = BagDissimilarityEmbedding(dissimilarity=kind, scale=None)
    try:
        D = emb.fit(bags[1:]).transform(bags)
    except ValueError as exc:
        assert "exceed the largest float64" in str(exc)
        return
    tiny, spacing = Decimal(np.finfo(float).tiny), Decimal(2.0 ** -1074)
    for i, A in enumerate(bags):
        for j, B in enumerate(bags[1:]):
            exact = _exact_dissimilarities(A, B)[kind]
            got = Decimal(float(D[i, j]))
            assert abs(got - exact) <= Decimal(DISSIMILARITY_RTOL) * exact + (2 * spacing if exact < tiny else 0), \
                (kind, i, j, float(got), float(exact))


def _rescaled(bags):
    """The bags times the power of two that brings their largest magnitude to [0.5, 1) (exact)."""
    e = int(np.frexp(max(float(np.abs(b).max()) for b in bags))[1])
    return [np.ldexp(b, -e) for b in bags]


_BASE, _BASE_Y = make_toy_bags(n_bags=16, n_features=2, random_state=1)
_FACTOR = st.builds(lambda m, e: m * 10.0 ** e, _mantissa, st.integers(-300, 298))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(factor=_FACTOR, kind=st.sampled_from(["average", "meanmin", "hausdorff"]))
def test_fuzz_mind_over_magnitudes(backend, factor, kind):
    # Against MInD on the same bags brought to magnitudes near 1 by a power of two.
    Xs = [b * factor for b in _BASE]
    got = MInDClassifier(dissimilarity=kind, cv=1).fit(Xs, _BASE_Y)
    ref = MInDClassifier(dissimilarity=kind, cv=1).fit(_rescaled(Xs), _BASE_Y)
    np.testing.assert_allclose(got.decision_function(Xs), ref.decision_function(_rescaled(Xs)),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got.predict_proba(Xs), ref.predict_proba(_rescaled(Xs)), rtol=1e-6, atol=1e-8)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(factor=_FACTOR, kernel=st.sampled_from(["nsk", "migraph"]))
def test_fuzz_set_kernel_svms_over_magnitudes(backend, factor, kernel):
    Xs = [b * factor for b in _BASE]
    got = BagKernelSVC(kernel=kernel, scale=None, cv=1).fit(Xs, _BASE_Y)
    ref = BagKernelSVC(kernel=kernel, scale=None, cv=1).fit(_rescaled(Xs), _BASE_Y)
    np.testing.assert_allclose(got.decision_function(Xs), ref.decision_function(_rescaled(Xs)),
                               rtol=1e-6, atol=1e-8)


# -- the bag encoders and their classifiers from 1e-300 to 1e300 --------------------------------
#: Every encoder setting whose arithmetic depends on the features' magnitude: the scaling
#: (None divides by a power of two), the codebook normalisations (a code of raw residuals with
#: normalize=None), the kernel mean's maps and normalisations, the sliced-Wasserstein quantiles.
_ENCODER_SETTINGS = [
    ("VLADEmbedding", dict(n_clusters=3)),
    ("VLADEmbedding", dict(n_clusters=2, scale=None, power=1.0)),
    ("VLADEmbedding", dict(n_clusters=3, scale=None, normalize=None)),
    ("VLADEmbedding", dict(n_clusters=2, scale="minmax", normalize="intra")),
    ("FisherVectorEmbedding", dict(n_components=2)),
    ("FisherVectorEmbedding", dict(n_components=2, scale=None, normalize=None, power=1.0)),
    ("FisherVectorEmbedding", dict(n_components=1, scale="maxabs", normalize="intra")),
    ("KernelMeanEmbedding", dict(n_components=16)),
    ("KernelMeanEmbedding", dict(n_components=16, method="rff", scale=None)),
    ("KernelMeanEmbedding", dict(n_components=16, scale=None, normalize="weights")),
    ("KernelMeanEmbedding", dict(n_components=16, method="rff", scale="minmax", normalize=None)),
    ("SlicedWassersteinEmbedding", dict(n_directions=4, n_quantiles=3)),
    ("SlicedWassersteinEmbedding", dict(n_directions=4, n_quantiles=5, scale=None, interpolation="linear")),
    ("MILESEmbedding", dict(n_concepts=5)),
    ("MILESEmbedding", dict(n_concepts=5, scale=None)),
    ("MILESEmbedding", dict(n_concepts=None, scale=None)),
]


def _encoder(name, params):
    import mil.embedding

    return getattr(mil.embedding, name)(random_state=0, **params)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(factor=_FACTOR, setting=st.sampled_from(_ENCODER_SETTINGS))
def test_fuzz_encoders_over_magnitudes(backend, factor, setting):
    # Against the same encoder on the bags brought to magnitudes near 1 by a power of two:
    # the encoders see the features divided by a power of two (scale=None) or scaled, so the
    # encodings are the same, finite, and use the features' spread (not one value for all bags).
    Xs = [b * factor for b in _BASE]
    got = _encoder(*setting).fit(Xs).transform(Xs)
    ref = _encoder(*setting).fit(_rescaled(Xs)).transform(_rescaled(Xs))
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12)
    assert np.ptp(got, axis=0).max() > 1e-3


#: Every encoder-classifier setting that changes how magnitudes reach the model.
_CLASSIFIER_SETTINGS = [
    ("miVLADClassifier", dict()),
    ("miVLADClassifier", dict(model="svm", scale="standard", power=0.5)),
    ("miVLADClassifier", dict(normalize="intra", n_clusters=3)),
    ("miFVClassifier", dict()),
    ("miFVClassifier", dict(scale=None, encoding_scale=None, model="svm")),
    ("KernelMeanClassifier", dict(n_components=20)),
    ("KernelMeanClassifier", dict(n_components=20, method="rff", scale=None)),
    ("SlicedWassersteinClassifier", dict()),
    ("SlicedWassersteinClassifier", dict(p=2.0)),
    ("SlicedWassersteinClassifier", dict(model="logistic")),
    ("SlicedWassersteinClassifier", dict(model="svm", encoding_scale="standard")),
    ("SlicedWassersteinClassifier", dict(p=2.0, scale="standard")),
]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(factor=_FACTOR, setting=st.sampled_from(_CLASSIFIER_SETTINGS))
def test_fuzz_encoder_classifiers_over_magnitudes(backend, factor, setting):
    # Before: miVLAD (scale=None) gave one probability for every bag at x 1e-300 and x 1e300;
    # the sliced-Wasserstein SVM with p=2 was constant at x 1e-300 and raised "Input X contains
    # NaN" at x 1e300, and with model="logistic" was constant at x 1e+-150 and 1e+-300.
    import mil.embedding

    name, params = setting
    Xs = [b * factor for b in _BASE]
    make = lambda: getattr(mil.embedding, name)(C=1.0, cv=1, random_state=0, **params)  # noqa: E731
    got = make().fit(Xs, _BASE_Y)
    ref = make().fit(_rescaled(Xs), _BASE_Y)
    np.testing.assert_allclose(got.decision_function(Xs), ref.decision_function(_rescaled(Xs)),
                               rtol=1e-6, atol=1e-8)
    assert np.unique(np.round(got.predict_proba(Xs)[:, 1], 9)).size > 1


@pytest.mark.parametrize("factor", [1e-300, 1e-150, 1e150, 1e300])
def test_mivlad_and_sliced_wasserstein_at_extreme_magnitudes(backend, factor):
    from mil.embedding import SlicedWassersteinClassifier, miVLADClassifier

    X, y = make_toy_bags(n_bags=30, random_state=0)
    Xs = [b * factor for b in X]
    for clf in (miVLADClassifier(cv=1, random_state=0), SlicedWassersteinClassifier(p=2.0, cv=1, random_state=0),
                SlicedWassersteinClassifier(model="logistic", cv=1, random_state=0)):
        ref = type(clf)(**clf.get_params()).fit(_rescaled(Xs), y)
        got = clf.fit(Xs, y)
        assert np.unique(got.predict_proba(Xs)[:, 1].round(9)).size > 1
        assert (got.predict(Xs) == y).mean() > 0.6  # a constant output would score 0.5
        np.testing.assert_allclose(got.decision_function(Xs), ref.decision_function(_rescaled(Xs)), rtol=1e-6,
                                   atol=1e-8)

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
TERM_RTOL = 2.0 ** -34  # mil.svm._kernels.TERM_RTOL
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
    ref = MInDClassifier(cv=None).fit(X, y)
    Xs = [b * factor for b in X]
    got = MInDClassifier(cv=None).fit(Xs, y)
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
    ref = MInDClassifier(gamma=0.05, cv=None).fit(X, y)
    Xs = [np.ldexp(b, 450) for b in X]
    got = MInDClassifier(gamma=np.ldexp(0.05, -900), cv=None).fit(Xs, y)
    assert got.scale_ is not None  # the features were divided by a power of two
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


def test_set_kernel_beyond_double_precision_is_a_clear_error(backend):
    with pytest.raises(ValueError, match="beyond double precision"):
        set_kernel([[[1e307], [0.0]], [[1.0]]], gamma=1e10)


@pytest.mark.parametrize("kernel", ["nsk", "migraph"])
@pytest.mark.parametrize("factor", [1e160, 1e-170, 1e300, 1e-300])
def test_bag_kernel_svc_at_extreme_magnitudes(backend, kernel, factor):
    X, y = make_toy_bags(n_bags=30, random_state=0)
    ref = BagKernelSVC(kernel=kernel, scale=None, cv=None).fit(X, y)
    Xs = [b * factor for b in X]
    got = BagKernelSVC(kernel=kernel, scale=None, cv=None).fit(Xs, y)
    np.testing.assert_allclose(got.decision_function(Xs), ref.decision_function(X), rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(got.predict(Xs), ref.predict(X))


def test_bag_kernel_svc_absolute_gamma_refers_to_the_features_as_given(backend):
    X, y = make_toy_bags(n_bags=30, random_state=0)
    ref = BagKernelSVC(kernel="nsk", scale=None, cv=None, gamma=0.3, gamma_scale="absolute").fit(X, y)
    # gamma 0.3 on the features times 2**-700: every term exp(-0.3 d**2) is 1 in float64.
    Xs = [np.ldexp(b, -700) for b in X]
    got = BagKernelSVC(kernel="nsk", scale=None, cv=None, gamma=0.3, gamma_scale="absolute").fit(Xs, y)
    assert np.ptp(got.decision_function(Xs)) == 0.0
    got = BagKernelSVC(kernel="nsk", scale=None, cv=None, gamma=np.ldexp(0.3, 1000),
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
    ref = BagKernelSVC(kernel="emd", scale=None, cv=None).fit(X, y)
    for factor in (1e160, 1e-170):
        Xs = [b * factor for b in X]
        got = BagKernelSVC(kernel="emd", scale=None, cv=None).fit(Xs, y)
        np.testing.assert_allclose(got.decision_function(Xs), ref.decision_function(X), rtol=1e-6, atol=1e-8)

"""Multi-instance regression benchmarks rebuilt from their papers' recipes (distribution regression).

Law et al. (2018)'s chi-square bags, the rotated Gaussians of Poczos et al.
(2013) and Szabo et al. (2016), and the population statistics of Zaheer et
al. (2017): a bag is a sample from a distribution and its label a property
of that distribution. Re-implemented in NumPy from the papers' descriptions.
"""

import numpy as np
from sklearn.utils import Bunch, check_random_state

from mil.bags import Bags
from mil.datasets._checks import float_dtype, positive_int, real_number

__all__ = ["make_chisq_bags", "make_population_stats_bags", "make_rotated_gaussian_bags"]

# Law et al.'s varying-size design: the share of bags of each small size (the rest has `bag_size`).
_LAW_SIZES = ((20, 0.25), (100, 0.25))
_LAW_SMALL = 5


def _law_sizes(n_bags, bag_size, small_share, rng):
    """Bag sizes of Law et al.'s varying-size design, in a random order."""
    counts = [int(round(small_share * n_bags))] + [int(round(s * n_bags)) for _, s in _LAW_SIZES]
    if sum(counts) > n_bags:
        counts[0] = n_bags - sum(counts[1:])
    sizes = np.full(n_bags, bag_size, dtype=np.intp)
    sizes[:counts[0]] = _LAW_SMALL
    start = counts[0]
    for (size, _), n in zip(_LAW_SIZES, counts[1:]):
        sizes[start:start + n] = size
        start += n
    return sizes[rng.permutation(n_bags)]


def _bags_from_blocks(blocks, dtype):
    sizes = np.array([len(b) for b in blocks], dtype=np.intp)
    offsets = np.zeros(len(blocks) + 1, dtype=np.intp)
    np.cumsum(sizes, out=offsets[1:])
    instances = np.concatenate(blocks).astype(dtype, copy=False)
    return Bags(np.ascontiguousarray(instances), offsets)


def make_chisq_bags(n_bags=1000, *, bag_size=1000, n_features=5, df_range=(4.0, 8.0), noise=1.0,
                    small_share=None, dtype=np.float64, random_state=None):
    """Bags of scaled chi-square samples whose label is the degrees of freedom (Law et al. 2018).

    The toy problem of Law, Sutherland, Sejdinovic and Flaxman (AISTATS
    2018): a bag's label is y ~ U(`df_range`), and each entry of each of its
    instances is an independent chi2(df = y) / y draw plus N(0, `noise`)
    noise. Every entry has mean 1 and variance 2 / y + `noise`, so the label
    lives in the spread of a bag, not in its mean: mean pooling fails,
    second-moment and kernel-mean features succeed.

    Their fixed-size experiment (Table 1) uses 1,000 instances of 5
    features per bag with ``noise=1``, 1,000 training and 1,000 test bags;
    the published test MSEs are 0.170 (Bayes-optimal), 0.235 (RBF network),
    0.228 (Bayesian linear regression) and 0.227 (Bayesian distribution
    regression). Their varying-size experiment (Figure 4) has no noise
    (``noise=0``) and bags of 5, 20, 100 or 1,000 instances: 25 % of 20,
    25 % of 100, a share ``small_share`` (0 to 0.5) of 5 and the rest of
    ``bag_size``.

    Parameters
    ----------
    n_bags : int, default=1000
    bag_size : int, default=1000
        Instances per bag (the large bags of the varying-size design).
    n_features : int, default=5
    df_range : (float, float), default=(4.0, 8.0)
        Range of the uniform label (the degrees of freedom).
    noise : float, default=1.0
        **Variance** of the Gaussian noise added to every entry (0: none).
    small_share : float, default=None
        None: every bag has ``bag_size`` instances. A share in [0, 0.5]:
        Law et al.'s varying-size design with this share of 5-instance bags.
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    data : Bunch
        ``bags`` (a :class:`~mil.Bags`; ``data`` is the same object),
        ``target`` (float64 labels) and ``DESCR``.

    References
    ----------
    H. C. L. Law, D. J. Sutherland, D. Sejdinovic and S. Flaxman, "Bayesian
    Approaches to Distribution Regression", AISTATS 2018 (PMLR 84).

    Examples
    --------
    >>> from mil.datasets import make_chisq_bags
    >>> d = make_chisq_bags(20, bag_size=100, random_state=0)
    >>> d.bags.n_bags, d.bags.n_instances, d.bags.n_features
    (20, 2000, 5)
    >>> bool((d.target >= 4).all() and (d.target <= 8).all())
    True
    """
    n_bags = positive_int(n_bags, "n_bags")
    bag_size = positive_int(bag_size, "bag_size")
    n_features = positive_int(n_features, "n_features")
    try:
        low, high = (float(v) for v in df_range)
    except (TypeError, ValueError):
        raise ValueError(f"df_range must be a (low, high) pair; got {df_range!r}") from None
    if not 0 < low <= high:
        raise ValueError(f"df_range must satisfy 0 < low <= high; got {df_range!r}")
    noise = real_number(noise, "noise", 0.0)
    dtype = float_dtype(dtype)
    rng = check_random_state(random_state)
    target = rng.uniform(low, high, size=n_bags)
    if small_share is None:
        sizes = np.full(n_bags, bag_size, dtype=np.intp)
    else:
        sizes = _law_sizes(n_bags, bag_size, real_number(small_share, "small_share", 0.0, 0.5), rng)
    blocks = []
    for y, size in zip(target, sizes):
        block = rng.chisquare(y, size=(int(size), n_features)) / y
        if noise > 0:
            block += np.sqrt(noise) * rng.standard_normal(block.shape)
        blocks.append(block)
    bags = _bags_from_blocks(blocks, dtype)
    shape = f"{bag_size}" if small_share is None else f"5-{bag_size} (share of 5: {small_share:g})"
    descr = (f"Chi-square bags (Law et al. 2018)\n\n{n_bags} bags of {shape} instances x {n_features} "
             f"features; label y ~ U({low:g}, {high:g}); entries chi2(y) / y + N(0, {noise:g}).\n")
    return Bunch(data=bags, bags=bags, target=target, DESCR=descr)


def _rotation(angle):
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s], [s, c]])


def _rotated_gaussians(n_bags, bag_size, label, rng):
    """Bags, labels and angles of the rotated 2-d Gaussians."""
    factor = rng.random_sample((2, 2))
    angles = np.linspace(0.0, np.pi, n_bags)
    blocks, target = [], np.empty(n_bags)
    for i, angle in enumerate(angles):
        transform = _rotation(angle) @ factor
        blocks.append(rng.standard_normal((bag_size, 2)) @ transform.T)
        variance = (transform @ transform.T)[0, 0]
        power = 2 if label == "squared" else 1
        target[i] = 0.5 * np.log(2 * np.pi * np.e * variance ** power)
    return blocks, target, angles


def make_rotated_gaussian_bags(n_bags=100, *, bag_size=500, label="entropy", dtype=np.float64,
                               random_state=None):
    """Bags of rotated 2-d Gaussian samples labelled by the entropy of their first coordinate.

    The distribution-regression test of Poczos et al. (2013) and Szabo et
    al. (2016): a 2x2 matrix A with U[0, 1) entries is drawn once; bag i is
    `bag_size` draws of R(alpha_i) A z with z ~ N(0, I_2) and the rotation
    angles alpha_i evenly spaced on [0, pi]. With M = R A A^T R^T, the
    label is:

    ``"entropy"``
        1/2 ln(2 pi e M[0, 0]): the differential entropy of the first
        coordinate, whose variance is M[0, 0] (Poczos et al. 2013).
    ``"squared"``
        1/2 ln(2 pi e M[0, 0]^2): the formula of the ITE toolbox's and the
        Deep Sets population-statistics code, which squares the variance.

    Both are deterministic, smooth functions of the angle; no published
    table goes with them (kernel-mean ridge regression is expected to reach
    a test R^2 above 0.95 at 100 bags of 500).

    Parameters
    ----------
    n_bags : int, default=100
        Number of bags (of angles). The bags come in the order of their
        angles: shuffle before splitting.
    bag_size : int, default=500
    label : {"entropy", "squared"}, default="entropy"
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64
    random_state : int, RandomState instance or None, default=None
        Seeds the matrix A and the samples.

    Returns
    -------
    data : Bunch
        ``bags`` (``data`` is the same object), ``target``, ``angles`` and
        ``DESCR``.

    References
    ----------
    B. Poczos, A. Singh, A. Rinaldo and L. Wasserman, "Distribution-Free
    Distribution Regression", AISTATS 2013 (PMLR 31).

    Z. Szabo, B. K. Sriperumbudur, B. Poczos and A. Gretton, "Learning
    Theory for Distribution Regression", JMLR 17(152), 2016.

    Examples
    --------
    >>> from mil.datasets import make_rotated_gaussian_bags
    >>> d = make_rotated_gaussian_bags(10, bag_size=50, random_state=0)
    >>> d.bags.n_bags, d.bags.n_features, d.angles[-1].round(4)
    (10, 2, np.float64(3.1416))
    """
    n_bags = positive_int(n_bags, "n_bags")
    bag_size = positive_int(bag_size, "bag_size")
    if label not in ("entropy", "squared"):
        raise ValueError(f"label must be 'entropy' or 'squared'; got {label!r}")
    dtype = float_dtype(dtype)
    blocks, target, angles = _rotated_gaussians(n_bags, bag_size, label, check_random_state(random_state))
    bags = _bags_from_blocks(blocks, dtype)
    descr = (f"Rotated Gaussian bags (Poczos et al. 2013; Szabo et al. 2016)\n\n{n_bags} bags of {bag_size} "
             f"2-d instances; label: {label} of the first coordinate's variance.\n")
    return Bunch(data=bags, bags=bags, target=target, angles=angles, DESCR=descr)


def _total_correlation(factor):
    """Sum of the marginal entropies minus the joint entropy of N(0, L L^T), L lower triangular."""
    cov_diag = (factor ** 2).sum(axis=1)
    return 0.5 * np.log(cov_diag).sum() - np.log(np.diag(factor)).sum()


def _normalised_gram(rng, dim):
    """(B B^T + I) / ||B||_F^2 with B of U[0, 1) entries (the Deep Sets covariance recipe)."""
    b = rng.random_sample((dim, dim))
    return (b @ b.T + np.eye(dim)) / (b ** 2).sum()


def _task2(n_bags, bag_size, rng):
    if n_bags % 4:
        raise ValueError(f"task 2 needs n_bags divisible by 4 (a grid of +-rho values); got {n_bags}")
    grid = np.linspace(0.01, 0.99, n_bags // 4)
    rho = np.sort(np.concatenate([grid, np.sqrt(1 - np.exp(-4 * grid))]))
    rho = np.sort(np.concatenate([-rho, rho]))
    half = _normalised_gram(rng, 8)
    blocks, target = [], np.empty(n_bags)
    for i, r in enumerate(rho):
        cov = np.block([[half, r * half], [r * half, half]])
        factor = np.linalg.cholesky(cov)
        blocks.append(rng.standard_normal((bag_size, 16)) @ factor.T)
        target[i] = -4.0 * np.log1p(-r * r)  # exact I(first 8; last 8) = -(8 / 2) log(1 - rho^2)
    return blocks, target, rho


def _task3(n_bags, bag_size, rng):
    v = rng.random_sample(32)
    v /= np.linalg.norm(v)
    t = np.linspace(0.0, 1.0, n_bags)
    blocks, target = [], np.empty(n_bags)
    for i, ti in enumerate(t):
        factor = np.linalg.cholesky(np.eye(32) + ti * np.outer(v, v))
        blocks.append(rng.standard_normal((bag_size, 32)) @ factor.T)
        target[i] = _total_correlation(factor)
    return blocks, target, t


def _task4(n_bags, bag_size, rng):
    blocks, target = [], np.empty(n_bags)
    for i in range(n_bags):
        factor = np.linalg.cholesky(_normalised_gram(rng, 32))
        blocks.append(rng.standard_normal((bag_size, 32)) @ factor.T)
        target[i] = _total_correlation(factor)
    return blocks, target, None


def make_population_stats_bags(task=1, n_bags=1024, *, bag_size=512, dtype=np.float64, random_state=None):
    """Bags of Gaussian samples labelled by a population statistic (the Deep Sets tasks 1-4).

    The four population-statistics tasks of Zaheer et al. (2017), each bag a
    sample of `bag_size` points from a Gaussian and its label an exact
    statistic of that Gaussian:

    1. **Entropy** (2-d): the rotated Gaussians of
       :func:`make_rotated_gaussian_bags`, labelled by the entropy of the
       first coordinate, 1/2 ln(2 pi e M[0, 0]).
    2. **Mutual information** (16-d): N(0, [[A, rho A], [rho A, A]]) with
       A = (B B^T + I) / ||B||_F^2, B an 8x8 matrix of U[0, 1) entries drawn
       once, and rho on the Deep Sets grid (+-linspace(0.01, 0.99) and
       +-sqrt(1 - exp(-4 linspace(0.01, 0.99))), n_bags / 4 values each);
       label: the mutual information between the first and the last 8
       coordinates, -4 ln(1 - rho^2). ``n_bags`` must be divisible by 4.
    3. **Multi-information of a rank-one update** (32-d): N(0, I + t v v^T)
       with v a unit vector of positive entries drawn once and t evenly
       spaced on [0, 1]; label: the total correlation (sum of the marginal
       entropies minus the joint entropy), 1/2 sum ln diag(S) - 1/2 ln det S.
    4. **Multi-information of random covariances** (32-d): one random
       A = (B B^T + I) / ||B||_F^2 per bag (B 32x32, U[0, 1) entries); same
       label as task 3.

    The Deep Sets code differs in ways that change the labels' scale but
    not their order: task 1 squares the variance inside the logarithm
    (``label="squared"`` of :func:`make_rotated_gaussian_bags`), task 2
    labels a bag -1/2 ln(1 - rho^2) and tasks 2 and 4 draw the points with
    the transposed Cholesky factor (a covariance other than the one the
    label describes). Here every label is the exact statistic of the
    distribution the bag is drawn from. No published table goes with these
    tasks (the paper plots test error against the number of training
    bags); they are correctness and scaling tests.

    Parameters
    ----------
    task : {1, 2, 3, 4}, default=1
    n_bags : int, default=1024
        Bags of tasks 1-3 come in the order of their parameter (angle, rho,
        t): shuffle before splitting.
    bag_size : int, default=512
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64
    random_state : int, RandomState instance or None, default=None
        Seeds the fixed matrices (A, B, v) and the samples: draw one set and
        split it, since two seeds give two different fixed matrices.

    Returns
    -------
    data : Bunch
        ``bags`` (``data`` is the same object), ``target``, ``parameter``
        (the angle, rho or t of each bag; None for task 4), ``task`` and
        ``DESCR``.

    References
    ----------
    M. Zaheer, S. Kottur, S. Ravanbakhsh, B. Poczos, R. Salakhutdinov and
    A. Smola, "Deep Sets", NeurIPS 2017.

    Examples
    --------
    >>> from mil.datasets import make_population_stats_bags
    >>> d = make_population_stats_bags(2, n_bags=8, bag_size=20, random_state=0)
    >>> d.bags.n_features, bool((d.target > 0).all())
    (16, True)
    """
    if task not in (1, 2, 3, 4) or isinstance(task, bool):
        raise ValueError(f"task must be 1, 2, 3 or 4; got {task!r}")
    n_bags = positive_int(n_bags, "n_bags")
    bag_size = positive_int(bag_size, "bag_size")
    dtype = float_dtype(dtype)
    rng = check_random_state(random_state)
    if task == 1:
        blocks, target, parameter = _rotated_gaussians(n_bags, bag_size, "entropy", rng)
    else:
        blocks, target, parameter = {2: _task2, 3: _task3, 4: _task4}[task](n_bags, bag_size, rng)
    bags = _bags_from_blocks(blocks, dtype)
    what = {1: "entropy of the first coordinate (2-d)", 2: "mutual information of two 8-d halves (16-d)",
            3: "total correlation, rank-one covariance (32-d)", 4: "total correlation, random covariance (32-d)"}
    descr = (f"Deep Sets population statistics, task {task}\n\n{n_bags} bags of {bag_size} instances; "
             f"label: {what[task]}.\n")
    return Bunch(data=bags, bags=bags, target=target, parameter=parameter, task=task, DESCR=descr)

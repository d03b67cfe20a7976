"""Rule condition search: hand-computed bag counts, brute force, and twin agreement."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mil import Bags
from mil._core import compiled_available, kernel, twins


def _presort(X, offsets):
    return kernel("_rule_split").presort(X, offsets)


def _search(bags_list, labels, active=None, min_bags=1):
    bags = Bags.from_list(bags_list)
    X = bags.instances
    pre = _presort(X, bags.offsets)
    act = np.ones(X.shape[0], dtype=np.uint8) if active is None else np.asarray(active, np.uint8)
    bag_pos = np.asarray(labels, dtype=np.uint8)
    covered = np.unique(bags.instance_bag[act.astype(bool)])
    p0 = int(bag_pos[covered].sum())
    n0 = int(covered.shape[0] - p0)
    out = kernel("_rule_split").best_conditions(pre, act, bag_pos, p0, n0, min_bags)
    return bags, (p0, n0), out


def test_foil_gain_hand_computed(backend):
    k = kernel("_rule_split")
    # 4+/4- -> 2+/0-: 2 * (log2(1) - log2(1/2)) = 2.
    assert k.foil_gain(4, 4, 2, 0) == 2.0
    # Precision unchanged (3/4 -> 3/4): no gain.
    assert k.foil_gain(6, 2, 3, 1) == 0.0
    # 2+/1- -> 2+/0-: 2 * log2(3/2).
    assert math.isclose(float(k.foil_gain(2, 1, 2, 0)), 2 * math.log2(1.5), rel_tol=1e-15)
    # Worse precision: negative gain, 1 * (log2(1/2) - log2(2/3)).
    assert math.isclose(float(k.foil_gain(2, 1, 1, 1)), math.log2(0.5) - math.log2(2 / 3), rel_tol=1e-15)


def test_smoothed_gain_hand_computed(backend):
    k = kernel("_rule_split")
    # JRip's smoothing: 4+/4- -> 2+/0-: 2 * (log2(3/3) - log2(5/9)).
    assert math.isclose(float(k.foil_gain(4, 4, 2, 0, smooth=1)), 2 * math.log2(9 / 5), rel_tol=1e-15)
    # The search picks the condition of the highest smoothed gain: one feature, bags 0, 1 (+)
    # at 1 and 2, bag 2 (-) at 3, bag 3 (+) at 4. x <= 2.5 keeps 2+/0-: plain gain
    # 2 * log2(4/3), smoothed 2 * (log2(3/3) - log2(4/5)); x <= 4 keeps everything: no gain.
    bags_list = [np.array([[1.0]]), np.array([[2.0]]), np.array([[3.0]]), np.array([[4.0]])]
    bags = Bags.from_list(bags_list)
    pre = _presort(bags.instances, bags.offsets)
    act = np.ones(4, np.uint8)
    pos = np.array([1, 1, 0, 1], np.uint8)
    gain, thr, p, n = k.best_conditions(pre, act, pos, 3, 1, 1, 1)
    assert math.isclose(gain[0, 0], 2 * -math.log2(4 / 5), rel_tol=1e-15) and thr[0, 0] == 2.5
    # x >= 3.5 keeps 1+/0-: smoothed 1 * (log2(2/2) - log2(4/5)) < 2 * ... ; plain 1 * log2(4/3).
    assert math.isclose(gain[0, 1], -math.log2(4 / 5), rel_tol=1e-15) and thr[0, 1] == 3.5
    with pytest.raises(ValueError, match="smooth must lie in"):
        k.best_conditions(pre, act, pos, 3, 1, 1, 2)


def test_prune_metric_hand_computed(backend):
    k = kernel("_rule_split")
    np.testing.assert_array_equal(k.prune_metric([3, 2, 0, 0, 5], [1, 2, 4, 0, 0]),
                                  [0.5, 0.0, -1.0, 0.0, 1.0])


def test_best_condition_hand_computed(backend):
    # One feature. Bag 0 (+): 1, 5; bag 1 (+): 2; bag 2 (-): 4, 6. The rule so far covers 2+/1-.
    # Sorted: 1(b0) 2(b1) 4(b2) 5(b0) 6(b2).
    # x <= 1.5 keeps {b0}: gain 1 * log2(3/2); x <= 3 keeps {b0, b1}: 2 * log2(3/2) (best);
    # x <= 4.5, x <= 5.5 keep all three bags: 0.
    # x >= t: {b0, b1, b2} (1.5), {b0, b2} (3, 4.5) or {b2} (5.5): never a positive gain.
    bags, (p0, n0), (gain, thr, p, n) = _search(
        [np.array([[1.0], [5.0]]), np.array([[2.0]]), np.array([[4.0], [6.0]])], [1, 1, 0])
    assert (p0, n0) == (2, 1)
    assert math.isclose(gain[0, 0], 2 * math.log2(1.5), rel_tol=1e-15)
    assert (thr[0, 0], p[0, 0], n[0, 0]) == (3.0, 2.0, 0.0)
    assert (gain[0, 1], p[0, 1], n[0, 1]) == (0.0, 0.0, 0.0)


def test_best_condition_ties_take_lowest_threshold(backend):
    # Bag 0 (+) holds 1 and 2, bag 1 (-) holds 3: x <= 1.5 and x <= 2.5 both keep {b0}.
    _, _, (gain, thr, p, n) = _search([np.array([[1.0], [2.0]]), np.array([[3.0]])], [1, 0])
    assert gain[0, 0] == 1.0 and thr[0, 0] == 1.5
    # x >= t can only keep the negative bag or both bags: no gain.
    assert gain[0, 1] == 0.0


def test_best_condition_threshold_is_finite_near_the_largest_double(backend):
    # (a + b) * 0.5 overflows to inf for these values; a * 0.5 + b * 0.5 does not.
    big = np.finfo(np.float64).max
    vals = [0.5 * big, 0.6 * big, 0.9 * big, big]
    _, _, (gain, thr, p, n) = _search([np.array([[v]]) for v in vals], [0, 0, 1, 1])
    # x >= t keeps the two positive bags: t between 0.6 * big and 0.9 * big, finite.
    assert (p[0, 1], n[0, 1]) == (2.0, 0.0)
    assert np.isfinite(thr[0, 1]) and 0.6 * big < thr[0, 1] < 0.9 * big
    assert thr[0, 1] == 0.6 * big * 0.5 + 0.9 * big * 0.5
    # Negative side: x <= t keeps the two negative bags only, which has no gain, but the
    # mirrored labels do: x <= t keeps the positives with a finite threshold.
    _, _, (gain, thr, p, n) = _search([np.array([[-v]]) for v in vals], [0, 0, 1, 1])
    assert (p[0, 0], n[0, 0]) == (2.0, 0.0)
    assert np.isfinite(thr[0, 0]) and -0.9 * big < thr[0, 0] < -0.6 * big


def test_best_condition_threshold_between_adjacent_subnormals(backend):
    # The midpoint of two neighbouring subnormals rounds onto one of them: the threshold
    # falls back to a value that still separates them (a for <=, b for >=).
    tiny = np.nextafter(0.0, 1.0)
    vals = [tiny, 2 * tiny, 3 * tiny, 4 * tiny]
    _, _, (gain, thr, p, n) = _search([np.array([[v]]) for v in vals], [0, 0, 1, 1])
    assert (p[0, 1], n[0, 1]) == (2.0, 0.0)
    assert 2 * tiny < thr[0, 1] <= 3 * tiny


def test_best_condition_min_bags_and_active(backend):
    bags_list = [np.array([[1.0], [5.0]]), np.array([[2.0]]), np.array([[4.0], [6.0]])]
    # With min_bags=3 no condition can keep 3 positive bags (there are only 2).
    _, _, (gain, _, _, _) = _search(bags_list, [1, 1, 0], min_bags=3)
    assert (gain == 0).all()
    # Deactivating bag 0's first instance (value 1): only 5 remains for b0.
    # Sorted active: 2(b1) 4(b2) 5(b0) 6(b2); x <= 3 keeps {b1}: 1 * log2(3/2).
    _, _, (gain, thr, p, n) = _search(bags_list, [1, 1, 0], active=[0, 1, 1, 1, 1])
    assert thr[0, 0] == 3.0 and (p[0, 0], n[0, 0]) == (1.0, 0.0)


def brute_best(X, inst_bag, bag_pos, active, p0, n0, min_bags, smooth=0):
    """Every midpoint threshold of every feature, coverage counted bag by bag."""
    d = X.shape[1]
    act = active.astype(bool)
    gain = np.zeros((d, 2))
    thr = np.zeros((d, 2))
    for f in range(d):
        vals = np.unique(X[act, f])
        for a, b in zip(vals[:-1], vals[1:]):
            mid = a * 0.5 + b * 0.5
            for op, t in ((0, mid if a <= mid < b else a), (1, mid if a < mid <= b else b)):
                keep = act & ((X[:, f] <= t) if op == 0 else (X[:, f] >= t))
                bags_kept = np.unique(inst_bag[keep])
                p1 = int(bag_pos[bags_kept].sum())
                n1 = len(bags_kept) - p1
                if p1 < max(min_bags, 1):
                    continue
                s = smooth
                g = p1 * (math.log2((p1 + s) / (p1 + n1 + s)) - math.log2((p0 + s) / (p0 + n0 + s)))
                if g > gain[f, op] + 1e-12:
                    gain[f, op], thr[f, op] = g, t
    return gain, thr


@st.composite
def small_problem(draw):
    n_bags = draw(st.integers(2, 7))
    d = draw(st.integers(1, 3))
    sizes = draw(st.lists(st.integers(1, 4), min_size=n_bags, max_size=n_bags))
    n = sum(sizes)
    # Few distinct values so that ties and repeated values are common.
    vals = draw(st.lists(st.integers(-3, 3), min_size=n * d, max_size=n * d))
    labels = draw(st.lists(st.integers(0, 1), min_size=n_bags, max_size=n_bags))
    active = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    X = np.array(vals, dtype=np.float64).reshape(n, d) / 2.0
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
    return X, offsets, np.array(labels, dtype=np.uint8), np.array(active, dtype=np.uint8), \
        draw(st.integers(1, 2))


@settings(deadline=None, max_examples=60)
@given(small_problem(), st.integers(0, 1))
def test_best_conditions_brute_force_and_twins(problem, smooth):
    X, offsets, bag_pos, active, min_bags = problem
    inst_bag = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets)).astype(np.intp)
    covered = np.unique(inst_bag[active.astype(bool)])
    p0 = int(bag_pos[covered].sum())
    n0 = int(len(covered) - p0)
    if p0 == 0:
        return
    pre = _presort(X, offsets)
    args = (pre, active, bag_pos, p0, n0, min_bags, smooth)
    compiled, python = twins("_rule_split")
    results = [python.best_conditions(*args)]
    if compiled is not None:
        results.append(compiled.best_conditions(*args))
        for a, b in zip(results[0], results[1]):
            np.testing.assert_array_equal(a, b)  # bit-identical
    gain, thr, p, n = results[0]
    bg, bt = brute_best(X, inst_bag, bag_pos, active, p0, n0, min_bags, smooth)
    np.testing.assert_allclose(gain, bg, rtol=1e-12, atol=1e-12)
    has = bg > 0
    np.testing.assert_array_equal(thr[has], bt[has])


@settings(deadline=None, max_examples=40)
@given(small_problem(), st.data())
def test_coverage_kernels_brute_force(problem, data):
    X, offsets, _, _, _ = problem
    n, d = X.shape
    n_bags = len(offsets) - 1
    m = data.draw(st.integers(1, 4))
    features = np.array(data.draw(st.lists(st.integers(0, d - 1), min_size=m, max_size=m)), np.intp)
    ops = np.array(data.draw(st.lists(st.integers(0, 1), min_size=m, max_size=m)), np.uint8)
    thresholds = np.array(data.draw(st.lists(st.integers(-4, 4), min_size=m, max_size=m)), float) / 2
    holds = np.array([(X[:, f] >= t) if o else (X[:, f] <= t) for f, o, t in zip(features, ops, thresholds)])
    expected = np.array([[holds[:j + 1, offsets[b]:offsets[b + 1]].all(axis=0).any()
                          for b in range(n_bags)] for j in range(m)], dtype=np.uint8)
    # Two rules: the first two conditions, and all of them; plus the empty rule (covers all).
    cut = min(2, m)
    rule_ptr = np.array([0, cut, cut, cut + m], dtype=np.intp)
    f2 = np.concatenate([features[:cut], features])
    o2 = np.concatenate([ops[:cut], ops])
    t2 = np.concatenate([thresholds[:cut], thresholds])
    for module in twins("_rule_split"):
        if module is None:
            continue
        np.testing.assert_array_equal(module.prefix_coverage(X, offsets, features, ops, thresholds), expected)
        cov = module.ruleset_coverage(X, offsets, rule_ptr, f2, o2, t2)
        np.testing.assert_array_equal(cov, np.vstack([expected[cut - 1], np.ones(n_bags, np.uint8),
                                                      expected[m - 1]]))


def test_both_twins_export_the_same_names():
    compiled, python = twins("_rule_split")
    if compiled is None:
        pytest.skip("compiled kernels are not built")
    assert sorted(compiled.__all__) == sorted(python.__all__)
    assert compiled_available("_rule_split")


# -- weighted counts ------------------------------------------------------------
def test_weighted_foil_gain_hand_computed(backend):
    # Precision 2.5 / 4 -> 1.5 / 2: 1.5 * (log2(0.75) - log2(0.625)) = 1.5 * log2(1.2).
    g = kernel("_rule_split").foil_gain(2.5, 1.5, 1.5, 0.5)
    assert g == pytest.approx(1.5 * math.log2(1.2), rel=1e-14)
    # Smoothed (JRip): (1.5 + 1) / (2 + 1) against (2.5 + 1) / (4 + 1).
    g = kernel("_rule_split").foil_gain(2.5, 1.5, 1.5, 0.5, smooth=1)
    assert g == pytest.approx(1.5 * (math.log2(2.5 / 3) - math.log2(3.5 / 5)), rel=1e-14)


def test_weighted_best_condition_hand_computed(backend):
    # One feature; bags b0 (pos, weight 0.5) at 1, b1 (pos, weight 2) at 2, b2 (neg, weight 1.5) at 3.
    # p0 = 2.5, n0 = 1.5. x <= 2.5 keeps b0, b1: 2.5 * (0 - log2(2.5 / 4)); x <= 1.5 keeps b0 only
    # (0.5 * 0.678 < 1.695); x >= 1.5 keeps b1, b2: 2 * (log2(2 / 3.5) - log2(0.625)) < 0.
    bags_list = [np.array([[1.0]]), np.array([[2.0]]), np.array([[3.0]])]
    bags = Bags.from_list(bags_list)
    pre = _presort(bags.instances, bags.offsets)
    w = np.array([0.5, 2.0, 1.5])
    gain, thr, p, n = kernel("_rule_split").best_conditions(
        pre, np.ones(3, np.uint8), np.array([1, 1, 0], np.uint8), 2.5, 1.5, 0.5, bag_weight=w)
    assert gain[0, 0] == pytest.approx(-2.5 * math.log2(2.5 / 4), rel=1e-14)
    assert (thr[0, 0], p[0, 0], n[0, 0]) == (2.5, 2.5, 0.0)
    assert gain[0, 1] == 0.0
    # min_bags counts weight: 3 > 2.5, no condition keeps enough positive weight.
    gain, *_ = kernel("_rule_split").best_conditions(
        pre, np.ones(3, np.uint8), np.array([1, 1, 0], np.uint8), 2.5, 1.5, 3, bag_weight=w)
    assert (gain == 0).all()


def brute_candidates(X, inst_bag, bag_pos, w, active, p0, n0, min_bags, smooth):
    """Gain of every midpoint threshold per (feature, operator), weights summed bag by bag."""
    act = active.astype(bool)
    cands = {}
    for f in range(X.shape[1]):
        vals = np.unique(X[act, f])
        for a, b in zip(vals[:-1], vals[1:]):
            mid = a * 0.5 + b * 0.5
            for op, t in ((0, mid if a <= mid < b else a), (1, mid if a < mid <= b else b)):
                keep = act & ((X[:, f] <= t) if op == 0 else (X[:, f] >= t))
                kept = np.unique(inst_bag[keep])
                p1 = float(w[kept][bag_pos[kept] == 1].sum())
                n1 = float(w[kept][bag_pos[kept] == 0].sum())
                if p1 < min_bags or p1 <= 0:
                    continue
                s = smooth
                g = p1 * (math.log2((p1 + s) / (p1 + n1 + s)) - math.log2((p0 + s) / (p0 + n0 + s)))
                cands.setdefault((f, op), {})[t] = g
    return cands


@settings(deadline=None, max_examples=60)
@given(small_problem(), st.integers(0, 1), st.data())
def test_weighted_best_conditions_brute_force_and_twins(problem, smooth, data):
    X, offsets, bag_pos, active, min_bags = problem
    n_bags = len(offsets) - 1
    w = np.array(data.draw(st.lists(st.sampled_from([0.25, 0.5, 1.0, 1.5, 2.0, 1 / 3, 3.0]),
                                    min_size=n_bags, max_size=n_bags)))
    inst_bag = np.repeat(np.arange(n_bags), np.diff(offsets)).astype(np.intp)
    covered = np.unique(inst_bag[active.astype(bool)])
    p0 = float(w[covered][bag_pos[covered] == 1].sum())
    n0 = float(w[covered][bag_pos[covered] == 0].sum())
    if p0 == 0:
        return
    pre = _presort(X, offsets)
    args = (pre, active, bag_pos, p0, n0, min_bags, smooth)
    compiled, python = twins("_rule_split")
    results = [python.best_conditions(*args, bag_weight=w)]
    if compiled is not None:
        results.append(compiled.best_conditions(*args, bag_weight=w))
        for a, b in zip(results[0], results[1]):
            np.testing.assert_array_equal(a, b)  # bit-identical, also with fractional weights
    gain, thr, p, n = results[0]
    cands = brute_candidates(X, inst_bag, bag_pos, w, active, p0, n0, min_bags, smooth)
    for f in range(X.shape[1]):
        for op in (0, 1):
            best = max([g for g in cands.get((f, op), {}).values()] + [0.0])
            assert gain[f, op] == pytest.approx(best, rel=1e-12, abs=1e-12)
            if gain[f, op] > 0:
                assert cands[(f, op)][thr[f, op]] == pytest.approx(best, rel=1e-12, abs=1e-12)


@settings(deadline=None, max_examples=40)
@given(small_problem(), st.integers(0, 1), st.data())
def test_unit_and_integer_weights_are_counts(problem, smooth, data):
    """Unit weights give the unweighted result bit for bit; integer weights equal repeated bags."""
    X, offsets, bag_pos, active, min_bags = problem
    n_bags = len(offsets) - 1
    inst_bag = np.repeat(np.arange(n_bags), np.diff(offsets)).astype(np.intp)
    covered = np.unique(inst_bag[active.astype(bool)])
    p0 = int(bag_pos[covered].sum())
    n0 = int(covered.shape[0] - p0)
    if p0 == 0:
        return
    pre = _presort(X, offsets)
    reps = np.array(data.draw(st.lists(st.integers(1, 3), min_size=n_bags, max_size=n_bags)))
    # The repeated problem: bag b appears reps[b] times (its instances copied).
    rows = np.concatenate([np.arange(offsets[b], offsets[b + 1]) for b in range(n_bags)
                           for _ in range(reps[b])])
    rpos = np.repeat(bag_pos, reps)
    roffsets = np.concatenate([[0], np.cumsum(np.repeat(np.diff(offsets), reps))]).astype(np.intp)
    rpre = _presort(X[rows], roffsets)
    rp0 = int(reps[covered][bag_pos[covered] == 1].sum())
    rn0 = int(reps[covered][bag_pos[covered] == 0].sum())
    for module in twins("_rule_split"):
        if module is None:
            continue
        plain = module.best_conditions(pre, active, bag_pos, p0, n0, min_bags, smooth)
        unit = module.best_conditions(pre, active, bag_pos, float(p0), float(n0),
                                      min_bags, smooth, bag_weight=np.ones(n_bags))
        for a, b in zip(plain, unit):
            np.testing.assert_array_equal(a, b)
        weighted = module.best_conditions(pre, active, bag_pos, rp0, rn0, min_bags,
                                          smooth, bag_weight=reps.astype(np.float64))
        repeated = module.best_conditions(rpre, active[rows], rpos, rp0, rn0, min_bags, smooth)
        for a, b in zip(weighted, repeated):
            np.testing.assert_array_equal(a, b)


# -- argument checks of the Python entry points (both twins) ---------------------
def _toy():
    X = np.array([[1.0, 0.0], [2.0, 1.0], [3.0, 0.5], [4.0, 2.0]])
    offsets = np.array([0, 2, 3, 4], dtype=np.intp)
    return X, offsets


@pytest.mark.parametrize("offsets, match", [
    ([0, 2, 10**8], "end at the number of rows"),
    ([1, 2, 4], "start at 0"),
    ([0, 3, 2, 4], "strictly increasing"),
])
def test_presort_rejects_bad_offsets(backend, offsets, match):
    X, _ = _toy()
    with pytest.raises(ValueError, match=match):
        kernel("_rule_split").presort(X, offsets)


def test_presorted_data_are_int32_read_only_and_consistent(backend):
    X, offsets = _toy()
    pre = kernel("_rule_split").presort(X, offsets)
    assert pre.order.dtype == np.int32 and pre.sorted_bag.dtype == np.int32 and pre.n_bags == 3
    np.testing.assert_array_equal(pre.sorted_vals, np.sort(X.T, axis=1))
    np.testing.assert_array_equal(pre.sorted_bag[1], [0, 1, 0, 2])   # x1: 0 (b0), 0.5 (b1), 1 (b0), 2 (b2)
    with pytest.raises(ValueError):
        pre.order[0, 0] = 10**8   # read-only: cannot be pointed outside the data


@pytest.mark.parametrize("change, error, match", [
    (dict(presorted=(np.zeros((2, 4)),)), TypeError, "presort"),
    (dict(active=np.ones(3, np.uint8)), ValueError, "active has 3 entries"),
    (dict(active=np.ones(4, np.float64)), TypeError, "active must hold uint8"),
    (dict(active=np.array([1, 2, 0, 1], np.uint8)), ValueError, "active must hold 0 or 1"),
    (dict(bag_pos=np.array([1, 0], np.uint8)), ValueError, "bag_pos has 2 entries"),
    (dict(bag_weight=np.ones(2)), ValueError, "bag_weight has 2 entries"),
    (dict(bag_weight=np.array([1.0, -1.0, 1.0])), ValueError, "non-negative"),
    (dict(bag_weight=np.array([1.0, np.inf, 1.0])), ValueError, "finite"),
    (dict(p0=0.0), ValueError, "p0 must be finite and > 0"),
    (dict(n0=-1.0), ValueError, "n0 must be >= 0"),
    (dict(smooth=2), ValueError, "smooth must lie in"),
    (dict(start=1, stop=3), ValueError, "stop must lie in"),
    (dict(start=-1), ValueError, "start must lie in"),
])
def test_best_conditions_rejects_bad_arguments(backend, change, error, match):
    X, offsets = _toy()
    k = kernel("_rule_split")
    args = dict(presorted=k.presort(X, offsets), active=np.ones(4, np.uint8),
                bag_pos=np.array([1, 0, 1], np.uint8), p0=2.0, n0=1.0, min_bags=1)
    args.update(change)
    if isinstance(args["presorted"], tuple):
        args["presorted"] = args["presorted"][0]
    with pytest.raises(error, match=match):
        k.best_conditions(**args)
    # The valid call, and a feature range, work.
    ok = dict(presorted=k.presort(X, offsets), active=np.ones(4, np.uint8),
              bag_pos=np.array([1, 0, 1], np.uint8), p0=2.0, n0=1.0, min_bags=1)
    full = k.best_conditions(**ok)
    part = k.best_conditions(**ok, start=1, stop=2)
    for a, b in zip(full, part):
        np.testing.assert_array_equal(a[1:2], b)


@pytest.mark.parametrize("change, error, match", [
    (dict(X=np.zeros((4, 2), np.int64) + 1j), TypeError, "X must hold float64"),
    (dict(offsets=[0, 2, 10**8]), ValueError, "end at the number of rows"),
    (dict(features=np.array([0, 2])), ValueError, r"features must lie in \[0, 2\)"),
    (dict(features=np.array([-1, 0])), ValueError, "features must lie in"),
    (dict(ops=np.array([0, 2], np.uint8)), ValueError, "ops must be 0"),
    (dict(thresholds=np.array([1.0])), ValueError, "one entry per condition"),
])
def test_coverage_kernels_reject_bad_arguments(backend, change, error, match):
    X, offsets = _toy()
    args = dict(X=X, offsets=offsets, features=np.array([0, 1]), ops=np.array([0, 1], np.uint8),
                thresholds=np.array([2.5, 0.5]))
    args.update(change)
    k = kernel("_rule_split")
    with pytest.raises(error, match=match):
        k.prefix_coverage(**args)
    with pytest.raises(error, match=match):
        k.ruleset_coverage(args["X"], args["offsets"], np.array([0, 2]), args["features"],
                           args["ops"], args["thresholds"])


@pytest.mark.parametrize("rule_ptr, match", [
    ([0, 3], "end at the number of conditions"),
    ([1, 2], "start at 0"),
    ([], "start at 0"),
    ([0, 2, 1, 2], "non-decreasing"),
])
def test_ruleset_coverage_rejects_bad_rule_pointers(backend, rule_ptr, match):
    X, offsets = _toy()
    with pytest.raises(ValueError, match=match):
        kernel("_rule_split").ruleset_coverage(X, offsets, np.array(rule_ptr, dtype=np.intp),
                                               np.array([0, 1]), np.array([0, 1], np.uint8),
                                               np.array([2.5, 0.5]))


@settings(deadline=None, max_examples=40)
@given(small_problem(), st.integers(0, 1), st.data())
def test_compacted_search_equals_the_full_one(problem, smooth, data):
    """Searching a compacted copy (instances of `keep` only) finds what the full search finds."""
    X, offsets, bag_pos, active, min_bags = problem
    n = X.shape[0]
    inst_bag = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    extra = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), np.uint8)
    keep = active | extra   # any superset of the active instances
    covered = np.unique(inst_bag[active.astype(bool)])
    p0 = int(bag_pos[covered].sum())
    n0 = int(covered.shape[0] - p0)
    if p0 == 0:
        return
    results = []
    for module in twins("_rule_split"):
        if module is None:
            continue
        pre = module.presort(X, offsets)
        small = module.compact(pre, keep)
        assert small.order.dtype == np.int32 and small.sorted_vals.shape == (X.shape[1], int(keep.sum()))
        idx = np.flatnonzero(keep)
        np.testing.assert_array_equal(small.sorted_vals, np.take_along_axis(X[idx].T, small.order, axis=1))
        np.testing.assert_array_equal(small.sorted_bag, inst_bag[idx][small.order])
        full = module.best_conditions(pre, active, bag_pos, p0, n0, min_bags, smooth)
        part = module.best_conditions(small, active[idx], bag_pos, p0, n0, min_bags, smooth)
        for a, b in zip(full, part):
            np.testing.assert_array_equal(a, b)
        results.append([small.sorted_vals, small.order, small.sorted_bag])
    if len(results) == 2:
        for a, b in zip(*results):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("keep, error, match", [
    (np.ones(3, np.uint8), ValueError, "keep has 3 entries"),
    (np.array([1, 2, 0, 1], np.uint8), ValueError, "keep must hold 0 or 1"),
    (np.ones(4, np.float64), TypeError, "keep must hold uint8"),
])
def test_compact_rejects_bad_arguments(backend, keep, error, match):
    X, offsets = _toy()
    k = kernel("_rule_split")
    with pytest.raises(error, match=match):
        k.compact(k.presort(X, offsets), keep)
    with pytest.raises(TypeError, match="presort"):
        k.compact(X, np.ones(4, np.uint8))


@settings(deadline=None, max_examples=40)
@given(small_problem(), st.integers(0, 1), st.integers(1, 3))
def test_search_with_out_fills_the_compacted_copy(problem, smooth, n_blocks):
    """``out=`` gives the same conditions and, row block by row block, exactly ``compact(presorted, active)``."""
    X, offsets, bag_pos, active, min_bags = problem
    inst_bag = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    covered = np.unique(inst_bag[active.astype(bool)])
    p0 = int(bag_pos[covered].sum())
    n0 = int(covered.shape[0] - p0)
    if p0 == 0:
        return
    d, m = X.shape[1], int(active.sum())
    results = []
    for module in twins("_rule_split"):
        if module is None:
            continue
        pre = module.presort(X, offsets)
        plain = module.best_conditions(pre, active, bag_pos, p0, n0, min_bags, smooth)
        out = (np.full((d, m), np.nan), np.full((d, m), -7, np.int32), np.full((d, m), -7, np.int32))
        edges = np.linspace(0, d, n_blocks + 1).round().astype(int)
        parts = [module.best_conditions(pre, active, bag_pos, p0, n0, min_bags, smooth, start=lo, stop=hi, out=out)
                 for lo, hi in zip(edges[:-1], edges[1:])]
        for a, b in zip(plain, (np.concatenate(x) for x in zip(*parts))):
            np.testing.assert_array_equal(a, b)
        small = module.compact(pre, active)
        for a, b in zip(out, (small.sorted_vals, small.order, small.sorted_bag)):
            np.testing.assert_array_equal(a, b)
        results.append(out)
    if len(results) == 2:
        for a, b in zip(*results):
            np.testing.assert_array_equal(a, b)


_OVERLAP = np.zeros(12, np.int32)   # two overlapping int32 arrays of shape (2, 3)


@pytest.mark.parametrize("change, error, match", [
    (lambda out: out[:2], TypeError, "tuple"),
    (lambda out: (out[0][:, :-1].copy(), out[1], out[2]), ValueError, "shape"),
    (lambda out: (out[0], out[1].astype(np.int64), out[2]), TypeError, "int32"),
    (lambda out: (out[0], out[1], out[1]), ValueError, "share memory"),
    (lambda out: (out[0], _OVERLAP[:6].reshape(2, 3), _OVERLAP[3:9].reshape(2, 3)), ValueError, "share memory"),
    (lambda out: (out[0], np.zeros((2, 6), np.int32)[:, ::2], out[2]), TypeError, "C-contiguous"),
])
def test_search_rejects_bad_out(backend, change, error, match):
    X, offsets = _toy()
    k = kernel("_rule_split")
    pre = k.presort(X, offsets)
    active = np.array([1, 0, 1, 1], np.uint8)
    d, m = X.shape[1], 3
    out = (np.zeros((d, m)), np.zeros((d, m), np.int32), np.zeros((d, m), np.int32))
    readonly = np.zeros((d, m))
    readonly.flags.writeable = False
    with pytest.raises(error, match=match):
        k.best_conditions(pre, active, np.array([1, 0, 1], np.uint8), 1, 1, 1, out=change(out))
    with pytest.raises(TypeError, match="writable"):
        k.best_conditions(pre, active, np.array([1, 0, 1], np.uint8), 1, 1, 1, out=(readonly, out[1], out[2]))


@settings(deadline=None, max_examples=60)
@given(st.integers(2, 40), st.integers(1, 3), st.integers(0, 1), st.data())
def test_one_instance_bags_unit_weights_path(n, d, smooth, data):
    """One instance per bag with unit weights (counts of instances, one backward pass) gives
    exactly what the general weighted path gives with weights of 1, also on compacted copies."""
    X = np.array(data.draw(st.lists(st.integers(-3, 3), min_size=n * d, max_size=n * d)),
                 np.float64).reshape(n, d) / 2.0
    bag_pos = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), np.uint8)
    active = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), np.uint8)
    keep = active | np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), np.uint8)
    p0 = int(bag_pos[active == 1].sum())
    n0 = int(active.sum()) - p0
    if p0 == 0:
        return
    min_bags = data.draw(st.integers(1, 2))
    results = []
    for module in twins("_rule_split"):
        if module is None:
            continue
        pre = module.presort(X, np.arange(n + 1))
        assert pre.one_per_bag and not module.presort(X, np.array([0, n])).one_per_bag
        small = module.compact(pre, keep)
        assert small.one_per_bag
        idx = np.flatnonzero(keep)
        for data_, act in ((pre, active), (small, active[idx])):
            unit = module.best_conditions(data_, act, bag_pos, p0, n0, min_bags, smooth)
            ones = module.best_conditions(data_, act, bag_pos, p0, n0, min_bags, smooth, bag_weight=np.ones(n))
            for a, b in zip(unit, ones):
                np.testing.assert_array_equal(a, b)
            results.append(unit)
    if len(results) == 4:
        for a, b in zip(results[0], results[2]):
            np.testing.assert_array_equal(a, b)

"""The histogram condition search of RIPPER-MI: brute force, the exact search's counts, twins identical."""

import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mil._core import kernel, twins
from mil.tree._rows import BinnedRows


def _binned(X, inst_bag, n_bags, module=None, max_bins=255):
    rows = BinnedRows(X, max_bins=max_bins)
    k = module if module is not None else kernel("_rule_split")
    return k.Binned(rows.codes, rows.edges, rows.n_bins, inst_bag, n_bags)


def brute_binned(binned, bag_pos, weight, active, p0, n0, min_bags, smooth):
    """Every cut between two consecutive occupied bins, its bags counted one by one."""
    codes, edges = binned.codes, binned.edges
    d = codes.shape[0]
    act = active.astype(bool)
    gain, thr = np.zeros((d, 2)), np.zeros((d, 2))
    base = math.log2((p0 + smooth) / (p0 + n0 + smooth))
    for f in range(d):
        occupied = np.unique(codes[f, act])
        for prev, nxt in zip(occupied[:-1], occupied[1:]):
            k = (int(prev) + int(nxt) - 1) // 2
            for op, keep in ((0, act & (codes[f] <= k)), (1, act & (codes[f] > k))):
                bags = np.unique(binned.inst_bag[keep])
                p1 = float(weight[bags][bag_pos[bags] == 1].sum())
                n1 = float(weight[bags][bag_pos[bags] == 0].sum())
                if p1 < min_bags or p1 <= 0:
                    continue
                g = p1 * (math.log2((p1 + smooth) / (p1 + n1 + smooth)) - base)
                if g > gain[f, op] + 1e-9:
                    gain[f, op] = g
                    thr[f, op] = edges[f, k] if op == 0 else np.nextafter(edges[f, k], np.inf)
    return gain, thr


@st.composite
def binned_problem(draw):
    n_bags = draw(st.integers(2, 8))
    one_per_bag = draw(st.booleans())
    sizes = [1] * n_bags if one_per_bag else draw(st.lists(st.integers(1, 4), min_size=n_bags, max_size=n_bags))
    n = sum(sizes)
    d = draw(st.integers(1, 3))
    # Few distinct values (ties and repeated values are common); max_bins 2-4 merges some of them.
    X = np.array(draw(st.lists(st.integers(-3, 3), min_size=n * d, max_size=n * d)), float).reshape(n, d) / 2
    inst_bag = np.repeat(np.arange(n_bags), sizes).astype(np.intp)
    bag_pos = np.array(draw(st.lists(st.integers(0, 1), min_size=n_bags, max_size=n_bags)), np.uint8)
    active = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), np.uint8)
    weight = (np.ones(n_bags) if draw(st.booleans())
              else np.array(draw(st.lists(st.integers(1, 8), min_size=n_bags, max_size=n_bags)), float) / 4)
    return X, inst_bag, bag_pos, active, weight, draw(st.sampled_from([255, 2, 4])), draw(st.integers(1, 2))


def _p0_n0(inst_bag, bag_pos, weight, active):
    bags = np.unique(inst_bag[active.astype(bool)])
    return float(weight[bags][bag_pos[bags] == 1].sum()), float(weight[bags][bag_pos[bags] == 0].sum())


@settings(deadline=None, max_examples=80)
@given(binned_problem(), st.integers(0, 1))
def test_binned_conditions_brute_force_and_twins(problem, smooth):
    X, inst_bag, bag_pos, active, weight, max_bins, min_bags = problem
    p0, n0 = _p0_n0(inst_bag, bag_pos, weight, active)
    if p0 == 0:
        return
    n_bags = bag_pos.shape[0]
    compiled, python = twins("_rule_split")
    results = []
    for module in (python, compiled):
        if module is None:
            continue
        binned = _binned(X, inst_bag, n_bags, module, max_bins)
        results.append(module.best_binned_conditions(binned, active, bag_pos, p0, n0, min_bags, smooth,
                                                     bag_weight=weight))
    for a, b in zip(results[0], results[-1]):
        np.testing.assert_array_equal(a, b)  # bit-identical
    gain, thr, p, n = results[0]
    bg, bt = brute_binned(_binned(X, inst_bag, n_bags, python, max_bins), bag_pos, weight, active, p0, n0,
                          min_bags, smooth)
    np.testing.assert_allclose(gain, bg, rtol=1e-12, atol=1e-12)
    has = bg > 0
    np.testing.assert_array_equal(thr[has], bt[has])
    assert (thr[~has] == 0).all() and (p[~has] == 0).all()


@settings(deadline=None, max_examples=60)
@given(binned_problem(), st.integers(0, 1))
def test_binned_counts_and_gains_equal_the_exact_search(problem, smooth):
    # Unit weights and a bin for every distinct value: the candidates split the covered
    # instances as the exact search's do, so gains and counts are the same numbers.
    X, inst_bag, bag_pos, active, _, _, min_bags = problem
    n_bags = bag_pos.shape[0]
    ones = np.ones(n_bags)
    p0, n0 = _p0_n0(inst_bag, bag_pos, ones, active)
    if p0 == 0:
        return
    k = kernel("_rule_split")
    offsets = np.searchsorted(inst_bag, np.arange(n_bags + 1)).astype(np.intp)
    exact = k.best_conditions(k.presort(X, offsets), active, bag_pos, p0, n0, min_bags, smooth)
    binned = k.best_binned_conditions(_binned(X, inst_bag, n_bags), active, bag_pos, p0, n0, min_bags, smooth)
    for i in (0, 2, 3):
        np.testing.assert_array_equal(binned[i], exact[i])
    if active.all():
        # Every bin holds a covered instance: the thresholds are the exact midpoints
        # (x >= t keeps the values above the midpoint: t is the next double).
        has = exact[0] > 0
        np.testing.assert_array_equal(binned[1][:, 0][has[:, 0]], exact[1][:, 0][has[:, 0]])
        np.testing.assert_array_equal(binned[1][:, 1][has[:, 1]], np.nextafter(exact[1][:, 1], np.inf)[has[:, 1]])


def test_binned_condition_hand_computed(backend):
    # One feature, bins 0..3 (values 0, 1, 2, 3); bags 0 (+): {0, 3}, 1 (+): {1}, 2 (-): {2}, 3 (-): {3}.
    X = np.array([[0.0], [3.0], [1.0], [2.0], [3.0]])
    inst_bag = np.array([0, 0, 1, 2, 3], np.intp)
    pos = np.array([1, 1, 0, 0], np.uint8)
    k = kernel("_rule_split")
    binned = _binned(X, inst_bag, 4)
    np.testing.assert_array_equal(binned.edges[0, :3], [0.5, 1.5, 2.5])
    gain, thr, p, n = k.best_binned_conditions(binned, np.ones(5, np.uint8), pos, 2, 2, 1)
    # x <= 1.5 keeps bags 0 and 1 (2+/0-): 2 * (0 - log2(1/2)) = 2; x <= 0.5 keeps 1+/0-: 1.
    assert gain[0, 0] == 2.0 and thr[0, 0] == 1.5 and (p[0, 0], n[0, 0]) == (2.0, 0.0)
    # x > 0.5 keeps bags 0 (its 3), 1, 2, 3: no gain; x > 1.5 keeps 0, 2, 3: 1+/2-, negative; none.
    assert gain[0, 1] == 0.0 and thr[0, 1] == 0.0
    # Bag 1 uncovered (its instance inactive): bins 0, 2, 3 hold covered instances; the cut
    # between bins 0 and 2 is at the edge midway by index, edges[0] = 0.5.
    active = np.array([1, 1, 0, 1, 1], np.uint8)
    gain, thr, p, n = k.best_binned_conditions(binned, active, pos, 1, 2, 1)
    assert thr[0, 0] == 0.5 and (p[0, 0], n[0, 0]) == (1.0, 0.0)


def test_binned_bag_extremes_hand_computed_and_twins(backend):
    codes = np.array([3, 1, 255, 2, 0, 255], np.uint8)
    inst_bag = np.array([0, 0, 1, 1, 2, 3], np.intp)
    pos = np.array([1, 0, 1, 0], np.uint8)
    w = np.array([1.0, 2.0, 4.0, 8.0])
    results = [m.binned_bag_extremes(codes, np.arange(6), inst_bag, pos, w)
               for m in twins("_bag_counts") if m is not None]
    for other in results[1:]:
        for a, b in zip(results[0], other):
            np.testing.assert_array_equal(a, b)
    lo, hi, cnt, nan_w, extent = results[0]
    # Bag 0 (+): bins 1..3; bag 1 (-): bin 2 and a missing value; bag 2 (+): bin 0; bag 3 (-): missing only.
    assert lo[0, 1] == 1.0 and lo[0, 0] == 4.0 and hi[0, 3] == 1.0 and hi[0, 0] == 4.0
    assert lo[1, 2] == 2.0 and hi[1, 2] == 2.0 and lo[3].sum() == 0.0   # bag 1 has a missing value
    assert lo[2, 1] == 1.0 and lo[2, 0] == 4.0
    assert nan_w == (0.0, 10.0) and extent == (0, 3, 2)
    np.testing.assert_array_equal(cnt[:4], [1, 1, 1, 1])
    with pytest.raises(ValueError, match="increasing"):
        kernel("_bag_counts").binned_bag_extremes(codes, np.array([1, 0]), inst_bag, pos, w)


def _toy_binned(k):
    X = np.array([[1.0, 0.0], [2.0, 1.0], [3.0, 0.5], [4.0, 2.0]])
    rows = BinnedRows(X)
    return k.Binned(rows.codes, rows.edges, rows.n_bins, np.array([0, 0, 1, 2], np.intp), 3), rows


@pytest.mark.parametrize("field, value, match", [
    ("inst_bag", np.array([0, 1, 0, 2], np.intp), "non-decreasing"),
    ("inst_bag", np.array([0, 0, 1, 3], np.intp), "bag indices"),
    ("inst_bag", np.array([0, 0, 1], np.intp), "inst_bag has 3 entries"),
    ("codes", np.full((2, 4), 9, np.uint8), "at or above the feature's n_bins"),
    ("edges", np.zeros((2, 3)), "edges must have shape"),
])
def test_binned_rejects_bad_fields(backend, field, value, match):
    k = kernel("_rule_split")
    binned, rows = _toy_binned(k)
    fields = dict(codes=rows.codes, edges=rows.edges, n_bins=rows.n_bins, inst_bag=binned.inst_bag, n_bags=3)
    fields[field] = value
    with pytest.raises(ValueError, match=match):
        k.Binned(**fields)


def test_binned_is_read_only_and_pickles(backend):
    k = kernel("_rule_split")
    binned, _ = _toy_binned(k)
    assert not binned.one_per_bag
    with pytest.raises(AttributeError, match="read-only"):
        binned.n_bags = 10
    with pytest.raises(ValueError):
        binned.inst_bag[0] = 10**6
    again = pickle.loads(pickle.dumps(binned))
    np.testing.assert_array_equal(again.codes, binned.codes)
    assert again.n_bags == 3 and not again.one_per_bag


@pytest.mark.parametrize("change, error, match", [
    (dict(binned=np.zeros((2, 4), np.uint8)), TypeError, "must be a Binned"),
    (dict(active=np.ones(3, np.uint8)), ValueError, "active has 3 entries"),
    (dict(bag_pos=np.array([1, 0], np.uint8)), ValueError, "bag_pos has 2 entries"),
    (dict(bag_weight=np.array([1.0, -1.0, 1.0])), ValueError, "non-negative"),
    (dict(stop=3), ValueError, "stop must lie in"),
])
def test_binned_search_rejects_bad_arguments(backend, change, error, match):
    k = kernel("_rule_split")
    binned, _ = _toy_binned(k)
    args = dict(binned=binned, active=np.ones(4, np.uint8), bag_pos=np.array([1, 0, 1], np.uint8), p0=2.0,
                n0=1.0, min_bags=1)
    full = k.best_binned_conditions(**args)
    part = k.best_binned_conditions(**args, start=1, stop=2)
    for a, b in zip(full, part):
        np.testing.assert_array_equal(a[1:2], b)
    args.update(change)
    with pytest.raises(error, match=match):
        k.best_binned_conditions(**args)

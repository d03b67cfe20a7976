"""Distinct-bag counting: hand-computed cases, brute force, and twin agreement."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mil._core import kernel, twins


def brute_sweep(inst_bag, bag_pos, bag_weight):
    n = len(inst_bag)
    out = np.zeros((4, n))
    for k in range(n):
        left, right = set(inst_bag[: k + 1]), set(inst_bag[k + 1:])
        out[0, k] = sum(bag_weight[b] for b in left if bag_pos[b])
        out[1, k] = sum(bag_weight[b] for b in left if not bag_pos[b])
        out[2, k] = sum(bag_weight[b] for b in right if bag_pos[b])
        out[3, k] = sum(bag_weight[b] for b in right if not bag_pos[b])
    return out


def test_sweep_hand_computed(backend):
    # Bags 0 (positive) and 1 (negative); bag 0 sits on both sides of cut 0.
    inst_bag = np.array([0, 1, 0, 2], dtype=np.intp)
    bag_pos = np.array([1, 0, 1], dtype=np.uint8)
    w = np.ones(3)
    lp, ln, rp, rn = kernel("_bag_counts").sweep_distinct_bags(inst_bag, bag_pos, w)
    np.testing.assert_array_equal(lp, [1, 1, 1, 2])
    np.testing.assert_array_equal(ln, [0, 1, 1, 1])
    np.testing.assert_array_equal(rp, [2, 2, 1, 0])
    np.testing.assert_array_equal(rn, [1, 0, 0, 0])


def test_sweep_empty_and_distinct(backend):
    k = kernel("_bag_counts")
    empty = np.empty(0, dtype=np.intp)
    bag_pos = np.array([1, 0], dtype=np.uint8)
    w = np.array([0.5, 2.0])
    assert all(a.shape == (0,) for a in k.sweep_distinct_bags(empty, bag_pos, w))
    assert k.distinct_bag_weights(empty, bag_pos, w) == (0.0, 0.0)
    assert k.distinct_bag_weights(np.array([1, 1, 0], dtype=np.intp), bag_pos, w) == (0.5, 2.0)


def test_bag_max(backend):
    k = kernel("_bag_counts")
    values = np.array([1.0, 5.0, -2.0, 3.0, 3.0])
    offsets = np.array([0, 2, 3, 5], dtype=np.intp)
    np.testing.assert_array_equal(k.bag_max(values, offsets), [5.0, -2.0, 3.0])


@st.composite
def sweeps(draw):
    n_bags = draw(st.integers(1, 8))
    n = draw(st.integers(0, 30))
    inst_bag = np.array(draw(st.lists(st.integers(0, n_bags - 1), min_size=n, max_size=n)), dtype=np.intp)
    bag_pos = np.array(draw(st.lists(st.integers(0, 1), min_size=n_bags, max_size=n_bags)), dtype=np.uint8)
    weights = np.array(draw(st.lists(st.floats(0.0, 10.0), min_size=n_bags, max_size=n_bags)))
    return inst_bag, bag_pos, weights


@settings(max_examples=200, deadline=None)
@given(sweeps())
def test_sweep_matches_brute_force_and_twins_agree_bitwise(case):
    inst_bag, bag_pos, w = case
    compiled, python = twins("_bag_counts")
    expected = brute_sweep(inst_bag, bag_pos, w)
    got_py = np.array(python.sweep_distinct_bags(inst_bag, bag_pos, w)).reshape(4, -1)
    np.testing.assert_allclose(got_py, expected, rtol=1e-12, atol=1e-12)
    tot_py = python.distinct_bag_weights(inst_bag, bag_pos, w)
    if len(inst_bag):
        np.testing.assert_allclose(tot_py, got_py[:2, -1], rtol=1e-12, atol=1e-12)
    if compiled is not None:
        got_c = np.array(compiled.sweep_distinct_bags(inst_bag, bag_pos, w)).reshape(4, -1)
        np.testing.assert_array_equal(got_c, got_py)  # bit-identical, not just close
        assert compiled.distinct_bag_weights(inst_bag, bag_pos, w) == tot_py


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=6), min_size=1, max_size=8))
def test_bag_max_twins_agree(bag_values):
    values = np.concatenate([np.array(v) for v in bag_values])
    offsets = np.concatenate([[0], np.cumsum([len(v) for v in bag_values])]).astype(np.intp)
    compiled, python = twins("_bag_counts")
    expected = [max(v) for v in bag_values]
    np.testing.assert_array_equal(python.bag_max(values, offsets), expected)
    if compiled is not None:
        np.testing.assert_array_equal(compiled.bag_max(values, offsets), expected)


def test_scratch_flags_are_cleared_between_calls():
    compiled, _ = twins("_bag_counts")
    if compiled is None:
        pytest.skip("compiled kernel not built")
    inst_bag = np.array([2, 0, 2], dtype=np.intp)
    bag_pos = np.array([1, 1, 0], dtype=np.uint8)
    w = np.ones(3)
    first = compiled.sweep_distinct_bags(inst_bag, bag_pos, w)
    second = compiled.sweep_distinct_bags(inst_bag, bag_pos, w)
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)

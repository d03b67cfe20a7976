"""The shared tree builder with bag weights (used by GDBT-MI)."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mil import Bags
from mil.tree._builder import build_tree


@st.composite
def weighted_bags(draw):
    n_bags = draw(st.integers(3, 9))
    seed = draw(st.integers(0, 2 ** 16))
    rng = np.random.default_rng(seed)
    X = [np.round(rng.normal(size=(rng.integers(1, 4), 2)), 1) for _ in range(n_bags)]
    pos = rng.integers(0, 2, n_bags).astype(np.uint8)
    weight = rng.integers(1, 3, n_bags).astype(np.float64)  # 1 or 2
    return X, pos, weight


# The backend fixture only switches a context for the whole test: safe across examples.
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(weighted_bags(), st.sampled_from(["gain", "gain_ratio"]), st.sampled_from([1, 2]),
       st.sampled_from(["depth", "best"]))
def test_integer_bag_weight_equals_duplicated_bag(backend, data, criterion, min_bags, growth):
    # Distinct-bag counts cannot tell a bag of weight 2 from two copies of it.
    X, pos, weight = data
    bags = Bags.from_list(X)
    kw = dict(criterion=criterion, min_bags_leaf=min_bags, growth=growth, remove_positive_bags=False)
    weighted, _ = build_tree(bags.instances, bags.instance_bag, pos, weight, **kw)
    copies = np.repeat(np.arange(len(X)), weight.astype(int))
    dup = Bags.from_list([X[i] for i in copies])
    duplicated, _ = build_tree(dup.instances, dup.instance_bag, pos[copies], None, **kw)
    np.testing.assert_array_equal(weighted.feature, duplicated.feature)
    np.testing.assert_array_equal(weighted.threshold, duplicated.threshold)
    np.testing.assert_array_equal(weighted.weighted_pos, duplicated.n_pos_bags)
    np.testing.assert_array_equal(weighted.weighted_neg, duplicated.n_neg_bags)


def test_train_leaf_and_leaf_values_for_boosting(backend):
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(3, 2)) + (2.0 if i % 2 else 0.0) for i in range(12)]
    bags = Bags.from_list(X)
    pos = (np.arange(12) % 2).astype(np.uint8)
    w = rng.uniform(0.5, 2.0, 12)
    tree, train_leaf = build_tree(bags.instances, bags.instance_bag, pos, w,
                                  criterion="gain_ratio", max_depth=2, remove_positive_bags=False)
    # Without removal every training instance ends in the leaf apply() routes it to.
    np.testing.assert_array_equal(train_leaf, tree.apply(bags.instances))
    assert tree.max_depth <= 2 and tree.is_leaf[train_leaf].all()
    # Leaf values are writable (a Newton step sets them) and used by predict_value.
    tree.value[tree.is_leaf] = np.arange(tree.n_leaves, dtype=float)
    np.testing.assert_array_equal(tree.predict_value(bags.instances), tree.value[train_leaf])


@settings(max_examples=40, deadline=None)
@given(weighted_bags(), st.sampled_from(["gain", "gain_ratio"]), st.sampled_from(["depth", "best"]),
       st.booleans(), st.integers(0, 2 ** 16))
def test_twins_build_identical_trees_with_real_weights(data, criterion, growth, removal, seed):
    from mil._core import compiled_available, use_backend
    if not compiled_available():
        return
    X, pos, _ = data
    X[0][0, 1] = np.nan
    bags = Bags.from_list([np.nan_to_num(b, nan=0.0) for b in X])  # validated layout ...
    instances = np.vstack(X)                                     # ... with the NaN put back
    w = np.random.default_rng(seed).uniform(0.05, 3.0, len(X))
    trees = []
    for kind in ("compiled", "python"):
        with use_backend(kind):
            trees.append(build_tree(instances, bags.instance_bag, pos, w, criterion=criterion,
                                    growth=growth, remove_positive_bags=removal,
                                    split_shares="children" if seed % 2 else "parent"))
    assert trees[0][0] == trees[1][0]
    np.testing.assert_array_equal(trees[0][1], trees[1][1])

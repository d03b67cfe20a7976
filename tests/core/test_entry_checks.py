"""The kernels' Python entry points check their arguments (both twins, same errors).

Before, ``bag_max(np.zeros(3), [0, 10**8])`` read far outside the array
(a segfault on the compiled path) and ``tree_.apply`` with too few features
read past each row.
"""

import numpy as np
import pytest

from mil import Bags, C45MIClassifier, CitationKNNClassifier
from mil._core import compiled_available, twins
from mil.utils.estimator_checks import make_toy_bags


def _modules(name):
    compiled, python = twins(name)
    mods = [pytest.param(python, id="python")]
    if compiled is not None:
        mods.insert(0, pytest.param(compiled, id="compiled"))
    elif compiled_available():  # pragma: no cover
        raise AssertionError("compiled kernels reported available but missing")
    return mods


@pytest.mark.parametrize("bc", _modules("_bag_counts"))
def test_bag_counts_entry_points(bc):
    with pytest.raises(ValueError, match="must start at 0 and end at the number of rows"):
        bc.bag_max(np.zeros(3), [0, 10**8])
    with pytest.raises(ValueError, match="strictly increasing"):
        bc.bag_max(np.zeros(3), [0, 2, 2, 3])
    with pytest.raises(TypeError, match="float64"):
        bc.bag_max(np.array(["a", "b"]), [0, 2])
    with pytest.raises(ValueError, match="1-D"):
        bc.bag_max(np.zeros((3, 1)), [0, 3])
    np.testing.assert_array_equal(bc.bag_max([1.0, 5.0, 2.0], np.array([0, 2, 3], dtype=np.int32)), [5.0, 2.0])
    pos, w = np.array([1, 0], dtype=np.uint8), np.ones(2)
    for fn in (bc.sweep_distinct_bags, bc.distinct_bag_weights):
        with pytest.raises(ValueError, match=r"bag indices from 0 to 7; they must lie in \[0, 2\)"):
            fn(np.array([0, 7]), pos, w)
        with pytest.raises(ValueError, match="bag_weight has 3 entries"):
            fn(np.array([0, 1]), pos, np.ones(3))
        with pytest.raises(ValueError, match="bag indices from -1"):
            fn(np.array([-1, 1]), pos, w)
    assert bc.distinct_bag_weights(np.array([0, 1, 0]), pos, w) == (1.0, 1.0)


@pytest.mark.parametrize("hk", _modules("_hausdorff"))
def test_hausdorff_entry_points(hk):
    X, off = np.zeros((4, 2)), np.array([0, 1, 4])
    outs = [np.zeros((2, 2)) for _ in range(3)]
    with pytest.raises(ValueError, match="x_offsets must start at 0 and end"):
        hk.hausdorff_matrices(X, np.array([0, 1, 9]), X, off, True, *outs, 0, 2, 64)
    with pytest.raises(ValueError, match=r"out_max has shape \(2, 3\)"):
        hk.hausdorff_matrices(X, off, X, off, False, outs[0], np.zeros((2, 3)), outs[2], 0, 2, 64)
    with pytest.raises(TypeError, match="out_ave must be a writable"):
        hk.hausdorff_matrices(X, off, X, off, False, outs[0], outs[1], np.zeros((2, 2), np.float32), 0, 2, 64)
    with pytest.raises(ValueError, match="row_stop must lie in"):
        hk.hausdorff_matrices(X, off, X, off, True, *outs, 0, 5, 64)
    with pytest.raises(ValueError, match="Y has 3 features but X has 2"):
        hk.hausdorff_matrices(X, off, np.zeros((4, 3)), off, False, *outs, 0, 2, 64)
    with pytest.raises(ValueError, match="block_size must lie in"):
        hk.hausdorff_matrices(X, off, X, off, True, *outs, 0, 2, 0)
    with pytest.raises(ValueError, match="stop must lie in"):
        hk.bag_blocks(off, 0, 3, 64)
    assert list(hk.bag_blocks(off, 0, 2, 64)) == [0, 2]


@pytest.mark.parametrize("gk", _modules("_golden"))
def test_golden_entry_points(gk):
    d, y = np.zeros((3, 3)), np.array([0, 1, 0])
    with pytest.raises(ValueError, match=r"dmin and dmax must be \(3, 3\)"):
        gk.nca_objective(d, np.zeros((2, 2)), y, 0.5, 1.0)
    with pytest.raises(ValueError, match="sigma must be finite and > 0"):
        gk.nca_alpha(d, d, y, 0.0)
    with pytest.raises(TypeError, match="func must be callable"):
        gk.golden_section_max(3.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="lo <= hi"):
        gk.golden_section_max(lambda x: x, 1.0, 0.0)


def test_tree_apply_checks_the_feature_count(backend):
    X, y = make_toy_bags(n_bags=30, n_features=4, random_state=0)
    tree = C45MIClassifier(pruning=False).fit(X, y).tree_
    needed = int(tree.feature.max()) + 1
    assert needed >= 1
    with pytest.raises(ValueError, match="features but the tree splits on feature"):
        tree.apply(np.zeros((5, needed - 1)))
    with pytest.raises(ValueError, match="2-D"):
        tree.apply(np.zeros(needed))
    assert tree.apply(np.zeros((5, 4))).shape == (5,)


def test_bags_with_no_bags_raise_at_fit():
    empty = Bags.from_instances(np.zeros((0, 3)), np.zeros(0, dtype=int))
    assert empty.n_bags == 0
    for est in (CitationKNNClassifier(), C45MIClassifier()):
        with pytest.raises(ValueError, match="Bags with no bags"):
            est.fit(empty, np.zeros(0))

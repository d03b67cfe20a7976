"""Independent sub-seeds: the instance subsample draws a seed of its own from random_state.

With ``random_state=7`` the instance subsample of ``max_instances_per_bag`` used
to start from the integer 7, as did the fit's other draws (GDBT-MI's bag and
feature draws, the forest's tree seeds, a tree's feature order): two streams
from one seed. It now draws a seed from the fit's generator, as scikit-learn
draws sub-seeds.
"""

import numpy as np
import pytest

from mil import Bags
from mil.ensemble import GDBTMIClassifier, MIRandomForestClassifier
from mil.tree import C45MIClassifier
from mil.utils.estimator_checks import make_toy_bags

LEARNERS = {
    "gdbt": lambda: GDBTMIClassifier(n_estimators=3, max_instances_per_bag=2, random_state=7),
    "forest": lambda: MIRandomForestClassifier(n_estimators=3, max_instances_per_bag=2, random_state=7),
    "c45": lambda: C45MIClassifier(max_instances_per_bag=2, random_state=7),
}


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_instance_subsample_has_its_own_seed(name, monkeypatch):
    X, y = make_toy_bags(n_bags=30, max_size=6, random_state=2)
    seeds = []
    real = Bags.subsample_instances
    monkeypatch.setattr(Bags, "subsample_instances",
                        lambda self, k, random_state=None: seeds.append(random_state) or real(self, k, random_state))
    first = LEARNERS[name]().fit(X, y)
    assert len(seeds) == 1 and isinstance(seeds[0], int) and seeds[0] != 7
    # Still repeatable: the same random_state draws the same sub-seed and the same model.
    again = LEARNERS[name]().fit(X, y)
    assert seeds[1] == seeds[0]
    np.testing.assert_array_equal(first.predict_proba(X), again.predict_proba(X))

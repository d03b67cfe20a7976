"""Speed work must not change a rule set: digests of fixed-seed RIPPER-MI fits, both backends.

The digests were taken on main before the distinct-bag sweep (``_bag_counts``)
and the condition search (``_rule_split``) were made faster; a digest covers
every rule's class, conditions (feature, operator and the threshold's exact
bits) and counts, the default rule, and the training bags' class
probabilities (counts and probabilities to 12 significant digits: they are
float sums, whose last bits depend on NumPy's release and the CPU's SIMD). Every parameter is pinned (defaults may change). The cases cover the defaults (collective
assumption with the non-unit "bag" instance weights, unordered rules for
both classes), unit-weight single-instance bags (the benchmark's Musk2
instance table, a slice), the standard assumption in the ordered mode
(Chevaleyre & Zucker), beam search with the likelihood-ratio pre-pruning,
real-valued bag weights, and ten classes in both modes.
"""

import hashlib

import numpy as np
import pytest
from sklearn.datasets import load_digits

from mil import Bags
from mil.datasets import load_dataset
from mil.rules import RipperMIClassifier


def _sums(values):
    # Weighted counts and probabilities to 12 significant digits: NumPy's float reductions round
    # differently across its releases and SIMD paths (AVX-512 against AVX2) in the last bits.
    return " ".join(f"{v:.12g}" for v in np.ravel(np.asarray(values, dtype=np.float64))).encode()


def digest(model, bags):
    h = hashlib.sha256()
    for rule in list(model.rules_) + [model.default_rule_]:
        h.update(str(rule.label).encode())
        for f, op, t in rule.conditions:
            h.update(np.array([f, op], dtype=np.int64).tobytes())
            h.update(np.float64(t).tobytes())
        h.update(_sums(rule.counts))
    h.update(_sums(model.predict_proba(bags)))
    return h.hexdigest()[:16]


def musk(name, n_bags=None):
    data = load_dataset(name)
    if n_bags is None:
        return data.bags, data.target
    keep = np.random.default_rng(0).permutation(data.bags.n_bags)[:n_bags]
    return data.bags.subset(np.sort(keep)), data.target[np.sort(keep)]


def musk2_instances(rows=1500):
    bags, y = musk("musk2")
    X = bags.instances[:rows]
    return Bags.from_instances(X, np.arange(X.shape[0])), y[bags.instance_bag][:rows]


def digits(rows=300):
    X, y = load_digits(return_X_y=True)
    return Bags.from_instances(X[:rows], np.arange(rows)), y[:rows]


def fox_weighted():
    bags, y = musk("fox", 50)
    bags = Bags.from_instances(bags.instances[:, :60], bags.instance_bag)
    w = np.random.default_rng(0).uniform(0.25, 2.0, bags.n_bags)
    return bags, y, w


# Every parameter that shapes the rules is pinned (defaults may change): the values of the
# defaults when the digests were taken.
PINNED = dict(k=2, prune_ratio=1 / 3, min_bags=2, beam_width=1, use_lrs=False, lrs_threshold=3.84,
              smoothing=True, error_check="remaining", rule_order="unordered", conflict="laplace-vote",
              assumption="collective", weighting="bag", class_weight=None)
CZ = dict(assumption="standard", rule_order="ordered", smoothing=False, error_check="prune")

# (expected digest, data, estimator parameters, sample weights or None)
CASES = {
    "musk1-defaults": ("43412fc60cde0e34", lambda: musk("musk1", 24), dict(random_state=0)),
    "musk1-uniform-ordered": ("88c8a1c759cf5d13", lambda: musk("musk1", 50),
                              dict(weighting="uniform", rule_order="ordered", random_state=1)),
    "musk1-standard-cz": ("1672524a0f46d8d7", lambda: musk("musk1"), dict(random_state=0, **CZ)),
    "musk1-standard-beam-lrs": ("aad0d97d9a17d617", lambda: musk("musk1", 60), dict(
        assumption="standard", beam_width=3, use_lrs=True, random_state=2)),
    "musk2-instances-defaults": ("cdc4146002360938", musk2_instances, dict(random_state=0)),
    # Threads share out the features (and fill one compacted copy): the same rules.
    "musk2-instances-threads": ("cdc4146002360938", musk2_instances, dict(random_state=0, n_jobs=2)),
    "musk2-instances-ordered": ("5f33d9add34a748f", musk2_instances, dict(rule_order="ordered", random_state=0)),
    "fox-weights-standard": ("aad3ae20ae116b7c", fox_weighted, dict(assumption="standard", random_state=0)),
    "fox-weights-defaults": ("741f00397f9b9772", fox_weighted, dict(k=1, random_state=3)),
    "digits-unordered": ("3f227ce457a72608", digits, dict(random_state=0)),
    "digits-ordered": ("38c08802077cae3d", digits, dict(rule_order="ordered", random_state=0)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_rule_sets_are_bit_identical_to_before(case, backend):
    expected, data, params = CASES[case]
    data = data()
    bags, y = data[:2]
    weight = data[2] if len(data) > 2 else None
    model = RipperMIClassifier(**{**PINNED, **params}).fit(bags, y, sample_weight=weight)
    assert digest(model, bags) == expected

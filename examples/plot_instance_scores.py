"""
======================================
Instance-level scores inside bags
======================================

Multi-instance learners label bags, but several of them also score each
instance, which shows *which* instances make a bag positive. Here a C4.5-MI
tree gives every instance the smoothed estimate (pi + s) / (pi + nu + 2 s) of
the leaf it reaches, s = ``smoothing``
(:meth:`mil.tree.C45MIClassifier.instance_proba`); a bag's probability is the
maximum over its instances. GDBT-MI's per-instance scores
(:meth:`mil.ensemble.GDBTMIClassifier.instance_scores`) are pooled the same
way, smoothly.

The bars show the scores of the instances of two held-out Fox bags, one
positive and one negative.
"""

import matplotlib.pyplot as plt
import numpy as np

from mil.datasets import load_fox
from mil.tree import C45MIClassifier

data = load_fox()
bags, y = data.bags, data.target
test = data.folds[0] == 0
train_idx, test_idx = np.flatnonzero(~test), np.flatnonzero(test)
tree = C45MIClassifier(growth="best", split_shares="children").fit(bags[train_idx], y[train_idx])

test_bags = bags[test_idx]
scores = tree.instance_proba(test_bags)          # one score per instance, bag after bag
offsets = test_bags.offsets
bag_proba = tree.predict_proba(test_bags)[:, 1]

# The positive and the negative held-out bag the tree is most confident about.
pick_pos = int(np.argmax(np.where(y[test_idx] == 1, bag_proba, -1)))
pick_neg = int(np.argmin(np.where(y[test_idx] == 0, bag_proba, 2)))

fig, axes = plt.subplots(1, 2, figsize=(8, 3.2), sharey=True)
for ax, j, name in ((axes[0], pick_pos, "positive"), (axes[1], pick_neg, "negative")):
    s = scores[offsets[j]:offsets[j + 1]]
    ax.bar(np.arange(len(s)), s, color=np.where(s == s.max(), "tab:red", "tab:gray"))
    ax.set_xticks(np.arange(len(s)))
    ax.axhline(0.5, color="0.3", lw=0.8, ls="--")
    ax.set_xlabel("instance (image segment)")
    ax.set_title(f"a {name} bag: P(positive) = {bag_proba[j]:.2f}")
axes[0].set_ylabel("instance score (leaf estimate)")
fig.suptitle("C4.5-MI instance scores on Fox; the bag takes the maximum (red)")
fig.tight_layout()

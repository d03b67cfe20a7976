"""
====================================================
MILES: selected concepts and instance contributions
====================================================

MILES (Chen, Bi and Wang, 2006) embeds a bag by its similarity to every
training instance (a *concept*) and lets a 1-norm linear SVM keep the few
concepts that separate the classes (:class:`mil.embedding.MILESClassifier`).
Each instance then receives its share of its bag's decision value
(:meth:`~mil.embedding.MILESClassifier.instance_contributions`): the instances
that make a bag positive score high.

Here negative bags hold instances around the origin, and each positive bag
hides one instance near (3, 3) among them. The left panel shows the
training instances and, circled, the concepts the SVM selected; the right
panel colours the instances of new bags by their contribution. C and sigma are
chosen inside ``fit`` by a 2-fold cross-validation over the training bags,
from one instance-to-bag distance pass.
"""

import matplotlib.pyplot as plt
import numpy as np

from mil.embedding import MILESClassifier


def make_bags(n_bags, rng):
    bags, y = [], []
    for i in range(n_bags):
        bag = rng.normal(scale=1.0, size=(rng.integers(3, 8), 2))
        label = i % 2
        if label:
            bag[0] = rng.normal(loc=3.0, scale=0.4, size=2)
        bags.append(bag)
        y.append(label)
    return bags, np.array(y)


rng = np.random.default_rng(0)
train, y_train = make_bags(60, rng)
test, y_test = make_bags(20, rng)

clf = MILESClassifier(scale=None, random_state=0).fit(train, y_train)
print(f"chosen C = {clf.best_params_['C']}, sigma = {clf.sigma_:.2f}; "
      f"{clf.selected_concepts_.size} of {clf.concepts_.shape[0]} concepts selected; "
      f"test accuracy {clf.score(test, y_test):.2f}")

fig, axes = plt.subplots(1, 2, figsize=(9, 4), sharex=True, sharey=True)
inst = np.vstack(train)
labels = np.repeat(y_train, [len(b) for b in train])
axes[0].scatter(*inst[labels == 0].T, s=10, c="tab:blue", label="instances of negative bags")
axes[0].scatter(*inst[labels == 1].T, s=10, c="tab:orange", label="instances of positive bags")
sel = clf.concepts_[clf.selected_concepts_]
weight = clf.coef_[0, clf.selected_concepts_]
axes[0].scatter(*sel.T, s=120, facecolors="none", edgecolors=np.where(weight > 0, "tab:red", "k"),
                linewidths=1.5, label="selected concepts (red: positive weight)")
axes[0].set_title("training instances and selected concepts")
axes[0].legend(loc="lower right", fontsize=7)

scores = clf.instance_contributions(test)
pts = np.vstack(test)
lim = np.abs(scores).max()
im = axes[1].scatter(*pts.T, c=scores, cmap="coolwarm", vmin=-lim, vmax=lim, s=25)
fig.colorbar(im, ax=axes[1], label="instance contribution (share of the bag's decision value)")
axes[1].set_title("instances of new bags, by contribution")
fig.tight_layout()
plt.show()

"""
======================================================
Bag-kernel SVMs: the inner grid over gamma and C
======================================================

:class:`mil.svm.BagKernelSVC` learns an SVM on a kernel between bags. Given
lists of ``gamma`` and ``C``, it chooses the pair by an inner 5-fold
cross-validation over the training bags; the kernels of all the gammas come
from one pass over the instance distances, and every C reuses them. The
heat maps show the inner-CV accuracy (``cv_results_``) of the normalised
set kernel (NSK, Gaertner et al. 2002) and of miGraph's weighted kernel
(Zhou, Sun and Li 2009) on the training bags of one Musk1 fold; the title
gives the accuracy on that fold's held-out bags.
"""

import matplotlib.pyplot as plt
import numpy as np

from mil.datasets import load_musk1
from mil.svm import BagKernelSVC

data = load_musk1()
bags, y = data.bags, data.target
test = data.folds[0] == 0
train_idx, test_idx = np.flatnonzero(~test), np.flatnonzero(test)

C = [0.1, 1, 10, 100]
gamma = [0.25, 0.5, 1, 2, 4]  # multiples of 1 / the median squared instance distance
fig, axes = plt.subplots(1, 2, figsize=(8.5, 3.4), sharey=True)
for ax, kernel in zip(axes, ["nsk", "migraph"]):
    clf = BagKernelSVC(kernel=kernel, C=C, gamma=gamma, random_state=0).fit(bags[train_idx], y[train_idx])
    acc = np.mean(clf.predict(bags[test_idx]) == y[test_idx])
    im = ax.imshow(100 * clf.cv_results_, cmap="viridis", origin="lower", vmin=50, vmax=100)
    ax.set_xticks(range(len(C)), [str(c) for c in C])
    ax.set_yticks(range(len(gamma)), [str(g) for g in gamma])
    ax.set_xlabel("C")
    ax.set_title(f"{kernel}: chose C={clf.C_:g}, test {100 * acc:.0f} %")
axes[0].set_ylabel("gamma (x median heuristic)")
fig.colorbar(im, ax=axes, label="inner-CV accuracy %")
plt.show()

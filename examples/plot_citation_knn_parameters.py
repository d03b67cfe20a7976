"""
=====================================================
Citation-KNN: accuracy against references and sigma
=====================================================

:class:`mil.neighbors.CitationKNNClassifier` with the integrated Hausdorff
distance ``alpha * minimal + (1 - alpha) * maximal`` chooses ``alpha`` on the
training bags with a neighbourhood-components objective of bandwidth
``sigma``. This example draws the 10-fold accuracy on Musk1 (published folds,
repetition 0) against the number of references (citers = references + 2) at
a fixed sigma, and against sigma at a fixed number of references.

:func:`mil.model_selection.nested_cv` computes the bag distance matrices once
and reuses them in every fold and every setting through ``cache``; a grid of
one point makes the inner search trivial.
"""

import matplotlib.pyplot as plt

from mil.datasets import load_musk1
from mil.model_selection import nested_cv
from mil.neighbors import CitationKNNClassifier

data = load_musk1()
cache = {}


def accuracy(references, sigma):
    est = CitationKNNClassifier(metric="integrated", scale=None)
    grid = [{"references": [references], "citers": [references + 2], "sigma": [sigma]}]
    res = nested_cv(est, grid, data.bags, data.target, data.folds[0], inner_cv=2,
                    random_state=0, cache=cache)
    return 100 * res.mean_score


references = [1, 3, 5, 7]
sigmas = [0.1, 1, 10, 100]
by_references = [accuracy(r, 10) for r in references]
by_sigma = [accuracy(3, s) for s in sigmas]

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(8, 3.2), sharey=True)
ax1.plot(references, by_references, "o-")
ax1.set_xlabel("references (citers = references + 2)")
ax1.set_ylabel("10-fold accuracy (%)")
ax1.set_title("sigma = 10")
ax2.semilogx(sigmas, by_sigma, "o-")
ax2.set_xlabel("sigma")
ax2.set_title("3 references")
fig.suptitle("Citation-KNN, integrated distance, Musk1")
fig.tight_layout()

for r, a in zip(references, by_references):
    print(f"references={r}: {a:.1f} %")
for s, a in zip(sigmas, by_sigma):
    print(f"sigma={s}: {a:.1f} %")

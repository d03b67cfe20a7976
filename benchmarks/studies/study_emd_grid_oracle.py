"""EMD kernel SVM: the best fixed grid point picked on the test folds, a bound no inner CV can beat.

Accuracy of each fixed grid point (p, gamma x the median of the training fold's D^p, C) over the
5 x 10 published folds. The best cell is chosen on the test folds: an upper bound for any inner-CV choice over this grid,
never a result to report as one.

    python benchmarks/studies/study_emd_grid_oracle.py DATASET [euclidean|sqeuclidean|cityblock] [standard]

``standard`` standardises the features on all the bags at once (an approximation of the
per-training-fold scaling, so that each pair is solved once).
"""
import sys

import numpy as np
from sklearn.svm import SVC

from mil.datasets import load_dataset
from mil.evaluation import table_splits
from mil.svm import emd_distances

PS = [0.5, 1.0, 2.0]
GAMMAS = [0.0625, 0.125, 0.25, 0.5, 1, 2, 4, 8, 16]
CS = [0.1, 1, 10, 100, 1000]


def main(argv):
    name = argv[0]
    metric = argv[1] if len(argv) > 1 else "euclidean"
    d = load_dataset(name)
    y = np.asarray(d.target)
    bags = list(d.bags)
    if len(argv) > 2 and argv[2] == "standard":
        X = np.vstack(bags)
        mu, sd = X.mean(0), X.std(0)
        sd[sd == 0] = 1
        bags = [(b - mu) / sd for b in bags]
    D = emd_distances(bags, metric=metric)
    acc = np.zeros((len(PS), len(GAMMAS), len(CS)))
    n = 0
    for r in range(5):
        for tr, te in table_splits(d.folds[r]):
            n += 1
            for a, p in enumerate(PS):
                Dp = D ** p
                sub = Dp[np.ix_(tr, tr)]
                ref = np.median(sub[~np.eye(len(tr), dtype=bool)])
                for b, g in enumerate(GAMMAS):
                    K = np.exp(-g / ref * Dp)
                    for c, C in enumerate(CS):
                        s = SVC(kernel="precomputed", C=C).fit(K[np.ix_(tr, tr)], y[tr])
                        acc[a, b, c] += np.mean(s.predict(K[np.ix_(te, tr)]) == y[te])
    acc = 100 * acc / n
    for a, p in enumerate(PS):
        print(f"p={p}  rows gamma x median {GAMMAS}, columns C {CS}")
        for b, g in enumerate(GAMMAS):
            print(f"  {g:7.4f} " + " ".join(f"{v:5.1f}" for v in acc[a, b]))
    a, b, c = np.unravel_index(acc.argmax(), acc.shape)
    print(f"best {acc.max():.1f} at p={PS[a]}, gamma={GAMMAS[b]} x median, C={CS[c]}")


if __name__ == "__main__":
    main(sys.argv[1:])

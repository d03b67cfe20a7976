"""Out-of-fold log loss of Citation-KNN and Bag-KNN against their smoothing and the constant prior.

Five shipped sets, the five published 10-fold repetitions (``data.folds[r]``),
default hyper-parameters; only ``smoothing`` (pseudo-votes per class) varies.
Each fold's test-vs-train distances are computed once and every smoothing
value is scored on them (smoothing does not change the votes).

    python benchmarks/studies/study_knn_smoothing.py                  # all five sets (about 2 min on one core)
    python benchmarks/studies/study_knn_smoothing.py musk1 fox        # some sets
"""

import sys

import numpy as np
from sklearn.metrics import log_loss

from mil import BagKNNClassifier, CitationKNNClassifier
from mil.datasets import load_dataset

SMOOTHING = (0.0, 0.5, 1.0, 2.0, 5.0)


def main(names):
    print(f"{'set':9} {'learner':14} {'prior':>6} {'acc':>6} " + " ".join(f"s={s:<5}" for s in SMOOTHING))
    for name in names:
        d = load_dataset(name)
        X, y, folds = d.data, d.target, d.folds
        p1 = y.mean()
        prior = -(p1 * np.log(p1) + (1 - p1) * np.log(1 - p1))
        for make in (CitationKNNClassifier, BagKNNClassifier):
            probas = {s: [] for s in SMOOTHING}
            truth, correct = [], []
            for r in range(folds.shape[0]):
                for f in range(10):
                    te, tr = np.flatnonzero(folds[r] == f), np.flatnonzero(folds[r] != f)
                    clf = make().fit([X[i] for i in tr], y[tr])
                    D = clf._test_matrix([X[i] for i in te])
                    for s in SMOOTHING:
                        probas[s].append(clf.set_params(smoothing=s)._proba_matrix(D))
                    truth.append(y[te])
                    correct.append(clf.classes_[np.argmax(probas[1.0][-1], axis=1)] == y[te])
            yt = np.concatenate(truth)
            lls = [log_loss(yt, np.concatenate(probas[s]), labels=[0, 1]) for s in SMOOTHING]
            print(f"{name:9} {make.__name__[:-10]:14} {prior:6.3f} {np.mean(np.concatenate(correct)):6.3f} "
                  + " ".join(f"{v:7.3f}" for v in lls), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or ["musk1", "musk2", "elephant", "fox", "tiger"])

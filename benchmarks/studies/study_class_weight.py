"""Does class_weight="balanced" help C4.5-MI? 5 x 10-fold CV on the shipped sets.

Usage: python benchmarks/studies/study_class_weight.py [set ...]   (default: all five)

Every repetition r uses the published folds ``data.folds[r]``; prints, per set
and setting, accuracy and balanced accuracy (mean over the 50 test folds).
"""

import sys
import time

import numpy as np
from sklearn.metrics import accuracy_score, balanced_accuracy_score

from mil.datasets import load_dataset
from mil.tree import C45MIClassifier

SETS = sys.argv[1:] or ["musk1", "musk2", "elephant", "fox", "tiger"]
SETTINGS = {"none": None, "balanced": "balanced"}

for name in SETS:
    d = load_dataset(name)
    y = np.asarray(d.target)
    res = {k: ([], []) for k in SETTINGS}
    t0 = time.perf_counter()
    for r in range(len(d.folds)):
        folds = np.asarray(d.folds[r])
        for f in np.unique(folds):
            test = folds == f
            tr, te = np.flatnonzero(~test), np.flatnonzero(test)
            Xtr, Xte = [d.data[i] for i in tr], [d.data[i] for i in te]
            for key, cw in SETTINGS.items():
                pred = C45MIClassifier(class_weight=cw).fit(Xtr, y[tr]).predict(Xte)
                res[key][0].append(accuracy_score(y[te], pred))
                res[key][1].append(balanced_accuracy_score(y[te], pred))
    share = np.bincount(y).max() / len(y)
    for key, (acc, bacc) in res.items():
        print(f"{name:9s} majority {share:.3f}  class_weight={key:9s} accuracy {np.mean(acc):.4f}  "
              f"balanced accuracy {np.mean(bacc):.4f}", flush=True)
    print(f"{name}: {time.perf_counter() - t0:.0f} s", flush=True)

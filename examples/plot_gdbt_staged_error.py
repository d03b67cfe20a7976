"""
======================================
GDBT-MI: error against boosting rounds
======================================

:class:`mil.ensemble.GDBTMIClassifier` boosts C4.5-MI trees on a bag-level
logistic loss: each bag's score pools the scores of its instances (by default
a log-sum-exp, a smooth maximum), and each round fits a tree to the
pseudo-residuals that flow back to the instances through the pooling.

``staged_decision_function`` gives the model after every round, so the train
and test error can be drawn against the number of rounds
(:func:`mil.ensemble.plot_staged_error`). A quick setting (40 rounds, one
train/test split of Musk1 from its published folds) keeps this example short;
the figure averaged over ten folds with 200 rounds is on the results pages.
"""

import matplotlib.pyplot as plt
import numpy as np

from mil.datasets import load_musk1
from mil.ensemble import GDBTMIClassifier, plot_staged_error

data = load_musk1()
X, y = data.data, data.target
test = data.folds[0] < 3                     # folds 0-2 of repetition 0 held out
X_train = [b for b, t in zip(X, test) if not t]
X_test = [b for b, t in zip(X, test) if t]
y_train, y_test = y[~test], y[test]

clf = GDBTMIClassifier(n_estimators=40, random_state=0).fit(X_train, y_train)
ax = plot_staged_error(clf, X_train, y_train, X_test, y_test,
                       title="GDBT-MI on Musk1 (one split)")
plt.tight_layout()

print(f"test accuracy after {clf.n_estimators_} rounds: {np.mean(clf.predict(X_test) == y_test):.3f}")

"""
=========================
A RIPPER-MI rule set
=========================

:class:`mil.rules.RipperMIClassifier` learns RIPPER rules (Cohen 1995) with
bag-level coverage (Chevaleyre & Zucker 2001): a rule covers a bag when it
covers at least one of its instances, and every count is a number of bags. A
bag is predicted positive when some rule covers it.

The rule set is printed, then each rule's coverage of the training bags is
drawn: positive bags covered (true positives) against negative bags covered
(false positives).
"""

import matplotlib.pyplot as plt
import numpy as np

from mil.datasets import load_tiger
from mil.rules import RipperMIClassifier

data = load_tiger()
X, y = data.data, data.target
clf = RipperMIClassifier(assumption="standard", rule_order="ordered", random_state=0).fit(X, y)
print(clf.export_text())

# %%
# Coverage of each rule
# ---------------------
# ``rules_`` holds the learned rules with their counts ``p`` (positive bags
# covered) and ``n`` (negative bags covered) on the data they were grown on.

rules = clf.rules_
labels = [f"rule {i + 1}\n{len(r.conditions)} condition(s)" for i, r in enumerate(rules)]
p = np.array([r.p for r in rules])
n = np.array([r.n for r in rules])
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.barh(labels, p, color="tab:red", label="positive bags covered")
ax.barh(labels, -n, color="tab:blue", label="negative bags covered")
ax.axvline(0, color="0.3", lw=0.8)
ax.invert_yaxis()
ax.set_xlabel("bags (negative to the left, positive to the right)")
ax.legend(loc="lower right", fontsize=8)
ax.set_title("RIPPER-MI on Tiger")
fig.tight_layout()

print(f"training accuracy: {np.mean(clf.predict(X) == y):.3f}")

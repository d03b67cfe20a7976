"""
=================================
A fitted multi-instance tree
=================================

C4.5-MI (:class:`mil.tree.C45MIClassifier`) grows a decision tree on the
instances, scoring each split by the multi-instance gain computed on the
numbers of *distinct* positive and negative bags on each side (Chevaleyre &
Zucker 2001). A bag is predicted positive when one of its instances reaches a
positive leaf.

Here a tree limited to depth 5 is fitted on Musk1 (molecules as bags of
conformations, 166 shape features), printed with :func:`mil.tree.export_text`
and drawn from its flat arrays. Multi-instance trees tend to grow chains: each
split cuts off a pure group of bags and the rest continues down one branch.
"""

import matplotlib.pyplot as plt
import numpy as np

from mil.datasets import load_musk1
from mil.tree import C45MIClassifier, export_text

data = load_musk1()
X, y = data.data, data.target
tree = C45MIClassifier(max_depth=5, growth="best", split_shares="children").fit(X, y)
print(export_text(tree))

# %%
# Drawing the tree
# ----------------
# ``tree.tree_`` stores the fitted tree as flat arrays: ``feature`` and
# ``threshold`` of each internal node, ``children_left``/``children_right``,
# and for every node the distinct positive (pi) and negative (nu) bags that
# reached it during training. Leaves are coloured by their Laplace estimate
# ``(pi + 1) / (pi + nu + 2)``, the probability that an instance reaching
# them comes from a positive bag.

t = tree.tree_


def layout(node, depth, x0, x1, pos):
    """Place each node at the middle of the horizontal span its leaves need."""
    pos[node] = ((x0 + x1) / 2, -depth)
    if t.children_left[node] >= 0:
        left, right = t.children_left[node], t.children_right[node]
        n_left, n_right = leaves(left), leaves(right)
        mid = x0 + (x1 - x0) * n_left / (n_left + n_right)
        layout(left, depth + 1, x0, mid, pos)
        layout(right, depth + 1, mid, x1, pos)
    return pos


def leaves(node):
    if t.children_left[node] < 0:
        return 1
    return leaves(t.children_left[node]) + leaves(t.children_right[node])


pos = layout(0, 0, 0.0, 1.0, {})
fig, ax = plt.subplots(figsize=(9, 5.5))
cmap = plt.get_cmap("coolwarm")
for node, (x, yy) in pos.items():
    for child in (t.children_left[node], t.children_right[node]):
        if child >= 0:
            ax.plot([x, pos[child][0]], [yy, pos[child][1]], color="0.6", zorder=1)
    if t.children_left[node] >= 0:
        text = f"x{t.feature[node]} <= {t.threshold[node]:.2f}\npi={t.n_pos_bags[node]} nu={t.n_neg_bags[node]}"
        color = "white"
    else:
        text = f"leaf p={t.value[node]:.2f}\npi={t.n_pos_bags[node]} nu={t.n_neg_bags[node]}"
        color = cmap(t.value[node])
    ax.text(x, yy, text, ha="center", va="center", fontsize=8, zorder=2,
            bbox=dict(boxstyle="round", facecolor=color, edgecolor="0.4"))
ax.set_xlim(-0.05, 1.05)
ax.set_ylim(-t.max_depth - 0.5, 0.5)
ax.axis("off")
ax.set_title(f"C4.5-MI on Musk1: {tree.get_n_leaves()} leaves, depth {tree.get_depth()}")
fig.tight_layout()

# %%
# Training accuracy of this small tree, bag by bag:
print(f"training accuracy: {np.mean(tree.predict(X) == y):.3f}")

"""Multi-instance decision trees: ID3-MI and C4.5-MI, bag-ratio trees, and their printed form.

ID3-MI: Chevaleyre & Zucker, "Solving multiple-instance and multiple-part
learning problems with decision trees and rule sets. Application to the
mutagenesis problem" (Canadian AI 2001); C4.5 (Quinlan, "C4.5: Programs for
Machine Learning", 1993) with the same multi-instance gain.

The split machinery (:func:`mil.tree._builder.build_tree`, the compiled
kernel ``mil._core._tree_split``) is shared with GDBT-MI and the MI random
forest. The bag-ratio tree (:class:`BagRatioTree`, whose rules send whole bags
by a share of their instances) is the tree of bag-level randomized trees and
of GDBT-MI's ``split="bag-ratio"``. :func:`export_text` prints any of these
trees, alone or as a member of a fitted ensemble.
"""

from mil.tree._bag_ratio import BagRatioTree
from mil.tree._classes import C45MIClassifier, ID3MIClassifier
from mil.tree._pruning import prune_reduced_error
from mil.tree._export import export_text
from mil.tree._tree import Tree

__all__ = ["ID3MIClassifier", "C45MIClassifier", "Tree", "BagRatioTree", "export_text", "prune_reduced_error"]

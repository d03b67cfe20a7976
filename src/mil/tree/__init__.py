"""Multi-instance decision trees: ID3-MI and C4.5-MI (SPEC 6).

The split machinery (:func:`mil.tree._builder.build_tree`, the compiled
kernel ``mil._core._tree_split``) is shared with GDBT-MI.
"""

from mil.tree._classes import C45MIClassifier, ID3MIClassifier
from mil.tree._export import export_text
from mil.tree._tree import Tree

__all__ = ["ID3MIClassifier", "C45MIClassifier", "Tree", "export_text"]

"""mil: multi-instance learning in the scikit-learn style, with compiled kernels.

Each example is a bag (a 2-D array of instances) with one label for the
whole bag. See the documentation (user guide and API reference) for the
learners and ``mil.show_config()`` for which implementation (compiled or pure Python) each kernel uses.
"""

__version__ = "0.1.0"

from mil import _core  # noqa: F401  resolves the kernels (and enforces MIL_REQUIRE_COMPILED)
from mil._config import show_config
from mil.bags import Bags
from mil.embedding import (BagDissimilarityEmbedding, FisherVectorEmbedding, KernelMeanClassifier, KernelMeanEmbedding,
                           MILESClassifier, MILESEmbedding, MInDClassifier, SlicedWassersteinClassifier,
                           SlicedWassersteinEmbedding, VLADEmbedding, miFVClassifier, miVLADClassifier)
from mil.embedding import (KernelMeanRegressor, MInDRegressor, SlicedWassersteinRegressor, miFVRegressor,
                           miVLADRegressor)
from mil.ensemble import (BagRandomTreesClassifier, BagRandomTreesRegressor, GDBTMIClassifier, GDBTMIRegressor,
                          MIRandomForestClassifier, make_recommended_classifier)
from mil.neighbors import BagKNNClassifier, BagKNNRegressor, CitationKNNClassifier, CitationKNNRegressor
from mil.preprocessing import BagScaler
from mil.rules import RipperMIClassifier
from mil.svm import BagKernelSVC, BagKernelSVR, MISVMClassifier, miSVMClassifier
from mil.tree import C45MIClassifier, ID3MIClassifier
from mil.wrappers import (MIWrapperClassifier, MIWrapperRegressor, PrimaryInstanceRegressor, SimpleMIClassifier,
                          SimpleMIRegressor, SingleInstanceClassifier)


def get_include():
    """Directory to put on a Cython include path to ``cimport mil.cython_kernels``.

    Returns
    -------
    path : str
        The directory that contains the ``mil`` package (its ``.pxd`` files
        ship with it). See the user guide page :doc:`/user_guide/kernels`.

    Examples
    --------
    >>> import os, mil
    >>> os.path.isfile(os.path.join(mil.get_include(), "mil", "cython_kernels.pxd"))
    True
    """
    import os

    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


__all__ = ["BagDissimilarityEmbedding", "BagKernelSVC", "BagKernelSVR", "BagKNNClassifier", "BagKNNRegressor",
           "BagRandomTreesClassifier", "Bags", "BagScaler", "C45MIClassifier", "CitationKNNClassifier",
           "CitationKNNRegressor", "FisherVectorEmbedding", "GDBTMIClassifier",
           "ID3MIClassifier", "KernelMeanClassifier", "KernelMeanEmbedding", "miFVClassifier", "miVLADClassifier",
           "MILESClassifier", "MILESEmbedding", "MInDClassifier", "MIRandomForestClassifier", "MISVMClassifier",
           "miSVMClassifier", "MIWrapperClassifier", "MIWrapperRegressor", "RipperMIClassifier",
           "PrimaryInstanceRegressor", "SimpleMIClassifier", "SimpleMIRegressor",
           "SingleInstanceClassifier", "SlicedWassersteinClassifier", "SlicedWassersteinEmbedding",
           "VLADEmbedding", "KernelMeanRegressor", "MInDRegressor", "SlicedWassersteinRegressor",
           "miFVRegressor", "miVLADRegressor", "GDBTMIRegressor", "BagRandomTreesRegressor", "get_include",
           "make_recommended_classifier", "show_config",
           "__version__"]

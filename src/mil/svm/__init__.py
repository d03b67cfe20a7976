"""Support vector machines for bags: bag kernels (NSK, miGraph, EMD, Hausdorff) and mi-SVM / MI-SVM.

- :class:`BagKernelSVC`: scikit-learn's ``SVC(kernel="precomputed")`` on a
  kernel between bags, with the (gamma, C) grid tuned inside ``fit``;
  :class:`BagKernelSVR`, epsilon-SVR or kernel ridge on the same kernels.
- :func:`set_kernel`, :func:`migraph_weights`, :func:`emd_distances`: the
  kernels and distances themselves.
- :class:`miSVMClassifier`, :class:`MISVMClassifier`: Andrews et al.'s
  alternating instance-level SVMs, with instance scores.
"""

from mil.svm._bag_svc import BagKernelSVC
from mil.svm._bag_svr import BagKernelSVR
from mil.svm._kernels import emd_distances, migraph_weights, set_kernel
from mil.svm._mi_svm import MISVMClassifier, miSVMClassifier

__all__ = ["BagKernelSVC", "BagKernelSVR", "MISVMClassifier", "miSVMClassifier", "set_kernel", "migraph_weights",
           "emd_distances"]

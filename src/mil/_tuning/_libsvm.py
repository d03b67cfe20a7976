"""The inner grid's SVMs on a precomputed kernel, fitted by libsvm without the per-fit checks.

An inner fold of a kernel learner fits scikit-learn's ``SVC(kernel="precomputed")`` once per grid
point on a kernel slice the engine built itself (finite, float64, C-ordered, two classes coded 0
and 1), and reads only its decision values. ``SVC.fit`` spends most of such a fit on bag-sized
kernels validating its input (``validate_data``, ``type_of_target``, ``compute_class_weight``):
about three times the solver's own time on a few hundred bags. :func:`svc_decision` calls the
solver scikit-learn's ``SVC.fit`` calls (``sklearn.svm._libsvm.fit``, with the arguments
``SVC.fit`` passes it: the same class weights of one, the same seed drawn from the model's
`random_state`) and returns the decision values ``SVC.decision_function`` would, to the last bit
for the same fit (the dual coefficients and intercept negated for two classes as ``SVC`` does,
the product as :func:`mil._tuning._engine` computes it for the fitted ``SVC``).

It handles only that case and returns None otherwise (another model, a class weight,
probabilities, other labels, a solver module whose call fails, coefficients that are not finite,
which ``SVC.fit`` reports as an error), so the caller fits the ``SVC`` itself. The refit on all the
training bags is always a real ``SVC``. ``tests/test_tuning.py`` compares the two on every fit.
"""

import numpy as np
from sklearn.svm import SVC
from sklearn.utils import check_random_state

try:  # scikit-learn's compiled libsvm binding (private: any failure falls back to SVC.fit)
    from sklearn.svm import _libsvm
except ImportError:  # pragma: no cover - present in every supported scikit-learn
    _libsvm = None

__all__ = ["svc_decision"]

#: ``SVC``'s index of the C-SVC formulation among libsvm's (``LIBSVM_IMPL``).
_C_SVC = 0


def _plain_precomputed_svc(model):
    """Whether `model` is an ``SVC`` on a precomputed kernel with nothing :func:`svc_decision`
    does not reproduce (a class weight, probabilities, a subclass)."""
    return (type(model) is SVC and model.kernel == "precomputed" and model.class_weight is None
            and model.probability in (False, "deprecated") and not model.verbose)


def svc_decision(model, K_train, y, sample_weight, K_test):
    """Decision values on `K_test` of the unfitted `model` fitted on (`K_train`, `y`), or None.

    Parameters
    ----------
    model : estimator
        The grid point's unfitted model.
    K_train : ndarray of shape (n_train, n_train)
        The training kernel (float64, finite).
    y : ndarray of shape (n_train,)
        Class index 0 or 1, both present.
    sample_weight : ndarray of shape (n_train,) or None
    K_test : ndarray of shape (n_test, n_train)

    Returns
    -------
    decision : ndarray of shape (n_test,) or None
        ``SVC.decision_function(K_test)`` of the fitted model (> 0: class
        1); None when the model is not a plain two-class ``SVC`` on a
        precomputed kernel, or libsvm's binding does not answer as
        ``SVC.fit`` expects: the caller then fits ``model`` itself.
    """
    if _libsvm is None or not _plain_precomputed_svc(model) or K_train.shape[0] != K_train.shape[1]:
        return None
    classes, y_index = np.unique(y, return_inverse=True)
    if classes.shape[0] != 2 or classes[0] != 0 or classes[1] != 1:
        return None
    # SVC.fit draws its libsvm seed from the model's random_state (the global generator for None)
    # whether or not it is used: drawn the same way, so the caller's random state moves as before.
    seed = check_random_state(model.random_state).randint(np.iinfo("i").max)
    try:
        _libsvm.set_verbosity_wrap(0)
        out = _libsvm.fit(
            np.ascontiguousarray(K_train, dtype=np.float64), np.asarray(y_index, dtype=np.float64, order="C"),
            svm_type=_C_SVC, sample_weight=np.asarray([] if sample_weight is None else sample_weight,
                                                      dtype=np.float64),
            class_weight=np.ones(2, dtype=np.float64), kernel="precomputed", C=model.C, nu=model.nu,
            probability=False, degree=model.degree, shrinking=model.shrinking, tol=model.tol,
            cache_size=model.cache_size, coef0=model.coef0, gamma=0.0, epsilon=model.epsilon,
            max_iter=model.max_iter, random_seed=seed)
        support, dual_coef, intercept = out[0], out[3], out[4]
    except (TypeError, ValueError, IndexError):  # a binding that changed its call: SVC.fit instead
        return None
    if not (np.isfinite(dual_coef).all() and np.isfinite(intercept).all()):
        return None  # SVC.fit raises its own error for these
    # Two classes: SVC negates libsvm's coefficients and intercept (SVC.fit), then
    # decision_function is K[:, support] @ dual_coef_[0] + intercept_[0] (mil._tuning._engine).
    return K_test[:, support] @ (-dual_coef[0]) + (-intercept[0])

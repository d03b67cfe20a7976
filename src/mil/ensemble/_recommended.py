"""The recommended classifier: a soft vote of MInD, the EMD kernel SVM and BLRT.

One learner from each of mil's strongest families (bag embeddings, bag
kernel SVMs, tree ensembles), averaged by scikit-learn's own
:class:`~sklearn.ensemble.VotingClassifier`.
"""

from sklearn.ensemble import VotingClassifier

from mil.embedding import MInDClassifier
from mil.ensemble._blrt import BagRandomTreesClassifier
from mil.svm import BagKernelSVC
from mil.svm._kernels import require_pot

__all__ = ["RECOMMENDED_MEMBERS", "make_recommended_classifier"]

#: The names of the vote's members, in the order of ``estimators`` (the command line's names).
RECOMMENDED_MEMBERS = ("mind", "emd-svm", "blrt")


def make_recommended_classifier(random_state=None, n_jobs=None):
    """A soft vote of MInD, the EMD kernel SVM and BLRT, with equal weights.

    The members are ``mind`` (:class:`~mil.embedding.MInDClassifier` at its
    defaults: bag dissimilarities and an RBF SVM, C and gamma tuned by an
    inner CV), ``emd-svm`` (:class:`~mil.svm.BagKernelSVC` on the earth
    mover's distance between bags: ``kernel="emd"``, unscaled features
    (``scale=None``), gamma, C and the power ``p`` in (1, 2) tuned by an
    inner CV repeated 3 times) and ``blrt``
    (:class:`~mil.ensemble.BagRandomTreesClassifier` at its defaults: 100
    bag-level randomized trees); the command line's learners of the same
    names are these.
    The vote is scikit-learn's :class:`~sklearn.ensemble.VotingClassifier`
    with ``voting="soft"``: ``predict_proba`` is the mean of the three
    members' ``predict_proba`` and ``predict`` its most probable class.

    The rule was fixed before it was measured: equal weights over the best
    learner of each family whose five-set mean accuracy (5 published
    repetitions x 10 folds of Musk1, Musk2, Elephant, Fox and Tiger) is at
    least 80 %. The measured rows are on the results pages.
    All three members treat the two classes alike, so any two labels work
    without naming the positive class; more than two classes work too.

    Cost: fitting fits each member once on all the training bags (one after
    another), so its time is the sum of the members': about 6 times MInD's
    alone on Musk1 and 8 times on 200 bags of 5-40 instances x 10 features,
    most of it the EMD SVM's. Prediction runs the three fitted members, and
    the fitted vote holds all three models.

    Parameters
    ----------
    random_state : int, RandomState instance or None, default=None
        Passed to every member's ``random_state`` (the inner-CV shuffles of
        MInD and the EMD SVM, BLRT's random rules). An int makes the fit
        reproducible; None draws afresh at every fit.
    n_jobs : int or None, default=None
        Passed to every member's ``n_jobs`` (the threads of their distance
        passes, BLRT's trees). The members are fitted one after another.

    Returns
    -------
    classifier : sklearn.ensemble.VotingClassifier
        Unfitted, with ``estimators=[("mind", ...), ("emd-svm", ...),
        ("blrt", ...)]`` and ``voting="soft"``. Change a member's
        parameter through the usual nested names, e.g.
        ``set_params(blrt__n_estimators=200)``.

    Raises
    ------
    ImportError
        When the optional POT library (the earth mover's distance) is not
        installed: ``pip install "scikit-mil[ot]"``.

    See Also
    --------
    mil.embedding.MInDClassifier, mil.svm.BagKernelSVC,
    mil.ensemble.BagRandomTreesClassifier
    sklearn.ensemble.VotingClassifier : The vote itself.

    Notes
    -----
    On the command line the same classifier is ``mil evaluate --model
    recommended`` (listed by ``mil --help`` when POT is installed), seeded
    by ``--seed``. See :doc:`/user_guide/cli`.

    Examples
    --------
    >>> from mil.ensemble import make_recommended_classifier
    >>> from mil.utils.estimator_checks import make_toy_bags
    >>> X, y = make_toy_bags(n_bags=40, random_state=0)
    >>> clf = make_recommended_classifier(random_state=0)
    >>> [name for name, _ in clf.estimators]
    ['mind', 'emd-svm', 'blrt']
    >>> clf.fit(X[:30], y[:30]).predict_proba(X[30:]).shape
    (10, 2)
    """
    require_pot()
    common = {"random_state": random_state, "n_jobs": n_jobs}
    members = [MInDClassifier(**common),
               BagKernelSVC(kernel="emd", scale=None, p=(1.0, 2.0), cv_repeats=3, **common),
               BagRandomTreesClassifier(**common)]
    return VotingClassifier(list(zip(RECOMMENDED_MEMBERS, members)), voting="soft")

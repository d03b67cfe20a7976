"""Model inspection on bags: permutation feature importance at bag level."""

import numpy as np
from joblib import Parallel, delayed
from sklearn.metrics import check_scoring
from sklearn.utils import Bunch

from mil.utils._seeds import sub_seeds
from mil.utils.validation import bag_feature_names, check_bags, shown

__all__ = ["permutation_importance"]


def _scores_of_feature(estimator, bags, y, scorer, column, n_repeats, seed, weight):
    """Scores with `column` permuted across all instances, `n_repeats` times."""
    rng = np.random.RandomState(seed)
    instances = bags.instances.copy()
    original = instances[:, column].copy()
    permuted = type(bags)._trusted(instances, bags.offsets, bags.ids, bags.feature_names)
    out = np.empty(n_repeats)
    for r in range(n_repeats):
        instances[:, column] = original[rng.permutation(original.shape[0])]
        out[r] = scorer(estimator, permuted, y, **weight)
    return out


def permutation_importance(estimator, X, y, *, scoring=None, n_repeats=5, n_jobs=None, random_state=None,
                           sample_weight=None):
    """Permutation importance of each feature for a fitted bag classifier.

    The bag version of :func:`sklearn.inspection.permutation_importance`:
    a feature's values are shuffled across all instances of all bags (the
    bags keep their sizes and their other features), the bags are scored
    with `scoring`, and the importance is the drop from the score on the
    intact bags. scikit-learn's function cannot take bags (it indexes a 2-D
    X by column).

    Parameters
    ----------
    estimator : fitted bag classifier
    X : sequence of 2-D arrays or Bags
        Bags to score on (held-out bags measure what the model generalises;
        training bags what it uses). Dense only.
    y : array-like of shape (n_bags,)
    scoring : str or callable, default=None
        A scikit-learn scorer name (``"accuracy"``, ``"roc_auc"``, ...) or
        callable ``scorer(estimator, X, y)``; None uses ``estimator.score``.
    n_repeats : int, default=5
        Shuffles per feature.
    n_jobs : int, default=None
        Features scored in parallel (joblib threads); the result does not
        depend on it.
    random_state : int, RandomState or None, default=None
        Seeds the shuffles (one seed per feature, drawn in feature order).
    sample_weight : array-like of shape (n_bags,), default=None
        Passed to the scorer.

    Returns
    -------
    result : sklearn.utils.Bunch
        ``importances_mean`` and ``importances_std`` (n_features,),
        ``importances`` (n_features, n_repeats): baseline score minus the
        score with the feature shuffled; ``baseline_score``; and
        ``feature_names`` (the bags' or the estimator's, else None).

    Examples
    --------
    >>> import numpy as np
    >>> from mil.tree import C45MIClassifier
    >>> from mil.inspection import permutation_importance
    >>> rng = np.random.default_rng(0)
    >>> X = [rng.random((3, 2)) + [[5 * (b % 2), 0]] * np.eye(3, 1) for b in range(40)]
    >>> y = np.arange(40) % 2
    >>> clf = C45MIClassifier().fit(X, y)
    >>> r = permutation_importance(clf, X, y, random_state=0)
    >>> bool(r.importances_mean[0] > 0.3), float(r.importances_mean[1])
    (True, 0.0)
    """
    names = bag_feature_names(X)
    if names is None:
        names = getattr(estimator, "feature_names_in_", None)
    bags = check_bags(X, allow_nan=True, accept_sparse=True, estimator="permutation_importance")
    if bags.is_sparse:
        raise TypeError("permutation_importance needs dense bags (it shuffles one feature column); "
                        "convert them with Bags.toarray()")
    if names is not None and len(names) == bags.n_features:
        bags = bags.with_feature_names(names)  # the estimator's feature-name check sees the fitted names
    y = np.asarray(y)
    if y.shape[0] != bags.n_bags:
        raise ValueError(f"y has {y.shape[0]} labels but X has {bags.n_bags} bags")
    if isinstance(n_repeats, bool) or not isinstance(n_repeats, (int, np.integer)) or n_repeats < 1:
        raise ValueError(f"n_repeats must be a positive integer; got {shown(n_repeats)}")
    scorer = check_scoring(estimator, scoring=scoring)
    weight = {} if sample_weight is None else {"sample_weight": np.asarray(sample_weight)}
    baseline = scorer(estimator, bags, y, **weight)
    seeds = sub_seeds(random_state, bags.n_features)
    scores = Parallel(n_jobs=n_jobs, prefer="threads")(
        delayed(_scores_of_feature)(estimator, bags, y, scorer, j, n_repeats, seeds[j], weight)
        for j in range(bags.n_features))
    importances = baseline - np.array(scores).reshape(bags.n_features, n_repeats)
    return Bunch(importances_mean=importances.mean(axis=1), importances_std=importances.std(axis=1),
                 importances=importances, baseline_score=float(baseline),
                 feature_names=None if names is None else np.asarray(names, dtype=object))
